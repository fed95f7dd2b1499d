//! Tool catalogs and tool-aware search for toolsearch.
//!
//! A [`Catalog`] is an immutable, cheaply cloned snapshot of tools with a content
//! fingerprint and a search index built once. Search is lexical, deterministic and
//! client-side: BM25F over name parts, server, description and parameters, with tiers
//! for exact names, name parts, prefixes and infixes, a coverage rule and a top band.
//!
//! ```
//! use toolsearch_catalog::{Catalog, SearchOptions, Source, Tool};
//! use serde_json::json;
//!
//! let catalog = Catalog::new(vec![
//!     Tool::new(Source::Mcp, Some("github"), "create_issue", "Open a new issue", json!({"type": "object"})),
//!     Tool::new(Source::Mcp, Some("slack"), "send_message", "Post a message", json!({"type": "object"})),
//! ])?;
//! let found = catalog.search("open an issue on github", &SearchOptions::default());
//! assert_eq!(found.hits[0].id, "mcp:github:create_issue");
//! # Ok::<(), toolsearch_catalog::CatalogError>(())
//! ```
#![deny(missing_docs)]

pub mod clean;
mod error;
mod exact;
mod index;
pub mod listing;
pub mod load;
pub mod lru;
mod pin;
pub mod query;
mod rank;
pub mod schema;
mod search;
pub mod text;
mod tool;
pub mod ts;

pub use error::CatalogError;
pub use listing::{Listing, ListingKind};
pub use load::{
    load_path, load_str, read_at_most, LoadOptions, LoadProblem, Loaded, MAX_CATALOG_FILE_BYTES,
};
pub use pin::{pin_exact, Pinned, EXACT_NAME_BONUS};
pub use rank::{KeywordHit, RuleScore};
pub use search::{
    band_for, clamp_limit, FusionDecision, Hit, MatchedBy, SearchOptions, SearchResult,
    BAND_FULL_TERMS, DEFAULT_BAND, DEFAULT_LIMIT, HARD_MAX_LIMIT, MAX_LIMIT, MAX_QUERIES,
};
pub use tool::{
    make_id, truncate_at_boundary, truncate_with_ellipsis, Annotations, Deferrable, Source, Tool,
    Upstream, DEGRADED_SCHEMA_NOTE, MAX_DESCRIPTION_BYTES, MAX_TITLE_BYTES,
};

use rustc_hash::FxHashMap;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// An immutable snapshot of tools with its search index. Clones share the data.
#[derive(Clone)]
pub struct Catalog {
    inner: Arc<Inner>,
}

struct Inner {
    tools: Vec<Tool>,
    by_id: FxHashMap<String, u32>,
    /// Lower-cased name and native name -> docs, ordered by id.
    exact: FxHashMap<String, Vec<u32>>,
    index: index::Index,
    /// Computed on first use: hashing the whole catalog is not needed to search it.
    fingerprint: std::sync::OnceLock<String>,
    /// Position of each tool in id order, for cheap deterministic tie-breaks.
    id_rank: Vec<u32>,
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog")
            .field("tools", &self.len())
            .field("fingerprint", &self.fingerprint())
            .finish()
    }
}

/// How a name given by a caller resolved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Resolved<'a> {
    /// Exactly one tool.
    One(&'a Tool),
    /// Several tools share that bare name; use an id.
    Ambiguous(usize),
    /// No tool.
    None,
}

/// Everything about one tool, for describe: the record plus a TypeScript declaration.
/// Everything in it is clean text (see [`clean`]); the declaration is bounded in size
/// and work ([`ts::MAX_TS_BYTES`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Description {
    /// The tool record (schemas verbatim).
    #[serde(flatten)]
    pub tool: Tool,
    /// `declare function name(args: {...}): Promise<...>;`
    pub typescript: String,
}

