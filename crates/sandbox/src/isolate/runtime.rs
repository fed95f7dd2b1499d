//! One isolate: creation (runtime + scrub) and the execution of one job.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use deno_core::error::{CoreError, CoreErrorKind};
use deno_core::{v8, JsRuntime, PollEventLoopOptions, RuntimeOptions};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::bridge::{Bridge, BridgeErrorCode};
use crate::clock::{JobClock, Metered};
use crate::isolate::engine::{self, ArrayBufferBudget};
use crate::isolate::journal::{lock, Journal};
use crate::isolate::ops::{self, JobCtx};
use crate::isolate::watchdog::{deadline_passed, Watchdog};
use crate::limits::{Limits, MAX_JSON_DEPTH};
use crate::result::{CallRecord, CallStatus, ErrorKind, ExecError, ExecResult};
use crate::util::truncate;

/// What the snippet's first line follows in the text the engine compiles (the
/// snippet is the body of an async arrow function).
const WRAPPER: &str = "\"use strict\";(async () => {";

/// The name the snippet is compiled under (its errors' `stack` names it).
const SNIPPET_FILE: &str = "snippet.js";

static LIVE_ISOLATES: AtomicUsize = AtomicUsize::new(0);

/// Number of sandbox isolates alive in this process (pre-warmed ones
/// included). Useful to assert that nothing leaks.
pub fn live_isolates() -> usize {
    LIVE_ISOLATES.load(Ordering::SeqCst)
}

/// The bridge prelude (`js/prelude/` at the top of the repository): one function
/// body in four files, compiled and called once per isolate before any snippet.
const SCRUB: &str = concat!(
    include_str!("../../../../js/prelude/capture.js"),
    include_str!("../../../../js/prelude/bridge.js"),
    include_str!("../../../../js/prelude/scrub.js"),
    include_str!("../../../../js/prelude/runner.js"),
);
const MAX_MESSAGE: usize = 2000;
/// The largest header of calls that never started (`js/prelude/bridge.js`,
/// `unstartedHeader`): 16 ids of at most 256 UTF-16 units, each escaped to at
/// most 6 units, quoted and separated, plus the count.
const MAX_UNSTARTED_HEADER: usize = 16 * (256 * 6 + 3) + 32;

/// A fresh, scrubbed isolate ready for exactly one job.
pub(crate) struct Sandbox {
    // Field order is drop order: the runner handle must go before the runtime.
    runner: v8::Global<v8::Function>,
    runtime: JsRuntime,
    handle: v8::IsolateHandle,
    budget: Arc<ArrayBufferBudget>,
    oom: Arc<AtomicBool>,
    pub heap_bytes: usize,
    pub startup_us: u64,
    result_len: usize,
}

/// Counts a live isolate (process-wide and per pool) from the moment the runtime exists.
struct LiveGuard(Arc<AtomicUsize>);

impl LiveGuard {
    fn new(pool: &Arc<AtomicUsize>) -> Self {
        LIVE_ISOLATES.fetch_add(1, Ordering::SeqCst);
        pool.fetch_add(1, Ordering::SeqCst);
        LiveGuard(pool.clone())
    }
}

