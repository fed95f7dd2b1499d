//! The pool: a bounded queue in front of one of two backends, side by side —
//! worker threads in this process (`threads.rs`) or worker processes
//! (`process_queue.rs` admits their jobs and runs their drivers, `processes.rs`
//! drives each process, `requests.rs` answers their bridge requests and
//! `registry.rs` keeps the live ones). What a caller sees (limits, the busy answer,
//! the deadline bound) is the same for both.

mod process_queue;
pub(crate) mod processes;
mod registry;
mod requests;
pub(crate) mod threads;
pub(crate) mod worker_command;

use std::sync::Arc;

use crate::bridge::Bridge;
use crate::limits::{Isolation, Limits, PoolConfig};
use crate::result::{ErrorKind, ExecResult, SandboxError};

pub use threads::WEDGE_CONFIRM;

/// Live resources of one pool, for leak checks and monitoring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolStats {
    /// Worker threads configured.
    pub workers: usize,
    /// Isolates alive (pre-warmed or running). Never more than `workers`.
    pub live_isolates: usize,
    /// Threads alive (each worker has a watchdog): `2 * workers` while the pool runs.
    /// With [`Isolation::Process`](crate::Isolation::Process): the driver threads, one per worker.
    pub live_threads: usize,
    /// Worker processes alive (active and standby), with [`Isolation::Process`](crate::Isolation::Process).
    pub live_processes: usize,
    /// Worker threads that did not acknowledge termination within
    /// `deadline + grace` (a built-in the engine cannot interrupt) and are still
    /// running: each was replaced by a fresh worker and lowered to the lowest
    /// scheduling priority. Always 0 with [`Isolation::Process`](crate::Isolation::Process),
    /// which kills such a process instead.
    pub wedged_workers: usize,
    /// Workers replaced since the pool started because they did not acknowledge.
    pub replaced_workers: u64,
}

const BUSY: &str = "the sandbox is busy (all workers and queue slots are taken); retry shortly";

struct Inner {
    backend: Backend,
    limits: Limits,
    workers: usize,
}

enum Backend {
    Threads(threads::Threads),
    Processes(process_queue::Processes),
}

/// A pool of sandbox workers. Cheap to clone; all clones share the workers.
/// The workers stop when the last clone is dropped.
///
/// # Examples
/// ```no_run
/// # use std::sync::Arc;
/// # fn demo(bridge: Arc<dyn toolsearch_sandbox::Bridge>) -> Result<(), toolsearch_sandbox::SandboxError> {
/// use toolsearch_sandbox::{Pool, PoolConfig};
/// let pool = Pool::new(PoolConfig::default())?;
/// let res = pool.execute_blocking("return 1 + 1", bridge);
/// assert_eq!(res.value, serde_json::json!(2));
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Pool {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("limits", &self.inner.limits)
            .finish_non_exhaustive()
    }
}

/// The `limit` error for a snippet over `limits.source_bytes` (checked before compiling).
fn source_too_large(len: usize, limits: &Limits) -> Option<ExecResult> {
    (len > limits.source_bytes).then(|| {
        ExecResult::failed(
            ErrorKind::Limit,
            format!(
                "the snippet is {len} bytes; the limit is {} bytes",
                limits.source_bytes
            ),
        )
    })
}

fn validate(limits: &Limits) -> Result<(), SandboxError> {
    let bad = |m: &str| Err(SandboxError::Config(m.to_owned()));
    if limits.deadline.is_zero() {
        return bad("limits.deadline must be greater than zero");
    }
    if limits.heap_bytes < (4 << 20) {
        return bad("limits.heap_bytes must be at least 4 MiB");
    }
    if limits.max_in_flight == 0 {
        return bad("limits.max_in_flight must be at least 1");
    }
    Ok(())
}

impl Pool {
    /// Starts the worker threads (each pre-warms an isolate in the
    /// background if `cfg.prewarm`).
    ///
    /// # Errors
    /// [`SandboxError::Config`] for unusable settings (zero workers, zero
    /// deadline, tiny heap), [`SandboxError::Thread`] if a thread cannot be
    /// spawned. An engine that cannot start is not detected here; use
    /// [`Pool::probe`].
    pub fn new(cfg: PoolConfig) -> Result<Pool, SandboxError> {
        if cfg.workers == 0 {
            return Err(SandboxError::Config("workers must be at least 1".into()));
        }
        validate(&cfg.limits)?;
        if let Isolation::Process(command) = &cfg.isolation {
            let backend = process_queue::Processes::new(&cfg, command.clone())?;
            return Ok(Pool::with(Backend::Processes(backend), &cfg));
        }
        let backend = threads::Threads::new(&cfg)?;
        Ok(Pool::with(Backend::Threads(backend), &cfg))
    }

