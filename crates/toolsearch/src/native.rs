//! Native mode: the provider hosts tool search. Deferred tools are sent in full with
//! `defer_loading: true` beside the provider's search tool, and the provider keeps
//! them out of the prompt until a search loads them.
//!
//! - **Anthropic** (beta header [`ANTHROPIC_BETA`]): the hosted
//!   `tool_search_tool_bm25_20251119` / `tool_search_tool_regex_20251119`, or (the
//!   default) our own `tool_search` as a client tool whose answer is
//!   `tool_reference` blocks: our ranking, policy and telemetry pick what loads.
//! - **OpenAI Responses**: `{"type": "tool_search"}`, hosted or (the default)
//!   `execution: "client"`, with deferred functions grouped into namespaces by
//!   server (at most [`NAMESPACE_SIZE`] functions each, as the provider advises);
//!   a `tool_search_call` item is answered by [`ToolSearch::answer_tool_search`]
//!   with a `tool_search_output` carrying the matched functions.
//!
//! Other providers host no search: `native` there is refused at build, and `auto`
//! sends code mode.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::defs::{self, Provider, SearchLimits};
use crate::facade::{Session, ToolSearch};
use crate::host::Scope;
use crate::plan::Plan;

/// The Anthropic beta header the tool-search tool launched behind.
pub const ANTHROPIC_BETA: &str = "advanced-tool-use-2025-11-20";
/// Most functions per OpenAI namespace (the provider advises fewer than 10).
pub const NAMESPACE_SIZE: usize = 9;

pub use crate::modes::{hosts_search as supported, NativeSearch, NativeSettings};

/// What native mode sends.
pub(crate) struct NativeList {
    pub tools: Vec<Value>,
    /// Definitions the model sees in full up front (the deferred ones are loaded
    /// by the provider on search).
    pub full: usize,
}

const SEARCH_DESCRIPTION: &str = "Search the deferred tools by task or by exact name; the \
matching tools are loaded and can then be called directly.";

fn search_schema(limits: SearchLimits) -> Value {
    json!({"type": "object", "properties": {
        "query": {"type": "string", "description": "The task, or a tool's exact name"},
        "limit": {"type": "integer", "minimum": 1, "maximum": limits.max}
    }, "required": ["query"]})
}

/// The list of one turn in native mode: the tools sent in full, the search tool,
/// then the deferred tools (stable order, so the prompt cache holds).
pub(crate) fn native_list(
    plan: &Plan,
    provider: Provider,
    settings: &NativeSettings,
    limits: SearchLimits,
) -> NativeList {
    let names = plan.all_names();
    let mut tools = plan.full(provider, &names, &plan.direct);
    let deferred = plan.deferred();
    match provider {
        Provider::OpenAiResponses => {
            tools.push(match settings.search {
                NativeSearch::Client => json!({
                    "type": "tool_search",
                    "execution": "client",
                    "description": SEARCH_DESCRIPTION,
                    "parameters": search_schema(limits),
                }),
                NativeSearch::Hosted | NativeSearch::HostedRegex => json!({"type": "tool_search"}),
            });
            tools.extend(namespaces(plan, &names, &layout(plan, &deferred), &|_| {
                true
            }));
        }
        Provider::Anthropic => {
            tools.push(match settings.search {
                NativeSearch::Client => defs::definition(
                    provider,
                    crate::vocab::BridgeTool::Search.name(),
                    SEARCH_DESCRIPTION,
                    &search_schema(limits),
                ),
                NativeSearch::Hosted => {
                    json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
                }
                NativeSearch::HostedRegex => {
                    json!({"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"})
                }
            });
            for &i in &deferred {
                let t = &plan.visible[i];
                let mut d = defs::definition(provider, &names[i], &t.description, &t.input_schema);
                d["defer_loading"] = Value::Bool(true);
                tools.push(d);
            }
        }
        // No hosted search: `ToolSearch::shape` never picks native for these.
        Provider::OpenAiChat | Provider::Gemini | Provider::Mcp => {}
    }
    NativeList {
        tools,
        full: plan.direct.len(),
    }
}

/// One OpenAI namespace of the deferred tools: its name, description and members
/// (indexes into `plan.visible`).
struct Namespace {
    name: String,
    description: String,
    members: Vec<usize>,
}

