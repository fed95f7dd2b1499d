//! Issue 64: the host's own code inside the isolate (v8x's and deno_core's glue, the
//! prelude) trusts nothing a snippet sets. Three classes, each a test on the thread,
//! fork and in-process paths:
//!
//! - **glue**: a snippet that poisons what the glue used to read at run time (the
//!   engine's test-hook global, `Symbol.for`, `Promise`, a setter on
//!   `Object.prototype` for deno_core's promise-id symbol) changes nothing the
//!   glue does, and is never called by it;
//! - **not awaited**: the report of calls that never ran is bounded and built
//!   from strings, without an array, `toJSON` or anything else a snippet can replace;
//! - **memory**: the kind `memory` comes from the engine or the host, never from an
//!   error a script made, and a forged one replaces no worker.
//!
//! `docs/engine-patches.md` ("What the glue reads at run time") lists each read.

use serde_json::{json, Value};
use toolsearch_sandbox::{ErrorKind, ExecResult, Pool};

use crate::common::*;

#[derive(Clone, Copy, Debug)]
enum Path {
    Thread,
    Fork,
    InProcess,
}

/// Runs `body` with a one-worker pool on `path`; the process paths in a test
/// process of their own (the worker's settings come from the environment, and
/// `body` may count this process's children).
fn on(test: &str, path: Path, body: impl FnOnce(&Pool, Path)) {
    match path {
        Path::Thread => body(&pool(1), path),
        Path::Fork | Path::InProcess => in_own_process(test, || {
            if let Path::InProcess = path {
                std::env::set_var("TOOLSEARCH_SANDBOX_FORK", "0");
            }
            body(&process_pool(1, test_limits()), path)
        }),
    }
}

fn exec(pool: &Pool, code: &str) -> ExecResult {
    pool.execute_blocking(code, FakeBridge::new())
}

fn value_of(pool: &Pool, path: Path, code: &str) -> Value {
    let r = exec(pool, code);
    assert!(r.ok, "{path:?}: {:?}\ncode: {code}", r.error);
    r.value
}

// ---- glue -----------------------------------------------------------------------

