//! [`ToolSearch`]: what an agent runtime or gateway embeds (wasmtime's
//! `Engine`), and the [`Conversation`]s opened from it (its `Store`s). It
//! decides, each time definitions are built, whether tools are deferred, sends
//! them in the provider's shape, and handles the model's calls.
//!
//! - `build.rs`: the [`Builder`];
//! - `conversation.rs`: a conversation's handle, which owns its state.

mod build;
mod conversation;

use std::sync::Arc;

use serde_json::Value;

pub use build::Builder;
pub use conversation::Conversation;

use crate::calls::Turn;
use crate::code::CodeMode;
use crate::conversation::{Registry, Session, State};
use crate::dispatch::CallOptions;
use crate::host::record::TurnRecord;
use crate::host::{Host, PlanCounts};
use crate::output::ToolOutput;
use crate::plan;
use crate::render::{reveal, Definitions};
use crate::settings::modes::Mode;
use crate::settings::Settings;
use crate::vocab::{Provider, Shape};
use toolsearch_catalog::Catalog;

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
///
/// The methods that take a [`Session`] keep its state (reveals, turn record)
/// under its id, for at most `max_sessions` sessions; a caller that
/// holds a conversation for its whole life opens a [`Conversation`] instead
/// ([`ToolSearch::open`]), which owns its state and drops it with itself.
pub struct ToolSearch {
    pub(crate) host: Arc<Host>,
    pub(crate) settings: Settings,
    pub(crate) code: CodeMode,
    /// The plans of this catalog generation, one per policy.
    plans: plan::Cache,
    /// The state of sessions named by id.
    conversations: Registry,
}

impl ToolSearch {
    /// The settings it was built with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The shared core (search, describe, call).
    pub fn host(&self) -> &Arc<Host> {
        &self.host
    }

    /// How many plans this facade's conversations built and how many times
    /// every visible tool's provider names were made (for tests and benchmarks).
    #[doc(hidden)]
    pub fn plan_counts(&self) -> &PlanCounts {
        &self.host.plan_counts
    }

    /// Replaces the catalog (tools added or removed mid-session); ids that disappear
    /// answer "catalog changed, search again".
    pub fn set_catalog(&self, catalog: Catalog) {
        self.host.set_catalog(catalog);
    }

    /// Opens a conversation for `session` that owns its state (reveals, turn
    /// record): the state lives as long as the [`Conversation`], and is
    /// never evicted or shared with another conversation of the same id.
    pub fn open(self: &Arc<Self>, session: Session) -> Conversation {
        let state = Arc::new(State::new(self.host.capture));
        Conversation::new(self.clone(), session, state)
    }

    /// The conversation of `session`'s id kept by this facade (opened on first
    /// use; the same state [`ToolSearch::definitions`] and
    /// [`ToolSearch::handle_call`] use for that id): for a caller that names
    /// its conversation on each request (a stateless client) rather than
    /// holding it. Bounded: past `max_sessions` the least recently used is
    /// evicted and starts empty.
    pub fn conversation(self: &Arc<Self>, session: Session) -> Conversation {
        let state = self.conversations.open(&session.id);
        Conversation::new(self.clone(), session, state)
    }

