//! Exact names and ids: the lookups behind the exact-name bonus, `select:` and the
//! typo check. Each is linear in the tools it finds, however many share a name (the
//! same tool on many servers), and membership is a constant-time test.

use crate::clean::{clean_line, MAX_IDENTIFIER_BYTES};
use crate::pin::EXACT_NAME_BONUS;
use crate::rank::RuleScore;
use crate::search::{MatchedBy, SearchOptions, SearchResult};
use crate::tool::Tool;
use crate::Catalog;

impl Catalog {
    /// `select:a,b`: the named tools (by exact name or id, up to [`crate::MAX_LIMIT`] by default) in the
    /// order given, and the names that matched no visible tool.
    pub(crate) fn select(
        &self,
        result: &mut SearchResult,
        names: &[String],
        opts: &SearchOptions,
        allow: &dyn Fn(&Tool) -> bool,
    ) {
        result.matched_by = MatchedBy::Select;
        result.limit = opts.max();
        result.limit_note = None;
        let mut ambiguous = Vec::new();
        for name in names.iter().take(opts.max()) {
            // The same resolution as a call by name: an id, else a name only one
            // visible tool has (its exact spelling first); an ambiguous name is
            // refused here as it is there.
            let found = match self.resolve(name, allow) {
                crate::Resolved::One(t) => self.position(&t.id).map(|i| i as u32),
                crate::Resolved::Ambiguous(n) => {
                    ambiguous.push(format!(
                        "{n} tools are named `{}`; select them by id",
                        clean_line(name, MAX_IDENTIFIER_BYTES * 2)
                    ));
                    None
                }
                crate::Resolved::None => None,
            };
            match found {
                Some(doc)
                    if !result
                        .hits
                        .iter()
                        .any(|h| h.id == self.tools()[doc as usize].id) =>
                {
                    let explain = opts
                        .explain
                        .then(|| vec![RuleScore::new("exact_name", None, EXACT_NAME_BONUS)]);
                    result
                        .hits
                        .push(self.hit(doc, EXACT_NAME_BONUS, opts, explain));
                }
                Some(_) => {}
                // The model's own text, echoed back: cleaned like anything sent.
                None => result
                    .not_found
                    .push(clean_line(name, MAX_IDENTIFIER_BYTES * 2)),
            }
        }
        if names.len() > opts.max() {
            result.limit_note = Some(format!(
                "select: takes at most {} names; {} ignored",
                opts.max(),
                names.len() - opts.max()
            ));
        }
        result.total = result.hits.len();
        if !ambiguous.is_empty() {
            result.hint = Some(ambiguous.join("; "));
        } else if !result.not_found.is_empty() {
            result.hint = Some(
                "names are matched exactly (name or id); search by keyword to find the right name"
                    .into(),
            );
        }
    }

    /// The doc whose id is `s`, as given or lower-cased (ids are not in the name map).
    pub(crate) fn id_doc(&self, s: &str) -> Option<u32> {
        self.inner
            .by_id
            .get(s)
            .or_else(|| self.inner.by_id.get(&s.to_lowercase()))
            .copied()
    }

    /// Docs whose name, native name or id equals `s` (case-insensitive): the id's doc
    /// first, then the others by id. Linear in the docs found, however many share it.
    pub(crate) fn exact_docs(&self, s: &str) -> Vec<u32> {
        let names = self.inner.exact.get(&s.to_lowercase());
        let by_id = self.id_doc(s);
        let mut docs = Vec::with_capacity(names.map_or(0, Vec::len) + 1);
        docs.extend(by_id);
        docs.extend(names.into_iter().flatten().filter(|&&d| Some(d) != by_id));
        docs
    }

    /// True when some tool's name, native name or id equals `s` (case-insensitive).
    pub(crate) fn has_exact(&self, s: &str) -> bool {
        self.id_doc(s).is_some() || self.inner.exact.contains_key(&s.to_lowercase())
    }
}
