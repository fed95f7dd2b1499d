//! The gateway: an MCP server whose tools are what [`ToolSearch`] decides to
//! send (`tool_search_code`, or the structured trio, plus never-deferred tools;
//! every tool when deferral is off), in front of the fleet of servers.
//!
//! Each MCP session is its own toolsearch [`Session`], of one client profile
//! (see [`profile`]): each profile has its own facade over the part of the
//! fleet it sees. Calls are cancelled when
//! the client cancels them, progress and log messages of downstream servers
//! reach the client, and the client hears `notifications/tools/list_changed`
//! whenever the list it is served changes.
// MCP logging is deprecated by SEP-2577, but the servers in front of which the
// gateway stands still send it, and clients still read it: it is forwarded.
#![allow(deprecated)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use rmcp::service::{Peer, RoleServer};
use serde_json::Value;
use toolsearch::{Provider, Session, ToolSearch};
use toolsearch_catalog::Tool;

use crate::config::{Config, ModelFrom};

mod apply;
mod approve;
mod book;
mod metrics;
mod notes;
mod page;
mod profile;
mod round;
mod session;
mod slots;
mod trial;

use crate::upstream::Fleet;
use crate::upstream::{Event, Link};
pub use apply::Applied;
pub use notes::MAX_QUEUED_LOGS;
pub use page::{Calls, PageError, MAX_SESSIONS_SHOWN, MAX_TRIAL_CODE, TRIAL_PRINCIPAL};
pub use session::{to_result, GatewaySession};

/// Each open MCP session's client and the name of its profile, by toolsearch
/// session id. An entry is the session's own: made when it starts, removed
/// when its handler is dropped (the client disconnected, sent DELETE, or
/// stayed idle past the TTL).
type Peers = Arc<Mutex<std::collections::HashMap<String, (String, Peer<RoleServer>)>>>;

/// Why a profile's served list changed (the `cause` label of
/// `served_list_changes`). Health is never one: a server down or starting
/// changes no byte served (docs/prompt-cache.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cause {
    /// A server's tools (added, removed, redefined).
    Servers,
    /// A new configuration.
    Reload,
    /// The sandbox's availability (code mode falls back to the structured
    /// tools while it is down).
    CodeMode,
}

impl Cause {
    fn label(self) -> &'static str {
        match self {
            Cause::Servers => "servers",
            Cause::Reload => "reload",
            Cause::CodeMode => "code_mode",
        }
    }
}

/// What every session of one gateway shares.
pub struct Gateway {
    /// The client profiles, each with its facade; `default` among them.
    /// Swapped whole when a new configuration is applied.
    profiles: RwLock<Arc<Vec<Arc<profile::Profile>>>>,
    /// What the profiles' facades share (the fleet, the sandbox pool, the
    /// embedding model, the rules in force).
    shared: apply::Shared,
    /// One new configuration applied at a time.
    applying: tokio::sync::Mutex<()>,
    fleet: Arc<Fleet>,
    /// Tools that are not from servers (none unless the embedder adds some).
    extra: Vec<Tool>,
    /// Open sessions' clients: to ask for approvals, to tell that the tool list
    /// changed.
    peers: Peers,
    /// Sessions open now (handlers not yet dropped).
    open: Arc<AtomicU64>,
    /// What the operator page lists of them.
    book: book::Book,
    /// Snippet slots, shared fairly across sessions.
    snippets: Arc<slots::Slots>,
    next_session: AtomicU64,
    /// Tool calls answered so far (see [`Gateway::trim_after_bursts`]).
    calls: AtomicU64,
    /// Snapshots built since start, after the first.
    snapshots: AtomicU64,
    /// Changes of the served tool list since start (each is a prompt-cache
    /// write for every conversation).
    served_changes: AtomicU64,
    /// [`Config::digest`] of the configuration in force.
    config_digest: RwLock<String>,
    /// Fired when the gateway begins to stop: calls in flight answer with an
    /// error at once, new ones are refused (see [`Gateway::begin_stop`]).
    stopping: tokio_util::sync::CancellationToken,
    /// Tool calls being answered now.
    in_flight: Arc<std::sync::atomic::AtomicUsize>,
    /// What `/metrics` shows.
    metrics: metrics::Metrics,
    /// One snapshot built at a time (see [`Gateway::rebuild`]).
    building: tokio::sync::Mutex<()>,
    /// The fleet's version the last snapshot was built from.
    built_version: AtomicU64,
    /// Done once the first list may be served (see [`Gateway::first_list`]).
    first_list: tokio::sync::OnceCell<()>,
    /// How long the first list waits for servers not known yet.
    first_list_wait: std::time::Duration,
    /// What the replicas of this configuration share (rate budgets, approval
    /// nonces).
    store: Arc<crate::store::Store>,
    /// The keys approval rounds are sealed with.
    seals: round::Seals,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("fleet", &self.fleet)
            .finish_non_exhaustive()
    }
}