impl Drop for LiveGuard {
    fn drop(&mut self) {
        LIVE_ISOLATES.fetch_sub(1, Ordering::SeqCst);
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A sandbox plus its live-count guard, dropped after the runtime.
pub(crate) struct Live {
    pub sandbox: Sandbox,
    _guard: LiveGuard,
}

/// A job as the worker sees it.
pub(crate) struct JobSpec<'a> {
    pub code: &'a str,
    pub bridge: Arc<dyn Bridge>,
    pub limits: &'a Limits,
    pub journal: Arc<Mutex<Journal>>,
    /// Fired when the caller stopped waiting.
    pub abandon: CancellationToken,
    /// The job's clock: approvals pause its deadline (`clock.rs`).
    pub clock: JobClock,
}

enum Outcome {
    /// The engine's message, and where it failed when it said.
    Compile(String, Option<(u32, u32)>),
    NotAFunction,
    Done(Result<v8::Global<v8::Value>, CoreError>),
    Deadline,
    Abandoned,
}

impl Sandbox {
    /// Creates a runtime, applies the isolate-level restrictions and runs the
    /// scrub script. Must be called inside the worker's tokio runtime.
    pub(crate) fn create(
        heap_bytes: usize,
        array_buffer_bytes: usize,
        snapshot: Option<&'static [u8]>,
        counter: &Arc<AtomicUsize>,
    ) -> Result<Live, String> {
        let t0 = Instant::now();
        let budget = ArrayBufferBudget::new(array_buffer_bytes);
        let mut runtime = JsRuntime::try_new(RuntimeOptions {
            extensions: vec![ops::toolsearch_sandbox::init()],
            create_params: Some(engine::create_params(heap_bytes, &budget)),
            startup_snapshot: snapshot,
            // Not `skip_op_registration`: with the ops bound only in the snapshot,
            // a throwing loop cut off by the watchdog hung its worker for good
            // (crash::termination_at_random_points_never_aborts).
            ..Default::default()
        })
        .map_err(|e| truncate(&e.to_string(), MAX_MESSAGE).to_owned())?;
        let guard = LiveGuard::new(counter);

        let oom = Arc::new(AtomicBool::new(false));
        let handle = runtime.v8_isolate().thread_safe_handle();
        engine::restrict_isolate(runtime.v8_isolate());
        runtime
            .v8_isolate()
            .set_prepare_stack_trace_callback(no_stack_trace);
        {
            deno_core::scope!(scope, &mut runtime);
            let context = scope.get_current_context();
            context.set_allow_generation_from_strings(false);
        }
        let runner = call_function_body(&mut runtime, SCRUB)
            .map_err(|e| format!("sandbox scrub failed: {e}"))?;
        Ok(Live {
            sandbox: Sandbox {
                runner,
                runtime,
                handle,
                budget,
                oom,
                heap_bytes,
                startup_us: t0.elapsed().as_micros() as u64,
                result_len: 0,
            },
            _guard: guard,
        })
    }

    /// Runs one snippet to completion, timeout or abandonment.
    pub(crate) async fn run(&mut self, job: &JobSpec<'_>, watchdog: &Watchdog) -> ExecResult {
        let limits = job.limits;
        let cancel = CancellationToken::new();
        self.runtime.op_state().borrow_mut().put(JobCtx {
            bridge: job.bridge.clone(),
            limits: limits.clone(),
            journal: job.journal.clone(),
            cancel: cancel.clone(),
            slots: Arc::new(Semaphore::new(limits.max_in_flight.max(1) as usize)),
            clock: job.clock.clone(),
        });
        self.budget.set_cap(limits.array_buffer_bytes);
        // This job's Math.random draws bytes no earlier job saw (this thread
        // runs the isolate, and so every Math.random of the job).
        crate::sys::new_random_stream();
        {
            let mut j = lock(&job.journal);
            j.stats.bytes_in += job.code.len() as u64;
        }

        // What only the engine or the host can raise: a job reports `memory`
        // only if one of these moved while it ran (or the heap limit was met).
        let memory_before = self.memory_signals();
        let t0 = Instant::now();
        job.clock.start();
        let deadline = t0 + limits.deadline;
        let timed_out = Arc::new(AtomicBool::new(false));
        watchdog.arm(
            self.handle.clone(),
            deadline,
            job.clock.clone(),
            timed_out.clone(),
        );
        let outcome = self.execute(job, deadline).await;
        // Acknowledge: no termination is requested after this returns.
        watchdog.disarm();
        // Fire every call's cancellation token (abandoned calls).
        cancel.cancel();
        let run_us = t0.elapsed().as_micros() as u64;
        let ran_out = self.memory_signals() != memory_before;

        let (value, error) = self.classify(
            outcome,
            limits,
            timed_out.load(Ordering::SeqCst),
            job.clock.credit(),
            &job.journal,
            ran_out,
        );
        let mut res = finish(&job.journal, value, error);
        res.stats.run_us = run_us;
        res.stats.bytes_out += self.result_len as u64;
        res.stats.startup_us = self.startup_us;
        res
    }

