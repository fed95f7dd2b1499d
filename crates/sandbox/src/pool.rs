//! The worker pool: N threads, each with a current-thread tokio runtime and
//! at most one live isolate, fed by a bounded queue.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::bridge::Bridge;
use crate::limits::{Isolation, Limits, PoolConfig};
use crate::ops::{lock, Journal};
use crate::process::{self, HostJob, WorkerCommand};
use crate::result::{ErrorKind, ExecResult, SandboxError};
use crate::sandbox::{self, JobSpec, Live, Sandbox};
use crate::watchdog::{ThreadGuard, Watchdog};

/// How long past `deadline + grace` a thread worker may take to acknowledge a
/// job before it is declared wedged and replaced (the caller is answered at
/// `deadline + grace` either way): a loaded machine delays threads by tens of
/// milliseconds, a built-in spinning in C never answers.
pub const WEDGE_CONFIRM: std::time::Duration = std::time::Duration::from_secs(1);

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

#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub isolates: Arc<AtomicUsize>,
    pub threads: Arc<AtomicUsize>,
    /// Replaced workers whose thread has not come back yet.
    pub wedged: AtomicUsize,
    /// Workers replaced since the start.
    pub replaced: AtomicU64,
    /// Index of the next worker thread (for its name).
    pub next_index: AtomicUsize,
}

struct Job {
    code: String,
    bridge: Arc<dyn Bridge>,
    limits: Limits,
    journal: Arc<Mutex<Journal>>,
    abandon: CancellationToken,
    enqueued: Instant,
    reply: oneshot::Sender<ExecResult>,
    /// Set by the pool when the worker running this job did not acknowledge in
    /// time and was replaced: the worker ends once (if ever) the job returns.
    retired: Arc<AtomicBool>,
}

const BUSY: &str = "the sandbox is busy (all workers and queue slots are taken); retry shortly";

struct Inner {
    backend: Backend,
    limits: Limits,
    workers: usize,
    snapshot: bool,
    queue_timeout: std::time::Duration,
}

