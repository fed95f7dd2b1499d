//! Where a request comes from, over raw HTTP on the in-process harness: an
//! ambiguous request (two `Host` or `Origin` field lines, an absolute-form
//! target naming another host) is refused, and refused requests (foreign
//! `Origin` or `Host`, ambiguous ones) never spend the rate budget of the
//! local client that shares their address.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use toolsearch_mcp::Config;

use crate::harness::{gateway, serve_http, Reach, Script};

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;

/// A gateway over HTTP with `[http] extra`; its port.
async fn serve(extra: &str) -> u16 {
    let gw = gateway(vec![("s", Reach::Stream(Script::new(0)))], "").await;
    let cfg = Config::parse(&format!("[http]\n{extra}\n")).unwrap();
    let (url, stop) = serve_http(gw, &cfg).await;
    // The gateway lives as long as the test's runtime.
    std::mem::forget(stop);
    url.trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/mcp")
        .parse()
        .unwrap()
}

/// POSTs `initialize` to `target` with the header `lines` (each `Name: value`)
/// over a new connection; the status.
async fn post(port: u16, target: &str, lines: &[&str]) -> u16 {
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let mut head = format!("POST {target} HTTP/1.1\r\n");
    for l in lines {
        head.push_str(l);
        head.push_str("\r\n");
    }
    let req = format!(
        "{head}Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{INIT}",
        INIT.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut status = [0u8; 12];
    tokio::time::timeout(Duration::from_secs(20), s.read_exact(&mut status))
        .await
        .expect("answered")
        .unwrap();
    std::str::from_utf8(&status[9..12])
        .unwrap()
        .parse()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ambiguous_requests_are_bad_requests_and_foreign_targets_forbidden() {
    let port = serve("rate_limit_per_minute = 100000").await;
    let host = format!("Host: 127.0.0.1:{port}");
    assert_eq!(post(port, "/mcp", &[&host]).await, 200);
    // Two Host lines: the same one twice, or a foreign one after a local one.
    assert_eq!(post(port, "/mcp", &[&host, &host]).await, 400);
    assert_eq!(
        post(port, "/mcp", &[&host, "Host: evil.example"]).await,
        400
    );
    // Two Origin lines, both allowed or one not.
    let local = "Origin: http://localhost:5173";
    assert_eq!(post(port, "/mcp", &[&host, local]).await, 200);
    assert_eq!(post(port, "/mcp", &[&host, local, local]).await, 400);
    let evil = "Origin: https://evil.example";
    assert_eq!(post(port, "/mcp", &[&host, local, evil]).await, 400);
    // An absolute-form target is checked like Host.
    assert_eq!(post(port, "http://evil.example/mcp", &[&host]).await, 403);
    let own = format!("http://127.0.0.1:{port}/mcp");
    assert_eq!(post(port, &own, &[&host]).await, 200);
    assert_eq!(post(port, &own, &["Host: evil.example"]).await, 403);
    // No Host at all.
    assert_eq!(post(port, "/mcp", &[]).await, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_requests_do_not_spend_the_local_clients_budget() {
    let port = serve("rate_limit_per_minute = 20").await;
    let host = format!("Host: 127.0.0.1:{port}");
    // 60 refused requests of four kinds, three times the budget.
    for i in 0..60 {
        let status = match i % 4 {
            0 => post(port, "/mcp", &[&host, "Origin: https://evil.example"]).await,
            1 => post(port, "/mcp", &["Host: evil.example"]).await,
            2 => post(port, "http://evil.example/mcp", &[&host]).await,
            _ => post(port, "/mcp", &[&host, &host]).await,
        };
        assert!(status == 403 || status == 400, "request {i}: {status}");
    }
    // The local client is served, and the budget still holds for it.
    let mut statuses = Vec::new();
    for _ in 0..25 {
        statuses.push(post(port, "/mcp", &[&host]).await);
    }
    assert!(
        statuses[..20].iter().all(|s| *s == 200),
        "the local client was refused: {statuses:?}"
    );
    assert!(statuses[20..].iter().all(|s| *s == 429), "{statuses:?}");
}
