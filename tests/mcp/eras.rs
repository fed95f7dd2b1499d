//! Both MCP eras with the official Python client at each negotiation mode
//! (`auto`, its default, which speaks 2026-07-28 to a gateway that does;
//! `2026-07-28` pinned; `legacy`), over stdio and HTTP, against the gateway
//! in code, tools and reveal modes, each with a call passed through to a
//! server: every answer must be one the client's own types accept for the
//! era it negotiated (issue 59, item 0: 2026-07-28 results without
//! `resultType` were refused).

use std::process::{Command, Stdio};

use serde_json::Value;

use crate::common::*;

fn py_modes(args: &[&str]) -> Value {
    let out = Command::new("python3")
        .arg(repo().join("tests/fixtures/py_modes.py"))
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "py_modes.py {args:?} failed");
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).unwrap_or_else(|_| panic!("not JSON: {text}"))
}

/// A gateway config in `mode` over server-everything alone.
fn config_in(mode: &str) -> std::path::PathBuf {
    let everything = node_module("@modelcontextprotocol/server-everything/dist/index.js");
    let path = temp_path("eras.toml");
    std::fs::write(
        &path,
        format!(
            "activation = \"always\"\nmode = \"{mode}\"\nsemantic = false\n\n[[servers]]\nname = \"everything\"\ncommand = \"node\"\nargs = [{everything:?}, \"stdio\"]\n"
        ),
    )
    .unwrap();
    path
}

fn check(v: &Value, mode: &str, client: &str, how: &str) {
    let at = format!("gateway {mode}, client {client}, {how}: {v}");
    assert_eq!(v["errors"], serde_json::json!([]), "{at}");
    assert_eq!(v["shape"], mode, "{at}");
    let last = v["answers"]
        .as_array()
        .and_then(|a| a.last())
        .and_then(Value::as_str)
        .unwrap_or_default();
    assert!(last.contains("Echo: from python"), "{at}");
    if client != "legacy" {
        assert_eq!(v["protocol"], "2026-07-28", "{at}");
    }
}

const CLIENT_MODES: [&str; 3] = ["auto", "2026-07-28", "legacy"];
const GATEWAY_MODES: [&str; 3] = ["code", "tools", "reveal"];

#[test]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
fn the_python_client_in_every_mode_drives_every_shape_of_the_gateway() {
    python_module_ok("mcp");
    let bin = binary();
    for mode in GATEWAY_MODES {
        let cfg = config_in(mode);
        for client in CLIENT_MODES {
            let v = py_modes(&[
                client,
                "stdio",
                bin.to_str().unwrap(),
                cfg.to_str().unwrap(),
            ]);
            check(&v, mode, client, "stdio");
        }
        let (mut gw, port) = http_gateway(&cfg, &[]);
        let url = format!("http://127.0.0.1:{port}/mcp");
        for client in CLIENT_MODES {
            check(&py_modes(&[client, "http", &url]), mode, client, "http");
        }
        let _ = gw.kill();
        let _ = gw.wait();
    }
}