/// The sandbox pool a gateway of `cfg` runs snippets on: worker processes of
/// `command`, the config's snippet budget, a queue that holds every snippet
/// the gateway admits (`max_concurrent_snippets`), so none is refused as busy,
/// and as many workers as it admits snippets (past the cores, on demand).
pub fn pool_config(
    cfg: &Config,
    command: toolsearch_sandbox::WorkerCommand,
) -> toolsearch_sandbox::PoolConfig {
    let defaults = toolsearch_sandbox::PoolConfig::default();
    toolsearch_sandbox::PoolConfig {
        isolation: toolsearch_sandbox::Isolation::Process(command),
        limits: toolsearch_sandbox::Limits {
            deadline: cfg.timeout(),
            ..toolsearch_sandbox::Limits::default()
        },
        queue: defaults.queue.max(cfg.http.max_concurrent_snippets()),
        // Every snippet the gateway admits gets a worker of its own (extra
        // ones past the cores start on demand and end when idle): one waiting
        // on a slow tool call keeps no one else's snippet waiting.
        max_workers: cfg.http.max_concurrent_snippets(),
        ..defaults
    }
}

/// The embedding model the gateway fuses with search: the configured one (an error
/// when it cannot be loaded), else the installed default (a warning and lexical
/// search when it cannot); none with `semantic = false`, and none for a plain
/// aggregator (`activation = "never"`), which serves no search to fuse it with.
fn embedder(cfg: &Config) -> anyhow::Result<Option<Arc<toolsearch::Embedder>>> {
    let (dir, from) = cfg.embed_model_choice();
    let Some(dir) = dir else {
        if from == ModelFrom::None {
            tracing::warn!("{}", toolsearch_embed::MISSING_MODEL);
        }
        return Ok(None);
    };
    match (toolsearch::Embedder::load(&dir), from) {
        (Ok(model), _) => {
            tracing::info!(model = %dir.display(), from = from.as_str(), "search fuses the embedding model");
            Ok(Some(Arc::new(model)))
        }
        (Err(e), ModelFrom::Config) => Err(anyhow::anyhow!("embed_model {}: {e}", dir.display())),
        (Err(e), _) => {
            tracing::warn!(model = %dir.display(), error = %e, "installed embedding model not loaded; search stays lexical");
            Ok(None)
        }
    }
}

impl Gateway {
    /// Starts the fleet of `cfg` (waiting for no server: see
    /// [`Gateway::first_list`]) and builds the facade in front of it. `pool` runs
    /// snippets; without one the facade makes its own (worker processes when the
    /// worker program is found).
    pub async fn start(
        cfg: &Config,
        pool: Option<toolsearch_sandbox::Pool>,
    ) -> anyhow::Result<Arc<Gateway>> {
        Self::start_linked(cfg, pool, &std::collections::HashMap::new()).await
    }

