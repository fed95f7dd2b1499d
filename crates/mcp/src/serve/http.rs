//! The gateway's front door over streamable HTTP, assembled from the steps of
//! a request: [`super::accept`] (connection cap, header timeout, accept
//! backoff) → [`super::origin`] (one allowed `Host`, target authority and
//! `Origin`; refused before anything is counted) → [`super::admit`] (bearer
//! token, session cap, rate limit) → [`super::protocol`] (path, body, JSON-RPC
//! checks, ids in flight) → rmcp's service (sessions and their idle TTL), over
//! plain TCP or TLS; and its stop (see [`super::stop`]).

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::accept::{connection_cap, serve_connection, Accepted, Acceptor};
use super::admit::{same, RateLimit};
use super::origin::Origins;
use super::protocol::{self, Body, Guarded, InFlight};
use super::{stop as stop_gateway, stop_on_signal};
use crate::config::Config;
use crate::gateway::Gateway;

/// The path served: any other is answered 404.
pub const ENDPOINT: &str = "/mcp";

fn refuse(status: u16, message: &str) -> http::Response<Body> {
    let mut r = protocol::error(status, &Value::Null, -32000, message);
    if status == 401 {
        r.headers_mut().insert(
            http::header::WWW_AUTHENTICATE,
            http::HeaderValue::from_static("Bearer"),
        );
    }
    r
}

/// A TLS acceptor from PEM files (`ring` provider, TLS 1.2 and 1.3).
fn tls_acceptor(cert: &Path, key: &Path) -> anyhow::Result<tokio_rustls::TlsAcceptor> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    crate::upstream::http_client::install_tls_provider();
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .and_then(Iterator::collect)
        .map_err(|e| anyhow::anyhow!("[http] tls_cert {}: {e}", cert.display()))?;
    if chain.is_empty() {
        anyhow::bail!("[http] tls_cert {} holds no certificate", cert.display());
    }
    let key = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| anyhow::anyhow!("[http] tls_key {}: {e}", key.display()))?;
    let config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| {
            anyhow::anyhow!("[http] tls_cert and tls_key do not make a TLS identity: {e}")
        })?;
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}