    async fn execute(&mut self, job: &JobSpec<'_>, deadline: Instant) -> Outcome {
        // The snippet is the body of an async arrow function. Closing the
        // wrapper early only runs code at the top level of the same
        // scrubbed global scope: no new capability (catalogue row 6).
        // The whole script is strict, so code that closes the wrapper early is strict too.
        if let Some(text) = engine::rewritten_text(job.code) {
            return Outcome::Compile(
                format!(
                    "the snippet contains `{text}`, which this JS engine rewrites wherever it \
                 appears (even inside a string); split it, e.g. \"{}\" + \"{}\"",
                    &text[..text.len() / 2],
                    &text[text.len() / 2..]
                ),
                None,
            );
        }
        let src = format!("{WRAPPER}{}\n}})", job.code);
        let f = match self.runtime.execute_script(SNIPPET_FILE, src.clone()) {
            Ok(f) => f,
            Err(e) => {
                let at = syntax_error_position(&mut self.runtime, &src);
                return Outcome::Compile(e.to_string(), at);
            }
        };
        let args = {
            deno_core::scope!(scope, &mut self.runtime);
            let local = v8::Local::new(scope, &f);
            if !local.is_function() {
                return Outcome::NotAFunction;
            }
            let num = |scope: &mut v8::PinScope, n: usize| {
                let v: v8::Local<v8::Value> = v8::Number::new(scope, n as f64).into();
                v8::Global::new(scope, v)
            };
            let l = job.limits;
            [
                f.clone(),
                num(scope, l.arg_bytes),
                num(scope, l.query_bytes),
                num(scope, l.result_bytes),
                // Longest array walk allowed: no dense array of more elements
                // fits the heap (a QuickJS value takes 16 bytes).
                num(scope, (l.heap_bytes / 16).max(1 << 16)),
            ]
        };
        self.watch_heap_limit();
        let call = self.runtime.call_with_args(&self.runner, &args);
        drop(args);
        let rt = &mut self.runtime;
        // Polled = running JavaScript: the clock credits only idle time paused.
        let running = Metered {
            inner: Box::pin(rt.with_event_loop_promise(call, PollEventLoopOptions::default())),
            clock: job.clock.clone(),
        };
        tokio::select! {
            biased;
            r = running => Outcome::Done(r),
            _ = deadline_passed(deadline, &job.clock) => Outcome::Deadline,
            _ = job.abandon.cancelled() => Outcome::Abandoned,
        }
    }

    /// Makes reaching the heap limit stop the snippet as a `memory` error. Installed
    /// only once the snippet is compiled: v8x/QuickJS measures the whole heap after
    /// every script it runs while a callback is installed (a third of a warm run), and
    /// until then only trusted code ran; the engine's hard limit still applies.
    fn watch_heap_limit(&mut self) {
        let oom = self.oom.clone();
        let handle = self.handle.clone();
        self.runtime
            .add_near_heap_limit_callback(move |current, _initial| {
                // Headroom is granted once, for unwinding: while termination is
                // pending (it lands only at the next interrupt poll, which a few
                // big native allocations never reach) the limit must not grow
                // again, or the snippet allocates on under an ever larger limit.
                let first = !oom.swap(true, Ordering::SeqCst);
                handle.terminate_execution();
                if first {
                    engine::heap_headroom(current)
                } else {
                    current
                }
            });
    }

    /// The engine's count of its own out-of-memory errors and the buffer
    /// budget's refusals.
    fn memory_signals(&mut self) -> (u64, usize) {
        (
            engine::out_of_memory_count(&mut self.runtime),
            self.budget.refusals(),
        )
    }

