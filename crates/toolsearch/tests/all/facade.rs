//! ToolSearch: activation, shapes, providers, tool_call rules, hooks, telemetry.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use toolsearch::{
    Activation, ApprovalFuture, Approver, CallContext, ErrorCode, Mode, Policy, Provider, Session,
    Settings, Shape, ToolSearch,
};
use toolsearch_catalog::{Annotations, Catalog, Deferrable, Source, Tool};

pub(crate) fn tools(n: usize) -> Vec<Tool> {
    (0..n)
        .map(|i| {
            Tool::new(
                Source::Mcp,
                Some("srv"),
                &format!("tool_{i}"),
                &format!("Does thing number {i}"),
                json!({"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}),
            )
        })
        .collect()
}

fn never(name: &str) -> Tool {
    let mut t = Tool::new(
        Source::Builtin,
        None,
        name,
        "Always here",
        json!({"type": "object"}),
    );
    t.deferrable = Deferrable::Never;
    t
}

fn ts(catalog: Catalog, mode: Mode) -> ToolSearch {
    ToolSearch::builder()
        .catalog(catalog)
        .mode(mode)
        .build()
        .unwrap()
}

/// The error message of a failed call ("" when it did not fail).
fn message(out: &toolsearch::ToolOutput) -> &str {
    out.content["error"]["message"].as_str().unwrap_or_default()
}

fn names(defs: &[Value]) -> Vec<String> {
    defs.iter()
        .map(|d| {
            d["function"]["name"]
                .as_str()
                .or(d["name"].as_str())
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn auto_activation_edges_at_14_15_16_deferrable_tools() {
    for (n, active) in [(14, false), (15, true), (16, true)] {
        let mut all = tools(n);
        all.push(never("read_file"));
        let ts = ts(Catalog::new(all).unwrap(), Mode::Tools);
        let d = ts.definitions(&Session::new("s"), Provider::OpenAiChat);
        assert_eq!(d.decision.active, active, "{n}: {}", d.decision.reason);
        assert_eq!(d.decision.deferrable_tools, n);
        let sent = names(&d.tools);
        if active {
            assert_eq!(
                sent,
                ["tool_search", "tool_describe", "tool_call", "read_file"]
            );
        } else {
            assert_eq!(sent.len(), n + 1);
        }
    }
}

#[test]
fn crossing_the_threshold_mid_session_both_ways_and_nothing_deferrable() {
    let ts = ts(Catalog::new(tools(20)).unwrap(), Mode::Tools);
    let s = Session::new("s");
    assert!(ts.definitions(&s, Provider::Anthropic).decision.active);
    ts.set_catalog(Catalog::new(tools(3)).unwrap());
    assert!(!ts.definitions(&s, Provider::Anthropic).decision.active);
    ts.set_catalog(Catalog::new(tools(30)).unwrap());
    assert!(ts.definitions(&s, Provider::Anthropic).decision.active);
    // Nothing deferrable: pass-through in every setting.
    for activation in [Activation::Auto, Activation::Always, Activation::Never] {
        let ts = ToolSearch::builder()
            .catalog(Catalog::new(vec![never("a"), never("b")]).unwrap())
            .activation(activation)
            .build()
            .unwrap();
        let d = ts.definitions(&s, Provider::Mcp);
        assert!(!d.decision.active);
        assert_eq!(names(&d.tools), ["a", "b"]);
    }
    let always = ToolSearch::builder()
        .catalog(Catalog::new(tools(1)).unwrap())
        .activation(Activation::Always)
        .mode(Mode::Tools)
        .build()
        .unwrap();
    assert!(always.definitions(&s, Provider::Mcp).decision.active);
    let off = ToolSearch::builder()
        .catalog(Catalog::new(tools(50)).unwrap())
        .activation(Activation::Never)
        .build()
        .unwrap();
    assert!(!off.definitions(&s, Provider::Mcp).decision.active);
}

#[test]
fn context_share_rule_activates_few_large_tools() {
    let big: Vec<Tool> = (0..3)
        .map(|i| {
            Tool::new(
                Source::Mcp,
                Some("s"),
                &format!("t{i}"),
                &"x".repeat(4000),
                json!({"type": "object"}),
            )
        })
        .collect();
    let settings = Settings {
        context_window: Some(8000),
        mode: Mode::Tools,
        ..Settings::default()
    };
    let ts = ToolSearch::builder()
        .catalog(Catalog::new(big).unwrap())
        .settings(settings)
        .build()
        .unwrap();
    let d = ts.definitions(&Session::new("s"), Provider::OpenAiResponses);
    assert!(d.decision.active, "{}", d.decision.reason);
    assert!(d.decision.context_share.unwrap() >= 0.10);
}

#[test]
fn never_defer_by_name_and_provider_shapes() {
    let mut all = tools(20);
    all.push(never("bash"));
    let settings = Settings {
        never_defer: vec!["tool_3".into()],
        mode: Mode::Tools,
        ..Settings::default()
    };
    let ts = ToolSearch::builder()
        .catalog(Catalog::new(all).unwrap())
        .settings(settings)
        .build()
        .unwrap();
    let s = Session::new("s");
    let chat = ts.definitions(&s, Provider::OpenAiChat);
    assert_eq!(
        names(&chat.tools),
        [
            "tool_search",
            "tool_describe",
            "tool_call",
            "tool_3",
            "bash"
        ]
    );
    assert!(chat.tools[0]["function"]["parameters"].is_object());
    let anthropic = ts.definitions(&s, Provider::Anthropic);
    assert!(anthropic.tools[3]["input_schema"].is_object());
    let mcp = ts.definitions(&s, Provider::Mcp);
    assert!(mcp.tools[3]["inputSchema"].is_object());
    let responses = ts.definitions(&s, Provider::OpenAiResponses);
    assert_eq!(responses.tools[3]["name"], "tool_3");
    // Byte-stable: the same catalog gives the same bytes.
    assert_eq!(
        serde_json::to_string(&chat.tools).unwrap(),
        serde_json::to_string(&ts.definitions(&s, Provider::OpenAiChat).tools).unwrap()
    );
}

#[test]
fn code_mode_falls_back_to_tools_when_the_engine_cannot_start() {
    let ts = ts(Catalog::new(tools(20)).unwrap(), Mode::Code);
    ts.disable_code_mode("simulated engine failure");
    let d = ts.definitions(&Session::new("s"), Provider::OpenAiChat);
    assert_eq!(d.decision.shape, Shape::Tools);
    assert_eq!(
        names(&d.tools)[..3],
        ["tool_search", "tool_describe", "tool_call"]
    );
    let rec = ts.take_record(&Session::new("s"));
    assert!(
        rec.fallbacks[0].contains("simulated engine failure"),
        "{:?}",
        rec.fallbacks
    );
}

#[tokio::test]
async fn code_mode_sends_one_tool_and_runs_snippets() {
    let mut all = tools(20);
    all.push(never("bash"));
    let ts = ts(Catalog::new(all).unwrap(), Mode::Code);
    let s = Session::new("s");
    let d = ts.definitions(&s, Provider::OpenAiChat);
    assert_eq!(names(&d.tools), ["tool_search_code", "bash"]);
    let out = ts
        .handle_call(&s, "tool_search_code", json!({"code": "const h = await openclaw.tools.search('tool_7'); return openclaw.tools.call(h[0].id, {count: '3'})"}))
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        out.content["value"]["arguments"]["count"], 3,
        "repaired \"3\" to 3: {}",
        out.content
    );
    let rec = ts.take_record(&s);
    assert_eq!((rec.searches, rec.calls), (1, 1));
    assert_eq!(rec.selected[0].id, "mcp:srv:tool_7");
}

#[tokio::test]
async fn tool_call_rules_validation_and_repair() {
    let mut all = tools(20);
    all.push(never("bash"));
    let ts = ts(Catalog::new(all).unwrap(), Mode::Tools);
    let s = Session::new("s");
    let out = ts
        .handle_call(
            &s,
            "tool_call",
            json!({"id": "tool_search", "arguments": {}}),
        )
        .await;
    assert!(out.is_error && message(&out).contains("one of the search tools"));
    // A tool sent in full runs through `tool_call` too.
    let out = ts
        .handle_call(&s, "tool_call", json!({"id": "bash", "arguments": {}}))
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(ts.take_record(&s).called[0].id, "builtin::bash");
    // Wrong arguments: the schema and the path at fault, nothing called.
    let out = ts
        .handle_call(
            &s,
            "tool_call",
            json!({"id": "tool_1", "arguments": {"count": "many"}}),
        )
        .await;
    assert!(out.is_error);
    let msg = message(&out);
    assert!(msg.contains("$.count"), "{msg}");
    // The schema once, beside the message (not escaped inside it too).
    assert!(
        out.content["error"]["input_schema"].is_object(),
        "{}",
        out.content
    );
    assert!(!msg.contains("\"properties\""), "{msg}");
    // Nothing called; the refused call is in the record, with its tool and why.
    let rec = ts.take_record(&s);
    let refused: Vec<_> = rec
        .refused
        .iter()
        .map(|r| (r.id.as_str(), r.code))
        .collect();
    assert_eq!(rec.calls, 0);
    assert!(
        refused.len() == 1 && refused[0].0.ends_with("tool_1"),
        "{refused:?}"
    );
    assert_eq!(refused[0].1, ErrorCode::InvalidArgs);
    // A bare name and a doubly nested, stringly-typed argument are repaired and said so.
    let out = ts
        .handle_call(
            &s,
            "tool_call",
            json!({"id": "tool_1", "arguments": {"arguments": {"count": "42"}}}),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(out.content["result"]["arguments"]["count"], 42);
    assert_eq!(
        out.content["repaired_arguments"].as_array().unwrap().len(),
        2
    );
    // Directly sent tools dispatch by their provider name.
    let out = ts.handle_call(&s, "bash", json!({})).await;
    assert_eq!(out.content["tool"], "builtin::bash");
}

#[tokio::test]
async fn describe_reveals_per_session_with_a_bounded_number_of_sessions() {
    let settings = Settings {
        max_sessions: 2,
        mode: Mode::Tools,
        ..Settings::default()
    };
    let ts = ToolSearch::builder()
        .catalog(Catalog::new(tools(20)).unwrap())
        .settings(settings)
        .build()
        .unwrap();
    for id in ["a", "b", "c"] {
        let out = ts
            .handle_call(
                &Session::new(id),
                "tool_describe",
                json!({"ids": ["tool_1", "mcp:srv:tool_2"], "typescript": true}),
            )
            .await;
        assert_eq!(
            out.content["tools"][0]["typescript"]
                .as_str()
                .map(|t| t.contains("count: number")),
            Some(true),
            "{}",
            out.content
        );
    }
    assert!(
        ts.revealed(&Session::new("a")).is_empty(),
        "oldest session evicted"
    );
    assert_eq!(
        ts.revealed(&Session::new("c")),
        ["mcp:srv:tool_1", "mcp:srv:tool_2"]
    );
}

#[tokio::test]
async fn stale_ids_after_a_catalog_change() {
    let ts = ts(Catalog::new(tools(20)).unwrap(), Mode::Tools);
    let s = Session::new("s");
    ts.set_catalog(Catalog::new(tools(10)).unwrap());
    let out = ts
        .handle_call(
            &s,
            "tool_call",
            json!({"id": "mcp:srv:tool_15", "arguments": {"count": 1}}),
        )
        .await;
    assert_eq!(out.content["error"]["code"], "STALE", "{}", out.content);
    let out = ts
        .handle_call(
            &s,
            "tool_call",
            json!({"id": "mcp:srv:never_was", "arguments": {}}),
        )
        .await;
    assert_eq!(out.content["error"]["code"], "UNKNOWN_TOOL");
}

struct DenyAll(Arc<Mutex<Vec<String>>>);
impl Approver for DenyAll {
    fn approve(&self, tool: &Tool, _args: &Value, cx: &CallContext) -> ApprovalFuture {
        self.0.lock().unwrap().push(format!(
            "{}@{}",
            tool.id,
            cx.principal.as_deref().unwrap_or("")
        ));
        Box::pin(async { Err("the user said no".to_string()) })
    }
}

#[tokio::test]
async fn policy_hooks_approvals_and_narrowed_sessions() {
    let mut all = tools(20);
    let mut rm = Tool::new(
        Source::Mcp,
        Some("files"),
        "delete_everything",
        "Deletes all files",
        json!({"type": "object"}),
    );
    rm.annotations = Some(Annotations {
        destructive_hint: Some(true),
        ..Default::default()
    });
    all.push(rm);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let hook_seen = seen.clone();
    let ts = ToolSearch::builder()
        .catalog(Catalog::new(all.clone()).unwrap())
        .mode(Mode::Tools)
        .approve_destructive(true)
        .before_call(Arc::new(move |tool: &Tool, _: &Value, _: &CallContext| {
            hook_seen.lock().unwrap().push(tool.name.clone());
            Ok(())
        }))
        .build()
        .unwrap();
    let s = Session {
        principal: Some("alice".into()),
        ..Session::new("s")
    };
    let out = ts
        .handle_call(
            &s,
            "tool_call",
            json!({"id": "delete_everything", "arguments": {}}),
        )
        .await;
    assert_eq!(
        out.content["error"]["code"], "APPROVAL_DENIED",
        "{}",
        out.content
    );
    // The turn's record names the denied call.
    let refused = ts.take_record(&s).refused;
    assert!(
        refused.len() == 1 && refused[0].code == ErrorCode::ApprovalDenied,
        "{refused:?}"
    );
    let out = ts
        .handle_call(
            &s,
            "tool_call",
            json!({"id": "tool_2", "arguments": {"count": 1}}),
        )
        .await;
    assert!(!out.is_error);
    // Hooks see the real tool name, never the bridge name.
    assert!(seen.lock().unwrap().iter().all(|n| n != "tool_call"));
    assert!(seen.lock().unwrap().contains(&"tool_2".to_string()));

    let asked = Arc::new(Mutex::new(Vec::new()));
    let ts = ToolSearch::builder()
        .catalog(Catalog::new(all).unwrap())
        .mode(Mode::Tools)
        .approver(Arc::new(DenyAll(asked.clone())))
        .build()
        .unwrap();
    let out = ts
        .handle_call(
            &s,
            "tool_call",
            json!({"id": "tool_2", "arguments": {"count": 1}}),
        )
        .await;
    assert!(message(&out).contains("the user said no"));
    assert_eq!(asked.lock().unwrap()[0], "mcp:srv:tool_2@alice");

    // A sub-agent narrowed to one server cannot find or call anything else.
    let sub = Session {
        scope: Policy::from_patterns::<&str, &str>(&["files"], &[]),
        ..Session::new("sub")
    };
    let found = ts
        .handle_call(&sub, "tool_search", json!({"query": "thing number 2"}))
        .await;
    assert!(
        found.content["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["server"] == "files"),
        "{}",
        found.content
    );
    let out = ts
        .handle_call(
            &sub,
            "tool_call",
            json!({"id": "mcp:srv:tool_2", "arguments": {"count": 1}}),
        )
        .await;
    assert_eq!(out.content["error"]["code"], "UNKNOWN_TOOL");
}

#[tokio::test]
async fn payloads_are_redacted_unless_capture_is_on() {
    for capture in [false, true] {
        let ts = ToolSearch::builder()
            .catalog(Catalog::new(tools(20)).unwrap())
            .mode(Mode::Tools)
            .capture_payloads(capture)
            .build()
            .unwrap();
        let s = Session::new("s");
        ts.definitions(&s, Provider::OpenAiChat);
        ts.handle_call(
            &s,
            "tool_call",
            json!({"id": "tool_1", "arguments": {"count": 7}}),
        )
        .await;
        let rec = ts.take_record(&s);
        let text = serde_json::to_string(&rec).unwrap();
        assert_eq!(rec.calls, 1);
        assert_eq!(text.contains("\"count\":7"), capture, "{text}");
        assert!(rec.tool_bytes_sent < rec.tool_bytes_direct);
    }
}

#[tokio::test]
async fn client_tools_join_as_an_overlay_and_calls_go_back_to_the_client() {
    let shared = Catalog::new(tools(20)).unwrap();
    let ts = ToolSearch::builder()
        .catalog(shared.clone())
        .mode(Mode::Tools)
        .build()
        .unwrap();
    let routed = Arc::new(Mutex::new(Vec::new()));
    let seen = routed.clone();
    let client_dispatcher =
        toolsearch::dispatcher_fn(move |tool: Tool, args: Value, _cx: CallContext| {
            seen.lock().unwrap().push(tool.id.clone());
            async move { Ok(json!({"from": "client", "args": args})) }
        });
    let pick = Tool::new(
        Source::Client,
        Some("app"),
        "pick_color",
        "Let the user pick a color in the app",
        json!({"type": "object", "properties": {"hint": {"type": "string"}}}),
    );
    let client = toolsearch::ClientTools::new(vec![pick], Arc::new(client_dispatcher)).unwrap();
    let s = Session {
        client_tools: Some(client),
        ..Session::new("run-1")
    };
    let found = ts
        .handle_call(&s, "tool_search", json!({"query": "pick a color"}))
        .await;
    assert_eq!(
        found.content["hits"][0]["id"], "client:app:pick_color",
        "{}",
        found.content
    );
    let out = ts
        .handle_call(
            &s,
            "tool_call",
            json!({"id": "client:app:pick_color", "arguments": {"hint": "warm"}}),
        )
        .await;
    assert_eq!(
        out.content,
        json!({"from": "client", "args": {"hint": "warm"}})
    );
    assert_eq!(routed.lock().unwrap().as_slice(), ["client:app:pick_color"]);
    // The shared catalog is untouched, and other sessions do not see the overlay.
    assert_eq!(ts.host().catalog().len(), 20);
    let other = ts
        .handle_call(
            &Session::new("run-2"),
            "tool_call",
            json!({"id": "client:app:pick_color", "arguments": {}}),
        )
        .await;
    assert_eq!(other.content["error"]["code"], "UNKNOWN_TOOL");
    assert_eq!(ts.take_record(&s).selected.last().unwrap().source, "client");
}

/// Client tools are ranked with the shared ones as one catalog (one IDF, one cutoff):
/// a client tool matching every word of the query beats a shared tool matching one,
/// which sorting scores from two separate indexes got wrong (a word in a one-tool
/// index has almost no weight).
#[tokio::test]
async fn client_tools_rank_on_the_same_scale_as_shared_tools() {
    let mut shared = tools(40);
    for (name, what) in [
        ("weather_alerts", "Lists weather alerts for a region"),
        ("weather_stations", "Lists weather stations near a point"),
        ("tide_tables", "Tide tables for a harbour"),
    ] {
        shared.push(Tool::new(
            Source::Mcp,
            Some("wx"),
            name,
            what,
            json!({"type": "object"}),
        ));
    }
    let ts = ToolSearch::builder()
        .catalog(Catalog::new(shared).unwrap())
        .mode(Mode::Tools)
        .build()
        .unwrap();
    let forecast = Tool::new(
        Source::Client,
        Some("app"),
        "get_weather_forecast",
        "Gets the weather forecast for a city",
        json!({"type": "object", "properties": {"city": {"type": "string"}}}),
    );
    let client =
        toolsearch::ClientTools::new(vec![forecast], Arc::new(toolsearch::EchoDispatcher)).unwrap();
    let s = Session {
        client_tools: Some(client),
        ..Session::new("run-1")
    };
    for query in [
        "weather forecast",
        "forecast the weather for Paris",
        "get_weather_forecast",
    ] {
        let found = ts
            .handle_call(&s, "tool_search", json!({"query": query}))
            .await;
        assert_eq!(
            found.content["hits"][0]["id"], "client:app:get_weather_forecast",
            "{query}: {}",
            found.content
        );
    }
    // The shared tools are still found beside it, and the second search reuses the
    // combined catalog (same answer).
    let a = ts
        .handle_call(&s, "tool_search", json!({"query": "weather"}))
        .await;
    let b = ts
        .handle_call(&s, "tool_search", json!({"query": "weather"}))
        .await;
    assert_eq!(a.content, b.content);
    let ids: Vec<&str> = a.content["hits"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h["id"].as_str())
        .collect();
    assert!(
        ids.contains(&"mcp:wx:weather_alerts") && ids.contains(&"client:app:get_weather_forecast"),
        "{ids:?}"
    );
}

#[tokio::test]
async fn a_direct_call_is_routed_by_the_names_definitions_sent() {
    // A never-deferred `a:read_file` next to a deferred `b:read_file`: only `a`'s is
    // sent directly, as `read_file`, and `read_file` must reach it.
    let mut kept = Tool::new(
        Source::Mcp,
        Some("a"),
        "read_file",
        "Reads a file",
        json!({"type": "object"}),
    );
    kept.deferrable = Deferrable::Never;
    let deferred = Tool::new(
        Source::Mcp,
        Some("b"),
        "read_file",
        "Reads another file",
        json!({"type": "object"}),
    );
    let mut all = tools(20);
    all.push(kept);
    all.push(deferred);
    let ts = ToolSearch::builder()
        .catalog(Catalog::new(all).unwrap())
        .mode(Mode::Tools)
        .activation(Activation::Always)
        .build()
        .unwrap();
    let s = Session::new("s");
    let sent = names(&ts.definitions(&s, Provider::Anthropic).tools);
    assert!(sent.contains(&"read_file".to_string()), "{sent:?}");
    let out = ts.handle_call(&s, "read_file", json!({})).await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(out.content["tool"], json!("mcp:a:read_file"));
}

#[test]
fn search_limits_are_settings_that_descriptions_and_schemas_follow() {
    let settings = |mode| Settings {
        mode,
        activation: Activation::Always,
        search_default_limit: 5,
        max_search_limit: 12,
        ..Settings::default()
    };
    let s = Session::new("s");
    let code = ToolSearch::builder()
        .catalog(Catalog::demo())
        .settings(settings(Mode::Code))
        .build()
        .unwrap();
    let defs = code.definitions(&s, Provider::Mcp);
    assert_eq!(defs.decision.shape, Shape::Code);
    let d = defs.tools[0]["description"].as_str().unwrap();
    assert!(d.contains("(limit 5, max 12;"), "{d}");
    let tools = ToolSearch::builder()
        .catalog(Catalog::demo())
        .settings(settings(Mode::Tools))
        .build()
        .unwrap();
    let defs = tools.definitions(&s, Provider::Mcp);
    let search = defs
        .tools
        .iter()
        .find(|t| t["name"] == "tool_search")
        .unwrap();
    assert_eq!(
        search["inputSchema"]["properties"]["limit"]["maximum"],
        json!(12)
    );
    let hits = tools
        .host()
        .search(&["file"], None, &Default::default())
        .unwrap();
    assert!(hits["hits"].as_array().unwrap().len() <= 5);
    let many = tools
        .host()
        .search(&["file"], Some(40), &Default::default())
        .unwrap();
    assert_eq!(many["limit"], json!(12), "{many}");
}

#[tokio::test]
async fn turn_records_are_per_session() {
    let ts = ts(Catalog::new(tools(20)).unwrap(), Mode::Tools);
    let (a, b) = (Session::new("a"), Session::new("b"));
    let search = |q: &str| json!({"query": q});
    let call = json!({"id": "tool_1", "arguments": {"count": 1}});
    // Interleaved, as two MCP sessions of one gateway would be.
    ts.handle_call(&a, "tool_search", search("thing")).await;
    ts.handle_call(&b, "tool_call", call.clone()).await;
    ts.handle_call(&a, "tool_search", search("number")).await;
    ts.handle_call(&b, "tool_call", call).await;
    let (ra, rb) = (ts.take_record(&a), ts.take_record(&b));
    assert_eq!((ra.searches, ra.calls), (2, 0));
    assert_eq!((rb.searches, rb.calls), (0, 2));
    assert_eq!(rb.selected[0].id, "mcp:srv:tool_1");
    // Taken means started afresh.
    assert_eq!(ts.take_record(&a).searches, 0);
}

#[tokio::test]
async fn select_and_call_resolve_bare_names_the_same_way() {
    // `a:Read` and `b:read`: a bare name that is exactly one tool's spelling is that
    // tool; a case variant matching both is ambiguous, in select: and in calls.
    let all = vec![
        Tool::new(
            Source::Mcp,
            Some("a"),
            "Read",
            "Reads A",
            json!({"type": "object"}),
        ),
        Tool::new(
            Source::Mcp,
            Some("b"),
            "read",
            "Reads B",
            json!({"type": "object"}),
        ),
    ];
    let ts = ts(Catalog::new(all).unwrap(), Mode::Tools);
    let s = Session::new("s");
    for (name, want) in [
        ("read", Some("mcp:b:read")),
        ("Read", Some("mcp:a:Read")),
        ("READ", None),
    ] {
        let selected = ts
            .handle_call(
                &s,
                "tool_search",
                json!({"query": format!("select:{name}")}),
            )
            .await;
        let hits: Vec<&str> = selected.content["hits"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|h| h["id"].as_str())
            .collect();
        let called = ts
            .handle_call(&s, "tool_call", json!({"id": name, "arguments": {}}))
            .await;
        match want {
            Some(id) => {
                assert_eq!(hits, [id], "{name}");
                assert_eq!(
                    called.content["tool"],
                    json!(id),
                    "{name}: {}",
                    called.content
                );
            }
            None => {
                assert!(hits.is_empty(), "{name}: {hits:?}");
                assert!(selected.content["hint"]
                    .as_str()
                    .unwrap()
                    .contains("2 tools are named"));
                assert!(
                    message(&called).contains("2 tools are named"),
                    "{}",
                    called.content
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutting_the_sandbox_down_ends_code_mode_with_a_clear_error() {
    let ts = ts(Catalog::new(tools(5)).unwrap(), Mode::Code);
    let s = Session::new("s");
    let out = ts
        .handle_call(&s, "tool_search_code", json!({"code": "return 1"}))
        .await;
    assert!(!out.is_error, "{}", out.content);
    // A hang guard only: the workers are killed at once.
    let within = std::time::Duration::from_secs(30);
    assert!(tokio::task::block_in_place(|| ts.shutdown_sandbox(within)));
    let out = ts
        .handle_call(&s, "tool_search_code", json!({"code": "return 2"}))
        .await;
    let text = out.content.to_string();
    assert!(out.is_error, "{text}");
    assert!(
        text.contains("stopped") || text.contains("shutting down"),
        "{text}"
    );
}
