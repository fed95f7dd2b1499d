//! The embedding model as the lab loads it: the product's `--embed-model` flags
//! ([`toolsearch_cli::semantic::SemanticArgs`]) plus the choice of fusion, which only
//! the lab has (`--fusion`, `--lexical-weight`; `Fusion::Convex` and `Fusion::Rrf` are
//! behind toolsearch-embed's `lab` feature).

use anyhow::Result;
use serde_json::Value;
use std::path::PathBuf;
use toolsearch_catalog::Catalog;
use toolsearch_embed::{Embedder, Fusion, SemanticIndex};

pub use toolsearch_cli::semantic::r1;

/// The product's model flags and the lab's fusion flags (a name of its own: clap
/// names each flattened group after its type).
#[derive(clap::Args, Debug, Clone)]
pub struct LabSemanticArgs {
    #[command(flatten)]
    model: toolsearch_cli::semantic::SemanticArgs,
    /// How the rankings combine: `distribution` (the product's: each side's scores
    /// normalised by their mean and spread, equal weights), `convex` (lexical over its
    /// maximum, similarity min-max), `rrf`, or `semantic` (similarity alone, for
    /// comparison).
    #[arg(long, default_value = "distribution")]
    fusion: String,
    /// Weight of the lexical score in `distribution` and `convex` fusion, 0..=1.
    #[arg(long, default_value_t = 0.5)]
    lexical_weight: f32,
}

/// A loaded model, the catalog's embeddings and the fusion to rank with.
pub struct Semantic {
    pub embedder: Embedder,
    pub index: SemanticIndex,
    pub fusion: Fusion,
    pub cache: Option<PathBuf>,
    pub report: Value,
}

impl LabSemanticArgs {
    /// The fusion the flags name.
    fn fusion(&self) -> Result<Fusion> {
        anyhow::ensure!(
            (0.0..=1.0).contains(&self.lexical_weight),
            "--lexical-weight must be between 0 and 1, not {}",
            self.lexical_weight
        );
        let lexical_weight = self.lexical_weight;
        Ok(match self.fusion.as_str() {
            "distribution" => Fusion::Distribution { lexical_weight },
            "convex" => Fusion::Convex { lexical_weight },
            "rrf" => Fusion::Rrf { k: 60.0 },
            "semantic" => Fusion::Convex { lexical_weight: 0.0 },
            other => anyhow::bail!("--fusion must be `distribution`, `convex`, `rrf` or `semantic` (similarity only, for comparison), not `{other}`"),
        })
    }

    /// Loads the model and embeds the catalog (or reads the cache); `None` without a
    /// model. The fusion flags are checked first, model or not.
    pub fn load(&self, catalog: &Catalog) -> Result<Option<Semantic>> {
        let fusion = self.fusion()?;
        let Some(loaded) = self.model.load(catalog)? else {
            return Ok(None);
        };
        let mut report = loaded.report;
        report["fusion"] = self.fusion.clone().into();
        Ok(Some(Semantic {
            embedder: loaded.embedder,
            index: loaded.index,
            fusion,
            cache: loaded.cache,
            report,
        }))
    }
}
