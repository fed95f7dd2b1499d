//! A client profile at run time: its own facade over the part of the fleet's
//! snapshot it sees. A tool outside that part is not in the profile's catalog
//! at all, so nothing the facade answers (lists, counts, ranking statistics,
//! did-you-mean, stale ids, outages) can tell it exists; the fleet, the
//! dispatcher, the sandbox pool and the embedding model are shared.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use toolsearch::{Conversation, Mode, Policy, Provider, Session, ToolSearch};
use toolsearch_catalog::{Catalog, Source, Tool};

use crate::config::ProfileConfig;

/// One `tools/list` answer, made once per snapshot.
struct Served {
    snapshot: u64,
    code_mode: bool,
    tools: Arc<Vec<rmcp::model::Tool>>,
}

/// The bytes of a profile's `tools/list` answer against a plain
/// aggregator's (every tool of its catalog with its whole schema), as of
/// its last answer made.
#[derive(Clone, Copy, Default)]
pub(crate) struct ListBytes {
    pub(crate) served: usize,
    pub(crate) aggregator: usize,
    /// The snapshot the aggregator's bytes are of (made once for each).
    snapshot: Option<u64>,
}

/// The bytes of `tools` as a `tools/list` answer.
fn list_bytes<T: serde::Serialize>(tools: &[T]) -> usize {
    serde_json::to_string(&serde_json::json!({ "tools": tools })).map_or(0, |s| s.len())
}

/// The bytes a plain aggregator would send for `catalog`: each tool's name,
/// description and schemas.
fn aggregator_bytes(catalog: &Catalog) -> usize {
    let tools: Vec<serde_json::Value> = catalog
        .tools()
        .iter()
        .map(|t| {
            serde_json::json!({
                "name": t.name,
                "description": t.description,
                "inputSchema": t.input_schema,
                "outputSchema": t.output_schema,
            })
        })
        .collect();
    list_bytes(&tools)
}

/// A profile: its configuration, its facade, what its clients were last
/// served, and its sessions.
pub(crate) struct Profile {
    pub(crate) cfg: ProfileConfig,
    pub(crate) ts: Arc<ToolSearch>,
    /// The `tools/list` answer for the current snapshot (not in reveal mode,
    /// where each session has its own).
    served: Mutex<Option<Served>>,
    /// The list its clients were last told of (a change is a `list_changed`
    /// to the profile's clients only). Held while a new list is made and
    /// compared: the fleet's follower and code mode's never interleave.
    announced: tokio::sync::Mutex<Option<Arc<Vec<rmcp::model::Tool>>>>,
    /// The servers with a tool in its catalog (whose outages it hears when
    /// globs narrow it).
    seen: Seen,
    /// A conversation of no client, whose list is what a new session is served.
    probe: Conversation,
    /// Its sessions open now: shared with the facade a new configuration
    /// makes for it (its sessions move over one by one; the count is the
    /// profile's, whichever facade they are on).
    pub(crate) open: Arc<AtomicU64>,
    /// Its list's bytes against a plain aggregator's (see [`ListBytes`]);
    /// measured only when `counted` (`[telemetry] metrics`).
    pub(crate) bytes: Mutex<ListBytes>,
    counted: bool,
    /// What its facade was made from (see `apply`).
    pub(crate) recipe: String,
    /// When the bytes it serves last changed (its making, when a new
    /// configuration changed them): how long a client may keep its list
    /// follows from it (see [`Profile::list_ttl`]).
    changed_at: Mutex<Instant>,
}

/// The shortest and longest `ttlMs` a `tools/list` answer carries.
const LIST_TTL: (Duration, Duration) = (Duration::from_secs(1), Duration::from_secs(300));

impl Profile {
    pub(crate) fn new(
        cfg: ProfileConfig,
        ts: Arc<ToolSearch>,
        seen: Seen,
        recipe: String,
        counted: bool,
    ) -> Profile {
        let probe = ts.open(Session::new("list-changed-probe"));
        Profile {
            cfg,
            ts,
            served: Mutex::new(None),
            announced: tokio::sync::Mutex::new(None),
            seen,
            probe,
            open: Arc::default(),
            bytes: Mutex::default(),
            counted,
            recipe,
            changed_at: Mutex::new(Instant::now()),
        }
    }

