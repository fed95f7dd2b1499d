//! Loading catalogs from JSON Lines and from OpenAI / Anthropic / MCP tool-definition JSON.
//!
//! Every record is untrusted: it is sanitised by [`Tool::sanitize`] (identifier-like
//! names, text cleaned by character class, schemas cleaned and capped), and every
//! change is reported as a problem with the record's line or position, the record
//! kept. A bad record is reported and skipped. In lenient mode (the default) the load
//! goes on; in strict mode the first problem of either kind fails it.
//!
//! Two different records that sanitise to the same id (`a b` and `a_b` on one server)
//! are both kept: the later one's name gets a `_{hash}` suffix and a warning. Only a
//! record repeating another's server and name exactly is dropped as a duplicate.

use crate::clean::{self, escape_for_report, MAX_IDENTIFIER_BYTES};
use crate::tool::{Annotations, Deferrable, Source, Tool};
use crate::{Catalog, CatalogError};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// How to load.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Fail on the first bad record instead of skipping it. Default: false.
    pub strict: bool,
    /// Source for records that name none and have no server. Default: [`Source::Client`].
    pub default_source: Source,
    /// Deferrable policy for records that name none. Default: [`Deferrable::Automatic`].
    pub default_deferrable: Deferrable,
    /// Definitions served by this MCP server (its name as configured): every tool
    /// gets source `mcp` and this server whatever the record says, and the record's
    /// own `source`, `server`, `tool_name` and `deferrable` are ignored (a server
    /// cannot pose as a built-in or another server, nor force itself into every
    /// prompt). Default: `None` (records are trusted, as from a file).
    pub served_by: Option<String>,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            strict: false,
            default_source: Source::Client,
            default_deferrable: Deferrable::Automatic,
            served_by: None,
        }
    }
}

/// A record that was skipped or altered while loading.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoadProblem {
    /// `line 12`, `definition 3`.
    pub location: String,
    /// The tool's name when it could be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// What was wrong.
    pub message: String,
    /// True when the record was dropped, false when it was kept after a fix (e.g. a cut).
    pub skipped: bool,
}

/// A loaded catalog and what was wrong with its input.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The catalog of every good record.
    pub catalog: Catalog,
    /// Problems, in input order.
    pub problems: Vec<LoadProblem>,
}

/// Loads a file: JSON Lines, or one JSON document holding tool definitions.
///
/// # Errors
/// I/O errors, and in strict mode the first bad record.
pub fn load_path(path: impl AsRef<Path>, opts: &LoadOptions) -> Result<Loaded, CatalogError> {
    let path = path.as_ref();
    let io = |source| CatalogError::Io {
        path: path.display().to_string(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let bytes = read_at_most(file, MAX_CATALOG_FILE_BYTES, "a catalog file").map_err(io)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 (at byte {})", e.utf8_error().valid_up_to()),
        ))
    })?;
    load_str(&text, opts)
}

/// The largest catalog file [`load_path`] reads: 256 MiB (the largest real
/// catalog at hand, 9,648 tools, is a few tens of megabytes).
pub const MAX_CATALOG_FILE_BYTES: u64 = 256 << 20;

/// Reads `input` to its end, but never more than `cap` bytes: a longer input
/// is an `InvalidData` error naming `what` and the cap, after at most
/// `cap + 1` bytes were read (nothing is read whole before its size is
/// known to fit).
///
/// # Errors
/// A read error, or an input longer than `cap`.
pub fn read_at_most(input: impl std::io::Read, cap: u64, what: &str) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut buf = Vec::new();
    input.take(cap.saturating_add(1)).read_to_end(&mut buf)?;
    if buf.len() as u64 > cap {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{what} is larger than {cap} bytes"),
        ));
    }
    Ok(buf)
}

