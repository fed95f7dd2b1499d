//! The HTTP front door of the real binary under hostile clients: slowloris
//! peers are closed within the header timeout, idle sockets past the
//! open-file limit (`ulimit -n 128`) cannot lock new clients out, and a burst
//! of 1,000 connections is answered or refused with a status, never hung. The
//! accept loop's CPU and log volume are printed (and bounded: an accept loop
//! that spins on `EMFILE` burns half a core and logs a million lines). Needs
//! python3 and the binary.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::*;

/// The header timeout configured for these tests.
const HEADER_TIMEOUT: Duration = Duration::from_secs(2);

/// A gateway over HTTP under `ulimit -n nofile`; its port and its stderr lines.
fn start(nofile: u32) -> (Child, u16, Arc<Mutex<Vec<String>>>) {
    let cfg = temp_path("gateway.toml");
    let script = repo().join("tests/fixtures/misbehaving_server.py");
    std::fs::write(
        &cfg,
        format!(
            "mode = \"tools\"\nactivation = \"always\"\nsemantic = false\n[http]\nheader_timeout_ms = {}\nrate_limit_per_minute = 100000\n\n[[servers]]\nname = \"s\"\ncommand = \"python3\"\nargs = [{:?}]\n",
            HEADER_TIMEOUT.as_millis(),
            script.display().to_string()
        ),
    )
    .unwrap();
    let line = format!(
        "ulimit -n {nofile} && exec {:?} gateway --http 127.0.0.1:0 --config {:?}",
        binary(),
        cfg
    );
    let mut cmd = Command::new("sh");
    cmd.args(["-c", &line]).env("TOOLSEARCH_LOG", "warn");
    let (child, port, lines) = spawn_http_gateway(cmd);
    let log: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = log.clone();
    std::thread::spawn(move || {
        for l in lines.map_while(Result::ok) {
            sink.lock().unwrap().push(l);
        }
    });
    (child, port, log)
}

/// One `initialize` over a new connection: the HTTP status, or `None` when
/// the connection closed unanswered.
fn initialize(port: u16) -> Option<u16> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(HANG_GUARD)).ok()?;
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    let req = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).ok()?;
    let mut head = [0u8; 12];
    s.read_exact(&mut head).ok()?;
    std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
}

