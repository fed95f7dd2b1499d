//! The bridge tools' own definitions: `tool_search_code`, the structured
//! `tool_search` / `tool_describe` / `tool_call`, and the catalog listing their
//! descriptions carry.

use serde_json::{json, Value};
use toolsearch_catalog::{listing, Catalog, Tool};

use crate::settings::SearchLimits;
use crate::vocab::BridgeTool;

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
            "Load the full schema of one or several tools by id (`typescript: true` adds a TypeScript declaration).".to_string(),
            json!({"type": "object", "properties": {
                "ids": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "maxItems": 20}]},
                "name": {"type": "string"},
                "typescript": {"type": "boolean"}
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
