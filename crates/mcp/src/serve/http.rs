//! The gateway's front door over streamable HTTP, assembled from the steps of
//! a request: [`super::accept`] (connection cap, header timeout, accept
//! backoff) → [`super::origin`] (one allowed `Host`, target authority and
//! `Origin`; refused before anything is counted) → the protected resource
//! metadata, when the gateway is an OAuth resource server → [`crate::auth`]
//! (the caller's profile, or 401) → [`super::admit`] (the session is the
//! caller's profile's, session caps, rate limits) → [`super::protocol`] (path,
//! body, JSON-RPC checks, ids in flight; the scope the operation needs, or
//! 403) → rmcp's service (sessions and their idle TTL, each opened for the
//! caller's profile), over plain TCP or TLS; and its stop (see
//! [`super::stop`]).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::accept::{connection_cap, serve_connection, Accepted, Acceptor};
use super::admit::RateLimit;
use super::origin::Origins;
use super::pins::{Owner, Pins};
use super::protocol::{self, Body, Guarded, InFlight};
use super::{stop as stop_gateway, stop_on_signal};
use crate::auth::{Caller, Gatekeeper, Operation, Refused};
use crate::config::Config;
use crate::gateway::Gateway;

tokio::task_local! {
    /// The profile and principal of the request being handed to rmcp: a
    /// session the request opens is that profile's and that principal's.
    static CALLER: (Arc<str>, Arc<str>);
}

/// The path served: any other is answered 404.
pub const ENDPOINT: &str = "/mcp";

fn refuse(status: u16, message: &str) -> http::Response<Body> {
    protocol::error(status, &Value::Null, -32000, message)
}

/// The answer to a refused credential or scope.
fn refused(r: &Refused) -> http::Response<Body> {
    let mut answer = protocol::error(r.status, &Value::Null, -32000, &r.message);
    if let Ok(v) = http::HeaderValue::from_str(&r.www_authenticate) {
        answer
            .headers_mut()
            .insert(http::header::WWW_AUTHENTICATE, v);
    }
    answer
}

/// The protected resource metadata (RFC 9728), to anyone (it is public, and
/// browser clients read it across origins).
fn metadata_answer(method: &http::Method, doc: &Value) -> http::Response<Body> {
    let mut r = match *method {
        http::Method::GET | http::Method::HEAD => {
            let mut r = http::Response::new(Full::new(Bytes::from(doc.to_string())).boxed());
            r.headers_mut().insert(
                http::header::CONTENT_TYPE,
                http::HeaderValue::from_static("application/json"),
            );
            r
        }
        http::Method::OPTIONS => {
            let mut r = http::Response::new(Full::new(Bytes::new()).boxed());
            *r.status_mut() = http::StatusCode::NO_CONTENT;
            r
        }
        _ => {
            let mut r = protocol::error(405, &Value::Null, -32600, "the metadata is read with GET");
            r.headers_mut().insert(
                http::header::ALLOW,
                http::HeaderValue::from_static("GET, HEAD, OPTIONS"),
            );
            return r;
        }
    };
    let h = r.headers_mut();
    h.insert(
        "access-control-allow-origin",
        http::HeaderValue::from_static("*"),
    );
    h.insert(
        "access-control-allow-methods",
        http::HeaderValue::from_static("GET, HEAD, OPTIONS"),
    );
    h.insert(
        "access-control-allow-headers",
        http::HeaderValue::from_static("mcp-protocol-version"),
    );
    r
}

