//! What reaches a client while its call runs: the progress and log messages of
//! the call's server, in order, progress coalesced and logs bounded, and the
//! server's requests (sampling, elicitation), asked of that client.
// MCP logging is deprecated by SEP-2577, but the servers in front of which the
// gateway stands still send it, and clients still read it: it is forwarded.
#![allow(deprecated)]

use rmcp::model::GetExtensions;
use rmcp::model::{
    ClientResult, CreateMessageRequest, CreateMessageRequestParams, ElicitRequest, Extensions,
    LoggingLevel, LoggingMessageNotification, LoggingMessageNotificationParam,
    ProgressNotification, ProgressNotificationParam, ProgressToken, RequestId, ServerNotification,
    ServerRequest,
};
use rmcp::service::OriginatingRequestId;
use rmcp::service::{Peer, RoleServer};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use toolsearch::{AskError, AskFuture, Notify};

/// Forwards a running call's progress, logs and its server's requests (sampling,
/// elicitation) to the gateway's client. Progress and logs go through one
/// [`Outbox`] per call, sent in order by one task, so none can overtake another
/// or the call's response (the call waits for the outbox to drain: [`flush`]).
pub(super) struct ToClient {
    pub(super) peer: Peer<RoleServer>,
    pub(super) progress_token: Option<ProgressToken>,
    pub(super) session: String,
    pub(super) notes: Arc<Outbox>,
    /// The client's request this call answers: what the call's server says or
    /// asks goes on that request's own stream (streamable HTTP), which every
    /// client reads, not only on the standalone stream, which a client need
    /// not open.
    pub(super) origin: RequestId,
    /// The call's approvals when its client holds no session (2026-07-28):
    /// decided by rounds, never asked during the call.
    pub(super) round: Option<Arc<super::round::Round>>,
}

/// Extensions that name the client's request a message belongs to (the
/// session manager routes by them: rmcp patch 0002, and SEP-2260 for requests).
fn from_request(origin: &RequestId) -> Extensions {
    let mut ext = Extensions::new();
    ext.insert(OriginatingRequestId(origin.clone()));
    ext
}

/// Most log messages of one call waiting for its client to read them; past it
/// they are dropped and counted, and the client is told how many (a slow
/// client slows its own call's logs, it never grows the gateway and never
/// fails the call).
pub const MAX_QUEUED_LOGS: usize = 1_000;

/// One call's notifications not yet sent, in the order the call produced them.
/// Progress is coalesced: only the latest value per call matters, so at most
/// one progress notification waits, at the place of the first one not yet
/// sent, carrying the newest value. Log messages past [`MAX_QUEUED_LOGS`] are
/// dropped and counted; the count reaches the client as a log message of its
/// own, in order.
pub(super) struct Outbox {
    state: Mutex<Queued>,
    wake: Arc<tokio::sync::Notify>,
}

impl Drop for Outbox {
    /// The sending task holds the outbox weakly: it ends when the call (and
    /// its routing) let go of it, even when the call was dropped unfinished.
    fn drop(&mut self) {
        self.wake.notify_one();
    }
}

#[derive(Default)]
struct Queued {
    order: VecDeque<Entry>,
    /// The newest progress not yet sent (its place is the `Entry::Progress` queued).
    progress: Option<ProgressNotificationParam>,
    logs: usize,
    dropped: u64,
    /// Set when the call is done: nothing more is queued.
    closed: bool,
}

enum Entry {
    Progress,
    Log(LoggingMessageNotificationParam),
    /// Answered once everything queued before it was sent.
    Flush(tokio::sync::oneshot::Sender<()>),
}

/// The log message that tells a client how many of a call's log messages it
/// did not get.
fn dropped_notice(dropped: u64) -> LoggingMessageNotificationParam {
    let mut p = LoggingMessageNotificationParam::new(
        LoggingLevel::Warning,
        Value::String(format!(
            "{dropped} log messages of this call were dropped: the server wrote them faster \
             than this client read them (at most {MAX_QUEUED_LOGS} wait per call)"
        )),
    );
    p.logger = Some("toolsearch".into());
    p
}

impl Queued {
    /// Queues the count of dropped logs, when there is one.
    fn own_up(&mut self) {
        if self.dropped > 0 {
            self.order
                .push_back(Entry::Log(dropped_notice(self.dropped)));
            self.logs += 1;
            self.dropped = 0;
        }
    }
}

