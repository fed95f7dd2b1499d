//! `tool_search`: the structured search, reveal mode's (which reveals what it
//! finds) and native mode's (the provider loads what it finds).

use serde_json::Value;

use super::{strings, Turn};
use crate::error::ErrorCode;
use crate::output::ToolOutput;
use crate::render::native;
use crate::vocab::Shape;

impl Turn<'_> {
    /// `tool_search` (ours, and the seeds' `max_results`): hits, with their schemas
    /// when asked (`include_schemas`) and always in reveal mode, where the matches
    /// are also revealed for the session; in native mode for Anthropic, the
    /// `tool_reference` blocks that load the matches.
    pub(super) fn search_tool(&self, args: &Value) -> ToolOutput {
        let scope = &self.scope();
        let Some(queries) = strings(&args["query"]).or_else(|| strings(&args["queries"])) else {
            return ToolOutput::error(
                ErrorCode::InvalidArgs,
                "tool_search needs `query`: a string or a list of up to 7 strings",
            );
        };
        let limit = args["limit"]
            .as_u64()
            .or(args["max_results"].as_u64())
            .map(|l| l as usize);
        let route = self.route();
        // Reveal and native modes send deferred tools under provider names
        // (`server__tool`, a hashed suffix) the catalog does not know: a query that
        // is one of them picks that tool, as its stub says it will.
        let named = matches!(route, Shape::Reveal | Shape::Native).then(|| self.plan(scope));
        let queries = if let Some(plan) = &named {
            let names = plan.all_names();
            queries
                .into_iter()
                .map(|q| {
                    let q_trim = q.trim().trim_matches('`');
                    match names.iter().position(|n| n == q_trim) {
                        Some(i) if self.host.resolve(q_trim, scope).is_err() => {
                            format!("select:{}", plan.visible[i].id)
                        }
                        _ => q,
                    }
                })
                .collect()
        } else {
            queries
        };
        let refs: Vec<&str> = queries.iter().map(String::as_str).collect();
        let mut found = match self.host.search(&refs, limit, scope) {
            Ok(v) => v,
            Err(e) => return ToolOutput::error(e.code, e.message),
        };
        let ids: Vec<String> = found["hits"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|h| h["id"].as_str().map(String::from))
            .collect();
        if let (Shape::Native, Some(provider)) = (route, self.settings.provider) {
            let plan = named.clone().unwrap_or_else(|| self.plan(scope));
            if let Some(content) = native::search_answer(&plan, provider, &ids) {
                return ToolOutput::ok(content);
            }
        }
        let include = route == Shape::Reveal || args["include_schemas"].as_bool() == Some(true);
        if include && !ids.is_empty() {
            let names = named
                .as_ref()
                .filter(|_| route == Shape::Reveal)
                .map(|plan| {
                    plan.visible
                        .iter()
                        .zip(plan.all_names())
                        .filter(|(t, _)| ids.contains(&t.id))
                        .map(|(t, n)| (t.id.clone(), n.clone()))
                        .collect::<std::collections::HashMap<String, String>>()
                });
            for hit in found["hits"].as_array_mut().into_iter().flatten() {
                let Some(id) = hit["id"].as_str().map(String::from) else {
                    continue;
                };
                if let Some(tool) = self.host.resolve(&id, scope).ok().map(|(t, _, _)| t) {
                    hit["input_schema"] = tool.input_schema.clone();
                }
                if let Some(n) = names.as_ref().and_then(|m| m.get(&id)) {
                    hit["call_as"] = Value::String(n.clone());
                }
            }
            if route == Shape::Reveal {
                self.remember(&ids);
            }
        }
        ToolOutput::ok(found)
    }

    /// Answers an OpenAI Responses `tool_search_call` item (client execution) with the
    /// `tool_search_output` item to send back: the matched functions, in their
    /// namespaces, ranked by our search within the session's scope.
    pub(crate) fn answer_tool_search(&self, call: &Value) -> Value {
        let args = match &call["arguments"] {
            Value::String(text) => serde_json::from_str(text).unwrap_or(Value::Null),
            v => v.clone(),
        };
        let query = args["query"]
            .as_str()
            .or(args["goal"].as_str())
            .unwrap_or_default()
            .to_owned();
        let limit = args["limit"].as_u64().map(|l| l as usize);
        let scope = self.scope();
        let ids: Vec<String> = self
            .host
            .search(&[query.as_str()], limit, &scope)
            .ok()
            .and_then(|v| {
                v["hits"].as_array().map(|hits| {
                    hits.iter()
                        .filter_map(|h| h["id"].as_str().map(String::from))
                        .collect()
                })
            })
            .unwrap_or_default();
        let plan = self.plan(&scope);
        native::tool_search_output(&plan, &call["call_id"], &ids)
    }
}
