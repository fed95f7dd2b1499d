//! Issue 14's containment classes 1-7 and the OS layer under the isolate: each
//! class with several members, on both backends where it applies; each checks
//! that the pool answers the next job, and the memory classes print the peak RSS.

use std::time::Instant;

use serde_json::json;
use toolsearch_sandbox::{ErrorKind, ExecResult, Limits, Pool};

use crate::common::*;

/// Runs `code` with `l` and then a benign job on the same pool, which must answer.
fn run_then_next(pool: &Pool, code: &str, l: &Limits) -> ExecResult {
    let t0 = Instant::now();
    let r = pool.execute_blocking_with(code, FakeBridge::new(), l.clone());
    let took = t0.elapsed();
    // Answered, not left running (a guard against a hang, not a speed claim).
    assert!(took <= answer_bound(l), "{code}: answered after {took:?}");
    let next = pool.execute_blocking_with("return 40 + 2", FakeBridge::new(), test_limits());
    assert_eq!(
        next.value,
        json!(42),
        "next job after {code}: {:?}",
        next.error
    );
    r
}

/// Peak resident memory of this process (VmHWM), in MiB.
fn peak_rss_mib() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or(0)
        >> 10
}

/// Native loops over a length the sandbox refuses to walk: a RangeError, on
/// either backend, and the worker serves the next job.
const LONG_WALKS: &[&str] = &[
    "return Array.prototype.indexOf.call({length: 2**53-1}, 1)",
    "return Array.prototype.includes.call({length: 2**40}, 1)",
    "return Array.prototype.lastIndexOf.call({length: 2**53-1}, 1)",
    "return new Array(2**32-1).join()",
    "new Array(2**32-1).forEach(() => {}); return 1",
    "return Array.prototype.reverse.call({length: 2**53-1})",
    "return [].concat.call({length: 2**53-1}).length",
];

#[test]
fn c01_native_walks_past_the_heap_are_refused_on_threads() {
    let pool = pool(1);
    let l = runaway_limits();
    for code in LONG_WALKS {
        let r = run_then_next(&pool, code, &l);
        assert_eq!(
            err_kind(&r),
            Some(ErrorKind::Script),
            "{code}: {:?}",
            r.error
        );
        assert!(
            err_msg(&r).contains("longer than the sandbox walks"),
            "{code}: {}",
            err_msg(&r)
        );
    }
    assert_eq!(pool.stats().wedged_workers, 0);
}

/// Members no JS-level guard sees (a `length` getter that lies on its second
/// read, a quadratic string search): they end at the deadline on the process
/// backend. The first now stops at the watchdog's termination (the element
/// walks poll: engine patch 0008); the string search still cannot be
/// interrupted, and the process backend kills the job's process.
const UNGUARDED: &[&str] = &[
    "let n = 0; const o = {get length() { return n++ ? 2**53-1 : 0 }}; return Array.prototype.indexOf.call(o, 1)",
    "const s = 'a'.repeat(2**24); return s.indexOf('a'.repeat(2**12) + 'b')",
];

#[test]
fn c01_native_loops_are_killed_on_processes() {
    let l = runaway_limits();
    let pool = process_pool(1, l.clone());
    for code in LONG_WALKS {
        let r = run_then_next(&pool, code, &l);
        assert_eq!(
            err_kind(&r),
            Some(ErrorKind::Script),
            "{code}: {:?}",
            r.error
        );
    }
    for code in UNGUARDED {
        let r = run_then_next(&pool, code, &l);
        assert_eq!(
            err_kind(&r),
            Some(ErrorKind::Timeout),
            "{code}: {:?}",
            r.error
        );
    }
}

#[test]
fn c01_a_wedged_thread_worker_is_replaced_and_counted() {
    // Its own process: the wedged thread spins until that process ends.
    in_own_process(
        "containment::c01_a_wedged_thread_worker_is_replaced_and_counted",
        || {
            let pool = pool(1);
            let l = runaway_limits();
            // The string search: a built-in that never polls for termination.
            let r = run_then_next(&pool, UNGUARDED[1], &l);
            assert_eq!(err_kind(&r), Some(ErrorKind::Timeout), "{:?}", r.error);
            // Declared wedged once it has not answered for WEDGE_CONFIRM more.
            let t0 = std::time::Instant::now();
            let mut s = pool.stats();
            while s.replaced_workers == 0 && t0.elapsed() < HANG_GUARD {
                std::thread::sleep(std::time::Duration::from_millis(50));
                s = pool.stats();
            }
            assert_eq!((s.wedged_workers, s.replaced_workers), (1, 1), "{s:?}");
            // A queued job has a deadline too: the replacement serves it.
            let again = pool.execute_blocking_with("return 7", FakeBridge::new(), test_limits());
            assert_eq!(again.value, json!(7));
        },
    );
}

