//! What the operator page reads of the gateway and runs on it, beside the
//! fleet's status: each profile's list bytes against a plain aggregator's,
//! the sessions open now, one tool as a profile's model meets it, and a
//! snippet tried under a profile's policy (see [`super::trial`]).

use std::sync::Arc;

use serde_json::{json, Value};
use toolsearch::{CallOptions, Session};

use super::trial::NOT_CALLED;
use super::Gateway;

/// Sessions `/api/sessions` lists at most (the count says how many more).
pub const MAX_SESSIONS_SHOWN: usize = 200;

/// Bytes of a snippet the page may send (the MCP tool's own limit is the
/// sandbox's; this bounds what the admin surface reads).
pub const MAX_TRIAL_CODE: usize = 64 * 1024;

/// How a trial's calls go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Calls {
    /// Recorded and answered with a note, never made.
    Dry,
    /// Made, with the profile's approvals in force, and recorded.
    Real,
}

impl Gateway {
    /// Each profile: its tools, its sessions open, and the bytes of its last
    /// `tools/list` answer against a plain aggregator's (0 until a list was
    /// served with metrics on).
    pub fn page_profiles(&self) -> Value {
        let profiles: Vec<Value> = self
            .profiles()
            .iter()
            .map(|p| {
                let bytes = *p.bytes.lock().unwrap_or_else(|e| e.into_inner());
                json!({
                    "name": p.name(),
                    "tools": p.ts.host().catalog().len(),
                    "sessions": p.open.load(std::sync::atomic::Ordering::Relaxed),
                    "bytes_served": bytes.served,
                    "bytes_aggregator": bytes.aggregator,
                })
            })
            .collect();
        json!({ "profiles": profiles })
    }

    /// Calls sent to each server and those that failed, by server name.
    pub fn server_call_counts(&self) -> std::collections::HashMap<String, (u64, u64)> {
        self.shared.trials.sent()
    }