/// Each snippet poisons one thing the glue read at run time, then makes the glue
/// run (op calls of every kind, logs, a rejected call, an `import()`), and returns
/// what the poison saw.
const GLUE: &[(&str, &str)] = &[
    (
        // v8x's fast-call test hook: read on every op call while it existed.
        "let reads = 0; \
         Object.defineProperty(globalThis, '__v8x_fast_api_next_call', \
           {get() { reads++; return 1000; }, set(v) {}, configurable: true}); \
         console.log('one'); console.log('two'); \
         await openclaw.tools.search('echo'); await openclaw.tools.describe('echo'); \
         await openclaw.tools.call('echo', {a: 1}); \
         return reads;",
        "0",
    ),
    (
        // The plain assignment form: the glue neither reads nor decrements it.
        "globalThis.__v8x_fast_api_next_call = 1000; \
         for (let i = 0; i < 5; i++) console.log('line ' + i); \
         const hits = await openclaw.tools.search('echo'); \
         return [hits.length, globalThis.__v8x_fast_api_next_call];",
        "[1,1000]",
    ),
    (
        // The `%OptimizeFunctionOnNextCall(` rewrite is off: text, not a hook.
        "return '%OptimizeFunctionOnNextCall(f)'.length;",
        "30",
    ),
    (
        // Symbol.for: v8x made registered symbols by evaluating `Symbol.for(...)`.
        "let calls = 0; const real = Symbol.for; \
         Symbol.for = function (d) { calls++; return real(d); }; \
         await openclaw.tools.search('echo'); console.log('x'); \
         try { await openclaw.tools.call('fail', {}); } catch (e) {} \
         try { await openclaw.tools.call('nope', {}); } catch (e) {} \
         try { await import('nothing'); } catch (e) {} \
         Promise.reject(new Error('unawaited')); \
         return calls;",
        "0",
    ),
    (
        // Error constructors by name: glue-made errors are the engine's own.
        // (`Error` itself the prelude makes read-only.)
        "let made = 0; const E = Error; \
         const names = ['TypeError', 'RangeError', 'SyntaxError', 'ReferenceError', 'EvalError', 'URIError']; \
         for (const n of names) { const C = globalThis[n]; \
           globalThis[n] = function (...a) { made++; return new C(...a); }; \
           globalThis[n].prototype = C.prototype; } \
         try { await openclaw.tools.call('fail', {}); } catch (e) {} \
         try { await import('nothing'); } catch (e) {} \
         try { eval('1'); } catch (e) {} \
         try { new Function('return 1'); } catch (e) {} \
         console.log(new E('logged')); \
         return made;",
        "0",
    ),
    (
        // deno_core's async op stub assigned its promise id: a setter on
        // Object.prototype received the internal op promise and its raw answer.
        "let leaked = null; \
         Object.defineProperty(Object.prototype, Symbol.for('Deno.core.internalPromiseId'), \
           {set(v) { leaked = this; }, get() { return undefined; }, configurable: true}); \
         const r = await openclaw.tools.call('echo', {a: 1}); \
         await openclaw.tools.search('echo'); \
         let raw = null; if (leaked !== null) { try { raw = await leaked; } catch (e) { raw = String(e); } } \
         return [r.a, leaked === null, raw];",
        "[1,true,null]",
    ),
    (
        // The global Promise: glue helpers evaluated at run time named it.
        "let seen = 0; const P = Promise; \
         globalThis.Promise = new Proxy(P, {get(t, k, r) { seen++; return Reflect.get(t, k, r); }, \
           construct(t, a, n) { seen++; return Reflect.construct(t, a, n); }}); \
         try { await import('nothing'); } catch (e) {} \
         try { await import('nothing', {with: {type: 'json'}}); } catch (e) {} \
         await openclaw.tools.call('echo', {}); console.log('y'); \
         return seen;",
        "0",
    ),
    (
        // Every error's stack: v8x made its call sites with `Array.prototype.map`
        // and stored them with `[[Set]]`, so a script ran inside each stack capture
        // and could forge the position the sandbox reports.
        "let seen = 0; Array.prototype.map = function () { seen++; return []; }; \
         Object.defineProperty(Array.prototype, 0, {set(v) { seen++; }, configurable: true}); \
         const s = new Error('x').stack; let t = ''; try { null.x; } catch (e) { t = e.stack; } \
         delete Array.prototype[0]; \
         return [seen, s.startsWith('snippet.js:'), t.startsWith('snippet.js:')];",
        "[0,true,true]",
    ),
    (
        // No engine-internal global is reachable, even after code that makes the
        // engine install its helpers.
        "try { await import('nothing'); } catch (e) {} \
         const f = () => 1; void f; \
         return Reflect.ownKeys(globalThis).filter((k) => typeof k !== 'string' || k.startsWith('__') \
           || k.startsWith('v8') || k.startsWith('Deno')).map(String);",
        "[]",
    ),
];

fn glue_on(test: &str, path: Path) {
    on(test, path, |pool, path| {
        for (code, want) in GLUE {
            let r = exec(pool, code);
            assert!(r.ok, "{path:?}: {:?}\ncode: {code}", r.error);
            assert_eq!(r.value.to_string(), *want, "{path:?}\ncode: {code}");
            if code.contains("'one'") {
                let lines: Vec<&str> = r.logs.iter().map(|l| l.text.as_str()).collect();
                assert_eq!(lines, ["one", "two"], "{path:?}: log order");
            }
        }
    });
}

#[test]
fn glue_trusts_nothing_a_snippet_sets_on_threads() {
    glue_on(
        "glue::glue_trusts_nothing_a_snippet_sets_on_threads",
        Path::Thread,
    );
}

#[test]
fn glue_trusts_nothing_a_snippet_sets_on_the_fork_path() {
    glue_on(
        "glue::glue_trusts_nothing_a_snippet_sets_on_the_fork_path",
        Path::Fork,
    );
}

