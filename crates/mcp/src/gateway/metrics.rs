//! What the operator's `/metrics` shows, in the Prometheus (OpenMetrics) text
//! format through `prometheus-client`. Every label set is bounded: profiles
//! and servers are the configured ones (anything else is `other`), kinds and
//! outcomes are fixed words; no tool or session id is ever a label.

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::Mutex;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use toolsearch::{BridgeTool, ToolOutput, TurnRecord};

use super::Gateway;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    profile: String,
    kind: String,
    outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabels {
    profile: String,
    kind: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ServerCallLabels {
    profile: String,
    server: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ServerLabels {
    server: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct SentLabels {
    server: String,
    outcome: &'static str,
}

/// Calls sent to each server behind the gateway and how they ended: counted
/// where every call is sent (`trial::Recorded`, a client's and a trial's
/// alike), shown by `/metrics` (`server_calls_total`) and the operator
/// page's servers. A server is a configured name: every MCP tool has one.
#[derive(Clone, Default)]
pub(crate) struct Sent(Family<SentLabels, Counter>);

impl Sent {
    /// One call to `server` ended: `ok`, or an error (the server's, its
    /// result's `isError`, or no answer before it was given up).
    pub(crate) fn count(&self, server: &str, ok: bool) {
        let outcome = if ok { "ok" } else { "error" };
        self.0
            .get_or_create(&SentLabels {
                server: server.to_string(),
                outcome,
            })
            .inc();
    }

    /// `(calls, errors)` sent to `server` so far.
    pub(crate) fn of(&self, server: &str) -> (u64, u64) {
        let read = |outcome| {
            let labels = SentLabels {
                server: server.to_string(),
                outcome,
            };
            self.0.get(&labels).map_or(0, |c| c.get())
        };
        let errors = read("error");
        (read("ok") + errors, errors)
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ProfileLabels {
    profile: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DigestLabels {
    digest: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ChangeLabels {
    profile: String,
    cause: &'static str,
}

type Latency = Family<KindLabels, Histogram, fn() -> Histogram>;

fn latency_histogram() -> Histogram {
    // 1 ms to about 65 s.
    Histogram::new(exponential_buckets(0.001, 2.0, 17))
}

/// The gateway's metrics.
pub(crate) struct Metrics {
    registry: Registry,
    calls: Family<CallLabels, Counter>,
    latency: Latency,
    downstream: Family<ServerCallLabels, Counter>,
    refused: Family<ProfileLabels, Counter>,
    server_up: Family<ServerLabels, Gauge>,
    server_tools: Family<ServerLabels, Gauge>,
    server_starts: Family<ServerLabels, Counter>,
    server_in_flight: Family<ServerLabels, Gauge>,
    catalog_tools: Family<ProfileLabels, Gauge>,
    sessions: Family<ProfileLabels, Gauge>,
    code_mode: Family<ProfileLabels, Gauge>,
    snapshots: Counter,
    served_changes: Family<ChangeLabels, Counter>,
    config: Family<DigestLabels, Gauge>,
    snippets_running: Gauge,
    reloads: Family<OutcomeLabels, Counter>,
    snippets_waiting: Gauge,
    sandbox_workers: Gauge,
    sandbox_replaced: Counter,
    list_bytes: Family<ProfileLabels, Gauge>,
    aggregator_bytes: Family<ProfileLabels, Gauge>,
    lists: Family<ProfileLabels, Counter>,
    bytes_saved: Family<ProfileLabels, Counter>,
    query_cache: Family<OutcomeLabels, Counter>,
    store_up: Gauge,
    degraded: Counter,
    /// Scrapes one at a time (the counters set from totals are read and
    /// raised under it).
    scrape: Mutex<()>,
    /// The label values allowed now: the configured servers and profiles.
    names: std::sync::RwLock<Names>,
    /// Each server's object and the connections of it counted so far.
    starts_seen: Mutex<std::collections::HashMap<String, (usize, u64)>>,
    /// `[telemetry] metrics`: off, the request path counts nothing and a
    /// scrape answers only that.
    enabled: bool,
}

#[derive(Default)]
struct Names {
    servers: HashSet<String>,
    profiles: HashSet<String>,
}

impl Metrics {
    pub(crate) fn new(
        servers: &[String],
        profiles: &[String],
        enabled: bool,
        sent: &Sent,
    ) -> Metrics {
        let mut registry = Registry::with_prefix("toolsearch");
        registry.register(
            "server_calls",
            "Calls sent to a server behind the gateway, by server and outcome (ok; error: its error, its result's isError, or no answer in time)",
            sent.0.clone(),
        );
        let calls = Family::<CallLabels, Counter>::default();
        registry.register(
            "calls",
            "Tool calls answered, by profile, kind (snippet, search, describe, call, direct) and outcome (ok or the error code)",
            calls.clone(),
        );
        let latency: Latency = Family::new_with_constructor(latency_histogram);
        registry.register(
            "call_duration_seconds",
            "Time to answer a tool call, by profile and kind",
            latency.clone(),
        );
        let downstream = Family::<ServerCallLabels, Counter>::default();
        registry.register(
            "downstream_calls",
            "Calls run on a server behind the gateway, by profile and server",
            downstream.clone(),
        );
        let refused = Family::<ProfileLabels, Counter>::default();
        registry.register(
            "refused_calls",
            "Downstream calls refused by policy, approval or gate, by profile",
            refused.clone(),
        );
        let server_up = Family::<ServerLabels, Gauge>::default();
        registry.register(
            "server_up",
            "1 when the server is connected",
            server_up.clone(),
        );
        let server_tools = Family::<ServerLabels, Gauge>::default();
        registry.register(
            "server_tools",
            "Tools the server lists",
            server_tools.clone(),
        );
        let server_starts = Family::<ServerLabels, Counter>::default();
        registry.register(
            "server_starts",
            "Connections made to the server (starts and restarts)",
            server_starts.clone(),
        );
        let server_in_flight = Family::<ServerLabels, Gauge>::default();
        registry.register(
            "server_calls_in_flight",
            "Calls running on the server now",
            server_in_flight.clone(),
        );
        let catalog_tools = Family::<ProfileLabels, Gauge>::default();
        registry.register(
            "catalog_tools",
            "Tools in the profile's catalog",
            catalog_tools.clone(),
        );
        let sessions = Family::<ProfileLabels, Gauge>::default();
        registry.register(
            "sessions",
            "MCP sessions open, by profile",
            sessions.clone(),
        );
        let code_mode = Family::<ProfileLabels, Gauge>::default();
        registry.register(
            "code_mode",
            "1 when code mode is available to the profile",
            code_mode.clone(),
        );
        let snapshots = Counter::default();
        registry.register(
            "snapshots",
            "Catalog snapshots built since start (after the first)",
            snapshots.clone(),
        );
        let config = Family::<DigestLabels, Gauge>::default();
        registry.register(
            "config_info",
            "The configuration in force, by its digest (1): the same on every replica that runs one configuration",
            config.clone(),
        );
        let served_changes = Family::<ChangeLabels, Counter>::default();
        registry.register(
            "served_list_changes",
            "Changes of a profile's served tool list, by cause (servers: a server's tools; reload: the configuration; code_mode: the sandbox's availability); each a list_changed and a prompt-cache write",
            served_changes.clone(),
        );
        let snippets_running = Gauge::default();
        registry.register(
            "snippets_running",
            "Snippets holding a slot now",
            snippets_running.clone(),
        );
        let reloads = Family::<OutcomeLabels, Counter>::default();
        registry.register(
            "config_reloads",
            "New configurations put in force (applied) or refused, since start",
            reloads.clone(),
        );
        let snippets_waiting = Gauge::default();
        registry.register(
            "snippets_waiting",
            "Snippets waiting for a slot now (the gateway's queue)",
            snippets_waiting.clone(),
        );
        let sandbox_workers = Gauge::default();
        registry.register(
            "sandbox_workers",
            "Sandbox worker processes alive now (running and standby)",
            sandbox_workers.clone(),
        );
        let sandbox_replaced = Counter::default();
        registry.register(
            "sandbox_replaced_workers",
            "Sandbox workers replaced because they did not stop when told",
            sandbox_replaced.clone(),
        );
        let list_bytes = Family::<ProfileLabels, Gauge>::default();
        registry.register(
            "tools_list_bytes",
            "Bytes of the profile's tools/list answer now (what each conversation carries up front)",
            list_bytes.clone(),
        );
        let aggregator_bytes = Family::<ProfileLabels, Gauge>::default();
        registry.register(
            "aggregator_list_bytes",
            "Bytes a plain aggregator would send up front for the profile's tools (every schema)",
            aggregator_bytes.clone(),
        );
        let lists = Family::<ProfileLabels, Counter>::default();
        registry.register(
            "tools_list_answers",
            "tools/list answers sent, by profile",
            lists.clone(),
        );
        let bytes_saved = Family::<ProfileLabels, Counter>::default();
        registry.register(
            "list_bytes_saved",
            "Bytes not sent up front against a plain aggregator, summed over tools/list answers",
            bytes_saved.clone(),
        );
        let query_cache = Family::<OutcomeLabels, Counter>::default();
        registry.register(
            "embedding_query_cache",
            "Search queries answered from the embedding cache (hit) or embedded (miss)",
            query_cache.clone(),
        );
        let store_up = Gauge::default();
        registry.register(
            "shared_store_up",
            "1 while the Redis the replicas share answers, 0 while it is unreachable (rate budgets are then this replica's share, approvals refused); 1 with no Redis configured",
            store_up.clone(),
        );
        let degraded = Counter::default();
        registry.register(
            "rate_local_share_admissions",
            "Requests admitted or refused by this replica's share of a budget because the shared store was unreachable",
            degraded.clone(),
        );
        Metrics {
            store_up,
            degraded,
            snippets_waiting,
            sandbox_workers,
            sandbox_replaced,
            list_bytes,
            aggregator_bytes,
            lists,
            bytes_saved,
            query_cache,
            reloads,
            registry,
            calls,
            latency,
            downstream,
            refused,
            server_up,
            server_tools,
            server_starts,
            server_in_flight,
            catalog_tools,
            sessions,
            code_mode,
            snapshots,
            served_changes,
            config,
            snippets_running,
            scrape: Mutex::new(()),
            names: std::sync::RwLock::default(),
            starts_seen: Mutex::default(),
            enabled,
        }
        .configured(servers, profiles)
    }

    fn configured(self, servers: &[String], profiles: &[String]) -> Metrics {
        self.configure(servers, profiles);
        self
    }

    /// Sets the label values allowed: a new configuration's servers and
    /// profiles. The gauges of names no longer configured go (a removed
    /// server is not shown up); counters keep their totals, no longer raised.
    pub(crate) fn configure(&self, servers: &[String], profiles: &[String]) {
        let mut n = self.names.write().unwrap_or_else(|p| p.into_inner());
        for gone in n.servers.iter().filter(|s| !servers.contains(s)) {
            let l = ServerLabels {
                server: gone.clone(),
            };
            for g in [&self.server_up, &self.server_tools, &self.server_in_flight] {
                g.remove(&l);
            }
        }
        for gone in n.profiles.iter().filter(|p| !profiles.contains(p)) {
            let l = ProfileLabels {
                profile: gone.clone(),
            };
            for g in [
                &self.catalog_tools,
                &self.sessions,
                &self.code_mode,
                &self.list_bytes,
                &self.aggregator_bytes,
            ] {
                g.remove(&l);
            }
        }
        n.servers = servers.iter().cloned().collect();
        n.profiles = profiles.iter().cloned().collect();
    }

    fn profile(&self, p: &str) -> String {
        let n = self.names.read().unwrap_or_else(|p| p.into_inner());
        if n.profiles.contains(p) {
            p.to_string()
        } else {
            "other".into()
        }
    }

    /// Counts one answered call.
    pub(crate) fn call(
        &self,
        profile: &str,
        name: &str,
        out: &ToolOutput,
        record: &TurnRecord,
        took: std::time::Duration,
    ) {
        if !self.enabled {
            return;
        }
        let kind = match BridgeTool::from_name(name) {
            Some(BridgeTool::SearchCode) => "snippet",
            Some(BridgeTool::Search) => "search",
            Some(BridgeTool::Describe) => "describe",
            Some(BridgeTool::Call) => "call",
            None => "direct",
        };
        let outcome = if out.is_error {
            let code = out.content["error"]["code"].as_str().unwrap_or("ERROR");
            // A code is one of the facade's fixed words; anything else is
            // not a label value.
            if code.len() <= 32 && code.bytes().all(|b| b.is_ascii_uppercase() || b == b'_') {
                code.to_ascii_lowercase()
            } else {
                "error".into()
            }
        } else {
            "ok".into()
        };
        let profile = self.profile(profile);
        self.calls
            .get_or_create(&CallLabels {
                profile: profile.clone(),
                kind: kind.into(),
                outcome,
            })
            .inc();
        self.latency
            .get_or_create(&KindLabels {
                profile: profile.clone(),
                kind: kind.into(),
            })
            .observe(took.as_secs_f64());
        let names = self.names.read().unwrap_or_else(|p| p.into_inner());
        for called in &record.called {
            let server = called
                .id
                .strip_prefix("mcp:")
                .and_then(|rest| rest.split(':').next())
                .filter(|s| names.servers.contains(*s))
                .unwrap_or("other");
            self.downstream
                .get_or_create(&ServerCallLabels {
                    profile: profile.clone(),
                    server: server.to_string(),
                })
                .inc();
        }
        if !record.refused.is_empty() {
            self.refused
                .get_or_create(&ProfileLabels { profile })
                .inc_by(record.refused.len() as u64);
        }
    }

    /// Counts a new configuration applied or refused.
    pub(crate) fn reload(&self, applied: bool) {
        let outcome = if applied { "applied" } else { "refused" };
        self.reloads
            .get_or_create(&OutcomeLabels {
                outcome: outcome.into(),
            })
            .inc();
    }

    /// Counts a `tools/list` answer of `served` bytes where a plain
    /// aggregator would send `aggregator`.
    pub(crate) fn listed(&self, profile: &str, served: usize, aggregator: usize) {
        if !self.enabled {
            return;
        }
        let l = ProfileLabels {
            profile: self.profile(profile),
        };
        self.lists.get_or_create(&l).inc();
        self.bytes_saved
            .get_or_create(&l)
            .inc_by(aggregator.saturating_sub(served) as u64);
    }

    /// Counts a request judged by this replica's share of its budgets.
    pub(crate) fn degraded_admission(&self) {
        self.degraded.inc();
    }

    /// Counts a snapshot built.
    pub(crate) fn snapshot(&self) {
        self.snapshots.inc();
    }

    /// Counts a change of a profile's served list.
    pub(crate) fn served_change(&self, profile: &str, cause: &'static str) {
        self.served_changes
            .get_or_create(&ChangeLabels {
                profile: self.profile(profile),
                cause,
            })
            .inc();
    }

    /// The text a scrape answers: the counters kept, and the gateway's state
    /// now.
    pub(crate) fn render(&self, gw: &Gateway) -> String {
        if !self.enabled {
            return "# toolsearch: metrics are off ([telemetry] metrics = false)\n# EOF\n".into();
        }
        let _one = self.scrape.lock().unwrap_or_else(|p| p.into_inner());
        // One series: the digest in force now.
        self.config.clear();
        self.config
            .get_or_create(&DigestLabels {
                digest: gw.config_digest(),
            })
            .set(1);
        let mut starts = self.starts_seen.lock().unwrap_or_else(|p| p.into_inner());
        for s in gw.fleet().servers() {
            let l = ServerLabels {
                server: s.name().to_string(),
            };
            self.server_up.get_or_create(&l).set(i64::from(s.is_up()));
            self.server_tools
                .get_or_create(&l)
                .set(s.tools().map_or(0, |t| t.len()) as i64);
            self.server_in_flight
                .get_or_create(&l)
                .set(s.calls().len() as i64);
            // Counted by increments of each server object: one a new
            // configuration made again starts from 0.
            let id = std::sync::Arc::as_ptr(&s) as usize;
            let seen = starts.entry(s.name().to_string()).or_insert((id, 0));
            if seen.0 != id {
                *seen = (id, 0);
            }
            let now = s.connections();
            if now > seen.1 {
                self.server_starts.get_or_create(&l).inc_by(now - seen.1);
                seen.1 = now;
            }
        }
        drop(starts);
        for p in gw.profiles().iter() {
            let l = ProfileLabels {
                profile: p.name().to_string(),
            };
            self.catalog_tools
                .get_or_create(&l)
                .set(p.ts.host().catalog().len() as i64);
            self.sessions
                .get_or_create(&l)
                .set(p.open.load(Ordering::Relaxed) as i64);
            self.code_mode
                .get_or_create(&l)
                .set(i64::from(*p.ts.code_mode_changes().borrow()));
            let bytes = *p.bytes.lock().unwrap_or_else(|p| p.into_inner());
            self.list_bytes.get_or_create(&l).set(bytes.served as i64);
            self.aggregator_bytes
                .get_or_create(&l)
                .set(bytes.aggregator as i64);
        }
        self.snippets_running.set(gw.snippets_running() as i64);
        self.store_up.set(i64::from(gw.store().down().is_none()));
        self.snippets_waiting.set(gw.snippets.waiting() as i64);
        if let Some(pool) = &gw.shared.pool {
            let s = pool.stats();
            self.sandbox_workers
                .set((s.live_processes.max(s.live_isolates)) as i64);
            raise_to(&self.sandbox_replaced, s.replaced_workers);
        }
        if let Some(model) = &gw.shared.embedder {
            let q = model.query_cache_stats();
            for (outcome, total) in [("hit", q.hits), ("miss", q.misses)] {
                let c = self.query_cache.get_or_create(&OutcomeLabels {
                    outcome: outcome.into(),
                });
                raise_to(&c, total);
            }
        }
        let mut text = String::new();
        if prometheus_client::encoding::text::encode(&mut text, &self.registry).is_err() {
            text.clear();
        }
        text
    }
}

/// Raises a counter kept from a total elsewhere to that total.
fn raise_to(counter: &Counter, total: u64) {
    let seen = counter.get();
    if total > seen {
        counter.inc_by(total - seen);
    }
}
