//! The operator's surface, on `[admin] listen`, never the clients' address:
//! `/healthz` (alive; no token), `/readyz` (servers up, code mode available
//! where served: 200, or 503 naming what is not ready), `/metrics` (the
//! Prometheus text format), the operator page's shell (`shell.rs`; no token)
//! and its JSON API (`admin_api.rs`).
//! Every other path needs the admin token as a bearer header (constant-time
//! compare; it must differ from every client token; never a cookie, so no
//! other site can ride it); `Host` must be a loopback name or an allowed
//! one (DNS rebinding), and an `Origin` must be the surface's own: a page of
//! another site (`Origin`, or `Sec-Fetch-Site: cross-site`) gets nothing.
//! Every API request that passed the token check is written as an audit
//! line (`toolsearch::audit`: who, what, the outcome; the log line's time is
//! when).

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::accept::{Accepted, Acceptor};
use super::origin::{Origins, Refused};
use super::protocol::Body;
use crate::config::Config;
use crate::gateway::Gateway;

/// Connections the admin surface serves at once.
const MAX_CONNECTIONS: usize = 64;

/// Connections one peer address holds at once.
const PER_PEER: usize = 16;

/// A request's headers must arrive within this long (a probe or a scrape
/// sends them at once).
const HEADER_TIMEOUT: Duration = Duration::from_secs(2);

/// A request's body (`POST /api/try`) must arrive within this long.
const BODY_TIMEOUT: Duration = Duration::from_secs(5);

/// Bytes of a request body, at most: a snippet and its few fields.
const MAX_BODY: usize = crate::gateway::MAX_TRIAL_CODE + 4096;

/// The connections being served, oldest first. When the surface or a peer
/// holds its most, a new connection takes the place of the oldest that has
/// sent no request yet (of that peer, when it is the peer's cap): half-sent
/// requests can never keep a liveness probe out, from any address. Only when
/// every connection is answering a request is a new one refused (503).
#[derive(Default)]
struct Conns {
    list: std::sync::Mutex<std::collections::VecDeque<Conn>>,
    next: std::sync::atomic::AtomicU64,
}

struct Conn {
    id: u64,
    peer: std::net::IpAddr,
    /// Set when its request's headers are in.
    asked: Arc<std::sync::atomic::AtomicBool>,
    cut: CancellationToken,
}

/// A connection's place: its id, its asked flag and what cuts it.
type Place = (u64, Arc<std::sync::atomic::AtomicBool>, CancellationToken);

impl Conns {
    fn list(&self) -> std::sync::MutexGuard<'_, std::collections::VecDeque<Conn>> {
        self.list.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A place for a connection from `peer`, or `None` to refuse it.
    fn admit(&self, peer: std::net::IpAddr) -> Option<Place> {
        use std::sync::atomic::Ordering;
        let mut list = self.list();
        let from_peer = list.iter().filter(|c| c.peer == peer).count();
        if list.len() >= MAX_CONNECTIONS || from_peer >= PER_PEER {
            let mine = from_peer >= PER_PEER;
            let i = list
                .iter()
                .position(|c| !c.asked.load(Ordering::Acquire) && (!mine || c.peer == peer))?;
            if let Some(old) = list.remove(i) {
                old.cut.cancel();
            }
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let asked = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let cut = CancellationToken::new();
        list.push_back(Conn {
            id,
            peer,
            asked: asked.clone(),
            cut: cut.clone(),
        });
        Some((id, asked, cut))
    }

    fn done(&self, id: u64) {
        self.list().retain(|c| c.id != id);
    }
}

/// The admin surface, bound.
pub struct Admin {
    listener: tokio::net::TcpListener,
    gw: Arc<Gateway>,
    token: Arc<str>,
    from: Origins,
    url: String,
    page_calls: bool,
    reloader: Option<Arc<super::reload::Reloader>>,
    /// `[admin] tls_cert`: the surface speaks HTTPS.
    tls: Option<Arc<super::tls::Renewing>>,
}

fn answer(status: u16, content_type: &'static str, body: impl Into<Bytes>) -> http::Response<Body> {
    let mut r = http::Response::new(Full::new(body.into()).boxed());
    *r.status_mut() = http::StatusCode::from_u16(status).unwrap_or(http::StatusCode::OK);
    r.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static(content_type),
    );
    super::shell::guard(r.headers_mut(), false);
    r
}

