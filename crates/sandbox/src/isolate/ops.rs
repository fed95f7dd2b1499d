//! The deno_core extension: the bridge ops the scrub script captures, and the
//! per-job state they account into.
//!
//! Every op returns a string the scrub script decodes: `"1" + JSON` or
//! `"0" + CODE + "\n" + message`, so no deno_core error class machinery and
//! no serde walk of JS values is involved. Bridge calls run inside
//! `catch_unwind` (a panic inside an op would abort the process).

use std::cell::RefCell;

use std::panic::AssertUnwindSafe;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use deno_core::futures::FutureExt;
use deno_core::{op2, OpDecl, OpState};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::bridge::{Bridge, BridgeError, BridgeErrorCode};
pub(crate) use crate::encode::{encode_bridge_err, encode_err, encode_ok};
use crate::isolate::journal::{lock, Journal};
use crate::limits::{Limits, MAX_ID_BYTES, MAX_JSON_DEPTH, PENDING_ARG_BYTES};
use crate::result::{CallRecord, CallStatus, LogLevel, LogLine};

/// Per-job state put into the `OpState` right before the snippet runs.
pub(crate) struct JobCtx {
    pub bridge: Arc<dyn Bridge>,
    pub limits: Limits,
    pub journal: Arc<Mutex<Journal>>,
    /// Fired when the job ends for any reason; every call gets a child token.
    pub cancel: CancellationToken,
    pub slots: Arc<Semaphore>,
    /// The job's clock; a bridge call runs with it (`clock::pause_for_a_person`).
    pub clock: crate::clock::JobClock,
}

deno_core::extension!(
    toolsearch_sandbox,
    ops = [
        op_ts_search,
        op_ts_describe,
        op_ts_call,
        op_ts_log,
        op_ts_reject
    ],
    middleware = disable_unlisted_ops,
);

/// The ops a snippet's runtime may call: the bridge ops of this extension and
/// the few of deno_core's own that its bootstrap and event loop call (promise
/// rejections, microtasks, exceptions, op ref counting). Every other op
/// (deno_core's built-ins, and any a deno_core upgrade adds) is registered
/// but disabled: it throws when called, even if a reference to it leaks past
/// the scrub. `REGISTERED_OPS` in the tests lists what deno_core registers, so
/// an upgrade that adds one fails a test until it is reviewed.
pub(crate) const ALLOWED_OPS: &[&str] = &[
    // this extension
    "op_ts_search",
    "op_ts_describe",
    "op_ts_call",
    "op_ts_log",
    "op_ts_reject",
    // deno_core's machinery (and the scrub's refusal of wasm streaming)
    "op_abort_wasm_streaming",
    "op_add_main_module_handler",
    "op_current_user_call_site",
    "op_destructure_error",
    "op_dispatch_exception",
    "op_drain_pending_rejections",
    "op_event_loop_has_more_work",
    "op_get_ext_import_meta_proto",
    "op_get_extras_binding_object",
    "op_immediate_check",
    "op_load_ext_script",
    "op_op_names",
    "op_ref_op",
    "op_run_microtasks",
    "op_set_captured_bootstrap",
    "op_set_format_exception_callback",
    "op_set_handled_promise_rejection_handler",
    "op_set_wasm_streaming_callback",
    "op_unref_op",
];

/// Disables every op not in [`ALLOWED_OPS`].
fn disable_unlisted_ops(op: OpDecl) -> OpDecl {
    if ALLOWED_OPS.contains(&op.name) {
        op
    } else {
        op.disable()
    }
}

/// Encodes a search or describe answer; `Err` means the bridge panicked.
pub(crate) fn encode_lookup(
    out: std::thread::Result<Result<serde_json::Value, BridgeError>>,
    cap: usize,
    what: &str,
) -> String {
    match out {
        Ok(Ok(v)) => encode_ok(&v, cap, what).unwrap_or_else(|e| e),
        Ok(Err(e)) => encode_bridge_err(&e, cap),
        Err(_) => encode_err(BridgeErrorCode::Unavailable, "the tool catalog failed"),
    }
}

/// Awaits a bridge call; `Err(())` when it panicked (a panic must not reach the engine).
pub(crate) async fn catch_panic(
    fut: crate::bridge::BridgeFuture,
) -> Result<Result<serde_json::Value, BridgeError>, ()> {
    AssertUnwindSafe(fut).catch_unwind().await.map_err(|_| ())
}

/// A finished tool call: the string handed to JS and what its record keeps.
pub(crate) struct CallOutcome {
    pub payload: String,
    pub status: CallStatus,
    pub code: Option<BridgeErrorCode>,
    pub result: Option<serde_json::Value>,
}

