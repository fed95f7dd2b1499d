//! What reveal mode sends for tools not yet revealed: a stub per tool (its name and
//! a summary of its description, parameters replaced by a placeholder that says to
//! search the exact name first), or, in the hidden form, nothing but a reminder
//! block listing their names once; and the guidance note for the system prompt.

use serde_json::{json, Value};
use toolsearch_catalog::{truncate_at_boundary, Tool};

use crate::plan::Plan;
use crate::settings::modes::RevealSettings;
use crate::settings::SearchLimits;
use crate::vocab::{BridgeTool, Provider};
use crate::wire;

/// True when reveal mode's list for `provider` is in the hidden form (set, or
/// chosen because the stubs were over budget) with deferral on: only then does a
/// reveal change the list (it appends the revealed tool; stubs stay as they are).
pub(crate) fn hidden_form(plan: &Plan, provider: Provider, settings: &RevealSettings) -> bool {
    plan.active && stubs(plan, plan.all_names(), &plan.deferred(), provider, settings).is_none()
}

/// The reminder text of the hidden form, if any: none outside it, and none where
/// the names go in `tool_search`'s description instead (over MCP by default).
pub(crate) fn reminder(
    plan: &Plan,
    provider: Provider,
    settings: &RevealSettings,
) -> Option<String> {
    if listing_in_search(settings, provider) || !hidden_form(plan, provider, settings) {
        return None;
    }
    let names = plan.all_names();
    let listed: Vec<&str> = plan
        .deferred()
        .into_iter()
        .map(|i| names[i].as_str())
        .collect();
    (!listed.is_empty()).then(|| reminder_text(&listed, settings.reminder_bytes))
}

/// Marks the reminder block, so inserting it again replaces it (idempotent).
pub const REMINDER_TAG: &str = "available-deferred-tools";

/// The guidance note for the system prompt in reveal mode.
pub fn guidance() -> &'static str {
    "Some tools are listed with their parameters not loaded (or only named). Before \
     calling such a tool, call `tool_search` with its exact name (or describe the \
     task): the result gives its full parameters; then call the tool by its name."
}

