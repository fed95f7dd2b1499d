//! The worker-process side of [`Isolation::Process`](crate::Isolation::Process):
//! runs jobs from stdin, each in a fresh isolate on one job thread (the next
//! one pre-warmed), and forwards every bridge call to the host over stdout. A
//! job that overruns is ended by the host, which kills this process. See
//! [`run_worker_process`].

use std::collections::HashMap;
use std::fs::File;
use std::io::BufReader;
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use crate::clock::JobClock;
use crate::ipc::{self, ToChild, ToHost, Transport};
use crate::isolate::jobs::Isolates;
use crate::isolate::journal::Journal;
use crate::isolate::runtime::JobSpec;
use crate::isolate::watchdog::Watchdog;
use crate::limits::Limits;
use crate::result::ExecResult;
use crate::worker::proxy::{deliver, send, stdout_file, ProxyBridge, Waiters};

/// What the job thread of an in-process worker does next.
enum Work {
    Run(String, crate::Limits),
    SelfTest(String),
}

/// Serves one host as a sandbox worker process: reads jobs and bridge answers
/// from stdin, writes requests and results to stdout, until stdin closes or the
/// host asks it to shut down. Call it from the `main` of the executable that
/// [`Isolation::Process`](crate::Isolation::Process) names, before anything else
/// writes to stdout.
pub fn run_worker_process() -> std::process::ExitCode {
    // The engine's process settings (no bytecode cache on disk, no wasm) before
    // any isolate exists: the environment is empty, nothing is inherited.
    crate::isolate::engine::configure_process();
    let mut input = match std::io::stdin().as_fd().try_clone_to_owned() {
        Ok(fd) => BufReader::new(File::from(fd)),
        Err(e) => {
            tracing::error!("sandbox worker process: no stdin: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    // The host's pool limits, so the pre-warmed isolate fits its jobs, and
    // whether to apply the OS layer.
    let (limits, harden, fork) = match ipc::recv::<ToChild>(&mut input, ipc::MIN_LINE_CAP) {
        Ok(Some(ToChild::Config {
            limits,
            harden,
            fork,
        })) => (limits, harden, fork),
        Ok(None) => return std::process::ExitCode::SUCCESS,
        other => {
            tracing::error!(
                "sandbox worker process: expected its configuration first, got {other:?}"
            );
            return std::process::ExitCode::FAILURE;
        }
    };
    #[cfg(target_os = "linux")]
    if harden {
        if let Err(e) = crate::worker::harden::limit_resources(&limits) {
            tracing::error!("sandbox worker process: cannot lower its resource limits: {e}");
            return std::process::ExitCode::FAILURE;
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = fork;
    #[cfg(target_os = "linux")]
    let input = match crate::worker::zygote::serve(&limits, harden, fork, input) {
        Ok(code) => return code,
        Err(input) => input,
    };
    let out = match stdout_file() {
        Ok(out) => out,
        Err(e) => {
            tracing::error!("sandbox worker process: no stdout: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    serve_jobs((input, out), limits, harden)
}

/// Runs jobs from `transport` until it closes or the host asks to shut down:
/// each job in a fresh isolate on one job thread, every bridge call sent back
/// over the transport. The worker process calls it on its stdin/stdout (after
/// the configuration message); tests call it on an in-process pipe.
pub(crate) fn serve_jobs(
    transport: impl Transport,
    limits: Limits,
    harden: bool,
) -> std::process::ExitCode {
    let (input, out) = transport.into_parts();
    #[cfg(not(target_os = "linux"))]
    let _ = harden;
    // Spawned before the OS layer goes on: the job thread's watchdog.
    let threads = Arc::new(AtomicUsize::new(0));
    let watchdog = match Watchdog::spawn("sandbox-watchdog".into(), &threads) {
        Ok(w) => w,
        Err(e) => {
            tracing::error!("sandbox worker process: no watchdog thread: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let pool_limits_for_reads = limits.clone();
    let pool_limits = limits;
    // Made before the OS layer goes on (it may need what the layer forbids).
    let snapshot = crate::isolate::engine::startup_snapshot();
    let (up_tx, up_rx) = mpsc::channel::<()>();
    let waiters: Waiters = Arc::new(Mutex::new(HashMap::new()));
    let next_req = Arc::new(AtomicU64::new(1));
    // The running job's clock, for the host's pause messages.
    let current: Arc<Mutex<Option<(u64, JobClock)>>> = Arc::default();
    // Jobs run on their own thread so this one keeps reading bridge answers.
    let (jobs_tx, jobs_rx) = mpsc::channel::<(u64, Work)>();
    let runner = {
        let (out, waiters, next_req) = (out.clone(), waiters.clone(), next_req.clone());
        let current = current.clone();
        std::thread::spawn(move || {
            let rt = match tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    tracing::error!("sandbox worker process: no tokio runtime: {e}");
                    return;
                }
            };
            let mut isolates = Isolates::new(snapshot, Arc::new(AtomicUsize::new(0)));
            rt.block_on(async {
                // At most one live isolate: the next is made once the last was dropped.
                isolates.prewarm(&pool_limits);
                // The first isolate exists: the OS layer can go on.
                let _ = up_tx.send(());
                while let Ok((job, work)) = jobs_rx.recv() {
                    let (code, limits) = match work {
                        Work::Run(code, limits) => {
                            send(&out, &ToHost::Started { job });
                            (code, limits)
                        }
                        Work::SelfTest(what) => {
                            #[cfg(target_os = "linux")]
                            let value = crate::worker::harden::self_test(&what);
                            #[cfg(not(target_os = "linux"))]
                            let value = serde_json::Value::String(what);
                            let result = ExecResult::succeeded(value);
                            send(
                                &out,
                                &ToHost::Done {
                                    job,
                                    result: Box::new(result),
                                },
                            );
                            continue;
                        }
                    };
                    let bridge = Arc::new(ProxyBridge {
                        job,
                        out: out.clone(),
                        waiters: waiters.clone(),
                        next_req: next_req.clone(),
                        deadline: Instant::now() + limits.deadline + limits.grace,
                    });
                    let clock = JobClock::default();
                    *current.lock().unwrap_or_else(|p| p.into_inner()) = Some((job, clock.clone()));
                    let spec = JobSpec {
                        code: &code,
                        bridge,
                        limits: &limits,
                        journal: Arc::new(Mutex::new(Journal::default())),
                        abandon: CancellationToken::new(),
                        clock,
                    };
                    let (result, used) = isolates.run(&spec, &watchdog).await;
                    *current.lock().unwrap_or_else(|p| p.into_inner()) = None;
                    // The isolate is torn down before the answer goes out: should
                    // the job have damaged the process so that its teardown aborts,
                    // the host sees this job's process die (its `crashed`), not
                    // the next job's.
                    drop(used);
                    send(
                        &out,
                        &ToHost::Done {
                            job,
                            result: Box::new(result),
                        },
                    );
                    isolates.prewarm(&pool_limits);
                }
            });
        })
    };
    // The OS layer goes on every thread of this process, once the job thread made
    // its runtime and first isolate (a failure to do so drops the sender).
    let _ = up_rx.recv();
    #[cfg(target_os = "linux")]
    if harden {
        if let Err(e) = crate::worker::harden::lock_down(true) {
            tracing::error!("sandbox worker process: {e}");
            return std::process::ExitCode::FAILURE;
        }
    }
    send(
        &out,
        &ToHost::Ready {
            pid: std::process::id(),
            forks: false,
        },
    );
    let mut input = input;
    let cap = ipc::line_cap(&pool_limits_for_reads);
    loop {
        match ipc::recv::<ToChild>(&mut input, cap) {
            Ok(Some(ToChild::Job { job, code, limits })) => {
                if jobs_tx.send((job, Work::Run(code, limits))).is_err() {
                    break;
                }
            }
            Ok(Some(ToChild::SelfTest { job, what })) => {
                if jobs_tx.send((job, Work::SelfTest(what))).is_err() {
                    break;
                }
            }
            Ok(Some(ToChild::Config { .. })) => {}
            Ok(Some(ToChild::Reply { req, answer })) => {
                deliver(&waiters, req, answer.into_encoded())
            }
            Ok(Some(ToChild::Pause { job, paused })) => {
                if let Some((_, clock)) = current
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .as_ref()
                    .filter(|(j, _)| *j == job)
                {
                    clock.set_paused(paused);
                }
            }
            Ok(Some(ToChild::Shutdown)) | Ok(None) => break,
            Err(e) => {
                tracing::error!("sandbox worker process: bad message from the host: {e}");
                break;
            }
        }
    }
    drop(jobs_tx);
    let _ = runner.join();
    std::process::ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    //! The worker's side of the protocol, in-process: a test plays the host over
    //! two pipes, with no process spawned.
    use super::*;
    use crate::ipc::{Answer, BridgeOp};
    use std::io::Write;

    fn next(input: &mut impl std::io::BufRead) -> ToHost {
        ipc::recv::<ToHost>(input, ipc::MIN_LINE_CAP)
            .expect("a line")
            .expect("not the end")
    }

    /// The tests of this module run isolates; the one that counts the bytes all
    /// isolates of the process hold runs alone.
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

    fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
        ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A worker serving over in-process pipes, once it said it is ready: where
    /// to write to it, where to read it, its thread.
    fn start_worker() -> (
        std::io::PipeWriter,
        BufReader<std::io::PipeReader>,
        std::thread::JoinHandle<std::process::ExitCode>,
    ) {
        let (to_worker_rd, to_worker) = std::io::pipe().unwrap();
        let (mut from_worker, from_worker_wr) = std::io::pipe()
            .map(|(r, w)| (BufReader::new(r), w))
            .unwrap();
        let out: crate::worker::proxy::Out = Arc::new(Mutex::new(from_worker_wr));
        let worker = std::thread::spawn(move || {
            serve_jobs(
                (BufReader::new(to_worker_rd), out),
                Limits::default(),
                false,
            )
        });
        assert!(matches!(
            next(&mut from_worker),
            ToHost::Ready { forks: false, .. }
        ));
        (to_worker, from_worker, worker)
    }

    /// A job's `ArrayBuffer` stores are all given back by the time its answer
    /// arrives, transferred ones included (the engine lost a transferred
    /// store's owner: it was never freed), and none is left once the worker is
    /// gone.
    #[test]
    fn a_job_s_buffers_are_given_back_before_its_answer() {
        let _alone = one_at_a_time();
        let (mut to_worker, mut from_worker, worker) = start_worker();
        let before = crate::sys::array_buffer_bytes_held();
        let code = "const k = []; \
                    for (let i = 0; i < 300; i++) k.push(new ArrayBuffer(1024).transfer(4096)); \
                    const same = []; \
                    for (let i = 0; i < 100; i++) same.push(new ArrayBuffer(2048).transfer()); \
                    return [k.length, k[299].byteLength, same[99].byteLength];";
        for job in 1..=2 {
            ipc::send(
                &mut to_worker,
                &ToChild::Job {
                    job,
                    code: code.into(),
                    limits: Limits::default(),
                },
            )
            .unwrap();
            assert!(matches!(next(&mut from_worker), ToHost::Started { .. }));
            let result = match next(&mut from_worker) {
                ToHost::Done { result, .. } => result,
                other => panic!("{other:?}"),
            };
            assert!(result.ok, "{:?}", result.error);
            assert_eq!(result.value, serde_json::json!([300, 4096, 2048]));
            assert_eq!(
                crate::sys::array_buffer_bytes_held(),
                before,
                "job {job}: the budget's bytes are back to their start"
            );
        }
        ipc::send(&mut to_worker, &ToChild::Shutdown).unwrap();
        assert_eq!(worker.join().unwrap(), std::process::ExitCode::SUCCESS);
        assert_eq!(crate::sys::array_buffer_bytes_held(), 0);
    }

    #[test]
    fn a_job_its_bridge_calls_and_errors_cross_an_in_process_pipe() {
        let _alone = one_at_a_time();
        let (mut to_worker, mut from_worker, worker) = start_worker();
        let code = "const r = await openclaw.tools.call('t', {x: 1}); \
                    let e = null; \
                    try { await openclaw.tools.describe('nope'); } catch (err) { e = err.code; } \
                    return {y: r.y + 1, e};";
        ipc::send(
            &mut to_worker,
            &ToChild::Job {
                job: 1,
                code: code.into(),
                limits: Limits::default(),
            },
        )
        .unwrap();
        let mut seen = Vec::new();
        let result = loop {
            match next(&mut from_worker) {
                ToHost::Started { job: 1 } => {}
                ToHost::Request { job: 1, req, op } => {
                    let answer = match &op {
                        BridgeOp::Call { id, args } => {
                            assert_eq!((id.as_str(), args.get()), ("t", r#"{"x":1}"#));
                            Answer::from_encoded(r#"1{"y":41}"#.into())
                        }
                        BridgeOp::Describe { id } => {
                            Answer::from_encoded(format!("0UNKNOWN_TOOL\nunknown tool {id}"))
                        }
                        other => panic!("{other:?}"),
                    };
                    seen.push(format!("{op:?}"));
                    ipc::send(&mut to_worker, &ToChild::Reply { req, answer }).unwrap();
                }
                ToHost::Done { job: 1, result } => break result,
                other => panic!("{other:?}"),
            }
        };
        assert!(result.ok, "{:?}", result.error);
        assert_eq!(
            result.value,
            serde_json::json!({"y": 42, "e": "UNKNOWN_TOOL"})
        );
        assert_eq!(seen.len(), 2, "{seen:?}");
        ipc::send(&mut to_worker, &ToChild::Shutdown).unwrap();
        to_worker.flush().unwrap();
        assert_eq!(worker.join().unwrap(), std::process::ExitCode::SUCCESS);
    }
}
