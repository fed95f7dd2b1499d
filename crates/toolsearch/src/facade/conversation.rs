//! A conversation opened from a [`ToolSearch`]: it owns its state (the tools
//! it revealed, the record of its turn) and answers for one session.

use std::sync::Arc;

use serde_json::Value;

use super::ToolSearch;
use crate::calls::Turn;
use crate::conversation::{Session, State};
use crate::dispatch::CallOptions;
use crate::host::record::TurnRecord;
use crate::output::ToolOutput;
use crate::render::Definitions;
use crate::vocab::{Provider, Shape};

/// One conversation: an MCP session of a gateway, an agent loop's run, or an
/// identity a stateless client names on each request. Opened with
/// [`ToolSearch::open`] (it owns its state, dropped with it) or
/// [`ToolSearch::conversation`] (the facade keeps the state under the
/// session's id). Cheap to clone: clones share the state.
///
/// ```
/// use std::sync::Arc;
/// use toolsearch::{Catalog, Mode, Provider, Session, ToolSearch};
///
/// let ts = Arc::new(ToolSearch::builder().catalog(Catalog::demo()).mode(Mode::Tools).build().unwrap());
/// let conversation = ts.open(Session::new("run-1"));
/// let defs = conversation.definitions(Provider::OpenAiChat);
/// assert!(defs.decision.active);
/// ```
#[derive(Clone)]
pub struct Conversation {
    ts: Arc<ToolSearch>,
    session: Session,
    state: Arc<State>,
}

impl std::fmt::Debug for Conversation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conversation")
            .field("session", &self.session.id)
            .finish_non_exhaustive()
    }
}

impl Conversation {
    pub(super) fn new(ts: Arc<ToolSearch>, session: Session, state: Arc<State>) -> Self {
        Conversation { ts, session, state }
    }

    fn turn(&self) -> Turn<'_> {
        self.ts.turn(&self.session, &self.state)
    }

    /// Who is asking.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The facade it was opened from.
    pub fn toolsearch(&self) -> &Arc<ToolSearch> {
        &self.ts
    }

    /// The definitions to send for `provider` (see [`ToolSearch::definitions`]).
    pub fn definitions(&self, provider: Provider) -> Definitions {
        self.turn().definitions(provider)
    }

    /// The shape the list for `provider` has now, without building it.
    pub fn shape_now(&self, provider: Provider) -> Shape {
        self.turn().shape_now(provider)
    }

    /// Handles one call from the model (see [`ToolSearch::handle_call`]).
    pub async fn handle_call(&self, name: &str, args: Value) -> ToolOutput {
        self.handle_call_with(name, args, &CallOptions::default())
            .await
    }

    /// Handles one call from the model with cancellation and a progress sink
    /// (see [`ToolSearch::handle_call_with`]).
    pub async fn handle_call_with(
        &self,
        name: &str,
        args: Value,
        opts: &CallOptions,
    ) -> ToolOutput {
        self.turn().run(name, args, opts).await
    }

    /// Takes the record of the turn so far (and starts a new one).
    pub fn take_record(&self) -> TurnRecord {
        self.turn().take_record()
    }

    /// Tools revealed so far, in reveal order (see [`ToolSearch::revealed`]).
    pub fn revealed(&self) -> Vec<String> {
        self.turn().revealed()
    }

    /// Rebuilds the reveals from the conversation's messages (see
    /// [`ToolSearch::restore_reveals`]).
    pub fn restore_reveals(&self, messages: &[Value]) -> usize {
        self.turn().restore_reveals(messages)
    }

    /// Places reveal mode's reminder in `messages` (see [`ToolSearch::insert_reminder`]).
    pub fn insert_reminder(&self, provider: Provider, messages: &mut Vec<Value>) -> bool {
        self.turn().insert_reminder(provider, messages)
    }

    /// The reminder text of reveal mode's hidden form, if any.
    pub fn reminder(&self, provider: Provider) -> Option<String> {
        self.turn().reminder(provider)
    }

    /// Whether a reveal changes the list sent for `provider` (see
    /// [`ToolSearch::reveals_change_the_list`]).
    pub fn reveals_change_the_list(&self, provider: Provider) -> bool {
        self.turn().reveals_change_the_list(provider)
    }

    /// Answers an OpenAI Responses `tool_search_call` item (see
    /// [`ToolSearch::answer_tool_search`]).
    pub fn answer_tool_search(&self, call: &Value) -> Value {
        self.turn().answer_tool_search(call)
    }
}