/// Serves streamable HTTP (HTTPS with `[http] tls_cert`) on `addr` until a signal comes (or `stop` fires), then
/// stops the servers. Loopback only unless clients must bring credentials
/// (`[http] bearer_token_env`, profiles' tokens, `[auth]`); `Host` and
/// `Origin` are checked (DNS rebinding), requests are rate-limited per
/// session and per profile. `on_bound` hears the URL actually served (`http(s)://ADDR/mcp`, port 0 resolved).
///
/// # Errors
/// A non-loopback address without auth, a credential that cannot be read (a
/// token variable that is not set, a token file readable by others), or an
/// address that cannot be bound.
pub async fn http(
    gw: Arc<Gateway>,
    cfg: &Config,
    addr: SocketAddr,
    stop: CancellationToken,
    reload: Option<&super::Reloader>,
    on_bound: impl FnOnce(&str),
) -> anyhow::Result<()> {
    let doorway = Arc::new(Doorway {
        addr,
        tls: cfg.http.tls_cert.is_some(),
        door: std::sync::RwLock::new(Arc::new(Door::of(cfg, addr, None)?)),
    });
    if let Some(r) = reload {
        r.attach(doorway.clone());
    }
    let first = doorway.door();
    let gate = &first.gate;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot bind {addr}: {e}"))?;
    let bound = listener.local_addr()?;
    let url = format!(
        "{}://{bound}/mcp",
        if doorway.tls { "https" } else { "http" }
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
    // A session is opened for the profile of the request that opens it
    // (rmcp calls this on that request's task); none without one.
    let service = StreamableHttpService::new(
        move || {
            let (profile, principal) = CALLER
                .try_with(Clone::clone)
                .map_err(|_| std::io::Error::other("a session opened outside a request"))?;
            factory_gw
                .session_as(&profile)
                .map(|s| s.of_principal(principal))
                .ok_or_else(|| std::io::Error::other(format!("no profile `{profile}`")))
        },
        manager.clone(),
        hcfg,
    );
    let max_sessions = cfg.http.max_sessions();
    let limit = Arc::new(RateLimit::new());
    if !gate.requires_credentials() && cfg.replicas.count() > 1 {
        tracing::warn!("no credentials are asked: behind a balancer every caller comes from its address and all of them share one rate budget; give the profiles tokens (or [auth]) so that each caller has its own");
    }
    tracing::info!(
        %url,
        auth = gate.requires_credentials(),
        oauth = gate.resource_metadata().is_some(),
        profiles = ?gw.profile_names(),
        "serving MCP over streamable HTTP"
    );
    let stop = stop_on_signal(&stop);
    let front = Arc::new(Front {
        service,
        limit,
        doorway: doorway.clone(),
        pins: Pins::new(max_sessions),
        gw: gw.clone(),
        manager,
        ids: InFlight::default(),
        from,
        body_timeout: cfg.http.body_timeout(),
        swept: std::sync::atomic::AtomicU64::new(first.generation),
        streams: protocol::Streams::default(),
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
        // The TLS identity in force when the connection came (a renewed
        // certificate serves the connections after its reload).
        let tls = doorway.door().tls.clone();
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

/// What the front door takes from the configuration in force: who may call
/// (credentials, the protected resource metadata), their budgets, and the
/// TLS identity. A reload makes a new one (see [`Doorway::prepare`]).
struct Door {
    gate: Gatekeeper,
    /// The protected resource metadata, when the gateway is a resource server.
    metadata: Option<Value>,
    budgets: std::collections::HashMap<String, Budget>,
    max_sessions: usize,
    tls: Option<tokio_rustls::TlsAcceptor>,
    /// Which door this is (each made gets the next number): the front sweeps
    /// the sessions of removed credentials once per door.
    generation: u64,
}

static DOORS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Door {
    /// The door of `cfg` serving `addr`; `before`, the door in force, lends
    /// the issuer's cached keys when the issuer is the same.
    ///
    /// # Errors
    /// A credential that cannot be read, a TLS identity that does not load,
    /// a non-loopback address without auth, or an admin token that is also
    /// a client's.
    fn of(cfg: &Config, addr: SocketAddr, before: Option<&Door>) -> anyhow::Result<Door> {
        let gate = Gatekeeper::renewed(cfg, before.map(|d| &d.gate))?;
        super::admin::check_token(cfg, Some(&gate))?;
        if !addr.ip().is_loopback() && !gate.requires_credentials() {
            anyhow::bail!(
                "refusing to serve {addr}: a non-loopback address needs auth (set [http] bearer_token_env, profiles' tokens or [auth])"
            );
        }
        let tls = match (&cfg.http.tls_cert, &cfg.http.tls_key) {
            (Some(cert), Some(key)) => Some(super::tls::acceptor(cert, key, "[http]")?),
            _ => None,
        };
        let budgets = cfg
            .profiles()
            .iter()
            .map(|p| {
                let budget = Budget {
                    rate: p.rate_limit(cfg.http.rate_limit()),
                    sessions: p.max_sessions.as_ref().map(|n| *n.get_ref() as usize),
                };
                (p.name().to_string(), budget)
            })
            .collect();
        Ok(Door {
            metadata: gate.resource_metadata(),
            gate,
            budgets,
            max_sessions: cfg.http.max_sessions(),
            tls,
            generation: DOORS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        })
    }
}

/// The front door's configuration in force, which a reload replaces.
pub(crate) struct Doorway {
    addr: SocketAddr,
    /// Served over TLS (fixed at start: the URL's scheme).
    tls: bool,
    door: std::sync::RwLock<Arc<Door>>,
}

impl Doorway {
    fn door(&self) -> Arc<Door> {
        self.door.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The door of a new configuration, made before anything changes.
    ///
    /// # Errors
    /// What [`Door::of`] refuses, and TLS turned on or off (the URL's scheme
    /// changes only with a restart).
    pub(crate) fn prepare(&self, cfg: &Config) -> anyhow::Result<PreparedDoor> {
        if cfg.http.tls_cert.is_some() != self.tls {
            anyhow::bail!(
                "http.tls_cert: serving HTTPS or plain HTTP changes only with a restart (the URL's scheme)"
            );
        }
        Ok(PreparedDoor(Door::of(cfg, self.addr, Some(&self.door()))?))
    }

    /// Puts a prepared door in force: the next request meets it.
    pub(crate) fn install(&self, door: PreparedDoor) {
        *self.door.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(door.0);
    }
}

/// A new configuration's front door, ready to be put in force.
pub(crate) struct PreparedDoor(Door);

/// A profile's budgets at the front door.
struct Budget {
    /// Requests per minute, for the profile and for each of its sessions.
    rate: u64,
    /// Its sessions open at once, when it has its own cap.
    sessions: Option<usize>,
}

/// What every request passes through: the caller (credential → profile),
/// admission (the session's profile, session caps, rate), the protocol
/// checks and the scope, then rmcp's service.
struct Front {
    service: StreamableHttpService<crate::gateway::GatewaySession, LocalSessionManager>,
    limit: Arc<RateLimit>,
    /// The configuration in force at the door.
    doorway: Arc<Doorway>,
    /// Each session's owner: a request naming a session must come from it.
    pins: Pins,
    gw: Arc<Gateway>,
    manager: Arc<LocalSessionManager>,
    ids: InFlight,
    /// The hosts and origins served.
    from: Origins,
    body_timeout: Duration,
    /// The door whose removed credentials' sessions were last ended.
    swept: std::sync::atomic::AtomicU64,
    /// Each session's GET streams open now.
    streams: protocol::Streams,
}

impl Front {
    /// Ends every session whose owner's credential `door` no longer has (a
    /// removed token): its sessions end, never pass to anyone else.
    async fn end_removed_sessions(&self, door: &Door) {
        use rmcp::transport::streamable_http_server::session::SessionManager;
        for id in self
            .pins
            .drop_where(|owner| !door.gate.admits_principal(&owner.principal))
        {
            tracing::info!(session = %id, "session ended: its credential was removed");
            let _ = self.manager.close_session(&id.as_str().into()).await;
        }
    }

    /// Takes one request from each budget: from the budgets every replica
    /// shares when Redis is configured and answers, else from this
    /// replica's windows (its share of each budget when Redis is down).
    async fn admit(&self, budgets: &[(&str, u64)]) -> bool {
        let store = self.gw.store();
        if store.shared() {
            match store.take(budgets).await {
                Ok(admitted) => return admitted,
                Err(_) => self.gw.count_degraded_admission(),
            }
        }
        budgets
            .iter()
            .all(|(key, per_minute)| self.limit.admit_up_to(key, store.share(*per_minute)))
    }

    async fn answer(
        &self,
        mut req: http::Request<hyper::body::Incoming>,
        peer: SocketAddr,
    ) -> http::Response<Body> {
        // Where it comes from, first: a refused request is counted against
        // no one (a page cannot spend the local client's rate budget).
        if let Err(r) = self.from.check(req.uri(), req.headers()) {
            tracing::debug!(%peer, status = r.status, why = %r.message, "refused a request");
            return refuse(r.status, &r.message);
        }
        if let Some(name) = protocol::repeated_field(req.headers()) {
            let message = format!("the header field `{name}` is sent more than once; send it once");
            return protocol::error(400, &Value::Null, -32600, &message);
        }
        let door = self.doorway.door();
        if self
            .swept
            .swap(door.generation, std::sync::atomic::Ordering::AcqRel)
            != door.generation
        {
            self.end_removed_sessions(&door).await;
        }
        if let Some(doc) = &door.metadata {
            let path = req.uri().path();
            if path == crate::auth::challenge::WELL_KNOWN
                || path.strip_prefix(crate::auth::challenge::WELL_KNOWN) == Some(ENDPOINT)
            {
                return metadata_answer(req.method(), doc);
            }
        }
        let authorization = req
            .headers()
            .get(http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok());
        let caller = match door.gate.caller(authorization).await {
            Ok(c) => c,
            Err(r) => {
                tracing::debug!(%peer, status = r.status, "refused a credential");
                return refused(&r);
            }
        };
        if !self.gw.has_profile(&caller.profile) {
            // Between a new configuration's gateway and its front door: the
            // credential's profile is gone.
            let message = format!(
                "the profile `{}` of this credential is no longer configured",
                caller.profile
            );
            return refuse(401, &message);
        }
        if req.uri().path() != ENDPOINT {
            let message = format!("no such endpoint: MCP is served on {ENDPOINT}");
            return protocol::error(404, &Value::Null, -32601, &message);
        }
        // A session id counts as a key only when it names an open session of
        // the caller (its profile and principal): invented ones, and anyone
        // else's, cannot grow the limiter, and are answered 404 (another's
        // session is not there for it).
        let owner = Owner {
            profile: caller.profile.clone(),
            principal: caller.principal.clone(),
        };
        let mut claimed = req
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let open = match &claimed {
            Some(id) => {
                use rmcp::transport::streamable_http_server::session::SessionManager;
                let sid: rmcp::transport::streamable_http_server::session::SessionId =
                    id.as_str().into();
                // A session whose worker ended (idle TTL) is gone at once.
                self.manager.has_session(&sid).await.unwrap_or(false)
                    && self.pins.owner(id).as_ref() == Some(&owner)
            }
            None => false,
        };
        let stateless = req
            .headers()
            .get("mcp-protocol-version")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v >= "2026-07-28");
        // A stateless POST (2026-07-28) is served by no session, whatever id
        // it names; a GET or DELETE always names one, which must be the
        // caller's.
        let sessionless = stateless && req.method() == http::Method::POST;
        // A stream resumed after its gateway went: the request it was
        // answering has an unknown outcome, and the client is told so, once
        // admitted like any request.
        let orphaned = claimed.is_some()
            && !open
            && req.method() == http::Method::GET
            && req.headers().contains_key("last-event-id");
        if claimed.is_some() && !open && !sessionless && !orphaned {
            return protocol::error(
                404,
                &Value::Null,
                -32001,
                "session not found: it ended or never existed; start a new one",
            );
        }
        if claimed.is_some() && !open {
            // rmcp serves an `initialize` in a named session whatever the
            // protocol header says: a session id that is not the caller's
            // goes no further.
            req.headers_mut().remove("mcp-session-id");
            claimed = None;
        }
        let budget = door.budgets.get(&*caller.profile);
        let rate = budget.map_or(600, |b| b.rate);
        if claimed.is_none() && req.method() == http::Method::POST {
            if let Some(refusal) = self.session_cap(&caller, &door, budget).await {
                return refusal;
            }
        }
        // Budgets are the caller's (its credential's principal, or its
        // address when none is asked) and, with credentials, its profile's;
        // never a session's: a client that opens sessions, or speaks without
        // one, has one budget.
        let anonymous = !door.gate.requires_credentials();
        let who = if anonymous {
            format!("peer:{}", peer.ip())
        } else {
            format!("principal:{}/{}", caller.profile, caller.principal)
        };
        let whole = format!("profile:{}", caller.profile);
        let budgets = [(who.as_str(), rate), (whole.as_str(), rate)];
        if !self.admit(&budgets[..if anonymous { 1 } else { 2 }]).await {
            return refuse(429, "rate limit reached; slow down");
        }
        use tower_service::Service;
        let mut service = self.service.clone();
        let method = req.method().clone();
        if method != http::Method::POST {
            if let Err(r) = door.gate.permits(&caller, Operation::Read) {
                return refused(&r);
            }
            if orphaned {
                return protocol::orphaned_stream();
            }
            // A session's GET streams are bounded: each holds a connection
            // and a worker's attention until it ends.
            let stream = match (&method, open.then_some(claimed.as_deref()).flatten()) {
                (&http::Method::GET, Some(id)) => match self.streams.open(id) {
                    Some(held) => Some(held),
                    None => {
                        let message = format!(
                            "this session holds {} streams open already; close one first",
                            protocol::MAX_STREAMS_PER_SESSION
                        );
                        return protocol::error(429, &Value::Null, -32000, &message);
                    }
                },
                _ => None,
            };
            let (parts, _) = req.into_parts();
            let answer = CALLER
                .scope(
                    (caller.profile.clone(), caller.principal.clone()),
                    service.call(http::Request::from_parts(parts, Full::new(Bytes::new()))),
                )
                .await
                .unwrap_or_else(|e| match e {});
            if method == http::Method::DELETE && open && answer.status().is_success() {
                // The session's pin goes with it.
                if let Some(id) = &claimed {
                    self.pins.unpin(id);
                }
                if answer.status() == http::StatusCode::ACCEPTED {
                    let mut done = http::Response::new(Full::new(Bytes::new()).boxed());
                    *done.status_mut() = http::StatusCode::NO_CONTENT;
                    return done;
                }
            }
            if let Some(held) = stream {
                let (parts, body) = answer.into_parts();
                return http::Response::from_parts(parts, Guarded::with(body, held));
            }
            return answer;
        }
        let session = open.then_some(claimed.as_deref()).flatten();
        let (req, held, op) =
            match protocol::check_post(req, session, &self.ids, self.body_timeout).await {
                Ok(x) => x,
                Err(answer) => return answer,
            };
        if let Some(message) = protocol::contradicted(req.headers(), &op) {
            // -32020 HeaderMismatch (2026-07-28, SEP-2243).
            return protocol::error(400, &Value::Null, -32020, &message);
        }
        let op = Operation::of(op.method.as_deref(), op.tool.as_deref());
        if let Err(r) = door.gate.permits(&caller, op) {
            return refused(&r);
        }
        let answer = CALLER
            .scope(
                (caller.profile.clone(), caller.principal.clone()),
                service.call(req),
            )
            .await
            .unwrap_or_else(|e| match e {});
        if claimed.is_none() {
            if let Some(id) = answer
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
            {
                self.pins.pin(id, owner, &self.manager).await;
            }
        }
        let (parts, body) = answer.into_parts();
        http::Response::from_parts(parts, Guarded::wrap(body, held))
    }

    /// The answer refusing a new session past the gateway's cap or the
    /// caller's profile's; `None` when there is room.
    async fn session_cap(
        &self,
        caller: &Caller,
        door: &Door,
        budget: Option<&Budget>,
    ) -> Option<http::Response<Body>> {
        if live_sessions(&self.manager).await >= door.max_sessions {
            let max = door.max_sessions;
            tracing::warn!(
                max_sessions = max,
                "refused a new session: the gateway holds its most"
            );
            return Some(refuse(
                503,
                &format!(
                    "the gateway holds its most sessions ({max}); close one or try again later"
                ),
            ));
        }
        let cap = budget.and_then(|b| b.sessions)?;
        let open = self.gw.open_sessions_of(&caller.profile) as usize;
        if open >= cap {
            let profile = &caller.profile;
            tracing::warn!(%profile, max_sessions = cap, "refused a new session: the profile holds its most");
            return Some(refuse(
                503,
                &format!(
                    "this profile holds its most sessions ({cap}); close one or try again later"
                ),
            ));
        }
        None
    }
}
