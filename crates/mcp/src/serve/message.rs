//! Reading one message a client sent, the same way over stdio
//! ([`super::lines`]) and HTTP ([`super::protocol`]): nesting, JSON, batches,
//! the JSON-RPC shape, and params of known methods. Each transport says how a
//! [`Refusal`] is answered.

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage};
use serde_json::Value;

use crate::frame;

/// Methods of MCP a client sends: a request for one of them whose params
/// cannot be read is -32602 (invalid params), not an unknown method.
const KNOWN: [&str; 16] = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "logging/setLevel",
    "completion/complete",
    "tasks/get",
    "tasks/list",
    "tasks/cancel",
];

/// A client's message, read.
pub(crate) struct Message {
    /// The typed message.
    pub msg: ClientJsonRpcMessage,
    /// Its `id` (a string or number), when it has one.
    pub id: Option<Value>,
    /// Its method, when it has one.
    pub method: Option<String>,
    /// For `notifications/cancelled`: the cancelled request's id, as JSON text.
    pub cancelled: Option<String>,
}

/// Why a client's message cannot be served.
pub(crate) enum Refusal {
    /// Not JSON, or nested deeper than [`frame::MAX_NESTING`]: -32700, `id` null.
    Parse(String),
    /// A JSON array (JSON-RPC batching, removed from MCP in 2025-06-18): -32600.
    Batch,
    /// A known method whose params cannot be read: -32602.
    Params {
        /// The request's id (none: a notification).
        id: Option<Value>,
        /// Why, naming the method.
        why: String,
    },
    /// JSON that is not a JSON-RPC message: -32600.
    NotMessage {
        /// Its id, when readable.
        id: Option<Value>,
        /// Whether it has a method and no id (a notification: nothing to answer).
        notification: bool,
        /// Why.
        why: String,
    },
}

impl Refusal {
    /// The JSON-RPC error code.
    pub(crate) fn code(&self) -> i32 {
        match self {
            Refusal::Parse(_) => -32700,
            Refusal::Params { .. } => -32602,
            Refusal::Batch | Refusal::NotMessage { .. } => -32600,
        }
    }

    /// The `id` to answer with (null when unknown).
    pub(crate) fn id(&self) -> Value {
        match self {
            Refusal::Params { id, .. } | Refusal::NotMessage { id, .. } => {
                id.clone().unwrap_or(Value::Null)
            }
            Refusal::Parse(_) | Refusal::Batch => Value::Null,
        }
    }

    /// The error message; `unit` is what one message travels in ("line",
    /// "request").
    pub(crate) fn message(&self, unit: &str) -> String {
        match self {
            Refusal::Parse(why) => format!("parse error: {why}"),
            Refusal::Batch => format!(
                "batches are not supported (MCP removed JSON-RPC batching in 2025-06-18): send one message per {unit}"
            ),
            Refusal::Params { why, .. } => why.clone(),
            Refusal::NotMessage { why, .. } => format!("not a JSON-RPC message: {why}"),
        }
    }
}

/// Reads one client message from its text (lone surrogates already repaired).
pub(crate) fn read_message(bytes: &[u8]) -> Result<Message, Refusal> {
    if frame::too_deep(bytes, frame::MAX_NESTING) {
        return Err(Refusal::Parse(format!(
            "a message nested deeper than {} levels",
            frame::MAX_NESTING
        )));
    }
    let value: Value = serde_json::from_slice(bytes).map_err(|e| Refusal::Parse(e.to_string()))?;
    if value.is_array() {
        return Err(Refusal::Batch);
    }
    let id = value
        .get("id")
        .cloned()
        .filter(|i| i.is_string() || i.is_number());
    let method = value
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_string);
    let cancelled = value
        .get("params")
        .and_then(|p| p.get("requestId"))
        .map(Value::to_string);
    let known = method.as_deref().filter(|m| KNOWN.contains(m));
    let msg: ClientJsonRpcMessage = match serde_json::from_value(value) {
        Ok(m) => m,
        Err(e) => {
            return Err(match known {
                Some(m) => Refusal::Params {
                    id,
                    why: format!("invalid params for {m}: {e}"),
                },
                None => Refusal::NotMessage {
                    notification: id.is_none() && method.is_some(),
                    id,
                    why: e.to_string(),
                },
            })
        }
    };
    // rmcp reads a known method with params of the wrong shape as a custom
    // request (and would answer "method not found").
    if let JsonRpcMessage::Request(r) = &msg {
        if let ClientRequest::CustomRequest(c) = &r.request {
            if KNOWN.contains(&c.method.as_str()) {
                return Err(Refusal::Params {
                    id,
                    why: format!("invalid params for {}", c.method),
                });
            }
        }
    }
    Ok(Message {
        msg,
        id,
        method,
        cancelled,
    })
}
