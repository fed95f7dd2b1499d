//! One bad server or tool stays its own problem, on the in-process harness,
//! over a byte stream (stdio's framing) and over streamable HTTP: a schema
//! nested past the parser's limit costs only its tool (named in the status and
//! the log), and a result over 16 MiB answers its call at once with a size
//! error (the call cancelled on the server) instead of waiting for the timeout.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use serde_json::json;
use toolsearch_mcp::Gateway;

use crate::harness::{gateway, text, until, Client, Reach, Script};

fn reach(how: &str, script: &Arc<Script>) -> Reach {
    match how {
        "stream" => Reach::Stream(script.clone()),
        _ => Reach::Http(script.clone()),
    }
}

fn problems(gw: &Arc<Gateway>, server: &str) -> Vec<String> {
    gw.fleet()
        .status()
        .into_iter()
        .find(|s| s.name == server)
        .map(|s| s.problems)
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schema_nested_62_deep_costs_only_its_tool_and_is_named() {
    for how in ["stream", "http"] {
        // 62 and 120 objects deep: 129 and 245 levels of JSON with the envelope,
        // past serde_json's 128 (deeper still is the frame tests' business).
        for depth in [62, 120] {
            let script = Script::new(2);
            script.deep.store(depth, Ordering::SeqCst);
            let gw = gateway(vec![("s", reach(how, &script))], "").await;
            let status = gw.fleet().status();
            assert!(status[0].up, "{how} {depth}: {status:?}");
            let ids: Vec<String> = gw
                .toolsearch()
                .host()
                .catalog()
                .tools()
                .iter()
                .map(|t| t.id.to_string())
                .collect();
            for t in ["work", "big", "pad_0_1"] {
                assert!(
                    ids.contains(&format!("mcp:s:{t}")),
                    "{how} {depth}: {ids:?}"
                );
            }
            let named = problems(&gw, "s");
            assert!(
                named
                    .iter()
                    .any(|p| p.contains("`deep`") && p.contains("nested deeper")),
                "{how} {depth}: {named:?}"
            );
            // Its other tools run.
            let client = Client::connect(&gw, "ann").await;
            let r = client.call("s", "work", json!({"tag": "ann"})).await;
            assert_eq!(text(&r)["tag"], "ann", "{how} {depth}");
            gw.shutdown().await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_over_16_mib_answers_at_once_with_a_size_error() {
    for how in ["stream", "http"] {
        let script = Script::new(0);
        // A call timeout far longer than the test may take: an answer proves no wait.
        let gw = gateway(
            vec![("s", reach(how, &script))],
            "[limits]\ncall_timeout_ms = 600000\ntimeout_ms = 600000",
        )
        .await;
        let client = Client::connect(&gw, "ann").await;
        let r = client.call("s", "big", json!({"bytes": 17 << 20})).await;
        let out = text(&r);
        assert_eq!(r.is_error, Some(true), "{how}: {out}");
        let message = out.to_string();
        assert!(message.contains("16777216-byte limit"), "{how}: {message}");
        assert!(message.contains("server `s`"), "{how}: {message}");
        assert!(
            until(|| !script.cancelled.lock().unwrap().is_empty()).await,
            "{how}: the call was not cancelled on the server"
        );
        // The server still serves.
        let r = client.call("s", "big", json!({"bytes": 1000})).await;
        assert_ne!(r.is_error, Some(true), "{how}: {}", text(&r));
        assert_eq!(text(&r).as_str().map(str::len), Some(1000), "{how}");
        gw.shutdown().await;
    }
}
