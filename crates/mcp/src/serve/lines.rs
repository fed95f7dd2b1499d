//! The gateway's own newline-delimited transport (stdio), where every line a
//! client sends gets an answer or a message: what rmcp's codec would drop
//! silently (leaving its client waiting) is answered here.
//!
//! | line                                    | answer                          |
//! |-----------------------------------------|---------------------------------|
//! | not JSON, over [`MAX_LINE`], nested past [`frame::MAX_NESTING`] | -32700, `id` null |
//! | a JSON array (batch; removed in MCP 2025-06-18) | -32600, `id` null       |
//! | not a JSON-RPC message                  | -32600 (its `id` when readable) |
//! | a known method with unreadable params   | -32602 with its `id`            |
//! | an `id` in flight (or cancelled under [`CANCELLED_HOLD`] ago) | -32600 with that `id` |
//! | a lone surrogate escape (`"\ud83d"`)    | read as U+FFFD, served          |

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::{Sink, Stream};
use rmcp::model::{ClientJsonRpcMessage, JsonRpcMessage, ServerJsonRpcMessage};
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;

use super::message::{read_message, Message, Refusal};
use crate::frame::{self, read_frame, Frame};

/// The longest line read from a client (a tool call's arguments included).
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// Most requests of one client in flight at once.
pub const MAX_IN_FLIGHT: usize = 10_000;

/// How long a cancelled request's id stays taken.
pub const CANCELLED_HOLD: Duration = Duration::from_secs(5);

/// The ids of a client's requests in flight (as JSON text), with when each was
/// cancelled, if it was.
type Ids = HashMap<String, Option<Instant>>;

type Outgoing = std::pin::Pin<Box<dyn Sink<ServerJsonRpcMessage, Error = std::io::Error> + Send>>;
type Incoming = std::pin::Pin<Box<dyn Stream<Item = ClientJsonRpcMessage> + Send>>;

/// A JSON-RPC error line.
fn error_line(id: &Value, code: i32, message: &str) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        .to_string()
        .into_bytes()
}

/// The transport of one client on `(reader, writer)`; `on_end` runs once when
/// the reader ends (the client is gone).
pub fn transport<R, W>(
    (reader, writer): (R, W),
    on_end: impl FnOnce() + Send + 'static,
) -> (Outgoing, Incoming)
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let out_tx = frame::line_writer(writer, 256);
    let (in_tx, mut in_rx) = mpsc::channel::<ClientJsonRpcMessage>(64);
    let in_flight: Arc<Mutex<Ids>> = Arc::default();
    let answers = out_tx.clone();
    let seen = in_flight.clone();
    tokio::spawn(async move {
        let mut reader = tokio::io::BufReader::new(reader);
        loop {
            let got = tokio::select! {
                f = read_frame(&mut reader, MAX_LINE) => f,
                () = in_tx.closed() => break,
            };
            let frame = match got {
                Ok(Some(f)) => f,
                Ok(None) | Err(_) => break,
            };
            match read(frame, &seen) {
                Ok(msg) => {
                    if in_tx.send(msg).await.is_err() {
                        break;
                    }
                }
                Err(Some(answer)) => {
                    if answers.send(answer).await.is_err() {
                        break;
                    }
                }
                Err(None) => {}
            }
        }
        on_end();
    });
    // An answer frees its request's id.
    let sink = frame::json_sink(out_tx, move |msg: &ServerJsonRpcMessage| match msg {
        JsonRpcMessage::Response(r) => forget(&in_flight, &r.id),
        JsonRpcMessage::Error(e) => {
            if let Some(id) = &e.id {
                forget(&in_flight, id);
            }
        }
        _ => {}
    });
    let stream = futures::stream::poll_fn(move |cx| in_rx.poll_recv(cx));
    (sink, Box::pin(stream))
}

fn forget(in_flight: &Mutex<Ids>, id: &rmcp::model::RequestId) {
    if let Ok(key) = serde_json::to_string(id) {
        in_flight
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&key);
    }
}

/// A frame as a message for the service, or the answer to write back (`None`:
/// nothing to answer, a notification that cannot be read).
fn read(frame: Frame, in_flight: &Mutex<Ids>) -> Result<ClientJsonRpcMessage, Option<Vec<u8>>> {
    let bytes = match frame {
        Frame::TooLong { len, .. } => {
            return Err(Some(error_line(
                &Value::Null,
                -32700,
                &format!("a message of {len} bytes is over the {MAX_LINE}-byte limit"),
            )))
        }
        Frame::Line { bytes } => bytes,
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(None);
    }
    let Message {
        msg,
        method,
        cancelled,
        ..
    } = match read_message(&bytes) {
        Ok(m) => m,
        // A notification is not answered, even when it cannot be read.
        Err(
            Refusal::Params { id: None, .. }
            | Refusal::NotMessage {
                notification: true, ..
            },
        ) => {
            tracing::debug!("unreadable notification from the client");
            return Err(None);
        }
        Err(r) => return Err(Some(error_line(&r.id(), r.code(), &r.message("line")))),
    };
    if method.as_deref() == Some("notifications/cancelled") {
        // A cancelled request gets no answer: its id is held a while longer
        // (its handler winds down; rmcp would mix a new request with that id
        // up with it), then free again.
        if let Some(id) = cancelled {
            if let Some(at) = in_flight
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get_mut(&id)
            {
                *at = Some(Instant::now());
            }
        }
    }
    if let JsonRpcMessage::Request(r) = &msg {
        let id = serde_json::to_value(&r.id).unwrap_or(Value::Null);
        let bad = |message: String| Some(error_line(&id, -32600, &message));
        let key = id.to_string();
        let mut ids = in_flight.lock().unwrap_or_else(|p| p.into_inner());
        let wound_down = |at: &Option<Instant>| at.is_some_and(|t| t.elapsed() >= CANCELLED_HOLD);
        match ids.get(&key) {
            Some(None) => {
                return Err(bad(format!("request id {key} is already in flight")));
            }
            Some(Some(at)) if !wound_down(&Some(*at)) => {
                return Err(bad(format!(
                    "request id {key} was cancelled and is still winding down; use a new id"
                )));
            }
            _ => {}
        }
        if ids.len() >= MAX_IN_FLIGHT {
            ids.retain(|_, at| !wound_down(at));
        }
        if ids.len() >= MAX_IN_FLIGHT {
            return Err(bad(format!("more than {MAX_IN_FLIGHT} requests in flight")));
        }
        ids.insert(key, None);
    }
    Ok(msg)
}