    /// [`Gateway::start`], reaching the servers named in `links` through their
    /// link (in-process servers: see [`Link`]).
    pub async fn start_linked(
        cfg: &Config,
        pool: Option<toolsearch_sandbox::Pool>,
        links: &std::collections::HashMap<String, Link>,
    ) -> anyhow::Result<Arc<Gateway>> {
        // Settings out of range fail before any server is started.
        cfg.settings().validate()?;
        if cfg.servers.is_empty() {
            tracing::warn!("the configuration names no server: the gateway serves no tool until one is added (a reload takes it)");
        }
        let profiles_cfg = cfg.profiles();
        for p in &profiles_cfg {
            cfg.profile_settings(p).validate()?;
        }
        // So is a named embedding model that does not load.
        let embedder = embedder(cfg)?;
        // So are a Redis URL or sealing keys that cannot be used.
        let store = Arc::new(crate::store::Store::of(&cfg.replicas)?);
        let seals = round::Seals::of(&cfg.replicas)?;
        if seals.shared() && !store.shared() {
            anyhow::bail!(
                "[replicas] the approval rounds' sealing keys are shared (`{}` is set) but their \
                 nonces would be kept by each process (`{}` is not set): a round could be \
                 redeemed once per replica; set the Redis URL too, or unset the keys",
                cfg.replicas.sealing_keys_env,
                cfg.replicas.redis_url_env
            );
        }
        if store.shared() && !seals.shared() && cfg.replicas.count() > 1 {
            tracing::warn!(
                keys = %cfg.replicas.sealing_keys_env,
                "[replicas] no shared sealing keys: an approval round sealed here redeems only on this replica; set the same keys on every replica"
            );
        }
        let fleet = Fleet::linked(cfg, links);
        let events = fleet.start().await;
        let code_anywhere = profiles_cfg
            .iter()
            .any(|p| cfg.profile_settings(p).mode != toolsearch::Mode::Tools);
        // Without a pool, one of worker processes that queues every snippet the
        // gateway admits (the facade's own would refuse past its default queue).
        let pool = pool.or_else(|| {
            // Structured tools only: no snippet ever runs.
            if !code_anywhere {
                return None;
            }
            let command = toolsearch_sandbox::WorkerCommand::locate().ok()?;
            toolsearch_sandbox::Pool::new(pool_config(cfg, command)).ok()
        });
        let shared = apply::Shared {
            fleet: fleet.clone(),
            pool,
            embedder,
            rules: Arc::new(RwLock::new(Arc::new(apply::Rules::of(cfg)))),
            // Tools are expected while a server with no manifest is in its
            // first start: a session that initializes meanwhile is told of
            // the shape its list will have (instructions are sent once).
            pending: Arc::new(std::sync::atomic::AtomicBool::new(
                !fleet.unknown().is_empty(),
            )),
            trials: Arc::default(),
            sent: cfg.telemetry.metrics().then(metrics::Sent::default),
        };
        let version = fleet.version();
        let full = fleet.snapshot(&[]);
        let mut profiles = Vec::with_capacity(profiles_cfg.len());
        for p in profiles_cfg {
            profiles.push(shared.profile(cfg, p, &full, None)?);
        }
        let max_snippets = cfg.http.max_concurrent_snippets();
        let caps = profiles
            .iter()
            .map(|p| (p.name().to_string(), p.cfg.max_snippets(max_snippets)))
            .collect();
        let alone = fleet.one_client();
        let server_names: Vec<String> = cfg.servers.iter().map(|s| s.name().to_string()).collect();
        let profile_names: Vec<String> = profiles.iter().map(|p| p.name().to_string()).collect();
        let gw = Arc::new(Gateway {
            metrics: metrics::Metrics::new(
                &server_names,
                &profile_names,
                cfg.telemetry.metrics(),
                &shared.sent.clone().unwrap_or_default(),
            ),
            profiles: RwLock::new(Arc::new(profiles)),
            shared,
            applying: tokio::sync::Mutex::new(()),
            fleet,
            extra: Vec::new(),
            peers: Peers::default(),
            open: Arc::default(),
            book: book::Book::default(),
            snippets: slots::Slots::with_caps(
                max_snippets,
                cfg.http.snippet_queue(),
                alone,
                caps,
                cfg.reachable_profiles(),
            ),
            next_session: AtomicU64::new(1),
            calls: AtomicU64::new(0),
            snapshots: AtomicU64::new(0),
            served_changes: AtomicU64::new(0),
            config_digest: RwLock::new(cfg.digest()),
            stopping: tokio_util::sync::CancellationToken::new(),
            in_flight: Arc::default(),
            building: tokio::sync::Mutex::new(()),
            built_version: AtomicU64::new(version),
            first_list: tokio::sync::OnceCell::new(),
            first_list_wait: cfg.first_list_wait(),
            store,
            seals,
        });
        // The first probe of code mode (a snippet on the pool) happens here, on
        // a blocking thread, not in the first client's `tools/list`.
        for p in gw.profiles().iter() {
            gw.follow_profile(p).await;
        }
        tokio::spawn(Self::follow(Arc::downgrade(&gw), events));
        // The first list's wait begins now, not at the first client's request.
        {
            let gw = gw.clone();
            tokio::spawn(async move { gw.first_list().await });
        }
        tokio::spawn(Self::trim_after_bursts(Arc::downgrade(&gw)));
        for s in gw.fleet.status() {
            tracing::info!(server = %s.name, state = ?s.state, tools = s.tools, manifest_age_s = ?s.manifest_age_s, error = ?s.error, problems = ?s.problems, "server status");
        }
        Ok(gw)
    }

