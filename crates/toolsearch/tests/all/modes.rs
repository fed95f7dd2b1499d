//! Reveal, native and auto modes, the seeds' argument names and deferral policy,
//! through the facade as an agent loop drives it (definitions, then the model's
//! calls by name).

use std::sync::Arc;

use serde_json::{json, Value};
use toolsearch::reveal::RevealSettings;
use toolsearch::{
    dispatcher_fn, Activation, CallContext, Mode, Provider, Session, Settings, Shape, ToolSearch,
};
use toolsearch_catalog::{Catalog, Deferrable, Source, Tool};

fn build(settings: Settings) -> ToolSearch {
    ToolSearch::builder()
        .catalog(Catalog::demo())
        .settings(settings)
        .dispatcher(Arc::new(dispatcher_fn(
            |tool: Tool, args: Value, _cx: CallContext| async move {
                Ok(json!({"ran": tool.id, "args": args}))
            },
        )))
        .build()
        .unwrap()
}

fn reveal(hidden: bool) -> ToolSearch {
    build(Settings {
        mode: Mode::Reveal,
        activation: Activation::Always,
        reveal: RevealSettings {
            hidden,
            ..RevealSettings::default()
        },
        ..Settings::default()
    })
}

/// The names in a definition list (OpenAI Chat shape).
fn names(tools: &[Value]) -> Vec<String> {
    tools
        .iter()
        .map(|d| {
            d["function"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

fn def<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools
        .iter()
        .find(|d| d["function"]["name"] == name)
        .unwrap_or_else(|| panic!("{name} not sent"))
}

#[tokio::test]
async fn reveal_mode_sends_stubs_then_the_full_schemas_of_what_search_found() {
    let ts = reveal(false);
    let s = Session::new("s");
    let turn1 = ts.definitions(&s, Provider::OpenAiChat).tools;
    let stub = def(&turn1, "send_message");
    let params = &stub["function"]["parameters"];
    assert!(params.get("properties").is_none(), "{stub}");
    assert!(params["description"]
        .as_str()
        .unwrap()
        .contains("`send_message`"));
    assert!(names(&turn1).contains(&"tool_search".to_owned()));
    assert!(ts.guidance().unwrap().contains("tool_search"));
    // The search answers with full schemas and what to call them by.
    let found = ts
        .handle_call(
            &s,
            "tool_search",
            json!({"query": "post a message to slack"}),
        )
        .await;
    let hit = &found.content["hits"][0];
    assert_eq!(hit["id"], "mcp:slack:send_message", "{}", found.content);
    assert_eq!(hit["call_as"], "send_message");
    assert!(hit["input_schema"]["properties"]["channel"].is_object());
    assert!(ts
        .revealed(&s)
        .contains(&"mcp:slack:send_message".to_owned()));
    // The list is unchanged by the reveal (the provider's cache holds): the schema
    // is in the search result, and a call is checked against it.
    let turn2 = ts.definitions(&s, Provider::OpenAiChat).tools;
    assert_eq!(turn2, turn1);
    // And the model calls it by name, with the caller's normal dispatch.
    let out = ts
        .handle_call(&s, "send_message", json!({"channel": "#ops", "text": "hi"}))
        .await;
    assert_eq!(
        out.content["ran"], "mcp:slack:send_message",
        "{}",
        out.content
    );
    // Another session saw nothing of it.
    assert!(ts.revealed(&Session::new("t")).is_empty());
}

#[tokio::test]
async fn a_stub_called_before_any_search_runs_when_its_arguments_fit() {
    let ts = reveal(false);
    let s = Session::new("s");
    let out = ts
        .handle_call(
            &s,
            "get_forecast",
            json!({"latitude": 48.9, "longitude": 2.3}),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(out.content["ran"], "mcp:weather:get_forecast");
    // Wrong guess: nothing runs, the answer carries the schema, and the tool is revealed.
    let out = ts
        .handle_call(&s, "send_message", json!({"to": "bob"}))
        .await;
    assert!(out.is_error);
    assert_eq!(out.content["error"]["code"], "INVALID_ARGS");
    assert!(out.content["error"]["input_schema"]["properties"]["channel"].is_object());
    assert!(ts
        .revealed(&s)
        .contains(&"mcp:slack:send_message".to_owned()));
    // A name that is no tool: the closest visible names.
    let out = ts.handle_call(&s, "send_mesage", json!({})).await;
    assert_eq!(out.content["error"]["code"], "UNKNOWN_TOOL");
    assert!(out.content["error"]["message"]
        .as_str()
        .unwrap()
        .contains("send_message"));
}

#[tokio::test]
async fn reveals_are_rebuilt_from_each_providers_messages_after_eviction() {
    let ts = build(Settings {
        mode: Mode::Reveal,
        activation: Activation::Always,
        max_sessions: 1,
        ..Settings::default()
    });
    let s = Session::new("s");
    let found = ts
        .handle_call(
            &s,
            "tool_search",
            json!({"query": "select:send_message,get_forecast"}),
        )
        .await;
    let text = found.content.to_string();
    // Another session evicts `s`.
    ts.handle_call(
        &Session::new("other"),
        "tool_search",
        json!({"query": "select:query"}),
    )
    .await;
    assert!(ts.revealed(&s).is_empty());
    let chat = vec![
        json!({"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "tool_search", "arguments": "{}"}}]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": text}),
    ];
    let responses = vec![
        json!({"type": "function_call", "name": "tool_search", "call_id": "r1", "arguments": "{}"}),
        json!({"type": "function_call_output", "call_id": "r1", "output": text}),
    ];
    let anthropic = vec![
        json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "tool_search", "input": {}}]}),
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": text}]}),
    ];
    for messages in [chat, responses, anthropic] {
        ts.handle_call(
            &Session::new("other"),
            "tool_search",
            json!({"query": "select:query"}),
        )
        .await;
        assert!(ts.revealed(&s).is_empty());
        assert_eq!(ts.restore_reveals(&s, &messages), 2);
        assert_eq!(
            ts.revealed(&s),
            ["mcp:slack:send_message", "mcp:weather:get_forecast"]
        );
    }
    // A scope that cannot see a tool does not get it back from a message.
    let mut narrow = Session::new("narrow");
    narrow.scope = toolsearch::Policy::from_patterns::<&str, &str>(&[], &["mcp:slack:*"]);
    let chat = vec![
        json!({"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "tool_search", "arguments": "{}"}}]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": text}),
    ];
    assert_eq!(ts.restore_reveals(&narrow, &chat), 1);
}

