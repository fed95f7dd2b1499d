//! The worker-process side of [`Isolation::Process`](crate::Isolation::Process):
//! runs jobs from stdin in an in-process pool and forwards every bridge call to
//! the host over stdout. See [`run_worker_process`].

use std::collections::HashMap;
use std::fs::File;
use std::io::BufReader;
use std::os::fd::AsFd;
use std::sync::atomic::AtomicU64;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Instant;

use crate::ipc::{self, ToChild, ToHost};
use crate::limits::PoolConfig;
use crate::pool::Pool;
use crate::proxy::{deliver, send, stdout_file, ProxyBridge, Waiters};

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
    crate::engine::configure_process();
    let mut input = match std::io::stdin().as_fd().try_clone_to_owned() {
        Ok(fd) => BufReader::new(File::from(fd)),
        Err(e) => {
            tracing::error!("sandbox worker process: no stdin: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    // The host's pool limits, so the pre-warmed isolate fits its jobs, and
    // whether to apply the OS layer.
    let (limits, harden, fork) = match ipc::recv::<ToChild>(&mut input) {
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
        if let Err(e) = crate::harden::limit_resources(&limits) {
            tracing::error!("sandbox worker process: cannot lower its resource limits: {e}");
            return std::process::ExitCode::FAILURE;
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = fork;
    #[cfg(target_os = "linux")]
    let input = match crate::zygote::serve(&limits, harden, fork, input) {
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
    let pool = match Pool::new(PoolConfig {
        workers: 1,
        queue: 2,
        limits,
        ..PoolConfig::default()
    }) {
        Ok(pool) => pool,
        Err(e) => {
            tracing::error!("sandbox worker process: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let waiters: Waiters = Arc::new(Mutex::new(HashMap::new()));
    let next_req = Arc::new(AtomicU64::new(1));
    // Jobs run on their own thread so this one keeps reading bridge answers.
    let (jobs_tx, jobs_rx) = mpsc::channel::<(u64, Work)>();
    let runner = {
        let (out, waiters, next_req) = (out.clone(), waiters.clone(), next_req.clone());
        std::thread::spawn(move || {
            while let Ok((job, work)) = jobs_rx.recv() {
                let (code, limits) = match work {
                    Work::Run(code, limits) => (code, limits),
                    Work::SelfTest(what) => {
                        #[cfg(target_os = "linux")]
                        let value = crate::harden::self_test(&what);
                        #[cfg(not(target_os = "linux"))]
                        let value = serde_json::Value::String(what);
                        let result = crate::result::ExecResult::succeeded(value);
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
                let result = pool.execute_blocking_with(&code, bridge, limits);
                send(
                    &out,
                    &ToHost::Done {
                        job,
                        result: Box::new(result),
                    },
                );
            }
        })
    };
    // The OS layer goes on every thread of this process (the pool's are up).
    #[cfg(target_os = "linux")]
    if harden {
        if let Err(e) = crate::harden::lock_down(true) {
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
    loop {
        match ipc::recv::<ToChild>(&mut input) {
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
            Ok(Some(ToChild::Reply { req, payload })) => deliver(&waiters, req, payload),
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