fn json_answer(status: u16, v: &serde_json::Value) -> http::Response<Body> {
    answer(status, "application/json", v.to_string())
}

/// The admin token of `cfg` (`None` without `[admin]`), checked as at start
/// and at every reload alike: set, not empty, and no client's token in `gate`
/// (the credentials the configuration gives clients).
///
/// # Errors
/// The variable is not set or empty, or its token is also a client's.
pub fn check_token(
    cfg: &Config,
    gate: Option<&crate::auth::Gatekeeper>,
) -> anyhow::Result<Option<String>> {
    let Some(admin) = &cfg.admin else {
        return Ok(None);
    };
    let token = std::env::var(&admin.token_env).map_err(|_| {
        anyhow::anyhow!(
            "[admin] token_env names `{}`, which is not set",
            admin.token_env
        )
    })?;
    let token = token.trim().to_string();
    if token.is_empty() {
        anyhow::bail!("[admin] the token in `{}` is empty", admin.token_env);
    }
    if gate.is_some_and(|g| g.is_client_token(&token)) {
        anyhow::bail!(
            "[admin] the token in `{}` is also a client's token: give the admin surface its own",
            admin.token_env
        );
    }
    Ok(Some(token))
}

impl Admin {
    /// Binds `[admin] listen` of `cfg` (`None` without `[admin]`).
    ///
    /// # Errors
    /// The token variable is not set, is empty, or holds a client's token;
    /// the address cannot be bound.
    pub async fn bind(gw: Arc<Gateway>, cfg: &Config) -> anyhow::Result<Option<Admin>> {
        let Some(admin) = &cfg.admin else {
            return Ok(None);
        };
        // Client tokens that cannot be read (stdio does not need them) cannot
        // be compared; serving HTTP refuses them anyway.
        let gate = crate::auth::Gatekeeper::new(cfg).ok();
        let token = check_token(cfg, gate.as_ref())?.unwrap_or_default();
        let addr = admin.addr()?;
        let tls = match (&admin.tls_cert, &admin.tls_key) {
            (Some(cert), Some(key)) => {
                Some(Arc::new(super::tls::Renewing::load(cert, key, "[admin]")?))
            }
            _ => None,
        };
        if tls.is_none() && !addr.ip().is_loopback() {
            tracing::warn!(%addr, "the admin surface is served to the network without TLS: its token crosses it in clear, and the operator page is served only to this machine; set [admin] tls_cert and tls_key");
        }
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| anyhow::anyhow!("[admin] cannot bind {addr}: {e}"))?;
        let bound = listener.local_addr()?;
        let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1", "[::1]"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        hosts.extend(admin.allowed_hosts.iter().cloned());
        Ok(Some(Admin {
            listener,
            gw,
            token: Arc::from(token),
            // Hosts only: an `Origin` is let in when it is the request's own
            // (see `own_origin`).
            from: Origins::new(&hosts, &[]).in_section("[admin]"),
            url: format!("{}://{bound}", if tls.is_some() { "https" } else { "http" }),
            page_calls: admin.page_calls.unwrap_or(false),
            reloader: None,
            tls,
        }))
    }

    /// The page's reload view reads `reloader` (the configuration in force,
    /// the last reload, the file on disk).
    pub fn with_reloader(mut self, reloader: Arc<super::reload::Reloader>) -> Admin {
        self.reloader = Some(reloader);
        self
    }

    /// Where it is served (`http://ADDR`, or `https://` with TLS; port 0
    /// resolved).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Serves until `stop` fires.
    pub async fn run(self, stop: CancellationToken) {
        let this = Arc::new(Surface {
            api: super::admin_api::Api::new(self.gw, self.reloader, self.page_calls),
            token: self.token,
            from: self.from,
            tls: self.tls.is_some(),
            refusals: super::audit::Refusals::new(),
        });
        // The acceptor's own cap is only the last resort (descriptors): the
        // surface's places are handed out by `Conns`.
        let mut acceptor = Acceptor::new(self.listener, MAX_CONNECTIONS * 2);
        let conns = Arc::new(Conns::default());
        loop {
            let accepted = tokio::select! {
                a = acceptor.next() => a,
                () = stop.cancelled() => return,
            };
            let Accepted::Serve(stream, peer, permit) = accepted else {
                continue;
            };
            let Some((id, asked, cut)) = conns.admit(peer.ip()) else {
                // Every place is answering a request: refused (503), as at
                // the cap; over TLS a clear-text answer would be noise, so
                // the connection is closed.
                if self.tls.is_none() {
                    acceptor.refuse(stream);
                }
                continue;
            };
            let surface = this.clone();
            let handler = hyper::service::service_fn(move |req| {
                asked.store(true, std::sync::atomic::Ordering::Release);
                let surface = surface.clone();
                async move { Ok::<_, std::convert::Infallible>(surface.answer(req, peer).await) }
            });
            let (conns, stop, tls) = (conns.clone(), stop.clone(), self.tls.clone());
            tokio::spawn(async move {
                let _permit = permit;
                // One request a connection: a probe or a scrape opens its own.
                let http = hyper::server::conn::http1::Builder::new()
                    .timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(HEADER_TIMEOUT)
                    .keep_alive(false)
                    .clone();
                let conn = async move {
                    let Some(tls) = tls else {
                        let io = hyper_util::rt::TokioIo::new(stream);
                        return http.serve_connection(io, handler).await.ok();
                    };
                    // A handshake (and a renewed identity's reading) must end
                    // within the headers' time (until the headers are in, a
                    // newer connection may take the place).
                    let handshake = async move {
                        let identity = tokio::task::spawn_blocking(move || tls.current())
                            .await
                            .map_err(std::io::Error::other)?;
                        identity.accept(stream).await
                    };
                    match tokio::time::timeout(HEADER_TIMEOUT, handshake).await {
                        Ok(Ok(stream)) => {
                            let io = hyper_util::rt::TokioIo::new(stream);
                            http.serve_connection(io, handler).await.ok()
                        }
                        Ok(Err(e)) => {
                            tracing::debug!(%peer, error = %e, "admin TLS handshake failed");
                            None
                        }
                        Err(_) => {
                            tracing::debug!(%peer, "admin TLS handshake timed out");
                            None
                        }
                    }
                };
                tokio::select! {
                    _ = conn => {}
                    () = cut.cancelled() => {}
                    () = stop.cancelled() => {}
                }
                conns.done(id);
            });
        }
    }
}

