//! A scriptable MCP server, written by hand (not on an SDK) so that it can do
//! what real servers do wrong: it answers over an in-process byte stream (as
//! over stdio) or over streamable HTTP on a loopback port, and its tools say
//! what to send while a call runs (logs, progress, sampling and elicitation,
//! on the call's own stream or on the shared one), after it answered, or to
//! everyone (`tools/list_changed` storms); its `tools/list` can paginate
//! without end, in a loop or with huge pages ([`Pages`]).

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use http_body_util::{BodyExt, Full, StreamBody};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

/// Where one message goes: the stream it belongs on.
pub type Tx = mpsc::UnboundedSender<Value>;

/// How `tools/list` pages.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum Pages {
    /// One page.
    #[default]
    One,
    /// A new `nextCursor` on every page, for ever.
    Endless,
    /// The same `nextCursor` again and again.
    Loop,
    /// `count` pages whose padding tools have descriptions of `kib` KiB.
    Many { count: usize, kib: usize },
}

/// The server's state, shared by its connections.
#[derive(Default)]
pub struct Script {
    /// How `tools/list` pages (the `list_mode` tool changes it).
    pub pages: Mutex<Pages>,
    /// `tools/list` requests answered (pages included).
    pub lists: AtomicUsize,
    /// Tools per page beside `work`, `storm`, `list_mode`, `big` and `nest`.
    pub padding: usize,
    /// How each request sent after its call had answered ended.
    pub late: Mutex<Vec<String>>,
    pending: Mutex<HashMap<i64, oneshot::Sender<Value>>>,
    next_id: AtomicI64,
    /// The shared stream (the HTTP GET stream; the one stream over stdio).
    common: Mutex<Option<Tx>>,
    /// Levels of nesting of the `deep` tool's schema (no such tool when 0).
    pub deep: AtomicUsize,
    /// The request ids of the `notifications/cancelled` received.
    pub cancelled: Mutex<Vec<Value>>,
    /// When set, `tools/list` answers exactly these tools, on one page.
    pub fixed: Option<Vec<Value>>,
    /// Tools `more_0`, `more_1`, ... listed beside the others.
    pub more: AtomicUsize,
    /// Milliseconds it waits before answering `initialize` (a slow start).
    pub init_delay_ms: std::sync::atomic::AtomicU64,
    /// `initialize` requests received (starts).
    pub starts: AtomicUsize,
    /// The `Authorization` header of every HTTP request received.
    pub authorization: Mutex<Vec<Option<String>>>,
}

fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

fn log(data: &str, token: Option<&Value>) -> Value {
    let mut params = json!({"level": "info", "logger": "script", "data": data});
    if let Some(t) = token {
        params["_meta"] = json!({"progressToken": t});
    }
    notification("notifications/message", params)
}

fn text_of(answer: &Value) -> String {
    match answer.get("result") {
        Some(r) => r["content"]["text"]
            .as_str()
            .map(str::to_string)
            .or_else(|| r["content"].as_object().map(|_| r["content"].to_string()))
            .unwrap_or_else(|| r.to_string()),
        None => format!("refused: {}", answer["error"]["message"]),
    }
}

impl Script {
    /// A server with `padding` extra tools per page.
    pub fn new(padding: usize) -> Arc<Script> {
        Arc::new(Script {
            padding,
            ..Script::default()
        })
    }

    /// A server whose `tools/list` is exactly `tools` (MCP `Tool` objects).
    pub fn with_tools(tools: Vec<Value>) -> Arc<Script> {
        Arc::new(Script {
            fixed: Some(tools),
            ..Script::default()
        })
    }

    fn common(&self) -> Option<Tx> {
        self.common.lock().unwrap().clone()
    }

    /// Adds one tool (`more_N`) and says `tools/list_changed` on the shared
    /// stream.
    pub fn add_tool(&self) {
        self.more.fetch_add(1, Ordering::SeqCst);
        if let Some(to) = self.common() {
            let _ = to.send(notification("notifications/tools/list_changed", json!({})));
        }
    }

