//! One embedding per catalog tool, from the store of vectors by text (`store.rs`:
//! embedding 10k tools takes minutes on 2 cores; loading them back takes
//! milliseconds, and a catalog change embeds only its new tools).

use crate::scan::Quantized;
use crate::{dot, EmbedError, Embedder};
use std::path::Path;
use toolsearch_catalog::{Catalog, Tool};

/// The text a tool is embedded from: server, name split into words, description and
/// parameter names.
pub fn tool_text(t: &Tool) -> String {
    let mut s = String::new();
    if let Some(server) = &t.server {
        s.push_str(server);
        s.push_str(": ");
    }
    s.push_str(&split_identifier(&t.name));
    s.push_str(". ");
    s.push_str(&t.description);
    if let Some(props) = t.input_schema.get("properties").and_then(|p| p.as_object()) {
        if !props.is_empty() {
            s.push_str(" Parameters: ");
            let names: Vec<String> = props.keys().take(16).map(|k| split_identifier(k)).collect();
            s.push_str(&names.join(", "));
        }
    }
    s
}

/// `get_currentWeather-v2` -> `get current Weather v2`.
fn split_identifier(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 8);
    let mut prev: Option<char> = None;
    for c in name.chars() {
        if matches!(c, '_' | '-' | '.' | '/' | ':') {
            if !out.ends_with(' ') && !out.is_empty() {
                out.push(' ');
            }
        } else {
            if c.is_uppercase() && prev.is_some_and(char::is_lowercase) {
                out.push(' ');
            }
            out.push(c);
        }
        prev = Some(c);
    }
    out.trim_end().to_string()
}

/// Unit vectors for every tool of one catalog snapshot, in catalog order.
#[derive(Debug, Clone)]
pub struct SemanticIndex {
    dim: usize,
    vectors: Vec<f32>,
    /// int8 copies for the scan ([`crate::scan`]).
    q8: Quantized,
    fingerprint: String,
    stats: crate::EmbedStats,
    /// Each tool's parameter words for the rerank, read when it first is a
    /// candidate (one slot per tool: bounded by the snapshot).
    param_words: Box<[std::sync::OnceLock<crate::rerank::ParamWords>]>,
}

impl SemanticIndex {
    /// Embeds every tool of `catalog`, reading and writing `cache` (a directory) when given.
    /// A cache file that does not match (truncated, other dimension) is rebuilt.
    ///
    /// # Errors
    /// [`EmbedError::Io`] when the cache directory cannot be written.
    pub fn build(
        embedder: &Embedder,
        catalog: &Catalog,
        cache: Option<&Path>,
    ) -> Result<SemanticIndex, EmbedError> {
        SemanticIndex::build_with(embedder, catalog, cache, &|| false)
    }

    /// [`SemanticIndex::build`], embedding only the tools whose text the store has
    /// not seen, and giving up between steps when `cancel` says so (a newer catalog
    /// superseded this one). [`SemanticIndex::stats`] says how many were embedded.
    ///
    /// # Errors
    /// [`EmbedError::Cancelled`].
    pub fn build_with(
        embedder: &Embedder,
        catalog: &Catalog,
        cache: Option<&Path>,
        cancel: &dyn Fn() -> bool,
    ) -> Result<SemanticIndex, EmbedError> {
        let texts: Vec<String> = catalog.tools().iter().map(tool_text).collect();
        let (vectors, stats) =
            crate::store::vectors(embedder, &texts, cache, cancel, crate::MAX_STORE_BYTES)?;
        let mut ix =
            SemanticIndex::from_vectors(embedder.dim(), vectors, catalog.fingerprint().to_string());
        ix.stats = stats;
        Ok(ix)
    }

    /// How many tools the build embedded, and of how many.
    pub fn stats(&self) -> crate::EmbedStats {
        self.stats
    }

    fn from_vectors(dim: usize, vectors: Vec<f32>, fingerprint: String) -> SemanticIndex {
        let tools = vectors.len().checked_div(dim).unwrap_or(0);
        SemanticIndex {
            q8: Quantized::new(&vectors, dim),
            dim,
            vectors,
            fingerprint,
            stats: crate::EmbedStats::default(),
            param_words: (0..tools).map(|_| std::sync::OnceLock::new()).collect(),
        }
    }

    /// `tool`'s (the tool at `doc` of this index's catalog) parameter words,
    /// read on first use.
    pub(crate) fn param_words(&self, doc: usize, tool: &Tool) -> &crate::rerank::ParamWords {
        self.param_words[doc].get_or_init(|| crate::rerank::ParamWords::of(tool))
    }

