//! One server behind the gateway: start it (a stdio child, a streamable HTTP
//! endpoint or an in-process link), list its tools, re-list them when it says
//! they changed, and keep it connected: a server that fails to start or dies is
//! marked down and retried with backoff, and the rest of the gateway never
//! waits on it.
//!
//! A lazy server is started by the first call that needs it (see
//! [`Upstream::acquire`]); until then its tools come from its manifest (see
//! `manifest`), and after `idle_stop` with no call it is stopped again.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use rmcp::service::{Peer, RoleClient, RunningService};
use rmcp::ClientServiceExt;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::calls::Calls;
use super::child::ServerProcess;
use super::handler::{client_info, modern_lifecycle, refuses_handshake, Handler};
pub use super::life::{Lifecycle, Phase};
use super::listing::list_tools;
use super::manifest;
use crate::config::ServerConfig;

/// First retry delay after a failure; doubled up to [`MAX_BACKOFF`].
pub const MIN_BACKOFF: Duration = Duration::from_millis(250);
/// How long a connection's service may take to end once cancelled.
const SERVICE_STOP: Duration = Duration::from_millis(500);

/// How long a `tools/list_changed` waits before its listing, so that a burst
/// makes one listing even when a loaded machine spreads it out.
pub const RELIST_SETTLE: Duration = Duration::from_millis(50);

/// Longest wait between reconnection attempts.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// Opens a byte stream to an in-process server that speaks MCP on it (newline
/// delimited JSON-RPC, as over stdio): for embedders whose servers live in the
/// same process, and for tests. A server with a link is reached through it,
/// whatever its `command` or `url` say.
pub type Link = Arc<
    dyn Fn() -> futures::future::BoxFuture<'static, std::io::Result<tokio::io::DuplexStream>>
        + Send
        + Sync,
>;

/// A change the gateway must act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// This server's tools or state changed: build a new snapshot.
    Changed(String),
}

/// What is known about the server now.
pub(super) struct State {
    pub(super) peer: Option<Peer<RoleClient>>,
    /// Its tools as it last listed them (kept while it is down or stopped).
    pub(super) tools: Option<Arc<Vec<Value>>>,
    /// Why it is down, when it is.
    pub(super) error: Option<String>,
    /// How many times it came up.
    pub(super) connections: u64,
    pub(super) phase: Phase,
    /// Starts that failed (a waiting call learns its start failed by this).
    pub(super) failed_starts: u64,
    /// Starts begun (a waiting call learns its start came and went by this).
    pub(super) starts: u64,
    /// Calls holding a [`Lease`] now.
    pub(super) busy: usize,
    /// When a call last began or ended (or the server came up).
    pub(super) last_used: Instant,
    /// The fleet is stopping: no call waits for a start any more.
    pub(super) closed: bool,
    /// Lists taken so far (the manifest writes the latest).
    pub(super) lists: u64,
    /// Lists that differed from the one before (each changes what clients
    /// see), and when its list last changed (its first list included).
    pub(super) list_changes: (u64, Option<Instant>),
    /// The protocol revision it spoke when it last listed.
    pub(super) protocol: Option<String>,
    /// How many of the `tools/list_changed` heard ([`Upstream::relists_heard`])
    /// a finished listing answered: while fewer, a call waits for the listing.
    pub(super) relists_done: u64,
    /// The last re-listing failed: what the server serves is not known, and
    /// calls are refused until a listing succeeds.
    pub(super) relist_failed: bool,
    /// When its manifest was last written (or read, when written before).
    pub(super) manifest_at: Option<SystemTime>,
    /// Why its manifest was not used, when it was not.
    pub(super) manifest_note: Option<String>,
    /// The last reason logged at WARN: the same one again is not.
    pub(super) warned: Option<String>,
}

impl State {
    /// Its first start is under way (it never connected nor failed yet).
    pub(super) fn first_start(&self) -> bool {
        self.phase == Phase::Starting && self.connections == 0 && self.failed_starts == 0
    }
}

