//! Tool definitions in each provider's shape, with names every provider accepts,
//! and the bridge tools' own definitions.

use serde_json::{json, Value};
use toolsearch_catalog::{listing, Catalog, Tool};

use crate::vocab::{BridgeTool, BRIDGE_TOOLS};

/// The wire shape of tool definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// OpenAI Chat Completions: `{"type": "function", "function": {name, description, parameters}}`.
    OpenAiChat,
    /// OpenAI Responses: `{"type": "function", name, description, parameters, "strict": false}`.
    OpenAiResponses,
    /// Anthropic Messages: `{name, description, input_schema}`.
    Anthropic,
    /// MCP `tools/list`: `{name, description, inputSchema}`.
    Mcp,
    /// Gemini function declarations: `{name, description, parameters}` with the
    /// parameters in Gemini's schema subset (see [`crate::gemini`]); the caller wraps
    /// them in `{"functionDeclarations": [...]}`.
    Gemini,
}

impl Provider {
    /// Every provider shape.
    pub const ALL: [Provider; 5] = [
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Anthropic,
        Provider::Mcp,
        Provider::Gemini,
    ];

    /// The provider's name as configured (`openai_chat`, `openai_responses`,
    /// `anthropic`, `mcp`, `gemini`).
    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAiChat => "openai_chat",
            Provider::OpenAiResponses => "openai_responses",
            Provider::Anthropic => "anthropic",
            Provider::Mcp => "mcp",
            Provider::Gemini => "gemini",
        }
    }

    /// The provider named `name` (as [`Provider::name`] gives it; `-` accepted for `_`).
    pub fn from_name(name: &str) -> Option<Provider> {
        let n = name.replace('-', "_");
        Provider::ALL.into_iter().find(|p| p.name() == n)
    }
}

/// Longest tool name every provider accepts.
pub const MAX_NAME: usize = 64;

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
        Provider::Gemini => crate::gemini::declaration(name, description, schema),
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
pub fn tool_definition(provider: Provider, name: &str, tool: &Tool) -> Value {
    let mut d = definition(provider, name, &tool.description, &tool.input_schema);
    if provider == Provider::Mcp {
        mcp_metadata(&mut d, tool, true);
    }
    d
}

/// Adds `tool`'s title, annotations and (with `output`, for a tool from an
/// MCP server) output schema to its MCP definition `d`.
pub(crate) fn mcp_metadata(d: &mut Value, tool: &Tool, output: bool) {
    let Value::Object(m) = d else { return };
    if let Some(a) = &tool.annotations {
        if let Some(title) = a.title.as_deref().filter(|t| !t.is_empty()) {
            m.insert("title".into(), Value::String(title.to_string()));
        }
        if let Ok(v) = serde_json::to_value(a) {
            if v.as_object().is_some_and(|o| !o.is_empty()) {
                m.insert("annotations".into(), v);
            }
        }
    }
    if output && tool.source == toolsearch_catalog::Source::Mcp {
        if let Some(schema) = &tool.output_schema {
            m.insert("outputSchema".into(), schema.clone());
        }
    }
}

/// `name` with every character a provider does not accept in a name replaced by `_`
/// (at most [`MAX_NAME`] bytes).
pub fn provider_safe(name: &str) -> String {
    toolsearch_catalog::truncate_at_boundary(&sanitize(name), MAX_NAME).to_owned()
}

fn sanitize(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "tool".into()
    } else {
        s
    }
}

/// A short stable hash (FNV-1a) for disambiguating names.
fn short_hash(s: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{:08x}", h as u32)
}

/// Provider names for `tools`, in order: valid characters only, at most 64 long, and
/// unique (`server__name` when two servers share a name, a hash suffix when still
/// ambiguous or too long). Deterministic for the same tools.
pub fn provider_names(tools: &[&Tool]) -> Vec<String> {
    let base: Vec<String> = tools.iter().map(|t| sanitize(t.short_name())).collect();
    // The bridge tools' names are taken: a tool sent under one of them would
    // shadow a bridge tool (or be shadowed), so it is prefixed or shortened.
    let mut counts: std::collections::HashMap<String, usize> =
        BRIDGE_TOOLS.iter().map(|b| (b.to_string(), 1)).collect();
    for b in &base {
        *counts.entry(b.clone()).or_insert(0usize) += 1;
    }
    let mut names: Vec<String> = tools
        .iter()
        .zip(&base)
        .map(|(t, b)| match (&t.server, counts[b] > 1) {
            (Some(server), true) => format!("{}__{b}", sanitize(server)),
            _ => b.clone(),
        })
        .collect();
    let mut seen: std::collections::HashMap<String, usize> =
        BRIDGE_TOOLS.iter().map(|b| (b.to_string(), 1)).collect();
    for n in &names {
        *seen.entry(n.clone()).or_insert(0usize) += 1;
    }
    // Names that are final as they are; a shortened name must differ from all of
    // them (a hash suffix can equal another tool's real name) and from each other.
    let mut taken: std::collections::HashSet<String> = names
        .iter()
        .filter(|n| n.len() <= MAX_NAME && seen[n.as_str()] == 1)
        .cloned()
        .chain(BRIDGE_TOOLS.iter().map(|b| b.to_string()))
        .collect();
    for (name, tool) in names.iter_mut().zip(tools) {
        if name.len() > MAX_NAME || seen[name.as_str()] > 1 {
            let keep = toolsearch_catalog::truncate_at_boundary(name, MAX_NAME - 9).to_string();
            let mut salt = 0u32;
            let mut candidate = format!("{keep}_{}", short_hash(&tool.id));
            while taken.contains(&candidate) {
                salt += 1;
                candidate = format!("{keep}_{}", short_hash(&format!("{}#{salt}", tool.id)));
            }
            taken.insert(candidate.clone());
            *name = candidate;
        }
    }
    names
}

