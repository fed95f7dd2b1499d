//! End to end: a mock OpenAI-compatible provider on loopback with a scripted model,
//! the same task in direct, code, tools and reveal modes over 121 tools; and a native
//! lane, where the mock provider hosts the search the Anthropic way (deferred
//! definitions, our `tool_search` answering with `tool_reference` blocks). Each lane
//! prints the bytes of its first request and its round trips.

#[path = "../../examples/support/mod.rs"]
mod support;

use std::sync::{Arc, Mutex};

use serde_json::json;

use toolsearch::{Activation, Mode, Settings, ToolSearch};
use toolsearch_catalog::{Catalog, Source, Tool};

const TARGET: &str = "create_invoice";
/// A parameter only the target has: it must not be in a code-mode request up front.
const TARGET_PARAM: &str = "invoice_amount_cents";

fn catalog() -> Catalog {
    let mut tools: Vec<Tool> = (0..120)
        .map(|i| {
            let server = ["crm", "mail", "files", "calendar", "chat", "docs"][i % 6];
            Tool::new(
                Source::Mcp,
                Some(server),
                &format!("{server}_action_{i}"),
                &format!(
                    "Performs {server} operation number {i} on records, with paging and filters."
                ),
                json!({"type": "object", "properties": {
                    "record_id": {"type": "string", "description": "The record to act on"},
                    "page": {"type": "integer", "description": "Page of results"},
                    "filter": {"type": "string", "description": "A filter expression"}
                }, "required": ["record_id"]}),
            )
        })
        .collect();
    tools.push(Tool::new(
        Source::Mcp,
        Some("billing"),
        TARGET,
        "Create an invoice for a customer.",
        json!({"type": "object", "properties": {
            "customer": {"type": "string", "description": "Customer id"},
            TARGET_PARAM: {"type": "integer", "description": "Amount in cents"}
        }, "required": ["customer", TARGET_PARAM]}),
    ));
    Catalog::new(tools).unwrap()
}

/// The scripted model: calls the target (directly or through code), then answers.
fn model() -> impl Fn(&str, &str) -> String {
    support::agent::scripted("Invoice created.", |names| {
        if names.contains(&"tool_search_code") {
            let code = format!(
                "const [hit] = await openclaw.tools.search('create an invoice for a customer', {{limit: 3}});\n\
                 const tool = await openclaw.tools.describe(hit.id);\n\
                 return await openclaw.tools.call(tool.id, {{customer: 'acme', {TARGET_PARAM}: 4200}});"
            );
            ("tool_search_code".to_string(), json!({"code": code}))
        } else {
            (
                TARGET.to_string(),
                json!({"customer": "acme", TARGET_PARAM: 4200}),
            )
        }
    })
}

