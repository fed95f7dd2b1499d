//! The one implementation of search, describe and call that every shape shares:
//! the JS bridge (`openclaw.tools.*`), the structured tools (`tool_search`,
//! `tool_describe`, `tool_call`) and direct calls. Policy, stale ids, argument
//! repair and validation, approvals, hooks, dispatch with a timeout and
//! telemetry all happen here, so no shape can skip them.

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use toolsearch_catalog::{Catalog, SearchOptions, SearchResult, Tool};
use toolsearch_sandbox::{BridgeError, BridgeErrorCode};

use crate::defs::SearchLimits;
use crate::dispatch::{CallContext, DispatchErrorKind, Dispatcher};
use crate::policy::Policy;
use crate::repair::repair;
use crate::semantic::SemanticSearch;
use crate::telemetry::{RecordGuard, Records};
use crate::validate::check;

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
    /// The session whose turn record counts what this caller does.
    pub session: Option<Arc<str>>,
}

impl Scope {
    fn session(&self) -> &str {
        self.session.as_deref().unwrap_or("")
    }
}

/// Says whether a tool's backend can take calls now (an MCP server that is down
/// answers `false`): such tools stay findable, flagged `"available": false` in
/// search hits and describe.
pub type Availability = Arc<dyn Fn(&Tool) -> bool + Send + Sync>;

/// Per-call timeout when the caller sets none: 60 s.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

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
    pub(crate) telemetry: Mutex<Records>,
    semantic: Option<Arc<SemanticSearch>>,
    availability: Option<Availability>,
    limits: SearchLimits,
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
    pub capture: bool,
    pub semantic: Option<Arc<SemanticSearch>>,
    pub availability: Option<Availability>,
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
            capture: false,
            semantic: None,
            availability: None,
            limits: SearchLimits::default(),
        }
    }
}

fn err(code: BridgeErrorCode, message: impl Into<String>) -> BridgeError {
    BridgeError::new(code, message)
}

/// The error for ids that do not exist and ids the policy hides: identical, so a
/// caller cannot probe the policy.
pub(crate) fn unknown_tool(id: &str) -> BridgeError {
    err(
        BridgeErrorCode::UnknownTool,
        format!("unknown tool `{id}`; use search to find tool ids"),
    )
}

