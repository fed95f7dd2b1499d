//! Routing: the model's call by name. `tool_search_code` goes to code mode; the
//! structured tools (`tool_search`, `tool_describe`, `tool_call`) and tools sent
//! directly go to the host's search, describe and call.

use serde_json::{json, Value};

use crate::error::ErrorCode;
use crate::facade::{CallOptions, Session, ToolOutput, ToolSearch};
use crate::plan::Plan;
use crate::vocab::{BridgeTool, Shape};

impl ToolSearch {
    pub(crate) async fn handle_call_inner(
        &self,
        session: &Session,
        name: &str,
        args: Value,
        opts: &CallOptions,
    ) -> ToolOutput {
        let scope = &Self::scope(session);
        let Some(bridge) = BridgeTool::from_name(name) else {
            return self.direct_call(session, name, args, opts).await;
        };
        match bridge {
            BridgeTool::SearchCode => self.run_code(session, args, opts).await,
            BridgeTool::Search => self.search_tool(session, &args, scope),
            BridgeTool::Describe => {
                let Some(ids) = ["ids", "id", "names", "name"]
                    .iter()
                    .find_map(|k| strings(&args[*k]))
                else {
                    return ToolOutput::error(
                        ErrorCode::InvalidArgs,
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
            BridgeTool::Call => {
                let Some(id) = args["id"].as_str().or(args["name"].as_str()) else {
                    return ToolOutput::error(
                        ErrorCode::InvalidArgs,
                        "tool_call needs `id` (from tool_search; or `name`) and `arguments`",
                    );
                };
                if BridgeTool::from_name(id).is_some() {
                    return ToolOutput::error(
                        ErrorCode::InvalidArgs,
                        format!("`{id}` is one of the search tools; call it directly"),
                    );
                }
                // A tool sent in full runs through `tool_call` too; an id, a bare
                // name or the provider name it was sent under all find it.
                let id = match self.host.resolve(id, scope) {
                    Ok((t, _, _)) => t.id,
                    Err(e) => {
                        let plan = self.plan(scope, false);
                        match plan.all_names().iter().position(|n| n == id) {
                            Some(i) => plan.visible[i].id.clone(),
                            None => return ToolOutput::error(e.code, e.message),
                        }
                    }
                };
                let arguments = match args.get("arguments").or(args.get("args")) {
                    None | Some(Value::Null) => json!({}),
                    // A model that sends the arguments as a JSON string.
                    Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
                        Ok(v) if v.is_object() => v,
                        _ => Value::String(text.clone()),
                    },
                    Some(v) => v.clone(),
                };
                let mut out = self.call(session, &id, arguments, opts).await;
                if out.is_error && out.content["error"]["code"] == ErrorCode::InvalidArgs.as_str() {
                    if let Some(hint) = crate::hints::arguments_at_top_level(&args) {
                        out.content["error"]["hint"] = Value::String(hint);
                    }
                }
                out
            }
        }
    }

    /// A tool called by its name: a provider name `definitions` sent (from the same
    /// plan), the provider name of any visible tool (a deferred tool the model
    /// knows from a search or a listing), or its bare catalog name or id. Every way
    /// runs it under the policy, gate and approval of `tool_call`; only a tool the
    /// policy hides (or none) answers UNKNOWN_TOOL. In reveal mode a tool whose
    /// parameters were never loaded runs when its arguments fit the real schema;
    /// otherwise the answer carries the schema and the tool is revealed.
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
        let i = match plan.all_names().iter().position(|n| n == name) {
            Some(i) => i,
            None => match self.host.resolve(name, scope) {
                Ok((t, _, _)) => match plan.visible.iter().position(|v| v.id == t.id) {
                    Some(i) => i,
                    None => return self.call(session, &t.id, args, opts).await,
                },
                Err(e) if e.code == ErrorCode::UnknownTool => {
                    return self.unknown_name(name, scope)
                }
                Err(e) => return ToolOutput::error(e.code, e.message),
            },
        };
        let id = plan.visible[i].id.clone();
        let stub = plan.active
            && self.route() == Shape::Reveal
            && !plan.direct.contains(&i)
            && !self.revealed(session).contains(&id);
        let mut out = self.call(session, &id, args, opts).await;
        if stub && out.is_error && out.content["error"]["code"] == ErrorCode::InvalidArgs.as_str() {
            self.reveal_on_misfit(session, &plan, i, name, &mut out);
        }
        out
    }

    /// A call of a tool whose parameters were not loaded did not fit them: the
    /// answer carries the schema, and the tool is revealed.
    fn reveal_on_misfit(
        &self,
        session: &Session,
        plan: &Plan,
        i: usize,
        name: &str,
        out: &mut ToolOutput,
    ) {
        let id = plan.visible[i].id.clone();
        self.remember(session, std::slice::from_ref(&id));
        let schema = plan.visible[i].input_schema.clone();
        let e = &mut out.content["error"];
        e["message"] = Value::String(format!(
            "`{name}` was called before its parameters were loaded, and the arguments \
             do not fit them; nothing was called. Its parameters are `input_schema` here: \
             call it again with arguments that fit them. {}",
            e["message"].as_str().unwrap_or_default()
        ));
        e["input_schema"] = schema;
    }

    fn unknown_name(&self, name: &str, scope: &crate::host::Scope) -> ToolOutput {
        let e = self.host.unknown(name, scope);
        ToolOutput::error(e.code, e.message)
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
        let named = matches!(route, Shape::Reveal | Shape::Native).then(|| {
            let plan = self.plan(scope, false);
            let names = plan.all_names();
            (plan, names)
        });
        let queries = if let Some((plan, names)) = &named {
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
            if let Some(content) = crate::native::search_answer(self, scope, provider, &ids) {
                return ToolOutput::ok(content);
            }
        }
        let include = route == Shape::Reveal || args["include_schemas"].as_bool() == Some(true);
        if include && !ids.is_empty() {
            let names = named
                .as_ref()
                .filter(|_| route == Shape::Reveal)
                .map(|(plan, all)| {
                    plan.visible
                        .iter()
                        .zip(all)
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
                self.remember(session, &ids);
            }
        }
        ToolOutput::ok(found)
    }

    /// How the bridge tools answer: the shape of the settings' provider (the one
    /// [`ToolSearch::definitions`] uses when it is asked for that provider).
    pub(crate) fn route(&self) -> Shape {
        self.shape(self.settings.provider).0
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
                let mut out = ToolOutput::error(e.code, e.message.clone());
                if let Some(schema) = e.input_schema {
                    out.content["error"]["input_schema"] = *schema;
                }
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