    fn classify(
        &mut self,
        outcome: Outcome,
        limits: &Limits,
        watchdog_fired: bool,
        waited: Duration,
        journal: &Mutex<Journal>,
        ran_out: bool,
    ) -> (serde_json::Value, Option<ExecError>) {
        let err =
            |kind, message: String| (serde_json::Value::Null, Some(ExecError::new(kind, message)));
        if self.oom.load(Ordering::SeqCst) {
            return err(
                ErrorKind::Memory,
                format!(
                    "the snippet exceeded the {} MiB heap limit and was stopped",
                    limits.heap_bytes >> 20
                ),
            );
        }
        let timeout = || {
            (
                serde_json::Value::Null,
                Some(ExecError::timeout(limits.deadline, waited)),
            )
        };
        match outcome {
            Outcome::Deadline => timeout(),
            _ if watchdog_fired => timeout(),
            Outcome::Abandoned => err(ErrorKind::Timeout, "the caller stopped waiting".to_owned()),
            Outcome::Compile(m, at) => (
                serde_json::Value::Null,
                Some(ExecError::new(ErrorKind::Script, bounded(&m)).at(at)),
            ),
            Outcome::NotAFunction => err(
                ErrorKind::Script,
                "the snippet must be the body of an async function".to_owned(),
            ),
            Outcome::Done(Err(e)) => match &*e.0 {
                CoreErrorKind::PendingPromiseResolution => err(
                    ErrorKind::Script,
                    "the snippet awaited a promise that can never settle (nothing else was pending)"
                        .to_owned(),
                ),
                _ => err(ErrorKind::Script, bounded(&e.to_string())),
            },
            Outcome::Done(Ok(v)) => self.decode(v, limits, journal, ran_out),
        }
    }

