//! Liveness (issue 29): whatever a snippet does and whatever a tool returns to
//! it ends as that job's answer within deadline + grace; the worker that ran it
//! is healthy or replaced; the next job on the same pool is answered at once.
//! Each test covers several members of one class, on both backends where it
//! applies, and prints the peak RSS of the process tree.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use toolsearch_sandbox::{
    Bridge, BridgeError, BridgeFuture, ErrorKind, ExecResult, Limits, Pool, PoolConfig,
    WorkerCommand, MAX_JSON_DEPTH,
};

use crate::common::*;

/// The fake catalog plus `deep`, which returns `1` inside `n` arrays.
struct Deep(Arc<FakeBridge>);

fn nest(n: u64) -> Value {
    let mut v = json!(1);
    for _ in 0..n {
        v = Value::Array(vec![v]);
    }
    v
}

impl Bridge for Deep {
    fn search(&self, q: &str, limit: Option<u32>) -> Result<Value, BridgeError> {
        self.0.search(q, limit)
    }
    fn describe(&self, id: &str) -> Result<Value, BridgeError> {
        self.0.describe(id)
    }
    fn call(&self, id: &str, args: Value, cancel: CancellationToken) -> BridgeFuture {
        if id == "deep" {
            let n = args["n"].as_u64().unwrap_or(0);
            return Box::pin(async move { Ok(nest(n)) });
        }
        self.0.call(id, args, cancel)
    }
}

/// Peak RSS (KiB) of this process and its children, sampled every 5 ms while
/// the returned guard lives.
struct PeakRss {
    /// KiB when sampling started.
    start: u64,
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicU64>,
    sampler: Option<std::thread::JoinHandle<()>>,
}

impl PeakRss {
    fn start() -> PeakRss {
        let (stop, peak) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicU64::new(0)),
        );
        let sampler = {
            let (stop, peak) = (stop.clone(), peak.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    peak.fetch_max(rss_kib() + rss_kib_children(), Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(5));
                }
            })
        };
        PeakRss {
            start: rss_kib() + rss_kib_children(),
            stop,
            peak,
            sampler: Some(sampler),
        }
    }

    /// Stops sampling; the peak and how far it rose above the start, in MiB.
    fn finish(mut self) -> (u64, u64) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(s) = self.sampler.take() {
            let _ = s.join();
        }
        let peak = self.peak.load(Ordering::SeqCst);
        (peak / 1024, peak.saturating_sub(self.start) / 1024)
    }
}

/// Both backends: threads and worker processes (one worker each, so every
/// job runs where the last one ran).
fn backends(limits: Limits) -> Vec<(&'static str, Pool)> {
    let threads = Pool::new(PoolConfig {
        workers: 1,
        queue: 16,
        limits: limits.clone(),
        ..PoolConfig::default()
    })
    .expect("thread pool");
    vec![("threads", threads), ("processes", process_pool(1, limits))]
}

/// The job after a failure on the same pool: answered at once (well within
/// the hang guard, nothing waits for a start timeout), with its value.
fn next_job_runs(pool: &Pool, what: &str) {
    next_job_answers(pool, what, "return 6 * 7", json!(42));
}

/// [`next_job_runs`] with a snippet of one's own and the value it must give.
fn next_job_answers(pool: &Pool, what: &str, code: &str, want: Value) {
    let t0 = Instant::now();
    let r = pool.execute_blocking(code, FakeBridge::new());
    assert_eq!(r.value, want, "{what}: next job: {:?}", r.error);
    assert!(
        t0.elapsed() < HANG_GUARD,
        "{what}: next job took {:?}",
        t0.elapsed()
    );
}

fn assert_never_broken(r: &ExecResult, what: &str) {
    assert!(
        !matches!(err_kind(r), Some(ErrorKind::Engine | ErrorKind::Crashed)),
        "{what}: {:?}",
        r.error
    );
}

