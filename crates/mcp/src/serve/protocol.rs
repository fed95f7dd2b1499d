//! The protocol checks of an HTTP request, before rmcp's service sees it:
//! rmcp serves any path, answers unreadable JSON and batches with a plain-text
//! 415, an unknown method for known params' shape, DELETE with 202 for any id,
//! and lets two requests with one id on one session overwrite each other (all
//! but one left waiting). Here, per the MCP transport spec (2025-06-18 and
//! 2026-07-28) and JSON-RPC 2.0:
//!
//! | request                                    | answer                                   |
//! |--------------------------------------------|------------------------------------------|
//! | a path other than the endpoint's           | 404, JSON-RPC error body                 |
//! | a body not sent within the body timeout    | 408, JSON-RPC error body                 |
//! | a body over [`MAX_BODY`]                   | 413, JSON-RPC error body                 |
//! | not JSON, or nested past [`frame::MAX_NESTING`] | 400, -32700, `id` null              |
//! | a JSON array (batch)                       | 400, -32600, `id` null                   |
//! | a known method with unreadable params      | 400, -32602 with its `id`                |
//! | an `id` in flight on the same session      | 400, -32600 with that `id`               |
//! | an unknown or closed session               | 404, JSON-RPC error body                 |
//! | DELETE of an open session                  | 204                                      |
//! | a lone surrogate escape (`"\ud83d"`)       | read as U+FFFD, served                   |

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use serde_json::{json, Value};

use super::message::{read_message, Refusal};
use crate::frame;

/// The largest request body read (a tool call's arguments included).
pub const MAX_BODY: usize = 16 * 1024 * 1024;

/// Most requests of one session in flight at once.
pub const MAX_IN_FLIGHT: usize = 10_000;

/// The response body type of the front door.
pub type Body = http_body_util::combinators::BoxBody<Bytes, std::convert::Infallible>;

/// A response with a JSON-RPC error body.
pub fn error(status: u16, id: &Value, code: i32, message: &str) -> http::Response<Body> {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    let mut r = http::Response::new(Full::new(Bytes::from(body.to_string())).boxed());
    *r.status_mut() = http::StatusCode::from_u16(status).unwrap_or(http::StatusCode::BAD_REQUEST);
    r.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    r
}

/// The answer to a client resuming a stream (`GET` with `Last-Event-ID`) of a
/// session this process does not hold: its gateway (a replica that died, or
/// this one before a restart) is gone, and the request that stream was
/// answering has an outcome no one can tell. The stream carries that error
/// (`id` null: a resumed stream carries one request's messages, and the client
/// matches the error to it), so the client reads why instead of retrying a
/// 404. Its next request with the session id gets the 404 that starts a new
/// session.
pub fn orphaned_stream() -> http::Response<Body> {
    let body =
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32603, "message": ORPHANED}});
    let event = format!("event: message\ndata: {body}\n\n");
    let mut r = http::Response::new(Full::new(Bytes::from(event)).boxed());
    r.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/event-stream"),
    );
    r
}

/// Why a resumed stream ends at once ([`orphaned_stream`]).
pub const ORPHANED: &str = "the session of this stream is not held here (the gateway replica \
     that held it stopped, or the gateway restarted): the outcome of the request it was \
     answering is unknown (a tool call may or may not have run), and it was not run again. \
     Check what it would have changed before calling it again, in a new session.";

/// Request ids in flight, per session: a duplicate is refused, and each id is
/// released when its response ends (or its client goes).
#[derive(Default, Clone)]
pub struct InFlight(Arc<Mutex<HashMap<String, HashSet<String>>>>);

/// Releases one request id when dropped (with the response body).
pub struct Held {
    ids: InFlight,
    session: String,
    id: String,
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut map = self.ids.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(set) = map.get_mut(&self.session) {
            set.remove(&self.id);
            if set.is_empty() {
                map.remove(&self.session);
            }
        }
    }
}

impl InFlight {
    /// Holds `id` for `session`; `Err` with the reason when it is in flight
    /// already or the session has too many.
    fn hold(&self, session: &str, id: &Value) -> Result<Held, String> {
        let key = id.to_string();
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let set = map.entry(session.to_string()).or_default();
        if set.contains(&key) {
            return Err(format!(
                "request id {key} is already in flight on this session"
            ));
        }
        if set.len() >= MAX_IN_FLIGHT {
            return Err(format!(
                "more than {MAX_IN_FLIGHT} requests in flight on this session"
            ));
        }
        set.insert(key.clone());
        Ok(Held {
            ids: self.clone(),
            session: session.to_string(),
            id: key,
        })
    }