impl Outbox {
    fn state(&self) -> std::sync::MutexGuard<'_, Queued> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn progress(&self, p: ProgressNotificationParam) {
        let mut q = self.state();
        if q.closed {
            return;
        }
        if q.progress.replace(p).is_none() {
            q.order.push_back(Entry::Progress);
        }
        drop(q);
        self.wake.notify_one();
    }

    fn log(&self, p: LoggingMessageNotificationParam) {
        let mut q = self.state();
        if q.closed {
            return;
        }
        // One place is kept for the count of what is dropped.
        if q.logs + 1 >= MAX_QUEUED_LOGS {
            q.dropped += 1;
            return;
        }
        q.own_up();
        q.order.push_back(Entry::Log(p));
        q.logs += 1;
        drop(q);
        self.wake.notify_one();
    }

    /// Marks the call done: what is queued is still sent, nothing more is
    /// queued, and the sending task ends once it is sent.
    fn close(&self) {
        self.state().closed = true;
        self.wake.notify_one();
    }

    /// The next entry to send; `Err(())` when there is none yet, `Ok(None)`
    /// once closed and empty.
    fn pop(&self) -> Result<Option<Sending>, ()> {
        let mut q = self.state();
        loop {
            match q.order.pop_front() {
                Some(Entry::Progress) => {
                    if let Some(p) = q.progress.take() {
                        return Ok(Some(Sending::Progress(p)));
                    }
                }
                Some(Entry::Log(p)) => {
                    q.logs -= 1;
                    return Ok(Some(Sending::Log(p)));
                }
                Some(Entry::Flush(done)) => return Ok(Some(Sending::Flush(done))),
                None if q.closed => return Ok(None),
                None => return Err(()),
            }
        }
    }
}

/// The next entry of the outbox `weak` to send, waiting for one; `None` once
/// it is closed and sent, or gone.
async fn next(weak: &std::sync::Weak<Outbox>, wake: &tokio::sync::Notify) -> Option<Sending> {
    loop {
        // A wake-up between the look and the wait is kept (a permit).
        let notified = wake.notified();
        {
            let outbox = weak.upgrade()?;
            if let Ok(next) = outbox.pop() {
                return next;
            }
        }
        notified.await;
    }
}

/// What the sending task sends next.
enum Sending {
    Progress(ProgressNotificationParam),
    Log(LoggingMessageNotificationParam),
    Flush(tokio::sync::oneshot::Sender<()>),
}

impl ToClient {
    fn queue_progress(&self, p: ProgressNotificationParam) {
        self.notes.progress(p);
    }

    fn queue_log(&self, p: LoggingMessageNotificationParam) {
        self.notes.log(p);
    }
}

/// The outbox of one call's notifications and the task that sends them in
/// order to `peer`; the task ends when the outbox is closed and sent
/// ([`flush`] closes it).
pub(super) fn note_queue(peer: Peer<RoleServer>, origin: RequestId) -> Arc<Outbox> {
    let wake = Arc::new(tokio::sync::Notify::new());
    let outbox = Arc::new(Outbox {
        state: Mutex::default(),
        wake: wake.clone(),
    });
    let from = Arc::downgrade(&outbox);
    tokio::spawn(async move {
        while let Some(next) = next(&from, &wake).await {
            match next {
                Sending::Progress(p) => {
                    let mut n = ProgressNotification::new(p);
                    n.extensions = from_request(&origin);
                    let _ = peer
                        .send_notification(ServerNotification::ProgressNotification(n))
                        .await;
                }
                Sending::Log(p) => {
                    let mut n = LoggingMessageNotification::new(p);
                    n.extensions = from_request(&origin);
                    let _ = peer
                        .send_notification(ServerNotification::LoggingMessageNotification(n))
                        .await;
                }
                Sending::Flush(done) => {
                    let _ = done.send(());
                }
            }
        }
    });
    outbox
}

/// Closes the call's outbox and waits (at most 5 s) until what it held was
/// sent (with the count of dropped logs, if any).
pub(super) async fn flush(notes: &Outbox) {
    let (done, sent) = tokio::sync::oneshot::channel();
    {
        let mut q = notes.state();
        q.own_up();
        q.order.push_back(Entry::Flush(done));
    }
    notes.close();
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), sent).await;
}

