//! The gateway shared by 50 HTTP clients while one server floods logs,
//! progress and `tools/list_changed` and another paginates without end: every
//! call is answered once, to the client that made it, with only that call's
//! logs; afterwards the gateway's RSS, descriptors and threads return to their
//! start. Prints p50/p99 per call kind. 60 s under `cargo test` (in a process
//! of its own); `cargo xtask soak` runs the 5-minute version.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use serde_json::json;
use toolsearch_mcp::Config;

use crate::harness::{alone, gateway, http_client, rss_kib, serve_http, text, Reach, Script};

const CLIENTS: usize = 50;

fn count_dir(path: &str) -> usize {
    std::fs::read_dir(path).map_or(0, |d| d.count())
}

fn threads() -> usize {
    count_dir("/proc/self/task")
}

fn fds() -> usize {
    count_dir("/proc/self/fd")
}

fn children() -> usize {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .map(|d| {
            d.flatten()
                .filter(|e| {
                    std::fs::read_to_string(e.path().join("stat")).is_ok_and(|s| {
                        s.rsplit(')')
                            .next()
                            .and_then(|r| r.split_whitespace().nth(1))
                            == Some(&me)
                    })
                })
                .count()
        })
        .unwrap_or(0)
}

/// What the process holds.
#[derive(Clone, Copy)]
struct Held {
    rss_kib: u64,
    fds: usize,
    threads: usize,
    children: usize,
}

impl Held {
    fn now() -> Held {
        toolsearch_sandbox::release_free_memory();
        Held {
            rss_kib: rss_kib(),
            fds: fds(),
            threads: threads(),
            children: children(),
        }
    }

