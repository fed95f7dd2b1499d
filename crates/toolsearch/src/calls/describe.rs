//! `tool_describe`: the full schemas of tools by id (up to 20; a TypeScript
//! declaration too when asked), each
//! described tool revealed for the conversation.

use serde_json::{json, Value};

use super::{strings, Turn};
use crate::error::ErrorCode;
use crate::output::ToolOutput;

impl Turn<'_> {
    pub(super) fn describe_tool(&self, args: &Value) -> ToolOutput {
        let scope = &self.scope();
        let Some(ids) = ["ids", "id", "names", "name"]
            .iter()
            .find_map(|k| strings(&args[*k]))
        else {
            return ToolOutput::error(
                ErrorCode::InvalidArgs,
                "tool_describe needs `ids` (or `name`): an id or a list of ids",
            );
        };
        // One form of each schema unless both are asked for: the declaration
        // repeats the JSON Schema's every property.
        let typescript = args["typescript"].as_bool() == Some(true);
        let mut out = Vec::new();
        let mut found = Vec::new();
        for id in ids.iter().take(20) {
            match self.host.describe(id, scope) {
                Ok(mut d) => {
                    found.push(d["id"].as_str().unwrap_or(id).to_string());
                    if !typescript {
                        if let Some(m) = d.as_object_mut() {
                            m.remove("typescript");
                        }
                    }
                    out.push(d);
                }
                Err(e) => out.push(
                    json!({"id": id, "error": {"code": e.code.as_str(), "message": e.message}}),
                ),
            }
        }
        self.remember(&found);
        ToolOutput::ok(json!({"tools": out}))
    }
}