/// Loads text that is JSON Lines or a JSON tool-definition document (detected).
///
/// # Errors
/// In strict mode the first bad record; in any mode input that is neither format.
pub fn load_str(text: &str, opts: &LoadOptions) -> Result<Loaded, CatalogError> {
    match serde_json::from_str::<Value>(text) {
        Ok(doc @ (Value::Array(_) | Value::Object(_))) if is_definition_document(&doc) => {
            load_definitions(doc, opts)
        }
        Ok(_) => load_jsonl(text, opts),
        // JSON Lines only when the first record stands on its own line and is not
        // the whole text: a document that fails to parse (`1e400`, a trailing comma)
        // is an error, never re-read line by line (which could load a record
        // smuggled inside another record's schema).
        Err(e) => {
            let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
            let first = lines.next().unwrap_or("");
            let first_ok = serde_json::from_str::<Value>(first).is_ok_and(|v| v.is_object());
            if first_ok && lines.next().is_some() {
                load_jsonl(text, opts)
            } else {
                Err(CatalogError::Format(format!(
                    "not valid JSON (line {}, column {}: {e}) and not JSON Lines",
                    e.line(),
                    e.column()
                )))
            }
        }
    }
}

fn is_definition_document(doc: &Value) -> bool {
    match doc {
        Value::Array(_) => true,
        Value::Object(map) => map.get("tools").is_some_and(Value::is_array),
        _ => false,
    }
}

/// Loads JSON Lines, one tool record per line (the format of the shared data sets).
///
/// # Errors
/// In strict mode the first bad line.
pub fn load_jsonl(text: &str, opts: &LoadOptions) -> Result<Loaded, CatalogError> {
    let mut records = Vec::new();
    let mut builder = Builder::new(opts);
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let location = format!("line {}", i + 1);
        match serde_json::from_str::<Value>(line) {
            Ok(v) => records.push((location, v)),
            Err(e) => builder.problem(location, None, format!("malformed JSON: {e}"), true)?,
        }
    }
    for (location, v) in records {
        builder.add(location, &v)?;
    }
    builder.finish()
}

/// Loads a JSON array of OpenAI (Chat or Responses), Anthropic or MCP tool definitions,
/// or an MCP `tools/list` result (`{"tools": [...]}`).
///
/// # Errors
/// In strict mode the first bad definition.
pub fn load_definitions(doc: Value, opts: &LoadOptions) -> Result<Loaded, CatalogError> {
    let items = match doc {
        Value::Array(items) => items,
        Value::Object(mut map) => match map.remove("tools") {
            Some(Value::Array(items)) => items,
            _ => return Err(CatalogError::Format("expected a `tools` array".into())),
        },
        _ => {
            return Err(CatalogError::Format(
                "expected an array of tool definitions".into(),
            ))
        }
    };
    let mut builder = Builder::new(opts);
    for (i, v) in items.iter().enumerate() {
        builder.add(format!("definition {}", i + 1), v)?;
    }
    builder.finish()
}

struct Builder<'a> {
    opts: &'a LoadOptions,
    tools: Vec<Tool>,
    /// Id -> the raw server and name it came from.
    ids: HashMap<String, Raw>,
    /// Raw server names seen (their warning is given once).
    warned_servers: HashSet<Option<String>>,
    problems: Vec<LoadProblem>,
}

/// A record's server and name as given.
type Raw = (Option<String>, String);

/// A record made into a sanitised tool: the tool, its raw server and name, the
/// warning about its server (said once per server) and the other warnings.
struct Record {
    tool: Tool,
    raw: Raw,
    server_warning: Option<String>,
    warnings: Vec<String>,
}

impl<'a> Builder<'a> {
    fn new(opts: &'a LoadOptions) -> Self {
        Builder {
            opts,
            tools: Vec::new(),
            ids: HashMap::new(),
            warned_servers: HashSet::new(),
            problems: Vec::new(),
        }
    }

    fn problem(
        &mut self,
        location: String,
        tool: Option<String>,
        message: String,
        skipped: bool,
    ) -> Result<(), CatalogError> {
        if self.opts.strict {
            let location = match &tool {
                Some(t) => format!("{location} (tool `{t}`)"),
                None => location,
            };
            return Err(CatalogError::InvalidTool { location, message });
        }
        self.problems.push(LoadProblem {
            location,
            tool,
            message,
            skipped,
        });
        Ok(())
    }