#[tokio::test]
async fn the_hidden_form_lists_names_once_in_a_reminder() {
    let ts = reveal(true);
    let s = Session::new("s");
    let turn1 = ts.definitions(&s, Provider::OpenAiChat).tools;
    assert!(!names(&turn1).contains(&"send_message".to_owned()));
    let mut messages = vec![
        json!({"role": "system", "content": "You help."}),
        json!({"role": "user", "content": "Post to #ops"}),
    ];
    assert!(ts.insert_reminder(&s, Provider::OpenAiChat, &mut messages));
    assert!(ts.insert_reminder(&s, Provider::OpenAiChat, &mut messages));
    assert_eq!(messages.len(), 3, "idempotent");
    let reminder = messages[1]["content"].as_str().unwrap();
    assert!(
        reminder.starts_with("<available-deferred-tools>") && reminder.contains("\nsend_message\n")
    );
    let before = messages.clone();
    ts.handle_call(&s, "tool_search", json!({"query": "select:send_message"}))
        .await;
    // A reveal changes neither the reminder (the provider's cache of the whole
    // conversation holds) nor the list before the revealed tool, appended at the end.
    assert!(ts.insert_reminder(&s, Provider::OpenAiChat, &mut messages));
    assert_eq!(messages, before);
    let turn2 = ts.definitions(&s, Provider::OpenAiChat).tools;
    assert_eq!(turn2[..turn1.len()], turn1[..]);
    assert_eq!(names(&turn2[turn1.len()..]), ["send_message"]);
    // Over MCP the names go in `tool_search`'s description instead: no reminder.
    assert_eq!(ts.reminder(&s, Provider::Mcp), None);
    let mcp = ts.definitions(&s, Provider::Mcp).tools;
    let search = mcp.iter().find(|d| d["name"] == "tool_search").unwrap();
    let text = search["description"].as_str().unwrap();
    assert!(
        text.contains("send_message") && text.contains("get_forecast"),
        "{text}"
    );
}

#[tokio::test]
async fn stubs_over_their_budget_switch_to_the_hidden_form() {
    let ts = build(Settings {
        mode: Mode::Reveal,
        activation: Activation::Always,
        reveal: RevealSettings {
            max_stub_bytes: 1024,
            ..RevealSettings::default()
        },
        ..Settings::default()
    });
    let s = Session::new("s");
    let d = ts.definitions(&s, Provider::OpenAiChat);
    assert!(
        d.notes.iter().any(|n| n.contains("hidden")),
        "{:?}",
        d.notes
    );
    assert!(!names(&d.tools).contains(&"send_message".to_owned()));
    assert!(ts.reminder(&s, Provider::OpenAiChat).is_some());
}