/// Encodes a tool call's answer (capped at `cap` bytes); `Err(())` means it panicked.
pub(crate) fn encode_call(
    out: Result<Result<serde_json::Value, BridgeError>, ()>,
    cap: usize,
) -> CallOutcome {
    let failed = |payload, code| CallOutcome {
        payload,
        status: CallStatus::Error,
        code: Some(code),
        result: None,
    };
    match out {
        Ok(Ok(v)) => match encode_ok(&v, cap, "the tool result") {
            Ok(payload) => CallOutcome {
                payload,
                status: CallStatus::Ok,
                code: None,
                result: Some(v),
            },
            Err(e) => failed(e, BridgeErrorCode::Limit),
        },
        Ok(Err(e)) => failed(encode_bridge_err(&e, cap), e.code),
        Err(()) => failed(
            encode_err(BridgeErrorCode::Unavailable, "the tool failed unexpectedly"),
            BridgeErrorCode::Unavailable,
        ),
    }
}

/// Validates a tool id: no control, format (bidi) or replacement characters.
fn check_id(id: &str) -> Result<(), String> {
    let bad = id.is_empty()
        || id.len() > MAX_ID_BYTES
        || id.chars().any(|c| {
            c.is_control()
                || c.is_whitespace()
                || c == '\u{FFFD}'
                || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
        });
    if bad {
        Err(encode_err(
            BridgeErrorCode::InvalidArgs,
            "invalid tool id: use an id exactly as returned by search()",
        ))
    } else {
        Ok(())
    }
}

/// What a lookup needs from the job context.
type JobParts = (Arc<dyn Bridge>, Limits, Arc<Mutex<Journal>>);

fn ctx_parts(state: &OpState) -> Option<JobParts> {
    let ctx = state.try_borrow::<JobCtx>()?;
    Some((ctx.bridge.clone(), ctx.limits.clone(), ctx.journal.clone()))
}

fn no_job() -> String {
    encode_err(BridgeErrorCode::Unavailable, "no job is running")
}

fn reject(journal: &Mutex<Journal>, err: String) -> String {
    lock(journal).stats.rejected += 1;
    err
}

/// Runs a sync bridge method with lookup accounting and panic containment.
fn lookup(
    state: &OpState,
    arg: &str,
    is_search: bool,
    encoded: impl FnOnce(&dyn Bridge) -> Option<String>,
    f: impl FnOnce(&dyn Bridge) -> Result<serde_json::Value, BridgeError>,
) -> String {
    let Some((bridge, limits, journal)) = ctx_parts(state) else {
        return no_job();
    };
    {
        let mut j = lock(&journal);
        if j.stats.searches + j.stats.describes >= limits.max_lookups {
            j.stats.rejected += 1;
            return encode_err(
                BridgeErrorCode::Limit,
                &format!(
                    "at most {} search/describe calls per snippet",
                    limits.max_lookups
                ),
            );
        }
        if is_search {
            j.stats.searches += 1;
        } else {
            j.stats.describes += 1;
        }
        j.stats.bytes_out += arg.len() as u64;
    }
    // A worker's proxy hands on the text its host encoded (one encode, on the
    // host; one parse, in JS); a bridge on this side is asked for a value and
    // encoded here, once.
    let s = match std::panic::catch_unwind(AssertUnwindSafe(|| encoded(&*bridge))) {
        Ok(Some(text)) => text,
        Ok(None) => {
            let out = std::panic::catch_unwind(AssertUnwindSafe(|| f(&*bridge)));
            let what = if is_search {
                "the search result"
            } else {
                "the description"
            };
            encode_lookup(out, limits.tool_result_bytes, what)
        }
        Err(_) => encode_err(BridgeErrorCode::Unavailable, "the tool catalog failed"),
    };
    lock(&journal).stats.bytes_in += s.len() as u64;
    s
}

#[op2]
#[string]
fn op_ts_search(state: &mut OpState, #[string] query: String, limit: i32) -> String {
    let Some((_, limits, journal)) = ctx_parts(state) else {
        return no_job();
    };
    if query.len() > limits.query_bytes {
        return reject(
            &journal,
            encode_err(
                BridgeErrorCode::InvalidArgs,
                &format!("search: query is longer than {} bytes", limits.query_bytes),
            ),
        );
    }
    let limit = u32::try_from(limit).ok().filter(|&l| l > 0);
    lookup(
        state,
        &query,
        true,
        |b| b.search_encoded(&query, limit),
        |b| b.search(&query, limit),
    )
}

