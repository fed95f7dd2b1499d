//! Progressive disclosure (`Mode::Reveal`): deferred tools go out as stubs (or, in
//! the hidden form, as names only), `tool_search` returns the full schemas of its
//! matches and records them as revealed for the session, and the model calls them
//! by name (checked against the full schema). The list never changes under a
//! session: stubs stay as they are; in the hidden form the revealed tools are
//! appended in full, after everything else.
//!
//! - the reveals of each session (in `modes.rs`, which the facade holds): in reveal
//!   order, bounded (least recently used session evicted), never shared across
//!   sessions;
//! - `stubs.rs`: the stub of a deferred tool, the hidden form's reminder block, the
//!   guidance note for the system prompt;
//! - `restore.rs`: the reveals rebuilt from a provider's message list (stateless:
//!   survives eviction, restarts and several gateway replicas).

pub mod restore;
pub mod stubs;

pub use crate::modes::{RevealSettings, MAX_REVEALED};

impl crate::ToolSearch {
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
        session: &crate::Session,
        provider: crate::Provider,
        messages: &mut Vec<serde_json::Value>,
    ) -> bool {
        let text = self.reminder(session, provider);
        stubs::place_reminder(messages, text.as_deref());
        text.is_some()
    }

    /// The reminder text [`crate::ToolSearch::insert_reminder`] places, if any: none
    /// outside the hidden form, and none where the names go in `tool_search`'s
    /// description instead (over MCP by default).
    pub fn reminder(&self, session: &crate::Session, provider: crate::Provider) -> Option<String> {
        let reveal = &self.settings.reveal;
        if stubs::listing_in_search(reveal, provider) {
            return None;
        }
        let (plan, names) = self.hidden_form(session, provider)?;
        let listed: Vec<&str> = plan
            .deferred()
            .into_iter()
            .map(|i| names[i].as_str())
            .collect();
        (!listed.is_empty()).then(|| stubs::reminder_text(&listed, reveal.reminder_bytes))
    }

    /// Whether a reveal changes what [`crate::ToolSearch::definitions`] sends this
    /// session for `provider` (the hidden form appends revealed tools; stubs stay as
    /// they are): a gateway tells its client the list changed only then.
    pub fn reveals_change_the_list(
        &self,
        session: &crate::Session,
        provider: crate::Provider,
    ) -> bool {
        self.hidden_form(session, provider).is_some()
    }

    /// In reveal mode with deferral on and the hidden form: the plan and its
    /// provider names.
    fn hidden_form(
        &self,
        session: &crate::Session,
        provider: crate::Provider,
    ) -> Option<(crate::plan::Plan, Vec<String>)> {
        if self.settings.mode != crate::Mode::Reveal {
            return None;
        }
        let plan = self.plan(&Self::scope(session), false);
        if !plan.active {
            return None;
        }
        let names = plan.all_names();
        let deferred = plan.deferred();
        stubs::stubs(&plan, &names, &deferred, provider, &self.settings.reveal)
            .is_none()
            .then_some((plan, names))
    }

    /// The guidance note for the system prompt in reveal mode.
    pub fn guidance(&self) -> Option<&'static str> {
        (self.settings.mode == crate::Mode::Reveal).then(stubs::guidance)
    }
}
