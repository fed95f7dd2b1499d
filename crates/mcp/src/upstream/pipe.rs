//! The transport to a stdio (or in-process) server: newline-delimited JSON-RPC
//! read with bounds (see [`crate::frame`]), so that nothing a server sends
//! leaves a call waiting for its timeout:
//!
//! - a message nested deeper than [`frame::MAX_NESTING`] levels is read with its
//!   deepest parts emptied (a `tools/list` answer with one hostile schema
//!   still lists the server's other tools; the catalog reports the tool),
//!   except a call's result, which is refused with an error at once;
//! - an answer to a `tools/call` over [`MAX_RESULT_BYTES`], or any line over
//!   [`MAX_LINE`], answers its request at once with a size error, and the
//!   call is cancelled on the server;
//! - an answer that cannot be read answers its request with an error.

use std::sync::{Arc, Mutex};

use futures::{Sink, Stream};
use rmcp::model::{ClientJsonRpcMessage, ClientNotification, JsonRpcMessage, ServerJsonRpcMessage};
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use toolsearch_catalog::lru::Lru;

use super::listing::MAX_LISTED_BYTES;
use crate::frame::{self, read_frame, Frame};
use crate::text::clean_for_log;

/// The largest answer to a `tools/call` taken from a server (what the MCP
/// HTTP client of rmcp takes too).
pub const MAX_RESULT_BYTES: usize = 16 * 1024 * 1024;

/// The longest line read from a server (a `tools/list` page may be this big).
pub const MAX_LINE: usize = MAX_LISTED_BYTES;

type Outgoing = std::pin::Pin<Box<dyn Sink<ClientJsonRpcMessage, Error = std::io::Error> + Send>>;
type Incoming = std::pin::Pin<Box<dyn Stream<Item = ServerJsonRpcMessage> + Send>>;

/// Requests sent and not answered yet: their id (as JSON text) and method; the
/// least recent are forgotten past [`MAX_PENDING`] (they were lost anyway).
type Pending = Arc<Mutex<Lru<String, String>>>;

/// Most requests to one server remembered as unanswered.
const MAX_PENDING: usize = 100_000;

/// The transport to server `server` on `(reader, writer)` (its stdout, its stdin).
pub fn transport<R, W>(server: &str, reader: R, writer: W) -> (Outgoing, Incoming)
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let out_tx = frame::line_writer(writer, 64);
    let (in_tx, mut in_rx) = mpsc::channel::<ServerJsonRpcMessage>(64);
    let pending: Pending = Arc::new(Mutex::new(Lru::new(MAX_PENDING)));
    let (server, cancels, seen) = (server.to_string(), out_tx.clone(), pending.clone());
    tokio::spawn(async move {
        let mut reader = tokio::io::BufReader::new(reader);
        // The order progress notifications were read in (see `calls::RECEIVED`).
        let mut received = 0u64;
        loop {
            // The service gone, the reader goes too (and with it the last
            // sender to the writer, which then closes the server's stdin).
            let frame = tokio::select! {
                f = read_frame(&mut reader, MAX_LINE) => f,
                () = in_tx.closed() => break,
            };
            let Ok(Some(frame)) = frame else { break };
            received += 1;
            let Some(msg) = read(&server, frame, &seen, &cancels, received).await else {
                continue;
            };
            if in_tx.send(msg).await.is_err() {
                break;
            }
        }
    });
    let sink = frame::json_sink(out_tx, move |msg: &ClientJsonRpcMessage| {
        let mut pending = pending.lock().unwrap_or_else(|p| p.into_inner());
        match msg {
            JsonRpcMessage::Request(r) => {
                if let Ok(key) = serde_json::to_string(&r.id) {
                    pending.insert(key, r.request.method().to_string());
                }
            }
            // A cancelled request will not be answered.
            JsonRpcMessage::Notification(n) => {
                if let ClientNotification::CancelledNotification(c) = &n.notification {
                    if let Some(key) = c
                        .params
                        .request_id
                        .as_ref()
                        .and_then(|id| serde_json::to_string(id).ok())
                    {
                        pending.remove(&key);
                    }
                }
            }
            _ => {}
        }
    });
    let stream = futures::stream::poll_fn(move |cx| in_rx.poll_recv(cx));
    (sink, Box::pin(stream))
}

/// The error answer to request `id` (JSON text), in place of the server's.
fn answer_error(id: &str, message: String) -> Option<ServerJsonRpcMessage> {
    let id: Value = serde_json::from_str(id).ok()?;
    serde_json::from_value(json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": -32603, "message": message}
    }))
    .ok()
}

