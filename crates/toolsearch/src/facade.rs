//! [`ToolSearch`]: what an agent runtime or gateway embeds. It decides, each time
//! definitions are built, whether tools are deferred, sends them in the
//! provider's shape, and handles the model's calls.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use toolsearch_catalog::{Catalog, Deferrable, Tool};
use toolsearch_sandbox::{ErrorKind, Pool, PoolConfig};

use crate::activation::{Activation, Mode, DEFAULT_COUNT_THRESHOLD, DEFAULT_SHARE_THRESHOLD};
use crate::bridge::CatalogBridge;
use crate::defs::{self, BRIDGE_TOOLS};
use crate::dispatch::{CallContext, Dispatcher, EchoDispatcher};
use crate::host::{AfterCall, Approver, BeforeCall, ClientTools, Host, HostParts, Scope};
use crate::policy::Policy;
use crate::telemetry::TurnRecord;

/// Default number of sessions whose reveal state is kept (oldest evicted first).
pub const DEFAULT_MAX_SESSIONS: usize = 1024;
/// Default byte budget of the catalog listing inside the bridge descriptions.
pub const DEFAULT_LISTING_BYTES: usize = 560;

/// Settings; `Default` gives the documented defaults.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Shape when deferral is on. Default [`Mode::Code`].
    pub mode: Mode,
    /// When deferral is on. Default [`Activation::Auto`].
    pub activation: Activation,
    /// Default 15.
    pub count_threshold: usize,
    /// Default 0.10.
    pub share_threshold: f64,
    /// The model's context window in tokens, when known (enables the share rule).
    pub context_window: Option<usize>,
    /// Tool names (or ids) never deferred, merged with each tool's own policy.
    pub never_defer: Vec<String>,
    /// Budget of the listing in the bridge descriptions. Default 560 bytes.
    pub listing_bytes: usize,
    /// Sessions whose reveal state is kept. Default 1024.
    pub max_sessions: usize,
    /// Hits per search when the caller gives no limit (1 to 50). Default 8.
    pub search_default_limit: usize,
    /// Most hits per search and most `select:` names (1 to 50). Default 20.
    pub max_search_limit: usize,
}

impl Settings {
    /// The search limits, each within 1 to 50 and the default within the most.
    pub fn limits(&self) -> defs::SearchLimits {
        let max = self
            .max_search_limit
            .clamp(1, toolsearch_catalog::HARD_MAX_LIMIT);
        defs::SearchLimits {
            default: self.search_default_limit.clamp(1, max),
            max,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            mode: Mode::Code,
            activation: Activation::Auto,
            count_threshold: DEFAULT_COUNT_THRESHOLD,
            share_threshold: DEFAULT_SHARE_THRESHOLD,
            context_window: None,
            never_defer: Vec::new(),
            listing_bytes: DEFAULT_LISTING_BYTES,
            max_sessions: DEFAULT_MAX_SESSIONS,
            search_default_limit: toolsearch_catalog::DEFAULT_LIMIT,
            max_search_limit: toolsearch_catalog::MAX_LIMIT,
        }
    }
}

/// Who is asking: a session (conversation) with its principal and its own scope
/// over the shared catalog (a sub-agent restricted to some servers).
#[derive(Debug, Clone, Default)]
pub struct Session {
    /// Session id.
    pub id: String,
    /// The user or client.
    pub principal: Option<String>,
    /// Narrows the host policy for this session.
    pub scope: Policy,
    /// Tools the client supplied for this run (an overlay; calls go back to the client).
    pub client_tools: Option<ClientTools>,
}

impl Session {
    /// A session with no extra restriction.
    pub fn new(id: impl Into<String>) -> Self {
        Session {
            id: id.into(),
            ..Default::default()
        }
    }
}

/// The answer to one model call.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolOutput {
    /// JSON to hand back to the model.
    pub content: Value,
    /// True when the call failed (the content says why).
    pub is_error: bool,
    /// The tool's own MCP result (`CallToolResult` JSON, `isError` included), when
    /// this call ran one MCP tool directly (a direct call or `tool_call`) and its
    /// server answered: a gateway returns it unchanged (images, resources,
    /// `structuredContent`). See [`crate::outcome`].
    pub passthrough: Option<Value>,
}

