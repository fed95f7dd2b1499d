//! What the operator page reads of the gateway and runs on it, beside the
//! fleet's status: each profile's catalog as its model meets it (the host
//! policy applied), its list bytes against a plain aggregator's, the
//! sessions open now, one tool, a search explained, and a snippet tried
//! under a profile's policy (see [`super::trial`]).

use std::sync::Arc;

use serde_json::{json, Value};
use toolsearch::{CallOptions, Session, ToolSearch};
use toolsearch_catalog::Tool;

use super::trial::{Trials, NOT_CALLED};
use super::Gateway;

/// Sessions `/api/sessions` lists at most (the count says how many more).
pub const MAX_SESSIONS_SHOWN: usize = 200;

/// Bytes of a snippet the page may send (the MCP tool's own limit is the
/// sandbox's; this bounds what the admin surface reads).
pub const MAX_TRIAL_CODE: usize = 64 * 1024;

/// Who a trial's real calls are made as (the principal servers and logs see).
pub const TRIAL_PRINCIPAL: &str = "admin-page";

/// How a trial's calls go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Calls {
    /// Recorded and answered with a note, never made.
    Dry,
    /// Made, with the profile's approvals in force, and recorded.
    Real,
}

/// Why a page's request was not answered.
#[derive(Debug)]
pub enum PageError {
    /// The request names what is not there (a profile, a tool).
    NotFound(String),
    /// Trials are running already: one may start when one has ended.
    Busy(String),
    /// The gateway is stopping.
    Stopping,
    /// The gateway could not do it.
    Failed(String),
}

impl std::fmt::Display for PageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PageError::NotFound(m) | PageError::Busy(m) | PageError::Failed(m) => f.write_str(m),
            PageError::Stopping => f.write_str("the gateway is stopping: the snippet was stopped"),
        }
    }
}

impl Gateway {
    /// Each profile: the tools its model can see, its sessions open, and the
    /// bytes of its last `tools/list` answer against a plain aggregator's (0
    /// until a list was served with metrics on).
    pub fn page_profiles(&self) -> Vec<Value> {
        self.profiles()
            .iter()
            .map(|p| {
                let bytes = *p.bytes.lock().unwrap_or_else(|e| e.into_inner());
                let host = p.ts.host();
                let tools = host
                    .catalog()
                    .tools()
                    .iter()
                    .filter(|t| host.shows(t))
                    .count();
                json!({
                    "name": p.name(),
                    "tools": tools,
                    "sessions": p.open.load(std::sync::atomic::Ordering::Relaxed),
                    "bytes_served": bytes.served,
                    "bytes_aggregator": bytes.aggregator,
                })
            })
            .collect()
    }

    /// `(calls, errors)` sent to `server` so far (`None`: metrics are off).
    pub fn server_calls(&self, server: &str) -> Option<(u64, u64)> {
        self.shared.sent.as_ref().map(|s| s.of(server))
    }

    /// One page of the tools profile `profile`'s model can see (of `server`
    /// when given), in catalog order, with how many there are in all.
    ///
    /// # Errors
    /// No such profile.
    pub fn page_catalog(
        &self,
        profile: &str,
        server: Option<&str>,
        offset: usize,
        limit: usize,
    ) -> Result<(Vec<Tool>, usize), PageError> {
        let ts = self.facade_of(profile)?;
        let host = ts.host();
        let snapshot = host.catalog();
        let matching = snapshot
            .tools()
            .iter()
            .filter(|t| host.shows(t) && server.is_none_or(|s| t.server.as_deref() == Some(s)));
        let total = matching.clone().count();
        Ok((matching.skip(offset).take(limit).cloned().collect(), total))
    }

    /// The sessions open now, oldest first, with the profiles' list bytes.
    pub fn page_sessions(&self) -> Value {
        let (sessions, total) = self.book.shown(MAX_SESSIONS_SHOWN);
        json!({ "profiles": self.page_profiles(), "sessions": sessions, "total": total })
    }