#[tokio::test]
async fn the_seeds_argument_names_and_schemas_with_hits() {
    let ts = build(Settings {
        mode: Mode::Tools,
        activation: Activation::Always,
        ..Settings::default()
    });
    let s = Session::new("s");
    let found = ts
        .handle_call(
            &s,
            "tool_search",
            json!({"query": "weather", "max_results": 1, "include_schemas": true}),
        )
        .await;
    let hits = found.content["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{}", found.content);
    assert!(hits[0]["input_schema"].is_object());
    let d = ts
        .handle_call(
            &s,
            "tool_describe",
            json!({"name": "mcp:weather:get_forecast"}),
        )
        .await;
    assert_eq!(d.content["tools"][0]["id"], "mcp:weather:get_forecast");
    let out = ts
        .handle_call(&s, "tool_call", json!({"name": "get_forecast", "arguments": "{\"latitude\": 59.9, \"longitude\": 10.7}"}))
        .await;
    assert_eq!(
        out.content["ran"], "mcp:weather:get_forecast",
        "{}",
        out.content
    );
    assert_eq!(out.content["args"]["latitude"], 59.9);
}

#[tokio::test]
async fn deferral_policy_always_and_the_builtin_default() {
    let mut tools: Vec<Tool> = (0..3)
        .map(|i| {
            Tool::new(
                Source::Mcp,
                Some("s"),
                &format!("t{i}"),
                "A tool.",
                json!({"type": "object"}),
            )
        })
        .collect();
    tools[0].deferrable = Deferrable::Always;
    tools.push(Tool::new(
        Source::Builtin,
        None,
        "bash",
        "Run a command.",
        json!({"type": "object"}),
    ));
    let settings = |defer_builtins| Settings {
        mode: Mode::Tools,
        defer_builtins,
        ..Settings::default()
    };
    let ts = ToolSearch::builder()
        .catalog(Catalog::new(tools.clone()).unwrap())
        .settings(settings(false))
        .build()
        .unwrap();
    let d = ts.definitions(&Session::new("s"), Provider::OpenAiChat);
    let sent = names(&d.tools);
    // Below the threshold of 15, yet t0 says always: it is deferred, the rest direct.
    assert!(d.decision.active, "{}", d.decision.reason);
    assert!(
        !sent.contains(&"t0".to_owned()) && sent.contains(&"t1".to_owned()),
        "{sent:?}"
    );
    assert!(sent.contains(&"bash".to_owned()));
    // With everything deferred, built-ins stay direct unless configured.
    let always = |defer_builtins| {
        ToolSearch::builder()
            .catalog(Catalog::new(tools.clone()).unwrap())
            .settings(Settings {
                activation: Activation::Always,
                ..settings(defer_builtins)
            })
            .build()
            .unwrap()
    };
    let sent = names(
        &always(false)
            .definitions(&Session::new("s"), Provider::OpenAiChat)
            .tools,
    );
    assert!(
        sent.contains(&"bash".to_owned()) && !sent.contains(&"t1".to_owned()),
        "{sent:?}"
    );
    let sent = names(
        &always(true)
            .definitions(&Session::new("s"), Provider::OpenAiChat)
            .tools,
    );
    assert!(!sent.contains(&"bash".to_owned()), "{sent:?}");
    // Activation never: nothing is deferred, always or not.
    let never = ToolSearch::builder()
        .catalog(Catalog::new(tools).unwrap())
        .settings(Settings {
            activation: Activation::Never,
            ..settings(false)
        })
        .build()
        .unwrap();
    assert!(
        !never
            .definitions(&Session::new("s"), Provider::OpenAiChat)
            .decision
            .active
    );
}