impl Catalog {
    /// Builds a snapshot and its index. Every tool is sanitised first
    /// ([`Tool::sanitize`]; a no-op for tools made by [`Tool::new`] and not changed
    /// since), so nothing a model reads from a catalog escapes cleaning.
    ///
    /// # Errors
    /// [`CatalogError::DuplicateId`] when two tools share an id;
    /// [`CatalogError::InvalidTool`] when an input schema is not a JSON object.
    pub fn new(mut tools: Vec<Tool>) -> Result<Catalog, CatalogError> {
        sanitize_all(&mut tools);
        Catalog::from_sanitized(tools)
    }

    /// [`Catalog::new`] for tools the loader has just sanitised.
    pub(crate) fn from_sanitized(tools: Vec<Tool>) -> Result<Catalog, CatalogError> {
        if let Some(t) = tools.iter().find(|t| !t.input_schema.is_object()) {
            return Err(CatalogError::InvalidTool {
                location: format!("tool `{}`", t.name),
                message: "input_schema must be a JSON Schema object".into(),
            });
        }
        // The id and name maps need no index: they are built while a core is free.
        let (index, maps) =
            index::Index::build_alongside(&tools, || Ok((id_map(&tools)?, name_maps(&tools))));
        let (by_id, (exact, id_rank)) = maps?;
        Ok(Catalog {
            inner: Arc::new(Inner {
                tools,
                by_id,
                exact,
                index,
                fingerprint: Default::default(),
                id_rank,
            }),
        })
    }

    /// The embedded demo catalog: a few dozen realistic built-in and MCP tools, so demos
    /// and examples need no files.
    pub fn demo() -> Catalog {
        let text = include_str!("../demo/catalog.jsonl");
        let loaded = load::load_jsonl(
            text,
            &LoadOptions {
                strict: true,
                ..Default::default()
            },
        )
        .expect("the embedded demo catalog is valid");
        loaded.catalog
    }

    /// An empty catalog.
    pub fn empty() -> Catalog {
        Catalog::new(Vec::new()).expect("an empty catalog is valid")
    }

    /// The tools, in insertion order.
    pub fn tools(&self) -> &[Tool] {
        &self.inner.tools
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.inner.tools.len()
    }

    /// True when there are no tools.
    pub fn is_empty(&self) -> bool {
        self.inner.tools.is_empty()
    }

    /// Hex SHA-256 of the tools' canonical JSON; equal catalogs have equal fingerprints.
    pub fn fingerprint(&self) -> &str {
        self.inner
            .fingerprint
            .get_or_init(|| fingerprint(&self.inner.tools))
    }

    /// Rank of a tool's id in ascending id order (ties in ranking break on it).
    pub(crate) fn id_rank(&self, doc: u32) -> u32 {
        self.inner.id_rank[doc as usize]
    }

    /// Position of the tool with this id in [`Catalog::tools`].
    pub fn position(&self, id: &str) -> Option<usize> {
        self.inner.by_id.get(id).map(|&i| i as usize)
    }

    /// The tool with this id.
    pub fn get(&self, id: &str) -> Option<&Tool> {
        self.inner
            .by_id
            .get(id)
            .map(|&i| &self.inner.tools[i as usize])
    }

