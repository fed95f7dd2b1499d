//! Routing: the model's call by name. `tool_search_code` goes to code mode; the
//! structured tools (`tool_search`, `tool_describe`, `tool_call`) and tools sent
//! directly go to the host's search, describe and call.

use serde_json::{json, Value};

use crate::defs::BRIDGE_TOOLS;
use crate::facade::{CallOptions, Session, ToolOutput, ToolSearch};

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
            "tool_search" => {
                let Some(queries) = strings(&args["query"]) else {
                    return ToolOutput::error(
                        "INVALID_ARGS",
                        "tool_search needs `query`: a string or a list of up to 7 strings",
                    );
                };
                let limit = args["limit"].as_u64().map(|l| l as usize);
                let refs: Vec<&str> = queries.iter().map(String::as_str).collect();
                match self.host.search(&refs, limit, scope) {
                    Ok(v) => ToolOutput::ok(v),
                    Err(e) => ToolOutput::error(e.code.as_str(), e.message),
                }
            }
            "tool_describe" => {
                let Some(ids) = strings(&args["ids"]) else {
                    return ToolOutput::error(
                        "INVALID_ARGS",
                        "tool_describe needs `ids`: an id or a list of ids",
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
                let Some(id) = args["id"].as_str() else {
                    return ToolOutput::error(
                        "INVALID_ARGS",
                        "tool_call needs `id` (from tool_search) and `arguments`",
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
                let arguments = args.get("arguments").cloned().unwrap_or(json!({}));
                self.call(session, id, arguments, opts).await
            }
            direct => {
                // A tool sent directly: its provider name maps back to the tool, by the
                // names `definitions` sent (the same plan).
                let plan = self.plan(scope, false);
                match plan.names.iter().position(|n| n == direct) {
                    Some(i) => {
                        let id = plan.visible[plan.direct[i]].id.clone();
                        self.call(session, &id, args, opts).await
                    }
                    None => ToolOutput::error("UNKNOWN_TOOL", format!("unknown tool `{direct}`")),
                }
            }
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
