//! The tool record and the sanitising of untrusted tool definitions.

use crate::clean::{self, clean_line, clean_text, escape_for_report, identifier_name};
use crate::schema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeMap;

pub use crate::clean::{truncate_at_boundary, truncate_with_ellipsis};

/// Longest description kept, in bytes; longer ones are cut and the loader warns.
pub const MAX_DESCRIPTION_BYTES: usize = 4096;
/// Longest annotation title kept, in bytes.
pub const MAX_TITLE_BYTES: usize = 128;
/// What a tool whose input schema was too large says about it.
pub const DEGRADED_SCHEMA_NOTE: &str = "The input schema was too large to load; it is not shown, and arguments are passed to the tool unchecked.";

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

/// What a tool's own server expects where sanitising changed what models see. Never
/// shown to a model (not serialized with the tool); dispatchers read it through
/// [`Tool::upstream_name`], [`Tool::upstream_server`] and [`Tool::upstream_arguments`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Upstream {
    /// The tool's name on its server (the raw `tool_name`, else the raw `name`), when
    /// it was not identifier-like.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The server name as given, when it was not identifier-like.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Input-schema keys renamed by cleaning: the key models see -> the key the server expects.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub keys: BTreeMap<String, String>,
}

impl Upstream {
    fn is_empty(&self) -> bool {
        self.name.is_none() && self.server.is_none() && self.keys.is_empty()
    }
}

/// One tool. Build with [`Tool::new`], which sanitises it ([`Tool::sanitize`]);
/// [`crate::Catalog::new`] sanitises every tool again, so a record built or changed
/// field by field is clean by the time a model can read it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// Stable id, `source:server:name` (server empty when there is none).
    pub id: String,
    /// Where the tool comes from.
    pub source: Source,
    /// The MCP server (or other grouping) the tool belongs to, if any; identifier-like.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Unique name within its server: 1-64 characters of `[A-Za-z0-9_.-]`.
    pub name: String,
    /// The tool's own name on its server when `name` is qualified (`server__tool`);
    /// identifier-like.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_name: Option<String>,
    /// Free text; sanitised, capped at [`MAX_DESCRIPTION_BYTES`].
    pub description: String,
    /// JSON Schema of the arguments (always an object), cleaned and capped as
    /// [`schema::sanitize`] says.
    pub input_schema: Value,
    /// JSON Schema of the result, when the source declares one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// MCP's top-level `title` (2025-06-18), as the source wrote it (its
    /// annotations may carry another: both are kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// MCP annotations, when the source has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Deferrable policy.
    #[serde(default)]
    pub deferrable: Deferrable,
    /// Set when the input schema could not be kept ([`DEGRADED_SCHEMA_NOTE`]): describe
    /// shows the arguments as `unknown` with this note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema_note: Option<String>,
    /// What the tool's server expects where sanitising changed names or keys.
    #[serde(default, skip_serializing)]
    pub upstream: Option<Box<Upstream>>,
}

impl Tool {
    /// A sanitised tool with an id derived from its source, server and name.
    pub fn new(
        source: Source,
        server: Option<&str>,
        name: &str,
        description: &str,
        input_schema: Value,
    ) -> Tool {
        let mut tool = Tool::unsanitized(source, server, name, description, input_schema);
        tool.sanitize();
        tool
    }

    /// The record as given, for the loader to complete before sanitising it once.
    pub(crate) fn unsanitized(
        source: Source,
        server: Option<&str>,
        name: &str,
        description: &str,
        input_schema: Value,
    ) -> Tool {
        Tool {
            id: String::new(),
            source,
            server: server.map(str::to_string),
            name: name.to_string(),
            native_name: None,
            description: description.to_string(),
            input_schema,
            output_schema: None,
            title: None,
            annotations: None,
            deferrable: Deferrable::default(),
            schema_note: None,
            upstream: None,
        }
    }

    /// Makes every text a model can read clean, and returns what was changed (for the
    /// load report). Idempotent: a clean tool is left as it is.
    ///
    /// - server, name and native name become identifier-like
    ///   ([`clean::identifier_name`]); the originals are kept in [`Tool::upstream`] for
    ///   dispatch; a name with nothing visible becomes `tool_{hash}`;
    /// - the description and annotation title are cleaned by character class and capped;
    /// - both schemas are cleaned by [`schema::sanitize`]; an input schema over budget
    ///   is replaced and noted in [`Tool::schema_note`], an output schema over budget
    ///   is dropped;
    /// - the id is derived again from the clean parts.
    pub fn sanitize(&mut self) -> Vec<String> {
        let (server, mut warnings) = self.sanitize_parts();
        warnings.splice(0..0, server);
        warnings
    }