struct Surface {
    api: super::admin_api::Api,
    token: Arc<str>,
    from: Origins,
    /// Served over HTTPS.
    tls: bool,
    /// Wrong or missing tokens, audited at a bounded rate.
    refusals: super::audit::Refusals,
}

/// Whether a browser says the request comes from another site's page
/// (`Sec-Fetch-Site`, which a page cannot set): `same-origin` and `none` (a
/// typed address, a bookmark) are the operator's own.
fn from_another_site(headers: &http::HeaderMap) -> bool {
    headers
        .get("sec-fetch-site")
        .is_some_and(|v| !matches!(v.as_bytes(), b"same-origin" | b"none"))
}

/// Whether the request's `Origin`, when it sends one, is the surface's own:
/// its scheme (`http://`, or `https://` with `tls`) and the request's own
/// `Host` (already checked against the allowed hosts), as a page this
/// surface served sends on its `POST`, and through an SSH tunnel too (the
/// browser's origin is the tunnel's, and so is its `Host`). `Err` says why
/// not.
fn own_origin(headers: &http::HeaderMap, tls: bool) -> Result<(), Refused> {
    let mut origins = headers.get_all(http::header::ORIGIN).iter();
    let Some(origin) = origins.next() else {
        return Ok(());
    };
    if origins.next().is_some() {
        return Err(Refused {
            status: 400,
            message: "two Origin fields".into(),
        });
    }
    let host = headers
        .get(http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    let own = origin
        .to_str()
        .ok()
        .and_then(|o| o.strip_prefix(if tls { "https://" } else { "http://" }))
        .is_some_and(|authority| !host.is_empty() && authority.eq_ignore_ascii_case(host));
    if own {
        Ok(())
    } else {
        Err(Refused {
            status: 403,
            message: "a request from another origin's page gets nothing here".into(),
        })
    }
}

/// Whether the request's `Host` is a DNS name of another machine: HSTS
/// binds every port of its host for a year, so it is not sent for
/// `localhost` (a tunnel's end, where other services speak clear text) nor
/// an IP literal (browsers ignore it there).
fn named_remote_host(headers: &http::HeaderMap) -> bool {
    let Some(host) = headers
        .get(http::header::HOST)
        .and_then(|h| h.to_str().ok())
    else {
        return false;
    };
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    };
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    !(name.is_empty()
        || name.starts_with('[')
        || name.parse::<std::net::IpAddr>().is_ok()
        || name == "localhost"
        || name.ends_with(".localhost"))
}

