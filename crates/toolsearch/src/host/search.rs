//! Search within a caller's scope: the shared snapshot (fused with the embedding
//! model when one is configured) and the caller's client tools, ranked as one
//! catalog (`overlay.rs`).

use serde_json::Value;
#[cfg(feature = "semantic")]
use std::sync::Arc;

use toolsearch_catalog::{Catalog, SearchOptions, SearchResult, Tool};

use super::{Host, Scope};
use crate::error::{ErrorCode, HostError};

impl Host {
    /// Searches (one query or several, merged) within the scope.
    pub fn search(
        &self,
        queries: &[&str],
        limit: Option<usize>,
        scope: &Scope,
    ) -> Result<Value, HostError> {
        self.search_explained(queries, limit, false, scope)
    }

    /// [`Host::search`], with each hit's score split into the rules that
    /// made it (the lexical fields matched, the embedding's share) and the
    /// fusion's decisions when `explain`: what `toolsearch search --explain`
    /// prints, and the operator page shows.
    pub fn search_explained(
        &self,
        queries: &[&str],
        limit: Option<usize>,
        explain: bool,
        scope: &Scope,
    ) -> Result<Value, HostError> {
        let catalog = self.catalog();
        let opts = SearchOptions {
            limit,
            default_limit: self.limits.default,
            max_limit: self.limits.max,
            explain,
            ..Default::default()
        };
        let allow = |t: &Tool| self.visible(t, scope);
        let invalid = |e: toolsearch_catalog::CatalogError| {
            HostError::new(ErrorCode::InvalidArgs, e.to_string())
        };
        let result = match &scope.client {
            None => self.rank(&catalog, self.vectors(&catalog), queries, &opts, &allow),
            Some(client) => {
                #[cfg(feature = "semantic")]
                let vectors = |combined: &Catalog| self.overlay_vectors(&catalog, combined);
                let overlay = self
                    .overlays
                    .get(
                        &catalog,
                        client,
                        #[cfg(feature = "semantic")]
                        &vectors,
                    )
                    .map_err(invalid)?;
                #[cfg(feature = "semantic")]
                let v = overlay.vectors.clone();
                #[cfg(not(feature = "semantic"))]
                let v = None;
                self.rank(&overlay.catalog, v, queries, &opts, &allow)
            }
        }?
        .map_err(invalid)?;
        scope.record(|t| t.searched(queries.len()));
        let mut out = serde_json::to_value(&result)
            .map_err(|e| HostError::new(ErrorCode::Unavailable, e.to_string()))?;
        // Once per conversation, and again when it changes: the same
        // sentence in every answer would cost the model bytes each time.
        let note = self.outage_note();
        if scope.tell(note.as_deref()) {
            out["unavailable"] = Value::from(note);
        }
        if let Some(up) = &self.availability {
            let hits = out.get_mut("hits").and_then(Value::as_array_mut);
            for hit in hits.into_iter().flatten() {
                let tool = hit["id"].as_str().and_then(|id| catalog.get(id));
                if tool.is_some_and(|t| !up(t)) {
                    hit["available"] = Value::Bool(false);
                }
            }
        }
        Ok(out)
    }

    /// The snapshot's vectors, when the model is on and they are ready.
    #[cfg(feature = "semantic")]
    fn vectors(&self, catalog: &Catalog) -> Vectors {
        self.semantic.as_ref().and_then(|s| s.index_for(catalog))
    }

    #[cfg(not(feature = "semantic"))]
    fn vectors(&self, _: &Catalog) -> Vectors {
        None
    }

    /// The vectors of a combined catalog: the snapshot's, plus its client tools
    /// embedded now; `None` until the snapshot's are ready.
    #[cfg(feature = "semantic")]
    fn overlay_vectors(&self, shared: &Catalog, combined: &Catalog) -> Vectors {
        let s = self.semantic.as_ref()?;
        let base = s.index_for(shared)?;
        match base.extended(s.embedder(), shared, combined) {
            Ok(v) => Some(Arc::new(v)),
            Err(e) => {
                tracing::warn!(error = %e, "client tools not embedded; their search is lexical");
                None
            }
        }
    }

    /// Ranks with the embedding model when `vectors` (the `semantic` feature) are
    /// given; lexically otherwise.
    fn rank(
        &self,
        catalog: &Catalog,
        vectors: Vectors,
        queries: &[&str],
        opts: &SearchOptions,
        allow: &dyn Fn(&Tool) -> bool,
    ) -> Result<Result<SearchResult, toolsearch_catalog::CatalogError>, HostError> {
        #[cfg(feature = "semantic")]
        if let (Some(s), Some(index)) = (self.semantic.as_ref(), vectors) {
            let hybrid = toolsearch_embed::Hybrid::new(catalog, &index, s.embedder())
                .map_err(|e| HostError::new(ErrorCode::Unavailable, e.to_string()))?;
            return Ok(hybrid.search_many(queries, opts, allow));
        }
        #[cfg(not(feature = "semantic"))]
        let _ = vectors;
        Ok(catalog.search_many(queries, opts, allow))
    }
}

/// A catalog's vectors for the fused ranking (always `None` without the model).
#[cfg(feature = "semantic")]
type Vectors = Option<Arc<toolsearch_embed::SemanticIndex>>;
#[cfg(not(feature = "semantic"))]
type Vectors = Option<std::convert::Infallible>;
