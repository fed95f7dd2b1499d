//! Client profiles: a tool outside a profile does not exist for it. The same
//! scripted session run as profile `a` of a gateway that also holds profile
//! `b`'s servers (one of them down, one changing its tools mid-session) and
//! run against a gateway holding only `a`'s server gives byte-identical
//! answers, session ids aside: lists, searches (free text, exact names,
//! `select:`, typos: ranking statistics included), describe, calls by id and
//! by name, did-you-mean, and no `list_changed` from `b`'s servers.

use std::sync::Arc;

use rmcp::model::CallToolRequestParams;
use serde_json::{json, Value};
use toolsearch_mcp::Gateway;

use crate::harness::{gateway_with, until, Client, Reach, Script};

fn tool(name: &str, description: &str) -> Value {
    json!({"name": name, "description": description, "inputSchema": {"type": "object", "properties": {"repo": {"type": "string"}}}})
}

/// `a`'s server: a code host.
fn code_host() -> Arc<Script> {
    Script::with_tools(vec![
        tool("create_issue", "Create an issue in a repository"),
        tool("search_issues", "Search issues of a repository by text"),
        tool("get_file", "Read a file of a repository"),
        tool("list_branches", "List the branches of a repository"),
    ])
}

/// `b`'s server: names and words shared with `a`'s (they would move ranking
/// statistics, ambiguity and did-you-mean if they leaked), and its own.
fn tracker() -> Arc<Script> {
    Script::with_tools(vec![
        tool(
            "create_issue",
            "Create an issue in a project of the tracker",
        ),
        tool(
            "search_issues",
            "Search issues of a project, issue search by text",
        ),
        tool("delete_project", "Delete a project and every issue in it"),
        tool("get_files", "Read files attached to an issue"),
        tool(
            "issue_file_repository",
            "Issue, file and repository: every word a search uses",
        ),
    ])
}

/// A gateway of profiles `a` (the code host) and `b` (the tracker, a server
/// that is down, and one whose tools change), in `mode`.
async fn shared(mode: &str, changing: Arc<Script>) -> Arc<Gateway> {
    let head = format!(
        "mode = \"{mode}\"\nactivation = \"always\"\nsemantic = false\n\
         [[profiles]]\nname = \"a\"\nservers = [\"code\"]\n\
         [[profiles]]\nname = \"b\"\nservers = [\"tracker\", \"broken\", \"ops\"]\n\
         [[profiles]]\nname = \"c\"\nallow = [\"mcp:code:*\"]\n\
         [[servers]]\nname = \"broken\"\ncommand = \"/nonexistent/toolsearch-test-server\"\n"
    );
    gateway_with(
        &head,
        vec![
            ("code", Reach::Stream(code_host())),
            ("tracker", Reach::Stream(tracker())),
            ("ops", Reach::Stream(changing)),
        ],
    )
    .await
}

/// A gateway of the code host alone, in `mode`.
async fn alone(mode: &str) -> Arc<Gateway> {
    let head = format!("mode = \"{mode}\"\nactivation = \"always\"\nsemantic = false\n");
    gateway_with(&head, vec![("code", Reach::Stream(code_host()))]).await
}

async fn call(c: &Client, name: &str, args: Value) -> Value {
    let r = c
        .service
        .peer()
        .call_tool(
            CallToolRequestParams::new(name.to_string())
                .with_arguments(args.as_object().cloned().unwrap_or_default()),
        )
        .await
        .unwrap();
    serde_json::to_value(&r).unwrap()
}

