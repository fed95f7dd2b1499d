//! Errors of the host's steps, as values. The JS bridge maps them to the
//! sandbox's `BridgeError` (in `bridge.rs`, the only place that knows both); the
//! structured tools hand them to the model as `{"error": {"code", "message"}}`.

use serde_json::{Map, Value};

/// Why a search, describe or call failed. The strings of [`ErrorCode::as_str`] are
/// the codes a model and a snippet see.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// No such tool, or the policy hides it (the two are indistinguishable).
    UnknownTool,
    /// Arguments are missing, malformed or do not match the schema.
    InvalidArgs,
    /// The tool did not answer in time.
    Timeout,
    /// The tool ran and failed.
    ToolError,
    /// An approver or a hook refused the call.
    ApprovalDenied,
    /// The tool's backend (or the embedding index) is not reachable.
    Unavailable,
    /// The catalog changed since the id was found.
    Stale,
    /// A budget ran out: the calls one client may have running, a result's size.
    Limit,
    /// The caller cancelled the call.
    Cancelled,
    /// The call failed inside toolsearch itself (a bug, said in the log).
    Internal,
}

impl ErrorCode {
    /// Every code, in declaration order.
    pub const ALL: [ErrorCode; 10] = [
        ErrorCode::UnknownTool,
        ErrorCode::InvalidArgs,
        ErrorCode::Timeout,
        ErrorCode::ToolError,
        ErrorCode::ApprovalDenied,
        ErrorCode::Unavailable,
        ErrorCode::Stale,
        ErrorCode::Limit,
        ErrorCode::Cancelled,
        ErrorCode::Internal,
    ];

    /// The code as the model sees it, e.g. `"UNKNOWN_TOOL"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::UnknownTool => "UNKNOWN_TOOL",
            ErrorCode::InvalidArgs => "INVALID_ARGS",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::ToolError => "TOOL_ERROR",
            ErrorCode::ApprovalDenied => "APPROVAL_DENIED",
            ErrorCode::Unavailable => "UNAVAILABLE",
            ErrorCode::Stale => "STALE",
            ErrorCode::Limit => "LIMIT",
            ErrorCode::Cancelled => "CANCELLED",
            ErrorCode::Internal => "INTERNAL",
        }
    }
}

/// A failed step of a request: a code, a short message for the model, and what the
/// failed call produced when it produced something (an MCP result with `isError`).
#[derive(Debug, Clone, PartialEq)]
pub struct HostError {
    /// Machine-readable code.
    pub code: ErrorCode,
    /// Human-readable message; short.
    pub message: String,
    /// The failed call's own output (`content`, `structuredContent`), when any.
    pub detail: Option<Map<String, Value>>,
    /// For arguments that do not fit: the tool's parameters, when small enough
    /// to repeat (the answer carries them once, next to the message).
    pub input_schema: Option<Box<Value>>,
}

impl HostError {
    /// An error from a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        HostError {
            code,
            message: message.into(),
            detail: None,
            input_schema: None,
        }
    }

    /// The error for ids that do not exist and ids the policy hides: identical, so a
    /// caller cannot probe the policy.
    pub(crate) fn unknown_tool(id: &str) -> Self {
        HostError::new(
            ErrorCode::UnknownTool,
            format!("unknown tool `{id}`; use search to find tool ids"),
        )
    }
}

impl std::fmt::Display for HostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for HostError {}

impl serde::Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}
