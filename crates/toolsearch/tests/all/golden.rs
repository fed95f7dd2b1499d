//! Golden files of the exact definitions sent, per shape and provider, for the demo
//! catalog (`tests/golden/definitions-<shape>-<provider>.json`). A change shows up
//! as a diff to review; `UPDATE_GOLDEN=1 cargo test -p toolsearch --test all golden`
//! rewrites them.

use toolsearch::{Activation, Catalog, Mode, Provider, Session, ToolSearch};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");

#[test]
fn definitions_match_the_golden_files() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut changed = Vec::new();
    let shapes = [
        ("code", Mode::Code, Activation::Always),
        ("tools", Mode::Tools, Activation::Always),
        ("direct", Mode::Tools, Activation::Never),
    ];
    let providers = [
        ("openai_chat", Provider::OpenAiChat),
        ("openai_responses", Provider::OpenAiResponses),
        ("anthropic", Provider::Anthropic),
        ("mcp", Provider::Mcp),
        ("gemini", Provider::Gemini),
    ];
    for (shape, mode, activation) in shapes {
        let ts = ToolSearch::builder()
            .catalog(Catalog::demo())
            .mode(mode)
            .activation(activation)
            .build()
            .unwrap();
        for (name, provider) in providers {
            let defs = ts.definitions(&Session::new("golden"), provider);
            assert_eq!(defs.decision.shape.as_str(), shape);
            let text = serde_json::to_string_pretty(&defs.tools).unwrap() + "\n";
            let path = format!("{DIR}/definitions-{shape}-{name}.json");
            if update {
                std::fs::write(&path, &text).unwrap();
                continue;
            }
            let want = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{path}: {e}; run with UPDATE_GOLDEN=1"));
            if want != text {
                changed.push(path);
            }
        }
    }
    assert!(
        changed.is_empty(),
        "definitions changed: {changed:?}; review the diff of a run with UPDATE_GOLDEN=1"
    );
}

