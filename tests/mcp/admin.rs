//! The operator's surface: `/healthz` without a token; `/readyz` and
//! `/metrics` only with the admin token (not a client's), from a loopback or
//! allowed `Host` and no browser `Origin`; the metrics name what a session
//! did, by profile, kind and server.

use std::sync::Arc;

use serde_json::json;
use toolsearch_mcp::serve::Admin;
use toolsearch_mcp::{Config, Gateway};

use crate::common::{raw, temp_path};
use crate::harness::{Client, Reach, Script};

/// A gateway over `s` (and a server that never starts, when `broken`) with
/// profile `a` (a token file) and an admin surface; the admin port.
async fn with_admin(broken: bool) -> (Arc<Gateway>, u16, tokio_util::sync::CancellationToken) {
    use std::os::unix::fs::PermissionsExt;
    let var = format!("TS_ADMIN_TEST_{}", std::process::id());
    std::env::set_var(&var, "admin-secret");
    let tokens = temp_path("a.tokens");
    std::fs::write(&tokens, "client-token\n").unwrap();
    std::fs::set_permissions(&tokens, std::fs::Permissions::from_mode(0o600)).unwrap();
    let broken = if broken {
        "[[servers]]\nname = \"broken\"\ncommand = \"/nonexistent/toolsearch-test-server\"\n"
    } else {
        ""
    };
    let head = format!(
        "mode = \"tools\"\nactivation = \"always\"\nsemantic = false\n\
         [admin]\nlisten = \"127.0.0.1:0\"\ntoken_env = \"{var}\"\n\
         [[profiles]]\nname = \"a\"\ntoken_file = {tokens:?}\n{broken}"
    );
    let gw = crate::harness::gateway_with(&head, vec![("s", Reach::Stream(Script::new(0)))]).await;
    let cfg = Config::parse(&format!(
        "{head}[[servers]]\nname = \"s\"\ncommand = \"x\"\n"
    ))
    .unwrap();
    let admin = Admin::bind(gw.clone(), &cfg).await.unwrap().unwrap();
    let port: u16 = admin.url().rsplit(':').next().unwrap().parse().unwrap();
    let stop = tokio_util::sync::CancellationToken::new();
    tokio::spawn(admin.run(stop.clone()));
    (gw, port, stop)
}

async fn get(port: u16, path: &'static str, headers: Vec<(&'static str, String)>) -> (u16, String) {
    tokio::task::spawn_blocking(move || {
        let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let (status, _, body) = raw(port, "GET", path, &h, "");
        (status, body)
    })
    .await
    .unwrap()
}

fn admin_token() -> Vec<(&'static str, String)> {
    vec![("Authorization", "Bearer admin-secret".to_string())]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_surface_answers_only_its_operator() {
    let (gw, port, stop) = with_admin(false).await;
    // Alive, to anyone.
    let (status, body) = get(port, "/healthz", vec![]).await;
    assert_eq!((status, body.as_str()), (200, r#"{"status":"alive"}"#));
    // The rest: no token, a client's token, a foreign Origin, a foreign Host.
    assert_eq!(get(port, "/metrics", vec![]).await.0, 401);
    let client = vec![("Authorization", "Bearer client-token".to_string())];
    assert_eq!(get(port, "/metrics", client).await.0, 401);
    let mut page = admin_token();
    page.push(("Origin", "https://evil.example".to_string()));
    assert_eq!(get(port, "/metrics", page).await.0, 403);
    let mut rebound = admin_token();
    rebound.push(("Host", "evil.example".to_string()));
    assert_ne!(get(port, "/readyz", rebound).await.0, 200);
    // The operator.
    let (status, body) = get(port, "/readyz", admin_token()).await;
    assert_eq!((status, body.as_str()), (200, r#"{"ready":true}"#));
    // A session's calls show in the metrics, by profile, kind and server.
    let c = Client::connect(&gw, "op").await;
    for i in 0..3 {
        let r = c.call("s", "work", json!({"tag": format!("t{i}")})).await;
        assert_ne!(r.is_error, Some(true));
    }
    let (status, text) = get(port, "/metrics", admin_token()).await;
    assert_eq!(status, 200);
    for line in [
        "toolsearch_calls_total{profile=\"default\",kind=\"call\",outcome=\"ok\"} 3",
        "toolsearch_downstream_calls_total{profile=\"default\",server=\"s\"} 3",
        "toolsearch_server_up{server=\"s\"} 1",
        "toolsearch_sessions{profile=\"default\"} 1",
        "toolsearch_sessions{profile=\"a\"} 0",
        "toolsearch_call_duration_seconds_count{profile=\"default\",kind=\"call\"} 3",
    ] {
        assert!(text.contains(line), "`{line}` not in:\n{text}");
    }
    assert!(
        text.contains("toolsearch_catalog_tools{profile=\"a\"}"),
        "{text}"
    );
    stop.cancel();
    gw.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readiness_names_what_is_not_ready() {
    let (gw, port, stop) = with_admin(true).await;
    let (status, body) = get(port, "/readyz", admin_token()).await;
    assert_eq!(status, 503, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["ready"], false);
    assert!(
        v["not_ready"].to_string().contains("server `broken`"),
        "{body}"
    );
    stop.cancel();
    gw.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_token_that_opens_a_profile_is_refused_at_start() {
    use std::os::unix::fs::PermissionsExt;
    let var = format!("TS_ADMIN_SAME_{}", std::process::id());
    std::env::set_var(&var, "shared-token");
    let tokens = temp_path("a.tokens");
    std::fs::write(&tokens, "shared-token\n").unwrap();
    std::fs::set_permissions(&tokens, std::fs::Permissions::from_mode(0o600)).unwrap();
    let head = format!(
        "mode = \"tools\"\nactivation = \"always\"\nsemantic = false\n\
         [admin]\nlisten = \"127.0.0.1:0\"\ntoken_env = \"{var}\"\n\
         [[profiles]]\nname = \"a\"\ntoken_file = {tokens:?}\n"
    );
    let gw = crate::harness::gateway_with(&head, vec![]).await;
    let cfg = Config::parse(&head).unwrap();
    let err = Admin::bind(gw.clone(), &cfg)
        .await
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("also a client's token"), "{err}");
    let off = Config::parse("[admin]\nlisten = \"0.0.0.0:9464\"\ntoken_env = \"T\"\n").unwrap_err();
    assert!(off.message.contains("remote = true"), "{}", off.message);
    gw.shutdown().await;
}
