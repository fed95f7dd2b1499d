//! The exact-name rule, one for every ranking path: a tool the query names exactly
//! (its name, native name or id) ranks above every other hit. Lexical search
//! ([`Catalog::search`]) and the embedding fusion (`toolsearch-embed`) both find the
//! tools with [`Catalog::exact_name_docs`] and put them first with [`pin_exact`], so
//! they pin the same tools the same way.

use crate::query::Keywords;
use crate::tool::Tool;
use crate::Catalog;
use rustc_hash::{FxHashMap, FxHashSet};

/// The least lift [`pin_exact`] gives a tool named exactly (also the score of a
/// `select:` hit). Far above any other score in practice; when not, the lift grows.
pub const EXACT_NAME_BONUS: f32 = 100.0;

/// How [`pin_exact`] changed a ranking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pinned {
    /// The tools named exactly, now the ranking's first `count` entries.
    pub count: usize,
    /// What was added to each of their scores (0 when none).
    pub lift: f32,
}

impl Catalog {
    /// Every visible tool the query names exactly: for each exact-name candidate of
    /// `kw` (see [`crate::query::Keywords::exact`]) in query order, the tool whose id it
    /// is, then the tools whose name or native name it is (case-insensitive) by id;
    /// each tool once. Positions in [`Catalog::tools`]. Linear in the tools found,
    /// however many share a name (the same tool on many servers): all are named.
    pub fn exact_name_docs(&self, kw: &Keywords, allow: &dyn Fn(&Tool) -> bool) -> Vec<usize> {
        let tools = self.tools();
        let mut out: Vec<usize> = Vec::new();
        // Two candidates may name the same tools (`a_b` and `A_B`): each tool once.
        let mut seen: FxHashSet<usize> = FxHashSet::default();
        for name in &kw.exact {
            for doc in self.exact_docs(name) {
                let doc = doc as usize;
                if allow(&tools[doc]) && seen.insert(doc) {
                    out.push(doc);
                }
            }
        }
        out
    }
}

/// Puts the tools named exactly (`exact`, from [`Catalog::exact_name_docs`]) first in
/// `ranking` (a ranking by score of any ranker) and lifts their scores above every
/// other hit: the exact-name rule every ranking path applies.
///
/// - Every doc of `exact` is pinned; one the ranking lacks (it matched nothing the
///   ranker looks at) is added, made by `missing` (with the score it has without the
///   rule, normally 0).
/// - The pinned come first, by their own score (ties in `exact` order); every other
///   entry follows in the order it had.
/// - Each pinned score grows by one lift: [`EXACT_NAME_BONUS`], or more when that
///   would not put the weakest pinned tool at least 1 above the best other entry. So
///   scores stay monotone, and a pinned tool outranks every unpinned one of any path
///   whose scores stay under the bonus (lexical and fused alike).
///
/// `doc` and `score` read an entry's position in [`Catalog::tools`] and its score.
pub fn pin_exact<T>(
    ranking: &mut Vec<T>,
    exact: &[usize],
    doc: impl Fn(&T) -> usize,
    score: impl Fn(&mut T) -> &mut f32,
    mut missing: impl FnMut(usize) -> T,
) -> Pinned {
    if exact.is_empty() {
        return Pinned {
            count: 0,
            lift: 0.0,
        };
    }
    let at: FxHashMap<usize, usize> = exact.iter().enumerate().map(|(i, &d)| (d, i)).collect();
    let mut found = vec![false; exact.len()];
    // (own score, place in `exact`, entry)
    let mut pinned: Vec<(f32, usize, T)> = Vec::with_capacity(exact.len());
    let mut rest: Vec<T> = Vec::with_capacity(ranking.len());
    for mut entry in ranking.drain(..) {
        match at.get(&doc(&entry)) {
            Some(&i) => {
                found[i] = true;
                pinned.push((*score(&mut entry), i, entry));
            }
            None => rest.push(entry),
        }
    }
    for (i, &d) in exact.iter().enumerate().filter(|(i, _)| !found[*i]) {
        let mut entry = missing(d);
        pinned.push((*score(&mut entry), i, entry));
    }
    pinned.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let weakest = pinned.last().map_or(0.0, |p| p.0);
    let best_other = rest
        .iter_mut()
        .map(|e| *score(e))
        .fold(f32::NEG_INFINITY, f32::max);
    let lift = EXACT_NAME_BONUS.max(best_other - weakest + 1.0);
    let count = pinned.len();
    ranking.extend(pinned.into_iter().map(|(_, _, mut entry)| {
        *score(&mut entry) += lift;
        entry
    }));
    ranking.extend(rest);
    Pinned { count, lift }
}
