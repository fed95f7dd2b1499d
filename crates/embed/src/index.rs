//! One embedding per catalog tool, with an on-disk cache keyed by the model's hash and
//! the texts embedded (embedding 10k tools takes minutes on 2 cores; loading them back
//! takes milliseconds).

use crate::scan::Quantized;
use crate::{dot, EmbedError, Embedder};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};
use toolsearch_catalog::{Catalog, Tool};

const MAGIC: &[u8; 8] = b"TSEMB01\n";

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
        let texts: Vec<String> = catalog.tools().iter().map(tool_text).collect();
        Ok(SemanticIndex::from_vectors(
            embedder.dim(),
            embed_cached(embedder, &texts, cache)?,
            catalog.fingerprint().to_string(),
        ))
    }

    fn from_vectors(dim: usize, vectors: Vec<f32>, fingerprint: String) -> SemanticIndex {
        SemanticIndex {
            q8: Quantized::new(&vectors, dim),
            dim,
            vectors,
            fingerprint,
        }
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

/// [`Embedder::embed_many`] as one flat array (text `i` at `i * dim..`), read from /
/// written to a file in `cache` named by the model and a hash of the texts (and token
/// budget), when a cache directory is given.
///
/// # Errors
/// [`EmbedError::Io`] when the cache directory cannot be written.
pub fn embed_cached(
    embedder: &Embedder,
    texts: &[String],
    cache: Option<&Path>,
) -> Result<Vec<f32>, EmbedError> {
    let dim = embedder.dim();
    let file = cache.map(|dir| {
        let mut h = Sha256::new();
        h.update((embedder.max_tokens() as u64).to_le_bytes());
        for t in texts {
            h.update((t.len() as u64).to_le_bytes());
            h.update(t.as_bytes());
        }
        dir.join(format!(
            "{}-{}.vec",
            embedder.model_id(),
            crate::hex16(&h.finalize())
        ))
    });
    if let Some(flat) = file
        .as_deref()
        .and_then(|f| read_cache(f, dim, texts.len()))
    {
        return Ok(flat);
    }
    let flat: Vec<f32> = embedder.embed_many(texts).concat();
    if let Some(f) = &file {
        write_cache(f, dim, texts.len(), &flat)?;
    }
    Ok(flat)
}

fn read_cache(path: &Path, dim: usize, n: usize) -> Option<Vec<f32>> {
    let bytes = std::fs::read(path).ok()?;
    let body = bytes.strip_prefix(MAGIC)?;
    let (head, data) = body.split_at_checked(8)?;
    let word = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().expect("4 bytes")) as usize;
    if word(0) != dim || word(4) != n || data.len() != dim * n * 4 {
        return None;
    }
    Some(
        data.chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
            .collect(),
    )
}

/// Writes to a temporary file and renames it, so a reader never sees half a cache.
fn write_cache(path: &Path, dim: usize, n: usize, vectors: &[f32]) -> Result<(), EmbedError> {
    let io = |path: PathBuf| move |source| EmbedError::Io { path, source };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io(dir.to_path_buf()))?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let mut buf = Vec::with_capacity(16 + vectors.len() * 4);
    buf.extend_from_slice(MAGIC);
    buf.extend_from_slice(&(dim as u32).to_le_bytes());
    buf.extend_from_slice(&(n as u32).to_le_bytes());
    for v in vectors {
        buf.extend_from_slice(&v.to_le_bytes());
    }
    std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(&buf))
        .map_err(io(tmp.clone()))?;
    std::fs::rename(&tmp, path).map_err(io(path.to_path_buf()))
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
    fn cache_round_trips_and_rejects_mismatches() {
        let dir = std::env::temp_dir().join(format!("ts-embed-cache-{}", std::process::id()));
        let f = dir.join("a.vec");
        write_cache(&f, 2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, -6.5]).unwrap();
        assert_eq!(
            read_cache(&f, 2, 3).unwrap(),
            [1.0, 2.0, 3.0, 4.0, 5.0, -6.5]
        );
        assert!(read_cache(&f, 3, 2).is_none(), "other dimension");
        assert!(read_cache(&f, 2, 4).is_none(), "other catalog size");
        let bytes = std::fs::read(&f).unwrap();
        std::fs::write(&f, &bytes[..bytes.len() - 1]).unwrap();
        assert!(read_cache(&f, 2, 3).is_none(), "truncated");
        std::fs::remove_dir_all(&dir).unwrap();
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
