//! Issue 62: clients of the 2026-07-28 revision, which hold no session. What
//! that revision gives no carrier for is refused with a reason, at once; a
//! list says how long it may be kept, as no `list_changed` reaches them.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::*;
use crate::prompt_cache::{listed, tools, Client, Gateway, Setup};

/// One stateless request, raw: its result (or error) object.
pub(crate) fn stateless(port: u16, method: &str, params: Value, capabilities: Value) -> Value {
    stateless_as(port, None, method, params, capabilities)
}

/// [`stateless`] with a bearer token.
fn stateless_as(
    port: u16,
    token: Option<&str>,
    method: &str,
    params: Value,
    capabilities: Value,
) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let name = params["name"].as_str().unwrap_or_default().to_string();
    let mut headers = vec![
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method),
    ];
    if !name.is_empty() {
        headers.push(("Mcp-Name", name.as_str()));
    }
    let auth = token.map(|t| format!("Bearer {t}"));
    if let Some(a) = &auth {
        headers.push(("Authorization", a.as_str()));
    }
    let (status, head, text) = raw(port, "POST", "/mcp", &headers, &body);
    assert_eq!(status, 200, "{head}\n{text}");
    answer_of(&text)
}

/// The JSON-RPC answer in a JSON body, or in the SSE event holding it (the
/// body may be chunked: chunk sizes are lines of their own).
fn answer_of(text: &str) -> Value {
    let whole = std::iter::once(text.trim());
    let events = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim);
    whole
        .chain(events)
        .filter_map(|j| serde_json::from_str::<Value>(j).ok())
        .find(|v| v.get("result").is_some() || v.get("error").is_some())
        .unwrap_or_else(|| panic!("no answer in: {text}"))
}