impl ToolOutput {
    /// A successful answer.
    pub fn ok(content: Value) -> Self {
        ToolOutput {
            content,
            is_error: false,
            passthrough: None,
        }
    }
    /// A failed answer: `{"error": {"code", "message"}}`.
    pub fn error(code: &str, message: impl Into<String>) -> Self {
        ToolOutput {
            content: json!({"error": {"code": code, "message": message.into()}}),
            is_error: true,
            passthrough: None,
        }
    }
}

/// How one call is run: cancellation and where its progress goes.
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    /// Fires when the caller gives up (a client's `notifications/cancelled`): a
    /// running snippet ends and its in-flight tool calls are cancelled.
    pub cancel: tokio_util::sync::CancellationToken,
    /// Receives progress and log messages of the tools the call runs.
    pub notify: Option<crate::dispatch::Notifier>,
}

/// Builds a [`ToolSearch`].
pub struct Builder {
    host: HostParts,
    settings: Settings,
    pool: Option<Pool>,
}

impl Builder {
    /// The tool catalog (default: empty).
    pub fn catalog(mut self, catalog: Catalog) -> Self {
        self.host.catalog = catalog;
        self
    }
    /// The host policy (default: allow everything).
    pub fn policy(mut self, policy: Policy) -> Self {
        self.host.policy = Arc::new(policy);
        self
    }
    /// Runs the real tools (default: [`EchoDispatcher`]).
    pub fn dispatcher(mut self, dispatcher: Arc<dyn Dispatcher>) -> Self {
        self.host.dispatcher = dispatcher;
        self
    }
    /// Shape when deferral is on (default [`Mode::Code`]).
    pub fn mode(mut self, mode: Mode) -> Self {
        self.settings.mode = mode;
        self
    }
    /// When deferral is on (default [`Activation::Auto`]).
    pub fn activation(mut self, activation: Activation) -> Self {
        self.settings.activation = activation;
        self
    }
    /// All settings at once.
    pub fn settings(mut self, settings: Settings) -> Self {
        self.settings = settings;
        self
    }
    /// The sandbox pool for code mode (default: one made on first use, threads).
    pub fn sandbox(mut self, pool: Pool) -> Self {
        self.pool = Some(pool);
        self
    }
    /// Asks before every call (and for destructive ones, see [`Builder::approve_destructive`]).
    pub fn approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.host.approver = Some(approver);
        self
    }
    /// Tools annotated `destructiveHint` need approval (refused without an approver).
    pub fn approve_destructive(mut self, on: bool) -> Self {
        self.host.approve_destructive = on;
        self
    }
    /// A hook before each call; it sees the real tool and can block the call.
    pub fn before_call(mut self, hook: BeforeCall) -> Self {
        self.host.before.push(hook);
        self
    }
    /// A hook after each call, with the outcome.
    pub fn after_call(mut self, hook: AfterCall) -> Self {
        self.host.after.push(hook);
        self
    }
    /// Per-call timeout (default 60 s).
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.host.call_timeout = timeout;
        self
    }
    /// Fuses an embedding model with search (all shapes: code mode, structured tools).
    /// Tool vectors are built in the background for each catalog snapshot and cached
    /// in `cache`; search is lexical until they are ready.
    pub fn semantic(
        mut self,
        embedder: Arc<toolsearch_embed::Embedder>,
        cache: Option<std::path::PathBuf>,
    ) -> Self {
        self.host.semantic = Some(crate::semantic::SemanticSearch::new(embedder, cache));
        self
    }
    /// Tells which tools' backends can take calls now (see [`crate::Availability`]).
    pub fn availability(mut self, availability: crate::host::Availability) -> Self {
        self.host.availability = Some(availability);
        self
    }
    /// Record arguments and results in the turn record (default off: they carry tokens).
    pub fn capture_payloads(mut self, on: bool) -> Self {
        self.host.capture = on;
        self
    }
    /// Builds it.
    pub fn build(mut self) -> ToolSearch {
        self.host.limits = self.settings.limits();
        let host = Arc::new(Host::new(self.host));
        ToolSearch {
            host,
            settings: self.settings,
            pool: Mutex::new(self.pool),
            engine: Mutex::new(None),
            reveals: Mutex::new(Reveals::default()),
        }
    }
}

/// Tools each session has described, for the oldest-first eviction.
#[derive(Default)]
struct Reveals {
    order: VecDeque<String>,
    by_session: HashMap<String, HashSet<String>>,
}

