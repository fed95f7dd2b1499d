//! Ranking: BM25F over tool fields, name-part tiers, the coverage rule and the top band.

use crate::listing::{self, Listing};
use crate::query::{self, Query};
use crate::rank::{round4, Coverage, RankOptions, RuleScore};
use crate::tool::{Source, Tool};
use crate::{Catalog, CatalogError};
use serde::Serialize;

/// Results returned when the caller names no limit.
pub const DEFAULT_LIMIT: usize = 8;
/// The most results one query may return by default (also the most `select:` names
/// honoured); [`SearchOptions::max_limit`] changes it up to [`HARD_MAX_LIMIT`].
pub const MAX_LIMIT: usize = 20;
/// The most results any configuration may allow per query.
pub const HARD_MAX_LIMIT: usize = 50;
/// The most queries one call may carry.
pub const MAX_QUERIES: usize = 7;
/// Default top band: hits scoring under this share of the best score are dropped.
/// It is the band of a short query; a request of more words gets a looser one
/// ([`band_for`]).
pub const DEFAULT_BAND: f32 = 0.5;

/// Query terms up to which the top band applies in full.
pub const BAND_FULL_TERMS: usize = 3;

/// The top band for a query of `terms` distinct terms: `band` for up to
/// [`BAND_FULL_TERMS`], then `band × BAND_FULL_TERMS / terms`. A short query's top hit
/// matches most of it, and a hit at half its score is a weaker match of the same few
/// words; in a request of eight words, the tool for the second step of the task
/// matches other words than the first step's tool, and scores well under the best
/// without being any less relevant (on ToolLens the full band cost 0.015 recall@5).
pub fn band_for(band: f32, terms: usize) -> f32 {
    if terms <= BAND_FULL_TERMS {
        band
    } else {
        band * BAND_FULL_TERMS as f32 / terms as f32
    }
}
/// Default cap on a hit's one-line description, in bytes.
pub const DEFAULT_SUMMARY_BYTES: usize = 160;

/// How to search. `Default` gives the documented defaults.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// Results wanted; `None` means [`SearchOptions::default_limit`]; clamped to
    /// `1..=max_limit`.
    pub limit: Option<usize>,
    /// Results when no limit is asked for. Default [`DEFAULT_LIMIT`].
    pub default_limit: usize,
    /// Most results per query and most `select:` names. Default [`MAX_LIMIT`];
    /// at most [`HARD_MAX_LIMIT`].
    pub max_limit: usize,
    /// Keep hits scoring at least this share of the top score. Default [`DEFAULT_BAND`];
    /// 0 keeps every eligible hit.
    pub band: f32,
    /// Attach the score of each rule that fired to every hit.
    pub explain: bool,
    /// Cap on each hit's description, in bytes.
    pub summary_bytes: usize,
    /// Byte budget of the browse listing given for an empty query or no match.
    pub listing_bytes: usize,
    /// Try typo-tolerant name matching when lexical search finds nothing. Default true.
    pub fuzzy: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            limit: None,
            default_limit: DEFAULT_LIMIT,
            max_limit: MAX_LIMIT,
            band: DEFAULT_BAND,
            explain: false,
            summary_bytes: DEFAULT_SUMMARY_BYTES,
            listing_bytes: listing::DEFAULT_LISTING_BYTES,
            fuzzy: true,
        }
    }
}

/// How the hits were found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchedBy {
    /// Ranked keyword search (possibly with an exact-name hit first).
    Lexical,
    /// Keyword search fused with the embedding model: words and meaning together.
    Hybrid,
    /// No word matched: the hits are close in meaning only (the embedding model).
    Semantic,
    /// `select:` by exact name.
    Select,
    /// Typo-tolerant name matching, after lexical search found nothing.
    Fuzzy,
    /// Nothing matched (or nothing was asked): see the listing.
    Listing,
    /// `server:NAME`: one page of that server's tools, by name.
    Server,
}

impl MatchedBy {
    /// Whether the hits were ranked (by words, meaning or both), not picked by name
    /// or listed.
    pub fn is_ranked(self) -> bool {
        matches!(
            self,
            MatchedBy::Lexical | MatchedBy::Hybrid | MatchedBy::Semantic
        )
    }
}

/// One search result, compact enough to go back into a prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    /// Stable id (use it with describe and call).
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Server, when the tool has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Where the tool comes from.
    pub source: Source,
    /// First line of the description, capped.
    pub description: String,
    /// Relevance (rounded to 4 decimals so output is byte-stable).
    pub score: f64,
    /// Per-rule scores, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<Vec<RuleScore>>,
}

