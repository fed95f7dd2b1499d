//! A conversation's state, owned in one place: the tools it revealed (reveal
//! mode) and the record of its turn. (Its plan is kept by the facade per
//! catalog generation and policy, shared by the conversations that see the
//! same tools: `plan::Cache`.)
//! A [`State`] is held by whoever owns the conversation: a
//! [`Conversation`](crate::Conversation) (an MCP session of the gateway, an
//! agent loop), or, for callers that name a session by its id on each call,
//! the facade's [`Registry`] (bounded; least recently used evicted).
//!
//! - `restore.rs`: the reveals rebuilt from a provider's message list
//!   (stateless: survives eviction, restarts and several gateway replicas).

pub mod restore;

use std::sync::{Arc, Mutex};

use toolsearch_catalog::lru::Lru;

use crate::host::record::Record;
use crate::host::{ClientTools, Scope};
use crate::policy::Policy;

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

/// Most tools one session keeps revealed (a search reveals at most 20). Past it a
/// search still answers with full schemas and the tools can be called by name, but
/// nothing more is appended to the list: a reveal never rewrites it.
pub const MAX_REVEALED: usize = 256;

/// What one conversation owns.
pub(crate) struct State {
    /// Tool ids in the order they were first revealed, at most [`MAX_REVEALED`].
    reveals: Mutex<Vec<String>>,
    record: Arc<Record>,
    /// The outage note it was last told.
    told: Arc<Mutex<Option<String>>>,
}

impl State {
    pub(crate) fn new(capture: bool) -> Self {
        State {
            reveals: Mutex::default(),
            record: Arc::new(Record::new(capture)),
            told: Arc::default(),
        }
    }

    /// The scope of `session`'s calls, counted in this conversation's record.
    pub(crate) fn scope(&self, session: &Session) -> Scope {
        Scope {
            policy: session.scope.clone(),
            client: session.client_tools.clone(),
            record: Some(self.record.clone()),
            told: Some(self.told.clone()),
        }
    }

    /// The turn record.
    pub(crate) fn record(&self) -> &Record {
        &self.record
    }

    /// Adds `ids` to the reveals (new ones at the end, up to [`MAX_REVEALED`]).
    pub(crate) fn reveal(&self, ids: &[String]) {
        let mut e = self.reveals.lock().unwrap_or_else(|p| p.into_inner());
        for id in ids {
            if e.len() >= MAX_REVEALED {
                break;
            }
            if !e.contains(id) {
                e.push(id.clone());
            }
        }
    }

    /// The reveals in reveal order; ids for which `present` is false are
    /// dropped for good (tools that left the catalog) when `keep` is false too.
    pub(crate) fn revealed(
        &self,
        present: &dyn Fn(&str) -> bool,
        keep: &dyn Fn(&str) -> bool,
    ) -> Vec<String> {
        let mut e = self.reveals.lock().unwrap_or_else(|p| p.into_inner());
        if e.iter().any(|id| !present(id)) {
            let ids: Vec<String> = e.iter().filter(|id| present(id)).cloned().collect();
            e.retain(|id| keep(id));
            return ids;
        }
        e.clone()
    }
}

/// The states of conversations named by id on each call, least recently used
/// evicted past its capacity.
pub(crate) struct Registry {
    states: Mutex<Lru<String, Arc<State>>>,
    capture: bool,
}

impl Registry {
    pub(crate) fn new(max_sessions: usize, capture: bool) -> Self {
        Registry {
            states: Mutex::new(Lru::new(max_sessions)),
            capture,
        }
    }

    /// The state of conversation `id`, opened on first use.
    pub(crate) fn open(&self, id: &str) -> Arc<State> {
        let mut states = self.states.lock().unwrap_or_else(|p| p.into_inner());
        states
            .get_or_insert_with(id.to_owned(), || Arc::new(State::new(self.capture)))
            .clone()
    }

    /// The state of conversation `id`, if it is kept.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<State>> {
        let mut states = self.states.lock().unwrap_or_else(|p| p.into_inner());
        states.get(id).cloned()
    }

    /// Forgets conversation `id`.
    pub(crate) fn forget(&self, id: &str) {
        self.states
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.states.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn all(s: &State) -> Vec<String> {
        s.revealed(&|_| true, &|_| true)
    }

    #[test]
    fn reveals_keep_their_order_and_never_cross_conversations() {
        let r = Registry::new(8, false);
        r.open("a").reveal(&ids(&["x", "y"]));
        r.open("a").reveal(&ids(&["y", "z"]));
        r.open("b").reveal(&ids(&["q"]));
        assert_eq!(all(&r.open("a")), ids(&["x", "y", "z"]));
        assert_eq!(all(&r.open("b")), ids(&["q"]));
        assert!(r.get("c").is_none());
    }

    #[test]
    fn the_least_recently_used_conversation_is_evicted() {
        let r = Registry::new(2, false);
        r.open("a").reveal(&ids(&["x"]));
        r.open("b").reveal(&ids(&["y"]));
        // `a` is used again: `b` is now the least recently used.
        assert_eq!(all(&r.get("a").unwrap()), ids(&["x"]));
        r.open("c").reveal(&ids(&["z"]));
        assert_eq!(r.len(), 2);
        assert!(r.get("b").is_none());
        assert_eq!(all(&r.get("a").unwrap()), ids(&["x"]));
    }

    #[test]
    fn tools_that_leave_the_catalog_are_dropped_and_reveals_are_capped() {
        let s = State::new(false);
        let many: Vec<String> = (0..MAX_REVEALED + 5).map(|i| format!("t{i}")).collect();
        s.reveal(&many);
        let got = all(&s);
        assert_eq!(got.len(), MAX_REVEALED);
        // Past the cap nothing is appended and nothing earlier is dropped.
        assert_eq!(got[0], "t0");
        assert_eq!(got[MAX_REVEALED - 1], format!("t{}", MAX_REVEALED - 1));
        let gone = |id: &str| id != "t6";
        assert!(!s.revealed(&gone, &gone).contains(&"t6".to_string()));
        assert!(!all(&s).contains(&"t6".to_string()));
    }
}
