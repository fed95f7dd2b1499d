//! What reaches a client while its call runs: the progress and log messages of
//! the call's server, in order and bounded, and the server's requests
//! (sampling, elicitation), asked of that client.
// MCP logging is deprecated by SEP-2577, but the servers in front of which the
// gateway stands still send it, and clients still read it: it is forwarded.
#![allow(deprecated)]

use rmcp::model::{
    LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken,
};
use rmcp::service::{Peer, RoleServer};
use serde_json::Value;
use toolsearch::{AskError, AskFuture, Notify};

/// Forwards a running call's progress, logs and its server's requests (sampling,
/// elicitation) to the gateway's client. Progress and logs go through one queue per
/// call, sent in order by one task, so none can overtake another or the call's
/// response (the call waits for the queue to drain: [`flush`]).
pub(super) struct ToClient {
    pub(super) peer: Peer<RoleServer>,
    pub(super) progress_token: Option<ProgressToken>,
    pub(super) session: String,
    pub(super) notes: tokio::sync::mpsc::Sender<Note>,
    /// Fired when the client falls [`MAX_QUEUED_NOTES`] behind: the call stops.
    pub(super) overflow: tokio_util::sync::CancellationToken,
}

/// Most notifications of one call waiting for its client to read them; a call
/// whose client falls further behind is stopped with that reason (a slow client
/// slows its own calls, it does not grow the gateway).
pub const MAX_QUEUED_NOTES: usize = 1_000;

impl ToClient {
    fn queue(&self, note: Note) {
        if let Err(tokio::sync::mpsc::error::TrySendError::Full(_)) = self.notes.try_send(note) {
            if !self.overflow.is_cancelled() {
                tracing::warn!(session = %self.session, "a client fell 1,000 notifications behind; its call is stopped");
                self.overflow.cancel();
            }
        }
    }
}

/// A notification to the client, in the order the call produced it.
pub(super) enum Note {
    Progress(ProgressNotificationParam),
    Log(LoggingMessageNotificationParam),
    /// Answered once everything queued before it was sent.
    Flush(tokio::sync::oneshot::Sender<()>),
}

/// The queue of one call's notifications and the task that sends them in order.
pub(super) fn note_queue(peer: Peer<RoleServer>) -> tokio::sync::mpsc::Sender<Note> {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Note>(MAX_QUEUED_NOTES);
    tokio::spawn(async move {
        while let Some(note) = rx.recv().await {
            match note {
                Note::Progress(p) => {
                    let _ = peer.notify_progress(p).await;
                }
                Note::Log(p) => {
                    #[allow(deprecated)]
                    let _ = peer.notify_logging_message(p).await;
                }
                Note::Flush(done) => {
                    let _ = done.send(());
                }
            }
        }
    });
    tx
}

/// Waits (at most 5 s) until the notifications queued so far have been sent.
pub(super) async fn flush(notes: &tokio::sync::mpsc::Sender<Note>) {
    let (done, sent) = tokio::sync::oneshot::channel();
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), async {
        if notes.send(Note::Flush(done)).await.is_ok() {
            let _ = sent.await;
        }
    })
    .await;
}

fn ask_error(code: i32, message: impl Into<String>) -> AskError {
    AskError {
        code,
        message: message.into(),
    }
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
        self.queue(Note::Progress(p));
    }

    fn log(&self, level: &str, logger: Option<&str>, data: Value) {
        let level: LoggingLevel =
            serde_json::from_value(Value::String(level.into())).unwrap_or(LoggingLevel::Info);
        let mut p = LoggingMessageNotificationParam::new(level, data);
        p.logger = logger.map(str::to_string);
        self.queue(Note::Log(p));
    }

    fn caller(&self) -> Option<&str> {
        Some(&self.session)
    }

    fn ask(&self, method: &str, params: Value) -> AskFuture {
        let peer = self.peer.clone();
        let caps = peer.peer_info().map(|i| i.capabilities.clone());
        let method = method.to_string();
        Box::pin(async move {
            let unsupported = || {
                ask_error(
                    -32601,
                    format!("the gateway's client does not support `{method}`"),
                )
            };
            let invalid =
                |e: serde_json::Error| ask_error(-32602, format!("bad `{method}` params: {e}"));
            let answer = match method.as_str() {
                "sampling/createMessage" => {
                    if caps.as_ref().is_none_or(|c| c.sampling.is_none()) {
                        return Err(unsupported());
                    }
                    let p = serde_json::from_value(params).map_err(invalid)?;
                    #[allow(deprecated)]
                    let r = peer.create_message(p).await.map_err(service_error)?;
                    serde_json::to_value(r)
                }
                "elicitation/create" => {
                    if caps.as_ref().is_none_or(|c| c.elicitation.is_none()) {
                        return Err(unsupported());
                    }
                    let p = serde_json::from_value(params).map_err(invalid)?;
                    let r = peer.create_elicitation(p).await.map_err(service_error)?;
                    serde_json::to_value(r)
                }
                _ => return Err(unsupported()),
            };
            answer.map_err(|e| ask_error(-32603, format!("unreadable answer: {e}")))
        })
    }
}
