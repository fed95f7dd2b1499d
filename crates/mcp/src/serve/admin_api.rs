//! The operator page's JSON API on the admin surface (issue 65): reads of the
//! gateway's own state and one action, behind the admin token and the `Host`
//! and `Origin` checks of the whole surface (`admin.rs`). The page
//! (`shell.rs`) is a client of these routes and nothing else; each answers
//! JSON, and a wrong parameter gets a 400 that says which and why.
//!
//! - `GET /api/servers`: every server behind the gateway, in configuration
//!   order: its state (`starting`, `running`, `stopped`, `down`), why it is
//!   down (a login it needs names the command), its tools, the times it came
//!   up, its calls in flight, how often its tool list changed, the MCP
//!   revision it speaks, what is wrong with its tools, when its list last
//!   changed, its calls and errors (counted where every call is sent), and
//!   the login command when it needs an OAuth login.
//! - `GET /api/profiles`: each profile, its tools, its open sessions and its
//!   list bytes against a plain aggregator's.
//! - `GET /api/catalog?profile=P&server=S&offset=N&limit=M`: one page of the
//!   tools profile `P` (default `default`) sees, of server `S` when given, in
//!   catalog order: id, server, name, title and the description's first
//!   [`SHOWN_DESCRIPTION`] characters; `total` counts every match. At most
//!   [`MAX_PAGE`] tools a page: the page never holds a whole catalog.
//! - `GET /api/search?profile=P&q=TEXT&limit=N`: the search `P`'s model
//!   would run, each hit's score split into the rules that made it (the
//!   lexical fields matched, the embedding's share) and the fusion's
//!   decisions, as `toolsearch search --explain` prints them.
//! - `GET /api/tool?profile=P&id=ID`: one tool as `P`'s model meets it: its
//!   description, schemas, TypeScript declaration, and the profiles that see it.
//! - `GET /api/sessions`: the sessions open now (at most
//!   [`crate::gateway::MAX_SESSIONS_SHOWN`]), each with its turns and its
//!   last turn's record (no arguments or results), and the bytes each
//!   profile's list saves against a plain aggregator.
//! - `GET /api/reload`: the configuration in force (secrets redacted), the
//!   last reload's outcome, and what the file on disk would change.
//! - `POST /api/try` `{"profile", "code", "real_calls"}`: runs the snippet as
//!   `tool_search_code` under the profile's policy; its calls are recorded
//!   and not made unless `[admin] page_calls = true` and `real_calls` ask.
//!
//! Everything a server or a client wrote (names, reasons, descriptions,
//! schemas, results) is data in a JSON string: the page shows it as text.

use std::sync::Arc;

use serde_json::{json, Value};

use super::reload::Reloader;
use crate::gateway::{Calls, Gateway, PageError};

/// The routes, for the 404 answer.
pub(super) const ROUTES: &str = "/api/servers, /api/profiles, /api/catalog, /api/search, \
     /api/tool, /api/sessions, /api/reload, POST /api/try";

/// Tools a catalog page holds at most, and when `limit` is not given.
pub(super) const MAX_PAGE: usize = 200;
const DEFAULT_PAGE: usize = 50;

/// Characters of a description a catalog row carries.
pub(super) const SHOWN_DESCRIPTION: usize = 240;

/// Bytes of a search query, at most (a model's query is a sentence).
const MAX_QUERY: usize = 1024;

/// Searches the page runs at once (each is CPU work on the blocking pool
/// the clients' searches share); past it, a 429.
const MAX_SEARCHES: usize = 2;

/// What the API answers from.
pub(super) struct Api {
    pub(super) gw: Arc<Gateway>,
    /// The file's reloader, when the gateway reloads one.
    pub(super) reloader: Option<Arc<Reloader>>,
    /// `[admin] page_calls`.
    pub(super) page_calls: bool,
    /// The searches running (see [`MAX_SEARCHES`]).
    pub(super) searches: Arc<tokio::sync::Semaphore>,
}

