//! The host side of [`Isolation::Process`](crate::Isolation::Process): one
//! supervised worker process per worker slot, each running one job at a time.
//!
//! Why processes: an in-process engine cannot promise the host never aborts
//! (fatal OOMs, engine CHECK failures), and v8x/QuickJS keeps about 0.8-2 MB per
//! deno_core runtime that is never given back (measured with valgrind: the
//! context's objects stay referenced after the isolate is disposed). A worker
//! process is replaced after [`JOBS_PER_PROCESS`] jobs, which returns that memory
//! to the system, and killed when it overruns `deadline + grace` or dies, which
//! never takes the host with it. A standby process is started before the active
//! one retires, so requests rarely wait for a process to start.

use std::collections::HashMap;
use std::io::BufReader;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::registry::{end, Registry};
use super::requests::{handle_request, Records, ToWorker};
use super::worker_command::WorkerCommand;
use crate::bridge::Bridge;
use crate::clock::JobClock;
use crate::ipc::{self, ToChild, ToHost};
use crate::limits::Limits;
use crate::result::{ErrorKind, ExecError, ExecResult};

/// Jobs a worker process runs before it is replaced by a fresh one.
pub const JOBS_PER_PROCESS: usize = 64;
/// The same for a worker that forks a fresh copy of its template isolate per
/// job (it keeps no engine memory from one job to the next); renewed now and
/// then all the same, to bound whatever else a long-lived process gathers.
pub const JOBS_PER_FORKING_PROCESS: usize = 4096;
/// How long a new worker process may take to report ready.
pub(crate) const START_TIMEOUT: Duration = Duration::from_secs(20);
/// The answer to a job the pool could not run or finish because it shuts down.
const SHUTTING_DOWN: &str = "the sandbox is shutting down (the host is stopping)";
/// Messages of a worker read ahead of its driver, at most.
const EVENTS_QUEUED: usize = 256;
/// Extra time for the pipe round trip before the host gives up on a job.
const IPC_SLACK: Duration = Duration::from_millis(20);

pub(crate) struct HostJob {
    pub code: String,
    pub bridge: Arc<dyn Bridge>,
    pub limits: Limits,
    pub enqueued: Instant,
    /// A job still queued at this point is answered with a `limit` error.
    pub queue_deadline: Instant,
    pub reply: oneshot::Sender<ExecResult>,
}

enum Event {
    Msg(ToHost),
    /// The output ended, or carried a line the host cannot read (why); either
    /// way the worker is killed, never waited for.
    Eof(Option<String>),
}

/// One running worker process.
struct Proc {
    child: Child,
    registry: Arc<Registry>,
    to_worker: ToWorker,
    events: Receiver<Event>,
    jobs: usize,
    /// Jobs before retirement: [`JOBS_PER_PROCESS`], or
    /// [`JOBS_PER_FORKING_PROCESS`] once the process said it forks per job.
    quota: usize,
    ready: bool,
    /// It forks a fresh job process per job (its `Ready` said so); else it runs
    /// every job in one process of its own (`TOOLSEARCH_SANDBOX_FORK=0`).
    forks: bool,
    _live: Live,
}

/// Counts a live worker process.
struct Live(Arc<AtomicUsize>);

impl Drop for Live {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Proc {
    /// Ends the worker and every job process it forked, at once, and reaps
    /// it; how it ended. Its output ended, but that does not make a process
    /// exit (a line the host could not read ends the output too): never wait
    /// for one that was not killed first.
    fn end(&mut self) -> String {
        end(&self.registry, &mut self.child)
    }

    /// Whether the process ended (or its output broke) since its last job was
    /// answered: what it sent after that answer is dropped. A job is never
    /// given to such a process.
    fn gone(&mut self) -> bool {
        loop {
            match self.events.try_recv() {
                Ok(Event::Msg(_)) => continue,
                Ok(Event::Eof(_)) | Err(mpsc::TryRecvError::Disconnected) => return true,
                Err(mpsc::TryRecvError::Empty) => return false,
            }
        }
    }
}

/// Replaces a worker process that runs jobs in one process of its own after a
/// job that ended abnormally (out of memory, crashed, an engine failure): the
/// engine's state after such an end is not trusted with another client's job.
fn ended_abnormally(result: &ExecResult) -> bool {
    matches!(
        result.error.as_ref().map(|e| e.kind),
        Some(ErrorKind::Memory | ErrorKind::Crashed | ErrorKind::Engine | ErrorKind::Timeout)
    )
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.end();
    }
}