/// The 404 answer, naming the paths there are.
fn no_such_path() -> http::Response<Body> {
    json_answer(
        404,
        &json!({"error": format!(
            "no such path: /healthz, /readyz, /metrics, {}",
            super::admin_api::ROUTES
        )}),
    )
}

impl Surface {
    async fn answer(
        &self,
        req: http::Request<hyper::body::Incoming>,
        peer: std::net::SocketAddr,
    ) -> http::Response<Body> {
        let hsts = self.tls && named_remote_host(req.headers());
        let mut r = self.respond(req, peer).await;
        if hsts {
            // A browser that came once over HTTPS never comes in clear.
            r.headers_mut().insert(
                http::header::STRICT_TRANSPORT_SECURITY,
                http::HeaderValue::from_static("max-age=31536000"),
            );
        }
        r
    }

    async fn respond(
        &self,
        req: http::Request<hyper::body::Incoming>,
        peer: std::net::SocketAddr,
    ) -> http::Response<Body> {
        // The Host (and an absolute target) by the shared rule; the Origin
        // by the surface's own (`own_origin`).
        let mut hosts_only = req.headers().clone();
        hosts_only.remove(http::header::ORIGIN);
        if let Err(r) = self
            .from
            .check(req.uri(), &hosts_only)
            .and_then(|()| own_origin(req.headers(), self.tls))
        {
            return json_answer(r.status, &json!({"error": r.message}));
        }
        let path = req.uri().path().to_string();
        let api = path.starts_with("/api/");
        let post = req.method() == http::Method::POST && path == "/api/try";
        if !post && req.method() != http::Method::GET && req.method() != http::Method::HEAD {
            return json_answer(
                405,
                &json!({"error": "the admin surface is read with GET; only /api/try takes a POST"}),
            );
        }
        if path == "/healthz" {
            return json_answer(200, &json!({"status": "alive"}));
        }
        if path == "/favicon.ico" {
            // A browser asks for it unbidden; the page has none.
            return answer(204, "image/x-icon", Bytes::new());
        }
        if let Some(why) = super::shell::not_served(&path, peer.ip().is_loopback(), self.tls) {
            return json_answer(404, &json!({"error": why}));
        }
        if let Some((content_type, bytes)) = super::shell::asset(&path) {
            let mut r = answer(200, content_type, bytes);
            super::shell::guard(r.headers_mut(), true);
            return r;
        }
        if (api || path == "/metrics" || path == "/readyz") && from_another_site(req.headers()) {
            return json_answer(
                403,
                &json!({"error": "a request from another site's page gets nothing here"}),
            );
        }
        let what = format!(
            "{} {}",
            req.method(),
            crate::text::clean_for_log(req.uri().path_and_query().map_or("", |p| p.as_str()), 200)
        );
        let agent = req
            .headers()
            .get(http::header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .map(|v| crate::text::clean_for_log(v, 120))
            .unwrap_or_default();
        let sent = req
            .headers()
            .get(http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, t)| t.trim());
        if !sent.is_some_and(|t| crate::auth::same(t.as_bytes(), self.token.as_bytes())) {
            let mut r = json_answer(401, &json!({"error": "missing or wrong admin token"}));
            r.headers_mut().insert(
                http::header::WWW_AUTHENTICATE,
                http::HeaderValue::from_static("Bearer"),
            );
            self.refusals.refused(peer, &what, &agent);
            return r;
        }
        if !api {
            return self.operations(&path).await;
        }
        let r = if post {
            self.trial(req).await
        } else {
            let query = req.uri().query().map(str::to_string);
            match self.api.get(&path, query.as_deref()).await {
                Ok(Some(v)) => json_answer(200, &v),
                Err((status, message)) => json_answer(status, &json!({"error": message})),
                Ok(None) if path == "/api/try" => {
                    let mut r = json_answer(405, &json!({"error": "/api/try takes a POST"}));
                    r.headers_mut()
                        .insert(http::header::ALLOW, http::HeaderValue::from_static("POST"));
                    r
                }
                Ok(None) => no_such_path(),
            }
        };
        tracing::info!(
            target: "toolsearch::audit",
            who = %format!("admin token from {peer}"),
            agent = %agent,
            what = %what,
            status = r.status().as_u16(),
            "operator page"
        );
        r
    }

