//! Tool definitions in each provider's wire format: one function per shape
//! here, the formats with more to them in a module each (`gemini` schemas,
//! `openai` namespaces, `anthropic` references).

use serde_json::{json, Value};
use toolsearch_catalog::Tool;

use crate::vocab::Provider;

pub mod anthropic;
pub mod gemini;
pub mod openai;

/// One definition in `provider`'s shape.
pub fn definition(provider: Provider, name: &str, description: &str, schema: &Value) -> Value {
    match provider {
        Provider::OpenAiChat => {
            json!({"type": "function", "function": {"name": name, "description": description, "parameters": schema}})
        }
        // `strict` is required by the API's types and defaults to true there, which
        // would demand every property be required and no others allowed: tool schemas
        // in the wild are not written that way.
        Provider::OpenAiResponses => {
            json!({"type": "function", "name": name, "description": description, "parameters": schema, "strict": false})
        }
        Provider::Anthropic => {
            json!({"name": name, "description": description, "input_schema": schema})
        }
        Provider::Mcp => json!({"name": name, "description": description, "inputSchema": schema}),
        Provider::Gemini => gemini::declaration(name, description, schema),
    }
}

/// The definition of catalog tool `tool` under `name` in `provider`'s shape. For
/// MCP it carries what MCP clients use beside the schema, cleaned and bounded
/// by the catalog: the title (top-level and in the annotations), the
/// annotations (`readOnlyHint`, `destructiveHint`, ...: hints from a possibly
/// hostile server, which a client may use to ask for confirmation; the
/// gateway's own destructive gate never reads `readOnlyHint` as leave to skip
/// it) and, for a tool from an MCP server, its `outputSchema` (a call of it by
/// this name returns the server's result, `structuredContent` included,
/// unchanged: see [`crate::ToolOutput::passthrough`]).
///
/// Schemas are sent with their keys in one order (sorted, at every depth),
/// whatever order the server wrote them in: the bytes sent up front depend on
/// what a tool is, not on how its server's serializer ordered a map (each
/// change of those bytes is a prompt-cache write; `describe` keeps the
/// server's order).
pub fn tool_definition(provider: Provider, name: &str, tool: &Tool) -> Value {
    let mut d = definition(
        provider,
        name,
        &tool.description,
        &canonical(&tool.input_schema),
    );
    if provider == Provider::Mcp {
        mcp_metadata(&mut d, tool, true);
    }
    d
}

/// Adds `tool`'s title, annotations and (with `output`, for a tool from an
/// MCP server) output schema to its MCP definition `d`.
pub(crate) fn mcp_metadata(d: &mut Value, tool: &Tool, output: bool) {
    let Value::Object(m) = d else { return };
    // The top-level title as the server wrote it, else its annotations' one;
    // the annotations as written.
    let title = tool
        .title
        .as_deref()
        .or(tool.annotations.as_ref().and_then(|a| a.title.as_deref()))
        .filter(|t| !t.is_empty());
    if let Some(title) = title {
        m.insert("title".into(), Value::String(title.to_string()));
    }
    if let Some(a) = &tool.annotations {
        if let Ok(v) = serde_json::to_value(a) {
            if v.as_object().is_some_and(|o| !o.is_empty()) {
                m.insert("annotations".into(), v);
            }
        }
    }
    if output && tool.source == toolsearch_catalog::Source::Mcp {
        if let Some(schema) = &tool.output_schema {
            m.insert("outputSchema".into(), canonical(schema));
        }
    }
}

/// `v` with the keys of every object in it sorted (arrays keep their order):
/// one byte form for one value, whatever order a map was written in.
pub fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut out: serde_json::Map<String, Value> =
                m.iter().map(|(k, v)| (k.clone(), canonical(v))).collect();
            out.sort_keys();
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_per_provider() {
        let s = json!({"type": "object"});
        assert_eq!(
            definition(Provider::OpenAiChat, "f", "d", &s)["function"]["parameters"],
            s
        );
        assert_eq!(
            definition(Provider::OpenAiResponses, "f", "d", &s)["parameters"],
            s
        );
        assert_eq!(
            definition(Provider::Anthropic, "f", "d", &s)["input_schema"],
            s
        );
        assert_eq!(definition(Provider::Mcp, "f", "d", &s)["inputSchema"], s);
    }

    #[test]
    fn a_schemas_key_order_never_reaches_the_bytes_sent() {
        let a: Value = serde_json::from_str(
            r#"{"type":"object","properties":{"b":{"type":"string","description":"x"},"a":{"type":"string","enum":["z","y"]}},"required":["b"]}"#,
        )
        .unwrap();
        let b: Value = serde_json::from_str(
            r#"{"required":["b"],"properties":{"a":{"enum":["z","y"],"type":"string"},"b":{"description":"x","type":"string"}},"type":"object"}"#,
        )
        .unwrap();
        let tool = |s: Value| Tool::new(toolsearch_catalog::Source::Mcp, Some("s"), "t", "d", s);
        for p in [
            Provider::Mcp,
            Provider::Anthropic,
            Provider::OpenAiChat,
            Provider::Gemini,
        ] {
            let (x, y) = (
                tool_definition(p, "t", &tool(a.clone())).to_string(),
                tool_definition(p, "t", &tool(b.clone())).to_string(),
            );
            assert_eq!(x, y, "{p:?}");
            // Arrays keep their order: it can mean something.
            assert!(x.contains(r#"["z","y"]"#), "{x}");
        }
    }
}
