//! Search → describe → call of downstream tools through `tool_search_code` and
//! through `tool_call`; results (`isError`, images, `structuredContent`) arrive
//! intact; the plain aggregator serves every tool.

use serde_json::{json, Value};

use crate::common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn code_mode_searches_describes_and_calls_downstream_tools() {
    let gw = Gw::start(&config("activation = \"always\"")).await;
    assert_eq!(gw.tool_names().await, ["tool_search_code"]);
    let r = gw
        .code(
            r#"
        const hits = await openclaw.tools.search("current time in a timezone");
        const d = await openclaw.tools.describe(hits[0].id);
        const now = await openclaw.tools.call(hits[0].id, {timezone: "Europe/Paris"});
        await openclaw.tools.call("mcp:memory:create_entities", {entities: [{name: "ada", entityType: "person", observations: ["wrote notes"]}]});
        const graph = await openclaw.tools.call("mcp:memory:read_graph", {});
        const sum = await openclaw.tools.call("mcp:everything:get-sum", {a: 2, b: 3});
        let err; try { await openclaw.tools.call("mcp:time:get_current_time", {timezone: "Not/AZone"}); } catch (e) { err = {code: e.code, content: e.content}; }
        return {first: hits[0].id, described: d.id, ts: d.typescript.length > 0, tz: now.timezone, graph, sum, err};
    "#,
        )
        .await;
    assert_eq!(r["ok"], json!(true), "{r}");
    let v = &r["value"];
    assert_eq!(v["first"], json!("mcp:time:get_current_time"), "{v}");
    assert_eq!(v["described"], v["first"]);
    assert_eq!(v["tz"], json!("Europe/Paris"));
    assert_eq!(v["graph"]["entities"][0]["name"], json!("ada"), "{v}");
    // A single text item resolves to its text (parsed as JSON when it is JSON).
    assert!(v["sum"].to_string().contains('5'), "{v}");
    // isError rejects with TOOL_ERROR carrying the result's content.
    assert_eq!(v["err"]["code"], json!("TOOL_ERROR"), "{v}");
    assert_eq!(v["err"]["content"][0]["type"], json!("text"), "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn tools_mode_calls_through_tool_call_and_results_arrive_intact() {
    let gw = Gw::start(&config("mode = \"tools\"\nactivation = \"always\"")).await;
    let mut names = gw.tool_names().await;
    names.sort();
    assert_eq!(names, ["tool_call", "tool_describe", "tool_search"]);
    let found = text_json(&gw.call("tool_search", json!({"query": "tiny image"})).await);
    let ids: Vec<&str> = found["hits"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h["id"].as_str())
        .collect();
    assert!(ids.contains(&"mcp:everything:get-tiny-image"), "{found}");
    let described = text_json(
        &gw.call(
            "tool_describe",
            json!({"ids": ["mcp:everything:get-structured-content"]}),
        )
        .await,
    );
    assert!(
        described["tools"][0]["output_schema"].is_object(),
        "{described}"
    );

    // An image result comes through as the server sent it.
    let image = gw
        .call(
            "tool_call",
            json!({"id": "mcp:everything:get-tiny-image", "arguments": {}}),
        )
        .await;
    let image = serde_json::to_value(&image).unwrap();
    let kinds: Vec<&str> = image["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["type"].as_str())
        .collect();
    assert!(kinds.contains(&"image"), "{image}");
    let img = image["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "image")
        .unwrap();
    assert_eq!(img["mimeType"], json!("image/png"));
    assert!(img["data"].as_str().unwrap().len() > 100);
    assert_ne!(image["isError"], json!(true));

    // structuredContent too.
    let s = gw
        .call("tool_call", json!({"id": "mcp:everything:get-structured-content", "arguments": {"location": "New York"}}))
        .await;
    let s = serde_json::to_value(&s).unwrap();
    assert!(s["structuredContent"].is_object(), "{s}");

    // And isError, with its content.
    let e = gw
        .call(
            "tool_call",
            json!({"id": "mcp:time:get_current_time", "arguments": {"timezone": "Not/AZone"}}),
        )
        .await;
    let e = serde_json::to_value(&e).unwrap();
    assert_eq!(e["isError"], json!(true), "{e}");
    assert!(
        e["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("timezone"),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn activation_never_is_a_plain_aggregator() {
    let gw = Gw::start(&config(
        "activation = \"never\"\nnever_defer = [\"mcp:time:get_current_time\"]",
    ))
    .await;
    let names = gw.tool_names().await;
    assert!(names.len() > 15, "{names:?}");
    for n in [
        "echo",
        "get-tiny-image",
        "read_graph",
        "get_current_time",
        "convert_time",
    ] {
        assert!(names.iter().any(|x| x == n), "{n} missing from {names:?}");
    }
    let r = gw.call("echo", json!({"message": "hello"})).await;
    let r = serde_json::to_value(&r).unwrap();
    assert_eq!(r["content"][0]["text"], json!("Echo: hello"), "{r}");
    // A stdio server inherits only PATH, HOME and the like: not the gateway's other variables.
    let env = gw.call("get-env", json!({})).await;
    let env: Value = text_json(&env);
    assert!(env.get("PATH").is_some(), "{env}");
    assert!(
        env.get("CARGO_MANIFEST_DIR").is_none() && env.get("RUST_TEST_THREADS").is_none(),
        "{env}"
    );
}

/// A client that answers elicitation requests with `confirm`.
struct Asks {
    confirm: bool,
}

impl rmcp::ClientHandler for Asks {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "asks", "version": "0"}
        }))
        .unwrap()
    }

    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _cx: rmcp::service::RequestContext<rmcp::service::RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        let asked = serde_json::to_value(&request).unwrap();
        assert!(
            asked["message"]
                .as_str()
                .unwrap()
                .contains("delete_entities"),
            "{asked}"
        );
        Ok(
            rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept)
                .with_content(json!({"confirm": self.confirm})),
        )
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn destructive_tools_are_denied_or_asked_through_elicitation() {
    use rmcp::ServiceExt;
    let delete =
        json!({"id": "mcp:memory:delete_entities", "arguments": {"entityNames": ["nobody"]}});
    // deny (the default): refused before the server sees it.
    let gw = Gw::start(&config("mode = \"tools\"\nactivation = \"always\"")).await;
    let r = text_json(&gw.call("tool_call", delete.clone()).await);
    assert_eq!(r["error"]["code"], json!("APPROVAL_DENIED"), "{r}");
    drop(gw);
    // elicit: the user is asked; yes runs it, no refuses it; a client that cannot
    // be asked is refused.
    let cfg = config("mode = \"tools\"\nactivation = \"always\"\ndestructive = \"elicit\"");
    for (confirm, want) in [(true, None), (false, Some("APPROVAL_DENIED"))] {
        let mut cmd = tokio::process::Command::new(binary());
        cmd.args(["gateway", "--config"]).arg(&cfg);
        let t = rmcp::transport::TokioChildProcess::new(cmd).unwrap();
        let client = Asks { confirm }.serve(t).await.unwrap();
        let args = delete.as_object().unwrap().clone();
        let out = client
            .peer()
            .call_tool(rmcp::model::CallToolRequestParams::new("tool_call").with_arguments(args))
            .await
            .unwrap();
        let v = serde_json::to_value(&out).unwrap();
        match want {
            None => assert_ne!(v["isError"], json!(true), "{v}"),
            Some(code) => assert_eq!(text_json(&out)["error"]["code"], json!(code), "{v}"),
        }
    }
    let gw = Gw::start(&cfg).await;
    let r = text_json(&gw.call("tool_call", delete).await);
    assert_eq!(r["error"]["code"], json!("APPROVAL_DENIED"), "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("elicitation"),
        "{r}"
    );
}

