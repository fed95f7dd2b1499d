//! All configured servers together: they start in parallel, and their tool lists
//! become one catalog snapshot, rebuilt whenever one of them changes (a
//! `tools/list_changed`, a server going down or coming back). One bad server or
//! tool never breaks the snapshot.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
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

/// The servers of one configuration.
pub struct Fleet {
    servers: Vec<Arc<Upstream>>,
    by_name: Arc<HashMap<String, Arc<Upstream>>>,
    /// Per-server allow / deny globs.
    filters: HashMap<String, (Vec<Glob>, Vec<Glob>)>,
    shutdown: CancellationToken,
    events: Mutex<Option<mpsc::UnboundedReceiver<Event>>>,
    tasks: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    startup_timeout: Duration,
    one_client: Arc<AtomicBool>,
    /// What the last snapshot found wrong with each server's tools.
    problems: Mutex<HashMap<String, Vec<String>>>,
}

impl std::fmt::Debug for Fleet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fleet")
            .field("servers", &self.servers)
            .finish_non_exhaustive()
    }
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
        let one_client = Arc::new(AtomicBool::new(false));
        let servers: Vec<Arc<Upstream>> = cfg
            .servers
            .iter()
            .map(|s| {
                Upstream::new(
                    s.clone(),
                    Lifecycle {
                        startup_timeout: cfg.startup_timeout(),
                        lazy: cfg.is_lazy(s),
                        idle_stop: cfg.idle_stop(s),
                        manifest_dir: cfg.manifest_dir(),
                    },
                    tx.clone(),
                    one_client.clone(),
                    links.get(s.name()).cloned(),
                )
            })
            .collect();
        let by_name = Arc::new(
            servers
                .iter()
                .map(|s| (s.name().to_string(), s.clone()))
                .collect(),
        );
        let filters = cfg
            .servers
            .iter()
            .map(|s| {
                let g = |v: &Vec<String>| v.iter().map(|p| Glob::new(p)).collect::<Vec<_>>();
                (s.name().to_string(), (g(&s.allow), g(&s.deny)))
            })
            .collect();
        Arc::new(Fleet {
            servers,
            by_name,
            filters,
            shutdown: CancellationToken::new(),
            events: Mutex::new(Some(rx)),
            tasks: Mutex::new(Vec::new()),
            startup_timeout: cfg.startup_timeout(),
            one_client,
            problems: Mutex::default(),
        })
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

    /// Starts every eager server and waits until each has connected or failed
    /// once (at most the startup timeout: a dead server never blocks startup).
    /// A lazy server with a manifest waits for its first call; one without is
    /// started, and not waited for (its tools come when it answers). Returns
    /// the receiver of later changes.
    pub async fn start(self: &Arc<Self>) -> mpsc::UnboundedReceiver<Event> {
        let mut rx = self
            .events
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .expect("a fleet starts once");
        let lazy: Vec<Arc<Upstream>> = self
            .servers
            .iter()
            .filter(|s| s.is_lazy())
            .cloned()
            .collect();
        if !lazy.is_empty() {
            let read =
                tokio::task::spawn_blocking(move || lazy.iter().for_each(|s| s.load_manifest()));
            if let Err(e) = read.await {
                tracing::warn!(error = %e, "reading the manifests failed; lazy servers start now");
            }
        }
        {
            let mut tasks = self.tasks.lock().unwrap_or_else(|p| p.into_inner());
            for s in &self.servers {
                tasks.push(tokio::spawn(s.clone().run(self.shutdown.clone())));
            }
        }
        let mut pending: std::collections::HashSet<String> = self
            .servers
            .iter()
            .filter(|s| !s.is_lazy())
            .map(|s| s.name().to_string())
            .collect();
        let deadline = tokio::time::Instant::now() + self.startup_timeout + Duration::from_secs(1);
        while !pending.is_empty() {
            match tokio::time::timeout_at(deadline, rx.recv()).await {
                Ok(Some(Event::Changed(name))) => {
                    pending.remove(&name);
                }
                Ok(None) | Err(_) => break,
            }
        }
        rx
    }

    /// Waits until no server is starting and every list taken is in its
    /// manifest, at most `limit` (for a report on every server: `config check
    /// --servers`).
    pub async fn settled(&self, limit: Duration) {
        let deadline = tokio::time::Instant::now() + limit;
        while self
            .servers
            .iter()
            .any(|s| s.phase() == Phase::Starting || s.manifest_pending())
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The servers.
    pub fn servers(&self) -> &[Arc<Upstream>] {
        &self.servers
    }

    /// One server by its configured name.
    pub fn server(&self, name: &str) -> Option<&Arc<Upstream>> {
        self.by_name.get(name)
    }

    /// Every server's state.
    pub fn status(&self) -> Vec<ServerStatus> {
        self.servers
            .iter()
            .map(|s| ServerStatus {
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
                list_changes: s.list_changes(),
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
        for s in &self.servers {
            let Some(listed) = s.tools() else { continue };
            let opts = LoadOptions {
                served_by: Some(s.name().to_string()),
                ..Default::default()
            };
            let loaded = match toolsearch_catalog::load::load_definitions(
                Value::Array((*listed).clone()),
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
            let (allow, deny) = &self.filters[s.name()];
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
                (toolsearch_catalog::Source::Mcp, Some(server)) => {
                    fleet.by_name.get(server).is_none_or(|s| s.available())
                }
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
                .servers
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

    /// Every server by its configured name.
    pub fn by_name(&self) -> Arc<HashMap<String, Arc<Upstream>>> {
        self.by_name.clone()
    }

    /// Stops every server (and everything they started) and waits for them,
    /// at most [`STOP_WAIT`] in all (each server's stop is bounded on its own;
    /// this bounds the sum).
    pub async fn shutdown(&self) {
        self.shutdown.cancel();
        let tasks: Vec<_> =
            std::mem::take(&mut *self.tasks.lock().unwrap_or_else(|p| p.into_inner()));
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
