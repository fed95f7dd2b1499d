//! The one implementation of search, describe and call that every shape shares:
//! the JS bridge (`openclaw.tools.*`), the structured tools (`tool_search`,
//! `tool_describe`, `tool_call`) and direct calls. Policy, stale ids, argument
//! repair and validation, approvals, hooks, dispatch with a timeout and
//! telemetry all happen here, so no shape can skip them.
//!
//! One file per step of a request: [`resolve`](self::resolve) (id → tool, the
//! policy check), `search` (ranking within the scope), `gate` (repair, schema,
//! hooks, approval) and `call` (resolve → gate → dispatch with a timeout).

mod call;
mod gate;
pub(crate) mod hints;
pub mod outcome;
mod overlay;
pub(crate) mod record;
pub(crate) mod repair;
mod resolve;
mod search;
#[cfg(feature = "semantic")]
pub(crate) mod semantic;
pub(crate) mod validate;

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use serde_json::Value;
use toolsearch_catalog::{Catalog, Tool};

use crate::dispatch::{CallContext, Dispatcher};
use crate::policy::Policy;
use crate::settings::SearchLimits;
use overlay::Overlays;
use record::{Record, Telemetry};
#[cfg(feature = "semantic")]
use semantic::SemanticSearch;
use validate::Compiled;

/// Future of an approval decision: `Err(reason)` denies.
pub type ApprovalFuture = Pin<Box<dyn Future<Output = Result<(), String>> + Send>>;

/// Decides whether a call may run (a human in the loop, a rules engine). Sees the
/// real tool, never a bridge tool.
pub trait Approver: Send + Sync + 'static {
    /// `Err(reason)` denies the call; the reason reaches the model.
    fn approve(&self, tool: &Tool, args: &Value, cx: &CallContext) -> ApprovalFuture;
}

/// Runs before dispatch; `Err(reason)` blocks the call like an approval denial.
pub type BeforeCall = Arc<dyn Fn(&Tool, &Value, &CallContext) -> Result<(), String> + Send + Sync>;
/// Runs after dispatch with the outcome.
pub type AfterCall = Arc<dyn Fn(&Tool, &Result<Value, String>, &CallContext) + Send + Sync>;

/// Tools a client supplies for one run: a small catalog of their own (an overlay,
/// so the shared index is never rebuilt) whose calls go back to the caller.
#[derive(Clone)]
pub struct ClientTools {
    catalog: Catalog,
    dispatcher: Arc<dyn Dispatcher>,
}

impl std::fmt::Debug for ClientTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientTools")
            .field("tools", &self.catalog.len())
            .finish()
    }
}

impl ClientTools {
    /// Client tools (their source becomes `client`, ids `client:server:name`), called
    /// through `dispatcher`, which routes each call back to the caller.
    ///
    /// # Errors
    /// Duplicate ids or schemas that are not objects.
    pub fn new(
        tools: Vec<Tool>,
        dispatcher: Arc<dyn Dispatcher>,
    ) -> Result<Self, toolsearch_catalog::CatalogError> {
        let tools = tools
            .into_iter()
            .map(|mut t| {
                t.source = toolsearch_catalog::Source::Client;
                t.id = toolsearch_catalog::make_id(t.source, t.server.as_deref(), &t.name);
                t
            })
            .collect();
        Ok(ClientTools {
            catalog: Catalog::new(tools)?,
            dispatcher,
        })
    }

    /// The overlay's tools.
    pub fn tools(&self) -> &[Tool] {
        self.catalog.tools()
    }
}

/// What one caller may reach: its narrowing of the host policy and its client tools.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// Narrows the host policy (a sub-agent restricted to some servers).
    pub policy: Policy,
    /// Client tools for this run, if any.
    pub client: Option<ClientTools>,
    /// The turn record that counts what this caller does (its conversation's).
    pub(crate) record: Option<Arc<Record>>,
    /// The outage note its conversation was last told (see [`Scope::tell`]).
    pub(crate) told: Option<Arc<std::sync::Mutex<Option<String>>>>,
}

impl Scope {
    /// True when `note` (what is down now, `None`: nothing) should be said:
    /// a conversation hears it once, and again only when it changes; a
    /// caller with no conversation hears it every time.
    pub(crate) fn tell(&self, note: Option<&str>) -> bool {
        let Some(told) = &self.told else {
            return note.is_some();
        };
        let mut told = told.lock().unwrap_or_else(|p| p.into_inner());
        if told.as_deref() == note {
            return false;
        }
        *told = note.map(str::to_owned);
        note.is_some()
    }

