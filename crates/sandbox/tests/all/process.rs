//! Isolation::Process: the same snippets in supervised worker processes, which
//! fork a copy of one template isolate per job (Linux), are renewed now and then
//! and killed on overrun.

use std::time::{Duration, Instant};

use serde_json::json;
use toolsearch_sandbox::{CallStatus, ErrorKind, JOBS_PER_FORKING_PROCESS};

use crate::common::*;

#[test]
fn happy_path_and_bridge_errors_cross_the_process_boundary() {
    let pool = process_pool(1, test_limits());
    pool.probe().expect("worker process starts");
    let bridge = FakeBridge::new();
    let r = pool.execute_blocking(
        r#"
        console.log("in a child");
        const hits = await openclaw.tools.search("echo", {limit: 3});
        const d = await openclaw.tools.describe(hits[0].id);
        const out = await openclaw.tools.call(d.id, {msg: "hi"});
        let err; try { await openclaw.tools.call("nope", {}); } catch (e) { err = e.code; }
        let big; try { await openclaw.tools.call("big", {}); } catch (e) { big = e.code; }
        return {out, err, big, n: hits.length};
    "#,
        bridge.clone(),
    );
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(
        r.value,
        json!({"out": {"msg": "hi"}, "err": "UNKNOWN_TOOL", "big": "LIMIT", "n": 1})
    );
    assert_eq!(r.logs[0].text, "in a child");
    assert_eq!(
        (r.stats.searches, r.stats.describes, r.stats.calls),
        (1, 1, 3)
    );
    assert_eq!(bridge.runs("echo"), 1);
    assert_clean(&pool);
}

#[test]
fn overrun_kills_the_process_cancels_the_tool_and_the_next_job_runs() {
    let pool = process_pool(1, test_limits());
    pool.probe().expect("worker process starts");
    let bridge = FakeBridge::new();
    let t0 = Instant::now();
    let r = pool.execute_blocking_with(r#"await openclaw.tools.call("echo", {a: 1}); await openclaw.tools.call("hang", {}); return 1"#, bridge.clone(), runaway_limits());
    // Time from when a worker took the job: other tests share the pool's workers.
    let took = t0
        .elapsed()
        .saturating_sub(Duration::from_micros(r.stats.queue_us));
    assert_eq!(err_kind(&r), Some(ErrorKind::Timeout), "{:?}", r.error);
    // Killed, not left running (a guard against a hang, not a speed claim).
    assert!(took < answer_bound(&runaway_limits()), "took {took:?}");
    assert!(
        r.calls
            .iter()
            .any(|c| c.id == "echo" && c.status == CallStatus::Ok),
        "{:?}",
        r.calls
    );
    assert!(
        eventually(|| bridge.cancelled.load(std::sync::atomic::Ordering::SeqCst) == 1),
        "cancellation did not fire"
    );
    for code in ["for(;;){}", "const a = []; for(;;) a.push({x: 1})"] {
        let r = pool.execute_blocking_with(code, FakeBridge::new(), runaway_limits());
        assert!(!r.ok);
    }
    let r = pool.execute_blocking("return 6 * 7", FakeBridge::new());
    assert_eq!(r.value, json!(42), "{:?}", r.error);
    assert_clean(&pool);
}

#[test]
fn r33_thousand_sequential_jobs_memory_stays_bounded() {
    // Its own process: the RSS samples count every child of the test process.
    in_own_process(
        "process::r33_thousand_sequential_jobs_memory_stays_bounded",
        || {
            let pool = process_pool(1, test_limits());
            let mut samples = Vec::new();
            let t0 = Instant::now();
            for i in 0..1000u64 {
                let r = pool.execute_blocking(&format!("return {i} * 2"), FakeBridge::new());
                assert!(r.ok, "{i}: {:?}", r.error);
                assert_eq!(r.value, json!(i * 2));
                assert!(pool.stats().live_processes <= 2, "{:?}", pool.stats());
                if i % 100 == 99 {
                    samples.push(rss_kib_children());
                }
            }
            let secs = t0.elapsed().as_secs_f64();
            eprintln!(
                "r33 (process mode): 1000 sequential jobs in {secs:.1} s ({:.0}/s), a forked copy of the template per job, worker renewed every {JOBS_PER_FORKING_PROCESS} jobs; worker processes' RSS every 100 jobs (KiB): {samples:?}",
                1000.0 / secs
            );
            // Bounded: the last samples are no higher than the early ones plus one process's worth.
            let early = samples[..3].iter().copied().max().unwrap();
            let late = samples[samples.len() - 3..].iter().copied().max().unwrap();
            assert!(late < early + 200 * 1024, "RSS keeps growing: {samples:?}");
            assert_clean(&pool);
        },
    );
}

#[test]
fn each_job_gets_an_untouched_copy_of_the_template() {
    let pool = process_pool(1, test_limits());
    pool.probe().expect("worker process starts");
    let taint = r#"
        globalThis.leak = "secret";
        try { Object.prototype.polluted = 1; } catch {}
        try { Array.prototype.push = null; } catch {}
        try { openclaw.tools.search = () => "hijacked"; } catch {}
        return 1;
    "#;
    let probe = r#"
        return [typeof globalThis.leak, ({}).polluted === undefined, typeof [].push,
                typeof (await openclaw.tools.search("echo"))];
    "#;
    for _ in 0..3 {
        let r = pool.execute_blocking(taint, FakeBridge::new());
        assert!(r.ok, "{:?}", r.error);
        let r = pool.execute_blocking(probe, FakeBridge::new());
        assert!(r.ok, "{:?}", r.error);
        assert_eq!(r.value, json!(["undefined", true, "function", "object"]));
        // The job ran in a copy of an isolate made before any job: nothing to create.
        assert!(r.stats.prewarmed, "{:?}", r.stats);
    }
    assert_clean(&pool);
}

/// CPU time (user + system, in clock ticks) a process has used so far.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // After "pid (comm) ": state is field 3; utime and stime are fields 14 and 15.
    let Some((_, after)) = stat.rsplit_once(')') else {
        return 0;
    };
    let f: Vec<&str> = after.split_whitespace().collect();
    let field = |n: usize| {
        f.get(n - 3)
            .and_then(|x| x.parse::<u64>().ok())
            .unwrap_or(0)
    };
    field(14) + field(15)
}

