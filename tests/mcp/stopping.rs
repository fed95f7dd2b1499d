//! Stopping the real gateway binary in front of hostile stdio servers (a
//! re-list that never answers, a call that never answers, a log flood,
//! helpers that outlive their server in its group, in a session of their own
//! and orphaned at once, a wrapper shell): stdin EOF, SIGTERM and SIGINT end
//! the gateway and everything it started within 5 s, and callers in flight get
//! a JSON-RPC error. Needs python3 and the binary.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::*;

/// The bound the issue sets on a stop: the gateway and everything it started.
const STOP_BOUND: Duration = Duration::from_secs(5);

fn script() -> PathBuf {
    repo().join("tests/fixtures/misbehaving_server.py")
}

/// A server entry running the fixture with `flags`, its helpers' pids noted in `pids`.
fn server(name: &str, flags: &[&str], pids: &Path) -> String {
    let args: Vec<String> = std::iter::once(script().display().to_string())
        .chain(flags.iter().map(|f| f.to_string()))
        .collect();
    format!(
        "[[servers]]\nname = \"{name}\"\ncommand = \"python3\"\nargs = {args:?}\nenv = {{ PIDFILE = {:?} }}\n",
        pids.display().to_string()
    )
}

/// A wrapper shell that starts a helper and then `exec`s the fixture.
fn wrapped(name: &str, flags: &str, pids: &Path) -> String {
    let line = format!(
        "sleep 1004 & echo $! >> \"$PIDFILE\"; exec python3 {} {flags}",
        script().display()
    );
    format!(
        "[[servers]]\nname = \"{name}\"\ncommand = \"sh\"\nargs = [\"-c\", {line:?}]\nenv = {{ PIDFILE = {:?} }}\n",
        pids.display().to_string()
    )
}