/// One scripted session per mode and provider shape, frozen turn by turn
/// (`tests/golden/session-<mode>-<provider>.json`): turn 1; a search that reveals two
/// tools (`select:send_message,create_issue`) and its answer; turn 2; a catalog
/// change that removes one of them (turn 3); then the session evicted by another
/// (`max_sessions` 1) and its turn 4. Beside the files, the properties that matter
/// are asserted: the same turn twice is byte-identical, and in reveal mode turn 2
/// keeps turn 1's list in order (minus the two stubs) with the two tools appended.
#[tokio::test]
async fn scripted_sessions_match_the_golden_files() {
    use serde_json::{json, Value};
    use toolsearch::reveal::RevealSettings;
    use toolsearch::Settings;

    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut changed = Vec::new();
    let providers = [
        ("openai_chat", Provider::OpenAiChat),
        ("openai_responses", Provider::OpenAiResponses),
        ("anthropic", Provider::Anthropic),
        ("mcp", Provider::Mcp),
        ("gemini", Provider::Gemini),
    ];
    let modes = [
        "direct",
        "code",
        "tools",
        "reveal",
        "reveal_hidden",
        "native",
    ];
    for mode_name in modes {
        for (pname, provider) in providers {
            if mode_name == "native" && !toolsearch::native::supported(provider) {
                continue;
            }
            let (mode, activation) = match mode_name {
                "direct" => (Mode::Tools, Activation::Never),
                "code" => (Mode::Code, Activation::Always),
                "tools" => (Mode::Tools, Activation::Always),
                "native" => (Mode::Native, Activation::Always),
                _ => (Mode::Reveal, Activation::Always),
            };
            let settings = Settings {
                mode,
                activation,
                max_sessions: 1,
                provider: Some(provider),
                reveal: RevealSettings {
                    hidden: mode_name == "reveal_hidden",
                    ..RevealSettings::default()
                },
                ..Settings::default()
            };
            let ts = ToolSearch::builder()
                .catalog(Catalog::demo())
                .settings(settings)
                .build()
                .unwrap();
            let s = Session::new("golden");
            let turn = |ts: &ToolSearch| {
                let d = ts.definitions(&s, provider);
                json!({"shape": d.decision.shape, "tools": d.tools, "notes": d.notes,
                       "reminder": ts.reminder(&s, provider)})
            };
            // Five turns: two searches (select, then an exact name), a call of a
            // revealed tool by its name, a turn that does nothing. The prompt a
            // provider caches never changes under a turn: each list starts with the
            // one before it (reveal's stubs form: equal), the reminder is the same.
            let turn1 = turn(&ts);
            let search = ts
                .handle_call(&s, "tool_search", json!({"query": "select:send_message"}))
                .await;
            assert!(!search.is_error, "{}", search.content);
            let turn2 = turn(&ts);
            let exact = ts
                .handle_call(&s, "tool_search", json!({"query": "create_issue"}))
                .await;
            assert!(!exact.is_error, "{}", exact.content);
            if mode_name != "native" || provider != Provider::Anthropic {
                let hits = exact.content["hits"].as_array().map_or(0, Vec::len);
                assert_eq!(hits, 1, "{mode_name}/{pname}: {}", exact.content);
            }
            let turn3 = turn(&ts);
            let call = ts
                .handle_call(&s, "send_message", json!({"channel": "#ops", "text": "hi"}))
                .await;
            let turn4 = turn(&ts);
            let turn5 = turn(&ts);
            let turns = [&turn1, &turn2, &turn3, &turn4, &turn5];
            for (n, pair) in turns.windows(2).enumerate() {
                let (a, b) = (
                    pair[0]["tools"].as_array().unwrap(),
                    pair[1]["tools"].as_array().unwrap(),
                );
                assert!(
                    b.len() >= a.len() && b[..a.len()] == a[..],
                    "{mode_name}/{pname}: turn {} does not start with turn {}",
                    n + 2,
                    n + 1
                );
                assert_eq!(
                    pair[0]["reminder"], pair[1]["reminder"],
                    "{mode_name}/{pname}"
                );
                if mode_name == "reveal" {
                    assert_eq!(a, b, "{mode_name}/{pname}: stubs changed by a reveal");
                }
            }
            if mode_name == "reveal_hidden" {
                let t1 = turn1["tools"].as_array().unwrap();
                let t3 = turn3["tools"].as_array().unwrap();
                let name = |d: &Value| {
                    d["name"]
                        .as_str()
                        .or(d["function"]["name"].as_str())
                        .unwrap_or_default()
                        .to_owned()
                };
                let tail: Vec<String> = t3[t1.len()..].iter().map(name).collect();
                assert_eq!(
                    tail,
                    ["send_message", "create_issue"],
                    "{mode_name}/{pname}"
                );
            }
            let tools: Vec<_> = Catalog::demo()
                .tools()
                .iter()
                .filter(|t| t.name != "create_issue")
                .cloned()
                .collect();
            ts.set_catalog(Catalog::new(tools).unwrap());
            let turn6 = turn(&ts);
            let other = Session::new("other");
            ts.handle_call(
                &other,
                "tool_search",
                json!({"query": "select:get_forecast"}),
            )
            .await;
            let turn7 = turn(&ts);
            // Turns 2 to 5 start with the turn before (asserted above): the file keeps
            // what each appended.
            let appended = |before: &Value, after: &Value| {
                let n = before["tools"].as_array().unwrap().len();
                json!({"shape": after["shape"], "notes": after["notes"],
                       "appended": after["tools"].as_array().unwrap()[n..]})
            };
            let text = serde_json::to_string_pretty(&json!({
                "turn1": turn1,
                "search": search.content,
                "turn2": appended(&turn1, &turn2),
                "search_exact_name": exact.content,
                "turn3": appended(&turn2, &turn3),
                "call_by_name": call.content,
                "turn4": appended(&turn3, &turn4),
                "turn5": appended(&turn4, &turn5),
                "turn6_catalog_changed": turn6,
                "turn7_evicted": turn7,
            }))
            .unwrap()
                + "\n";
            let path = format!("{DIR}/session-{mode_name}-{pname}.json");
            if update {
                std::fs::write(&path, &text).unwrap();
                continue;
            }
            let want = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{path}: {e}; run with UPDATE_GOLDEN=1"));
            if want != text {
                changed.push(path);
            }
        }
    }
    assert!(
        changed.is_empty(),
        "sessions changed: {changed:?}; review the diff of a run with UPDATE_GOLDEN=1"
    );
}

/// What the golden files freeze is what the providers accept: every tool list, the
/// Anthropic `tool_reference` answer and an OpenAI `tool_search_output` are checked
/// against the pinned `anthropic` and `openai` SDKs' request types (unknown keys
/// rejected too), by `tests/fixtures/validate_shapes.py`.
#[test]
#[ignore = "needs python3 with the pinned SDKs (`cargo xtask fixtures`); `cargo xtask test` runs it"]
fn golden_shapes_are_what_the_provider_sdks_accept() {
    use std::io::Write;

    let ts = crate::modes::native_openai(Catalog::demo().tools().to_vec());
    let s = Session::new("s");
    let request = ts.definitions(&s, Provider::OpenAiResponses).tools;
    let output = ts.answer_tool_search(
        &s,
        &serde_json::json!({"type": "tool_search_call", "call_id": "call_1",
                            "execution": "client", "arguments": {"query": "weather"}}),
    );
    let given = serde_json::json!({"request": request, "output": output});
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/validate_shapes.py"
    );
    let mut child = std::process::Command::new("python3")
        .arg(script)
        .arg(DIR)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(given.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("ok tool_search_output") && text.contains("definitions valid"),
        "{text}"
    );
}
