//! Lexical + semantic fusion. The lexical engine keeps everything that is syntax
//! (`select:`, `server:`, `+word`, typo-tolerant names); for keyword queries its
//! ranking (50 deep, no top band, no exact-name rule) is fused with the embedding's 50
//! nearest neighbours, then the tools the query names exactly are put first by the
//! catalog's one exact-name rule ([`toolsearch_catalog::pin_exact`]), as lexical search
//! puts them. The top band is not applied to fused scores (it cost recall on both
//! query sets); [`DEFAULT_MIN_SIMILARITY`] keeps junk out instead.

use crate::rerank::{rerank, RequestWords};
use crate::values::embedded_text;
use crate::{EmbedError, Embedder, SemanticIndex};
use toolsearch_catalog::query::{self, Keywords, Query};
use toolsearch_catalog::{
    pin_exact, Catalog, FusionDecision, Hit, MatchedBy, RuleScore, SearchOptions, SearchResult,
    Tool,
};

/// How the rankings are combined. The default, [`Fusion::Distribution`], is the one
/// production ranking; the variants kept to compare against it, `Convex` and `Rrf`,
/// exist only with the crate's non-default `lab` feature (`toolsearch-lab` turns it on).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Fusion {
    /// Distribution-based score fusion (the default): each side's scores are mapped
    /// through `(x - (mean - 3 sd)) / 6 sd`, clamped to 0..=1, then weighted; the mean
    /// and sd are those of the lexical candidates, and of every semantic neighbour
    /// retrieved (before the similarity floor cuts the list). Unlike dividing by the
    /// maximum, a lexical list whose best hit is only marginally better than the rest
    /// (a weak match) does not get a full-strength leader, and one outlier cannot
    /// squash the rest of a list.
    Distribution {
        /// Weight of the lexical score, 0..=1.
        lexical_weight: f32,
    },
    /// `w * lexical/lexical_max + (1 - w) * normalised similarity`, the similarity
    /// min-max normalised over every semantic neighbour retrieved (a convex
    /// combination). Feature `lab`.
    #[cfg(feature = "lab")]
    Convex {
        /// Weight of the lexical score, 0..=1.
        lexical_weight: f32,
    },
    /// Reciprocal-rank fusion: `1/(k + lexical rank) + 1/(k + semantic rank)`.
    /// Feature `lab`.
    #[cfg(feature = "lab")]
    Rrf {
        /// The rank offset (60 in the original paper).
        k: f32,
    },
}

impl Fusion {
    /// The lexical side's weight (0.5 for reciprocal-rank fusion, which weighs the
    /// sides equally).
    pub fn lexical_weight(&self) -> f32 {
        match *self {
            Fusion::Distribution { lexical_weight } => lexical_weight,
            #[cfg(feature = "lab")]
            Fusion::Convex { lexical_weight } => lexical_weight,
            #[cfg(feature = "lab")]
            Fusion::Rrf { .. } => 0.5,
        }
    }
}

impl Default for Fusion {
    fn default() -> Self {
        Fusion::Distribution {
            lexical_weight: 0.5,
        }
    }
}

/// The normalisation of [`Fusion::Distribution`] for one list's scores: a function
/// taking a score to 0..=1. A list whose scores are all equal (one candidate, say)
/// gives every candidate 1: each is as good as that side's best.
fn distribution_norm(scores: impl Iterator<Item = f32> + Clone) -> impl Fn(f32) -> f32 {
    let n = scores.clone().count().max(1) as f32;
    let mean = scores.clone().sum::<f32>() / n;
    let sd = (scores.map(|x| (x - mean).powi(2)).sum::<f32>() / n).sqrt();
    let lo = mean - 3.0 * sd;
    move |x| {
        if sd < 1e-6 {
            1.0
        } else {
            ((x - lo) / (6.0 * sd)).clamp(0.0, 1.0)
        }
    }
}

/// Semantic neighbours considered per query.
const DEPTH: usize = 50;

/// A tool that matches no word of the query needs at least this cosine similarity to
/// be a result: the semantic side's coverage rule (a query of junk finds nothing rather
/// than the least unrelated tools). MiniLM puts unrelated texts below about 0.2, and
/// a short request scores about that against the tool it needs ("Will it rain in
/// Lisbon tomorrow?" against a weather tool: 0.243), so the floor sits at 0.2.
pub const DEFAULT_MIN_SIMILARITY: f32 = 0.2;

