//! The optional embedding model behind a host's search. Embedding a large catalog
//! takes minutes the first time, so vectors are built on a background thread per
//! catalog snapshot; until they are ready (or if building fails), search stays lexical.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use toolsearch_catalog::Catalog;
use toolsearch_embed::{Embedder, SemanticIndex};

/// A model, its vector cache directory, and the vectors of the newest snapshot.
pub struct SemanticSearch {
    embedder: Arc<Embedder>,
    cache: Option<PathBuf>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Fingerprint of the snapshot being embedded, if any.
    building: Option<String>,
    ready: Option<Arc<SemanticIndex>>,
    /// Why the last build failed (search stays lexical).
    failed: Option<String>,
}

impl std::fmt::Debug for SemanticSearch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SemanticSearch")
            .field("model", &self.embedder.model_id())
            .finish()
    }
}

impl SemanticSearch {
    /// Fuses `embedder` with the lexical search; tool vectors are cached in `cache`.
    pub fn new(embedder: Arc<Embedder>, cache: Option<PathBuf>) -> Arc<Self> {
        Arc::new(SemanticSearch {
            embedder,
            cache,
            state: Mutex::new(State::default()),
        })
    }

    /// The model.
    pub fn embedder(&self) -> &Embedder {
        &self.embedder
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts embedding `catalog` in the background unless its vectors are ready or
    /// already being built.
    pub(crate) fn refresh(self: &Arc<Self>, catalog: &Catalog) {
        let fp = catalog.fingerprint().to_string();
        {
            let mut st = self.state();
            let current = st.ready.as_ref().is_some_and(|ix| ix.fingerprint() == fp);
            if current || st.building.as_deref() == Some(fp.as_str()) {
                return;
            }
            st.building = Some(fp.clone());
        }
        let this = Arc::clone(self);
        let catalog = catalog.clone();
        let spawned = std::thread::Builder::new()
            .name("toolsearch-embed".into())
            .spawn(move || {
                let start = Instant::now();
                // A newer snapshot supersedes this one: its work stops at the next step.
                let superseded = || this.state().building.as_deref() != Some(fp.as_str());
                let built = SemanticIndex::build_with(
                    &this.embedder,
                    &catalog,
                    this.cache.as_deref(),
                    &superseded,
                );
                let mut st = this.state();
                if st.building.as_deref() != Some(fp.as_str()) {
                    return; // a newer snapshot superseded this one
                }
                st.building = None;
                match built {
                    Ok(ix) => {
                        tracing::info!(
                            tools = catalog.len(),
                            embedded = ix.stats().embedded,
                            ms = start.elapsed().as_millis() as u64,
                            "semantic search ready"
                        );
                        st.ready = Some(Arc::new(ix));
                        st.failed = None;
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "semantic index failed; search stays lexical");
                        st.failed = Some(e.to_string());
                    }
                }
            });
        if let Err(e) = spawned {
            let mut st = self.state();
            st.building = None;
            st.failed = Some(format!("cannot start the embedding thread: {e}"));
        }
    }

    /// The vectors of `catalog`, when they are ready.
    pub(crate) fn index_for(&self, catalog: &Catalog) -> Option<Arc<SemanticIndex>> {
        self.state()
            .ready
            .clone()
            .filter(|ix| ix.fingerprint() == catalog.fingerprint())
    }

    /// Waits up to `timeout` for the vectors of `catalog`; `Err` with the reason when
    /// building failed, `Ok(false)` on timeout.
    ///
    /// # Errors
    /// The build's error message.
    pub fn wait_ready(&self, catalog: &Catalog, timeout: Duration) -> Result<bool, String> {
        let deadline = Instant::now() + timeout;
        loop {
            if self.index_for(catalog).is_some() {
                return Ok(true);
            }
            if let Some(e) = self.state().failed.clone() {
                return Err(e);
            }
            if Instant::now() >= deadline {
                return Ok(false);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
