//! Nothing crosses between clients: what a server sends while calls of
//! several clients run on it (logs, progress, sampling, elicitation) reaches
//! the client whose call it belongs to, and what belongs to no call reaches no
//! client. On the in-process harness, under plain `cargo test`.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use crate::harness::{gateway, text, Client, Reach, Script};

const CLIENTS: [&str; 3] = ["ann", "bob", "cyd"];

/// Every client calls `work` at once (held so that all are in flight
/// together), asking for logs, progress, sampling and elicitation related to
/// its call, stray logs on the shared stream, and a sampling request after it
/// answered. Returns the clients.
async fn all_at_once(gw: &Arc<toolsearch_mcp::Gateway>, name_token: bool) -> Vec<Client> {
    let mut clients = Vec::new();
    for name in CLIENTS {
        clients.push(Client::connect(gw, name).await);
    }
    let calls = clients.iter().map(|c| {
        let args = json!({
            "tag": c.recorder.name, "hold_ms": 150, "logs": 4, "progress": 3,
            "sample": true, "elicit": true, "stray": 2, "late_ms": 100,
            "name_token": name_token
        });
        c.call("s", "work", args)
    });
    let results = futures::future::join_all(calls).await;
    for (c, r) in clients.iter().zip(&results) {
        let v = text(r);
        let me = &c.recorder.name;
        assert_eq!(v["tag"], json!(me), "{v}");
        // The sampling and elicitation of this call were answered by this client.
        assert_eq!(v["sampled"], json!(format!("{me}-prompt@{me}")), "{v}");
        assert_eq!(v["elicited"], json!(me), "{v}");
    }
    clients
}

fn assert_only_own(clients: &[Client]) {
    for c in clients {
        let me = &c.recorder.name;
        let seen = c.seen();
        // rmcp hands each notification to a task of its own: the order of
        // messages without a sequence is not kept (it was not before either).
        let want: Vec<String> = (0..4).map(|i| format!("{me}-log-{i}")).collect();
        let mut logs = seen.logs.clone();
        logs.sort();
        assert_eq!(logs, want, "{me} received logs not its own (or lost some)");
        // Progress is coalesced (the newest value per call): some of 1, 2, 3,
        // each once, and always the last.
        let mut progress = seen.progress.clone();
        progress.sort_by(f64::total_cmp);
        let before = progress.len();
        progress.dedup();
        assert_eq!(before, progress.len(), "{me}: progress repeated");
        assert!(
            progress.iter().all(|p| [1.0, 2.0, 3.0].contains(p)) && progress.last() == Some(&3.0),
            "{me}: progress {progress:?}"
        );
        assert_eq!(seen.prompts, vec![format!("{me}-prompt")], "{me}: prompts");
        assert_eq!(
            seen.questions,
            vec![format!("{me}-question")],
            "{me}: questions"
        );
    }
}

/// The late requests (sent after their calls answered) were refused, and the
/// late logs reached no client.
async fn assert_late_refused(script: &Script, clients: &[Client]) {
    let until = tokio::time::Instant::now() + Duration::from_secs(10);
    while script.late.lock().unwrap().len() < CLIENTS.len() && tokio::time::Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let late = script.late.lock().unwrap().clone();
    assert_eq!(late.len(), CLIENTS.len(), "{late:?}");
    assert!(late.iter().all(|l| l.starts_with("refused")), "{late:?}");
    assert!(
        late[0].contains("only during the call it belongs to"),
        "{late:?}"
    );
    // Give the late logs time to arrive anywhere they would.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_only_own(clients);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_what_comes_on_a_calls_stream_reaches_its_client_only() {
    let script = Script::new(0);
    let gw = gateway(vec![("s", Reach::Http(script.clone()))], "").await;
    let clients = all_at_once(&gw, false).await;
    assert_only_own(&clients);
    assert_late_refused(&script, &clients).await;
    gw.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_a_stream_what_names_a_calls_progress_token_reaches_its_client_only() {
    let script = Script::new(0);
    let gw = gateway(vec![("s", Reach::Stream(script.clone()))], "").await;
    let clients = all_at_once(&gw, true).await;
    assert_only_own(&clients);
    assert_late_refused(&script, &clients).await;
    gw.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_a_stream_what_names_no_call_reaches_no_client() {
    let script = Script::new(0);
    let gw = gateway(vec![("s", Reach::Stream(script.clone()))], "").await;
    let a = Client::connect(&gw, "ann").await;
    let b = Client::connect(&gw, "bob").await;
    let args = |tag: &str| json!({"tag": tag, "hold_ms": 100, "logs": 3, "progress": 2, "sample": true, "stray": 2});
    let (ra, rb) = tokio::join!(
        a.call("s", "work", args("ann")),
        b.call("s", "work", args("bob"))
    );
    for (c, r) in [(&a, ra), (&b, rb)] {
        let v = text(&r);
        // Sampling that names no call is refused with the reason, not guessed.
        let sampled = v["sampled"].as_str().unwrap_or("");
        assert!(
            sampled.starts_with("refused") && sampled.contains("only during the call"),
            "{v}"
        );
        let seen = c.seen();
        assert!(seen.logs.is_empty(), "{:?}", seen.logs);
        assert!(seen.prompts.is_empty(), "{:?}", seen.prompts);
        // Progress names its call by token on every transport. It is
        // coalesced (only the latest value per call is owed: see
        // `gateway::notes`), so 1 may be passed over when 2 comes at once;
        // the last one always arrives, and nothing of the other call does
        // (the client's SDK hands each notification to a task of its own:
        // the order they are recorded in is not the order sent).
        let mut progress = seen.progress.clone();
        progress.sort_by(f64::total_cmp);
        assert!(progress == [2.0] || progress == [1.0, 2.0], "{progress:?}");
    }
    gw.shutdown().await;
}
