//! What reveal mode sends for tools not yet revealed: a stub per tool (its name and
//! a summary of its description, parameters replaced by a placeholder that says to
//! search the exact name first), or, in the hidden form, nothing but a reminder
//! block listing their names once; and the guidance note for the system prompt.

use serde_json::{json, Value};
use toolsearch_catalog::{truncate_at_boundary, Tool};

use super::RevealSettings;
use crate::defs::{self, Provider, SearchLimits};
use crate::plan::Plan;

/// Marks the reminder block, so inserting it again replaces it (idempotent).
pub const REMINDER_TAG: &str = "available-deferred-tools";

/// The guidance note for the system prompt in reveal mode.
pub fn guidance() -> &'static str {
    "Some tools are listed with their parameters not loaded. Before calling such a \
     tool, call `tool_search` with its exact name (or describe the task): the result \
     gives its full parameters, and from the next turn it can be called directly."
}

/// The `tool_search` of reveal mode (never deferred, first after the tools sent in
/// full).
pub fn reveal_search_tool(limits: SearchLimits) -> (String, Value) {
    (
        format!(
            "Load tools: search by task or by exact tool name. Returns the matching tools \
             with their full parameters ({} per search, up to {} with `select:a,b`), and \
             from the next turn they can be called directly.",
            limits.default, limits.max
        ),
        json!({"type": "object", "properties": {
            "query": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "maxItems": 7}]},
            "limit": {"type": "integer", "minimum": 1, "maximum": limits.max}
        }, "required": ["query"]}),
    )
}

/// What reveal mode sends on one turn.
pub(crate) struct RevealList {
    pub tools: Vec<Value>,
    /// Definitions with a full schema (tools sent directly and revealed ones).
    pub full: usize,
    /// The stubs were over budget or hidden: the caller inserts the reminder.
    pub hidden: bool,
    pub notes: Vec<String>,
}

/// The list of one turn in reveal mode, in an order that keeps the provider's prompt
/// cache: the tools always sent in full, `tool_search`, the stubs of the tools not
/// yet revealed (byte-stable for the same catalog and reveals), then the revealed
/// tools in full, in the order they were revealed (a new reveal appends at the end).
pub(crate) fn reveal_list(
    plan: &Plan,
    revealed: &[String],
    provider: Provider,
    settings: &RevealSettings,
    limits: SearchLimits,
) -> RevealList {
    let names = plan.all_names();
    let deferred = plan.deferred();
    let mut tools = plan.full(provider, &names, &plan.direct);
    let (description, schema) = reveal_search_tool(limits);
    tools.push(defs::definition(
        provider,
        "tool_search",
        &description,
        &schema,
    ));
    let is_deferred = |i: usize| deferred.binary_search(&i).is_ok();
    let shown: Vec<usize> = revealed
        .iter()
        .filter_map(|id| plan.visible.iter().position(|t| &t.id == id))
        .filter(|&i| is_deferred(i))
        .collect();
    let stubs: Vec<Value> = deferred
        .iter()
        .filter(|i| !shown.contains(i))
        .map(|&i| {
            let (summary, schema) =
                stub(&plan.visible[i], &names[i], settings.stub_description_bytes);
            defs::definition(provider, &names[i], &summary, &schema)
        })
        .collect();
    let stub_bytes: usize = stubs.iter().map(|d| d.to_string().len()).sum();
    let mut notes = Vec::new();
    let hidden = settings.hidden || stub_bytes > settings.max_stub_bytes;
    if hidden {
        if !settings.hidden {
            notes.push(format!(
                "{} stubs would take {stub_bytes} bytes (over {}): deferred tools are hidden \
                 until searched; insert the reminder (ToolSearch::insert_reminder)",
                stubs.len(),
                settings.max_stub_bytes
            ));
        }
    } else {
        tools.extend(stubs);
    }
    tools.extend(plan.full(provider, &names, &shown));
    RevealList {
        tools,
        full: plan.direct.len() + shown.len(),
        hidden,
        notes,
    }
}

/// The placeholder parameters of a stub named `name`.
pub fn stub_schema(name: &str) -> Value {
    json!({
        "type": "object",
        "description": format!(
            "Parameters not loaded: call tool_search with the exact name `{name}` first."
        ),
        "additionalProperties": true,
    })
}