    /// [`Tool::sanitize`], with the warning about the server apart (the loader says it
    /// once per server, not once per tool).
    pub(crate) fn sanitize_parts(&mut self) -> (Option<String>, Vec<String>) {
        let mut warnings = Vec::new();
        let mut server_warning = None;
        let mut up = self.upstream.take().map(|b| *b).unwrap_or_default();
        if let Some(raw) = self.server.take() {
            match identifier_name(&raw, "server") {
                Some(Cow::Borrowed(_)) => self.server = Some(raw),
                Some(Cow::Owned(clean)) => {
                    server_warning = Some(format!(
                        "server name {} is not identifier-like; shown as `{clean}`",
                        escape_for_report(&raw, 80)
                    ));
                    self.server = Some(clean);
                    up.server.get_or_insert(raw);
                }
                None if raw.is_empty() => {}
                None => {
                    server_warning = Some(format!(
                        "server name {} has nothing visible; the tool has no server",
                        escape_for_report(&raw, 80)
                    ));
                    up.server.get_or_insert(raw);
                }
            }
        }
        if self
            .native_name
            .as_deref()
            .is_some_and(|n| identifier_name(n, "tool").is_none())
        {
            self.native_name = None;
        }
        // The name the server knows the tool by, when sanitising is about to change it.
        let names_clean = clean::is_identifier_name(&self.name)
            && self
                .native_name
                .as_deref()
                .is_none_or(|n| n != self.name && clean::is_identifier_name(n));
        let dispatched = (!names_clean).then(|| {
            self.native_name
                .clone()
                .unwrap_or_else(|| self.name.clone())
        });
        if !clean::is_identifier_name(&self.name) {
            let name = identifier_name(&self.name, "tool")
                .map(Cow::into_owned)
                .unwrap_or_else(|| format!("tool_{}", clean::short_hash(&self.name)));
            warnings.push(format!(
                "name {} is not identifier-like (1-64 of A-Z a-z 0-9 _ . -); shown as `{name}`, \
                 the server still gets the original",
                escape_for_report(&self.name, 80)
            ));
            self.name = name;
        }
        if let Some(raw) = self.native_name.take() {
            let native = identifier_name(&raw, "tool").map(Cow::into_owned);
            if native.as_deref().is_some_and(|n| n != raw) {
                warnings.push(format!(
                    "tool_name {} is not identifier-like; shown as `{}`",
                    escape_for_report(&raw, 80),
                    native.as_deref().unwrap_or_default()
                ));
            }
            self.native_name = native.filter(|n| *n != self.name);
        }
        if let Some(dispatched) = dispatched.filter(|d| d != self.short_name()) {
            up.name.get_or_insert(dispatched);
        }
        let d = &self.description;
        let description = (d.len() > MAX_DESCRIPTION_BYTES
            || d.trim().len() != d.len()
            || !clean::is_clean_text(d))
        .then(|| clean_text(d, MAX_DESCRIPTION_BYTES));
        if let Some(description) = description.filter(|c| c != d) {
            if self.description.trim().len() > MAX_DESCRIPTION_BYTES {
                warnings.push(format!(
                    "description of {} bytes was cut to {MAX_DESCRIPTION_BYTES}",
                    self.description.len()
                ));
            } else if !clean::is_clean_text(&self.description) {
                warnings
                    .push("description had hidden characters or line separators removed".into());
            }
            self.description = description;
        }
        if let Some(a) = &mut self.annotations {
            a.title = a.title.as_deref().map(|t| clean_line(t, MAX_TITLE_BYTES));
        }
        self.title = self
            .title
            .as_deref()
            .map(|t| clean_line(t, MAX_TITLE_BYTES));
        let input = schema::sanitize(&mut self.input_schema, "input schema");
        warnings.extend(input.warnings);
        if input.degraded {
            self.schema_note = Some(DEGRADED_SCHEMA_NOTE.into());
        }
        for (shown, original) in input.renamed {
            up.keys.entry(shown).or_insert(original);
        }
        if let Some(output) = &mut self.output_schema {
            let out = schema::sanitize(output, "output schema");
            warnings.extend(out.warnings);
            if out.degraded {
                self.output_schema = None;
            }
        }
        if let Some(note) = &mut self.schema_note {
            *note = clean_text(note, 512);
        }
        self.id = make_id(self.source, self.server.as_deref(), &self.name);
        self.upstream = (!up.is_empty()).then(|| Box::new(up));
        (server_warning, warnings)
    }

