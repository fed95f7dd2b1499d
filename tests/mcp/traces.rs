//! Traces over OTLP: a real gateway exports to a receiver on the official
//! `opentelemetry-proto` package (`tests/fixtures/otlp_receiver.py`), and the
//! trace context travels in (a client's `traceparent` header, or its `_meta`)
//! and on (to an HTTP server, `tests/fixtures/traced_server.py`, as header and
//! `_meta`).

use std::io::BufRead;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::common::*;

/// A fixture script started with python3: the process, and its stdout lines
/// after `port N` as they come.
struct Script {
    child: Child,
    port: u16,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Script {
    fn start(name: &str) -> Script {
        let mut child = Command::new("python3")
            .arg(toolsearch_tests::repo().join("tests/fixtures").join(name))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let first = out.next().expect("the script printed its port").unwrap();
        let port = first.strip_prefix("port ").unwrap().parse().unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let keep = lines.clone();
        std::thread::spawn(move || {
            for l in out.map_while(Result::ok) {
                keep.lock().unwrap().push(l);
            }
        });
        Script { child, port, lines }
    }

    fn json_lines(&self) -> Vec<Value> {
        let lines = self.lines.lock().unwrap();
        lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

impl Drop for Script {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// POSTs one JSON-RPC message; status, session id, and the message answered
/// (plain JSON or the last `data:` of an SSE stream).
async fn post(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    traceparent: Option<&str>,
    body: Value,
) -> (u16, Option<String>, Value) {
    let mut r = http
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(s) = session {
        r = r.header("mcp-session-id", s);
    }
    if let Some(t) = traceparent {
        r = r.header("traceparent", t);
    }
    let r = r.body(body.to_string()).send().await.unwrap();
    let status = r.status().as_u16();
    let sid = r
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_string());
    let text = r.text().await.unwrap_or_default();
    let msg = serde_json::from_str(&text).unwrap_or_else(|_| {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .next_back()
            .unwrap_or(Value::Null)
    });
    (status, sid, msg)
}

/// The spans of one trace, by id.
fn spans_of(receiver: &Script, trace: &str) -> Vec<Value> {
    receiver
        .json_lines()
        .into_iter()
        .filter(|s| s["trace_id"] == trace)
        .collect()
}

fn children<'a>(spans: &'a [Value], parent: &Value, name: &str) -> Vec<&'a Value> {
    spans
        .iter()
        .filter(|s| s["parent_span_id"] == parent["span_id"] && s["name"] == name)
        .collect()
}

/// What a snippet returned: the list its answer's text holds.
fn returned(answer: &Value) -> Vec<Value> {
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    match serde_json::from_str(text) {
        Ok(Value::Array(items)) => items,
        _ => panic!("the snippet's answer is not the list it returned: {answer}"),
    }
}

const SNIPPET: &str = "const a = await openclaw.tools.call('mcp:traced:seen', {n: 1});\n\
     const b = await openclaw.tools.call('mcp:traced:seen', {n: 2});\n\
     return [a, b];";

/// Checks the span tree of one `tool_search_code` call whose client span is
/// `client_span` in trace `trace`: the request's span under it, the snippet
/// under that, two calls under the snippet, one downstream span under each,
/// whose id is the `traceparent` the server saw (header and `_meta`).
async fn check_tree(receiver: &Script, trace: &str, client_span: &str, answer: &Value) {
    // The batch goes out within OTEL_BSP_SCHEDULE_DELAY (100 ms here).
    // Each span goes when it ends, in whichever batch is open then: wait for
    // the whole tree (the request, the snippet, two downstream calls).
    let complete = eventually(60, || {
        let spans = spans_of(receiver, trace);
        let named = |n: &str| spans.iter().filter(|s| s["name"] == n).count();
        named("tools/call tool_search_code") >= 1
            && named("snippet") >= 1
            && named("tools/call seen") >= 2
    })
    .await;
    let spans = spans_of(receiver, trace);
    assert!(complete, "the span tree was not all exported: {spans:#?}");
    let roots: Vec<&Value> = spans
        .iter()
        .filter(|s| s["name"] == "tools/call tool_search_code")
        .collect();
    assert_eq!(roots.len(), 1, "{spans:#?}");
    let root = roots[0];
    assert_eq!(
        root["parent_span_id"], client_span,
        "the client's span is the parent"
    );
    assert_eq!(root["kind"], 2, "SERVER: {root}");
    assert_eq!(root["service"], "toolsearch-under-test");
    assert_eq!(root["attributes"]["mcp.method.name"], "tools/call");
    // The facade's own span for the model's call sits between.
    let inner = children(&spans, root, "toolsearch.call");
    assert_eq!(inner.len(), 1, "{spans:#?}");
    let snippet = children(&spans, inner[0], "snippet");
    assert_eq!(snippet.len(), 1, "{spans:#?}");
    assert_eq!(snippet[0]["attributes"]["outcome"], "ok");
    let calls = children(&spans, snippet[0], "call mcp:traced:seen");
    assert_eq!(calls.len(), 2, "two calls under the snippet: {spans:#?}");
    // The snippet returned what the two calls saw.
    let seen = returned(answer);
    assert_eq!(seen.len(), 2, "{answer}");
    for call in calls {
        let down = children(&spans, call, "tools/call seen");
        assert_eq!(down.len(), 1, "one downstream span per call: {spans:#?}");
        assert_eq!(down[0]["kind"], 3, "CLIENT: {}", down[0]);
        assert_eq!(down[0]["attributes"]["toolsearch.server"], "traced");
        let sent = format!("00-{trace}-{}-01", down[0]["span_id"].as_str().unwrap());
        let got = seen
            .iter()
            .find(|s| s["header"] == sent.as_str())
            .unwrap_or_else(|| panic!("no call arrived with traceparent {sent}: {seen:?}"));
        assert_eq!(got["meta"], sent.as_str(), "`_meta` carries it too");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the fixtures' Python packages (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn a_snippet_s_span_tree_reaches_an_otlp_receiver_and_its_trace_goes_on_to_the_server() {
    let receiver = Script::start("otlp_receiver.py");
    let server = Script::start("traced_server.py");
    let cfg = temp_path("traces.toml");
    std::fs::write(
        &cfg,
        format!(
            "mode = \"code\"\nactivation = \"always\"\nsemantic = false\n\
             [telemetry]\notlp_endpoint = \"http://127.0.0.1:{}/v1/traces\"\nsample = 0.0\n\
             service_name = \"toolsearch-under-test\"\n\n\
             [[servers]]\nname = \"traced\"\nurl = \"http://127.0.0.1:{}/mcp\"\n",
            receiver.port, server.port
        ),
    )
    .unwrap();
    let (mut gw, port) = http_gateway(&cfg, &[("OTEL_BSP_SCHEDULE_DELAY", "100")]);
    let url = format!("http://127.0.0.1:{port}/mcp");
    toolsearch_mcp::http_client::install_tls_provider();
    let http = reqwest::Client::new();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "traces", "version": "0"}}});
    let (status, sid, _) = post(&http, &url, None, None, init).await;
    assert_eq!(status, 200);
    let sid = sid.expect("a session id");
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(&http, &url, Some(&sid), None, note).await.0, 202);

    // In by the HTTP header, sampled: `sample = 0` keeps no trace of its own,
    // so every span exported here follows the client's decision.
    let (trace, parent) = ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7");
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "tool_search_code", "arguments": {"code": SNIPPET}}});
    let header = format!("00-{trace}-{parent}-01");
    let (status, _, answer) = post(&http, &url, Some(&sid), Some(&header), call).await;
    assert_eq!(status, 200);
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    check_tree(&receiver, trace, parent, &answer).await;

    // In by `_meta` (SEP-414), which any transport carries.
    let (trace2, parent2) = ("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331");
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "tool_search_code", "arguments": {"code": SNIPPET},
        "_meta": {"traceparent": format!("00-{trace2}-{parent2}-01")}}});
    let (_, _, answer) = post(&http, &url, Some(&sid), None, call).await;
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    check_tree(&receiver, trace2, parent2, &answer).await;

    // Not sampled by the client: nothing of it is exported, and its servers
    // are told the same decision (its context goes on, flagged `00`).
    let trace3 = "11111111111111111111111111111111";
    let call = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
        "name": "tool_search_code", "arguments": {"code": SNIPPET}}});
    let header = format!("00-{trace3}-{parent}-00");
    let (_, _, answer) = post(&http, &url, Some(&sid), Some(&header), call).await;
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    for got in returned(&answer) {
        let h = got["header"].as_str().unwrap_or_default();
        assert!(
            h.starts_with(&format!("00-{trace3}-")) && h.ends_with("-00"),
            "{got}"
        );
        assert_eq!(got["meta"], got["header"], "{got}");
    }

    // No context, and `sample = 0`: a trace of the gateway's own, not kept,
    // goes on to its servers (one trace for the request's calls, flagged `00`),
    // and nothing of it is exported.
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "tool_search_code", "arguments": {"code": SNIPPET}}});
    let (_, _, answer) = post(&http, &url, Some(&sid), None, call).await;
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    let seen = returned(&answer);
    let trace4 = seen[0]["header"].as_str().unwrap_or_default();
    let trace4 = trace4.get(3..35).unwrap_or_default().to_string();
    for got in &seen {
        let h = got["header"].as_str().unwrap_or_default();
        assert!(
            h.len() == 55 && h[3..35] == trace4 && h.ends_with("-00"),
            "{got}"
        );
        assert_eq!(got["meta"], got["header"], "{got}");
    }
    assert!(![trace, trace2, trace3].contains(&trace4.as_str()));

    // The gateway's stop sends what is batched; the receiver refused nothing.
    let _ = nix_term(&gw);
    let status = gw.wait().unwrap();
    assert!(status.success(), "the gateway's stop: {status:?}");
    let lines = receiver.json_lines();
    assert!(
        lines.iter().all(|l| l.get("refused").is_none()),
        "{lines:#?}"
    );
    assert!(spans_of(&receiver, trace3).is_empty());
    assert!(spans_of(&receiver, &trace4).is_empty());
}

