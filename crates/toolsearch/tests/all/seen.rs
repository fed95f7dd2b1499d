//! What the model sees (issue 33): the names of hidden tools over MCP, an exact
//! name answering that tool alone, a deferred tool called by its name, and the
//! search notes of code mode.

use std::sync::Arc;

use serde_json::{json, Value};
use toolsearch::{
    dispatcher_fn, Activation, CallContext, Mode, Policy, Provider, Session, Settings, Shape,
    ToolSearch,
};
use toolsearch_catalog::{Catalog, Source, Tool};

/// `servers` servers of `per` tools each (`s{i}`, `operation_number_{j}_of_{i}`),
/// with schemas.
fn catalog(servers: usize, per: usize) -> Catalog {
    let mut tools = Vec::new();
    for i in 0..servers {
        for j in 0..per {
            tools.push(Tool::new(
                Source::Mcp,
                Some(&format!("s{i}")),
                &format!("operation_number_{j}_of_{i}"),
                &format!("Does operation {j} of service {i}, with care. More words follow."),
                json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}),
            ));
        }
    }
    Catalog::new(tools).unwrap()
}

fn build(catalog: Catalog, mode: Mode) -> ToolSearch {
    ToolSearch::builder()
        .catalog(catalog)
        .settings(Settings {
            mode,
            activation: Activation::Always,
            ..Settings::default()
        })
        .dispatcher(Arc::new(dispatcher_fn(
            |tool: Tool, args: Value, _cx: CallContext| async move {
                Ok(json!({"ran": tool.id, "args": args}))
            },
        )))
        .build()
        .unwrap()
}

fn named<'a>(tools: &'a [Value], name: &str) -> Option<&'a Value> {
    tools.iter().find(|d| d["name"] == name)
}

#[tokio::test]
async fn over_mcp_the_hidden_form_names_every_server_in_tool_search_and_reveals_only_append() {
    // 406 tools on 14 servers: the stubs are far over their 32 KiB.
    let ts = build(catalog(14, 29), Mode::Reveal);
    let s = Session::new("s");
    let d1 = ts.definitions(&s, Provider::Mcp);
    assert_eq!(d1.decision.shape, Shape::Reveal);
    assert!(
        d1.notes
            .iter()
            .any(|n| n.contains("tool_search's description")),
        "{:?}",
        d1.notes
    );
    let search = named(&d1.tools, "tool_search").expect("tool_search sent");
    let text = search["description"].as_str().unwrap();
    for i in 0..14 {
        assert!(
            text.contains(&format!("s{i}(29)")),
            "server s{i} missing: {text}"
        );
    }
    assert!(text.contains("operation_number_0_of_0"), "{text}");
    // Within the servers' part plus the names' budget (4 KiB).
    assert!(text.len() < 8 * 1024, "{} bytes", text.len());
    assert_eq!(ts.reminder(&s, Provider::Mcp), None);
    // An exact name answers that tool alone, and reveals only it.
    let found = ts
        .handle_call(
            &s,
            "tool_search",
            json!({"query": "operation_number_7_of_3"}),
        )
        .await;
    let hits = found.content["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{}", found.content);
    assert_eq!(ts.revealed(&s), ["mcp:s3:operation_number_7_of_3"]);
    // A provider name does the same (here they are the bare names; a hashed or
    // `server__` name too, see `provider_names_pick_their_tool`).
    let d2 = ts.definitions(&s, Provider::Mcp);
    assert_eq!(
        d2.tools[..d1.tools.len()],
        d1.tools[..],
        "a reveal only appends"
    );
    assert_eq!(d2.tools.len(), d1.tools.len() + 1);
    assert_eq!(d2.tools.last().unwrap()["name"], "operation_number_7_of_3");
    assert!(ts.reveals_change_the_list(&s, Provider::Mcp));
}

#[tokio::test]
async fn provider_names_pick_their_tool() {
    // The same tool name on two servers: sent as `a__fetch` and `b__fetch`.
    let mut tools: Vec<Tool> = catalog(1, 20).tools().to_vec();
    for server in ["a", "b"] {
        tools.push(Tool::new(
            Source::Mcp,
            Some(server),
            "fetch",
            "Fetch a URL",
            json!({"type": "object"}),
        ));
    }
    let ts = build(Catalog::new(tools).unwrap(), Mode::Reveal);
    let s = Session::new("s");
    let sent = ts.definitions(&s, Provider::OpenAiChat).tools;
    let provider_name = sent
        .iter()
        .filter_map(|d| d["function"]["name"].as_str())
        .find(|n| n.contains("fetch") && n.starts_with('b'))
        .expect("b's fetch sent under a provider name")
        .to_string();
    let found = ts
        .handle_call(&s, "tool_search", json!({"query": provider_name.clone()}))
        .await;
    let hits = found.content["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{}", found.content);
    assert_eq!(hits[0]["id"], "mcp:b:fetch");
    assert_eq!(hits[0]["call_as"], json!(provider_name));
}

