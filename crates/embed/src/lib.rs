//! Optional offline sentence embeddings for toolsearch, fused with the lexical search.
//!
//! [`Embedder`] loads a BERT-family sentence-transformers model from a directory
//! (`config.json`, `vocab.txt`, `model.safetensors`, optional `1_Pooling/config.json`;
//! e.g. all-MiniLM-L6-v2, which `toolsearch model fetch` installs) and runs it on the
//! CPU. [`SemanticIndex`] holds one vector per catalog tool (cached on disk by catalog
//! fingerprint and model hash). [`Hybrid`] fuses its nearest neighbours with the lexical
//! ranking; query syntax (`select:`, exact names, `+word`, `server:`) stays lexical.

mod bert;
mod gemm;
mod hybrid;
#[cfg(test)]
mod hybrid_tests;
mod index;
mod mmap;
mod query_cache;
pub mod rerank;
mod scan;
mod store;
mod values;
mod wordpiece;

pub use bert::Config;
pub use hybrid::{Fusion, Hybrid, LEXICAL_TOP_PLACE};
pub use index::{embed_cached, embed_cached_within, tool_text, SemanticIndex};
pub use query_cache::{QueryCacheStats, DEFAULT_QUERY_CACHE};
pub use store::{EmbedStats, MAX_STORE_BYTES};
pub use values::{embedded_text, split_values, VALUE_SHARE_MASKED};
pub use wordpiece::WordPiece;

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Default token budget per tool text or query (sentence-transformers truncates at 256;
/// tool texts past 128 pieces add little and cost quadratic attention time).
pub const DEFAULT_MAX_TOKENS: usize = 128;

/// Texts embedded together by [`Embedder::embed_many`]: enough stacked rows that
/// packing each weight matrix is paid once per batch, not once per text.
const BATCH: usize = 16;

/// The model directory this workspace's tests use: `TOOLSEARCH_EMBED_MODEL`, else the
/// one `cargo xtask fetch-model` fills in this workspace's `target/models`. `Err` says
/// where no model was found. Tests only: the product looks in [`default_model_dir`].
pub fn installed_model_dir() -> Result<PathBuf, String> {
    let dir = std::env::var_os("TOOLSEARCH_EMBED_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/models/all-MiniLM-L6-v2")
        });
    if dir.join("model.safetensors").exists() {
        Ok(dir)
    } else {
        Err(format!(
            "no embedding model at {} (run `cargo xtask fetch-model`)",
            dir.display()
        ))
    }
}

/// The model search uses when none is named: `TOOLSEARCH_EMBED_MODEL` when set, else
/// the one `toolsearch model fetch` installed in the user's cache
/// ([`user_model_dir`]), else none (search stays lexical: [`MISSING_MODEL`] says
/// so). How the CLI's `search` and the gateway pick their default ranking. No path
/// of the build tree is ever looked at: a copied or installed binary finds the
/// same model as the one built here.
pub fn default_model_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("TOOLSEARCH_EMBED_MODEL") {
        Some(named) => PathBuf::from(named),
        None => user_model_dir()?,
    };
    dir.join("model.safetensors").exists().then_some(dir)
}

/// The default model's name, as its directory is called.
pub const DEFAULT_MODEL: &str = "all-MiniLM-L6-v2";

/// Where `toolsearch model fetch` installs the default model:
/// `$XDG_CACHE_HOME/toolsearch/models/all-MiniLM-L6-v2`, else
/// `~/.cache/toolsearch/models/all-MiniLM-L6-v2` (`None` without either variable).
pub fn user_model_dir() -> Option<PathBuf> {
    Some(
        cache_base()?
            .join("toolsearch")
            .join("models")
            .join(DEFAULT_MODEL),
    )
}

/// What the CLI and the gateway say, once, when no model is found: search is
/// lexical, and the command that fixes it.
pub const MISSING_MODEL: &str = "no embedding model found, so search is lexical (matches \
     words, not meaning); run `toolsearch model fetch` to install all-MiniLM-L6-v2 (an 84 MB download) \
     in the user's cache";

/// `$XDG_CACHE_HOME`, else `~/.cache`.
fn cache_base() -> Option<PathBuf> {
    std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
}

/// Where tool vectors are cached by default: `$XDG_CACHE_HOME/toolsearch/embeddings`,
/// else `~/.cache/toolsearch/embeddings`.
pub fn default_cache_dir() -> Option<PathBuf> {
    Some(cache_base()?.join("toolsearch").join("embeddings"))
}

/// What can go wrong loading or running a model.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// A model file is missing or unreadable.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A model file is malformed or describes an unsupported model.
    #[error("model: {0}")]
    Model(String),
    /// The caller cancelled the work (a newer catalog superseded it).
    #[error("cancelled: a newer request superseded this one")]
    Cancelled,
}

/// How token states become one sentence vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// Mean of every token state (all-MiniLM and most sentence-transformers models).
    Mean,
    /// The `[CLS]` state (BGE-style models).
    Cls,
}

/// A loaded sentence-embedding model. Immutable and `Sync`: share one across threads.
pub struct Embedder {
    vocab: WordPiece,
    bert: bert::Bert,
    pooling: Pooling,
    max_tokens: usize,
    model_id: String,
    queries: query_cache::QueryCache,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder")
            .field("model_id", &self.model_id)
            .field("dim", &self.dim())
            .field("pooling", &self.pooling)
            .finish()
    }
}

fn read(path: PathBuf) -> Result<Vec<u8>, EmbedError> {
    std::fs::read(&path).map_err(|source| EmbedError::Io { path, source })
}

