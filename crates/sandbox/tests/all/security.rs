//! The test catalogue of docs/sandbox-security.md, rows 1-32 (row 33 and the
//! crash classes are in `crash.rs`). Each case also checks that the pool is back
//! to its baseline (one isolate per worker at most, worker + watchdog threads).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use toolsearch_sandbox::{CallStatus, ErrorKind, Limits, LogLevel};

use crate::common::*;

fn js_ok(code: &str) -> serde_json::Value {
    let r = run(code);
    assert!(r.ok, "snippet failed: {:?}\ncode: {code}", r.error);
    assert_clean(shared());
    r.value
}

/// Globals a snippet may see; everything else was deleted by the scrub script.
pub(crate) const ALLOWED_GLOBALS: &[&str] = &[
    "AggregateError",
    "Array",
    "ArrayBuffer",
    "AsyncDisposableStack",
    "BigInt",
    "BigInt64Array",
    "BigUint64Array",
    "Boolean",
    "DataView",
    "Date",
    "DisposableStack",
    "Error",
    "EvalError",
    "Float16Array",
    "Float32Array",
    "Float64Array",
    "Function",
    "Infinity",
    "Int16Array",
    "Int32Array",
    "Int8Array",
    "InternalError",
    "Iterator",
    "JSON",
    "Map",
    "Math",
    "NaN",
    "Number",
    "Object",
    "Promise",
    "Proxy",
    "RangeError",
    "ReferenceError",
    "Reflect",
    "RegExp",
    "Set",
    "String",
    "SuppressedError",
    "Symbol",
    "SyntaxError",
    "TypeError",
    "URIError",
    "Uint16Array",
    "Uint32Array",
    "Uint8Array",
    "Uint8ClampedArray",
    "WeakMap",
    "WeakSet",
    "console",
    "decodeURI",
    "decodeURIComponent",
    "encodeURI",
    "encodeURIComponent",
    "escape",
    "eval",
    "globalThis",
    "isFinite",
    "isNaN",
    "openclaw",
    "parseFloat",
    "parseInt",
    "undefined",
    "unescape",
];

#[test]
fn r01_globals_are_an_allowlist() {
    let v = js_ok("return Object.getOwnPropertyNames(globalThis).sort()");
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    for forbidden in [
        "Deno",
        "__bootstrap",
        "__infra",
        "require",
        "process",
        "fetch",
        "WebAssembly",
        "SharedArrayBuffer",
        "Atomics",
        "Temporal",
        "queueMicrotask",
        "setTimeout",
        "setInterval",
    ] {
        assert!(
            !names.contains(&forbidden),
            "{forbidden} is visible: {names:?}"
        );
    }
    for n in &names {
        assert!(ALLOWED_GLOBALS.contains(n), "unexpected global {n}");
    }
    for must in ["openclaw", "console", "JSON", "Promise", "Object"] {
        assert!(names.contains(&must), "{must} missing");
    }
    // Symbols and the prototype chain hold nothing extra either.
    let v = js_ok("return [Object.getOwnPropertySymbols(globalThis).length, typeof globalThis.Deno, typeof Object.getPrototypeOf(globalThis).Deno]");
    assert_eq!(v, json!([0, "undefined", "undefined"]));
}

#[test]
fn r02_deno_ops_are_unreachable() {
    let v = js_ok(
        r#"try { Deno.core.ops.op_panic("x"); return "reached"; } catch (e) { return e.name; }"#,
    );
    assert_eq!(v, json!("ReferenceError"));
}

#[test]
fn r03_code_generation_from_strings_is_disabled() {
    for expr in [
        r#"eval("1")"#,
        r#"new Function("")"#,
        r#"Function("return 1")()"#,
        r#"(async()=>{}).constructor("")"#,
        r#"(function*(){}).constructor("")"#,
        r#"(async function*(){}).constructor("")"#,
        r#"(()=>{}).constructor.constructor("return 1")()"#,
        r#"Reflect.construct(Object.getPrototypeOf(async()=>{}).constructor, ["return 1"])"#,
    ] {
        let v = js_ok(&format!(
            "try {{ {expr}; return 'ran'; }} catch (e) {{ return e.name; }}"
        ));
        assert_eq!(v, json!("EvalError"), "{expr}");
    }
}

