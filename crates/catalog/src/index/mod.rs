//! The inverted index behind search: BM25F postings per field, plus a vocabulary of
//! name parts (with a trigram index) for the exact-part, prefix and infix tiers.
//! Building it is in [`build`].

mod build;

pub(crate) use build::PARALLEL_FROM;

use crate::tool::Tool;
use rustc_hash::FxHashMap;

/// Indexed fields, in decreasing order of weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(dead_code)] // all variants name positions in the per-field arrays
pub(crate) enum Field {
    Name = 0,
    Server = 1,
    Description = 2,
    ParamName = 3,
    ParamText = 4,
    ParamValue = 5,
}

pub(crate) const FIELDS: usize = 6;
/// How much a term occurrence in each field counts: name parts first; server and
/// description next; parameter names and descriptions last but not negligible, since
/// many real tools (RapidAPI-style endpoints) say what they do only there.
pub(crate) const FIELD_WEIGHT: [f32; FIELDS] = [3.0, 1.5, 1.5, 1.0, 1.0, 0.5];
/// BM25 length normalisation per field; short fields (names) barely normalise.
const FIELD_B: [f32; FIELDS] = [0.3, 0.3, 0.75, 0.5, 0.75, 0.75];
/// Term-frequency saturation: tool text is short, so a repeated word adds little.
pub(crate) const K1: f32 = 0.8;
/// Parameter text beyond this many bytes per tool is not indexed (keeps huge schemas cheap).
const MAX_PARAM_TEXT: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Posting {
    pub doc: u32,
    pub tf: [u8; FIELDS],
    /// The BM25F term-frequency component, computed once at build time: it depends
    /// only on the tool and the term, so queries only multiply it by the IDF.
    pub sat: f32,
}

#[derive(Debug, Default)]
pub(crate) struct Index {
    pub n_docs: u32,
    /// Stemmed term -> term id.
    pub terms: FxHashMap<String, u32>,
    /// Postings per term id, sorted by doc.
    pub postings: Vec<Vec<Posting>>,
    pub field_len: Vec<[u16; FIELDS]>,
    pub avg_len: [f32; FIELDS],
    /// Distinct lower-case name parts (unstemmed), sorted, and the docs having each.
    pub parts: Vec<String>,
    pub part_docs: Vec<Vec<u32>>,
    /// Each tool's last name word (the head noun of `verb_object` names), as a part id.
    pub head_part: Vec<u32>,
    /// Three-char window -> indexes into `parts` containing it (for infix matches).
    pub trigrams: FxHashMap<[char; 3], Vec<u32>>,
}

impl Index {
    /// Inverse document frequency; never negative, even for a word in every tool.
    pub(crate) fn idf(&self, df: usize) -> f32 {
        let n = self.n_docs as f32;
        let df = df as f32;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// The BM25F term-frequency component for one posting, in `[0, K1 + 1)`.
    pub(crate) fn saturated_tf(&self, p: &Posting) -> f32 {
        p.sat
    }

    /// A field's BM25F weight over its length norm, for a doc with field lengths `lens`.
    fn field_weight(&self, lens: &[u16; FIELDS], f: usize) -> f32 {
        let norm = 1.0 - FIELD_B[f] + FIELD_B[f] * f32::from(lens[f]) / self.avg_len[f];
        FIELD_WEIGHT[f] / norm
    }

    /// Weighted term frequency of each field, for `--explain`.
    pub(crate) fn field_shares(&self, p: &Posting) -> [f32; FIELDS] {
        let lens = &self.field_len[p.doc as usize];
        std::array::from_fn(|f| self.field_weight(lens, f) * f32::from(p.tf[f]))
    }

    pub(crate) fn posting(&self, tid: u32, doc: u32) -> Option<&Posting> {
        let list = &self.postings[tid as usize];
        list.binary_search_by_key(&doc, |p| p.doc)
            .ok()
            .map(|i| &list[i])
    }

    /// Indexes into `parts` that start with `word` (the word itself included when present).
    pub(crate) fn parts_with_prefix(&self, word: &str) -> std::ops::Range<usize> {
        let start = self.parts.partition_point(|p| p.as_str() < word);
        let end = start + self.parts[start..].partition_point(|p| p.starts_with(word));
        start..end
    }

    /// Indexes into `parts` that read as a compound of `word` and other words: `word`
    /// inside them, not at their start, and what is left on either side empty or at
    /// least three characters long (a plausible word, not a fragment). So `book`
    /// matches `notebook` and `facebook`, `base` `database`; but `rain` does not match
    /// `train`, nor `port` `report`.
    pub(crate) fn parts_with_infix(&self, word: &str) -> Vec<u32> {
        let chars: Vec<char> = word.chars().collect();
        if chars.len() < 3 {
            return Vec::new();
        }
        let mut best: Option<&Vec<u32>> = None;
        for w in chars.windows(3) {
            match self.trigrams.get(&[w[0], w[1], w[2]]) {
                None => return Vec::new(),
                Some(list) if best.is_none_or(|b| list.len() < b.len()) => best = Some(list),
                Some(_) => {}
            }
        }
        best.map(|list| {
            list.iter()
                .copied()
                .filter(|&pid| {
                    let p = &self.parts[pid as usize];
                    let word_or_empty = |r: &str| r.is_empty() || r.chars().count() >= 3;
                    // Every start, overlapping ones included (`match_indices` skips them).
                    p.char_indices().skip(1).any(|(at, _)| {
                        p[at..].starts_with(word)
                            && word_or_empty(&p[..at])
                            && word_or_empty(&p[at + word.len()..])
                    })
                })
                .collect()
        })
        .unwrap_or_default()
    }
}
