//! One snippet's failure stays that snippet's through the gateway: two MCP
//! sessions of one in-process gateway (the library API, over in-memory
//! pipes); the snippet process of one is killed under it; the other's next
//! snippet runs, neither session's tool list changes, and no client hears
//! `tools/list_changed`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use rmcp::ServiceExt;
use serde_json::{json, Value};
use toolsearch_mcp::{Config, Gateway};
use toolsearch_sandbox::{Isolation, Pool, PoolConfig, WorkerCommand};

use crate::common::*;

/// A client that counts `tools/list_changed`.
#[derive(Clone, Default)]
struct Counts(Arc<AtomicUsize>);

impl rmcp::ClientHandler for Counts {
    async fn on_tool_list_changed(&self, _cx: NotificationContext<RoleClient>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

async fn connect(gw: &Arc<Gateway>) -> (RunningService<RoleClient, Counts>, Counts) {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let session = gw.session();
    tokio::spawn(async move {
        if let Ok(server) = session.serve(server_io).await {
            let _ = server.waiting().await;
        }
    });
    let counts = Counts::default();
    let client = counts.clone().serve(client_io).await.expect("initialize");
    (client, counts)
}

async fn names(c: &RunningService<RoleClient, Counts>) -> Vec<String> {
    let tools = c.peer().list_all_tools().await.expect("tools/list");
    tools.into_iter().map(|t| t.name.to_string()).collect()
}

async fn code(c: &RunningService<RoleClient, Counts>, code: &str) -> (bool, Value) {
    let Value::Object(args) = json!({"code": code}) else {
        unreachable!()
    };
    let r = c
        .peer()
        .call_tool(CallToolRequestParams::new("tool_search_code").with_arguments(args))
        .await
        .expect("tools/call");
    (r.is_error == Some(true), text_json(&r))
}

/// Kills (SIGKILL) the snippet process burning CPU under one of this test
/// process's own sandbox workers (not those of gateway processes other tests
/// started: those are grandchildren); false when none showed up in time.
fn kill_the_running_snippet() -> bool {
    let me = std::process::id();
    let t0 = Instant::now();
    while t0.elapsed() < HANG_GUARD {
        let workers = descendants(me)
            .into_iter()
            .filter(|(p, cmd)| cmd.contains("sandbox-worker") && parent_of(*p) == Some(me));
        for (worker, _) in workers {
            let running = descendants(worker)
                .into_iter()
                .find(|(p, _)| cpu_ticks(*p) >= 10);
            if let Some((snippet, _)) = running {
                return std::process::Command::new("kill")
                    .args(["-9", &snippet.to_string()])
                    .status()
                    .is_ok_and(|s| s.success());
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the fixtures (`cargo xtask setup`) and the toolsearch-sandbox-worker binary; `cargo xtask test` runs it"]
async fn a_snippet_whose_process_dies_fails_alone_for_every_session() {
    let command = WorkerCommand::locate().expect("toolsearch-sandbox-worker is built");
    let pool = Pool::new(PoolConfig {
        workers: 1,
        isolation: Isolation::Process(command),
        ..PoolConfig::default()
    })
    .unwrap();
    python_module_ok("mcp_server_time");
    let cfg = Config::parse(
        "mode = \"code\"\nactivation = \"always\"\nsemantic = false\n\n[[servers]]\nname = \"time\"\n\
         command = \"python3\"\nargs = [\"-m\", \"mcp_server_time\", \"--local-timezone\", \"UTC\"]\n",
    )
    .unwrap();
    let gw = Gateway::start(&cfg, Some(pool)).await.unwrap();
    let (a, a_heard) = connect(&gw).await;
    let (b, b_heard) = connect(&gw).await;
    let before = names(&a).await;
    assert!(
        before.contains(&"tool_search_code".to_owned()),
        "{before:?}"
    );
    assert_eq!(names(&b).await, before);

    let killer = std::thread::spawn(kill_the_running_snippet);
    let (failed, out) = code(&a, "for (;;) {}").await;
    assert!(
        killer.join().unwrap(),
        "no snippet process was found to kill"
    );
    assert!(failed, "{out}");
    assert_eq!(out["error"]["kind"], json!("crashed"), "{out}");

    let (failed, out) = code(&b, "return 6 * 7").await;
    assert!(!failed, "{out}");
    assert_eq!(out["value"], json!(42), "{out}");

    // Given time for a background probe to say otherwise: nothing changed.
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(names(&a).await, before);
    assert_eq!(names(&b).await, before);
    assert_eq!(
        a_heard.0.load(Ordering::SeqCst),
        0,
        "session a heard list_changed"
    );
    assert_eq!(
        b_heard.0.load(Ordering::SeqCst),
        0,
        "session b heard list_changed"
    );
    let _ = a.cancel().await;
    let _ = b.cancel().await;
    gw.shutdown().await;
}
