//! Lazy servers (`lazy = true`), in process: the gateway serves their tools
//! from their manifests at once, starts a server on its first call and stops
//! it after `idle_stop_ms`; a stale manifest is replaced with one
//! `list_changed`, a call to a tool that vanished is answered as an unknown
//! tool naming the refresh, and a changed command line or a corrupt file never
//! serves an old list.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use serde_json::{json, Value};
use toolsearch_mcp::upstream::Phase;
use toolsearch_mcp::{Config, Gateway, Link};

use crate::harness::{text, until, Client, Script};

fn tool(name: &str) -> Value {
    json!({"name": name, "description": format!("the {name} tool of the lazy test"), "inputSchema": {"type": "object"}})
}

fn manifest_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ts-lazy-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// A lazy gateway (tools mode) over one in-process server `s` run with `args`.
async fn lazy_gateway(
    dir: &Path,
    args: &[&str],
    idle_ms: u64,
    script: Arc<Script>,
) -> Arc<Gateway> {
    let toml = format!(
        "mode = \"tools\"\nactivation = \"always\"\nsemantic = false\nlazy = true\n\
         manifest_dir = {:?}\n[limits]\nidle_stop_ms = {idle_ms}\n\n\
         [[servers]]\nname = \"s\"\ncommand = \"in-process\"\nargs = {args:?}\n",
        dir.display().to_string()
    );
    let mut links: HashMap<String, Link> = HashMap::new();
    links.insert(
        "s".into(),
        Arc::new(move || {
            let script = script.clone();
            Box::pin(async move { Ok(crate::harness::script::stream(script)) })
        }),
    );
    // Lazy servers: the test decides what waits for them.
    Gateway::start_linked(&Config::parse(&toml).unwrap(), None, &links)
        .await
        .unwrap()
}

fn status(gw: &Gateway) -> toolsearch_mcp::ServerStatus {
    gw.fleet().status().remove(0)
}

/// Runs a gateway over `tools` until the server has listed them and its
/// manifest is written, then stops it: the manifest a later run starts from.
async fn write_manifest(dir: &Path, args: &[&str], tools: Vec<Value>) {
    let script = Script::with_tools(tools);
    let gw = lazy_gateway(dir, args, 60_000, script.clone()).await;
    assert!(
        until(|| status(&gw).manifest_age_s.is_some()).await,
        "no manifest written: {:?}",
        status(&gw)
    );
    assert_eq!(script.starts.load(Ordering::SeqCst), 1);
    gw.shutdown().await;
}