/// Allocation paths that once grew past the heap limit (the limit doubled while
/// termination was pending) or past the ArrayBuffer budget (copies made inside
/// the engine): all stop with a memory error, and RSS stays bounded.
const ALLOCATIONS: &[&str] = &[
    "const k = []; for (let i = 0; i < 40; i++) k.push(Array.from({length: 2**22})); return k.length",
    "const k = []; for (let i = 0; i < 400; i++) k.push('x'.repeat(2**20) + i); return k.length",
    "const k = []; for (let i = 0; i < 40; i++) k.push(new Array(2**22).fill(i)); return k.length",
    "const src = new Uint8Array(8 << 20); const k = []; for (let i = 0; i < 100; i++) k.push(new Uint8Array(src)); return k.length",
    "const src = new Uint8Array(8 << 20); const k = []; for (let i = 0; i < 100; i++) k.push(src.slice()); return k.length",
    "const src = new Uint8Array(8 << 20); const k = []; for (let i = 0; i < 100; i++) k.push(Uint8Array.from(src)); return k.length",
    "const src = new Uint8Array(8 << 20); const k = []; for (let i = 0; i < 100; i++) k.push(src.buffer.slice(0)); return k.length",
    "const src = new Float64Array(1 << 20); const k = []; for (let i = 0; i < 100; i++) k.push(src.map(x => x + 1)); return k.length",
    "const src = new Uint8Array(8 << 20); const k = []; for (let i = 0; i < 100; i++) k.push(src.toReversed()); return k.length",
];

#[test]
fn c02_c03_allocations_stop_at_the_heap_limit_on_threads() {
    in_own_process(
        "containment::c02_c03_allocations_stop_at_the_heap_limit_on_threads",
        || {
            let pool = pool(1);
            // Only the heap limit may stop these: a deadline that guards a hang.
            let l = test_limits();
            let before = peak_rss_mib();
            for code in ALLOCATIONS {
                let r = run_then_next(&pool, code, &l);
                assert!(
                    matches!(err_kind(&r), Some(ErrorKind::Memory)),
                    "{code}: {:?} {:?}",
                    r.value,
                    r.error
                );
            }
            let peak = peak_rss_mib();
            eprintln!("containment: allocation classes, peak RSS {peak} MiB (before {before} MiB)");
            // 64 MiB heap + 16 MiB headroom + 1/8 engine slack + 16 MiB of buffers.
            assert!(
                peak < before + 260,
                "peak RSS {peak} MiB, before {before} MiB"
            );
        },
    );
}

#[test]
fn c02_c03_allocations_stop_at_the_heap_limit_on_processes() {
    let l = test_limits();
    let pool = process_pool(1, l.clone());
    for code in &ALLOCATIONS[..5] {
        let r = run_then_next(&pool, code, &l);
        assert_eq!(
            err_kind(&r),
            Some(ErrorKind::Memory),
            "{code}: {:?}",
            r.error
        );
    }
}

#[test]
fn c04_intrinsics_the_glue_reads_cannot_be_replaced() {
    for (how, code) in [
        ("assign", "Function.prototype.call = function (...a) { leaked.push(typeof this); return 1 }"),
        ("define", "Object.defineProperty(Function.prototype, 'call', {value() { leaked.push(typeof this) }})"),
        ("reflect", "if (!Reflect.set(Function.prototype, 'call', function () { leaked.push(typeof this) })) throw new TypeError('refused')"),
        ("apply", "Function.prototype.apply = function () { leaked.push(typeof this) }"),
        ("bind", "Function.prototype.bind = function () { leaked.push(typeof this) }"),
        ("delete", "if (!delete Function.prototype.call) throw new TypeError('refused')"),
    ] {
        let snippet = format!(
            "const leaked = []; let refused = false; try {{ {code} }} catch (e) {{ refused = e instanceof TypeError }}
             const r = await openclaw.tools.call('echo', {{x: 1}});
             return {{refused, leaked, r}}"
        );
        let r = run(&snippet);
        assert!(r.ok, "{how}: {:?}", r.error);
        assert_eq!(r.value["refused"], json!(true), "{how}: {}", r.value);
        assert_eq!(r.value["leaked"], json!([]), "{how}: {}", r.value);
        assert_eq!(r.value["r"]["x"], json!(1), "{how}: {}", r.value);
    }
}

#[test]
fn c05_what_is_emitted_stays_within_the_caps() {
    let l = test_limits();
    let bound = 2 * l.result_bytes + l.log_bytes + (64 << 10);
    for code in [
        // 65,536 empty log lines
        "for (let i = 0; i < 65536; i++) console.log(''); return 1",
        // control characters escape to six bytes each
        "for (let i = 0; i < 1000; i++) console.log('\\x01'.repeat(1000)); return 1",
        // a deep value near the result cap
        "let v = 'x'.repeat(200000); for (let i = 0; i < 120; i++) v = [v]; return v",
        // C1 controls in the value count at their escaped size
        "return '\\u009b'.repeat(100000)",
        // arguments echoed into the call records
        "const a = 'y'.repeat(200000); for (let i = 0; i < 100; i++) await openclaw.tools.call('echo', {a}); return 1",
    ] {
        let r = run(code);
        let compact = serde_json::to_string(&r).unwrap().len();
        assert!(compact <= bound, "{code}: {compact} bytes emitted, bound {bound}");
    }
    let r = run("for (let i = 0; i < 65536; i++) console.log(''); return 1");
    assert!(
        r.logs.len() < 2000 && r.stats.logs_dropped > 60000,
        "{} lines",
        r.logs.len()
    );
    let r = run("return '\\u009b'.repeat(100000)");
    assert_eq!(err_kind(&r), Some(ErrorKind::Result), "{:?}", r.error);
}