/// Shared by the driver threads of one pool.
pub(crate) struct Shared {
    pub command: WorkerCommand,
    pub pool_limits: Limits,
    /// Apply the OS layer in the workers (`harden.rs`).
    pub harden: bool,
    /// Ask the workers to fork a copy of their template per job.
    pub fork: bool,
    pub processes: Arc<AtomicUsize>,
    pub drivers: Arc<AtomicUsize>,
    /// Drivers waiting for a job (not running one).
    pub idle: AtomicUsize,
    /// Jobs queued and not yet taken by a driver.
    pub queued: AtomicUsize,
    /// The worker processes not reaped yet; closed when the pool shuts down.
    pub registry: Arc<Registry>,
    /// Runs the host side of tool calls.
    pub runtime: HostCalls,
}

/// The runtime that runs the host side of tool calls. Shut down in the
/// background when the pool goes: the last clone of a pool may be dropped
/// inside the caller's async code, where a blocking shutdown panics.
pub(crate) struct HostCalls(pub Option<tokio::runtime::Runtime>);

impl Drop for HostCalls {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

impl Shared {
    /// Starts a worker process. Call it from a thread that outlives the
    /// process (see `sys::tie_to_host`): a driver thread, or the caller of a
    /// self-test, which waits for its process.
    fn spawn(&self) -> std::io::Result<Proc> {
        // An empty environment: nothing of the host's (tokens, paths) reaches
        // a process that runs untrusted code. Its settings come over stdin.
        let mut cmd = Command::new(&self.command.program);
        cmd.args(&self.command.args)
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        heap_checking(&mut cmd);
        // Its own process group, killed with the host.
        #[cfg(target_os = "linux")]
        crate::sys::tie_to_host(&mut cmd);
        let mut child = {
            // Registered before the lock is let go: a shutdown either comes
            // first (no process starts) or sees this one.
            let mut groups = self.registry.groups();
            if self.registry.closing() {
                return Err(std::io::Error::other("the sandbox is shutting down"));
            }
            let child = cmd.spawn()?;
            groups.insert(child.id());
            child
        };
        self.processes.fetch_add(1, Ordering::SeqCst);
        let live = Live(self.processes.clone());
        let (stdin, stdout) = (child.stdin.take(), child.stdout.take());
        let pid = child.id();
        let kill = {
            let registry = self.registry.clone();
            Arc::new(move || registry.kill(pid))
        };
        let to_worker = stdin
            .ok_or_else(|| std::io::Error::other("no stdin"))
            .and_then(|stdin| ToWorker::start(stdin, kill));
        let to_worker = match to_worker {
            Ok(w) => w,
            Err(e) => {
                end(&self.registry, &mut child);
                return Err(e);
            }
        };
        // Bounded: a worker that floods the pipe waits for the driver (its
        // writes block) instead of growing the host's memory.
        let (tx, events) = mpsc::sync_channel(EVENTS_QUEUED);
        // From here on, an error drops `p`, which kills and reaps the process.
        let p = Proc {
            child,
            registry: self.registry.clone(),
            to_worker,
            events,
            jobs: 0,
            quota: JOBS_PER_PROCESS,
            ready: false,
            forks: false,
            _live: live,
        };
        let stdout = stdout.ok_or_else(|| std::io::Error::other("no stdout"))?;
        let config = ToChild::Config {
            limits: self.pool_limits.clone(),
            harden: self.harden,
            // Off (`PoolConfig::fork_per_job`): serve from an in-process pool
            // in the worker instead.
            fork: self.fork,
        };
        p.to_worker.send(&config)?;
        let cap = ipc::line_cap(&self.pool_limits);
        let outputs = self.registry.clone();
        outputs.open_outputs.fetch_add(1, Ordering::SeqCst);
        let reader = std::thread::Builder::new()
            .name("sandbox-process-reader".into())
            .spawn(move || {
                let mut input = BufReader::new(stdout);
                loop {
                    // An overlong line (a compromised worker) ends the process.
                    match ipc::recv::<ToHost>(&mut input, cap) {
                        Ok(Some(msg)) => {
                            if tx.send(Event::Msg(msg)).is_err() {
                                break;
                            }
                        }
                        Ok(None) => {
                            let _ = tx.send(Event::Eof(None));
                            break;
                        }
                        Err(e) => {
                            let _ = tx.send(Event::Eof(Some(
                                crate::util::truncate(&e.to_string(), 200).to_owned(),
                            )));
                            break;
                        }
                    }
                }
                // The end of the output is the end of every process holding it
                // (the driver kills the group once it saw `Eof`).
                let _ = std::io::copy(input.get_mut(), &mut std::io::sink());
                outputs.open_outputs.fetch_sub(1, Ordering::SeqCst);
            });
        if let Err(e) = reader {
            self.registry.open_outputs.fetch_sub(1, Ordering::SeqCst);
            return Err(e);
        }
        Ok(p)
    }
}

/// The environment variable that turns on glibc's heap checking in worker
/// processes (and every job process they fork): `MALLOC_CHECK_=3` with
/// `libc_malloc_debug.so.0` preloaded, which glibc 2.34 and later need for it.
/// A heap overflow or a bad free then aborts the job's process at once instead
/// of going unseen. For tests and debugging: it slows every allocation.
pub const HEAP_CHECK_VAR: &str = "TOOLSEARCH_SANDBOX_MALLOC_CHECK";

/// Adds the heap checking to a worker's (otherwise empty) environment when the
/// host's [`HEAP_CHECK_VAR`] is `1`.
fn heap_checking(cmd: &mut Command) {
    if std::env::var(HEAP_CHECK_VAR).as_deref() == Ok("1") {
        cmd.env("MALLOC_CHECK_", "3")
            .env("LD_PRELOAD", "libc_malloc_debug.so.0");
    }
}

/// Waits for a process's `Ready`.
fn wait_ready(p: &mut Proc) -> Result<(), String> {
    if p.ready {
        return Ok(());
    }
    let until = Instant::now() + START_TIMEOUT;
    loop {
        match p
            .events
            .recv_timeout(until.saturating_duration_since(Instant::now()))
        {
            Ok(Event::Msg(ToHost::Ready { forks, .. })) => {
                p.ready = true;
                p.forks = forks;
                if forks {
                    p.quota = JOBS_PER_FORKING_PROCESS;
                }
                return Ok(());
            }
            Ok(Event::Msg(_)) => continue,
            Ok(Event::Eof(_)) => {
                let status = p.end();
                return Err(format!(
                    "the sandbox worker process exited while starting ({status})"
                ));
            }
            Err(_) => return Err("the sandbox worker process did not start in time".into()),
        }
    }
}

/// An extra driver's wait for a job: `None` once `idle` passed without one
/// (or the queue closed). A base driver waits for the next job in `recv()`
/// while it holds the queue's lock, so a plain `lock()` here could wait behind
/// it for as long as no job comes and never reach its own idle deadline; the
/// extra driver only ever tries the lock, and looks again shortly.
fn take_within<T>(queue: &Mutex<Receiver<T>>, idle: Duration) -> Option<T> {
    const LOOK_AGAIN: Duration = Duration::from_millis(20);
    let until = Instant::now() + idle;
    loop {
        let rx = match queue.try_lock() {
            Ok(rx) => rx,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => {
                let left = until.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return None;
                }
                std::thread::sleep(left.min(LOOK_AGAIN));
                continue;
            }
        };
        let left = until.saturating_duration_since(Instant::now());
        return rx.recv_timeout(left).ok();
    }
}

