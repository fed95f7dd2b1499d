//! Issue 41: the engine never frees or resizes memory it did not allocate, every
//! job starts with fresh engine state, allocation failures are real errors, and
//! one job's damage stays that job's. Each case runs in a test process of its own
//! (the worker's settings are read from the host's environment) on both worker
//! paths: the fork path (a forked copy of the template per job) and the
//! in-process path (`TOOLSEARCH_SANDBOX_FORK=0`), with glibc's heap checking on
//! in the job processes (`HEAP_CHECK_VAR`): a heap overflow or a bad free aborts
//! the job's process instead of going unseen. `docs/engine-patches.md` lists the
//! engine paths these cases cover.

use std::collections::HashSet;

use serde_json::{json, Value};
use toolsearch_sandbox::{ErrorKind, ExecResult, Pool, HEAP_CHECK_VAR};

use crate::common::*;

/// Which worker path a case runs on.
#[derive(Clone, Copy, Debug)]
enum Path {
    Fork,
    InProcess,
}

/// Runs `body` in a test process of its own (named `test`), with a one-worker
/// process pool on `path` whose job processes check their heap.
fn on_path(test: &str, path: Path, body: impl FnOnce(&Pool)) {
    in_own_process(test, || {
        // Read by the host when it starts a worker (the heap checking) and by
        // `PoolConfig::default()` (forking); this process runs one test.
        std::env::set_var(HEAP_CHECK_VAR, "1");
        if let Path::InProcess = path {
            std::env::set_var("TOOLSEARCH_SANDBOX_FORK", "0");
        }
        body(&process_pool(1, test_limits()));
    });
}

fn ok_value(pool: &Pool, code: &str) -> Value {
    let r = pool.execute_blocking(code, FakeBridge::new());
    assert!(r.ok, "{:?}\ncode: {code}", r.error);
    r.value
}