/// A client that answers sampling with a canned message and declines elicitation.
struct Samples;

#[allow(deprecated)]
impl rmcp::ClientHandler for Samples {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"sampling": {}, "elicitation": {"form": {}}},
            "clientInfo": {"name": "samples", "version": "0"}
        }))
        .unwrap()
    }

    async fn create_message(
        &self,
        params: rmcp::model::CreateMessageRequestParams,
        _cx: rmcp::service::RequestContext<rmcp::service::RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, rmcp::ErrorData> {
        let asked = serde_json::to_value(&params).unwrap();
        let prompt = asked["messages"][0]["content"]["text"]
            .as_str()
            .unwrap_or("");
        Ok(serde_json::from_value(json!({
            "role": "assistant",
            "content": {"type": "text", "text": format!("sampled<{prompt}>")},
            "model": "canned-model",
            "stopReason": "endTurn"
        }))
        .unwrap())
    }

    async fn create_elicitation(
        &self,
        _request: rmcp::model::ElicitRequestParams,
        _cx: rmcp::service::RequestContext<rmcp::service::RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        Ok(rmcp::model::ElicitResult::new(
            rmcp::model::ElicitationAction::Decline,
        ))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn sampling_and_elicitation_during_a_call_reach_the_client_that_made_it() {
    use rmcp::ServiceExt;
    let cfg = config("activation = \"always\"");
    let mut cmd = tokio::process::Command::new(binary());
    cmd.args(["gateway", "--config"]).arg(&cfg);
    let t = rmcp::transport::TokioChildProcess::new(cmd).unwrap();
    let client = Samples.serve(t).await.unwrap();
    let code = "const s = await openclaw.tools.call('mcp:everything:trigger-sampling-request', {prompt: 'p-42'});
                const e = await openclaw.tools.call('mcp:everything:trigger-elicitation-request', {});
                return {s, e};";
    let args = json!({"code": code}).as_object().unwrap().clone();
    let out = client
        .peer()
        .call_tool(rmcp::model::CallToolRequestParams::new("tool_search_code").with_arguments(args))
        .await
        .unwrap();
    let v = crate::harness::code_view(&out);
    let shown = v["value"].to_string();
    assert!(shown.contains("sampled<") && shown.contains("p-42"), "{v}");
    assert!(shown.contains("canned-model"), "{v}");
    assert!(shown.to_lowercase().contains("declined"), "{v}");
    let _ = client.cancel().await;
    // A client without the capabilities: the server's request is refused, and the
    // call fails with that reason instead of hanging.
    let gw = Gw::start(&cfg).await;
    let v = gw
        .code(
            "try { await openclaw.tools.call('mcp:everything:trigger-sampling-request', {prompt: 'x'}); return 'answered'; }
             catch (e) { return e.message; }",
        )
        .await;
    assert!(
        v["value"]
            .as_str()
            .unwrap_or("")
            .contains("does not support"),
        "{v}"
    );
}