    /// Resolves an id, or a name / native name (case-insensitive) that only one visible
    /// tool has.
    pub fn resolve(&self, name_or_id: &str, allow: &dyn Fn(&Tool) -> bool) -> Resolved<'_> {
        if let Some(t) = self.get(name_or_id).filter(|t| allow(t)) {
            return Resolved::One(t);
        }
        if let Some(t) = self.get(&name_or_id.to_lowercase()).filter(|t| allow(t)) {
            return Resolved::One(t);
        }
        let mut docs: Vec<&Tool> = self
            .inner
            .exact
            .get(&name_or_id.to_lowercase())
            .into_iter()
            .flatten()
            .map(|&d| &self.inner.tools[d as usize])
            .filter(|t| allow(t))
            .collect();
        // A tool whose own name is exactly this beats case-folded and native-name matches.
        if docs.len() > 1 {
            if let [t] = docs
                .iter()
                .filter(|t| t.name == name_or_id)
                .collect::<Vec<_>>()[..]
            {
                return Resolved::One(t);
            }
            docs.dedup_by_key(|t| t.id.clone());
        }
        match docs.len() {
            0 => Resolved::None,
            1 => Resolved::One(docs[0]),
            n => Resolved::Ambiguous(n),
        }
    }

    /// The full record and TypeScript declaration of a tool, by id.
    pub fn describe(&self, id: &str) -> Option<Description> {
        let tool = self.get(id)?.clone();
        let typescript = ts::declare(&tool);
        Some(Description { tool, typescript })
    }

    /// Distinct servers with their tool counts, sorted by name.
    pub fn servers(&self) -> Vec<(String, usize)> {
        let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
        for t in self.tools() {
            *counts
                .entry(
                    t.server
                        .clone()
                        .unwrap_or_else(|| listing::NO_SERVER.into()),
                )
                .or_insert(0) += 1;
        }
        counts.into_iter().collect()
    }
}

/// Sanitises every tool (on two threads for large catalogs, like the index build:
/// for clean tools it is a read of every string, a fifth of the index's work).
fn sanitize_all(tools: &mut [Tool]) {
    if tools.len() < index::PARALLEL_FROM {
        tools.iter_mut().for_each(|t| drop(t.sanitize()));
        return;
    }
    let (front, back) = tools.split_at_mut(tools.len() / 2);
    std::thread::scope(|s| {
        s.spawn(|| front.iter_mut().for_each(|t| drop(t.sanitize())));
        back.iter_mut().for_each(|t| drop(t.sanitize()));
    });
}

/// Each id's position; an error names the first id seen twice.
fn id_map(tools: &[Tool]) -> Result<FxHashMap<String, u32>, CatalogError> {
    let mut by_id = FxHashMap::default();
    by_id.reserve(tools.len());
    for (i, t) in tools.iter().enumerate() {
        if by_id.insert(t.id.clone(), i as u32).is_some() {
            return Err(CatalogError::DuplicateId { id: t.id.clone() });
        }
    }
    Ok(by_id)
}

/// Lower-cased name and native name -> tools (ordered by id), and each tool's rank in
/// id order.
fn name_maps(tools: &[Tool]) -> (FxHashMap<String, Vec<u32>>, Vec<u32>) {
    let mut order: Vec<u32> = (0..tools.len() as u32).collect();
    order.sort_unstable_by(|a, b| tools[*a as usize].id.cmp(&tools[*b as usize].id));
    let mut id_rank = vec![0u32; tools.len()];
    for (rank, &doc) in order.iter().enumerate() {
        id_rank[doc as usize] = rank as u32;
    }
    // Visited in id order, so each list comes out sorted by id.
    let mut exact: FxHashMap<String, Vec<u32>> = FxHashMap::default();
    for &doc in &order {
        let t = &tools[doc as usize];
        for key in [Some(&t.name), t.native_name.as_ref()]
            .into_iter()
            .flatten()
        {
            let list = exact.entry(key.to_lowercase()).or_default();
            if list.last() != Some(&doc) {
                list.push(doc);
            }
        }
    }
    (exact, id_rank)
}

fn fingerprint(tools: &[Tool]) -> String {
    let mut order: Vec<&Tool> = tools.iter().collect();
    order.sort_by(|a, b| a.id.cmp(&b.id));
    let mut hasher = Sha256::new();
    for t in order {
        hasher.update(serde_json::to_vec(t).expect("tools serialize"));
        if let Some(up) = &t.upstream {
            hasher.update(serde_json::to_vec(up).expect("upstream names serialize"));
        }
        hasher.update(b"\n");
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod ranking_tests;
#[cfg(test)]
mod tests;
