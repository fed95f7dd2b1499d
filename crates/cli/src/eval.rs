//! `toolsearch eval`.

use crate::common::{load_catalog, print_json};
use anyhow::{Context, Result};
use std::path::PathBuf;
use std::process::ExitCode;
use toolsearch_catalog::eval::{evaluate, parse_queries};
use toolsearch_catalog::{SearchOptions, DEFAULT_BAND};

#[derive(clap::Args)]
pub struct Args {
    /// Catalog file; the embedded demo catalog when omitted.
    #[arg(long)]
    catalog: Option<std::path::PathBuf>,
    /// Labelled queries (JSONL with `query` and `relevant` or `relevant_groups`).
    #[arg(long)]
    queries: PathBuf,
    /// The k of recall@k.
    #[arg(long, default_value_t = 5)]
    k: usize,
    /// Top band used while searching.
    #[arg(long, default_value_t = DEFAULT_BAND)]
    band: f32,
    /// Score only the first N queries.
    #[arg(long)]
    max_queries: Option<usize>,
    /// Also score the plain-BM25 reference on the same queries and print the ratios.
    #[arg(long)]
    baseline: bool,
    /// Print JSON (the only output format; accepted for scripts that pass it).
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    anyhow::ensure!((1..=20).contains(&args.k), "--k must be between 1 and 20");
    let loaded = load_catalog(args.catalog.as_deref(), false)?;
    let text = std::fs::read_to_string(&args.queries)
        .with_context(|| format!("reading queries {}", args.queries.display()))?;
    let mut queries =
        parse_queries(&text).with_context(|| format!("in {}", args.queries.display()))?;
    if let Some(n) = args.max_queries {
        queries.truncate(n);
    }
    let opts = SearchOptions {
        band: args.band,
        ..Default::default()
    };
    let report = evaluate(&loaded.catalog, &queries, args.k, &opts, loaded.build_ms);
    let mut value = report.to_json();
    value["catalog_tools"] = serde_json::json!(loaded.catalog.len());
    if args.baseline {
        let base = toolsearch_catalog::eval::evaluate_baseline(&loaded.catalog, &queries, args.k);
        let ratio = |a: f64, b: f64| {
            if b > 0.0 {
                (a / b * 1000.0).round() / 1000.0
            } else {
                0.0
            }
        };
        value["baseline_plain_bm25"] = base.to_json();
        value["ratio_vs_baseline"] = serde_json::json!({
            format!("recall@{}", args.k): ratio(report.recall_at_k, base.recall_at_k),
            "ndcg@10": ratio(report.ndcg_at_10, base.ndcg_at_10),
            "search_p50": ratio(report.search_p50_us, base.search_p50_us),
        });
    }
    print_json(value)?;
    let _ = args.json;
    Ok(ExitCode::SUCCESS)
}