/// The answer to one search call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchResult {
    /// How the hits were found.
    pub matched_by: MatchedBy,
    /// Ranked hits, at most `limit` (20 for `select:`).
    pub hits: Vec<Hit>,
    /// Eligible tools before the limit was applied.
    pub total: usize,
    /// The limit used.
    pub limit: usize,
    /// Set when the requested limit was out of range and clamped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit_note: Option<String>,
    /// `select:` names that matched no visible tool.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_found: Vec<String>,
    /// A browse listing when there were no hits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listing: Option<Listing>,
    /// How to refine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// How a fused search combined its rankers (with `explain` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fusion: Option<FusionDecision>,
}

/// The per-query decisions of a search fused with an embedding model, as `explain`
/// shows them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FusionDecision {
    /// Weight of the lexical side, 0..=1.
    pub lexical_weight: f32,
    /// Share of the query's characters that are argument values (quoted text, URLs,
    /// paths, selectors, numbers and codes).
    pub value_share: f32,
    /// The text that was embedded: the query, or the query without its values when
    /// they are most of it.
    pub embedded: String,
    /// The lexical ranking's best tool, which fusion keeps in the first places.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lexical_top: Option<String>,
    /// Whether that tool was lifted to stay there.
    pub lexical_top_lifted: bool,
}

/// Clamps a requested limit to the default bounds; see [`SearchOptions::clamp`].
pub fn clamp_limit(requested: Option<usize>) -> (usize, Option<String>) {
    SearchOptions::default().clamp(requested)
}

impl SearchOptions {
    /// The most results per query these options allow (`1..=HARD_MAX_LIMIT`).
    pub fn max(&self) -> usize {
        self.max_limit.clamp(1, HARD_MAX_LIMIT)
    }

    /// Clamps a requested limit; the note says what happened when it was out of range.
    pub fn clamp(&self, requested: Option<usize>) -> (usize, Option<String>) {
        let max = self.max();
        match requested {
            None => (self.default_limit.clamp(1, max), None),
            Some(n) if (1..=max).contains(&n) => (n, None),
            Some(n) => {
                let used = n.clamp(1, max);
                (
                    used,
                    Some(format!("limit {n} is out of range 1..={max}; used {used}")),
                )
            }
        }
    }
}

impl Catalog {
    /// Searches every tool. See [`Catalog::search_scoped`].
    pub fn search(&self, query: &str, opts: &SearchOptions) -> SearchResult {
        self.search_scoped(query, opts, &|_| true)
    }

    /// Searches the tools `allow` admits; the others are invisible (never listed, never
    /// counted in `not_found` differently from missing tools).
    pub fn search_scoped(
        &self,
        query: &str,
        opts: &SearchOptions,
        allow: &dyn Fn(&Tool) -> bool,
    ) -> SearchResult {
        let (limit, limit_note) = opts.clamp(opts.limit);
        let mut result = SearchResult {
            matched_by: MatchedBy::Lexical,
            hits: Vec::new(),
            total: 0,
            limit,
            limit_note,
            not_found: Vec::new(),
            listing: None,
            hint: None,
            fusion: None,
        };
        match query::parse(query) {
            Query::Empty => self.browse(&mut result, opts, allow, None),
            Query::Server { name, page } => {
                let (listing, page_tools) = listing::server_page(self, &name, page, limit, allow);
                if page_tools.is_empty() {
                    result.matched_by = MatchedBy::Listing;
                } else {
                    result.matched_by = MatchedBy::Server;
                    result.total = listing.total_tools;
                    result.hits = page_tools
                        .into_iter()
                        .map(|p| self.hit(p as u32, 1.0, opts, None))
                        .collect();
                    let (page, pages) = (listing.page.unwrap_or(1), listing.pages.unwrap_or(1));
                    if page < pages {
                        let server = listing.server.as_deref().unwrap_or(&name);
                        result.hint = Some(format!(
                            "page {page} of {pages} of {server}'s {} tools: `server:{server} \
                             page:{}` for the next",
                            listing.total_tools,
                            page + 1
                        ));
                    }
                }
                result.listing = Some(listing);
            }
            Query::Select(names) => self.select(&mut result, &names, opts, allow),
            Query::Keywords(kw) => {
                let rank = RankOptions {
                    band: band_for(opts.band, kw.terms.len()),
                    limit,
                    coverage: Coverage::Enforce,
                    pin: true,
                    explain: opts.explain,
                };
                let (ranked, eligible) = self.rank(&kw, &rank, allow);
                // A mistyped tool name (`get_forcast`): close names go before word matches.
                // A query naming a tool exactly (`+get_file`, say) is no typo.
                let whole = query.trim();
                let typo = opts.fuzzy
                    && query::is_identifier_like(whole)
                    && !whole.contains(char::is_whitespace)
                    && !kw.exact.iter().any(|e| self.has_exact(e));
                let fuzzy = if opts.fuzzy && (ranked.is_empty() || typo) {
                    self.fuzzy(query, allow)
                } else {
                    Vec::new()
                };
                if ranked.is_empty() && fuzzy.is_empty() {
                    self.browse(&mut result, opts, allow, Some(query));
                    return result;
                }
                result.total = eligible
                    + fuzzy
                        .iter()
                        .filter(|f| !ranked.iter().any(|r| r.doc == f.0))
                        .count();
                let mut hits: Vec<Hit> = Vec::new();
                // Keep scores monotone: close names sit above the best word match.
                let above = ranked.first().map_or(0.0, |r| r.score);
                for &(doc, s) in fuzzy.iter().take(limit) {
                    let explain = opts.explain.then(|| {
                        let mut parts = vec![RuleScore::new("fuzzy_name", None, s)];
                        if above > 0.0 {
                            parts.push(RuleScore::new("above_word_matches", None, above));
                        }
                        parts
                    });
                    hits.push(self.hit(doc, above + s, opts, explain));
                }
                for r in ranked {
                    if hits.len() >= limit {
                        break;
                    }
                    if !fuzzy.iter().any(|f| f.0 == r.doc) {
                        let explain = opts.explain.then_some(r.parts);
                        hits.push(self.hit(r.doc, r.score, opts, explain));
                    }
                }
                if !fuzzy.is_empty() {
                    result.matched_by = MatchedBy::Fuzzy;
                    result.hint =
                        Some("no tool has that exact name; these names are close to it".into());
                }
                result.hits = hits;
            }
        }
        result
    }