    /// Reads the runner's string, checking its length before converting.
    fn decode(
        &mut self,
        v: v8::Global<v8::Value>,
        limits: &Limits,
        journal: &Mutex<Journal>,
        ran_out: bool,
    ) -> (serde_json::Value, Option<ExecError>) {
        let err =
            |kind, message: String| (serde_json::Value::Null, Some(ExecError::new(kind, message)));
        let s = {
            deno_core::scope!(scope, &mut self.runtime);
            let local = v8::Local::new(scope, &v);
            let Ok(s) = v8::Local::<v8::String>::try_from(local) else {
                return err(
                    ErrorKind::Engine,
                    "the sandbox runner returned no string".to_owned(),
                );
            };
            // Messages are bounded in JS; results by `result_bytes` (UTF-16 units).
            if s.length()
                > limits
                    .result_bytes
                    .saturating_add(MAX_MESSAGE * 2 + MAX_UNSTARTED_HEADER)
            {
                return err(
                    ErrorKind::Result,
                    format!(
                        "the return value is larger than {} bytes",
                        limits.result_bytes
                    ),
                );
            }
            s.to_rust_string_lossy(scope)
        };
        let s = take_unstarted(&s, journal);
        if let Some(json) = s.strip_prefix('1') {
            // Counted as emitted: control and format characters escaped.
            let emitted = crate::util::emitted_json_len(json);
            if emitted > limits.result_bytes {
                return err(
                    ErrorKind::Result,
                    format!(
                        "the return value is too large ({emitted} bytes of JSON, limit {}); return a smaller summary",
                        limits.result_bytes
                    ),
                );
            }
            if crate::util::json_deeper_than(json.as_bytes(), MAX_JSON_DEPTH) {
                return err(
                    ErrorKind::Result,
                    format!(
                        "the return value nests arrays and objects more than {MAX_JSON_DEPTH} levels deep; return a flatter value"
                    ),
                );
            }
            self.result_len = json.len();
            return match serde_json::from_str(json) {
                Ok(v) => (v, None),
                Err(e) => err(
                    ErrorKind::Result,
                    format!("the return value could not be read back: {e}"),
                ),
            };
        }
        let body = s.strip_prefix('0').unwrap_or(s);
        let (kind, message) = body.split_once('\n').unwrap_or(("SCRIPT", body));
        let (kind, at) = match kind.split_once('@') {
            Some((kind, at)) => (kind, line_column(at)),
            None => (kind, None),
        };
        let kind = match kind {
            // The prelude's guess, from the error's class and message (which a
            // script can forge), stands only if the engine or the host ran out.
            "MEMORY" if ran_out => ErrorKind::Memory,
            "MEMORY" => ErrorKind::Script,
            "RESULT" => ErrorKind::Result,
            "SCRIPT" => ErrorKind::Script,
            code => match BridgeErrorCode::from_str(code) {
                Some(BridgeErrorCode::UnknownTool | BridgeErrorCode::ApprovalDenied) => {
                    ErrorKind::Policy
                }
                Some(BridgeErrorCode::InvalidArgs) => ErrorKind::Argument,
                Some(BridgeErrorCode::Limit) => ErrorKind::Limit,
                Some(BridgeErrorCode::Timeout) => ErrorKind::Timeout,
                _ => ErrorKind::Script,
            },
        };
        (
            serde_json::Value::Null,
            Some(ExecError::new(kind, bounded(message)).at(at)),
        )
    }
}

/// Reads the runner's header of calls that never started
/// (`U<count>[ids]\n`) into the journal; what follows is the answer.
fn take_unstarted<'a>(s: &'a str, journal: &Mutex<Journal>) -> &'a str {
    let Some(rest) = s.strip_prefix('U') else {
        return s;
    };
    let Some((header, answer)) = rest.split_once('\n') else {
        return s;
    };
    let digits = header.bytes().take_while(u8::is_ascii_digit).count();
    let count = header[..digits].parse().unwrap_or(0);
    let ids: Vec<String> = serde_json::from_str(&header[digits..]).unwrap_or_default();
    let mut j = lock(journal);
    j.stats.not_awaited = count;
    j.not_awaited = ids.into_iter().map(|id| bounded(&id)).collect();
    answer
}

/// Compiles `body` as the body of a plain function and calls it once, returning
/// what it returns as a function. v8x/QuickJS parses a script twice (a syntax
/// check when it is compiled, again when it runs); a compiled function once.
fn call_function_body(
    runtime: &mut JsRuntime,
    body: &str,
) -> Result<v8::Global<v8::Function>, String> {
    deno_core::scope!(scope, runtime);
    v8::tc_scope!(let tc, scope);
    let failed = |tc: &mut v8::PinnedRef<v8::TryCatch<v8::HandleScope>>, what: &str| {
        let detail = tc
            .exception()
            .map(|e| e.to_rust_string_lossy(tc))
            .unwrap_or_else(|| "no exception".to_owned());
        format!("{what}: {}", truncate(&detail, MAX_MESSAGE))
    };
    let Some(source) = v8::String::new(tc, body) else {
        return Err("the source is too long for the engine".to_owned());
    };
    let mut source = v8::script_compiler::Source::new(source, None);
    let Some(f) = v8::script_compiler::compile_function(
        tc,
        &mut source,
        &[],
        &[],
        v8::script_compiler::CompileOptions::NoCompileOptions,
        v8::script_compiler::NoCacheReason::NoReason,
    ) else {
        return Err(failed(tc, "compile"));
    };
    let recv = v8::undefined(tc).into();
    let Some(out) = f.call(tc, recv, &[]) else {
        return Err(failed(tc, "run"));
    };
    let out = v8::Local::<v8::Function>::try_from(out)
        .map_err(|_| "it did not return a function".to_owned())?;
    Ok(v8::Global::new(tc, out))
}