#[tokio::test]
async fn native_mode_needs_a_provider_that_hosts_search() {
    for provider in [
        None,
        Some(Provider::OpenAiChat),
        Some(Provider::Mcp),
        Some(Provider::Gemini),
    ] {
        let e = ToolSearch::builder()
            .settings(Settings {
                mode: Mode::Native,
                provider,
                ..Settings::default()
            })
            .build()
            .err()
            .expect("refused");
        assert_eq!(e.setting, "mode", "{e}");
    }
    // Auto: native for the provider the settings name when it hosts search (the
    // one `tool_search` answers for); code for any other, with the reason.
    for declared in [Provider::Anthropic, Provider::OpenAiResponses] {
        let auto = build(Settings {
            mode: Mode::Auto,
            activation: Activation::Always,
            provider: Some(declared),
            ..Settings::default()
        });
        let s = Session::new("s");
        assert_eq!(auto.definitions(&s, declared).decision.shape, Shape::Native);
        for other in [
            Provider::Anthropic,
            Provider::OpenAiResponses,
            Provider::OpenAiChat,
        ] {
            if other == declared {
                continue;
            }
            let d = auto.definitions(&s, other);
            assert!(
                matches!(d.decision.shape, Shape::Code | Shape::Tools),
                "{other:?}"
            );
        }
    }
    let undeclared = build(Settings {
        mode: Mode::Auto,
        activation: Activation::Always,
        ..Settings::default()
    });
    let d = undeclared.definitions(&Session::new("s"), Provider::Anthropic);
    assert!(matches!(d.decision.shape, Shape::Code | Shape::Tools));
    assert!(
        d.notes.iter().any(|n| n.contains("name no provider")),
        "{:?}",
        d.notes
    );
    let chat = undeclared.definitions(&Session::new("s"), Provider::OpenAiChat);
    assert!(matches!(chat.decision.shape, Shape::Code | Shape::Tools));
}

#[tokio::test]
async fn native_anthropic_answers_with_tool_references_and_defers_the_rest() {
    let ts = build(Settings {
        mode: Mode::Native,
        activation: Activation::Always,
        provider: Some(Provider::Anthropic),
        ..Settings::default()
    });
    let s = Session::new("s");
    let tools = ts.definitions(&s, Provider::Anthropic).tools;
    let forecast = tools.iter().find(|d| d["name"] == "get_forecast").unwrap();
    assert_eq!(forecast["defer_loading"], true);
    assert!(forecast["input_schema"]["properties"].is_object());
    let search = tools.iter().find(|d| d["name"] == "tool_search").unwrap();
    assert!(search.get("defer_loading").is_none());
    let read = tools.iter().find(|d| d["name"] == "read_file").unwrap();
    assert!(
        read.get("defer_loading").is_none(),
        "built-in never deferred"
    );
    let out = ts
        .handle_call(&s, "tool_search", json!({"query": "weather forecast"}))
        .await;
    assert_eq!(
        out.content[0],
        json!({"type": "tool_reference", "tool_name": "get_forecast"}),
        "{}",
        out.content
    );
    // Then the model calls the loaded tool by name.
    let out = ts
        .handle_call(
            &s,
            "get_forecast",
            json!({"latitude": 41.9, "longitude": 12.5}),
        )
        .await;
    assert_eq!(
        out.content["ran"], "mcp:weather:get_forecast",
        "{}",
        out.content
    );
}

#[tokio::test]
async fn native_openai_groups_deferred_functions_and_answers_tool_search_calls() {
    let ts = build(Settings {
        mode: Mode::Native,
        activation: Activation::Always,
        provider: Some(Provider::OpenAiResponses),
        ..Settings::default()
    });
    let s = Session::new("s");
    let tools = ts.definitions(&s, Provider::OpenAiResponses).tools;
    let spaces: Vec<&Value> = tools.iter().filter(|d| d["type"] == "namespace").collect();
    assert!(!spaces.is_empty());
    for ns in &spaces {
        let fns = ns["tools"].as_array().unwrap();
        assert!(
            !fns.is_empty() && fns.len() <= toolsearch::native::NAMESPACE_SIZE,
            "{ns}"
        );
        assert!(fns.iter().all(|f| f["defer_loading"] == true));
    }
    assert!(tools
        .iter()
        .any(|d| d["type"] == "tool_search" && d["execution"] == "client"));
    let output = ts.answer_tool_search(
        &s,
        &json!({"type": "tool_search_call", "call_id": "call_1", "execution": "client",
                "arguments": {"query": "weather forecast"}}),
    );
    assert_eq!(output["type"], "tool_search_output");
    assert_eq!(output["call_id"], "call_1");
    let loaded = &output["tools"][0];
    assert_eq!(loaded["type"], "namespace");
    assert_eq!(loaded["tools"][0]["name"], "get_forecast", "{output}");
}