#[test]
fn values_of_every_depth_are_delivered_or_refused_on_both_backends() {
    in_own_process(
        "liveness::values_of_every_depth_are_delivered_or_refused_on_both_backends",
        || {
            let rss = PeakRss::start();
            let limits = test_limits();
            let bound = answer_bound(&limits);
            for (backend, pool) in backends(limits) {
                next_job_runs(&pool, backend);
                let threads = pool.stats().live_threads;
                let bridge = Arc::new(Deep(FakeBridge::new()));
                for d in 1..=200u64 {
                    let what = format!("{backend}, depth {d}");
                    // Call arguments of depth d (echoed back) and a tool result of
                    // depth d, each delivered (its depth measured in JS) or refused.
                    let code = format!(
                        r#"
                        const nest = (n) => {{ let v = 1; for (let i = 0; i < n; i++) v = [v]; return v; }};
                        const depth = (v) => {{ let n = 0; while (Array.isArray(v)) {{ v = v[0]; n++; }} return n; }};
                        const out = {{}};
                        try {{ out.args = depth((await openclaw.tools.call('echo', {{v: nest({d} - 1)}})).v) + 1; }}
                        catch (e) {{ out.args = e.code; }}
                        try {{ out.tool = depth(await openclaw.tools.call('deep', {{n: {d}}})); }}
                        catch (e) {{ out.tool = e.code; }}
                        return out;
                        "#
                    );
                    let t0 = Instant::now();
                    let r = pool.execute_blocking(&code, bridge.clone());
                    assert!(t0.elapsed() < bound, "{what}: took {:?}", t0.elapsed());
                    assert!(r.ok, "{what}: {:?}", r.error);
                    let fits = d as usize <= MAX_JSON_DEPTH;
                    let expected = if fits {
                        json!({"args": d, "tool": d})
                    } else {
                        json!({"args": "INVALID_ARGS", "tool": "LIMIT"})
                    };
                    assert_eq!(r.value, expected, "{what}");
                    // A return value of depth d.
                    let t0 = Instant::now();
                    let r = pool.execute_blocking(
                        &format!("let v = 1; for (let i = 0; i < {d}; i++) v = [v]; return v"),
                        bridge.clone(),
                    );
                    assert!(t0.elapsed() < bound, "{what}: took {:?}", t0.elapsed());
                    assert_never_broken(&r, &what);
                    if fits {
                        assert_eq!(r.value, nest(d), "{what}: {:?}", r.error);
                    } else {
                        assert_eq!(
                            err_kind(&r),
                            Some(ErrorKind::Result),
                            "{what}: {:?}",
                            r.error
                        );
                    }
                }
                // No driver or worker thread was lost on the way.
                let same = eventually(|| pool.stats().live_threads == threads);
                assert!(
                    same,
                    "{backend}: {threads} threads before: {:?}",
                    pool.stats()
                );
                next_job_runs(&pool, backend);
                assert_clean(&pool);
            }
            eprintln!(
                "liveness: depths 1-200 through results, arguments and tool results on both \
                 backends; peak RSS of the process tree {:?} MiB (peak, rise)",
                rss.finish()
            );
        },
    );
}