/// A compact, byte-stable listing of what the catalog holds, within `budget` bytes,
/// sent in every prompt inside the bridge tools' descriptions: every tool name when
/// they all fit, else servers with their tool counts (largest first), as many as fit.
///
/// Names and servers are identifier-like (the catalog sanitises them:
/// [`toolsearch_catalog::clean::identifier_name`]), so an entry cannot carry spaces,
/// punctuation or line breaks that would read as an instruction or a new line, and a
/// third-party tool cannot buy a place in a large catalog's listing by its sort order:
/// only servers are listed there.
pub fn listing_text(catalog: &Catalog, budget: usize, allow: &dyn Fn(&Tool) -> bool) -> String {
    let l = listing::overview(catalog, usize::MAX, allow);
    let total = l.total_tools;
    let head = format!("{total} tools. ");
    let names_len: usize = l.tools.iter().map(|t| t.name.len() + 2).sum();
    if head.len() + "Tools: ".len() + names_len <= budget {
        let names: Vec<&str> = l.tools.iter().map(|t| t.name.as_str()).collect();
        return format!("{head}Tools: {}", names.join(", "));
    }
    let mut servers: Vec<(&str, usize)> = catalog
        .tools()
        .iter()
        .filter(|t| allow(t))
        .fold(std::collections::BTreeMap::new(), |mut m, t| {
            *m.entry(t.server.as_deref().unwrap_or(listing::NO_SERVER))
                .or_insert(0usize) += 1;
            m
        })
        .into_iter()
        .collect();
    // Largest servers first, then by name: stable and most informative.
    servers.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let names: Vec<String> = servers.iter().map(|(s, n)| format!("{s}({n})")).collect();
    let mut out = format!("{head}Servers (tools): ");
    let mut shown = 0;
    for n in &names {
        if out.len() + n.len() + 24 > budget {
            break;
        }
        if shown > 0 {
            out.push_str(", ");
        }
        out.push_str(n);
        shown += 1;
    }
    if shown < names.len() {
        out.push_str(&format!(", +{} more", names.len() - shown));
    }
    out
}

const CODE_DESCRIPTION: &str = "Find and use tools by writing the body of an async JavaScript function. \
`await openclaw.tools.search(query, {limit})` -> [{id, name, server, description}] (limit {DEFAULT}, max {MAX}; \
`select:a,b` by name, `+word` requires a word, `server:NAME page:N` one server's tools); \
`await openclaw.tools.describe(id)` -> {id, input_schema, typescript, ...}; \
`await openclaw.tools.call(id, args)` -> the tool's value (structuredContent, else parsed text, else content); \
a call never awaited does not run. No fs, network, timers or imports. \
The answer is the JSON you `return` (tool results you do not return are not shown), then images a tool \
returned, then {logs, search_notes} if any; a failure is {error: {kind, message, line, hint}, calls}. \
Thrown errors carry `code` (UNKNOWN_TOOL, INVALID_ARGS, APPROVAL_DENIED, TIMEOUT, UNAVAILABLE, ...).";

/// Hits per search: when none is asked for, and at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchLimits {
    /// When the caller gives no limit. Default 8.
    pub default: usize,
    /// At most (also the most `select:` names). Default 20.
    pub max: usize,
}

impl Default for SearchLimits {
    fn default() -> Self {
        SearchLimits {
            default: toolsearch_catalog::DEFAULT_LIMIT,
            max: toolsearch_catalog::MAX_LIMIT,
        }
    }
}