/// A `tools/list` in a session of the 2025-11-25 revision, raw: the result.
fn session_list(port: u16) -> Value {
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    let (_, head, _) = raw(port, "POST", "/mcp", &[], init);
    let sid = head
        .lines()
        .find_map(|l| l.strip_prefix("mcp-session-id: "))
        .map(str::trim)
        .expect("a session id")
        .to_string();
    let h = [
        ("Mcp-Session-Id", sid.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    raw(
        port,
        "POST",
        "/mcp",
        &h,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    let (status, _, text) = raw(
        port,
        "POST",
        "/mcp",
        &h,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    );
    assert_eq!(status, 200, "{text}");
    answer_of(&text)["result"].clone()
}

/// One stateless `tools/list`: its result.
fn stateless_list(port: u16) -> Value {
    stateless(port, "tools/list", json!({}), json!({}))["result"].clone()
}

/// A child process killed when dropped (a failing test leaves nothing).
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
#[ignore = "needs python, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
fn a_servers_request_during_a_stateless_call_is_refused_with_the_reason_at_once() {
    python_module_ok("mcp");
    // The conformance fixture over streamable HTTP: its sampling and
    // elicitation requests ride the call's stream, so the gateway knows whose
    // call they belong to (over stdio nothing would say).
    let fixture_port = free_port();
    let _fixture = Killed(
        std::process::Command::new("python3")
            .arg(repo().join("tests/fixtures/conformance_server.py"))
            .args(["--port", &fixture_port.to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("python3 runs the fixture"),
    );
    let t0 = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", fixture_port)).is_err() {
        assert!(t0.elapsed() < HANG_GUARD, "the fixture did not listen");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let cfg = temp_path("stateless.toml");
    std::fs::write(
        &cfg,
        format!(
            "activation = \"always\"\nsemantic = false\n\n[[servers]]\nname = \"fixture\"\nurl = \"http://127.0.0.1:{fixture_port}/mcp\"\n"
        ),
    )
    .unwrap();
    let (gw, port) = http_gateway(&cfg, &[]);
    let _gw = Killed(gw);
    // The client even claims both capabilities: it has no session to be asked in.
    let caps = json!({"sampling": {}, "elicitation": {"form": {}}});
    for (tool, args) in [
        ("test_sampling", "{prompt: 'x'}"),
        ("test_elicitation", "{message: 'who?'}"),
    ] {
        let code = format!(
            "try {{ return await openclaw.tools.call('mcp:fixture:{tool}', {args}); }}
             catch (e) {{ return e.message; }}"
        );
        let t0 = Instant::now();
        let v = stateless(
            port,
            "tools/call",
            json!({"name": "tool_search_code", "arguments": {"code": code}}),
            caps.clone(),
        );
        let took = t0.elapsed();
        let text = v.to_string();
        assert!(
            text.contains("2026-07-28") && text.contains("no way to reach it"),
            "{tool}: {v}"
        );
        assert!(
            took < Duration::from_secs(5),
            "{tool}: answered after {took:?}"
        );
        eprintln!("{tool}: refused in {} ms: {text}", took.as_millis());
    }
}

#[tokio::test]
#[ignore = "needs python and the toolsearch binary; `cargo xtask test` runs it"]
async fn a_stateless_list_says_how_long_it_may_be_kept() {
    // The ttl is a tenth of the time the list has stood, from 1 s to 5 min:
    // bounded here by what this test measured, whatever the machine's load.
    let ttl = |v: &Value| v["ttlMs"].as_u64().unwrap_or_else(|| panic!("{v}"));
    let tenth = |d: Duration| (d.as_millis() as u64 / 10).clamp(1000, 300_000);
    let setup = Setup::new("mode = \"code\"\nactivation = \"always\"");
    let t0 = Instant::now();
    let gw = Gateway::start(&setup.config);
    let client = Client::connect(gw.port).await;
    listed(&client, "rollback").await;
    let first = stateless_list(gw.port);
    assert_eq!(first["resultType"], "complete", "{first}");
    assert_eq!(first["cacheScope"], "private", "a profile's list: {first}");
    // It has stood at most since the gateway started.
    assert!(ttl(&first) <= tenth(t0.elapsed()), "{first}");
    // The stateless client is served what a session is.
    let (session_tools, _) = client.prefix().await;
    assert_eq!(
        serde_json::to_string(&first["tools"]).unwrap(),
        session_tools,
        "the same bytes in both eras"
    );
    // A session-era answer carries no 2026-07-28 hints.
    let legacy = session_list(gw.port);
    assert!(
        legacy.get("ttlMs").is_none() && legacy.get("cacheScope").is_none(),
        "{legacy}"
    );

    // A change starts it again; the list then stands 15 s.
    let before_change = Instant::now();
    setup.set_list(&tools(&["deploy", "rollback", "status", "promote"], false));
    listed(&client, "promote").await;
    let seen = Instant::now();
    let after = stateless_list(gw.port);
    assert!(
        ttl(&after) <= tenth(before_change.elapsed()),
        "just changed: {after}"
    );
    tokio::time::sleep(Duration::from_secs(15)).await;
    let (lo, stood, hi) = (
        tenth(seen.elapsed()),
        ttl(&stateless_list(gw.port)),
        tenth(before_change.elapsed()),
    );
    assert!(
        (lo..=hi).contains(&stood),
        "{stood} ms, not within [{lo}, {hi}] (a tenth of the time it stood)"
    );
    assert!(stood >= 1500, "15 s standing gives at least 1.5 s: {stood}");
}

#[test]
#[ignore = "needs node, python, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
fn reveal_mode_without_a_session_answers_with_the_schema_and_says_the_list_stays() {
    let cfg = config("mode = \"reveal\"\nactivation = \"always\"\nsemantic = false");
    let (gw, port) = http_gateway(&cfg, &[]);
    let _gw = Killed(gw);
    let before = stateless_list(port);
    assert!(before["tools"].is_array(), "{before}");
    let found = stateless(
        port,
        "tools/call",
        json!({"name": "tool_search", "arguments": {"query": "current time in a timezone"}}),
        json!({}),
    );
    let content = found["result"]["content"].as_array().expect("content");
    let hits: Value = serde_json::from_str(content[0]["text"].as_str().unwrap()).unwrap();
    let hit = hits["hits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["id"] == "mcp:time:get_current_time")
        .unwrap_or_else(|| panic!("{hits}"))
        .clone();
    assert!(
        hit["input_schema"]["properties"]["timezone"].is_object(),
        "{hit}"
    );
    let call_as = hit["call_as"].as_str().expect("call_as").to_string();
    assert_eq!(content.len(), 1, "one JSON answer: {found}");
    let note = hits["note"].as_str().unwrap_or_default();
    assert!(
        note.contains("no session") && note.contains("not added to its tool list"),
        "{note}"
    );
    // Called by that name, it runs (checked against the full schema).
    let called = stateless(
        port,
        "tools/call",
        json!({"name": call_as, "arguments": {"timezone": "UTC"}}),
        json!({}),
    );
    assert_ne!(called["result"]["isError"], true, "{called}");
    assert!(called.to_string().contains("UTC"), "{called}");
    // And the list is what it was.
    assert_eq!(stateless_list(port)["tools"], before["tools"]);
}

/// A stateless snippet as the holder of `token`: its `ExecResult` view.
fn snippet_as(port: u16, token: &str, code: &str) -> Value {
    let v = stateless_as(
        port,
        Some(token),
        "tools/call",
        json!({"name": "tool_search_code", "arguments": {"code": code}}),
        json!({}),
    );
    let r: rmcp::model::CallToolResult =
        serde_json::from_value(v["result"].clone()).unwrap_or_else(|_| panic!("{v}"));
    crate::harness::code_view(&r)
}

/// Snippet slots are held per caller when there is no session: one token's
/// stateless snippets share one caller's share (half the slots), as a
/// session's do; another token of the same profile still finds room.
#[test]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
fn a_stateless_callers_snippets_share_one_share_of_the_slots() {
    let pid = std::process::id();
    let (va, vb) = (format!("TS_SLOT_A_{pid}"), format!("TS_SLOT_B_{pid}"));
    let cfg = temp_path("slots.toml");
    let everything = node_module("@modelcontextprotocol/server-everything/dist/index.js");
    std::fs::write(
        &cfg,
        format!(
            "mode = \"code\"\nactivation = \"always\"\nsemantic = false\n[limits]\ntimeout_ms = 30000\n\
             [http]\nmax_concurrent_snippets = 4\nsnippet_queue_ms = 1500\n\
             [[profiles]]\nname = \"team\"\ntoken_env = [\"{va}\", \"{vb}\"]\n\n\
             [[servers]]\nname = \"everything\"\ncommand = \"node\"\nargs = [{everything:?}, \"stdio\"]\n"
        ),
    )
    .unwrap();
    let (gw, port) = http_gateway(&cfg, &[(&va, "tok-a"), (&vb, "tok-b")]);
    let _gw = Killed(gw);
    assert_eq!(snippet_as(port, "tok-a", "return 1")["value"], 1);
    let slow = "await openclaw.tools.call('mcp:everything:trigger-long-running-operation', \
                {duration: 6, steps: 2}); return 'slow'";
    let flood: Vec<_> = (0..4)
        .map(|_| std::thread::spawn(move || snippet_as(port, "tok-a", slow)))
        .collect();
    // Another caller of the profile runs while a's snippets hold their share.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let t0 = Instant::now();
    let b = snippet_as(port, "tok-b", "return 2");
    assert_eq!(b["value"], 2, "b waited {:?}: {b}", t0.elapsed());
    let answers: Vec<Value> = flood.into_iter().map(|t| t.join().unwrap()).collect();
    let refused: Vec<&Value> = answers.iter().filter(|v| v["value"] != "slow").collect();
    assert!(
        !refused.is_empty(),
        "a's four stateless snippets all ran: {answers:?}"
    );
    for v in refused {
        let m = v["error"]["message"].as_str().unwrap_or_default();
        assert!(
            v["error"]["code"] == "LIMIT" && m.contains("this caller may run at most 2"),
            "{v}"
        );
    }
}

/// `destructive = "elicit"` without a session: the approval is an
/// input-required round. A snippet that reaches the destructive call stops
/// there, even one that would catch the refusal and go on: the answer is the
/// round (the question naming the tool and its arguments, and the sealed
/// state), not the snippet's value.
#[test]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
fn a_destructive_call_without_a_session_is_a_round_asking_the_user() {
    let cfg = config("activation = \"always\"\ndestructive = \"elicit\"\nsemantic = false");
    let (gw, port) = http_gateway(&cfg, &[]);
    let _gw = Killed(gw);
    let code = r#"try { await openclaw.tools.call("mcp:memory:delete_entities", {entityNames: ["nobody"]}); return "ran"; }
                  catch (e) { return {code: e.code, message: e.message}; }"#;
    let v = stateless(
        port,
        "tools/call",
        json!({"name": "tool_search_code", "arguments": {"code": code}}),
        json!({"elicitation": {"form": {}}}),
    );
    let result = &v["result"];
    assert_eq!(result["resultType"], "input_required", "{v}");
    let asked = &result["inputRequests"]["approve"];
    assert_eq!(asked["method"], "elicitation/create", "{v}");
    let message = asked["params"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("`mcp:memory:delete_entities`") && message.contains("nobody"),
        "{v}"
    );
    assert!(
        result["requestState"]
            .as_str()
            .is_some_and(|s| s.len() > 40),
        "{v}"
    );
    assert!(
        result.get("content").is_none(),
        "the snippet's value leaked: {v}"
    );
}
