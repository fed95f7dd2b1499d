//! A server killed mid-session, a client cancelling a snippet, clean shutdown
//! with no orphan, and stdout carrying nothing but the protocol.

use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest};
use rmcp::service::PeerRequestOptions;
use serde_json::{json, Value};

use crate::common::*;

fn memory_pid(gateway: u32) -> Option<u32> {
    descendants(gateway)
        .into_iter()
        // The server itself, not its keeper (whose command line names it too).
        .find(|(_, cmd)| cmd.contains("server-memory") && !cmd.contains("server-keeper"))
        .map(|(p, _)| p)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn a_killed_server_fails_closed_and_comes_back_without_a_restart() {
    let gw = Gw::start(&config("mode = \"tools\"\nactivation = \"always\"")).await;
    let read = json!({"id": "mcp:memory:read_graph", "arguments": {}});
    let ok = gw.call("tool_call", read.clone()).await;
    assert_ne!(ok.is_error, Some(true), "{ok:?}");
    let first = memory_pid(gw.pid).expect("the memory server runs under the gateway");
    // SIGKILL: the server gets no chance to say goodbye.
    assert!(std::process::Command::new("kill")
        .args(["-9", &first.to_string()])
        .status()
        .unwrap()
        .success());

    // Its tools fail closed with UNAVAILABLE naming the server...
    let mut down = Value::Null;
    let t0 = Instant::now();
    // Hang guards, generous for a loaded machine: each loop ends as soon as it can.
    while t0.elapsed() < HANG_GUARD {
        let r = text_json(&gw.call("tool_call", read.clone()).await);
        if r["error"]["code"] == json!("UNAVAILABLE") {
            down = r;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        down["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("memory")),
        "{down}"
    );
    // ...while the other servers keep working.
    let t = gw
        .call(
            "tool_call",
            json!({"id": "mcp:time:get_current_time", "arguments": {"timezone": "UTC"}}),
        )
        .await;
    assert_ne!(t.is_error, Some(true), "{t:?}");

    // The gateway restarts it: its tools work again, with no gateway restart.
    let t0 = Instant::now();
    let mut back = false;
    while t0.elapsed() < 2 * HANG_GUARD {
        let r = gw.call("tool_call", read.clone()).await;
        if r.is_error != Some(true) {
            back = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(back, "the memory server did not come back");
    let second = memory_pid(gw.pid).expect("a new memory server");
    assert_ne!(first, second);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn a_client_cancellation_ends_a_running_snippet() {
    let gw = Gw::start(&config(
        "activation = \"always\"\n[limits]\ntimeout_ms = 60000",
    ))
    .await;
    // Warm up: the sandbox worker process exists once a snippet ran.
    let r = gw.code("return 1").await;
    assert_eq!(r["value"], json!(1), "{r}");
    let workers = |gw: &Gw| -> Vec<u32> {
        descendants(gw.pid)
            .into_iter()
            .filter(|(_, c)| c.contains("sandbox-worker"))
            .map(|(p, _)| p)
            .collect()
    };
    let before = workers(&gw);
    assert!(!before.is_empty());
    let params = CallToolRequestParams::new("tool_search_code").with_arguments(
        json!({"code": "await openclaw.tools.call('mcp:everything:trigger-long-running-operation', {duration: 50, steps: 50}); while (true) {}"})
            .as_object()
            .unwrap()
            .clone(),
    );
    let handle = gw
        .client
        .peer()
        .send_cancellable_request(
            ClientRequest::CallToolRequest(CallToolRequest::new(params)),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    handle
        .cancel(Some("the user pressed stop".into()))
        .await
        .unwrap();
    // The job's process is killed long before the 60 s budget, and the gateway
    // answers the next snippet at once.
    let gone = eventually(HANG_GUARD.as_secs(), || before.iter().any(|p| !alive(*p))).await;
    assert!(
        gone,
        "no sandbox process ended after the cancellation: {before:?}"
    );
    let t0 = Instant::now();
    let r = gw.code("return 2").await;
    assert_eq!(r["value"], json!(2), "{r}");
    // Relative to the 60 s budget: the cancellation freed the worker, not the deadline.
    assert!(
        t0.elapsed() < Duration::from_secs(60) / 2,
        "{:?}",
        t0.elapsed()
    );
}

/// Sends `lines` to a gateway's stdin, reads stdout until `want` responses came.
fn raw_session(
    config: &std::path::Path,
    lines: &[Value],
    want: usize,
) -> (std::process::Child, std::process::ChildStdin, Vec<String>) {
    let mut child = std::process::Command::new(binary())
        .args(["gateway", "--config"])
        .arg(config)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for l in lines {
        writeln!(stdin, "{l}").unwrap();
    }
    stdin.flush().unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut out = Vec::new();
    let mut responses = 0;
    for line in stdout.lines() {
        let line = line.unwrap();
        if serde_json::from_str::<Value>(&line).is_ok_and(|v| v.get("id").is_some()) {
            responses += 1;
        }
        out.push(line);
        if responses >= want {
            break;
        }
    }
    (child, stdin, out)
}

fn init() -> Vec<Value> {
    vec![
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
}

#[test]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
fn stdout_carries_only_the_protocol() {
    // A downstream server that writes to its stderr and a snippet that logs.
    let cfg = config("activation = \"always\"");
    let mut lines = init();
    lines.push(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "tool_search_code", "arguments": {"code": "console.log('LOGGED-LINE'); console.error('ERR-LINE'); await openclaw.tools.call('mcp:everything:toggle-simulated-logging', {}); return 3"}}}));
    lines.push(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}));
    let (mut child, stdin, out) = raw_session(&cfg, &lines, 3);
    drop(stdin);
    for l in &out {
        let v: Value =
            serde_json::from_str(l).unwrap_or_else(|_| panic!("not JSON-RPC on stdout: {l:?}"));
        assert_eq!(v["jsonrpc"], json!("2.0"), "{l}");
    }
    // The log is inside the tool result, never a line of its own.
    assert!(out
        .iter()
        .all(|l| !l.starts_with("LOGGED-LINE") && !l.starts_with("ERR-LINE")));
    assert!(out.iter().any(|l| l.contains("LOGGED-LINE")), "{out:?}");
    let _ = child.wait();
}

#[test]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
fn shutdown_leaves_no_orphan_on_eof_sigterm_and_sigint() {
    let cfg = config("activation = \"always\"");
    for how in ["eof", "TERM", "INT"] {
        let mut lines = init();
        lines.push(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "tool_search_code", "arguments": {"code": "return 1"}}}));
        let (mut child, stdin, _out) = raw_session(&cfg, &lines, 2);
        let pid = child.id();
        let started: Vec<(u32, String)> = descendants(pid);
        assert!(
            started.iter().any(|(_, c)| c.contains("server-memory")),
            "{started:?}"
        );
        assert!(
            started.iter().any(|(_, c)| c.contains("mcp_server_time")),
            "{started:?}"
        );
        // For the signals stdin stays open: the gateway must stop on the signal alone.
        let _open = if how == "eof" {
            drop(stdin);
            None
        } else {
            std::process::Command::new("kill")
                .args([&format!("-{how}"), &pid.to_string()])
                .status()
                .unwrap();
            Some(stdin)
        };
        let t0 = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break Some(s);
            }
            if t0.elapsed() > HANG_GUARD {
                break None;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(status.is_some(), "{how}: the gateway did not exit");
        let left: Vec<&(u32, String)> = started.iter().filter(|(p, _)| alive(*p)).collect();
        assert!(left.is_empty(), "{how}: orphans left: {left:?}");
    }
}

