//! The calls the model makes, by name: one handler per bridge tool
//! (`tool_search_code` → code mode, `search.rs`, `describe.rs`, and
//! `call.rs` for `tool_call` and tools called directly), each run for one
//! [`Turn`]: a conversation's request against the shared host.

mod call;
mod describe;
mod search;
mod turn;

use serde_json::Value;

use crate::dispatch::CallOptions;
use crate::error::ErrorCode;
use crate::output::ToolOutput;
use crate::vocab::BridgeTool;
pub(crate) use turn::Turn;

impl Turn<'_> {
    /// Runs one call of the model, traced, ending at once with `CANCELLED`
    /// when `opts.cancel` fires.
    pub(crate) async fn run(&self, name: &str, args: Value, opts: &CallOptions) -> ToolOutput {
        use tracing::Instrument;
        // Ids and names only: arguments stay out of traces.
        let span = tracing::info_span!("toolsearch.call", tool = name, session = %self.session.id);
        let run = self.handle(name, args, opts).instrument(span);
        tokio::select! {
            out = run => out,
            () = opts.cancel.cancelled() => ToolOutput::error(ErrorCode::Cancelled, "the call was cancelled by its caller"),
        }
    }

    /// Handles one call from the model: a bridge tool or a tool sent directly.
    async fn handle(&self, name: &str, args: Value, opts: &CallOptions) -> ToolOutput {
        let Some(bridge) = BridgeTool::from_name(name) else {
            return self.direct_call(name, args, opts).await;
        };
        match bridge {
            BridgeTool::SearchCode => {
                let cx = self.context(opts);
                self.code.run(self.host, self.scope(), cx, args).await
            }
            BridgeTool::Search => self.search_tool(&args),
            BridgeTool::Describe => self.describe_tool(&args),
            BridgeTool::Call => self.tool_call(&args, opts).await,
        }
    }
}

/// A string or a list of strings (non-strings in the list are skipped); `None` for
/// anything else. How `tool_search` takes queries and `tool_describe` takes ids.
fn strings(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::String(s) => Some(vec![s.clone()]),
        Value::Array(items) => Some(
            items
                .iter()
                .filter_map(|i| i.as_str().map(String::from))
                .collect(),
        ),
        _ => None,
    }
}