/// The `tool_search` of reveal mode (never deferred, first after the tools sent in
/// full).
pub fn reveal_search_tool(limits: SearchLimits) -> (String, Value) {
    (
        format!(
            "Load tools: search by task or by exact tool name. Returns the matching tools \
             with their full parameters ({} per search, up to {} with `select:a,b`); then \
             call a tool by its name (`call_as`).",
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
    pub notes: Vec<String>,
}

/// The stubs of the deferred tools (`deferred`, under `names`), or `None` for the
/// hidden form (set, or the stubs over their budget: building stops at the first
/// byte over). Depends on the catalog and scope only, never on reveals, so a reveal
/// never flips the form (and the whole list with it).
pub(crate) fn stubs(
    plan: &Plan,
    names: &[String],
    deferred: &[usize],
    provider: Provider,
    settings: &RevealSettings,
) -> Option<Vec<Value>> {
    if settings.hidden {
        return None;
    }
    let mut bytes = 0;
    let mut out = Vec::with_capacity(deferred.len());
    for &i in deferred {
        let (summary, schema) = stub(&plan.visible[i], &names[i], settings.stub_description_bytes);
        let mut d = wire::definition(provider, &names[i], &summary, &wire::canonical(&schema));
        if provider == Provider::Mcp {
            // The hints a client asks for confirmation by travel with the stub
            // (a call by its name runs the tool); its output schema waits for
            // the full definition.
            wire::mcp_metadata(&mut d, &plan.visible[i], false);
        }
        bytes += d.to_string().len();
        if bytes > settings.max_stub_bytes {
            return None;
        }
        out.push(d);
    }
    Some(out)
}

/// Whether the names of hidden tools go in `tool_search`'s description: set, or
/// by default over MCP, where no one can insert a reminder message.
pub(crate) fn listing_in_search(settings: &RevealSettings, provider: Provider) -> bool {
    settings
        .listing_in_search
        .unwrap_or(provider == Provider::Mcp)
}

/// The list of one turn in reveal mode, in an order that keeps the provider's prompt
/// cache: the tools always sent in full, `tool_search`, then either the stubs of
/// every deferred tool (byte-stable for a catalog: a reveal changes nothing, the
/// full schema reaches the model in the search result and a call is checked against
/// it) or, in the hidden form, the revealed tools in full in the order they were
/// revealed (a reveal only appends).
pub(crate) fn reveal_list(
    plan: &Plan,
    revealed: &[String],
    provider: Provider,
    settings: &RevealSettings,
    limits: SearchLimits,
) -> RevealList {
    let names = plan.all_names();
    let deferred = plan.deferred();
    let mut tools = super::full(plan, provider, names, &plan.direct);
    let stubs = stubs(plan, names, &deferred, provider, settings);
    let hidden = stubs.is_none();
    let in_search = hidden && listing_in_search(settings, provider);
    let (mut description, schema) = reveal_search_tool(limits);
    if in_search {
        let listed: Vec<(&str, Option<&str>)> = deferred
            .iter()
            .map(|&i| (names[i].as_str(), plan.visible[i].server.as_deref()))
            .collect();
        description.push(' ');
        description.push_str(&search_listing(&listed, settings.reminder_bytes));
    }
    tools.push(wire::definition(
        provider,
        BridgeTool::Search.name(),
        &description,
        &schema,
    ));
    let mut notes = Vec::new();
    let mut full = plan.direct.len();
    if let Some(stubs) = stubs {
        tools.extend(stubs);
    } else {
        if !settings.hidden {
            let place = if in_search {
                format!("listed in {}'s description", BridgeTool::Search)
            } else {
                "listed in the reminder (ToolSearch::insert_reminder)".to_string()
            };
            notes.push(format!(
                "{} stubs would take more than {} bytes: deferred tools are hidden until \
                 searched, their names {place}",
                deferred.len(),
                settings.max_stub_bytes,
            ));
        }
        let is_deferred = |i: usize| deferred.binary_search(&i).is_ok();
        let shown: Vec<usize> = revealed
            .iter()
            .filter_map(|id| plan.visible.iter().position(|t| &t.id == id))
            .filter(|&i| is_deferred(i))
            .collect();
        tools.extend(super::full(plan, provider, names, &shown));
        full += shown.len();
    }
    RevealList { tools, full, notes }
}

/// Most bytes the servers of a listing take, whatever the budget: a catalog of
/// thousands of servers names as many as fit here, then how many more.
pub const MAX_SERVER_LISTING_BYTES: usize = 64 * 1024;

/// The names of hidden tools (provider name, server) as `tool_search`'s description
/// carries them over MCP: every name when they fit `budget`; else every server with
/// its tool count (largest first, at most [`MAX_SERVER_LISTING_BYTES`]), then as
/// many names as fit what is left of the budget, one per server in turn (largest
/// servers first), so no tool buys a place by its sort order. Byte-stable for a
/// catalog.
pub fn search_listing(tools: &[(&str, Option<&str>)], budget: usize) -> String {
    let total = tools.len();
    let all: usize = tools.iter().map(|(n, _)| n.len() + 2).sum();
    let head = format!("Not loaded ({total} tools): ");
    if head.len() + all <= budget {
        let names: Vec<&str> = tools.iter().map(|(n, _)| *n).collect();
        return format!("{head}{}.", names.join(", "));
    }
    let mut by_server: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for (name, server) in tools {
        by_server
            .entry(server.unwrap_or(toolsearch_catalog::listing::NO_SERVER))
            .or_default()
            .push(name);
    }
    let mut servers: Vec<(&str, Vec<&str>)> = by_server.into_iter().collect();
    servers.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    for (_, names) in &mut servers {
        names.sort_unstable();
    }
    let mut out = format!(
        "Not loaded: {total} tools on {} servers. Servers (tools): ",
        servers.len()
    );
    let start = out.len();
    let mut shown = 0;
    for (server, names) in &servers {
        let entry = format!("{server}({})", names.len());
        if out.len() - start + entry.len() + 2 > MAX_SERVER_LISTING_BYTES {
            break;
        }
        if shown > 0 {
            out.push_str(", ");
        }
        out.push_str(&entry);
        shown += 1;
    }
    if shown < servers.len() {
        out.push_str(&format!(", +{} more servers", servers.len() - shown));
    }
    out.push_str(". Some tools: ");
    let room = budget;
    let mut listed = String::new();
    let mut round = 0;
    'fill: loop {
        let mut any = false;
        for (_, names) in &servers {
            let Some(name) = names.get(round) else {
                continue;
            };
            any = true;
            if listed.len() + name.len() + 2 > room {
                break 'fill;
            }
            if !listed.is_empty() {
                listed.push_str(", ");
            }
            listed.push_str(name);
        }
        if !any {
            break;
        }
        round += 1;
    }
    out.push_str(&listed);
    out.push('.');
    out
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

/// Words ending in a period that do not end a sentence.
const ABBREVIATIONS: [&str; 14] = [
    "e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "incl.", "esp.", "no.", "mr.", "mrs.", "dr.",
    "st.", "resp.",
];

/// The first sentence of `text`: up to the first `. ` that ends neither an
/// abbreviation (`e.g.`, `etc.`...) nor a single letter, outside parentheses.
fn first_sentence(text: &str) -> &str {
    let mut depth = 0i32;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '.' if depth <= 0 && text[i + 1..].starts_with(' ') => {
                let word = text[..=i].rsplit(char::is_whitespace).next().unwrap_or("");
                let word = word
                    .trim_start_matches(['(', '[', '"', '\''])
                    .to_lowercase();
                let initial = word.len() == 2 && word.starts_with(|c: char| c.is_alphabetic());
                if !initial && !ABBREVIATIONS.contains(&word.as_str()) {
                    return &text[..=i];
                }
            }
            _ => {}
        }
    }
    text
}

/// `description` cut to its first sentence, at most `budget` bytes (with `…` when cut).
pub fn summary(description: &str, budget: usize) -> String {
    let first = first_sentence(description).trim_end();
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
    fn a_sentence_does_not_end_inside_an_abbreviation_or_parentheses() {
        assert_eq!(
            summary(
                "Move a Jira ticket to another status (e.g. Done). Needs a key.",
                200
            ),
            "Move a Jira ticket to another status (e.g. Done)."
        );
        assert_eq!(
            summary("Lists files, dirs etc. in a path. More.", 200),
            "Lists files, dirs etc. in a path."
        );
        assert_eq!(
            summary("Send to (see docs. here) a user. Then.", 200),
            "Send to (see docs. here) a user."
        );
        assert_eq!(
            summary("Made by J. Smith for you. Later.", 200),
            "Made by J. Smith for you."
        );
    }

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
