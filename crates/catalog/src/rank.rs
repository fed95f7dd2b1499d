//! Rank: a parsed query's keywords scored over the index (BM25 per field, name
//! tiers, synonyms, the coverage rule, the exact-name boost), the best tools
//! kept, and the explanation of a score.

use crate::index::{Field, Index, FIELDS};
use crate::query::Keywords;
use crate::text;
use crate::tool::Tool;
use crate::Catalog;
use serde::Serialize;

/// One rule's share of a hit's score, for `--explain`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleScore {
    /// `exact_name`, `bm25:name`, `bm25:description`, `name_part_exact`, `name_prefix`, ...
    pub rule: String,
    /// The query term, when the rule is per term.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub term: Option<String>,
    /// Its contribution.
    pub score: f64,
}

pub(crate) fn round4(x: f32) -> f64 {
    (f64::from(x) * 10_000.0).round() / 10_000.0
}

/// Weight of the name-part tiers relative to a term's BM25F score (both scaled by IDF).
/// Small: BM25F already counts a whole name word, so the exact-part tier only nudges,
/// while prefix (`issue` → `issues_list`) and infix (`note` → `NotebookEdit`) matches,
/// which BM25F cannot see, still count.
const TIER_EXACT_PART: f32 = 0.2;
const TIER_PREFIX: f32 = 0.15;
const TIER_INFIX: f32 = 0.1;
/// Added to a tier when the matched part is the name's last (head) word.
const TIER_HEAD: f32 = 0.2;
/// Weight of a verb synonym's name match relative to the word itself.
const SYNONYM_WEIGHT: f32 = 0.5;
/// Added to a tool whose exact name or id is the query, so it ranks first.
pub(crate) const EXACT_NAME_BONUS: f32 = 100.0;
/// Fuzzy matches below this share of the best fuzzy score are dropped.
const FUZZY_BAND: f32 = 0.6;

/// One tool's running score in a query.
#[derive(Clone, Copy, Default)]
struct DocScore {
    score: f32,
    /// Bit `i` set when query term `i` matched.
    matched: u32,
    /// Matched in the name or server (not only in prose).
    strong: bool,
}

/// Per-query scratch, per doc: the running score (one struct, so adding a posting
/// touches one cache line), and the best name tier of the term being scored.
#[derive(Default)]
struct Scores {
    docs: Vec<DocScore>,
    touched: Vec<u32>,
    tier: Vec<f32>,
    tier_touched: Vec<u32>,
}

thread_local! {
    /// Per-thread scratch reused across queries: only the entries a query touched
    /// are reset, instead of zeroing catalog-sized arrays per query.
    static SCRATCH: std::cell::RefCell<Scores> = std::cell::RefCell::new(Scores::default());
}

impl Scores {
    /// Runs `f` with cleared scratch for `n` tools.
    fn with<R>(n: usize, f: impl FnOnce(&mut Scores) -> R) -> R {
        SCRATCH.with(|cell| {
            let mut s = cell.borrow_mut();
            if s.docs.len() != n {
                *s = Scores {
                    docs: vec![DocScore::default(); n],
                    touched: Vec::new(),
                    tier: vec![0.0; n],
                    tier_touched: Vec::new(),
                };
            }
            let out = f(&mut s);
            let Scores { docs, touched, .. } = &mut *s;
            for &d in touched.iter() {
                docs[d as usize] = DocScore::default();
            }
            touched.clear();
            out
        })
    }

    fn add(&mut self, doc: u32, term_bit: u32, score: f32, strong: bool) {
        let d = &mut self.docs[doc as usize];
        if d.matched == 0 {
            self.touched.push(doc);
        }
        d.score += score;
        d.matched |= term_bit;
        d.strong |= strong;
    }

    /// Notes a name-tier weight of the current term for `doc`, keeping the best.
    fn offer_tier(&mut self, doc: u32, weight: f32) {
        let t = &mut self.tier[doc as usize];
        if *t == 0.0 {
            self.tier_touched.push(doc);
        }
        *t = t.max(weight);
    }

    /// Adds the current term's best tier per doc, with the IDF of the number of docs
    /// the tier reached, and clears the tier scratch.
    fn add_tiers(&mut self, ix: &Index, term_bit: u32) {
        if self.tier_touched.is_empty() {
            return;
        }
        let idf = ix.idf(self.tier_touched.len());
        let touched = std::mem::take(&mut self.tier_touched);
        for &d in &touched {
            let w = std::mem::take(&mut self.tier[d as usize]);
            self.add(d, term_bit, idf * w, true);
        }
        self.tier_touched = touched;
        self.tier_touched.clear();
    }
}