/// Asks the gateway to stop (SIGTERM), as an operator would.
fn nix_term(child: &Child) -> std::io::Result<std::process::ExitStatus> {
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
}

/// A stdio gateway whose batch would wait ten minutes: its stop (the client
/// closes stdin) sends the batch before it exits, and a request that came with
/// no trace context is the root of a trace of its own, passed on to its server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the fixtures' Python packages (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn a_stdio_gateway_sends_its_last_batch_at_its_stop_and_roots_a_trace_of_its_own() {
    use std::io::Write;
    let receiver = Script::start("otlp_receiver.py");
    let server = Script::start("traced_server.py");
    let cfg = temp_path("traces-stdio.toml");
    std::fs::write(
        &cfg,
        format!(
            "mode = \"code\"\nactivation = \"always\"\nsemantic = false\n\
             [telemetry]\notlp_endpoint = \"http://127.0.0.1:{}/v1/traces\"\n\
             service_name = \"toolsearch-under-test\"\n\n\
             [[servers]]\nname = \"traced\"\nurl = \"http://127.0.0.1:{}/mcp\"\n",
            receiver.port, server.port
        ),
    )
    .unwrap();
    let mut gw = Command::new(binary())
        .args(["gateway", "--config"])
        .arg(&cfg)
        .env("OTEL_BSP_SCHEDULE_DELAY", "600000")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut to = gw.stdin.take().unwrap();
    let mut from = std::io::BufReader::new(gw.stdout.take().unwrap()).lines();
    let mut ask = |msg: Value| -> Value {
        writeln!(to, "{msg}").unwrap();
        let Some(id) = msg.get("id").cloned() else {
            return Value::Null;
        };
        loop {
            let line = from.next().expect("the gateway answers").unwrap();
            let m: Value = serde_json::from_str(&line).unwrap();
            if m["id"] == id {
                return m;
            }
        }
    };
    let init = ask(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "traces", "version": "0"}}}),
    );
    assert!(init["result"].is_object(), "{init}");
    ask(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let answer = ask(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "tool_search_code", "arguments": {"code": SNIPPET}}}),
    );
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    // The server saw one trace, sampled, which the client did not send.
    let seen = returned(&answer);
    let trace = seen[0]["header"].as_str().unwrap_or_default()[3..35].to_string();
    assert!(
        seen.iter().all(|s| {
            let h = s["header"].as_str().unwrap_or_default();
            h.len() == 55 && h[3..35] == trace && h.ends_with("-01")
        }),
        "{seen:?}"
    );
    assert!(
        receiver.json_lines().is_empty(),
        "the batch waits for its delay or the stop"
    );

    // The client goes: the gateway stops, and sends the batch first.
    drop(to);
    let t0 = std::time::Instant::now();
    let status = loop {
        if let Some(s) = gw.try_wait().unwrap() {
            break s;
        }
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(60),
            "the gateway did not stop"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert!(status.success(), "the gateway's stop: {status:?}");
    // The whole tree, under a root (no parent span).
    check_tree(&receiver, &trace, "", &answer).await;
}

