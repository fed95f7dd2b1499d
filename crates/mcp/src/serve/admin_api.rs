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
//!
//! Everything a server wrote (names, reasons, problems) is data in a JSON
//! string: the page shows it as text.

use serde_json::{json, Value};

use crate::gateway::Gateway;

/// The routes, for the 404 answer.
pub(super) const ROUTES: &str = "/api/servers, /api/profiles";

/// The answer to `path` (under `/api/`), or `None` when there is no such route.
pub(super) fn answer(gw: &Gateway, path: &str) -> Option<Value> {
    match path {
        "/api/servers" => Some(json!({"servers": gw.fleet().status()})),
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
            Some(json!({"profiles": profiles}))
        }
        _ => None,
    }
}