    /// Sends a request to the client on `tx` and waits (10 s at most) for its
    /// answer: the whole response message.
    async fn ask(&self, tx: &Tx, method: &str, mut params: Value, token: Option<&Value>) -> Value {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst) + 1000;
        if let Some(t) = token {
            params["_meta"] = json!({"progressToken": t});
        }
        let (done, answer) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, done);
        let _ = tx.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        match tokio::time::timeout(Duration::from_secs(10), answer).await {
            Ok(Ok(v)) => v,
            _ => json!({"error": {"message": "no answer"}}),
        }
    }

    fn tools_page(&self, cursor: Option<&str>) -> Value {
        if let Some(tools) = &self.fixed {
            return json!({"tools": tools});
        }
        let page: usize = cursor
            .and_then(|c| c.strip_prefix('p'))
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        let mode = *self.pages.lock().unwrap();
        let kib = match mode {
            Pages::Many { kib, .. } => kib,
            _ => 0,
        };
        let tool = |name: String, kib: usize| {
            let description = if kib == 0 {
                format!("the {name} tool")
            } else {
                "d".repeat(kib << 10)
            };
            json!({"name": name, "description": description, "inputSchema": {"type": "object"}})
        };
        let mut tools: Vec<Value> = Vec::new();
        if page == 0 {
            tools.extend(
                ["work", "storm", "list_mode", "big", "nest"].map(|n| tool(n.to_string(), 0)),
            );
            let deep = self.deep.load(Ordering::SeqCst);
            if deep > 0 {
                let mut schema = json!({"type": "object"});
                for _ in 0..deep {
                    schema = json!({"type": "object", "properties": {"x": schema}});
                }
                tools.push(
                    json!({"name": "deep", "description": "nested deep", "inputSchema": schema}),
                );
            }
        }
        tools.extend((0..self.padding).map(|i| tool(format!("pad_{page}_{i}"), kib)));
        if page == 0 {
            let more = self.more.load(Ordering::SeqCst);
            tools.extend((0..more).map(|i| tool(format!("more_{i}"), 0)));
        }
        let mut result = json!({"tools": tools});
        let next = match mode {
            Pages::One => None,
            Pages::Endless => Some(format!("p{}", page + 1)),
            Pages::Loop => Some("p1".to_string()),
            Pages::Many { count, .. } => (page + 1 < count).then(|| format!("p{}", page + 1)),
        };
        if let Some(next) = next {
            result["nextCursor"] = json!(next);
        }
        result
    }

    /// One message from the client; `related` is the stream of the request it
    /// came in (its own SSE stream over HTTP). Returns the response, if any.
    pub async fn handle(self: Arc<Self>, msg: Value, related: Tx) -> Option<Value> {
        let Some(method) = msg.get("method").and_then(Value::as_str) else {
            // A response to one of our requests.
            if let Some(id) = msg.get("id").and_then(Value::as_i64) {
                if let Some(done) = self.pending.lock().unwrap().remove(&id) {
                    let _ = done.send(msg.clone());
                }
            }
            return None;
        };
        if method == "notifications/cancelled" {
            self.cancelled
                .lock()
                .unwrap()
                .push(msg["params"]["requestId"].clone());
        }
        let id = msg.get("id")?.clone();
        let params = msg.get("params").cloned().unwrap_or(json!({}));
        let result = match method {
            "initialize" => {
                self.starts.fetch_add(1, Ordering::SeqCst);
                let delay = self.init_delay_ms.load(Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(delay)).await;
                json!({
                "protocolVersion": params["protocolVersion"].as_str().unwrap_or("2025-11-25"),
                "capabilities": {"tools": {"listChanged": true}, "logging": {}},
                "serverInfo": {"name": "script", "version": "0"}
                })
            }
            "tools/list" => {
                self.lists.fetch_add(1, Ordering::SeqCst);
                self.tools_page(params["cursor"].as_str())
            }
            "tools/call" => self.call(&params, &related).await,
            _ => json!({}),
        };
        Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
    }

    async fn call(self: &Arc<Self>, params: &Value, related: &Tx) -> Value {
        let args = &params["arguments"];
        let n = |k: &str| args[k].as_u64().unwrap_or(0);
        let text = |t: String| json!({"content": [{"type": "text", "text": t}]});
        match params["name"].as_str().unwrap_or("") {
            "storm" => {
                let to = self.common().unwrap_or_else(|| related.clone());
                for _ in 0..n("n") {
                    let _ = to.send(notification("notifications/tools/list_changed", json!({})));
                }
                text("stormed".into())
            }
            "list_mode" => {
                *self.pages.lock().unwrap() = match args["mode"].as_str() {
                    Some("endless") => Pages::Endless,
                    Some("loop") => Pages::Loop,
                    Some("many") => Pages::Many {
                        count: n("count") as usize,
                        kib: n("kib") as usize,
                    },
                    _ => Pages::One,
                };
                let to = self.common().unwrap_or_else(|| related.clone());
                let _ = to.send(notification("notifications/tools/list_changed", json!({})));
                text("listing changed".into())
            }
            "work" => self.work(params, related).await,
            "big" => text("b".repeat(n("bytes") as usize)),
            "nest" => {
                let mut v = json!(1);
                for _ in 0..n("depth") {
                    v = json!([v]);
                }
                json!({"content": [{"type": "text", "text": "nested"}], "structuredContent": {"v": v}})
            }
            other => text(format!("no tool {other}")),
        }
    }

    /// `work {tag, hold_ms, logs, progress, hold_after_ms, sample, elicit, stray,
    /// late_ms, name_token}`
    async fn work(self: &Arc<Self>, params: &Value, related: &Tx) -> Value {
        let args = &params["arguments"];
        let n = |k: &str| args[k].as_u64().unwrap_or(0);
        let tag = args["tag"].as_str().unwrap_or("?").to_string();
        let token = params["_meta"]["progressToken"].clone();
        let named = args["name_token"].as_bool().unwrap_or(false) && !token.is_null();
        let name = named.then_some(&token);
        tokio::time::sleep(Duration::from_millis(n("hold_ms"))).await;
        for i in 0..n("logs") {
            let _ = related.send(log(&format!("{tag}-log-{i}"), name));
        }
        if !token.is_null() {
            for i in 0..n("progress") {
                let _ = related.send(notification(
                    "notifications/progress",
                    json!({"progressToken": token, "progress": i + 1, "total": n("progress")}),
                ));
            }
        }
        tokio::time::sleep(Duration::from_millis(n("hold_after_ms"))).await;
        let common = self.common().unwrap_or_else(|| related.clone());
        for i in 0..n("stray") {
            let _ = common.send(log(&format!("{tag}-stray-{i}"), None));
        }
        let mut out = json!({"tag": tag});
        if args["sample"].as_bool() == Some(true) {
            let params = json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": format!("{tag}-prompt")}}],
                "maxTokens": 10
            });
            let answer = self
                .ask(related, "sampling/createMessage", params, name)
                .await;
            out["sampled"] = json!(text_of(&answer));
        }
        if args["elicit"].as_bool() == Some(true) {
            let params = json!({
                "mode": "form",
                "message": format!("{tag}-question"),
                "requestedSchema": {"type": "object", "properties": {"who": {"type": "string"}}}
            });
            let answer = self.ask(related, "elicitation/create", params, name).await;
            out["elicited"] = answer["result"]["content"]["who"].clone();
        }
        if n("late_ms") > 0 {
            let (me, wait) = (self.clone(), n("late_ms"));
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(wait)).await;
                let Some(to) = me.common() else { return };
                let params = json!({
                    "messages": [{"role": "user", "content": {"type": "text", "text": format!("{tag}-late")}}],
                    "maxTokens": 10
                });
                let answer = me.ask(&to, "sampling/createMessage", params, None).await;
                let _ = to.send(log(&format!("{tag}-late-log"), None));
                me.late.lock().unwrap().push(text_of(&answer));
            });
        }
        json!({"content": [{"type": "text", "text": out.to_string()}]})
    }
}

