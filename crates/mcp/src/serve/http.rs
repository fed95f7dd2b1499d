//! The gateway's front door over streamable HTTP: TLS, bearer auth, `Host` and
//! `Origin` checks, a rate limit per session, address and token, and the
//! bounds on sessions (how many, how long idle).

use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;
use toolsearch_catalog::lru::Lru;

use super::{stop as stop_gateway, stop_on_signal};
use crate::config::Config;
use crate::gateway::Gateway;

/// Requests per minute per session, per client address and per token, counted
/// in fixed windows; at most [`RATE_KEYS`] keys are kept (least recently used
/// forgotten, which only ever forgives).
struct RateLimit {
    per_minute: u64,
    /// The windows, and when ended ones were last dropped: one lock.
    state: Mutex<(Windows, Instant)>,
}

/// Each key's window: when it started and the requests in it.
type Windows = Lru<String, (Instant, u64)>;

/// Most keys the rate limiter keeps.
const RATE_KEYS: usize = 20_000;

/// A rate window's length.
const WINDOW: Duration = Duration::from_secs(60);

impl RateLimit {
    fn new(per_minute: u64) -> RateLimit {
        RateLimit {
            per_minute,
            state: Mutex::new((Lru::new(RATE_KEYS), Instant::now())),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, (Windows, Instant)> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Forgets `key` (a session that ended).
    fn forget(&self, key: &str) {
        self.state().0.remove(key);
    }

    /// True when `key` may make one more request now. Once a window, windows
    /// that ended are dropped (they hold nothing a new window would not).
    fn admit(&self, key: &str) -> bool {
        let now = Instant::now();
        let mut state = self.state();
        let (windows, swept) = &mut *state;
        if now.duration_since(*swept) >= WINDOW {
            *swept = now;
            windows.retain(|_, (start, _)| now.duration_since(*start) < WINDOW);
        }
        let entry = windows.get_or_insert_with(key.to_string(), || (now, 0));
        if now.duration_since(entry.0) >= WINDOW {
            *entry = (now, 0);
        }
        entry.1 += 1;
        entry.1 <= self.per_minute
    }
}

type Body = http_body_util::combinators::BoxBody<Bytes, std::convert::Infallible>;

fn refuse(status: u16, message: &str) -> http::Response<Body> {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": -32000, "message": message}
    })
    .to_string();
    let mut r = http::Response::new(Full::new(Bytes::from(body)).boxed());
    *r.status_mut() = http::StatusCode::from_u16(status).unwrap_or(http::StatusCode::BAD_REQUEST);
    r.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    if status == 401 {
        r.headers_mut().insert(
            http::header::WWW_AUTHENTICATE,
            http::HeaderValue::from_static("Bearer"),
        );
    }
    r
}

/// Constant-time comparison of two byte strings.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Serves HTTP/1 (with upgrades) on one connection, plain or TLS, until it closes.
async fn serve_connection<S, H>(stream: S, handler: H)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    H: hyper::service::HttpService<hyper::body::Incoming> + Send,
    H::Future: Send + 'static,
    H::ResBody: Send + 'static,
    <H::ResBody as hyper::body::Body>::Data: Send,
    <H::ResBody as hyper::body::Body>::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let io = hyper_util::rt::TokioIo::new(stream);
    let _ = hyper::server::conn::http1::Builder::new()
        .serve_connection(io, handler)
        .with_upgrades()
        .await;
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
    let hcfg = StreamableHttpServerConfig::default()
        .with_cancellation_token(ct.child_token())
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .enforce_origin_validation();
    let factory_gw = gw.clone();
    // Sessions idle past the TTL are closed by rmcp (their handlers dropped,
    // their calls cancelled); at most `max_sessions` are open (see below).
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(cfg.http.session_idle_ttl());
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
    loop {
        let (stream, peer) = tokio::select! {
            r = listener.accept() => match r {
                Ok(x) => x,
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    continue;
                }
            },
            () = stop.cancelled() => break,
        };
        let (service, limit, token, manager) = (
            service.clone(),
            limit.clone(),
            token.clone(),
            manager.clone(),
        );
        let handler = hyper::service::service_fn(
            move |req: http::Request<hyper::body::Incoming>| {
                let (mut service, limit, token, manager) = (
                    service.clone(),
                    limit.clone(),
                    token.clone(),
                    manager.clone(),
                );
                async move {
                    if let Some(t) = &token {
                        let sent = req
                            .headers()
                            .get(http::header::AUTHORIZATION)
                            .and_then(|v| v.to_str().ok())
                            .and_then(|v| v.strip_prefix("Bearer "));
                        if !sent.is_some_and(|s| same(s.as_bytes(), t.as_bytes())) {
                            return Ok::<_, std::convert::Infallible>(refuse(
                                401,
                                "missing or wrong bearer token",
                            ));
                        }
                    }
                    // A session id counts as a key only when it names an open
                    // session: invented ones are the client address's (rmcp
                    // answers them 404), so they cannot grow the limiter.
                    let claimed = req
                        .headers()
                        .get("mcp-session-id")
                        .and_then(|v| v.to_str().ok());
                    let session = match claimed {
                        Some(id) if manager.sessions.read().await.contains_key(id) => {
                            Some(format!("session:{id}"))
                        }
                        _ => None,
                    };
                    if claimed.is_none()
                        && req.method() == http::Method::POST
                        && manager.sessions.read().await.len() >= max_sessions
                    {
                        tracing::warn!(
                            max_sessions,
                            "refused a new session: the gateway holds its most"
                        );
                        return Ok(refuse(
                            503,
                            &format!("the gateway holds its most sessions ({max_sessions}); close one or try again later"),
                        ));
                    }
                    let who = match (&token, session) {
                        (_, Some(s)) => s,
                        (Some(_), None) => "token".to_string(),
                        (None, None) => format!("peer:{}", peer.ip()),
                    };
                    if !limit.admit(&who) || (token.is_some() && !limit.admit("token:all")) {
                        return Ok(refuse(429, "rate limit reached; slow down"));
                    }
                    let ending =
                        req.method() == http::Method::DELETE && who.starts_with("session:");
                    use tower_service::Service;
                    let answer = service.call(req).await;
                    if ending {
                        // The session's own bucket goes with it.
                        limit.forget(&who);
                    }
                    answer
                }
            },
        );
        let tls = tls.clone();
        tokio::spawn(async move {
            let Some(tls) = tls else {
                return serve_connection(stream, handler).await;
            };
            match tokio::time::timeout(Duration::from_secs(10), tls.accept(stream)).await {
                Ok(Ok(stream)) => serve_connection(stream, handler).await,
                Ok(Err(e)) => tracing::debug!(%peer, error = %e, "TLS handshake failed"),
                Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
            }
        });
    }
    stop_gateway(&gw, || ct.cancel()).await;
    Ok(())
}