/// Every answer of the scripted session, as text with session ids masked.
async fn session(c: &Client, code_mode: bool) -> Vec<String> {
    let mut answers = Vec::new();
    let list = c.service.peer().list_all_tools().await.unwrap();
    answers.push(serde_json::to_string(&list).unwrap());
    let info = c.service.peer().peer_info();
    answers.push(serde_json::to_string(&info).unwrap());
    if code_mode {
        for code in [
            "return await openclaw.tools.search('create an issue')",
            "return await openclaw.tools.search('create_issue')",
            "return await openclaw.tools.search('select:mcp:code:get_file,mcp:tracker:delete_project')",
            "return await openclaw.tools.search('delete a project')",
            "return await openclaw.tools.describe('mcp:tracker:delete_project')",
            "return await openclaw.tools.call('mcp:code:get_file', {repo: 'x'})",
            "return await openclaw.tools.call('mcp:tracker:create_issue', {})",
            "return await openclaw.tools.call('delete_project', {})",
        ] {
            answers.push(call(c, "tool_search_code", json!({"code": code})).await.to_string());
        }
    } else {
        for query in [
            "create an issue",
            "create_issue",
            "+issue repository",
            "select:mcp:code:get_file,mcp:tracker:delete_project",
            "delete a project",
            "creat isue",
            "files",
        ] {
            answers.push(
                call(c, "tool_search", json!({"query": query}))
                    .await
                    .to_string(),
            );
        }
        for id in [
            "mcp:code:get_file",
            "mcp:tracker:delete_project",
            "get_files",
        ] {
            answers.push(
                call(c, "tool_describe", json!({"id": id}))
                    .await
                    .to_string(),
            );
        }
        for id in ["mcp:code:get_file", "mcp:tracker:create_issue"] {
            let args = json!({"id": id, "arguments": {"repo": "x"}});
            answers.push(call(c, "tool_call", args).await.to_string());
        }
    }
    // Calls by provider name: a tool of the profile's, one of the other's.
    answers.push(call(c, "get_file", json!({"repo": "x"})).await.to_string());
    answers.push(call(c, "delete_project", json!({})).await.to_string());
    answers.push(
        call(c, "create_issue", json!({"repo": "x"}))
            .await
            .to_string(),
    );
    answers.iter().map(|a| mask(a)).collect()
}

/// `mcp-<n>` session ids (the only thing two gateways number differently).
fn mask(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("mcp-") {
        out.push_str(&rest[..i + 4]);
        rest = &rest[i + 4..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            out.push('N');
        }
        rest = &rest[digits..];
    }
    out.push_str(rest);
    out
}