/// A verb group too common to expand: on at least 100 tools and a fifth of the catalog.
fn too_common(df: usize, n: usize) -> bool {
    df >= 100 && df * 5 > n
}

/// IDF shared by a word's verb synonyms: that of the most common one (including the
/// word itself), so no synonym outweighs another because it is rarer.
fn synonym_idf(ix: &Index, stem: &str) -> (f32, usize) {
    let df_of = |s: &str| {
        ix.terms
            .get(s)
            .map_or(0, |&tid| ix.postings[tid as usize].len())
    };
    let df = text::verb_synonyms(stem)
        .map(df_of)
        .max()
        .unwrap_or(0)
        .max(df_of(stem));
    (ix.idf(df), df)
}

/// Every name-part tier match of one term: `f(doc, tier weight, rule)`, a doc possibly
/// more than once (a prefix and an infix part, say); the best tier per doc counts.
fn each_tier(ix: &Index, word: &str, mut f: impl FnMut(u32, f32, &'static str)) {
    // The head (last) word of a `verb_object` name is what the tool acts on:
    // `issue` matters more in `create_issue` than in `add_issue_comment`.
    let mut push = |pid: usize, w: f32, rule: &'static str| {
        for &d in &ix.part_docs[pid] {
            let head = ix.head_part[d as usize] == pid as u32;
            f(d, if head { w + TIER_HEAD } else { w }, rule);
        }
    };
    if word.chars().count() < 3 {
        if let Ok(pid) = ix.parts.binary_search_by(|p| p.as_str().cmp(word)) {
            push(pid, TIER_EXACT_PART, "name_part_exact");
        }
    } else {
        for pid in ix.parts_with_prefix(word) {
            let exact = ix.parts[pid] == word;
            let (w, rule) = if exact {
                (TIER_EXACT_PART, "name_part_exact")
            } else {
                (TIER_PREFIX, "name_prefix")
            };
            push(pid, w, rule);
        }
        if word.chars().count() >= 4 {
            for pid in ix.parts_with_infix(word) {
                push(pid as usize, TIER_INFIX, "name_infix");
            }
        }
    }
}