#[test]
fn glue_trusts_nothing_a_snippet_sets_in_process() {
    glue_on(
        "glue::glue_trusts_nothing_a_snippet_sets_in_process",
        Path::InProcess,
    );
}

// ---- not awaited ----------------------------------------------------------------

/// Each snippet leaves calls un-awaited after poisoning what a report built with
/// `JSON.stringify` would run; `want` is (value, count, ids).
const NOT_AWAITED: &[(&str, &str, u32, &[&str])] = &[
    (
        // An object id (a model passing describe()'s result): bounded, value kept.
        "openclaw.tools.call({a: 'x'.repeat(300000)}, {}); return 1;",
        "1",
        1,
        &["(an object, not a tool id)"],
    ),
    (
        "Object.defineProperty(Array.prototype, 0, {set(v) { throw 1; }, configurable: true}); \
         openclaw.tools.call('echo', {}); return 2;",
        "2",
        1,
        &["echo"],
    ),
    (
        "Object.prototype.toJSON = function () { return 'forged'; }; \
         openclaw.tools.call('echo', {}); openclaw.tools.call('add', {}); return {n: 3};",
        "\"forged\"",
        2,
        &["echo", "add"],
    ),
    (
        "Object.defineProperty(Object.prototype, 'length', {get() { throw 1; }, configurable: true}); \
         String.prototype.slice = () => 'sliced'; \
         openclaw.tools.call('a\"b\\\\c\\n\\u2028', {}); return 4;",
        "4",
        1,
        &["a\"b\\c\n\u{2028}"],
    ),
    (
        "for (let i = 0; i < 20; i++) openclaw.tools.call('id' + i + '-' + 'y'.repeat(1000), {}); \
         openclaw.tools.call(42, {}); return 5;",
        "5",
        21,
        &[],
    ),
];

fn not_awaited_on(test: &str, path: Path) {
    on(test, path, |pool, path| {
        for (code, value, count, ids) in NOT_AWAITED {
            let r = exec(pool, code);
            assert_kind(&r, ErrorKind::NotAwaited, path, code);
            assert_eq!(r.value.to_string(), *value, "{path:?}\ncode: {code}");
            assert_eq!(r.stats.not_awaited, *count, "{path:?}\ncode: {code}");
            if ids.is_empty() {
                // 21 calls: the first 16 named, each id cut to 256 characters.
                assert_eq!(r.not_awaited.len(), 16, "{path:?}: {:?}", r.not_awaited);
                assert!(
                    r.not_awaited[0].starts_with("id0-yyy"),
                    "{:?}",
                    r.not_awaited
                );
                assert!(
                    r.not_awaited.iter().all(|id| id.chars().count() <= 257),
                    "{path:?}: {:?}",
                    r.not_awaited
                );
            } else {
                assert_eq!(r.not_awaited, *ids, "{path:?}\ncode: {code}");
            }
        }
        // The next job's report starts empty.
        assert_eq!(value_of(pool, path, "return 6"), json!(6));
    });
}

#[test]
fn not_awaited_tells_the_truth_on_threads() {
    not_awaited_on("glue::not_awaited_tells_the_truth_on_threads", Path::Thread);
}

#[test]
fn not_awaited_tells_the_truth_on_the_fork_path() {
    not_awaited_on(
        "glue::not_awaited_tells_the_truth_on_the_fork_path",
        Path::Fork,
    );
}

#[test]
fn not_awaited_tells_the_truth_in_process() {
    not_awaited_on(
        "glue::not_awaited_tells_the_truth_in_process",
        Path::InProcess,
    );
}

// ---- memory ---------------------------------------------------------------------

