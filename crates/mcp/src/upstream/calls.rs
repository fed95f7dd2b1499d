//! Routing what a server sends while calls run on it (progress, log messages,
//! sampling and elicitation requests) to the one call it belongs to, and to
//! nothing else: many clients' calls share one server connection, and a log
//! line or a sampling prompt carries one client's data.
//!
//! A message belongs to a call when it names it:
//! - a progress notification by its `progressToken`, on any transport;
//! - anything a streamable HTTP server sends on the response stream of the
//!   request that carried a call (the HTTP client marks it, see
//!   `http_client::Marking`); `_meta.progressToken` on a log or a request
//!   names a call too.
//!
//! Over stdio MCP says nothing else about which call a message belongs to.
//! What names no call in flight is never guessed: a log line goes to the
//! gateway's own log only, a request is refused with the reason. The one
//! exception is a gateway that serves a single client for its whole life (the
//! stdio gateway): everything on its servers is that client's, and an
//! unattributed message goes to one of its calls in flight.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{MetaObject, ProgressToken, RequestId};
use serde_json::Value;
use toolsearch::Notifier;

/// The `_meta` key under which the HTTP client records the id of the request
/// whose response stream a message came on. A server's own value is removed
/// before it is set (see `http_client::Marking`); stdio servers' are ignored.
pub(crate) const RELATED: &str = "io.toolsearch/related-request";

/// The `_meta` key under which a transport records the order in which it
/// received each progress notification (a number that grows). rmcp hands
/// notifications to the handler on tasks of their own, which may run in any
/// order; by this number a progress that an earlier-received one overtook is
/// known as stale and dropped (see `Handler::on_progress`), so a client hears
/// a call's progress in the order its server sent it. A server's own value is
/// replaced.
pub(crate) const RECEIVED: &str = "io.toolsearch/received";

/// Stamps `msg` with `seq` under [`RECEIVED`] when it is a progress
/// notification; anything else is left as it is.
pub(crate) fn stamp_progress(msg: &mut serde_json::Map<String, Value>, seq: u64) {
    if msg.get("method").and_then(Value::as_str) != Some("notifications/progress") {
        return;
    }
    let Some(Value::Object(params)) = msg.get_mut("params") else {
        return;
    };
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Default::default()));
    if !meta.is_object() {
        *meta = Value::Object(Default::default());
    }
    if let Value::Object(meta) = meta {
        meta.insert(RECEIVED.to_string(), Value::from(seq));
    }
}

/// How long a message that names a call not yet registered waits for it: the
/// request is on the wire before the call that sent it has registered (a few
/// scheduler turns on a loaded machine).
const REGISTRATION_WAIT: Duration = Duration::from_millis(250);

/// What a message says about the call it belongs to.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Relation {
    /// The id of the request whose response stream carried it.
    pub request: Option<String>,
    /// A progress token.
    pub token: Option<String>,
}

impl Relation {
    /// The relation `_meta` records. `marked`: the transport marks the related
    /// request (streamable HTTP); elsewhere the key is the server's own and is
    /// ignored.
    pub(crate) fn of_meta(meta: &MetaObject, marked: bool) -> Relation {
        let request = if marked {
            meta.0.get(RELATED).map(id_key_of_value)
        } else {
            None
        };
        let token = meta.0.get("progressToken").map(id_key_of_value);
        Relation { request, token }
    }

    /// The relation of a progress notification: its token.
    pub(crate) fn of_token(token: &ProgressToken) -> Relation {
        Relation {
            request: None,
            token: Some(token_key(token)),
        }
    }

    fn names_a_call(&self) -> bool {
        self.request.is_some() || self.token.is_some()
    }
}

/// A progress token as a map key.
pub(crate) fn token_key(token: &ProgressToken) -> String {
    serde_json::to_string(token).unwrap_or_default()
}

/// A request id as a map key (the same for a number and its JSON).
pub(crate) fn id_key(id: &RequestId) -> String {
    serde_json::to_string(id).unwrap_or_default()
}

