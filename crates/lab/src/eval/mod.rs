//! `toolsearch-lab eval`: a catalog's search scored against labelled queries.

pub mod baseline;
mod dump;
pub mod harness;

use anyhow::{Context, Result};
use harness::round3;
use harness::{evaluate, parse_queries};
use std::path::PathBuf;
use std::process::ExitCode;
use toolsearch_catalog::{SearchOptions, DEFAULT_BAND};
use toolsearch_cli::common::{load_catalog, print_json};

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
    /// Write every query whose top k missed a relevant tool to FILE (JSONL: the query,
    /// the missed ids with the rank they reached, the top k), for the final ranking.
    #[arg(long, value_name = "FILE")]
    misses: Option<PathBuf>,
    /// Also score the plain-BM25 reference on the same queries and print the ratios.
    #[arg(long)]
    baseline: bool,
    /// Write each query's lexical candidates to FILE (JSONL, for studying fusion
    /// rules offline with `eval/fusion_study.py`).
    #[arg(long, value_name = "FILE", hide = true)]
    dump_candidates: Option<PathBuf>,
    #[command(flatten)]
    semantic: crate::semantic::LabSemanticArgs,
    /// Print every ranker run (plain BM25 with `--baseline`, lexical, and fused with
    /// `--embed-model`) side by side: `{"rankers": {"lexical": {...}, "hybrid": {...}}}`.
    #[arg(long)]
    compare: bool,
    /// Write each query's fusion decision (lexical weight, share of argument values,
    /// the text embedded, whether the lexical best was lifted), its top k and its top
    /// 30 with their score parts and similarity to FILE (JSONL); needs `--embed-model`.
    #[arg(long, value_name = "FILE")]
    explain: Option<PathBuf>,
    /// Write the tool and query vectors and the labels to DIR, for training a query
    /// adapter (`eval/train_adapter.py`); needs `--embed-model`.
    #[arg(long, value_name = "DIR", hide = true)]
    dump_vectors: Option<PathBuf>,
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
    if let Some(path) = &args.dump_candidates {
        let texts: Vec<&str> = queries.iter().map(|q| q.query.as_str()).collect();
        dump::write(path, &loaded.catalog, &texts, &opts)?;
    }
    let builds = median_build_ms(&loaded, BUILD_RUNS)?;
    let mut report = evaluate(&loaded.catalog, &queries, args.k, &opts, builds.0);
    let mut value = report.to_json();
    value["ranker"] = "lexical".into();
    value["index_build_ms_runs"] = serde_json::json!(builds.1);
    let sem = args.semantic.load(&loaded.catalog)?;
    anyhow::ensure!(
        sem.is_some() || args.explain.is_none(),
        "--explain writes the fusion's decisions: it needs --embed-model"
    );
    if let Some(sem) = sem {
        let lexical = report.clone();
        let semantic;
        (report, semantic) = evaluate_hybrid(
            &loaded.catalog,
            &queries,
            args.k,
            &opts,
            &sem,
            args.explain.as_deref(),
            args.dump_vectors.as_deref(),
        )?;
        report.index_build_ms = lexical.index_build_ms;
        let mut fused = report.to_json();
        fused["ranker"] = "hybrid".into();
        fused["semantic"] = semantic;
        fused["lexical_only"] = lexical.to_json();
        fused["index_build_ms_runs"] = std::mem::take(&mut value["index_build_ms_runs"]);
        value = fused;
    }
    value["catalog_tools"] = serde_json::json!(loaded.catalog.len());
    if let Some(path) = &args.misses {
        write_misses(path, &report.misses)?;
    }
    if args.baseline {
        let base = harness::evaluate_baseline(&loaded.catalog, &queries, args.k);
        let ratio = |a: f64, b: f64| {
            if b > 0.0 {
                round3(a / b)
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
    if args.compare {
        value = compare(value);
    }
    print_json(value)?;
    let _ = args.json;
    Ok(ExitCode::SUCCESS)
}

/// `{"rankers": {"plain_bm25"?, "lexical", "hybrid"?}, ...}`: every ranker's figures on
/// the same queries side by side (`--compare`), the rest of the report beside them.
fn compare(mut value: serde_json::Value) -> serde_json::Value {
    let mut rankers = serde_json::Map::new();
    if let Some(base) = value.get_mut("baseline_plain_bm25").map(std::mem::take) {
        rankers.insert("plain_bm25".into(), base);
    }
    let fused = value["ranker"] == "hybrid";
    if let Some(lexical) = value.get_mut("lexical_only").map(std::mem::take) {
        rankers.insert("lexical".into(), lexical);
    }
    let figures = [
        "queries",
        "skipped",
        "ndcg@10",
        "mrr",
        "search_p50_us",
        "search_p95_us",
        "index_build_ms",
    ];
    let mut own = serde_json::Map::new();
    if let Some(map) = value.as_object_mut() {
        map.remove("ranker");
        let keys: Vec<String> = map
            .keys()
            .filter(|k| figures.contains(&k.as_str()) || k.starts_with("recall@"))
            .cloned()
            .collect();
        for key in keys {
            if let Some(v) = map.remove(&key) {
                own.insert(key, v);
            }
        }
    }
    rankers.insert(if fused { "hybrid" } else { "lexical" }.into(), own.into());
    value["rankers"] = rankers.into();
    value
}

fn write_misses(path: &std::path::Path, misses: &[harness::Miss]) -> Result<()> {
    let mut out = String::new();
    for m in misses {
        out.push_str(&m.to_json().to_string());
        out.push('\n');
    }
    std::fs::write(path, out).with_context(|| format!("writing misses {}", path.display()))
}

/// Hits per query `--explain` writes, with their parts.
const EXPLAIN_DEPTH: usize = 30;

/// Index builds timed per eval: this machine's timings vary up to 2x run to run, so
/// `index_build_ms` is the median of several builds (all are printed).
const BUILD_RUNS: usize = 5;

/// The median and every time of `runs` index builds (the load's build, then more of
/// the same tools; cloning them is not timed).
fn median_build_ms(
    loaded: &toolsearch_cli::common::LoadedCatalog,
    runs: usize,
) -> Result<(f64, Vec<f64>)> {
    let mut times = vec![loaded.build_ms];
    for _ in 1..runs {
        let tools = loaded.catalog.tools().to_vec();
        let start = std::time::Instant::now();
        let catalog = toolsearch_catalog::Catalog::new(tools)?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
        drop(catalog);
    }
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    Ok((
        round3(sorted[sorted.len() / 2]),
        times.into_iter().map(round3).collect(),
    ))
}

/// Embeds every distinct query on all cores first (reported apart from search time),
/// then scores the fused ranking; also returns the model's figures.
fn evaluate_hybrid(
    catalog: &toolsearch_catalog::Catalog,
    queries: &[harness::LabelledQuery],
    k: usize,
    opts: &SearchOptions,
    sem: &crate::semantic::Semantic,
    explain: Option<&std::path::Path>,
    dump_vectors: Option<&std::path::Path>,
) -> Result<(harness::EvalReport, serde_json::Value)> {
    let hybrid =
        toolsearch_embed::Hybrid::new(catalog, &sem.index, &sem.embedder)?.with_fusion(sem.fusion);
    // What the fused search embeds for each query (without its values when they are
    // most of it).
    let mut texts: Vec<String> = queries
        .iter()
        .map(|q| toolsearch_embed::embedded_text(&q.query).0.into_owned())
        .collect();
    texts.sort();
    texts.dedup();
    let start = std::time::Instant::now();
    let dim = sem.embedder.dim();
    let vectors = toolsearch_embed::embed_cached(&sem.embedder, &texts, sem.cache.as_deref())?;
    let embed_ms = start.elapsed().as_secs_f64() * 1e3;
    let opts = SearchOptions {
        limit: Some(k.clamp(10, toolsearch_catalog::MAX_LIMIT)),
        ..opts.clone()
    };
    // With `--explain`, the top [`EXPLAIN_DEPTH`] with their parts (for
    // studying rerankers offline); the figures read only the first 10.
    let opts = SearchOptions {
        explain: explain.is_some(),
        limit: if explain.is_some() {
            Some(EXPLAIN_DEPTH.max(k))
        } else {
            opts.limit
        },
        ..opts
    };
    let vector_of = |text: &str| -> std::sync::Arc<[f32]> {
        let i = texts
            .binary_search_by(|t| t.as_str().cmp(text))
            .expect("every text embedded");
        vectors[i * dim..(i + 1) * dim].into()
    };
    if let Some(dir) = dump_vectors {
        dump::write_vectors(dir, catalog, queries, &sem.index, &vector_of)?;
    }
    let mut decisions = String::new();
    let report = harness::evaluate_with(catalog, queries, k, |q| {
        let result = hybrid.search_embedded(q, &opts, &|_| true, &vector_of);
        if explain.is_some() {
            let top: Vec<&str> = result.hits.iter().take(k).map(|h| h.id.as_str()).collect();
            let hits: Vec<serde_json::Value> = result
                .hits
                .iter()
                .map(|h| {
                    let parts: serde_json::Map<String, serde_json::Value> = h
                        .explain
                        .iter()
                        .flatten()
                        .map(|p| (p.rule.clone(), p.score.into()))
                        .collect();
                    let sim = h.explain.iter().flatten().find_map(|p| p.similarity);
                    serde_json::json!({"id": h.id, "score": h.score, "parts": parts, "similarity": sim})
                })
                .collect();
            let line = serde_json::json!({
                "query": q,
                "matched_by": result.matched_by,
                "fusion": result.fusion,
                "top": top,
                "hits": hits,
            });
            decisions.push_str(&line.to_string());
            decisions.push('\n');
        }
        result.hits.into_iter().map(|h| h.id).collect()
    });
    if let Some(path) = explain {
        std::fs::write(path, decisions).with_context(|| format!("writing {}", path.display()))?;
    }
    let mut report_json = sem.report.clone();
    report_json["distinct_queries"] = serde_json::json!(texts.len());
    report_json["query_embeddings_ms"] = serde_json::json!(crate::semantic::r1(embed_ms));
    Ok((report, report_json))
}
