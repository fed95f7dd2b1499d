//! Snippet slots are shared fairly and snippets that only wait on the host
//! keep no one out: one session flooding the gateway with snippets that each
//! await a 3 s tool call runs at most half of the slots (the rest wait their
//! turn, then are refused naming the wait), and another session's one-line
//! snippet is answered at once, long before those calls return: it gets a
//! slot, and a sandbox worker of its own beside the busy ones. Needs the
//! sandbox worker binary.

use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use serde_json::json;

use crate::harness::{gateway_with, until, Client, Reach, Script};

async fn snippet(c: &Client, code: &str) -> serde_json::Value {
    let args = json!({"code": code});
    let r = c
        .service
        .peer()
        .call_tool(
            CallToolRequestParams::new("tool_search_code")
                .with_arguments(args.as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    crate::harness::code_view(&r)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the toolsearch-sandbox-worker binary; `cargo xtask test` runs it"]
async fn a_flooding_session_leaves_slots_and_workers_to_others() {
    let gw = gateway_with(
        "mode = \"code\"\nactivation = \"always\"\nsemantic = false\n[limits]\ntimeout_ms = 30000\n\
         [http]\nmax_concurrent_snippets = 16\nsnippet_queue_ms = 1000\n",
        vec![("s", Reach::Stream(Script::new(0)))],
    )
    .await;
    let flooder = std::sync::Arc::new(Client::connect(&gw, "flooder").await);
    let other = Client::connect(&gw, "other").await;
    // Warm: a worker process is up.
    assert_eq!(snippet(&other, "return 1").await["value"], 1);
    let slow = "await openclaw.tools.call('mcp:s:work', {hold_ms: 3000}); return 'slow'";
    let flood: Vec<_> = (0..16)
        .map(|_| {
            let c = flooder.clone();
            tokio::spawn(async move { snippet(&c, slow).await })
        })
        .collect();
    // Half of the slots run, each waiting on its tool call.
    assert!(
        until(|| gw.fleet().status()[0].calls_in_flight >= 8).await,
        "{:?}",
        gw.fleet().status()[0].calls_in_flight
    );
    let t0 = Instant::now();
    let quick = snippet(&other, "return 2").await;
    let took = t0.elapsed();
    let in_flight = gw.fleet().status()[0].calls_in_flight;
    eprintln!(
        "another session's one-line snippet: {took:?} with the flooder's 8 snippets waiting on 3 s calls"
    );
    assert_eq!(quick["value"], 2, "{quick}");
    assert_eq!(
        in_flight, 8,
        "the one-liner waited for the flooder's calls to end ({took:?})"
    );
    assert!(took < Duration::from_secs(3), "{took:?}");
    let mut done = 0;
    let mut refused = Vec::new();
    for f in flood {
        let v = f.await.unwrap();
        if v["value"] == "slow" {
            done += 1;
        } else {
            refused.push(v);
        }
    }
    // 8 ran; of the 8 that waited, those still waiting after 1 s were refused
    // with the reason (none got more than the session's half).
    assert!(done >= 8, "{done} done, refused: {refused:?}");
    for r in &refused {
        let m = r["error"]["message"].as_str().unwrap_or("");
        assert!(
            r["error"]["code"] == "LIMIT"
                && m.contains("1000 ms")
                && m.contains("at most 8 of one session"),
            "{r}"
        );
    }
    gw.shutdown().await;
}
