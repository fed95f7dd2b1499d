//! Rank: a parsed query's keywords scored over the index (BM25 per field, name
//! tiers, synonyms, the coverage rule, the exact-name rule of [`crate::pin`]), the
//! best tools kept, and the explanation of their scores: every contribution the
//! scorer adds, recorded as it adds it.

use crate::index::{Field, Index, FIELDS};
use crate::pin::{pin_exact, Pinned};
use crate::query::Keywords;
use crate::text;
use crate::tool::Tool;
use crate::Catalog;
use serde::Serialize;

/// One rule's share of a hit's score, for `--explain`. A hit's parts add up to its
/// score (each is rounded to 4 decimals, like the score).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleScore {
    /// `exact_name`, `bm25:name`, `bm25:description`, `name_part_exact`, `name_prefix`, ...
    pub rule: String,
    /// The query term, when the rule is per term.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub term: Option<String>,
    /// Its contribution.
    pub score: f64,
    /// The query–tool cosine similarity a semantic part was computed from (the
    /// embedding fusion); not itself a share of the score.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
}

impl RuleScore {
    /// A part of `score` (rounded to 4 decimals) for `rule`, per `term` when given.
    pub fn new(rule: impl Into<String>, term: Option<&str>, score: f32) -> RuleScore {
        RuleScore {
            rule: rule.into(),
            term: term.map(str::to_string),
            score: round4(score),
            similarity: None,
        }
    }
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

/// A name-part tier: how a term matched a part of a tool's name.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Tier {
    ExactPart,
    Prefix,
    Infix,
}

impl Tier {
    fn weight(self) -> f32 {
        match self {
            Tier::ExactPart => TIER_EXACT_PART,
            Tier::Prefix => TIER_PREFIX,
            Tier::Infix => TIER_INFIX,
        }
    }

    fn rule(self) -> &'static str {
        match self {
            Tier::ExactPart => "name_part_exact",
            Tier::Prefix => "name_prefix",
            Tier::Infix => "name_infix",
        }
    }
}

/// The rule behind one contribution to a score.
#[derive(Clone, Copy)]
enum Rule {
    /// BM25F of the term with this id (split over the fields when explained).
    Bm25(u32),
    Tier(Tier),
    /// A verb synonym's name match.
    Synonym(&'static str),
}

/// One contribution added to a doc's score, recorded when explaining.
#[derive(Clone, Copy)]
struct Contribution {
    doc: u32,
    /// The query term's index.
    term: u32,
    rule: Rule,
    score: f32,
}

/// Per-query scratch, per doc: the running score (one struct, so adding a posting
/// touches one cache line), and the best name tier of the term being scored; when
/// explaining, every contribution added.
#[derive(Default)]
struct Scores {
    docs: Vec<DocScore>,
    touched: Vec<u32>,
    tier: Vec<(f32, Tier)>,
    tier_touched: Vec<u32>,
    explain: bool,
    log: Vec<Contribution>,
}

thread_local! {
    /// Per-thread scratch reused across queries: only the entries a query touched
    /// are reset, instead of zeroing catalog-sized arrays per query.
    static SCRATCH: std::cell::RefCell<Scores> = std::cell::RefCell::new(Scores::default());
}

impl Scores {
    /// Runs `f` with cleared scratch for `n` tools, recording contributions when `explain`.
    fn with<R>(n: usize, explain: bool, f: impl FnOnce(&mut Scores) -> R) -> R {
        SCRATCH.with(|cell| {
            let mut s = cell.borrow_mut();
            if s.docs.len() != n {
                *s = Scores {
                    docs: vec![DocScore::default(); n],
                    tier: vec![(0.0, Tier::ExactPart); n],
                    ..Scores::default()
                };
            }
            s.explain = explain;
            let out = f(&mut s);
            let Scores {
                docs, touched, log, ..
            } = &mut *s;
            for &d in touched.iter() {
                docs[d as usize] = DocScore::default();
            }
            touched.clear();
            log.clear();
            out
        })
    }

