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
    (r.is_error == Some(true), crate::harness::code_view(&r))
}

/// How long a test lets the servers' first starts take (the default startup timeout).
const SETTLE: std::time::Duration = std::time::Duration::from_secs(31);

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

/// A pool of one worker process of this workspace's worker program, forking a
/// copy of its template per job or (`fork_per_job` false) running its jobs in
/// one process of its own.
fn one_worker(fork_per_job: bool) -> Pool {
    let command = WorkerCommand::locate().expect("toolsearch-sandbox-worker is built");
    Pool::new(PoolConfig {
        workers: 1,
        isolation: Isolation::Process(command),
        fork_per_job,
        ..PoolConfig::default()
    })
    .unwrap()
}

/// Code mode always on, over the time server.
fn time_config() -> Config {
    toolsearch_tests::isolate_state();
    python_module_ok("mcp_server_time");
    Config::parse(
        "mode = \"code\"\nactivation = \"always\"\nsemantic = false\n\n[[servers]]\nname = \"time\"\n\
         command = \"python3\"\nargs = [\"-m\", \"mcp_server_time\", \"--local-timezone\", \"UTC\"]\n",
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the fixtures (`cargo xtask setup`) and the toolsearch-sandbox-worker binary; `cargo xtask test` runs it"]
async fn a_sandbox_that_cannot_run_then_recovers_is_announced_once() {
    // A worker that starts only once a flag file exists.
    let flag = temp_path("worker-may-start");
    let real = WorkerCommand::locate().expect("toolsearch-sandbox-worker is built");
    let script = format!(
        "[ -f '{}' ] && exec '{}'; exit 1",
        flag.display(),
        real.program.display()
    );
    let pool = Pool::new(PoolConfig {
        workers: 1,
        isolation: Isolation::Process(WorkerCommand {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), script],
        }),
        ..PoolConfig::default()
    })
    .unwrap();
    let gw = Gateway::start(&time_config(), Some(pool)).await.unwrap();
    gw.settle(SETTLE).await;
    let (a, heard) = connect(&gw).await;
    // Down from the start: the structured tools, nothing announced.
    let down = names(&a).await;
    assert!(down.contains(&"tool_search".to_owned()), "{down:?}");
    assert!(!down.contains(&"tool_search_code".to_owned()), "{down:?}");
    assert_eq!(heard.0.load(Ordering::SeqCst), 0);
    // The sandbox can run now: the re-probe finds it and the client is told once.
    std::fs::write(&flag, "").unwrap();
    let told = eventually(
        toolsearch::REPROBE_FIRST.as_secs() + HANG_GUARD.as_secs(),
        || heard.0.load(Ordering::SeqCst) > 0,
    )
    .await;
    assert!(told, "no tools/list_changed after code mode came back");
    let up = names(&a).await;
    assert!(up.contains(&"tool_search_code".to_owned()), "{up:?}");
    let (failed, out) = code(&a, "return 6 * 7").await;
    assert!(!failed && out["value"] == json!(42), "{out}");
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(
        heard.0.load(Ordering::SeqCst),
        1,
        "announced more than once"
    );
    let _ = a.cancel().await;
    gw.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the fixtures (`cargo xtask setup`) and the toolsearch-sandbox-worker binary; `cargo xtask test` runs it"]
async fn a_snippet_whose_process_dies_fails_alone_for_every_session() {
    let gw = Gateway::start(
        &time_config(),
        Some(one_worker(PoolConfig::default().fork_per_job)),
    )
    .await
    .unwrap();
    gw.settle(SETTLE).await;
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

/// Issue 41, the in-process path (`PoolConfig::fork_per_job` off: one worker
/// process runs its jobs one after the other): one session's hostile snippets
/// (each ending abnormally, or touching the engine's buffer paths), then
/// another session's three innocent snippets: all three answer `ok`. (A worker
/// killed between two jobs is `engine_memory::a_failure_stays_its_job_s_*` in
/// the sandbox's suite: here other tests' workers share this process.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the fixtures (`cargo xtask setup`) and the toolsearch-sandbox-worker binary; `cargo xtask test` runs it"]
async fn in_process_a_hostile_session_leaves_another_session_s_snippets_alone() {
    let gw = Gateway::start(&time_config(), Some(one_worker(false)))
        .await
        .unwrap();
    gw.settle(SETTLE).await;
    let (hostile, _) = connect(&gw).await;
    let (innocent, _) = connect(&gw).await;
    for snippet in [
        "const a = []; for (;;) a.push({x: 1})",
        "return '\\uFDFA'.repeat(1 << 20).normalize('NFKD').length",
        "const k = []; for (let i = 0; i < 300; i++) k.push(new ArrayBuffer(1024).transfer(4096)); \
         let t = new ArrayBuffer(1 << 20).transfer(); return k.length + t.byteLength",
        "function f() { f() } f()",
    ] {
        let (_, out) = code(&hostile, snippet).await;
        assert!(out["error"]["kind"] != json!("crashed"), "{snippet}: {out}");
    }
    for (snippet, want) in [
        ("return 6 * 7", json!(42)),
        ("return [1, 2, 3].map((x) => x * 2)", json!([2, 4, 6])),
        (
            "const u = new Uint8Array(1024); u.fill(1); return u.reduce((a, b) => a + b, 0)",
            json!(1024),
        ),
    ] {
        let (failed, out) = code(&innocent, snippet).await;
        assert!(!failed, "{snippet}: {out}");
        assert_eq!(out["value"], want, "{snippet}: {out}");
    }
    let _ = hostile.cancel().await;
    let _ = innocent.cancel().await;
    gw.shutdown().await;
}

/// Snippets that fail on purpose, one per class of issue 29 and the older
/// containment classes; each must come back as its own error.
const HOSTILE: &[&str] = &[
    // Values too deep for the pipe: a result, arguments, a tool's result.
    "let v = 1; for (let i = 0; i < 126; i++) v = [v]; return v",
    "let v = 1; for (let i = 0; i < 126; i++) v = [v]; return await openclaw.tools.call('mcp:hostile:deep', {depth: 1, v})",
    "return await openclaw.tools.call('mcp:hostile:deep', {depth: 123})",
    // Memory outside the isolate: arguments of calls waiting for a slot.
    "const arg = {items: Array.from({length: 20000}, () => ({}))}; \
     const all = await Promise.allSettled(Array.from({length: 100}, () => openclaw.tools.call('mcp:hostile:slow', {ms: 1, arg}))); \
     throw new Error(all.filter(s => s.status === 'rejected').length + ' rejected')",
    // Runaways, memory, hangs, floods.
    "for (;;) {}",
    "const a = []; for (;;) a.push({x: 1})",
    "await new Promise(() => {})",
    "for (;;) console.log('x'.repeat(1e5))",
    "function f() { f() } f()",
    "await openclaw.tools.call('mcp:hostile:slow', {ms: 600000})",
    // Just over the 1 MiB tool result cap (refused with LIMIT), no more: the
    // upstream stdio reader keeps a buffer the size of the largest line it read
    // (issue 31 bounds what a server may send).
    "return await openclaw.tools.call('mcp:hostile:big', {size: (1 << 20) + 4096})",
    "throw {get message() { for (;;); }}",
];

/// Benign snippets and the value each must return.
fn benign() -> Vec<(&'static str, Value)> {
    vec![
        (
            "const h = await openclaw.tools.search('current time in a timezone'); \
             return h.some(x => x.id === 'mcp:time:get_current_time')",
            json!(true),
        ),
        (
            "const r = await openclaw.tools.call('mcp:hostile:deep', {depth: 20}); \
             let v = r.v ?? r.structuredContent?.v, n = 0; while (Array.isArray(v)) { v = v[0]; n++ } return n",
            json!(20),
        ),
        ("return [1, 2, 3].map(x => x * 2)", json!([2, 4, 6])),
        (
            "const r = await openclaw.tools.call('mcp:hostile:slow', {ms: 5}); return typeof r",
            json!("object"),
        ),
    ]
}

/// RSS of a process (KiB), from /proc.
fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or(0)
}

/// RSS (KiB) of the gateway and its sandbox worker processes (the downstream
/// servers are not the gateway's memory, and a job process forked ahead of
/// its job comes and goes with the timing of the last job).
fn gateway_rss_kib(gateway: u32) -> u64 {
    rss_kib(gateway) + worker_rss_kib(gateway).iter().sum::<u64>()
}

/// RSS (KiB) of each worker process (not the job processes they fork).
fn worker_rss_kib(gateway: u32) -> Vec<u64> {
    descendants(gateway)
        .into_iter()
        .filter(|(p, cmd)| cmd.contains("sandbox-worker") && parent_of(*p) == Some(gateway))
        .map(|(p, _)| rss_kib(p))
        .collect()
}

/// The gateway's sandbox driver threads, and its worker processes.
fn drivers_and_workers(gateway: u32) -> (usize, usize) {
    let drivers = std::fs::read_dir(format!("/proc/{gateway}/task"))
        .map(|d| {
            d.flatten()
                .filter(|t| {
                    std::fs::read_to_string(t.path().join("comm"))
                        .is_ok_and(|c| c.starts_with("sandbox-driver"))
                })
                .count()
        })
        .unwrap_or(0);
    let workers = descendants(gateway)
        .into_iter()
        .filter(|(p, cmd)| cmd.contains("sandbox-worker") && parent_of(*p) == Some(gateway))
        .count();
    (drivers, workers)
}

/// `jobs` snippets through one gateway over stdio, one in three hostile, in
/// pairs at once; prints the figures.
async fn liveness_soak(jobs: usize) {
    python_module_ok("mcp");
    let hostile_server = repo().join("tests/fixtures/hostile_server.py");
    let cfg = temp_path("soak.toml");
    std::fs::write(
        &cfg,
        format!(
            "mode = \"code\"\nactivation = \"always\"\nsemantic = false\n\n[limits]\ntimeout_ms = 2500\n\n\
             [[servers]]\nname = \"hostile\"\ncommand = \"python3\"\nargs = [{hostile_server:?}]\n\n\
             [[servers]]\nname = \"time\"\ncommand = \"python3\"\nargs = [\"-m\", \"mcp_server_time\", \"--local-timezone\", \"UTC\"]\n"
        ),
    )
    .unwrap();
    let gw = Gw::start(&cfg).await;
    let benign = benign();
    let tools = gw.tool_names().await;
    assert!(tools.contains(&"tool_search_code".to_owned()), "{tools:?}");
    // Warm-up: every snippet once, so the worker processes exist and the
    // buffers on the way (the pipes to the client and the servers) have met
    // the largest message of the run; then the gateway trims after the burst.
    // The start is measured after that: what the soak checks is that nothing
    // grows with the number of jobs.
    for (code, want) in &benign {
        let out = gw.code(code).await;
        assert_eq!(&out["value"], want, "warm-up {code}: {out}");
    }
    for code in HOSTILE {
        let out = gw.code(code).await;
        assert!(out["error"]["kind"].is_string(), "warm-up {code}: {out}");
    }
    tokio::time::sleep(toolsearch_mcp::gateway::TRIM_EVERY + Duration::from_secs(2)).await;
    let (drivers, workers) = drivers_and_workers(gw.pid);
    let rss_start = gateway_rss_kib(gw.pid);
    eprintln!(
        "liveness soak: RSS by process at the start: gateway {} KiB; workers {:?}",
        rss_start - worker_rss_kib(gw.pid).iter().sum::<u64>(),
        worker_rss_kib(gw.pid)
    );
    let t0 = Instant::now();
    let (mut benign_failures, mut hostile_errors) = (Vec::new(), 0usize);
    let mut max_workers = workers;
    let snippet = |i: usize| -> (&str, Option<Value>) {
        if i.is_multiple_of(3) {
            (HOSTILE[(i / 3) % HOSTILE.len()], None)
        } else {
            let (code, want) = &benign[i % benign.len()];
            (code, Some(want.clone()))
        }
    };
    let run = |i: usize| {
        let (code, want) = snippet(i);
        let gw = &gw;
        async move {
            let started = Instant::now();
            let r = gw.call("tool_search_code", json!({"code": code})).await;
            (code, want, r, started.elapsed())
        }
    };
    let mut i = 0;
    while i < jobs {
        // Two at once (one gateway session), then the next pair.
        let done = if i + 1 < jobs {
            let (a, b) = tokio::join!(run(i), run(i + 1));
            vec![a, b]
        } else {
            vec![run(i).await]
        };
        i += done.len();
        for (code, want, r, took) in done {
            let out = crate::harness::code_view(&r);
            // Deadline (2.5 s: benign snippets finish far within it on a loaded
            // machine) + grace, within the hang guard.
            assert!(took < HANG_GUARD, "{code}: took {took:?}");
            match want {
                Some(want) if out["value"] != want => {
                    benign_failures.push(format!("{code}: {out}"))
                }
                Some(_) => {}
                None => {
                    assert_eq!(r.is_error, Some(true), "{code}: {out}");
                    let kind = out["error"]["kind"].as_str().unwrap_or_default().to_owned();
                    assert!(!matches!(kind.as_str(), "engine" | ""), "{code}: {out}");
                    hostile_errors += 1;
                }
            }
        }
        max_workers = max_workers.max(drivers_and_workers(gw.pid).1);
    }
    let ran = t0.elapsed();
    assert!(
        benign_failures.is_empty(),
        "benign failures: {benign_failures:#?}"
    );
    assert_eq!(gw.tool_names().await, tools, "the tool list changed");
    // After the last job, past the idle time after which a driver added under
    // load ends (the gateway's pool grows one when snippets queue; on a busy
    // machine one may start near the end: at exactly 30 s it was still there).
    // Under CI's load one started late was still there 40 s after the last
    // job: wait for it, up to 30 s more, rather than for a fixed time.
    tokio::time::sleep(toolsearch_sandbox::EXTRA_WORKER_IDLE + Duration::from_secs(10)).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while drivers_and_workers(gw.pid).0 != drivers && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    let (drivers_after, workers_after) = drivers_and_workers(gw.pid);
    eprintln!(
        "liveness soak: RSS by process: gateway {} KiB; workers {:?}",
        gateway_rss_kib(gw.pid) - worker_rss_kib(gw.pid).iter().sum::<u64>(),
        worker_rss_kib(gw.pid)
    );
    let rss_end = gateway_rss_kib(gw.pid);
    eprintln!(
        "liveness soak: {jobs} jobs ({hostile_errors} hostile) through one stdio gateway in {:.1} s; \
         drivers {drivers} -> {drivers_after}, worker processes {workers} -> {workers_after} (at most \
         {max_workers} while running); gateway + workers RSS {} -> {} MiB 40 s or more after the last job \
         ({:+} KiB)",
        ran.as_secs_f64(),
        rss_start / 1024,
        rss_end / 1024,
        rss_end as i64 - rss_start as i64
    );
    assert_eq!(drivers_after, drivers, "driver threads");
    assert!(
        workers_after <= workers.max(drivers * 2),
        "worker processes: {workers} -> {workers_after}"
    );
    assert!(
        max_workers <= drivers * 2,
        "at most an active and a standby per driver: {max_workers}"
    );
    // glibc left each short-lived thread's arena holding its burst's peak
    // (+10 to +13 MiB here) until the gateway fixed its allocator's thresholds
    // (`bound_kept_memory`); since, +0.3 to +0.5 MiB.
    assert!(
        rss_end <= rss_start + 5 * 1024,
        "RSS {rss_start} -> {rss_end} KiB 30 s after the last job"
    );
    let _ = gw.client.cancel().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn liveness_soak_hundred_jobs_through_a_stdio_gateway() {
    liveness_soak(100).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "long soak: `cargo xtask soak` runs it"]
async fn longrun_liveness_soak_through_a_stdio_gateway() {
    liveness_soak(1000).await;
}