/// A catalog, its embeddings and the model, searched together.
#[derive(Debug, Clone, Copy)]
pub struct Hybrid<'a> {
    catalog: &'a Catalog,
    index: &'a SemanticIndex,
    embedder: &'a Embedder,
    fusion: Fusion,
    min_similarity: f32,
}

impl<'a> Hybrid<'a> {
    /// Pairs a catalog with its embeddings.
    ///
    /// # Errors
    /// [`EmbedError::Model`] when `index` was built for another catalog snapshot.
    pub fn new(
        catalog: &'a Catalog,
        index: &'a SemanticIndex,
        embedder: &'a Embedder,
    ) -> Result<Hybrid<'a>, EmbedError> {
        if index.fingerprint() != catalog.fingerprint() || index.len() != catalog.len() {
            return Err(EmbedError::Model(
                "the semantic index was built for another catalog snapshot".into(),
            ));
        }
        Ok(Hybrid {
            catalog,
            index,
            embedder,
            fusion: Fusion::default(),
            min_similarity: DEFAULT_MIN_SIMILARITY,
        })
    }

    /// Uses `fusion` to combine the rankings.
    pub fn with_fusion(mut self, fusion: Fusion) -> Self {
        self.fusion = fusion;
        self
    }

    /// Sets the similarity a tool matching no query word needs (see
    /// [`DEFAULT_MIN_SIMILARITY`]).
    pub fn with_min_similarity(mut self, min_similarity: f32) -> Self {
        self.min_similarity = min_similarity;
        self
    }

    /// Searches every tool.
    pub fn search(&self, query: &str, opts: &SearchOptions) -> SearchResult {
        self.search_scoped(query, opts, &|_| true)
    }

    /// Several queries merged as [`Catalog::search_many`] merges them.
    ///
    /// # Errors
    /// [`toolsearch_catalog::CatalogError::TooManyQueries`] past the query cap.
    pub fn search_many(
        &self,
        queries: &[&str],
        opts: &SearchOptions,
        allow: &dyn Fn(&Tool) -> bool,
    ) -> Result<SearchResult, toolsearch_catalog::CatalogError> {
        self.catalog
            .search_many_with(queries, opts, allow, |q| self.search_scoped(q, opts, allow))
    }

    /// Searches the tools `allow` admits (see [`Catalog::search_scoped`]).
    pub fn search_scoped(
        &self,
        query: &str,
        opts: &SearchOptions,
        allow: &dyn Fn(&Tool) -> bool,
    ) -> SearchResult {
        self.search_embedded(query, opts, allow, &|text| self.embedder.embed_query(text))
    }

    /// As [`Hybrid::search_scoped`], with the embedding of the text to embed (the
    /// request's [`embedded_text`]) given by `vector_of` (batch evaluation embeds all
    /// queries first, on every core).
    pub fn search_embedded(
        &self,
        query: &str,
        opts: &SearchOptions,
        allow: &dyn Fn(&Tool) -> bool,
        vector_of: &dyn Fn(&str) -> std::sync::Arc<[f32]>,
    ) -> SearchResult {
        match query::parse(query) {
            // `+word` is a filter on words: such a query stays lexical, as written.
            Query::Keywords(kw) if !kw.terms.iter().any(|t| t.required) => {
                let v = vector_of(&embedded_text(query).0);
                self.fused(query, &kw, &v, opts, allow)
            }
            _ => self.catalog.search_scoped(query, opts, allow),
        }
    }

    /// The fused ranking of a keyword query.
    fn fused(
        &self,
        query: &str,
        kw: &Keywords,
        vector: &[f32],
        opts: &SearchOptions,
        allow: &dyn Fn(&Tool) -> bool,
    ) -> SearchResult {
        let tools = self.catalog.tools();
        let ranking = self.catalog.keyword_ranking(kw, DEPTH, allow);
        // A tool matching only an incidental word of the query (it fails the lexical
        // coverage rule) is a candidate only when it is also close in meaning: the
        // word is weak evidence that the embedding confirms or rejects.
        let lex: Vec<(usize, f32)> = ranking
            .iter()
            .filter(|h| h.covered || self.index.similarity(h.doc, vector) >= self.min_similarity)
            .map(|h| (h.doc, h.score))
            .collect();
        // Nothing matched a word: the lexical answer (close names, else the listing)
        // stands if it found a mistyped tool name, or if meaning finds nothing either.
        let lexical = if lex.is_empty() {
            let lexical = self.catalog.search_scoped(query, opts, allow);
            if lexical.matched_by == MatchedBy::Fuzzy {
                return lexical;
            }
            Some(lexical)
        } else {
            None
        };
        let retrieved: Vec<(usize, f32)> = self.index.nearest(vector, DEPTH, &|d| allow(&tools[d]));
        // The semantic side's coverage rule: a tool that matches no word of the query
        // must at least be close in meaning, or it is junk, not a result. The scores
        // are normalised over the whole retrieved list, before this floor cuts it: a
        // lone survivor with a low similarity must not count as a perfect match.
        let semantic: Vec<(usize, f32)> = retrieved
            .iter()
            .copied()
            .filter(|s| s.1 >= self.min_similarity || lex.iter().any(|l| l.0 == s.0))
            .collect();
        if let (Some(lexical), true) = (lexical, semantic.is_empty()) {
            return lexical;
        }
        let candidates = Candidates {
            lex: &lex,
            semantic: &semantic,
            retrieved: &retrieved,
        };
        let mut fused = fuse(
            self.fusion,
            &candidates,
            |d| self.index.similarity(d, vector),
            |d| tools[d].id.as_str(),
        );
        // The request's fit to each candidate's parameters reorders them.
        let request = RequestWords::new(kw.terms.iter().map(|t| t.stem.as_str()));
        rerank(
            &mut fused,
            &request,
            |d| self.index.param_words(d, &tools[d]),
            |d| tools[d].id.as_str(),
        );
        let (limit, limit_note) = opts.clamp(opts.limit);
        // The tools the query names exactly come first, by the rule lexical search
        // applies: every one of them, added when neither side found it.
        let exact = self.catalog.exact_name_docs(kw, allow);
        let pinned = pin_exact(
            &mut fused,
            &exact,
            |f| f.0,
            |f| &mut f.1,
            |d| (d, 0.0, Vec::new()),
        );
        for f in fused.iter_mut().take(pinned.count) {
            f.2.insert(0, RuleScore::new("exact_name", None, pinned.lift));
        }
        // A query that is one tool's exact name answers that tool alone.
        if kw.names_only(pinned.count) {
            fused.truncate(pinned.count);
        }
        // The lexical ranking's best tool stays in the first places: the embedding
        // may add what words miss, not push out what they found.
        let lexical_top = ranking.iter().find(|h| h.covered).map(|h| h.doc);
        let lifted = lexical_top.is_some_and(|d| keep_near_top(&mut fused, d, pinned.count));
        let decision = opts.explain.then(|| {
            let (embedded, value_share) = embedded_text(query);
            FusionDecision {
                lexical_weight: self.fusion.lexical_weight(),
                value_share: (value_share * 1000.0).round() / 1000.0,
                embedded: embedded.into_owned(),
                lexical_top: lexical_top.map(|d| tools[d].id.clone()),
                lexical_top_lifted: lifted,
            }
        });
        let total = fused.len();
        let hits: Vec<Hit> = fused
            .into_iter()
            .take(limit)
            .map(|(d, score, parts)| {
                let mut hit = self.catalog.hit_at(d, score, opts);
                if opts.explain {
                    hit.explain = Some(parts);
                }
                hit
            })
            .collect();
        SearchResult {
            matched_by: if lex.is_empty() && pinned.count == 0 {
                MatchedBy::Semantic
            } else {
                MatchedBy::Hybrid
            },
            hits,
            total,
            limit,
            limit_note,
            not_found: Vec::new(),
            listing: None,
            hint: lex
                .is_empty()
                .then(|| "no tool matched the words; these are close in meaning".into()),
            fusion: decision,
        }
    }
}

