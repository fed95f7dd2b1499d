//! Issue 62: clients of the 2026-07-28 revision, which hold no session. What
//! that revision gives no carrier for is refused with a reason, at once.

use std::time::Instant;

use serde_json::{json, Value};

use crate::common::*;

/// One stateless request, raw: its result (or error) object.
fn stateless(port: u16, method: &str, params: Value, capabilities: Value) -> Value {
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
    let (status, head, text) = raw(port, "POST", "/mcp", &headers, &body);
    assert_eq!(status, 200, "{head}\n{text}");
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
        assert!(took < HANG_GUARD, "{tool}: answered after {took:?}");
        eprintln!("{tool}: refused in {} ms: {text}", took.as_millis());
    }
}
