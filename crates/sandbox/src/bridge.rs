//! The host side of `openclaw.tools`: a trait the facade implements.

use std::future::Future;
use std::pin::Pin;

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

/// Future returned by [`Bridge::call`].
pub type BridgeFuture =
    Pin<Box<dyn Future<Output = Result<serde_json::Value, BridgeError>> + Send>>;

/// What a snippet can reach: search, describe and call tools.
///
/// The sandbox knows nothing of the catalog or of policy; the facade
/// implements this trait. Every method may be called from a worker thread;
/// a panic inside one is caught and reported to the snippet as
/// `UNAVAILABLE`.
pub trait Bridge: Send + Sync + 'static {
    /// Searches the catalog. `limit` was validated as a positive integer on
    /// the JS side; the bridge clamps it to the host's search limits (the
    /// facade's: 8 when none is given and at most 20 by default, configurable
    /// up to 50).
    ///
    /// # Errors
    /// Any [`BridgeError`]; it is thrown into JS as an `Error` with `code`.
    fn search(&self, query: &str, limit: Option<u32>) -> Result<serde_json::Value, BridgeError>;

    /// Describes one tool. Unknown and policy-denied ids must give the same
    /// `UNKNOWN_TOOL` error.
    ///
    /// # Errors
    /// Any [`BridgeError`]; it is thrown into JS as an `Error` with `code`.
    fn describe(&self, id: &str) -> Result<serde_json::Value, BridgeError>;

    /// A search's answer already encoded for the snippet by another host (the
    /// worker's proxy hands on what the pool's host encoded), or `None` (the
    /// default): the sandbox calls [`Bridge::search`] and encodes its value
    /// once. Override it only to pass encoded text on unparsed.
    #[doc(hidden)]
    fn search_encoded(&self, _query: &str, _limit: Option<u32>) -> Option<String> {
        None
    }

    /// [`Bridge::describe`]'s answer already encoded (see
    /// [`Bridge::search_encoded`]), or `None` (the default).
    #[doc(hidden)]
    fn describe_encoded(&self, _id: &str) -> Option<String> {
        None
    }

    /// Policy check and dispatch of one tool call. `cancel` fires when the
    /// snippet times out, returns without awaiting the call, or is abandoned;
    /// the bridge must stop the tool's work then. The returned future is also
    /// dropped at that point.
    fn call(&self, id: &str, args: serde_json::Value, cancel: CancellationToken) -> BridgeFuture;

    /// [`Bridge::call`] with the arguments as the JSON text the snippet sent
    /// (an object, checked against the argument limits). The sandbox calls
    /// this one; the default parses the text and calls [`Bridge::call`].
    /// Override it only to pass the text on unparsed.
    #[doc(hidden)]
    #[allow(clippy::boxed_local)] // the owned form of raw JSON text
    fn call_json(
        &self,
        id: &str,
        args: Box<serde_json::value::RawValue>,
        cancel: CancellationToken,
    ) -> BridgeFuture {
        match serde_json::from_str(args.get()) {
            Ok(value) => self.call(id, value, cancel),
            Err(e) => {
                let e = BridgeError::new(
                    BridgeErrorCode::InvalidArgs,
                    format!("call: the arguments are not JSON: {e}"),
                );
                Box::pin(async move { Err(e) })
            }
        }
    }
}

/// Error codes visible to a snippet as `err.code`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum BridgeErrorCode {
    /// No such tool, or the policy hides it (the two must be indistinguishable).
    UnknownTool,
    /// Arguments are missing, malformed, too large or not JSON.
    InvalidArgs,
    /// A per-snippet budget was exhausted (calls, sizes, ...).
    Limit,
    /// The tool did not answer in time.
    Timeout,
    /// The tool ran and failed.
    ToolError,
    /// A human or policy hook refused the call.
    ApprovalDenied,
    /// The tool's backend is not reachable (or the bridge panicked).
    Unavailable,
    /// The catalog changed under the snippet.
    Stale,
}

impl BridgeErrorCode {
    /// Every code, in declaration order.
    pub const ALL: [BridgeErrorCode; 8] = [
        BridgeErrorCode::UnknownTool,
        BridgeErrorCode::InvalidArgs,
        BridgeErrorCode::Limit,
        BridgeErrorCode::Timeout,
        BridgeErrorCode::ToolError,
        BridgeErrorCode::ApprovalDenied,
        BridgeErrorCode::Unavailable,
        BridgeErrorCode::Stale,
    ];

    /// The code as the snippet sees it, e.g. `"UNKNOWN_TOOL"`.
    pub fn as_str(self) -> &'static str {
        match self {
            BridgeErrorCode::UnknownTool => "UNKNOWN_TOOL",
            BridgeErrorCode::InvalidArgs => "INVALID_ARGS",
            BridgeErrorCode::Limit => "LIMIT",
            BridgeErrorCode::Timeout => "TIMEOUT",
            BridgeErrorCode::ToolError => "TOOL_ERROR",
            BridgeErrorCode::ApprovalDenied => "APPROVAL_DENIED",
            BridgeErrorCode::Unavailable => "UNAVAILABLE",
            BridgeErrorCode::Stale => "STALE",
        }
    }

    pub(crate) fn from_str(s: &str) -> Option<Self> {
        Some(match s {
            "UNKNOWN_TOOL" => BridgeErrorCode::UnknownTool,
            "INVALID_ARGS" => BridgeErrorCode::InvalidArgs,
            "LIMIT" => BridgeErrorCode::Limit,
            "TIMEOUT" => BridgeErrorCode::Timeout,
            "TOOL_ERROR" => BridgeErrorCode::ToolError,
            "APPROVAL_DENIED" => BridgeErrorCode::ApprovalDenied,
            "UNAVAILABLE" => BridgeErrorCode::Unavailable,
            "STALE" => BridgeErrorCode::Stale,
            _ => return None,
        })
    }
}

impl std::fmt::Display for BridgeErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error returned by a [`Bridge`] method and thrown into JS.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("{code}: {message}")]
pub struct BridgeError {
    /// Machine-readable code (`err.code` in JS).
    pub code: BridgeErrorCode,
    /// Human-readable message (`err.message` in JS); keep it short.
    pub message: String,
    /// What the failed call produced, when it produced something (a tool result with
    /// `isError`: its `content` and `structuredContent`). JS sees each key of this
    /// object on the error (`err.content`, `err.structuredContent`); it is dropped,
    /// with a note in the message, when larger than the job's result cap.
    pub detail: Option<serde_json::Map<String, serde_json::Value>>,
}

impl BridgeError {
    /// Builds an error from a code and a message.
    pub fn new(code: BridgeErrorCode, message: impl Into<String>) -> Self {
        BridgeError {
            code,
            message: message.into(),
            detail: None,
        }
    }

    /// The same error carrying what the failed call produced (see [`BridgeError::detail`]).
    pub fn with_detail(mut self, detail: serde_json::Map<String, serde_json::Value>) -> Self {
        self.detail = Some(detail);
        self
    }
}