/// The place (0-based) the lexical ranking's best tool keeps in a fused ranking, at
/// worst: fitted on ToolLens (recall@5 0.342 → 0.346) and held on every other public
/// set (mcp_tasks 0.895 → 0.910, BFCL 0.723 → 0.725, BFCL on 9,648 tools 0.709 →
/// 0.711; `eval/fusion_study.py`). Keeping the lexical top two as well cost BFCL on
/// 9,648 tools 0.005, so only the first is kept.
pub const LEXICAL_TOP_PLACE: usize = 2;

/// Moves `doc` up to [`LEXICAL_TOP_PLACE`] (or just after the `pinned` exact names)
/// when fusion ranked it lower, with the score of the tool it displaces (a
/// `lexical_top` part makes up the difference, so the parts still add up and the
/// scores stay in order). Whether it moved.
fn keep_near_top(fused: &mut Vec<(usize, f32, Vec<RuleScore>)>, doc: usize, pinned: usize) -> bool {
    let target = LEXICAL_TOP_PLACE.max(pinned);
    let Some(at) = fused.iter().position(|f| f.0 == doc) else {
        return false;
    };
    if at <= target {
        return false;
    }
    let mut entry = fused.remove(at);
    let score = fused[target].1;
    entry
        .2
        .push(RuleScore::new("lexical_top", None, score - entry.1));
    entry.1 = score;
    fused.insert(target, entry);
    true
}