#[op2]
#[string]
fn op_ts_describe(state: &mut OpState, #[string] id: String) -> String {
    if let Err(e) = check_id(&id) {
        return match ctx_parts(state) {
            Some((_, _, journal)) => reject(&journal, e),
            None => e,
        };
    }
    lookup(
        state,
        &id,
        false,
        |b| b.describe_encoded(&id),
        |b| b.describe(&id),
    )
}

#[op2(fast)]
fn op_ts_reject(state: &mut OpState) {
    if let Some((_, _, journal)) = ctx_parts(state) {
        lock(&journal).stats.rejected += 1;
    }
}

/// Appends a console line; returns false once the log budget is exhausted.
#[op2(fast)]
fn op_ts_log(state: &mut OpState, #[smi] level: u32, #[string] text: &str) -> bool {
    let Some(ctx) = state.try_borrow::<JobCtx>() else {
        return false;
    };
    let cap = ctx.limits.log_bytes;
    let mut j = lock(&ctx.journal);
    let remaining = cap.saturating_sub(j.log_bytes);
    if remaining == 0 {
        j.stats.logs_dropped += 1;
        return false;
    }
    let level = match level {
        1 => LogLevel::Warn,
        2 => LogLevel::Error,
        _ => LogLevel::Log,
    };
    // A line costs what it takes once emitted: its escaped text plus the
    // record around it, so neither empty lines nor control characters let
    // the printed logs outgrow the budget.
    let cost = LOG_LINE_OVERHEAD + crate::util::emitted_len(text);
    let text = if cost <= remaining {
        j.log_bytes += cost;
        text.to_owned()
    } else {
        j.log_bytes = cap;
        let room = remaining.saturating_sub(LOG_LINE_OVERHEAD) / 6;
        let mut t = crate::util::truncate(text, room).to_owned();
        t.push_str(" …[log budget exhausted]");
        t
    };
    j.stats.bytes_out += text.len() as u64;
    j.logs.push(LogLine { level, text });
    true
}

/// What one log line adds around its text when emitted as JSON
/// (`{"level": "warn", "text": ""},` plus indentation).
const LOG_LINE_OVERHEAD: usize = 48;

/// Keeps a tool result in the call records while their emitted size stays
/// within `cap` (`kept` counts what is kept so far).
pub(crate) fn keep_result(kept: &mut usize, payload: &str, cap: usize) -> bool {
    let len = crate::util::emitted_json_len(payload);
    let fits = kept.saturating_add(len) <= cap;
    if fits {
        *kept += len;
    }
    fits
}

