//! Streamable HTTP keeps the protocol's promises, and one client's stream
//! stalls no one: a client that never reads its standalone stream loses that
//! stream while the catalog goes on for everyone; a call's logs and its
//! server's requests ride the call's own response stream (a client need not
//! open the standalone one); a client resuming with `Last-Event-ID` gets
//! what it missed, strictly after the event it names, the finished call's
//! result included; a call in flight keeps its session open past the idle
//! TTL, and a closed session is 404 at once. On the in-process harness.

use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::ServiceExt;
use serde_json::{json, Value};
use toolsearch_mcp::Config;

use crate::harness::{
    gateway_with, http_post, open_http_session, serve_http, until, Client, Reach, Script,
};

fn init() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"form": {}}},
        "clientInfo": {"name": "raw", "version": "0"}}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_reads_its_standalone_stream_stalls_no_one() {
    let script = Script::new(0);
    let gw = gateway_with(
        "activation = \"never\"\nsemantic = false\n",
        vec![("s", Reach::Stream(script.clone()))],
    )
    .await;
    // Sessions as the HTTP front door makes them, with a small queue and a
    // short send timeout; each bad client's standalone stream is never read.
    let mut manager = LocalSessionManager::default();
    manager.session_config.channel_capacity = 2;
    manager.session_config.send_timeout = Some(Duration::from_millis(300));
    let manager = Arc::new(manager);
    let mut stuck = Vec::new();
    let mut ids = Vec::new();
    for _ in 0..3 {
        let (id, transport) = manager.create_session().await.unwrap();
        let session = gw.session();
        tokio::spawn(async move {
            if let Ok(running) = session.serve(transport).await {
                let _ = running.waiting().await;
            }
        });
        manager
            .initialize_session(&id, serde_json::from_value(init()).unwrap())
            .await
            .unwrap();
        let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        manager
            .accept_message(&id, serde_json::from_value(done).unwrap())
            .await
            .unwrap();
        let stream = manager.create_standalone_stream(&id).await.unwrap();
        stuck.push(Box::pin(stream));
        ids.push(id);
    }
    let mut good = Vec::new();
    for i in 0..3 {
        good.push(Client::connect(&gw, &format!("good-{i}")).await);
    }
    // Ten changes of the server's tools, each listed and announced to every
    // client that reads, within 5 s, however full the bad clients' queues are.
    for change in 1..=10usize {
        script.add_tool();
        let t0 = std::time::Instant::now();
        for c in &good {
            let heard = until(|| c.seen().list_changed >= change).await;
            assert!(
                heard && t0.elapsed() < Duration::from_secs(5),
                "change {change}: {} did not hear tools/list_changed within 5 s ({:?})",
                c.recorder.name,
                t0.elapsed()
            );
        }
        let tools = good[0].service.peer().list_all_tools().await.unwrap();
        let want = format!("more_{}", change - 1);
        assert!(
            tools.iter().any(|t| t.name.ends_with(&want)),
            "change {change}: {want} not listed"
        );
    }
    // The bad clients lost their standalone streams, not their sessions: a
    // request of theirs is still answered (their session's worker goes on).
    for id in &ids {
        use futures::StreamExt;
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        let answered = tokio::time::timeout(Duration::from_secs(10), async {
            let mut s = Box::pin(
                manager
                    .create_stream(id, serde_json::from_value(list).unwrap())
                    .await
                    .unwrap(),
            );
            while let Some(m) = s.next().await {
                if m.message.is_some_and(|m| {
                    matches!(m.as_ref(), rmcp::model::ServerJsonRpcMessage::Response(_))
                }) {
                    return true;
                }
            }
            false
        })
        .await;
        assert_eq!(
            answered,
            Ok(true),
            "a bad client's session stopped answering"
        );
    }
    drop(stuck);
    gw.shutdown().await;
}