/// The two sides' candidates for [`fuse`], as (doc, score) best first.
struct Candidates<'c> {
    /// Lexical hits and their scores.
    lex: &'c [(usize, f32)],
    /// Semantic candidates (after the similarity floor) and their similarity.
    semantic: &'c [(usize, f32)],
    /// The semantic side's list before the floor: its scores set the normalisation,
    /// so a lone survivor with a low similarity does not count as a perfect match.
    retrieved: &'c [(usize, f32)],
}

/// Combined scores, best first, ties by `id`; each with its parts for `explain`, which
/// add up to the score (the semantic part also carries the similarity it came from).
/// `similarity` gives the similarity of a lexical hit the semantic side did not list.
fn fuse<'i>(
    fusion: Fusion,
    c: &Candidates,
    similarity: impl Fn(usize) -> f32,
    id: impl Fn(usize) -> &'i str,
) -> Vec<(usize, f32, Vec<RuleScore>)> {
    let Candidates {
        lex,
        semantic,
        retrieved,
    } = *c;
    let mut docs: Vec<usize> = lex.iter().chain(semantic).map(|c| c.0).collect();
    docs.sort_unstable();
    docs.dedup();
    let lex_of = |d: usize| lex.iter().position(|c| c.0 == d).map(|r| (r, lex[r].1));
    let sem_rank = |d: usize| semantic.iter().position(|c| c.0 == d);
    let rule = |rule: &str, score: f32| RuleScore::new(rule, None, score);
    let best_first = |a: &(usize, f32, Vec<RuleScore>), b: &(usize, f32, Vec<RuleScore>)| {
        b.1.total_cmp(&a.1).then_with(|| id(a.0).cmp(id(b.0)))
    };
    type Norm<'n> = Box<dyn Fn(f32) -> f32 + 'n>;
    let (w, lex_norm, sem_norm): (f32, Norm, Norm) = match fusion {
        Fusion::Distribution { lexical_weight } => (
            lexical_weight,
            Box::new(distribution_norm(lex.iter().map(|c| c.1))),
            Box::new(distribution_norm(retrieved.iter().map(|c| c.1))),
        ),
        #[cfg(feature = "lab")]
        Fusion::Convex { lexical_weight } => {
            let lex_max = lex.iter().map(|c| c.1).fold(0.0f32, f32::max).max(1e-6);
            let lo = retrieved.last().map_or(0.0, |c| c.1);
            let hi = retrieved.first().map_or(1.0, |c| c.1);
            let span = (hi - lo).max(1e-6);
            (
                lexical_weight,
                Box::new(move |s| s / lex_max),
                Box::new(move |sim| ((sim - lo) / span).clamp(0.0, 1.0)),
            )
        }
        #[cfg(feature = "lab")]
        Fusion::Rrf { k } => {
            let mut out: Vec<(usize, f32, Vec<RuleScore>)> = docs
                .into_iter()
                .map(|d| {
                    let l = lex_of(d).map_or(0.0, |(r, _)| 1.0 / (k + 1.0 + r as f32));
                    let s = sem_rank(d).map_or(0.0, |r| 1.0 / (k + 1.0 + r as f32));
                    (
                        d,
                        l + s,
                        vec![rule("rrf:lexical", l), rule("rrf:semantic", s)],
                    )
                })
                .collect();
            out.sort_by(best_first);
            return out;
        }
    };
    let mut out: Vec<(usize, f32, Vec<RuleScore>)> = docs
        .into_iter()
        .map(|d| {
            // The semantic candidates carry their similarity; only
            // lexical-only docs need one computed.
            let sim = sem_rank(d).map_or_else(|| similarity(d), |r| semantic[r].1);
            let l = w * lex_of(d).map_or(0.0, |(_, s)| lex_norm(s));
            let s = (1.0 - w) * sem_norm(sim);
            let semantic = RuleScore {
                similarity: Some((f64::from(sim) * 1e4).round() / 1e4),
                ..rule("semantic", s)
            };
            let parts = vec![rule("lexical", l), semantic];
            (d, l + s, parts)
        })
        .collect();
    out.sort_by(best_first);
    out
}

#[cfg(test)]
mod tests {
    use super::{distribution_norm, fuse, keep_near_top, Candidates, Fusion, LEXICAL_TOP_PLACE};
    use toolsearch_catalog::RuleScore;