async fn differential(mode: &str) {
    let changing = Script::new(0);
    let both = shared(mode, changing.clone()).await;
    let only = alone(mode).await;
    let a = Client::connect_as(&both, "a", "a").await;
    let lone = Client::connect(&only, "lone").await;
    let b = Client::connect_as(&both, "b", "b").await;
    // c is narrowed by a glob only (no server list): the same view as a.
    let c = Client::connect_as(&both, "c", "c").await;
    let code = mode == "code";
    let expected = session(&lone, code).await;
    for (who, client) in [("a", &a), ("c", &c)] {
        let got = session(client, code).await;
        for (i, (x, y)) in got.iter().zip(&expected).enumerate() {
            assert_eq!(
                x, y,
                "answer {i} differs between profile {who} and an a-only gateway"
            );
        }
        assert_eq!(got.len(), expected.len());
    }
    // The other profile's server changes its tools: its clients are told,
    // a's are not, and a's answers stay those of the a-only gateway.
    changing.add_tool();
    assert!(
        until(|| b.seen().list_changed > 0).await,
        "b hears its own server's change"
    );
    let again = session(&a, code).await;
    assert_eq!(again, expected, "a's answers after b's server changed");
    assert_eq!(a.seen().list_changed, 0, "a heard a change of b's server");
    assert_eq!(
        session(&c, code).await,
        expected,
        "c's answers after b's server changed"
    );
    assert_eq!(
        c.seen().list_changed,
        0,
        "c heard a change of a server it sees no tool of"
    );
    // The comparison can fail: the default profile of the same gateway (every
    // server) answers the same session otherwise.
    let everyone = Client::connect(&both, "everyone").await;
    let wide = session(&everyone, code).await;
    let differ = wide.iter().zip(&expected).filter(|(x, y)| x != y).count();
    assert!(
        differ >= 5,
        "only {differ} answers of the default profile differ"
    );
    both.shutdown().await;
    only.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn profile_a_answers_as_a_gateway_holding_only_its_servers() {
    differential("tools").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the toolsearch-sandbox-worker binary; `cargo xtask test` runs it"]
async fn in_code_mode_profile_a_answers_as_a_gateway_holding_only_its_servers() {
    differential("code").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_sees_and_calls_only_its_tools() {
    let both = shared("tools", Script::new(0)).await;
    let a = Client::connect_as(&both, "a", "a").await;
    let b = Client::connect_as(&both, "b", "b").await;
    let everyone = Client::connect(&both, "d").await;
    let ids = |v: &Value| -> Vec<String> {
        let text = v["content"][0]["text"].as_str().unwrap_or("");
        let v: Value = serde_json::from_str(text).unwrap_or_default();
        v["hits"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|h| h["id"].as_str().map(String::from))
            .collect()
    };
    let q = json!({"query": "issue", "limit": 20});
    let (ia, ib, id) = (
        ids(&call(&a, "tool_search", q.clone()).await),
        ids(&call(&b, "tool_search", q.clone()).await),
        ids(&call(&everyone, "tool_search", q).await),
    );
    assert!(
        !ia.is_empty() && ia.iter().all(|i| i.starts_with("mcp:code:")),
        "{ia:?}"
    );
    assert!(
        !ib.is_empty() && ib.iter().all(|i| i.starts_with("mcp:tracker:")),
        "{ib:?}"
    );
    // The default profile (stdio, in-process) sees every server.
    assert!(
        id.iter().any(|i| i.starts_with("mcp:code:"))
            && id.iter().any(|i| i.starts_with("mcp:tracker:")),
        "{id:?}"
    );
    // A call of the other profile's tool is an unknown tool, by id or name.
    let by_id = call(
        &a,
        "tool_call",
        json!({"id": "mcp:tracker:delete_project", "arguments": {}}),
    )
    .await;
    assert!(by_id.to_string().contains("UNKNOWN_TOOL"), "{by_id}");
    let ok = call(
        &b,
        "tool_call",
        json!({"id": "mcp:tracker:delete_project", "arguments": {}}),
    )
    .await;
    assert!(!ok.to_string().contains("UNKNOWN_TOOL"), "{ok}");
    assert_eq!(both.open_sessions_of("a"), 1);
    drop(a);
    assert!(until(|| both.open_sessions_of("a") == 0).await);
    both.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clients_token_never_reaches_a_server_behind_the_gateway() {
    use std::os::unix::fs::PermissionsExt;
    let script = Script::new(0);
    let upstream = crate::harness::script::http(script.clone()).await;
    let tokens = crate::common::temp_path("a.tokens");
    std::fs::write(&tokens, "client-secret-token\n").unwrap();
    std::fs::set_permissions(&tokens, std::fs::Permissions::from_mode(0o600)).unwrap();
    let cfg = toolsearch_mcp::Config::parse(&format!(
        "mode = \"tools\"\nactivation = \"always\"\nsemantic = false\n\
         [[profiles]]\nname = \"a\"\ntoken_file = {tokens:?}\n\
         [[servers]]\nname = \"s\"\nurl = \"{upstream}\"\n\
         headers = {{ Authorization = \"Bearer upstream-own-credential\" }}\n"
    ))
    .unwrap();
    toolsearch_tests::isolate_state();
    let gw = Gateway::start(&cfg, None).await.unwrap();
    gw.settle(cfg.startup_timeout() + std::time::Duration::from_secs(1))
        .await;
    let (url, stop) = crate::harness::serve_http(gw.clone(), &cfg).await;
    // Without the token: refused (credentials are configured).
    let anonymous = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status().as_u16(), 401);
    let c = crate::harness::http_client_with(&url, "a".into(), Some("client-secret-token")).await;
    let args = json!({"id": "mcp:s:work", "arguments": {"tag": "t"}});
    let r = c
        .peer()
        .call_tool(
            CallToolRequestParams::new("tool_call")
                .with_arguments(args.as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");
    let seen = script.authorization.lock().unwrap().clone();
    assert!(seen.len() >= 3, "{seen:?}");
    // Every request carried the server's own credential, and only it.
    assert!(
        seen.iter()
            .all(|a| a.as_deref() == Some("Bearer upstream-own-credential")),
        "the server got another credential than its own: {seen:?}"
    );
    stop.cancel();
    gw.shutdown().await;
}
