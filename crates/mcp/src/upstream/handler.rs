//! The client side of one server connection: what the server sends (progress,
//! logs, sampling and elicitation requests, `tools/list_changed`) goes to the
//! call it belongs to (see `calls.rs`), or nowhere.
// MCP logging is deprecated by SEP-2577, but the servers in front of which the
// gateway stands still send it, and clients still read it: it is forwarded.
#![allow(deprecated)]

use std::sync::{Arc, Weak};

use rmcp::model::{
    ClientConfig, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, LoggingMessageNotificationParam, ProgressNotificationParam,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData as McpError};
use serde_json::Value;

use super::calls::{Calls, Relation, RECEIVED};
use crate::text::{clean_for_log, MAX_LOG_LINE};

pub(crate) fn client_info() -> ClientConfig {
    let mut info = ClientConfig::default();
    // The newest released revision that servers in the field speak; rmcp would
    // offer its newest draft, which many servers (and the conformance suite) refuse.
    info.protocol_version = rmcp::model::ProtocolVersion::V_2025_11_25;
    info.client_info.name = "toolsearch".into();
    info.client_info.version = env!("CARGO_PKG_VERSION").into();
    // Requests a server makes during a call go to the client that made it (see
    // `Handler::ask_caller`); one whose client cannot answer gets an error.
    if let Ok(caps) = serde_json::from_value(serde_json::json!({
        "sampling": {},
        "elicitation": {"form": {}}
    })) {
        info.capabilities = caps;
    }
    info
}

/// How a connection to a server of MCP 2026-07-28 starts: `server/discover`
/// (no handshake: each request carries its own envelope); a server that
/// answers it with an error or anything but a discover result (rmcp patch
/// 0007), or not at all in 10 s, is spoken to with `initialize` at
/// [`client_info`]'s revision.
pub(crate) fn modern_lifecycle() -> rmcp::ClientLifecycleMode {
    rmcp::ClientLifecycleMode::Auto {
        preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
        legacy_version: Some(rmcp::model::ProtocolVersion::V_2025_11_25),
    }
}

/// Whether a start failed because the server refuses the handshake era
/// (`initialize` answered with UNSUPPORTED_PROTOCOL_VERSION: a server of
/// 2026-07-28 only).
pub(crate) fn refuses_handshake(e: &anyhow::Error) -> bool {
    matches!(
        e.downcast_ref::<rmcp::service::ClientInitializeError>(),
        Some(rmcp::service::ClientInitializeError::JsonRpcError(err))
            if err.code == rmcp::model::ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
    )
}

/// The client side of one connection: what the server sends, routed to the
/// call it belongs to (see `route`).
pub(crate) struct Handler {
    /// The server's configured name (for logs).
    pub(crate) server: String,
    /// Its calls in flight (owned by its `Upstream`: gone when it is).
    pub(crate) calls: Weak<Calls>,
    /// The transport marks the request each message relates to (HTTP).
    pub(crate) marked: bool,
    pub(crate) relist: Arc<tokio::sync::Notify>,
    /// Counts each `tools/list_changed` (see `State::relists_done`).
    pub(crate) heard: Arc<std::sync::atomic::AtomicU64>,
    pub(crate) info: ClientConfig,
}

impl Handler {
    /// Forwards a request the server makes during a call to the client that made
    /// that call; a request that names no call in flight is refused, never
    /// guessed: a sampling prompt carries data another client must not see.
    async fn ask_caller(
        &self,
        method: &str,
        params: Value,
        rel: Relation,
    ) -> Result<Value, McpError> {
        let refuse = |why: String| McpError::new(rmcp::model::ErrorCode(-32600), why, None);
        let Some(calls) = self.calls.upgrade() else {
            return Err(refuse("the gateway is shutting down".into()));
        };
        let Some(to) = calls.route(&rel).await else {
            tracing::warn!(
                server = %self.server,
                method,
                "refused a server request that belongs to no call in flight"
            );
            return Err(refuse(format!(
                "`{method}` is answered only during the call it belongs to: send it on that \
                 call's response stream (streamable HTTP) or with the call's progress token \
                 in `_meta`"
            )));
        };
        tracing::info!(
            server = %self.server,
            method,
            "forwarding a server request to the client"
        );
        to.0.ask(method, params)
            .await
            .map_err(|e| McpError::new(rmcp::model::ErrorCode(e.code), e.message, None))
    }

    /// [`Handler::ask_caller`] with typed params and answer.
    async fn relay<R: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: impl serde::Serialize,
        cx: &RequestContext<RoleClient>,
    ) -> Result<R, McpError> {
        let params = serde_json::to_value(params)
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        let mut rel = Relation::of_meta(&cx.meta, self.marked);
        if rel.request.is_none() {
            // rmcp's own record of the response stream a request came on.
            if let Some(rmcp::service::InboundStreamOrigin::OutboundRequest(id)) =
                cx.extensions.get::<rmcp::service::InboundStreamOrigin>()
            {
                rel.request = Some(super::calls::id_key(id));
            }
        }
        let v = self.ask_caller(method, params, rel).await?;
        serde_json::from_value(v).map_err(|e| {
            McpError::internal_error(
                format!("the client's answer to `{method}` is not valid: {e}"),
                None,
            )
        })
    }
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    async fn on_tool_list_changed(&self, _cx: NotificationContext<RoleClient>) {
        // One permit however many come: a storm makes one more listing.
        self.heard.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.relist.notify_one();
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        cx: NotificationContext<RoleClient>,
    ) {
        let Some(calls) = self.calls.upgrade() else {
            return;
        };
        // Only the call whose token it carries: never the one-client fallback.
        let rel = Relation::of_token(&params.progress_token);
        let Some(to) = calls.route_named(&rel).await else {
            return;
        };
        let received = cx
            .extensions
            .get::<rmcp::model::NotificationMetaObject>()
            .map(|m| &m.0)
            .or(Some(&cx.meta.0))
            .and_then(|m| m.get(RECEIVED))
            .and_then(Value::as_u64);
        let token = rel.token.unwrap_or_default();
        calls.relay_progress(&token, received, || {
            to.0.progress(params.progress, params.total, params.message);
        });
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        cx: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, McpError> {
        self.relay("sampling/createMessage", params, &cx).await
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        cx: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        self.relay("elicitation/create", params, &cx).await
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        cx: NotificationContext<RoleClient>,
    ) {
        let Some(calls) = self.calls.upgrade() else {
            return;
        };
        let level = serde_json::to_value(params.level)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| "info".into());
        // The gateway's log always; the client of the call it belongs to, if any.
        let text = clean_for_log(&params.data.to_string(), MAX_LOG_LINE);
        tracing::info!(target: "toolsearch::server", server = %self.server, level = %level, "{text}");
        // rmcp 3.11 moves a notification's extensions into the context before
        // its `_meta` (which lives among them), so `cx.meta` comes out empty:
        // the `_meta` is read where it went.
        let rel = match cx.extensions.get::<rmcp::model::NotificationMetaObject>() {
            Some(meta) => Relation::of_meta(&meta.0, self.marked),
            None => Relation::of_meta(&cx.meta.0, self.marked),
        };
        if let Some(to) = calls.route(&rel).await {
            to.0.log(&level, params.logger.as_deref(), params.data);
        }
    }
}
