//! A person's approval pauses the snippet (issue 30, item 5): with
//! `destructive = "elicit"`, the time a client's user takes to answer does not
//! count against the snippet's `timeout_ms`, a snippet that keeps running while it
//! waits is still stopped at its deadline, and an approval has its own limit
//! (`limits.approval_timeout_ms`), named in the message when it runs out.

use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use serde_json::{json, Value};

use crate::common::*;

/// A client whose user takes `delay` to approve.
struct SlowUser {
    delay: Duration,
}

impl rmcp::ClientHandler for SlowUser {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "slow-user", "version": "0"}
        }))
        .unwrap()
    }

    async fn create_elicitation(
        &self,
        _request: rmcp::model::ElicitRequestParams,
        _cx: rmcp::service::RequestContext<rmcp::service::RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        tokio::time::sleep(self.delay).await;
        Ok(
            rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept)
                .with_content(json!({"confirm": true})),
        )
    }
}

/// Runs `code` through a gateway on `cfg` whose user answers after `delay`: the
/// `ExecResult` and how long the call took.
async fn run(cfg: &std::path::Path, delay: Duration, code: &str) -> (Value, Duration) {
    let mut cmd = tokio::process::Command::new(binary());
    cmd.args(["gateway", "--config"]).arg(cfg);
    let t = rmcp::transport::TokioChildProcess::new(cmd).unwrap();
    let client = SlowUser { delay }.serve(t).await.unwrap();
    let args = json!({"code": code}).as_object().unwrap().clone();
    let t0 = Instant::now();
    let out = client
        .peer()
        .call_tool(rmcp::model::CallToolRequestParams::new("tool_search_code").with_arguments(args))
        .await
        .unwrap();
    let took = t0.elapsed();
    (crate::harness::code_view(&out), took)
}

const DELETE: &str =
    r#"openclaw.tools.call("mcp:memory:delete_entities", {entityNames: ["nobody"]})"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn an_approval_pauses_the_snippet_and_has_its_own_limit() {
    let cfg = config(
        "activation = \"always\"\ndestructive = \"elicit\"\n[limits]\ntimeout_ms = 3000\napproval_timeout_ms = 20000",
    );
    // A 4 s approval inside a 3 s snippet: the call runs, the snippet finishes.
    let (r, took) = run(
        &cfg,
        Duration::from_secs(4),
        &format!("await {DELETE}; return 'deleted';"),
    )
    .await;
    assert_eq!(r["ok"], json!(true), "{r}");
    assert_eq!(r["value"], json!("deleted"), "{r}");
    assert!(took >= Duration::from_secs(4), "took {took:?}");

    // A snippet that spins while its call waits for approval: stopped at its
    // deadline, not after the 8 s the user takes.
    let (r, took) = run(
        &cfg,
        Duration::from_secs(8),
        &format!("const p = {DELETE}; for (;;) {{}}"),
    )
    .await;
    assert_eq!(r["error"]["kind"], json!("timeout"), "{r}");
    assert!(
        took < Duration::from_secs(8),
        "took {took:?}: the spin was not stopped"
    );

    // An approval past its own limit (1 s here): refused, and the message names it.
    let cfg = config(
        "activation = \"always\"\ndestructive = \"elicit\"\n[limits]\ntimeout_ms = 10000\napproval_timeout_ms = 1000",
    );
    let (r, _) = run(
        &cfg,
        Duration::from_secs(3),
        &format!("try {{ await {DELETE}; return 'ran'; }} catch (e) {{ return {{code: e.code, message: e.message}}; }}"),
    )
    .await;
    assert_eq!(r["ok"], json!(true), "{r}");
    assert_eq!(r["value"]["code"], json!("APPROVAL_DENIED"), "{r}");
    let message = r["value"]["message"].as_str().unwrap();
    assert!(
        message.contains("approval") && message.contains("within 1 s"),
        "{message}"
    );
}
