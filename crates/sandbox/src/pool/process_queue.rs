//! Admitting a job to the process backend: the bounded queue in front of the
//! driver threads, and the drivers themselves, `workers` of them for good and
//! more on demand (up to `max_workers`) while every driver is busy: a job
//! that waits on a slow tool call holds its driver and its process, and must
//! not keep a short job of someone else waiting behind it. An extra driver
//! ends after `EXTRA_WORKER_IDLE` without a job.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use super::processes::{drive, HostCalls, HostJob, Shared, START_TIMEOUT};
use super::registry::Registry;
use super::worker_command::WorkerCommand;
use super::{PoolStats, BUSY};
use crate::bridge::Bridge;
use crate::limits::{Limits, PoolConfig};
use crate::result::{ErrorKind, ExecResult, SandboxError};

/// The process backend of a pool: driver threads, each with one worker process
/// at a time, fed by a bounded queue.
pub(crate) struct Processes {
    /// The queue; taken by [`Processes::shutdown`], which stops the drivers.
    tx: Mutex<Option<SyncSender<HostJob>>>,
    rx: Arc<Mutex<Receiver<HostJob>>>,
    shared: Arc<Shared>,
    queue_timeout: Duration,
    /// The most drivers at once (at least the pool's `workers`).
    max_drivers: usize,
    /// Extra drivers started so far (for thread names).
    extras: AtomicUsize,
}

/// Starts one driver thread (counted in `shared.drivers` while it runs).
fn start_driver(
    shared: &Arc<Shared>,
    rx: &Arc<Mutex<Receiver<HostJob>>>,
    name: String,
    extra: bool,
) -> std::io::Result<()> {
    let (shared, rx) = (shared.clone(), rx.clone());
    let drivers = shared.drivers.clone();
    drivers.fetch_add(1, Ordering::SeqCst);
    let started = std::thread::Builder::new().name(name).spawn(move || {
        let drivers = shared.drivers.clone();
        drive(shared, rx, extra);
        drivers.fetch_sub(1, Ordering::SeqCst);
    });
    if started.is_err() {
        drivers.fetch_sub(1, Ordering::SeqCst);
    }
    started.map(|_| ())
}