    /// The name whose parts describe what the tool does (native name when known).
    pub fn short_name(&self) -> &str {
        self.native_name.as_deref().unwrap_or(&self.name)
    }

    /// The name to send to the tool's own server: [`Tool::short_name`], or the original
    /// when sanitising changed it.
    pub fn upstream_name(&self) -> &str {
        self.upstream
            .as_ref()
            .and_then(|u| u.name.as_deref())
            .unwrap_or_else(|| self.short_name())
    }

    /// The server name as configured: [`Tool::server`], or the original when
    /// sanitising changed it.
    pub fn upstream_server(&self) -> Option<&str> {
        self.upstream
            .as_ref()
            .and_then(|u| u.server.as_deref())
            .or(self.server.as_deref())
    }

    /// `args` with every key that cleaning renamed in the input schema put back as the
    /// tool's server spells it (a no-op for almost every tool).
    pub fn upstream_arguments(&self, mut args: Value) -> Value {
        if let Some(keys) = self
            .upstream
            .as_ref()
            .map(|u| &u.keys)
            .filter(|k| !k.is_empty())
        {
            rename_keys(&mut args, keys, 0);
        }
        args
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

/// Renames object keys found in `keys`, at any depth up to serde_json's own nesting limit.
fn rename_keys(v: &mut Value, keys: &BTreeMap<String, String>, depth: usize) {
    if depth > 128 {
        return;
    }
    match v {
        Value::Object(map) => {
            if map.keys().any(|k| keys.contains_key(k)) {
                let old = std::mem::take(map);
                for (k, child) in old {
                    let k = keys.get(&k).cloned().unwrap_or(k);
                    map.insert(k, child);
                }
            }
            for child in map.values_mut() {
                rename_keys(child, keys, depth + 1);
            }
        }
        Value::Array(items) => {
            for child in items {
                rename_keys(child, keys, depth + 1);
            }
        }
        _ => {}
    }
}

/// `source:server:name`, the stable id format.
pub fn make_id(source: Source, server: Option<&str>, name: &str) -> String {
    format!("{}:{}:{}", source.as_str(), server.unwrap_or(""), name)
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
        assert_eq!(t.upstream_name(), "create\u{0000}_issue\n");
        assert_eq!(t.upstream_server(), Some("git\u{202E}hub"));
    }

    #[test]
    fn long_names_stay_distinct_and_identifier_like() {
        let long = "é".repeat(100);
        let t = Tool::new(Source::Client, None, &long, &long, json!({}));
        assert!(clean::is_identifier_name(&t.name), "{}", t.name);
        assert_eq!(t.upstream_name(), long);
        let a = Tool::new(Source::Client, None, &"n".repeat(90), "", json!({}));
        let b = Tool::new(Source::Client, None, &"n".repeat(91), "", json!({}));
        assert_ne!(a.name, b.name);
        assert!(a.name.len() <= clean::MAX_IDENTIFIER_BYTES);
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

    #[test]
    fn sanitize_is_idempotent_and_maps_renamed_keys_back() {
        let mut t = Tool::new(
            Source::Mcp,
            Some("my server"),
            "do it",
            "d",
            json!({"type": "object", "properties": {"a\u{200b}b": {"type": "string"}}}),
        );
        let before = t.clone();
        assert!(t.sanitize().is_empty());
        assert_eq!(t, before);
        let shown = t.input_schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .next()
            .unwrap()
            .clone();
        let args = t.upstream_arguments(json!({shown.clone(): "x", "other": {shown: 1}}));
        assert_eq!(args, json!({"a\u{200b}b": "x", "other": {"a\u{200b}b": 1}}));
        assert_eq!(t.upstream_name(), "do it");
    }
}
