//! The operator page's JSON API on the admin surface (issue 65): reads of the
//! gateway's own state, behind the admin token and the same `Host` and `Origin`
//! checks as `/metrics` (`admin.rs`).
//!
//! - `GET /api/servers`: every server behind the gateway, in configuration
//!   order: its state (`starting`, `running`, `stopped`, `down`), why it is
//!   down, its tools, the times it came up, its calls in flight, how often its
//!   tool list changed, the MCP revision it speaks, and what is wrong with its
//!   tools.
//! - `GET /api/profiles`: each profile served and the tools its catalog holds.
//! - `GET /api/catalog?profile=P&server=S&offset=N&limit=M`: one page of the
//!   tools profile `P` (default `default`) sees, of server `S` when given, in
//!   catalog order: id, server, name, title and the description's first
//!   [`SHOWN_DESCRIPTION`] characters; `total` counts every match. At most
//!   [`MAX_PAGE`] tools a page: the page never holds a whole catalog.
//!
//! Everything a server wrote (names, reasons, problems) is data in a JSON
//! string: the page shows it as text.

use serde_json::{json, Value};

use crate::gateway::Gateway;

/// The routes, for the 404 answer.
pub(super) const ROUTES: &str = "/api/servers, /api/profiles, /api/catalog";

/// Tools a catalog page holds at most, and when `limit` is not given.
pub(super) const MAX_PAGE: usize = 200;
const DEFAULT_PAGE: usize = 50;

/// Characters of a description a catalog row carries.
pub(super) const SHOWN_DESCRIPTION: usize = 240;

/// The answer to `path` (under `/api/`) with its `query`: `Ok(None)` when
/// there is no such route, `Err` (400) when its parameters are wrong.
pub(super) fn answer(
    gw: &Gateway,
    path: &str,
    query: Option<&str>,
) -> Result<Option<Value>, String> {
    Ok(Some(match path {
        "/api/servers" => json!({"servers": gw.fleet().status()}),
        "/api/profiles" => {
            let profiles: Vec<Value> = gw
                .profile_names()
                .into_iter()
                .map(|name| {
                    let tools = gw
                        .toolsearch_of(&name)
                        .map_or(0, |ts| ts.host().catalog().len());
                    json!({"name": name, "tools": tools})
                })
                .collect();
            json!({"profiles": profiles})
        }
        "/api/catalog" => {
            let params: Vec<(String, String)> =
                url::form_urlencoded::parse(query.unwrap_or("").as_bytes())
                    .into_owned()
                    .collect();
            catalog(gw, &params)?
        }
        _ => return Ok(None),
    }))
}

/// The value of query parameter `name`, when given.
fn param<'a>(params: &'a [(String, String)], name: &str) -> Option<&'a str> {
    params
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// A count parameter, or `default`.
fn count(param: Option<&str>, name: &str, default: usize) -> Result<usize, String> {
    match param {
        None => Ok(default),
        Some(v) => v
            .parse()
            .map_err(|_| format!("`{name}` must be a whole number, not {v:?}")),
    }
}

fn catalog(gw: &Gateway, params: &[(String, String)]) -> Result<Value, String> {
    let profile = param(params, "profile").unwrap_or(crate::config::DEFAULT_PROFILE);
    let Some(ts) = gw.toolsearch_of(profile) else {
        return Err(format!(
            "no profile {profile:?}: the profiles are {:?}",
            gw.profile_names()
        ));
    };
    let offset = count(param(params, "offset"), "offset", 0)?;
    let limit = count(param(params, "limit"), "limit", DEFAULT_PAGE)?;
    if limit == 0 || limit > MAX_PAGE {
        return Err(format!("`limit` must be 1 to {MAX_PAGE}, not {limit}"));
    }
    let server = param(params, "server");
    let snapshot = ts.host().catalog();
    let matching = snapshot
        .tools()
        .iter()
        .filter(|t| server.is_none_or(|s| t.server.as_deref() == Some(s)));
    let total = matching.clone().count();
    let tools: Vec<Value> = matching
        .skip(offset)
        .take(limit)
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
