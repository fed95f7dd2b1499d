//! Fork-per-job serving for a sandbox worker process (Linux).
//!
//! Creating a deno_core runtime costs 9-13 ms of CPU on v8x/QuickJS even from the
//! startup snapshot, most of it inside the engine's snapshot restore. A worker
//! process that serves with a zygote pays it once: it builds one scrubbed
//! template isolate that never runs a snippet, and `fork`s for every job. The
//! child owns a copy-on-write copy of that pristine isolate, runs the one
//! snippet, answers and `_exit`s; nothing it did can be seen by the next job,
//! which gets a new copy of the untouched template. A crash or abort in the
//! child takes only the child.
//!
//! Forking is only sound while the process has a single thread (a lock held by
//! another thread would stay locked forever in the child), so the zygote never
//! starts one and checks `/proc/self/task` before serving; anything off and
//! [`serve`] returns `None`, and the caller serves with an in-process pool.

use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use crate::clock::JobClock;
use crate::ipc::{self, ToChild, ToHost};
use crate::isolate::jobs::run_on;
use crate::isolate::journal::Journal;
use crate::isolate::runtime::{snapshot_timeout, JobSpec, Live, Sandbox};
use crate::isolate::watchdog::Watchdog;
use crate::limits::Limits;
use crate::result::{ErrorKind, ExecResult};
use crate::sys;
use crate::worker::proxy::{deliver, send, stdout_file, Out, ProxyBridge, Waiters};

/// The template isolate, its runtime and stdout, when this process can fork.
fn set_up(limits: &Limits) -> Option<(Live, tokio::runtime::Runtime, Out, sys::SingleThreaded)> {
    // One isolate per process: a cold bootstrap (~40 ms) costs less than
    // making the startup snapshot (~0.4 s) and restoring from it.
    let snapshot = None;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .ok()?;
    let counter = Arc::new(AtomicUsize::new(0));
    let template = rt
        .block_on(async {
            Sandbox::create(
                limits.heap_bytes,
                limits.array_buffer_bytes,
                snapshot,
                &counter,
            )
        })
        .map_err(|e| {
            tracing::warn!("sandbox zygote: no template isolate ({e}); serving in-process")
        })
        .ok()?;
    // Nothing here starts a thread; should the engine or a library ever do so,
    // forking would no longer be sound.
    let Some(one) = sys::single_threaded() else {
        let n = sys::threads();
        tracing::warn!("sandbox zygote: {n} threads, cannot fork safely; serving in-process");
        return None;
    };
    let out = stdout_file().ok()?;
    Some((template, rt, out, one))
}

