//! `tool_call`, and tools called directly by the name they were sent under:
//! both run the host's call (policy, gate, approval, dispatch).

use serde_json::{json, Value};

use super::Turn;
use crate::dispatch::CallOptions;
use crate::error::ErrorCode;
use crate::host::{hints, outcome, Scope};
use crate::output::ToolOutput;
use crate::plan::Plan;
use crate::vocab::{BridgeTool, Shape};

impl Turn<'_> {
    /// `tool_call`: runs the tool named by `id` (or `name`) with `arguments`.
    pub(super) async fn tool_call(&self, args: &Value, opts: &CallOptions) -> ToolOutput {
        let scope = &self.scope();
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
                let plan = self.plan(scope);
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
        let mut out = self.call(&id, arguments, opts).await;
        if out.is_error && out.content["error"]["code"] == ErrorCode::InvalidArgs.as_str() {
            if let Some(hint) = hints::arguments_at_top_level(args) {
                out.content["error"]["hint"] = Value::String(hint);
            }
        }
        out
    }

    /// A tool called by its name: a provider name `definitions` sent (from the same
    /// plan), the provider name of any visible tool (a deferred tool the model
    /// knows from a search or a listing), or its bare catalog name or id. Every way
    /// runs it under the policy, gate and approval of `tool_call`; only a tool the
    /// policy hides (or none) answers UNKNOWN_TOOL. In reveal mode a tool whose
    /// parameters were never loaded runs when its arguments fit the real schema;
    /// otherwise the answer carries the schema and the tool is revealed.
    pub(super) async fn direct_call(
        &self,
        name: &str,
        args: Value,
        opts: &CallOptions,
    ) -> ToolOutput {
        let scope = &self.scope();
        let plan = self.plan(scope);
        if let Some(i) = plan.names.iter().position(|n| n == name) {
            let id = plan.visible[plan.direct[i]].id.clone();
            return self.call(&id, args, opts).await;
        }
        let i = match plan.all_names().iter().position(|n| n == name) {
            Some(i) => i,
            None => match self.host.resolve(name, scope) {
                Ok((t, _, _)) => match plan.visible.iter().position(|v| v.id == t.id) {
                    Some(i) => i,
                    None => return self.call(&t.id, args, opts).await,
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
            && !self.revealed().contains(&id);
        let mut out = self.call(&id, args, opts).await;
        if stub && out.is_error && out.content["error"]["code"] == ErrorCode::InvalidArgs.as_str() {
            self.reveal_on_misfit(&plan, i, name, &mut out);
        }
        out
    }

    /// A call of a tool whose parameters were not loaded did not fit them: the
    /// answer carries the schema, and the tool is revealed.
    fn reveal_on_misfit(&self, plan: &Plan, i: usize, name: &str, out: &mut ToolOutput) {
        let id = plan.visible[i].id.clone();
        self.remember(std::slice::from_ref(&id));
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

    fn unknown_name(&self, name: &str, scope: &Scope) -> ToolOutput {
        let e = self.host.unknown(name, scope);
        ToolOutput::error(e.code, e.message)
    }

    async fn call(&self, id: &str, args: Value, opts: &CallOptions) -> ToolOutput {
        let out = self
            .host
            .clone()
            .call_tool(id, args, &self.scope(), self.context(opts))
            .await;
        match out {
            Ok((tool, v, notes)) => {
                let passthrough = (tool.source == toolsearch_catalog::Source::Mcp
                    && outcome::is_mcp_result(&v))
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
