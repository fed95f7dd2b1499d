//! The protocol answers of the front door, per the table in
//! `crates/mcp/src/serve/protocol.rs` (HTTP) and `serve/lines.rs` (stdio):
//! every request that cannot be served gets a JSON-RPC error with the right
//! code and status, never silence. On the in-process harness.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
use toolsearch_mcp::Config;

use crate::harness::{gateway, serve_http, Reach, Script};

const ACCEPT: &str = "application/json, text/event-stream";

fn client() -> reqwest::Client {
    toolsearch_mcp::http_client::install_tls_provider();
    reqwest::Client::new()
}

fn init(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}})
}

fn call(id: u64, tool: &str, args: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "tool_call", "arguments": {"id": format!("mcp:s:{tool}"), "arguments": args}}})
}

/// POSTs `body` (raw text) to `url`, in `session`; status and body text.
async fn post(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: String,
) -> (u16, String, Option<String>) {
    let mut r = http
        .post(url)
        .header("accept", ACCEPT)
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(s) = session {
        r = r.header("mcp-session-id", s);
    }
    let r = r.body(body).send().await.unwrap();
    let status = r.status().as_u16();
    let sid = r
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_string());
    (status, r.text().await.unwrap_or_default(), sid)
}

/// The JSON-RPC message in a body: plain JSON or the last `data:` of an SSE stream.
fn message(body: &str) -> Value {
    if let Ok(v) = serde_json::from_str(body) {
        return v;
    }
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .next_back()
        .unwrap_or(Value::Null)
}

async fn open(http: &reqwest::Client, url: &str) -> String {
    let (status, _, sid) = post(http, url, None, init(1).to_string()).await;
    assert_eq!(status, 200);
    let sid = sid.expect("a session id");
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    assert_eq!(post(http, url, Some(&sid), note).await.0, 202);
    sid
}

fn deep(levels: usize) -> String {
    format!("{}1{}", "[".repeat(levels), "]".repeat(levels))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_answers_follow_the_table() {
    let script = Script::new(0);
    let gw = gateway(vec![("s", Reach::Stream(script))], "").await;
    let (url, stop) = serve_http(gw.clone(), &Config::parse("").unwrap()).await;
    let http = client();
    let session = open(&http, &url).await;
    let other = url.replace("/mcp", "/elsewhere");
    let lone = r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"tool_call","arguments":{"id":"mcp:s:work","arguments":{"tag":"cut \ud83d"}}}}"#;
    // (what, url, session, body) → (status, code, id)
    type Case<'a> = (&'a str, &'a str, Option<&'a str>, String, u16, i64, Value);
    let cases: Vec<Case> = vec![
        (
            "unknown path",
            &other,
            None,
            init(1).to_string(),
            404,
            -32601,
            Value::Null,
        ),
        (
            "not JSON",
            &url,
            Some(&session),
            "{\"jsonrpc\": ".into(),
            400,
            -32700,
            Value::Null,
        ),
        (
            "nested 500 deep",
            &url,
            Some(&session),
            deep(500),
            400,
            -32700,
            Value::Null,
        ),
        (
            "a batch",
            &url,
            Some(&session),
            json!([call(2, "work", json!({}))]).to_string(),
            400,
            -32600,
            Value::Null,
        ),
        (
            "bad params",
            &url,
            Some(&session),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": "no"}).to_string(),
            400,
            -32602,
            json!(3),
        ),
        (
            "bad params shape",
            &url,
            Some(&session),
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": 5}})
                .to_string(),
            400,
            -32602,
            json!(4),
        ),
        (
            "unknown session",
            &url,
            Some("no-such-session"),
            call(5, "work", json!({})).to_string(),
            404,
            -32001,
            Value::Null,
        ),
    ];
    for (what, to, sid, body, status, code, id) in cases {
        let (got, text, _) = post(&http, to, sid, body).await;
        assert_eq!(got, status, "{what}: {text}");
        let m = message(&text);
        assert_eq!(m["error"]["code"], json!(code), "{what}: {text}");
        assert_eq!(m["id"], id, "{what}: {text}");
    }
    // A lone surrogate (an emoji cut in half) is read as U+FFFD and served.
    let (status, text, _) = post(&http, &url, Some(&session), lone.to_string()).await;
    assert_eq!(status, 200, "{text}");
    assert!(
        message(&text)["result"]
            .to_string()
            .contains("cut \u{FFFD}"),
        "{text}"
    );

    // Five requests with one id at once: one is served, four are refused.
    let mut waits = Vec::new();
    for _ in 0..5 {
        let (http, url, session) = (http.clone(), url.clone(), session.clone());
        waits.push(tokio::spawn(async move {
            let body = call(7, "work", json!({"tag": "dup", "hold_ms": 400})).to_string();
            post(&http, &url, Some(&session), body).await
        }));
    }
    let mut served = 0;
    let mut refused = 0;
    for w in waits {
        let (status, text, _) = w.await.unwrap();
        let m = message(&text);
        if status == 200 && m["result"].is_object() {
            served += 1;
        } else {
            assert_eq!(
                (status, m["error"]["code"].clone(), m["id"].clone()),
                (400, json!(-32600), json!(7)),
                "{text}"
            );
            refused += 1;
        }
    }
    assert_eq!((served, refused), (1, 4));
    // The id is free again once answered.
    let (status, text, _) = post(
        &http,
        &url,
        Some(&session),
        call(7, "work", json!({"tag": "again"})).to_string(),
    )
    .await;
    assert_eq!(status, 200, "{text}");

    // DELETE: 204 for an open session, then 404.
    for want in [204, 404] {
        let r = http
            .delete(&url)
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-11-25")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), want);
    }
    stop.cancel();
}