/// The embeddable facade. Share it behind an `Arc`.
///
/// ```
/// use toolsearch::{Mode, Provider, Session, ToolSearch};
/// use toolsearch_catalog::Catalog;
///
/// let ts = ToolSearch::builder().catalog(Catalog::demo()).mode(Mode::Tools).build();
/// let defs = ts.definitions(&Session::new("s1"), Provider::OpenAiChat);
/// assert!(defs.decision.active);
/// let names: Vec<_> = defs.tools.iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
/// assert!(names.contains(&"tool_search") && names.contains(&"read_file"));
/// ```
pub struct ToolSearch {
    pub(crate) host: Arc<Host>,
    pub(crate) settings: Settings,
    pool: Mutex<Option<Pool>>,
    /// The engine probe's answer, once made (`Err` holds the reason).
    engine: Mutex<Option<Result<(), String>>>,
    reveals: Mutex<Reveals>,
}

impl ToolSearch {
    /// A builder with the defaults.
    pub fn builder() -> Builder {
        Builder {
            host: HostParts::new(
                Catalog::empty(),
                Arc::new(Policy::default()),
                Arc::new(EchoDispatcher),
            ),
            settings: Settings::default(),
            pool: None,
        }
    }

    /// The shared core (search, describe, call).
    pub fn host(&self) -> &Arc<Host> {
        &self.host
    }

    /// Replaces the catalog (tools added or removed mid-session); ids that disappear
    /// answer "catalog changed, search again".
    pub fn set_catalog(&self, catalog: Catalog) {
        self.host.set_catalog(catalog);
    }

    pub(crate) fn never_deferred(&self, tool: &Tool) -> bool {
        tool.deferrable == Deferrable::Never
            || self
                .settings
                .never_defer
                .iter()
                .any(|n| n == &tool.name || n == &tool.id || Some(n) == tool.native_name.as_ref())
    }

    /// Whether the JS engine can run code mode (probed once, before any code tool is sent).
    pub(crate) fn engine_ok(&self) -> Result<(), String> {
        let mut engine = self.engine.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(answer) = engine.as_ref() {
            return answer.clone();
        }
        let answer = self
            .pool()
            .and_then(|p| p.probe().map_err(|e| e.to_string()));
        if let Err(reason) = &answer {
            tracing::warn!(%reason, "code mode unavailable; using the structured tools");
        }
        *engine = Some(answer.clone());
        answer
    }

    fn pool(&self) -> Result<Pool, String> {
        let mut pool = self.pool.lock().unwrap_or_else(|p| p.into_inner());
        if pool.is_none() {
            // Snippets are written by a model whose input anyone can write: worker
            // processes under the OS layer when the worker program is found, else
            // in-process threads (trusted code only), said once in the log.
            let isolation = match toolsearch_sandbox::WorkerCommand::locate() {
                Some(command) => toolsearch_sandbox::Isolation::Process(command),
                None => {
                    tracing::warn!(
                        "toolsearch-sandbox-worker not found (set TOOLSEARCH_SANDBOX_WORKER or \
                         pass .sandbox(pool)); code mode runs snippets on in-process threads"
                    );
                    toolsearch_sandbox::Isolation::Thread
                }
            };
            let cfg = PoolConfig {
                isolation,
                ..PoolConfig::default()
            };
            *pool = Some(Pool::new(cfg).map_err(|e| e.to_string())?);
        }
        Ok(pool.clone().expect("set above"))
    }

    pub(crate) fn scope(session: &Session) -> Scope {
        Scope {
            policy: session.scope.clone(),
            client: session.client_tools.clone(),
            session: Some(Arc::from(session.id.as_str())),
        }
    }

    /// Which tools are deferred for this scope, and why: what [`ToolSearch::definitions`]
    /// sends and what a direct call is routed by come from this one plan.
    ///
    /// `report` asks for the token estimate even when the decision does not need it
    /// (definitions report it; routing a call does not, and serializing every
    /// schema per call would be its largest cost).
    /// Takes this session's record of the turn so far (and starts a new one).
    /// Each session has its own: concurrent sessions never mix their counts.
    pub fn take_record(&self, session: &Session) -> TurnRecord {
        self.host.take_record(&session.id)
    }