    /// Tool `id` as profile `profile`'s model meets it: its record (schemas
    /// verbatim), its TypeScript declaration, and the profiles whose models
    /// see it.
    ///
    /// # Errors
    /// No such profile, or no such tool in what its model sees.
    pub fn page_tool(&self, profile: &str, id: &str) -> Result<Value, PageError> {
        let ts = self.facade_of(profile)?;
        let host = ts.host();
        let described = host.catalog().describe(id).filter(|d| host.shows(&d.tool));
        let Some(d) = described else {
            return Err(PageError::NotFound(format!(
                "profile `{profile}` has no tool `{id}`: ids are as the catalog and search list them"
            )));
        };
        let seen_by: Vec<String> = self
            .profiles()
            .iter()
            .filter(|q| {
                let h = q.ts.host();
                h.catalog().get(id).is_some_and(|t| h.shows(t))
            })
            .map(|q| q.name().to_string())
            .collect();
        let mut out = serde_json::to_value(&d).map_err(|e| PageError::Failed(e.to_string()))?;
        out["profiles"] = json!(seen_by);
        out["available"] = json!(host.available(&d.tool));
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
    ) -> Result<Value, PageError> {
        let ts = self.facade_of(profile)?;
        let host = ts.host();
        let mut result = host
            .search_explained(&[query], limit, true, &toolsearch::Scope::default())
            .map_err(|e| PageError::NotFound(e.to_string()))?;
        if result["matched_by"] == "hybrid" {
            lexical_fields(&host.catalog(), &|t| host.shows(t), query, &mut result);
        }
        Ok(json!({
            "profile": profile,
            "ranker": if host.semantic().is_some() { "hybrid" } else { "lexical" },
            "result": result,
        }))
    }

    /// Runs `code` as `tool_search_code` under profile `profile`, in a
    /// session of its own and a snippet slot of the profile's: the answer
    /// exactly as a model would get it, its bytes, the calls it made (or, in a
    /// dry run, would have made) and the turn's record. Ends when the snippet
    /// does (the sandbox's watchdog bounds it), when the gateway stops, or
    /// when this future is dropped (the page went away). Each trial writes
    /// an audit line when it ends, with the tools it called.
    ///
    /// # Errors
    /// No such profile, trials or the profile's snippets at their cap, or
    /// the gateway stopping.
    pub async fn page_try(
        self: &Arc<Self>,
        profile: &str,
        code: &str,
        calls: Calls,
    ) -> Result<Value, PageError> {
        let p = self
            .profile(profile)
            .ok_or_else(|| PageError::NotFound(self.no_profile(profile)))?;
        let id = self
            .shared
            .trials
            .begin(calls == Calls::Real)
            .map_err(PageError::Busy)?;
        let session = Session {
            principal: Some(TRIAL_PRINCIPAL.to_string()),
            ..Session::new(id.clone())
        };
        let conversation = p.ts.open(session.clone());
        let cancel = tokio_util::sync::CancellationToken::new();
        let mut ending = Ending {
            trials: self.shared.trials.clone(),
            id: id.clone(),
            profile: profile.to_string(),
            ts: p.ts.clone(),
            session,
            cancel: cancel.clone(),
            answered: false,
        };
        // As a client's snippet: a slot of the profile's share, then the
        // first list; each wait ends with the gateway's stop.
        let holder = format!("{profile}/{id}");
        let _slot = tokio::select! {
            slot = self.snippets.acquire(&holder) => slot.map_err(PageError::Busy)?,
            () = self.stopping.cancelled() => return Err(PageError::Stopping),
        };
        self.first_list().await;
        let opts = CallOptions {
            cancel: cancel.clone(),
            notify: None,
            trace: None,
        };
        let started = std::time::Instant::now();
        let name = toolsearch::BridgeTool::SearchCode.name();
        let work = conversation.handle_call_with(name, json!({ "code": code }), &opts);
        let out = tokio::select! {
            out = work => out,
            () = self.stopping.cancelled() => return Err(PageError::Stopping),
        };
        let record = conversation.take_record();
        ending.answered = true;
        let (seen, left_out) = self.shared.trials.end(&id);
        let result = super::to_result(out);
        let (answer, bytes) = shown(&result.content);
        tracing::info!(
            target: "toolsearch::audit",
            trial = %id,
            profile,
            dry_run = calls == Calls::Dry,
            called = ?seen.iter().map(|s| (s.tool.as_str(), s.made)).collect::<Vec<_>>(),
            error = result.is_error.unwrap_or(false),
            "trial from the operator page answered"
        );
        let mut record = serde_json::to_value(&record).unwrap_or(Value::Null);
        if let Some(m) = record.as_object_mut() {
            m.remove("captured");
        }
        Ok(json!({
            "profile": profile,
            "dry_run": calls == Calls::Dry,
            "note": (calls == Calls::Dry).then_some(NOT_CALLED),
            "is_error": result.is_error.unwrap_or(false),
            "bytes": bytes,
            "answer": answer,
            "calls": seen.iter().map(super::trial::Seen::shown).collect::<Vec<_>>(),
            "calls_not_shown": left_out,
            "record": record,
            "ms": started.elapsed().as_millis() as u64,
        }))
    }

