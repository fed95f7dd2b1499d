//! What a call resolves to. A dispatcher for MCP tools answers with the tool's
//! own `CallToolResult` (`{content, structuredContent?, isError?}`); an
//! `isError` result is a [`DispatchError`](crate::DispatchError) of kind
//! `Tool` whose detail holds `content` and `structuredContent`.
//!
//! - Inside a snippet, `openclaw.tools.call` resolves to the result's value
//!   ([`snippet_value`]): `structuredContent` when present, else the parsed JSON
//!   (or the text) of a single text item, else the content array. An `isError`
//!   result rejects with `TOOL_ERROR`, whose `content` and `structuredContent`
//!   are the result's (`js/openclaw.d.ts`).
//! - A direct call or `tool_call` of an MCP tool keeps the result as it is
//!   ([`crate::ToolOutput::passthrough`]): a gateway returns it unchanged.

use serde_json::{Map, Value};

/// True when `v` has the shape of an MCP `CallToolResult` (a `content` array).
pub fn is_mcp_result(v: &Value) -> bool {
    v.get("content").is_some_and(Value::is_array)
}

/// The value a snippet's `openclaw.tools.call` resolves to for an MCP result;
/// other values are returned as they are.
pub fn snippet_value(v: Value) -> Value {
    if !is_mcp_result(&v) {
        return v;
    }
    let Value::Object(mut map) = v else {
        unreachable!("is_mcp_result checked an object")
    };
    if let Some(structured) = map.remove("structuredContent").filter(|s| !s.is_null()) {
        return structured;
    }
    let content = map.remove("content").unwrap_or(Value::Array(Vec::new()));
    if let Value::Array(items) = &content {
        if let [item] = &items[..] {
            if item.get("type").and_then(Value::as_str) == Some("text") {
                if let Some(text) = item.get("text").and_then(Value::as_str) {
                    return serde_json::from_str(text)
                        .unwrap_or_else(|_| Value::String(text.into()));
                }
            }
        }
    }
    content
}

/// The detail an `isError` result carries: its `content` and `structuredContent`.
pub fn error_detail(result: &Value) -> Map<String, Value> {
    let mut detail = Map::new();
    for key in ["content", "structuredContent"] {
        if let Some(v) = result.get(key).filter(|v| !v.is_null()) {
            detail.insert(key.into(), v.clone());
        }
    }
    detail
}

/// A short message for an `isError` result: its first text item, capped.
pub fn error_message(result: &Value) -> String {
    let text = result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|c| c.get("text").and_then(Value::as_str))
        .unwrap_or("the tool reported an error");
    let cut = toolsearch_catalog::truncate_at_boundary(text, 500);
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn snippet_value_prefers_structured_then_single_text_then_content() {
        let r = json!({"content": [{"type": "text", "text": "{\"a\":1}"}], "structuredContent": {"b": 2}});
        assert_eq!(snippet_value(r), json!({"b": 2}));
        let r = json!({"content": [{"type": "text", "text": "{\"a\":1}"}]});
        assert_eq!(snippet_value(r), json!({"a": 1}));
        let r = json!({"content": [{"type": "text", "text": "plain words"}]});
        assert_eq!(snippet_value(r), json!("plain words"));
        let two = json!([{"type": "text", "text": "x"}, {"type": "image", "data": "AA==", "mimeType": "image/png"}]);
        assert_eq!(snippet_value(json!({"content": two.clone()})), two);
        // Not an MCP result: unchanged.
        assert_eq!(snippet_value(json!({"tool": "t"})), json!({"tool": "t"}));
    }

    #[test]
    fn error_detail_and_message_come_from_the_result() {
        let r = json!({"content": [{"type": "text", "text": "boom"}], "isError": true});
        assert_eq!(error_message(&r), "boom");
        assert_eq!(
            Value::Object(error_detail(&r)),
            json!({"content": [{"type": "text", "text": "boom"}]})
        );
    }
}