    /// Writes to the caller's turn record, when it has one.
    pub(crate) fn record(&self, f: impl FnOnce(&mut Telemetry)) {
        if let Some(r) = &self.record {
            r.with(f);
        }
    }
}

/// Says whether a tool's backend can take calls now (an MCP server that is down
/// answers `false`): such tools stay findable, flagged `"available": false` in
/// search hits and describe.
pub type Availability = Arc<dyn Fn(&Tool) -> bool + Send + Sync>;

/// A configured backend that cannot take calls now, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outage {
    /// Its name (an MCP server's configured name).
    pub server: String,
    /// Why, in a few words (the gateway's last error for it).
    pub reason: String,
    /// It is starting for the first time: not down, its tools not listed yet.
    pub starting: bool,
}

/// Lists the configured backends that are down now (see [`Outage`]): search
/// answers name them (`unavailable`), so a model looking for their tools
/// learns why it finds none. Never the tools' descriptions: what is sent up
/// front does not move with health (a prompt-cache write each time).
pub type Outages = Arc<dyn Fn() -> Vec<Outage> + Send + Sync>;

/// True while tools not in the catalog yet are expected (backends that
/// have not listed theirs: an MCP gateway's servers still starting).
/// `activation = auto` then defers whatever the count, so a client is not
/// sent tools directly and switched to deferral when the rest arrive.
pub type Pending = Arc<dyn Fn() -> bool + Send + Sync>;

/// Longest reason an outage note repeats.
pub(crate) const MAX_OUTAGE_REASON: usize = 240;

/// Per-call timeout when the caller sets none: 60 s.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// Longest wait for one approval (the approver, e.g. a person asked through MCP
/// elicitation) before the call is refused: 120 s. While a snippet's call waits
/// for one, the snippet's deadline does not run (as long as the snippet itself
/// is idle): see `toolsearch_sandbox::pause_for_a_person`.
pub const DEFAULT_APPROVAL_TIMEOUT: Duration = Duration::from_secs(120);

/// How many plans a host's conversations built, and how many times every
/// visible tool's provider names were made (for tests and benchmarks: each is
/// made once per catalog generation and policy, and shared).
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct PlanCounts {
    pub(crate) plans: AtomicU64,
    pub(crate) names: AtomicU64,
}

impl PlanCounts {
    /// `(plans built, provider names made)` so far.
    pub fn get(&self) -> (u64, u64) {
        (
            self.plans.load(Ordering::Relaxed),
            self.names.load(Ordering::Relaxed),
        )
    }
}

/// The shared core. Cheap to share behind an `Arc`.
pub struct Host {
    catalog: RwLock<Catalog>,
    /// Ids of earlier snapshots that the current one dropped: "catalog changed".
    retired: RwLock<HashSet<String>>,
    pub(crate) policy: Arc<Policy>,
    dispatcher: Arc<dyn Dispatcher>,
    approver: Option<Arc<dyn Approver>>,
    pub(crate) approve_destructive: bool,
    before: Vec<BeforeCall>,
    after: Vec<AfterCall>,
    call_timeout: Duration,
    approval_timeout: Duration,
    /// Record arguments and results in turn records.
    pub(crate) capture: bool,
    /// Counts the snapshots swapped in: a plan made for one generation is
    /// made again for the next.
    generation: AtomicU64,
    /// Plans and provider names made for this host's conversations.
    pub(crate) plan_counts: Arc<PlanCounts>,
    #[cfg(feature = "semantic")]
    semantic: Option<Arc<SemanticSearch>>,
    availability: Option<Availability>,
    outages: Option<Outages>,
    pending: Option<Pending>,
    limits: SearchLimits,
    /// Schemas compiled for the full argument check, by tool.
    pub(crate) compiled: Compiled,
    /// The snapshot combined with callers' client tools, for search.
    overlays: Overlays,
}

/// Settings of a [`Host`] (used by the builder).
pub(crate) struct HostParts {
    pub catalog: Catalog,
    pub policy: Arc<Policy>,
    pub dispatcher: Arc<dyn Dispatcher>,
    pub approver: Option<Arc<dyn Approver>>,
    pub approve_destructive: bool,
    pub before: Vec<BeforeCall>,
    pub after: Vec<AfterCall>,
    pub call_timeout: Duration,
    pub approval_timeout: Duration,
    pub capture: bool,
    #[cfg(feature = "semantic")]
    pub semantic: Option<Arc<SemanticSearch>>,
    pub availability: Option<Availability>,
    pub outages: Option<Outages>,
    pub pending: Option<Pending>,
    pub limits: SearchLimits,
}

