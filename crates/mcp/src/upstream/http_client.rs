//! Streamable HTTP sources: rustls with the `ring` provider (no C build), the
//! config's headers and a bearer token read from an environment variable.

use std::collections::HashMap;
use std::sync::Arc;

use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpClientTransportConfig, StreamableHttpError,
    StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::Value;

use super::calls::RELATED;
use super::pipe::{MAX_LINE, MAX_RESULT_BYTES};
use crate::config::ServerConfig;

/// Installs `ring` as the process's TLS provider (once; later calls do nothing).
pub fn install_tls_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The transport for an HTTP server.
///
/// # Errors
/// A header that is not valid HTTP, a token variable that is not set, or a
/// `ca_file` that cannot be read or holds no PEM certificate.
pub(crate) fn transport(
    cfg: &ServerConfig,
    url: &str,
) -> anyhow::Result<StreamableHttpClientTransport<Marking>> {
    let (client, config) = parts(cfg, url)?;
    Ok(StreamableHttpClientTransport::with_client(client, config))
}

/// Serves `handler` over HTTP to `cfg`'s server: with its login when it has
/// `oauth` (see `login.rs`; a change of login ends the connection,
/// with the reason in `note`), else with its static headers and token.
pub(crate) async fn serve(
    handler: super::handler::Handler,
    cfg: &ServerConfig,
    url: &str,
    lifecycle: rmcp::ClientLifecycleMode,
    note: &Arc<std::sync::Mutex<Option<String>>>,
) -> anyhow::Result<rmcp::service::RunningService<rmcp::RoleClient, super::handler::Handler>> {
    use rmcp::ClientServiceExt as _;
    if cfg.oauth.is_none() {
        return Ok(handler
            .serve_with_lifecycle(transport(cfg, url)?, lifecycle)
            .await?);
    }
    let (client, config) = parts(cfg, url)?;
    let (gate, login) = super::login::Gate::open(cfg, client, note.clone()).await?;
    let transport = StreamableHttpClientTransport::with_client(gate, config);
    let running = match handler.serve_with_lifecycle(transport, lifecycle).await {
        Ok(r) => r,
        // The login's own reason, not the transport's wording around it.
        Err(e) => match note.lock().unwrap_or_else(|p| p.into_inner()).take() {
            Some(why) => anyhow::bail!("{why}"),
            None => return Err(e.into()),
        },
    };
    login.started();
    note.lock().unwrap_or_else(|p| p.into_inner()).take();
    tokio::spawn(login.watch(running.cancellation_token(), note.clone()));
    Ok(running)
}

/// The client and the transport's settings for `cfg`'s server.
fn parts(
    cfg: &ServerConfig,
    url: &str,
) -> anyhow::Result<(Marking, StreamableHttpClientTransportConfig)> {
    install_tls_provider();
    let mut headers = HashMap::new();
    for (k, v) in &cfg.headers {
        let name = http::HeaderName::try_from(k.as_str())
            .map_err(|_| anyhow::anyhow!("header name `{}` is not valid HTTP", k.escape_debug()))?;
        let value = http::HeaderValue::try_from(v.as_str())
            .map_err(|_| anyhow::anyhow!("the value of header `{k}` is not valid HTTP"))?;
        headers.insert(name, value);
    }
    let mut config =
        StreamableHttpClientTransportConfig::with_uri(url.to_string()).custom_headers(headers);
    if let Some(var) = &cfg.bearer_token_env {
        let token = std::env::var(var)
            .map_err(|_| anyhow::anyhow!("the bearer token variable `{var}` is not set"))?;
        config = config.auth_header(token);
    }
    // Idle connections to a server close after 20 s: a burst leaves no
    // descriptors behind for long (reqwest's default keeps them 90 s).
    let mut builder = reqwest::Client::builder()
        .pool_idle_timeout(std::time::Duration::from_secs(20))
        .redirect(same_origin_redirects(cfg.name().to_string()));
    if let Some(path) = &cfg.ca_file {
        let pem = crate::trust::read_trusted(path, 16 << 20, crate::trust::Trust::Shared)
            .map_err(|e| anyhow::anyhow!("cannot read ca_file {}: {e}", path.display()))?;
        let roots = reqwest::Certificate::from_pem_bundle(&pem)
            .map_err(|e| anyhow::anyhow!("ca_file {} is not PEM: {e}", path.display()))?;
        if roots.is_empty() {
            anyhow::bail!("ca_file {} holds no certificate", path.display());
        }
        builder = builder.tls_certs_merge(roots);
    }
    let client = builder
        .build()
        .map_err(|e| anyhow::anyhow!("cannot build the HTTP client: {e}"))?;
    Ok((
        Marking(client, Arc::from(cfg.name()), Arc::default()),
        config,
    ))
}

