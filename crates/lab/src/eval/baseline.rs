//! Plain BM25 over name + description + parameter names, scanning every tool per
//! query: the reference the tool-aware ranking is measured against (`toolsearch-lab eval
//! --baseline`, `toolsearch-lab bench`). Same tokenizer, stopwords and stemmer; no field
//! weights, tiers, coverage rule or inverted index.

use toolsearch_catalog::text;
use toolsearch_catalog::Tool;

/// A plain BM25 scorer (k1 = 1.2, b = 0.75) over each tool's whole text.
#[derive(Debug)]
pub struct PlainBm25 {
    docs: Vec<Vec<String>>,
    avg_len: f64,
}

impl PlainBm25 {
    /// Tokenizes every tool.
    pub fn new(tools: &[Tool]) -> Self {
        let docs: Vec<Vec<String>> = tools
            .iter()
            .map(|t| {
                let params = t.input_schema.get("properties").and_then(|p| p.as_object());
                let names = params
                    .map(|p| p.keys().cloned().collect::<Vec<_>>().join(" "))
                    .unwrap_or_default();
                text::terms(&format!("{} {} {}", t.name, t.description, names))
            })
            .collect();
        let avg_len = docs.iter().map(Vec::len).sum::<usize>() as f64 / docs.len().max(1) as f64;
        PlainBm25 { docs, avg_len }
    }

    /// Indexes of the best `limit` tools, best first (ties by position).
    pub fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        let mut terms = text::terms(query);
        terms.dedup();
        let n = self.docs.len() as f64;
        let dfs: Vec<f64> = terms
            .iter()
            .map(|t| self.docs.iter().filter(|d| d.contains(t)).count() as f64)
            .collect();
        let mut scored: Vec<(usize, f64)> = self
            .docs
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let len = d.len() as f64;
                let s: f64 = terms
                    .iter()
                    .zip(&dfs)
                    .map(|(t, df)| {
                        let tf = d.iter().filter(|w| *w == t).count() as f64;
                        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                        idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len / self.avg_len.max(1.0)))
                    })
                    .sum();
                (i, s)
            })
            .filter(|(_, s)| *s > 0.0)
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(limit);
        scored.into_iter().map(|(i, _)| i).collect()
    }
}