#[test]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
fn a_host_killed_with_sigkill_leaves_no_worker_process() {
    let cfg = config("activation = \"always\"\n[limits]\ntimeout_ms = 600000");
    let runaway = "for (;;) {}";
    // Two hosts, each running a snippet with a 10-minute budget: the gateway
    // (over stdio, stdin kept open) and `toolsearch exec`.
    for how in ["gateway", "exec"] {
        let mut cmd = std::process::Command::new(binary());
        if how == "gateway" {
            cmd.args(["gateway", "--config"]).arg(&cfg);
        } else {
            cmd.args(["exec", "--timeout-ms", "600000", "--code", runaway]);
        }
        let mut host = cmd
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = host.stdin.take().unwrap();
        if how == "gateway" {
            let mut lines = init();
            lines.push(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "tool_search_code", "arguments": {"code": runaway}}}));
            for l in &lines {
                writeln!(stdin, "{l}").unwrap();
            }
            stdin.flush().unwrap();
        }
        let pid = host.id();
        let workers = || -> Vec<(u32, String)> {
            descendants(pid)
                .into_iter()
                .filter(|(_, c)| c.contains("sandbox-worker"))
                .collect()
        };
        // The job is running once one of the worker processes has burned 0.2 s of
        // CPU (generous bound: only guards against a hang on a loaded machine).
        let t0 = Instant::now();
        let running = loop {
            let w = workers();
            if w.iter().any(|(p, _)| cpu_ticks(*p) >= 20) {
                break w;
            }
            assert!(
                t0.elapsed() < 4 * HANG_GUARD,
                "{how}: no snippet started running: {w:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        // The zygote and the job's own process at least.
        assert!(running.len() >= 2, "{how}: {running:?}");
        host.kill().unwrap(); // SIGKILL: the host cleans nothing up
        host.wait().unwrap();
        std::thread::sleep(Duration::from_secs(2));
        let left: Vec<&(u32, String)> = running.iter().filter(|(p, _)| alive(*p)).collect();
        assert!(
            left.is_empty(),
            "{how}: worker processes outlived their SIGKILLed host by 2 s: {left:?}"
        );
        drop(stdin);
    }
}