/// A raw HTTP session of the gateway at `url` (a client that can answer
/// elicitation): its id.
async fn open(http: &reqwest::Client, url: &str) -> String {
    open_http_session(http, url, json!({"elicitation": {"form": {}}}))
        .await
        .unwrap()
}

fn call(id: u64, args: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "tool_call", "_meta": {"progressToken": "client-token"},
        "arguments": {"id": "mcp:s:work", "arguments": args}}})
}

/// One SSE event: its id and its JSON data (null for a priming event).
#[derive(Debug, Clone)]
struct Event {
    id: Option<String>,
    data: Value,
}

/// Reads SSE events off `r` as they come, handing each to `on` until it
/// says stop (or the stream ends).
async fn events(mut r: reqwest::Response, mut on: impl FnMut(Event) -> bool) {
    let mut buf = String::new();
    let mut id = None;
    let mut data = String::new();
    while let Ok(Some(chunk)) = tokio::time::timeout(Duration::from_secs(30), r.chunk())
        .await
        .expect("the stream went silent")
    {
        buf.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(n) = buf.find('\n') {
            let line: String = buf.drain(..=n).collect();
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                let e = Event {
                    id: id.take(),
                    data: serde_json::from_str(&data).unwrap_or(Value::Null),
                };
                data.clear();
                if (e.id.is_some() || !e.data.is_null()) && !on(e) {
                    return;
                }
            } else if let Some(v) = line.strip_prefix("id:") {
                id = Some(v.trim().to_string());
            } else if let Some(v) = line.strip_prefix("data:") {
                data.push_str(v.trim_start());
            }
        }
    }
}

