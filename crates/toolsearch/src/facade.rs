//! [`ToolSearch`]: what an agent runtime or gateway embeds. It decides, each time
//! definitions are built, whether tools are deferred, sends them in the
//! provider's shape, and handles the model's calls.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use toolsearch_catalog::{Catalog, Deferrable, Tool};
#[cfg(feature = "code")]
use toolsearch_sandbox::Pool;

use crate::activation::{Activation, Mode, DEFAULT_COUNT_THRESHOLD, DEFAULT_SHARE_THRESHOLD};
use crate::defs;
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
    /// Shape when deferral is on. Default [`Mode::Code`] ([`Mode::Tools`] in a
    /// build without the `code` feature).
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
    /// Reveal mode's stubs, hidden form and reminder.
    pub reveal: crate::modes::RevealSettings,
    /// Native mode's search (ours answering, or the provider's hosted one).
    pub native: crate::modes::NativeSettings,
    /// The provider definitions are built for, when known: [`Mode::Native`] needs one
    /// that hosts tool search (Anthropic, OpenAI Responses) and fails at build
    /// otherwise; [`Mode::Auto`] picks native for it. Default none.
    pub provider: Option<defs::Provider>,
    /// The model the definitions are for (e.g. `claude-sonnet-4-5`): without a
    /// `context_window`, its window (see [`crate::windows`]) is what the share
    /// rule divides by. Default none (the provider's smallest window).
    pub model: Option<String>,
    /// Built-in tools (source `builtin`) are deferred like the others. Default off:
    /// built-in tools are never deferred unless a tool says `Deferrable::Always`
    /// (Hermes' default; MCP and client tools are deferrable).
    pub defer_builtins: bool,
}