    fn add(&mut self, doc: u32, term: u32, rule: Rule, score: f32, strong: bool) {
        let d = &mut self.docs[doc as usize];
        if d.matched == 0 {
            self.touched.push(doc);
        }
        d.score += score;
        d.matched |= 1 << term;
        d.strong |= strong;
        if self.explain {
            self.log.push(Contribution {
                doc,
                term,
                rule,
                score,
            });
        }
    }

    /// Notes a name tier of the current term for `doc`, keeping the best (the first
    /// of equal ones).
    fn offer_tier(&mut self, doc: u32, weight: f32, tier: Tier) {
        let t = &mut self.tier[doc as usize];
        if t.0 == 0.0 {
            self.tier_touched.push(doc);
        }
        if weight > t.0 {
            *t = (weight, tier);
        }
    }

    /// Adds the current term's best tier per doc, with the IDF of the number of docs
    /// the tier reached, and clears the tier scratch.
    fn add_tiers(&mut self, ix: &Index, term: u32) {
        if self.tier_touched.is_empty() {
            return;
        }
        let idf = ix.idf(self.tier_touched.len());
        let touched = std::mem::take(&mut self.tier_touched);
        for &d in &touched {
            let (w, tier) = std::mem::replace(&mut self.tier[d as usize], (0.0, Tier::ExactPart));
            self.add(d, term, Rule::Tier(tier), idf * w, true);
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

/// Every name-part tier match of one term: `f(doc, tier weight, tier)`, a doc possibly
/// more than once (a prefix and an infix part, say); the best tier per doc counts.
fn each_tier(ix: &Index, word: &str, mut f: impl FnMut(u32, f32, Tier)) {
    // The head (last) word of a `verb_object` name is what the tool acts on:
    // `issue` matters more in `create_issue` than in `add_issue_comment`.
    let mut push = |pid: usize, tier: Tier| {
        for &d in &ix.part_docs[pid] {
            let head = ix.head_part[d as usize] == pid as u32;
            let w = tier.weight();
            f(d, if head { w + TIER_HEAD } else { w }, tier);
        }
    };
    if word.chars().count() < 3 {
        if let Ok(pid) = ix.parts.binary_search_by(|p| p.as_str().cmp(word)) {
            push(pid, Tier::ExactPart);
        }
    } else {
        for pid in ix.parts_with_prefix(word) {
            let exact = ix.parts[pid] == word;
            push(pid, if exact { Tier::ExactPart } else { Tier::Prefix });
        }
        if word.chars().count() >= 4 {
            for pid in ix.parts_with_infix(word) {
                push(pid as usize, Tier::Infix);
            }
        }
    }
}

/// What [`Catalog::rank`] ranks for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RankOptions {
    /// Keep tools scoring at least this share of the best other tool's score.
    pub(crate) band: f32,
    /// Tools returned.
    pub(crate) limit: usize,
    pub(crate) coverage: Coverage,
    /// Apply the exact-name rule ([`crate::pin`]); a ranking another ranker fuses
    /// leaves it to the fusion.
    pub(crate) pin: bool,
    /// Record each returned tool's parts ([`Ranked::parts`]).
    pub(crate) explain: bool,
}

impl Catalog {
    /// The ranking of parsed keywords (see [`crate::query::parse`]) alone, `depth` deep and
    /// without the top band or the exact-name rule, best first: for rankers that fuse it
    /// with another signal (the embedding fusion), which apply the exact-name rule
    /// ([`crate::pin_exact`]) to their own result. Tools that fail the coverage rule (one
    /// incidental prose word of a long query) are kept but flagged: such a word is weak
    /// evidence, which the other signal can confirm or reject, not none.
    pub fn keyword_ranking(
        &self,
        kw: &Keywords,
        depth: usize,
        allow: &dyn Fn(&Tool) -> bool,
    ) -> Vec<KeywordHit> {
        let opts = RankOptions {
            band: 0.0,
            limit: depth,
            coverage: Coverage::Flag,
            pin: false,
            explain: false,
        };
        let (ranked, _) = self.rank(kw, &opts, allow);
        ranked
            .into_iter()
            .map(|r| KeywordHit {
                doc: r.doc as usize,
                score: r.score,
                covered: r.covered,
            })
            .collect()
    }

    /// The best `opts.limit` eligible tools (the tools named exactly first, then best
    /// first, ties by id) and how many tools were eligible in all.
    pub(crate) fn rank(
        &self,
        kw: &Keywords,
        opts: &RankOptions,
        allow: &dyn Fn(&Tool) -> bool,
    ) -> (Vec<Ranked>, usize) {
        Scores::with(self.len(), opts.explain, |s| {
            self.score_terms(kw, s);
            self.keep_best(kw, opts, allow, s)
        })
    }

    /// Adds every term's contributions to the scratch: IDF × saturated BM25F, IDF × the
    /// best name-part tier, and the verb synonyms' name matches.
    fn score_terms(&self, kw: &Keywords, s: &mut Scores) {
        let ix = &self.inner.index;
        for (qi, term) in kw.terms.iter().enumerate() {
            let qi = qi as u32;
            if let Some(&tid) = ix.terms.get(&term.stem) {
                let list = &ix.postings[tid as usize];
                let idf = ix.idf(list.len());
                for p in list {
                    let strong = p.tf[Field::Name as usize] > 0 || p.tf[Field::Server as usize] > 0;
                    s.add(p.doc, qi, Rule::Bm25(tid), idf * ix.saturated_tf(p), strong);
                }
            }
            each_tier(ix, &term.word, |d, w, tier| s.offer_tier(d, w, tier));
            s.add_tiers(ix, qi);
            // An action verb also finds tools named with its synonyms (name field only:
            // in prose these verbs are too common to mean anything).
            // The group is one concept: every member weighs as much as its most common one.
            // In a large catalog, a group whose most common verb names a fifth of the
            // tools carries no intent worth its cost (its IDF is near zero anyway).
            let (group_idf, group_df) = synonym_idf(ix, &term.stem);
            let synonyms =
                text::verb_synonyms(&term.stem).filter(|_| !too_common(group_df, self.len()));
            for syn in synonyms {
                let Some(&tid) = ix.terms.get(syn) else {
                    continue;
                };
                let list = &ix.postings[tid as usize];
                for p in list.iter().filter(|p| p.tf[Field::Name as usize] > 0) {
                    let score = SYNONYM_WEIGHT * group_idf * ix.saturated_tf(p);
                    s.add(p.doc, qi, Rule::Synonym(syn), score, true);
                }
            }
        }
    }

    /// The eligible tools of scored scratch: required terms, the coverage rule, the
    /// allow predicate, the exact-name rule, the top band; the best `opts.limit` sorted,
    /// with their parts when explaining.
    fn keep_best(
        &self,
        kw: &Keywords,
        opts: &RankOptions,
        allow: &dyn Fn(&Tool) -> bool,
        s: &Scores,
    ) -> (Vec<Ranked>, usize) {
        let tools = self.tools();
        let required: u32 = kw
            .terms
            .iter()
            .enumerate()
            .filter(|(_, t)| t.required)
            .fold(0, |acc, (i, _)| acc | (1 << i));
        // Coverage: with three or more terms, a tool matching one of them only in prose
        // (an incidental word) is not a result; a name or server match is intent.
        let need = if kw.terms.len() >= 3 { 2 } else { 1 };
        // Candidates stay small (no parts) while thousands are filtered and selected.
        let mut cands: Vec<Cand> = s
            .touched
            .iter()
            .filter_map(|&d| {
                let m = s.docs[d as usize];
                let covered = m.matched.count_ones() >= need || m.strong;
                (m.matched & required == required
                    && (covered || opts.coverage == Coverage::Flag)
                    && allow(&tools[d as usize]))
                .then_some(Cand {
                    doc: d,
                    score: m.score,
                    covered,
                })
            })
            .collect();
        // The tools named exactly come first, whatever the words did (a tool the words
        // dropped keeps its own score under the lift).
        let exact = if opts.pin {
            self.exact_name_docs(kw, allow)
        } else {
            Vec::new()
        };
        let pinned = pin_exact(
            &mut cands,
            &exact,
            |r| r.doc as usize,
            |r| &mut r.score,
            |d| Cand {
                doc: d as u32,
                score: s.docs[d].score,
                covered: true,
            },
        );
        let k = pinned.count;
        if kw.names_only(k) {
            cands.truncate(k);
        }
        let top = cands[k..].iter().map(|r| r.score).fold(0.0f32, f32::max);
        // The band applies to the others only; in place, no copy of the list.
        let mut at = 0usize;
        cands.retain(|r| {
            at += 1;
            at <= k || r.score >= top * opts.band
        });
        let eligible = cands.len();
        let better = |a: &Cand, b: &Cand| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| self.id_rank(a.doc).cmp(&self.id_rank(b.doc)))
        };
        // Only the top `limit` are ever shown: select them, then sort them.
        let room = opts.limit.saturating_sub(k);
        let rest = &mut cands[k..];
        if rest.len() > room && room > 0 {
            rest.select_nth_unstable_by(room - 1, better);
        }
        let keep = k.min(opts.limit) + room.min(cands.len() - k);
        cands.truncate(keep);
        let from = k.min(keep);
        cands[from..].sort_by(better);
        let mut ranked: Vec<Ranked> = cands
            .into_iter()
            .map(|c| Ranked {
                doc: c.doc,
                score: c.score,
                covered: c.covered,
                parts: Vec::new(),
            })
            .collect();
        if opts.explain {
            self.attach_parts(kw, s, &mut ranked, pinned);
        }
        (ranked, eligible)
    }

