//! Snippets tried from the operator page (`POST /api/try`): run as
//! `tool_search_code` under a profile's facade, so its policy, its view and
//! its approvals are the ones in force, in a session of their own. Every
//! call such a session makes reaches [`Recorded`], the dispatcher in front of
//! the fleet: for a dry run it is written down and answered with a note,
//! never sent; for a trial with real calls (only when `[admin] page_calls`
//! allows) it is sent and its result written down too.
//!
//! A trial session's id is the gateway's own random one ([`TRIAL_PREFIX`]);
//! a client's sessions are `mcp-N`, so no client's call is ever held back or
//! recorded here. A call of a trial that has ended (its page went away, the
//! gateway is stopping) is refused, never sent: a dry run fails closed.
//! Every call sent, a client's or a trial's, is counted by server with how
//! it ended ([`Sent`], when metrics are on).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use toolsearch::{CallContext, DispatchError, DispatchErrorKind, DispatchFuture, Dispatcher};
use toolsearch_catalog::Tool;

use super::metrics::Sent;

/// How a trial's session id begins.
pub(crate) const TRIAL_PREFIX: &str = "page-try-";

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

/// The trials running now, by session id.
#[derive(Default)]
pub(crate) struct Trials {
    running: Mutex<HashMap<String, Trial>>,
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
        let id = format!("{TRIAL_PREFIX}{}", crate::text::hex(&bytes));
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
    let cut = toolsearch_catalog::clean::truncate_at_boundary(&text, SHOWN_BYTES);
    Value::String(format!("{cut}… ({} bytes in all)", text.len()))
}

/// The dispatcher every profile's facade calls: the fleet's, with trial
/// sessions' calls recorded (and held back in a dry run), and every call
/// sent counted.
pub(crate) struct Recorded {
    inner: Arc<dyn Dispatcher>,
    trials: Arc<Trials>,
    /// Where calls sent are counted (`None`: metrics are off).
    sent: Option<Sent>,
}

impl Recorded {
    pub(crate) fn over(
        inner: Arc<dyn Dispatcher>,
        trials: Arc<Trials>,
        sent: Option<Sent>,
    ) -> Arc<Recorded> {
        Arc::new(Recorded {
            inner,
            trials,
            sent,
        })
    }

    /// `call` to `tool`'s server, counted when it ends (an error when it is
    /// given up before: a timeout drops it).
    fn sent(&self, tool: &Tool, call: DispatchFuture) -> DispatchFuture {
        let Some(sent) = self.sent.clone() else {
            return call;
        };
        let mut counting = Counting {
            sent: Some(sent),
            server: tool.server.clone().unwrap_or_default(),
        };
        Box::pin(async move {
            let out = call.await;
            counting.count(!failed(&out));
            out
        })
    }
}

/// A call's count, taken once: when it ends, or as an error when it is
/// given up before (dropped).
struct Counting {
    /// Taken when counted.
    sent: Option<Sent>,
    server: String,
}

impl Counting {
    fn count(&mut self, ok: bool) {
        if let Some(sent) = self.sent.take() {
            sent.count(&self.server, ok);
        }
    }
}

impl Drop for Counting {
    fn drop(&mut self) {
        self.count(false);
    }
}

impl Dispatcher for Recorded {
    fn dispatch(&self, tool: &Tool, args: Value, cx: CallContext) -> DispatchFuture {
        let Some(session) = cx
            .session
            .as_deref()
            .filter(|s| s.starts_with(TRIAL_PREFIX))
            .map(str::to_string)
        else {
            return self.sent(tool, self.inner.dispatch(tool, args, cx));
        };
        let id = tool.id.clone();
        match self.trials.real(Some(&session)) {
            None => Box::pin(async move {
                Err(DispatchError::new(
                    DispatchErrorKind::Unavailable,
                    format!("`{id}` was not called: the trial it belongs to has ended"),
                ))
            }),
            Some(false) => {
                self.trials.record(
                    &session,
                    Seen {
                        tool: id.clone(),
                        arguments: bounded(args.clone()),
                        made: false,
                        result: Value::Null,
                    },
                );
                Box::pin(async move {
                    Ok(json!({"dry_run": NOT_CALLED, "tool": id, "arguments": args}))
                })
            }
            Some(true) => {
                let sent = bounded(args.clone());
                let trials = self.trials.clone();
                let call = self.sent(tool, self.inner.dispatch(tool, args, cx));
                Box::pin(async move {
                    let out = call.await;
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

    #[tokio::test]
    async fn a_call_of_an_ended_trial_is_refused_and_never_sent() {
        let sent = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = sent.clone();
        let inner: Arc<dyn Dispatcher> = Arc::new(toolsearch::dispatcher_fn(move |_t, _a, _c| {
            seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            async { Ok(json!("ran")) }
        }));
        let trials = Arc::new(Trials::default());
        let counts = Sent::default();
        let d = Recorded::over(inner, trials.clone(), Some(counts.clone()));
        let tool = Tool::new(
            toolsearch_catalog::Source::Mcp,
            Some("s"),
            "t",
            "a tool",
            json!({"type": "object"}),
        );
        let cx = |s: &str| CallContext {
            session: Some(Arc::from(s)),
            ..Default::default()
        };
        let dry = trials.begin(false).unwrap();
        let out = d.dispatch(&tool, json!({}), cx(&dry)).await.unwrap();
        assert_eq!(out["dry_run"], NOT_CALLED);
        trials.end(&dry);
        let late = d.dispatch(&tool, json!({}), cx(&dry)).await.unwrap_err();
        assert!(late.message.contains("has ended"), "{late:?}");
        let forged = d.dispatch(&tool, json!({}), cx("page-try-00")).await;
        assert!(forged.is_err());
        assert_eq!(sent.load(std::sync::atomic::Ordering::SeqCst), 0);
        // A client's call is sent and counted.
        assert_eq!(
            d.dispatch(&tool, json!({}), cx("mcp-1")).await.unwrap(),
            "ran"
        );
        assert_eq!(sent.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert_eq!(counts.of("s"), (1, 0));
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
