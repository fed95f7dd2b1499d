//! Provider names: the names tools are sent under, valid for every provider,
//! at most [`MAX_NAME`] bytes and unique among the tools of one list.

use toolsearch_catalog::clean::short_hash;
use toolsearch_catalog::Tool;

use crate::vocab::BRIDGE_TOOLS;

/// Longest tool name every provider accepts.
pub const MAX_NAME: usize = 64;

/// `name` with every character a provider does not accept in a name replaced by `_`
/// (at most [`MAX_NAME`] bytes).
pub fn provider_safe(name: &str) -> String {
    toolsearch_catalog::truncate_at_boundary(&sanitize(name), MAX_NAME).to_owned()
}

fn sanitize(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "tool".into()
    } else {
        s
    }
}

/// Provider names for `tools`, in order: valid characters only, at most 64 long, and
/// unique (`server__name` when two servers share a name, a hash suffix when still
/// ambiguous or too long). Deterministic for the same tools.
pub fn provider_names(tools: &[&Tool]) -> Vec<String> {
    let base: Vec<String> = tools.iter().map(|t| sanitize(t.short_name())).collect();
    // The bridge tools' names are taken: a tool sent under one of them would
    // shadow a bridge tool (or be shadowed), so it is prefixed or shortened.
    let mut counts: std::collections::HashMap<String, usize> =
        BRIDGE_TOOLS.iter().map(|b| (b.to_string(), 1)).collect();
    for b in &base {
        *counts.entry(b.clone()).or_insert(0usize) += 1;
    }
    let mut names: Vec<String> = tools
        .iter()
        .zip(&base)
        .map(|(t, b)| match (&t.server, counts[b] > 1) {
            (Some(server), true) => format!("{}__{b}", sanitize(server)),
            _ => b.clone(),
        })
        .collect();
    let mut seen: std::collections::HashMap<String, usize> =
        BRIDGE_TOOLS.iter().map(|b| (b.to_string(), 1)).collect();
    for n in &names {
        *seen.entry(n.clone()).or_insert(0usize) += 1;
    }
    // Names that are final as they are; a shortened name must differ from all of
    // them (a hash suffix can equal another tool's real name) and from each other.
    let mut taken: std::collections::HashSet<String> = names
        .iter()
        .filter(|n| n.len() <= MAX_NAME && seen[n.as_str()] == 1)
        .cloned()
        .chain(BRIDGE_TOOLS.iter().map(|b| b.to_string()))
        .collect();
    for (name, tool) in names.iter_mut().zip(tools) {
        if name.len() > MAX_NAME || seen[name.as_str()] > 1 {
            let keep = toolsearch_catalog::truncate_at_boundary(name, MAX_NAME - 9).to_string();
            let mut salt = 0u32;
            let mut candidate = format!("{keep}_{}", short_hash(&tool.id));
            while taken.contains(&candidate) {
                salt += 1;
                candidate = format!("{keep}_{}", short_hash(&format!("{}#{salt}", tool.id)));
            }
            taken.insert(candidate.clone());
            *name = candidate;
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolsearch_catalog::Source;

    fn tool(server: &str, name: &str) -> Tool {
        Tool::new(
            Source::Mcp,
            Some(server),
            name,
            "",
            json!({"type": "object"}),
        )
    }

    #[test]
    fn a_shortened_name_never_equals_another_tools_real_name() {
        // Two servers share a tool name and `server__name` is over 64 bytes, so both
        // are shortened with a hash suffix; a third server's tool is really named
        // exactly like the first shortened form.
        let name = "n".repeat(40);
        let a = tool(&"s".repeat(40), &name);
        let b = tool(&"t".repeat(40), &name);
        let shortened = provider_names(&[&a, &b]).remove(0);
        assert!(shortened.len() <= MAX_NAME && shortened.starts_with("sss"));
        let squatter = tool("z", &shortened);
        for refs in [[&a, &b, &squatter], [&squatter, &b, &a]] {
            let names = provider_names(&refs);
            let unique: std::collections::HashSet<&String> = names.iter().collect();
            assert_eq!(unique.len(), 3, "{names:?}");
            assert!(names.iter().all(|n| n.len() <= MAX_NAME));
        }
        // The squatter keeps its real name; the shortened one moves.
        assert_eq!(provider_names(&[&a, &b, &squatter])[2], shortened);
    }

    #[test]
    fn a_tool_named_like_a_bridge_tool_never_takes_its_name() {
        for bridge in BRIDGE_TOOLS {
            let served = tool("srv", bridge);
            let other = tool("other", "plain");
            let names = provider_names(&[&served, &other]);
            assert_eq!(names[0], format!("srv__{bridge}"), "{names:?}");
            assert_eq!(names[1], "plain");
            // Without a server (a built-in or client tool): shortened with a hash.
            let mut bare = tool("x", bridge);
            bare.server = None;
            let names = provider_names(&[&bare]);
            assert!(!BRIDGE_TOOLS.contains(&names[0].as_str()), "{names:?}");
        }
    }

    #[test]
    fn names_are_valid_unique_and_short() {
        let tools = [
            tool("github", "search"),
            tool("gitlab", "search"),
            tool("x", "a.b/c"),
            tool("y", &"n".repeat(90)),
        ];
        let refs: Vec<&Tool> = tools.iter().collect();
        let names = provider_names(&refs);
        assert_eq!(names[0], "github__search");
        assert_eq!(names[1], "gitlab__search");
        assert_eq!(names[2], "a_b_c");
        assert!(names[3].len() <= MAX_NAME);
        for n in &names {
            assert!(
                n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
                "{n}"
            );
        }
        assert_eq!(provider_names(&refs), names, "deterministic");
    }
}