fn id_key_of_value(v: &Value) -> String {
    v.to_string()
}

#[derive(Default)]
struct Inner {
    by_request: HashMap<String, Notifier>,
    by_token: HashMap<String, Notifier>,
    /// The newest progress relayed per call's token, in the order the
    /// transport received them (see [`RECEIVED`]).
    last_progress: HashMap<String, u64>,
}

/// The calls in flight on one server, by request id and by progress token.
#[derive(Default)]
pub(crate) struct Calls {
    inner: Mutex<Inner>,
    registered: tokio::sync::Notify,
    /// Set when the gateway serves one client for its whole life.
    one_client: Arc<AtomicBool>,
}

impl Calls {
    /// Calls of a gateway whose `one_client` flag says whether it serves a
    /// single client.
    pub(crate) fn new(one_client: Arc<AtomicBool>) -> Calls {
        Calls {
            one_client,
            ..Calls::default()
        }
    }

    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Registers a call sent as request `id` with progress `token`; what names
    /// either goes to `to` until the returned guard is dropped.
    pub(crate) fn enter(
        self: &Arc<Self>,
        id: &RequestId,
        token: &ProgressToken,
        to: Notifier,
    ) -> InFlight {
        let (request, token) = (id_key(id), token_key(token));
        {
            let mut inner = self.inner();
            inner.by_request.insert(request.clone(), to.clone());
            inner.by_token.insert(token.clone(), to);
        }
        self.registered.notify_waiters();
        InFlight {
            calls: self.clone(),
            request,
            token,
        }
    }

    fn find(&self, rel: &Relation) -> Option<Notifier> {
        let inner = self.inner();
        rel.request
            .as_ref()
            .and_then(|r| inner.by_request.get(r))
            .or_else(|| rel.token.as_ref().and_then(|t| inner.by_token.get(t)))
            .cloned()
    }

    /// Relays (by `relay`) a progress notification of the call with token
    /// `token`, the `received`-th message its transport read, unless one read
    /// after it was relayed already: that one is newer, and progress is only
    /// ever the newest value. The check and the relay are one step (under the
    /// lock), so none can overtake another.
    pub(crate) fn relay_progress(&self, token: &str, received: Option<u64>, relay: impl FnOnce()) {
        let mut inner = self.inner();
        if let Some(n) = received {
            if !inner.by_token.contains_key(token) {
                return;
            }
            if inner.last_progress.get(token).is_some_and(|last| *last > n) {
                return;
            }
            inner.last_progress.insert(token.to_string(), n);
        }
        relay();
    }

    /// Calls in flight now.
    pub(crate) fn len(&self) -> usize {
        self.inner().by_request.len()
    }

    /// The call a message with relation `rel` belongs to: the one it names
    /// (waiting briefly for a call that was just sent), else, on a gateway with
    /// one client, any of its calls in flight; else none.
    pub(crate) async fn route(&self, rel: &Relation) -> Option<Notifier> {
        if let Some(to) = self.route_named(rel).await {
            return Some(to);
        }
        if self.one_client.load(Ordering::Relaxed) {
            // The call that sent the request may not have registered yet (a
            // few scheduler turns on a loaded machine): wait for it as for a
            // named one.
            return self
                .registered_soon(|c| c.inner().by_request.values().next().cloned())
                .await;
        }
        None
    }

    /// The call `rel` names (waiting briefly for a call that was just sent).
    pub(crate) async fn route_named(&self, rel: &Relation) -> Option<Notifier> {
        if !rel.names_a_call() {
            return None;
        }
        self.registered_soon(|c| c.find(rel)).await
    }

