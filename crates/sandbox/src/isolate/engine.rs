//! Engine-specific bits: the engine's name, heap-limit headroom and the
//! budgeted `ArrayBuffer` allocator. Everything else goes through the
//! rusty_v8 API that both engines (V8 and v8x/QuickJS) implement.

use std::sync::Arc;

use deno_core::v8;

pub(crate) use crate::sys::ArrayBufferBudget;

/// The engine patches this crate relies on (`docs/engine-patches.md`): without
/// them a snippet can corrupt the job's heap (`ArrayBuffer.prototype.transfer`).
/// A build that reached crates.io's v8x instead of the one this repository
/// vendors stops here ("cannot find value `TOOLSEARCH_ENGINE_PATCHES`"): add
/// `[patch.crates-io] v8x = { path = "<toolsearch>/vendor/v8x" }` to the
/// workspace's `Cargo.toml` (the README's "Embedding" section).
#[cfg(feature = "quickjs")]
const _: () = assert!(
    v8::TOOLSEARCH_ENGINE_PATCHES >= 13,
    "toolsearch-sandbox needs the v8x vendored in toolsearch's vendor/v8x"
);

/// The same for deno_core (`vendor/deno_core`, patches in
/// `vendor/deno_core-patches/`): its async op stubs must not hand a snippet
/// the op's internal promise. "cannot find value `TOOLSEARCH_PATCHES`": add
/// `[patch.crates-io] deno_core = { path = "<toolsearch>/vendor/deno_core" }`.
const _: () = assert!(
    deno_core::TOOLSEARCH_PATCHES >= 2,
    "toolsearch-sandbox needs the deno_core vendored in toolsearch's vendor/deno_core"
);

/// How many out-of-memory errors the engine itself threw in this runtime's
/// isolate (v8x patch 0013). V8 has no such script-visible error: its heap
/// limit reaches the sandbox through the near-heap-limit callback alone.
pub(crate) fn out_of_memory_count(runtime: &mut deno_core::JsRuntime) -> u64 {
    #[cfg(feature = "quickjs")]
    {
        v8::toolsearch_out_of_memory_count(runtime.v8_isolate())
    }
    #[cfg(not(feature = "quickjs"))]
    {
        let _ = runtime;
        0
    }
}

/// Process-wide engine settings, applied once before the first isolate exists.
///
/// On v8x/QuickJS: `V82JSC_NO_BC_CACHE` stops the engine from writing the
/// bytecode of every script (snippets included) to `~/.cache/v8x` and loading
/// it back keyed by a non-cryptographic hash; `QJS_NO_WASM` skips installing
/// WebAssembly, which the sandbox deletes anyway. Both are read by v8x on first
/// use, so they are set before any runtime is created. A variable the embedder
/// already set is left alone.
///
/// The entropy source (`sys::fill_random`: bytes from the OS, never kept across
/// a fork or a job) makes v8x's `Math.random` read it on every call, in every
/// context, cold or restored: there is no generator state for a forked job to
/// inherit from the template, nor for one job to leave to the next. (QuickJS
/// seeds its own generator once per context from the clock; a fork-per-job
/// worker replayed one sequence in every job.) On V8 it seeds each context's
/// generator.
pub(crate) fn configure_process() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        v8::V8::set_entropy_source(|buf: &mut [u8]| crate::sys::fill_random(buf));
        if cfg!(feature = "quickjs") {
            for var in ["V82JSC_NO_BC_CACHE", "QJS_NO_WASM"] {
                if std::env::var_os(var).is_none() {
                    std::env::set_var(var, "1");
                }
            }
        }
    });
}

/// A startup snapshot of deno_core's bootstrap plus the sandbox extension, made once
/// per process (on a scratch thread, inside a tokio runtime) and leaked: restoring
/// from it skips deno_core's bootstrap JS and, on v8x, the per-context polyfills.
/// Every restore still builds a private isolate, so nothing is shared between
/// snippets. `None` when the engine cannot snapshot; isolates are then built cold.
pub(crate) fn startup_snapshot() -> Option<&'static [u8]> {
    static SNAPSHOT: std::sync::OnceLock<Option<&'static [u8]>> = std::sync::OnceLock::new();
    *SNAPSHOT.get_or_init(|| {
        configure_process();
        // The first runtime of a process sets the engine flags; a snapshot runtime
        // would set `--predictable --random-seed=42`, making Math.random the same in
        // every sandbox. Initialise the platform with the normal flags first.
        deno_core::JsRuntime::init_platform(None);
        let made = std::thread::Builder::new()
            .name("sandbox-snapshot".into())
            .spawn(|| {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_time()
                    .build()
                    .ok()?;
                let _enter = rt.enter();
                std::panic::catch_unwind(|| {
                    let runtime =
                        deno_core::JsRuntimeForSnapshot::try_new(deno_core::RuntimeOptions {
                            extensions: vec![crate::isolate::ops::toolsearch_sandbox::init()],
                            ..Default::default()
                        })
                        .ok()?;
                    Some(runtime.snapshot())
                })
                .ok()
                .flatten()
            });
        match made.ok().and_then(|h| h.join().ok()).flatten() {
            Some(bytes) => Some(&*Box::leak(bytes)),
            None => {
                tracing::warn!(
                    "the JS engine could not make a startup snapshot; isolates start cold"
                );
                None
            }
        }
    })
}