    /// How long a client may treat its `tools/list` answer as fresh: a tenth
    /// of the time the list has not changed (HTTP's heuristic freshness),
    /// from 1 s to 5 min; 1 s while tools are still expected (a server in
    /// its first start, not listed yet). It is said to stateless clients
    /// only, whose list no reveal changes (no session keeps one).
    pub(crate) fn list_ttl(&self, pending: bool) -> Duration {
        if pending {
            return LIST_TTL.0;
        }
        let age = self
            .changed_at
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .elapsed();
        (age / 10).clamp(LIST_TTL.0, LIST_TTL.1)
    }

    /// When its served bytes last changed.
    pub(crate) fn changed_at(&self) -> Instant {
        *self.changed_at.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes over its predecessor's: a new configuration served the same bytes.
    pub(crate) fn unchanged_since(&self, at: Instant) {
        *self.changed_at.lock().unwrap_or_else(|p| p.into_inner()) = at;
    }

    /// Counts its sessions on `open` (its predecessor's, when a new
    /// configuration made it again).
    pub(crate) fn counting_on(mut self, open: Arc<AtomicU64>) -> Profile {
        self.open = open;
        self
    }

    /// The list its clients were last told of.
    pub(crate) async fn last_announced(&self) -> Option<Arc<Vec<rmcp::model::Tool>>> {
        self.announced.lock().await.clone()
    }

    /// Its name.
    pub(crate) fn name(&self) -> &str {
        self.cfg.name()
    }

    /// True when this profile sees every tool of the fleet.
    fn sees_all(cfg: &ProfileConfig) -> bool {
        cfg.servers.is_none()
            && cfg.allow.is_empty()
            && cfg.deny.is_empty()
            && cfg.no_login.is_empty()
    }

    /// True when `tool` is in the profile's view.
    pub(crate) fn sees(cfg: &ProfileConfig, narrow: &Policy, tool: &Tool) -> bool {
        let server_seen = match (tool.source, tool.server.as_deref()) {
            (Source::Mcp, Some(server)) => cfg.sees_server(server),
            _ => true,
        };
        server_seen && narrow.allows(tool)
    }

    /// The part of `full` the profile `cfg` sees (`full` itself when it sees
    /// everything).
    pub(crate) fn narrowed(cfg: &ProfileConfig, full: &Catalog) -> Catalog {
        if Self::sees_all(cfg) {
            return full.clone();
        }
        let narrow = Policy::from_patterns(&cfg.allow, &cfg.deny);
        let tools: Vec<Tool> = full
            .tools()
            .iter()
            .filter(|t| Self::sees(cfg, &narrow, t))
            .cloned()
            .collect();
        Catalog::new(tools).unwrap_or_else(|e| {
            // A part of a valid catalog is valid: a bug, not a bad server.
            tracing::error!(profile = cfg.name(), error = %e, "narrowing the snapshot failed; the profile sees no tool");
            Catalog::empty()
        })
    }

    /// Gives the profile its part of a new snapshot.
    pub(crate) fn set_catalog(&self, full: &Catalog) {
        let part = Self::narrowed(&self.cfg, full);
        *self.seen.write().unwrap_or_else(|p| p.into_inner()) = servers_of(&part);
        self.ts.set_catalog(part);
    }

    /// The outages the profile may hear of: of servers it names (all when it
    /// names none), and, when globs narrow it, only of those with a tool in
    /// its catalog (a server whose tools it cannot see is not there for it).
    pub(crate) fn outages(
        cfg: &ProfileConfig,
        all: toolsearch::Outages,
        seen: Seen,
    ) -> toolsearch::Outages {
        if Self::sees_all(cfg) {
            return all;
        }
        let cfg = cfg.clone();
        let globs = !(cfg.allow.is_empty() && cfg.deny.is_empty());
        Arc::new(move || {
            let seen = seen.read().unwrap_or_else(|p| p.into_inner());
            let mut heard: Vec<toolsearch::Outage> = all()
                .into_iter()
                .filter(|o| cfg.sees_server(&o.server) && (!globs || seen.contains(&o.server)))
                .collect();
            // An OAuth server whose login is not this profile's to use.
            heard.extend(
                cfg.no_login
                    .iter()
                    .filter(|s| cfg.names_server(s))
                    .map(|s| toolsearch::Outage {
                        server: s.clone(),
                        reason: format!(
                            "needs a login for profile `{}`: the server's login is not shared with it (an operator names the profile in the server's `oauth.profiles`, or gives it an entry with its own login)",
                            cfg.name()
                        ),
                        starting: false,
                    }),
            );
            heard
        })
    }

    /// What `tools/list` answers `conversation` for `snapshot`: made on a
    /// blocking thread (with metrics on, every schema is serialised for the
    /// size estimate) once
    /// per snapshot and availability of code mode, and shared by the profile's
    /// sessions; in reveal mode each session's own.
    pub(crate) async fn served(
        &self,
        snapshot: u64,
        conversation: &Conversation,
    ) -> Arc<Vec<rmcp::model::Tool>> {
        let per_session = self.ts.settings().mode == Mode::Reveal;
        let code_mode = *self.ts.code_mode_changes().borrow();
        if !per_session {
            let served = self.served.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(s) = served.as_ref() {
                if s.snapshot == snapshot && s.code_mode == code_mode {
                    return s.tools.clone();
                }
            }
        }
        let conversation = conversation.clone();
        let catalog = self.ts.host().catalog();
        let known = *self.bytes.lock().unwrap_or_else(|p| p.into_inner());
        let known = (known.snapshot == Some(snapshot)).then_some(known.aggregator);
        let counted = self.counted;
        let (tools, bytes) = tokio::task::spawn_blocking(move || {
            let tools: Vec<rmcp::model::Tool> = conversation
                .definitions(Provider::Mcp)
                .tools
                .into_iter()
                .filter_map(|t| serde_json::from_value(t).ok())
                .collect();
            let bytes = if counted {
                ListBytes {
                    served: list_bytes(&tools),
                    aggregator: known.unwrap_or_else(|| aggregator_bytes(&catalog)),
                    snapshot: Some(snapshot),
                }
            } else {
                ListBytes::default()
            };
            (tools, bytes)
        })
        .await
        .unwrap_or_default();
        let tools = Arc::new(tools);
        *self.bytes.lock().unwrap_or_else(|p| p.into_inner()) = bytes;
        if !per_session {
            let mut served = self.served.lock().unwrap_or_else(|p| p.into_inner());
            // The bytes changed now (a snapshot, code mode's availability),
            // whenever the change is announced.
            if served.as_ref().is_some_and(|s| *s.tools != *tools) {
                *self.changed_at.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
            }
            *served = Some(Served {
                snapshot,
                code_mode,
                tools: tools.clone(),
            });
        }
        tools
    }

    /// Makes the list a new session would be served for the current snapshot
    /// (`snapshots` built so far), and records it as announced; true when it
    /// differs from the last one announced (its clients must hear
    /// `list_changed`). The first look only records.
    pub(crate) async fn list_changed(&self, snapshots: &AtomicU64) -> bool {
        let mut announced = self.announced.lock().await;
        let now = self
            .served(snapshots.load(Ordering::SeqCst), &self.probe)
            .await;
        let changed = announced.as_ref().is_some_and(|last| *last != now);
        if changed {
            *self.changed_at.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
        }
        *announced = Some(now);
        changed
    }

    /// Counts a session opened; see [`Profile::closed`].
    pub(crate) fn opened(&self) {
        self.open.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a session closed.
    pub(crate) fn closed(&self) {
        self.open.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The servers with a tool in a profile's catalog, shared with its outages
/// hook.
pub(crate) type Seen = Arc<RwLock<HashSet<String>>>;

/// The servers with a tool in `catalog`.
pub(crate) fn servers_of(catalog: &Catalog) -> HashSet<String> {
    catalog
        .tools()
        .iter()
        .filter_map(|t| t.server.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(server: &str, name: &str) -> Tool {
        Tool::new(
            Source::Mcp,
            Some(server),
            name,
            "does a thing",
            serde_json::json!({"type": "object"}),
        )
    }

    #[test]
    fn a_profile_sees_its_servers_and_globs_only() {
        let full = Catalog::new(vec![
            tool("a", "read"),
            tool("a", "delete"),
            tool("b", "read"),
        ])
        .unwrap();
        let mut cfg = ProfileConfig::open("p");
        assert_eq!(Profile::narrowed(&cfg, &full).len(), 3);
        cfg.servers = Some(vec!["a".into()]);
        cfg.deny = vec!["*delete*".into()];
        let part = Profile::narrowed(&cfg, &full);
        let ids: Vec<&str> = part.tools().iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["mcp:a:read"]);
    }
}