/// Errors a script makes that look like the engine's out-of-memory error or the
/// ArrayBuffer budget's: each is kind `script`.
const FORGED: &[&str] = &[
    "throw new InternalError('out of memory');",
    "await Promise.reject(new InternalError('out of memory'));",
    "throw Object.setPrototypeOf({message: 'out of memory', name: 'InternalError'}, InternalError.prototype);",
    "const e = new InternalError('x'); Object.defineProperty(e, 'message', {value: 'out of memory'}); throw e;",
    "new ArrayBuffer(-1);",
    "new Uint8Array(-5);",
    // A request larger than the whole budget never met memory pressure.
    "try { new ArrayBuffer(2 ** 40); } catch {} throw new InternalError('out of memory');",
    "try { new Uint8Array(2 ** 40); } catch {} throw new InternalError('out of memory');",
    "try { new ArrayBuffer(8).transfer(2 ** 40); } catch {} throw new InternalError('out of memory');",
    // A length check that allocates nothing (past the longest string).
    "const s = '\\u0100'.repeat(16385); try { s.concat(...Array(65534).fill(s)); } catch {} \
     throw new InternalError('out of memory');",
];

/// Real exhaustion: the heap, and the ArrayBuffer budget. Each stays `memory`.
const REAL: &[&str] = &[
    "const a = []; for (;;) a.push('x'.repeat(1 << 20) + a.length);",
    "const keep = []; for (;;) keep.push(new ArrayBuffer(1 << 20));",
];

fn assert_kind(r: &ExecResult, want: ErrorKind, path: Path, code: &str) {
    assert_eq!(
        r.error.as_ref().map(|e| e.kind),
        Some(want),
        "{path:?}: {:?}\ncode: {code}",
        r.error
    );
}

fn memory_on(test: &str, path: Path) {
    on(test, path, |pool, path| {
        // Kind `script`: the pool replaces a non-forking worker only after a job
        // ending `memory`, `crashed`, `engine` or `timeout` (`pool/processes.rs`).
        exec(pool, "return 1");
        let workers = worker_pids();
        for _ in 0..2 {
            for code in FORGED {
                let r = exec(pool, code);
                assert_kind(&r, ErrorKind::Script, path, code);
                assert!(!err_msg(&r).contains("budget"), "{path:?}: {}", err_msg(&r));
            }
        }
        if let Path::InProcess = path {
            assert_eq!(worker_pids(), workers, "a forged error replaced the worker");
        }
        // Uncaught, such a request says what it met, as a script error.
        let r = exec(pool, "new ArrayBuffer(2 ** 40);");
        assert_kind(&r, ErrorKind::Script, path, "");
        assert!(err_msg(&r).contains("budget"), "{path:?}: {}", err_msg(&r));
        for code in REAL {
            let r = exec(pool, code);
            assert_kind(&r, ErrorKind::Memory, path, code);
        }
        if let Path::InProcess = path {
            // What the check above would have seen: a real exhaustion does
            // replace the worker.
            exec(pool, "return 1");
            assert_ne!(worker_pids(), workers, "a real exhaustion kept its worker");
        }
        // A real exhaustion caught by the snippet, then a forged error thrown: the
        // engine ran out during the job, so it stays `memory`.
        let r = exec(
            pool,
            "try { const keep = []; for (;;) keep.push(new ArrayBuffer(1 << 20)); } catch (e) {} \
             throw new InternalError('out of memory');",
        );
        assert_kind(&r, ErrorKind::Memory, path, "");
        assert_eq!(value_of(pool, path, "return [1, 2].join()"), json!("1,2"));
    });
}

#[test]
fn only_the_engine_or_the_host_says_memory_on_threads() {
    memory_on(
        "glue::only_the_engine_or_the_host_says_memory_on_threads",
        Path::Thread,
    );
}

#[test]
fn only_the_engine_or_the_host_says_memory_on_the_fork_path() {
    memory_on(
        "glue::only_the_engine_or_the_host_says_memory_on_the_fork_path",
        Path::Fork,
    );
}

#[test]
fn only_the_engine_or_the_host_says_memory_in_process() {
    memory_on(
        "glue::only_the_engine_or_the_host_says_memory_in_process",
        Path::InProcess,
    );
}