/// Native mode for OpenAI Responses over `tools`.
pub(crate) fn native_openai(tools: Vec<Tool>) -> ToolSearch {
    ToolSearch::builder()
        .catalog(Catalog::new(tools).unwrap())
        .settings(Settings {
            mode: Mode::Native,
            activation: Activation::Always,
            provider: Some(Provider::OpenAiResponses),
            ..Settings::default()
        })
        .build()
        .unwrap()
}

/// The namespace names a request declares, asserted distinct.
fn distinct_namespace_names(request: &[Value]) -> Vec<&str> {
    let names: Vec<&str> = request
        .iter()
        .filter(|d| d["type"] == "namespace")
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        unique.len(),
        names.len(),
        "namespace names are distinct: {names:?}"
    );
    names
}

#[tokio::test]
async fn native_openai_answers_in_the_namespaces_the_request_declared() {
    // One server of 20 tools (three namespaces: `srv`, `srv_2`, `srv_3`), a server
    // really named `srv_2`, and a client-less tool under `tools`.
    let mut tools: Vec<Tool> = (0..20)
        .map(|i| {
            Tool::new(
                Source::Mcp,
                Some("srv"),
                &format!("task_{i:02}"),
                &format!("Task number {i}"),
                json!({"type": "object"}),
            )
        })
        .collect();
    tools.push(Tool::new(
        Source::Mcp,
        Some("srv_2"),
        "lonely_tool",
        "The only tool of srv_2",
        json!({"type": "object"}),
    ));
    let ts = native_openai(tools);
    let s = Session::new("s");
    let request = ts.definitions(&s, Provider::OpenAiResponses).tools;
    let declared: Vec<&Value> = request
        .iter()
        .filter(|d| d["type"] == "namespace")
        .collect();
    let names = distinct_namespace_names(&request);
    assert!(names.contains(&"srv_2"), "{names:?}");
    // `task_12` is in the second part of `srv`.
    for query in ["task_12", "lonely_tool"] {
        let output = ts.answer_tool_search(
            &s,
            &json!({"type": "tool_search_call", "call_id": "c", "execution": "client",
                    "arguments": {"query": query}}),
        );
        let out = output["tools"].as_array().unwrap();
        assert_eq!(out.len(), 1, "{output}");
        let ns = &out[0];
        let req = declared
            .iter()
            .find(|d| d["name"] == ns["name"])
            .unwrap_or_else(|| panic!("{query}: {} is not declared", ns["name"]));
        assert_eq!(ns["description"], req["description"], "{query}");
        assert_eq!(ns["tools"].as_array().unwrap().len(), 1, "{output}");
        let f = &ns["tools"][0];
        assert_eq!(f["name"], query);
        assert_eq!(f["defer_loading"], true);
        assert!(req["tools"].as_array().unwrap().contains(f), "{query}: {f}");
    }
}

#[tokio::test]
async fn namespace_names_stay_distinct_and_short_for_hostile_server_names() {
    // Servers whose names clean to the same name, at the 64-byte limit, and one
    // named like another's second part.
    let long = "s".repeat(64);
    let servers = [
        long.clone(),
        format!("{}.", &long[..63]),
        "a.b".into(),
        "a_b".into(),
        "a_b_2".into(),
    ];
    let mut tools = Vec::new();
    for s in &servers {
        for i in 0..12 {
            tools.push(Tool::new(
                Source::Mcp,
                Some(s),
                &format!("t{i}"),
                "A tool",
                json!({"type": "object"}),
            ));
        }
    }
    let ts = native_openai(tools);
    let request = ts
        .definitions(&Session::new("s"), Provider::OpenAiResponses)
        .tools;
    let names = distinct_namespace_names(&request);
    assert_eq!(names.len(), 10, "{names:?}");
    assert!(names.iter().all(|n| n.len() <= 64), "{names:?}");
}

#[tokio::test]
async fn gemini_declarations_report_what_they_dropped() {
    let mut t = Tool::new(
        Source::Mcp,
        Some("s"),
        "odd",
        "A tool.",
        json!({"type": "object", "properties": {"a": {"type": "string", "not": {"const": "x"}}},
               "additionalProperties": false}),
    );
    t.deferrable = Deferrable::Never;
    let ts = ToolSearch::builder()
        .catalog(Catalog::new(vec![t]).unwrap())
        .build()
        .unwrap();
    let d = ts.definitions(&Session::new("s"), Provider::Gemini);
    assert_eq!(
        d.tools[0]["parameters"],
        json!({"type": "object", "properties": {"a": {"type": "string"}}})
    );
    assert_eq!(
        d.notes,
        ["gemini: `odd`: dropped additionalProperties, not"]
    );
}