    /// Runs up to [`MAX_QUERIES`] queries (one per step of a task) and merges their hits
    /// in query order without duplicates; each query contributes up to the limit.
    ///
    /// # Errors
    /// [`CatalogError::TooManyQueries`] past [`MAX_QUERIES`].
    pub fn search_many(
        &self,
        queries: &[&str],
        opts: &SearchOptions,
        allow: &dyn Fn(&Tool) -> bool,
    ) -> Result<SearchResult, CatalogError> {
        self.search_many_with(queries, opts, allow, |q| self.search_scoped(q, opts, allow))
    }

    /// [`Catalog::search_many`] with another ranker for each query (the embedding
    /// fusion): same query cap, same merge.
    ///
    /// # Errors
    /// [`CatalogError::TooManyQueries`] past [`MAX_QUERIES`].
    pub fn search_many_with(
        &self,
        queries: &[&str],
        opts: &SearchOptions,
        allow: &dyn Fn(&Tool) -> bool,
        mut search: impl FnMut(&str) -> SearchResult,
    ) -> Result<SearchResult, CatalogError> {
        if queries.len() > MAX_QUERIES {
            return Err(CatalogError::TooManyQueries {
                given: queries.len(),
                max: MAX_QUERIES,
            });
        }
        let mut results = queries.iter().map(|q| search(q));
        let Some(mut merged) = results.next() else {
            return Ok(self.search_scoped("", opts, allow));
        };
        for r in results {
            if merged.hits.is_empty() && !r.hits.is_empty() {
                merged.matched_by = r.matched_by;
                merged.listing = None;
                merged.hint = None;
            }
            merged.total += r.total;
            for hit in r.hits {
                if !merged.hits.iter().any(|h| h.id == hit.id) {
                    merged.hits.push(hit);
                }
            }
            for name in r.not_found {
                if !merged.not_found.contains(&name) {
                    merged.not_found.push(name);
                }
            }
        }
        Ok(merged)
    }

    /// The hit for the tool at `position` in [`Catalog::tools`] with `score`: how other
    /// rankers (the embedding fusion) report results in the same shape.
    ///
    /// # Panics
    /// When `position` is out of range.
    pub fn hit_at(&self, position: usize, score: f32, opts: &SearchOptions) -> Hit {
        self.hit(position as u32, score, opts, None)
    }

    pub(crate) fn hit(
        &self,
        doc: u32,
        score: f32,
        opts: &SearchOptions,
        explain: Option<Vec<RuleScore>>,
    ) -> Hit {
        let t = &self.tools()[doc as usize];
        Hit {
            id: t.id.clone(),
            name: t.name.clone(),
            server: t.server.clone(),
            source: t.source,
            description: t.summary(opts.summary_bytes),
            score: round4(score),
            explain,
        }
    }

    fn browse(
        &self,
        result: &mut SearchResult,
        opts: &SearchOptions,
        allow: &dyn Fn(&Tool) -> bool,
        unmatched: Option<&str>,
    ) {
        result.matched_by = MatchedBy::Listing;
        result.listing = Some(listing::overview(self, opts.listing_bytes, allow));
        result.hint = Some(match unmatched {
            Some(q) => format!(
                "no tool matched `{}`; try other words from a tool's name or purpose, \
                 `server:NAME` to list one server's tools, or `select:name1,name2`",
                crate::clean::clean_line(q, 80)
            ),
            None => "search with words from a tool's name or purpose; `server:NAME` lists \
                     one server's tools; `select:name1,name2` picks tools by name"
                .into(),
        });
    }
}