/// Redirects are followed only within the configured server's origin (scheme,
/// host and port), at most 5: the configured headers and token are the
/// server's, and never go to another origin. A redirect elsewhere fails the
/// request (the reason is logged: the error that reaches the status only says
/// that a redirect failed).
fn same_origin_redirects(server: String) -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(move |attempt| {
        let first = attempt.previous().first().map(|u| u.origin());
        if attempt.previous().len() > 5 {
            return attempt.error("more than 5 redirects");
        }
        if first.as_ref() == Some(&attempt.url().origin()) {
            return attempt.follow();
        }
        let to = attempt.url().origin().ascii_serialization();
        tracing::warn!(server, to = %crate::text::clean_for_log(&to, 200), "refused a redirect to another origin");
        attempt.error(format!(
            "the server redirected to another origin ({to}); only redirects within the configured server's origin are followed, so that its headers and token go nowhere else"
        ))
    })
}

/// The reqwest client, marking every request or notification a server sends
/// on the response stream of a request with that request's id (`_meta`, under
/// [`RELATED`]), and removing that key from everything else it sends: what
/// arrives on a request's own stream belongs to the call that sent it (see
/// `route`). The streams' size limits are the wrapped client's.
#[derive(Clone, Default)]
pub(crate) struct Marking(
    pub reqwest::Client,
    pub Arc<str>,
    /// The order progress notifications were received in, over all of the
    /// connection's streams (see `calls::RECEIVED`).
    pub Arc<std::sync::atomic::AtomicU64>,
);

type SseStream = futures::stream::BoxStream<'static, Result<sse_stream::Sse, SseError>>;

/// Sets (or, with `related` None, removes) the relation of one SSE event's
/// message. Events that are not a JSON-RPC request or notification pass as
/// they are.
fn mark(
    mut event: sse_stream::Sse,
    related: Option<&Value>,
    received: &std::sync::atomic::AtomicU64,
) -> sse_stream::Sse {
    // What rmcp's parser would drop without a word (nesting past its limit, a
    // lone surrogate) is made readable first (see `crate::frame`; a call's
    // result nested too deep was refused before this, in `marked`).
    if let Some(data) = event.data.take() {
        let (bounded, cut) =
            crate::frame::bound_nesting(data.into_bytes(), crate::frame::MAX_NESTING);
        if cut {
            tracing::warn!(
                "a message nested deeper than {} levels was read with its deepest parts emptied",
                crate::frame::MAX_NESTING
            );
        }
        let repaired = crate::frame::repair_surrogates(bounded);
        event.data = Some(
            String::from_utf8(repaired)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        );
    }
    let Some(data) = event.data.as_deref() else {
        return event;
    };
    // Cheap test first: only a message with a method carries `_meta` we touch.
    if !data.contains("\"method\"") {
        return event;
    }
    let Ok(Value::Object(mut msg)) = serde_json::from_str::<Value>(data) else {
        return event;
    };
    if !msg.contains_key("method") {
        return event;
    }
    let seq = received.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
    super::calls::stamp_progress(&mut msg, seq);
    let progress = msg.get("method").and_then(Value::as_str) == Some("notifications/progress");
    let params = msg
        .entry("params")
        .or_insert_with(|| Value::Object(Default::default()));
    let Value::Object(params) = params else {
        return event;
    };
    let had = params
        .get("_meta")
        .and_then(Value::as_object)
        .is_some_and(|m| m.contains_key(RELATED));
    if related.is_none() && !had {
        if progress {
            event.data = Some(Value::Object(msg).to_string());
        }
        return event;
    }
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Default::default()));
    if let Value::Object(meta) = meta {
        meta.remove(RELATED);
        if let Some(id) = related {
            meta.insert(RELATED.to_string(), id.clone());
        }
    }
    event.data = Some(Value::Object(msg).to_string());
    event
}

