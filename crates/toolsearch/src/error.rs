//! The crate's errors, one per boundary, as values: a request's step
//! ([`HostError`], with the dispatcher's error as its source), a dispatcher's
//! ([`DispatchError`]), the caller's client's ([`AskError`]) and a setting's
//! ([`BuildError`](crate::BuildError), in `settings/`). The JS bridge maps them to the
//! sandbox's `BridgeError` (in `code/bridge.rs`, the only place that knows both); the
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
#[non_exhaustive]
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
    /// The dispatcher's error this one reports, when a tool's call failed.
    pub source: Option<Box<DispatchError>>,
}

impl HostError {
    /// An error from a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        HostError {
            code,
            message: message.into(),
            detail: None,
            input_schema: None,
            source: None,
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

impl std::error::Error for HostError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl serde::Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Why a tool call failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DispatchErrorKind {
    /// The tool ran and reported a failure.
    Tool,
    /// The tool's backend (MCP server, client) is not reachable.
    Unavailable,
    /// The tool did not answer in time.
    Timeout,
    /// The tool rejected its arguments.
    InvalidArgs,
    /// The backend no longer has the tool: its list changed since the catalog
    /// the call was resolved in (answered as an unknown tool).
    UnknownTool,
    /// The backend serves the tool with another definition (schema, output
    /// schema, annotations) than the one the call's checks were made on; nothing
    /// ran (answered as [`ErrorCode::Stale`]: search again).
    Changed,
}

/// A failed tool call, with a message for the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
#[non_exhaustive]
pub struct DispatchError {
    /// Class of failure.
    pub kind: DispatchErrorKind,
    /// What happened; keep it short.
    pub message: String,
    /// What the failed call produced, when it produced something: for an MCP tool
    /// result with `isError`, its `content` and `structuredContent`. It reaches the
    /// caller intact (a snippet reads `err.content`; a gateway returns it as is).
    pub detail: Option<serde_json::Map<String, Value>>,
}

impl DispatchError {
    /// An error of `kind`.
    pub fn new(kind: DispatchErrorKind, message: impl Into<String>) -> Self {
        DispatchError {
            kind,
            message: message.into(),
            detail: None,
        }
    }

    /// The same error carrying what the failed call produced (see [`DispatchError::detail`]).
    pub fn with_detail(mut self, detail: serde_json::Map<String, Value>) -> Self {
        self.detail = Some(detail);
        self
    }
}

/// Why a request to the caller's client got no answer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AskError {
    /// A JSON-RPC error code ([`AskError::METHOD_NOT_FOUND`] when the client
    /// cannot answer the method).
    pub code: i32,
    /// What went wrong.
    pub message: String,
}

impl AskError {
    /// The JSON-RPC code of a request the client cannot answer (`-32601`).
    pub const METHOD_NOT_FOUND: i32 = -32601;

    /// An error with a JSON-RPC `code` and a message.
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        AskError {
            code,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for AskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for AskError {}
