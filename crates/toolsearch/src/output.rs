//! The answer to one model call, as the facade hands it back.

use serde_json::{json, Value};

use crate::error::ErrorCode;

/// The answer to one model call.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolOutput {
    /// JSON to hand back to the model.
    pub content: Value,
    /// True when the call failed (the content says why).
    pub is_error: bool,
    /// The tool's own MCP result (`CallToolResult` JSON, `isError` included), when
    /// this call ran one MCP tool directly (a direct call or `tool_call`) and its
    /// server answered: a gateway returns it unchanged (images, resources,
    /// `structuredContent`). See `outcome`.
    pub passthrough: Option<Value>,
}

impl ToolOutput {
    /// A successful answer.
    pub fn ok(content: Value) -> Self {
        ToolOutput {
            content,
            is_error: false,
            passthrough: None,
        }
    }
    /// A failed answer: `{"error": {"code", "message"}}`.
    pub fn error(code: ErrorCode, message: impl Into<String>) -> Self {
        ToolOutput {
            content: json!({"error": {"code": code.as_str(), "message": message.into()}}),
            is_error: true,
            passthrough: None,
        }
    }
}
