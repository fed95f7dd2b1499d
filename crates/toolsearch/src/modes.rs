//! Settings and state of the deferral modes that the facade holds: reveal mode's
//! stubs and the session reveals, native mode's search. A leaf: the modes
//! themselves (`reveal/`, `native.rs`) build on the facade, not the other way round.

use toolsearch_catalog::lru::Lru;

use crate::defs::Provider;

/// Settings of reveal mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevealSettings {
    /// Send no stubs: deferred tools are hidden until searched, and
    /// `ToolSearch::insert_reminder` lists their names once. Default off.
    pub hidden: bool,
    /// Longest stub description, in bytes (a summary of the tool's own). Default 160.
    pub stub_description_bytes: usize,
    /// Above this many bytes of stubs the hidden form is used instead. Default 32 KiB.
    pub max_stub_bytes: usize,
    /// Budget of the `<available-deferred-tools>` reminder, in bytes; also of the
    /// tool names in `tool_search`'s description. Default 4 KiB.
    pub reminder_bytes: usize,
    /// In the hidden form, name the hidden tools in `tool_search`'s description
    /// (servers with their tool counts, and the names that fit `reminder_bytes`)
    /// instead of the reminder. `None` (the default): on for [`Provider::Mcp`],
    /// whose servers cannot insert a message, off for the rest.
    pub listing_in_search: Option<bool>,
}

impl Default for RevealSettings {
    fn default() -> Self {
        RevealSettings {
            hidden: false,
            stub_description_bytes: 160,
            max_stub_bytes: 32 * 1024,
            reminder_bytes: 4 * 1024,
            listing_in_search: None,
        }
    }
}

/// Most tools one session keeps revealed (a search reveals at most 20). Past it a
/// search still answers with full schemas and the tools can be called by name, but
/// nothing more is appended to the list: a reveal never rewrites it.
pub const MAX_REVEALED: usize = 256;

/// The reveals of each session (tool ids in the order they were first
/// revealed), least recently used session evicted.
pub(crate) struct Store {
    sessions: Lru<String, Vec<String>>,
}

impl Store {
    /// Reveals of at most `max_sessions` sessions.
    pub(crate) fn new(max_sessions: usize) -> Store {
        Store {
            sessions: Lru::new(max_sessions),
        }
    }

    /// Adds `ids` to the session's reveals (new ones at the end); evicts the least
    /// recently used session beyond the store's `max_sessions`.
    pub(crate) fn reveal(&mut self, session: &str, ids: &[String]) {
        let e = self
            .sessions
            .get_or_insert_with(session.to_owned(), Vec::new);
        for id in ids {
            if e.len() >= MAX_REVEALED {
                break;
            }
            if !e.contains(id) {
                e.push(id.clone());
            }
        }
    }

    /// The session's reveals in reveal order (and marks it used).
    pub(crate) fn get(&mut self, session: &str) -> Vec<String> {
        self.sessions.get(session).cloned().unwrap_or_default()
    }

    /// Forgets the session.
    pub(crate) fn forget(&mut self, session: &str) {
        self.sessions.remove(session);
    }

    /// Drops ids no longer in the catalog from every session.
    pub(crate) fn retain(&mut self, keep: &dyn Fn(&str) -> bool) {
        for e in self.sessions.values_mut() {
            e.retain(|id| keep(id));
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.sessions.len()
    }
}

/// Who runs the search in native mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NativeSearch {
    /// Our ranking answers (Anthropic `tool_reference` blocks, OpenAI
    /// `tool_search_output`): the default.
    #[default]
    Client,
    /// The provider's own search (Anthropic BM25, OpenAI hosted).
    Hosted,
    /// Anthropic's regex variant (the model writes patterns); OpenAI: as `Hosted`.
    HostedRegex,
}

/// Settings of [`crate::Mode::Native`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NativeSettings {
    /// Who runs the search. Default [`NativeSearch::Client`].
    pub search: NativeSearch,
}

/// True when `provider` hosts tool search with deferred loading.
pub fn hosts_search(provider: Provider) -> bool {
    matches!(provider, Provider::Anthropic | Provider::OpenAiResponses)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn reveals_keep_their_order_and_never_cross_sessions() {
        let mut s = Store::new(8);
        s.reveal("a", &ids(&["x", "y"]));
        s.reveal("a", &ids(&["y", "z"]));
        s.reveal("b", &ids(&["q"]));
        assert_eq!(s.get("a"), ids(&["x", "y", "z"]));
        assert_eq!(s.get("b"), ids(&["q"]));
        assert!(s.get("c").is_empty());
    }

    #[test]
    fn the_least_recently_used_session_is_evicted() {
        let mut s = Store::new(2);
        s.reveal("a", &ids(&["x"]));
        s.reveal("b", &ids(&["y"]));
        // `a` is used again: `b` is now the least recently used.
        assert_eq!(s.get("a"), ids(&["x"]));
        s.reveal("c", &ids(&["z"]));
        assert_eq!(s.len(), 2);
        assert!(s.get("b").is_empty());
        assert_eq!(s.get("a"), ids(&["x"]));
    }

    #[test]
    fn tools_that_leave_the_catalog_are_dropped_and_reveals_are_capped() {
        let mut s = Store::new(2);
        let many: Vec<String> = (0..MAX_REVEALED + 5).map(|i| format!("t{i}")).collect();
        s.reveal("a", &many);
        let got = s.get("a");
        assert_eq!(got.len(), MAX_REVEALED);
        // Past the cap nothing is appended and nothing earlier is dropped.
        assert_eq!(got[0], "t0");
        assert_eq!(got[MAX_REVEALED - 1], format!("t{}", MAX_REVEALED - 1));
        s.retain(&|id| id != "t6");
        assert!(!s.get("a").contains(&"t6".to_string()));
    }
}