#[test]
fn r04_imports_are_rejected() {
    for expr in [
        r#"await import("ext:core/ops")"#,
        r#"await import("data:text/javascript,1")"#,
        r#"await import("file:///etc/passwd")"#,
    ] {
        let v = js_ok(&format!(
            "try {{ {expr}; return 'imported'; }} catch (e) {{ return 'rejected'; }}"
        ));
        assert_eq!(v, json!("rejected"), "{expr}");
    }
    let r = run(r#"import x from "ext:core/ops"; return 1"#);
    assert_eq!(err_kind(&r), Some(ErrorKind::Script), "{:?}", r.error);
    assert!(
        err_msg(&r).contains("SyntaxError") || err_msg(&r).to_lowercase().contains("import"),
        "{}",
        err_msg(&r)
    );
    assert_clean(shared());
}

#[test]
fn r05_console_is_captured_not_printed() {
    let out = in_child("security::r05_console_is_captured_not_printed", || {
        let r = run(
            r#"console.log("MARK-LOG", 1, {a: 2}); console.warn("MARK-WARN"); console.error(new TypeError("MARK-ERR")); return 0"#,
        );
        assert!(r.ok, "{:?}", r.error);
        assert_eq!(r.logs.len(), 3);
        assert_eq!(r.logs[0].level, LogLevel::Log);
        assert_eq!(r.logs[0].text, "MARK-LOG 1 {\"a\":2}");
        assert_eq!(r.logs[1].level, LogLevel::Warn);
        assert_eq!(r.logs[2].text, "TypeError: MARK-ERR");
    });
    if let Some(out) = out {
        assert_child_ok(&out);
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !all.contains("MARK-"),
            "console reached the host's output:\n{all}"
        );
    }
}

#[test]
fn r06_closing_the_wrapper_gives_no_capability() {
    let v = run(
        r#"}); const p = [typeof Deno, typeof require, typeof __bootstrap, (function(){ return this === undefined; })()]; (async()=>{ return p"#,
    );
    match v.error {
        Some(e) => assert_eq!(e.kind, ErrorKind::Script, "{e:?}"),
        // It ran: at the top level of the same scrubbed, strict global.
        None => assert_eq!(
            v.value,
            json!(["undefined", "undefined", "undefined", true])
        ),
    }
    // Nothing carries over to the next snippet (a fresh isolate each time).
    assert_eq!(js_ok("return typeof globalThis.p"), json!("undefined"));
}

#[test]
fn r07_poisoned_then_does_not_hijack_bridge_results() {
    let v = js_ok(
        r#"
        Object.prototype.then = r => r(1);
        Array.prototype.then = r => r(2);
        const hits = await openclaw.tools.search("echo");
        const d = await openclaw.tools.describe("echo");
        const c = await openclaw.tools.call("echo", {k: 1});
        delete Object.prototype.then; delete Array.prototype.then;
        return [Array.isArray(hits), hits[0].id, d.id, c.k];
    "#,
    );
    assert_eq!(v, json!([true, "echo", "echo", 1]));
}

#[test]
fn r08_openclaw_is_frozen() {
    let bridge = FakeBridge::new();
    let r = run_with(
        r#"
        const errs = [];
        try { openclaw.tools.call = () => 1; } catch (e) { errs.push(e.name); }
        try { openclaw = {}; } catch (e) { errs.push(e.name); }
        try { openclaw.tools = {}; } catch (e) { errs.push(e.name); }
        try { delete globalThis.openclaw; } catch (e) { errs.push(e.name); }
        try { Object.defineProperty(globalThis, "openclaw", {value: 1}); } catch (e) { errs.push(e.name); }
        const out = await openclaw.tools.call("echo", {x: 1});
        return {errs, out};
    "#,
        bridge.clone(),
    );
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(
        r.value["errs"],
        json!([
            "TypeError",
            "TypeError",
            "TypeError",
            "TypeError",
            "TypeError"
        ])
    );
    assert_eq!(r.value["out"], json!({"x": 1}));
    assert_eq!(r.stats.calls, 1);
    assert_eq!(bridge.runs("echo"), 1);
    assert_clean(shared());
}

