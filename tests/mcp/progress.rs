//! What a call's server says while it runs reaches the client in order and
//! bounded, and never fails the call: progress is coalesced (only the newest
//! value matters) and relayed in the order the server sent it, over a stream
//! server and an HTTP server, to a stdio client and an HTTP client; log
//! messages past the bound are dropped with a count the client is told; a
//! call stopped by its timeout says so (no reason is inferred from a shared
//! flag). Clients here are raw (an SDK client hands notifications to tasks of
//! their own, which would reorder them on its side).

use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use toolsearch_mcp::Config;

use crate::harness::{
    gateway, http_post, open_http_session, raw_session, serve_http, Reach, Script,
};

fn call(id: u64, args: Value) -> String {
    let v = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "tool_call", "_meta": {"progressToken": "p"},
        "arguments": {"id": "mcp:s:work", "arguments": args}}});
    format!("{v}\n")
}

/// What one call's stream carried: the progress values and log texts in the
/// order they came, and its answer.
#[derive(Default, Debug)]
struct Heard {
    progress: Vec<f64>,
    logs: Vec<String>,
    answer: Value,
}

impl Heard {
    fn take(&mut self, v: Value, id: u64) -> bool {
        match v["method"].as_str() {
            Some("notifications/progress") => {
                assert_eq!(v["params"]["progressToken"], "p", "{v}");
                assert!(
                    v["params"].get("_meta").is_none(),
                    "a gateway mark leaked: {v}"
                );
                self.progress
                    .push(v["params"]["progress"].as_f64().unwrap());
            }
            Some("notifications/message") => {
                let d = &v["params"]["data"];
                self.logs
                    .push(d.as_str().map_or_else(|| d.to_string(), str::to_string));
            }
            _ if v["id"] == json!(id) => {
                self.answer = v;
                return true;
            }
            _ => {}
        }
        false
    }

    /// Progress strictly increasing, ending at `last`; logs and the count of
    /// dropped ones adding up to `logs`; a successful answer.
    fn check(&self, last: f64, logs: usize) {
        assert!(
            self.progress.windows(2).all(|w| w[0] < w[1]),
            "progress out of order: {:?}",
            self.progress.windows(2).find(|w| w[0] >= w[1])
        );
        assert_eq!(
            self.progress.last(),
            Some(&last),
            "{:?}",
            self.progress.len()
        );
        let dropped: usize = self
            .logs
            .iter()
            .filter_map(|l| l.split_once(" log messages of this call were dropped"))
            .map(|(n, _)| n.parse::<usize>().unwrap())
            .sum();
        let kept = self.logs.iter().filter(|l| l.contains("-log-")).count();
        assert_eq!(kept + dropped, logs, "{kept} kept, {dropped} dropped");
        let text = self.answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("");
        assert!(
            self.answer["result"]["isError"] != json!(true) && text.contains("\"tag\""),
            "the call failed: {}",
            self.answer
        );
    }
}

async fn chatty_over_stdio(reach: Reach) {
    let gw = gateway(vec![("s", reach)], "").await;
    let (mut lines, mut write) = raw_session(&gw, 64 << 10).await;
    let args = json!({"tag": "c", "progress": 100_000, "logs": 3_000, "name_token": true});
    write.write_all(call(9, args).as_bytes()).await.unwrap();
    let mut heard = Heard::default();
    tokio::time::timeout(Duration::from_secs(120), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if heard.take(serde_json::from_str(&line).unwrap(), 9) {
                break;
            }
        }
    })
    .await
    .expect("the call was answered");
    eprintln!(
        "{} progress notifications and {} log messages reached the client",
        heard.progress.len(),
        heard.logs.len()
    );
    heard.check(100_000.0, 3_000);
    gw.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chatty_stream_server_s_call_succeeds_its_progress_in_order() {
    chatty_over_stdio(Reach::Stream(Script::new(0))).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chatty_http_server_s_call_succeeds_its_progress_in_order() {
    chatty_over_stdio(Reach::Http(Script::new(0))).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_reaches_an_http_client_in_order() {
    for reach in [Reach::Stream(Script::new(0)), Reach::Http(Script::new(0))] {
        let gw = gateway(vec![("s", reach)], "").await;
        let cfg = Config::parse("[http]\nrate_limit_per_minute = 100000\n").unwrap();
        let (url, stop) = serve_http(gw.clone(), &cfg).await;
        let http = {
            toolsearch_mcp::http_client::install_tls_provider();
            reqwest::Client::new()
        };
        let id = open_http_session(&http, &url, json!({})).await.unwrap();
        let args = json!({"tag": "h", "progress": 20_000, "logs": 200, "name_token": true});
        let call: Value = serde_json::from_str(&call(9, args)).unwrap();
        let body = http_post(&http, &url, &id, &call).send().await.unwrap();
        let body = body.text().await.unwrap();
        let mut heard = Heard::default();
        for data in body.lines().filter_map(|l| l.strip_prefix("data:")) {
            if let Ok(v) = serde_json::from_str::<Value>(data.trim()) {
                heard.take(v, 9);
            }
        }
        eprintln!(
            "over HTTP: {} progress notifications, {} log messages",
            heard.progress.len(),
            heard.logs.len()
        );
        heard.check(20_000.0, 200);
        stop.cancel();
        gw.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_stopped_by_its_timeout_says_so() {
    let gw = gateway(
        vec![("s", Reach::Stream(Script::new(0)))],
        "[limits]\ncall_timeout_ms = 1500\n",
    )
    .await;
    let (mut lines, mut write) = raw_session(&gw, 1 << 20).await;
    // Chatty and slow, slow with no progress, and slow after its progress.
    let cases = [
        json!({"tag": "a", "progress": 5_000, "logs": 2_000, "hold_after_ms": 10_000, "name_token": true}),
        json!({"tag": "b", "hold_ms": 10_000}),
        json!({"tag": "c", "progress": 10, "hold_after_ms": 10_000}),
    ];
    for (i, args) in cases.into_iter().enumerate() {
        let id = 20 + i as u64;
        write.write_all(call(id, args).as_bytes()).await.unwrap();
        let mut heard = Heard::default();
        tokio::time::timeout(Duration::from_secs(30), async {
            while let Ok(Some(line)) = lines.next_line().await {
                if heard.take(serde_json::from_str(&line).unwrap(), id) {
                    break;
                }
            }
        })
        .await
        .expect("answered");
        let text = heard.answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_string();
        assert!(
            text.contains("TIMEOUT") && text.contains("did not answer within 1500 ms"),
            "case {i}: {text}"
        );
        assert!(!text.contains("behind"), "case {i}: {text}");
    }
    gw.shutdown().await;
}
