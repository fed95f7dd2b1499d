//! `toolsearch search`.

use crate::common::{load_catalog, print_json};
use anyhow::Result;
use std::process::ExitCode;
use toolsearch_catalog::{SearchOptions, DEFAULT_BAND};

#[derive(clap::Args)]
pub struct Args {
    /// Catalog file (JSONL or tool-definition JSON); the embedded demo catalog when omitted.
    #[arg(long)]
    catalog: Option<std::path::PathBuf>,
    /// Results per query (default 8, at most 20; out-of-range values are clamped and reported).
    #[arg(long)]
    limit: Option<usize>,
    /// Keep hits scoring at least this share of the top score.
    #[arg(long, default_value_t = DEFAULT_BAND)]
    band: f32,
    /// Add the score of each ranking rule to every hit.
    #[arg(long)]
    explain: bool,
    /// Fail on the first bad catalog record instead of skipping it.
    #[arg(long)]
    strict: bool,
    #[command(flatten)]
    semantic: crate::semantic::SemanticArgs,
    /// One or more queries (up to 7; their results are merged).
    #[arg(required = true)]
    query: Vec<String>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let loaded = load_catalog(args.catalog.as_deref(), args.strict)?;
    let opts = SearchOptions {
        limit: args.limit,
        band: args.band,
        explain: args.explain,
        ..Default::default()
    };
    let queries: Vec<&str> = args.query.iter().map(String::as_str).collect();
    let sem = args.semantic.load_default(&loaded.catalog)?;
    let ranker = if sem.is_some() { "hybrid" } else { "lexical" };
    // Lexical because no model is installed (not because `--lexical` asked):
    // said in the answer, with the command that installs one.
    let model_note = (sem.is_none() && !args.semantic.lexical_asked())
        .then_some(toolsearch_embed::MISSING_MODEL);
    let result = match sem {
        None => loaded.catalog.search_many(&queries, &opts, &|_| true)?,
        Some(sem) => toolsearch_embed::Hybrid::new(&loaded.catalog, &sem.index, &sem.embedder)?
            .search_many(&queries, &opts, &|_| true)?,
    };
    let mut value = serde_json::to_value(&result)?;
    value["queries"] = serde_json::json!(queries);
    value["ranker"] = serde_json::json!(ranker);
    if let Some(note) = model_note {
        value["model_note"] = serde_json::json!(note);
    }
    value["catalog"] = serde_json::json!({"tools": loaded.catalog.len(), "fingerprint": loaded.catalog.fingerprint()});
    print_json(value)?;
    Ok(ExitCode::SUCCESS)
}
