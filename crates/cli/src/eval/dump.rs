//! `toolsearch eval --dump-candidates FILE`: each query's lexical candidates, for
//! studying fusion rules offline (the tool vectors and query vectors are in the
//! embedding cache; `eval/fusion_study.py` reads both).

use anyhow::{Context, Result};
use serde_json::json;
use std::io::Write;
use toolsearch_catalog::query::{self, Query};
use toolsearch_catalog::{Catalog, SearchOptions};

/// Candidates per query: the fusion's lexical depth.
const DEPTH: usize = 50;

/// Writes a header line `{"tools": [ids in catalog order]}`, then one line per query:
/// `{"query", "kind", "lex": [[doc, score, covered]], "exact": [docs], "top": [docs]}`,
/// `top` being the lexical search's own ten best (band, coverage rule, pins).
pub fn write(
    path: &std::path::Path,
    catalog: &Catalog,
    queries: &[&str],
    opts: &SearchOptions,
) -> Result<()> {
    let opts = SearchOptions {
        limit: Some(10),
        ..opts.clone()
    };
    let file =
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    let ids: Vec<&str> = catalog.tools().iter().map(|t| t.id.as_str()).collect();
    writeln!(out, "{}", json!({ "tools": ids }))?;
    for q in queries {
        let top: Vec<usize> = catalog
            .search(q, &opts)
            .hits
            .iter()
            .filter_map(|h| catalog.position(&h.id))
            .collect();
        let line = match query::parse(q) {
            Query::Keywords(kw) => {
                let lex: Vec<_> = catalog
                    .keyword_ranking(&kw, DEPTH, &|_| true)
                    .into_iter()
                    .map(|h| json!([h.doc, h.score, h.covered]))
                    .collect();
                let exact = catalog.exact_name_docs(&kw, &|_| true);
                json!({"query": q, "kind": "keywords", "lex": lex, "exact": exact, "top": top})
            }
            _ => json!({"query": q, "kind": "syntax", "top": top}),
        };
        writeln!(out, "{line}")?;
    }
    out.flush()
        .with_context(|| format!("writing {}", path.display()))
}