    /// Sessions with requests in flight (for tests and status).
    pub fn sessions(&self) -> usize {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

/// What a POST asks for: its JSON-RPC method, and the tool a `tools/call`
/// names (for the scope it needs).
#[derive(Debug, Default)]
pub struct Op {
    /// The method, when the body is a JSON-RPC message with one.
    pub method: Option<String>,
    /// The tool of a `tools/call`.
    pub tool: Option<String>,
}

/// The single-valued header fields the gateway reads (Host and Origin are
/// checked where they are read, in `origin.rs`).
const SINGLE_FIELDS: [&str; 7] = [
    "authorization",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
    "content-type",
    "mcp-method",
    "mcp-name",
];

/// The first single-valued field sent more than once (any `Mcp-Param-*`
/// too): which of two values counts is what an attacker picks, so neither
/// does.
pub fn repeated_field(headers: &http::HeaderMap) -> Option<String> {
    headers
        .keys()
        .filter(|k| SINGLE_FIELDS.contains(&k.as_str()) || k.as_str().starts_with("mcp-param-"))
        .find(|k| headers.get_all(*k).iter().nth(1).is_some())
        .map(|k| k.as_str().to_string())
}

/// Why the 2026-07-28 routing fields (`Mcp-Method`, `Mcp-Name`) contradict
/// the body they travel with, when they do: a proxy routes by the fields,
/// the gateway serves the body, and the two must be one request.
pub fn contradicted(headers: &http::HeaderMap, op: &Op) -> Option<String> {
    let field = |name: &str| headers.get(name).map(|v| v.to_str().unwrap_or("\u{fffd}"));
    // A body whose method could not be read is answered by the protocol
    // checks that follow, not here.
    if let (Some(m), Some(method)) = (field("mcp-method"), op.method.as_deref()) {
        if method != m {
            return Some(format!(
                "the header field `Mcp-Method` says `{}`, the body's method is `{}`",
                crate::text::clean_for_log(m, 80),
                crate::text::clean_for_log(method, 80)
            ));
        }
    }
    if let (Some(n), Some(tool)) = (field("mcp-name"), op.tool.as_deref()) {
        if n != tool {
            return Some(format!(
                "the header field `Mcp-Name` says `{}`, the body names `{}`",
                crate::text::clean_for_log(n, 80),
                crate::text::clean_for_log(tool, 80)
            ));
        }
    }
    None
}

/// A POST checked: the request rebuilt with its body read, the id it holds
/// in flight (released with the response) and what it asks for, or the
/// answer to send instead.
pub async fn check_post(
    req: http::Request<hyper::body::Incoming>,
    session: Option<&str>,
    ids: &InFlight,
    body_timeout: Duration,
) -> Result<(http::Request<Full<Bytes>>, Option<Held>, Op), http::Response<Body>> {
    let (parts, body) = req.into_parts();
    let read = tokio::time::timeout(body_timeout, Limited::new(body, MAX_BODY).collect()).await;
    let bytes = match read {
        Err(_) => {
            let message = format!(
                "the request body did not arrive within {} ms",
                body_timeout.as_millis()
            );
            return Err(error(408, &Value::Null, -32600, &message));
        }
        Ok(Err(e))
            if e.downcast_ref::<http_body_util::LengthLimitError>()
                .is_some() =>
        {
            let message = format!("the request body is over the {MAX_BODY}-byte limit");
            return Err(error(413, &Value::Null, -32600, &message));
        }
        Ok(Err(e)) => {
            return Err(error(
                400,
                &Value::Null,
                -32700,
                &format!("the request body could not be read: {e}"),
            ))
        }
        Ok(Ok(b)) => b.to_bytes(),
    };
    let repaired = frame::repair_surrogates(bytes.to_vec());
    drop(bytes);
    let (id, method, tool) = match read_message(&repaired) {
        Ok(m) => {
            let tool = match &m.msg {
                rmcp::model::JsonRpcMessage::Request(r) => match &r.request {
                    rmcp::model::ClientRequest::CallToolRequest(c) => {
                        Some(c.params.name.to_string())
                    }
                    _ => None,
                },
                _ => None,
            };
            (m.id, m.method, tool)
        }
        Err(r @ (Refusal::Parse(_) | Refusal::Batch)) => {
            return Err(error(400, &r.id(), r.code(), &r.message("request")));
        }
        Err(r @ Refusal::Params { id: Some(_), .. }) => {
            return Err(error(400, &r.id(), r.code(), &r.message("request")));
        }
        // What is not a JSON-RPC message, or a notification, is rmcp's to answer.
        Err(_) => (None, None, None),
    };
    let held = match (&id, &method, session) {
        (Some(id), Some(_), Some(session)) => Some(
            ids.hold(session, id)
                .map_err(|why| error(400, id, -32600, &why))?,
        ),
        _ => None,
    };
    Ok((
        http::Request::from_parts(parts, Full::new(Bytes::from(repaired))),
        held,
        Op { method, tool },
    ))
}

/// The most GET streams (the standalone stream and resumptions) one session
/// holds open at once.
pub const MAX_STREAMS_PER_SESSION: usize = 4;

/// The GET streams each session holds open now (an entry lives while its
/// session has one; owned by the front door).
#[derive(Clone, Default)]
pub struct Streams(Arc<Mutex<HashMap<String, usize>>>);

/// One open GET stream of a session, counted until dropped.
pub struct StreamHeld {
    streams: Streams,
    session: String,
}

impl Streams {
    /// A place for one more stream of `session`, or `None` at its most.
    pub fn open(&self, session: &str) -> Option<StreamHeld> {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let n = map.entry(session.to_string()).or_default();
        if *n >= MAX_STREAMS_PER_SESSION {
            return None;
        }
        *n += 1;
        Some(StreamHeld {
            streams: self.clone(),
            session: session.to_string(),
        })
    }
}

impl Drop for StreamHeld {
    fn drop(&mut self) {
        let mut map = self.streams.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = map.get_mut(&self.session) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                map.remove(&self.session);
            }
        }
    }
}

/// A response body that releases what its request holds (its id in flight,
/// a session's stream place) when it ends.
pub struct Guarded {
    inner: Body,
    _held: Box<dyn Send + Sync>,
}

impl Guarded {
    /// `inner`, releasing `held` when it ends or is dropped.
    pub fn wrap(inner: Body, held: Option<Held>) -> Body {
        match held {
            None => inner,
            Some(h) => Guarded::with(inner, h),
        }
    }

    /// `inner`, dropping `guard` when it ends or is dropped.
    pub fn with(inner: Body, guard: impl Send + Sync + 'static) -> Body {
        Guarded {
            inner,
            _held: Box::new(guard),
        }
        .boxed()
    }
}

impl hyper::body::Body for Guarded {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Self::Error>>> {
        std::pin::Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
    }
}
