//! All configured servers together: they start in parallel, and their tool lists
//! become one catalog snapshot, rebuilt whenever one of them changes (a
//! `tools/list_changed`, a server going down or coming back). One bad server or
//! tool never breaks the snapshot.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use toolsearch::{Availability, Glob};
use toolsearch_catalog::{Catalog, LoadOptions, Tool};

use super::server::{Event, Lifecycle, Link, Phase, Upstream};
use crate::config::Config;

/// The longest a fleet's stop waits for its servers.
pub const STOP_WAIT: Duration = Duration::from_secs(4);

/// The servers of one configuration (see [`Fleet::apply`] for a new one).
pub struct Fleet {
    /// The servers configured now; swapped whole by [`Fleet::apply`].
    members: RwLock<Arc<Members>>,
    shutdown: CancellationToken,
    /// Where every server tells of its changes (a new server gets a sender).
    tx: mpsc::UnboundedSender<Event>,
    events: Mutex<Option<mpsc::UnboundedReceiver<Event>>>,
    /// Each server's task, with the token that stops it alone; servers being
    /// retired (removed or replaced) stay here until they are gone.
    tasks: Mutex<Vec<Task>>,
    one_client: Arc<AtomicBool>,
    /// In-process servers by name (tests, embedders), kept for a server a
    /// new configuration adds or changes.
    links: HashMap<String, Link>,
    /// What the last snapshot found wrong with each server's tools.
    problems: Mutex<HashMap<String, Vec<String>>>,
}

/// A server's task, and the token that stops it alone.
struct Task {
    server: Arc<Upstream>,
    stop: CancellationToken,
    handle: tokio::task::JoinHandle<()>,
}

/// The servers of one configuration, with what each was made from.
struct Members {
    list: Vec<Arc<Upstream>>,
    by_name: HashMap<String, Arc<Upstream>>,
    /// Per-server allow / deny globs.
    filters: HashMap<String, (Vec<Glob>, Vec<Glob>)>,
    /// What each server was made from (its entry and its lifecycle): a
    /// server whose recipe changes is replaced.
    recipes: HashMap<String, String>,
}

/// What [`Fleet::apply`] changed, by server name.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FleetChanges {
    /// Servers started for the new configuration.
    pub added: Vec<String>,
    /// Servers that stopped taking calls (retired once their calls end).
    pub removed: Vec<String>,
    /// Servers restarted with their new entry.
    pub changed: Vec<String>,
}

impl FleetChanges {
    /// True when no server changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

impl std::fmt::Debug for Fleet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fleet")
            .field("servers", &self.members().list)
            .finish_non_exhaustive()
    }
}

/// What a server of `cfg` is made from: its entry (secrets included: a
/// rotated token restarts it) and its lifecycle (the startup timeout is not:
/// a new one applies to the servers a configuration starts).
fn recipe(cfg: &Config, s: &crate::config::ServerConfig) -> String {
    let lazy = cfg.is_lazy(s);
    format!(
        "{}|{lazy}|{:?}|{:?}",
        serde_json::to_string(s).unwrap_or_default(),
        cfg.idle_stop(s),
        cfg.manifest_dir()
    )
}

/// A server's state, for `status` and logs.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ServerStatus {
    /// Configured name.
    pub name: String,
    /// Connected now.
    pub up: bool,
    /// Tools it last listed.
    pub tools: usize,
    /// Why it is down.
    pub error: Option<String>,
    /// Times it came up.
    pub connections: u64,
    /// Calls running on it now.
    pub calls_in_flight: usize,
    /// Where it is in its life.
    pub state: Phase,
    /// Started by its first call (see `lazy`).
    pub lazy: bool,
    /// Seconds since its manifest was written (`None`: it has none).
    pub manifest_age_s: Option<u64>,
    /// Why its manifest was not used or written, when it was not.
    pub manifest_note: Option<String>,
    /// Lists it gave that differed from the one before (its manifest's
    /// included): each changed the tools every client sees.
    pub list_changes: u64,
    /// Seconds since its tool list last changed (its first list included),
    /// when it has listed.
    pub list_changed_s: Option<u64>,
    /// The MCP revision it spoke at its last connection (`2026-07-28`, or a
    /// handshake-era one), when known.
    pub protocol: Option<String>,
    /// What is wrong with its tools (each names its tool; at most
    /// [`MAX_SHOWN_PROBLEMS`], then how many more), as of the last snapshot.
    pub problems: Vec<String>,
}