#[test]
fn what_a_snippet_sends_is_bounded_outside_the_isolate_too() {
    in_own_process(
        "liveness::what_a_snippet_sends_is_bounded_outside_the_isolate_too",
        || {
            let limits = test_limits();
            let bound = answer_bound(&limits);
            // Members of the class "Rust-side memory that grows with what a
            // snippet sends": arguments of calls waiting for a slot (small nested
            // objects, ~60 KB each, under the argument cap), console output, and
            // lookups with oversized queries and ids.
            let cases = [
                (
                    "pending call arguments",
                    r#"
                    const arg = {items: Array.from({length: 20000}, () => ({}))};
                    const all = await Promise.allSettled(
                        Array.from({length: 100}, () => openclaw.tools.call('slow', arg)));
                    const done = all.filter(s => s.status === 'fulfilled').length;
                    const limited = all.filter(s => s.reason && s.reason.code === 'LIMIT').length;
                    return {done, limited};
                    "#,
                ),
                (
                    "console output",
                    r#"const s = 'x'.repeat(1 << 20); for (let i = 0; i < 200; i++) console.log(s); return 1"#,
                ),
                (
                    "oversized lookups",
                    r#"
                    const q = 'q'.repeat(1 << 20), id = 'i'.repeat(1 << 20);
                    let n = 0;
                    for (let i = 0; i < 100; i++) {
                        try { await openclaw.tools.search(q); } catch (e) { n++; }
                        try { await openclaw.tools.describe(id); } catch (e) { n++; }
                    }
                    return n;
                    "#,
                ),
            ];
            let mut peaks = Vec::new();
            for (backend, pool) in backends(limits) {
                next_job_runs(&pool, backend);
                let threads = pool.stats().live_threads;
                for (what, code) in cases {
                    let rss = PeakRss::start();
                    let t0 = Instant::now();
                    let r = pool.execute_blocking(code, FakeBridge::new());
                    let (peak, rise) = rss.finish();
                    let what = format!("{backend}, {what}");
                    assert!(t0.elapsed() < bound, "{what}: took {:?}", t0.elapsed());
                    assert!(r.ok, "{what}: {:?}", r.error);
                    if what.ends_with("pending call arguments") {
                        let (done, limited) =
                            (r.value["done"].as_u64(), r.value["limited"].as_u64());
                        assert_eq!(
                            done.zip(limited).map(|(a, b)| a + b),
                            Some(100),
                            "{what}: {}",
                            r.value
                        );
                        assert!(
                            limited > Some(0),
                            "{what}: nothing was held back: {}",
                            r.value
                        );
                    }
                    peaks.push(format!("{what}: peak {peak} MiB, +{rise} MiB"));
                    // Far below the ~600 MB one snippet could park before.
                    assert!(
                        rise < 200,
                        "{what}: the process tree's RSS rose {rise} MiB (peak {peak} MiB)"
                    );
                    next_job_runs(&pool, &what);
                }
                let same = eventually(|| pool.stats().live_threads == threads);
                assert!(
                    same,
                    "{backend}: {threads} threads before: {:?}",
                    pool.stats()
                );
                assert_clean(&pool);
            }
            eprintln!(
                "liveness: peak RSS of the process tree per case: {}",
                peaks.join("; ")
            );
        },
    );
}

/// A stand-in worker program (Python) that speaks the protocol and, for a job
/// whose code names a fault, breaks the pipe's rules that way; other jobs get
/// `1`. What the host does with lines it cannot read, with silence and with
/// death, whatever the worker is.
const FAKE_WORKER: &str = r#"
import json, os, sys, time
out = sys.stdout.buffer
def send(obj):
    out.write(json.dumps(obj).encode() + b"\n"); out.flush()
def stats():
    keys = ["searches", "describes", "calls", "rejected", "startup_us", "run_us", "queue_us",
            "bytes_in", "bytes_out", "logs_dropped"]
    s = {k: 0 for k in keys}
    s.update(engine="fake", prewarmed=False, called_ids=[])
    return s
