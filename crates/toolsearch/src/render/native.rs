//! Native mode: the provider hosts tool search. Deferred tools are sent in full with
//! `defer_loading: true` beside the provider's search tool, and the provider keeps
//! them out of the prompt until a search loads them.
//!
//! - **Anthropic** (beta header [`ANTHROPIC_BETA`](crate::native::ANTHROPIC_BETA)): the hosted
//!   `tool_search_tool_bm25_20251119` / `tool_search_tool_regex_20251119`, or (the
//!   default) our own `tool_search` as a client tool whose answer is
//!   `tool_reference` blocks: our ranking, policy and telemetry pick what loads.
//! - **OpenAI Responses**: `{"type": "tool_search"}`, hosted or (the default)
//!   `execution: "client"`, with deferred functions grouped into namespaces by
//!   server (at most [`NAMESPACE_SIZE`](crate::native::NAMESPACE_SIZE) functions each, as the provider advises);
//!   a `tool_search_call` item is answered by [`ToolSearch::answer_tool_search`](crate::ToolSearch::answer_tool_search)
//!   with a `tool_search_output` carrying the matched functions.
//!
//! Other providers host no search: `native` there is refused at build, and `auto`
//! sends code mode.

use serde_json::{json, Value};

use crate::plan::Plan;
use crate::settings::modes::{NativeSearch, NativeSettings};
use crate::settings::SearchLimits;
use crate::vocab::{BridgeTool, Provider};
use crate::wire::openai::{layout, namespaces};
use crate::wire::{self, anthropic};

/// What native mode sends.
pub(crate) struct NativeList {
    pub tools: Vec<Value>,
    /// Definitions the model sees in full up front (the deferred ones are loaded
    /// by the provider on search).
    pub full: usize,
}

const SEARCH_DESCRIPTION: &str = "Search the deferred tools by task or by exact name; the \
matching tools are loaded and can then be called directly.";

fn search_schema(limits: SearchLimits) -> Value {
    json!({"type": "object", "properties": {
        "query": {"type": "string", "description": "The task, or a tool's exact name"},
        "limit": {"type": "integer", "minimum": 1, "maximum": limits.max}
    }, "required": ["query"]})
}

/// The list of one turn in native mode: the tools sent in full, the search tool,
/// then the deferred tools (stable order, so the prompt cache holds).
pub(crate) fn native_list(
    plan: &Plan,
    provider: Provider,
    settings: &NativeSettings,
    limits: SearchLimits,
) -> NativeList {
    let names = plan.all_names();
    let mut tools = super::full(plan, provider, names, &plan.direct);
    let deferred = plan.deferred();
    match provider {
        Provider::OpenAiResponses => {
            tools.push(match settings.search {
                NativeSearch::Client => json!({
                    "type": "tool_search",
                    "execution": "client",
                    "description": SEARCH_DESCRIPTION,
                    "parameters": search_schema(limits),
                }),
                NativeSearch::Hosted | NativeSearch::HostedRegex => json!({"type": "tool_search"}),
            });
            tools.extend(namespaces(plan, names, &layout(plan, &deferred), &|_| true));
        }
        Provider::Anthropic => {
            tools.push(match settings.search {
                NativeSearch::Client => wire::definition(
                    provider,
                    BridgeTool::Search.name(),
                    SEARCH_DESCRIPTION,
                    &search_schema(limits),
                ),
                NativeSearch::Hosted => {
                    json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
                }
                NativeSearch::HostedRegex => {
                    json!({"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"})
                }
            });
            for &i in &deferred {
                let t = &plan.visible[i];
                let mut d = wire::definition(
                    provider,
                    &names[i],
                    &t.description,
                    &wire::canonical(&t.input_schema),
                );
                d["defer_loading"] = Value::Bool(true);
                tools.push(d);
            }
        }
        // No hosted search: `plan::shape` never picks native for these.
        Provider::OpenAiChat | Provider::Gemini | Provider::Mcp => {}
    }
    NativeList {
        tools,
        full: plan.direct.len(),
    }
}

/// The answer of our `tool_search` in native mode for `provider`: Anthropic's
/// `tool_reference` blocks (a `tool_result` content) for the matched `ids`.
/// `None` for providers whose search does not come as a function call.
pub(crate) fn search_answer(plan: &Plan, provider: Provider, ids: &[String]) -> Option<Value> {
    match provider {
        Provider::Anthropic => {}
        // A `tool_search_call` item, answered by `ToolSearch::answer_tool_search`.
        Provider::OpenAiResponses => return None,
        Provider::OpenAiChat | Provider::Gemini | Provider::Mcp => return None,
    }
    let names = plan.all_names();
    let found: Vec<&str> = ids
        .iter()
        .filter_map(|id| plan.position(id))
        .map(|i| names[i].as_str())
        .collect();
    Some(anthropic::references(&found))
}

/// The `tool_search_output` item answering an OpenAI Responses
/// `tool_search_call` (`call_id`): the request's namespaces, as they were
/// declared, each with the functions found in it (`ids`); tools sent in full
/// are loaded already and not repeated.
pub(crate) fn tool_search_output(plan: &Plan, call_id: &Value, ids: &[String]) -> Value {
    let found: std::collections::HashSet<usize> =
        ids.iter().filter_map(|id| plan.position(id)).collect();
    let layout = layout(plan, &plan.deferred());
    json!({
        "type": "tool_search_output",
        "call_id": call_id,
        "execution": "client",
        "status": "completed",
        "tools": namespaces(plan, plan.all_names(), &layout, &|i| found.contains(&i)),
    })
}