/// Most problems shown per server.
pub const MAX_SHOWN_PROBLEMS: usize = 20;

impl Fleet {
    /// The servers of `cfg`, not started.
    pub fn new(cfg: &Config) -> Arc<Fleet> {
        Fleet::linked(cfg, &HashMap::new())
    }

    /// The servers of `cfg`, not started; those named in `links` are reached
    /// through their link (see [`Link`]).
    pub fn linked(cfg: &Config, links: &HashMap<String, Link>) -> Arc<Fleet> {
        let (tx, rx) = mpsc::unbounded_channel();
        let fleet = Arc::new(Fleet {
            members: RwLock::new(Arc::new(Members {
                list: Vec::new(),
                by_name: HashMap::new(),
                filters: HashMap::new(),
                recipes: HashMap::new(),
            })),
            shutdown: CancellationToken::new(),
            tx,
            events: Mutex::new(Some(rx)),
            tasks: Mutex::new(Vec::new()),
            one_client: Arc::new(AtomicBool::new(false)),
            links: links.clone(),
            problems: Mutex::default(),
        });
        let members = fleet.members_of(cfg, &fleet.members());
        *fleet.members.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(members);
        fleet
    }

    /// The servers configured now.
    fn members(&self) -> Arc<Members> {
        self.members
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The servers of `cfg`: those of `now` whose recipe is the same are
    /// kept, the others are made (not started).
    fn members_of(&self, cfg: &Config, now: &Members) -> Members {
        let mut list = Vec::with_capacity(cfg.servers.len());
        let mut recipes = HashMap::new();
        for s in &cfg.servers {
            let r = recipe(cfg, s);
            let kept = now
                .by_name
                .get(s.name())
                .filter(|_| now.recipes.get(s.name()) == Some(&r));
            list.push(match kept {
                Some(up) => up.clone(),
                None => Upstream::new(
                    s.clone(),
                    Lifecycle {
                        startup_timeout: cfg.startup_timeout(),
                        lazy: cfg.is_lazy(s),
                        idle_stop: cfg.idle_stop(s),
                        manifest_dir: cfg.manifest_dir(),
                    },
                    self.tx.clone(),
                    self.one_client.clone(),
                    self.links.get(s.name()).cloned(),
                ),
            });
            recipes.insert(s.name().to_string(), r);
        }
        let by_name = list
            .iter()
            .map(|s| (s.name().to_string(), s.clone()))
            .collect();
        let filters = cfg
            .servers
            .iter()
            .map(|s| {
                let g = |v: &Vec<String>| v.iter().map(|p| Glob::new(p)).collect::<Vec<_>>();
                (s.name().to_string(), (g(&s.allow), g(&s.deny)))
            })
            .collect();
        Members {
            list,
            by_name,
            filters,
            recipes,
        }
    }

    /// Starts `server`'s task, stopped by its own token (a child of the
    /// fleet's).
    fn spawn(&self, server: &Arc<Upstream>) {
        let stop = self.shutdown.child_token();
        let handle = tokio::spawn(server.clone().run(stop.clone()));
        let mut tasks = self.tasks.lock().unwrap_or_else(|p| p.into_inner());
        tasks.retain(|t| !t.handle.is_finished());
        tasks.push(Task {
            server: server.clone(),
            stop,
            handle,
        });
    }

    /// Applies a new configuration's servers: a server added is started, one
    /// removed or changed stops taking calls at once (calls name the new one,
    /// or find it not configured) and is stopped once its calls in flight
    /// have ended, at most `drain` later (calls still running then end with
    /// an error naming why); a changed one's replacement starts now. The
    /// catalog follows (an event per server). Servers whose entry and
    /// lifecycle are the same are kept as they are, connections and all.
    pub fn apply(self: &Arc<Self>, cfg: &Config, drain: Duration) -> FleetChanges {
        let now = self.members();
        let next = self.members_of(cfg, &now);
        let mut changes = FleetChanges::default();
        let mut retired = Vec::new();
        for old in &now.list {
            match next.by_name.get(old.name()) {
                Some(new) if Arc::ptr_eq(new, old) => {}
                Some(_) => {
                    changes.changed.push(old.name().to_string());
                    retired.push(old.clone());
                }
                None => {
                    changes.removed.push(old.name().to_string());
                    retired.push(old.clone());
                }
            }
        }
        let started: Vec<Arc<Upstream>> = next
            .list
            .iter()
            .filter(|s| !now.by_name.get(s.name()).is_some_and(|o| Arc::ptr_eq(o, s)))
            .cloned()
            .collect();
        for s in &started {
            if !now.by_name.contains_key(s.name()) {
                changes.added.push(s.name().to_string());
            }
        }
        *self.members.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(next);
        for s in &started {
            s.load_manifest();
            self.spawn(s);
        }
        for old in retired {
            let name = old.name().to_string();
            let _ = self.tx.send(Event::Changed(name.clone()));
            let fleet = Arc::downgrade(self);
            tokio::spawn(async move {
                let deadline = tokio::time::Instant::now() + drain;
                while (old.calls().len() > 0 || old.is_busy())
                    && tokio::time::Instant::now() < deadline
                {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                let Some(fleet) = fleet.upgrade() else { return };
                fleet.retire(&old);
                tracing::info!(server = %name, "server retired: it left the configuration");
            });
        }
        changes
    }

    /// Asks for a new snapshot (after a new configuration: its facades are
    /// given the servers' lists as they are now).
    pub(crate) fn resnapshot(&self, why: &str) {
        let _ = self.tx.send(Event::Changed(why.to_string()));
    }

    /// Stops a server that left the configuration (its task's own token).
    fn retire(&self, server: &Arc<Upstream>) {
        let tasks = self.tasks.lock().unwrap_or_else(|p| p.into_inner());
        for t in tasks.iter().filter(|t| Arc::ptr_eq(&t.server, server)) {
            t.stop.cancel();
        }
    }

    /// Set once the gateway serves a single client for its whole life (see
    /// [`Fleet::serve_one_client`]).
    pub(crate) fn one_client(&self) -> Arc<AtomicBool> {
        self.one_client.clone()
    }

    /// Says that the gateway serves one client for its whole life (the stdio
    /// gateway): what a server sends that names no call goes to that client's
    /// calls in flight (see `route`). Never set it for a gateway shared by
    /// several clients.
    pub fn serve_one_client(&self) {
        self.one_client.store(true, Ordering::Relaxed);
    }

    /// Reads every server's manifest, starts every eager server (and each lazy
    /// one with no manifest) and returns at once with the receiver of later
    /// changes: no server's start is waited for (see [`Fleet::first_known`]).
    /// A lazy server with a manifest waits for its first call.
    pub async fn start(self: &Arc<Self>) -> mpsc::UnboundedReceiver<Event> {
        let rx = self
            .events
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .expect("a fleet starts once");
        let members = self.members();
        let all = members.list.clone();
        let read = tokio::task::spawn_blocking(move || all.iter().for_each(|s| s.load_manifest()));
        if let Err(e) = read.await {
            tracing::warn!(error = %e, "reading the manifests failed; servers start with no list");
        }
        for s in &members.list {
            self.spawn(s);
        }
        rx
    }

    /// A digest of what a snapshot is made of (each server's list and whether
    /// it takes calls): equal digests make equal snapshots.
    pub fn version(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for s in &self.members().list {
            s.name().hash(&mut h);
            s.tools().map(|t| Arc::as_ptr(&t) as usize).hash(&mut h);
            s.available().hash(&mut h);
            (s.phase() as u8).hash(&mut h);
        }
        h.finish()
    }

    /// The names of the servers whose state `is` says yes to.
    fn names_where(&self, is: impl Fn(&super::server::State) -> bool) -> Vec<String> {
        self.members()
            .list
            .iter()
            .filter(|s| is(&s.state()))
            .map(|s| s.name().to_string())
            .collect()
    }

    /// Servers in their first start with no list known yet (no manifest).
    pub fn unknown(&self) -> Vec<String> {
        self.names_where(|st| st.first_start() && st.tools.is_none())
    }

    /// Servers whose first start is under way (a lazy one with a manifest
    /// waits for its first call: it is not).
    pub fn first_starting(&self) -> Vec<String> {
        self.names_where(super::server::State::first_start)
    }

    /// Waits until every server's tools are known (listed, or from its
    /// manifest) or its first start failed, at most `limit`; the servers still
    /// unknown then.
    pub async fn first_known(&self, limit: Duration) -> Vec<String> {
        self.wait_while(limit, Self::unknown).await
    }

    /// Waits until every server has connected or failed once (its first
    /// start is over), at most `limit`; the servers still starting then.
    pub async fn first_attempts(&self, limit: Duration) -> Vec<String> {
        self.wait_while(limit, Self::first_starting).await
    }

    /// Waits while `pending` names a server (looked at again at each change
    /// of any server's state), at most `limit`; what it names then.
    async fn wait_while(&self, limit: Duration, pending: fn(&Self) -> Vec<String>) -> Vec<String> {
        let deadline = tokio::time::Instant::now() + limit;
        let members = self.members();
        let mut pings: Vec<_> = members.list.iter().map(|s| s.pings.subscribe()).collect();
        loop {
            let unknown = pending(self);
            if unknown.is_empty() || pings.is_empty() {
                return unknown;
            }
            let gone = tokio::select! {
                (r, i, _) = futures::future::select_all(pings.iter_mut().map(|p| Box::pin(p.changed()))) => {
                    r.is_err().then_some(i)
                }
                () = tokio::time::sleep_until(deadline) => return pending(self),
                () = self.shutdown.cancelled() => return pending(self),
            };
            if let Some(i) = gone {
                // That server is gone: nothing more comes from it.
                pings.swap_remove(i);
            }
        }
    }

    /// Waits until no server is starting and every list taken is in its
    /// manifest, at most `limit` (for a report on every server: `config check
    /// --servers`).
    pub async fn settled(&self, limit: Duration) {
        let deadline = tokio::time::Instant::now() + limit;
        while self
            .members()
            .list
            .iter()
            .any(|s| s.phase() == Phase::Starting || s.manifest_pending())
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The servers configured now.
    pub fn servers(&self) -> Vec<Arc<Upstream>> {
        self.members().list.clone()
    }

    /// One server by its configured name (the one configured now).
    pub fn server(&self, name: &str) -> Option<Arc<Upstream>> {
        self.members().by_name.get(name).cloned()
    }

    /// Every server's state.
    pub fn status(&self) -> Vec<ServerStatus> {
        self.members()
            .list
            .iter()
            .map(|s| (s, s.list_changes()))
            .map(|(s, (list_changes, changed_at))| ServerStatus {
                name: s.name().to_string(),
                up: s.is_up(),
                tools: s.tools().map_or(0, |t| t.len()),
                error: s.last_error(),
                connections: s.connections(),
                calls_in_flight: s.calls().len(),
                state: s.phase(),
                lazy: s.is_lazy(),
                manifest_age_s: s.manifest_age().map(|d| d.as_secs()),
                manifest_note: s.manifest_note(),
                list_changes,
                list_changed_s: changed_at.map(|at| at.elapsed().as_secs()),
                protocol: s.protocol(),
                problems: self
                    .problems
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get(s.name())
                    .cloned()
                    .unwrap_or_default(),
            })
            .collect()
    }

    /// A catalog of every server's last-listed tools (`extra` first: built-ins
    /// or tools from files). Problems are logged, naming server and tool; the tool
    /// is dropped or repaired and the rest of its server loads.
    pub fn snapshot(&self, extra: &[Tool]) -> Catalog {
        let mut tools: Vec<Tool> = extra.to_vec();
        let members = self.members();
        for s in &members.list {
            let Some(listed) = s.tools() else { continue };
            let opts = LoadOptions {
                served_by: Some(s.name().to_string()),
                ..Default::default()
            };
            let loaded = match toolsearch_catalog::load::load_definitions(
                Value::Array(in_name_order(&listed)),
                &opts,
            ) {
                Ok(l) => l,
                Err(e) => {
                    tracing::warn!(server = s.name(), error = %crate::text::clean_for_log(&crate::text::redact_urls(&e.to_string()), 500), "tools dropped");
                    continue;
                }
            };
            let shown: Vec<String> =
                loaded
                    .problems
                    .iter()
                    .take(MAX_SHOWN_PROBLEMS)
                    .map(|p| {
                        format!(
                            "tool `{}`{}: {}",
                            crate::text::clean_for_log(p.tool.as_deref().unwrap_or("?"), 120),
                            if p.skipped { " (not served)" } else { "" },
                            crate::text::clean_for_log(&p.message, 500)
                        )
                    })
                    .chain((loaded.problems.len() > MAX_SHOWN_PROBLEMS).then(|| {
                        format!("and {} more", loaded.problems.len() - MAX_SHOWN_PROBLEMS)
                    }))
                    .collect();
            self.problems
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(s.name().to_string(), shown);
            for p in &loaded.problems {
                tracing::warn!(
                    server = s.name(),
                    tool = %crate::text::clean_for_log(p.tool.as_deref().unwrap_or("?"), 120),
                    skipped = p.skipped,
                    "{}",
                    crate::text::clean_for_log(&p.message, 500)
                );
            }
            let (allow, deny) = &members.filters[s.name()];
            tools.extend(
                loaded
                    .catalog
                    .tools()
                    .iter()
                    .filter(|t| {
                        !deny.iter().any(|g| g.matches_tool(t))
                            && (allow.is_empty() || allow.iter().any(|g| g.matches_tool(t)))
                    })
                    .cloned(),
            );
        }
        match Catalog::new(tools) {
            Ok(c) => c,
            Err(e) => {
                // Ids are unique by construction (servers have unique names); this
                // is a bug, not a bad server: keep serving the built-ins.
                tracing::error!(error = %e, "snapshot failed; serving only the built-in tools");
                Catalog::new(extra.to_vec()).unwrap_or_else(|_| Catalog::empty())
            }
        }
    }

    /// Tells the host which tools' servers are down (a stopped lazy server is
    /// not: a call starts it).
    pub fn availability(self: &Arc<Self>) -> Availability {
        let fleet = Arc::downgrade(self);
        Arc::new(move |tool: &Tool| {
            let Some(fleet) = fleet.upgrade() else {
                return true;
            };
            match (tool.source, tool.server.as_deref()) {
                (toolsearch_catalog::Source::Mcp, Some(server)) => fleet
                    .members()
                    .by_name
                    .get(server)
                    .is_none_or(|s| s.available()),
                _ => true,
            }
        })
    }

    /// Tells the host which servers are down now, and why, and which are still
    /// starting with no tools to show yet.
    pub fn outages(self: &Arc<Self>) -> toolsearch::Outages {
        let fleet = Arc::downgrade(self);
        Arc::new(move || {
            let Some(fleet) = fleet.upgrade() else {
                return Vec::new();
            };
            fleet
                .members()
                .list
                .iter()
                .filter(|s| !(s.is_up() || s.available() && s.phase() != Phase::Down))
                .map(|s| {
                    let starting = s.phase() == Phase::Starting
                        && s.tools().is_none()
                        && s.last_error().is_none();
                    toolsearch::Outage {
                        server: s.name().to_string(),
                        reason: match s.last_error() {
                            Some(e) if s.is_lazy() && s.tools().is_some() => {
                                format!("{e}; the next call starts it again")
                            }
                            Some(e) => e,
                            None if starting => {
                                "starting; its tools are listed when it answers".into()
                            }
                            None => "not connected yet".into(),
                        },
                        starting,
                    }
                })
                .collect()
        })
    }

    /// Stops every server (and everything they started) and waits for them,
    /// at most [`STOP_WAIT`] in all (each server's stop is bounded on its own;
    /// this bounds the sum).
    pub async fn shutdown(&self) {
        self.shutdown.cancel();
        let tasks: Vec<_> =
            std::mem::take(&mut *self.tasks.lock().unwrap_or_else(|p| p.into_inner()))
                .into_iter()
                .map(|t| t.handle)
                .collect();
        let aborts: Vec<_> = tasks.iter().map(|t| t.abort_handle()).collect();
        if tokio::time::timeout(STOP_WAIT, futures::future::join_all(tasks))
            .await
            .is_err()
        {
            tracing::warn!(
                "servers were still stopping {} ms after the stop began",
                STOP_WAIT.as_millis()
            );
            // Dropped, a server's process is signalled at once (see `child`).
            aborts.iter().for_each(tokio::task::AbortHandle::abort);
        }
    }
}

/// A server's listed tools by name (those without one last, as listed): the
/// catalog, and so every list served, is the same whatever order a server
/// lists its tools in (a reorder alone is not a prompt-cache write).
fn in_name_order(listed: &[Value]) -> Vec<Value> {
    let mut tools = listed.to_vec();
    tools.sort_by_cached_key(|v| match v.get("name").and_then(Value::as_str) {
        Some(n) => (false, n.to_owned()),
        None => (true, String::new()),
    });
    tools
}