fn read_json(path: PathBuf) -> Result<serde_json::Value, EmbedError> {
    let bytes = read(path.clone())?;
    serde_json::from_slice(&bytes)
        .map_err(|e| EmbedError::Model(format!("{}: {e}", path.display())))
}

impl Embedder {
    /// Loads the model in `dir`.
    ///
    /// # Errors
    /// [`EmbedError::Io`] naming a missing file, [`EmbedError::Model`] for a malformed or
    /// unsupported one (non-BERT activation, non-F32 weights, shape mismatch).
    pub fn load(dir: &Path) -> Result<Embedder, EmbedError> {
        let cfg = bert::Config::from_json(&read_json(dir.join("config.json"))?)?;
        let vocab_bytes = read(dir.join("vocab.txt"))?;
        let vocab = WordPiece::from_vocab(&String::from_utf8_lossy(&vocab_bytes))
            .map_err(EmbedError::Model)?;
        let path = dir.join("model.safetensors");
        let weights = mmap::Mapped::open(&path).map_err(|e| EmbedError::Io {
            path: path.clone(),
            source: e,
        })?;
        let model_id = hex16(&Sha256::digest(weights.bytes()));
        let bert = bert::Bert::load(cfg, weights.bytes())?;
        if bert.vocab_size() != vocab.len() {
            return Err(EmbedError::Model(format!(
                "vocab.txt has {} tokens but the model embeds {}",
                vocab.len(),
                bert.vocab_size()
            )));
        }
        let pooling_file = dir.join("1_Pooling").join("config.json");
        let pooling = if pooling_file.exists() {
            let p = read_json(pooling_file)?;
            if p.get("pooling_mode_cls_token").and_then(|v| v.as_bool()) == Some(true) {
                Pooling::Cls
            } else {
                Pooling::Mean
            }
        } else {
            Pooling::Mean
        };
        let max_tokens = DEFAULT_MAX_TOKENS.min(bert.cfg.max_positions);
        Ok(Embedder {
            vocab,
            bert,
            pooling,
            max_tokens,
            model_id,
            queries: query_cache::QueryCache::new(DEFAULT_QUERY_CACHE),
        })
    }

    /// Keeps the last `capacity` query vectors ([`Embedder::embed_query`]); 0 turns
    /// the cache off. Default [`DEFAULT_QUERY_CACHE`].
    pub fn with_query_cache(mut self, capacity: usize) -> Embedder {
        self.queries = query_cache::QueryCache::new(capacity);
        self
    }

    /// The embedding of a search query: [`Embedder::embed`], answered from the cache
    /// of recent queries when the same text was embedded lately.
    pub fn embed_query(&self, text: &str) -> std::sync::Arc<[f32]> {
        self.queries.get_or(text, || self.embed(text))
    }

    /// Hits and misses of the query cache since the model was loaded.
    pub fn query_cache_stats(&self) -> QueryCacheStats {
        self.queries.stats()
    }

    /// Vector width.
    pub fn dim(&self) -> usize {
        self.bert.cfg.hidden
    }

    /// First 16 hex digits of the weights' SHA-256: names caches and reports.
    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    /// The token budget per text.
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// The unit-length embedding of `text` (truncated to [`Embedder::max_tokens`]).
    pub fn embed(&self, text: &str) -> Vec<f32> {
        self.embed_batch(&[text])
            .pop()
            .expect("one text in, one vector out")
    }

    /// Embeddings of several texts computed together (faster per text than one by one).
    pub fn embed_batch(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        let ids: Vec<Vec<u32>> = texts
            .iter()
            .map(|t| self.vocab.encode(t, self.max_tokens))
            .collect();
        let seqs: Vec<&[u32]> = ids.iter().map(Vec::as_slice).collect();
        self.bert
            .hidden_states(&seqs)
            .into_iter()
            .map(|s| self.pool(&s))
            .collect()
    }

    fn pool(&self, states: &[f32]) -> Vec<f32> {
        let h = self.dim();
        let mut v = match self.pooling {
            Pooling::Cls => states[..h].to_vec(),
            Pooling::Mean => {
                let mut sum = vec![0.0f32; h];
                for row in states.chunks_exact(h) {
                    sum.iter_mut().zip(row).for_each(|(s, x)| *s += x);
                }
                sum
            }
        };
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            v.iter_mut().for_each(|x| *x /= norm);
        }
        v
    }

    /// Embeds every text, spread over the machine's cores; results in input order.
    pub fn embed_many(&self, texts: &[String]) -> Vec<Vec<f32>> {
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(texts.len().max(1));
        let next = AtomicUsize::new(0);
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        let done: Vec<Vec<(usize, Vec<f32>)>> = std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    s.spawn(|| {
                        let mut mine = Vec::new();
                        loop {
                            let i = next.fetch_add(BATCH, Ordering::Relaxed);
                            let Some(batch) = texts.get(i..(i + BATCH).min(texts.len())) else {
                                break;
                            };
                            let refs: Vec<&str> = batch.iter().map(String::as_str).collect();
                            mine.extend(
                                self.embed_batch(&refs)
                                    .into_iter()
                                    .enumerate()
                                    .map(|(j, v)| (i + j, v)),
                            );
                        }
                        mine
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().expect("embedding worker panicked"))
                .collect()
        });
        for (i, v) in done.into_iter().flatten() {
            out[i] = v;
        }
        out
    }
}

fn hex16(digest: &[u8]) -> String {
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// Dot product (cosine, for unit vectors). Sixteen independent partial sums (one
/// AVX-512 or two AVX2 registers) let the compiler use SIMD (a single running f32
/// sum must stay sequential). Inlined, so a caller compiled for AVX2 or AVX-512
/// (`bert::linear_direct`) gets it in those instructions.
#[inline(always)]
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 16];
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..16 {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}
