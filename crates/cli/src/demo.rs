//! `toolsearch demo`: the main job on the embedded default catalog, no files needed.

use crate::common::{print_json, run_snippet};
use anyhow::{Context, Result};
use serde_json::json;
use std::process::ExitCode;
use toolsearch::Policy;
use toolsearch_catalog::{Catalog, SearchOptions};
use toolsearch_sandbox::Limits;

#[derive(clap::Args)]
pub struct Args {}

/// Queries a model would plausibly send while working through a task.
const QUERIES: &[&str] = &[
    "open an issue on github about a crash",
    "+slack post a message to a channel",
    "select:get_forecast,geocode",
    "get_forcast",
    "",
];

pub fn run(_args: Args) -> Result<ExitCode> {
    let catalog = Catalog::demo();
    let opts = SearchOptions {
        limit: Some(3),
        ..Default::default()
    };
    let mut searches = Vec::new();
    for q in QUERIES {
        let r = catalog.search(q, &opts);
        searches.push(json!({"query": q, "result": r}));
    }
    let top = catalog.search(QUERIES[0], &opts);
    let id = &top.hits.first().context("the demo query found nothing")?.id;
    let described = catalog.describe(id).context("a hit can be described")?;
    // Code mode end to end: the snippet a model would send as `tool_search_code`.
    let code_mode = run_snippet(
        catalog.clone(),
        Policy::default(),
        Limits::default(),
        crate::common::SNIPPET.as_bytes(),
        // The default for model-written code: a worker process under the OS layer.
        toolsearch_sandbox::Isolation::Process(crate::common::worker_command()?),
    )?;
    print_json(json!({
        "catalog": {"tools": catalog.len(), "servers": catalog.servers().len(), "fingerprint": catalog.fingerprint()},
        "searches": searches,
        "describe": {"id": id, "typescript": described.typescript},
        "code_mode": {"snippet": crate::common::SNIPPET.trim(), "result": code_mode},
    }))?;
    Ok(ExitCode::SUCCESS)
}
