//! Runs `tool_search_code` snippets in a locked-down deno_core isolate.
//!
//! A snippet is the body of an async function. Inside it only
//! `openclaw.tools.search(query, {limit})`, `openclaw.tools.describe(id)`,
//! `openclaw.tools.call(id, args)` and a captured `console` exist; its
//! `return` value (JSON, `undefined` becomes `null`) is the result.
//!
//! ```no_run
//! use std::sync::Arc;
//! use toolsearch_sandbox::{Bridge, BridgeError, BridgeErrorCode, BridgeFuture, Pool, PoolConfig};
//! use tokio_util::sync::CancellationToken;
//!
//! struct Echo;
//! impl Bridge for Echo {
//!     fn search(&self, _q: &str, _limit: Option<u32>) -> Result<serde_json::Value, BridgeError> {
//!         Ok(serde_json::json!([{"id": "echo"}]))
//!     }
//!     fn describe(&self, id: &str) -> Result<serde_json::Value, BridgeError> {
//!         Err(BridgeError::new(BridgeErrorCode::UnknownTool, format!("no tool {id}")))
//!     }
//!     fn call(&self, _id: &str, args: serde_json::Value, _c: CancellationToken) -> BridgeFuture {
//!         Box::pin(async move { Ok(args) })
//!     }
//! }
//!
//! # fn main() -> Result<(), toolsearch_sandbox::SandboxError> {
//! let pool = Pool::new(PoolConfig::default())?;
//! let res = pool.execute_blocking(
//!     "const [t] = await openclaw.tools.search('echo'); return openclaw.tools.call(t.id, {x: 1});",
//!     Arc::new(Echo),
//! );
//! assert!(res.ok, "{:?}", res.error);
//! # Ok(()) }
//! ```
//!
//! # Design
//!
//! - Each job gets a **fresh** `JsRuntime` (never reused). Workers pre-warm
//!   the next one right after a job, after the previous isolate was dropped:
//!   one live isolate per thread.
//! - With [`Isolation::Process`] on Linux, a worker process builds one
//!   scrubbed template isolate that never runs a snippet and forks a
//!   copy-on-write copy of it per job (`zygote.rs`): a fork instead of a
//!   runtime per job, and a crash takes only that job's process.
//! - A scrub script captures intrinsics and the bridge ops, defines a frozen
//!   non-writable `openclaw` global, and deletes every global not on an
//!   allowlist (`Deno`, `__bootstrap`, `__infra`, `WebAssembly`,
//!   `SharedArrayBuffer`, `Atomics`, `Temporal`, `Intl`, timers, ...) and puts
//!   back one surface on every path (`settle`, `tests/all/surface.rs`). `eval` and the
//!   (async/generator) `Function` constructors throw `EvalError`.
//! - Ops by allowlist: besides the five bridge ops only the deno_core ops its
//!   bootstrap and event loop call run; every other registered op (and any a
//!   deno_core upgrade adds) is disabled, so a reference that leaked past the
//!   scrub throws (`isolate/ops.rs`, `ALLOWED_OPS`).
//! - Limits: a watchdog thread terminates JS at the deadline and re-issues
//!   the request every 20 ms until acknowledged; the host answers within
//!   `deadline + grace` even if a tool never returns. Heap via
//!   `CreateParams::heap_limits` plus a near-heap-limit callback;
//!   ArrayBuffers through a budgeted allocator.
//! - Tool calls still running when the snippet returns (un-awaited) are
//!   **abandoned**: their cancellation token fires, their futures are
//!   dropped, and they appear in [`ExecResult::calls`] with status
//!   `abandoned`. Un-awaited rejections become a console warning.
//! - Results are serialized inside the isolate with a captured
//!   `JSON.stringify`, under the watchdog; string lengths are checked before
//!   they are copied into Rust.
#![deny(missing_docs)]

// Layers, each using only those above it: isolate (one JS runtime and what it
// needs) → pool (thread and process backends) → worker (the worker process's
// side) → ipc (the host ↔ worker protocol). `sys.rs` holds every `unsafe` call.
mod bridge;
mod clock;
mod encode;
mod ipc;
mod isolate;
mod limits;
mod pool;
mod result;
mod sys;
mod util;
mod worker;

pub use bridge::{Bridge, BridgeError, BridgeErrorCode, BridgeFuture};
pub use clock::{pause_for_a_person, Pause};
pub use isolate::runtime::live_isolates;
pub use isolate::watchdog::live_threads;
pub use limits::{
    Isolation, Limits, PoolConfig, DEFAULT_ARG_BYTES, DEFAULT_ARRAY_BUFFER_BYTES, DEFAULT_DEADLINE,
    DEFAULT_GRACE, DEFAULT_HEAP_BYTES, DEFAULT_LOG_BYTES, DEFAULT_MAX_CALLS, DEFAULT_MAX_IN_FLIGHT,
    DEFAULT_MAX_LOOKUPS, DEFAULT_QUERY_BYTES, DEFAULT_QUEUE_TIMEOUT, DEFAULT_RESULT_BYTES,
    DEFAULT_SOURCE_BYTES, DEFAULT_TOOL_RESULT_BYTES, EXTRA_WORKER_IDLE, MAX_ID_BYTES,
    MAX_JSON_DEPTH, PENDING_ARG_BYTES,
};
pub use pool::processes::{HEAP_CHECK_VAR, JOBS_PER_FORKING_PROCESS, JOBS_PER_PROCESS};
pub use pool::worker_command::{serve_if_worker, WorkerCommand, WORKER_ARG};
pub use pool::{Pool, PoolStats, WEDGE_CONFIRM};
pub use result::{
    CallRecord, CallStatus, ErrorKind, ExecError, ExecResult, LogLevel, LogLine, SandboxError,
    Stats,
};
pub use sys::{array_buffer_bytes_held, bound_kept_memory, release_free_memory, KEPT_MEMORY_BYTES};
pub use util::{is_unsafe_char, json_deeper_than};
pub use worker::child::run_worker_process;

#[allow(dead_code)]
fn _assertions() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Pool>();
    send_sync::<Limits>();
    send_sync::<ExecResult>();
    send_sync::<SandboxError>();
}