    /// A request of `session` whose state this facade keeps.
    fn with<R>(&self, session: &Session, f: impl FnOnce(&Turn<'_>) -> R) -> R {
        let state = self.conversations.open(&session.id);
        f(&self.turn(session, &state))
    }

    pub(crate) fn turn<'a>(&'a self, session: &'a Session, state: &'a State) -> Turn<'a> {
        Turn {
            host: &self.host,
            settings: &self.settings,
            code: &self.code,
            plans: &self.plans,
            session,
            state,
        }
    }

    /// Takes this session's record of the turn so far (and starts a new one).
    /// Each session has its own: concurrent sessions never mix their counts.
    pub fn take_record(&self, session: &Session) -> TurnRecord {
        self.with(session, |t| t.take_record())
    }

    /// Forgets what is kept for the session (its reveals, its turn record):
    /// call it when the session ends. Without it the state is bounded all the
    /// same (least recently used sessions go first) but lives until evicted.
    pub fn end_session(&self, session: &Session) {
        self.conversations.forget(&session.id);
    }

    /// Tools this session has revealed (searched in reveal mode, or described), in
    /// reveal order; tools that left the catalog are dropped. Bounded: the least
    /// recently used session is evicted past `max_sessions`, and starts empty (or is
    /// rebuilt from its messages by [`ToolSearch::restore_reveals`]).
    pub fn revealed(&self, session: &Session) -> Vec<String> {
        match self.conversations.get(&session.id) {
            Some(state) => self.turn(session, &state).revealed(),
            None => Vec::new(),
        }
    }

    /// Rebuilds the session's reveals from its conversation: the earlier `tool_search`
    /// results in `messages` (OpenAI Chat messages, OpenAI Responses items or
    /// Anthropic messages) name what they revealed. Returns how many tools are now
    /// revealed. Tools no longer visible to the session are skipped.
    pub fn restore_reveals(&self, session: &Session, messages: &[Value]) -> usize {
        self.with(session, |t| t.restore_reveals(messages))
    }

    /// The definitions to send for this session and provider. Re-evaluates activation
    /// for every catalog generation, so tools added or removed mid-session cross the
    /// threshold both ways.
    pub fn definitions(&self, session: &Session, provider: Provider) -> Definitions {
        self.with(session, |t| t.definitions(provider))
    }

    /// The shape [`ToolSearch::definitions`] gives this session's list for
    /// `provider` now (direct when deferral is off), without building the list.
    pub fn shape_now(&self, session: &Session, provider: Provider) -> Shape {
        self.with(session, |t| t.shape_now(provider))
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
        let state = self.conversations.open(&session.id);
        self.turn(session, &state).run(name, args, opts).await
    }

    /// In reveal mode's hidden form (set, or chosen because the stubs were over
    /// budget), puts the `<available-deferred-tools>` reminder, listing the deferred
    /// tools, as a user-role message before the first non-system message of
    /// `messages` (chat-style `{role, content}` messages). The reminder is
    /// byte-stable for a catalog snapshot and scope (reveals do not change it): an
    /// earlier one is replaced in place (by the same bytes unless the catalog
    /// changed), never repeated, and removed when no longer needed. Returns whether a
    /// reminder is in `messages` now.
    pub fn insert_reminder(
        &self,
        session: &Session,
        provider: Provider,
        messages: &mut Vec<Value>,
    ) -> bool {
        self.with(session, |t| t.insert_reminder(provider, messages))
    }

    /// The reminder text [`ToolSearch::insert_reminder`] places, if any: none
    /// outside the hidden form, and none where the names go in `tool_search`'s
    /// description instead (over MCP by default).
    pub fn reminder(&self, session: &Session, provider: Provider) -> Option<String> {
        self.with(session, |t| t.reminder(provider))
    }

    /// Whether a reveal changes what [`ToolSearch::definitions`] sends this
    /// session for `provider` (the hidden form appends revealed tools; stubs stay as
    /// they are): a gateway tells its client the list changed only then.
    pub fn reveals_change_the_list(&self, session: &Session, provider: Provider) -> bool {
        self.with(session, |t| t.reveals_change_the_list(provider))
    }

    /// The guidance note for the system prompt in reveal mode.
    pub fn guidance(&self) -> Option<&'static str> {
        (self.settings.mode == Mode::Reveal).then(reveal::guidance)
    }

    /// Answers an OpenAI Responses `tool_search_call` item (client execution) with the
    /// `tool_search_output` item to send back: the matched functions, in their
    /// namespaces, ranked by our search within the session's scope.
    pub fn answer_tool_search(&self, session: &Session, call: &Value) -> Value {
        self.with(session, |t| t.answer_tool_search(call))
    }

    /// Probes code mode now when the mode may use it (a trivial snippet on the
    /// pool: up to seconds on a cold machine), so that no `definitions` call
    /// waits for the first probe. Whether code mode can run (`Ok` too when the
    /// mode never uses it). Blocks: call it at start, outside async code (the
    /// gateway does, on a blocking thread).
    pub fn probe_code_mode(&self) -> Result<(), String> {
        match self.settings.mode {
            Mode::Code | Mode::Auto => self.code.engine_ok(),
            _ => Ok(()),
        }
    }

    /// Follows whether code mode is available (`true`) or definitions fall back
    /// to the structured tools (`false`, also before the first probe; always
    /// `false` without the `code` feature). It changes only when the pool
    /// itself stops or starts working again, never because of one snippet; a
    /// gateway tells its clients `tools/list_changed` then.
    pub fn code_mode_changes(&self) -> tokio::sync::watch::Receiver<bool> {
        self.code.code_mode_changes()
    }

    /// Marks the engine unusable for good (for tests and for hosts that know
    /// better); never re-probed. A no-op without the `code` feature.
    pub fn disable_code_mode(&self, reason: &str) {
        self.code.disable_code_mode(reason);
    }

    /// Stops code mode's sandbox, for a host about to exit: its worker
    /// processes and the job processes they forked are killed, and this waits
    /// (up to `within`) until all have exited (see
    /// [`Pool::shutdown`](toolsearch_sandbox::Pool::shutdown)). Snippets
    /// running or sent later get an error. True when nothing was left running
    /// (or no sandbox was started). Blocks: call it outside async code.
    #[cfg(feature = "code")]
    pub fn shutdown_sandbox(&self, within: std::time::Duration) -> bool {
        self.code.shutdown_sandbox(within)
    }
}
