//! The tool record and the sanitising of untrusted tool text.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Longest tool or server name kept, in bytes; longer names are cut at a char boundary.
pub const MAX_NAME_BYTES: usize = 128;
/// Longest description kept, in bytes; longer ones are cut and the loader warns.
pub const MAX_DESCRIPTION_BYTES: usize = 4096;

/// Where a tool comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// Compiled into the host.
    Builtin,
    /// Listed by an MCP server.
    Mcp,
    /// Supplied by the client for a session or run.
    Client,
}

impl Source {
    /// The lower-case name used in ids and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Builtin => "builtin",
            Source::Mcp => "mcp",
            Source::Client => "client",
        }
    }

    /// Parses `builtin`, `mcp` or `client` (case-insensitive).
    pub fn parse(s: &str) -> Option<Source> {
        match s.to_ascii_lowercase().as_str() {
            "builtin" => Some(Source::Builtin),
            "mcp" => Some(Source::Mcp),
            "client" => Some(Source::Client),
            _ => None,
        }
    }
}

/// Whether a tool's schema may be withheld from the prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Deferrable {
    /// Always sent in full (high-frequency tools).
    Never,
    /// Deferred when tool search is active (the default).
    #[default]
    Automatic,
    /// Deferred whenever tool search is on.
    Always,
}

/// MCP tool annotations (hints, untrusted), kept when the source has them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeated calls with the same arguments have no additional effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// One tool. Build with [`Tool::new`], which sanitises the text fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// Stable id, `source:server:name` (server empty when there is none).
    pub id: String,
    /// Where the tool comes from.
    pub source: Source,
    /// The MCP server (or other grouping) the tool belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Unique name within the catalog.
    pub name: String,
    /// The tool's own name on its server when `name` is qualified (`server__tool`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_name: Option<String>,
    /// Free text; sanitised, capped at [`MAX_DESCRIPTION_BYTES`].
    pub description: String,
    /// JSON Schema of the arguments, kept verbatim (always an object).
    pub input_schema: Value,
    /// JSON Schema of the result, when the source declares one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// MCP annotations, when the source has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Deferrable policy.
    #[serde(default)]
    pub deferrable: Deferrable,
}

impl Tool {
    /// A tool with sanitised name, server and description and an id derived from them.
    pub fn new(
        source: Source,
        server: Option<&str>,
        name: &str,
        description: &str,
        input_schema: Value,
    ) -> Tool {
        let server = server
            .map(|s| clean_line(s, MAX_NAME_BYTES))
            .filter(|s| !s.is_empty());
        let name = clean_line(name, MAX_NAME_BYTES);
        Tool {
            id: make_id(source, server.as_deref(), &name),
            source,
            server,
            name,
            native_name: None,
            description: clean_text(description, MAX_DESCRIPTION_BYTES),
            input_schema,
            output_schema: None,
            annotations: None,
            deferrable: Deferrable::default(),
        }
    }

    /// The name whose parts describe what the tool does (native name when known).
    pub fn short_name(&self) -> &str {
        self.native_name.as_deref().unwrap_or(&self.name)
    }

    /// The first line of the description, cut to `max_bytes` with an ellipsis.
    pub fn summary(&self, max_bytes: usize) -> String {
        let line = self
            .description
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("");
        truncate_with_ellipsis(line, max_bytes)
    }

    /// True when the MCP annotations mark the tool destructive.
    pub fn is_destructive(&self) -> bool {
        self.annotations
            .as_ref()
            .and_then(|a| a.destructive_hint)
            .unwrap_or(false)
    }
}

/// `source:server:name`, the stable id format.
pub fn make_id(source: Source, server: Option<&str>, name: &str) -> String {
    format!("{}:{}:{}", source.as_str(), server.unwrap_or(""), name)
}

/// Characters that can reorder or hide text when displayed (bidi controls, zero-width marks).
fn is_invisible_control(c: char) -> bool {
    matches!(c,
        '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}'
        | '\u{061C}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}')
}

/// One line of text: no control, bidi or invisible characters, whitespace collapsed, capped.
pub fn clean_line(s: &str, max_bytes: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max_bytes));
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if c.is_control() || is_invisible_control(c) {
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.push(c);
    }
    truncate_at_boundary(&out, max_bytes).to_string()
}

/// Multi-line text: control characters other than newline and tab removed, bidi stripped, capped.
pub fn clean_text(s: &str, max_bytes: usize) -> String {
    let cleaned: String = s
        .chars()
        .filter(|&c| (c == '\n' || c == '\t' || !c.is_control()) && !is_invisible_control(c))
        .collect();
    let trimmed = cleaned.trim();
    if trimmed.len() > max_bytes {
        truncate_with_ellipsis(trimmed, max_bytes)
    } else {
        trimmed.to_string()
    }
}

/// The longest prefix of `s` of at most `max_bytes` bytes that ends on a char boundary.
pub fn truncate_at_boundary(s: &str, max_bytes: usize) -> &str {
    if s.len() <= max_bytes {
        return s;
    }
    let mut end = max_bytes;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// `s` cut to `max_bytes` bytes in all, ending with `…` when it was cut.
pub fn truncate_with_ellipsis(s: &str, max_bytes: usize) -> String {
    if s.len() <= max_bytes {
        return s.to_string();
    }
    let ellipsis = "…";
    let cut = truncate_at_boundary(s, max_bytes.saturating_sub(ellipsis.len()));
    format!("{}{ellipsis}", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn new_strips_controls_and_bidi_and_builds_id() {
        let t = Tool::new(
            Source::Mcp,
            Some("git\u{202E}hub"),
            "create\u{0000}_issue\n",
            "Creates\u{200F} an issue.\u{0007}\nSecond line",
            json!({"type": "object"}),
        );
        assert_eq!(t.server.as_deref(), Some("github"));
        assert_eq!(t.name, "create_issue");
        assert_eq!(t.id, "mcp:github:create_issue");
        assert_eq!(t.description, "Creates an issue.\nSecond line");
        assert_eq!(t.summary(100), "Creates an issue.");
    }

    #[test]
    fn caps_are_char_boundary_safe() {
        let long = "é".repeat(100);
        let t = Tool::new(Source::Client, None, &long, &long, json!({}));
        assert!(t.name.len() <= MAX_NAME_BYTES);
        assert!(t.name.chars().all(|c| c == 'é'));
        assert_eq!(truncate_with_ellipsis("abcdef", 4), "a…");
        assert_eq!(truncate_with_ellipsis("abc", 4), "abc");
    }

    #[test]
    fn huge_description_is_capped() {
        let t = Tool::new(
            Source::Client,
            None,
            "x",
            &"word ".repeat(10_000),
            json!({}),
        );
        assert!(t.description.len() <= MAX_DESCRIPTION_BYTES);
        assert!(t.description.ends_with('…'));
    }
}