/// Replaces deno_core's stack-trace formatter, which reads every call site and,
/// when termination lands mid-way, prints the snippet's error text to the host's
/// stderr. An error's `stack` is only where it happened in the snippet,
/// `snippet.js:LINE:COLUMN` (the innermost frame of the snippet's own code), so
/// the answer can point at the line; nothing of the host's frames.
fn no_stack_trace<'s, 'i>(
    scope: &mut v8::PinScope<'s, 'i>,
    _error: v8::Local<'s, v8::Value>,
    callsites: v8::Local<'s, v8::Array>,
) -> v8::Local<'s, v8::Value> {
    let undefined = v8::undefined(scope).into();
    if scope.is_execution_terminating() {
        return undefined;
    }
    // A few frames at most: the snippet's code is near the top.
    for i in 0..callsites.length().min(8) {
        let Some(site) = callsites
            .get_index(scope, i)
            .and_then(|s| v8::Local::<v8::Object>::try_from(s).ok())
        else {
            break;
        };
        let ask = |name: &str| -> Option<v8::Local<'s, v8::Value>> {
            let key = v8::String::new(scope, name)?;
            let f = site.get(scope, key.into())?;
            let f = v8::Local::<v8::Function>::try_from(f).ok()?;
            f.call(scope, site.into(), &[])
        };
        let file = ask("getFileName").map(|f| f.to_rust_string_lossy(scope));
        if file.as_deref() != Some(SNIPPET_FILE) {
            continue;
        }
        let (Some(line), Some(column)) = (ask("getLineNumber"), ask("getColumnNumber")) else {
            break;
        };
        let (Some(line), Some(column)) = (line.uint32_value(scope), column.uint32_value(scope))
        else {
            break;
        };
        let at = format!("{SNIPPET_FILE}:{line}:{column}");
        return v8::String::new(scope, &at).map_or(undefined, Into::into);
    }
    undefined
}

/// Where a snippet that does not compile fails, `(line, column)` in the text the
/// engine compiled: compiled again (only on this failure path) to read the
/// `stack` [`no_stack_trace`] gave the error.
fn syntax_error_position(runtime: &mut JsRuntime, src: &str) -> Option<(u32, u32)> {
    deno_core::scope!(scope, runtime);
    v8::tc_scope!(let tc, scope);
    let code = v8::String::new(tc, src)?;
    let name = v8::String::new(tc, SNIPPET_FILE)?;
    let origin = v8::ScriptOrigin::new(
        tc,
        name.into(),
        0,
        0,
        false,
        0,
        None,
        false,
        false,
        false,
        None,
    );
    if v8::Script::compile(tc, code, Some(&origin)).is_some() {
        return None;
    }
    let error = v8::Local::<v8::Object>::try_from(tc.exception()?).ok()?;
    let key = v8::String::new(tc, "stack")?;
    let stack = error.get(tc, key.into())?.to_rust_string_lossy(tc);
    position_in(&stack)
}

/// `(line, column)` in the snippet (from 1) of a `stack` that [`no_stack_trace`]
/// wrote (`snippet.js:L:C`, in the compiled text).
fn position_in(stack: &str) -> Option<(u32, u32)> {
    line_column(stack.strip_prefix(SNIPPET_FILE)?.strip_prefix(':')?)
}

/// `(line, column)` in the snippet (from 1) of `L:C` in the compiled text.
fn line_column(at: &str) -> Option<(u32, u32)> {
    let (line, column) = at.split_once(':')?;
    let (line, column): (u32, u32) = (line.parse().ok()?, column.parse().ok()?);
    let column = if line == 1 {
        column.saturating_sub(WRAPPER.len() as u32).max(1)
    } else {
        column
    };
    (line >= 1).then_some((line, column.max(1)))
}

fn bounded(m: &str) -> String {
    let t = truncate(m, MAX_MESSAGE);
    if t.len() < m.len() {
        format!("{t}…")
    } else {
        t.to_owned()
    }
}