    /// The sessions open now, oldest first, with the profiles' list bytes.
    pub fn page_sessions(&self) -> Value {
        let (sessions, total) = self.book.shown(MAX_SESSIONS_SHOWN);
        let profiles = self.page_profiles()["profiles"].clone();
        let profiles: Vec<Value> = profiles
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| {
                json!({
                    "name": p["name"],
                    "open": p["sessions"],
                    "bytes_served": p["bytes_served"],
                    "bytes_aggregator": p["bytes_aggregator"],
                })
            })
            .collect();
        json!({ "profiles": profiles, "sessions": sessions, "total": total })
    }

    /// Tool `id` as profile `profile`'s model meets it: its record (schemas
    /// verbatim), its TypeScript declaration, and the profiles that see it.
    ///
    /// # Errors
    /// No such profile, or no such tool in its catalog.
    pub fn page_tool(&self, profile: &str, id: &str) -> Result<Value, String> {
        let p = self
            .profile(profile)
            .ok_or_else(|| self.no_profile(profile))?;
        let Some(d) = p.ts.host().catalog().describe(id) else {
            return Err(format!(
                "profile `{profile}` has no tool `{id}`: ids are as the catalog and search list them"
            ));
        };
        let seen_by: Vec<String> = self
            .profiles()
            .iter()
            .filter(|q| q.ts.host().catalog().get(id).is_some())
            .map(|q| q.name().to_string())
            .collect();
        let mut out = serde_json::to_value(&d).map_err(|e| e.to_string())?;
        out["profiles"] = json!(seen_by);
        out["available"] = json!(p.ts.host().available(&d.tool));
        Ok(out)
    }

    /// Searches profile `profile`'s catalog as its model would, each hit's
    /// score split into its rules. A fused hit's lexical share is the
    /// keyword ranking's score, scaled: its `lexical_rules` are that score's
    /// own parts (the fields and terms that matched), before the scaling.
    ///
    /// # Errors
    /// No such profile, or a query the search refuses (its reason).
    pub fn page_search(
        &self,
        profile: &str,
        query: &str,
        limit: Option<usize>,
    ) -> Result<Value, String> {
        let p = self
            .profile(profile)
            .ok_or_else(|| self.no_profile(profile))?;
        let host = p.ts.host();
        let mut result = host
            .search_explained(&[query], limit, true, &toolsearch::Scope::default())
            .map_err(|e| e.to_string())?;
        if result["matched_by"] == "hybrid" {
            lexical_fields(&host.catalog(), query, &mut result);
        }
        Ok(json!({
            "profile": profile,
            "ranker": if host.semantic().is_some() { "hybrid" } else { "lexical" },
            "result": result,
        }))
    }

    /// Runs `code` as `tool_search_code` under profile `profile`, in a
    /// session of its own: the answer exactly as a model would get it, its
    /// bytes, the calls it made (or, in a dry run, would have made) and the
    /// turn's record. Ends when the snippet does (the sandbox's watchdog
    /// bounds it) or when the gateway stops.
    ///
    /// # Errors
    /// No such profile, or two trials running already.
    pub async fn page_try(
        self: &Arc<Self>,
        profile: &str,
        code: &str,
        calls: Calls,
    ) -> Result<Value, String> {
        let p = self
            .profile(profile)
            .ok_or_else(|| self.no_profile(profile))?;
        let trials = self.shared.trials.clone();
        let id = trials.begin(calls == Calls::Real)?;
        let session = Session::new(id.clone());
        let conversation = p.ts.open(session.clone());
        let cancel = tokio_util::sync::CancellationToken::new();
        // Ends the trial however this ends: its page's connection dropped
        // (this future with it) leaves no trial, session or snippet behind.
        let _ending = Ending {
            trials: trials.clone(),
            id: id.clone(),
            ts: p.ts.clone(),
            session: session.clone(),
            cancel: cancel.clone(),
        };
        let opts = CallOptions {
            cancel: cancel.clone(),
            notify: None,
            trace: None,
        };
        let started = std::time::Instant::now();
        // As a client's first call: once the first list may be served (it
        // returns at once when the stop begins).
        self.first_list().await;
        let name = toolsearch::BridgeTool::SearchCode.name();
        let work = conversation.handle_call_with(name, json!({ "code": code }), &opts);
        let out = tokio::select! {
            out = work => Some(out),
            () = self.stopping.cancelled() => {
                cancel.cancel();
                None
            }
        };
        let record = conversation.take_record();
        let (seen, left_out) = trials.end(&id);
        let Some(out) = out else {
            return Err("the gateway is stopping: the snippet was stopped".into());
        };
        let result = super::to_result(out);
        // What the model reads: the result's text, as its client hands it on.
        let answer: String = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect::<Vec<_>>()
            .join("\n");
        let mut record = serde_json::to_value(&record).unwrap_or(Value::Null);
        if let Some(m) = record.as_object_mut() {
            m.remove("captured");
        }
        Ok(json!({
            "profile": profile,
            "dry_run": calls == Calls::Dry,
            "note": (calls == Calls::Dry).then_some(NOT_CALLED),
            "is_error": result.is_error.unwrap_or(false),
            "bytes": answer.len(),
            "answer": answer,
            "calls": seen.iter().map(super::trial::Seen::shown).collect::<Vec<_>>(),
            "calls_not_shown": left_out,
            "record": record,
            "ms": started.elapsed().as_millis() as u64,
        }))
    }

    /// The error for a profile that is not served.
    fn no_profile(&self, profile: &str) -> String {
        format!(
            "no profile {profile:?}: the profiles are {:?}",
            self.profile_names()
        )
    }
}

/// A trial's end, on drop: its snippet cancelled (a no-op once it answered),
/// its session ended on the profile's facade, its entry removed.
struct Ending {
    trials: Arc<super::trial::Trials>,
    id: String,
    ts: Arc<toolsearch::ToolSearch>,
    session: Session,
    cancel: tokio_util::sync::CancellationToken,
}

impl Drop for Ending {
    fn drop(&mut self) {
        self.cancel.cancel();
        self.ts.end_session(&self.session);
        self.trials.end(&self.id);
    }
}

/// Gives each hit of a fused `result` the keyword ranking's explanation of
/// that tool for `query` (`lexical_rules`): the fields and terms that
/// matched, in the ranker's own points. A hit only the embedding found has
/// none.
fn lexical_fields(catalog: &toolsearch_catalog::Catalog, query: &str, result: &mut Value) {
    let opts = toolsearch_catalog::SearchOptions {
        limit: Some(toolsearch_catalog::HARD_MAX_LIMIT),
        max_limit: toolsearch_catalog::HARD_MAX_LIMIT,
        band: 0.0,
        explain: true,
        fuzzy: false,
        ..Default::default()
    };
    let Ok(lexical) = catalog.search_many(&[query], &opts, &|_| true) else {
        return;
    };
    let hits = result.get_mut("hits").and_then(Value::as_array_mut);
    for hit in hits.into_iter().flatten() {
        let found = lexical.hits.iter().find(|h| hit["id"] == h.id.as_str());
        if let Some(rules) = found.and_then(|h| h.explain.as_ref()) {
            hit["lexical_rules"] = json!(rules);
        }
    }
}