#[op2]
#[string]
async fn op_ts_call(
    state: Rc<RefCell<OpState>>,
    #[string] id: String,
    #[string] args: String,
) -> String {
    let (bridge, limits, journal, token, slots, clock) = {
        let st = state.borrow();
        let Some(ctx) = st.try_borrow::<JobCtx>() else {
            return no_job();
        };
        (
            ctx.bridge.clone(),
            ctx.limits.clone(),
            ctx.journal.clone(),
            ctx.cancel.child_token(),
            ctx.slots.clone(),
            ctx.clock.clone(),
        )
    };
    if let Err(e) = check_id(&id) {
        return reject(&journal, e);
    }
    if args.len() > limits.arg_bytes {
        return reject(
            &journal,
            encode_err(
                BridgeErrorCode::InvalidArgs,
                &format!(
                    "call: arguments are larger than {} bytes of JSON",
                    limits.arg_bytes
                ),
            ),
        );
    }
    // Checked on the text, nothing parsed: a call waiting for a slot holds
    // only its bytes (counted below), never a parsed copy.
    let is_object = args.trim_start().starts_with('{');
    if !is_object {
        return reject(
            &journal,
            encode_err(
                BridgeErrorCode::InvalidArgs,
                "call: args must be a JSON object",
            ),
        );
    }
    if crate::util::json_deeper_than(args.as_bytes(), MAX_JSON_DEPTH) {
        return reject(
            &journal,
            encode_err(
                BridgeErrorCode::InvalidArgs,
                &format!(
                    "call: arguments nest arrays and objects more than {MAX_JSON_DEPTH} levels deep"
                ),
            ),
        );
    }
    let seq = {
        let mut j = lock(&journal);
        if j.stats.calls >= limits.max_calls {
            j.stats.rejected += 1;
            return encode_err(
                BridgeErrorCode::Limit,
                &format!("at most {} tool calls per snippet", limits.max_calls),
            );
        }
        let room = PENDING_ARG_BYTES.max(limits.arg_bytes);
        if j.pending_arg_bytes.saturating_add(args.len()) > room {
            j.stats.rejected += 1;
            return encode_err(
                BridgeErrorCode::Limit,
                &format!(
                    "calls waiting for one of the {} in-flight slots already hold {} bytes of \
                     arguments (at most {room}); await some calls before starting more",
                    limits.max_in_flight, j.pending_arg_bytes
                ),
            );
        }
        j.pending_arg_bytes += args.len();
        j.stats.calls += 1;
        j.stats.bytes_out += (id.len() + args.len()) as u64;
        j.stats.called_ids.push(id.clone());
        let seq = j.next_call;
        j.next_call += 1;
        j.in_flight.insert(seq, (id.clone(), Instant::now()));
        seq
    };
    let pending = Pending {
        journal: journal.clone(),
        bytes: args.len(),
    };
    // Wait for a slot; the permit is released when this future ends or is dropped.
    let Ok(_permit) = slots.acquire_owned().await else {
        return encode_err(BridgeErrorCode::Unavailable, "the sandbox is shutting down");
    };
    drop(pending);
    let raw = match serde_json::value::RawValue::from_string(args) {
        Ok(raw) => raw,
        Err(e) => {
            lock(&journal).in_flight.remove(&seq);
            return encode_err(
                BridgeErrorCode::InvalidArgs,
                &format!("call: the arguments are not JSON: {e}"),
            );
        }
    };
    let started = Instant::now();
    let fut = std::panic::catch_unwind(AssertUnwindSafe(|| {
        bridge.call_json(&id, raw, token.clone())
    }));
    let out = match fut {
        Ok(fut) => {
            tokio::select! {
                r = crate::clock::with_clock(clock, catch_panic(fut)) => r,
                _ = token.cancelled() => Ok(Err(BridgeError::new(BridgeErrorCode::Timeout, "the snippet ended before the tool answered"))),
            }
        }
        Err(_) => Err(()),
    };
    let ms = started.elapsed().as_millis() as u64;
    let CallOutcome {
        payload: s,
        status,
        code,
        result,
    } = encode_call(out, limits.tool_result_bytes);
    let mut j = lock(&journal);
    j.in_flight.remove(&seq);
    j.stats.bytes_in += s.len() as u64;
    let mut kept = j.kept_result_bytes;
    let result = result.filter(|_| keep_result(&mut kept, &s, limits.result_bytes));
    j.kept_result_bytes = kept;
    j.calls.push(CallRecord {
        id,
        status,
        code,
        result,
        ms,
    });
    s
}

/// The arguments of a call waiting for a slot, counted in its job's journal
/// until it gets one or is dropped.
struct Pending {
    journal: Arc<Mutex<Journal>>,
    bytes: usize,
}

