//! Resolve: from the id or name a caller gave to one tool it may see, with the
//! catalog that holds it and the dispatcher that runs it. The policy check is here:
//! a tool the policy hides does not exist for the caller.

use std::sync::Arc;

use serde_json::Value;
use toolsearch_catalog::{Catalog, Resolved, Tool};

use super::{Host, Scope};
use crate::dispatch::Dispatcher;
use crate::error::{ErrorCode, HostError};

impl Host {
    /// True when `tool` is visible under the host policy and the caller's scope.
    pub(crate) fn visible(&self, tool: &Tool, scope: &Scope) -> bool {
        self.policy.allows(tool) && scope.policy.allows(tool)
    }

    /// True when the host policy lets a caller with no narrower scope see
    /// `tool`: what a listing of the catalog as a model meets it keeps.
    pub fn shows(&self, tool: &Tool) -> bool {
        self.policy.allows(tool)
    }

    /// Finds a visible tool by id or unambiguous bare name (client tools first), with
    /// the catalog that holds it and the dispatcher that runs it.
    pub(crate) fn resolve(
        &self,
        name_or_id: &str,
        scope: &Scope,
    ) -> Result<(Tool, Catalog, Arc<dyn Dispatcher>), HostError> {
        if let Some(client) = &scope.client {
            if let Resolved::One(t) = client
                .catalog
                .resolve(name_or_id, &|t| self.visible(t, scope))
            {
                return Ok((t.clone(), client.catalog.clone(), client.dispatcher.clone()));
            }
        }
        let catalog = self.catalog();
        match catalog.resolve(name_or_id, &|t| self.visible(t, scope)) {
            Resolved::One(t) => Ok((t.clone(), catalog.clone(), self.dispatcher.clone())),
            Resolved::Ambiguous(n) => Err(HostError::new(
                ErrorCode::InvalidArgs,
                format!("{n} tools are named `{name_or_id}`; use the tool's id from search"),
            )),
            Resolved::None => {
                let retired = self.retired.read().unwrap_or_else(|p| p.into_inner());
                if retired.contains(name_or_id) {
                    Err(HostError::new(
                        ErrorCode::Stale,
                        "the tool catalog changed since this id was found; search again",
                    ))
                } else {
                    Err(self.unknown(name_or_id, scope))
                }
            }
        }
    }

    /// "Unknown tool; use search", with the closest names the caller may see (never a
    /// hidden one, so an unknown and a denied id read the same).
    pub(crate) fn unknown(&self, name_or_id: &str, scope: &Scope) -> HostError {
        // A tool of a backend that is down (and never listed its tools) is
        // not unknown: say which backend and why, not "use search".
        let outages = self.outages();
        let named = |o: &&super::Outage| {
            let server = o.server.as_str();
            name_or_id.split(':').nth(1) == Some(server)
                || name_or_id
                    .strip_prefix(server)
                    .is_some_and(|rest| rest.starts_with(['_', '-', '.', '/']))
        };
        if let Some(o) = outages.iter().find(named) {
            let state = if o.starting { "still starting" } else { "down" };
            return HostError::new(
                ErrorCode::Unavailable,
                format!(
                    "`{name_or_id}`: server `{}` is {state} ({}), so its tools are not listed; nothing ran. Try again once it answers",
                    o.server,
                    toolsearch_catalog::truncate_at_boundary(
                        o.reason
                            .strip_prefix(&format!("server `{}` ", o.server))
                            .unwrap_or(&o.reason),
                        super::MAX_OUTAGE_REASON
                    )
                ),
            );
        }
        let mut e = HostError::unknown_tool(name_or_id);
        if !outages.is_empty() {
            let names: Vec<&str> = outages.iter().map(|o| o.server.as_str()).collect();
            e.message = format!(
                "{} (servers not answering now, whose tools are missing: {})",
                e.message,
                names.join(", ")
            );
        }
        // The tool's own name (after any `source:server:`), as a search query.
        let query = name_or_id.rsplit(':').next().unwrap_or(name_or_id);
        if query.trim().is_empty() || query.len() > 128 {
            return e;
        }
        let opts = toolsearch_catalog::SearchOptions {
            limit: Some(3),
            ..Default::default()
        };
        let allow = |t: &Tool| self.visible(t, scope);
        let mut close: Vec<String> = Vec::new();
        if let Some(client) = &scope.client {
            let r = client.catalog.search_scoped(query, &opts, &allow);
            if r.matched_by != toolsearch_catalog::MatchedBy::Listing {
                close.extend(r.hits.into_iter().map(|h| h.id));
            }
        }
        let r = self.catalog().search_scoped(query, &opts, &allow);
        if r.matched_by != toolsearch_catalog::MatchedBy::Listing {
            close.extend(r.hits.into_iter().map(|h| h.id));
        }
        close.truncate(3);
        if !close.is_empty() {
            let list: Vec<String> = close.iter().map(|id| format!("`{id}`")).collect();
            e.message = format!("{}; closest: {}", e.message, list.join(", "));
        }
        e
    }

    /// The full record and TypeScript declaration of one visible tool.
    pub fn describe(&self, id: &str, scope: &Scope) -> Result<Value, HostError> {
        let (tool, catalog, _) = self.resolve(id, scope)?;
        let d = catalog
            .describe(&tool.id)
            .ok_or_else(|| HostError::unknown_tool(id))?;
        scope.record(|t| t.described(&tool));
        let mut out = serde_json::to_value(&d)
            .map_err(|e| HostError::new(ErrorCode::Unavailable, e.to_string()))?;
        if !self.available(&tool) {
            out["available"] = Value::Bool(false);
        }
        Ok(out)
    }

    /// Every tool visible to `scope`: shared ones, then client ones.
    pub(crate) fn visible_tools(&self, scope: &Scope) -> Vec<Tool> {
        let mut out: Vec<Tool> = self
            .catalog()
            .tools()
            .iter()
            .filter(|t| self.visible(t, scope))
            .cloned()
            .collect();
        if let Some(client) = &scope.client {
            out.extend(
                client
                    .catalog
                    .tools()
                    .iter()
                    .filter(|t| self.visible(t, scope))
                    .cloned(),
            );
        }
        out
    }
}