/// The best name-part tier of one term for every doc it reaches: (doc, weight, rule),
/// by doc (for `--explain`; ranking keeps the best per doc in scratch instead).
fn tier_matches(ix: &Index, word: &str) -> Vec<(u32, f32, &'static str)> {
    let mut out: Vec<(u32, f32, &'static str)> = Vec::new();
    each_tier(ix, word, |d, w, rule| out.push((d, w, rule)));
    out.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
    out.dedup_by_key(|m| m.0);
    out
}

impl Catalog {
    /// The ranking of parsed keywords (see [`crate::query::parse`]) alone, `depth` deep and
    /// without the top band, best first. For rankers that fuse it with another signal
    /// (the embedding fusion). Tools that fail the coverage rule (one incidental prose
    /// word of a long query) are kept but flagged: such a word is weak evidence, which
    /// the other signal can confirm or reject, not none.
    pub fn keyword_ranking(
        &self,
        kw: &Keywords,
        depth: usize,
        allow: &dyn Fn(&Tool) -> bool,
    ) -> Vec<KeywordHit> {
        let (ranked, _) = self.rank(kw, 0.0, depth, Coverage::Flag, allow);
        ranked
            .into_iter()
            .map(|r| KeywordHit {
                doc: r.doc as usize,
                score: r.score,
                covered: r.covered,
            })
            .collect()
    }

    /// The best `limit` eligible tools (best first, ties by id) and how many tools
    /// were eligible in all.
    pub(crate) fn rank(
        &self,
        kw: &Keywords,
        band: f32,
        limit: usize,
        coverage: Coverage,
        allow: &dyn Fn(&Tool) -> bool,
    ) -> (Vec<Ranked>, usize) {
        Scores::with(self.len(), |s| {
            self.rank_with(kw, band, limit, coverage, allow, s)
        })
    }

    fn rank_with(
        &self,
        kw: &Keywords,
        band: f32,
        limit: usize,
        coverage: Coverage,
        allow: &dyn Fn(&Tool) -> bool,
        s: &mut Scores,
    ) -> (Vec<Ranked>, usize) {
        let ix = &self.inner.index;
        let tools = self.tools();
        for (qi, term) in kw.terms.iter().enumerate() {
            let bit = 1u32 << qi;
            if let Some(&tid) = ix.terms.get(&term.stem) {
                let list = &ix.postings[tid as usize];
                let idf = ix.idf(list.len());
                for p in list {
                    let strong = p.tf[Field::Name as usize] > 0 || p.tf[Field::Server as usize] > 0;
                    s.add(p.doc, bit, idf * ix.saturated_tf(p), strong);
                }
            }
            each_tier(ix, &term.word, |d, w, _| s.offer_tier(d, w));
            s.add_tiers(ix, bit);
            // An action verb also finds tools named with its synonyms (name field only:
            // in prose these verbs are too common to mean anything).
            // The group is one concept: every member weighs as much as its most common one.
            // In a large catalog, a group whose most common verb names a fifth of the
            // tools carries no intent worth its cost (its IDF is near zero anyway).
            let (group_idf, group_df) = synonym_idf(ix, &term.stem);
            let synonyms =
                text::verb_synonyms(&term.stem).filter(|_| !too_common(group_df, tools.len()));
            for syn in synonyms {
                let Some(&tid) = ix.terms.get(syn) else {
                    continue;
                };
                let list = &ix.postings[tid as usize];
                for p in list.iter().filter(|p| p.tf[Field::Name as usize] > 0) {
                    s.add(
                        p.doc,
                        bit,
                        SYNONYM_WEIGHT * group_idf * ix.saturated_tf(p),
                        true,
                    );
                }
            }
        }
        let required: u32 = kw
            .terms
            .iter()
            .enumerate()
            .filter(|(_, t)| t.required)
            .fold(0, |acc, (i, _)| acc | (1 << i));
        // Coverage: with three or more terms, a tool matching one of them only in prose
        // (an incidental word) is not a result; a name or server match is intent.
        let need = if kw.terms.len() >= 3 { 2 } else { 1 };
        let mut ranked: Vec<Ranked> = s
            .touched
            .iter()
            .filter_map(|&d| {
                let m = s.docs[d as usize];
                let covered = m.matched.count_ones() >= need || m.strong;
                (m.matched & required == required
                    && (covered || coverage == Coverage::Flag)
                    && allow(&tools[d as usize]))
                .then_some(Ranked {
                    doc: d,
                    score: m.score,
                    covered,
                    exact: false,
                })
            })
            .collect();
        if !kw.exact.is_empty() {
            // Many tools may share one name (the same tool on many servers): find each
            // in the ranking through a map, not a scan per tool.
            let mut at: rustc_hash::FxHashMap<u32, usize> =
                ranked.iter().enumerate().map(|(i, r)| (r.doc, i)).collect();
            for name in &kw.exact {
                for doc in self.exact_docs(name) {
                    if !allow(&tools[doc as usize]) {
                        continue;
                    }
                    match at.get(&doc) {
                        Some(&i) => ranked[i].exact = true,
                        None => {
                            at.insert(doc, ranked.len());
                            ranked.push(Ranked {
                                doc,
                                score: 0.0,
                                covered: true,
                                exact: true,
                            });
                        }
                    }
                }
            }
        }
        let top = ranked
            .iter()
            .filter(|r| !r.exact)
            .map(|r| r.score)
            .fold(0.0f32, f32::max);
        ranked.retain(|r| r.exact || r.score >= top * band);
        let eligible = ranked.len();
        for r in &mut ranked {
            if r.exact {
                r.score += EXACT_NAME_BONUS;
            }
        }
        let better = |a: &Ranked, b: &Ranked| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| self.id_rank(a.doc).cmp(&self.id_rank(b.doc)))
        };
        // Only the top `limit` are ever shown: select them, then sort them.
        if ranked.len() > limit {
            ranked.select_nth_unstable_by(limit - 1, better);
            ranked.truncate(limit);
        }
        ranked.sort_by(better);
        (ranked, eligible)
    }

    /// The score of each rule for one doc, recomputed the way [`Catalog::rank`] adds it.
    pub(crate) fn explain(&self, doc: u32, kw: &Keywords) -> Vec<RuleScore> {
        const FIELD_NAMES: [&str; FIELDS] = [
            "name",
            "server",
            "description",
            "param_name",
            "param_text",
            "param_value",
        ];
        let ix = &self.inner.index;
        let mut out = Vec::new();
        if kw.exact.iter().any(|e| self.is_exact(doc, e)) {
            out.push(RuleScore {
                rule: "exact_name".into(),
                term: None,
                score: f64::from(EXACT_NAME_BONUS),
            });
        }
        for term in &kw.terms {
            if let Some(&tid) = ix.terms.get(&term.stem) {
                if let Some(p) = ix.posting(tid, doc) {
                    let total = ix.idf(ix.postings[tid as usize].len()) * ix.saturated_tf(p);
                    let shares = ix.field_shares(p);
                    let sum: f32 = shares.iter().sum();
                    for (f, share) in shares.iter().enumerate().filter(|(_, s)| **s > 0.0) {
                        out.push(RuleScore {
                            rule: format!("bm25:{}", FIELD_NAMES[f]),
                            term: Some(term.word.clone()),
                            score: round4(total * share / sum),
                        });
                    }
                }
            }
            let tiers = tier_matches(ix, &term.word);
            let idf = ix.idf(tiers.len());
            if let Some((_, w, rule)) = tiers.iter().find(|m| m.0 == doc) {
                out.push(RuleScore {
                    rule: (*rule).into(),
                    term: Some(term.word.clone()),
                    score: round4(idf * w),
                });
            }
            let (idf, df) = synonym_idf(ix, &term.stem);
            let synonyms = text::verb_synonyms(&term.stem).filter(|_| !too_common(df, self.len()));
            for syn in synonyms {
                let Some(&tid) = ix.terms.get(syn) else {
                    continue;
                };
                if let Some(p) = ix
                    .posting(tid, doc)
                    .filter(|p| p.tf[Field::Name as usize] > 0)
                {
                    out.push(RuleScore {
                        rule: format!("verb_synonym:{syn}"),
                        term: Some(term.word.clone()),
                        score: round4(SYNONYM_WEIGHT * idf * ix.saturated_tf(p)),
                    });
                }
            }
        }
        out
    }

    /// Typo-tolerant matching of the query against tool names (fzf-style, via nucleo).
    pub(crate) fn fuzzy(&self, query: &str, allow: &dyn Fn(&Tool) -> bool) -> Vec<(u32, f32)> {
        use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
        use nucleo_matcher::{Config, Matcher, Utf32Str};
        let needle: String = query.chars().filter(|c| !c.is_control()).take(64).collect();
        if needle.trim().chars().count() < 3 {
            return Vec::new();
        }
        let pattern = Pattern::parse(&needle, CaseMatching::Ignore, Normalization::Smart);
        let mut matcher = Matcher::new(Config::DEFAULT);
        let mut buf = Vec::new();
        let mut out: Vec<(u32, f32)> = Vec::new();
        for (doc, tool) in self.tools().iter().enumerate() {
            if !allow(tool) {
                continue;
            }
            let hay = Utf32Str::new(tool.short_name(), &mut buf);
            if let Some(score) = pattern.score(hay, &mut matcher) {
                out.push((doc as u32, score as f32));
            }
        }
        let top = out.iter().map(|o| o.1).fold(0.0, f32::max);
        out.retain(|o| o.1 >= top * FUZZY_BAND);
        let tools = self.tools();
        out.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then_with(|| tools[a.0 as usize].id.cmp(&tools[b.0 as usize].id))
        });
        // Report on the same scale as lexical scores would be meaningless; normalise to 0..1.
        out.into_iter()
            .map(|(d, s)| (d, if top > 0.0 { s / top } else { 0.0 }))
            .collect()
    }
}

/// One tool of [`Catalog::keyword_ranking`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeywordHit {
    /// Position in [`Catalog::tools`].
    pub doc: usize,
    /// Lexical score.
    pub score: f32,
    /// Whether the tool passes the coverage rule on its own (a name or server match, or
    /// enough of the query's words): `false` for one incidental word of a long query.
    pub covered: bool,
}

/// Whether [`Catalog::rank`] drops the tools that fail the coverage rule or keeps
/// them flagged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Coverage {
    Enforce,
    Flag,
}

/// A tool being ranked.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ranked {
    pub(crate) doc: u32,
    pub(crate) score: f32,
    pub(crate) covered: bool,
    /// Named exactly by the query.
    pub(crate) exact: bool,
}