/// One raw stdio session of `gw`: lines in, lines out.
struct Lines {
    to: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    from: tokio::io::Lines<tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
}

impl Lines {
    async fn send(&mut self, line: &str) {
        self.to.write_all(line.as_bytes()).await.unwrap();
        self.to.write_all(b"\n").await.unwrap();
    }

    /// The next message that is not a notification.
    async fn answer(&mut self) -> Value {
        loop {
            let line = tokio::time::timeout(Duration::from_secs(30), self.from.next_line())
                .await
                .expect("an answer")
                .unwrap()
                .expect("a line");
            let v: Value = serde_json::from_str(&line).unwrap();
            if v.get("method").is_none() {
                return v;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_answers_every_line() {
    let script = Script::new(0);
    let gw = gateway(vec![("s", Reach::Stream(script))], "").await;
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let session = gw.session();
    let transport = toolsearch_mcp::serve::lines::transport(tokio::io::split(theirs), || {});
    tokio::spawn(async move {
        use rmcp::ServiceExt;
        if let Ok(running) = session.serve(transport).await {
            let _ = running.waiting().await;
        }
    });
    let (read, write) = tokio::io::split(ours);
    let mut io = Lines {
        to: write,
        from: tokio::io::BufReader::new(read).lines(),
    };
    io.send(&init(1).to_string()).await;
    assert!(io.answer().await["result"].is_object());
    io.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string())
        .await;
    let huge = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"ping\",\"params\":{{\"pad\":\"{}\"}}}}",
        "x".repeat(17 << 20)
    );
    let cases: Vec<(&str, String, i64, Value)> = vec![
        ("not JSON", "{\"jsonrpc\": ".into(), -32700, Value::Null),
        ("over 16 MiB", huge, -32700, Value::Null),
        ("nested 500 deep", deep(500), -32700, Value::Null),
        (
            "a batch",
            json!([call(2, "work", json!({}))]).to_string(),
            -32600,
            Value::Null,
        ),
        (
            "bad params",
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": "no"}).to_string(),
            -32602,
            json!(3),
        ),
        (
            "bad params shape",
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": 5}})
                .to_string(),
            -32602,
            json!(4),
        ),
        (
            "not a message",
            json!({"jsonrpc": "2.0", "id": 6}).to_string(),
            -32600,
            json!(6),
        ),
    ];
    for (what, line, code, id) in cases {
        io.send(&line).await;
        let m = io.answer().await;
        assert_eq!(m["error"]["code"], json!(code), "{what}: {m}");
        assert_eq!(m["id"], id, "{what}: {m}");
    }
    // A lone surrogate is read as U+FFFD and served.
    io.send(r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"tool_call","arguments":{"id":"mcp:s:work","arguments":{"tag":"cut \ud83d"}}}}"#).await;
    let m = io.answer().await;
    assert!(m["result"].to_string().contains("cut \u{FFFD}"), "{m}");
    // A second request with the id of one in flight is refused; the first is served.
    io.send(&call(10, "work", json!({"tag": "first", "hold_ms": 300})).to_string())
        .await;
    io.send(&call(10, "work", json!({"tag": "second"})).to_string())
        .await;
    let refused = io.answer().await;
    assert_eq!(
        (refused["id"].clone(), refused["error"]["code"].clone()),
        (json!(10), json!(-32600)),
        "{refused}"
    );
    let served = io.answer().await;
    assert!(served["result"].to_string().contains("first"), "{served}");
    // A cancelled request's id is held while its handler winds down, then free.
    io.send(&call(11, "work", json!({"tag": "slow", "hold_ms": 3000})).to_string())
        .await;
    io.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 11}}).to_string()).await;
    io.send(&call(11, "work", json!({"tag": "early"})).to_string())
        .await;
    let early = io.answer().await;
    assert_eq!(
        (early["id"].clone(), early["error"]["code"].clone()),
        (json!(11), json!(-32600)),
        "{early}"
    );
    assert!(early.to_string().contains("cancelled"), "{early}");
    tokio::time::sleep(toolsearch_mcp::serve::lines::CANCELLED_HOLD + Duration::from_millis(200))
        .await;
    io.send(&call(11, "work", json!({"tag": "again"})).to_string())
        .await;
    let again = io.answer().await;
    assert!(again["result"].to_string().contains("again"), "{again}");
    let _ = Arc::clone(&gw);
}