enum Backend {
    Threads {
        tx: SyncSender<Job>,
        counters: Arc<Counters>,
        /// Settings a replacement worker starts from.
        template: Arc<WorkerTemplate>,
    },
    Processes {
        tx: SyncSender<HostJob>,
        shared: Arc<process::Shared>,
    },
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
            return Self::new_processes(&cfg, command.clone());
        }
        let (tx, rx) = mpsc::sync_channel::<Job>(cfg.queue);
        let rx = Arc::new(Mutex::new(rx));
        let counters = Arc::new(Counters::default());
        crate::engine::configure_process();
        let snapshot = if cfg.snapshot {
            crate::engine::startup_snapshot()
        } else {
            None
        };
        let template = Arc::new(WorkerTemplate {
            rx,
            limits: cfg.limits.clone(),
            prewarm: cfg.prewarm,
            snapshot,
            counters: counters.clone(),
        });
        for _ in 0..cfg.workers {
            template.start()?;
        }
        Ok(Pool {
            inner: Arc::new(Inner {
                backend: Backend::Threads {
                    tx,
                    counters,
                    template,
                },
                limits: cfg.limits,
                workers: cfg.workers,
                snapshot: cfg.snapshot,
                queue_timeout: cfg.queue_timeout,
            }),
        })
    }

    fn new_processes(cfg: &PoolConfig, command: WorkerCommand) -> Result<Pool, SandboxError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("sandbox-host-calls")
            .enable_all()
            .build()?;
        let shared = Arc::new(process::Shared {
            command,
            pool_limits: cfg.limits.clone(),
            harden: cfg.harden,
            processes: Arc::new(AtomicUsize::new(0)),
            drivers: Arc::new(AtomicUsize::new(0)),
            runtime: process::HostCalls(Some(runtime)),
        });
        let (tx, rx) = mpsc::sync_channel::<HostJob>(cfg.queue);
        let rx = Arc::new(Mutex::new(rx));
        for index in 0..cfg.workers {
            let (shared, rx) = (shared.clone(), rx.clone());
            std::thread::Builder::new()
                .name(format!("sandbox-driver-{index}"))
                .spawn(move || process::drive(shared, rx))?;
        }
        Ok(Pool {
            inner: Arc::new(Inner {
                backend: Backend::Processes { tx, shared },
                limits: cfg.limits.clone(),
                workers: cfg.workers,
                snapshot: cfg.snapshot,
                queue_timeout: cfg.queue_timeout,
            }),
        })
    }

    /// The engine this build runs on: `"quickjs"` or `"v8"`.
    pub fn engine_name() -> &'static str {
        crate::engine::engine_name()
    }

    /// Live isolates and threads of this pool.
    pub fn stats(&self) -> PoolStats {
        let workers = self.inner.workers;
        match &self.inner.backend {
            Backend::Threads { counters, .. } => PoolStats {
                workers,
                live_isolates: counters.isolates.load(Ordering::SeqCst),
                live_threads: counters.threads.load(Ordering::SeqCst),
                live_processes: 0,
                wedged_workers: counters.wedged.load(Ordering::SeqCst),
                replaced_workers: counters.replaced.load(Ordering::SeqCst),
            },
            Backend::Processes { shared, .. } => PoolStats {
                workers,
                live_isolates: 0,
                live_threads: shared.drivers.load(Ordering::SeqCst),
                live_processes: shared.processes.load(Ordering::SeqCst),
                wedged_workers: 0,
                replaced_workers: 0,
            },
        }
    }

    /// The limits [`Pool::execute`] uses.
    pub fn limits(&self) -> &Limits {
        &self.inner.limits
    }

    /// Checks that the engine can create a sandbox isolate (on a scratch
    /// thread). The answer is cached for the process once it succeeded.
    ///
    /// # Errors
    /// [`SandboxError::Engine`] if the isolate cannot be created; the caller
    /// should fall back to the structured tools.
    pub fn probe(&self) -> Result<(), SandboxError> {
        if let Backend::Processes { .. } = self.inner.backend {
            return self.probe_process();
        }
        static OK: OnceLock<()> = OnceLock::new();
        if OK.get().is_some() {
            return Ok(());
        }
        let limits = self.inner.limits.clone();
        let use_snapshot = self.inner.snapshot;
        let scratch = Arc::new(AtomicUsize::new(0));
        let out = std::thread::Builder::new()
            .name("sandbox-probe".into())
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_time()
                    .build()
                    .map_err(|e| e.to_string())?;
                rt.block_on(async {
                    let snapshot = if use_snapshot {
                        crate::engine::startup_snapshot()
                    } else {
                        None
                    };
                    Sandbox::create(
                        limits.heap_bytes,
                        limits.array_buffer_bytes,
                        snapshot,
                        &scratch,
                    )
                    .map(drop)
                })
            })?
            .join()
            .map_err(|_| SandboxError::Engine("the engine panicked while starting".into()))?;
        out.map_err(SandboxError::Engine)?;
        let _ = OK.set(());
        Ok(())
    }

    /// Runs a trivial snippet through a worker process.
    fn probe_process(&self) -> Result<(), SandboxError> {
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
                _: CancellationToken,
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
        let (tx, template) = match &self.inner.backend {
            Backend::Threads { tx, template, .. } => (tx, template),
            Backend::Processes { tx, .. } => {
                let (reply, rx) = oneshot::channel();
                let wait = self.inner.queue_timeout;
                let job = HostJob {
                    code: code.to_owned(),
                    bridge,
                    limits: limits.clone(),
                    enqueued: Instant::now(),
                    queue_deadline: Instant::now() + wait,
                    reply,
                };
                // The driver answers every job it takes within deadline + grace
                // (it kills an overrunning process), one it takes too late at once,
                // and a process that will not start within its start timeout.
                let bound = wait + limits.deadline + limits.grace + process::START_TIMEOUT;
                return match tx.try_send(job) {
                    Ok(()) => match tokio::time::timeout(bound, rx).await {
                        Ok(Ok(res)) => res,
                        Ok(Err(_)) => ExecResult::failed(
                            ErrorKind::Engine,
                            "the sandbox driver stopped unexpectedly",
                        ),
                        Err(_) => ExecResult::failed(
                            ErrorKind::Engine,
                            "the sandbox driver did not answer in time",
                        ),
                    },
                    Err(TrySendError::Full(_)) => ExecResult::failed(ErrorKind::Limit, BUSY),
                    Err(TrySendError::Disconnected(_)) => {
                        ExecResult::failed(ErrorKind::Engine, "the sandbox workers have stopped")
                    }
                };
            }
        };
        let journal = Arc::new(Mutex::new(Journal::default()));
        let abandon = CancellationToken::new();
        let retired = Arc::new(AtomicBool::new(false));
        let (reply, mut rx) = oneshot::channel();
        let enqueued = Instant::now();
        let job = Job {
            code: code.to_owned(),
            bridge,
            limits: limits.clone(),
            journal: journal.clone(),
            abandon: abandon.clone(),
            enqueued,
            reply,
            retired: retired.clone(),
        };
        match tx.try_send(job) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => return ExecResult::failed(ErrorKind::Limit, BUSY),
            Err(TrySendError::Disconnected(_)) => {
                return ExecResult::failed(ErrorKind::Engine, "the sandbox workers have stopped")
            }
        }
        let _abandon_on_drop = abandon.clone().drop_guard();
        let budget = limits.deadline + limits.grace;
        let queue_deadline = enqueued + self.inner.queue_timeout;
        loop {
            let started = lock(&journal).started;
            let until = match started {
                Some(t) => t + budget,
                None if Instant::now() >= queue_deadline => {
                    // Every worker stayed busy: the job never starts (the worker
                    // skips an abandoned job).
                    abandon.cancel();
                    if lock(&journal).started.is_none() {
                        return ExecResult::failed(
                            ErrorKind::Limit,
                            format!(
                                "no sandbox worker became free within {} ms; retry shortly",
                                self.inner.queue_timeout.as_millis()
                            ),
                        );
                    }
                    continue;
                }
                // Not started yet: look again after a while.
                None => (Instant::now() + std::time::Duration::from_millis(50)).min(queue_deadline),
            };
            match tokio::time::timeout_at(until.into(), &mut rx).await {
                Ok(Ok(res)) => return res,
                Ok(Err(_)) => {
                    return ExecResult::failed(
                        ErrorKind::Engine,
                        "the sandbox worker stopped unexpectedly",
                    )
                }
                Err(_) if started.is_some() => {
                    // The worker did not acknowledge in time (a built-in the engine
                    // cannot interrupt, or a synchronous bridge call that never
                    // returns): answer from the journal, and put a fresh worker in
                    // its place so the pool keeps its size.
                    abandon.cancel();
                    let tid = lock(&journal).worker_tid;
                    let answer = sandbox::snapshot_timeout(&journal, limits.deadline);
                    // A worker that is only slow (a loaded machine) answers soon;
                    // one that still has not after WEDGE_CONFIRM is wedged. A plain
                    // thread waits, so no runtime has to outlive this call.
                    let (template, retired) = (template.clone(), retired.clone());
                    let confirm = std::thread::Builder::new()
                        .name("sandbox-wedge-check".into())
                        .spawn(move || {
                            std::thread::sleep(WEDGE_CONFIRM);
                            if matches!(rx.try_recv(), Err(oneshot::error::TryRecvError::Empty)) {
                                template.replace_wedged(&retired, tid);
                            }
                        });
                    if let Err(e) = confirm {
                        tracing::error!("cannot check a late sandbox worker: {e}");
                    }
                    return answer;
                }
                Err(_) => continue,
            }
        }
    }

    /// Tests the OS layer under the isolate (`PoolConfig::harden`) from inside
    /// a fresh worker process, where a job would run: `what` is `socket`,
    /// `connect`, `execve`, `open`, `openat`, `ptrace` or `unshare` (the process
    /// must die: an `engine` error), or `limits` (the value holds the worker's
    /// resource limits and environment variable names). For the security suite.
    #[doc(hidden)]
    pub fn self_test(&self, what: &str) -> ExecResult {
        match &self.inner.backend {
            Backend::Processes { shared, .. } => {
                process::self_test(shared, what, &self.inner.limits)
            }
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

/// Isolates one worker thread creates before it hands over to a fresh thread.
///
/// v8x/QuickJS keeps per-thread engine state that grows with every runtime: a
/// thread that created a few hundred runtimes fails to bootstrap the next one
/// (measured: the 278th cold runtime on a thread, the ~146th restored from a
/// snapshot, while a new thread starts clean). Recycling the thread well
/// before that keeps every isolate healthy and bounds that state.
pub(crate) const ISOLATES_PER_THREAD: usize = 64;

/// What every worker thread of a pool starts from.
struct WorkerTemplate {
    rx: Arc<Mutex<Receiver<Job>>>,
    limits: Limits,
    prewarm: bool,
    snapshot: Option<&'static [u8]>,
    counters: Arc<Counters>,
}

impl WorkerTemplate {
    /// Starts one more worker thread (with its watchdog).
    fn start(self: &Arc<Self>) -> std::io::Result<()> {
        let index = self.counters.next_index.fetch_add(1, Ordering::SeqCst);
        let watchdog =
            Watchdog::spawn(format!("sandbox-watchdog-{index}"), &self.counters.threads)?;
        Worker {
            index,
            template: self.clone(),
            watchdog,
        }
        .spawn()
    }

    /// The worker running a job did not acknowledge within deadline + grace, nor
    /// [`WEDGE_CONFIRM`] after: mark the job so
    /// the worker ends if it ever gets back, lower its thread to the lowest
    /// priority (a built-in spinning in C cannot be stopped from outside a
    /// process), count it, and start a replacement.
    fn replace_wedged(self: &Arc<Self>, retired: &AtomicBool, tid: i32) {
        if retired.swap(true, Ordering::SeqCst) {
            return;
        }
        self.counters.wedged.fetch_add(1, Ordering::SeqCst);
        self.counters.replaced.fetch_add(1, Ordering::SeqCst);
        #[cfg(target_os = "linux")]
        let lowered = tid != 0 && crate::sys::lower_priority(tid);
        #[cfg(not(target_os = "linux"))]
        let lowered = false;
        tracing::error!(
            thread = tid,
            lowered,
            "a sandbox worker did not stop at its deadline (a built-in the engine cannot \
             interrupt?); replaced it. Use Isolation::Process for untrusted code"
        );
        if let Err(e) = self.start() {
            tracing::error!("a wedged sandbox worker could not be replaced: {e}");
        }
    }
}

/// Why a worker thread stopped serving.
enum Stop {
    /// The queue closed: the pool is gone.
    Closed,
    /// The thread made its quota of isolates: hand over to a new thread.
    Quota,
    /// The pool replaced this worker while it was wedged.
    Retired,
}

/// One worker: its thread runs jobs from the shared queue.
struct Worker {
    index: usize,
    template: Arc<WorkerTemplate>,
    watchdog: Watchdog,
}

impl Worker {
    fn spawn(self) -> std::io::Result<()> {
        std::thread::Builder::new()
            .name(format!("sandbox-worker-{}", self.index))
            .spawn(move || {
                let live = ThreadGuard::new(&self.template.counters.threads);
                let stop = self.serve();
                drop(live);
                match stop {
                    Stop::Quota => {
                        let index = self.index;
                        if let Err(e) = self.spawn() {
                            tracing::error!("sandbox worker {index} could not be replaced: {e}");
                        }
                    }
                    Stop::Retired => {
                        self.template.counters.wedged.fetch_sub(1, Ordering::SeqCst);
                    }
                    Stop::Closed => {}
                }
            })?;
        Ok(())
    }

    /// Runs jobs until the queue closes, this thread created
    /// [`ISOLATES_PER_THREAD`] isolates, or the pool retired it.
    fn serve(&self) -> Stop {
        let t = &*self.template;
        let rx = &*t.rx;
        let rt = match tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
        {
            Ok(rt) => rt,
            Err(e) => {
                tracing::error!("sandbox worker cannot start a tokio runtime: {e}");
                // Answer jobs with an engine error rather than leaving them hanging.
                while let Ok(job) = recv(rx) {
                    let _ = job.reply.send(ExecResult::failed(
                        ErrorKind::Engine,
                        "the sandbox worker has no runtime",
                    ));
                }
                return Stop::Closed;
            }
        };
        let created = std::cell::Cell::new(0usize);
        rt.block_on(async {
            let create = |l: &Limits| {
                created.set(created.get() + 1);
                Sandbox::create(
                    l.heap_bytes,
                    l.array_buffer_bytes,
                    t.snapshot,
                    &t.counters.isolates,
                )
            };
            // At most one live isolate on this thread at any time: the next one
            // is created only after the previous one was dropped.
            let mut next: Option<Result<Live, String>> = t.prewarm.then(|| create(&t.limits));
            while let Ok(job) = recv(rx) {
                if job.abandon.is_cancelled() {
                    continue;
                }
                let queue_us = job.enqueued.elapsed().as_micros() as u64;
                let prewarmed =
                    matches!(&next, Some(Ok(l)) if l.sandbox.heap_bytes == job.limits.heap_bytes);
                let live = match next.take() {
                    Some(live) if prewarmed => live,
                    other => {
                        drop(other);
                        create(&job.limits)
                    }
                };
                {
                    let mut j = lock(&job.journal);
                    j.started = Some(Instant::now());
                    #[cfg(target_os = "linux")]
                    {
                        j.worker_tid = crate::sys::thread_id();
                    }
                }
                let (mut res, used) = match live {
                    Ok(mut live) => {
                        let spec = JobSpec {
                            code: &job.code,
                            bridge: job.bridge.clone(),
                            limits: &job.limits,
                            journal: job.journal.clone(),
                            abandon: job.abandon.clone(),
                        };
                        (live.sandbox.run(&spec, &self.watchdog).await, Some(live))
                    }
                    Err(e) => (
                        ExecResult::failed(
                            ErrorKind::Engine,
                            format!("the JS engine could not start: {e}"),
                        ),
                        None,
                    ),
                };
                res.stats.queue_us = queue_us;
                res.stats.prewarmed = prewarmed;
                let _ = job.reply.send(res);
                // Answer first, then drop the isolate (and with it every pending
                // op future and its bridge future) before creating the next one.
                drop(used);
                drop(job.bridge);
                if job.retired.load(Ordering::SeqCst) {
                    return Stop::Retired;
                }
                if created.get() >= ISOLATES_PER_THREAD {
                    return Stop::Quota;
                }
                if t.prewarm {
                    next = Some(create(&t.limits));
                }
            }
            Stop::Closed
        })
    }
}

fn recv(rx: &Mutex<Receiver<Job>>) -> Result<Job, mpsc::RecvError> {
    rx.lock().unwrap_or_else(|p| p.into_inner()).recv()
}
