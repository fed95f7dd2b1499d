//! Every per-client structure has an owner and a bound: an HTTP session owns
//! what the gateway keeps for it and releases it on DELETE, on disconnect and
//! after its idle TTL (its calls cancelled); past `max_sessions` a new one is
//! refused; invented session ids cost nothing; a client that stops reading
//! its notifications slows only its own call. On the in-process harness.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use toolsearch_mcp::{Config, Gateway};

use crate::harness::{
    gateway, open_http_session, raw_session, rss_kib, serve_http, until, Reach, Script, ACCEPT,
};

fn client() -> reqwest::Client {
    toolsearch_mcp::http_client::install_tls_provider();
    reqwest::Client::new()
}

/// Opens a session over raw HTTP; its id.
async fn open(http: &reqwest::Client, url: &str) -> Result<String, (u16, String)> {
    open_http_session(http, url, json!({})).await
}

async fn close(http: &reqwest::Client, url: &str, id: &str) {
    let r = http
        .delete(url)
        .header("mcp-session-id", id)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
}

/// Sends `tools/call` of `tool_call` on session `id`; its status.
async fn call(http: &reqwest::Client, url: &str, id: &str, tool: &str, args: Value) -> u16 {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "tool_call", "arguments": {"id": tool, "arguments": args}}});
    let r = http
        .post(url)
        .header("accept", ACCEPT)
        .header("content-type", "application/json")
        .header("mcp-session-id", id)
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let _ = r.text().await;
    status
}

async fn http_gateway(http_cfg: &str) -> (Arc<Gateway>, Arc<Script>, String) {
    let script = Script::new(0);
    let gw = gateway(vec![("s", Reach::Stream(script.clone()))], "").await;
    let cfg = Config::parse(&format!("[http]\n{http_cfg}\n")).unwrap();
    let (url, _stop) = serve_http(gw.clone(), &cfg).await;
    (gw, script, url)
}