/// One configured server and its connection.
pub struct Upstream {
    cfg: ServerConfig,
    state: Mutex<State>,
    /// The calls in flight, where what the server sends during them goes.
    calls: Arc<Calls>,
    events: mpsc::UnboundedSender<Event>,
    pub(super) startup_timeout: Duration,
    link: Option<Link>,
    pub(super) lazy: bool,
    idle_stop: Option<Duration>,
    manifest: Option<Arc<manifest::Store>>,
    /// Its process while it starts, and what it wrote on stderr.
    spawned: super::child::Spawned,
    /// Wakes a stopped lazy server: a call waits for it.
    pub(super) wanted: tokio::sync::Notify,
    /// Pinged at each change of state a waiting call may care about.
    pub(super) pings: tokio::sync::watch::Sender<()>,
    /// `tools/list_changed` notifications heard from the server so far.
    pub(super) relists_heard: Arc<std::sync::atomic::AtomicU64>,
    /// The server refused the handshake era once: later starts speak
    /// 2026-07-28 to it first.
    refused_handshake: std::sync::atomic::AtomicBool,
    /// Why its login ended its connection (an OAuth server; see `login.rs`).
    login_note: Arc<Mutex<Option<String>>>,
}

/// How a connection ended.
enum Ended {
    /// Stopped for idleness (on purpose: not an outage).
    Idle,
    /// Anything else, said in a few words.
    Gone(String),
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("name", &self.name())
            .finish_non_exhaustive()
    }
}

/// A live connection: the service, and for stdio the child's process group.
struct Connection {
    running: RunningService<RoleClient, Handler>,
    /// Set by each `tools/list_changed`; one permit however many came.
    relist: Arc<tokio::sync::Notify>,
    child: Option<ServerProcess>,
}

impl Upstream {
    /// A server that is not started yet; [`Upstream::run`] keeps it connected.
    /// `one_client` says whether the gateway serves a single client for its
    /// whole life (see `route`).
    pub fn new(
        cfg: ServerConfig,
        life: Lifecycle,
        events: mpsc::UnboundedSender<Event>,
        one_client: Arc<AtomicBool>,
        link: Option<Link>,
    ) -> Arc<Self> {
        // Every server keeps its last list: an eager one is served from it
        // while it starts (the first `tools/list` waits for no server), a lazy
        // one until its first call. A linked (in-process) server has no
        // command line to key it by unless it is lazy.
        let manifest = life
            .manifest_dir
            .filter(|_| life.lazy || link.is_none())
            .map(|dir| Arc::new(manifest::Store::new(&dir, &cfg)));
        Arc::new(Upstream {
            cfg,
            state: Mutex::new(State {
                peer: None,
                tools: None,
                error: None,
                connections: 0,
                phase: Phase::Starting,
                failed_starts: 0,
                starts: 0,
                busy: 0,
                last_used: Instant::now(),
                closed: false,
                lists: 0,
                list_changes: (0, None),
                protocol: None,
                relists_done: 0,
                relist_failed: false,
                manifest_at: None,
                manifest_note: None,
                warned: None,
            }),
            calls: Arc::new(Calls::new(one_client)),
            events,
            startup_timeout: life.startup_timeout,
            link,
            lazy: life.lazy,
            idle_stop: life.idle_stop.filter(|_| life.lazy),
            manifest,
            spawned: Default::default(),
            wanted: tokio::sync::Notify::new(),
            pings: tokio::sync::watch::Sender::new(()),
            relists_heard: Arc::default(),
            refused_handshake: Default::default(),
            login_note: Arc::default(),
        })
    }

