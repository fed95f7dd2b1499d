//! The host's side of a worker process's bridge requests: each `search`,
//! `describe` and `call` of a running job is run on the host's bridge, its
//! answer capped and encoded as the in-process ops would, recorded, and written
//! back to the worker as a `Reply`.

use std::collections::HashMap;
use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::process::ChildStdin;
use std::sync::mpsc::{sync_channel, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use crate::bridge::Bridge;
use crate::clock::{with_clock, JobClock};
use crate::ipc::{self, BridgeOp, ToChild};
use crate::isolate::ops::{catch_panic, encode_call, encode_lookup, keep_result, CallOutcome};
use crate::limits::Limits;
use crate::result::CallRecord;

/// The calls the host saw of one job, and the emitted bytes of the results kept.
pub(crate) type Records = Arc<Mutex<(Vec<CallRecord>, usize)>>;

/// Lines queued for a worker's stdin, at most; a worker that lets more pile
/// up does not read its input and is killed.
const WRITES_QUEUED: usize = 32;

/// The host's way into a worker's stdin: whole lines queued for a writer
/// thread of the worker's own, so no host thread (a driver, the runtime that
/// runs tool calls) ever blocks on a worker that stops reading. A worker that
/// lets [`WRITES_QUEUED`] lines pile up is killed; its driver then sees its
/// output end and answers the job.
#[derive(Clone)]
pub(crate) struct ToWorker {
    lines: SyncSender<Vec<u8>>,
    kill: Arc<dyn Fn() + Send + Sync>,
}

impl ToWorker {
    /// Starts the writer thread; `kill` ends the worker (its process group).
    pub(crate) fn start(
        mut stdin: ChildStdin,
        kill: Arc<dyn Fn() + Send + Sync>,
    ) -> std::io::Result<ToWorker> {
        let (lines, queued) = sync_channel::<Vec<u8>>(WRITES_QUEUED);
        std::thread::Builder::new()
            .name("sandbox-process-writer".into())
            .spawn(move || {
                // Ends when every sender is gone or the worker is (a broken pipe).
                for line in queued {
                    if stdin.write_all(&line).and_then(|()| stdin.flush()).is_err() {
                        break;
                    }
                }
            })?;
        Ok(ToWorker { lines, kill })
    }

    /// Queues one message, as one line written whole.
    pub(crate) fn send(&self, msg: &ToChild) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(msg)?;
        line.push(b'\n');
        match self.lines.try_send(line) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(_)) => {
                (self.kill)();
                Err(std::io::Error::other(
                    "the sandbox worker process stopped reading its input and was killed",
                ))
            }
            Err(TrySendError::Disconnected(_)) => Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "the sandbox worker process is gone",
            )),
        }
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn handle_request(
    runtime: Option<&tokio::runtime::Runtime>,
    to_worker: &ToWorker,
    req: u64,
    op: BridgeOp,
    bridge: &Arc<dyn Bridge>,
    limits: &Limits,
    job_cancel: &CancellationToken,
    calls: &mut HashMap<u64, CancellationToken>,
    records: &Records,
    clock: &JobClock,
) {
    let cap = limits.tool_result_bytes;
    let result_cap = limits.result_bytes;
    let payload = match op {
        BridgeOp::Search { query, limit } => {
            let r = std::panic::catch_unwind(AssertUnwindSafe(|| bridge.search(&query, limit)));
            encode_lookup(r, cap, "the search result")
        }
        BridgeOp::Describe { id } => {
            let r = std::panic::catch_unwind(AssertUnwindSafe(|| bridge.describe(&id)));
            encode_lookup(r, cap, "the description")
        }
        BridgeOp::Call { id, args } => {
            let token = job_cancel.child_token();
            calls.insert(req, token.clone());
            let fut = std::panic::catch_unwind(AssertUnwindSafe(|| {
                bridge.call_json(&id, args, token.clone())
            }));
            let (to_worker, records, clock) = (to_worker.clone(), records.clone(), clock.clone());
            let Some(runtime) = runtime else {
                return;
            };
            runtime.spawn(async move {
                let started = Instant::now();
                let out = match fut {
                    Ok(fut) => tokio::select! {
                        r = with_clock(clock, catch_panic(fut)) => r,
                        _ = token.cancelled() => return,
                    },
                    Err(_) => Err(()),
                };
                let CallOutcome {
                    payload,
                    status,
                    code,
                    result,
                } = encode_call(out, cap);
                {
                    let mut r = records.lock().unwrap_or_else(|p| p.into_inner());
                    let mut kept = r.1;
                    let result = result.filter(|_| keep_result(&mut kept, &payload, result_cap));
                    r.1 = kept;
                    r.0.push(CallRecord {
                        id,
                        status,
                        code,
                        result,
                        ms: started.elapsed().as_millis() as u64,
                    });
                }
                let answer = ipc::Answer::from_encoded(payload);
                let _ = to_worker.send(&ToChild::Reply { req, answer });
            });
            return;
        }
    };
    let answer = ipc::Answer::from_encoded(payload);
    let _ = to_worker.send(&ToChild::Reply { req, answer });
}