/// Jobs a case runs after its own: the worker that ran it still answers them,
/// with fresh state (another client's jobs, in the gateway).
const INNOCENT: &[(&str, &str)] = &[
    ("return [1, 2, 3].map((x) => x * 2).join()", "2,4,6"),
    (
        "const u = new Uint8Array(new ArrayBuffer(1 << 16)); u.fill(3); return String(u.reduce((a, b) => a + b, 0))",
        "196608",
    ),
    ("return JSON.stringify({a: [1, {b: 2}]})", r#"{"a":[1,{"b":2}]}"#),
];

fn innocent_jobs_follow(pool: &Pool) {
    for (code, want) in INNOCENT {
        assert_eq!(ok_value(pool, code), json!(want), "after: {code}");
    }
}

/// One member of the class "a path where the engine allocates, resizes,
/// transfers, detaches or frees an ArrayBuffer's store": its snippet returns
/// `want`, the job process's heap checking finds nothing, and innocent jobs
/// follow on the same worker.
fn member(test: &str, path: Path, code: &str, want: Value) {
    on_path(test, path, |pool| {
        let r = pool.execute_blocking(code, FakeBridge::new());
        assert!(r.ok, "{path:?}: {:?}\ncode: {code}", r.error);
        assert_eq!(r.value, want, "{path:?}\ncode: {code}");
        innocent_jobs_follow(pool);
    });
}

macro_rules! members {
    ($($name:ident: $code:expr => $want:expr;)*) => {
        mod fork_path {
            use super::*;
            $(#[test]
            fn $name() {
                member(
                    concat!("engine_memory::fork_path::", stringify!($name)),
                    Path::Fork,
                    $code,
                    $want,
                );
            })*
        }
        mod in_process {
            use super::*;
            $(#[test]
            fn $name() {
                member(
                    concat!("engine_memory::in_process::", stringify!($name)),
                    Path::InProcess,
                    $code,
                    $want,
                );
            })*
        }
    };
}

members! {
    a_new_buffer_is_the_budget_allocator_s:
        "const b = new ArrayBuffer(4096); const u = new Uint8Array(b); u[4095] = 7; \
         return [b.byteLength, u[4095]];"
        => json!([4096, 7]);
    transfer_to_a_longer_length_copies_into_a_new_store:
        "const k = []; \
         for (let i = 0; i < 300; i++) { \
           const a = new ArrayBuffer(1024); new Uint8Array(a)[1023] = i & 255; k.push(a.transfer(4096)); \
         } \
         const last = new Uint8Array(k[299]); \
         return [k.length, k[0].byteLength, last[1023], last[4095], k.every((b) => b.byteLength === 4096)];"
        => json!([300, 4096, 43, 0, true]);
    transfer_to_a_shorter_length_copies_into_a_new_store:
        "const a = new ArrayBuffer(4096); const u = new Uint8Array(a); u[15] = 5; u[16] = 6; \
         const t = a.transfer(16); \
         return [a.detached, u.length, t.byteLength, new Uint8Array(t)[15]];"
        => json!([true, 0, 16, 5]);
    transfer_at_the_same_length_moves_the_store_with_its_owner:
        // The detached source is released first; spending the whole budget then
        // gives back every store released (and reuses the memory): a store freed
        // under the transferred buffer would show the junk's bytes. Then the
        // transferred buffer is dropped too: its store goes back to the budget
        // (it had no owner, and stayed counted for good).
        "let a = new ArrayBuffer(1 << 20); new Uint8Array(a)[7] = 42; \
         let t = a.transfer(); a = null; \
         const junk = []; \
         try { for (;;) junk.push(new ArrayBuffer(1 << 20)); } catch (e) {} \
         junk.forEach((j) => new Uint8Array(j).fill(0xee)); \
         const seen = [t.byteLength, new Uint8Array(t)[7], junk.length]; \
         junk.length = 0; t = null; \
         const again = []; \
         try { for (;;) again.push(new ArrayBuffer(1 << 20)); } catch (e) {} \
         return [...seen, again.length];"
        => json!([1 << 20, 42, 15, 16]);
    transfer_to_fixed_length_at_every_length:
        "const out = []; \
         for (const n of [8, 64, 32]) { \
           const a = new ArrayBuffer(32); new Uint8Array(a)[0] = n; \
           const t = a.transferToFixedLength(n); \
           out.push(t.byteLength, new Uint8Array(t)[0], t.resizable); \
         } \
         return out;"
        => json!([8, 8, false, 64, 64, false, 32, 32, false]);
    transfer_to_immutable_at_a_new_length:
        "const a = new ArrayBuffer(16); new Uint8Array(a)[3] = 9; \
         const t = a.transferToImmutable(64); \
         try { new Uint8Array(t)[3] = 1; } catch (e) {} \
         return [t.byteLength, t.immutable, new Uint8Array(t)[3], a.detached];"
        => json!([64, true, 9, true]);
    transfer_to_zero_frees_the_store:
        "const a = new ArrayBuffer(64); const t = a.transfer(0); \
         return [a.detached, t.byteLength, t.detached];"
        => json!([true, 0, false]);
    views_of_a_transferred_buffer_see_it_detached:
        "const a = new ArrayBuffer(64); const u = new Uint8Array(a); const d = new DataView(a); \
         a.transfer(128); \
         let e1 = null; try { d.getUint8(0); } catch (e) { e1 = e.constructor.name; } \
         return [u.length, u[0] === undefined, e1];"
        => json!([0, true, "TypeError"]);
    detaching_inside_a_sort_comparator:
        "const a = new ArrayBuffer(64); const u = new Uint8Array(a); \
         for (let i = 0; i < 64; i++) u[i] = 64 - i; \
         let r; \
         try { u.sort((x, y) => { if (!a.detached) a.transfer(8); return x - y; }); r = u.length; } \
         catch (e) { r = e.constructor.name; } \
         return r === 0 || r === 'TypeError';"
        => json!(true);
    detaching_inside_a_conversion_of_every_view_method:
        "const cases = [ \
           (a, u, d) => u.fill({ valueOf() { a.transfer(); return 1; } }), \
           (a, u, d) => u.set({ length: 4, get 0() { a.transfer(4096); return 1; } }), \
           (a, u, d) => u.copyWithin({ valueOf() { a.transfer(2); return 0; } }, 8), \
           (a, u, d) => d.setUint32({ valueOf() { a.transfer(); return 0; } }, 1), \
           (a, u, d) => d.getFloat64({ valueOf() { a.transfer(4); return 0; } }), \
           (a, u, d) => u.subarray({ valueOf() { a.transfer(); return 0; } }), \
           (a, u, d) => u.indexOf(0, { valueOf() { a.transfer(); return 0; } }), \
           (a, u, d) => u.lastIndexOf(0, { valueOf() { a.transfer(1); return 60; } }), \
           (a, u, d) => u.includes(0, { valueOf() { a.transfer(); return 0; } }), \
           (a, u, d) => u.join({ toString() { a.transfer(); return ','; } }), \
           (a, u, d) => new Uint8Array(a, { valueOf() { a.transfer(); return 0; } }), \
           (a, u, d) => u.with(0, { valueOf() { a.transfer(); return 1; } }), \
           (a, u, d) => u.slice({ valueOf() { a.transfer(); return 0; } }), \
           (a, u, d) => Uint8Array.from({ length: 8, get 0() { a.transfer(); return 1; } }), \
           (a, u, d) => u.map((x, i) => { if (i === 1) a.transfer(); return x; }), \
           (a, u, d) => u.toSorted((x, y) => { a.transfer(); return 0; }), \
         ]; \
         const seen = []; \
         for (const c of cases) { \
           const a = new ArrayBuffer(64); const u = new Uint8Array(a); const d = new DataView(a); \
           try { c(a, u, d); seen.push('ok'); } catch (e) { seen.push(e.constructor.name); } \
         } \
         return [seen.length, seen.every((s) => s === 'ok' || s === 'TypeError' || s === 'RangeError')];"
        => json!([16, true]);
    slice_through_a_species_constructor:
        "const a = new ArrayBuffer(32); new Uint8Array(a)[5] = 5; \
         const b = new ArrayBuffer(32); new Uint8Array(b)[5] = 6; \
         a.constructor = { [Symbol.species]: function (n) { a.transfer(); return new ArrayBuffer(n); } }; \
         b.constructor = { [Symbol.species]: ArrayBuffer }; \
         let r; try { r = new Uint8Array(a.slice(0, 16))[5]; } catch (e) { r = e.constructor.name; } \
         return [r, new Uint8Array(b.slice(4, 8))[1], new Uint8Array(b.sliceToImmutable(5, 6))[0]];"
        => json!(["TypeError", 6, 6]);
    resizable_buffers_are_not_offered:
        "const a = new ArrayBuffer(8, { maxByteLength: 64 }); \
         let e = null; try { a.resize(16); } catch (x) { e = x.constructor.name; } \
         const t = a.transfer(32); \
         return [a.resizable, t.resizable, t.maxByteLength, e];"
        => json!([false, false, 32, "TypeError"]);
    dispose_handlers_called_without_arguments:
        // Upstream quickjs-ng #1661: the reject handler an AsyncDisposableStack
        // hands to `then` (here a promise's own `then`: Promise.prototype is
        // frozen), called again with no argument, read a stale slot.
        "const saved = []; \
         const p = Promise.resolve(1); \
         Object.defineProperty(p, 'then', { value(f, r) { if (typeof r === 'function') saved.push(r); return Promise.prototype.then.call(this, f, r); } }); \
         const t = new AsyncDisposableStack(); t.defer(() => p); t.defer(() => { throw { f: 1 }; }); \
         let thrown = null; try { await t.disposeAsync(); } catch (e) { thrown = e.f; } \
         let calls = 0; for (const r of saved) { try { r(); } catch (e) {} calls++; } \
         return [thrown, calls > 0];"
        => json!([1, true]);
    a_typed_array_s_own_buffer_transfers:
        "const u = new Float64Array(128); u[127] = 1.5; \
         const t = u.buffer.transfer(2048); const s = new Int16Array(7).buffer.transfer(3); \
         return [t.byteLength, new Float64Array(t)[127], u.length, s.byteLength];"
        => json!([2048, 1.5, 0, 3]);
}

// ---- the heap checking is really on ---------------------------------------------

/// The canary (a test build's one-byte heap overflow in a job process) ends
/// that process when the checking is on: were it off, every case above could
/// pass over a corrupted heap unseen.
fn heap_checking_catches_the_canary(test: &str, path: Path) {
    on_path(test, path, |pool| {
        let r = pool.self_test("heap-canary");
        assert_eq!(err_kind(&r), Some(ErrorKind::Crashed), "{path:?}: {r:?}");
        // The pool goes on.
        innocent_jobs_follow(pool);
    });
}

#[test]
fn heap_checking_catches_the_canary_on_the_fork_path() {
    heap_checking_catches_the_canary(
        "engine_memory::heap_checking_catches_the_canary_on_the_fork_path",
        Path::Fork,
    );
}

#[test]
fn heap_checking_catches_the_canary_in_process() {
    heap_checking_catches_the_canary(
        "engine_memory::heap_checking_catches_the_canary_in_process",
        Path::InProcess,
    );
}

/// Without the checking the same overflow goes unseen: the canary tells the
/// two apart.
#[test]
fn without_heap_checking_the_canary_goes_unseen() {
    in_own_process(
        "engine_memory::without_heap_checking_the_canary_goes_unseen",
        || {
            std::env::remove_var(HEAP_CHECK_VAR);
            let r = process_pool(1, test_limits()).self_test("heap-canary");
            assert!(r.ok, "{r:?}");
            assert_eq!(r.value, json!(true));
        },
    );
}

// ---- fresh engine state per job ----------------------------------------------------

/// Six jobs on one worker draw twelve different `Math.random` values: nothing
/// of the generator is copied from the template or left by an earlier job.
fn random_differs_between_jobs(test: &str, path: Path) {
    on_path(test, path, |pool| {
        let mut seen = HashSet::new();
        for _ in 0..6 {
            let v = ok_value(pool, "return [Math.random(), Math.random()]");
            for x in v.as_array().expect("two numbers") {
                let x = x.as_f64().expect("a number");
                assert!((0.0..1.0).contains(&x), "{x}");
                assert!(seen.insert(x.to_bits()), "{path:?}: {x} came twice");
            }
        }
        // A longer stream looks random too (a stuck or short-period generator
        // would repeat).
        let v = ok_value(
            pool,
            "const s = new Set(); for (let i = 0; i < 10000; i++) s.add(Math.random()); return s.size",
        );
        assert_eq!(v, json!(10000));
    });
}

#[test]
fn random_differs_between_jobs_on_the_fork_path() {
    random_differs_between_jobs(
        "engine_memory::random_differs_between_jobs_on_the_fork_path",
        Path::Fork,
    );
}

#[test]
fn random_differs_between_jobs_in_process() {
    random_differs_between_jobs(
        "engine_memory::random_differs_between_jobs_in_process",
        Path::InProcess,
    );
}

// ---- only live buffers count ----------------------------------------------------------

/// A 16 MiB budget: 17 dropped 1 MiB buffers in a row fit (the dropped ones are
/// given back when the budget would refuse), 17 live ones do not.
fn only_live_buffers_count(test: &str, path: Path) {
    on_path(test, path, |pool| {
        let temporaries =
            "for (let i = 0; i < 17; i++) { let b = new ArrayBuffer(1 << 20); } return 'done'";
        assert_eq!(ok_value(pool, temporaries), json!("done"));
        // Also through the other ways a store is made and dropped.
        let churn = "for (let i = 0; i < 64; i++) { \
                       new ArrayBuffer(1 << 20).transfer(2 << 20); new Uint8Array(1 << 20); \
                     } return 'done'";
        assert_eq!(ok_value(pool, churn), json!("done"));
        let live = "const k = []; for (let i = 0; i < 17; i++) k.push(new ArrayBuffer(1 << 20)); return k.length";
        let r = pool.execute_blocking(live, FakeBridge::new());
        assert_eq!(err_kind(&r), Some(ErrorKind::Memory), "{r:?}");
        assert!(
            err_msg(&r).contains("ArrayBuffer budget"),
            "{}",
            err_msg(&r)
        );
        innocent_jobs_follow(pool);
    });
}

#[test]
fn only_live_buffers_count_on_the_fork_path() {
    only_live_buffers_count(
        "engine_memory::only_live_buffers_count_on_the_fork_path",
        Path::Fork,
    );
}

#[test]
fn only_live_buffers_count_in_process() {
    only_live_buffers_count(
        "engine_memory::only_live_buffers_count_in_process",
        Path::InProcess,
    );
}

// ---- allocation failures are real errors ----------------------------------------------

/// A string that, normalized in `form`, needs more than the 64 MiB heap:
/// canonical forms through a character that decomposes to three (16 MiB of
/// text), compatibility forms through one that decomposes to eighteen.
fn past_the_heap(form: &str) -> String {
    let (ch, n) = if form.starts_with("NFK") {
        ("\\uFDFA", 20)
    } else {
        ("\\u1E69", 23)
    };
    format!("'{ch}'.repeat(1 << {n}).normalize('{form}')")
}

/// Each normalization form past the heap limit throws a real error the snippet
/// catches (what it saw is logged, the one record that survives a stop); uncaught,
/// the job's kind is `memory`.
fn allocation_failures_are_errors(test: &str, path: Path) {
    on_path(test, path, |pool| {
        for form in ["NFC", "NFD", "NFKC", "NFKD"] {
            let code = format!(
                "let s; try {{ s = {}; }} catch (e) {{ \
                   console.log(JSON.stringify([typeof e, e === e, \
                     e instanceof InternalError || e instanceof RangeError, String(e)])); \
                 }} \
                 return s === undefined ? 'caught' : s.length;",
                past_the_heap(form)
            );
            let r = pool.execute_blocking(&code, FakeBridge::new());
            // Caught, the snippet goes on (unless the engine's own heap limit
            // was crossed on the way, which stops it as `memory`).
            assert!(
                (r.ok && r.value == json!("caught")) || err_kind(&r) == Some(ErrorKind::Memory),
                "{path:?} {form}: {r:?}"
            );
            let seen: Vec<&str> = r.logs.iter().map(|l| l.text.as_str()).collect();
            assert_eq!(
                seen,
                [r#"["object",true,true,"InternalError: out of memory"]"#],
                "{path:?} {form}: what the catch clause received"
            );
            let uncaught = format!("return {}.length", past_the_heap(form));
            let r = pool.execute_blocking(&uncaught, FakeBridge::new());
            assert_eq!(
                err_kind(&r),
                Some(ErrorKind::Memory),
                "{path:?} {form}: {r:?}"
            );
        }
        innocent_jobs_follow(pool);
    });
}

#[test]
fn allocation_failures_are_errors_on_the_fork_path() {
    allocation_failures_are_errors(
        "engine_memory::allocation_failures_are_errors_on_the_fork_path",
        Path::Fork,
    );
}

#[test]
fn allocation_failures_are_errors_in_process() {
    allocation_failures_are_errors(
        "engine_memory::allocation_failures_are_errors_in_process",
        Path::InProcess,
    );
}

// ---- one job's damage stays that job's -----------------------------------------------

/// Hostile jobs of every kind that ends abnormally, each followed by an
/// innocent one: the innocent job is answered `ok`. Then the worker dies
/// between two jobs (killed from outside, as a teardown abort would end it):
/// the next job is not blamed, it runs on a fresh worker.
fn a_failure_stays_its_job_s(test: &str, path: Path) {
    on_path(test, path, |pool| {
        let hostile = [
            "const a = []; for (;;) a.push({x: a.length});",
            "function f() { return f() + 1; } return f();",
            "const k = []; for (let i = 0; i < 300; i++) k.push(new ArrayBuffer(1024).transfer(4096)); throw new Error('after transfers');",
            "return '\\uFDFA'.repeat(1 << 20).normalize('NFKD')",
        ];
        for code in hostile {
            let r: ExecResult = pool.execute_blocking(code, FakeBridge::new());
            assert!(!r.ok, "{code}: {:?}", r.value);
            assert!(
                matches!(err_kind(&r), Some(ErrorKind::Memory | ErrorKind::Script)),
                "{path:?} {code}: {r:?}"
            );
            innocent_jobs_follow(pool);
        }
        let pids = worker_pids();
        assert_eq!(pids.len(), 1, "one worker process: {pids:?}");
        let killed = std::process::Command::new("kill")
            .args(["-KILL", &pids[0].to_string()])
            .status()
            .expect("kill");
        assert!(killed.success());
        innocent_jobs_follow(pool);
    });
}

#[test]
fn a_failure_stays_its_job_s_on_the_fork_path() {
    a_failure_stays_its_job_s(
        "engine_memory::a_failure_stays_its_job_s_on_the_fork_path",
        Path::Fork,
    );
}

#[test]
fn a_failure_stays_its_job_s_in_process() {
    a_failure_stays_its_job_s(
        "engine_memory::a_failure_stays_its_job_s_in_process",
        Path::InProcess,
    );
}

// ---- native walks end at the deadline --------------------------------------------------

/// A built-in that walks a length the script chooses through the generic element
/// accessors (here `indexOf` over an array-like behind 20 proxies, within the
/// prelude's length cap: seconds of work in one native call) stops at the
/// watchdog's termination, on the thread backend where nothing else could stop
/// it: the worker acknowledges, so it is not replaced as wedged.
#[test]
fn a_native_walk_of_any_length_ends_at_the_deadline() {
    let pool = Pool::new(toolsearch_sandbox::PoolConfig {
        workers: 1,
        queue: 16,
        limits: runaway_limits(),
        prewarm: true,
        ..toolsearch_sandbox::PoolConfig::default()
    })
    .expect("pool");
    let code = "let p = { length: (1 << 22) - 1 }; \
                for (let i = 0; i < 20; i++) p = new Proxy(p, {}); \
                return Array.prototype.indexOf.call(p, 1);";
    let r = pool.execute_blocking(code, FakeBridge::new());
    // Let a wedge be confirmed, were there one.
    std::thread::sleep(toolsearch_sandbox::WEDGE_CONFIRM * 2);
    assert_eq!(err_kind(&r), Some(ErrorKind::Timeout), "{r:?}");
    let stats = pool.stats();
    assert_eq!(
        (stats.replaced_workers, stats.wedged_workers),
        (0, 0),
        "the native walk did not stop at the termination"
    );
    assert_eq!(ok_value(&pool, "return 1 + 1"), json!(2));
}

// ---- deep recursion in the parsers and built-ins --------------------------------------

/// Nesting deep enough to exhaust a native stack in each parser and recursive
/// built-in (the CVE-2023-31922 kind: a Proxy chain under `Array.isArray`):
/// each is a catchable error, never a crash of the job's process.
const DEEP: &str = "const n = 50000; \
     const nest = (f) => { let v = f(null); for (let i = 0; i < n; i++) v = f(v); return v; }; \
     const cases = [ \
       () => JSON.parse('['.repeat(n) + ']'.repeat(n)), \
       () => JSON.parse('{\"a\":'.repeat(n) + '1' + '}'.repeat(n)), \
       () => JSON.stringify(nest((v) => [v])), \
       () => JSON.stringify(nest((v) => ({ o: v }))), \
       () => String(nest((v) => [v])), \
       () => nest((v) => [v]).flat(Infinity), \
       () => Array.isArray(nest((v) => new Proxy(v === null ? [] : v, {}))), \
       () => new RegExp('('.repeat(n) + 'a' + ')'.repeat(n)), \
       () => new RegExp('(?:'.repeat(n) + 'a' + ')'.repeat(n)), \
       () => new RegExp('['.repeat(n) + ']', 'v'), \
       () => structuredCloneIsAbsent, \
     ]; \
     const seen = []; \
     for (const c of cases) { try { c(); seen.push('ok'); } catch (e) { seen.push(e.constructor.name); } } \
     return seen;";

fn deep_nesting_is_an_error(test: &str, path: Path) {
    on_path(test, path, |pool| {
        let v = ok_value(pool, DEEP);
        let seen: Vec<&str> = v
            .as_array()
            .expect("names")
            .iter()
            .map(|s| s.as_str().expect("a name"))
            .collect();
        assert_eq!(seen.len(), 11, "{seen:?}");
        // The last case names a global the sandbox does not offer.
        assert_eq!(seen[10], "ReferenceError", "{seen:?}");
        for (i, s) in seen[..10].iter().enumerate() {
            assert!(
                ["RangeError", "InternalError", "SyntaxError", "ok"].contains(s),
                "{path:?} case {i}: {s} ({seen:?})"
            );
        }
        // `flat` is capped by the prelude; the others reach the engine's stack check.
        assert!(
            seen.iter()
                .filter(|s| **s == "RangeError" || **s == "InternalError")
                .count()
                >= 6,
            "{seen:?}"
        );
        // The snippet's own source, nested past the parser's limit (under the 64 KiB
        // source cap): a script error.
        let nested = format!("return {}1{};", "[".repeat(30000), "]".repeat(30000));
        let r = pool.execute_blocking(&nested, FakeBridge::new());
        assert_eq!(err_kind(&r), Some(ErrorKind::Script), "{path:?}: {r:?}");
        let parens = format!("return {}1{};", "(".repeat(30000), ")".repeat(30000));
        let r = pool.execute_blocking(&parens, FakeBridge::new());
        assert_eq!(err_kind(&r), Some(ErrorKind::Script), "{path:?}: {r:?}");
        innocent_jobs_follow(pool);
    });
}

#[test]
fn deep_nesting_is_an_error_on_the_fork_path() {
    deep_nesting_is_an_error(
        "engine_memory::deep_nesting_is_an_error_on_the_fork_path",
        Path::Fork,
    );
}

#[test]
fn deep_nesting_is_an_error_in_process() {
    deep_nesting_is_an_error(
        "engine_memory::deep_nesting_is_an_error_in_process",
        Path::InProcess,
    );
}