async fn http_gateway(http_cfg: &str, server: Reach) -> (String, Arc<toolsearch_mcp::Gateway>) {
    let gw = gateway_with(
        "mode = \"tools\"\nactivation = \"always\"\nsemantic = false\n",
        vec![("s", server)],
    )
    .await;
    let cfg = Config::parse(&format!(
        "[http]\nrate_limit_per_minute = 100000\n{http_cfg}\n"
    ))
    .unwrap();
    let (url, stop) = serve_http(gw.clone(), &cfg).await;
    std::mem::forget(stop);
    (url, gw)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_calls_logs_and_questions_ride_its_own_stream() {
    for server in [Reach::Stream(Script::new(0)), Reach::Http(Script::new(0))] {
        let (url, gw) = http_gateway("", server).await;
        let http = {
            toolsearch_mcp::http_client::install_tls_provider();
            reqwest::Client::new()
        };
        let id = open(&http, &url).await;
        // No standalone stream is ever opened.
        let args =
            json!({"tag": "q", "logs": 3, "elicit": true, "sample": false, "name_token": true});
        let r = http_post(&http, &url, &id, &call(9, args))
            .send()
            .await
            .unwrap();
        let (mut logs, mut asked, mut answer) = (0, Vec::new(), Value::Null);
        let (h2, url2, id2) = (http.clone(), url.clone(), id.clone());
        events(r, |e| {
            let v = e.data;
            match v["method"].as_str() {
                Some("notifications/message") => logs += 1,
                Some("elicitation/create") => {
                    asked.push(v.clone());
                    let reply = json!({"jsonrpc": "2.0", "id": v["id"],
                        "result": {"action": "accept", "content": {"who": "raw-who"}}});
                    let (h, u, i) = (h2.clone(), url2.clone(), id2.clone());
                    tokio::spawn(async move { http_post(&h, &u, &i, &reply).send().await });
                }
                _ if v["id"] == json!(9) => {
                    answer = v;
                    return false;
                }
                _ => {}
            }
            true
        })
        .await;
        assert_eq!(logs, 3, "the call's logs did not come on its stream");
        assert_eq!(
            asked.len(),
            1,
            "the question did not come on the call's stream: {answer}"
        );
        // None of the gateway's marks reach the client.
        let meta = &asked[0]["params"]["_meta"];
        assert!(
            meta.as_object()
                .unwrap()
                .keys()
                .all(|k| !k.starts_with("io.toolsearch")),
            "{meta}"
        );
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("");
        assert!(text.contains("raw-who"), "{answer}");
        gw.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_stream_replays_strictly_after_the_named_event_result_included() {
    let (url, gw) = http_gateway("", Reach::Stream(Script::new(0))).await;
    let http = {
        toolsearch_mcp::http_client::install_tls_provider();
        reqwest::Client::new()
    };
    let sid = open(&http, &url).await;
    let resume = |last: String| {
        http.get(&url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &sid)
            .header("mcp-protocol-version", "2025-11-25")
            .header("last-event-id", last)
            .send()
    };
    // Early: the stream drops after its second event, the client comes back
    // at once naming it, while the call still runs.
    // Late: the stream drops after the first event (the priming one, with the
    // retry hint), the client comes back after the hint, the call long done.
    for (case, keep, wait_ms) in [("early", 2usize, 0u64), ("late", 1, 3_500)] {
        let args = json!({"tag": case, "progress": 3, "hold_after_ms": 1_500});
        let r = http_post(&http, &url, &sid, &call(30 + keep as u64, args))
            .send()
            .await
            .unwrap();
        let mut first = Vec::new();
        events(r, |e| {
            first.push(e);
            first.len() < keep
        })
        .await;
        let named = first.last().unwrap().id.clone().expect("events carry ids");
        tokio::time::sleep(Duration::from_millis(wait_ms)).await;
        let again = resume(named.clone()).await.unwrap();
        assert_eq!(again.status().as_u16(), 200);
        let mut rest = Vec::new();
        events(again, |e| {
            let done = e.data["id"] == json!(30 + keep as u64);
            rest.push(e);
            !done
        })
        .await;
        let ids: Vec<_> = rest.iter().filter_map(|e| e.id.clone()).collect();
        assert!(
            !ids.contains(&named),
            "{case}: the named event {named} was sent again: {ids:?}"
        );
        let answer = rest
            .iter()
            .find(|e| e.data["id"] == json!(30 + keep as u64));
        let answer = answer.unwrap_or_else(|| panic!("{case}: the result was lost: {rest:?}"));
        let text = answer.data["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("");
        assert!(text.contains(case), "{case}: {answer:?}");
        // Every event after the named one, none twice.
        let mut all: Vec<_> = first
            .iter()
            .chain(&rest)
            .filter_map(|e| e.id.clone())
            .collect();
        let n = all.len();
        all.dedup();
        assert_eq!(all.len(), n, "{case}: an event came twice: {all:?}");
    }
    gw.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_in_flight_keeps_its_session_and_a_closed_one_is_404_at_once() {
    let (url, gw) = http_gateway("session_idle_ttl_ms = 1000", Reach::Stream(Script::new(0))).await;
    let http = {
        toolsearch_mcp::http_client::install_tls_provider();
        reqwest::Client::new()
    };
    let id = open(&http, &url).await;
    // Three times the idle TTL in one call: answered.
    let r = http_post(
        &http,
        &url,
        &id,
        &call(5, json!({"tag": "long", "hold_ms": 3_000})),
    )
    .send()
    .await
    .unwrap();
    let mut answer = Value::Null;
    events(r, |e| {
        if e.data["id"] == json!(5) {
            answer = e.data;
            return false;
        }
        true
    })
    .await;
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("");
    assert!(
        text.contains("long"),
        "the call's answer was lost: {answer}"
    );
    // Then idle past the TTL: closed, and 404 from the first request after.
    assert!(
        until(|| gw.open_sessions() == 0).await,
        "{}",
        gw.open_sessions()
    );
    let list = json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list"});
    let status = http_post(&http, &url, &id, &list)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status.as_u16(), 404);
    gw.shutdown().await;
}