/// The `_meta` of a server's request as its client is to see it: the
/// gateway's own marks and the progress token the gateway gave the server go
/// (the request to the client is the gateway's own, and rmcp gives it a token
/// of its own).
fn client_meta(params: &mut Value) {
    let Some(Value::Object(meta)) = params.get_mut("_meta") else {
        return;
    };
    meta.retain(|k, _| !k.starts_with("io.toolsearch/"));
    meta.remove("progressToken");
    if meta.is_empty() {
        if let Value::Object(p) = params {
            p.remove("_meta");
        }
    }
}

fn ask_error(code: i32, message: impl Into<String>) -> AskError {
    AskError::new(code, message)
}

fn service_error(e: rmcp::service::ServiceError) -> AskError {
    match e {
        rmcp::service::ServiceError::McpError(e) => ask_error(e.code.0, e.message),
        other => ask_error(-32603, format!("the client did not answer: {other}")),
    }
}

impl Notify for ToClient {
    fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        let Some(token) = self.progress_token.clone() else {
            return;
        };
        let mut p = ProgressNotificationParam::new(token, progress);
        p.total = total;
        p.message = message;
        self.queue_progress(p);
    }

    fn log(&self, level: &str, logger: Option<&str>, data: Value) {
        let level: LoggingLevel =
            serde_json::from_value(Value::String(level.into())).unwrap_or(LoggingLevel::Info);
        let mut p = LoggingMessageNotificationParam::new(level, data);
        p.logger = logger.map(str::to_string);
        self.queue_log(p);
    }

    fn caller(&self) -> Option<&str> {
        Some(&self.session)
    }

    fn approval(
        &self,
        tool: &toolsearch_catalog::Tool,
        args: &Value,
    ) -> Option<Result<(), String>> {
        self.round.as_ref().map(|r| r.approve(tool, args))
    }

    fn ask(&self, method: &str, mut params: Value) -> AskFuture {
        let peer = self.peer.clone();
        let caps = peer.peer_info().map(|i| i.capabilities.clone());
        let method = method.to_string();
        client_meta(&mut params);
        let origin = self.origin.clone();
        // Asked from a task of its own: the task that relays the server's
        // request carries rmcp's marker of *that* request (task-local), which
        // would replace the client's request this one belongs to.
        let asking = tokio::spawn(async move {
            // A 2026-07-28 client holds no session: the revision gives a
            // server's request made during a call no way to reach it (its
            // input-required rounds carry the gateway's own questions only).
            if peer
                .peer_info()
                .is_some_and(|i| super::session::sessionless(&i.protocol_version))
            {
                return Err(ask_error(
                    AskError::METHOD_NOT_FOUND,
                    format!(
                        "the gateway's client speaks MCP 2026-07-28 (stateless, no session): \
                         `{method}` during a call has no way to reach it; use a tool that does \
                         not ask the client, or a client session of an earlier revision"
                    ),
                ));
            }
            let unsupported = || {
                ask_error(
                    AskError::METHOD_NOT_FOUND,
                    format!("the gateway's client does not support `{method}`"),
                )
            };
            let invalid =
                |e: serde_json::Error| ask_error(-32602, format!("bad `{method}` params: {e}"));
            let mut request = match method.as_str() {
                "sampling/createMessage" => {
                    if caps.as_ref().is_none_or(|c| c.sampling.is_none()) {
                        return Err(unsupported());
                    }
                    let p: CreateMessageRequestParams =
                        serde_json::from_value(params).map_err(invalid)?;
                    p.validate().map_err(|e| ask_error(-32602, e))?;
                    ServerRequest::CreateMessageRequest(CreateMessageRequest::new(p))
                }
                "elicitation/create" => {
                    if caps.as_ref().is_none_or(|c| c.elicitation.is_none()) {
                        return Err(unsupported());
                    }
                    let p = serde_json::from_value(params).map_err(invalid)?;
                    ServerRequest::ElicitRequest(ElicitRequest::new(p))
                }
                _ => return Err(unsupported()),
            };
            *request.extensions_mut() = from_request(&origin);
            let answer = match peer.send_request(request).await.map_err(service_error)? {
                ClientResult::CreateMessageResult(r) if method == "sampling/createMessage" => {
                    serde_json::to_value(r)
                }
                ClientResult::ElicitResult(r) if method == "elicitation/create" => {
                    serde_json::to_value(r)
                }
                _ => return Err(ask_error(-32603, "the client answered another request")),
            };
            answer.map_err(|e| ask_error(-32603, format!("unreadable answer: {e}")))
        });
        Box::pin(async move {
            asking
                .await
                .unwrap_or_else(|_| Err(ask_error(-32603, "asking the client failed")))
        })
    }
}
