//! Fake bridge and helpers shared by the test modules.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use toolsearch_sandbox::{
    Bridge, BridgeError, BridgeErrorCode, BridgeFuture, ExecResult, Limits, Pool, PoolConfig,
};

/// Tools the fake catalog knows. `denied_existing` exists but policy hides it.
pub const VISIBLE: &[&str] = &[
    "echo", "add", "hang", "big", "fail", "slow", "boom", "approve",
];

#[derive(Default)]
pub struct FakeBridge {
    pub runs: Mutex<HashMap<String, usize>>,
    pub hang_tokens: Mutex<Vec<CancellationToken>>,
    pub cancelled: Arc<AtomicUsize>,
}

impl FakeBridge {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }
    pub fn runs(&self, id: &str) -> usize {
        self.runs.lock().unwrap().get(id).copied().unwrap_or(0)
    }
    pub fn total_runs(&self) -> usize {
        self.runs.lock().unwrap().values().sum()
    }
}

fn unknown() -> BridgeError {
    BridgeError::new(
        BridgeErrorCode::UnknownTool,
        "unknown tool; use search() to find tool ids",
    )
}

impl Bridge for FakeBridge {
    fn search(&self, query: &str, limit: Option<u32>) -> Result<Value, BridgeError> {
        if query == "panic" {
            panic!("search panicked on purpose");
        }
        let n = limit.unwrap_or(8).min(20) as usize;
        let hits: Vec<Value> = VISIBLE
            .iter()
            .filter(|id| query.is_empty() || id.contains(query) || query == "x" || query == "*")
            .take(n)
            .map(|id| json!({"id": id, "summary": format!("the {id} tool")}))
            .collect();
        Ok(Value::Array(hits))
    }

    fn describe(&self, id: &str) -> Result<Value, BridgeError> {
        if VISIBLE.contains(&id) {
            Ok(
                json!({"id": id, "params": {"type": "object"}, "ts": format!("declare function {id}(args: object): unknown;")}),
            )
        } else {
            Err(unknown())
        }
    }

    fn call(&self, id: &str, args: Value, cancel: CancellationToken) -> BridgeFuture {
        if !VISIBLE.contains(&id) {
            return Box::pin(async { Err(unknown()) });
        }
        *self.runs.lock().unwrap().entry(id.to_owned()).or_default() += 1;
        match id {
            "echo" => Box::pin(async move { Ok(args) }),
            "add" => Box::pin(async move {
                let a = args["a"].as_f64().unwrap_or(0.0);
                let b = args["b"].as_f64().unwrap_or(0.0);
                Ok(json!(a + b))
            }),
            "hang" => {
                self.hang_tokens.lock().unwrap().push(cancel.clone());
                let counter = self.cancelled.clone();
                // Observe cancellation from outside the (dropped) future.
                std::thread::spawn(move || {
                    let rt = tokio::runtime::Builder::new_current_thread()
                        .enable_time()
                        .build()
                        .unwrap();
                    rt.block_on(async {
                        tokio::select! {
                            _ = cancel.cancelled() => { counter.fetch_add(1, Ordering::SeqCst); }
                            _ = tokio::time::sleep(Duration::from_secs(30)) => {}
                        }
                    });
                });
                Box::pin(std::future::pending())
            }
            // 8× the 1 MiB result cap: enough to cross it, small enough to build well
            // quickly on a loaded machine.
            "big" => Box::pin(async move { Ok(json!({"data": "x".repeat(8 << 20)})) }),
            "fail" => Box::pin(async move {
                Err(BridgeError::new(
                    BridgeErrorCode::ToolError,
                    "the tool failed",
                ))
            }),
            "slow" => Box::pin(async move {
                tokio::time::sleep(Duration::from_millis(30)).await;
                Ok(json!("slow done"))
            }),
            "boom" => panic!("call panicked on purpose"),
            // Waits `ms` for a person: the snippet's deadline is paused meanwhile.
            "approve" => Box::pin(async move {
                let _paused = toolsearch_sandbox::pause_for_a_person();
                let ms = args["ms"].as_u64().unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(json!("approved"))
            }),
            _ => Box::pin(async { Err(unknown()) }),
        }
    }
}

/// Slack for a timing claim that only guards against a hang: what a test
/// machine whose cores are busy with other work may add to any wait. Tests
/// assert outcomes, never speed (`toolsearch-lab bench` measures that).
pub const HANG_GUARD: Duration = Duration::from_secs(10);

/// Limits for snippets that finish on their own: the defaults with a deadline
/// that only guards against a hang, so a loaded machine never fails them.
pub fn test_limits() -> Limits {
    Limits {
        deadline: HANG_GUARD,
        ..Limits::default()
    }
}

/// Limits for snippets that only the deadline stops (runaway loops, hanging
/// tools): a short deadline keeps those tests quick.
pub fn runaway_limits() -> Limits {
    Limits {
        deadline: Duration::from_millis(300),
        ..Limits::default()
    }
}

/// The longest a job may take from the moment a worker took it: its deadline
/// and grace, plus [`HANG_GUARD`].
pub fn answer_bound(limits: &Limits) -> Duration {
    limits.deadline + limits.grace + HANG_GUARD
}

pub fn pool(workers: usize) -> Pool {
    Pool::new(PoolConfig {
        workers,
        queue: 256,
        limits: test_limits(),
        prewarm: true,
        ..PoolConfig::default()
    })
    .expect("pool")
}