/// Cancels one call on its server.
type Cancel = Box<dyn FnMut() + Send>;

/// Marks each event of a request's stream (see [`mark`]). On the stream of a
/// `tools/call` (`oversize` set), an event over [`MAX_RESULT_BYTES`] becomes
/// the call's error answer at once, and `oversize` runs (it cancels the call on
/// the server).
fn marked(
    stream: SseStream,
    related: Option<Value>,
    mut oversize: Option<(Arc<str>, Cancel)>,
    received: Arc<std::sync::atomic::AtomicU64>,
) -> SseStream {
    use futures::StreamExt;
    stream
        .map(move |e| {
            e.map(|mut e| {
                let len = e.data.as_ref().map_or(0, String::len);
                if let (Some(id), Some((server, cancel))) = (&related, oversize.as_mut()) {
                    let deep = e.data.as_ref().is_some_and(|d| {
                        crate::frame::too_deep(d.as_bytes(), crate::frame::MAX_NESTING)
                    });
                    if deep {
                        tracing::warn!(%server, "a tool result nested deeper than {} levels was refused", crate::frame::MAX_NESTING);
                        let mut answer = too_big(server, id, len);
                        answer["error"]["message"] = Value::String(format!(
                            "the result from server `{server}` is nested deeper than {} levels",
                            crate::frame::MAX_NESTING
                        ));
                        e.data = Some(answer.to_string());
                        return e;
                    }
                    if len > MAX_RESULT_BYTES {
                        tracing::warn!(%server, bytes = len, limit = MAX_RESULT_BYTES, "a tool result over the size limit was refused");
                        cancel();
                        e.data = Some(too_big(server, id, len).to_string());
                        return e;
                    }
                }
                mark(e, related.as_ref(), &received)
            })
        })
        .boxed()
}

/// The error answer to call `id` whose result from `server` was `len` bytes.
fn too_big(server: &str, id: &Value, len: usize) -> Value {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": -32603,
            "message": format!("the result from server `{server}` ({len} bytes) is over the gateway's {MAX_RESULT_BYTES}-byte limit")
        }
    })
}