fn in_flight(gw: &Gateway) -> usize {
    gw.fleet().status()[0].calls_in_flight
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_releases_what_it_owns_on_delete_and_its_calls_are_cancelled() {
    let (gw, _script, url) = http_gateway("rate_limit_per_minute = 100000").await;
    let http = client();
    let mut ids = Vec::new();
    for _ in 0..20 {
        ids.push(open(&http, &url).await.unwrap());
    }
    assert!(
        until(|| gw.open_sessions() == 20).await,
        "{}",
        gw.open_sessions()
    );
    // DELETE: the session goes, and the call it was running is cancelled
    // upstream long before the tool would have answered (it holds 20 s).
    assert_eq!(
        call(&http, &url, &ids[1], "mcp:s:work", json!({"tag": "y"})).await,
        200
    );
    let running = {
        let (http, url, id) = (http.clone(), url.clone(), ids[0].clone());
        tokio::spawn(async move {
            call(
                &http,
                &url,
                &id,
                "mcp:s:work",
                json!({"tag": "x", "hold_ms": 20_000}),
            )
            .await
        })
    };
    assert!(until(|| in_flight(&gw) == 1).await);
    for id in &ids[..10] {
        close(&http, &url, id).await;
    }
    assert!(
        until(|| gw.open_sessions() == 10).await,
        "{}",
        gw.open_sessions()
    );
    assert!(
        until(|| in_flight(&gw) == 0).await,
        "the closed session's call still runs"
    );
    // Its client's request ended (no answer is owed to a closed session).
    let _ = tokio::time::timeout(Duration::from_secs(10), running).await;
    gw.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_idle_past_its_ttl_is_closed() {
    let (gw, _script, url) =
        http_gateway("session_idle_ttl_ms = 1000\nrate_limit_per_minute = 100000").await;
    let http = client();
    for _ in 0..20 {
        open(&http, &url).await.unwrap();
    }
    assert!(gw.open_sessions() > 0);
    assert!(
        until(|| gw.open_sessions() == 0).await,
        "{}",
        gw.open_sessions()
    );
    gw.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_max_sessions_a_new_one_is_refused_with_the_reason() {
    let (gw, _script, url) = http_gateway("max_sessions = 5\nrate_limit_per_minute = 100000").await;
    let http = client();
    let mut ids = Vec::new();
    for _ in 0..5 {
        ids.push(open(&http, &url).await.unwrap());
    }
    let (status, body) = open(&http, &url).await.unwrap_err();
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("most sessions (5)"), "{body}");
    // Closing one makes room.
    close(&http, &url, &ids[0]).await;
    assert!(until(|| gw.open_sessions() == 4).await);
    assert!(open(&http, &url).await.is_ok());
    gw.shutdown().await;
}

#[test]
fn ten_thousand_sessions_and_ten_thousand_invented_ids_leave_rss_where_it_was() {
    crate::harness::alone(
        "sessions::ten_thousand_sessions_and_ten_thousand_invented_ids_leave_rss_where_it_was",
        || {
            crate::harness::runtime().block_on(async {
                let (gw, _script, url) = http_gateway("rate_limit_per_minute = 100000").await;
                let http = client();
                let cycle = |n: usize| {
                    let (http, url) = (http.clone(), url.clone());
                    async move {
                        for _ in 0..n {
                            let id = open(&http, &url).await.unwrap();
                            close(&http, &url, &id).await;
                        }
                    }
                };
                // Warm: allocator arenas, connection pools, rmcp's tables.
                cycle(1_000).await;
                assert!(until(|| gw.open_sessions() == 0).await);
                toolsearch_sandbox::release_free_memory();
                let start = rss_kib();
                cycle(10_000).await;
                assert!(until(|| gw.open_sessions() == 0).await);
                toolsearch_sandbox::release_free_memory();
                let after_sessions = rss_kib();
                // Invented ids of 8 KiB: refused, and kept nowhere.
                for i in 0..10_000 {
                    let invented = format!("{i:08}{}", "x".repeat(8 << 10));
                    let r = http
                        .post(&url)
                        .header("accept", ACCEPT)
                        .header("content-type", "application/json")
                        .header("mcp-session-id", invented)
                        .body(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string())
                        .send()
                        .await
                        .unwrap();
                    assert!(r.status().is_client_error(), "{}", r.status());
                }
                toolsearch_sandbox::release_free_memory();
                let after_ids = rss_kib();
                eprintln!(
                    "RSS: {start} KiB after 1,000 sessions; {after_sessions} KiB after 10,000 more opened and closed ({:+} KiB); {after_ids} KiB after 10,000 invented 8 KiB ids ({:+} KiB)",
                    after_sessions as i64 - start as i64,
                    after_ids as i64 - after_sessions as i64
                );
                assert!(after_sessions < start + 5 * 1024, "{start} -> {after_sessions} KiB");
                assert!(after_ids < after_sessions + 5 * 1024, "{after_sessions} -> {after_ids} KiB");
                gw.shutdown().await;
            });
        },
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_reading_slows_only_its_call_which_still_succeeds() {
    use tokio::io::AsyncWriteExt;
    let script = Script::new(0);
    let gw = gateway(vec![("s", Reach::Stream(script.clone()))], "").await;
    // A raw client on a small pipe: it writes its requests, then reads nothing.
    let (mut lines, mut write) = raw_session(&gw, 16 << 10).await;
    let send = |v: Value| format!("{v}\n");
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "tool_call", "_meta": {"progressToken": "p"},
        "arguments": {"id": "mcp:s:work", "arguments": {
            "tag": "slow", "progress": 50_000, "logs": 5_000, "hold_after_ms": 1_000,
            "name_token": true}}}});
    write.write_all(send(call).as_bytes()).await.unwrap();
    // The server floods and answers; the client reads nothing meanwhile: the
    // call runs to its end (its progress coalesced, its logs bounded).
    assert!(until(|| in_flight(&gw) == 1).await);
    assert!(
        until(|| in_flight(&gw) == 0).await,
        "the call never ended upstream"
    );
    // Reading now: the newest progress, a bounded number of logs with the
    // count of those dropped, and the call's own answer.
    let (mut progress, mut logs, mut dropped) = (Vec::new(), 0usize, 0usize);
    let answer = tokio::time::timeout(Duration::from_secs(30), async {
        while let Ok(Some(line)) = lines.next_line().await {
            let v: Value = serde_json::from_str(&line).unwrap_or_default();
            match v["method"].as_str() {
                Some("notifications/progress") => {
                    progress.push(v["params"]["progress"].as_f64().unwrap());
                }
                Some("notifications/message") => {
                    let text = v["params"]["data"].as_str().unwrap_or("");
                    match text.split_once(" log messages of this call were dropped") {
                        Some((n, _)) => dropped += n.parse::<usize>().unwrap(),
                        None => logs += 1,
                    }
                }
                _ if v["id"] == json!(9) => return v,
                _ => {}
            }
        }
        Value::Null
    })
    .await
    .unwrap();
    eprintln!(
        "read after the call: {} progress, {logs} logs, {dropped} dropped",
        progress.len()
    );
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("");
    assert!(text.contains("slow"), "{answer}");
    assert_eq!(progress.last(), Some(&50_000.0));
    assert!(progress.windows(2).all(|w| w[0] < w[1]));
    assert!(
        progress.len() < 5_000,
        "{} progress buffered",
        progress.len()
    );
    assert_eq!(logs + dropped, 5_000);
    assert!(
        logs < 2 * toolsearch_mcp::gateway::MAX_QUEUED_LOGS,
        "{logs}"
    );
    assert!(dropped > 0);
    gw.shutdown().await;
}