    /// Back to `start`: RSS within 5 MiB of it, the rest no higher.
    fn back_to(&self, start: &Held) -> bool {
        self.rss_kib <= start.rss_kib + 5 * 1024
            && self.fds <= start.fds
            && self.threads <= start.threads
            && self.children <= start.children
    }
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

/// One HTTP client's loop until `until`: `work` calls with logs and progress
/// on the flooding server (each checked: its own tag, its own logs only) and
/// a `tool_search` now and then. Returns (work ms, search ms).
async fn client(
    url: String,
    n: usize,
    until: Instant,
    calls: Arc<AtomicU64>,
) -> (Vec<f64>, Vec<f64>) {
    let service = http_client(&url, format!("c{n}")).await;
    let recorder = service.service().clone();
    let (mut work, mut search) = (Vec::new(), Vec::new());
    let mut i = 0;
    while Instant::now() < until {
        i += 1;
        let tag = format!("c{n}-{i}");
        let started = Instant::now();
        if i % 10 == 0 {
            let args = json!({"query": "work"});
            let r = service
                .peer()
                .call_tool(
                    CallToolRequestParams::new("tool_search")
                        .with_arguments(args.as_object().unwrap().clone()),
                )
                .await
                .expect("search answered");
            assert_ne!(r.is_error, Some(true), "{r:?}");
            search.push(started.elapsed().as_secs_f64() * 1e3);
        } else {
            let args = json!({"id": "mcp:flood:work", "arguments": {"tag": tag, "logs": 3, "progress": 3}});
            let r = service
                .peer()
                .call_tool(
                    CallToolRequestParams::new("tool_call")
                        .with_arguments(args.as_object().unwrap().clone()),
                )
                .await
                .expect("work answered");
            let v = text(&r);
            assert_eq!(
                v["tag"],
                json!(tag),
                "answered to the wrong client or call: {v}"
            );
            work.push(started.elapsed().as_secs_f64() * 1e3);
        }
        calls.fetch_add(1, Ordering::Relaxed);
    }
    // Every log this client received is one of its own calls'.
    let strays: Vec<String> = {
        let seen = recorder.seen.lock().unwrap();
        let mine = format!("c{n}-");
        seen.logs
            .iter()
            .filter(|l| !l.starts_with(&mine))
            .take(5)
            .cloned()
            .collect()
    };
    assert!(strays.is_empty(), "c{n} received others' logs: {strays:?}");
    let _ = service.cancel().await;
    (work, search)
}

fn soak(seconds: u64) {
    crate::harness::runtime().block_on(async {
        let flood = Script::new(5);
        let pages = Script::new(5);
        let gw = gateway(
            vec![("flood", Reach::Http(flood.clone())), ("pages", Reach::Stream(pages.clone()))],
            "",
        )
        .await;
        let cfg = Config::parse("[http]\nrate_limit_per_minute = 100000\n").unwrap();
        let (url, stop) = serve_http(gw.clone(), &cfg).await;
        // Descriptors, threads and child processes at start; RSS after one
        // round of clients (the allocator's and the tables' first growth).
        let before_clients = Held::now();
        let calls = Arc::new(AtomicU64::new(0));
        let warm = Instant::now() + Duration::from_secs(2);
        let warmups: Vec<_> = (0..CLIENTS)
            .map(|n| tokio::spawn(client(url.clone(), n, warm, calls.clone())))
            .collect();
        for w in warmups {
            w.await.expect("warm-up client");
        }
        tokio::time::sleep(Duration::from_secs(25)).await;
        let start = Held {
            rss_kib: Held::now().rss_kib,
            ..before_clients
        };
        // The misbehaving servers: the flood storms list_changed every second;
        // `pages` starts paginating without end.
        let until = Instant::now() + Duration::from_secs(seconds);
        let storms = {
            let gw = gw.clone();
            tokio::spawn(async move {
                let admin = crate::harness::Client::connect(&gw, "admin").await;
                let r = admin.call("pages", "list_mode", json!({"mode": "endless"})).await;
                assert_eq!(text(&r), json!("listing changed"));
                while Instant::now() < until {
                    admin.call("flood", "storm", json!({"n": 200})).await;
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            })
        };
        let calls = Arc::new(AtomicU64::new(0));
        let runs: Vec<_> = (0..CLIENTS)
            .map(|n| tokio::spawn(client(url.clone(), n, until, calls.clone())))
            .collect();
        let (mut work, mut search) = (Vec::new(), Vec::new());
        for r in runs {
            let (w, s) = r.await.expect("client");
            work.extend(w);
            search.extend(s);
        }
        storms.await.expect("storms");
        let pages_error = gw.fleet().status().into_iter().find(|s| s.name == "pages").and_then(|s| s.error);
        assert!(pages_error.as_deref().unwrap_or("").contains("past 100 pages"), "{pages_error:?}");
        // The clients left: everything they held goes (idle blocking threads
        // leave after 10 s, idle connections to servers after 20 s).
        let end = Instant::now() + Duration::from_secs(45);
        let mut after = Held::now();
        while Instant::now() < end && !after.back_to(&start) {
            tokio::time::sleep(Duration::from_millis(500)).await;
            after = Held::now();
        }
        let total = calls.load(Ordering::Relaxed);
        let (w50, w99) = (percentile(&mut work, 0.5), percentile(&mut work, 0.99));
        let (s50, s99) = (percentile(&mut search, 0.5), percentile(&mut search, 0.99));
        eprintln!(
            "soak {seconds} s, {CLIENTS} HTTP clients: {total} calls, each answered once to its client; \
             tool_call p50 {w50:.1} ms p99 {w99:.1} ms ({} calls); tool_search p50 {s50:.1} ms p99 {s99:.1} ms ({} calls); \
             {} snapshots; flood listed {} times; pages: {}",
            work.len(),
            search.len(),
            gw.snapshots_built(),
            flood.lists.load(Ordering::Relaxed),
            pages_error.unwrap_or_default(),
        );
        eprintln!("soak: {} sessions open after the clients left", gw.open_sessions());
        eprintln!(
            "soak: RSS {} -> {} KiB, fds {} -> {}, threads {} -> {}, child processes {} -> {}",
            start.rss_kib,
            after.rss_kib,
            start.fds,
            after.fds,
            start.threads,
            after.threads,
            start.children,
            after.children
        );
        assert!(after.rss_kib <= start.rss_kib + 5 * 1024, "RSS {} -> {} KiB", start.rss_kib, after.rss_kib);
        assert!(after.fds <= start.fds, "fds {} -> {}", start.fds, after.fds);
        assert!(after.threads <= start.threads, "threads {} -> {}", start.threads, after.threads);
        assert!(after.children <= start.children, "child processes {} -> {}", start.children, after.children);
        stop.cancel();
        gw.shutdown().await;
    });
}

#[test]
fn gateway_soak_60s() {
    // TOOLSEARCH_SOAK_SECS shortens it for a quick look.
    let secs = std::env::var("TOOLSEARCH_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    alone("soak::gateway_soak_60s", || soak(secs));
}

#[test]
#[ignore = "five minutes: `cargo xtask soak` runs it"]
fn longrun_gateway_soak_5min() {
    alone("soak::longrun_gateway_soak_5min", || soak(300));
}
