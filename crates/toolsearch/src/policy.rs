//! Which tools a caller may see and call: allow / deny globs over tool ids and
//! names (the host's policy, narrowed by a caller's scope), and the rule that
//! puts destructive tools behind an approval. Every "may it run" is here; the
//! host's `gate.rs` applies them in order.
//!
//! Fail closed: a tool is visible only when no deny pattern matches it and, if any
//! allow pattern is given, at least one does. Hidden tools are indistinguishable from
//! missing ones everywhere (search, describe, call).

use toolsearch_catalog::Tool;

/// A `*` / `?` glob. A pattern with a `:` is matched against the tool id
/// (`source:server:name`, e.g. `mcp:github:*`); without one, against the tool's name,
/// its native name and its server (so `github` or `create_*` work).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob(String);

impl Glob {
    /// A pattern; matching is ASCII case-insensitive.
    pub fn new(pattern: &str) -> Glob {
        Glob(pattern.trim().to_ascii_lowercase())
    }

    /// The pattern as given (lower-cased).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True when the pattern admits this tool.
    pub fn matches_tool(&self, tool: &Tool) -> bool {
        if self.0.contains(':') {
            return glob_match(&self.0, &tool.id.to_ascii_lowercase());
        }
        let candidates = [
            Some(tool.name.as_str()),
            tool.native_name.as_deref(),
            tool.server.as_deref(),
        ];
        candidates
            .into_iter()
            .flatten()
            .any(|c| glob_match(&self.0, &c.to_ascii_lowercase()))
    }
}

/// Iterative glob matching with backtracking on the last `*` (linear in practice).
fn glob_match(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Allow and deny patterns. The default policy allows everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// When non-empty, only tools matching one of these are visible.
    pub allow: Vec<Glob>,
    /// Tools matching any of these are hidden (deny wins over allow).
    pub deny: Vec<Glob>,
}

impl Policy {
    /// A policy from pattern strings.
    pub fn from_patterns<A: AsRef<str>, D: AsRef<str>>(allow: &[A], deny: &[D]) -> Policy {
        Policy {
            allow: allow.iter().map(|p| Glob::new(p.as_ref())).collect(),
            deny: deny.iter().map(|p| Glob::new(p.as_ref())).collect(),
        }
    }

    /// True when the tool is visible and callable under this policy.
    pub fn allows(&self, tool: &Tool) -> bool {
        if self.deny.iter().any(|g| g.matches_tool(tool)) {
            return false;
        }
        self.allow.is_empty() || self.allow.iter().any(|g| g.matches_tool(tool))
    }
}

/// The destructive-tools rule: with `approve_destructive` on, a tool annotated
/// `destructiveHint` runs only once an approver allowed it (and is refused
/// without one). A hint from a possibly hostile server: `readOnlyHint` beside
/// it never lifts the rule.
pub(crate) fn needs_approval(tool: &Tool, approve_destructive: bool) -> bool {
    approve_destructive && tool.is_destructive()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolsearch_catalog::Source;

    fn tool(server: Option<&str>, name: &str) -> Tool {
        Tool::new(Source::Mcp, server, name, "", json!({"type": "object"}))
    }

    #[test]
    fn glob_star_and_question_mark() {
        assert!(glob_match("a*c", "abbbc"));
        assert!(glob_match("*", ""));
        assert!(glob_match("a?c", "abc"));
        assert!(!glob_match("a?c", "ac"));
        assert!(glob_match("*issue*", "create_issue_comment"));
        assert!(!glob_match("mcp:github:*", "mcp:gitlab:x"));
        assert!(glob_match("**a", "a"));
    }

    #[test]
    fn patterns_with_colon_match_ids_others_names_and_servers() {
        let t = tool(Some("github"), "create_issue");
        assert!(Glob::new("mcp:github:*").matches_tool(&t));
        assert!(Glob::new("*:github:*").matches_tool(&t));
        assert!(Glob::new("github").matches_tool(&t));
        assert!(Glob::new("CREATE_*").matches_tool(&t));
        assert!(!Glob::new("builtin:*").matches_tool(&t));
        assert!(!Glob::new("slack").matches_tool(&t));
    }

    #[test]
    fn deny_wins_and_allow_list_restricts() {
        let gh = tool(Some("github"), "create_issue");
        let slack = tool(Some("slack"), "send_message");
        let p = Policy::from_patterns(&["github", "slack"], &["send_*"]);
        assert!(p.allows(&gh));
        assert!(!p.allows(&slack));
        assert!(Policy::default().allows(&slack));
        // A caller's scope narrows the host's: a tool must pass both.
        let sub = Policy::from_patterns::<&str, &str>(&["slack"], &[]);
        let both = |outer: &Policy, t: &Tool| outer.allows(t) && sub.allows(t);
        assert!(!both(&Policy::default(), &gh));
        assert!(both(&Policy::default(), &slack));
        assert!(!both(&p, &slack));
    }
}
