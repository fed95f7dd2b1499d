//! Snippets tried from the operator page (`POST /api/try`): run as
//! `tool_search_code` under a profile's facade, so its policy, its view and
//! its approvals are the ones in force, in a session of their own. Every
//! call such a session makes reaches [`Recorded`], the dispatcher in front of
//! the fleet: for a dry run it is written down and answered with a note,
//! never sent; for a trial with real calls (only when `[admin] page_calls`
//! allows) it is sent and its result written down too.
//!
//! A trial session's id is the gateway's own random one (`page-try-…`); a
//! client's sessions are `mcp-N`, so no client's call is ever held back or
//! recorded here. Every call sent, a client's or a trial's, is counted by
//! server, with those that failed: the page's servers table shows them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use toolsearch::{CallContext, DispatchFuture, Dispatcher};
use toolsearch_catalog::Tool;

/// Trials running at once, at most (each runs a snippet on the shared pool).
pub(crate) const MAX_TRIALS: usize = 2;

/// Calls one trial records, at most (a snippet's call budget is smaller).
const MAX_RECORDED: usize = 64;

/// Bytes of a recorded argument or result shown, at most.
const SHOWN_BYTES: usize = 4096;

/// What the dry run answers in place of a call.
pub(crate) const NOT_CALLED: &str =
    "dry run: this call was recorded, not made (the operator page's trial)";

/// One call a trial made.
#[derive(Clone, Debug)]
pub(crate) struct Seen {
    pub(crate) tool: String,
    pub(crate) arguments: Value,
    pub(crate) made: bool,
    pub(crate) result: Value,
}

impl Seen {
    pub(crate) fn shown(&self) -> Value {
        json!({
            "tool": self.tool,
            "arguments": self.arguments,
            "made": self.made,
            "result": self.result,
        })
    }
}

/// A running trial: whether its calls are made, and what they were.
struct Trial {
    real: bool,
    calls: Vec<Seen>,
    left_out: usize,
}

/// The trials running now, by session id, and the calls sent to each
/// server.
#[derive(Default)]
pub(crate) struct Trials {
    running: Mutex<HashMap<String, Trial>>,
    /// Calls sent and calls failed, by server: one entry per server a tool
    /// of the catalog names (the configuration's).
    sent: Mutex<HashMap<String, (u64, u64)>>,
}

impl Trials {
    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, Trial>> {
        self.running.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A new trial's session id, or why none can start now.
    pub(crate) fn begin(&self, real: bool) -> Result<String, String> {
        let mut running = self.running();
        if running.len() >= MAX_TRIALS {
            return Err(format!(
                "{MAX_TRIALS} trials are running already: try again when one has ended"
            ));
        }
        let mut bytes = [0u8; 12];
        ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes)
            .map_err(|_| "no random bytes for the trial's session id".to_string())?;
        let id = format!("page-try-{}", crate::text::hex(&bytes));
        running.insert(
            id.clone(),
            Trial {
                real,
                calls: Vec::new(),
                left_out: 0,
            },
        );
        Ok(id)
    }

    /// The trial `id` ended: its calls, and how many were not kept.
    pub(crate) fn end(&self, id: &str) -> (Vec<Seen>, usize) {
        self.running()
            .remove(id)
            .map_or((Vec::new(), 0), |t| (t.calls, t.left_out))
    }