impl Processes {
    /// Starts `cfg.workers` driver threads (processes start on first use).
    pub(crate) fn new(cfg: &PoolConfig, command: WorkerCommand) -> Result<Processes, SandboxError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("sandbox-host-calls")
            .enable_all()
            .build()?;
        let shared = Arc::new(Shared {
            command,
            pool_limits: cfg.limits.clone(),
            harden: cfg.harden,
            fork: cfg.fork_per_job,
            processes: Arc::new(AtomicUsize::new(0)),
            drivers: Arc::new(AtomicUsize::new(0)),
            idle: AtomicUsize::new(0),
            queued: AtomicUsize::new(0),
            registry: Arc::new(Registry::default()),
            runtime: HostCalls(Some(runtime)),
        });
        let (tx, rx) = mpsc::sync_channel::<HostJob>(cfg.queue);
        let rx = Arc::new(Mutex::new(rx));
        for index in 0..cfg.workers {
            start_driver(&shared, &rx, format!("sandbox-driver-{index}"), false)?;
        }
        Ok(Processes {
            tx: Mutex::new(Some(tx)),
            rx,
            shared,
            queue_timeout: cfg.queue_timeout,
            max_drivers: cfg.max_workers.max(cfg.workers),
            extras: AtomicUsize::new(0),
        })
    }

    pub(crate) fn stats(&self, workers: usize) -> PoolStats {
        PoolStats {
            workers,
            live_isolates: 0,
            live_threads: self.shared.drivers.load(Ordering::SeqCst),
            live_processes: self.shared.processes.load(Ordering::SeqCst),
            wedged_workers: 0,
            replaced_workers: 0,
        }
    }

    pub(crate) fn self_test(&self, what: &str, limits: &Limits) -> ExecResult {
        super::processes::self_test(&self.shared, what, limits)
    }

    /// A job was queued: when more jobs wait than drivers wait for one, and
    /// fewer than the most run, one more starts (it takes this job, or the
    /// next).
    fn grow_if_all_busy(&self) {
        let (queued, idle) = (
            self.shared.queued.load(Ordering::SeqCst),
            self.shared.idle.load(Ordering::SeqCst),
        );
        if queued <= idle
            || self.shared.drivers.load(Ordering::SeqCst) >= self.max_drivers
            || self.shared.registry.closing()
        {
            return;
        }
        let n = self.extras.fetch_add(1, Ordering::Relaxed);
        let name = format!("sandbox-driver-extra-{n}");
        if let Err(e) = start_driver(&self.shared, &self.rx, name, true) {
            tracing::warn!(error = %e, "sandbox: cannot start an extra driver; the job waits for a busy one");
        }
    }

    /// Runs one job in a worker process. The driver answers every job it takes
    /// within deadline + grace (it kills an overrunning process), one it takes too
    /// late at once, and a process that will not start within its start timeout.
    pub(crate) async fn execute(
        &self,
        code: &str,
        bridge: Arc<dyn Bridge>,
        limits: Limits,
    ) -> ExecResult {
        let (reply, rx) = oneshot::channel();
        let wait = self.queue_timeout;
        let job = HostJob {
            code: code.to_owned(),
            bridge,
            limits: limits.clone(),
            enqueued: Instant::now(),
            queue_deadline: Instant::now() + wait,
            reply,
        };
        let bound = wait + limits.deadline + limits.grace + START_TIMEOUT;
        // Counted before it is sent: a driver may take it at once.
        self.shared.queued.fetch_add(1, Ordering::SeqCst);
        let sent = match &*self.tx.lock().unwrap_or_else(|p| p.into_inner()) {
            Some(tx) => tx.try_send(job),
            None => Err(TrySendError::Disconnected(job)),
        };
        if sent.is_err() {
            self.shared.queued.fetch_sub(1, Ordering::SeqCst);
        }
        match sent {
            Ok(()) => {
                self.grow_if_all_busy();
                match tokio::time::timeout(bound, rx).await {
                    Ok(Ok(res)) => res,
                    Ok(Err(_)) => ExecResult::failed(
                        ErrorKind::Engine,
                        "the sandbox driver stopped unexpectedly",
                    ),
                    Err(_) => ExecResult::failed(
                        ErrorKind::Engine,
                        "the sandbox driver did not answer in time",
                    ),
                }
            }
            Err(TrySendError::Full(_)) => ExecResult::failed(ErrorKind::Limit, BUSY),
            Err(TrySendError::Disconnected(_)) => {
                ExecResult::failed(ErrorKind::Engine, "the sandbox workers have stopped")
            }
        }
    }

    /// Stops the drivers and kills every worker process group, then waits up
    /// to `within` until each worker is reaped and every process of its group
    /// has exited. True when all are gone in time.
    pub(crate) fn shutdown(&self, within: Duration) -> bool {
        let until = Instant::now() + within;
        self.shared.registry.close();
        // The drivers answer what is queued with SHUTTING_DOWN, drop their
        // processes (kill and reap) and end.
        drop(self.tx.lock().unwrap_or_else(|p| p.into_inner()).take());
        loop {
            let gone = self.shared.drivers.load(Ordering::SeqCst) == 0
                && self.shared.processes.load(Ordering::SeqCst) == 0
                && self.shared.registry.open_outputs.load(Ordering::SeqCst) == 0;
            if gone {
                return true;
            }
            if Instant::now() >= until {
                return false;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

impl Drop for Processes {
    /// The last clone of the pool is gone: its worker processes die now (the
    /// drivers reap them), not when their drivers next look.
    fn drop(&mut self) {
        self.shared.registry.close();
    }
}
