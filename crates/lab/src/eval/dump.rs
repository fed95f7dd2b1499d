//! `toolsearch-lab eval --dump-candidates FILE`: each query's lexical candidates, for
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

/// Writes what training a query adapter needs (`eval/train_adapter.py`) to `dir`:
/// `tools.f32` (each catalog tool's vector, catalog order), `queries.f32` (each
/// query's vector, of the text the fused search embeds), `labels.jsonl` (per
/// query, its relevant groups as catalog positions; floats little-endian) and
/// `ids.txt` (each tool's id, catalog order).
pub fn write_vectors(
    dir: &std::path::Path,
    catalog: &Catalog,
    queries: &[super::harness::LabelledQuery],
    index: &toolsearch_embed::SemanticIndex,
    vector_of: &dyn Fn(&str) -> std::sync::Arc<[f32]>,
) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let floats =
        |vs: &mut dyn Iterator<Item = f32>| -> Vec<u8> { vs.flat_map(f32::to_le_bytes).collect() };
    let tools = floats(&mut (0..catalog.len()).flat_map(|d| index.vector(d).to_vec()));
    std::fs::write(dir.join("tools.f32"), tools)?;
    let ids: String = catalog
        .tools()
        .iter()
        .map(|t| format!("{}\n", t.id))
        .collect();
    std::fs::write(dir.join("ids.txt"), ids)?;
    let mut qv = Vec::new();
    let mut labels = String::new();
    for q in queries {
        let text = toolsearch_embed::embedded_text(&q.query).0.into_owned();
        qv.extend(vector_of(&text).iter().copied());
        let groups: Vec<Vec<usize>> = q
            .resolved_groups(catalog)
            .iter()
            .map(|g| g.iter().filter_map(|id| catalog.position(id)).collect())
            .collect();
        labels.push_str(&json!({"id": q.id, "groups": groups}).to_string());
        labels.push('\n');
    }
    std::fs::write(dir.join("queries.f32"), floats(&mut qv.into_iter()))?;
    std::fs::write(dir.join("labels.jsonl"), labels)?;
    Ok(())
}
