//! Progressive disclosure (`Mode::Reveal`): deferred tools go out as stubs (or not
//! at all), `tool_search` returns the full schemas of its matches and records them as
//! revealed for the session, and from the next turn on the revealed tools are sent
//! with their full schema, after the stable part of the list.
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
    /// budget), puts the `<available-deferred-tools>` reminder, listing the tools not
    /// yet revealed, as a user-role message before the first non-system message of
    /// `messages` (chat-style `{role, content}` messages); an earlier reminder is
    /// replaced, never repeated, and removed when no longer needed. Returns whether a
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

    /// The reminder text [`crate::ToolSearch::insert_reminder`] places, if any.
    pub fn reminder(&self, session: &crate::Session, provider: crate::Provider) -> Option<String> {
        if self.settings.mode != crate::Mode::Reveal {
            return None;
        }
        let scope = Self::scope(session);
        let plan = self.plan(&scope, false);
        if !plan.active {
            return None;
        }
        let revealed = self.revealed(session);
        let listed = stubs::reveal_list(
            &plan,
            &revealed,
            provider,
            &self.settings.reveal,
            self.settings.limits(),
        );
        if !listed.hidden {
            return None;
        }
        let names = plan.all_names();
        let hidden: Vec<&str> = plan
            .deferred()
            .into_iter()
            .filter(|&i| !revealed.contains(&plan.visible[i].id))
            .map(|i| names[i].as_str())
            .collect();
        (!hidden.is_empty())
            .then(|| stubs::reminder_text(&hidden, self.settings.reveal.reminder_bytes))
    }

    /// The guidance note for the system prompt in reveal mode.
    pub fn guidance(&self) -> Option<&'static str> {
        (self.settings.mode == crate::Mode::Reveal).then(stubs::guidance)
    }
}