/// The `tool_search_code` definition, with a listing of the catalog; its text
/// states `limits`.
pub fn code_tool(listing: &str, limits: SearchLimits) -> (String, Value) {
    let text = CODE_DESCRIPTION
        .replace("{DEFAULT}", &limits.default.to_string())
        .replace("{MAX}", &limits.max.to_string());
    let description = format!("{text} {listing}");
    let schema = json!({
        "type": "object",
        "properties": {"code": {"type": "string", "description": "Body of an async function; `return` the result."}},
        "required": ["code"]
    });
    (description, schema)
}

/// The structured `tool_search`, `tool_describe`, `tool_call` definitions.
pub fn structured_tools(listing: &str, limits: SearchLimits) -> Vec<(BridgeTool, String, Value)> {
    vec![
        (
            BridgeTool::Search,
            format!("Search the tool catalog; returns ids to describe and call. `select:a,b`, `+word`, `server:NAME page:N` work. {listing}"),
            json!({"type": "object", "properties": {
                "query": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "maxItems": 7}]},
                "limit": {"type": "integer", "minimum": 1, "maximum": limits.max},
                "max_results": {"type": "integer", "minimum": 1, "maximum": limits.max},
                "include_schemas": {"type": "boolean"}
            }, "required": ["query"]}),
        ),
        (
            BridgeTool::Describe,
            "Load the full schema (and a TypeScript declaration) of one or several tools by id.".to_string(),
            json!({"type": "object", "properties": {
                "ids": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "maxItems": 20}]},
                "name": {"type": "string"}
            }}),
        ),
        (
            BridgeTool::Call,
            "Call a tool found with tool_search, by id, with its arguments under `arguments` (matching its schema).".to_string(),
            json!({"type": "object", "properties": {
                "id": {"type": "string"},
                "name": {"type": "string"},
                "arguments": {"type": "object"}
            }, "required": ["arguments"]}),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolsearch_catalog::Source;

    fn tool(server: &str, name: &str) -> Tool {
        Tool::new(
            Source::Mcp,
            Some(server),
            name,
            "",
            json!({"type": "object"}),
        )
    }

    #[test]
    fn a_shortened_name_never_equals_another_tools_real_name() {
        // Two servers share a tool name and `server__name` is over 64 bytes, so both
        // are shortened with a hash suffix; a third server's tool is really named
        // exactly like the first shortened form.
        let name = "n".repeat(40);
        let a = tool(&"s".repeat(40), &name);
        let b = tool(&"t".repeat(40), &name);
        let shortened = provider_names(&[&a, &b]).remove(0);
        assert!(shortened.len() <= MAX_NAME && shortened.starts_with("sss"));
        let squatter = tool("z", &shortened);
        for refs in [[&a, &b, &squatter], [&squatter, &b, &a]] {
            let names = provider_names(&refs);
            let unique: std::collections::HashSet<&String> = names.iter().collect();
            assert_eq!(unique.len(), 3, "{names:?}");
            assert!(names.iter().all(|n| n.len() <= MAX_NAME));
        }
        // The squatter keeps its real name; the shortened one moves.
        assert_eq!(provider_names(&[&a, &b, &squatter])[2], shortened);
    }

    #[test]
    fn a_tool_named_like_a_bridge_tool_never_takes_its_name() {
        for bridge in BRIDGE_TOOLS {
            let served = tool("srv", bridge);
            let other = tool("other", "plain");
            let names = provider_names(&[&served, &other]);
            assert_eq!(names[0], format!("srv__{bridge}"), "{names:?}");
            assert_eq!(names[1], "plain");
            // Without a server (a built-in or client tool): shortened with a hash.
            let mut bare = tool("x", bridge);
            bare.server = None;
            let names = provider_names(&[&bare]);
            assert!(!BRIDGE_TOOLS.contains(&names[0].as_str()), "{names:?}");
        }
    }

    #[test]
    fn names_are_valid_unique_and_short() {
        let tools = [
            tool("github", "search"),
            tool("gitlab", "search"),
            tool("x", "a.b/c"),
            tool("y", &"n".repeat(90)),
        ];
        let refs: Vec<&Tool> = tools.iter().collect();
        let names = provider_names(&refs);
        assert_eq!(names[0], "github__search");
        assert_eq!(names[1], "gitlab__search");
        assert_eq!(names[2], "a_b_c");
        assert!(names[3].len() <= MAX_NAME);
        for n in &names {
            assert!(
                n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
                "{n}"
            );
        }
        assert_eq!(provider_names(&refs), names, "deterministic");
    }

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
    fn listing_fits_its_budget_and_is_stable() {
        let c = Catalog::demo();
        let a = listing_text(&c, 300, &|_| true);
        assert!(a.len() <= 300, "{}", a.len());
        assert_eq!(a, listing_text(&c, 300, &|_| true));
        assert!(a.starts_with("40 tools. Servers (tools): "), "{a}");
        let all = listing_text(&c, 4096, &|_| true);
        assert!(all.starts_with("40 tools. Tools: "), "{all}");
    }
}
