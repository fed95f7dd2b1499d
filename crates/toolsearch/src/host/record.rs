//! What a turn did, for comparing tool search with direct exposure: the
//! activation decision, what was sent, what was searched, described and called.
//! Arguments and results carry tokens and personal data: they are recorded only
//! when capture is switched on, and never traced.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use toolsearch_catalog::Tool;

/// Why deferral was on or off for a set of definitions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ActivationDecision {
    /// The shape of the list (`direct`, `code`, `tools`, `reveal` or `native`).
    pub shape: crate::vocab::Shape,
    /// Deferral is on.
    pub active: bool,
    /// `auto`, `always` or `never`.
    pub activation: crate::settings::modes::Activation,
    /// Deferrable tools visible to the session.
    pub deferrable_tools: usize,
    /// The count threshold (`auto`).
    pub count_threshold: usize,
    /// Estimated tokens of the deferrable schemas (bytes / 4).
    pub deferrable_tokens: usize,
    /// Their share of the context window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_share: Option<f64>,
    /// The context window the share is of, in tokens.
    pub context_window: usize,
    /// Where it came from: `configured`, the model table, the provider's default.
    #[serde(serialize_with = "as_text")]
    pub window_from: crate::settings::windows::WindowSource,
    /// The share threshold (`auto`, with a context window).
    pub share_threshold: f64,
    /// Why, in words.
    pub reason: String,
}

/// A value as its text (`Display`), for the record's JSON.
fn as_text<T: std::fmt::Display, S: serde::Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

/// One tool the model selected (described or called).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Selected {
    /// Tool id.
    pub id: String,
    /// `builtin`, `mcp` or `client`.
    pub source: &'static str,
}

/// Arguments and result of one call, kept only with capture on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Captured {
    /// Tool id.
    pub id: String,
    /// The arguments sent.
    pub arguments: Value,
    /// The result, or the error message.
    pub result: Result<Value, String>,
}

/// A call refused before it reached its tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Refused {
    /// The tool's id.
    pub id: String,
    /// Why (an error code such as `APPROVAL_DENIED`).
    pub code: crate::error::ErrorCode,
}

/// The record of one turn (since the last [`crate::ToolSearch::take_record`] or
/// [`crate::Conversation::take_record`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TurnRecord {
    /// The last activation decision.
    pub activation: Option<ActivationDecision>,
    /// Visible catalog size by source.
    pub catalog_by_source: BTreeMap<&'static str, usize>,
    /// Serialized bytes of the tool definitions sent in this shape.
    pub tool_bytes_sent: usize,
    /// Full parameter schemas sent up front.
    pub schemas_sent: usize,
    /// What direct exposure of the same tools would have sent.
    pub tool_bytes_direct: usize,
    /// Search queries run.
    pub searches: u32,
    /// Tools described.
    pub describes: u32,
    /// Tools called.
    pub calls: u32,
    /// Calls refused before they reached their tool (policy, arguments,
    /// approval), with their error code.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<Refused>,
    /// Tools described or called, in order, without repeats.
    pub selected: Vec<Selected>,
    /// Tools called (run downstream), in order, without repeats: `selected`
    /// without the tools only described.
    pub called: Vec<Selected>,
    /// Isolate start-up time of each code-mode run, microseconds.
    pub isolate_start_us: Vec<u64>,
    /// Run time of each code-mode snippet, microseconds.
    pub snippet_run_us: Vec<u64>,
    /// Latency of each tool call, milliseconds.
    pub call_latency_ms: Vec<u64>,
    /// Fallbacks taken (code mode to structured tools), with reasons.
    pub fallbacks: Vec<String>,
    /// Arguments and results, only with capture on.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub captured: Vec<Captured>,
}

/// Accumulates the current turn.
#[derive(Debug, Default)]
pub(crate) struct Telemetry {
    capture: bool,
    pub(crate) turn: TurnRecord,
}

impl Telemetry {
    pub(crate) fn new(capture: bool) -> Self {
        Telemetry {
            capture,
            turn: TurnRecord::default(),
        }
    }

    fn select(&mut self, tool: &Tool) {
        push_once(&mut self.turn.selected, tool);
    }

    pub(crate) fn searched(&mut self, queries: usize) {
        self.turn.searches += queries as u32;
        tracing::debug!(queries, "tool search");
    }

    pub(crate) fn described(&mut self, tool: &Tool) {
        self.turn.describes += 1;
        self.select(tool);
        tracing::debug!(tool = %tool.id, "tool describe");
    }

    pub(crate) fn refused(&mut self, tool: &Tool, code: crate::error::ErrorCode) {
        self.select(tool);
        self.turn.refused.push(Refused {
            id: tool.id.to_string(),
            code,
        });
        tracing::info!(tool = %tool.id, code = code.as_str(), "tool call refused");
    }

    pub(crate) fn called(
        &mut self,
        tool: &Tool,
        args: &Value,
        result: &Result<Value, String>,
        latency: Duration,
    ) {
        self.turn.calls += 1;
        self.select(tool);
        push_once(&mut self.turn.called, tool);
        self.turn.call_latency_ms.push(latency.as_millis() as u64);
        // Ids and timings only: arguments and results stay out of traces.
        tracing::info!(tool = %tool.id, source = tool.source.as_str(), ok = result.is_ok(), ms = latency.as_millis() as u64, "tool call");
        if self.capture {
            self.turn.captured.push(Captured {
                id: tool.id.clone(),
                arguments: args.clone(),
                result: result.clone(),
            });
        }
    }

    pub(crate) fn take(&mut self) -> TurnRecord {
        std::mem::take(&mut self.turn)
    }
}

fn push_once(list: &mut Vec<Selected>, tool: &Tool) {
    if !list.iter().any(|s| s.id == tool.id) {
        list.push(Selected {
            id: tool.id.clone(),
            source: tool.source.as_str(),
        });
    }
}

/// One conversation's turn record, shared by the calls it makes (its owner is
/// the conversation; the host's steps write to it through the caller's
/// [`Scope`](crate::host::Scope)).
#[derive(Debug)]
pub(crate) struct Record(std::sync::Mutex<Telemetry>);

impl Record {
    pub(crate) fn new(capture: bool) -> Self {
        Record(std::sync::Mutex::new(Telemetry::new(capture)))
    }

    /// Runs `f` on the record.
    pub(crate) fn with<R>(&self, f: impl FnOnce(&mut Telemetry) -> R) -> R {
        f(&mut self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Takes the record of the turn so far (and starts a new one).
    pub(crate) fn take(&self) -> TurnRecord {
        self.with(Telemetry::take)
    }
}