/// Serves streamable HTTP (HTTPS with `[http] tls_cert`) on `addr` until a signal comes (or `stop` fires), then
/// stops the servers. Loopback only unless `[http] bearer_token_env` is set;
/// `Host` and `Origin` are checked (DNS rebinding), requests are rate-limited per
/// session and per token. `on_bound` hears the URL actually served (`http(s)://ADDR/mcp`, port 0 resolved).
///
/// # Errors
/// A non-loopback address without auth, a token variable that is not set, or an
/// address that cannot be bound.
pub async fn http(
    gw: Arc<Gateway>,
    cfg: &Config,
    addr: SocketAddr,
    stop: CancellationToken,
    on_bound: impl FnOnce(&str),
) -> anyhow::Result<()> {
    let token = match &cfg.http.bearer_token_env {
        Some(var) => Some(std::env::var(var).map_err(|_| {
            anyhow::anyhow!("[http] bearer_token_env names `{var}`, which is not set")
        })?),
        None => None,
    };
    if token.as_deref().is_some_and(str::is_empty) {
        anyhow::bail!("the bearer token variable is empty");
    }
    if !addr.ip().is_loopback() && token.is_none() {
        anyhow::bail!(
            "refusing to serve {addr}: a non-loopback address needs auth (set [http] bearer_token_env)"
        );
    }
    let tls = match (&cfg.http.tls_cert, &cfg.http.tls_key) {
        (Some(cert), Some(key)) => Some(tls_acceptor(cert, key)?),
        _ => None,
    };
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot bind {addr}: {e}"))?;
    let bound = listener.local_addr()?;
    let url = format!(
        "{}://{bound}/mcp",
        if tls.is_some() { "https" } else { "http" }
    );
    on_bound(&url);
    let ct = CancellationToken::new();
    let mut hosts = vec![
        "localhost".to_string(),
        "127.0.0.1".to_string(),
        "::1".to_string(),
        "[::1]".to_string(),
    ];
    hosts.extend(cfg.http.allowed_hosts.iter().cloned());
    // Pages served from this machine may call it; any other Origin (the DNS
    // rebinding case: an attacker's page resolving to 127.0.0.1) is refused.
    let mut origins: Vec<String> = ["http", "https"]
        .iter()
        .flat_map(|s| {
            ["localhost", "127.0.0.1", "[::1]"]
                .iter()
                .map(move |h| format!("{s}://{h}:*"))
        })
        .collect();
    origins.extend(cfg.http.allowed_origins.iter().cloned());
    let from = Origins::new(&hosts, &origins);
    let hcfg = StreamableHttpServerConfig::default()
        .with_cancellation_token(ct.child_token())
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .with_max_request_body_bytes(protocol::MAX_BODY)
        .enforce_origin_validation();
    let factory_gw = gw.clone();
    // Sessions idle past the TTL are closed by rmcp (their handlers dropped,
    // their calls cancelled); at most `max_sessions` are open (see below).
    let mut manager = LocalSessionManager::default();
    let sc = &mut manager.session_config;
    // Idle means no request being answered (a call in flight is activity).
    sc.keep_alive = Some(cfg.http.session_idle_ttl());
    // Every send to a client is bounded in queue and time: one that does not
    // read loses its stream, never anyone else's progress (rmcp patch 0001).
    sc.channel_capacity = cfg.http.send_queue();
    sc.send_timeout = Some(cfg.http.send_timeout());
    // A call's events are kept for a resume with Last-Event-ID (patch 0003).
    sc.completed_cache_ttl = cfg.http.replay_window();
    sc.replay_bytes = cfg.http.replay_bytes();
    let manager = Arc::new(manager);
    let service =
        StreamableHttpService::new(move || Ok(factory_gw.session()), manager.clone(), hcfg);
    let max_sessions = cfg.http.max_sessions();
    let limit = Arc::new(RateLimit::new(
        cfg.http
            .rate_limit_per_minute
            .as_ref()
            .map_or(600, |s| *s.get_ref()),
    ));
    let token: Option<Arc<str>> = token.map(Arc::from);
    tracing::info!(
        %url,
        auth = token.is_some(),
        "serving MCP over streamable HTTP"
    );
    let stop = stop_on_signal(&stop);
    let front = Arc::new(Front {
        service,
        limit,
        token,
        manager,
        max_sessions,
        ids: InFlight::default(),
        from,
        body_timeout: cfg.http.body_timeout(),
    });
    let header_timeout = cfg.http.header_timeout();
    let cap = connection_cap(cfg.http.max_connections());
    tracing::info!(max_connections = cap, "connections capped");
    let mut acceptor = Acceptor::new(listener, cap);
    loop {
        let accepted = tokio::select! {
            a = acceptor.next() => a,
            () = stop.cancelled() => break,
        };
        let Accepted::Serve(stream, peer, permit) = accepted else {
            continue;
        };
        let front = front.clone();
        let handler = hyper::service::service_fn(move |req| {
            let front = front.clone();
            async move { Ok::<_, std::convert::Infallible>(front.answer(req, peer).await) }
        });
        let tls = tls.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let Some(tls) = tls else {
                return serve_connection(stream, handler, header_timeout).await;
            };
            match tokio::time::timeout(header_timeout, tls.accept(stream)).await {
                Ok(Ok(stream)) => serve_connection(stream, handler, header_timeout).await,
                Ok(Err(e)) => tracing::debug!(%peer, error = %e, "TLS handshake failed"),
                Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
            }
        });
    }
    stop_gateway(&gw, || ct.cancel()).await;
    Ok(())
}

/// Sessions whose worker still runs (one that ended is removed when next
/// named; until then it must not hold a place).
async fn live_sessions(manager: &LocalSessionManager) -> usize {
    let sessions = manager.sessions.read().await;
    sessions.values().filter(|h| !h.is_closed()).count()
}