#[test]
fn c06_snippets_run_as_written_or_not_at_all() {
    for code in [
        "return 'import.defer(x)'",
        "return \"a import.source('m')\"",
        "// import.defer(\nreturn 1",
    ] {
        let r = run(code);
        assert_eq!(
            err_kind(&r),
            Some(ErrorKind::Script),
            "{code}: {:?}",
            r.value
        );
        assert!(err_msg(&r).contains("rewrites"), "{code}: {}", err_msg(&r));
    }
    // Split, the same text runs unchanged.
    let r = run("return 'import' + '.defer(x)'");
    assert_eq!(r.value, json!("import.defer(x)"));
    // v8x's `%Name(` test-hook rewrites are off (patch 0011): text stays text.
    for text in [
        "%OptimizeFunctionOnNextCall(f)",
        "%PrepareFunctionForOptimization(f)",
    ] {
        let r = run(&format!("return `{text}`"));
        assert_eq!(r.value, json!(text), "{:?}", r.error);
    }
    // The allowlist holds after compilation: nothing the engine added survives.
    let r = run("return Object.getOwnPropertyNames(globalThis).filter(k => k.startsWith('__'))");
    assert_eq!(r.value, json!([]), "{:?}", r.error);
}

#[test]
fn c07_terminal_controls_are_counted_escaped() {
    // The value keeps its characters (it is data); every emitted form escapes
    // them (the CLI's tests check the bytes), so budgets count them escaped.
    let r = run("console.log('\\u009b31m\\u202e\\u2066\\u0085'); return '\\u009b'");
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(r.value, json!("\u{9b}"));
    assert!(toolsearch_sandbox::is_unsafe_char('\u{9b}'));
    for c in [
        '\u{202E}',
        '\u{2066}',
        '\u{85}',
        '\u{1b}',
        '\u{E0041}',
        '\u{2028}',
    ] {
        assert!(toolsearch_sandbox::is_unsafe_char(c), "{c:?}");
    }
}

/// The OS layer, from inside a worker where a job would run: every forbidden
/// call (and every signal, limit or priority aimed at another process) kills
/// that process (a `crashed` error naming SIGSYS, 31 on x86_64 and
/// aarch64), the limits are in place, the environment is empty, and the pool
/// serves the next job.
#[allow(unsafe_code)] // reads the host's own limit and priority
fn os_layer(pool: &Pool) {
    // The self-test `what` killed its process with SIGSYS.
    let killed = |what: &str| {
        let r = pool.self_test(what);
        assert_eq!(
            err_kind(&r),
            Some(ErrorKind::Crashed),
            "{what}: {:?}",
            r.value
        );
        let m = err_msg(&r);
        assert!(m.contains("died") && m.contains("31"), "{what}: {m}");
    };
    for what in [
        "socket", "connect", "execve", "open", "openat", "ptrace", "unshare",
    ] {
        killed(what);
    }
    // Signals, limits and priorities aimed at the host or at the job's parent
    // (the zygote on the fork path, the host otherwise): the job's process
    // dies, and the host's limits and priority are what they were.
    let host = std::process::id();
    let host_state = || {
        let mut files = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: plain reads of this process's own limit and priority.
        unsafe {
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut files);
            *libc::__errno_location() = 0;
            let nice = libc::getpriority(libc::PRIO_PROCESS, 0);
            (files.rlim_cur, files.rlim_max, nice)
        }
    };
    let before = host_state();
    for target in [host.to_string(), "parent".to_owned()] {
        for call in ["tgkill", "prlimit", "setpriority"] {
            killed(&format!("{call}:{target}"));
        }
    }
    assert_eq!(
        host_state(),
        before,
        "the host's limits or priority changed"
    );
    let r = pool.self_test("limits");
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(r.value["files"], json!(64), "{}", r.value);
    assert_eq!(r.value["core"], json!(0), "{}", r.value);
    assert!(r.value["data"].as_u64().unwrap() < 1 << 30, "{}", r.value);
    for name in r.value["env"].as_array().unwrap() {
        let name = name.as_str().unwrap();
        assert!(
            ["V82JSC_NO_BC_CACHE", "QJS_NO_WASM"].contains(&name),
            "the worker inherited {name}"
        );
    }
    let next = pool.execute_blocking("return 42", FakeBridge::new());
    assert_eq!(next.value, json!(42), "{:?}", next.error);
}

#[test]
fn os_layer_holds_on_the_fork_path() {
    os_layer(&process_pool(1, test_limits()));
}

#[test]
fn os_layer_holds_on_the_in_process_path() {
    in_own_process("containment::os_layer_holds_on_the_in_process_path", || {
        // Read by `PoolConfig::default()`; this process runs one test.
        std::env::set_var("TOOLSEARCH_SANDBOX_FORK", "0");
        os_layer(&process_pool(1, test_limits()));
    });
}
