//! The thread backend: N worker threads, each with a current-thread tokio
//! runtime and at most one live isolate (the next one pre-warmed), fed by a
//! bounded queue. A worker that does not acknowledge its deadline is replaced.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::{PoolStats, BUSY};
use crate::bridge::Bridge;
use crate::clock::JobClock;
use crate::isolate::jobs::Isolates;
use crate::isolate::journal::{lock, Journal};
use crate::isolate::runtime::{self, JobSpec, Sandbox};
use crate::isolate::watchdog::{ThreadGuard, Watchdog};
use crate::limits::{Limits, PoolConfig};
use crate::result::{ErrorKind, ExecResult, SandboxError};

/// How long past `deadline + grace` a thread worker may take to acknowledge a
/// job before it is declared wedged and replaced (the caller is answered at
/// `deadline + grace` either way): a loaded machine delays threads by tens of
/// milliseconds, a built-in spinning in C never answers.
pub const WEDGE_CONFIRM: std::time::Duration = std::time::Duration::from_secs(1);

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
    clock: JobClock,
    enqueued: Instant,
    reply: oneshot::Sender<ExecResult>,
    /// Set by the pool when the worker running this job did not acknowledge in
    /// time and was replaced: the worker ends once (if ever) the job returns.
    retired: Arc<AtomicBool>,
}

/// The thread backend of a pool.
pub(crate) struct Threads {
    tx: SyncSender<Job>,
    counters: Arc<Counters>,
    /// Settings a replacement worker starts from.
    template: Arc<WorkerTemplate>,
    snapshot: bool,
    queue_timeout: std::time::Duration,
}

impl Threads {
    /// Starts `cfg.workers` worker threads (each pre-warms an isolate if asked).
    pub(crate) fn new(cfg: &PoolConfig) -> Result<Threads, SandboxError> {
        let (tx, rx) = mpsc::sync_channel::<Job>(cfg.queue);
        let rx = Arc::new(Mutex::new(rx));
        let counters = Arc::new(Counters::default());
        crate::isolate::engine::configure_process();
        let snapshot = if cfg.snapshot {
            crate::isolate::engine::startup_snapshot()
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
        Ok(Threads {
            tx,
            counters,
            template,
            snapshot: cfg.snapshot,
            queue_timeout: cfg.queue_timeout,
        })
    }

    pub(crate) fn stats(&self, workers: usize) -> PoolStats {
        let c = &self.counters;
        PoolStats {
            workers,
            live_isolates: c.isolates.load(Ordering::SeqCst),
            live_threads: c.threads.load(Ordering::SeqCst),
            live_processes: 0,
            wedged_workers: c.wedged.load(Ordering::SeqCst),
            replaced_workers: c.replaced.load(Ordering::SeqCst),
        }
    }

    /// Creates an isolate on a scratch thread; cached once it succeeded.
    pub(crate) fn probe(&self, limits: &Limits) -> Result<(), SandboxError> {
        static OK: OnceLock<()> = OnceLock::new();
        if OK.get().is_some() {
            return Ok(());
        }
        let limits = limits.clone();
        let use_snapshot = self.snapshot;
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
                        crate::isolate::engine::startup_snapshot()
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

    /// Runs one job on a worker thread; answers by `deadline + grace` of its start.
    pub(crate) async fn execute(
        &self,
        code: &str,
        bridge: Arc<dyn Bridge>,
        limits: Limits,
    ) -> ExecResult {
        let (tx, template) = (&self.tx, &self.template);
        let journal = Arc::new(Mutex::new(Journal::default()));
        let abandon = CancellationToken::new();
        let retired = Arc::new(AtomicBool::new(false));
        let (reply, mut rx) = oneshot::channel();
        let enqueued = Instant::now();
        let clock = JobClock::default();
        let job = Job {
            code: code.to_owned(),
            bridge,
            limits: limits.clone(),
            journal: journal.clone(),
            abandon: abandon.clone(),
            clock: clock.clone(),
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
        let queue_deadline = enqueued + self.queue_timeout;
        loop {
            let started = lock(&journal).started;
            let until = match started {
                // Time paused for an approval moves the bound (the watchdog
                // counts only the idle part of it against the snippet).
                Some(t) => Instant::now() + clock.left_of_bound(t + budget).unwrap_or_default(),
                None if Instant::now() >= queue_deadline => {
                    // Every worker stayed busy: the job never starts (the worker
                    // skips an abandoned job).
                    abandon.cancel();
                    if lock(&journal).started.is_none() {
                        return ExecResult::failed(
                            ErrorKind::Limit,
                            format!(
                                "no sandbox worker became free within {} ms; retry shortly",
                                self.queue_timeout.as_millis()
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
                Err(_) if started.is_some_and(|t| clock.left_of_bound(t + budget).is_some()) => {
                    continue
                }
                Err(_) if started.is_some() => {
                    // The worker did not acknowledge in time (a built-in the engine
                    // cannot interrupt, or a synchronous bridge call that never
                    // returns): answer from the journal, and put a fresh worker in
                    // its place so the pool keeps its size.
                    abandon.cancel();
                    let tid = lock(&journal).worker_tid;
                    let answer =
                        runtime::snapshot_timeout(&journal, limits.deadline, clock.credit());
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
        rt.block_on(async {
            // At most one live isolate on this thread at any time: the next one
            // is created only after the previous one was dropped.
            let mut isolates = Isolates::new(t.snapshot, t.counters.isolates.clone());
            if t.prewarm {
                isolates.prewarm(&t.limits);
            }
            while let Ok(job) = recv(rx) {
                if job.abandon.is_cancelled() {
                    continue;
                }
                let queue_us = job.enqueued.elapsed().as_micros() as u64;
                let spec = JobSpec {
                    code: &job.code,
                    bridge: job.bridge.clone(),
                    limits: &job.limits,
                    journal: job.journal.clone(),
                    abandon: job.abandon.clone(),
                    clock: job.clock.clone(),
                };
                let (mut res, used) = isolates.run(&spec, &self.watchdog).await;
                drop(spec);
                res.stats.queue_us = queue_us;
                let _ = job.reply.send(res);
                // Let the caller run before this thread spends milliseconds
                // dropping the isolate and creating the next one. The woken caller
                // is often queued on this thread's core (its own core idles deep
                // after a pause), and would otherwise wait for the scheduler tick
                // to be moved: +3 ms on every request that came after a pause of
                // more than ~20 ms (measured at 4 ms ticks, HZ=250), which is
                // what traffic seconds apart always meets. One `sched_yield`, no
                // waiting: when nothing else is runnable it returns at once.
                std::thread::yield_now();
                // Answer first, then drop the isolate (and with it every pending
                // op future and its bridge future) before creating the next one.
                drop(used);
                drop(job.bridge);
                if job.retired.load(Ordering::SeqCst) {
                    return Stop::Retired;
                }
                if isolates.created >= ISOLATES_PER_THREAD {
                    return Stop::Quota;
                }
                if t.prewarm {
                    isolates.prewarm(&t.limits);
                }
            }
            Stop::Closed
        })
    }
}

fn recv(rx: &Mutex<Receiver<Job>>) -> Result<Job, mpsc::RecvError> {
    rx.lock().unwrap_or_else(|p| p.into_inner()).recv()
}