impl HostParts {
    /// The parts with the defaults: no approver, no hooks, 60 s calls, no capture.
    pub(crate) fn new(
        catalog: Catalog,
        policy: Arc<Policy>,
        dispatcher: Arc<dyn Dispatcher>,
    ) -> Self {
        HostParts {
            catalog,
            policy,
            dispatcher,
            approver: None,
            approve_destructive: false,
            before: Vec::new(),
            after: Vec::new(),
            call_timeout: DEFAULT_CALL_TIMEOUT,
            approval_timeout: DEFAULT_APPROVAL_TIMEOUT,
            capture: false,
            #[cfg(feature = "semantic")]
            semantic: None,
            availability: None,
            outages: None,
            pending: None,
            limits: SearchLimits::default(),
        }
    }
}

impl Host {
    pub(crate) fn new(p: HostParts) -> Host {
        #[cfg(feature = "semantic")]
        if let Some(s) = &p.semantic {
            s.refresh(&p.catalog);
        }
        Host {
            catalog: RwLock::new(p.catalog),
            retired: RwLock::new(HashSet::new()),
            policy: p.policy,
            dispatcher: p.dispatcher,
            approver: p.approver,
            approve_destructive: p.approve_destructive,
            before: p.before,
            after: p.after,
            call_timeout: p.call_timeout,
            approval_timeout: p.approval_timeout,
            capture: p.capture,
            generation: AtomicU64::new(0),
            plan_counts: Arc::default(),
            #[cfg(feature = "semantic")]
            semantic: p.semantic,
            availability: p.availability,
            outages: p.outages,
            pending: p.pending,
            limits: p.limits,
            compiled: Compiled::default(),
            overlays: Overlays::default(),
        }
    }

    /// The embedding model fused with search, when one is configured.
    #[cfg(feature = "semantic")]
    pub fn semantic(&self) -> Option<&Arc<SemanticSearch>> {
        self.semantic.as_ref()
    }

    /// The current snapshot.
    pub fn catalog(&self) -> Catalog {
        self.catalog
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Swaps in a new snapshot; ids it no longer has answer "catalog changed".
    pub fn set_catalog(&self, next: Catalog) {
        // Before taking the locks: it hashes the whole snapshot (its fingerprint), and
        // searches must not wait for that.
        #[cfg(feature = "semantic")]
        if let Some(s) = &self.semantic {
            s.refresh(&next);
        }
        let mut cur = self.catalog.write().unwrap_or_else(|p| p.into_inner());
        let kept: HashSet<&str> = next.tools().iter().map(|t| t.id.as_str()).collect();
        let mut retired = self.retired.write().unwrap_or_else(|p| p.into_inner());
        retired.extend(
            cur.tools()
                .iter()
                .filter(|t| !kept.contains(t.id.as_str()))
                .map(|t| t.id.clone()),
        );
        retired.retain(|id| !kept.contains(id.as_str()));
        *cur = next;
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// True unless the tool's backend says it cannot take calls now.
    pub fn available(&self, tool: &Tool) -> bool {
        self.availability.as_ref().is_none_or(|up| up(tool))
    }

    /// How many snapshots were swapped in since the host was built.
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }
}

impl Host {
    /// True while tools not yet in the catalog are expected (see [`Pending`]).
    pub(crate) fn pending(&self) -> bool {
        self.pending.as_ref().is_some_and(|f| f())
    }

    /// The backends down now (none without an [`Outages`] hook).
    pub fn outages(&self) -> Vec<Outage> {
        self.outages.as_ref().map(|f| f()).unwrap_or_default()
    }

    /// What a search answer says of the backends down now, in a few bytes
    /// (`github: exited (status 1); jira: not connected yet`), or `None`.
    pub(crate) fn outage_note(&self) -> Option<String> {
        let (starting, down): (Vec<Outage>, Vec<Outage>) =
            self.outages().into_iter().partition(|o| o.starting);
        let line = |list: &[Outage], what: &str| {
            let parts: Vec<String> = list
                .iter()
                .map(|o| {
                    let reason =
                        toolsearch_catalog::truncate_at_boundary(&o.reason, MAX_OUTAGE_REASON);
                    format!("{}: {reason}", o.server)
                })
                .collect();
            (!list.is_empty()).then(|| format!("{what}: {}", parts.join("; ")))
        };
        let notes: Vec<String> = [
            line(&down, "servers down now (their tools are missing or fail)"),
            line(
                &starting,
                "servers still starting (their tools are not listed yet)",
            ),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!notes.is_empty()).then(|| notes.join(". "))
    }
}