/// Waits until a new client's `initialize` is answered 200; how long it took.
fn served_within(port: u16, wait: Duration) -> Option<Duration> {
    let t0 = Instant::now();
    while t0.elapsed() < wait {
        if initialize(port) == Some(200) {
            return Some(t0.elapsed());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    None
}

fn stop(mut child: Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() && t0.elapsed() < HANG_GUARD {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
#[ignore = "needs python3 and the toolsearch binary; `cargo xtask test` runs it"]
fn slowloris_and_idle_sockets_past_the_fd_limit_cannot_lock_clients_out() {
    let (child, port, log) = start(128);
    let pid = child.id();
    assert_eq!(initialize(port), Some(200));

    // Slowloris: headers one byte every 300 ms, for ever.
    let slow: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
                let t0 = Instant::now();
                for b in b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
                    .iter()
                    .cycle()
                {
                    if s.write_all(&[*b]).is_err() || t0.elapsed() > HANG_GUARD {
                        break;
                    }
                    // A closed peer shows on a read too.
                    s.set_read_timeout(Some(Duration::from_millis(300)))
                        .unwrap();
                    let mut one = [0u8; 1];
                    match s.read(&mut one) {
                        Ok(0) => break,
                        Ok(_) => {}
                        Err(e)
                            if e.kind() == std::io::ErrorKind::WouldBlock
                                || e.kind() == std::io::ErrorKind::TimedOut => {}
                        Err(_) => break,
                    }
                }
                t0.elapsed()
            })
        })
        .collect();
    let closed: Vec<Duration> = slow.into_iter().map(|t| t.join().unwrap()).collect();
    eprintln!("slowloris connections closed after {closed:?} (header timeout {HEADER_TIMEOUT:?})");
    for c in &closed {
        assert!(
            *c < HANG_GUARD,
            "a slowloris connection stayed open: {closed:?}"
        );
    }

    // 180 idle sockets against an open-file limit of 128.
    let ticks0 = cpu_ticks(pid);
    let lines0 = log.lock().unwrap().len();
    let t0 = Instant::now();
    let idle: Vec<TcpStream> = (0..180)
        .filter_map(|_| TcpStream::connect(("127.0.0.1", port)).ok())
        .collect();
    let first = served_within(port, HANG_GUARD);
    std::thread::sleep(Duration::from_secs(5).saturating_sub(t0.elapsed()));
    let window = t0.elapsed();
    let ticks = cpu_ticks(pid) - ticks0;
    let lines = log.lock().unwrap().len() - lines0;
    eprintln!(
        "{} idle sockets: a new client served after {first:?}; gateway CPU {} ms and {lines} log lines in {window:?}",
        idle.len(),
        ticks * 10
    );
    assert!(first.is_some(), "no new client was served");
    // A spinning accept loop burns about half of the window and logs on every turn.
    assert!(
        ticks * 10 < window.as_millis() as u64 / 4,
        "CPU {} ms in {window:?}",
        ticks * 10
    );
    assert!(
        lines < 50,
        "{lines} log lines: {:?}",
        &log.lock().unwrap()[lines0..]
    );
    drop(idle);
    stop(child);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 and the toolsearch binary; `cargo xtask test` runs it"]
async fn a_burst_of_1000_connections_is_answered_or_refused_never_hung() {
    let (child, port, _log) = start(4096);
    let t0 = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..1000 {
        tasks.push(tokio::task::spawn_blocking(move || initialize(port)));
    }
    let mut statuses: std::collections::BTreeMap<String, usize> = Default::default();
    for t in tasks {
        let s = t
            .await
            .unwrap()
            .map_or("closed".to_string(), |s| s.to_string());
        *statuses.entry(s).or_default() += 1;
    }
    let took = t0.elapsed();
    let after = served_within(port, HANG_GUARD);
    eprintln!("1,000 connections in {took:?}: {statuses:?}; a new client served after {after:?}");
    assert!(after.is_some(), "no client served after the burst");
    let ok = statuses.get("200").copied().unwrap_or(0);
    assert!(ok > 0, "{statuses:?}");
    for key in statuses.keys() {
        assert!(
            ["200", "503", "429"].contains(&key.as_str()),
            "{statuses:?}"
        );
    }
    stop(child);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 and the toolsearch binary; `cargo xtask test` runs it"]
async fn every_snippet_the_gateway_admits_is_queued_not_refused_as_busy() {
    // 24 at once on a 2-core machine: more than the pool's default queue
    // (4 per worker) and running workers hold. One session runs at most half
    // of `max_concurrent_snippets` (issue 42): 48 lets this one run 24.
    let cfg = temp_path("gateway.toml");
    let script = repo().join("tests/fixtures/misbehaving_server.py");
    std::fs::write(
        &cfg,
        format!(
            "activation = \"always\"\nsemantic = false\n[limits]\ntimeout_ms = 60000\n[http]\nmax_concurrent_snippets = 48\nrate_limit_per_minute = 100000\n\n[[servers]]\nname = \"s\"\ncommand = \"python3\"\nargs = [{:?}]\n",
            script.display().to_string()
        ),
    )
    .unwrap();
    toolsearch_mcp::http_client::install_tls_provider();
    let (mut child, port) = http_gateway(&cfg, &[]);
    let url = format!("http://127.0.0.1:{port}/mcp");
    use rmcp::ServiceExt;
    let client = ()
        .serve(rmcp::transport::StreamableHttpClientTransport::from_uri(
            url,
        ))
        .await
        .expect("initialize");
    let mut calls = Vec::new();
    for i in 0..24 {
        let peer = client.peer().clone();
        calls.push(tokio::spawn(async move {
            let code =
                format!("let n = 0; for (let k = 0; k < 2000000; k++) n += k % 7; return {i}");
            let args = serde_json::json!({"code": code});
            let serde_json::Value::Object(args) = args else {
                unreachable!()
            };
            peer.call_tool(
                rmcp::model::CallToolRequestParams::new("tool_search_code").with_arguments(args),
            )
            .await
        }));
    }
    let mut busy = Vec::new();
    for (i, c) in calls.into_iter().enumerate() {
        let r = c.await.unwrap().expect("answered");
        let text = serde_json::to_value(&r).unwrap().to_string();
        if r.is_error == Some(true) || text.contains("LIMIT") || text.contains("busy") {
            busy.push((i, text));
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(busy.is_empty(), "{} of 24 refused: {busy:?}", busy.len());
}