/// `description` cut to its first sentence, at most `budget` bytes (with `…` when cut).
pub fn summary(description: &str, budget: usize) -> String {
    let first = description
        .split_inclusive(". ")
        .next()
        .unwrap_or(description)
        .trim_end();
    if first.len() <= budget {
        return first.to_owned();
    }
    let keep = truncate_at_boundary(first, budget.saturating_sub('…'.len_utf8()));
    format!("{}…", keep.trim_end())
}

/// The stub of `tool` under its provider name (name, summary, placeholder).
pub fn stub(tool: &Tool, name: &str, description_bytes: usize) -> (String, Value) {
    (
        summary(&tool.description, description_bytes),
        stub_schema(name),
    )
}

/// The reminder block listing `names`, within `budget` bytes: as many names as fit,
/// then how many more there are.
pub fn reminder_text(names: &[&str], budget: usize) -> String {
    let open = format!("<{REMINDER_TAG}>\n");
    let close = format!("</{REMINDER_TAG}>");
    let intro = "These tools exist but their definitions are not loaded; call tool_search \
                 with a name (or the task) to load them:\n";
    let mut out = format!("{open}{intro}");
    // Room kept for the closing tag and the "more" line.
    let reserve = close.len() + 64;
    let mut shown = 0;
    for name in names {
        if out.len() + name.len() + 1 + reserve > budget {
            break;
        }
        out.push_str(name);
        out.push('\n');
        shown += 1;
    }
    if shown < names.len() {
        out.push_str(&format!(
            "… and {} more (tool_search finds them)\n",
            names.len() - shown
        ));
    }
    out.push_str(&close);
    out
}

/// Inserts (or replaces) the reminder as a user-role message before the first
/// message that is not a system or developer message. Idempotent: an earlier
/// reminder is replaced in place, never repeated. `None` removes an earlier one.
pub fn place_reminder(messages: &mut Vec<Value>, text: Option<&str>) {
    let marker = format!("<{REMINDER_TAG}>");
    let existing = messages.iter().position(|m| {
        m["role"] == "user"
            && match &m["content"] {
                Value::String(s) => s.starts_with(&marker),
                Value::Array(parts) => parts
                    .first()
                    .and_then(|p| p["text"].as_str())
                    .is_some_and(|s| s.starts_with(&marker)),
                _ => false,
            }
    });
    match (existing, text) {
        (Some(i), Some(t)) => messages[i] = json!({"role": "user", "content": t}),
        (Some(i), None) => {
            messages.remove(i);
        }
        (None, Some(t)) => {
            let at = messages
                .iter()
                .position(|m| !matches!(m["role"].as_str(), Some("system" | "developer")))
                .unwrap_or(messages.len());
            messages.insert(at, json!({"role": "user", "content": t}));
        }
        (None, None) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_keep_the_first_sentence_within_the_budget() {
        assert_eq!(summary("Reads a file. Then more.", 160), "Reads a file.");
        let long = "x".repeat(500);
        let s = summary(&long, 40);
        assert!(s.len() <= 40 && s.ends_with('…'), "{s}");
        assert_eq!(summary("", 10), "");
    }

    #[test]
    fn the_reminder_fits_its_budget_and_counts_the_rest() {
        let names: Vec<String> = (0..1000).map(|i| format!("tool_{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let t = reminder_text(&refs, 1024);
        assert!(t.len() <= 1024, "{}", t.len());
        assert!(t.contains("tool_0\n") && t.contains("more (tool_search finds them)"));
        assert!(
            t.starts_with("<available-deferred-tools>")
                && t.ends_with("</available-deferred-tools>")
        );
        let all = reminder_text(&refs[..3], 1024);
        assert!(!all.contains("more"));
    }

    #[test]
    fn the_reminder_goes_before_the_first_non_system_message_once() {
        let mut m = vec![
            json!({"role": "system", "content": "be brief"}),
            json!({"role": "user", "content": "hi"}),
        ];
        place_reminder(
            &mut m,
            Some("<available-deferred-tools>\na\n</available-deferred-tools>"),
        );
        place_reminder(
            &mut m,
            Some("<available-deferred-tools>\nb\n</available-deferred-tools>"),
        );
        assert_eq!(m.len(), 3);
        assert_eq!(m[1]["role"], "user");
        assert!(m[1]["content"].as_str().unwrap().contains("\nb\n"));
        assert_eq!(m[2]["content"], "hi");
        place_reminder(&mut m, None);
        assert_eq!(m.len(), 2);
    }
}
