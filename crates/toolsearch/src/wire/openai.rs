//! OpenAI Responses' native tool search: deferred functions grouped into
//! namespaces by server (at most [`NAMESPACE_SIZE`] functions each, as the
//! provider advises), in the request's list and in each `tool_search_output`.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::plan::names::{provider_safe, MAX_NAME};
use crate::plan::Plan;
use crate::vocab::Provider;

/// Most functions per OpenAI namespace (the provider advises fewer than 10).
pub const NAMESPACE_SIZE: usize = 9;

/// One OpenAI namespace of the deferred tools: its name, description and members
/// (indexes into `plan.visible`).
pub(crate) struct Namespace {
    name: String,
    description: String,
    members: Vec<usize>,
}

/// The namespaces of the deferred tools (`deferred`, indexes into `plan.visible`):
/// one per server (client tools under `tools`), split in parts of at most
/// [`NAMESPACE_SIZE`]; every name distinct (a server really named like another's
/// part, or `tools`, gets a suffix). Made from the plan alone, so the request's
/// list and every `tool_search_output` name the same namespaces.
pub(crate) fn layout(plan: &Plan, deferred: &[usize]) -> Vec<Namespace> {
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
        .map(|s| provider_safe(s))
        .collect();
    let mut taken: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (server, tools) in by_server {
        let label = server.unwrap_or("tools");
        let parts = tools.chunks(NAMESPACE_SIZE).count();
        for (k, chunk) in tools.chunks(NAMESPACE_SIZE).enumerate() {
            let own = k == 0 && server.is_some();
            let base = if k == 0 {
                provider_safe(label)
            } else {
                provider_safe(&format!("{label}_{}", k + 1))
            };
            let free = |n: &String| !taken.contains(n) && (own || !reserved.contains(n));
            let mut name = base.clone();
            let mut n = 2usize;
            while !free(&name) {
                let suffix = format!("_{n}");
                let keep = toolsearch_catalog::truncate_at_boundary(&base, MAX_NAME - suffix.len());
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
pub(crate) fn namespaces(
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
                    let mut f = super::definition(
                        Provider::OpenAiResponses,
                        &names[i],
                        &t.description,
                        &super::canonical(&t.input_schema),
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