    /// Reads its manifest (blocking): its tools are served from it, and a lazy
    /// server waits for its first call (an eager one starts at once and its
    /// live list replaces the manifest's). A manifest that cannot be trusted
    /// is ignored with one warning, and the server starts at once.
    pub fn load_manifest(&self) {
        let Some(store) = &self.manifest else { return };
        match store.read() {
            Ok(Some(m)) if m.tools.is_empty() => {
                // No tool to call means no call would ever start it to refresh
                // the list: it starts now.
                if !self.lazy {
                    return;
                }
                tracing::info!(
                    server = self.name(),
                    "its manifest lists no tools; the server starts now"
                );
            }
            Ok(Some(m)) => {
                let mut st = self.state();
                st.tools = Some(Arc::new(m.tools));
                st.protocol = Some(m.protocol);
                st.manifest_at = Some(m.written_at);
                if self.lazy {
                    st.phase = Phase::Stopped;
                }
            }
            Ok(None) => {}
            Err(why) => {
                tracing::warn!(
                    server = self.name(),
                    path = %store.shown(),
                    reason = %why,
                    "manifest ignored; the server starts now"
                );
                self.state().manifest_note = Some(format!("ignored: {why}"));
            }
        }
    }

    /// Started by its first call rather than with the gateway.
    pub fn is_lazy(&self) -> bool {
        self.lazy
    }

    /// Where it is in its life.
    pub fn phase(&self) -> Phase {
        self.state().phase
    }

    /// Whether a call can reach it now or by starting it: connected, lazy
    /// with a list of tools to call from, or in its first start with the
    /// tools of its manifest (a call waits for that start).
    pub fn available(&self) -> bool {
        if self.is_up() {
            return true;
        }
        let st = self.state();
        (self.lazy || st.first_start()) && st.tools.is_some() && !st.closed
    }

    /// How long ago its manifest was written (`None`: it has none).
    pub fn manifest_age(&self) -> Option<Duration> {
        let at = self.state().manifest_at?;
        Some(SystemTime::now().duration_since(at).unwrap_or_default())
    }

    /// True while a list it gave is not yet in its manifest (nor known to
    /// have failed to be written).
    pub fn manifest_pending(&self) -> bool {
        let st = self.state();
        self.manifest.is_some()
            && st.lists > 0
            && st.manifest_at.is_none()
            && st.manifest_note.is_none()
    }

    /// Why its manifest was not used, when it was not.
    pub fn manifest_note(&self) -> Option<String> {
        self.state().manifest_note.clone()
    }

    /// The protocol revision it spoke at its last connection (its
    /// manifest's before it connects): `2026-07-28` when it answered
    /// `server/discover`, else the handshake's.
    pub fn protocol(&self) -> Option<String> {
        self.state().protocol.clone()
    }

    /// Lists it gave that differed from the one before (the manifest's
    /// included): each changed what clients see; and when its list last
    /// changed (its first list included).
    pub fn list_changes(&self) -> (u64, Option<Instant>) {
        self.state().list_changes
    }

    /// Whether its last list has a tool of this name.
    pub fn lists(&self, name: &str) -> bool {
        self.state().tools.as_ref().is_some_and(|t| {
            t.iter()
                .any(|t| t.get("name").and_then(Value::as_str) == Some(name))
        })
    }

    /// The configured name.
    pub fn name(&self) -> &str {
        self.cfg.name()
    }

    /// The configuration.
    pub fn config(&self) -> &ServerConfig {
        &self.cfg
    }

    pub(super) fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// True while connected.
    pub fn is_up(&self) -> bool {
        self.state()
            .peer
            .as_ref()
            .is_some_and(|p| !p.is_transport_closed())
    }

    /// The tools it last listed (`None` before it first listed them).
    pub fn tools(&self) -> Option<Arc<Vec<Value>>> {
        self.state().tools.clone()
    }

    /// Why it is down (`None` when up or not tried yet).
    pub fn last_error(&self) -> Option<String> {
        self.state().error.clone()
    }

    /// How many times it came up (reconnections included).
    pub fn connections(&self) -> u64 {
        self.state().connections
    }

