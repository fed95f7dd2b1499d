//! A server URL with a key in it (`?api_key=...`, `user:pass@`) leaves the
//! process nowhere: not in the servers' status (`config check --servers`, the
//! gateway's status), not in the gateway's log at its default level, not in
//! what a client is told. Needs the binary.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;

/// A config with one server whose URL holds secrets, on a port nobody serves.
fn config() -> std::path::PathBuf {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let cfg = temp_path("secret.toml");
    std::fs::write(
        &cfg,
        format!(
            "mode = \"tools\"\nsemantic = false\n[limits]\nstartup_timeout_ms = 3000\n\n[[servers]]\nname = \"remote\"\nurl = \"http://user:PASSWORD1@127.0.0.1:{port}/mcp?api_key=SECRET1&x=1\"\n"
        ),
    )
    .unwrap();
    cfg
}

fn assert_clean(what: &str, text: &str) {
    for secret in ["SECRET1", "PASSWORD1"] {
        assert!(!text.contains(secret), "{what} shows {secret}:\n{text}");
    }
}

#[test]
#[ignore = "needs the toolsearch binary; `cargo xtask test` runs it"]
fn a_servers_url_secrets_leave_the_process_nowhere() {
    let cfg = config();
    // `config check --servers`: the effective config and the servers' status.
    let out = Command::new(binary())
        .args(["config", "check", "--servers"])
        .arg(&cfg)
        .env("TOOLSEARCH_LOG", "debug")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.contains("\"up\": false") || stdout.contains("\"up\":false"),
        "{stdout}"
    );
    assert!(stdout.contains("<redacted>"), "{stdout}");
    assert_clean("config check --servers", &stdout);
    assert_clean("the log of config check (debug)", &stderr);

    // The gateway over stdio at the default log level, and at debug: its
    // log, and a client's answers (the status tool, an unknown tool).
    for level in ["info", "debug"] {
        let mut child = Command::new(binary())
            .args(["gateway", "--config"])
            .arg(&cfg)
            .env("TOOLSEARCH_LOG", level)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        use std::io::Write;
        let lines = [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"tool_search","arguments":{"query":"remote"}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"tool_call","arguments":{"id":"mcp:remote:anything","arguments":{}}}}"#,
        ];
        for l in lines {
            writeln!(stdin, "{l}").unwrap();
        }
        // Reconnect attempts meanwhile (backoff from 250 ms): several errors logged.
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(3) {
            std::thread::sleep(Duration::from_millis(100));
        }
        drop(stdin);
        let _ = child.wait();
        let (mut out, mut err) = (String::new(), String::new());
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert!(out.contains("\"id\":3"), "{out}");
        assert!(
            err.contains("127.0.0.1"),
            "the log names the server's address ({level}): {err}"
        );
        assert_clean(&format!("the client's answers ({level})"), &out);
        assert_clean(&format!("the gateway's log ({level})"), &err);
    }
}