#[tokio::test]
async fn a_deferred_tool_called_by_its_name_runs_under_the_same_policy() {
    for mode in [Mode::Tools, Mode::Code] {
        let ts =
            ToolSearch::builder()
                .catalog(catalog(2, 20))
                .mode(mode)
                .activation(Activation::Always)
                .policy(Policy::from_patterns::<&str, &str>(&[], &["mcp:s1:*"]))
                .dispatcher(Arc::new(dispatcher_fn(
                    |tool: Tool, _args: Value, _cx: CallContext| async move {
                        Ok(json!({"ran": tool.id}))
                    },
                )))
                .build()
                .unwrap();
        let s = Session::new("s");
        let sent = ts.definitions(&s, Provider::Mcp).tools;
        let name = "operation_number_3_of_0";
        assert!(named(&sent, name).is_none(), "deferred, not sent");
        // Its bare name and its id both run it, through the same gate as tool_call.
        for name in [name, "mcp:s0:operation_number_3_of_0"] {
            let out = ts.handle_call(&s, name, json!({"x": "1"})).await;
            assert!(!out.is_error, "{mode:?} {name}: {}", out.content);
            assert_eq!(out.content["ran"], "mcp:s0:operation_number_3_of_0");
        }
        assert_eq!(ts.take_record(&s).called.len(), 1);
        // Arguments are still checked against its schema.
        let out = ts.handle_call(&s, name, json!({})).await;
        assert_eq!(
            out.content["error"]["code"], "INVALID_ARGS",
            "{}",
            out.content
        );
        // A tool the policy hides does not exist, and no hidden tool is offered.
        let out = ts
            .handle_call(&s, "operation_number_3_of_1", json!({"x": "1"}))
            .await;
        assert_eq!(out.content["error"]["code"], "UNKNOWN_TOOL");
        let message = out.content["error"]["message"].as_str().unwrap();
        assert!(!message.contains("mcp:s1:"), "{message}");
    }
}

#[tokio::test]
async fn code_mode_shows_what_its_searches_said_whatever_the_snippet_kept() {
    let ts = build(Catalog::demo(), Mode::Code);
    let s = Session::new("s");
    if ts.probe_code_mode().is_err() {
        panic!("code mode needs the sandbox worker (built with the workspace)");
    }
    // Returned as is: the array serialises with its notes.
    let out = ts
        .handle_call(
            &s,
            "tool_search_code",
            json!({"code": "return await openclaw.tools.search('select:read_file,nope_tool');"}),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    let value = &out.content["value"];
    assert_eq!(value["not_found"], json!(["nope_tool"]), "{value}");
    assert_eq!(value["hits"][0]["name"], "read_file", "{value}");
    // Mapped to ids: the notes are in the answer all the same, once.
    let out = ts
        .handle_call(
            &s,
            "tool_search_code",
            json!({"code": "const a = await openclaw.tools.search('select:read_file,nope_tool'); \
                    const b = await openclaw.tools.search('select:read_file,nope_tool'); \
                    await openclaw.tools.search('read a file', {limit: 500}); \
                    return a.map(h => h.id).concat(b.map(h => h.id));"}),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    let notes = out.content["search_notes"]
        .as_array()
        .expect("search_notes");
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert_eq!(notes[0]["not_found"], json!(["nope_tool"]));
    assert!(notes[1]["limit_note"].is_string(), "{notes:?}");
    // A search with nothing to say adds nothing.
    let out = ts
        .handle_call(
            &s,
            "tool_search_code",
            json!({"code": "return (await openclaw.tools.search('read_file')).map(h => h.id);"}),
        )
        .await;
    assert!(out.content.get("search_notes").is_none(), "{}", out.content);
}

#[test]
fn the_share_rule_takes_the_providers_window_when_none_is_set() {
    // Five tools whose schemas take about 28% of Anthropic's 200,000 tokens: under
    // the count threshold, over the share one, with no `context_window` set.
    let big = |i: usize| {
        let props: serde_json::Map<String, Value> = (0..900)
            .map(|k| {
                (
                    format!("field_{i}_{k}"),
                    json!({"type": "string", "description": "a field of the record"}),
                )
            })
            .collect();
        Tool::new(
            Source::Mcp,
            Some("s"),
            &format!("big_{i}"),
            "A tool with a large schema.",
            json!({"type": "object", "properties": props}),
        )
    };
    let catalog = Catalog::new((0..5).map(big).collect()).unwrap();
    let build = |provider: Option<Provider>, model: Option<&str>| {
        ToolSearch::builder()
            .catalog(catalog.clone())
            .settings(Settings {
                mode: Mode::Tools,
                provider,
                model: model.map(String::from),
                ..Settings::default()
            })
            .build()
            .unwrap()
    };
    let s = Session::new("s");
    let d = build(Some(Provider::Anthropic), None).definitions(&s, Provider::Anthropic);
    assert!(d.decision.active, "{}", d.decision.reason);
    assert_eq!(d.decision.context_window, 200_000);
    assert_eq!(d.decision.window_from, "provider anthropic default");
    // A model with a window five times larger: the same schemas are under 10%.
    let d = build(Some(Provider::Anthropic), Some("claude-opus-4-6"))
        .definitions(&s, Provider::Anthropic);
    assert!(!d.decision.active, "{}", d.decision.reason);
    assert_eq!(d.decision.window_from, "model table (claude-opus-4-6*)");
}