    /// Calls sent and calls failed so far, by server.
    pub(crate) fn sent(&self) -> HashMap<String, (u64, u64)> {
        self.sent.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn count(&self, server: &str, failed: bool) {
        let mut sent = self.sent.lock().unwrap_or_else(|p| p.into_inner());
        let entry = sent.entry(server.to_string()).or_default();
        entry.0 += 1;
        entry.1 += u64::from(failed);
    }

    /// `Some(real)` when `session` is a trial's.
    fn real(&self, session: Option<&str>) -> Option<bool> {
        self.running().get(session?).map(|t| t.real)
    }

    fn record(&self, session: &str, seen: Seen) {
        if let Some(t) = self.running().get_mut(session) {
            if t.calls.len() < MAX_RECORDED {
                t.calls.push(seen);
            } else {
                t.left_out += 1;
            }
        }
    }
}

/// Whether a call failed: the dispatcher's error, or the tool's own result
/// saying so (`isError`).
fn failed(out: &Result<Value, toolsearch::DispatchError>) -> bool {
    out.as_ref().map_or(true, |v| {
        v.get("isError").and_then(Value::as_bool) == Some(true)
    })
}

/// A value as shown: itself when small, else its JSON text cut.
fn bounded(v: Value) -> Value {
    let text = v.to_string();
    if text.len() <= SHOWN_BYTES {
        return v;
    }
    let mut end = SHOWN_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Value::String(format!("{}… ({} bytes in all)", &text[..end], text.len()))
}

/// The dispatcher every profile's facade calls: the fleet's, with trial
/// sessions' calls recorded (and held back in a dry run).
pub(crate) struct Recorded {
    inner: Arc<dyn Dispatcher>,
    trials: Arc<Trials>,
}

impl Recorded {
    pub(crate) fn over(inner: Arc<dyn Dispatcher>, trials: Arc<Trials>) -> Arc<Recorded> {
        Arc::new(Recorded { inner, trials })
    }
}

impl Dispatcher for Recorded {
    fn dispatch(&self, tool: &Tool, args: Value, cx: CallContext) -> DispatchFuture {
        let session = cx.session.clone();
        let trials = self.trials.clone();
        let server = tool.server.clone().unwrap_or_default();
        let Some(real) = self.trials.real(session.as_deref()) else {
            let call = self.inner.dispatch(tool, args, cx);
            return Box::pin(async move {
                let out = call.await;
                trials.count(&server, failed(&out));
                out
            });
        };
        let session = session.map(|s| s.to_string()).unwrap_or_default();
        let id = tool.id.clone();
        if !real {
            trials.record(
                &session,
                Seen {
                    tool: id.clone(),
                    arguments: bounded(args.clone()),
                    made: false,
                    result: Value::Null,
                },
            );
            return Box::pin(async move {
                Ok(json!({"dry_run": NOT_CALLED, "tool": id, "arguments": args}))
            });
        }
        let sent = bounded(args.clone());
        let call = self.inner.dispatch(tool, args, cx);
        Box::pin(async move {
            let out = call.await;
            trials.count(&server, failed(&out));
            let result = match &out {
                Ok(v) => bounded(v.clone()),
                Err(e) => json!({"error": e.to_string()}),
            };
            trials.record(
                &session,
                Seen {
                    tool: id,
                    arguments: sent,
                    made: true,
                    result,
                },
            );
            out
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trials_are_bounded_and_their_ids_are_not_a_clients() {
        let t = Trials::default();
        let a = t.begin(false).unwrap();
        let b = t.begin(true).unwrap();
        assert!(a.starts_with("page-try-") && a != b);
        assert!(t.begin(false).unwrap_err().contains("running already"));
        assert_eq!(t.real(Some(&a)), Some(false));
        assert_eq!(t.real(Some(&b)), Some(true));
        assert_eq!(t.real(Some("mcp-1")), None);
        assert_eq!(t.real(None), None);
        for _ in 0..MAX_RECORDED + 3 {
            t.record(
                &a,
                Seen {
                    tool: "s__t".into(),
                    arguments: json!({}),
                    made: false,
                    result: Value::Null,
                },
            );
        }
        let (calls, left_out) = t.end(&a);
        assert_eq!((calls.len(), left_out), (MAX_RECORDED, 3));
        assert_eq!(t.real(Some(&a)), None);
        assert!(t.begin(false).is_ok());
    }

    #[test]
    fn a_large_value_is_cut_on_a_character_boundary() {
        let v = json!({"text": "é".repeat(SHOWN_BYTES)});
        let shown = bounded(v);
        let s = shown.as_str().unwrap();
        assert!(s.len() < SHOWN_BYTES + 64 && s.contains("bytes in all"));
        assert_eq!(bounded(json!({"a": 1})), json!({"a": 1}));
    }
}