    fn remember(&self, session: &Session, ids: &[String]) {
        let mut r = self.reveals.lock().unwrap_or_else(|p| p.into_inner());
        if !r.by_session.contains_key(&session.id) {
            r.order.push_back(session.id.clone());
            while r.order.len() > self.settings.max_sessions.max(1) {
                if let Some(old) = r.order.pop_front() {
                    r.by_session.remove(&old);
                }
            }
        }
        r.by_session
            .entry(session.id.clone())
            .or_default()
            .extend(ids.iter().cloned());
    }

    /// Tools this session has described (bounded; evicted sessions start empty).
    pub fn revealed(&self, session: &Session) -> Vec<String> {
        let r = self.reveals.lock().unwrap_or_else(|p| p.into_inner());
        let mut ids: Vec<String> = r
            .by_session
            .get(&session.id)
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default();
        ids.sort();
        ids
    }

    fn context(&self, session: &Session, opts: &CallOptions) -> CallContext {
        CallContext {
            session: Some(Arc::from(session.id.as_str())),
            principal: session.principal.as_deref().map(Arc::from),
            cancel: opts.cancel.clone(),
            notify: opts.notify.clone(),
            deadline: None,
        }
    }

    /// Handles one call from the model: a bridge tool or a tool sent directly.
    pub async fn handle_call(&self, session: &Session, name: &str, args: Value) -> ToolOutput {
        self.handle_call_with(session, name, args, &CallOptions::default())
            .await
    }

    /// [`ToolSearch::handle_call`] with cancellation and a progress sink. When
    /// `opts.cancel` fires the call ends at once with a `CANCELLED` error: a running
    /// snippet is stopped and the tool calls in flight are cancelled.
    pub async fn handle_call_with(
        &self,
        session: &Session,
        name: &str,
        args: Value,
        opts: &CallOptions,
    ) -> ToolOutput {
        use tracing::Instrument;
        // Ids and names only: arguments stay out of traces.
        let span = tracing::info_span!("toolsearch.call", tool = name, session = %session.id);
        let run = self
            .handle_call_inner(session, name, args, opts)
            .instrument(span);
        tokio::select! {
            out = run => out,
            () = opts.cancel.cancelled() => ToolOutput::error("CANCELLED", "the call was cancelled by its caller"),
        }
    }

    async fn handle_call_inner(
        &self,
        session: &Session,
        name: &str,
        args: Value,
        opts: &CallOptions,
    ) -> ToolOutput {
        let scope = &Self::scope(session);
        match name {
            "tool_search_code" => self.run_code(session, args, opts).await,
            "tool_search" => {
                let Some(queries) = strings(&args["query"]) else {
                    return ToolOutput::error(
                        "INVALID_ARGS",
                        "tool_search needs `query`: a string or a list of up to 7 strings",
                    );
                };
                let limit = args["limit"].as_u64().map(|l| l as usize);
                let refs: Vec<&str> = queries.iter().map(String::as_str).collect();
                match self.host.search(&refs, limit, scope) {
                    Ok(v) => ToolOutput::ok(v),
                    Err(e) => ToolOutput::error(e.code.as_str(), e.message),
                }
            }
            "tool_describe" => {
                let Some(ids) = strings(&args["ids"]) else {
                    return ToolOutput::error(
                        "INVALID_ARGS",
                        "tool_describe needs `ids`: an id or a list of ids",
                    );
                };
                let mut out = Vec::new();
                let mut found = Vec::new();
                for id in ids.iter().take(20) {
                    match self.host.describe(id, scope) {
                        Ok(d) => {
                            found.push(d["id"].as_str().unwrap_or(id).to_string());
                            out.push(d);
                        }
                        Err(e) => out.push(json!({"id": id, "error": {"code": e.code.as_str(), "message": e.message}})),
                    }
                }
                self.remember(session, &found);
                ToolOutput::ok(json!({"tools": out}))
            }
            "tool_call" => {
                let Some(id) = args["id"].as_str() else {
                    return ToolOutput::error(
                        "INVALID_ARGS",
                        "tool_call needs `id` (from tool_search) and `arguments`",
                    );
                };
                if BRIDGE_TOOLS.contains(&id) {
                    return ToolOutput::error(
                        "INVALID_ARGS",
                        format!("`{id}` is a bridge tool; call it directly"),
                    );
                }
                if let Ok((t, _, _)) = self.host.resolve(id, scope) {
                    if self.never_deferred(&t) {
                        return ToolOutput::error(
                            "INVALID_ARGS",
                            format!("`{}` is not deferred; call it directly", t.name),
                        );
                    }
                }
                let arguments = args.get("arguments").cloned().unwrap_or(json!({}));
                self.call(session, id, arguments, opts).await
            }
            direct => {
                // A tool sent directly: its provider name maps back to the tool, by the
                // names `definitions` sent (the same plan).
                let plan = self.plan(scope, false);
                match plan.names.iter().position(|n| n == direct) {
                    Some(i) => {
                        let id = plan.visible[plan.direct[i]].id.clone();
                        self.call(session, &id, args, opts).await
                    }
                    None => ToolOutput::error("UNKNOWN_TOOL", format!("unknown tool `{direct}`")),
                }
            }
        }
    }