impl Drop for Pending {
    fn drop(&mut self) {
        let mut j = lock(&self.journal);
        j.pending_arg_bytes = j.pending_arg_bytes.saturating_sub(self.bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every op a sandbox runtime registers (deno_core 0.413's built-ins and
    /// this extension's), reviewed: an upgrade that adds one fails
    /// `only_the_allowed_ops_run` until the new op is looked at (it stays
    /// disabled unless it is added to `ALLOWED_OPS`).
    const REGISTERED_OPS: &[&str] = &[
        "op_close",
        "op_try_close",
        "op_cancel_read",
        "op_print",
        "op_resources",
        "op_wasm_streaming_feed",
        "op_wasm_streaming_set_url",
        "op_void_sync",
        "op_error_async",
        "op_error_async_deferred",
        "op_void_async",
        "op_void_async_deferred",
        "op_add",
        "op_add_async",
        "op_read",
        "op_read_all",
        "op_write",
        "op_read_sync",
        "op_write_sync",
        "op_write_all",
        "op_pipe",
        "op_write_type_error",
        "op_shutdown",
        "op_str_byte_length",
        "op_panic",
        "op_cancel_handle",
        "op_encode_binary_string",
        "op_is_terminal",
        "op_import_sync",
        "op_import_sync_with_source",
        "op_is_any_array_buffer",
        "op_is_arguments_object",
        "op_is_array_buffer",
        "op_is_array_buffer_view",
        "op_is_async_function",
        "op_is_big_int_object",
        "op_is_boolean_object",
        "op_is_boxed_primitive",
        "op_is_data_view",
        "op_is_date",
        "op_is_generator_function",
        "op_is_generator_object",
        "op_is_map",
        "op_is_map_iterator",
        "op_is_module_namespace_object",
        "op_is_native_error",
        "op_is_number_object",
        "op_is_promise",
        "op_is_proxy",
        "op_is_reg_exp",
        "op_is_set",
        "op_is_set_iterator",
        "op_is_shared_array_buffer",
        "op_is_string_object",
        "op_is_symbol_object",
        "op_is_typed_array",
        "op_is_weak_map",
        "op_is_weak_set",
        "op_add_main_module_handler",
        "op_set_handled_promise_rejection_handler",
        "op_timer_schedule",
        "op_timer_track",
        "op_timer_untrack",
        "op_timer_now",
        "op_ref_op",
        "op_unref_op",
        "op_lazy_load_esm",
        "op_load_ext_script",
        "op_set_captured_bootstrap",
        "op_run_microtasks",
        "op_drain_pending_rejections",
        "op_compile_function",
        "op_eval_context",
        "op_encode",
        "op_decode",
        "op_serialize",
        "op_deserialize",
        "op_structured_clone",
        "op_set_promise_hooks",
        "op_get_promise_details",
        "op_get_proxy_details",
        "op_get_non_index_property_names",
        "op_get_constructor_name",
        "op_get_extras_binding_object",
        "op_memory_usage",
        "op_set_wasm_streaming_callback",
        "op_abort_wasm_streaming",
        "op_destructure_error",
        "op_dispatch_exception",
        "op_op_names",
        "op_current_user_call_site",
        "op_set_format_exception_callback",
        "op_event_loop_has_more_work",
        "op_immediate_check",
        "op_leak_tracing_enable",
        "op_leak_tracing_submit",
        "op_leak_tracing_get_all",
        "op_leak_tracing_get",
        "op_get_ext_import_meta_proto",
        "op_ts_search",
        "op_ts_describe",
        "op_ts_call",
        "op_ts_log",
        "op_ts_reject",
    ];

    #[test]
    fn only_the_allowed_ops_run() {
        crate::isolate::engine::configure_process();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let _enter = rt.enter();
        let mut js = deno_core::JsRuntime::new(deno_core::RuntimeOptions {
            extensions: vec![toolsearch_sandbox::init()],
            ..Default::default()
        });
        let mut names = js.op_names();
        names.sort_unstable();
        let mut reviewed = REGISTERED_OPS.to_vec();
        reviewed.sort_unstable();
        assert_eq!(
            names, reviewed,
            "deno_core registers other ops: review them"
        );
        for op in ALLOWED_OPS {
            assert!(
                REGISTERED_OPS.contains(op),
                "{op} is allowed but not registered"
            );
        }
        // Every other op throws when called, whatever its arguments (an async
        // one rejects its promise).
        let probe = format!(
            "const allowed = new Set({allowed:?}); globalThis.ran = [];
             const refused = (name, e) => {{
               if (!String(e).includes('op is disabled')) ran.push(name + ': ' + e);
             }};
             for (const name of Object.keys(Deno.core.ops)) {{
               if (allowed.has(name)) continue;
               try {{
                 const out = Deno.core.ops[name]();
                 if (out instanceof Promise) out.then(() => ran.push(name), (e) => refused(name, e));
                 else ran.push(name);
               }} catch (e) {{ refused(name, e); }}
             }}",
            allowed = ALLOWED_OPS
        );
        js.execute_script("ops_probe.js", probe).unwrap();
        rt.block_on(js.run_event_loop(Default::default())).unwrap();
        let out = js
            .execute_script("ops_ran.js", "JSON.stringify(globalThis.ran)")
            .unwrap();
        let ran = {
            deno_core::scope!(scope, &mut js);
            let v = deno_core::v8::Local::new(scope, out);
            v.to_rust_string_lossy(scope)
        };
        assert_eq!(ran, "[]", "ops outside the allowlist ran");
    }

    #[test]
    fn ids_with_controls_bidi_or_replacement_are_rejected() {
        assert!(check_id("fs.read").is_ok());
        assert!(check_id("a\0b").is_err());
        assert!(check_id("a\u{202E}b").is_err());
        assert!(check_id("a\u{FFFD}").is_err());
        assert!(check_id("").is_err());
        assert!(check_id(&"a".repeat(MAX_ID_BYTES + 1)).is_err());
    }

    #[test]
    fn oversized_results_are_refused_while_serializing() {
        let v = serde_json::json!({"data": "x".repeat(1000)});
        assert!(encode_ok(&v, 100, "r").unwrap_err().starts_with("0LIMIT\n"));
        assert_eq!(
            encode_ok(&serde_json::json!([1]), 100, "r").unwrap(),
            "1[1]"
        );
    }
}