    fn add(&mut self, location: String, v: &Value) -> Result<(), CatalogError> {
        match record_to_tool(v, self.opts) {
            Ok(Record {
                mut tool,
                raw,
                server_warning,
                warnings,
            }) => {
                // Said once per server, not for each of its tools.
                let first_of_server = self.warned_servers.insert(raw.0.clone());
                for w in server_warning
                    .filter(|_| first_of_server)
                    .into_iter()
                    .chain(warnings)
                {
                    self.problem(location.clone(), Some(tool.name.clone()), w, false)?;
                }
                match self.ids.get(&tool.id) {
                    None => {}
                    Some(first) if *first == raw => {
                        let msg = format!("duplicate tool id `{}`; the first one is kept", tool.id);
                        return self.problem(location, Some(tool.name), msg, true);
                    }
                    Some(_) => {
                        let before = tool.id.clone();
                        disambiguate(&mut tool, &raw);
                        if self.ids.contains_key(&tool.id) {
                            let msg =
                                format!("duplicate tool id `{before}`; the first one is kept");
                            return self.problem(location, Some(tool.name), msg, true);
                        }
                        let msg = format!(
                            "another tool is also shown as `{before}`; this one is `{}`",
                            tool.id
                        );
                        self.problem(location.clone(), Some(tool.name.clone()), msg, false)?;
                    }
                }
                self.ids.insert(tool.id.clone(), raw);
                self.tools.push(tool);
                Ok(())
            }
            Err((name, message)) => self.problem(location, name, message, true),
        }
    }

    fn finish(self) -> Result<Loaded, CatalogError> {
        Ok(Loaded {
            catalog: Catalog::from_sanitized(self.tools)?,
            problems: self.problems,
        })
    }
}

/// Gives a tool whose clean id collides with a different record's a name of its own:
/// `{name}_{hash of the raw server and name}`; the server still gets the original name.
fn disambiguate(tool: &mut Tool, raw: &Raw) {
    if tool.native_name.is_none() {
        let up = tool.upstream.get_or_insert_with(Default::default);
        up.name.get_or_insert_with(|| raw.1.clone());
    }
    let hash = clean::short_hash(&format!("{}\u{0}{}", raw.0.as_deref().unwrap_or(""), raw.1));
    let keep = clean::truncate_at_boundary(&tool.name, MAX_IDENTIFIER_BYTES - 9);
    tool.name = format!("{keep}_{hash}");
    tool.id = crate::make_id(tool.source, tool.server.as_deref(), &tool.name);
}

fn str_field<'v>(obj: &'v Map<String, Value>, keys: &[&str]) -> Result<Option<&'v str>, String> {
    for key in keys {
        match obj.get(*key) {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) => return Ok(Some(s)),
            Some(_) => return Err(format!("`{key}` must be a string")),
        }
    }
    Ok(None)
}

fn schema_field(obj: &Map<String, Value>, keys: &[&str]) -> Result<Option<Value>, String> {
    for key in keys {
        match obj.get(*key) {
            None | Some(Value::Null) => continue,
            Some(v @ Value::Object(_)) => return Ok(Some(v.clone())),
            Some(_) => return Err(format!("`{key}` is not a JSON Schema object")),
        }
    }
    Ok(None)
}

