//! Search within a caller's scope: the shared snapshot (fused with the embedding
//! model when one is configured) and the caller's client tools, one ranked list.

use serde_json::Value;
use toolsearch_catalog::{SearchOptions, SearchResult, Tool};

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
        let catalog = self.catalog();
        let opts = SearchOptions {
            limit,
            default_limit: self.limits.default,
            max_limit: self.limits.max,
            ..Default::default()
        };
        let allow = |t: &Tool| self.visible(t, scope);
        let invalid = |e: toolsearch_catalog::CatalogError| {
            HostError::new(ErrorCode::InvalidArgs, e.to_string())
        };
        let mut result = self
            .rank(&catalog, queries, &opts, &allow)?
            .map_err(invalid)?;
        if let Some(client) = &scope.client {
            let extra = client
                .catalog
                .search_many(queries, &opts, &allow)
                .map_err(invalid)?;
            result = merge(result, extra);
        }
        self.telemetry(scope.session()).searched(queries.len());
        let mut out = serde_json::to_value(&result)
            .map_err(|e| HostError::new(ErrorCode::Unavailable, e.to_string()))?;
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

    /// Ranks with the embedding model when one is configured (the `semantic`
    /// feature) and its index for this snapshot is ready; lexically otherwise.
    fn rank(
        &self,
        catalog: &toolsearch_catalog::Catalog,
        queries: &[&str],
        opts: &SearchOptions,
        allow: &dyn Fn(&Tool) -> bool,
    ) -> Result<Result<SearchResult, toolsearch_catalog::CatalogError>, HostError> {
        #[cfg(feature = "semantic")]
        if let Some((s, index)) = self
            .semantic
            .as_ref()
            .and_then(|s| Some((s, s.index_for(catalog)?)))
        {
            let hybrid = toolsearch_embed::Hybrid::new(catalog, &index, s.embedder())
                .map_err(|e| HostError::new(ErrorCode::Unavailable, e.to_string()))?;
            return Ok(hybrid.search_many(queries, opts, allow));
        }
        Ok(catalog.search_many(queries, opts, allow))
    }
}

/// Merges an overlay's search result into the shared one: hits by score (ties by id),
/// at most the larger limit, without duplicates.
fn merge(mut base: SearchResult, extra: SearchResult) -> SearchResult {
    if extra.hits.is_empty() {
        return base;
    }
    if base.hits.is_empty() {
        return SearchResult {
            total: base.total + extra.total,
            ..extra
        };
    }
    let limit = base.limit.max(extra.limit);
    base.total += extra.total;
    for hit in extra.hits {
        if !base.hits.iter().any(|h| h.id == hit.id) {
            base.hits.push(hit);
        }
    }
    base.hits
        .sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
    base.hits.truncate(limit);
    base
}
