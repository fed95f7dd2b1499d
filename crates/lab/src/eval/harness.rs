//! Retrieval evaluation: recall@k, nDCG@10, MRR and search latency over labelled queries.
//!
//! Query lines are `{"id", "query", "relevant": [names]}` with optional
//! `relevant_groups: [[names]]`; a group counts as found when any member is retrieved.
//! Labels name tools by `name`, native name or id (see [`Catalog::resolve`]).

use super::baseline::PlainBm25;
use serde::Deserialize;
use serde_json::{json, Value};
use std::time::Instant;
use toolsearch_catalog::{Catalog, CatalogError, Resolved, SearchOptions};

/// One labelled query.
#[derive(Debug, Clone, Deserialize)]
pub struct LabelledQuery {
    /// Query id.
    #[serde(default)]
    pub id: serde_json::Value,
    /// The query text.
    pub query: String,
    /// Relevant tool names.
    #[serde(default)]
    pub relevant: Vec<String>,
    /// Groups of interchangeable relevant tools.
    #[serde(default)]
    pub relevant_groups: Option<Vec<Vec<String>>>,
}

impl LabelledQuery {
    /// Each relevant group as the ids of its members present in `catalog`; groups
    /// with none are left out.
    pub fn resolved_groups(&self, catalog: &Catalog) -> Vec<Vec<String>> {
        self.groups()
            .iter()
            .map(|g| {
                g.iter()
                    .filter_map(|name| match catalog.resolve(name, &|_| true) {
                        Resolved::One(t) => Some(t.id.clone()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
            })
            .filter(|g| !g.is_empty())
            .collect()
    }

    fn groups(&self) -> Vec<Vec<String>> {
        match &self.relevant_groups {
            Some(g) if !g.is_empty() => g.clone(),
            _ => self.relevant.iter().map(|r| vec![r.clone()]).collect(),
        }
    }
}

/// Parses query lines; a bad line is an error naming it.
///
/// # Errors
/// [`CatalogError::InvalidTool`] naming the first malformed line.
pub fn parse_queries(text: &str) -> Result<Vec<LabelledQuery>, CatalogError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| CatalogError::InvalidTool {
                location: format!("query line {}", i + 1),
                message: format!("malformed query: {e}"),
            })
        })
        .collect()
}

/// Aggregate figures; [`EvalReport::to_json`] gives the shape `toolsearch-lab eval` prints.
#[derive(Debug, Clone)]
pub struct EvalReport {
    /// Queries scored (those with at least one resolvable label).
    pub queries: usize,
    /// Queries skipped because no label named a catalog tool.
    pub skipped: usize,
    /// Mean share of relevant groups found in the top k.
    pub recall_at_k: f64,
    /// The k of `recall@k`.
    pub k: usize,
    /// Mean nDCG over the top 10 (binary gains, one per group).
    pub ndcg_at_10: f64,
    /// Mean reciprocal rank of the first relevant hit.
    pub mrr: f64,
    /// Median search time, microseconds.
    pub search_p50_us: f64,
    /// 95th percentile search time, microseconds.
    pub search_p95_us: f64,
    /// Time to build the catalog index from loaded tools, milliseconds.
    pub index_build_ms: f64,
    /// Every query that left a relevant group out of the top k, in query order.
    pub misses: Vec<Miss>,
}

/// A query whose top k missed at least one relevant group: the evidence for a bad
/// ranking (`toolsearch-lab eval --misses FILE` writes one per line).
#[derive(Debug, Clone)]
pub struct Miss {
    /// The query's id.
    pub id: Value,
    /// The query text.
    pub query: String,
    /// The groups not found in the top k (tool ids), each with the rank it reached
    /// within the ranking searched (`None`: not retrieved at all).
    pub missed: Vec<(Vec<String>, Option<usize>)>,
    /// The ids ranked in the top k.
    pub top: Vec<String>,
}

impl Miss {
    /// `{"id", "query", "missed": [{"ids", "rank"}], "top": [ids]}`; ranks are 1-based.
    pub fn to_json(&self) -> Value {
        let missed: Vec<Value> = self
            .missed
            .iter()
            .map(|(ids, rank)| json!({"ids": ids, "rank": rank.map(|r| r + 1)}))
            .collect();
        json!({"id": self.id, "query": self.query, "missed": missed, "top": self.top})
    }
}

/// Scores `queries` against `catalog`, searching with `opts` (limit raised to cover k and 10).
pub fn evaluate(
    catalog: &Catalog,
    queries: &[LabelledQuery],
    k: usize,
    opts: &SearchOptions,
    index_build_ms: f64,
) -> EvalReport {
    let depth = k.clamp(10, toolsearch_catalog::MAX_LIMIT);
    let opts = SearchOptions {
        limit: Some(depth),
        ..opts.clone()
    };
    let mut report = evaluate_with(catalog, queries, k, |q| {
        catalog
            .search(q, &opts)
            .hits
            .into_iter()
            .map(|h| h.id)
            .collect()
    });
    report.index_build_ms = round3(index_build_ms);
    report
}