/// What every request passes through: admission (token, session cap, rate),
/// the protocol checks, then rmcp's service.
struct Front {
    service: StreamableHttpService<crate::gateway::GatewaySession, LocalSessionManager>,
    limit: Arc<RateLimit>,
    token: Option<Arc<str>>,
    manager: Arc<LocalSessionManager>,
    max_sessions: usize,
    ids: InFlight,
    /// The hosts and origins served.
    from: Origins,
    body_timeout: Duration,
}

impl Front {
    async fn answer(
        &self,
        req: http::Request<hyper::body::Incoming>,
        peer: SocketAddr,
    ) -> http::Response<Body> {
        // Where it comes from, first: a refused request is counted against
        // no one (a page cannot spend the local client's rate budget).
        if let Err(r) = self.from.check(req.uri(), req.headers()) {
            tracing::debug!(%peer, status = r.status, why = %r.message, "refused a request");
            return refuse(r.status, &r.message);
        }
        if let Some(t) = &self.token {
            let sent = req
                .headers()
                .get(http::header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "));
            if !sent.is_some_and(|s| same(s.as_bytes(), t.as_bytes())) {
                return refuse(401, "missing or wrong bearer token");
            }
        }
        if req.uri().path() != ENDPOINT {
            let message = format!("no such endpoint: MCP is served on {ENDPOINT}");
            return protocol::error(404, &Value::Null, -32601, &message);
        }
        // A session id counts as a key only when it names an open session:
        // invented ones are the client address's, so they cannot grow the
        // limiter, and are answered 404.
        let claimed = req
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let open = match &claimed {
            Some(id) => {
                use rmcp::transport::streamable_http_server::session::SessionManager;
                let id: rmcp::transport::streamable_http_server::session::SessionId =
                    id.as_str().into();
                // A session whose worker ended (idle TTL) is gone at once.
                self.manager.has_session(&id).await.unwrap_or(false)
            }
            None => false,
        };
        let stateless = req
            .headers()
            .get("mcp-protocol-version")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v >= "2026-07-28");
        if claimed.is_some() && !open && !stateless {
            return protocol::error(
                404,
                &Value::Null,
                -32001,
                "session not found: it ended or never existed; start a new one",
            );
        }
        if claimed.is_none()
            && req.method() == http::Method::POST
            && live_sessions(&self.manager).await >= self.max_sessions
        {
            let max = self.max_sessions;
            tracing::warn!(
                max_sessions = max,
                "refused a new session: the gateway holds its most"
            );
            return refuse(
                503,
                &format!(
                    "the gateway holds its most sessions ({max}); close one or try again later"
                ),
            );
        }
        let who = match (&self.token, open.then_some(claimed.as_deref()).flatten()) {
            (_, Some(s)) => format!("session:{s}"),
            (Some(_), None) => "token".to_string(),
            (None, None) => format!("peer:{}", peer.ip()),
        };
        if !self.limit.admit(&who) || (self.token.is_some() && !self.limit.admit("token:all")) {
            return refuse(429, "rate limit reached; slow down");
        }
        use tower_service::Service;
        let mut service = self.service.clone();
        let method = req.method().clone();
        if method != http::Method::POST {
            let (parts, _) = req.into_parts();
            let answer = service
                .call(http::Request::from_parts(parts, Full::new(Bytes::new())))
                .await
                .unwrap_or_else(|e| match e {});
            if method == http::Method::DELETE && open {
                // The session's own bucket goes with it.
                self.limit.forget(&who);
                if answer.status() == http::StatusCode::ACCEPTED {
                    let mut done = http::Response::new(Full::new(Bytes::new()).boxed());
                    *done.status_mut() = http::StatusCode::NO_CONTENT;
                    return done;
                }
            }
            return answer;
        }
        let session = open.then_some(claimed.as_deref()).flatten();
        let (req, held) =
            match protocol::check_post(req, session, &self.ids, self.body_timeout).await {
                Ok(x) => x,
                Err(answer) => return answer,
            };
        let answer = service.call(req).await.unwrap_or_else(|e| match e {});
        let (parts, body) = answer.into_parts();
        http::Response::from_parts(parts, Guarded::wrap(body, held))
    }
}
