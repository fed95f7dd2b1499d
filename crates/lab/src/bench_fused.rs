//! `toolsearch-lab bench --embed-model M`: the fused search's cost, step by step, next to
//! the lexical search of the same queries: the query's embedding (the cache of recent
//! query vectors off), the similarity scan (int8 with exact re-scoring against the
//! plain f32 scan), and the whole fused search; then the cache's hit rate on a
//! stream that repeats queries.

use crate::eval::harness::{percentile, round3};
use anyhow::Result;
use serde_json::{json, Value};
use std::time::Instant;
use toolsearch_catalog::{Catalog, SearchOptions};
use toolsearch_embed::{embedded_text, Hybrid, DEFAULT_QUERY_CACHE};

/// Fewest timed runs of each step (the query list is repeated to reach it).
const MIN_RUNS: usize = 100;

fn figures(mut us: Vec<f64>) -> Value {
    us.sort_by(f64::total_cmp);
    json!({
        "p50_ms": round3(percentile(&us, 0.5) / 1e3),
        "p95_ms": round3(percentile(&us, 0.95) / 1e3),
        "runs": us.len(),
    })
}

fn timed(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1e6
}

pub fn run(
    catalog: &Catalog,
    sem: crate::semantic::Semantic,
    queries: &[&str],
    rounds: usize,
) -> Result<Value> {
    let crate::semantic::Semantic {
        embedder,
        index,
        fusion,
        ..
    } = sem;
    let opts = SearchOptions::default();
    let rounds = rounds.max(MIN_RUNS.div_ceil(queries.len().max(1)));
    let stream: Vec<&str> = (0..rounds).flat_map(|_| queries.iter().copied()).collect();
    // Cache off: every query is embedded, as a stream of new requests would be.
    let embedder = embedder.with_query_cache(0);
    let texts: Vec<String> = queries
        .iter()
        .map(|q| embedded_text(q).0.into_owned())
        .collect();
    let vectors: Vec<Vec<f32>> = texts.iter().map(|t| embedder.embed(t)).collect();
    let (mut embed, mut scan8, mut scan32, mut fused, mut lexical) =
        (vec![], vec![], vec![], vec![], vec![]);
    let mut same = true;
    for i in 0..stream.len() {
        let j = i % queries.len();
        embed.push(timed(|| drop(embedder.embed(&texts[j]))));
        let mut a = Vec::new();
        let mut b = Vec::new();
        scan8.push(timed(|| a = index.nearest(&vectors[j], 50, &|_| true)));
        scan32.push(timed(|| b = index.nearest_f32(&vectors[j], 50, &|_| true)));
        same &= a == b;
    }
    let hybrid = Hybrid::new(catalog, &index, &embedder)?.with_fusion(fusion);
    for q in &stream {
        fused.push(timed(|| drop(hybrid.search(q, &opts))));
        lexical.push(timed(|| drop(catalog.search(q, &opts))));
    }
    let p50 = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        percentile(&v, 0.5)
    };
    let scan_ratio = round3(p50(&scan32) / p50(&scan8).max(1e-9));
    // Cache on: the same stream (each query seen `rounds` times).
    let embedder = embedder.with_query_cache(DEFAULT_QUERY_CACHE);
    let hybrid = Hybrid::new(catalog, &index, &embedder)?.with_fusion(fusion);
    let mut cached = Vec::new();
    for q in &stream {
        cached.push(timed(|| drop(hybrid.search(q, &opts))));
    }
    let stats = embedder.query_cache_stats();
    Ok(json!({
        "model_id": embedder.model_id(),
        "query_embedding_cache_off": figures(embed),
        "similarity_scan": {
            "int8_exact_rescore": figures(scan8),
            "f32": figures(scan32),
            "speedup_p50": scan_ratio,
            "same_answers": same,
        },
        "fused_search_cache_off": figures(fused),
        "lexical_search": figures(lexical),
        "fused_search_cache_on": {
            "figures": figures(cached),
            "what": format!("the {} queries repeated {rounds} times", queries.len()),
            "hits": stats.hits,
            "misses": stats.misses,
            "hit_rate": round3(stats.hits as f64 / (stats.hits + stats.misses).max(1) as f64),
        },
    }))
}
