//! The host's side of a worker process's bridge requests: each `search`,
//! `describe` and `call` of a running job is run on the host's bridge, its
//! answer capped and encoded as the in-process ops would, recorded, and written
//! back to the worker as a `Reply`.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::process::ChildStdin;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use crate::bridge::Bridge;
use crate::ipc::{self, BridgeOp, ToChild};
use crate::isolate::ops::{catch_panic, encode_call, encode_lookup, keep_result, CallOutcome};
use crate::limits::Limits;
use crate::result::CallRecord;

/// The calls the host saw of one job, and the emitted bytes of the results kept.
pub(crate) type Records = Arc<Mutex<(Vec<CallRecord>, usize)>>;

/// Writes one message to a worker's stdin (one `write` of its whole line).
pub(crate) fn write(stdin: &Mutex<ChildStdin>, msg: &ToChild) -> std::io::Result<()> {
    let mut w = stdin.lock().unwrap_or_else(|p| p.into_inner());
    ipc::send(&mut *w, msg)
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn handle_request(
    runtime: Option<&tokio::runtime::Runtime>,
    stdin: &Arc<Mutex<ChildStdin>>,
    req: u64,
    op: BridgeOp,
    bridge: &Arc<dyn Bridge>,
    limits: &Limits,
    job_cancel: &CancellationToken,
    calls: &mut HashMap<u64, CancellationToken>,
    records: &Records,
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
            let (stdin, records) = (stdin.clone(), records.clone());
            let Some(runtime) = runtime else {
                return;
            };
            runtime.spawn(async move {
                let started = Instant::now();
                let out = match fut {
                    Ok(fut) => tokio::select! {
                        r = catch_panic(fut) => r,
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
                let _ = write(&stdin, &ToChild::Reply { req, answer });
            });
            return;
        }
    };
    let answer = ipc::Answer::from_encoded(payload);
    let _ = write(stdin, &ToChild::Reply { req, answer });
}