    /// The facade of the `default` profile (every tool, unless a profile
    /// named `default` narrows it).
    pub fn toolsearch(&self) -> Arc<ToolSearch> {
        let all = self.profiles();
        all.iter()
            .find(|p| p.name() == crate::config::DEFAULT_PROFILE)
            .unwrap_or(&all[0])
            .ts
            .clone()
    }

    /// The facade of the profile `name`.
    pub fn toolsearch_of(&self, name: &str) -> Option<Arc<ToolSearch>> {
        Some(self.profile(name)?.ts.clone())
    }

    /// The names of the profiles served.
    pub fn profile_names(&self) -> Vec<String> {
        self.profiles()
            .iter()
            .map(|p| p.name().to_string())
            .collect()
    }

    /// True when the profile `name` is served now.
    pub fn has_profile(&self, name: &str) -> bool {
        self.profiles().iter().any(|p| p.name() == name)
    }

    /// The profiles served now.
    fn profiles(&self) -> Arc<Vec<Arc<profile::Profile>>> {
        self.profiles
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The profile `name` served now.
    fn profile(&self, name: &str) -> Option<Arc<profile::Profile>> {
        self.profiles().iter().find(|p| p.name() == name).cloned()
    }

    /// The servers.
    pub fn fleet(&self) -> &Arc<Fleet> {
        &self.fleet
    }

    /// How many times the catalog was rebuilt since start (changes of servers'
    /// tools, servers going down or coming back; a burst makes one).
    pub fn snapshots_built(&self) -> u64 {
        self.snapshots.load(Ordering::Relaxed)
    }

    /// How many times the tool list served to clients changed since start
    /// (servers' refreshes, code mode's availability): each one is a
    /// `list_changed` to every client and a prompt-cache write for every
    /// conversation.
    pub fn served_list_changes(&self) -> u64 {
        self.served_changes.load(Ordering::Relaxed)
    }

    /// What the replicas of this configuration share.
    pub fn store(&self) -> &Arc<crate::store::Store> {
        &self.store
    }

    /// [`Config::digest`] of the configuration in force: the same on every
    /// replica that runs one configuration.
    pub fn config_digest(&self) -> String {
        self.config_digest
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Counts a change of `profile`'s served list (by cause, in the metrics),
    /// says it in the log, and tells the profile's clients.
    pub(crate) async fn served_changed(&self, profile: &str, cause: Cause, why: &str) {
        let n = self.served_changes.fetch_add(1, Ordering::Relaxed) + 1;
        self.metrics.served_change(profile, cause.label());
        tracing::info!(profile, cause = cause.label(), why, served_list_changes = n, "the tools served changed: the profile's clients are told (a prompt-cache write for every conversation)");
        self.notify_list_changed(profile).await;
    }

    /// The tools this gateway serves a session of the `default` profile now,
    /// in MCP's shape.
    pub fn tools_for(&self, session: &Session) -> Vec<Value> {
        self.toolsearch().definitions(session, Provider::Mcp).tools
    }

    /// Rebuilds the snapshot on every fleet change (each profile gets its
    /// part) and tells the clients of each profile whose served list changed.
    /// Holds the gateway weakly: a dropped gateway ends it.
    async fn follow(
        gw: std::sync::Weak<Self>,
        mut events: tokio::sync::mpsc::UnboundedReceiver<Event>,
    ) {
        while let Some(Event::Changed(server)) = events.recv().await {
            let Some(g) = gw.upgrade() else { return };
            // Several changes in a burst make one snapshot; changes meanwhile
            // make one more.
            while events.try_recv().is_ok() {}
            g.rebuild(&server, true).await;
        }
    }

    /// Builds a snapshot of the servers' lists as they are now, off the
    /// runtime (loading, indexing and embedding a catalog take CPU seconds
    /// for large ones), gives each profile its part, and tells the clients of
    /// each profile whose served list changed (when `tell`). Builds run one
    /// at a time, so the last one built reads the newest lists.
    async fn rebuild(self: &Arc<Self>, why: &str, tell: bool) {
        self.rebuild_when(why, tell, false).await;
    }

    /// [`Gateway::rebuild`]; when `if_stale`, only if the last snapshot (once
    /// any build under way has finished) is not of the lists as they are now.
    async fn rebuild_when(self: &Arc<Self>, why: &str, tell: bool, if_stale: bool) {
        let _one = self.building.lock().await;
        let version = self.fleet.version();
        if if_stale && version == self.built_version.load(Ordering::SeqCst) {
            return;
        }
        self.built_version.store(version, Ordering::SeqCst);
        let built = self.clone();
        let rebuilt = tokio::task::spawn_blocking(move || {
            let full = built.fleet.snapshot(&built.extra);
            for p in built.profiles().iter() {
                p.set_catalog(&full);
            }
            built.snapshots.fetch_add(1, Ordering::SeqCst);
        })
        .await;
        if rebuilt.is_err() {
            tracing::error!("building a snapshot panicked; serving the last one");
            return;
        }
        self.metrics.snapshot();
        tracing::info!(server = %why, tools = self.toolsearch().host().catalog().len(), "catalog rebuilt");
        for p in self.profiles().iter() {
            // Made once for the new snapshot, and what every session's
            // `tools/list` then answers.
            // Before the first list is answered nobody has one: nobody is
            // told. Decided here, after the snapshot was built: a client
            // served once the first list is answered gets this snapshot.
            if p.list_changed(&self.snapshots).await && tell && self.first_list.initialized() {
                self.served_changed(p.name(), Cause::Servers, why).await;
            }
        }
    }

    /// Waits until every server has connected or failed once, at most
    /// `limit`, and builds a snapshot of what they listed: for an embedder
    /// (or `config check`) that wants the servers' state before it goes on.
    /// [`Gateway::start`] does not wait. The servers still starting then.
    pub async fn settle(self: &Arc<Self>, limit: std::time::Duration) -> Vec<String> {
        let starting = self.fleet.first_attempts(limit).await;
        self.rebuild("settled", true).await;
        starting
    }

    /// Waits, once in the gateway's life, until every server's tools are
    /// known (listed, or from its manifest) or its first start failed, at
    /// most `[limits] first_list_ms`, racing the stop. The first `tools/list`,
    /// search or call of every client waits for it; `initialize` never does.
    /// A server still unknown then joins through `list_changed`, and deferral
    /// stays on (see [`toolsearch::Pending`]): no client is sent tools
    /// directly and then switched to deferral when the rest arrive.
    pub(crate) async fn first_list(self: &Arc<Self>) {
        if self.first_list.initialized() {
            return;
        }
        let me = self.clone();
        let once = async move {
            me.first_list
                .get_or_init(|| async {
                    let unknown = me.fleet.first_known(me.first_list_wait).await;
                    let pending = !unknown.is_empty();
                    if pending {
                        tracing::info!(servers = ?unknown, waited_ms = me.first_list_wait.as_millis() as u64, "the first list goes without these servers' tools (not known yet): they join through list_changed, and deferral stays on");
                    }
                    // Sticky when set now; dropped when every server is
                    // known.
                    let was = me.shared.pending.swap(pending, Ordering::Relaxed);
                    // A new snapshot when the last one is not of the lists
                    // as they are now, or the plan's rule changed.
                    me.rebuild_when("first list", false, was == pending).await;
                })
                .await;
        };
        tokio::select! {
            () = once => {}
            () = self.stopping.cancelled() => {}
        }
    }

    /// Follows whether code mode is available for the profile, and
    /// tells its clients when the list they are served changes with it. A
    /// change is announced at most once per direction (lost, recovered) per
    /// [`LIST_CHANGED_EVERY`], so a flapping sandbox cannot storm the
    /// clients; a change held back is announced when its window ends, if it
    /// still holds. Holds the gateway and the profile weakly, and ends when
    /// the profile is no longer served (a new configuration replaced it).
    async fn follow_code_mode(
        gw: std::sync::Weak<Self>,
        profile: std::sync::Weak<profile::Profile>,
        mut code_mode: tokio::sync::watch::Receiver<bool>,
    ) {
        let mut announced = Announced::default();
        // When to look at code mode's availability again.
        let mut look_at: Option<tokio::time::Instant> = None;
        loop {
            tokio::select! {
                changed = code_mode.changed(), if look_at.is_none() => {
                    if changed.is_err() {
                        return;
                    }
                    look_at = Some(tokio::time::Instant::now());
                }
                () = sleep_until_some(look_at) => {
                    look_at = None;
                    let (Some(g), Some(p)) = (gw.upgrade(), profile.upgrade()) else { return };
                    if !g.profiles().iter().any(|q| Arc::ptr_eq(q, &p)) {
                        return;
                    }
                    let up = *code_mode.borrow_and_update();
                    if let Some(wait) = announced.held_back(up, std::time::Instant::now()) {
                        look_at = Some(tokio::time::Instant::now() + wait);
                        continue;
                    }
                    if p.list_changed(&g.snapshots).await {
                        announced.sent(up, std::time::Instant::now());
                        let why = if up { "code mode is back" } else { "code mode is unavailable" };
                        g.served_changed(p.name(), Cause::CodeMode, why).await;
                    }
                }
            }
        }
    }

    /// Every [`TRIM_EVERY`], when calls were answered since the last look,
    /// hands the memory the allocator keeps free back to the system: a burst
    /// of large results (a snippet's, a server's) leaves the freed pages with
    /// the allocator otherwise, and a long-running gateway would keep its
    /// highest burst's footprint. Holds the gateway weakly.
    async fn trim_after_bursts(gw: std::sync::Weak<Self>) {
        let mut seen = 0;
        loop {
            tokio::time::sleep(TRIM_EVERY).await;
            let Some(g) = gw.upgrade() else { return };
            let now = g.calls.load(Ordering::Relaxed);
            if now != seen {
                seen = now;
                toolsearch_sandbox::release_free_memory();
            }
        }
    }

    /// Tells every open session's client of the profile `name` that its
    /// list changed. Each send is its own task, bounded by
    /// [`LIST_CHANGED_SEND`]: a client that does not read delays nobody (not
    /// the catalog's follower, not another client).
    async fn notify_list_changed(&self, name: &str) {
        let clients: Vec<Peer<RoleServer>> = self
            .peers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .filter(|(n, p)| n == name && !p.is_transport_closed())
            .map(|(_, p)| p.clone())
            .collect();
        for peer in clients {
            tokio::spawn(async move {
                let sent =
                    tokio::time::timeout(LIST_CHANGED_SEND, peer.notify_tool_list_changed()).await;
                if sent.is_err() {
                    tracing::debug!("a client did not take tools/list_changed in time");
                }
            });
        }
    }

    /// The metrics in the Prometheus (OpenMetrics) text format: what the
    /// admin surface's `/metrics` answers.
    pub fn metrics_text(&self) -> String {
        self.metrics.render(self)
    }

    /// What is not ready to serve: servers down (a lazy one stopped is
    /// ready: a call starts it), code mode not available where a profile
    /// serves it. Empty when ready.
    pub fn not_ready(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .fleet
            .status()
            .into_iter()
            .filter(|s| !(s.up || s.lazy && s.error.is_none()))
            .map(|s| match s.error {
                Some(e) => format!("server `{}` is down: {e}", s.name),
                None => format!("server `{}` is not connected yet", s.name),
            })
            .collect();
        for p in self.profiles().iter() {
            let code = p.ts.settings().mode != toolsearch::Mode::Tools;
            if code && !*p.ts.code_mode_changes().borrow() {
                out.push(format!(
                    "code mode is not available to profile `{}`",
                    p.name()
                ));
            }
        }
        out
    }

    /// Counts a request admitted by this replica's share of its budgets (the
    /// shared store unreachable) for `/metrics`.
    pub fn count_degraded_admission(&self) {
        self.metrics.degraded_admission();
    }

    /// Counts a new configuration applied (or refused) for `/metrics`.
    pub fn count_reload(&self, applied: bool) {
        self.metrics.reload(applied);
    }

    /// Snippets holding a slot now.
    pub fn snippets_running(&self) -> usize {
        self.snippets.running()
    }

    /// MCP sessions open now.
    pub fn open_sessions(&self) -> u64 {
        self.open.load(Ordering::Relaxed)
    }

    /// Stops every server.
    pub async fn shutdown(&self) {
        self.begin_stop();
        self.fleet.shutdown().await;
    }

    /// Begins to stop: every tool call in flight is cancelled (its snippet
    /// ended, its forwarded call cancelled on its server) and answered with a
    /// JSON-RPC error (`SHUTTING_DOWN`, -32001), and later calls are refused
    /// the same way. The
    /// transports stay open so that the answers reach their clients; see
    /// [`Gateway::drain`].
    pub fn begin_stop(&self) {
        self.stopping.cancel();
    }

    /// True once [`Gateway::begin_stop`] was called.
    pub fn is_stopping(&self) -> bool {
        self.stopping.is_cancelled()
    }

    /// Waits until no tool call is being answered, at most `max`; true when
    /// none is.
    pub async fn drain(&self, max: std::time::Duration) -> bool {
        let deadline = tokio::time::Instant::now() + max;
        while self.in_flight.load(Ordering::Acquire) > 0 {
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        true
    }
}

/// How often the gateway looks whether calls were answered, and if so gives
/// freed memory back to the system.
pub const TRIM_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// The longest a `tools/list_changed` to one client may take to be handed
/// over (its transport bounds the send itself: `[http] send_timeout_ms`).
pub const LIST_CHANGED_SEND: std::time::Duration = std::time::Duration::from_secs(30);

/// The shortest time between two `tools/list_changed` announcing the same
/// change of code mode's availability (lost, or recovered).
pub const LIST_CHANGED_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

/// When each direction of code mode's availability was last announced.
#[derive(Default)]
struct Announced {
    /// `[lost, recovered]`.
    at: [Option<std::time::Instant>; 2],
}

impl Announced {
    /// How long a change to `up` must wait before it may be announced.
    fn held_back(&self, up: bool, now: std::time::Instant) -> Option<std::time::Duration> {
        let last = self.at[usize::from(up)]?;
        let ready = last + LIST_CHANGED_EVERY;
        (now < ready).then(|| ready - now)
    }

    fn sent(&mut self, up: bool, now: std::time::Instant) {
        self.at[usize::from(up)] = Some(now);
    }
}

/// Sleeps until `at`, or for ever when there is none.
async fn sleep_until_some(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::{embedder, Announced, LIST_CHANGED_EVERY};
    use crate::config::Config;

    #[test]
    fn each_direction_of_code_mode_is_announced_at_most_once_per_window() {
        let t0 = std::time::Instant::now();
        let mut a = Announced::default();
        assert_eq!(a.held_back(false, t0), None);
        a.sent(false, t0);
        // The other direction is not held back by this one.
        assert_eq!(a.held_back(true, t0), None);
        a.sent(true, t0);
        let later = t0 + std::time::Duration::from_secs(10);
        assert_eq!(
            a.held_back(false, later),
            Some(LIST_CHANGED_EVERY - std::time::Duration::from_secs(10))
        );
        assert_eq!(a.held_back(false, t0 + LIST_CHANGED_EVERY), None);
    }

    #[test]
    fn the_model_is_the_named_one_the_installed_one_or_none() {
        let off = Config::parse("semantic = false\n").unwrap();
        assert!(embedder(&off).unwrap().is_none());
        // A plain aggregator serves no search: no model, even a named one.
        let plain = Config::parse("activation = \"never\"\nembed_model = \"/x\"\n").unwrap();
        assert!(embedder(&plain).unwrap().is_none());
        let missing = Config::parse("embed_model = \"/nonexistent-model\"\n").unwrap();
        let err = embedder(&missing).unwrap_err().to_string();
        assert!(err.contains("/nonexistent-model"), "{err}");
        // Nothing named: the installed model when there is one (never an error).
        let default = Config::parse("").unwrap();
        assert_eq!(
            embedder(&default).unwrap().is_some(),
            toolsearch_embed::default_model_dir().is_some()
        );
    }
}