/// Serves `script` on an in-process byte stream (newline-delimited JSON-RPC,
/// as over stdio); the other end is returned.
pub fn stream(script: Arc<Script>) -> tokio::io::DuplexStream {
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    let (read, mut write) = tokio::io::split(ours);
    let (tx, mut rx) = mpsc::unbounded_channel::<Value>();
    *script.common.lock().unwrap() = Some(tx.clone());
    tokio::spawn(async move {
        while let Some(v) = rx.recv().await {
            let mut line = v.to_string();
            line.push('\n');
            if write.write_all(line.as_bytes()).await.is_err() {
                break;
            }
        }
    });
    tokio::spawn(async move {
        let mut lines = tokio::io::BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let Ok(msg) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            let (script, tx) = (script.clone(), tx.clone());
            tokio::spawn(async move {
                if let Some(answer) = script.handle(msg, tx.clone()).await {
                    let _ = tx.send(answer);
                }
            });
        }
    });
    theirs
}

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

fn sse(rx: mpsc::UnboundedReceiver<Value>) -> http::Response<Body> {
    let events = tokio_stream_of(rx).map(|v| {
        Ok::<_, Infallible>(hyper::body::Frame::data(Bytes::from(format!(
            "data: {v}\n\n"
        ))))
    });
    http::Response::builder()
        .header("content-type", "text/event-stream")
        .header("mcp-session-id", "script-session")
        .body(BodyExt::boxed(StreamBody::new(events)))
        .unwrap()
}