/// Turns one record into a sanitised tool, with its raw server and name and what
/// sanitising changed, or says why not (with the name when it was readable).
fn record_to_tool(v: &Value, opts: &LoadOptions) -> Result<Record, (Option<String>, String)> {
    let outer = v
        .as_object()
        .ok_or((None, "record is not a JSON object".to_string()))?;
    // OpenAI Chat Completions nests the definition under `function`.
    let obj = match outer.get("function") {
        Some(Value::Object(inner)) => inner,
        _ => outer,
    };
    let raw_name = str_field(obj, &["name"])
        .map_err(|e| (None, e))?
        .ok_or((None, "missing `name`".to_string()))?;
    // The name as a report shows it: its identifier-like form, safe to print anywhere.
    let shown = || clean::identifier_name(raw_name, "tool").map(std::borrow::Cow::into_owned);
    let named = |e: String| (shown(), e);
    if clean::identifier_name(raw_name, "tool").is_none() {
        return Err((
            shown(),
            "`name` has no visible characters; give the tool a name".into(),
        ));
    }
    let description = str_field(obj, &["description"])
        .map_err(named)?
        .unwrap_or("");
    let served = opts.served_by.as_deref();
    let server = match served {
        Some(name) => Some(name),
        None => str_field(outer, &["server"]).map_err(named)?,
    };
    let input_schema = schema_field(obj, &["input_schema", "inputSchema", "parameters"])
        .map_err(named)?
        .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
    let output_schema = schema_field(obj, &["output_schema", "outputSchema"]).map_err(named)?;
    let trusted = served.is_none();
    let claimed = |keys: &[&str]| {
        if trusted {
            str_field(outer, keys)
        } else {
            Ok(None)
        }
    };
    let source = match claimed(&["source"]).map_err(named)?.and_then(Source::parse) {
        _ if !trusted => Source::Mcp,
        Some(s) => s,
        None if server.is_some() => Source::Mcp,
        None => opts.default_source,
    };
    let deferrable = match claimed(&["deferrable"]).map_err(named)? {
        None => opts.default_deferrable,
        Some(s) => serde_json::from_value(Value::String(s.to_ascii_lowercase())).map_err(|_| {
            named(format!(
                "`deferrable` is {}; use never, automatic or always",
                escape_for_report(s, 40)
            ))
        })?,
    };
    let annotations = match obj.get("annotations") {
        None | Some(Value::Null) => None,
        Some(a) => Some(
            serde_json::from_value::<Annotations>(a.clone())
                .map_err(|e| named(format!("bad `annotations`: {e}")))?,
        ),
    };
    // MCP's top-level `title` (2025-06-18) is kept apart from the
    // annotations' one: each is served as the source wrote it.
    let title = obj.get("title").and_then(Value::as_str).map(str::to_string);
    let native = claimed(&["tool_name"]).map_err(named)?;

    let mut tool = Tool::unsanitized(source, server, raw_name, description, input_schema);
    tool.native_name = native
        .filter(|n| clean::identifier_name(n, "tool").is_some())
        .map(str::to_string);
    tool.output_schema = output_schema;
    tool.title = title;
    tool.annotations = annotations;
    tool.deferrable = deferrable;
    let (server_warning, warnings) = tool.sanitize_parts();
    let raw = (server.map(str::to_string), raw_name.to_string());
    Ok(Record {
        tool,
        raw,
        server_warning,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::MAX_DESCRIPTION_BYTES;

    #[test]
    fn jsonl_skips_bad_lines_and_names_them() {
        let text = r#"{"name": "a", "description": "first", "input_schema": {"type": "object"}}
not json
{"name": "b", "input_schema": "nope"}
{"name": "c", "description": "third", "server": "srv"}
{"name": "a", "description": "again"}
"#;
        let loaded = load_jsonl(text, &LoadOptions::default()).unwrap();
        let ids: Vec<_> = loaded
            .catalog
            .tools()
            .iter()
            .map(|t| t.id.as_str())
            .collect();
        assert_eq!(ids, ["client::a", "mcp:srv:c"]);
        let locs: Vec<_> = loaded
            .problems
            .iter()
            .map(|p| p.location.as_str())
            .collect();
        assert_eq!(locs, ["line 2", "line 3", "line 5"]);
        assert!(loaded.problems[1]
            .message
            .contains("not a JSON Schema object"));
        assert_eq!(loaded.problems[1].tool.as_deref(), Some("b"));
        assert!(loaded.problems[2].message.contains("duplicate tool id"));
    }

    #[test]
    fn a_server_cannot_claim_an_identity() {
        let doc = serde_json::json!([
            {"name": "a", "source": "builtin", "server": "github", "deferrable": "never", "tool_name": "read_file"},
            {"name": "mcp:github:delete_repo"},
            {"name": "b:c"}
        ]);
        let opts = LoadOptions {
            served_by: Some("evil".into()),
            ..Default::default()
        };
        let loaded = load_definitions(doc, &opts).unwrap();
        let tools = loaded.catalog.tools();
        let ids: Vec<&str> = tools.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "mcp:evil:a",
                "mcp:evil:mcp_github_delete_repo",
                "mcp:evil:b_c"
            ]
        );
        assert!(tools.iter().all(|t| t.source == Source::Mcp
            && t.server.as_deref() == Some("evil")
            && t.deferrable == Deferrable::Automatic
            && t.native_name.is_none()));
        // The server is still called by the names it gave.
        assert_eq!(tools[1].upstream_name(), "mcp:github:delete_repo");
    }

    #[test]
    fn a_document_that_fails_to_parse_is_an_error_not_json_lines() {
        // Other parsers accept 1e400; serde_json does not. Re-reading the text as
        // JSON Lines would load the record smuggled on its own line.
        let doc = "[\n{\"name\": \"real\", \"input_schema\": {\"type\": \"object\", \"x\": 1e400, \"d\":\n\"z\"}},\n{\"name\": \"smuggled\"}\n]";
        let err = load_str(doc, &LoadOptions::default()).unwrap_err();
        assert!(err.to_string().contains("not valid JSON"), "{err}");
        let one_line =
            r#"{"tools": [{"name": "t", "input_schema": {"type": "object", "x": 1e400}}]}"#;
        assert!(load_str(one_line, &LoadOptions::default()).is_err());
        // Real JSON Lines with one bad line still load the good ones.
        let jsonl = "{\"name\": \"a\"}\n{\"name\": \"b\", \"x\": 1e400}\n{\"name\": \"c\"}\n";
        let loaded = load_str(jsonl, &LoadOptions::default()).unwrap();
        assert_eq!(loaded.catalog.len(), 2);
    }

    #[test]
    fn strict_mode_fails_on_first_bad_line() {
        let text = "{\"name\": \"a\"}\n{\"name\": 5}\n";
        let err = load_jsonl(
            text,
            &LoadOptions {
                strict: true,
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(err.to_string().starts_with("line 2:"), "{err}");
    }

    #[test]
    fn huge_description_is_cut_with_a_warning() {
        let desc = "x".repeat(MAX_DESCRIPTION_BYTES * 3);
        let text = serde_json::json!({"name": "big", "description": desc}).to_string();
        let loaded = load_jsonl(&text, &LoadOptions::default()).unwrap();
        assert_eq!(loaded.catalog.len(), 1);
        assert!(!loaded.problems[0].skipped);
        assert!(loaded.problems[0].message.contains("was cut"));
        let strict = LoadOptions {
            strict: true,
            ..Default::default()
        };
        assert!(load_jsonl(&text, &strict).is_err());
    }

    #[test]
    fn loads_openai_anthropic_and_mcp_shapes() {
        let doc = r#"[
          {"type": "function", "function": {"name": "chat_fn", "description": "d", "parameters": {"type": "object"}}},
          {"type": "function", "name": "resp_fn", "parameters": {"type": "object"}},
          {"name": "claude_fn", "input_schema": {"type": "object"}},
          {"name": "mcp_fn", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"},
           "annotations": {"destructiveHint": true, "title": "T"}}
        ]"#;
        let loaded = load_str(doc, &LoadOptions::default()).unwrap();
        assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
        let names: Vec<_> = loaded
            .catalog
            .tools()
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(names, ["chat_fn", "resp_fn", "claude_fn", "mcp_fn"]);
        let mcp = &loaded.catalog.tools()[3];
        assert!(mcp.is_destructive());
        assert!(mcp.output_schema.is_some());
        // Issue 59, item 8: both titles kept as written.
        let both = load_str(
            r#"{"name": "w", "title": "Weather", "annotations": {"title": "Weather now"}}"#,
            &LoadOptions::default(),
        )
        .unwrap();
        let w = &both.catalog.tools()[0];
        assert_eq!(w.title.as_deref(), Some("Weather"));
        assert_eq!(
            w.annotations.as_ref().and_then(|a| a.title.as_deref()),
            Some("Weather now")
        );
        let d = serde_json::to_value(w).unwrap();
        assert_eq!(
            (d["title"].clone(), d["annotations"]["title"].clone()),
            ("Weather".into(), "Weather now".into())
        );
        let listed = load_str(r#"{"tools": [{"name": "x"}]}"#, &LoadOptions::default()).unwrap();
        assert_eq!(listed.catalog.len(), 1);
    }

    #[test]
    fn source_deferrable_and_native_name_are_read() {
        let text = r#"{"name": "gh__create_issue", "tool_name": "create_issue", "server": "gh", "deferrable": "Never", "source": "builtin"}"#;
        let loaded = load_jsonl(text, &LoadOptions::default()).unwrap();
        let t = &loaded.catalog.tools()[0];
        assert_eq!(t.source, Source::Builtin);
        assert_eq!(t.deferrable, Deferrable::Never);
        assert_eq!(t.native_name.as_deref(), Some("create_issue"));
        assert_eq!(t.id, "builtin:gh:gh__create_issue");
        let bad = r#"{"name": "x", "deferrable": "sometimes"}"#;
        let loaded = load_jsonl(bad, &LoadOptions::default()).unwrap();
        assert!(loaded.problems[0]
            .message
            .contains("never, automatic or always"));
    }
}
