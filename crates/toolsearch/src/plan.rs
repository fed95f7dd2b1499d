//! The plan of one turn for one scope: which tools the scope sees, which are sent in
//! full and under which provider names (made by `ToolSearch::plan` in
//! `definitions.rs`, read by every mode's list).

use toolsearch_catalog::Tool;

use serde_json::Value;

use crate::defs::{self, Provider};

/// What `ToolSearch::plan` decided for one scope.
pub(crate) struct Plan {
    /// Every tool the scope sees.
    pub(crate) visible: Vec<Tool>,
    /// How many of them are deferrable.
    pub(crate) deferrable: usize,
    /// Indexes into `visible` of the tools sent in full up front, in order.
    pub(crate) direct: Vec<usize>,
    /// Their provider names (same order as `direct`).
    pub(crate) names: Vec<String>,
    pub(crate) active: bool,
    pub(crate) reason: String,
    pub(crate) tokens: usize,
    pub(crate) share: Option<f64>,
}

impl Plan {
    /// Indexes into `visible` of the deferred tools, in order.
    pub(crate) fn deferred(&self) -> Vec<usize> {
        let direct: std::collections::HashSet<usize> = self.direct.iter().copied().collect();
        (0..self.visible.len())
            .filter(|i| !direct.contains(i))
            .collect()
    }

    /// Provider names of every visible tool (index-aligned with `visible`): the names
    /// of reveal and native modes, where deferred tools are called by name too.
    pub(crate) fn all_names(&self) -> Vec<String> {
        let refs: Vec<&Tool> = self.visible.iter().collect();
        defs::provider_names(&refs)
    }

    /// The full definitions of the tools at `which` (indexes into `visible`), under
    /// `names` (from [`Plan::all_names`]).
    pub(crate) fn full(&self, provider: Provider, names: &[String], which: &[usize]) -> Vec<Value> {
        which
            .iter()
            .map(|&i| defs::tool_definition(provider, &names[i], &self.visible[i]))
            .collect()
    }
}