fn tokio_stream_of(mut rx: mpsc::UnboundedReceiver<Value>) -> impl futures::Stream<Item = Value> {
    futures::stream::poll_fn(move |cx| rx.poll_recv(cx))
}

fn plain(status: u16, body: Option<Value>) -> http::Response<Body> {
    let b = body.map(|v| v.to_string()).unwrap_or_default();
    http::Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .header("mcp-session-id", "script-session")
        .body(Full::new(Bytes::from(b)).boxed())
        .unwrap()
}

async fn answer_http(
    script: Arc<Script>,
    req: http::Request<hyper::body::Incoming>,
) -> http::Response<Body> {
    let auth = req
        .headers()
        .get(http::header::AUTHORIZATION)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).to_string());
    script.authorization.lock().unwrap().push(auth);
    match *req.method() {
        http::Method::GET => {
            let (tx, rx) = mpsc::unbounded_channel();
            *script.common.lock().unwrap() = Some(tx);
            sse(rx)
        }
        http::Method::DELETE => plain(200, None),
        http::Method::POST => {
            let Ok(body) = req.into_body().collect().await else {
                return plain(400, None);
            };
            let Ok(msg) = serde_json::from_slice::<Value>(&body.to_bytes()) else {
                return plain(400, None);
            };
            let is_request = msg.get("method").is_some() && msg.get("id").is_some();
            if !is_request {
                let (tx, _rx) = mpsc::unbounded_channel();
                script.handle(msg, tx).await;
                return plain(202, None);
            }
            if msg["method"] == "initialize" {
                let (tx, _rx) = mpsc::unbounded_channel();
                let answer = script.handle(msg, tx).await;
                return plain(200, answer);
            }
            // Everything related to the request, then its answer, on its own stream.
            let (tx, rx) = mpsc::unbounded_channel();
            tokio::spawn(async move {
                if let Some(answer) = script.handle(msg, tx.clone()).await {
                    let _ = tx.send(answer);
                }
            });
            sse(rx)
        }
        _ => plain(405, None),
    }
}

/// Serves `script` over streamable HTTP on a loopback port; returns its URL.
/// The server stops when the test's runtime does.
pub async fn http(script: Arc<Script>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let script = script.clone();
            tokio::spawn(async move {
                let svc = hyper::service::service_fn(move |req| {
                    let script = script.clone();
                    async move { Ok::<_, Infallible>(answer_http(script, req).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    format!("http://{addr}/mcp")
}