    /// The connection to call through, or why there is none.
    pub fn peer(&self) -> Result<Peer<RoleClient>, String> {
        let st = self.state();
        match &st.peer {
            Some(p) if !p.is_transport_closed() => Ok(p.clone()),
            _ => Err(st
                .error
                .clone()
                .unwrap_or_else(|| "not connected yet".to_string())),
        }
    }

    /// The calls in flight on this server.
    pub(crate) fn calls(&self) -> &Arc<Calls> {
        &self.calls
    }

    fn changed(&self) {
        let _ = self.events.send(Event::Changed(self.name().to_string()));
    }

    fn ping(&self) {
        self.pings.send_replace(());
    }

    fn set_down(&self, why: String, failed_start: bool) {
        // The status and the log carry no secret a server's URL holds.
        let why = crate::text::redact_urls(&why).into_owned();
        let (was_up, again) = {
            let mut st = self.state();
            let was_up = st.peer.take().is_some();
            st.error = Some(why.clone());
            st.phase = Phase::Down;
            st.failed_starts += u64::from(failed_start);
            let again = st.warned.as_deref() == Some(why.as_str());
            st.warned = Some(why.clone());
            (was_up, again)
        };
        self.ping();
        // Said once, then at each change: a server restarted with backoff
        // fails the same way every time.
        if again {
            tracing::debug!(server = self.name(), reason = %why, "server unavailable (again)");
        } else {
            tracing::warn!(server = self.name(), reason = %why, "server unavailable");
        }
        if was_up {
            self.changed();
        }
    }

    /// Keeps a new list: counts it as a change when it differs from the one
    /// before, and writes it to the manifest (off the runtime; a failed write
    /// is logged once and changes nothing else).
    /// True when the list differs from the one before (or is the first).
    fn keep_list(self: &Arc<Self>, tools: Vec<Value>, protocol: Option<String>) -> bool {
        let (seq, tools, protocol, differs) = {
            let mut st = self.state();
            let differs = st.tools.as_deref() != Some(&tools);
            if differs && st.tools.is_some() {
                st.list_changes.0 += 1;
            }
            if differs {
                st.list_changes.1 = Some(Instant::now());
            }
            let tools = Arc::new(tools);
            st.tools = Some(tools.clone());
            if protocol.is_some() {
                st.protocol = protocol;
            }
            st.lists += 1;
            (
                st.lists,
                tools,
                st.protocol.clone().unwrap_or_default(),
                differs,
            )
        };
        let Some(store) = self.manifest.clone() else {
            return differs;
        };
        let me = Arc::downgrade(self);
        tokio::task::spawn_blocking(move || match store.write(seq, &protocol, &tools) {
            Ok(Some(at)) => {
                if let Some(me) = me.upgrade() {
                    let mut st = me.state();
                    st.manifest_at = Some(at);
                    st.manifest_note = None;
                }
            }
            Ok(None) => {}
            Err(e) => {
                if let Some(me) = me.upgrade() {
                    let mut st = me.state();
                    if !st
                        .manifest_note
                        .as_deref()
                        .is_some_and(|n| n.starts_with("not written"))
                    {
                        tracing::warn!(server = me.name(), path = %store.shown(), error = %e, "cannot write the server's manifest; it will start again at the next gateway start");
                    }
                    st.manifest_note = Some(format!("not written: {e}"));
                }
            }
        });
        differs
    }

    /// Stops the connection if no call has used it for `idle_stop`; true if so.
    fn stop_if_idle(&self, idle: Duration) -> bool {
        let mut st = self.state();
        if st.busy > 0 || st.last_used.elapsed() < idle {
            return false;
        }
        st.peer = None;
        st.phase = Phase::Stopped;
        true
    }

    /// When the server may next be stopped for idleness: `idle` after its last
    /// use, or while a call holds it, `idle` from now (looked at again then,
    /// never in a loop while a long call runs).
    fn idle_deadline(&self, idle: Duration) -> tokio::time::Instant {
        let st = self.state();
        let since = if st.busy > 0 {
            Duration::ZERO
        } else {
            st.last_used.elapsed()
        };
        tokio::time::Instant::now() + idle.saturating_sub(since)
    }