/// One worker slot: takes jobs from the queue and runs each in its process.
/// The driver counted itself in `shared.drivers` before it started. An
/// `extra` one (past the pool's `workers`) ends after
/// [`EXTRA_WORKER_IDLE`](crate::limits::EXTRA_WORKER_IDLE) without a job, and
/// keeps no standby process.
pub(crate) fn drive(shared: Arc<Shared>, queue: Arc<Mutex<Receiver<HostJob>>>, extra: bool) {
    let mut active: Option<Proc> = None;
    let mut standby: Option<Proc> = None;
    let mut next_job = 1u64;
    loop {
        let job = {
            shared.idle.fetch_add(1, Ordering::SeqCst);
            let got = if extra {
                take_within(&queue, crate::limits::EXTRA_WORKER_IDLE)
            } else {
                let rx = queue.lock().unwrap_or_else(|p| p.into_inner());
                rx.recv().ok()
            };
            shared.idle.fetch_sub(1, Ordering::SeqCst);
            match got {
                Some(job) => {
                    shared.queued.fetch_sub(1, Ordering::SeqCst);
                    job
                }
                None => break,
            }
        };
        if job.reply.is_closed() {
            continue;
        }
        if shared.registry.closing() {
            let _ = job
                .reply
                .send(ExecResult::failed(ErrorKind::Engine, SHUTTING_DOWN));
            continue;
        }
        if Instant::now() >= job.queue_deadline {
            let waited = job.queue_deadline.saturating_duration_since(job.enqueued);
            let _ = job.reply.send(ExecResult::failed(
                ErrorKind::Limit,
                format!(
                    "no sandbox worker became free within {} ms; retry shortly",
                    waited.as_millis()
                ),
            ));
            continue;
        }
        // A job is tried at most twice: again on a fresh process when the one it
        // met had died after its previous job, before it took this one.
        let id = next_job;
        next_job += 1;
        let mut code = Some(job.code);
        let mut result = None;
        while let Some(this_try) = code.take() {
            // Retire a process at its quota, or one that ended since its last
            // job; its standby takes over.
            if active
                .as_mut()
                .is_some_and(|p| p.jobs >= p.quota || p.gone())
            {
                active = None;
            }
            if active.is_none() {
                let fresh = || {
                    shared
                        .spawn()
                        .map_err(|e| format!("cannot start a sandbox worker process: {e}"))
                        .and_then(|mut p| wait_ready(&mut p).map(|()| p))
                };
                // A standby that died while it waited is replaced, not blamed.
                let waited = standby.take().and_then(|mut p| {
                    wait_ready(&mut p).ok()?;
                    (!p.gone()).then_some(p)
                });
                let ready = match waited {
                    Some(p) => Ok(p),
                    None => fresh(),
                };
                match ready {
                    Ok(p) => active = Some(p),
                    Err(e) => {
                        result = Some(ExecResult::failed(ErrorKind::Engine, e));
                        break;
                    }
                }
            }
            let Some(p) = active.as_mut() else { break };
            p.jobs += 1;
            // Served an earlier job: its death before it took this one is that
            // earlier job's damage (or an outside cause), not this job's.
            let retry = (p.jobs > 1).then(|| this_try.clone());
            let (outcome, healthy) = run_job(
                &shared,
                p,
                id,
                this_try,
                job.bridge.clone(),
                &job.limits,
                job.enqueued,
                &job.reply,
            );
            let forks = p.forks;
            if !healthy || (!forks && ended_abnormally(&outcome.result)) {
                active = None;
            }
            if outcome.died_before_taking && !shared.registry.closing() {
                if let Some(again) = retry {
                    tracing::warn!(
                        "sandbox: a worker process died after its previous job; \
                         running the next job again on a fresh one"
                    );
                    code = Some(again);
                    continue;
                }
            }
            result = Some(outcome.result);
        }
        if let Some(result) = result {
            let _ = job.reply.send(result);
        }
        // Start the successor a little before the active process retires.
        let near_quota = active.as_ref().is_some_and(|p| p.jobs + 4 >= p.quota);
        if (near_quota || active.is_none()) && standby.is_none() && !extra {
            standby = shared.spawn().ok();
        }
    }
    drop(active);
    drop(standby);
}

