//! The worker-process side of [`Isolation::Process`](crate::Isolation::Process):
//! runs jobs from stdin in an in-process pool and forwards every bridge call to
//! the host over stdout. See [`run_worker_process`].

use std::collections::HashMap;
use std::fs::File;
use std::io::BufReader;
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use crate::bridge::{Bridge, BridgeError, BridgeErrorCode, BridgeFuture};
use crate::ipc::{self, BridgeOp, ToChild, ToHost};
use crate::limits::PoolConfig;
use crate::pool::Pool;

/// What the job thread of an in-process worker does next.
enum Work {
    Run(String, crate::Limits),
    SelfTest(String),
}

/// Where the answer to one bridge request goes.
pub(crate) enum Waiter {
    Sync(mpsc::SyncSender<String>),
    Async(tokio::sync::oneshot::Sender<String>),
}

/// This process's stdout, written one whole message per `write`.
pub(crate) type Out = Arc<Mutex<File>>;
pub(crate) type Waiters = Arc<Mutex<HashMap<u64, Waiter>>>;

/// Stdout as a file of its own (a duplicate descriptor), unbuffered: [`send`]
/// writes each message whole, so no buffer is ever half-written when a process
/// forks or dies.
pub(crate) fn stdout_file() -> std::io::Result<Out> {
    let fd = std::io::stdout().as_fd().try_clone_to_owned()?;
    Ok(Arc::new(Mutex::new(File::from(fd))))
}

/// Sends one message (one `write` of its whole line).
pub(crate) fn send(out: &Out, msg: &ToHost) {
    let mut out = out.lock().unwrap_or_else(|p| p.into_inner());
    // A broken pipe means the host is gone; the reader loop ends on EOF.
    let _ = ipc::send(&mut *out, msg);
}

/// Hands a bridge answer from the host to the request waiting for it.
pub(crate) fn deliver(waiters: &Waiters, req: u64, payload: String) {
    let waiter = waiters
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&req);
    match waiter {
        Some(Waiter::Sync(tx)) => drop(tx.try_send(payload)),
        Some(Waiter::Async(tx)) => drop(tx.send(payload)),
        None => {}
    }
}

/// Turns an encoded bridge answer back into what a [`Bridge`] returns.
fn decode(payload: &str) -> Result<serde_json::Value, BridgeError> {
    if let Some(json) = payload.strip_prefix('1') {
        return serde_json::from_str(json).map_err(|e| {
            BridgeError::new(
                BridgeErrorCode::Unavailable,
                format!("bad answer from the host: {e}"),
            )
        });
    }
    let with_detail = payload.starts_with('2');
    let body = payload
        .strip_prefix('0')
        .or_else(|| payload.strip_prefix('2'))
        .unwrap_or(payload);
    let (code, message) = body.split_once('\n').unwrap_or(("UNAVAILABLE", body));
    let code = BridgeErrorCode::from_str(code).unwrap_or(BridgeErrorCode::Unavailable);
    if with_detail {
        // `{"message", "detail"}`, as `ops::encode_bridge_err` wrote it.
        let parsed: serde_json::Value = serde_json::from_str(message).unwrap_or_default();
        let mut e = BridgeError::new(code, parsed["message"].as_str().unwrap_or(message));
        if let Some(detail) = parsed.get("detail").and_then(|d| d.as_object()) {
            e = e.with_detail(detail.clone());
        }
        return Err(e);
    }
    Err(BridgeError::new(code, message))
}

/// A bridge that asks the host.
pub(crate) struct ProxyBridge {
    pub job: u64,
    pub out: Out,
    pub waiters: Waiters,
    pub next_req: Arc<AtomicU64>,
    /// Sync requests give up at this point (the host answers long before).
    pub deadline: Instant,
}

impl ProxyBridge {
    fn request(&self, op: BridgeOp, waiter: Waiter) -> u64 {
        let req = self.next_req.fetch_add(1, Ordering::SeqCst);
        self.waiters
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(req, waiter);
        send(
            &self.out,
            &ToHost::Request {
                job: self.job,
                req,
                op,
            },
        );
        req
    }

    fn lookup(&self, op: BridgeOp) -> Result<serde_json::Value, BridgeError> {
        let (tx, rx) = mpsc::sync_channel(1);
        self.request(op, Waiter::Sync(tx));
        let wait = self.deadline.saturating_duration_since(Instant::now()) + Duration::from_secs(1);
        match rx.recv_timeout(wait) {
            Ok(payload) => decode(&payload),
            Err(_) => Err(BridgeError::new(
                BridgeErrorCode::Unavailable,
                "the host did not answer",
            )),
        }
    }
}

impl Bridge for ProxyBridge {
    fn search(&self, query: &str, limit: Option<u32>) -> Result<serde_json::Value, BridgeError> {
        self.lookup(BridgeOp::Search {
            query: query.to_owned(),
            limit,
        })
    }

    fn describe(&self, id: &str) -> Result<serde_json::Value, BridgeError> {
        self.lookup(BridgeOp::Describe { id: id.to_owned() })
    }

    fn call(&self, id: &str, args: serde_json::Value, cancel: CancellationToken) -> BridgeFuture {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let req = self.request(
            BridgeOp::Call {
                id: id.to_owned(),
                args,
            },
            Waiter::Async(tx),
        );
        let (out, waiters) = (self.out.clone(), self.waiters.clone());
        Box::pin(async move {
            tokio::select! {
                payload = rx => match payload {
                    Ok(p) => decode(&p),
                    Err(_) => Err(BridgeError::new(BridgeErrorCode::Unavailable, "the host went away")),
                },
                _ = cancel.cancelled() => {
                    waiters.lock().unwrap_or_else(|p| p.into_inner()).remove(&req);
                    send(&out, &ToHost::CancelCall { req });
                    Err(BridgeError::new(BridgeErrorCode::Timeout, "the snippet ended before the tool answered"))
                }
            }
        })
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_reads_both_encodings() {
        assert_eq!(decode("1[1,2]").unwrap(), serde_json::json!([1, 2]));
        let e = decode("0UNKNOWN_TOOL\nno such tool").unwrap_err();
        assert_eq!(e.code, BridgeErrorCode::UnknownTool);
        assert_eq!(e.message, "no such tool");
        assert_eq!(
            decode("0WHAT\nx").unwrap_err().code,
            BridgeErrorCode::Unavailable
        );
        let e =
            decode("2TOOL_ERROR\n{\"message\":\"m\",\"detail\":{\"content\":[1]}}").unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (BridgeErrorCode::ToolError, "m")
        );
        assert_eq!(e.detail.unwrap()["content"], serde_json::json!([1]));
    }
}
