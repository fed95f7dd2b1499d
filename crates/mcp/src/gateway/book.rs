//! The sessions open now, as the operator page lists them (`/api/sessions`):
//! each session's profile, who opened it, its age, what its turns did and
//! its last turn's record. An entry is its session's own: written when the
//! session opens, updated at the end of each of its turns, removed when its
//! handler is dropped. The book holds no more entries than sessions are
//! open, and those are bounded by the front door (`max_sessions`).
//!
//! Records are what the turn log line says, and no more: arguments and
//! results (captured only when capture is on) are never kept here.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{json, Value};

/// One open session.
struct Entry {
    profile: String,
    principal: Option<Arc<str>>,
    opened: Instant,
    last: Instant,
    turns: u64,
    calls: u64,
    searches: u64,
    describes: u64,
    errors: u64,
    /// The last turn: its tool, whether it failed, and its record without
    /// captured arguments and results (made JSON only when shown).
    last_turn: Option<(String, bool, toolsearch::TurnRecord)>,
}

/// The open sessions, by session id.
#[derive(Default)]
pub(crate) struct Book {
    entries: Mutex<HashMap<String, Entry>>,
}

impl Book {
    fn entries(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Session `id` of `profile` opened.
    pub(crate) fn opened(&self, id: &str, profile: &str) {
        let now = Instant::now();
        self.entries().insert(
            id.to_string(),
            Entry {
                profile: profile.to_string(),
                principal: None,
                opened: now,
                last: now,
                turns: 0,
                calls: 0,
                searches: 0,
                describes: 0,
                errors: 0,
                last_turn: None,
            },
        );
    }

    /// Session `id` was opened by `principal` (an HTTP caller).
    pub(crate) fn principal(&self, id: &str, principal: &Arc<str>) {
        if let Some(e) = self.entries().get_mut(id) {
            e.principal = Some(principal.clone());
        }
    }

    /// Session `id` answered a call of `tool`, which did what `record` says.
    pub(crate) fn turn(&self, id: &str, tool: &str, record: &toolsearch::TurnRecord, error: bool) {
        if let Some(e) = self.entries().get_mut(id) {
            e.last = Instant::now();
            e.turns += 1;
            e.calls += u64::from(record.calls);
            e.searches += u64::from(record.searches);
            e.describes += u64::from(record.describes);
            e.errors += u64::from(error);
            let kept = toolsearch::TurnRecord {
                captured: Vec::new(),
                ..record.clone()
            };
            e.last_turn = Some((crate::text::clean_for_log(tool, 80), error, kept));
        }
    }

    /// Session `id` ended.
    pub(crate) fn closed(&self, id: &str) {
        self.entries().remove(id);
    }

    /// The open sessions, oldest first: at most `limit` of them, and how many
    /// there are.
    pub(crate) fn shown(&self, limit: usize) -> (Vec<Value>, usize) {
        let entries = self.entries();
        let mut all: Vec<(&String, &Entry)> = entries.iter().collect();
        all.sort_by_key(|(id, e)| (e.opened, id.as_str()));
        let total = all.len();
        let shown = all
            .into_iter()
            .take(limit)
            .map(|(id, e)| {
                json!({
                    "id": id,
                    "profile": e.profile,
                    "principal": e.principal.as_deref().unwrap_or("anonymous"),
                    "age_s": e.opened.elapsed().as_secs(),
                    "idle_s": e.last.elapsed().as_secs(),
                    "turns": e.turns,
                    "calls": e.calls,
                    "searches": e.searches,
                    "describes": e.describes,
                    "errors": e.errors,
                    "last_turn": e.last_turn.as_ref().map(|(tool, error, record)| {
                        let mut v = serde_json::to_value(record).unwrap_or(Value::Null);
                        v["tool"] = Value::from(tool.as_str());
                        v["error"] = Value::Bool(*error);
                        v
                    }),
                })
            })
            .collect();
        (shown, total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_listed_while_open_with_its_turns_and_no_captured_payload() {
        let book = Book::default();
        book.opened("mcp-1", "default");
        book.principal("mcp-1", &Arc::from("token:ab12"));
        let mut r = toolsearch::TurnRecord {
            calls: 2,
            searches: 1,
            ..Default::default()
        };
        r.captured.push(toolsearch::Captured {
            id: "s__t".into(),
            arguments: json!({"secret": "x"}),
            result: Ok(json!("y")),
        });
        book.turn("mcp-1", "tool_search_code", &r, true);
        let (shown, total) = book.shown(10);
        assert_eq!(total, 1);
        assert_eq!(shown[0]["principal"], "token:ab12");
        assert_eq!(shown[0]["calls"], 2);
        assert_eq!(shown[0]["errors"], 1);
        assert_eq!(shown[0]["last_turn"]["tool"], "tool_search_code");
        assert!(shown[0]["last_turn"].get("captured").is_none());
        book.closed("mcp-1");
        assert_eq!(book.shown(10).1, 0);
    }
}