    /// Gives each ranked tool the contributions the scorer recorded for it, in the
    /// order they were added (per term: BM25F split over its fields, the name tier,
    /// the synonyms), after the exact-name lift of the pinned ones.
    fn attach_parts(&self, kw: &Keywords, s: &Scores, ranked: &mut [Ranked], pinned: Pinned) {
        const FIELD_NAMES: [&str; FIELDS] = [
            "name",
            "server",
            "description",
            "param_name",
            "param_text",
            "param_value",
        ];
        let ix = &self.inner.index;
        let at: rustc_hash::FxHashMap<u32, usize> =
            ranked.iter().enumerate().map(|(i, r)| (r.doc, i)).collect();
        for r in ranked.iter_mut().take(pinned.count) {
            r.parts
                .push(RuleScore::new("exact_name", None, pinned.lift));
        }
        for c in &s.log {
            let Some(&i) = at.get(&c.doc) else {
                continue;
            };
            let term = Some(kw.terms[c.term as usize].word.as_str());
            let parts = &mut ranked[i].parts;
            match c.rule {
                Rule::Bm25(tid) => {
                    // The term's BM25F score, split by each field's weighted frequency.
                    let p = ix.posting(tid, c.doc).expect("a recorded posting");
                    let shares = ix.field_shares(p);
                    let sum: f32 = shares.iter().sum();
                    for (f, share) in shares.iter().enumerate().filter(|(_, s)| **s > 0.0) {
                        let rule = format!("bm25:{}", FIELD_NAMES[f]);
                        parts.push(RuleScore::new(rule, term, c.score * share / sum));
                    }
                }
                Rule::Tier(tier) => parts.push(RuleScore::new(tier.rule(), term, c.score)),
                Rule::Synonym(syn) => {
                    parts.push(RuleScore::new(format!("verb_synonym:{syn}"), term, c.score));
                }
            }
        }
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

/// A candidate while the eligible tools are filtered and the best selected.
#[derive(Debug, Clone, Copy)]
struct Cand {
    doc: u32,
    score: f32,
    covered: bool,
}

/// A tool being ranked.
#[derive(Debug, Clone)]
pub(crate) struct Ranked {
    pub(crate) doc: u32,
    pub(crate) score: f32,
    pub(crate) covered: bool,
    /// The score's parts, when explaining (they add up to `score`).
    pub(crate) parts: Vec<RuleScore>,
}