impl Host {
    pub(crate) fn new(p: HostParts) -> Host {
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
            telemetry: Mutex::new(Records::new(p.capture)),
            semantic: p.semantic,
            availability: p.availability,
            limits: p.limits,
        }
    }

    /// The embedding model fused with search, when one is configured.
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
    }

    /// True when `tool` is visible under the host policy and the caller's scope.
    pub(crate) fn visible(&self, tool: &Tool, scope: &Scope) -> bool {
        self.policy.allows(tool) && scope.policy.allows(tool)
    }

    /// Finds a visible tool by id or unambiguous bare name (client tools first), with
    /// the catalog that holds it and the dispatcher that runs it.
    pub(crate) fn resolve(
        &self,
        name_or_id: &str,
        scope: &Scope,
    ) -> Result<(Tool, Catalog, Arc<dyn Dispatcher>), BridgeError> {
        if let Some(client) = &scope.client {
            if let toolsearch_catalog::Resolved::One(t) = client
                .catalog
                .resolve(name_or_id, &|t| self.visible(t, scope))
            {
                return Ok((t.clone(), client.catalog.clone(), client.dispatcher.clone()));
            }
        }
        let catalog = self.catalog();
        match catalog.resolve(name_or_id, &|t| self.visible(t, scope)) {
            toolsearch_catalog::Resolved::One(t) => {
                Ok((t.clone(), catalog.clone(), self.dispatcher.clone()))
            }
            toolsearch_catalog::Resolved::Ambiguous(n) => Err(err(
                BridgeErrorCode::InvalidArgs,
                format!("{n} tools are named `{name_or_id}`; use the tool's id from search"),
            )),
            toolsearch_catalog::Resolved::None => {
                let retired = self.retired.read().unwrap_or_else(|p| p.into_inner());
                if retired.contains(name_or_id) {
                    Err(err(
                        BridgeErrorCode::Stale,
                        "the tool catalog changed since this id was found; search again",
                    ))
                } else {
                    Err(unknown_tool(name_or_id))
                }
            }
        }
    }

    /// Searches (one query or several, merged) within the scope.
    pub fn search(
        &self,
        queries: &[&str],
        limit: Option<usize>,
        scope: &Scope,
    ) -> Result<Value, BridgeError> {
        let catalog = self.catalog();
        let opts = SearchOptions {
            limit,
            default_limit: self.limits.default,
            max_limit: self.limits.max,
            ..Default::default()
        };
        let allow = |t: &Tool| self.visible(t, scope);
        let semantic = self
            .semantic
            .as_ref()
            .and_then(|s| Some((s, s.index_for(&catalog)?)));
        let mut result = match &semantic {
            Some((s, index)) => toolsearch_embed::Hybrid::new(&catalog, index, s.embedder())
                .map_err(|e| err(BridgeErrorCode::Unavailable, e.to_string()))?
                .search_many(queries, &opts, &allow),
            None => catalog.search_many(queries, &opts, &allow),
        }
        .map_err(|e| err(BridgeErrorCode::InvalidArgs, e.to_string()))?;
        if let Some(client) = &scope.client {
            let extra = client
                .catalog
                .search_many(queries, &opts, &allow)
                .map_err(|e| err(BridgeErrorCode::InvalidArgs, e.to_string()))?;
            result = merge(result, extra);
        }
        self.telemetry(scope.session()).searched(queries.len());
        let mut out = serde_json::to_value(&result)
            .map_err(|e| err(BridgeErrorCode::Unavailable, e.to_string()))?;
        if let Some(up) = &self.availability {
            let hits = out.get_mut("hits").and_then(Value::as_array_mut);
            for hit in hits.into_iter().flatten() {
                let tool = hit["id"].as_str().and_then(|id| catalog.get(id));
                if tool.is_some_and(|t| !up(t)) {
                    hit["available"] = Value::Bool(false);
                }
            }
        }
        Ok(out)
    }

    /// True unless the tool's backend says it cannot take calls now.
    pub fn available(&self, tool: &Tool) -> bool {
        self.availability.as_ref().is_none_or(|up| up(tool))
    }

    /// The full record and TypeScript declaration of one visible tool.
    pub fn describe(&self, id: &str, scope: &Scope) -> Result<Value, BridgeError> {
        let (tool, catalog, _) = self.resolve(id, scope)?;
        let d = catalog.describe(&tool.id).ok_or_else(|| unknown_tool(id))?;
        self.telemetry(scope.session()).described(&tool);
        let mut out = serde_json::to_value(&d)
            .map_err(|e| err(BridgeErrorCode::Unavailable, e.to_string()))?;
        if !self.available(&tool) {
            out["available"] = Value::Bool(false);
        }
        Ok(out)
    }

    /// Policy check, argument repair and validation, approval, hooks, dispatch.
    /// Returns the tool's result and the notes of any repairs made.
    pub async fn call(
        self: Arc<Self>,
        id: &str,
        args: Value,
        scope: &Scope,
        cx: CallContext,
    ) -> Result<(Value, Vec<String>), BridgeError> {
        let (_, value, notes) = self.call_tool(id, args, scope, cx).await?;
        Ok((value, notes))
    }

    /// [`Host::call`], also giving the tool that ran.
    pub(crate) async fn call_tool(
        self: Arc<Self>,
        id: &str,
        args: Value,
        scope: &Scope,
        cx: CallContext,
    ) -> Result<(Tool, Value, Vec<String>), BridgeError> {
        let (tool, _, dispatcher) = self.resolve(id, scope)?;
        let (args, mut notes) = repair(&tool.input_schema, args);
        let checked = check(&tool.input_schema, &args);
        if !checked.violations.is_empty() {
            return Err(err(
                BridgeErrorCode::InvalidArgs,
                format!(
                    "arguments do not match the schema of `{}`; nothing was called: {}",
                    tool.id,
                    invalid_detail(&tool, &checked)
                ),
            ));
        }
        if checked.incomplete {
            notes.push(
                "the arguments were only partly checked (the schema is too complex to check \
                 in full); the tool's server checks them"
                    .into(),
            );
        }
        for hook in &self.before {
            hook(&tool, &args, &cx).map_err(|reason| {
                err(
                    BridgeErrorCode::ApprovalDenied,
                    format!("the call to `{}` was blocked: {reason}", tool.id),
                )
            })?;
        }
        let needs_approval = self.approve_destructive && tool.is_destructive();
        if let Some(approver) = &self.approver {
            approver
                .approve(&tool, &args, &cx)
                .await
                .map_err(|reason| {
                    err(
                        BridgeErrorCode::ApprovalDenied,
                        format!("the call to `{}` was not approved: {reason}", tool.id),
                    )
                })?;
        } else if needs_approval {
            return Err(err(
                BridgeErrorCode::ApprovalDenied,
                format!(
                    "`{}` is destructive and needs approval, and no approver is configured",
                    tool.id
                ),
            ));
        }
        let started = Instant::now();
        let timeout = cx.deadline.map_or(self.call_timeout, |d| {
            d.saturating_duration_since(started).min(self.call_timeout)
        });
        let cancel = cx.cancel.clone();
        // Keys that cleaning renamed go back as the tool's server spells them.
        let fut = dispatcher.dispatch(&tool, tool.upstream_arguments(args.clone()), cx.clone());
        let outcome = match tokio::time::timeout(timeout, fut).await {
            Ok(r) => r.map_err(|e| {
                let code = match e.kind {
                    DispatchErrorKind::Unavailable => BridgeErrorCode::Unavailable,
                    DispatchErrorKind::Timeout => BridgeErrorCode::Timeout,
                    DispatchErrorKind::InvalidArgs => BridgeErrorCode::InvalidArgs,
                    _ => BridgeErrorCode::ToolError,
                };
                let mut out = err(code, e.message);
                out.detail = e.detail;
                out
            }),
            Err(_) => {
                cancel.cancel();
                Err(err(
                    BridgeErrorCode::Timeout,
                    format!(
                        "`{}` did not answer within {} ms",
                        tool.id,
                        timeout.as_millis()
                    ),
                ))
            }
        };
        let shown: Result<Value, String> = outcome.clone().map_err(|e| e.message);
        for hook in &self.after {
            hook(&tool, &shown, &cx);
        }
        self.telemetry(cx.session.as_deref().unwrap_or("")).called(
            &tool,
            &args,
            &shown,
            started.elapsed(),
        );
        outcome.map(|v| (tool, v, notes))
    }

    /// Every tool visible to `scope`: shared ones, then client ones.
    pub(crate) fn visible_tools(&self, scope: &Scope) -> Vec<Tool> {
        let mut out: Vec<Tool> = self
            .catalog()
            .tools()
            .iter()
            .filter(|t| self.visible(t, scope))
            .cloned()
            .collect();
        if let Some(client) = &scope.client {
            out.extend(
                client
                    .catalog
                    .tools()
                    .iter()
                    .filter(|t| self.visible(t, scope))
                    .cloned(),
            );
        }
        out
    }

    /// The turn record of `session` ("" when the caller has none).
    pub(crate) fn telemetry<'a>(&'a self, session: &'a str) -> RecordGuard<'a> {
        let mut guard = self.telemetry.lock().unwrap_or_else(|p| p.into_inner());
        guard.of(session);
        RecordGuard { guard, session }
    }

    /// Takes the turn record of `session` (and starts a new one).
    pub(crate) fn take_record(&self, session: &str) -> crate::telemetry::TurnRecord {
        self.telemetry
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take(session)
    }
}