/// Builds the result from the journal: logs, finished calls and still
/// running calls (as `abandoned`).
pub(crate) fn finish(
    journal: &Mutex<Journal>,
    value: serde_json::Value,
    error: Option<ExecError>,
) -> ExecResult {
    let mut j = lock(journal);
    let mut calls = std::mem::take(&mut j.calls);
    let now = Instant::now();
    for (_, (id, started)) in std::mem::take(&mut j.in_flight) {
        calls.push(CallRecord {
            id,
            status: CallStatus::Abandoned,
            code: None,
            result: None,
            ms: now.saturating_duration_since(started).as_millis() as u64,
        });
    }
    let mut stats = std::mem::take(&mut j.stats);
    stats.engine = engine::engine_name().to_owned();
    let not_awaited = std::mem::take(&mut j.not_awaited);
    let error = error.or_else(|| {
        (stats.not_awaited > 0).then(|| not_awaited_error(stats.not_awaited, &not_awaited))
    });
    ExecResult {
        ok: error.is_none(),
        value,
        logs: std::mem::take(&mut j.logs),
        error,
        stats,
        calls,
        not_awaited,
    }
}

/// The error of a snippet that made `count` calls it never awaited (`ids`: the
/// first of them).
fn not_awaited_error(count: u32, ids: &[String]) -> ExecError {
    let (calls, were) = if count == 1 {
        ("call was", "it")
    } else {
        ("calls were", "they")
    };
    let more = match count as usize - ids.len().min(count as usize) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    ExecError::new(
        ErrorKind::NotAwaited,
        format!(
            "{count} tool {calls} never awaited, so {were} did not run: {}{more}. A call runs \
             only when awaited: `await openclaw.tools.call(id, args)`, or `await \
             Promise.all([...])` for several at once",
            ids.join(", ")
        ),
    )
}

/// A timeout answered by the host while the worker is still busy: a copy of
/// what the journal holds so far.
pub(crate) fn snapshot_timeout(
    journal: &Mutex<Journal>,
    deadline: Duration,
    waited: Duration,
) -> ExecResult {
    let j = lock(journal);
    let mut calls = j.calls.clone();
    let now = Instant::now();
    for (id, started) in j.in_flight.values() {
        calls.push(CallRecord {
            id: id.clone(),
            status: CallStatus::Abandoned,
            code: None,
            result: None,
            ms: now.saturating_duration_since(*started).as_millis() as u64,
        });
    }
    let mut stats = j.stats.clone();
    stats.engine = engine::engine_name().to_owned();
    ExecResult {
        ok: false,
        value: serde_json::Value::Null,
        logs: j.logs.clone(),
        error: Some(ExecError::timeout(deadline, waited)),
        stats,
        calls,
        not_awaited: j.not_awaited.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_function_body_names_each_failure() {
        engine::configure_process();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let _enter = rt.enter();
        let mut js = JsRuntime::new(RuntimeOptions::default());
        let err = call_function_body(&mut js, "return (").unwrap_err();
        assert!(
            err.starts_with("compile: ") && err.contains("SyntaxError"),
            "{err}"
        );
        let err = call_function_body(&mut js, "throw new RangeError('no runner')").unwrap_err();
        assert!(
            err.starts_with("run: ") && err.contains("no runner"),
            "{err}"
        );
        let err = call_function_body(&mut js, "return 1").unwrap_err();
        assert_eq!(err, "it did not return a function");
        // Called once, strict, and what it returns is the function.
        let f = call_function_body(&mut js, "'use strict'; let n = 0; n++; return function () { return n + (this === undefined ? 40 : 0) + 1 }").unwrap();
        let v = {
            deno_core::scope!(scope, &mut js);
            let f = v8::Local::new(scope, &f);
            let recv = v8::undefined(scope).into();
            let out = f.call(scope, recv, &[]).unwrap();
            out.integer_value(scope).unwrap()
        };
        assert_eq!(v, 42);
    }
}
