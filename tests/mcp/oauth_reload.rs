//! A reload that changes who may use a login (`[servers.oauth] profiles`)
//! takes effect for the sessions already open (issue 63): the gateway, the
//! protected server and the authorization server of `oauth_client.rs`.

use std::time::Duration;

use serde_json::json;

use crate::common::*;
use crate::oauth_client::{login, Browser, Session, World, ADD};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 with mcp and pyjwt (`cargo xtask fixtures`); `cargo xtask test` runs it"]
async fn a_reload_gives_a_profile_the_use_of_a_login_and_takes_it_back_from_open_sessions() {
    let w = World::new("");
    let write = |profiles: &str| w.write_two_profiles(&format!("profiles = {profiles}"));
    write("[\"ops\"]");
    let (ok, said) = login(&w, &["--no-browser"], Browser::Follow, &[]);
    assert!(ok, "{said}");
    let (mut child, lines, ops, dev) = w.two_profiles_gateway().await;
    let log = kept_lines(lines);
    // The answer of `code` for `who`, as text, once `ok` holds of it (or the
    // last one after 15 s).
    async fn until(who: &Session, code: &str, ok: impl Fn(&str) -> bool) -> String {
        let args = json!({"code": code}).as_object().cloned().unwrap();
        let mut text = String::new();
        for _ in 0..60 {
            let call = rmcp::model::CallToolRequestParams::new("tool_search_code")
                .with_arguments(args.clone());
            text = serde_json::to_string(&who.peer().call_tool(call).await.unwrap()).unwrap();
            if ok(&text) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        text
    }
    let log = &log;
    let reloads = |n: usize| async move {
        for _ in 0..120 {
            if log.holding("configuration reloaded") >= n {
                return;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        panic!("the gateway did not reload");
    };
    let answer = until(&ops, ADD, |t| t.contains("42")).await;
    assert!(answer.contains("42"), "ops calls with the login: {answer}");
    let answer = until(&dev, ADD, |_| true).await;
    assert!(!answer.contains("42"), "dev may not: {answer}");

    // Named by a new configuration: dev's open session calls as the login.
    write("[\"ops\", \"dev\"]");
    reloads(1).await;
    let answer = until(&dev, ADD, |t| t.contains("42")).await;
    assert!(answer.contains("42"), "dev, named: {answer}");

    // Named no more: the same open session is refused at once, and told why.
    write("[\"ops\"]");
    reloads(2).await;
    let answer = until(&dev, ADD, |t| !t.contains("42")).await;
    assert!(!answer.contains("42"), "dev, no longer named: {answer}");
    let search = until(
        &dev,
        "return await openclaw.tools.search('add two integers')",
        |t| t.contains("needs a login for profile `dev`"),
    )
    .await;
    assert!(
        search.contains("needs a login for profile `dev`"),
        "{search}"
    );
    let answer = until(&ops, ADD, |t| t.contains("42")).await;
    assert!(answer.contains("42"), "ops keeps it: {answer}");
    let _ = child.kill();
    let _ = child.wait();
}