/// Schemas up to this size are repeated in an invalid-arguments error.
const MAX_SCHEMA_IN_ERROR: usize = 4096;

/// The JSON detail of an invalid-arguments error: the violations (capped by
/// [`check`]), how many more there were, and the schema when it is small.
fn invalid_detail(tool: &Tool, checked: &crate::validate::Checked) -> Value {
    let mut detail = json!({"violations": checked.violations});
    if checked.more > 0 {
        detail["more_violations"] = json!(checked.more);
    }
    detail["input_schema"] =
        match toolsearch_catalog::schema::json_within(&tool.input_schema, MAX_SCHEMA_IN_ERROR) {
            Some(_) => tool.input_schema.clone(),
            None => json!("too large to repeat here; describe the tool to read it"),
        };
    detail
}

/// Merges an overlay's search result into the shared one: hits by score (ties by id),
/// at most the larger limit, without duplicates.
fn merge(mut base: SearchResult, extra: SearchResult) -> SearchResult {
    if extra.hits.is_empty() {
        return base;
    }
    if base.hits.is_empty() {
        return SearchResult {
            total: base.total + extra.total,
            ..extra
        };
    }
    let limit = base.limit.max(extra.limit);
    base.total += extra.total;
    for hit in extra.hits {
        if !base.hits.iter().any(|h| h.id == hit.id) {
            base.hits.push(hit);
        }
    }
    base.hits
        .sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
    base.hits.truncate(limit);
    base
}
