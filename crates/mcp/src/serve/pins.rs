//! Who owns each MCP session: the caller (profile and principal) whose
//! request opened it. A request naming a session must come from its owner;
//! anyone else is told the session does not exist. One entry per session
//! opened; entries of sessions that ended are dropped when the map reaches
//! the gateway's session cap (it holds at most about twice the sessions
//! open), never an entry newer than the look at the live sessions.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

/// A session's owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Owner {
    pub profile: Arc<str>,
    pub principal: Arc<str>,
}

/// The owners, by MCP session id.
pub(super) struct Pins {
    map: Mutex<HashMap<String, (Owner, Instant)>>,
    max: usize,
}

impl Pins {
    /// Pins for a gateway of at most `max` sessions.
    pub(super) fn new(max: usize) -> Pins {
        Pins {
            map: Mutex::default(),
            max,
        }
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Owner, Instant)>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The owner of session `id`.
    pub(super) fn owner(&self, id: &str) -> Option<Owner> {
        self.map().get(id).map(|(o, _)| o.clone())
    }

    /// Records that session `id` is `owner`'s.
    pub(super) async fn pin(&self, id: &str, owner: Owner, manager: &LocalSessionManager) {
        if self.map().len() >= self.max {
            // Entries pinned after this look are kept whatever it saw.
            let looked = Instant::now();
            let live: HashSet<String> = {
                let sessions = manager.sessions.read().await;
                sessions
                    .iter()
                    .filter(|(_, h)| !h.is_closed())
                    .map(|(k, _)| k.to_string())
                    .collect()
            };
            self.map()
                .retain(|k, (_, at)| live.contains(k) || *at >= looked);
        }
        self.map().insert(id.to_string(), (owner, Instant::now()));
    }

    /// Forgets every session whose owner `gone` says is gone; their ids.
    pub(super) fn drop_where(&self, gone: impl Fn(&Owner) -> bool) -> Vec<String> {
        let mut ids = Vec::new();
        self.map().retain(|id, (owner, _)| {
            let keep = !gone(owner);
            if !keep {
                ids.push(id.clone());
            }
            keep
        });
        ids
    }

    /// Forgets session `id` (it was deleted).
    pub(super) fn unpin(&self, id: &str) {
        self.map().remove(id);
    }
}
