//! End to end: a mock OpenAI-compatible provider on loopback with a scripted model,
//! the same task in direct mode and in code mode over 121 tools.

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

/// Serves the scripted model on loopback; records each request body.
fn start_provider(bodies: Arc<Mutex<Vec<String>>>) -> String {
    let model = model();
    support::http::serve(move |line, body| {
        bodies.lock().unwrap().push(body.to_string());
        model(line, body)
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
    assert_eq!(code_rec.activation.as_ref().unwrap().shape, "code");
    assert_eq!(code_rec.isolate_start_us.len(), 1);
}
