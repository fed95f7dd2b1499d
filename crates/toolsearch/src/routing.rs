//! Routing: the model's call by name. `tool_search_code` goes to code mode; the
//! structured tools (`tool_search`, `tool_describe`, `tool_call`) and tools sent
//! directly go to the host's search, describe and call.

use serde_json::{json, Value};

use crate::activation::Mode;
use crate::defs::{Provider, BRIDGE_TOOLS};
use crate::facade::{CallOptions, Session, ToolOutput, ToolSearch};

/// How the bridge tools answer (see [`ToolSearch::route`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    /// Ids to describe and call.
    Structured,
    /// Full schemas, revealed for the session.
    Reveal,
    /// The provider's own loading blocks.
    Native(Provider),
}

impl ToolSearch {
    pub(crate) async fn handle_call_inner(
        &self,
        session: &Session,
        name: &str,
        args: Value,
        opts: &CallOptions,
    ) -> ToolOutput {
        let scope = &Self::scope(session);
        match name {
            "tool_search_code" => self.run_code(session, args, opts).await,
            "tool_search" => self.search_tool(session, &args, scope),
            "tool_describe" => {
                let Some(ids) = ["ids", "id", "names", "name"]
                    .iter()
                    .find_map(|k| strings(&args[*k]))
                else {
                    return ToolOutput::error(
                        "INVALID_ARGS",
                        "tool_describe needs `ids` (or `name`): an id or a list of ids",
                    );
                };
                let mut out = Vec::new();
                let mut found = Vec::new();
                for id in ids.iter().take(20) {
                    match self.host.describe(id, scope) {
                        Ok(d) => {
                            found.push(d["id"].as_str().unwrap_or(id).to_string());
                            out.push(d);
                        }
                        Err(e) => out.push(json!({"id": id, "error": {"code": e.code.as_str(), "message": e.message}})),
                    }
                }
                self.remember(session, &found);
                ToolOutput::ok(json!({"tools": out}))
            }
            "tool_call" => {
                let Some(id) = args["id"].as_str().or(args["name"].as_str()) else {
                    return ToolOutput::error(
                        "INVALID_ARGS",
                        "tool_call needs `id` (from tool_search; or `name`) and `arguments`",
                    );
                };
                if BRIDGE_TOOLS.contains(&id) {
                    return ToolOutput::error(
                        "INVALID_ARGS",
                        format!("`{id}` is a bridge tool; call it directly"),
                    );
                }
                if let Ok((t, _, _)) = self.host.resolve(id, scope) {
                    if self.never_deferred(&t) {
                        return ToolOutput::error(
                            "INVALID_ARGS",
                            format!("`{}` is not deferred; call it directly", t.name),
                        );
                    }
                }
                let arguments = match args.get("arguments").or(args.get("args")) {
                    None | Some(Value::Null) => json!({}),
                    // A model that sends the arguments as a JSON string.
                    Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
                        Ok(v) if v.is_object() => v,
                        _ => Value::String(text.clone()),
                    },
                    Some(v) => v.clone(),
                };
                self.call(session, id, arguments, opts).await
            }
            direct => self.direct_call(session, direct, args, opts).await,
        }
    }

    /// A tool called by its provider name: one sent in full (the names `definitions`
    /// sent, from the same plan), or in reveal and native modes any visible tool. In
    /// reveal mode a stub never searched is run when its arguments fit the real
    /// schema; otherwise the answer carries the schema and the tool is revealed.
    async fn direct_call(
        &self,
        session: &Session,
        name: &str,
        args: Value,
        opts: &CallOptions,
    ) -> ToolOutput {
        let scope = &Self::scope(session);
        let plan = self.plan(scope, false);
        if let Some(i) = plan.names.iter().position(|n| n == name) {
            let id = plan.visible[plan.direct[i]].id.clone();
            return self.call(session, &id, args, opts).await;
        }
        let route = self.route();
        if !plan.active || route == Route::Structured {
            return self.unknown_name(name, scope);
        }
        let Some(i) = plan.all_names().iter().position(|n| n == name) else {
            return self.unknown_name(name, scope);
        };
        let id = plan.visible[i].id.clone();
        let stub = route == Route::Reveal && !self.revealed(session).contains(&id);
        let mut out = self.call(session, &id, args, opts).await;
        if stub && out.is_error && out.content["error"]["code"] == "INVALID_ARGS" {
            self.remember(session, std::slice::from_ref(&id));
            let schema = plan.visible[i].input_schema.clone();
            let e = &mut out.content["error"];
            e["message"] = Value::String(format!(
                "`{name}` was called before its parameters were loaded, and the arguments \
                 do not fit them; nothing was called. Its schema is `input_schema` here, and \
                 it is loaded from the next turn: call it again. {}",
                e["message"].as_str().unwrap_or_default()
            ));
            e["input_schema"] = schema;
        }
        out
    }

    fn unknown_name(&self, name: &str, scope: &crate::host::Scope) -> ToolOutput {
        let e = self.host.unknown(name, scope);
        ToolOutput::error(e.code.as_str(), e.message)
    }

    /// `tool_search` (ours, and the seeds' `max_results`): hits, with their schemas
    /// when asked (`include_schemas`) and always in reveal mode, where the matches
    /// are also revealed for the session; in native mode for Anthropic, the
    /// `tool_reference` blocks that load the matches.
    fn search_tool(
        &self,
        session: &Session,
        args: &Value,
        scope: &crate::host::Scope,
    ) -> ToolOutput {
        let Some(queries) = strings(&args["query"]).or_else(|| strings(&args["queries"])) else {
            return ToolOutput::error(
                "INVALID_ARGS",
                "tool_search needs `query`: a string or a list of up to 7 strings",
            );
        };
        let limit = args["limit"]
            .as_u64()
            .or(args["max_results"].as_u64())
            .map(|l| l as usize);
        let refs: Vec<&str> = queries.iter().map(String::as_str).collect();
        let mut found = match self.host.search(&refs, limit, scope) {
            Ok(v) => v,
            Err(e) => return ToolOutput::error(e.code.as_str(), e.message),
        };
        let route = self.route();
        let ids: Vec<String> = found["hits"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|h| h["id"].as_str().map(String::from))
            .collect();
        if let Route::Native(provider) = route {
            if let Some(content) = crate::native::search_answer(self, scope, provider, &ids) {
                return ToolOutput::ok(content);
            }
        }
        let include = route == Route::Reveal || args["include_schemas"].as_bool() == Some(true);
        if include && !ids.is_empty() {
            let names = (route == Route::Reveal).then(|| {
                let plan = self.plan(scope, false);
                let all = plan.all_names();
                plan.visible
                    .iter()
                    .zip(all)
                    .filter(|(t, _)| ids.contains(&t.id))
                    .map(|(t, n)| (t.id.clone(), n))
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
            if route == Route::Reveal {
                self.remember(session, &ids);
            }
        }
        ToolOutput::ok(found)
    }

    /// How the bridge tools answer under the configured mode and provider.
    pub(crate) fn route(&self) -> Route {
        match self.settings.mode {
            Mode::Reveal => Route::Reveal,
            Mode::Native | Mode::Auto => match self.settings.provider {
                Some(p) if crate::native::supported(p) => Route::Native(p),
                _ => Route::Structured,
            },
            Mode::Code | Mode::Tools => Route::Structured,
        }
    }

    async fn call(
        &self,
        session: &Session,
        id: &str,
        args: Value,
        opts: &CallOptions,
    ) -> ToolOutput {
        let out = self
            .host
            .clone()
            .call_tool(id, args, &Self::scope(session), self.context(session, opts))
            .await;
        match out {
            Ok((tool, v, notes)) => {
                let passthrough = (tool.source == toolsearch_catalog::Source::Mcp
                    && crate::outcome::is_mcp_result(&v))
                .then(|| v.clone());
                let mut out = if notes.is_empty() {
                    ToolOutput::ok(v)
                } else {
                    ToolOutput::ok(json!({"result": v, "repaired_arguments": notes}))
                };
                out.passthrough = passthrough;
                out
            }
            Err(e) => {
                let mut out = ToolOutput::error(e.code.as_str(), e.message.clone());
                if let Some(detail) = e.detail {
                    let mut native = detail.clone();
                    native.insert("isError".into(), Value::Bool(true));
                    out.content["error"]["detail"] = Value::Object(detail);
                    out.passthrough = Some(Value::Object(native));
                }
                out
            }
        }
    }
}

/// A string or a list of strings (non-strings in the list are skipped); `None` for
/// anything else. How `tool_search` takes queries and `tool_describe` takes ids.
fn strings(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::String(s) => Some(vec![s.clone()]),
        Value::Array(items) => Some(
            items
                .iter()
                .filter_map(|i| i.as_str().map(String::from))
                .collect(),
        ),
        _ => None,
    }
}