impl StreamableHttpClient for Marking {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            StreamableHttpResponseLimits::default(),
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let mut limits = StreamableHttpResponseLimits::default();
        limits.max_sse_event_size = max_sse_event_size;
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let related = match &message {
            rmcp::model::JsonRpcMessage::Request(r) => serde_json::to_value(&r.id).ok(),
            _ => None,
        };
        let is_call = matches!(&message, rmcp::model::JsonRpcMessage::Request(r)
            if matches!(r.request, rmcp::model::ClientRequest::CallToolRequest(_)));
        // A call's trace context (see `crate::telemetry`) as W3C headers too.
        let mut custom_headers = custom_headers;
        if let rmcp::model::JsonRpcMessage::Request(r) = &message {
            if let rmcp::model::ClientRequest::CallToolRequest(call) = &r.request {
                if let Some(meta) = &call.params.meta {
                    custom_headers.extend(crate::telemetry::header_of(meta));
                }
            }
        }
        // Pages of a listing may be as large as a whole listing; a call's result
        // is held to MAX_RESULT_BYTES here, with an answer rather than a closed
        // transport.
        let mut limits = limits;
        limits.max_sse_event_size = limits.max_sse_event_size.max(MAX_LINE);
        limits.max_json_response_size = limits.max_json_response_size.max(MAX_LINE);
        let cancel_with = (
            self.0.clone(),
            uri.clone(),
            session_id.clone(),
            auth_header.clone(),
            custom_headers.clone(),
        );
        let answer = self
            .0
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                limits,
            )
            .await?;
        let cancel = move |id: Value| {
            let (client, uri, session, auth, headers) = cancel_with.clone();
            Box::new(move || {
                let (client, uri, session, auth, headers, id) = (
                    client.clone(),
                    uri.clone(),
                    session.clone(),
                    auth.clone(),
                    headers.clone(),
                    id.clone(),
                );
                tokio::spawn(async move {
                    let note: Option<ClientJsonRpcMessage> = serde_json::from_value(serde_json::json!({
                        "jsonrpc": "2.0",
                        "method": "notifications/cancelled",
                        "params": {"requestId": id, "reason": "the result is over the gateway's size limit"}
                    }))
                    .ok();
                    if let Some(note) = note {
                        let _ = client.post_message(uri, note, session, auth, headers).await;
                    }
                });
            }) as Cancel
        };
        Ok(match answer {
            StreamableHttpPostResponse::Sse(stream, session) => {
                let oversize = is_call
                    .then(|| related.clone().map(|id| (self.1.clone(), cancel(id))))
                    .flatten();
                StreamableHttpPostResponse::Sse(
                    marked(stream, related, oversize, self.2.clone()),
                    session,
                )
            }
            StreamableHttpPostResponse::Json(msg, session) if is_call => {
                let len = serde_json::to_vec(&msg).map_or(0, |v| v.len());
                match &related {
                    Some(id) if len > MAX_RESULT_BYTES => {
                        tracing::warn!(server = %self.1, bytes = len, limit = MAX_RESULT_BYTES, "a tool result over the size limit was refused");
                        cancel(id.clone())();
                        match serde_json::from_value(too_big(&self.1, id, len)) {
                            Ok(err) => StreamableHttpPostResponse::Json(err, session),
                            Err(_) => StreamableHttpPostResponse::Json(msg, session),
                        }
                    }
                    _ => StreamableHttpPostResponse::Json(msg, session),
                }
            }
            other => other,
        })
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        self.0
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<SseStream, StreamableHttpError<Self::Error>> {
        let s = self
            .0
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await?;
        Ok(marked(s, None, None, self.2.clone()))
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<SseStream, StreamableHttpError<Self::Error>> {
        let s = self
            .0
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await?;
        Ok(marked(s, None, None, self.2.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(data: &str) -> sse_stream::Sse {
        sse_stream::Sse {
            event: None,
            data: Some(data.to_string()),
            id: None,
            retry: None,
        }
    }

    fn meta_of(e: &sse_stream::Sse) -> Value {
        let v: Value = serde_json::from_str(e.data.as_deref().unwrap()).unwrap();
        v["params"]["_meta"].clone()
    }

    #[test]
    fn messages_on_a_request_stream_name_it_and_nothing_else_does() {
        let log = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#;
        let id = serde_json::json!(7);
        let n = std::sync::atomic::AtomicU64::new(0);
        assert_eq!(meta_of(&mark(event(log), Some(&id), &n))[RELATED], 7);
        // A server's own claim is replaced on a request's stream, removed elsewhere.
        let forged = r#"{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"_meta":{"io.toolsearch/related-request":3,"progressToken":5}}}"#;
        assert_eq!(meta_of(&mark(event(forged), Some(&id), &n))[RELATED], 7);
        let stripped = mark(event(forged), None, &n);
        assert_eq!(meta_of(&stripped), serde_json::json!({"progressToken": 5}));
        // No params: they are made to carry the mark.
        let bare = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
        assert_eq!(meta_of(&mark(event(bare), Some(&id), &n))[RELATED], 7);
        // Responses, non-JSON and unmarked messages off a request stream pass untouched.
        let response = r#"{"jsonrpc":"2.0","id":7,"result":{"method":"x"}}"#;
        assert_eq!(mark(event(response), Some(&id), &n).data.unwrap(), response);
        assert_eq!(
            mark(event("not json \"method\""), Some(&id), &n)
                .data
                .unwrap(),
            "not json \"method\""
        );
        assert_eq!(mark(event(log), None, &n).data.unwrap(), log);
        // Progress is stamped with the order it came in, a server's own stamp replaced.
        let p = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"_meta":{"io.toolsearch/received":99}}}"#;
        let first = meta_of(&mark(event(p), None, &n))[super::super::calls::RECEIVED].clone();
        let second = meta_of(&mark(event(p), Some(&id), &n))[super::super::calls::RECEIVED].clone();
        assert!(
            first.as_u64().unwrap() < second.as_u64().unwrap(),
            "{first} {second}"
        );
        assert_ne!(first, 99);
    }
}