    /// The facade of profile `profile`.
    fn facade_of(&self, profile: &str) -> Result<Arc<ToolSearch>, PageError> {
        self.toolsearch_of(profile)
            .ok_or_else(|| PageError::NotFound(self.no_profile(profile)))
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
/// its session ended on the profile's facade, its entry removed; one not
/// answered (its page went away, the gateway stopped) writes its audit line
/// here, with the tools it called.
struct Ending {
    trials: Arc<Trials>,
    id: String,
    profile: String,
    ts: Arc<ToolSearch>,
    session: Session,
    cancel: tokio_util::sync::CancellationToken,
    answered: bool,
}

impl Drop for Ending {
    fn drop(&mut self) {
        self.cancel.cancel();
        self.ts.end_session(&self.session);
        let (seen, _) = self.trials.end(&self.id);
        if !self.answered {
            tracing::info!(
                target: "toolsearch::audit",
                trial = %self.id,
                profile = %self.profile,
                called = ?seen.iter().map(|s| (s.tool.as_str(), s.made)).collect::<Vec<_>>(),
                "trial from the operator page ended unanswered"
            );
        }
    }
}

/// Gives each hit of a fused `result` the keyword ranking's explanation of
/// that tool for `query` (`lexical_rules`): the fields and terms that
/// matched, in the ranker's own points, over the tools `shown`. A hit only
/// the embedding found has none.
fn lexical_fields(
    catalog: &toolsearch_catalog::Catalog,
    shown: &dyn Fn(&Tool) -> bool,
    query: &str,
    result: &mut Value,
) {
    let opts = toolsearch_catalog::SearchOptions {
        limit: Some(toolsearch_catalog::HARD_MAX_LIMIT),
        max_limit: toolsearch_catalog::HARD_MAX_LIMIT,
        band: 0.0,
        explain: true,
        fuzzy: false,
        ..Default::default()
    };
    let Ok(lexical) = catalog.search_many(&[query], &opts, shown) else {
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

/// The first of `keys` that holds a string.
fn first(keys: [&Value; 2]) -> Option<&str> {
    keys.into_iter().find_map(Value::as_str)
}

/// What the model reads of `content`, as the page shows it: each text
/// item's text, and a line for every other item (an image, audio, a
/// resource) naming it, since the page renders no media; and the bytes of
/// all of it (the media's data as sent, base64 included).
fn shown(content: &[rmcp::model::ContentBlock]) -> (String, usize) {
    let mut lines = Vec::with_capacity(content.len());
    let mut bytes = 0;
    for item in content {
        let v = serde_json::to_value(item).unwrap_or(Value::Null);
        let inner = &v["resource"];
        if v["type"] == "text" {
            let text = v["text"].as_str().unwrap_or_default();
            bytes += text.len();
            lines.push(text.to_string());
            continue;
        }
        let data = first([&v["data"], &inner["blob"]])
            .or(inner["text"].as_str())
            .unwrap_or_default();
        bytes += data.len();
        let kind = v["type"].as_str().unwrap_or("item");
        let mut about = vec![kind.to_string()];
        // A server's words, on one line (a newline could fake another item).
        let said = |s: &str| crate::text::clean_for_log(s, 200);
        about.extend(first([&v["mimeType"], &inner["mimeType"]]).map(said));
        about.extend(first([&v["uri"], &inner["uri"]]).map(said));
        lines.push(format!(
            "[{}: {} bytes, not shown on this page]",
            about.join(" "),
            data.len()
        ));
    }
    (lines.join("\n"), bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_of_an_answer_is_shown_or_named_and_counted() {
        let content: Vec<rmcp::model::ContentBlock> = serde_json::from_value(json!([
            {"type": "text", "text": "{\"ok\":true}"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hello"}},
            {"type": "resource_link", "uri": "https://example.com/r", "name": "r"},
            {"type": "image", "data": "", "mimeType": "image/png\n[image x: 1 bytes, not shown on this page]"},
            {"type": "text", "text": "<b>as text</b>"}
        ]))
        .unwrap();
        let (answer, bytes) = shown(&content);
        let lines: Vec<&str> = answer.lines().collect();
        assert_eq!(
            lines,
            [
                "{\"ok\":true}",
                "[image image/png: 4 bytes, not shown on this page]",
                "[resource text/plain file:///a.txt: 5 bytes, not shown on this page]",
                "[resource_link https://example.com/r: 0 bytes, not shown on this page]",
                "[image image/png\\u{a}[image x: 1 bytes, not shown on this page]: 0 bytes, not shown on this page]",
                "<b>as text</b>",
            ]
        );
        assert_eq!(bytes, 11 + 4 + 5 + 14);
    }
}
