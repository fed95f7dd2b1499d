//! What a server says about its tools beside their schemas reaches the
//! clients wherever a definition is served, cleaned and bounded: the title,
//! the annotations (hints a client asks for confirmation by) and the output
//! schema of a tool whose result passes through unchanged. Annotations stay
//! hints: a tool that says it is read-only and destructive is still gated.
//! On the in-process harness.

use rmcp::model::CallToolRequestParams;
use serde_json::{json, Value};

use crate::harness::{gateway_with, Client, Reach, Script};

fn tools() -> Vec<Value> {
    vec![
        json!({"name": "nest", "title": "Nest it", "description": "nests a value",
            "inputSchema": {"type": "object", "properties": {"depth": {"type": "integer"}}},
            "outputSchema": {"type": "object", "properties": {"v": {}}},
            "annotations": {"readOnlyHint": true, "idempotentHint": true}}),
        json!({"name": "erase", "description": "erases everything",
            "inputSchema": {"type": "object"},
            "annotations": {"destructiveHint": true, "readOnlyHint": true,
                "title": format!("Erase\u{1b}[31m\u{202e} all{}", "!".repeat(2_000))}}),
    ]
}

async fn listed(head: &str) -> (Vec<Value>, Client, std::sync::Arc<toolsearch_mcp::Gateway>) {
    let gw = gateway_with(
        head,
        vec![("s", Reach::Stream(Script::with_tools(tools())))],
    )
    .await;
    let c = Client::connect(&gw, "c").await;
    let tools = c.service.peer().list_all_tools().await.unwrap();
    let tools = tools
        .into_iter()
        .map(|t| serde_json::to_value(t).unwrap())
        .collect();
    (tools, c, gw)
}

fn named<'a>(tools: &'a [Value], suffix: &str) -> &'a Value {
    tools
        .iter()
        .find(|t| t["name"].as_str().is_some_and(|n| n.ends_with(suffix)))
        .unwrap_or_else(|| panic!("no {suffix} in {tools:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_aggregator_serves_titles_annotations_and_output_schemas() {
    let (tools, c, gw) = listed("activation = \"never\"\nsemantic = false\n").await;
    let nest = named(&tools, "nest");
    assert_eq!(nest["title"], "Nest it", "{nest}");
    assert_eq!(nest["annotations"]["readOnlyHint"], true, "{nest}");
    assert_eq!(nest["annotations"]["idempotentHint"], true, "{nest}");
    assert_eq!(nest["outputSchema"]["properties"]["v"], json!({}), "{nest}");
    let erase = named(&tools, "erase");
    assert_eq!(erase["annotations"]["destructiveHint"], true, "{erase}");
    // The title is cleaned (no escapes, no bidi) and capped.
    let title = erase["title"].as_str().unwrap();
    assert!(title.starts_with("Erase") && title.len() < 400, "{title}");
    assert!(
        !title.contains('\u{1b}') && !title.contains('\u{202e}'),
        "{title:?}"
    );
    assert!(erase.get("outputSchema").is_none(), "{erase}");

    // The result whose schema was served passes through unchanged.
    let name = nest["name"].as_str().unwrap().to_string();
    let args = json!({"depth": 2});
    let r = c
        .service
        .peer()
        .call_tool(
            CallToolRequestParams::new(name).with_arguments(args.as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(r.structured_content, Some(json!({"v": [[1]]})), "{r:?}");

    // Hints are hints: "read-only" does not lift the destructive gate.
    let name = erase["name"].as_str().unwrap().to_string();
    let r = c
        .service
        .peer()
        .call_tool(CallToolRequestParams::new(name))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true), "{r:?}");
    gw.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reveal_stubs_carry_the_hints_and_tool_describe_the_rest() {
    let (tools, _c, gw) =
        listed("mode = \"reveal\"\nactivation = \"always\"\nsemantic = false\n").await;
    let erase = named(&tools, "erase");
    assert_eq!(erase["annotations"]["destructiveHint"], true, "{erase}");
    let nest = named(&tools, "nest");
    assert_eq!(nest["annotations"]["readOnlyHint"], true, "{nest}");
    assert_eq!(nest["title"], "Nest it", "{nest}");
    gw.shutdown().await;
}