/// Pids of the processes whose parent is `parent`.
fn children_of(parent: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| {
        let pid: u32 = e.ok()?.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // `pid (comm) state ppid ...`; comm may hold spaces, so read after the last ')'.
        let ppid: u32 = stat
            .rsplit_once(')')?
            .1
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()?;
        (ppid == parent).then_some(pid)
    })
    .collect()
}

#[test]
fn a_snippet_process_that_dies_takes_only_its_own_job() {
    // Its own process: it kills the grandchildren of the test process.
    in_own_process(
        "process::a_snippet_process_that_dies_takes_only_its_own_job",
        || {
            let pool = process_pool(1, test_limits());
            pool.probe().expect("worker process starts");
            let me = std::process::id();
            let killer = std::thread::spawn(move || {
                let t0 = Instant::now();
                while t0.elapsed() < HANG_GUARD {
                    // The worker process is our child; the snippet's process is its
                    // child, the one burning CPU (a standby child forked ahead of the
                    // next job idles).
                    for worker in children_of(me) {
                        let running = children_of(worker)
                            .into_iter()
                            .find(|p| cpu_ticks(*p) >= 10);
                        if let Some(snippet) = running {
                            let killed = std::process::Command::new("kill")
                                .args(["-9", &snippet.to_string()])
                                .status()
                                .is_ok_and(|s| s.success());
                            return killed;
                        }
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                false
            });
            let r = pool.execute_blocking("for (;;) {}", FakeBridge::new());
            assert!(
                killer.join().unwrap(),
                "no snippet process was found to kill"
            );
            assert_eq!(err_kind(&r), Some(ErrorKind::Crashed), "{:?}", r.error);
            let message = r
                .error
                .as_ref()
                .map(|e| e.message.clone())
                .unwrap_or_default();
            assert!(
                message.contains("died") && message.contains("signal 9"),
                "{message}"
            );
            // The worker process survived: the next job runs on it.
            let r = pool.execute_blocking("return 6 * 7", FakeBridge::new());
            assert_eq!(r.value, json!(42), "{:?}", r.error);
            assert!(pool.stats().live_processes <= 2, "{:?}", pool.stats());
            assert_clean(&pool);
        },
    );
}

#[test]
fn a_forked_job_sees_only_the_scrubbed_globals() {
    // The template is bootstrapped cold, not restored from the snapshot: the
    // scrub must leave the same allowlist either way.
    let pool = process_pool(1, test_limits());
    let r = pool.execute_blocking(
        r#"
        let ev; try { eval("1"); ev = "ran"; } catch (e) { ev = e.name; }
        return [Object.getOwnPropertyNames(globalThis), typeof Deno, typeof __bootstrap, ev];
    "#,
        FakeBridge::new(),
    );
    assert!(r.ok, "{:?}", r.error);
    let names = r.value[0].as_array().unwrap();
    for n in names {
        let n = n.as_str().unwrap();
        assert!(
            crate::security::ALLOWED_GLOBALS.contains(&n),
            "unexpected global {n}"
        );
    }
    assert!(names.contains(&json!("openclaw")), "{names:?}");
    assert_eq!(
        r.value.as_array().unwrap()[1..],
        [json!("undefined"), json!("undefined"), json!("EvalError")]
    );
    assert_clean(&pool);
}

#[test]
fn a_caller_that_stops_waiting_ends_the_job_and_its_calls() {
    // A long deadline: only the caller's cancellation can end these jobs early.
    let limits = toolsearch_sandbox::Limits {
        deadline: Duration::from_secs(60),
        ..test_limits()
    };
    let deadline = limits.deadline;
    let pool = process_pool(1, limits);
    pool.probe().expect("worker process starts");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for code in [
        "while (true) {}",
        r#"await openclaw.tools.call("hang", {}); return 1"#,
    ] {
        let bridge = FakeBridge::new();
        let t0 = Instant::now();
        rt.block_on(async {
            let run = pool.execute(code, bridge.clone());
            assert!(tokio::time::timeout(Duration::from_millis(300), run)
                .await
                .is_err());
            // The one worker is free again long before the 60 s deadline.
            let next = pool.execute("return 7", FakeBridge::new()).await;
            assert_eq!(next.value, json!(7), "{code}: {:?}", next.error);
        });
        // Relative to the deadline: the cancellation ended the job, not the deadline.
        assert!(t0.elapsed() < deadline / 3, "{code}: {:?}", t0.elapsed());
        if code.contains("hang") {
            assert_eq!(
                bridge.cancelled.load(std::sync::atomic::Ordering::SeqCst),
                1
            );
        }
    }
    assert_clean(&pool);
}