/// The gateway over stdio, its stdout lines read on a thread.
struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Raw {
    fn start(config: &Path) -> Raw {
        let mut child = Command::new(binary())
            .args(["gateway", "--config"])
            .arg(config)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for l in std::io::BufReader::new(stdout).lines() {
                let Ok(l) = l else { break };
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut raw = Raw {
            child,
            stdin,
            lines,
        };
        raw.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}));
        raw.answer(1, HANG_GUARD).expect("initialize answered");
        raw.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        raw
    }

    fn send(&mut self, v: Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    }

    /// The answer to request `id`, within `wait`; `None` when stdout closed or time ran out.
    fn answer(&mut self, id: u64, wait: Duration) -> Option<Value> {
        let until = Instant::now() + wait;
        loop {
            let left = until.checked_duration_since(Instant::now())?;
            let line = self.lines.recv_timeout(left).ok()?;
            let v: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            if v["id"] == json!(id) && v.get("method").is_none() {
                return Some(v);
            }
        }
    }

    /// Every process the gateway started so far (its tree) and the helpers noted in `pids`.
    fn started(&self, pids: &Path) -> Vec<u32> {
        let mut started: Vec<u32> = descendants(self.child.id()).iter().map(|d| d.0).collect();
        started.extend(noted_pids(pids));
        started
    }

    /// Stops the gateway `how` (`eof` or a signal's name); after a signal, the
    /// call in flight `id` must be answered with the stop's JSON-RPC error.
    /// When the stop began.
    fn stop(&mut self, how: &str, id: u64) -> Instant {
        let t0 = Instant::now();
        if how == "eof" {
            self.stdin = None;
        } else {
            let _ = Command::new("kill")
                .args([&format!("-{how}"), &self.child.id().to_string()])
                .status();
            let answer = self
                .answer(id, STOP_BOUND)
                .expect("the call in flight was answered");
            assert_eq!(answer["error"]["code"], json!(-32001), "{how}: {answer}");
        }
        t0
    }

    /// Waits for the gateway to exit, at most `wait`; true when it did.
    fn exited(&mut self, wait: Duration) -> bool {
        let until = Instant::now() + wait;
        while Instant::now() < until {
            if self.child.try_wait().unwrap().is_some() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn noted_pids(path: &Path) -> Vec<u32> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// Waits up to `wait` for none of `pids` to be alive; those still alive.
fn outlived(pids: &[u32], wait: Duration) -> Vec<u32> {
    let until = Instant::now() + wait;
    loop {
        let left: Vec<u32> = pids.iter().copied().filter(|p| alive(*p)).collect();
        if left.is_empty() || Instant::now() >= until {
            return left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
#[ignore = "needs python3 and the toolsearch binary; `cargo xtask test` runs it"]
fn eof_sigterm_and_sigint_end_everything_under_hostile_servers_within_5s() {
    for how in ["eof", "TERM", "INT"] {
        let pids = temp_path("pids");
        let cfg = temp_path("gateway.toml");
        let toml = format!(
            "mode = \"tools\"\nactivation = \"always\"\nsemantic = false\n[limits]\nstartup_timeout_ms = 20000\n\n{}{}{}{}",
            server("relist", &["--hang-relist"], &pids),
            server("hang", &["--helper"], &pids),
            server("flood", &["--flood"], &pids),
            wrapped("wrapped", "--helper", &pids),
        );
        std::fs::write(&cfg, toml).unwrap();
        let mut gw = Raw::start(&cfg);
        // A call that never answers is in flight when the stop comes.
        gw.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "tool_call", "arguments": {"id": "mcp:hang:hang", "arguments": {}}}}));
        // The servers are up (the helpers noted: 3 per fixture with --helper, 1 per wrapper).
        let t0 = Instant::now();
        while noted_pids(&pids).len() < 7 && t0.elapsed() < HANG_GUARD {
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(300));
        let started = gw.started(&pids);
        assert!(started.len() >= 15, "{how}: {started:?}");
        // The caller in flight gets a JSON-RPC error.
        let t0 = gw.stop(how, 2);
        assert!(
            gw.exited(STOP_BOUND),
            "{how}: the gateway still runs after {STOP_BOUND:?}"
        );
        let exited = t0.elapsed();
        let left = outlived(&started, STOP_BOUND.saturating_sub(t0.elapsed()));
        eprintln!(
            "{how}: gateway exited after {exited:?}; all {} processes it started gone after {:?}",
            started.len(),
            t0.elapsed()
        );
        let named: Vec<(u32, String)> = left
            .iter()
            .map(|p| {
                let cmd = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
                (*p, String::from_utf8_lossy(&cmd).replace('\0', " "))
            })
            .collect();
        for (p, _) in &named {
            let _ = Command::new("kill").args(["-9", &p.to_string()]).status();
        }
        assert!(
            named.is_empty(),
            "{how}: alive {:?} after the stop: {named:?}",
            t0.elapsed()
        );
    }
}

#[test]
#[ignore = "needs python3 and the toolsearch binary; `cargo xtask test` runs it"]
fn a_start_that_times_out_leaves_nothing_behind_each_retry() {
    let pids = temp_path("pids");
    let cfg = temp_path("gateway.toml");
    let toml = format!(
        "mode = \"tools\"\nactivation = \"always\"\nsemantic = false\n[limits]\nstartup_timeout_ms = 400\n\n{}",
        wrapped("silent", "--silent-start --helper", &pids),
    );
    std::fs::write(&cfg, toml).unwrap();
    let mut gw = Raw::start(&cfg);
    // Attempts at about 0, 0.65, 1.55, 2.95 and 5.35 s: four helpers each.
    let t0 = Instant::now();
    while noted_pids(&pids).len() < 12 && t0.elapsed() < HANG_GUARD {
        std::thread::sleep(Duration::from_millis(50));
    }
    let noted = noted_pids(&pids);
    assert!(noted.len() >= 12, "fewer retries than expected: {noted:?}");
    // Only the attempt running now may have helpers alive: its four at most.
    let earlier = &noted[..noted.len() - 4];
    let left = outlived(earlier, STOP_BOUND);
    assert!(
        left.is_empty(),
        "helpers of timed-out starts alive: {left:?} of {noted:?}"
    );
    gw.stdin = None;
    assert!(gw.exited(STOP_BOUND));
    let left = outlived(&noted_pids(&pids), STOP_BOUND);
    for p in &left {
        let _ = Command::new("kill").args(["-9", &p.to_string()]).status();
    }
    assert!(left.is_empty(), "alive after the stop: {left:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 and the toolsearch binary; `cargo xtask test` runs it"]
async fn sigterm_over_http_answers_calls_in_flight_with_an_error() {
    let pids = temp_path("pids");
    let cfg = temp_path("gateway.toml");
    let toml = format!(
        "mode = \"tools\"\nactivation = \"always\"\nsemantic = false\n\n{}",
        server("hang", &[], &pids),
    );
    std::fs::write(&cfg, toml).unwrap();
    toolsearch_mcp::http_client::install_tls_provider();
    let (mut child, port) = http_gateway(&cfg, &[]);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut calls = Vec::new();
    let mut clients = Vec::new();
    for _ in 0..3 {
        let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.clone());
        use rmcp::ServiceExt;
        let client = ().serve(transport).await.expect("initialize");
        let peer = client.peer().clone();
        clients.push(client);
        calls.push(tokio::spawn(async move {
            let args = json!({"id": "mcp:hang:hang", "arguments": {}});
            let Value::Object(args) = args else {
                unreachable!()
            };
            peer.call_tool(
                rmcp::model::CallToolRequestParams::new("tool_call").with_arguments(args),
            )
            .await
        }));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let t0 = Instant::now();
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    for call in calls {
        let r = tokio::time::timeout(STOP_BOUND, call)
            .await
            .expect("answered within the bound")
            .unwrap();
        match r {
            Err(rmcp::ServiceError::McpError(e)) => assert_eq!(e.code.0, -32001, "{e:?}"),
            other => panic!("expected the gateway's stop error, got {other:?}"),
        }
    }
    let exited = loop {
        if child.try_wait().unwrap().is_some() {
            break true;
        }
        if t0.elapsed() > STOP_BOUND {
            break false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let _ = child.kill();
    let _ = child.wait();
    assert!(exited, "the gateway still runs after {STOP_BOUND:?}");
}

#[test]
#[ignore = "needs python3 and the toolsearch binary; `cargo xtask test` runs it"]
fn a_stop_while_a_lazy_server_starts_for_a_call_leaves_nothing_behind() {
    for how in ["eof", "TERM"] {
        let pids = temp_path("pids");
        let dir = temp_path("manifests");
        let cfg = temp_path("gateway.toml");
        let toml = format!(
            "mode = \"tools\"\nactivation = \"always\"\nsemantic = false\nlazy = true\nmanifest_dir = {:?}\n\n{}",
            dir.display().to_string(),
            server("slow", &["--slow-start", "10000", "--helper"], &pids),
        );
        std::fs::write(&cfg, toml).unwrap();
        // The manifest an earlier run wrote.
        let parsed = toolsearch_mcp::Config::load(&cfg).unwrap();
        toolsearch_mcp::upstream::manifest::Store::new(&dir, &parsed.servers[0])
            .write(
                1,
                "2025-11-25",
                &[json!({"name": "echo", "inputSchema": {"type": "object"}})],
            )
            .unwrap();
        let mut gw = Raw::start(&cfg);
        let servers = descendants(gw.child.id())
            .into_iter()
            .filter(|d| d.1.contains("misbehaving"))
            .count();
        assert_eq!(servers, 0, "{how}: a lazy server started before any call");
        gw.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "tool_call", "arguments": {"id": "mcp:slow:echo", "arguments": {}}}}));
        // The call started it; it is still starting (10 s) when the stop comes.
        let t0 = Instant::now();
        while noted_pids(&pids).len() < 3 && t0.elapsed() < HANG_GUARD {
            std::thread::sleep(Duration::from_millis(50));
        }
        let started = gw.started(&pids);
        assert!(started.len() >= 5, "{how}: {started:?}");
        // The call waiting for the start gets a JSON-RPC error.
        let t0 = gw.stop(how, 2);
        assert!(gw.exited(STOP_BOUND), "{how}: the gateway still runs");
        let left = outlived(&started, STOP_BOUND.saturating_sub(t0.elapsed()));
        for p in &left {
            let _ = Command::new("kill").args(["-9", &p.to_string()]).status();
        }
        assert!(
            left.is_empty(),
            "{how}: alive after the stop: {left:?} of {started:?}"
        );
    }
}