impl Api {
    pub(super) fn new(gw: Arc<Gateway>, reloader: Option<Arc<Reloader>>, page_calls: bool) -> Api {
        Api {
            gw,
            reloader,
            page_calls,
            searches: Arc::new(tokio::sync::Semaphore::new(MAX_SEARCHES)),
        }
    }
}

/// The status a page error is answered with.
fn refusal(e: PageError) -> Refusal {
    let status = match &e {
        PageError::NotFound(_) => 400,
        PageError::Busy(_) => 429,
        PageError::Stopping => 503,
        PageError::Failed(_) => 500,
    };
    (status, e.to_string())
}

/// A refusal: its status and why.
pub(super) type Refusal = (u16, String);

fn bad(why: impl Into<String>) -> Refusal {
    (400, why.into())
}

impl Api {
    /// The answer to `GET path` (under `/api/`) with its `query`:
    /// `Ok(None)` when there is no such route.
    pub(super) async fn get(
        &self,
        path: &str,
        query: Option<&str>,
    ) -> Result<Option<Value>, Refusal> {
        let params: Vec<(String, String)> =
            url::form_urlencoded::parse(query.unwrap_or("").as_bytes())
                .into_owned()
                .collect();
        let gw = &self.gw;
        let profile = param(&params, "profile").unwrap_or(crate::config::DEFAULT_PROFILE);
        Ok(Some(match path {
            "/api/servers" => json!({"servers": self.servers()}),
            "/api/profiles" => json!({"profiles": gw.page_profiles()}),
            "/api/catalog" => catalog(gw, profile, &params)?,
            "/api/search" => {
                let q = param(&params, "q").unwrap_or("");
                if q.len() > MAX_QUERY {
                    return Err(bad(format!(
                        "`q` is {} bytes; at most {MAX_QUERY}",
                        q.len()
                    )));
                }
                let limit = param(&params, "limit")
                    .map(|v| count(Some(v), "limit", 0))
                    .transpose()?;
                let permit = self.searches.clone().try_acquire_owned().map_err(|_| {
                    (
                        429,
                        format!("{MAX_SEARCHES} searches are running already: try again"),
                    )
                })?;
                let (gw, profile, q) = (gw.clone(), profile.to_string(), q.to_string());
                // A fused search embeds its query: CPU work, off the runtime.
                tokio::task::spawn_blocking(move || {
                    let _permit = permit;
                    gw.page_search(&profile, &q, limit)
                })
                .await
                .map_err(|_| (500, "the search failed inside the gateway".to_string()))?
                .map_err(refusal)?
            }
            "/api/tool" => {
                let id = param(&params, "id").ok_or_else(|| bad("`id` is required"))?;
                gw.page_tool(profile, id).map_err(refusal)?
            }
            "/api/sessions" => gw.page_sessions(),
            "/api/reload" => self.reload().await,
            _ => return Ok(None),
        }))
    }