/// Serves jobs from `input` by forking the template for each, until it closes
/// or the host asks to shut down. Gives `input` back when this process cannot
/// fork safely (more than one thread, no template); nothing was read or
/// written then. With `harden`, the OS layer (`harden.rs`) goes on once the
/// template is built, before the first fork.
pub(crate) fn serve(
    limits: &Limits,
    harden: bool,
    fork: bool,
    mut input: BufReader<File>,
) -> Result<std::process::ExitCode, BufReader<File>> {
    if !fork {
        return Err(input);
    }
    let Some((template, rt, out, one)) = set_up(limits) else {
        return Err(input);
    };

    // The OS layer: from here on no file can be opened, no socket made, no
    // program run, in this process and every child it forks.
    if harden {
        if let Err(e) = crate::worker::harden::lock_down(false) {
            tracing::error!("sandbox zygote: {e}");
            return Ok(std::process::ExitCode::FAILURE);
        }
    }
    let zygote = std::process::id();
    send(
        &out,
        &ToHost::Ready {
            pid: zygote,
            forks: true,
        },
    );
    let cap = ipc::line_cap(limits);
    // The next job's child, forked ahead of the job: its fork and thread starts
    // are off the job's path. It waits on a pipe of its own for the job and
    // never reads stdin before it has one.
    let mut standby: Option<Standby> = None;
    let mut fork_error = String::new();
    loop {
        if standby.is_none() {
            let pipes = std::io::pipe().and_then(|job| Ok((job, std::io::pipe()?)));
            match pipes {
                Ok(((job_rd, job_wr), (answer_rd, answer_wr))) => {
                    let forked_at = Instant::now();
                    match sys::fork(&one) {
                        Ok(sys::Forked::Child) => {
                            drop((job_wr, answer_rd));
                            let pipes = ChildPipes {
                                input,
                                out,
                                job: job_rd,
                                answer: answer_wr,
                                cap,
                            };
                            run_child(zygote, harden, forked_at, template, rt, pipes);
                        }
                        Ok(sys::Forked::Parent(pid)) => {
                            standby = Some(Standby {
                                pid,
                                job: job_wr,
                                answer: answer_rd,
                            })
                        }
                        Err(e) => fork_error = format!("fork failed: {e}"),
                    }
                }
                Err(e) => fork_error = format!("no pipe for the job: {e}"),
            }
        }
        let (job, code, job_limits) = match ipc::recv::<ToChild>(&mut input, cap) {
            Ok(Some(ToChild::Job { job, code, limits })) => (job, code, limits),
            Ok(Some(ToChild::SelfTest { job, what })) => {
                self_test_child(&out, &one, harden, job, &what);
                continue;
            }
            Ok(Some(ToChild::Config { .. })) => continue,
            // An answer the last child did not read: its job is over.
            Ok(Some(ToChild::Reply { .. } | ToChild::Pause { .. })) => continue,
            Ok(Some(ToChild::Shutdown)) | Ok(None) => break,
            // The rest of an answer a finished child had begun to read.
            Err(e) if ipc::is_malformed(&e) => {
                tracing::debug!("sandbox zygote: skipped a line: {e}");
                continue;
            }
            Err(e) => {
                tracing::error!("sandbox zygote: cannot read from the host: {e}");
                break;
            }
        };
        let Some(child) = standby.take() else {
            send(&out, &engine_failure(job, fork_error.clone()));
            continue;
        };
        send(&out, &ToHost::Started { job });
        let handed = {
            let mut w = &child.job;
            ipc::send(
                &mut w,
                &ToChild::Job {
                    job,
                    code,
                    limits: job_limits,
                },
            )
        };
        // Closed either way: a child that did not get its job sees the end of
        // its pipe and exits (no `kill`: the OS layer does not allow it here).
        drop(child.job);
        if let Err(e) = handed {
            sys::wait_child(child.pid);
            send(
                &out,
                &engine_failure(job, format!("the job's process is gone: {e}")),
            );
            continue;
        }
        // The child stops reading stdin before it answers, so its answer goes
        // on at once; the next child is forked once this one is gone.
        pass_on_answer(&out, child.answer, child.pid, job);
    }
    if let Some(child) = standby {
        // Its job pipe closes: it exits without a job.
        drop(child.job);
        sys::wait_child(child.pid);
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// A forked child waiting for its job.
struct Standby {
    pid: libc::pid_t,
    job: std::io::PipeWriter,
    answer: std::io::PipeReader,
}

/// What a forked child talks through.
struct ChildPipes {
    /// The zygote's stdin (the host's answers to the child's bridge requests).
    input: BufReader<File>,
    /// The host's end of the bridge requests (the zygote's stdout).
    out: Out,
    /// Where its one job arrives.
    job: std::io::PipeReader,
    /// Where its answer goes (the zygote passes it on).
    answer: std::io::PipeWriter,
    cap: usize,
}

/// Runs a self-test of the OS layer in a forked child, where a job would run,
/// and reports how it ended: a value if the child survived, a `crashed` error
/// naming the signal if the layer killed it.
fn self_test_child(out: &Out, one: &sys::SingleThreaded, harden: bool, job: u64, what: &str) {
    let (answer_rd, answer_wr) = match std::io::pipe() {
        Ok(p) => p,
        Err(_) => return,
    };
    match sys::fork(one) {
        Ok(sys::Forked::Child) => {
            drop(answer_rd);
            if harden && crate::worker::harden::pin_to_this_process().is_err() {
                sys::exit_now(3);
            }
            let value = crate::worker::harden::self_test(what);
            let done = ToHost::Done {
                job,
                result: Box::new(ExecResult::succeeded(value)),
            };
            let answer_to: Out = Arc::new(Mutex::new(File::from(OwnedFd::from(answer_wr))));
            send(&answer_to, &done);
            sys::exit_now(0)
        }
        Ok(sys::Forked::Parent(pid)) => {
            drop(answer_wr);
            pass_on_answer(out, answer_rd, pid, job);
        }
        Err(e) => send(out, &engine_failure(job, format!("fork failed: {e}"))),
    }
}

/// Passes a forked child's answer to the host as soon as its line is whole,
/// then waits for the child to be gone. A child that ends before a whole line
/// died first: the job gets a `crashed` error naming how.
fn pass_on_answer(out: &Out, mut answer_rd: std::io::PipeReader, pid: libc::pid_t, job: u64) {
    let mut answer = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    let mut passed = false;
    loop {
        match answer_rd.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
        if !passed && answer.ends_with(b"\n") {
            passed = true;
            let mut w = out.lock().unwrap_or_else(|p| p.into_inner());
            let _ = w.write_all(&answer);
        }
    }
    let how = sys::wait_child(pid);
    if !passed {
        let how = how.unwrap_or_else(|| "exit status 0".to_owned());
        let message = format!("the snippet's process died while running it ({how})");
        let result = ExecResult::failed(ErrorKind::Crashed, message);
        send(
            out,
            &ToHost::Done {
                job,
                result: Box::new(result),
            },
        );
    }
}

/// The answer for a job that failed outside the engine.
fn engine_failure(job: u64, message: String) -> ToHost {
    ToHost::Done {
        job,
        result: Box::new(ExecResult::failed(ErrorKind::Engine, message)),
    }
}

/// What the helper thread of a forked child needs once the job is known.
struct Start {
    job: u64,
    give_up: Instant,
    deadline: std::time::Duration,
    cap: usize,
    /// The job's clock: the host's pause messages move `give_up`.
    clock: JobClock,
}

/// The forked child: starts its threads, waits for its one job, runs it on its
/// copy of the template, answers and exits.
fn run_child(
    zygote: u32,
    harden: bool,
    forked_at: Instant,
    mut template: Live,
    rt: tokio::runtime::Runtime,
    pipes: ChildPipes,
) -> ! {
    // The child dies with the zygote (a host that kills an overrunning worker
    // process must not leave the child running).
    if !sys::die_with_parent(zygote) {
        sys::exit_now(3);
    }
    // Signals, limits and priorities: this process's own only (the zygote's
    // filter pins them to the zygote).
    if harden && crate::worker::harden::pin_to_this_process().is_err() {
        sys::exit_now(3);
    }
    let ChildPipes {
        input,
        out,
        job: job_rd,
        answer: answer_to,
        cap,
    } = pipes;
    // Threads are fine from here: this process is new and has no locks held.
    let waiters: Waiters = Arc::new(Mutex::new(std::collections::HashMap::new()));
    let journal = Arc::new(Mutex::new(Journal::default()));
    // The result goes to the zygote, once: from the run, or from the journal.
    let answer_to: Out = Arc::new(Mutex::new(File::from(OwnedFd::from(answer_to))));
    let answered = Arc::new(AtomicBool::new(false));
    let answer = move |job: u64, result: ExecResult| {
        if !answered.swap(true, Ordering::SeqCst) {
            let done = ToHost::Done {
                job,
                result: Box::new(result),
            };
            send(&answer_to, &done);
        }
    };
    let Ok((stop_rd, mut stop_wr)) = std::io::pipe() else {
        sys::exit_now(3)
    };
    let (start_tx, start_rx) = std::sync::mpsc::channel::<Start>();
    // One helper thread (each thread of this process makes copy-on-write
    // faults costlier): it hands bridge answers to their requests and, as the
    // in-process pool does, answers from the journal at deadline + grace if the
    // engine has not stopped by then. It stops reading when the job is done.
    let helper = {
        let (waiters, journal, answer) = (waiters.clone(), journal.clone(), answer.clone());
        std::thread::spawn(move || {
            let Ok(start) = start_rx.recv() else { return };
            // Only what arrives from now on is this job's: drop what the zygote
            // had read ahead before the fork.
            let mut input = BufReader::new(input.into_inner());
            if !serve_replies(&mut input, &stop_rd, &waiters, &start) {
                return;
            }
            // The host went away or the deadline passed: answer from the journal
            // at `give_up` unless the job ends first.
            if wait_stop(&stop_rd, start.give_up + start.clock.paused()) {
                return;
            }
            let waited = start.clock.credit();
            answer(
                start.job,
                snapshot_timeout(&journal, start.deadline, waited),
            );
            // Ends this process without running the engine's destructors.
            sys::exit_now(0)
        })
    };
    let threads = Arc::new(AtomicUsize::new(0));
    let watchdog = Watchdog::spawn("sandbox-watchdog".into(), &threads);
    template.sandbox.startup_us = forked_at.elapsed().as_micros() as u64;
    // Ready: wait for the job (none when the zygote ends first).
    let mut job_in = BufReader::new(File::from(OwnedFd::from(job_rd)));
    let Ok(Some(ToChild::Job { job, code, limits })) = ipc::recv::<ToChild>(&mut job_in, cap)
    else {
        sys::exit_now(0)
    };
    let started = Instant::now();
    let give_up = started + limits.deadline + limits.grace;
    let clock = JobClock::default();
    let _ = start_tx.send(Start {
        job,
        give_up,
        deadline: limits.deadline,
        cap: ipc::line_cap(&limits),
        clock: clock.clone(),
    });
    let result = match watchdog {
        Ok(watchdog) => {
            let fits = template.sandbox.heap_bytes == limits.heap_bytes;
            let counter = Arc::new(AtomicUsize::new(0));
            let live = if fits {
                Ok(template)
            } else {
                rt.block_on(async {
                    Sandbox::create(limits.heap_bytes, limits.array_buffer_bytes, None, &counter)
                })
            };
            let bridge = Arc::new(ProxyBridge {
                job,
                out: out.clone(),
                waiters,
                next_req: Arc::new(AtomicU64::new(1)),
                deadline: give_up,
            });
            crate::isolate::journal::lock(&journal).started = Some(started);
            let spec = JobSpec {
                code: &code,
                bridge,
                limits: &limits,
                journal: journal.clone(),
                abandon: CancellationToken::new(),
                clock,
            };
            let (res, used) = rt.block_on(run_on(live, fits, &spec, &watchdog));
            // Never torn down: disposing the isolate would free (and so
            // copy) every page of the template's heap for nothing.
            std::mem::forget(used);
            res
        }
        Err(e) => ExecResult::failed(ErrorKind::Engine, format!("no watchdog thread: {e}")),
    };
    // The helper stops reading stdin before the answer goes out: the host's next
    // job follows the answer, and only the zygote may read it.
    let _ = stop_wr.write_all(b"x");
    let _ = helper.join();
    answer(job, result);
    // Let the readers of the answer run before this process's teardown (a few
    // hundred microseconds of kernel work) takes the core they may be queued on.
    std::thread::yield_now();
    // Ends this process without running destructors: the isolate and the
    // runtime are copies of the zygote's and are never torn down here.
    sys::exit_now(0)
}

/// Hands the host's answers to the requests waiting for them until the job
/// stops (false: stop now), the host closes the pipe or `give_up` passes (true).
fn serve_replies(
    input: &mut BufReader<File>,
    stop: &std::io::PipeReader,
    waiters: &Waiters,
    start: &Start,
) -> bool {
    loop {
        if input.buffer().is_empty() {
            let Some(left) = start.clock.left_of_bound(start.give_up) else {
                return true;
            };
            let ms = left.as_millis().clamp(1, i32::MAX as u128) as i32;
            match sys::poll_either(input.get_ref().as_fd(), stop.as_fd(), ms) {
                Ok((_, true)) => return false,
                Ok((false, false)) => continue,
                Ok((true, false)) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                // A poll error: let the read report it.
                Err(_) => {}
            }
        }
        match ipc::recv::<ToChild>(input, start.cap) {
            Ok(Some(ToChild::Reply { req, answer })) => {
                deliver(waiters, req, answer.into_encoded())
            }
            Ok(Some(ToChild::Pause { job, paused })) if job == start.job => {
                start.clock.set_paused(paused);
            }
            Ok(Some(_)) => {}
            Err(e) if ipc::is_malformed(&e) => {}
            // The host closed the pipe or it broke: no more answers.
            Ok(None) | Err(_) => return true,
        }
    }
}

/// Waits for the stop signal until `until`; true when it came.
fn wait_stop(stop: &std::io::PipeReader, until: Instant) -> bool {
    loop {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        let ms = left.as_millis().clamp(1, i32::MAX as u128) as i32;
        match sys::poll_readable(stop.as_fd(), ms) {
            Ok(true) => return true,
            Ok(false) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return false,
        }
    }
}