impl Settings {
    /// The context window the share rule divides by, and where it came from: the
    /// `context_window`, else the `model`'s (see [`crate::windows`]), else the
    /// provider's smallest.
    pub fn window(&self) -> (usize, crate::windows::WindowSource) {
        crate::windows::context_window(self.context_window, self.model.as_deref(), self.provider)
    }

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

impl Settings {
    /// Checks each setting's range (what [`Builder::build`] runs).
    ///
    /// # Errors
    /// The first setting out of range.
    pub fn validate(&self) -> Result<(), BuildError> {
        let hard = toolsearch_catalog::HARD_MAX_LIMIT;
        if !(1..=hard).contains(&self.max_search_limit) {
            return Err(BuildError::new(
                "max_search_limit",
                format!("{} is out of range 1..={hard}", self.max_search_limit),
            ));
        }
        if !(1..=self.max_search_limit).contains(&self.search_default_limit) {
            return Err(BuildError::new(
                "search_default_limit",
                format!(
                    "{} is out of range 1..={} (max_search_limit)",
                    self.search_default_limit, self.max_search_limit
                ),
            ));
        }
        if !(self.share_threshold > 0.0 && self.share_threshold <= 1.0) {
            return Err(BuildError::new(
                "share_threshold",
                format!("{} is not a share in (0, 1]", self.share_threshold),
            ));
        }
        if self.context_window == Some(0) {
            return Err(BuildError::new("context_window", "must be more than zero"));
        }
        if self.max_sessions == 0 {
            return Err(BuildError::new("max_sessions", "must be at least 1"));
        }
        if !(MIN_LISTING_BYTES..=MAX_LISTING_BYTES).contains(&self.listing_bytes) {
            return Err(BuildError::new(
                "listing_bytes",
                format!(
                    "{} is out of range {MIN_LISTING_BYTES}..={MAX_LISTING_BYTES}",
                    self.listing_bytes
                ),
            ));
        }
        if let Some(bad) = self.never_defer.iter().find(|n| n.trim().is_empty()) {
            return Err(BuildError::new(
                "never_defer",
                format!("{bad:?} is not a tool name"),
            ));
        }
        if self.mode == Mode::Native {
            match self.provider {
                None => {
                    return Err(BuildError::new(
                        "mode",
                        "native needs the provider (Anthropic or OpenAI Responses) set",
                    ))
                }
                Some(p) if !crate::modes::hosts_search(p) => {
                    return Err(BuildError::new(
                        "mode",
                        format!(
                            "provider {} hosts no tool search; native needs Anthropic or \
                             OpenAI Responses (use auto to fall back to code)",
                            p.name()
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
        let r = &self.reveal;
        if !(16..=4096).contains(&r.stub_description_bytes) {
            return Err(BuildError::new(
                "reveal.stub_description_bytes",
                format!("{} is out of range 16..=4096", r.stub_description_bytes),
            ));
        }
        if !(MIN_LISTING_BYTES..=64 * 1024).contains(&r.reminder_bytes) {
            return Err(BuildError::new(
                "reveal.reminder_bytes",
                format!(
                    "{} is out of range {MIN_LISTING_BYTES}..=65536",
                    r.reminder_bytes
                ),
            ));
        }
        if self.mode == Mode::Code && !cfg!(feature = "code") {
            return Err(BuildError::new(
                "mode",
                "code mode is not built in (enable the `code` feature); use Mode::Tools",
            ));
        }
        Ok(())
    }
}

/// Smallest listing budget [`Settings::validate`] accepts.
pub const MIN_LISTING_BYTES: usize = 64;
/// Largest listing budget [`Settings::validate`] accepts.
pub const MAX_LISTING_BYTES: usize = 64 * 1024;

/// A setting [`Builder::build`] refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildError {
    /// The setting, as the builder and the config file name it.
    pub setting: &'static str,
    /// Why it was refused.
    pub message: String,
}

impl BuildError {
    fn new(setting: &'static str, message: impl Into<String>) -> Self {
        BuildError {
            setting,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "toolsearch setting `{}`: {}", self.setting, self.message)
    }
}

impl std::error::Error for BuildError {}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            mode: if cfg!(feature = "code") {
                Mode::Code
            } else {
                Mode::Tools
            },
            activation: Activation::Auto,
            count_threshold: DEFAULT_COUNT_THRESHOLD,
            share_threshold: DEFAULT_SHARE_THRESHOLD,
            context_window: None,
            never_defer: Vec::new(),
            listing_bytes: DEFAULT_LISTING_BYTES,
            max_sessions: DEFAULT_MAX_SESSIONS,
            search_default_limit: toolsearch_catalog::DEFAULT_LIMIT,
            max_search_limit: toolsearch_catalog::MAX_LIMIT,
            reveal: crate::modes::RevealSettings::default(),
            native: crate::modes::NativeSettings::default(),
            provider: None,
            model: None,
            defer_builtins: false,
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
    pub fn error(code: crate::ErrorCode, message: impl Into<String>) -> Self {
        ToolOutput {
            content: json!({"error": {"code": code.as_str(), "message": message.into()}}),
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
    #[cfg(feature = "code")]
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
    /// The provider definitions are built for (needed by [`Mode::Native`]).
    pub fn provider(mut self, provider: defs::Provider) -> Self {
        self.settings.provider = Some(provider);
        self
    }
    /// All settings at once.
    pub fn settings(mut self, settings: Settings) -> Self {
        self.settings = settings;
        self
    }
    /// The sandbox pool for code mode (default: one made on first use, of worker
    /// processes running the program [`WorkerCommand::locate`](crate::WorkerCommand::locate)
    /// finds; see [`serve_if_worker`](crate::serve_if_worker)).
    #[cfg(feature = "code")]
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
    /// Longest wait for one approval before the call is refused (default
    /// [`DEFAULT_APPROVAL_TIMEOUT`](crate::DEFAULT_APPROVAL_TIMEOUT), 120 s). A
    /// snippet waiting for an approval is paused: the wait does not count against
    /// its deadline.
    pub fn approval_timeout(mut self, timeout: Duration) -> Self {
        self.host.approval_timeout = timeout;
        self
    }
    /// Fuses an embedding model with search (all shapes: code mode, structured tools).
    /// Tool vectors are built in the background for each catalog snapshot and cached
    /// in `cache`; search is lexical until they are ready.
    #[cfg(feature = "semantic")]
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
    /// Tells which configured backends are down and why (see [`crate::Outages`]).
    pub fn outages(mut self, outages: crate::host::Outages) -> Self {
        self.host.outages = Some(outages);
        self
    }
    /// Record arguments and results in the turn record (default off: they carry tokens).
    pub fn capture_payloads(mut self, on: bool) -> Self {
        self.host.capture = on;
        self
    }
    /// Checks every setting and builds it: a setting out of range fails here, not
    /// on the first request.
    ///
    /// # Errors
    /// [`BuildError`] naming the first setting that is out of range,
    /// [`Mode::Code`] asked of a build without the `code` feature, or of a host
    /// with no sandbox worker program (setting `sandbox`: call
    /// [`serve_if_worker`](crate::serve_if_worker) first in `main`).
    pub fn build(mut self) -> Result<ToolSearch, BuildError> {
        self.settings.validate()?;
        if self.host.call_timeout.is_zero() {
            return Err(BuildError::new("call_timeout", "must be more than zero"));
        }
        if self.host.approval_timeout.is_zero() {
            return Err(BuildError::new(
                "approval_timeout",
                "must be more than zero",
            ));
        }
        // Code mode's worker program is found now, so a host that cannot run
        // snippets learns it here, not from a model's first call.
        #[cfg(feature = "code")]
        if self.settings.mode == Mode::Code && self.pool.is_none() {
            if let Err(e) = toolsearch_sandbox::WorkerCommand::locate() {
                return Err(BuildError::new(
                    "sandbox",
                    format!(
                        "code mode runs snippets in sandbox worker processes: {e}; or choose \
                         .mode(Mode::Tools), or pass .sandbox(pool) for a pool of your own"
                    ),
                ));
            }
        }
        self.host.limits = self.settings.limits();
        let host = Arc::new(Host::new(self.host));
        let reveals = crate::modes::Store::new(self.settings.max_sessions);
        Ok(ToolSearch {
            host,
            settings: self.settings,
            #[cfg(feature = "code")]
            pool: Mutex::new(self.pool),
            #[cfg(feature = "code")]
            health: Arc::default(),
            reveals: Mutex::new(reveals),
        })
    }
}

/// The embeddable facade. Share it behind an `Arc`.
///
/// ```
/// use toolsearch::{Mode, Provider, Session, ToolSearch};
/// use toolsearch_catalog::Catalog;
///
/// let ts = ToolSearch::builder().catalog(Catalog::demo()).mode(Mode::Tools).build().unwrap();
/// let defs = ts.definitions(&Session::new("s1"), Provider::OpenAiChat);
/// assert!(defs.decision.active);
/// let names: Vec<_> = defs.tools.iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
/// assert!(names.contains(&"tool_search") && names.contains(&"read_file"));
/// ```
pub struct ToolSearch {
    pub(crate) host: Arc<Host>,
    pub(crate) settings: Settings,
    #[cfg(feature = "code")]
    pub(crate) pool: Mutex<Option<Pool>>,
    /// Whether code mode can run (probes and their answers).
    #[cfg(feature = "code")]
    pub(crate) health: Arc<crate::code_health::CodeHealth>,
    reveals: Mutex<crate::modes::Store>,
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
            #[cfg(feature = "code")]
            pool: None,
        }
    }

    /// The settings it was built with.
    pub fn settings(&self) -> &Settings {
        &self.settings
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

    /// True when `tool` is always sent in full: its own policy says never, a
    /// `never_defer` entry names it, or it is built in and built-ins are not deferred
    /// (unless the tool itself says `Deferrable::Always`).
    pub(crate) fn never_deferred(&self, tool: &Tool) -> bool {
        tool.deferrable == Deferrable::Never
            || self
                .settings
                .never_defer
                .iter()
                .any(|n| n == &tool.name || n == &tool.id || Some(n) == tool.native_name.as_ref())
            || (tool.source == toolsearch_catalog::Source::Builtin
                && !self.settings.defer_builtins
                && tool.deferrable != Deferrable::Always)
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

    /// Forgets what is kept for the session (its reveals, its turn record):
    /// call it when the session ends (the gateway does when its MCP session
    /// closes). Without it the state is bounded all the same (least recently
    /// used sessions go first) but lives until evicted.
    pub fn end_session(&self, session: &Session) {
        self.reveals
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .forget(&session.id);
        let _ = self.host.take_record(&session.id);
    }

    /// Records `ids` as revealed for the session (new ones after the earlier ones).
    pub(crate) fn remember(&self, session: &Session, ids: &[String]) {
        if ids.is_empty() {
            return;
        }
        self.reveals
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .reveal(&session.id, ids);
    }

    /// Tools this session has revealed (searched in reveal mode, or described), in
    /// reveal order; tools that left the catalog are dropped. Bounded: the least
    /// recently used session is evicted past `max_sessions`, and starts empty (or is
    /// rebuilt from its messages by [`ToolSearch::restore_reveals`]).
    pub fn revealed(&self, session: &Session) -> Vec<String> {
        let catalog = self.host.catalog();
        let mut r = self.reveals.lock().unwrap_or_else(|p| p.into_inner());
        let ids = r.get(&session.id);
        let client = session.client_tools.as_ref();
        let present = |id: &str| {
            catalog.get(id).is_some()
                || client.is_some_and(|c| c.tools().iter().any(|t| t.id == id))
        };
        if ids.iter().any(|id| !present(id)) {
            r.retain(&|id| catalog.get(id).is_some() || id.starts_with("client:"));
            return ids.into_iter().filter(|id| present(id)).collect();
        }
        ids
    }

    /// Rebuilds the session's reveals from its conversation: the earlier `tool_search`
    /// results in `messages` (OpenAI Chat messages, OpenAI Responses items or
    /// Anthropic messages) name what they revealed. Returns how many tools are now
    /// revealed. Tools no longer visible to the session are skipped.
    pub fn restore_reveals(&self, session: &Session, messages: &[Value]) -> usize {
        let scope = Self::scope(session);
        let ids: Vec<String> =
            crate::reveal::restore::revealed_ids(messages, crate::BridgeTool::Search.name())
                .into_iter()
                .filter(|id| self.host.resolve(id, &scope).is_ok())
                .collect();
        self.remember(session, &ids);
        self.revealed(session).len()
    }

    pub(crate) fn context(&self, session: &Session, opts: &CallOptions) -> CallContext {
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
            () = opts.cancel.cancelled() => ToolOutput::error(crate::ErrorCode::Cancelled, "the call was cancelled by its caller"),
        }
    }
}
