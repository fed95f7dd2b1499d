//! A caller's client tools searched together with the shared snapshot, as **one**
//! catalog: one corpus (word rarity and field lengths over both), one fusion with
//! the embedding model, one exact-name rule and one cutoff. Ranking the two apart and
//! sorting the scores together compared BM25 scores from indexes with different
//! IDF (and fused scores with lexical ones).
//!
//! The combined catalog is built once per (snapshot, client tools) pair, on the first
//! search that needs it, and the [`OVERLAYS`] most recent are kept: a run's client
//! tools are searched many times. Building costs about one index build of the
//! snapshot (tens of milliseconds at 9,648 tools), plus embedding the client tools
//! when the model is on; the shared index itself is never rebuilt.

use std::sync::{Arc, Mutex};

use toolsearch_catalog::{Catalog, CatalogError};

use super::ClientTools;

/// Combined catalogs kept.
pub const OVERLAYS: usize = 4;

/// One snapshot with one caller's client tools.
pub(crate) struct Overlay {
    key: (String, String),
    pub catalog: Catalog,
    /// The combined catalog's vectors (the snapshot's copied, the client tools'
    /// embedded), once the snapshot's are ready.
    #[cfg(feature = "semantic")]
    pub vectors: Option<Arc<toolsearch_embed::SemanticIndex>>,
}

/// The most recently used overlays, newest last.
#[derive(Default)]
pub(crate) struct Overlays {
    kept: Mutex<Vec<Arc<Overlay>>>,
}

impl Overlays {
    /// The combined catalog of `shared` and `client`, built when missing.
    /// `vectors(base, combined)` gives the combined vectors when the model has them.
    ///
    /// # Errors
    /// A client tool whose id a shared tool already has.
    pub(crate) fn get(
        &self,
        shared: &Catalog,
        client: &ClientTools,
        #[cfg(feature = "semantic")] vectors: &dyn Fn(
            &Catalog,
        ) -> Option<
            Arc<toolsearch_embed::SemanticIndex>,
        >,
    ) -> Result<Arc<Overlay>, CatalogError> {
        let key = (
            shared.fingerprint().to_owned(),
            client.catalog.fingerprint().to_owned(),
        );
        let found = {
            let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
            let at = kept.iter().position(|o| o.key == key);
            at.map(|i| {
                let o = kept.remove(i);
                kept.push(Arc::clone(&o));
                o
            })
        };
        #[cfg(feature = "semantic")]
        if let Some(o) = &found {
            if o.vectors.is_some() {
                return Ok(Arc::clone(o));
            }
            // Built before the snapshot's vectors were ready: add them when they are.
            if let Some(v) = vectors(&o.catalog) {
                return Ok(self.keep(Overlay {
                    key,
                    catalog: o.catalog.clone(),
                    vectors: Some(v),
                }));
            }
            return Ok(Arc::clone(o));
        }
        #[cfg(not(feature = "semantic"))]
        if let Some(o) = found {
            return Ok(o);
        }
        let mut tools = shared.tools().to_vec();
        tools.extend(client.catalog.tools().iter().cloned());
        let catalog = Catalog::new(tools)?;
        Ok(self.keep(Overlay {
            key,
            #[cfg(feature = "semantic")]
            vectors: vectors(&catalog),
            catalog,
        }))
    }

    fn keep(&self, overlay: Overlay) -> Arc<Overlay> {
        let overlay = Arc::new(overlay);
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        kept.retain(|o| o.key != overlay.key);
        if kept.len() >= OVERLAYS {
            kept.remove(0);
        }
        kept.push(Arc::clone(&overlay));
        overlay
    }
}