    #[test]
    fn the_lexical_best_is_lifted_to_its_place_with_parts_that_add_up() {
        let list = || -> Vec<(usize, f32, Vec<RuleScore>)> {
            (0..6)
                .map(|d| {
                    let s = 1.0 - 0.1 * d as f32;
                    (d, s, vec![RuleScore::new("lexical", None, s)])
                })
                .collect()
        };
        // Ranked fifth: lifted to the third place, with the displaced tool's score.
        let mut fused = list();
        assert!(keep_near_top(&mut fused, 4, 0));
        assert_eq!(fused[LEXICAL_TOP_PLACE].0, 4);
        let order: Vec<usize> = fused.iter().map(|f| f.0).collect();
        assert_eq!(order, [0, 1, 4, 2, 3, 5]);
        assert!(
            fused.windows(2).all(|w| w[0].1 >= w[1].1),
            "scores stay in order"
        );
        for (d, score, parts) in &fused {
            let sum: f64 = parts.iter().map(|p| p.score).sum();
            assert!((sum - f64::from(*score)).abs() < 1e-6, "doc {d}: {parts:?}");
        }
        // Already within the first three, or after three exact names: not moved.
        let mut fused = list();
        assert!(!keep_near_top(&mut fused, 2, 0));
        assert!(!keep_near_top(&mut fused, 3, 3));
        assert!(keep_near_top(&mut fused, 5, 3));
        assert_eq!(fused[3].0, 5);
        // A tool not in the list: nothing happens.
        assert!(!keep_near_top(&mut fused, 9, 0));
    }

    #[test]
    fn distribution_norm_centres_the_mean_and_clamps_outliers() {
        let scores = [1.0f32, 2.0, 3.0, 4.0, 5.0];
        let norm = distribution_norm(scores.iter().copied());
        // Mean 3 sits in the middle; the map keeps order.
        assert!((norm(3.0) - 0.5).abs() < 1e-6, "{}", norm(3.0));
        assert!(norm(1.0) < norm(2.0) && norm(4.0) < norm(5.0));
        // sd = sqrt(2): mean + 3 sd ~ 7.24 is the top of the range.
        assert!((norm(5.0) - (0.5 + 2.0 / (6.0 * 2f32.sqrt()))).abs() < 1e-5);
        assert_eq!(norm(100.0), 1.0);
        assert_eq!(norm(-100.0), 0.0);
    }

    #[test]
    fn distribution_norm_of_a_flat_list_is_full_strength() {
        assert_eq!(distribution_norm([0.4f32].into_iter())(0.4), 1.0);
        assert_eq!(distribution_norm([2.0f32, 2.0].into_iter())(2.0), 1.0);
        assert_eq!(distribution_norm(std::iter::empty())(0.7), 1.0);
    }

    #[test]
    fn a_lone_weak_survivor_is_normalised_against_everything_retrieved() {
        // The semantic side retrieved 50 tools, similarities 0.30 down to 0.055; the
        // floor left only doc 49, kept because it is also the one lexical hit.
        let retrieved: Vec<(usize, f32)> = (0..50).map(|d| (d, 0.3 - 0.005 * d as f32)).collect();
        let lex = [(49, 3.0)];
        let semantic = [retrieved[49]];
        let c = Candidates {
            lex: &lex,
            semantic: &semantic,
            retrieved: &retrieved,
        };
        let ids: Vec<String> = (0..50).map(|d| format!("t{d:02}")).collect();
        let fusion = Fusion::default();
        let out = fuse(fusion, &c, |_| unreachable!(), |d| ids[d].as_str());
        assert_eq!(out.len(), 1);
        let semantic_share = out[0].2[1].score;
        // Normalised over itself it would be full strength (0.5); over the retrieved
        // list it sits near the bottom (0.11).
        assert!(semantic_share < 0.15, "semantic share {semantic_share}");
        assert!(
            (out[0].2[0].score - 0.5).abs() < 1e-6,
            "lexical share {:?}",
            out[0].2
        );
        #[cfg(feature = "lab")]
        {
            // Convex fusion takes its min-max bounds from the same list (as it already
            // did before the floor moved into `Candidates`).
            let out = fuse(
                Fusion::Convex {
                    lexical_weight: 0.5,
                },
                &c,
                |_| unreachable!(),
                |d| ids[d].as_str(),
            );
            assert!(out[0].2[1].score < 1e-6, "{:?}", out[0].2);
        }
    }
}