/// Text the engine rewrites wherever it appears in a script's source, string
/// literals and comments included (v8x/QuickJS: `rewrite_dynamic_phase_imports`):
/// a snippet holding one would not run as written, and `import.defer` also makes
/// the engine install a global. (v8x's `%Name(...)` test-hook rewrites exist only
/// with `--allow-natives-syntax`, which the sandbox never sets: patch 0011.)
const REWRITTEN: &[&str] = &["import.defer", "import.source"];

/// The first text in `code` that this engine would rewrite before compiling it
/// (none on V8). Such a snippet is refused rather than run altered.
pub(crate) fn rewritten_text(code: &str) -> Option<&'static str> {
    if !cfg!(feature = "quickjs") {
        return None;
    }
    REWRITTEN.iter().copied().find(|t| code.contains(t))
}

/// Name of the engine this build runs on.
pub(crate) const fn engine_name() -> &'static str {
    if cfg!(feature = "quickjs") {
        "quickjs"
    } else {
        "v8"
    }
}

/// New heap limit returned from the near-heap-limit callback, after it asked
/// for termination. The engine needs room to unwind: V8 aborts the process
/// with a fatal OOM when the grace is too small (its last-resort GC wants
/// about `current + max(current, 1.1 GiB)`); v8x/QuickJS only needs enough to
/// unwind the terminated evaluation: a fixed 16 MiB, granted once (QuickJS
/// throws an ordinary out-of-memory error past it, which the runner reports).
/// Every allocation inside the engine (typed-array copies, `slice`, `map`,
/// strings) counts against this limit; only `ArrayBuffer`s made through the
/// budgeted allocator live outside it.
pub(crate) fn heap_headroom(current: usize) -> usize {
    if cfg!(feature = "quickjs") {
        current.saturating_add(16 << 20)
    } else {
        current.saturating_add(current.max(1_100 << 20))
    }
}

/// Create parameters for a sandbox isolate: heap limit plus a budgeted
/// `ArrayBuffer` allocator.
///
/// On v8x/QuickJS, giving the isolate a Rust allocator also makes v8x replace
/// the global `ArrayBuffer` constructor with one that allocates through it
/// (`v8x/src/quickjs/arraybuffer.rs`, `install_array_buffer_constructor`);
/// without it, `new ArrayBuffer(n)` memory is counted nowhere.
pub(crate) fn create_params(
    heap_bytes: usize,
    budget: &Arc<ArrayBufferBudget>,
) -> v8::CreateParams {
    let allocator = crate::sys::budget_allocator(budget.clone());
    v8::CreateParams::default()
        .heap_limits(0, heap_bytes)
        .array_buffer_allocator(allocator)
}

