//! The operator's surface: `/healthz` without a token; `/readyz` and
//! `/metrics` only with the admin token (not a client's), from a loopback or
//! allowed `Host` and no browser `Origin`; the metrics name what a session
//! did, by profile, kind and server.

use std::sync::Arc;

use serde_json::{json, Value};
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
    serve_admin(&head).await.unwrap()
}

/// A gateway whose file starts with `head` (an `[admin]` section among it)
/// over one scripted server `s`, and its admin surface serving: the
/// gateway, the surface's port, what stops it; or why the surface did not
/// start.
pub(crate) async fn serve_admin(
    head: &str,
) -> anyhow::Result<(Arc<Gateway>, u16, tokio_util::sync::CancellationToken)> {
    let gw = crate::harness::gateway_with(head, vec![("s", Reach::Stream(Script::new(0)))]).await;
    let cfg = Config::parse(&format!(
        "{head}[[servers]]\nname = \"s\"\ncommand = \"x\"\n"
    ))
    .unwrap();
    let admin = Admin::bind(gw.clone(), &cfg)
        .await?
        .expect("an [admin] section");
    let port: u16 = admin.url().rsplit(':').next().unwrap().parse().unwrap();
    let stop = tokio_util::sync::CancellationToken::new();
    tokio::spawn(admin.run(stop.clone()));
    Ok((gw, port, stop))
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
    let ready: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        ready,
        json!({
            "ready": true,
            "config": gw.config_digest(),
            "store": {"state": "local", "replicas": 1},
            "protocols": {"s": "2025-11-25"},
        })
    );
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

/// The page's JSON API (issue 65): each server's state, a down one with its
/// reason, and the profiles with their tools; only for the admin token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_api_names_each_server_and_profile() {
    let (gw, port, stop) = with_admin(true).await;
    assert_eq!(get(port, "/api/servers", vec![]).await.0, 401);
    let mut page = admin_token();
    page.push(("Origin", "https://evil.example".to_string()));
    assert_eq!(get(port, "/api/servers", page).await.0, 403);
    let (status, body) = get(port, "/api/servers", admin_token()).await;
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    let servers = v["servers"].as_array().unwrap();
    let of = |name: &str| servers.iter().find(|s| s["name"] == name).unwrap().clone();
    let (s, broken) = (of("s"), of("broken"));
    assert_eq!(
        (&s["state"], &s["up"], &s["error"]),
        (&json!("running"), &json!(true), &Value::Null),
        "{s}"
    );
    assert!(s["tools"].as_u64().unwrap() > 0, "{s}");
    assert_eq!(s["protocol"], "2025-11-25");
    assert_eq!(broken["state"], "down", "{broken}");
    assert!(
        broken["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{broken}"
    );
    let (status, body) = get(port, "/api/profiles", admin_token()).await;
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    let names: Vec<&str> = v["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"a") && names.contains(&"default"), "{body}");
    // The catalog, a page at a time, of one server.
    let (status, body) = get(port, "/api/catalog?server=s&limit=1", admin_token()).await;
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    let total = v["total"].as_u64().unwrap();
    assert!(total >= 1, "{body}");
    assert_eq!(v["tools"].as_array().unwrap().len(), 1, "{body}");
    assert_eq!(v["tools"][0]["server"], "s", "{body}");
    let (_, body) = get(port, "/api/catalog?server=s&offset=1000", admin_token()).await;
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (v["total"].as_u64(), v["tools"].as_array().map(Vec::len)),
        (Some(total), Some(0))
    );
    for bad in [
        "/api/catalog?limit=0",
        "/api/catalog?limit=201",
        "/api/catalog?offset=x",
        "/api/catalog?profile=zz",
    ] {
        let (status, body) = get(port, bad, admin_token()).await;
        assert_eq!(status, 400, "{bad}: {body}");
        assert!(body.contains("error"), "{bad}: {body}");
    }
    let (status, body) = get(port, "/api/nothing", admin_token()).await;
    assert_eq!(status, 404);
    assert!(body.contains("/api/servers"), "{body}");
    stop.cancel();
    gw.shutdown().await;
}

