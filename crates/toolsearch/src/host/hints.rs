//! Hints: one sentence added to an error (or an empty answer) for the mistakes
//! models make most with the code-mode API, so the next try is right. Each is
//! recognised from the error's text and the snippet's own code, never guessed
//! from the error alone. The code-mode ones are built with the `code` feature.

#[cfg(feature = "code")]
use toolsearch_sandbox::{ErrorKind, ExecError, ExecResult};

#[cfg(feature = "code")]
/// What `openclaw.tools.call` resolves to, for a snippet that read it as an MCP result.
pub const CALL_RESULT: &str = "openclaw.tools.call resolves to the tool's value, not to an MCP \
     result: its structuredContent when it has one, else its text (parsed as JSON when it is \
     JSON), else the content array; use it directly (no .content[0].text)";

#[cfg(feature = "code")]
/// For a snippet that read `inputSchema` from a description.
pub const INPUT_SCHEMA: &str =
    "openclaw.tools.describe gives `input_schema` (and `output_schema`), not inputSchema";

#[cfg(feature = "code")]
/// For a snippet that used a promise of `openclaw.tools.*` as its value.
pub const AWAIT: &str = "openclaw.tools.search, describe and call return promises: `const hits = \
     await openclaw.tools.search(\"...\")`";

#[cfg(feature = "code")]
/// The hint for a failed snippet, when its error and code show a known mistake.
pub(crate) fn for_error(error: &ExecError, code: &str) -> Option<String> {
    if error.kind != ErrorKind::Script {
        return None;
    }
    let m = error.message.as_str();
    let missing = m.contains("Cannot read properties of undefined")
        || m.contains("Cannot read properties of null");
    let not_a_promise_value = m.contains("is not a function") || m.contains("is not iterable");
    if (missing || not_a_promise_value) && unawaited_assignment(code) {
        return Some(AWAIT.to_owned());
    }
    if missing && code.contains(".content[") {
        return Some(CALL_RESULT.to_owned());
    }
    if missing && (code.contains("inputSchema") || code.contains("outputSchema")) {
        return Some(INPUT_SCHEMA.to_owned());
    }
    None
}

#[cfg(feature = "code")]
/// The hint for a snippet that ran calls and returned nothing (no `return` in
/// its code): its answer is only the value.
pub(crate) fn no_return(result: &ExecResult, code: &str) -> Option<String> {
    let s = &result.stats;
    let steps: Vec<String> = [
        (s.calls, "call", "calls"),
        (s.searches, "search", "searches"),
        (s.describes, "describe", "describes"),
    ]
    .iter()
    .filter(|(n, ..)| *n > 0)
    .map(|(n, one, many)| format!("{n} {}", if *n == 1 { one } else { many }))
    .collect();
    if !result.value.is_null() || steps.is_empty() || has_word(code, "return") {
        return None;
    }
    Some(format!(
        "the snippet has no `return`, so its value is null (it made {}): end it with `return` \
         and what you need; the answer carries only the value and the logs",
        steps.join(", ")
    ))
}

#[cfg(feature = "code")]
/// True when the code assigns a call of `openclaw.tools.*` without `await`
/// (`const hits = openclaw.tools.search(...)`).
fn unawaited_assignment(code: &str) -> bool {
    code.match_indices("openclaw.tools.").any(|(at, _)| {
        let before = code[..at].trim_end();
        before.ends_with('=')
            && !before.ends_with("==")
            && !before.ends_with("!=")
            && !before.ends_with("<=")
            && !before.ends_with(">=")
    })
}

#[cfg(feature = "code")]
fn has_word(code: &str, word: &str) -> bool {
    code.match_indices(word).any(|(at, _)| {
        let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
        !code[..at].chars().next_back().is_some_and(ident)
            && !code[at + word.len()..].chars().next().is_some_and(ident)
    })
}

/// The hint for a `tool_call` whose arguments were put next to `name` instead
/// of under `arguments`: the keys it found there.
pub(crate) fn arguments_at_top_level(args: &serde_json::Value) -> Option<String> {
    let map = args.as_object()?;
    // `arguments: {}` (or null) with the real ones beside it is the same
    // slip as leaving `arguments` out.
    let given = map
        .get("arguments")
        .or(map.get("args"))
        .is_some_and(|a| !(a.is_null() || a.as_object().is_some_and(|m| m.is_empty())));
    if given {
        return None;
    }
    let stray: Vec<&str> = map
        .keys()
        .map(String::as_str)
        .filter(|k| !["id", "name", "arguments", "args"].contains(k))
        .collect();
    if stray.is_empty() {
        return None;
    }
    Some(format!(
        "tool_call takes the tool's arguments under `arguments`: {{\"name\": \"...\", \
         \"arguments\": {{{}}}}}; {} at the top level went nowhere",
        stray
            .iter()
            .map(|k| format!("\"{k}\": ..."))
            .collect::<Vec<_>>()
            .join(", "),
        stray
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", "),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[cfg(feature = "code")]
    #[test]
    fn unawaited_assignments_are_found_and_comparisons_are_not() {
        assert!(unawaited_assignment("const h = openclaw.tools.search('x')"));
        assert!(!unawaited_assignment(
            "const h = await openclaw.tools.search('x')"
        ));
        assert!(!unawaited_assignment("if (a == openclaw.tools.x) {}"));
    }

    #[cfg(feature = "code")]
    #[test]
    fn return_is_a_word() {
        assert!(has_word("x; return y", "return"));
        assert!(!has_word("const returned = 1", "return"));
    }

    #[test]
    fn stray_arguments_are_named() {
        let h = arguments_at_top_level(&json!({"name": "t", "timezone": "UTC"})).unwrap();
        assert!(h.contains("`timezone`"), "{h}");
        assert_eq!(
            arguments_at_top_level(&json!({"name": "t", "arguments": {}})),
            None
        );
        assert_eq!(arguments_at_top_level(&json!({"name": "t"})), None);
        // `arguments: {}` with the real ones beside it (issue 60).
        let h =
            arguments_at_top_level(&json!({"name": "t", "arguments": {}, "tz": "UTC"})).unwrap();
        assert!(h.contains("`tz` at the top level"), "{h}");
        assert_eq!(
            arguments_at_top_level(&json!({"name": "t", "arguments": {"a": 1}, "tz": "UTC"})),
            None
        );
    }
}