/// Isolate-wide restrictions: no wasm code generation, no `Atomics.wait`.
/// (Code generation from strings is disabled per context by the caller.)
pub(crate) fn restrict_isolate(isolate: &mut v8::Isolate) {
    isolate.set_allow_atomics_wait(false);
    isolate.set_allow_wasm_code_generation_callback(crate::sys::deny_wasm_codegen);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_refuses_past_cap_and_releases() {
        let b = ArrayBufferBudget::new(100);
        assert!(b.reserve(60));
        assert!(!b.reserve(50));
        b.release(60);
        assert!(b.reserve(100));
    }

    #[test]
    fn headroom_grows_the_limit() {
        assert!(heap_headroom(64 << 20) > 64 << 20);
    }

    /// v8x patch 0012: after a script replaced the globals the glue used to look
    /// up by name, each v8 API below still makes the engine's own value, and
    /// never calls the script's replacement.
    #[cfg(feature = "quickjs")]
    #[test]
    fn glue_reads_the_captured_intrinsics() {
        let mut rt = deno_core::JsRuntime::new(deno_core::RuntimeOptions::default());
        rt.execute_script(
            "poison.js",
            "globalThis.real = {TypeError, RangeError, Error, Set, Date, Symbol: Symbol.for, \
               freeze: Object.freeze, RegExp, Map}; \
             globalThis.hits = ''; const define = Reflect.defineProperty; \
             const spy = (name) => function () { hits += name + ','; return {} }; \
             for (const n of ['TypeError', 'RangeError', 'Error', 'SyntaxError', 'ReferenceError', \
               'Set', 'Map', 'Date', 'RegExp', 'Proxy', 'DataView', 'Promise', 'Reflect', 'Symbol']) \
               globalThis[n] = spy(n); \
             Object.freeze = spy('Object.freeze'); Object.seal = spy('Object.seal'); \
             Object.getOwnPropertyDescriptor = spy('Object.getOwnPropertyDescriptor'); \
             Object.defineProperty = spy('Object.defineProperty'); Array.from = spy('Array.from'); \
             Array.prototype.map = spy('Array.prototype.map'); \
             define(Array.prototype, 0, {set() { hits += 'Array.prototype[0],' }}); \
             define(Array.prototype, 1, {set() { hits += 'Array.prototype[1],' }}); \
             real.Symbol === Symbol.for || (Symbol.for = spy('Symbol.for')); \
             void new real.Error('probe').stack;",
        )
        .expect("poison");
        deno_core::scope!(scope, &mut rt);
        let msg = v8::String::new(scope, "m").unwrap();
        let errors = [
            ("TypeError", v8::Exception::type_error(scope, msg)),
            ("RangeError", v8::Exception::range_error(scope, msg)),
            ("Error", v8::Exception::error(scope, msg)),
        ];
        let global = scope.get_current_context().global(scope);
        let key = v8::String::new(scope, "real").unwrap();
        let real = global
            .get(scope, key.into())
            .unwrap()
            .to_object(scope)
            .unwrap();
        for (name, e) in errors {
            let k = v8::String::new(scope, name).unwrap();
            let ctor = real.get(scope, k.into()).unwrap().to_object(scope).unwrap();
            let proto_key = v8::String::new(scope, "prototype").unwrap();
            let proto = ctor.get(scope, proto_key.into()).unwrap();
            let e = e.to_object(scope).unwrap();
            assert!(
                e.get_prototype(scope).unwrap().strict_equals(proto),
                "{name}"
            );
        }
        let d = v8::String::new(scope, "Deno.core.internalPromiseId").unwrap();
        let sym = v8::Symbol::for_key(scope, d);
        let _ = v8::Private::for_api(scope, Some(d));
        let set = v8::Set::new(scope);
        let map = v8::Map::new(scope);
        let date = v8::Date::new(scope, 0.0);
        let obj = v8::Object::new(scope);
        let handler = v8::Object::new(scope);
        let proxy = v8::Proxy::new(scope, obj, handler);
        let iterator = v8::Symbol::get_iterator(scope);
        let elements = v8::Array::new_with_elements(scope, &[msg.into(), d.into()]);
        let frozen = obj.set_integrity_level(scope, v8::IntegrityLevel::Frozen);
        let _ = obj.get_own_property_descriptor(scope, msg.into());
        let pattern = v8::String::new(scope, "a+").unwrap();
        let re = v8::RegExp::new(scope, pattern, v8::RegExpCreationFlags::empty());
        assert!(set.is_set() && map.is_map() && date.is_some_and(|d| d.is_date()) && re.is_some());
        assert!(proxy.is_some_and(|p| p.is_proxy()));
        assert!(iterator.description(scope).is_string());
        assert_eq!(elements.length(), 2);
        assert!(elements
            .get_index(scope, 1)
            .unwrap()
            .strict_equals(d.into()));
        assert_eq!(frozen, Some(true));
        let hits_key = v8::String::new(scope, "hits").unwrap();
        let seen = global
            .get(scope, hits_key.into())
            .unwrap()
            .to_rust_string_lossy(scope);
        assert!(seen.is_empty(), "the glue called the script's {seen:?}");
        // The engine's registry: the same symbol a script's original Symbol.for gives.
        let key = v8::String::new(scope, "Symbol").unwrap();
        let real_for = real.get(scope, key.into()).unwrap();
        let real_for: v8::Local<v8::Function> = real_for.try_into().unwrap();
        let undefined = v8::undefined(scope).into();
        let same = real_for.call(scope, undefined, &[d.into()]).unwrap();
        assert!(same.strict_equals(sym.into()));
    }
}