/// Issue 59, item 8: a trace collector that accepts and never answers holds
/// the stop no longer than the README's 5 s (it took 5.2 s: the export's own
/// 5 s came after the rest of the stop).
#[test]
#[ignore = "needs the toolsearch binary; `cargo xtask test` runs it"]
fn a_hung_trace_collector_holds_the_stop_no_longer_than_five_seconds() {
    use std::io::Write;
    let hung = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = hung.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for s in hung.incoming().map_while(Result::ok) {
            held.push(s);
        }
    });
    let cfg = temp_path("traces-hung.toml");
    std::fs::write(
        &cfg,
        format!(
            "mode = \"tools\"\nactivation = \"always\"\nsemantic = false\n\
             [telemetry]\notlp_endpoint = \"http://127.0.0.1:{port}/v1/traces\"\n"
        ),
    )
    .unwrap();
    let mut gw = Command::new(binary())
        .args(["gateway", "--config"])
        .arg(&cfg)
        .env("OTEL_BSP_SCHEDULE_DELAY", "600000")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut to = gw.stdin.take().unwrap();
    let mut from = std::io::BufReader::new(gw.stdout.take().unwrap()).lines();
    for msg in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "hung", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "tool_search", "arguments": {"query": "anything"}}}),
    ] {
        writeln!(to, "{msg}").unwrap();
        if let Some(id) = msg.get("id").cloned() {
            loop {
                let line = from.next().expect("the gateway answers").unwrap();
                if serde_json::from_str::<Value>(&line).unwrap()["id"] == id {
                    break;
                }
            }
        }
    }
    let stop = std::time::Instant::now();
    drop(to);
    let status = gw.wait().unwrap();
    let took = stop.elapsed();
    assert!(status.success(), "{status:?}");
    assert!(
        took < std::time::Duration::from_secs(5),
        "the stop took {took:?}"
    );
}
