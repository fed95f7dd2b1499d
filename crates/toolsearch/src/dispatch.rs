//! Running real tools: the [`Dispatcher`] trait, its call context and errors.

use serde_json::{json, Value};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

pub use crate::error::{AskError, DispatchError, DispatchErrorKind};
use tokio_util::sync::CancellationToken;
use toolsearch_catalog::Tool;

/// Future returned by [`Dispatcher::dispatch`].
pub type DispatchFuture = Pin<Box<dyn Future<Output = Result<Value, DispatchError>> + Send>>;

/// Future returned by [`Notify::ask`].
pub type AskFuture = Pin<Box<dyn Future<Output = Result<Value, AskError>> + Send>>;

/// Receives what a running call reports before it answers: progress and log
/// messages of the tool's server, and the requests that server makes of the
/// caller's client while it runs (MCP sampling, elicitation). A gateway forwards
/// them to its own client.
pub trait Notify: Send + Sync + 'static {
    /// Progress of the call (`total` when known).
    fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>);
    /// A log message the tool's server sent during the call.
    fn log(&self, level: &str, logger: Option<&str>, data: Value);
    /// Who the call is for (an MCP session id, say): requests a server makes are
    /// forwarded only when every call in flight on it is for the same caller.
    fn caller(&self) -> Option<&str> {
        None
    }
    /// A request the tool's server makes of the caller's client during the call
    /// (`sampling/createMessage`, `elicitation/create`). By default none can be
    /// answered.
    fn ask(&self, method: &str, _params: Value) -> AskFuture {
        let message = format!("the caller's client cannot answer `{method}`");
        Box::pin(async move { Err(AskError::new(AskError::METHOD_NOT_FOUND, message)) })
    }
    /// An approval of `tool` with `args` decided without asking the client
    /// during the call: `Some` when the caller carries approvals otherwise
    /// (MCP 2026-07-28's input-required rounds: the answer given in an
    /// earlier round, or a round asked for now). `None` (the default): an
    /// approver asks, by [`Notify::ask`].
    fn approval(&self, _tool: &Tool, _args: &Value) -> Option<Result<(), String>> {
        None
    }
}

/// A shared [`Notify`] sink, carried by [`CallContext::notify`].
#[derive(Clone)]
pub struct Notifier(pub Arc<dyn Notify>);

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Notifier")
    }
}

/// Who is calling and until when. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct CallContext {
    /// Fires when the caller no longer wants the result (timeout, snippet ended).
    pub cancel: CancellationToken,
    /// When the call must have answered, if bounded.
    pub deadline: Option<Instant>,
    /// The session (conversation) the call belongs to.
    pub session: Option<Arc<str>>,
    /// The user or client on whose behalf the call runs.
    pub principal: Option<Arc<str>>,
    /// Where progress and log messages of the running call go, if anywhere.
    pub notify: Option<Notifier>,
    /// The caller's trace, for the dispatcher to pass on to the tool's server
    /// (see [`CallOptions::trace`]).
    pub trace: Option<Arc<TraceContext>>,
}

/// A W3C trace context, as a call carries it to a tool's server (MCP puts it
/// in the request's `_meta`; over HTTP it is the `traceparent` and
/// `tracestate` headers too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceContext {
    /// `00-<trace id>-<parent span id>-<flags>`.
    pub traceparent: String,
    /// Vendors' entries, when there are any.
    pub tracestate: Option<String>,
}

/// How one call is run: cancellation and where its progress goes.
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    /// Fires when the caller gives up (a client's `notifications/cancelled`): a
    /// running snippet ends and its in-flight tool calls are cancelled.
    pub cancel: tokio_util::sync::CancellationToken,
    /// Receives progress and log messages of the tools the call runs.
    pub notify: Option<Notifier>,
    /// The trace the call is part of, passed on to the servers of the tools it
    /// runs when no span of the caller's own records one (a gateway passes a
    /// request's context on this way when it keeps no trace of it: the
    /// servers hear the same decision).
    pub trace: Option<Arc<TraceContext>>,
}

/// Runs the real tools behind the catalog. Called only after the policy check.
pub trait Dispatcher: Send + Sync + 'static {
    /// Runs `tool` with `args`. Stop work when `cx.cancel` fires; the future may also
    /// be dropped at that point.
    ///
    /// Call the tool's server by [`Tool::upstream_name`] (and route by
    /// [`Tool::upstream_server`]): the names models see are sanitised, these are the
    /// originals. `args` already carry the schema keys as the server spells them.
    fn dispatch(&self, tool: &Tool, args: Value, cx: CallContext) -> DispatchFuture;
}

/// Answers every call with `{"tool": id, "arguments": args}`: for demos, the CLI's
/// `exec` and tests.
#[derive(Debug, Clone, Copy, Default)]
pub struct EchoDispatcher;

impl Dispatcher for EchoDispatcher {
    fn dispatch(&self, tool: &Tool, args: Value, _cx: CallContext) -> DispatchFuture {
        let out = json!({"tool": tool.id, "arguments": args});
        Box::pin(async move { Ok(out) })
    }
}

/// A [`Dispatcher`] made from an async closure; see [`dispatcher_fn`].
pub struct FnDispatcher<F>(F);

/// Adapts `|tool, args, cx| async move { ... }` into a [`Dispatcher`].
pub fn dispatcher_fn<F, Fut>(f: F) -> FnDispatcher<F>
where
    F: Fn(Tool, Value, CallContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, DispatchError>> + Send + 'static,
{
    FnDispatcher(f)
}

impl<F, Fut> Dispatcher for FnDispatcher<F>
where
    F: Fn(Tool, Value, CallContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, DispatchError>> + Send + 'static,
{
    fn dispatch(&self, tool: &Tool, args: Value, cx: CallContext) -> DispatchFuture {
        Box::pin((self.0)(tool.clone(), args, cx))
    }
}

/// `{"tool": id, "arguments": args}` — handy for checking what reached a dispatcher.
pub fn echo_value(id: &str, args: &Value) -> Value {
    json!({"tool": id, "arguments": args})
}