    async fn call(
        &self,
        session: &Session,
        id: &str,
        args: Value,
        opts: &CallOptions,
    ) -> ToolOutput {
        let out = self
            .host
            .clone()
            .call_tool(id, args, &Self::scope(session), self.context(session, opts))
            .await;
        match out {
            Ok((tool, v, notes)) => {
                let passthrough = (tool.source == toolsearch_catalog::Source::Mcp
                    && crate::outcome::is_mcp_result(&v))
                .then(|| v.clone());
                let mut out = if notes.is_empty() {
                    ToolOutput::ok(v)
                } else {
                    ToolOutput::ok(json!({"result": v, "repaired_arguments": notes}))
                };
                out.passthrough = passthrough;
                out
            }
            Err(e) => {
                let mut out = ToolOutput::error(e.code.as_str(), e.message.clone());
                if let Some(detail) = e.detail {
                    let mut native = detail.clone();
                    native.insert("isError".into(), Value::Bool(true));
                    out.content["error"]["detail"] = Value::Object(detail);
                    out.passthrough = Some(Value::Object(native));
                }
                out
            }
        }
    }

    async fn run_code(&self, session: &Session, args: Value, opts: &CallOptions) -> ToolOutput {
        let Some(code) = args["code"].as_str() else {
            return ToolOutput::error(
                "INVALID_ARGS",
                "tool_search_code needs `code`: the body of an async function",
            );
        };
        let pool = match self.pool() {
            Ok(p) => p,
            Err(e) => {
                return ToolOutput::error("UNAVAILABLE", format!("code mode is unavailable: {e}"))
            }
        };
        let bridge = Arc::new(CatalogBridge::from_host(
            self.host.clone(),
            Arc::new(Self::scope(session)),
            self.context(session, opts),
        ));
        let result = pool.execute(code, bridge).await;
        {
            let mut t = self.host.telemetry(&session.id);
            t.turn.isolate_start_us.push(result.stats.startup_us);
            t.turn.snippet_run_us.push(result.stats.run_us);
        }
        if result
            .error
            .as_ref()
            .is_some_and(|e| e.kind == ErrorKind::Engine)
        {
            // Next definitions use the structured tools.
            let reason = result
                .error
                .as_ref()
                .map(|e| e.message.clone())
                .unwrap_or_default();
            *self.engine.lock().unwrap_or_else(|p| p.into_inner()) = Some(Err(reason.clone()));
            self.host
                .telemetry(&session.id)
                .turn
                .fallbacks
                .push(format!("code mode broke mid-session ({reason})"));
            return ToolOutput::error("UNAVAILABLE", format!("code mode is unavailable ({reason}); use tool_search, tool_describe and tool_call next turn"));
        }
        let is_error = !result.ok;
        ToolOutput {
            content: serde_json::to_value(&result).unwrap_or(Value::Null),
            is_error,
            passthrough: None,
        }
    }

    /// Marks the engine unusable (for tests and for hosts that know better).
    pub fn disable_code_mode(&self, reason: &str) {
        *self.engine.lock().unwrap_or_else(|p| p.into_inner()) = Some(Err(reason.to_string()));
    }
}

/// A string or a list of strings (non-strings in the list are skipped); `None` for
/// anything else. How `tool_search` takes queries and `tool_describe` takes ids.
fn strings(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::String(s) => Some(vec![s.clone()]),
        Value::Array(items) => Some(
            items
                .iter()
                .filter_map(|i| i.as_str().map(String::from))
                .collect(),
        ),
        _ => None,
    }
}