    /// Keeps the server connected until `shutdown` fires: connect, serve, and on
    /// failure wait (backoff doubling from 250 ms to 30 s) and try again. A lazy
    /// server with a list to serve instead waits for a call to want it, before
    /// each start.
    pub async fn run(self: Arc<Self>, shutdown: CancellationToken) {
        let mut backoff = MIN_BACKOFF;
        let mut first = true;
        while !shutdown.is_cancelled() {
            if self.lazy && self.state().tools.is_some() {
                // Stopped (or down) until a call wants it; the phase is the
                // caller's to change (see `acquire`).
                tokio::select! {
                    () = self.wanted.notified() => {}
                    () = shutdown.cancelled() => break,
                }
            }
            // A call's request for a start that raced the backoff is this
            // start: its permit must not start the server again later.
            let _ = futures::FutureExt::now_or_never(self.wanted.notified());
            {
                let mut st = self.state();
                st.phase = Phase::Starting;
                st.starts += 1;
            }
            self.ping();
            let attempt = tokio::time::timeout(self.startup_timeout, self.connect());
            let outcome = tokio::select! {
                r = attempt => r,
                () = shutdown.cancelled() => {
                    self.spawned.stop(self.name()).await;
                    break;
                }
            };
            match outcome {
                Ok(Ok(conn)) => {
                    backoff = MIN_BACKOFF;
                    let ended = self.serve(conn, &shutdown).await;
                    if shutdown.is_cancelled() {
                        break;
                    }
                    match ended {
                        Ended::Idle => {
                            tracing::info!(
                                server = self.name(),
                                "server stopped after it sat idle; the next call starts it"
                            );
                            self.ping();
                            continue;
                        }
                        Ended::Gone(how) => {
                            let note = self
                                .login_note
                                .lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .take();
                            let how = note.unwrap_or(how);
                            let why = self
                                .spawned
                                .explain(format!("server `{}` disconnected ({how})", self.name()))
                                .await;
                            self.set_down(why, false);
                        }
                    }
                }
                Ok(Err(e)) => {
                    let why = self
                        .spawned
                        .explain(format!("server `{}` failed to start: {e:#}", self.name()))
                        .await;
                    self.spawned.stop(self.name()).await;
                    self.set_down(why, true);
                }
                Err(_) => {
                    let why = self
                        .spawned
                        .explain(format!(
                            "server `{}` did not start within {} ms",
                            self.name(),
                            self.startup_timeout.as_millis()
                        ))
                        .await;
                    self.spawned.stop(self.name()).await;
                    self.set_down(why, true);
                }
            }
            if first && !self.lazy {
                first = false;
                // The fleet waits for each eager server's first attempt.
                self.changed();
            }
            if self.lazy && self.state().tools.is_some() {
                // Started again by the next call that needs it.
                continue;
            }
            tokio::select! {
                () = tokio::time::sleep(backoff) => {}
                () = self.wanted.notified(), if self.lazy => {}
                // A login made (or changed) while it waits is tried at once.
                () = super::login::changed(&self.cfg), if self.cfg.oauth.is_some() => {}
                () = shutdown.cancelled() => break,
            }
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
        {
            let mut st = self.state();
            st.peer = None;
            st.closed = true;
        }
        self.ping();
    }

    /// A connection to the server in `lifecycle`: the client's service, and
    /// whether it runs a process of its own.
    async fn open(
        self: &Arc<Self>,
        relist: &Arc<tokio::sync::Notify>,
        lifecycle: rmcp::ClientLifecycleMode,
    ) -> anyhow::Result<(RunningService<RoleClient, Handler>, Option<()>)> {
        let handler = Handler {
            server: self.name().to_string(),
            calls: Arc::downgrade(&self.calls),
            marked: self.link.is_none() && self.cfg.command.is_none(),
            relist: relist.clone(),
            heard: self.relists_heard.clone(),
            info: client_info(),
        };
        Ok(if let Some(link) = &self.link {
            let stream = link()
                .await
                .map_err(|e| anyhow::anyhow!("cannot reach the linked server: {e}"))?;
            let (read, write) = tokio::io::split(stream);
            let transport = super::pipe::transport(self.name(), read, write);
            (
                handler.serve_with_lifecycle(transport, lifecycle).await?,
                None,
            )
        } else if self.cfg.command.is_some() {
            let (process, (stdout, stdin)) =
                ServerProcess::spawn(self.name(), &self.cfg, &self.spawned.tail)?;
            // A process of an earlier attempt of this start is ended here.
            self.spawned.hold(process);
            let transport = super::pipe::transport(self.name(), stdout, stdin);
            (
                handler.serve_with_lifecycle(transport, lifecycle).await?,
                Some(()),
            )
        } else {
            let url = self.cfg.url.clone().unwrap_or_default();
            let note = &self.login_note;
            let running = super::http_client::serve(handler, &self.cfg, &url, lifecycle, note);
            (running.await?, None)
        })
    }

    async fn connect(self: &Arc<Self>) -> anyhow::Result<Connection> {
        let relist = Arc::new(tokio::sync::Notify::new());
        // The handshake era first: every feature the gateway carries works
        // there (a server's questions mid-call, its list changes). A server
        // that refuses it (of 2026-07-28 only) is spoken to in its revision,
        // straight away from then on.
        let modern = self.cfg.modern_first() || self.refused_handshake.load(Ordering::Relaxed);
        let first = if modern {
            modern_lifecycle()
        } else {
            rmcp::ClientLifecycleMode::Initialize
        };
        let (running, child) = match self.open(&relist, first).await {
            Err(e) if !modern && !self.cfg.handshake_only() && refuses_handshake(&e) => {
                tracing::info!(
                    server = self.name(),
                    "the server refuses the handshake era: speaking MCP 2026-07-28 to it"
                );
                self.refused_handshake.store(true, Ordering::Relaxed);
                self.open(&relist, modern_lifecycle()).await?
            }
            other => other?,
        };
        let heard = self.relists_heard.load(Ordering::SeqCst);
        let tools = list_tools(running.peer()).await?;
        let protocol = running
            .peer()
            .peer_info()
            .map(|i| i.protocol_version.to_string());
        let differs = self.keep_list(tools, protocol);
        let was_down = {
            let mut st = self.state();
            // Down before this start (a crash, a failed start): clients were told.
            let was_down = st.error.is_some();
            st.peer = Some(running.peer().clone());
            st.error = None;
            st.relists_done = st.relists_done.max(heard);
            st.relist_failed = false;
            st.connections += 1;
            st.phase = Phase::Running;
            st.last_used = Instant::now();
            was_down
        };
        self.ping();
        tracing::info!(server = self.name(), "server connected");
        // A lazy server started with the list it had, and not from an outage,
        // changes nothing the clients see: no new snapshot.
        if !self.lazy || differs || was_down {
            self.changed();
        }
        // Connected: the process goes with the connection.
        let child = child.and_then(|()| self.spawned.take());
        Ok(Connection {
            running,
            relist,
            child,
        })
    }

    /// Waits until `child` exits (for ever without one); how it ended.
    async fn exited(child: Option<&mut super::child::ServerProcess>) -> String {
        match child {
            Some(c) => c.exited().await,
            None => std::future::pending().await,
        }
    }

    /// Serves one connection until it ends or `shutdown` fires; says how it ended.
    /// A `tools/list_changed` re-lists the tools, [`RELIST_SETTLE`] later: at
    /// most one listing runs at a time and any number of notifications during
    /// it make one more (a storm costs two listings, a few more when a loaded
    /// machine spreads it out), each bounded like the first (see
    /// [`list_tools`]).
    async fn serve(self: &Arc<Self>, conn: Connection, shutdown: &CancellationToken) -> Ended {
        let Connection {
            running,
            relist,
            mut child,
        } = conn;
        let peer = running.peer().clone();
        let ct = running.cancellation_token();
        let mut waiting = Box::pin(running.waiting());
        type Listed = (u64, anyhow::Result<Vec<Value>>);
        let mut listing: Option<futures::future::BoxFuture<'static, Listed>> = None;
        let ended = loop {
            let idle = self.idle_stop;
            let idle_at = idle.map(|d| self.idle_deadline(d));
            tokio::select! {
                r = &mut waiting => break Ended::Gone(format!("{:?}", r.map(|q| format!("{q:?}")).unwrap_or_else(|e| e.to_string()))),
                // Any process the gateway started for the server (its keeper)
                // ending ends the connection at once: its calls in flight are
                // answered (UNAVAILABLE) now, not at their timeout, and the
                // server is started again as after a crash.
                status = Self::exited(child.as_mut()) => {
                    ct.cancel();
                    let _ = tokio::time::timeout(SERVICE_STOP, &mut waiting).await;
                    tracing::warn!(server = self.name(), %status, "the server's process ended");
                    break Ended::Gone(format!("its process ended: {status}"));
                }
                () = relist.notified(), if listing.is_none() => {
                    let (peer, limit, relist) = (peer.clone(), self.startup_timeout, relist.clone());
                    let heard = self.relists_heard.clone();
                    listing = Some(Box::pin(async move {
                        // A burst settles first: what arrives meanwhile is
                        // answered by this listing, not by one more.
                        tokio::time::sleep(RELIST_SETTLE).await;
                        let _ = futures::FutureExt::now_or_never(relist.notified());
                        let upto = heard.load(Ordering::SeqCst);
                        let listed = tokio::time::timeout(limit, list_tools(&peer))
                            .await
                            .unwrap_or_else(|_| Err(anyhow::anyhow!("its tools/list did not finish within {} ms", limit.as_millis())));
                        (upto, listed)
                    }));
                }
                (upto, listed) = async { listing.as_mut().expect("guarded").await }, if listing.is_some() => {
                    listing = None;
                    match listed {
                        Ok(tools) => {
                            let differs = self.keep_list(tools, None);
                            self.state().error = None;
                            tracing::info!(server = self.name(), differs, "tools re-listed");
                            if differs {
                                self.changed();
                            }
                        }
                        Err(e) => {
                            // The last good list stays; the reason is shown in `status`.
                            let why = crate::text::redact_urls(&format!("server `{}`: re-listing its tools failed: {e}", self.name())).into_owned();
                            tracing::warn!(server = self.name(), error = %crate::text::redact_urls(&e.to_string()), "re-listing tools failed; keeping the last list");
                            self.state().error = Some(why);
                        }
                    }
                    // Calls waiting for this listing go on with the new list,
                    // or are refused when it failed (what the server serves
                    // is not known).
                    {
                        let mut st = self.state();
                        st.relists_done = st.relists_done.max(upto);
                        st.relist_failed = st.error.is_some();
                    }
                    self.ping();
                }
                () = tokio::time::sleep_until(idle_at.unwrap_or_else(tokio::time::Instant::now)), if idle_at.is_some() => {
                    if idle.is_some_and(|d| self.stop_if_idle(d)) {
                        ct.cancel();
                        let _ = tokio::time::timeout(SERVICE_STOP, &mut waiting).await;
                        break Ended::Idle;
                    }
                }
                () = shutdown.cancelled() => {
                    ct.cancel();
                    let _ = tokio::time::timeout(SERVICE_STOP, &mut waiting).await;
                    break Ended::Gone("shut down".to_string());
                }
            }
        };
        self.state().peer = None;
        if let Some(child) = child {
            child.stop(self.name()).await;
        }
        ended
    }
}