sys.stdin.buffer.readline()
send({"ready": {"pid": os.getpid(), "forks": False}})
for line in sys.stdin.buffer:
    msg = json.loads(line)
    if "job" not in msg:
        continue
    job, fault = msg["job"]["job"], msg["job"]["code"].strip()
    if fault == "exit-before-start":
        os._exit(0)
    send({"started": {"job": job}})
    if fault == "deep":
        out.write(b'{"done":{"job":%d,"result":' % job + b"[" * 300 + b"]" * 300 + b"}}\n"); out.flush()
    elif fault == "not-utf8":
        out.write(b'{"done":{"job":%d,"result":"\xff\xfe"}}\n' % job); out.flush()
    elif fault == "not-json":
        out.write(b"hello\n"); out.flush()
    elif fault == "half-then-exit":
        out.write(b'{"done":{"job":%d,"res' % job); out.flush(); os._exit(3)
    elif fault == "half-then-silence":
        out.write(b'{"done":{"job":%d,"res' % job); out.flush(); time.sleep(3600)
    elif fault == "silence":
        time.sleep(3600)
    elif fault == "overlong":
        out.write(b"x" * (40 << 20) + b"\n"); out.flush(); time.sleep(3600)
    elif fault == "flood":
        for req in range(1, 100000):
            send({"request": {"job": job, "req": req, "op": {"search": {"query": "echo", "limit": 1}}}})
        time.sleep(3600)
    elif fault == "deaf":
        # Asks for calls with large answers and never reads them.
        for req in range(1, 61):
            send({"request": {"job": job, "req": req,
                              "op": {"call": {"id": "echo", "args": {"s": "x" * 100000}}}}})
        time.sleep(3600)
    elif fault == "exit":
        os._exit(0)
    elif fault == "request-then-exit":
        send({"request": {"job": job, "req": 1, "op": {"call": {"id": "echo", "args": {"once": True}}}}})
        os._exit(0)
    else:
        send({"done": {"job": job, "result": {"ok": True, "value": 1, "logs": [], "error": None,
                                              "stats": stats(), "calls": []}}})
"#;

#[test]
fn lines_the_host_cannot_read_silence_and_death_cost_one_job_not_a_driver() {
    in_own_process(
        "liveness::lines_the_host_cannot_read_silence_and_death_cost_one_job_not_a_driver",
        || {
            // The stand-in runs with an empty environment: its absolute path.
            let path = std::env::var_os("PATH").unwrap_or_default();
            let Some(python) = std::env::split_paths(&path)
                .map(|dir| dir.join("python3"))
                .find(|p| p.is_file())
            else {
                panic!("python3 is needed for the stand-in worker (the set-up installs it)");
            };
            let limits = Limits {
                deadline: Duration::from_secs(1),
                ..test_limits()
            };
            let pool = Pool::new(PoolConfig {
                workers: 1,
                queue: 16,
                limits: limits.clone(),
                isolation: toolsearch_sandbox::Isolation::Process(WorkerCommand {
                    program: python,
                    args: vec!["-c".into(), FAKE_WORKER.into()],
                }),
                ..PoolConfig::default()
            })
            .unwrap();
            let rss = PeakRss::start();
            let r = pool.execute_blocking("ok", FakeBridge::new());
            assert_eq!(r.value, json!(1), "{:?}", r.error);
            let drivers = pool.stats().live_threads;
            let unreadable = ["deep", "not-utf8", "not-json", "overlong", "flood"];
            for fault in [
                "deep",
                "not-utf8",
                "not-json",
                "half-then-exit",
                "half-then-silence",
                "silence",
                "overlong",
                "flood",
                "deaf",
                "exit",
                "request-then-exit",
                "exit-before-start",
            ] {
                let t0 = Instant::now();
                let bridge = FakeBridge::new();
                let r = pool.execute_blocking(fault, bridge.clone());
                // A worker that died once it had taken the job is the job's
                // failure: never run again (a tool called twice). One that died
                // before taking it (here: each time) is tried on a fresh worker,
                // once.
                if fault == "request-then-exit" {
                    assert!(bridge.runs("echo") <= 1, "{fault}: the job ran twice");
                }
                let took = t0.elapsed();
                assert!(took < answer_bound(&limits), "{fault}: took {took:?}");
                let kind = err_kind(&r);
                // Silence ends at the deadline; a fault that takes volume
                // (40 MB, a flood, sixty 100 KB answers) ends the worker as
                // soon as it is seen, or at the deadline on a loaded machine;
                // the others at once.
                let expected: &[ErrorKind] = if fault.contains("silence") {
                    &[ErrorKind::Timeout]
                } else if ["overlong", "flood", "deaf"].contains(&fault) {
                    &[ErrorKind::Crashed, ErrorKind::Timeout]
                } else {
                    &[ErrorKind::Crashed]
                };
                assert!(
                    kind.is_some_and(|k| expected.contains(&k)),
                    "{fault}: {:?}",
                    r.error
                );
                if unreadable.contains(&fault)
                    && kind == Some(ErrorKind::Crashed)
                    && fault != "flood"
                {
                    assert!(
                        err_msg(&r).contains("cannot read"),
                        "{fault}: {}",
                        err_msg(&r)
                    );
                }
                // The worker was replaced: the next job runs at once.
                next_job_answers(&pool, &format!("after {fault}"), "ok", json!(1));
                assert_eq!(
                    pool.stats().live_threads,
                    drivers,
                    "after {fault}: {:?}",
                    pool.stats()
                );
                assert!(
                    eventually(|| pool.stats().live_processes <= 2),
                    "after {fault}: {:?}",
                    pool.stats()
                );
            }
            eprintln!(
                "liveness: 12 pipe faults (unreadable, half-written, silent, flooding, deaf, \
                 dead workers), each one job's error; peak RSS of the process tree {:?} MiB (peak, rise)",
                rss.finish()
            );
            assert!(pool.shutdown(HANG_GUARD), "{:?}", pool.stats());
        },
    );
}

