//! `toolsearch-lab bench`: search latency and index build time, against a plain-BM25
//! scan baseline measured in the same run.

use crate::eval::baseline::PlainBm25;
use crate::eval::harness::{percentile, round3};
use anyhow::Result;
use serde_json::json;
use std::process::ExitCode;
use std::time::Instant;
use toolsearch_catalog::SearchOptions;
use toolsearch_cli::common::{load_catalog, print_json};

#[derive(clap::Args)]
pub struct Args {
    /// Catalog file; the embedded demo catalog when omitted.
    #[arg(long)]
    catalog: Option<std::path::PathBuf>,
    /// Times each query is run.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Snippet runs per sandbox latency figure.
    #[arg(long, default_value_t = 200)]
    sandbox_runs: usize,
    /// Only the search figures.
    #[arg(long)]
    search_only: bool,
    /// Jobs of the sandbox memory run, per backend (PSS sampled every 100).
    #[arg(long, default_value_t = 10_000)]
    memory_jobs: usize,
    /// Seconds the idle pools are watched for CPU use.
    #[arg(long, default_value_t = 10)]
    idle_secs: u64,
    /// Only the memory run of one sandbox backend (`threads` or `processes`), in
    /// this process; `bench` runs each so in a fresh process of its own.
    #[arg(long, hide = true)]
    memory_only: Option<String>,
    /// Also write `benchmarks.md` and `sandbox-latency.svg` (the latency
    /// distributions) into this directory: `cargo xtask bench --docs docs`.
    #[arg(long, value_name = "DIR")]
    docs: Option<std::path::PathBuf>,
    /// With a model: the fused search's figures too (query embedding, similarity
    /// scan, fused search with the query cache off and on).
    #[command(flatten)]
    semantic: crate::semantic::LabSemanticArgs,
}

/// Task-style queries of varied length and shape (keywords, names, syntax).
const QUERIES: &[&str] = &[
    "create a github issue",
    "send a message to a slack channel",
    "weather forecast for a city",
    "read_file",
    "select:read_file,write_file",
    "+github pull request merge",
    "search the web for recent news about rust",
    "convert currency exchange rate",
    "list files in a directory recursively",
    "query a postgres database table",
    "translate text to french",
    "get stock price history",
    "notebook",
    "calendar event tomorrow at 3pm",
    "geocode an address to coordinates",
    "kubernetes pod logs",
];

pub fn run(args: Args) -> Result<ExitCode> {
    if let Some(backend) = &args.memory_only {
        print_json(crate::bench_sandbox::memory_only(
            backend,
            args.memory_jobs,
        )?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let loaded = load_catalog(args.catalog.as_deref(), false)?;
    let catalog = &loaded.catalog;
    let opts = SearchOptions::default();
    let mut ours = Vec::new();
    let mut hits = 0usize;
    for _ in 0..args.rounds.max(1) {
        for q in QUERIES {
            let t = Instant::now();
            let r = catalog.search(q, &opts);
            ours.push(t.elapsed().as_secs_f64() * 1e6);
            hits += r.hits.len();
        }
    }
    let t = Instant::now();
    let plain = PlainBm25::new(catalog.tools());
    let plain_build_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut base = Vec::new();
    for q in QUERIES {
        let t = Instant::now();
        hits += plain.search(q, 8).len();
        base.push(t.elapsed().as_secs_f64() * 1e6);
    }
    ours.sort_by(f64::total_cmp);
    base.sort_by(f64::total_cmp);
    let (p50, p95) = (percentile(&ours, 0.5), percentile(&ours, 0.95));
    let base_p50 = percentile(&base, 0.5);
    let fused = match args.semantic.load(catalog)? {
        Some(sem) => crate::bench_fused::run(catalog, sem, QUERIES, args.rounds)?,
        None => serde_json::Value::Null,
    };
    anyhow::ensure!(
        !(args.search_only && args.docs.is_some()),
        "--docs writes the sandbox figures: drop --search-only"
    );
    let (sandbox, samples) = if args.search_only {
        (serde_json::Value::Null, Vec::new())
    } else {
        crate::bench_sandbox::run(&crate::bench_sandbox::Plan {
            runs: args.sandbox_runs,
            memory_jobs: args.memory_jobs,
            idle_secs: args.idle_secs,
        })?
    };
    let report = json!({
        "profile": if cfg!(debug_assertions) { "debug" } else { "release" },
        "sandbox": sandbox,
        "catalog_tools": catalog.len(),
        "queries": ours.len(),
        "index_build_ms": round3(loaded.build_ms),
        "search_p50_us": round3(p50),
        "search_p95_us": round3(p95),
        "baseline": {
            "what": "plain BM25, linear scan over every tool per query",
            "build_ms": round3(plain_build_ms),
            "search_p50_us": round3(base_p50),
            "search_p95_us": round3(percentile(&base, 0.95)),
        },
        "speedup_p50": round3(base_p50 / p50.max(1e-9)),
        "fused": fused,
        "hits_seen": hits,
    });
    if let Some(dir) = &args.docs {
        crate::bench_docs::write(dir, &report, &samples)?;
    }
    print_json(report)?;
    Ok(ExitCode::SUCCESS)
}