/// The same figures for the plain-BM25 reference ([`PlainBm25`]).
pub fn evaluate_baseline(catalog: &Catalog, queries: &[LabelledQuery], k: usize) -> EvalReport {
    let start = Instant::now();
    let plain = PlainBm25::new(catalog.tools());
    let build_ms = start.elapsed().as_secs_f64() * 1e3;
    let depth = k.max(10);
    let mut report = evaluate_with(catalog, queries, k, |q| {
        plain
            .search(q, depth)
            .into_iter()
            .map(|i| catalog.tools()[i].id.clone())
            .collect()
    });
    report.index_build_ms = round3(build_ms);
    report
}

/// `x` to three decimals, as figures are printed.
pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The value at fraction `p` (0..=1) of ascending `sorted`; 0 when empty.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Runs `search` (query -> ranked ids) over every labelled query and aggregates:
/// how other rankers (the embedding fusion) are scored the same way.
pub fn evaluate_with(
    catalog: &Catalog,
    queries: &[LabelledQuery],
    k: usize,
    mut search: impl FnMut(&str) -> Vec<String>,
) -> EvalReport {
    let (mut recall, mut ndcg, mut mrr) = (0.0, 0.0, 0.0);
    let mut times = Vec::with_capacity(queries.len());
    let (mut scored, mut skipped) = (0usize, 0usize);
    let mut misses = Vec::new();
    for q in queries {
        let groups = q.resolved_groups(catalog);
        if groups.is_empty() {
            skipped += 1;
            continue;
        }
        let start = Instant::now();
        let ranked = search(&q.query);
        times.push(start.elapsed().as_secs_f64() * 1e6);
        let rank_of = |g: &Vec<String>| ranked.iter().position(|id| g.iter().any(|m| m == id));
        let ranks: Vec<Option<usize>> = groups.iter().map(rank_of).collect();
        let found_k = ranks.iter().filter(|r| r.is_some_and(|r| r < k)).count();
        recall += found_k as f64 / groups.len() as f64;
        if found_k < groups.len() {
            misses.push(Miss {
                id: q.id.clone(),
                query: q.query.clone(),
                missed: groups
                    .iter()
                    .zip(&ranks)
                    .filter(|(_, r)| !r.is_some_and(|r| r < k))
                    .map(|(g, r)| (g.clone(), *r))
                    .collect(),
                top: ranked.iter().take(k).cloned().collect(),
            });
        }
        let dcg: f64 = ranks
            .iter()
            .flatten()
            .filter(|&&r| r < 10)
            .map(|&r| 1.0 / ((r + 2) as f64).log2())
            .sum();
        let ideal: f64 = (0..groups.len().min(10))
            .map(|r| 1.0 / ((r + 2) as f64).log2())
            .sum();
        ndcg += dcg / ideal;
        if let Some(first) = ranks.iter().flatten().min() {
            mrr += 1.0 / (first + 1) as f64;
        }
        scored += 1;
    }
    times.sort_by(f64::total_cmp);
    let n = scored.max(1) as f64;
    EvalReport {
        queries: scored,
        skipped,
        recall_at_k: round3(recall / n),
        k,
        ndcg_at_10: round3(ndcg / n),
        mrr: round3(mrr / n),
        search_p50_us: round3(percentile(&times, 0.5)),
        search_p95_us: round3(percentile(&times, 0.95)),
        index_build_ms: 0.0,
        misses,
    }
}

impl EvalReport {
    /// `{"queries", "recall@K", "ndcg@10", "mrr", "search_p50_us", "search_p95_us", "index_build_ms", ...}`.
    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "queries": self.queries,
            "skipped": self.skipped,
            "ndcg@10": self.ndcg_at_10,
            "mrr": self.mrr,
            "search_p50_us": self.search_p50_us,
            "search_p95_us": self.search_p95_us,
            "index_build_ms": self.index_build_ms,
        });
        v[format!("recall@{}", self.k)] = json!(self.recall_at_k);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolsearch_catalog::{Source, Tool};

    fn catalog() -> Catalog {
        let tool = |name: &str| {
            Tool::new(
                Source::Client,
                None,
                name,
                "a tool",
                json!({"type": "object", "properties": {}}),
            )
        };
        Catalog::new(["a", "b", "c", "d"].map(tool).to_vec()).unwrap()
    }

    #[test]
    fn figures_and_misses_follow_the_ranking() {
        let catalog = catalog();
        let queries = parse_queries(
            r#"{"id": 1, "query": "q1", "relevant": ["a", "c"]}
{"id": 2, "query": "q2", "relevant_groups": [["b", "d"]]}
{"id": 3, "query": "q3", "relevant": ["nowhere"]}"#,
        )
        .unwrap();
        // q1 ranks a first and c third (outside k = 2); q2 ranks d, a member of its group.
        let report = evaluate_with(&catalog, &queries, 2, |q| {
            let ranked: &[&str] = if q == "q1" { &["a", "b", "c"] } else { &["d"] };
            ranked.iter().map(|n| format!("client::{n}")).collect()
        });
        assert_eq!((report.queries, report.skipped), (2, 1));
        assert_eq!(report.recall_at_k, 0.75);
        assert_eq!(report.mrr, 1.0);
        assert_eq!(report.misses.len(), 1, "only q1 missed a group");
        let miss = report.misses[0].to_json();
        assert_eq!(miss["id"], 1);
        assert_eq!(miss["missed"], json!([{"ids": ["client::c"], "rank": 3}]));
        assert_eq!(miss["top"], json!(["client::a", "client::b"]));
    }
}