async fn post(
    port: u16,
    path: &'static str,
    headers: Vec<(&'static str, String)>,
    body: String,
) -> (u16, String) {
    tokio::task::spawn_blocking(move || {
        let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let (status, _, body) = raw(port, "POST", path, &h, &body);
        (status, body)
    })
    .await
    .unwrap()
}

/// The rest of the page's API: its own origin is let in and another site's
/// kept out; a search explained rule by rule; a tool as the model meets it;
/// the sessions open; the shell without a token, under its headers; the
/// trial's refusals (real calls off, a wrong body); every answer guarded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_api_explains_describes_lists_sessions_and_guards_its_actions() {
    let (gw, port, stop) = with_admin(false).await;
    let own = format!("http://127.0.0.1:{port}");
    let mut same = admin_token();
    same.push(("Origin", own.clone()));
    assert_eq!(get(port, "/api/profiles", same).await.0, 200);
    let mut near = admin_token();
    near.push((
        "Origin",
        format!("http://127.0.0.1:{}", port.wrapping_add(1)),
    ));
    assert_eq!(get(port, "/api/profiles", near).await.0, 403);
    for site in ["cross-site", "same-site"] {
        let mut cross = admin_token();
        cross.push(("Sec-Fetch-Site", site.to_string()));
        assert_eq!(get(port, "/api/profiles", cross).await.0, 403, "{site}");
    }
    let mut null = admin_token();
    null.push(("Origin", "null".to_string()));
    assert_eq!(get(port, "/api/profiles", null).await.0, 403);
    // Through an SSH tunnel the page's origin is the tunnel's, and so is its
    // Host: the surface's own.
    let tunnel = [
        ("Authorization", "Bearer admin-secret".to_string()),
        ("Host", "localhost:8080".to_string()),
        ("Origin", "http://localhost:8080".to_string()),
    ];
    let (status, body) = tokio::task::spawn_blocking(move || {
        let h: Vec<(&str, &str)> = tunnel.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        use std::io::{Read, Write};
        let mut req = "GET /api/profiles HTTP/1.1\r\nConnection: close\r\n".to_string();
        for (k, v) in h {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        s.write_all(req.as_bytes()).unwrap();
        let mut all = String::new();
        let _ = s.read_to_string(&mut all);
        (
            all.split_whitespace()
                .nth(1)
                .unwrap_or("0")
                .parse::<u16>()
                .unwrap_or(0),
            all,
        )
    })
    .await
    .unwrap();
    assert_eq!(status, 200, "{body}");
    // A body that never comes is given up, with its reason.
    let (status, body) = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(
            s,
            "POST /api/try HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer admin-secret\r\n\
             Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"code\""
        )
        .unwrap();
        let mut all = String::new();
        let _ = s.read_to_string(&mut all);
        (all.split_whitespace().nth(1).unwrap_or("0").parse::<u16>().unwrap_or(0), all)
    })
    .await
    .unwrap();
    assert_eq!(status, 408, "{body}");
    let (status, _) = get(port, "/api/try", admin_token()).await;
    assert_eq!(status, 405);
    // The search, explained.
    let (status, body) = get(port, "/api/search?q=work", admin_token()).await;
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["ranker"], "lexical", "{body}");
    let hit = &v["result"]["hits"][0];
    let id = hit["id"].as_str().unwrap().to_string();
    let parts = hit["explain"].as_array().unwrap();
    assert!(!parts.is_empty(), "{body}");
    let sum: f64 = parts.iter().map(|p| p["score"].as_f64().unwrap()).sum();
    assert!(
        (sum - hit["score"].as_f64().unwrap()).abs() < 0.01,
        "{body}"
    );
    // The tool, as the model meets it, and who sees it.
    let path: &'static str = Box::leak(format!("/api/tool?id={id}").into_boxed_str());
    let (status, body) = get(port, path, admin_token()).await;
    assert_eq!(status, 200, "{body}");
    let t: Value = serde_json::from_str(&body).unwrap();
    assert!(
        t["typescript"]
            .as_str()
            .unwrap()
            .contains("declare function"),
        "{body}"
    );
    assert!(t["input_schema"].is_object(), "{body}");
    let seen: Vec<&str> = t["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(seen.contains(&"default") && seen.contains(&"a"), "{body}");
    let (status, body) = get(port, "/api/tool?id=nope", admin_token()).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("no tool"), "{body}");
    // A session appears with its turn, and goes when it ends.
    let c = Client::connect(&gw, "op").await;
    c.call("s", "work", json!({"tag": "t"})).await;
    let (status, body) = get(port, "/api/sessions", admin_token()).await;
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    let sessions = v["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1, "{body}");
    assert_eq!(
        (
            sessions[0]["profile"].as_str(),
            sessions[0]["turns"].as_u64()
        ),
        (Some("default"), Some(1)),
        "{body}"
    );
    drop(c);
    let mut gone = false;
    for _ in 0..50 {
        let (_, body) = get(port, "/api/sessions", admin_token()).await;
        let v: Value = serde_json::from_str(&body).unwrap();
        if v["sessions"].as_array().is_some_and(Vec::is_empty) {
            gone = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(gone, "the ended session is still listed");
    // The reload view of a gateway that reloads no file says so.
    let (status, body) = get(port, "/api/reload", admin_token()).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("reloads no file"), "{body}");
    // The shell: no token needed, a strict policy, no sniffing, no framing.
    let (status, head, body) = tokio::task::spawn_blocking(move || raw(port, "GET", "/", &[], ""))
        .await
        .unwrap();
    assert_eq!(status, 200);
    assert!(
        head.contains("content-security-policy: default-src 'self'; script-src 'self'"),
        "{head}"
    );
    assert!(
        head.contains("frame-ancestors 'none'") && head.contains("x-content-type-options: nosniff"),
        "{head}"
    );
    assert!(
        body.contains("/app.js") && !body.contains("<script>"),
        "{body}"
    );
    // The trial's refusals: real calls are off; a body that is not the trial's.
    let (status, body) = post(
        port,
        "/api/try",
        admin_token(),
        json!({"code": "async () => 1", "real_calls": true}).to_string(),
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("page_calls"), "{body}");
    for wrong in ["{", r#"{"code": 1}"#, r#"{"code": "1", "extra": true}"#] {
        let (status, body) = post(port, "/api/try", admin_token(), wrong.to_string()).await;
        assert_eq!(status, 400, "{wrong}: {body}");
    }
    let (status, _) = post(port, "/api/try", vec![], json!({"code": "1"}).to_string()).await;
    assert_eq!(status, 401);
    let (status, _) = post(port, "/metrics", admin_token(), String::new()).await;
    assert_eq!(status, 405);
    let big = json!({"code": "x".repeat(200_000)}).to_string();
    let (status, body) = post(port, "/api/try", admin_token(), big).await;
    assert_eq!(status, 413, "{body}");
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

/// Issue 59, item 7, through the binary: 70 requests half sent to the admin
/// port (headers never finished), from the same address as the probe, do
/// not fail `/healthz` (it was 503 for 10 s, repeatably).
#[test]
#[ignore = "needs the toolsearch binary; `cargo xtask test` runs it"]
fn half_sent_requests_never_fail_the_liveness_probe() {
    use std::io::Write;
    let var = format!("TS_ADMIN_HALF_{}", std::process::id());
    let cfg = temp_path("half.toml");
    std::fs::write(
        &cfg,
        format!(
            "mode = \"tools\"\nactivation = \"always\"\nsemantic = false\n\
             [admin]\nlisten = \"127.0.0.1:0\"\ntoken_env = \"{var}\"\n"
        ),
    )
    .unwrap();
    let mut cmd = std::process::Command::new(crate::common::binary());
    cmd.args(["gateway", "--http", "127.0.0.1:0", "--config"])
        .arg(&cfg)
        .env(&var, "admin-secret");
    let (mut child, _port, admin, lines) = crate::common::spawn_http_gateway_with_admin(cmd);
    std::thread::spawn(move || for _ in lines {});
    let admin = admin.expect("the admin surface's address");
    let port: u16 = admin.rsplit(':').next().unwrap().parse().unwrap();
    let mut held = Vec::new();
    for _ in 0..70 {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            .unwrap();
        held.push(s);
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    for i in 0..5 {
        let (status, _, body) = raw(port, "GET", "/healthz", &[], "");
        assert_eq!(status, 200, "probe {i}: {body}");
    }
    drop(held);
    let _ = child.kill();
    let _ = child.wait();
}