    /// `POST /api/try`: a JSON body of at most [`MAX_BODY`] bytes, read
    /// within [`BODY_TIMEOUT`], then the trial.
    async fn trial(&self, req: http::Request<hyper::body::Incoming>) -> http::Response<Body> {
        let json_body = req
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.split(';').next().map(str::trim) == Some("application/json"));
        if !json_body {
            return json_answer(
                415,
                &json!({"error": "the body must be JSON (Content-Type: application/json)"}),
            );
        }
        let limited = http_body_util::Limited::new(req.into_body(), MAX_BODY);
        let body = match tokio::time::timeout(BODY_TIMEOUT, limited.collect()).await {
            Ok(Ok(b)) => b.to_bytes(),
            Ok(Err(_)) => {
                return json_answer(
                    413,
                    &json!({"error": format!("the body is larger than {MAX_BODY} bytes, or broke off")}),
                )
            }
            Err(_) => {
                return json_answer(
                    408,
                    &json!({"error": format!("the body did not arrive within {BODY_TIMEOUT:?}")}),
                )
            }
        };
        // The trial writes its own audit lines (starting; answered or
        // ended unanswered, with the tools it called).
        match self.api.try_snippet(&body).await {
            Ok(v) => json_answer(200, &v),
            Err((status, message)) => json_answer(status, &json!({"error": message})),
        }
    }

    /// `/readyz` and `/metrics`.
    async fn operations(&self, path: &str) -> http::Response<Body> {
        let gw = &self.api.gw;
        match path {
            "/readyz" => {
                let not_ready = gw.not_ready();
                let config = gw.config_digest();
                // A Redis down degrades this replica (its share of each rate
                // budget, approvals refused) without making it unready: every
                // replica would be taken out of the balancer at once.
                let store = gw.store().shown().await;
                // The revision each server behind speaks (the newest both know).
                let protocols: serde_json::Map<String, Value> = gw
                    .fleet()
                    .status()
                    .into_iter()
                    .map(|s| (s.name, s.protocol.map_or(Value::Null, Value::String)))
                    .collect();
                let status = if not_ready.is_empty() { 200 } else { 503 };
                let mut body = json!({"ready": not_ready.is_empty(), "config": config, "store": store, "protocols": protocols});
                if !not_ready.is_empty() {
                    body["not_ready"] = json!(not_ready);
                }
                json_answer(status, &body)
            }
            "/metrics" => answer(
                200,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
                gw.metrics_text(),
            ),
            _ => no_such_path(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(h: &str) -> http::HeaderMap {
        let mut m = http::HeaderMap::new();
        m.insert(http::header::HOST, http::HeaderValue::from_str(h).unwrap());
        m
    }

    #[test]
    fn strict_transport_security_only_for_a_named_remote_host() {
        for yes in [
            "ops.example.com",
            "ops.example.com:9464",
            "Admin.Example.COM.:443",
        ] {
            assert!(named_remote_host(&host(yes)), "{yes}");
        }
        for no in [
            "localhost:9464",
            "LOCALHOST",
            "a.localhost:1",
            "127.0.0.1:9464",
            "192.0.2.2",
            "[::1]:9464",
            "[fd00::2]",
            "",
        ] {
            assert!(!named_remote_host(&host(no)), "{no}");
        }
        assert!(!named_remote_host(&http::HeaderMap::new()));
    }
}