#[test]
fn r09_overwritten_intrinsics_do_not_break_the_bridge() {
    let r = run(r#"
        JSON.stringify = () => "{\"evil\":1}";
        JSON.parse = () => ({evil: 1});
        Function.prototype.apply = () => { throw new Error("apply hijacked"); };
        Function.prototype.call = () => { throw new Error("call hijacked"); };
        let thenFrozen = false;
        try { Promise.prototype.then = () => {}; } catch (e) { thenFrozen = e instanceof TypeError; }
        const out = await openclaw.tools.call("echo", {real: true});
        const hits = await openclaw.tools.search("add");
        return [out, hits[0].id, thenFrozen];
    "#);
    // Either it works through captured intrinsics, or it fails closed.
    match &r.error {
        None => {
            // The snippet's own JSON.stringify is poisoned, so the host decoded the
            // result with the captured one: the real values come back.
            assert_eq!(r.value, json!([{"real": true}, "add", true]));
        }
        Some(e) => assert_eq!(e.kind, ErrorKind::Script, "{e:?}"),
    }
    assert_clean(shared());
}

fn assert_timeout(code: &str) -> toolsearch_sandbox::ExecResult {
    let limits = runaway_limits();
    let t0 = Instant::now();
    let r = run_runaway(code, FakeBridge::new());
    // Time from when a worker took the job: other tests share the pool's workers.
    let took = t0
        .elapsed()
        .saturating_sub(Duration::from_micros(r.stats.queue_us));
    assert_eq!(
        err_kind(&r),
        Some(ErrorKind::Timeout),
        "{:?}\ncode: {code}",
        r.error
    );
    // Stopped, not left running (a guard against a hang, not a speed claim:
    // the watchdog's verdict is the `timeout` kind above).
    assert!(took < answer_bound(&limits), "took {took:?}: {code}");
    assert_clean(shared());
    r
}

#[test]
fn r10_busy_loop_times_out() {
    assert_timeout("for(;;){}");
}

#[test]
fn r11_microtask_loop_times_out() {
    assert_timeout("for(;;) await null;");
}

/// Microtask storms, on the backend that runs untrusted code. v8x/QuickJS polls
/// for termination once every 10,000 calls and its microtask loop runs every
/// queued job, an interrupted one too: when a chain's links make a number of
/// calls that divides 10,000, the poll lands on the same harmless call of every
/// cycle (a thenable's `then`, a resolving function) and the chain outruns
/// termination inside the engine, in C. Only a kill ends it: the process backend
/// kills the worker at deadline + grace; a thread worker is replaced and its
/// thread spins on (threads are for trusted code). Each storm here is answered
/// `timeout` or `memory` within the bound and the next job runs.
#[test]
fn r12_promise_chain_storm_times_out_and_next_job_is_clean() {
    let pool = process_pool(1, test_limits());
    for code in [
        "const f = () => Promise.resolve().then(f); f(); await new Promise(() => {});",
        "const f = () => Promise.resolve().then(f); f();",
        "const f = () => { const p = Promise.resolve(); p.then(f); return p; }; f();",
        "const f = async () => { await null; return f(); }; f();",
        "const f = () => { Promise.resolve().then(f); }; f();",
        "const f = async () => { await null; f(); }; f(); await new Promise(() => {});",
    ] {
        let t0 = Instant::now();
        let r = pool.execute_blocking_with(code, FakeBridge::new(), runaway_limits());
        let took = t0.elapsed();
        assert!(
            matches!(err_kind(&r), Some(ErrorKind::Timeout | ErrorKind::Memory)),
            "{code}: {:?}",
            r.error
        );
        assert!(
            took < answer_bound(&runaway_limits()),
            "{code}: took {took:?}"
        );
        let next = pool.execute_blocking("return 40 + 2", FakeBridge::new());
        assert_eq!(next.value, json!(42), "{code}: {:?}", next.error);
    }
    assert_clean(&pool);
}

#[test]
fn r13_never_settling_promise_fails_fast() {
    let r = run("await new Promise(() => {}); return 1");
    assert_eq!(err_kind(&r), Some(ErrorKind::Script), "{:?}", r.error);
    assert!(err_msg(&r).contains("never settle"), "{}", err_msg(&r));
    // Relative: the empty event loop is seen at once, not at the deadline (run
    // time, not time queued behind other tests).
    let deadline = shared().limits().deadline;
    assert!(
        Duration::from_micros(r.stats.run_us) < deadline / 2,
        "took {} us of a {deadline:?} deadline",
        r.stats.run_us
    );
    assert_clean(shared());
}

#[test]
fn r14_hanging_tool_times_out_and_is_cancelled() {
    let bridge = FakeBridge::new();
    let t0 = Instant::now();
    let r = run_runaway(
        r#"console.log("before"); const a = await openclaw.tools.call("echo", {n: 1}); await openclaw.tools.call("hang", {}); return 1"#,
        bridge.clone(),
    );
    // Time from when a worker took the job: other tests share the pool's workers.
    let took = t0
        .elapsed()
        .saturating_sub(Duration::from_micros(r.stats.queue_us));
    assert_eq!(err_kind(&r), Some(ErrorKind::Timeout), "{:?}", r.error);
    assert!(took < answer_bound(&runaway_limits()), "took {took:?}");
    // Partial work survives: the log and the completed call.
    assert_eq!(r.logs[0].text, "before");
    assert_eq!(r.calls[0].status, CallStatus::Ok);
    assert_eq!(r.calls[0].result, Some(json!({"n": 1})));
    assert!(
        r.calls
            .iter()
            .any(|c| c.id == "hang" && c.status == CallStatus::Abandoned),
        "{:?}",
        r.calls
    );
    assert!(
        eventually(|| bridge.cancelled.load(std::sync::atomic::Ordering::SeqCst) == 1),
        "cancellation did not fire"
    );
    assert_clean(shared());
}

#[test]
fn r15_catastrophic_regex_times_out() {
    assert_timeout(r#"/(a+)+$/.test("a".repeat(40) + "!"); return 1"#);
}

#[test]
fn r16_throwing_getter_loop_times_out() {
    assert_timeout("throw {get message(){ for(;;); }}");
    assert_timeout("throw {get name(){ for(;;); }, get stack(){ for(;;); }}");
}

#[test]
fn r17_heap_exhaustion_is_a_memory_error_and_rss_returns() {
    // In a test process of its own: this process's RSS is shared with every
    // test running beside it on the thread pool.
    in_own_process(
        "security::r17_heap_exhaustion_is_a_memory_error_and_rss_returns",
        || {
            // The baseline is a warm pool: both workers have an isolate.
            let warm: Vec<_> = (0..2)
                .map(|_| std::thread::spawn(|| run("return 1")))
                .collect();
            for w in warm {
                assert!(w.join().unwrap().ok);
            }
            let before = rss_kib();
            for _ in 0..3 {
                // The generous deadline of `test_limits`: this row is about the heap
                // limit, which a loaded machine reaches late.
                let r = run_limits(
                    "const a = []; for(;;) a.push({x: 1});",
                    FakeBridge::new(),
                    test_limits(),
                );
                assert_eq!(err_kind(&r), Some(ErrorKind::Memory), "{:?}", r.error);
                assert_clean(shared());
            }
            // The isolates are dropped (after their answers) and the pages given
            // back: RSS returns to within half a heap limit of the baseline.
            let returned = eventually(|| rss_kib() < before + 32 * 1024);
            let after = rss_kib();
            eprintln!("r17: RSS before {before} KiB, after {after} KiB");
            assert!(returned, "RSS grew from {before} to {after} KiB");
        },
    );
}

#[test]
fn r18_huge_array_is_a_memory_error() {
    // On quickjs a sparse array grows slower than in V8: within a 300 ms
    // deadline the snippet may be stopped by either limit; given time, the heap
    // limit stops it.
    let r = run_runaway("new Array(2**27 - 1).fill(0); return 1", FakeBridge::new());
    assert!(
        matches!(err_kind(&r), Some(ErrorKind::Memory | ErrorKind::Timeout)),
        "{:?}",
        r.error
    );
    // The `memory` kind says the heap limit stopped it, before the deadline.
    let r = run_limits(
        "new Array(2**27 - 1).fill(0); return 1",
        FakeBridge::new(),
        test_limits(),
    );
    assert_eq!(err_kind(&r), Some(ErrorKind::Memory), "{:?}", r.error);
    // The replacement fill keeps the usual semantics.
    assert_eq!(js_ok("return [[1,2,3,4].fill(0, 1, -1), new Array(3).fill('x'), Array.prototype.fill.call({length: 2}, 7)]"), json!([[1, 0, 0, 4], ["x", "x", "x"], {"0": 7, "1": 7, "length": 2}]));
    assert_clean(shared());
}

#[test]
fn r19_array_buffers_are_budgeted() {
    let v = js_ok(
        r#"
        const small = new Int16Array(3); small[1] = 7;
        const shape = [small instanceof Int16Array, small.length, small.byteLength, Array.from(new Uint8Array([1, 2]))];
        const out = [];
        try { new ArrayBuffer(2**33); out.push("allocated"); } catch (e) { out.push(e.name); }
        const keep = [];
        try { for (let i = 0; i < 100; i++) keep.push(new Uint8Array(1 << 20)); out.push("allocated"); }
        catch (e) { out.push(e.name, keep.length); }
        try { const Ctor = new ArrayBuffer(8, {maxByteLength: 2**40}).constructor; new Uint8Array(new Ctor(1 << 30)); out.push("allocated"); }
        catch (e) { out.push(e.name); }
        try { new Float64Array(4 << 20); out.push("allocated"); } catch (e) { out.push(e.name); }
        return out.concat(shape);
    "#,
    );
    assert_eq!(v[0], json!("RangeError"));
    assert_eq!(v[1], json!("RangeError"));
    // 16 MiB budget: at most 16 one-MiB buffers fit.
    assert!(v[2].as_u64().unwrap() <= 16, "{v}");
    assert_eq!(v[3], json!("RangeError"));
    assert_eq!(v[4], json!("RangeError"));
    assert_eq!(
        v.as_array().unwrap()[5..],
        [json!(true), json!(3), json!(6), json!([1, 2])]
    );
}

#[test]
fn r20_stack_overflow_is_a_range_error() {
    let out = in_child("security::r20_stack_overflow_is_a_range_error", || {
        let r = run("function f(){ f() } f()");
        assert_eq!(err_kind(&r), Some(ErrorKind::Script), "{:?}", r.error);
        assert!(
            err_msg(&r).contains("RangeError") || err_msg(&r).contains("stack"),
            "{}",
            err_msg(&r)
        );
        let r = run("function f(){ try { f() } catch (e) { f() } } f()");
        assert!(!r.ok);
    });
    if let Some(out) = out {
        assert_child_ok(&out);
    }
}

#[test]
fn r21_huge_return_value_is_a_result_error() {
    let r = run(r#"return "a".repeat(2**29 - 24)"#);
    // The engine may refuse to build the string (memory) before the length check.
    assert!(
        matches!(err_kind(&r), Some(ErrorKind::Result | ErrorKind::Memory)),
        "{:?}",
        r.error
    );
    assert!(err_msg(&r).len() < 4096);
    let r = run(r#"return "a".repeat(300 * 1024)"#);
    assert_eq!(err_kind(&r), Some(ErrorKind::Result), "{:?}", r.error);
    assert!(err_msg(&r).contains("too large"), "{}", err_msg(&r));
    assert_clean(shared());
}

#[test]
fn r22_unknown_and_denied_ids_are_indistinguishable() {
    let v = js_ok(
        r#"
        const msg = async (id) => { try { await openclaw.tools.call(id, {}); return "called"; } catch (e) { return [e.code, e.message.replace(id, "ID")]; } };
        const d = async (id) => { try { await openclaw.tools.describe(id); return "described"; } catch (e) { return [e.code, e.message.replace(id, "ID")]; } };
        const hits = await openclaw.tools.search("denied_existing");
        return [await msg("nope"), await msg("denied_existing"), await d("nope"), await d("denied_existing"), hits.map(h => h.id)];
    "#,
    );
    assert_eq!(v[0], v[1]);
    assert_eq!(v[2], v[3]);
    assert_eq!(v[0][0], json!("UNKNOWN_TOOL"));
    assert!(!v[4]
        .as_array()
        .unwrap()
        .iter()
        .any(|id| id == "denied_existing"));
}

#[test]
fn r23_hostile_ids_are_argument_errors() {
    let v = js_ok(
        r#"
        const ids = ["a\u0000b", "\uD800", "echo\u202E", "x".repeat(10 * 1024 * 1024), "", " echo"];
        const out = [];
        for (const id of ids) {
            try { await openclaw.tools.call(id, {}); out.push("called"); } catch (e) { out.push(e.code); }
            try { await openclaw.tools.describe(id); out.push("described"); } catch (e) { out.push(e.code); }
        }
        return out;
    "#,
    );
    for code in v.as_array().unwrap() {
        assert!(code == "INVALID_ARGS" || code == "UNKNOWN_TOOL", "{v}");
    }
}

#[test]
fn r24_non_string_ids_are_argument_errors_without_running_user_code() {
    let bridge = FakeBridge::new();
    let r = run_with(
        r#"
        let ran = false;
        const out = [];
        const cases = [[123], [{toString(){ ran = true; return "echo"; }}], ["echo", "s"], ["echo", [1]], [Symbol("x")], [null]];
        for (const args of cases) {
            try { await openclaw.tools.call(...args); out.push("called"); } catch (e) { out.push(e.code); }
        }
        return {out, ran};
    "#,
        bridge.clone(),
    );
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(r.value["ran"], json!(false));
    assert!(
        r.value["out"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c == "INVALID_ARGS"),
        "{}",
        r.value
    );
    assert_eq!(bridge.total_runs(), 0);
    assert!(r.stats.rejected >= 6);
    assert_clean(shared());
}

#[test]
fn r25_unserializable_arguments_are_argument_errors() {
    let bridge = FakeBridge::new();
    let r = run_with(
        r#"
        const cyc = {}; cyc.self = cyc;
        const cases = [
            new Proxy({}, { get() { throw new Error("trap"); }, ownKeys() { throw new Error("trap"); } }),
            {n: 1n}, {s: Symbol("x")}, cyc, {f: () => 1},
        ];
        const out = [];
        for (const a of cases) {
            try { await openclaw.tools.call("echo", a); out.push("called"); } catch (e) { out.push(e.code); }
        }
        return out;
    "#,
        bridge.clone(),
    );
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(
        r.value,
        json!([
            "INVALID_ARGS",
            "INVALID_ARGS",
            "INVALID_ARGS",
            "INVALID_ARGS",
            "INVALID_ARGS"
        ])
    );
    assert_eq!(bridge.total_runs(), 0);
    assert_clean(shared());
}

#[test]
fn r26_oversized_arguments_and_queries_are_argument_errors() {
    let bridge = FakeBridge::new();
    let r = run_with(
        r#"
        const out = [];
        try { await openclaw.tools.call("echo", {s: "x".repeat(10 * 1024 * 1024)}); out.push("called"); } catch (e) { out.push(e.code); }
        try { await openclaw.tools.search("a".repeat(1e7)); out.push("searched"); } catch (e) { out.push(e.code); }
        return out;
    "#,
        bridge.clone(),
    );
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(r.value, json!(["INVALID_ARGS", "INVALID_ARGS"]));
    assert_eq!(bridge.total_runs(), 0);
    assert_eq!(r.stats.searches, 0);
    assert_clean(shared());
}

#[test]
fn r27_huge_tool_result_never_enters_the_isolate() {
    let r = run(
        r#"try { await openclaw.tools.call("big", {}); return "entered"; } catch (e) { return [e.code, e.message]; }"#,
    );
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(r.value[0], json!("LIMIT"), "{}", r.value);
    assert!(
        r.stats.bytes_in < 1 << 20,
        "{} bytes entered",
        r.stats.bytes_in
    );
    assert_eq!(
        r.calls[0].code,
        Some(toolsearch_sandbox::BridgeErrorCode::Limit)
    );
    assert_clean(shared());
}

#[test]
fn r28_call_budget_caps_unawaited_calls() {
    let bridge = FakeBridge::new();
    let r = run_with(
        r#"
        const ps = [];
        for (let i = 0; i < 1e5; i++) ps.push(openclaw.tools.call("echo", {i}).then(() => "ok", e => e.code));
        const res = await Promise.all(ps);
        return [res.filter(x => x === "ok").length, res.filter(x => x === "LIMIT").length];
    "#,
        bridge.clone(),
    );
    let limits = Limits::default();
    match &r.error {
        None => {
            assert_eq!(r.value[0], json!(limits.max_calls));
            assert_eq!(r.value[1], json!(100_000 - limits.max_calls));
        }
        // 1e5 pending calls may not all settle before the deadline on a loaded
        // machine, or fit in the 64 MiB heap: either way no more than the budget ran.
        Some(e) => assert!(
            matches!(e.kind, ErrorKind::Timeout | ErrorKind::Memory),
            "{e:?}"
        ),
    }
    assert!(
        bridge.runs("echo") <= limits.max_calls as usize,
        "tool ran {} times",
        bridge.runs("echo")
    );
    assert!(r.stats.calls <= limits.max_calls);
    assert_clean(shared());
}

#[test]
fn r29_unserializable_return_values_are_result_errors() {
    for code in [
        "return Symbol()",
        "return 1n",
        "const o = {}; o.o = o; return o",
        "return {toJSON(){ throw 1 }}",
        "return () => 1",
    ] {
        let r = run(code);
        assert_eq!(
            err_kind(&r),
            Some(ErrorKind::Result),
            "{code}: {:?}",
            r.error
        );
        assert!(err_msg(&r).len() <= 2100, "{code}: unbounded message");
    }
    assert_eq!(js_ok("return undefined"), json!(null));
    assert_eq!(js_ok("return"), json!(null));
    assert_eq!(
        js_ok("return {a: undefined, b: [undefined]}"),
        json!({"b": [null]})
    );
}

#[test]
fn r30_log_flood_times_out_with_capped_logs() {
    let r = assert_timeout(r#"for(;;) console.log("x".repeat(1e6));"#);
    let total: usize = r.logs.iter().map(|l| l.text.len()).sum();
    let cap = test_limits().log_bytes;
    assert!(total <= cap + 64, "logs hold {total} bytes");
    assert!(r.stats.logs_dropped > 0);
    assert!(r.logs.last().unwrap().text.contains("log budget exhausted"));
}

#[test]
fn r31_concurrent_snippets_half_of_them_loops() {
    let pool = pool(8);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .unwrap();
    let results = rt.block_on(async {
        let mut tasks = Vec::new();
        for i in 0..100 {
            let pool = pool.clone();
            tasks.push(tokio::spawn(async move {
                // Loops stop at a short deadline; the others get a generous one.
                let (code, limits) = if i % 2 == 0 {
                    ("for(;;){}".to_string(), runaway_limits())
                } else {
                    (format!("return {i}"), test_limits())
                };
                (i, pool.execute_with(&code, FakeBridge::new(), limits).await)
            }));
        }
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await.unwrap());
        }
        out
    });
    for (i, r) in &results {
        if i % 2 == 0 {
            assert_eq!(err_kind(r), Some(ErrorKind::Timeout), "{i}: {:?}", r.error);
        } else {
            assert!(r.ok, "{i}: {:?}", r.error);
            assert_eq!(r.value, json!(i));
        }
    }
    let s = pool.stats();
    assert_eq!(s.live_threads, 16, "{s:?}");
    assert_clean(&pool);
    drop(pool);
}

#[test]
fn r32_oversized_or_non_utf8_source_is_rejected_before_compiling() {
    let big = format!("return 1; // {}", "x".repeat(64 * 1024));
    let r = run(&big);
    assert_eq!(err_kind(&r), Some(ErrorKind::Limit), "{:?}", r.error);
    assert_eq!(r.stats.startup_us, 0);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let r =
        rt.block_on(shared().execute_bytes(b"return \xff\xfe 1", FakeBridge::new(), test_limits()));
    assert_eq!(err_kind(&r), Some(ErrorKind::Script), "{:?}", r.error);
    assert!(err_msg(&r).contains("UTF-8"));
    assert_clean(shared());
    let _ = Arc::new(());
}