async fn search(c: &Client, query: &str) -> Value {
    let r = c
        .service
        .peer()
        .call_tool(
            rmcp::model::CallToolRequestParams::new("tool_search")
                .with_arguments(json!({"query": query}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    text(&r)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lazy_server_is_served_from_its_manifest_started_by_its_first_call_and_stopped_when_idle()
{
    let dir = manifest_dir("life");
    write_manifest(&dir, &[], vec![tool("alpha"), tool("beta")]).await;

    let script = Script::with_tools(vec![tool("alpha"), tool("beta")]);
    let gw = lazy_gateway(&dir, &[], 1_000, script.clone()).await;
    let st = status(&gw);
    assert_eq!(st.state, Phase::Stopped, "{st:?}");
    assert_eq!(st.tools, 2);
    assert!(st.lazy && st.manifest_age_s.is_some(), "{st:?}");
    let c = Client::connect(&gw, "one").await;
    let found = search(&c, "beta tool").await;
    assert!(found.to_string().contains("mcp:s:beta"), "{found}");
    // Stopped is not down: no outage is reported for it.
    assert!(!found.to_string().contains("servers down"), "{found}");
    assert_eq!(
        script.starts.load(Ordering::SeqCst),
        0,
        "started before any call"
    );

    // The first call starts it and is answered.
    let r = c.call("s", "beta", json!({})).await;
    assert_ne!(r.is_error, Some(true), "{r:?}");
    assert_eq!(script.starts.load(Ordering::SeqCst), 1);
    assert_eq!(status(&gw).connections, 1);
    // Idle for 1 s: stopped again; the next call starts it again.
    assert!(
        until(|| status(&gw).state == Phase::Stopped).await,
        "{:?}",
        status(&gw)
    );
    let r = c.call("s", "alpha", json!({})).await;
    assert_ne!(r.is_error, Some(true), "{r:?}");
    assert_eq!(script.starts.load(Ordering::SeqCst), 2);
    assert_eq!(status(&gw).connections, 2);
    // Five calls at once on a stopped server share one start, and once they
    // are done it is stopped again and stays stopped.
    assert!(until(|| status(&gw).state == Phase::Stopped).await);
    let calls = (0..5).map(|_| c.call("s", "alpha", json!({})));
    for r in futures::future::join_all(calls).await {
        assert_ne!(r.is_error, Some(true), "{r:?}");
    }
    assert_eq!(script.starts.load(Ordering::SeqCst), 3);
    assert!(until(|| status(&gw).state == Phase::Stopped).await);
    tokio::time::sleep(std::time::Duration::from_millis(1_500)).await;
    assert_eq!(status(&gw).state, Phase::Stopped);
    assert_eq!(
        script.starts.load(Ordering::SeqCst),
        3,
        "started again with no call"
    );
    // The list did not change: no client was told it did.
    assert_eq!(c.seen().list_changed, 0);
    assert_eq!(gw.served_list_changes(), 0);
    gw.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_manifest_is_replaced_with_one_list_changed_and_a_vanished_tool_answers_clearly() {
    let dir = manifest_dir("stale");
    write_manifest(&dir, &[], vec![tool("alpha"), tool("gone")]).await;

    // Between runs the server dropped `gone` and gained `fresh`.
    let script = Script::with_tools(vec![tool("alpha"), tool("fresh")]);
    let gw = lazy_gateway(&dir, &[], 60_000, script.clone()).await;
    let c = Client::connect(&gw, "one").await;
    let found = search(&c, "gone tool").await;
    assert!(found.to_string().contains("mcp:s:gone"), "{found}");
    let r = c.call("s", "gone", json!({})).await;
    assert_eq!(r.is_error, Some(true), "{r:?}");
    let e = text(&r);
    assert_eq!(e["error"]["code"], "UNKNOWN_TOOL", "{e}");
    let msg = e["error"]["message"].as_str().unwrap_or("");
    assert!(
        msg.contains("no longer has a tool `gone`") && msg.contains("search again"),
        "{msg}"
    );
    // The refresh is served, once, and the manifest holds it for the next run.
    assert!(until(|| c.seen().list_changed >= 1).await);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(c.seen().list_changed, 1);
    assert_eq!(gw.served_list_changes(), 1);
    assert_eq!(status(&gw).list_changes, 1);
    let found = search(&c, "fresh tool").await;
    assert!(found.to_string().contains("mcp:s:fresh"), "{found}");
    let r = c.call("s", "gone", json!({})).await;
    assert_eq!(text(&r)["error"]["code"], "STALE", "{r:?}");
    gw.shutdown().await;

    let again = Script::with_tools(vec![tool("alpha"), tool("fresh")]);
    let gw = lazy_gateway(&dir, &[], 60_000, again.clone()).await;
    let c = Client::connect(&gw, "two").await;
    let found = search(&c, "fresh tool").await;
    assert!(found.to_string().contains("mcp:s:fresh"), "{found}");
    assert_eq!(again.starts.load(Ordering::SeqCst), 0);
    gw.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_command_line_or_a_corrupt_manifest_never_serves_an_old_list() {
    let dir = manifest_dir("key");
    write_manifest(&dir, &["--v1"], vec![tool("old")]).await;

    // Another argument: the old manifest is not read; the server starts at once,
    // and until it answers the search says it is still starting.
    let script = Script::with_tools(vec![tool("new")]);
    script.init_delay_ms.store(5_000, Ordering::SeqCst);
    let gw = lazy_gateway(&dir, &["--v2"], 60_000, script.clone()).await;
    assert_eq!(status(&gw).state, Phase::Starting);
    let c = Client::connect(&gw, "one").await;
    let found = search(&c, "old tool").await;
    assert!(!found.to_string().contains("mcp:s:old"), "{found}");
    assert!(
        found.to_string().contains("servers still starting")
            && found.to_string().contains("s: starting"),
        "{found}"
    );
    assert!(until(|| status(&gw).state == Phase::Running).await);
    assert!(until(|| status(&gw).manifest_age_s.is_some()).await);
    // The catalog is rebuilt off the runtime: the new tool is found soon.
    let mut found = Value::Null;
    for _ in 0..100 {
        found = search(&c, "new tool").await;
        if found.to_string().contains("mcp:s:new") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(found.to_string().contains("mcp:s:new"), "{found}");
    assert!(!found.to_string().contains("still starting"), "{found}");
    gw.shutdown().await;
    let files = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .count();
    assert_eq!(files, 2, "one manifest per command line");

    // The v2 manifest damaged: ignored, said why, and the server starts at once.
    for f in std::fs::read_dir(&dir).unwrap() {
        let p = f.unwrap().path();
        if std::fs::read_to_string(&p).unwrap().contains("\"new\"") {
            std::fs::write(&p, b"{\"format\": \"toolsearch-manifest/1\", \"tools\": [").unwrap();
        }
    }
    let script = Script::with_tools(vec![tool("new")]);
    let gw = lazy_gateway(&dir, &["--v2"], 60_000, script.clone()).await;
    let st = status(&gw);
    assert!(
        st.manifest_note
            .as_deref()
            .is_some_and(|n| n.starts_with("ignored: it is not a manifest")),
        "{st:?}"
    );
    assert!(until(|| script.starts.load(Ordering::SeqCst) == 1).await);
    assert!(
        until(|| status(&gw).manifest_note.is_none()).await,
        "rewritten"
    );
    gw.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_stopped_as_soon_as_it_starts_never_leaves_a_call_waiting() {
    let dir = manifest_dir("flap");
    write_manifest(&dir, &[], vec![tool("alpha")]).await;
    // Idle after 1 ms: a start may be stopped again before the call that asked
    // for it takes the connection.
    let script = Script::with_tools(vec![tool("alpha")]);
    let gw = lazy_gateway(&dir, &[], 1, script.clone()).await;
    let c = Client::connect(&gw, "one").await;
    for i in 0..10 {
        // Long enough for the idle stop to come between calls.
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        let r = tokio::time::timeout(
            std::time::Duration::from_secs(20),
            c.call("s", "alpha", json!({})),
        )
        .await
        .unwrap_or_else(|_| panic!("call {i} still waits after 20 s"));
        if r.is_error == Some(true) {
            let e = text(&r);
            assert_eq!(e["error"]["code"], "UNAVAILABLE", "{e}");
            assert!(e.to_string().contains("stopped each time"), "{e}");
        }
    }
    // Stopped between calls, started by the next.
    let starts = script.starts.load(Ordering::SeqCst);
    eprintln!("10 calls, idle stop 1 ms: {starts} starts");
    assert!(starts >= 2, "{starts} starts");
    gw.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}