/// A scripted model that follows the structured tools and reveal mode over several
/// turns: search, then describe and call (tools), or call by name once the target's
/// full schema is in the list (reveal, direct); answers when the target has run.
fn stepwise(_line: &str, body: &str) -> String {
    let request: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let tools = request["tools"].as_array().cloned().unwrap_or_default();
    let last = messages.last().cloned().unwrap_or_default();
    let reply = |name: &str, args: serde_json::Value| json!({"role": "assistant", "content": null, "tool_calls": [{"id": format!("call_{}", messages.len()), "type": "function", "function": {"name": name, "arguments": args.to_string()}}]});
    let full_target = tools.iter().any(|t| {
        t["function"]["name"] == TARGET
            && t["function"]["parameters"]["properties"][TARGET_PARAM].is_object()
    });
    let named = |n: &str| tools.iter().any(|t| t["function"]["name"] == n);
    let last_text = last["content"].as_str().unwrap_or_default().to_owned();
    let message = if last["role"] == "tool" && last_text.contains("4200") {
        json!({"role": "assistant", "content": "Invoice created."})
    } else if full_target {
        reply(TARGET, json!({"customer": "acme", TARGET_PARAM: 4200}))
    } else if named("tool_describe") {
        let id = format!("mcp:billing:{TARGET}");
        if last["role"] != "tool" {
            reply(
                "tool_search",
                json!({"query": "create an invoice for a customer"}),
            )
        } else if last_text.contains("\"hits\"") {
            reply("tool_describe", json!({"ids": [id]}))
        } else {
            reply(
                "tool_call",
                json!({"id": id, "arguments": {"customer": "acme", TARGET_PARAM: 4200}}),
            )
        }
    } else {
        reply(
            "tool_search",
            json!({"query": "create an invoice for a customer"}),
        )
    };
    json!({"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}).to_string()
}

/// Serves the scripted model on loopback; records each request body.
fn start_provider(bodies: Arc<Mutex<Vec<String>>>) -> String {
    let model = model();
    support::http::serve(move |line, body| {
        bodies.lock().unwrap().push(body.to_string());
        model(line, body)
    })
}

/// Serves the stepwise model on loopback; records each request body.
fn start_stepwise(bodies: Arc<Mutex<Vec<String>>>) -> String {
    support::http::serve(move |line, body| {
        bodies.lock().unwrap().push(body.to_string());
        stepwise(line, body)
    })
}

async fn run_task(ts: &ToolSearch, addr: &str) -> String {
    support::agent::run(
        ts,
        addr,
        "/v1/chat/completions",
        "scripted",
        None,
        "Bill acme 42 dollars.",
        4,
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn direct_and_code_mode_complete_the_same_task() {
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let addr = start_provider(bodies.clone());

    let direct = ToolSearch::builder()
        .catalog(catalog())
        .settings(Settings {
            activation: Activation::Never,
            ..Settings::default()
        })
        .build()
        .unwrap();
    assert_eq!(run_task(&direct, &addr).await, "Invoice created.");
    let direct_rec = direct.take_record(&toolsearch::Session::new(support::agent::SESSION));
    let direct_first = bodies.lock().unwrap()[0].clone();

    let code = ToolSearch::builder()
        .catalog(catalog())
        .settings(Settings {
            mode: Mode::Code,
            ..Settings::default()
        })
        .build()
        .unwrap();
    assert_eq!(run_task(&code, &addr).await, "Invoice created.");
    let code_rec = code.take_record(&toolsearch::Session::new(support::agent::SESSION));
    let code_first = bodies.lock().unwrap()[2].clone();

    // Both called the same target tool.
    let target_id = format!("mcp:billing:{TARGET}");
    assert_eq!(
        direct_rec
            .selected
            .iter()
            .map(|s| s.id.as_str())
            .collect::<Vec<_>>(),
        [target_id.as_str()]
    );
    assert!(
        code_rec.selected.iter().any(|s| s.id == target_id),
        "{:?}",
        code_rec.selected
    );
    // Code mode exposes no target schema up front and is smaller.
    assert!(direct_first.contains(TARGET_PARAM));
    assert!(!code_first.contains(TARGET_PARAM));
    let ratio = direct_first.len() as f64 / code_first.len() as f64;
    eprintln!(
        "e2e: first request {} B direct vs {} B code mode ({ratio:.1}x smaller); code mode: {} search, {} describe, {} call",
        direct_first.len(),
        code_first.len(),
        code_rec.searches,
        code_rec.describes,
        code_rec.calls
    );
    assert!(ratio > 5.0, "{ratio}");
    // Telemetry shows the expected counts.
    assert_eq!(
        (direct_rec.searches, direct_rec.describes, direct_rec.calls),
        (0, 0, 1)
    );
    assert_eq!(
        (code_rec.searches, code_rec.describes, code_rec.calls),
        (1, 1, 1)
    );
    assert_eq!(
        code_rec.activation.as_ref().unwrap().shape,
        toolsearch::Shape::Code
    );
    assert_eq!(code_rec.isolate_start_us.len(), 1);
}

/// The same task through the structured tools and reveal mode: the same target is
/// called; bytes up front and round trips are printed beside direct's.
#[tokio::test]
async fn tools_and_reveal_lanes_complete_the_same_task() {
    let target_id = format!("mcp:billing:{TARGET}");
    let mut lanes = Vec::new();
    for (lane, mode, activation) in [
        ("direct", Mode::Tools, Activation::Never),
        ("tools", Mode::Tools, Activation::Auto),
        ("reveal", Mode::Reveal, Activation::Auto),
    ] {
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let addr = start_stepwise(bodies.clone());
        let ts = ToolSearch::builder()
            .catalog(catalog())
            .settings(Settings {
                mode,
                activation,
                ..Settings::default()
            })
            .build()
            .unwrap();
        assert_eq!(run_task(&ts, &addr).await, "Invoice created.", "{lane}");
        let rec = ts.take_record(&toolsearch::Session::new(support::agent::SESSION));
        assert!(
            rec.selected.iter().any(|s| s.id == target_id),
            "{lane}: {:?}",
            rec.selected
        );
        let bodies = bodies.lock().unwrap();
        let first = bodies[0].len();
        assert_eq!(bodies[0].contains(TARGET_PARAM), lane == "direct", "{lane}");
        eprintln!(
            "e2e {lane}: first request {first} B, {} round trips",
            bodies.len()
        );
        lanes.push((lane, first, bodies.len()));
    }
    // Round trips: direct 2 (call, answer), reveal 3 (search, call, answer),
    // tools 4 (search, describe, call, answer).
    assert_eq!(lanes.iter().map(|l| l.2).collect::<Vec<_>>(), [2, 4, 3]);
    assert!(
        lanes[1].1 * 5 < lanes[0].1 && lanes[2].1 < lanes[0].1,
        "{lanes:?}"
    );
}

/// Native lane: the provider (mocked here, in process) keeps deferred definitions out
/// of the prompt and loads what our `tool_search` answers with `tool_reference`
/// blocks; the model then calls the target by name.
#[tokio::test]
async fn native_lane_completes_the_same_task() {
    use toolsearch::{Provider, Session};
    let ts = ToolSearch::builder()
        .catalog(catalog())
        .settings(Settings {
            mode: Mode::Native,
            provider: Some(Provider::Anthropic),
            ..Settings::default()
        })
        .build()
        .unwrap();
    let s = Session::new("native");
    let defs = ts.definitions(&s, Provider::Anthropic).tools;
    // What the model reads up front: the definitions that are not deferred.
    let up_front: usize = defs
        .iter()
        .filter(|d| d["defer_loading"] != true)
        .map(|d| d.to_string().len())
        .sum();
    assert!(defs
        .iter()
        .any(|d| d["name"] == TARGET && d["defer_loading"] == true));
    let found = ts
        .handle_call(
            &s,
            "tool_search",
            json!({"query": "create an invoice for a customer"}),
        )
        .await;
    let loaded: Vec<&str> = found
        .content
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["tool_name"].as_str())
        .collect();
    assert!(loaded.contains(&TARGET), "{}", found.content);
    // The provider expands the reference from the deferred definition it was sent.
    let def = defs.iter().find(|d| d["name"] == TARGET).unwrap();
    assert!(def["input_schema"]["properties"][TARGET_PARAM].is_object());
    let out = ts
        .handle_call(&s, TARGET, json!({"customer": "acme", TARGET_PARAM: 4200}))
        .await;
    assert!(!out.is_error, "{}", out.content);
    let rec = ts.take_record(&s);
    assert_eq!(
        rec.selected.last().unwrap().id,
        format!("mcp:billing:{TARGET}")
    );
    eprintln!("e2e native: {up_front} B read up front, 3 round trips (search, call, answer)");
    assert!(up_front < 2048, "{up_front}");
}
