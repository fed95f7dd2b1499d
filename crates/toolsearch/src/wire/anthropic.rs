//! Anthropic's native tool search: the beta it is behind, and the
//! `tool_reference` blocks that load the tools a search matched.

use serde_json::{json, Value};

/// The Anthropic beta header the tool-search tool launched behind.
pub const ANTHROPIC_BETA: &str = "advanced-tool-use-2025-11-20";

/// `tool_reference` blocks for the tools named `names` (a `tool_result`
/// content), or a text block saying nothing matched.
pub(crate) fn references(names: &[&str]) -> Value {
    if names.is_empty() {
        return json!([{"type": "text", "text": "No tool matched; try other words or a tool's exact name."}]);
    }
    Value::Array(
        names
            .iter()
            .map(|n| json!({"type": "tool_reference", "tool_name": n}))
            .collect(),
    )
}
