//! One request of a conversation: the shared host and settings, code mode,
//! who is asking, and the conversation's own state. What the facade's
//! methods and a [`Conversation`](crate::Conversation)'s run on.

use std::sync::Arc;

use serde_json::Value;

use crate::code::CodeMode;
use crate::conversation::{restore, Session, State};
use crate::dispatch::{CallContext, CallOptions};
use crate::host::record::TurnRecord;
use crate::host::{Host, Scope};
use crate::plan::{self, Plan};
use crate::render::{self, reveal, Definitions};
use crate::settings::modes::Mode;
use crate::settings::Settings;
use crate::vocab::{BridgeTool, Fallback, Provider, Shape};

/// A conversation's request against the shared host.
pub(crate) struct Turn<'a> {
    pub(crate) host: &'a Arc<Host>,
    pub(crate) settings: &'a Settings,
    pub(crate) code: &'a CodeMode,
    pub(crate) plans: &'a plan::Cache,
    pub(crate) session: &'a Session,
    pub(crate) state: &'a State,
}

impl Turn<'_> {
    /// The scope of this conversation's calls.
    pub(crate) fn scope(&self) -> Scope {
        self.state.scope(self.session)
    }

    /// The plan for this catalog generation and the conversation's scope.
    pub(crate) fn plan(&self, scope: &Scope) -> Arc<Plan> {
        self.plans.plan(self.host, self.settings, scope)
    }

    /// The shape of deferral for definitions built for `provider` (see [`plan::shape`]).
    pub(crate) fn shape(&self, provider: Option<Provider>) -> (Shape, Option<Fallback>) {
        plan::shape(self.settings, provider, &|| self.code.engine_ok())
    }

    /// How the bridge tools answer: the shape of the settings' provider (the one
    /// the definitions use when they are asked for that provider).
    pub(crate) fn route(&self) -> Shape {
        self.shape(self.settings.provider).0
    }

    pub(crate) fn context(&self, opts: &CallOptions) -> CallContext {
        CallContext {
            session: Some(Arc::from(self.session.id.as_str())),
            principal: self.session.principal.as_deref().map(Arc::from),
            cancel: opts.cancel.clone(),
            notify: opts.notify.clone(),
            trace: opts.trace.clone(),
            deadline: None,
        }
    }

    /// The definitions to send for `provider`.
    pub(crate) fn definitions(&self, provider: Provider) -> Definitions {
        let _span =
            tracing::info_span!("toolsearch.definitions", session = %self.session.id).entered();
        let scope = self.scope();
        let plan = self.plan(&scope);
        let shape = if plan.active {
            self.shape(Some(provider))
        } else {
            (Shape::Direct, None)
        };
        let revealed = if shape.0 == Shape::Reveal {
            self.revealed()
        } else {
            Vec::new()
        };
        render::definitions(
            render::Inputs {
                host: self.host,
                settings: self.settings,
                scope: &scope,
                plan: &plan,
                shape,
                revealed: &revealed,
                record: self.state.record(),
            },
            provider,
        )
    }

    /// The shape the definitions give this conversation's list for `provider`
    /// now (direct when deferral is off), without building the list.
    pub(crate) fn shape_now(&self, provider: Provider) -> Shape {
        if self.plan(&self.scope()).active {
            self.shape(Some(provider)).0
        } else {
            Shape::Direct
        }
    }

    /// Takes the record of the turn so far (and starts a new one).
    pub(crate) fn take_record(&self) -> TurnRecord {
        self.state.record().take()
    }

    /// Records `ids` as revealed (new ones after the earlier ones).
    pub(crate) fn remember(&self, ids: &[String]) {
        if !ids.is_empty() {
            self.state.reveal(ids);
        }
    }

    /// Tools revealed (searched in reveal mode, or described), in reveal order;
    /// tools that left the catalog are dropped.
    pub(crate) fn revealed(&self) -> Vec<String> {
        let catalog = self.host.catalog();
        let client = self.session.client_tools.as_ref();
        let present = |id: &str| {
            catalog.get(id).is_some()
                || client.is_some_and(|c| c.tools().iter().any(|t| t.id == id))
        };
        let keep = |id: &str| catalog.get(id).is_some() || id.starts_with("client:");
        self.state.revealed(&present, &keep)
    }

    /// Rebuilds the reveals from the conversation's messages (see
    /// `restore.rs`); tools no longer visible are skipped. How many tools are
    /// revealed now.
    pub(crate) fn restore_reveals(&self, messages: &[Value]) -> usize {
        let scope = self.scope();
        let ids: Vec<String> = restore::revealed_ids(messages, BridgeTool::Search.name())
            .into_iter()
            .filter(|id| self.host.resolve(id, &scope).is_ok())
            .collect();
        self.remember(&ids);
        self.revealed().len()
    }

    /// In reveal mode with deferral on, the plan when the list for `provider`
    /// is in the hidden form.
    fn hidden_form(&self, provider: Provider) -> Option<Arc<Plan>> {
        if self.settings.mode != Mode::Reveal {
            return None;
        }
        let plan = self.plan(&self.scope());
        reveal::hidden_form(&plan, provider, &self.settings.reveal).then_some(plan)
    }

    /// The reminder of reveal mode's hidden form, if one is placed for `provider`.
    pub(crate) fn reminder(&self, provider: Provider) -> Option<String> {
        if self.settings.mode != Mode::Reveal {
            return None;
        }
        let plan = self.plan(&self.scope());
        reveal::reminder(&plan, provider, &self.settings.reveal)
    }

    /// Places the reminder for `provider` in `messages` (replacing or removing
    /// an earlier one); whether one is there now.
    pub(crate) fn insert_reminder(&self, provider: Provider, messages: &mut Vec<Value>) -> bool {
        let text = self.reminder(provider);
        reveal::place_reminder(messages, text.as_deref());
        text.is_some()
    }

    /// Whether a reveal changes what the definitions send for `provider`.
    pub(crate) fn reveals_change_the_list(&self, provider: Provider) -> bool {
        self.hidden_form(provider).is_some()
    }
}