/// How often a running job checks whether its caller still waits.
const CANCEL_POLL: Duration = Duration::from_millis(20);

/// How one try of a job ended.
struct Outcome {
    result: ExecResult,
    /// The process's output ended before the worker said it took the job (so
    /// it ran nothing of it, and nothing of it reached the host's tools).
    died_before_taking: bool,
}

/// Runs one job in `p`; false when the process must be replaced. A caller that
/// stops waiting (`reply` closed: the future was dropped, the MCP client
/// cancelled) ends the job: its process is killed and its calls cancelled.
#[allow(clippy::too_many_arguments)]
fn run_job(
    shared: &Shared,
    p: &mut Proc,
    job: u64,
    code: String,
    bridge: Arc<dyn Bridge>,
    limits: &Limits,
    enqueued: Instant,
    reply: &oneshot::Sender<ExecResult>,
) -> (Outcome, bool) {
    let queue_us = enqueued.elapsed().as_micros() as u64;
    let mut died = false;
    // The worker said it took the job (or asked for something on its behalf).
    let mut took = false;
    let started = Instant::now();
    if let Err(e) = p.to_worker.send(&ToChild::Job {
        job,
        code,
        limits: limits.clone(),
    }) {
        return (
            Outcome {
                result: ExecResult::failed(
                    ErrorKind::Engine,
                    format!("the sandbox worker process is gone: {e}"),
                ),
                died_before_taking: true,
            },
            false,
        );
    }
    let hard_deadline = started + limits.deadline + limits.grace + IPC_SLACK;
    // The approver runs here; the worker's clock hears of each pause.
    let clock = {
        let to_worker = p.to_worker.clone();
        JobClock::with_observer(move |paused| {
            let _ = to_worker.send(&ToChild::Pause { job, paused });
        })
    };
    // Time paused moves the bound (the worker counts only the idle part).
    let job_cancel = CancellationToken::new();
    let mut calls: HashMap<u64, CancellationToken> = HashMap::new();
    let records: Records = Arc::new(Mutex::new((Vec::new(), 0)));
    let budget = u64::from(limits.max_calls) + u64::from(limits.max_lookups);
    let mut requests = 0u64;
    let outcome = loop {
        let left = clock.left_of_bound(hard_deadline).unwrap_or_default();
        if reply.is_closed() {
            break Err(ExecError::new(
                ErrorKind::Timeout,
                "the caller cancelled the snippet",
            ));
        }
        match p.events.recv_timeout(left.min(CANCEL_POLL)) {
            Ok(Event::Msg(ToHost::Done { job: j, result })) if j == job => break Ok(*result),
            Ok(Event::Msg(ToHost::Started { job: j })) if j == job => took = true,
            Ok(Event::Msg(ToHost::Request { job: j, req, op })) if j == job => {
                took = true;
                // The worker enforces these budgets; one that sends more is
                // not the worker this host started (a compromised process).
                requests += 1;
                if requests > budget {
                    p.end();
                    break Err(ExecError::new(
                        ErrorKind::Crashed,
                        format!(
                            "the sandbox worker process sent more than {budget} bridge requests \
                             for one snippet and was replaced"
                        ),
                    ));
                }
                handle_request(
                    shared.runtime.0.as_ref(),
                    &p.to_worker,
                    req,
                    op,
                    &bridge,
                    limits,
                    &job_cancel,
                    &mut calls,
                    &records,
                    &clock,
                );
            }
            Ok(Event::Msg(ToHost::CancelCall { job: j, req })) if j == job => {
                if let Some(token) = calls.remove(&req) {
                    token.cancel();
                }
            }
            Ok(Event::Msg(_)) => {}
            Ok(Event::Eof(unreadable)) => {
                died = unreadable.is_none();
                let status = p.end();
                let status = match unreadable {
                    Some(why) => format!("it sent a line the host cannot read: {why}; {status}"),
                    None => status,
                };
                break Err(if shared.registry.closing() {
                    ExecError::new(ErrorKind::Engine, SHUTTING_DOWN)
                } else {
                    ExecError::new(
                        ErrorKind::Crashed,
                        format!(
                            "the sandbox worker process ended while running the snippet ({status}); \
                             it was replaced"
                        ),
                    )
                });
            }
            Err(RecvTimeoutError::Timeout) if clock.left_of_bound(hard_deadline).is_some() => {}
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {
                break Err(ExecError::timeout(limits.deadline, clock.credit()))
            }
        }
    };
    // Calls still running belong to a finished job: cancel them.
    job_cancel.cancel();
    let died_before_taking = died && !took && requests == 0;
    match outcome {
        Ok(mut result) => {
            result.stats.queue_us = queue_us;
            (
                Outcome {
                    result,
                    died_before_taking,
                },
                true,
            )
        }
        Err(error) => {
            // The process is killed; what the host saw of the calls survives.
            let mut result = ExecResult::failed(error.kind, error.message);
            result.calls = std::mem::take(&mut records.lock().unwrap_or_else(|p| p.into_inner()).0);
            result.stats.calls = result.calls.len() as u32;
            result.stats.called_ids = result.calls.iter().map(|c| c.id.clone()).collect();
            result.stats.queue_us = queue_us;
            result.stats.run_us = started.elapsed().as_micros() as u64;
            result.stats.engine = crate::isolate::engine::engine_name().to_owned();
            (
                Outcome {
                    result,
                    died_before_taking,
                },
                false,
            )
        }
    }
}