    fn with(backend: Backend, cfg: &PoolConfig) -> Pool {
        Pool {
            inner: Arc::new(Inner {
                backend,
                limits: cfg.limits.clone(),
                workers: cfg.workers,
            }),
        }
    }

    /// The engine this build runs on: `"quickjs"` or `"v8"`.
    pub fn engine_name() -> &'static str {
        crate::isolate::engine::engine_name()
    }

    /// Live isolates and threads of this pool.
    pub fn stats(&self) -> PoolStats {
        let workers = self.inner.workers;
        match &self.inner.backend {
            Backend::Threads(t) => t.stats(workers),
            Backend::Processes(p) => p.stats(workers),
        }
    }

    /// The limits [`Pool::execute`] uses.
    pub fn limits(&self) -> &Limits {
        &self.inner.limits
    }

    /// Checks that the pool can run snippets now: that the engine can create
    /// an isolate (thread backend, on a scratch thread; cached once it
    /// succeeded), then runs a trivial snippet through the pool. A busy pool
    /// passes. Blocks (up to the queue wait and 20 s).
    ///
    /// # Errors
    /// [`SandboxError::Engine`] if the isolate cannot be created or the
    /// snippet fails; the caller should fall back to the structured tools.
    pub fn probe(&self) -> Result<(), SandboxError> {
        if let Backend::Threads(t) = &self.inner.backend {
            t.probe(&self.inner.limits)?;
        }
        self.probe_job()
    }

    /// Runs a trivial snippet through the pool. A busy pool passes (it runs
    /// jobs); any other failure is the probe's error.
    fn probe_job(&self) -> Result<(), SandboxError> {
        struct NoTools;
        impl Bridge for NoTools {
            fn search(
                &self,
                _: &str,
                _: Option<u32>,
            ) -> Result<serde_json::Value, crate::BridgeError> {
                Ok(serde_json::json!([]))
            }
            fn describe(&self, id: &str) -> Result<serde_json::Value, crate::BridgeError> {
                Err(crate::BridgeError::new(
                    crate::BridgeErrorCode::UnknownTool,
                    format!("unknown tool {id}"),
                ))
            }
            fn call(
                &self,
                id: &str,
                _: serde_json::Value,
                _: tokio_util::sync::CancellationToken,
            ) -> crate::BridgeFuture {
                let e = crate::BridgeError::new(
                    crate::BridgeErrorCode::UnknownTool,
                    format!("unknown tool {id}"),
                );
                Box::pin(async move { Err(e) })
            }
        }
        let limits = Limits {
            deadline: std::time::Duration::from_secs(20),
            ..self.inner.limits.clone()
        };
        // On a scratch thread: the caller may be inside a tokio runtime.
        let pool = self.clone();
        let res = std::thread::Builder::new()
            .name("sandbox-probe".into())
            .spawn(move || pool.execute_blocking_with("return 1", Arc::new(NoTools), limits))?
            .join()
            .map_err(|_| SandboxError::Engine("the probe panicked".into()))?;
        match (res.ok, res.error) {
            (true, _) => Ok(()),
            (false, Some(e)) if e.kind == ErrorKind::Limit => Ok(()),
            (false, Some(e)) => Err(SandboxError::Engine(e.message)),
            (false, None) => Err(SandboxError::Engine(
                "the worker process gave no answer".into(),
            )),
        }
    }

    /// Runs `code` with the pool's limits. See [`Pool::execute_with`].
    pub async fn execute(&self, code: &str, bridge: Arc<dyn Bridge>) -> ExecResult {
        self.execute_with(code, bridge, self.inner.limits.clone())
            .await
    }

    /// Runs `code` (the body of an async function) in a fresh isolate.
    ///
    /// Never fails: problems are reported in the result (`ok: false` and an
    /// [`ExecError`](crate::ExecError)). A full queue gives
    /// [`ErrorKind::Limit`] with a "busy" message; an engine that cannot start
    /// gives [`ErrorKind::Engine`]. The answer arrives within
    /// `deadline + grace` of the job starting even if a tool never returns.
    /// Dropping the future abandons the job (its tool calls are cancelled).
    ///
    /// Needs a tokio runtime with the time driver enabled.
    pub async fn execute_with(
        &self,
        code: &str,
        bridge: Arc<dyn Bridge>,
        limits: Limits,
    ) -> ExecResult {
        if let Err(e) = validate(&limits) {
            return ExecResult::failed(ErrorKind::Engine, e.to_string());
        }
        if let Some(too_big) = source_too_large(code.len(), &limits) {
            return too_big;
        }
        match &self.inner.backend {
            Backend::Threads(t) => t.execute(code, bridge, limits).await,
            Backend::Processes(p) => p.execute(code, bridge, limits).await,
        }
    }

    /// Stops the pool: every worker process is killed at once, with every job
    /// process it forked, and this waits (up to `within`) until each of them
    /// has exited and the workers are reaped. Running and queued jobs are
    /// answered with an `engine` error saying the sandbox is shutting down, and
    /// so is every later job, on every clone. True when everything was gone
    /// in time.
    ///
    /// A host calls it before it exits (`toolsearch gateway` does on EOF,
    /// SIGTERM and SIGINT): without it the workers still die with the host
    /// (each is tied to it by a parent-death signal), but a moment after it.
    /// In-process workers ([`Isolation::Thread`]) end with the process:
    /// nothing to wait for, and the pool keeps serving.
    ///
    /// Blocks the calling thread: call it outside async code, or in
    /// `spawn_blocking`.
    pub fn shutdown(&self, within: std::time::Duration) -> bool {
        match &self.inner.backend {
            Backend::Processes(p) => p.shutdown(within),
            Backend::Threads(_) => true,
        }
    }

    /// Tests the OS layer under the isolate (`PoolConfig::harden`) from inside
    /// a fresh worker process, where a job would run: `what` is `socket`,
    /// `connect`, `execve`, `open`, `openat`, `ptrace` or `unshare` (the process
    /// must die: a `crashed` error), or `limits` (the value holds the worker's
    /// resource limits and environment variable names). For the security suite.
    #[doc(hidden)]
    pub fn self_test(&self, what: &str) -> ExecResult {
        match &self.inner.backend {
            Backend::Processes(p) => p.self_test(what, &self.inner.limits),
            Backend::Threads { .. } => ExecResult::failed(
                ErrorKind::Engine,
                "self-tests run in worker processes (Isolation::Process)",
            ),
        }
    }

    /// Blocking variant of [`Pool::execute`] for callers without a tokio
    /// runtime (builds a small current-thread runtime per call).
    ///
    /// # Panics
    /// When called from inside a tokio runtime.
    pub fn execute_blocking(&self, code: &str, bridge: Arc<dyn Bridge>) -> ExecResult {
        self.execute_blocking_with(code, bridge, self.inner.limits.clone())
    }

    /// Blocking variant of [`Pool::execute_with`].
    ///
    /// # Panics
    /// When called from inside a tokio runtime.
    pub fn execute_blocking_with(
        &self,
        code: &str,
        bridge: Arc<dyn Bridge>,
        limits: Limits,
    ) -> ExecResult {
        match tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
        {
            Ok(rt) => rt.block_on(self.execute_with(code, bridge, limits)),
            Err(e) => ExecResult::failed(
                ErrorKind::Engine,
                format!("cannot start a tokio runtime: {e}"),
            ),
        }
    }

    /// Like [`Pool::execute_with`] for raw bytes: source that is not UTF-8
    /// is rejected before compilation.
    pub async fn execute_bytes(
        &self,
        code: &[u8],
        bridge: Arc<dyn Bridge>,
        limits: Limits,
    ) -> ExecResult {
        if let Some(too_big) = source_too_large(code.len(), &limits) {
            return too_big;
        }
        match std::str::from_utf8(code) {
            Ok(s) => self.execute_with(s, bridge, limits).await,
            Err(e) => ExecResult::failed(
                ErrorKind::Script,
                format!("the snippet is not valid UTF-8: {e}"),
            ),
        }
    }
}