    /// The vectors of `combined`, a catalog holding tools of `base` (these vectors'
    /// catalog) and others: `base`'s vectors are copied, the others embedded now (no
    /// cache: an overlay of a few client tools). For searching a shared snapshot and a
    /// caller's own tools as one catalog, ranked once.
    ///
    /// # Errors
    /// [`EmbedError::Model`] when these vectors do not belong to `base`.
    pub fn extended(
        &self,
        embedder: &Embedder,
        base: &Catalog,
        combined: &Catalog,
    ) -> Result<SemanticIndex, EmbedError> {
        if self.fingerprint != base.fingerprint() || self.len() != base.len() {
            return Err(EmbedError::Model(
                "the semantic index was built for another catalog snapshot".into(),
            ));
        }
        let tools = combined.tools();
        let fresh: Vec<String> = tools
            .iter()
            .filter(|t| base.position(&t.id).is_none())
            .map(tool_text)
            .collect();
        let refs: Vec<&str> = fresh.iter().map(String::as_str).collect();
        let mut embedded = embedder.embed_batch(&refs).into_iter();
        let mut vectors = Vec::with_capacity(tools.len() * self.dim);
        for t in tools {
            match base.position(&t.id) {
                Some(doc) => {
                    vectors.extend_from_slice(&self.vectors[doc * self.dim..(doc + 1) * self.dim])
                }
                None => vectors.extend(embedded.next().unwrap_or_else(|| vec![0.0; self.dim])),
            }
        }
        Ok(SemanticIndex::from_vectors(
            self.dim,
            vectors,
            combined.fingerprint().to_string(),
        ))
    }

    /// The fingerprint of the catalog these vectors belong to.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.vectors.len() / self.dim.max(1)
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Tool `doc`'s unit vector.
    pub fn vector(&self, doc: usize) -> &[f32] {
        &self.vectors[doc * self.dim..(doc + 1) * self.dim]
    }

    /// Cosine similarity of tool `doc` to the unit vector `query`.
    pub fn similarity(&self, doc: usize, query: &[f32]) -> f32 {
        dot(&self.vectors[doc * self.dim..(doc + 1) * self.dim], query)
    }

    /// The `k` tools most similar to `query` among those `allow` admits, best first
    /// (ties by catalog position). Scans the int8 copies and re-scores in f32 only the
    /// tools that can be among the `k` ([`crate::scan`]): the answer is
    /// [`SemanticIndex::nearest_f32`]'s.
    pub fn nearest(
        &self,
        query: &[f32],
        k: usize,
        allow: &dyn Fn(usize) -> bool,
    ) -> Vec<(usize, f32)> {
        let q = self.q8.query(query);
        let candidates = self.q8.candidates(&q, k, allow);
        self.top(candidates.into_iter(), query, k)
    }

    /// [`SemanticIndex::nearest`] by scanning every f32 vector (the reference the
    /// bench compares the int8 scan with).
    pub fn nearest_f32(
        &self,
        query: &[f32],
        k: usize,
        allow: &dyn Fn(usize) -> bool,
    ) -> Vec<(usize, f32)> {
        self.top((0..self.len()).filter(|&d| allow(d)), query, k)
    }

    fn top(&self, docs: impl Iterator<Item = usize>, query: &[f32], k: usize) -> Vec<(usize, f32)> {
        let mut all: Vec<(usize, f32)> = docs.map(|d| (d, self.similarity(d, query))).collect();
        let by_score = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if all.len() > k && k > 0 {
            all.select_nth_unstable_by(k - 1, by_score);
            all.truncate(k);
        }
        all.sort_by(by_score);
        all.truncate(k);
        all
    }
}

/// [`Embedder::embed_many`] as one flat array (text `i` at `i * dim..`), the texts
/// already embedded read from the store in `cache` (one file per model, by text:
/// only new texts are embedded; see [`crate::MAX_STORE_BYTES`]).
///
/// # Errors
/// None in practice: a cache directory that cannot be written is said once in the
/// log and the vectors are kept in memory.
pub fn embed_cached(
    embedder: &Embedder,
    texts: &[String],
    cache: Option<&Path>,
) -> Result<Vec<f32>, EmbedError> {
    embed_cached_within(embedder, texts, cache, crate::MAX_STORE_BYTES).map(|(v, _)| v)
}

/// [`embed_cached`] with the store file kept within `max_bytes` (the texts of this
/// request first, then the most recent others), and how many texts were embedded.
///
/// # Errors
/// As [`embed_cached`].
pub fn embed_cached_within(
    embedder: &Embedder,
    texts: &[String],
    cache: Option<&Path>,
    max_bytes: usize,
) -> Result<(Vec<f32>, crate::EmbedStats), EmbedError> {
    crate::store::vectors(embedder, texts, cache, &|| false, max_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split_into_words() {
        assert_eq!(
            split_identifier("get_currentWeather-v2"),
            "get current Weather v2"
        );
        assert_eq!(
            split_identifier("Worldwide_Recipes__Suggestions"),
            "Worldwide Recipes Suggestions"
        );
        assert_eq!(split_identifier("__x__"), "x");
    }

    #[test]
    fn nearest_ranks_by_similarity_and_respects_allow() {
        let ix = SemanticIndex::from_vectors(2, vec![1.0, 0.0, 0.0, 1.0, 0.6, 0.8], String::new());
        let near = ix.nearest(&[0.0, 1.0], 2, &|_| true);
        assert_eq!(near.iter().map(|n| n.0).collect::<Vec<_>>(), [1, 2]);
        let near = ix.nearest(&[0.0, 1.0], 5, &|d| d != 1);
        assert_eq!(near.iter().map(|n| n.0).collect::<Vec<_>>(), [2, 0]);
    }
}