/// Runs a self-test of the OS layer in a fresh worker process (see
/// `Pool::self_test`); the process is not reused.
pub(crate) fn self_test(shared: &Shared, what: &str, limits: &Limits) -> ExecResult {
    let mut p = match shared.spawn() {
        Ok(p) => p,
        Err(e) => {
            return ExecResult::failed(ErrorKind::Engine, format!("cannot start a worker: {e}"))
        }
    };
    if let Err(e) = wait_ready(&mut p) {
        return ExecResult::failed(ErrorKind::Engine, e);
    }
    let msg = ToChild::SelfTest {
        job: 1,
        what: what.to_owned(),
    };
    if let Err(e) = p.to_worker.send(&msg) {
        return ExecResult::failed(ErrorKind::Engine, format!("the worker is gone: {e}"));
    }
    let until = Instant::now() + limits.deadline + limits.grace + IPC_SLACK;
    loop {
        match p
            .events
            .recv_timeout(until.saturating_duration_since(Instant::now()))
        {
            Ok(Event::Msg(ToHost::Done { result, .. })) => return *result,
            Ok(Event::Msg(_)) => continue,
            Ok(Event::Eof(_)) => {
                let status = p.end();
                return ExecResult::failed(
                    ErrorKind::Crashed,
                    format!("the sandbox worker process died while running the snippet ({status})"),
                );
            }
            Err(_) => return ExecResult::failed(ErrorKind::Timeout, "no answer"),
        }
    }
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("command", &self.command)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An extra driver's idle wait ends even while a base driver holds the
    /// queue in a blocking `recv()` (the soak once saw an extra driver never
    /// end: it waited for the lock, not for a job).
    #[test]
    fn an_extra_drivers_wait_ends_while_a_base_driver_holds_the_queue() {
        let (tx, rx) = mpsc::channel::<u32>();
        let queue = Arc::new(Mutex::new(rx));
        let (held_tx, held_rx) = mpsc::channel();
        let base = {
            let queue = queue.clone();
            std::thread::spawn(move || {
                let rx = queue.lock().unwrap();
                held_tx.send(()).unwrap();
                rx.recv().ok()
            })
        };
        held_rx.recv().unwrap();
        let (done_tx, done_rx) = mpsc::channel();
        {
            let queue = queue.clone();
            std::thread::spawn(move || {
                let _ = done_tx.send(take_within(&queue, Duration::from_millis(100)));
            });
        }
        // Generous: the wait is 100 ms; only a wait that never ends fails.
        let got = done_rx.recv_timeout(Duration::from_secs(60));
        assert_eq!(got, Ok(None), "the extra driver's wait did not end");
        tx.send(7).unwrap();
        assert_eq!(base.join().unwrap(), Some(7));
        // With the lock free, a queued job is taken.
        tx.send(8).unwrap();
        assert_eq!(take_within(&queue, Duration::from_millis(100)), Some(8));
    }
}