    /// The answer to `POST /api/try` with `body`.
    pub(super) async fn try_snippet(&self, body: &[u8]) -> Result<Value, Refusal> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Trial {
            #[serde(default)]
            profile: Option<String>,
            code: String,
            #[serde(default)]
            real_calls: bool,
        }
        let t: Trial = serde_json::from_slice(body).map_err(|e| {
            bad(format!(
                "the body must be JSON {{\"profile\": NAME, \"code\": SNIPPET, \"real_calls\": false}}: {e}"
            ))
        })?;
        if t.code.len() > crate::gateway::MAX_TRIAL_CODE {
            return Err(bad(format!(
                "`code` is {} bytes; at most {}",
                t.code.len(),
                crate::gateway::MAX_TRIAL_CODE
            )));
        }
        if t.real_calls && !self.page_calls {
            return Err((
                403,
                "real calls from the page are off: set `page_calls = true` in [admin] (the admin \
                 token then reaches every profile's tools); a dry run records the calls"
                    .into(),
            ));
        }
        let calls = if t.real_calls {
            Calls::Real
        } else {
            Calls::Dry
        };
        let profile = t
            .profile
            .as_deref()
            .unwrap_or(crate::config::DEFAULT_PROFILE);
        tracing::info!(
            target: "toolsearch::audit",
            profile = %crate::text::clean_for_log(profile, 80),
            real_calls = t.real_calls,
            code_bytes = t.code.len(),
            "trial from the operator page starting"
        );
        self.gw
            .page_try(profile, &t.code, calls)
            .await
            .map_err(refusal)
    }

    /// The servers' status, each with its calls and errors from `/metrics`.
    fn servers(&self) -> Vec<Value> {
        self.gw
            .fleet()
            .status()
            .into_iter()
            .map(|s| {
                let counted = self.gw.server_calls(&s.name);
                let (calls, errors) = (counted.map(|c| c.0), counted.map(|c| c.1));
                let needs_login = s.error.as_deref().and_then(login_command);
                let mut v = serde_json::to_value(&s).unwrap_or(Value::Null);
                v["calls"] = json!(calls);
                v["errors"] = json!(errors);
                v["needs_login"] = json!(needs_login);
                v
            })
            .collect()
    }

    async fn reload(&self) -> Value {
        let digest = self.gw.config_digest();
        let Some(r) = &self.reloader else {
            return json!({"path": null, "digest": digest, "in_force": null, "last": null,
                "pending": null, "note": "this gateway reloads no file (an embedder's)"});
        };
        let (in_force, pending) = r.pending().await;
        json!({
            "path": r.path().display().to_string(),
            "digest": digest,
            "in_force": in_force,
            "last": r.last(),
            "pending": pending,
        })
    }
}

/// The command a server's error names when it needs an OAuth login
/// (`… needs a login: …; run `toolsearch oauth login NAME``).
fn login_command(error: &str) -> Option<String> {
    if !error.contains("needs a login") {
        return None;
    }
    let from = error.find("`toolsearch oauth login")? + 1;
    let len = error[from..].find('`')?;
    Some(error[from..from + len].to_string())
}

/// The value of query parameter `name`, when given.
fn param<'a>(params: &'a [(String, String)], name: &str) -> Option<&'a str> {
    params
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// A count parameter, or `default`.
fn count(param: Option<&str>, name: &str, default: usize) -> Result<usize, Refusal> {
    match param {
        None => Ok(default),
        Some(v) => v
            .parse()
            .map_err(|_| bad(format!("`{name}` must be a whole number, not {v:?}"))),
    }
}

/// One page of profile `profile`'s catalog, as `params` ask.
fn catalog(gw: &Gateway, profile: &str, params: &[(String, String)]) -> Result<Value, Refusal> {
    let offset = count(param(params, "offset"), "offset", 0)?;
    let limit = count(param(params, "limit"), "limit", DEFAULT_PAGE)?;
    if limit == 0 || limit > MAX_PAGE {
        return Err(bad(format!("`limit` must be 1 to {MAX_PAGE}, not {limit}")));
    }
    let server = param(params, "server").filter(|s| !s.is_empty());
    let (page, total) = gw
        .page_catalog(profile, server, offset, limit)
        .map_err(refusal)?;
    let tools: Vec<Value> = page
        .iter()
        .map(|t| {
            let description: String = t.description.chars().take(SHOWN_DESCRIPTION).collect();
            let cut = description.len() < t.description.len();
            json!({
                "id": t.id,
                "server": t.server,
                "name": t.name,
                "title": t.title,
                "description": description,
                "description_cut": cut,
            })
        })
        .collect();
    Ok(json!({
        "profile": profile,
        "server": server,
        "total": total,
        "offset": offset,
        "limit": limit,
        "tools": tools,
    }))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_login_command_is_read_from_the_reason_it_is_in() {
        let e = "needs a login: the refresh token was refused; run `toolsearch oauth login docs --profile ops`";
        assert_eq!(
            super::login_command(e).as_deref(),
            Some("toolsearch oauth login docs --profile ops")
        );
        assert_eq!(
            super::login_command("failed to start: `toolsearch oauth login x`"),
            None
        );
        assert_eq!(super::login_command("needs a login: no command"), None);
    }
}
