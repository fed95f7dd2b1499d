//! `--embed-model`: the optional embedding model fused with the lexical search, by
//! the default fusion ([`Fusion::Distribution`](toolsearch_embed::Fusion::Distribution),
//! equal weights); `toolsearch-lab` adds `--fusion` and `--lexical-weight` to compare
//! others.

use anyhow::{Context, Result};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Instant;
use toolsearch_catalog::Catalog;
use toolsearch_embed::{Embedder, SemanticIndex};

#[derive(clap::Args, Debug, Clone)]
pub struct SemanticArgs {
    /// Fuse an embedding model with the lexical search: a sentence-transformers model
    /// directory (default: the one `toolsearch model fetch` installs in the user's
    /// cache). Also read from TOOLSEARCH_EMBED_MODEL.
    #[arg(long, env = "TOOLSEARCH_EMBED_MODEL")]
    embed_model: Option<PathBuf>,
    /// Where tool embeddings are cached (default: ~/.cache/toolsearch/embeddings).
    #[arg(long)]
    embed_cache: Option<PathBuf>,
    /// Search without the embedding model, even where one is installed.
    #[arg(long, conflicts_with = "embed_model")]
    lexical: bool,
}

/// A loaded model and the catalog's embeddings.
pub struct Semantic {
    pub embedder: Embedder,
    pub index: SemanticIndex,
    pub cache: Option<PathBuf>,
    pub report: Value,
}

impl SemanticArgs {
    /// True when `--lexical` asked for lexical search.
    pub fn lexical_asked(&self) -> bool {
        self.lexical
    }

    /// As [`SemanticArgs::load`], with the installed model when none is named (the
    /// default ranking of `search`: fused wherever `toolsearch model fetch` ran),
    /// unless `--lexical`.
    pub fn load_default(&self, catalog: &Catalog) -> Result<Option<Semantic>> {
        if self.lexical {
            return Ok(None);
        }
        if self.embed_model.is_some() {
            return self.load(catalog);
        }
        let Some(dir) = toolsearch_embed::default_model_dir() else {
            return Ok(None);
        };
        let named = SemanticArgs {
            embed_model: Some(dir),
            ..self.clone()
        };
        named.load(catalog)
    }

    /// Loads the model and embeds the catalog (or reads the cache); `None` without a model.
    pub fn load(&self, catalog: &Catalog) -> Result<Option<Semantic>> {
        let Some(dir) = &self.embed_model else {
            return Ok(None);
        };
        let start = Instant::now();
        let embedder = Embedder::load(dir)
            .with_context(|| format!("loading the embedding model in {}", dir.display()))?;
        let load_ms = start.elapsed().as_secs_f64() * 1e3;
        let cache = self
            .embed_cache
            .clone()
            .or_else(toolsearch_embed::default_cache_dir);
        let start = Instant::now();
        let index = SemanticIndex::build(&embedder, catalog, cache.as_deref())?;
        let index_ms = start.elapsed().as_secs_f64() * 1e3;
        let report = json!({
            "model_id": embedder.model_id(),
            "dim": embedder.dim(),
            "fusion": "distribution",
            "model_load_ms": r1(load_ms),
            "tool_embeddings_ms": r1(index_ms),
            "tools_embedded": index.stats().embedded,
            "cache": cache.as_ref().map(|c| c.display().to_string()),
        });
        Ok(Some(Semantic {
            embedder,
            index,
            cache,
            report,
        }))
    }
}

pub fn r1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}
