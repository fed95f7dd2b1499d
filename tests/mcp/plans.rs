//! Work per request: a plan (which tools a scope sees, which are deferred,
//! their provider names) is made once per catalog generation and policy and
//! shared by the conversations that see the same tools, so a reveal-mode
//! search through the gateway, with the re-list it causes, builds at most one
//! plan and computes every tool's provider names at most once. On the
//! in-process harness.

use rmcp::model::CallToolRequestParams;
use serde_json::{json, Value};

use crate::common::eventually;
use crate::harness::{gateway_with, Client, Reach, Script};

fn tools() -> Vec<Value> {
    (0..24)
        .map(|i| {
            json!({"name": format!("tool_{i}"), "description": format!("does task number {i}"),
                "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}})
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reveal_mode_search_and_its_re_list_build_at_most_one_plan_and_name_the_tools_once() {
    let gw = gateway_with(
        "mode = \"reveal\"\nactivation = \"always\"\nsemantic = false\n[reveal]\nhidden = true\n",
        vec![("s", Reach::Stream(Script::with_tools(tools())))],
    )
    .await;
    let counts = || gw.toolsearch().plan_counts().get();
    // The gateway's own follower builds its plan once at start.
    assert!(eventually(30, || counts().0 >= 1).await, "no plan at start");
    let mut before = counts();
    loop {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        if counts() == before {
            break;
        }
        before = counts();
    }
    let c = Client::connect(&gw, "c").await;
    let mut call = CallToolRequestParams::new("tool_search");
    call.arguments = json!({"query": "tool_7"}).as_object().cloned();
    let found = c.service.peer().call_tool(call).await.unwrap();
    assert_ne!(found.is_error, Some(true), "{found:?}");
    // The hidden form appends the revealed tool: the client lists again.
    let listed = c.service.peer().list_all_tools().await.unwrap();
    assert!(
        listed.iter().any(|t| t.name.ends_with("tool_7")),
        "{:?}",
        listed
            .iter()
            .map(|t| t.name.to_string())
            .collect::<Vec<_>>()
    );
    // The gateway's own plan of this generation serves the new session too.
    assert_eq!(
        counts(),
        before,
        "plans built and provider names made for initialize, one search and the re-list"
    );
    // A new catalog generation: its first search builds the plan, and the
    // re-list it causes reads the same one.
    let ts = gw.toolsearch();
    ts.set_catalog(ts.host().catalog());
    let mut again = CallToolRequestParams::new("tool_search");
    again.arguments = json!({"query": "tool_9"}).as_object().cloned();
    let found = c.service.peer().call_tool(again).await.unwrap();
    assert_ne!(found.is_error, Some(true), "{found:?}");
    let listed = c.service.peer().list_all_tools().await.unwrap();
    assert!(listed.iter().any(|t| t.name.ends_with("tool_9")));
    let after = counts();
    assert_eq!((after.0 - before.0, after.1 - before.1), (1, 1));
    gw.shutdown().await;
}