/// Shared pool for most tests (2 workers).
pub fn shared() -> &'static Pool {
    static POOL: std::sync::OnceLock<Pool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| pool(2))
}

pub fn run(code: &str) -> ExecResult {
    run_with(code, FakeBridge::new())
}

pub fn run_with(code: &str, bridge: Arc<FakeBridge>) -> ExecResult {
    shared().execute_blocking(code, bridge)
}

pub fn run_limits(code: &str, bridge: Arc<FakeBridge>, limits: Limits) -> ExecResult {
    shared().execute_blocking_with(code, bridge, limits)
}

/// Runs a snippet only the deadline stops, with [`runaway_limits`].
pub fn run_runaway(code: &str, bridge: Arc<FakeBridge>) -> ExecResult {
    run_limits(code, bridge, runaway_limits())
}

pub fn err_kind(r: &ExecResult) -> Option<toolsearch_sandbox::ErrorKind> {
    r.error.as_ref().map(|e| e.kind)
}

pub fn err_msg(r: &ExecResult) -> String {
    r.error
        .as_ref()
        .map(|e| e.message.clone())
        .unwrap_or_default()
}

/// Process RSS in KiB from /proc/self/status.
pub fn rss_kib() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Waits until `f` holds (up to [`HANG_GUARD`]: it returns as soon as it does).
pub fn eventually(mut f: impl FnMut() -> bool) -> bool {
    let until = std::time::Instant::now() + HANG_GUARD;
    while std::time::Instant::now() < until {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    f()
}

/// The process is alive (we are running) and the pool holds no more than one isolate
/// per worker and exactly its worker + watchdog threads.
pub fn assert_clean(pool: &Pool) {
    let ok = eventually(|| {
        let s = pool.stats();
        if s.live_processes > 0 {
            // Process mode: one driver thread per worker, an active and a standby process at most.
            s.live_threads == s.workers && s.live_processes <= 2 * s.workers
        } else {
            s.live_isolates <= s.workers && s.live_threads == 2 * s.workers
        }
    });
    assert!(ok, "pool did not return to baseline: {:?}", pool.stats());
}

/// Runs `body` in a child copy of this test binary when not already inside one, and
/// returns the child's output; inside the child, runs `body` and returns `None`.
/// `test_path` is the test's full name (`module::function`).
pub fn in_child(test_path: &str, body: impl FnOnce()) -> Option<std::process::Output> {
    const VAR: &str = "TOOLSEARCH_CHILD_CASE";
    if std::env::var(VAR).as_deref() == Ok(test_path) {
        body();
        return None;
    }
    let exe = std::env::current_exe().expect("test binary path");
    let out = std::process::Command::new(exe)
        // `--include-ignored`: the case may be a `longrun_` one, run on purpose.
        .args([
            test_path,
            "--exact",
            "--nocapture",
            "--test-threads=1",
            "--include-ignored",
        ])
        .env(VAR, test_path)
        .output()
        .expect("spawn child test");
    Some(out)
}

/// Runs `body` as the only test of a child test process, asserts that it passed and
/// echoes its stderr (its figures). For tests that measure every child process of the
/// test process: run in the shared one, they would count the worker processes and
/// child test processes of whatever other tests run at the same time.
pub fn in_own_process(test_path: &str, body: impl FnOnce()) {
    if let Some(out) = in_child(test_path, body) {
        assert_child_ok(&out);
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
    }
}

/// Asserts that a child run ended normally and ran exactly one test.
pub fn assert_child_ok(out: &std::process::Output) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child failed ({}):\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
}

/// A pool whose isolates run in worker processes (this crate's worker binary).
pub fn process_pool(workers: usize, limits: Limits) -> Pool {
    let command = toolsearch_sandbox::WorkerCommand {
        program: env!("CARGO_BIN_EXE_toolsearch-sandbox-worker").into(),
        args: Vec::new(),
    };
    Pool::new(PoolConfig {
        workers,
        queue: 256,
        limits,
        isolation: toolsearch_sandbox::Isolation::Process(command),
        ..PoolConfig::default()
    })
    .expect("process pool")
}

/// RSS of a process (KiB), from /proc.
pub fn rss_kib_of(pid: u32) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// RSS of this process's direct children (KiB): the worker processes. (This
/// process's own RSS is shared with the tests running beside it, and so are its
/// children: a test that measures them runs [`in_own_process`].)
pub fn rss_kib_children() -> u64 {
    children().into_iter().map(|(pid, _)| rss_kib_of(pid)).sum()
}

/// Worker processes that are children of this test process.
pub fn worker_pids() -> Vec<u32> {
    children()
        .into_iter()
        .filter(|(_, stat)| stat.contains("toolsearch-sand"))
        .map(|(pid, _)| pid)
        .collect()
}

/// This process's direct children, with their `/proc/PID/stat` lines (the
/// command name, cut to 15 bytes, is its second field).
pub fn children() -> Vec<(u32, String)> {
    let me = std::process::id();
    let mut found = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for e in entries.flatten() {
            let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // Field 4 is the parent pid (after the parenthesised command name).
            let ppid = stat
                .rsplit(')')
                .next()
                .and_then(|r| r.split_whitespace().nth(1))
                .and_then(|p| p.parse::<u32>().ok());
            if ppid == Some(me) {
                found.push((pid, stat));
            }
        }
    }
    found
}