/// Issue 30, item 5, on every backend: a call that waits 1.5 s for a person
/// inside a 1 s snippet completes; a snippet that spins while it waits is
/// stopped at its deadline; the timeout message counts only the snippet's time.
fn approvals_pause_the_deadline(pool: &Pool, path: &str) {
    let limits = Limits {
        deadline: Duration::from_millis(1000),
        ..Limits::default()
    };
    let r = pool.execute_blocking_with(
        r#"const a = await openclaw.tools.call("approve", {ms: 1500}); return a;"#,
        FakeBridge::new(),
        limits.clone(),
    );
    assert_eq!(r.value, json!("approved"), "{path}: {:?}", r.error);
    let t0 = Instant::now();
    let r = pool.execute_blocking_with(
        r#"openclaw.tools.call("approve", {ms: 6000}); for (;;) {}"#,
        FakeBridge::new(),
        limits.clone(),
    );
    let took = t0.elapsed();
    assert_eq!(
        err_kind(&r),
        Some(ErrorKind::Timeout),
        "{path}: {:?}",
        r.error
    );
    assert!(
        took < Duration::from_secs(6),
        "{path}: the spin ran {took:?}"
    );
    // Idle 1.2 s in an approval, then spinning: stopped after about 1 s of its
    // own time, and the message says the wait did not count.
    let r = pool.execute_blocking_with(
        r#"await openclaw.tools.call("approve", {ms: 1200}); for (;;) {}"#,
        FakeBridge::new(),
        limits,
    );
    assert_eq!(
        err_kind(&r),
        Some(ErrorKind::Timeout),
        "{path}: {:?}",
        r.error
    );
    assert!(
        err_msg(&r).contains("waiting for approvals not counted"),
        "{path}: {}",
        err_msg(&r)
    );
    next_job_runs(pool, path);
}

#[test]
fn approvals_pause_the_deadline_on_threads() {
    approvals_pause_the_deadline(&pool(1), "threads");
}

#[test]
fn approvals_pause_the_deadline_on_the_fork_path() {
    approvals_pause_the_deadline(&process_pool(1, test_limits()), "fork");
}

#[test]
fn approvals_pause_the_deadline_in_a_worker_that_does_not_fork() {
    in_own_process(
        "liveness::approvals_pause_the_deadline_in_a_worker_that_does_not_fork",
        || {
            // Read by `PoolConfig::default()`; this process runs one test.
            std::env::set_var("TOOLSEARCH_SANDBOX_FORK", "0");
            approvals_pause_the_deadline(&process_pool(1, test_limits()), "no fork");
        },
    );
}