    /// What `find` finds now, or once a call registers within
    /// [`REGISTRATION_WAIT`]; `None` after that.
    async fn registered_soon(&self, find: impl Fn(&Self) -> Option<Notifier>) -> Option<Notifier> {
        let until = tokio::time::Instant::now() + REGISTRATION_WAIT;
        loop {
            // Armed before the look: a registration in between is not missed.
            let registered = self.registered.notified();
            if let Some(to) = find(self) {
                return Some(to);
            }
            if tokio::time::timeout_at(until, registered).await.is_err() {
                return None;
            }
        }
    }
}

/// A call registered in [`Calls`]; dropping it ends its routing.
pub(crate) struct InFlight {
    calls: Arc<Calls>,
    request: String,
    token: String,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut inner = self.calls.inner();
        inner.by_request.remove(&self.request);
        inner.by_token.remove(&self.token);
        inner.last_progress.remove(&self.token);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Sink(&'static str);
    impl toolsearch::Notify for Sink {
        fn progress(&self, _: f64, _: Option<f64>, _: Option<String>) {}
        fn log(&self, _: &str, _: Option<&str>, _: Value) {}
        fn caller(&self) -> Option<&str> {
            Some(self.0)
        }
    }

    fn caller(n: &Notifier) -> &str {
        n.0.caller().unwrap_or("")
    }

    fn meta(v: Value) -> MetaObject {
        MetaObject(v.as_object().unwrap().clone())
    }

    #[tokio::test]
    async fn a_message_goes_to_the_call_it_names_and_no_other() {
        let calls = Arc::new(Calls::new(Arc::default()));
        let a = calls.enter(
            &RequestId::Number(3),
            &ProgressToken(rmcp::model::NumberOrString::Number(30)),
            Notifier(Arc::new(Sink("a"))),
        );
        let _b = calls.enter(
            &RequestId::Number(4),
            &ProgressToken(rmcp::model::NumberOrString::String("t-4".into())),
            Notifier(Arc::new(Sink("b"))),
        );
        let by_request = Relation::of_meta(&meta(serde_json::json!({RELATED: 3})), true);
        assert_eq!(caller(&calls.route(&by_request).await.unwrap()), "a");
        let by_token = Relation::of_meta(&meta(serde_json::json!({"progressToken": "t-4"})), false);
        assert_eq!(caller(&calls.route(&by_token).await.unwrap()), "b");
        // A stdio server's own "related" key names nothing.
        let claimed = Relation::of_meta(&meta(serde_json::json!({RELATED: 3})), false);
        assert!(calls.route(&claimed).await.is_none());
        // Unrelated: never guessed while several clients share the gateway.
        assert!(calls.route(&Relation::default()).await.is_none());
        // A call that ended is named no more.
        drop(a);
        assert!(calls.route(&by_request).await.is_none());
        assert_eq!(calls.len(), 1);
    }

    #[tokio::test]
    async fn a_gateway_with_one_client_gives_it_what_names_no_call() {
        let calls = Arc::new(Calls::new(Arc::new(AtomicBool::new(true))));
        assert!(calls.route(&Relation::default()).await.is_none());
        let _a = calls.enter(
            &RequestId::Number(1),
            &ProgressToken(rmcp::model::NumberOrString::Number(1)),
            Notifier(Arc::new(Sink("only"))),
        );
        assert_eq!(
            caller(&calls.route(&Relation::default()).await.unwrap()),
            "only"
        );
    }

    #[tokio::test]
    async fn a_message_waits_briefly_for_the_call_that_was_just_sent() {
        let calls = Arc::new(Calls::new(Arc::default()));
        let rel = Relation::of_meta(&meta(serde_json::json!({RELATED: 9})), true);
        let later = {
            let calls = calls.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(20)).await;
                let g = calls.enter(
                    &RequestId::Number(9),
                    &ProgressToken(rmcp::model::NumberOrString::Number(9)),
                    Notifier(Arc::new(Sink("late"))),
                );
                tokio::time::sleep(Duration::from_millis(500)).await;
                drop(g);
            })
        };
        assert_eq!(caller(&calls.route(&rel).await.unwrap()), "late");
        later.abort();
    }
}