/// The namespaces of the deferred tools (`deferred`, indexes into `plan.visible`):
/// one per server (client tools under `tools`), split in parts of at most
/// [`NAMESPACE_SIZE`]; every name distinct (a server really named like another's
/// part, or `tools`, gets a suffix). Made from the plan alone, so the request's
/// list and every `tool_search_output` name the same namespaces.
fn layout(plan: &Plan, deferred: &[usize]) -> Vec<Namespace> {
    let mut by_server: BTreeMap<Option<&str>, Vec<usize>> = BTreeMap::new();
    for &i in deferred {
        by_server
            .entry(plan.visible[i].server.as_deref())
            .or_default()
            .push(i);
    }
    // Real server names are reserved first, so a server keeps its own name when a
    // part or the client tools would take it; any name already given gets a
    // numbered suffix within the provider's length (two servers whose names clean
    // to the same, a 64-byte name).
    let reserved: std::collections::HashSet<String> = by_server
        .keys()
        .flatten()
        .map(|s| defs::provider_safe(s))
        .collect();
    let mut taken: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (server, tools) in by_server {
        let label = server.unwrap_or("tools");
        let parts = tools.chunks(NAMESPACE_SIZE).count();
        for (k, chunk) in tools.chunks(NAMESPACE_SIZE).enumerate() {
            let own = k == 0 && server.is_some();
            let base = if k == 0 {
                defs::provider_safe(label)
            } else {
                defs::provider_safe(&format!("{label}_{}", k + 1))
            };
            let free = |n: &String| !taken.contains(n) && (own || !reserved.contains(n));
            let mut name = base.clone();
            let mut n = 2usize;
            while !free(&name) {
                let suffix = format!("_{n}");
                let keep =
                    toolsearch_catalog::truncate_at_boundary(&base, defs::MAX_NAME - suffix.len());
                name = format!("{keep}{suffix}");
                n += 1;
            }
            taken.insert(name.clone());
            let description = match (server, parts) {
                (None, _) => "Tools of this application".to_string(),
                (Some(s), 1) => format!("Tools of `{s}`"),
                (Some(s), _) => format!("Tools of `{s}` (part {} of {parts})", k + 1),
            };
            out.push(Namespace {
                name,
                description,
                members: chunk.to_vec(),
            });
        }
    }
    out
}

/// `namespaces` in OpenAI's shape, each with only its members `keep` admits
/// (namespaces left empty are dropped), every function `defer_loading`.
fn namespaces(
    plan: &Plan,
    names: &[String],
    namespaces: &[Namespace],
    keep: &dyn Fn(usize) -> bool,
) -> Vec<Value> {
    namespaces
        .iter()
        .filter_map(|ns| {
            let functions: Vec<Value> = ns
                .members
                .iter()
                .filter(|&&i| keep(i))
                .map(|&i| {
                    let t = &plan.visible[i];
                    let mut f = defs::definition(
                        Provider::OpenAiResponses,
                        &names[i],
                        &t.description,
                        &t.input_schema,
                    );
                    f["defer_loading"] = Value::Bool(true);
                    f
                })
                .collect();
            (!functions.is_empty()).then(|| {
                json!({
                    "type": "namespace",
                    "name": ns.name,
                    "description": ns.description,
                    "tools": functions,
                })
            })
        })
        .collect()
}

/// The answer of our `tool_search` in native mode for `provider`: Anthropic's
/// `tool_reference` blocks (a `tool_result` content). `None` for providers whose
/// search does not come as a function call.
pub(crate) fn search_answer(
    ts: &ToolSearch,
    scope: &Scope,
    provider: Provider,
    ids: &[String],
) -> Option<Value> {
    match provider {
        Provider::Anthropic => {}
        // A `tool_search_call` item, answered by `ToolSearch::answer_tool_search`.
        Provider::OpenAiResponses => return None,
        Provider::OpenAiChat | Provider::Gemini | Provider::Mcp => return None,
    }
    let plan = ts.plan(scope, false);
    let names = plan.all_names();
    let blocks: Vec<Value> = ids
        .iter()
        .filter_map(|id| plan.visible.iter().position(|t| &t.id == id))
        .map(|i| json!({"type": "tool_reference", "tool_name": names[i]}))
        .collect();
    Some(if blocks.is_empty() {
        json!([{"type": "text", "text": "No tool matched; try other words or a tool's exact name."}])
    } else {
        Value::Array(blocks)
    })
}

impl ToolSearch {
    /// Answers an OpenAI Responses `tool_search_call` item (client execution) with the
    /// `tool_search_output` item to send back: the matched functions, in their
    /// namespaces, ranked by our search within the session's scope.
    pub fn answer_tool_search(&self, session: &Session, call: &Value) -> Value {
        let args = match &call["arguments"] {
            Value::String(text) => serde_json::from_str(text).unwrap_or(Value::Null),
            v => v.clone(),
        };
        let query = args["query"]
            .as_str()
            .or(args["goal"].as_str())
            .unwrap_or_default()
            .to_owned();
        let limit = args["limit"].as_u64().map(|l| l as usize);
        let scope = Self::scope(session);
        let ids: Vec<String> = self
            .host
            .search(&[query.as_str()], limit, &scope)
            .ok()
            .and_then(|v| {
                v["hits"].as_array().map(|hits| {
                    hits.iter()
                        .filter_map(|h| h["id"].as_str().map(String::from))
                        .collect()
                })
            })
            .unwrap_or_default();
        let plan = self.plan(&scope, false);
        let names = plan.all_names();
        let found: std::collections::HashSet<usize> = ids
            .iter()
            .filter_map(|id| plan.visible.iter().position(|t| &t.id == id))
            .collect();
        // The request's namespaces, as they were declared, each with the functions
        // found in it; tools sent in full are loaded already and not repeated.
        let layout = layout(&plan, &plan.deferred());
        json!({
            "type": "tool_search_output",
            "call_id": call["call_id"],
            "execution": "client",
            "status": "completed",
            "tools": namespaces(&plan, &names, &layout, &|i| found.contains(&i)),
        })
    }
}