/// Tells the server that request `id` (JSON text) is cancelled.
async fn cancel(cancels: &mpsc::Sender<Vec<u8>>, id: &str, reason: &str) {
    let Ok(id) = serde_json::from_str::<Value>(id) else {
        return;
    };
    let line = json!({
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": id, "reason": reason}
    });
    let _ = cancels.send(line.to_string().into_bytes()).await;
}

/// A frame from the server as a message for the service: its own, or an
/// error answer in its place. `None`: nothing to pass on.
async fn read(
    server: &str,
    frame: Frame,
    pending: &Pending,
    cancels: &mpsc::Sender<Vec<u8>>,
    received: u64,
) -> Option<ServerJsonRpcMessage> {
    let take = |key: &str| {
        pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(key)
    };
    let mut bytes = match frame {
        Frame::TooLong { len, id } => {
            let key = id.map(|i| i.to_string());
            let method = key.as_deref().and_then(take);
            tracing::warn!(
                server,
                bytes = len,
                limit = MAX_LINE,
                "a message over the size limit was dropped"
            );
            let (key, method) = (key?, method?);
            let why = format!("the answer of server `{server}` to {method} ({len} bytes) is over the gateway's {MAX_LINE}-byte limit");
            cancel(cancels, &key, "the answer is over the gateway's size limit").await;
            return answer_error(&key, why);
        }
        Frame::Line { bytes } => bytes,
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    if frame::too_deep(&bytes, frame::MAX_NESTING) {
        // A call's result is the server's to give whole or not at all: refused
        // at once. Anything else (a listing) is read with its deepest parts
        // emptied, and the catalog names the tool that had them.
        let key = frame::top_level_id(&bytes).map(|i| i.to_string());
        let method = key.as_deref().and_then(|k| {
            pending
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .peek(k)
                .cloned()
        });
        if let (Some(key), Some("tools/call")) = (&key, method.as_deref()) {
            take(key);
            tracing::warn!(
                server,
                "a tool result nested deeper than {} levels was refused",
                frame::MAX_NESTING
            );
            return answer_error(
                key,
                format!(
                    "the result from server `{server}` is nested deeper than {} levels",
                    frame::MAX_NESTING
                ),
            );
        }
        tracing::warn!(
            server,
            method = method.as_deref().unwrap_or("-"),
            "a message nested deeper than {} levels was read with its deepest parts emptied",
            frame::MAX_NESTING
        );
        bytes = frame::bound_nesting(bytes, frame::MAX_NESTING).0;
    }
    let mut value: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            tracing::warn!(server, error = %e, line = %clean_for_log(&String::from_utf8_lossy(&bytes[..bytes.len().min(200)]), 200), "the server sent a line that is not JSON");
            // When it names a request of ours, that request is answered now.
            let key = frame::top_level_id(&bytes).map(|i| i.to_string())?;
            let method = take(&key)?;
            return answer_error(
                &key,
                format!("the answer of server `{server}` to {method} is not JSON: {e}"),
            );
        }
    };
    let answer_to = (value.get("method").is_none())
        .then(|| value.get("id").map(Value::to_string))
        .flatten();
    let method = answer_to.as_deref().and_then(take);
    if let (Some(key), Some("tools/call")) = (&answer_to, method.as_deref()) {
        if bytes.len() > MAX_RESULT_BYTES {
            tracing::warn!(
                server,
                bytes = bytes.len(),
                limit = MAX_RESULT_BYTES,
                "a tool result over the size limit was refused"
            );
            cancel(cancels, key, "the result is over the gateway's size limit").await;
            return answer_error(
                key,
                format!(
                    "the result from server `{server}` ({} bytes) is over the gateway's {MAX_RESULT_BYTES}-byte limit",
                    bytes.len()
                ),
            );
        }
    }
    if let Value::Object(msg) = &mut value {
        super::calls::stamp_progress(msg, received);
    }
    match serde_json::from_value::<ServerJsonRpcMessage>(value) {
        Ok(msg) => Some(msg),
        Err(e) => {
            let e = clean_for_log(&e.to_string(), 300);
            tracing::warn!(server, error = %e, "the server sent a message that cannot be read");
            match (answer_to, method) {
                (Some(key), Some(method)) => answer_error(
                    &key,
                    format!("the answer of server `{server}` to {method} cannot be read: {e}"),
                ),
                _ => None,
            }
        }
    }
}
