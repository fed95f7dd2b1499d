//! Client profiles over HTTP with the official Python client, and the gateway
//! as an OAuth resource server: static tokens (environment and file, several
//! per profile) and JWT access tokens from a small authorization server on
//! loopback (`tests/fixtures/oauth_as.py`), whose JWKS the gateway fetches.
//! Each token sees and calls only its profile's tools; rate budgets are per
//! profile; every bad credential hears the same 401; the SDK's own OAuth
//! flow finds the authorization server from the 401 and lands in the profile
//! its token's claim names; a missing scope is 403 `insufficient_scope`.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

use crate::common::*;

/// The test's authorization server: the process, its port and its issuer.
struct AuthServer {
    child: Child,
    port: u16,
    issuer: String,
}

impl AuthServer {
    fn start() -> AuthServer {
        python_module_ok("jwt");
        let mut child = Command::new("python3")
            .arg(repo().join("tests/fixtures/oauth_as.py"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python3 runs");
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let v: Value = serde_json::from_str(&first).expect("oauth_as.py prints its address");
        AuthServer {
            child,
            port: v["port"].as_u64().unwrap() as u16,
            issuer: v["issuer"].as_str().unwrap().to_string(),
        }
    }

    /// A token the server signs as asked (see `oauth_as.py`'s `/mint`).
    fn mint(&self, ask: Value) -> String {
        let (_, _, body) = raw(self.port, "POST", "/mint", &[], &ask.to_string());
        serde_json::from_str::<Value>(&body).unwrap()["token"]
            .as_str()
            .unwrap()
            .to_string()
    }

    fn configure(&self, ask: Value) {
        let (status, _, _) = raw(self.port, "POST", "/config", &[], &ask.to_string());
        assert_eq!(status, 200);
    }
}

impl Drop for AuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;

/// The `mcp-session-id` of a response's (lower-cased) head.
fn session_id(head: &str) -> Option<&str> {
    head.lines()
        .find_map(|l| l.strip_prefix("mcp-session-id: "))
        .map(str::trim)
}

fn py(args: &[&str]) -> Value {
    let out = Command::new("python3")
        .arg(repo().join("tests/fixtures/py_profiles.py"))
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "py_profiles.py {:?} failed",
        &args[..1]
    );
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).unwrap_or_else(|_| panic!("not JSON: {text}"))
}

/// The config: profile `a` (server-everything; two tokens from the
/// environment; claim `a`; 80 requests a minute), `b` (the time server; a
/// token file; claim `b`), `default` narrowed to the memory server; the
/// gateway a resource server of `issuer` at `port`.
fn profiles_config(port: u16, issuer: &str, token_file: &std::path::Path) -> std::path::PathBuf {
    let head = format!(
        r#"mode = "tools"
activation = "always"
semantic = false
[auth]
resource = "http://127.0.0.1:{port}/mcp"
issuer = "{issuer}"
profile_claim = "team"

[[profiles]]
name = "a"
servers = ["everything"]
token_env = ["TS_A_TOKEN", "TS_A_NEXT"]
claim = "a"
rate_limit_per_minute = 80

[[profiles]]
name = "b"
servers = ["time"]
token_file = {token_file:?}
claim = "b"

[[profiles]]
name = "default"
servers = ["memory"]
"#
    );
    config(&head)
}

fn start_gateway(cfg: &std::path::Path, port: u16) -> Child {
    let mut cmd = Command::new(binary());
    cmd.args([
        "gateway",
        "--http",
        &format!("127.0.0.1:{port}"),
        "--config",
    ])
    .arg(cfg)
    .env("TS_A_TOKEN", "a-token-one")
    .env("TS_A_NEXT", "a-token-two");
    let (child, bound, lines) = spawn_http_gateway(cmd);
    assert_eq!(bound, port);
    std::thread::spawn(move || for _ in lines {});
    child
}

fn ids_all(v: &Value, prefix: &str) -> bool {
    v["search"].as_object().is_some_and(|m| {
        m.values()
            .flat_map(|ids| ids.as_array().unwrap())
            .all(|i| i.as_str().unwrap().starts_with(prefix))
    })
}

fn private_file(name: &str, text: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = temp_path(name);
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    path
}

#[test]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
fn two_profiles_with_the_python_client_see_call_and_spend_only_their_own() {
    python_module_ok("mcp");
    let auth = AuthServer::start();
    let port = free_port();
    let tokens = private_file(
        "b.tokens",
        "# b's tokens (b-old was removed from the rotation)\nb-token-one\n",
    );
    let cfg = profiles_config(port, &auth.issuer, &tokens);
    let mut gw = start_gateway(&cfg, port);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let plan = json!({
        "search": ["echo a message", "current time in a timezone", "create entities in the knowledge graph"],
        "call": [["mcp:everything:echo", {"message": "hi"}], ["mcp:time:get_current_time", {"timezone": "UTC"}]],
    })
    .to_string();

    // Profile a, by either of its tokens: everything's tools only.
    for token in ["a-token-one", "a-token-two"] {
        let a = py(&["token", &url, token, &plan]);
        assert!(a.get("failed").is_none(), "{a}");
        assert!(ids_all(&a, "mcp:everything:"), "{a}");
        assert!(
            a["search"]["echo a message"]
                .as_array()
                .unwrap()
                .iter()
                .any(|i| i == "mcp:everything:echo"),
            "{a}"
        );
        assert_eq!(a["call"][0]["error"], false, "{a}");
        assert!(a["call"][0]["text"].as_str().unwrap().contains("hi"), "{a}");
        assert_eq!(a["call"][1]["error"], true, "{a}");
        assert!(
            a["call"][1]["text"]
                .as_str()
                .unwrap()
                .contains("UNKNOWN_TOOL"),
            "{a}"
        );
    }
    // Profile b, by its file's token: the time server only.
    let b = py(&["token", &url, "b-token-one", &plan]);
    assert!(b.get("failed").is_none(), "{b}");
    assert!(ids_all(&b, "mcp:time:"), "{b}");
    assert!(
        !b["search"]["current time in a timezone"]
            .as_array()
            .unwrap()
            .is_empty(),
        "{b}"
    );
    assert_eq!(b["call"][0]["error"], true, "{b}");
    assert!(
        b["call"][0]["text"]
            .as_str()
            .unwrap()
            .contains("UNKNOWN_TOOL"),
        "{b}"
    );
    assert_eq!(b["call"][1]["error"], false, "{b}");
    // A session of a is not there for b's token.
    let (_, head, _) = raw(
        port,
        "POST",
        "/mcp",
        &[("Authorization", "Bearer a-token-one")],
        INIT,
    );
    let sid = session_id(&head).expect("a session id").to_string();
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let (status, _, _) = raw(
        port,
        "POST",
        "/mcp",
        &[
            ("Authorization", "Bearer b-token-one"),
            ("Mcp-Session-Id", &sid),
        ],
        list,
    );
    assert_eq!(status, 404, "b's token drove a's session");
    for method in ["GET", "DELETE"] {
        let headers = [
            ("Authorization", "Bearer b-token-one"),
            ("Mcp-Session-Id", sid.as_str()),
            ("Mcp-Protocol-Version", "2026-07-28"),
        ];
        let (status, _, _) = raw(port, method, "/mcp", &headers, "");
        assert_eq!(status, 404, "b's token could {method} a's session");
    }
    // Nor can an `initialize` of the 2026-07-28 revision naming a's session.
    let init_2026 = INIT.replace("2025-11-25", "2026-07-28");
    let headers = [
        ("Authorization", "Bearer b-token-one"),
        ("Mcp-Session-Id", sid.as_str()),
        ("Mcp-Protocol-Version", "2026-07-28"),
    ];
    let (_, head, _) = raw(port, "POST", "/mcp", &headers, &init_2026);
    // It opened a session of b's own instead.
    let opened = session_id(&head);
    assert!(
        opened.is_some_and(|id| id != sid),
        "b's initialize reached a's session: {head}"
    );
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let a_session = [
        ("Authorization", "Bearer a-token-one"),
        ("Mcp-Session-Id", sid.as_str()),
    ];
    raw(port, "POST", "/mcp", &a_session, initialized);
    let (status, _, body) = raw(port, "POST", "/mcp", &a_session, list);
    assert_eq!(status, 200, "a's session is still a's: {body}");
    assert!(body.contains("tool_search"), "{body}");

    // A JWT with claim team=a opens a; one naming no profile is 403.
    let good = |team: &str| auth.mint(json!({"aud": url, "team": team}));
    let by_claim = py(&["token", &url, &good("a"), &plan]);
    assert!(
        by_claim.get("failed").is_none() && ids_all(&by_claim, "mcp:everything:"),
        "{by_claim}"
    );
    assert!(
        !by_claim["search"]["echo a message"]
            .as_array()
            .unwrap()
            .is_empty(),
        "{by_claim}"
    );
    let (status, head, _) = raw(
        port,
        "POST",
        "/mcp",
        &[("Authorization", &format!("Bearer {}", good("nobody")))],
        INIT,
    );
    assert_eq!(status, 403, "{head}");

    // Every bad credential: refused with the same 401, nothing else said.
    let bad = [
        ("unknown", "not-a-token".to_string()),
        ("removed from rotation", "b-old".to_string()),
        (
            "wrong audience",
            auth.mint(json!({"aud": "http://127.0.0.1:1/mcp"})),
        ),
        (
            "wrong issuer",
            auth.mint(json!({"aud": url, "iss": "http://127.0.0.1:1/as"})),
        ),
        ("expired", auth.mint(json!({"aud": url, "exp_in": -3600}))),
        (
            "another key",
            auth.mint(json!({"aud": url, "key": "other"})),
        ),
        (
            "another key, no key id",
            auth.mint(json!({"aud": url, "key": "other", "kid": false})),
        ),
        ("alg none", auth.mint(json!({"aud": url, "alg": "none"}))),
        (
            "HS256 keyed with the public key",
            auth.mint(json!({"aud": url, "alg": "HS256"})),
        ),
        ("no exp", auth.mint(json!({"aud": url, "omit": ["exp"]}))),
        ("no aud", auth.mint(json!({"aud": url, "omit": ["aud"]}))),
        ("no iss", auth.mint(json!({"aud": url, "omit": ["iss"]}))),
        // Issue 59, item 6: each was admitted before.
        ("no sub", auth.mint(json!({"aud": url, "omit": ["sub"]}))),
        (
            "iss a list",
            auth.mint(json!({"aud": url, "iss_list": true})),
        ),
        ("crit []", auth.mint(json!({"aud": url, "crit": []}))),
        (
            "crit unknown",
            auth.mint(json!({"aud": url, "crit": ["x-unknown"]})),
        ),
        ("crit exp", auth.mint(json!({"aud": url, "crit": ["exp"]}))),
    ];
    let mut answers = Vec::new();
    for (what, token) in &bad {
        let seen = py(&["refused", &url, token]);
        assert_eq!(seen["refused"], true, "{what}: {seen}");
        assert!(
            seen["statuses"]
                .as_array()
                .unwrap()
                .iter()
                .all(|s| s != 200),
            "{what}: {seen}"
        );
        let (status, head, body) = raw(
            port,
            "POST",
            "/mcp",
            &[("Authorization", &format!("Bearer {token}"))],
            INIT,
        );
        assert_eq!(status, 401, "{what}");
        let challenge = head
            .lines()
            .find(|l| l.starts_with("www-authenticate:"))
            .unwrap_or("")
            .to_string();
        assert!(
            challenge.contains("resource_metadata="),
            "{what}: {challenge}"
        );
        answers.push((challenge, body));
    }
    assert!(
        answers.windows(2).all(|w| w[0] == w[1]),
        "the 401s differ: {answers:?}"
    );

    // Rate budgets are per profile: a spends all of its own; b still has its.
    let ping = r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#;
    let limited = (0..120).any(|_| {
        raw(
            port,
            "POST",
            "/mcp",
            &[("Authorization", "Bearer a-token-one")],
            ping,
        )
        .0 == 429
    });
    assert!(limited, "profile a never reached its budget");
    // The budget is the profile's: a's other token is out too.
    let (status, _, _) = raw(
        port,
        "POST",
        "/mcp",
        &[("Authorization", "Bearer a-token-two")],
        ping,
    );
    assert_eq!(status, 429);
    let b_after = py(&["token", &url, "b-token-one", &plan]);
    assert!(b_after.get("failed").is_none(), "{b_after}");
    assert!(
        b_after["statuses"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s != 429),
        "{b_after}"
    );

    let _ = gw.kill();
    let _ = gw.wait();

    // stdio is the default profile: the memory server only.
    let stdio = py(&["stdio", binary().to_str().unwrap(), cfg.to_str().unwrap(), &json!({"search": ["echo a message", "current time", "create entities in the knowledge graph"]}).to_string()]);
    assert!(ids_all(&stdio, "mcp:memory:"), "{stdio}");
    assert!(
        !stdio["search"]["create entities in the knowledge graph"]
            .as_array()
            .unwrap()
            .is_empty(),
        "{stdio}"
    );
}

#[test]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
fn the_sdk_oauth_flow_lands_in_the_profile_its_claim_names_and_a_missing_scope_is_403() {
    python_module_ok("mcp");
    let auth = AuthServer::start();
    auth.configure(json!({"team": "b", "withhold": []}));
    let port = free_port();
    let tokens = private_file("b.tokens", "b-token-one\n");
    let cfg = profiles_config(port, &auth.issuer, &tokens);
    let mut gw = start_gateway(&cfg, port);
    let url = format!("http://127.0.0.1:{port}/mcp");

    // The metadata, at the path the spec gives.
    let (status, _, body) = raw(
        port,
        "GET",
        "/.well-known/oauth-protected-resource/mcp",
        &[],
        "",
    );
    assert_eq!(status, 200);
    let prm: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(prm["resource"], url.as_str());
    assert_eq!(prm["authorization_servers"], json!([auth.issuer]));
    assert_eq!(prm["scopes_supported"], json!(["mcp:tools", "mcp:call"]));

    let plan = json!({
        "search": ["current time in a timezone"],
        "call": [["mcp:time:get_current_time", {"timezone": "UTC"}]],
    })
    .to_string();
    let v = py(&["oauth", &url, &plan]);
    assert!(v.get("failed").is_none(), "{v}");
    let statuses = v["statuses"].as_array().unwrap();
    assert_eq!(statuses[0], 401, "discovery starts from the 401: {v}");
    // The claim team=b chose b: the time server's tools, and its call runs.
    assert!(
        ids_all(&v, "mcp:time:")
            && !v["search"]["current time in a timezone"]
                .as_array()
                .unwrap()
                .is_empty(),
        "{v}"
    );
    assert_eq!(v["call"][0]["error"], false, "{v}");

    // Grants without the call scope: the call is 403 insufficient_scope (the
    // SDK steps up once, is granted no more, and gives up); search still works.
    auth.configure(json!({"withhold": ["mcp:call"]}));
    let v = py(&["oauth", &url, &plan]);
    assert!(
        !v["search"]["current time in a timezone"]
            .as_array()
            .unwrap()
            .is_empty(),
        "{v}"
    );
    assert_eq!(v["call"][0]["error"], true, "{v}");
    assert!(
        v["statuses"].as_array().unwrap().iter().any(|s| s == 403),
        "{v}"
    );
    // What the 403 says: only the scope the call needs.
    let token = auth.mint(json!({"aud": url, "team": "b", "scope": "mcp:tools"}));
    let call = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"tool_call","arguments":{"id":"mcp:time:get_current_time","arguments":{}}}}"#;
    let (status, head, _) = raw(
        port,
        "POST",
        "/mcp",
        &[("Authorization", &format!("Bearer {token}"))],
        call,
    );
    assert_eq!(status, 403, "{head}");
    let challenge = head
        .lines()
        .find(|l| l.starts_with("www-authenticate:"))
        .unwrap();
    assert!(
        challenge.contains("error=\"insufficient_scope\""),
        "{challenge}"
    );
    assert!(challenge.contains("scope=\"mcp:call\","), "{challenge}");
    assert!(!challenge.contains("mcp:tools"), "{challenge}");
    assert!(challenge.contains(&format!("resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp\"")), "{challenge}");
    // A search needs only mcp:tools: in a session of that token, it answers.
    let bearer = format!("Bearer {token}");
    let (status, head, _) = raw(port, "POST", "/mcp", &[("Authorization", &bearer)], INIT);
    assert_eq!(status, 200, "{head}");
    let sid = session_id(&head).expect("a session id").to_string();
    let session = [
        ("Authorization", bearer.as_str()),
        ("Mcp-Session-Id", sid.as_str()),
    ];
    raw(
        port,
        "POST",
        "/mcp",
        &session,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    let search = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"tool_search","arguments":{"query":"current time"}}}"#;
    let (status, _, body) = raw(port, "POST", "/mcp", &session, search);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("mcp:time:get_current_time"), "{body}");
    let (status, _, _) = raw(port, "POST", "/mcp", &session, call);
    assert_eq!(status, 403);
    let _ = gw.kill();
    let _ = gw.wait();
}

/// Issue 59, items 4 and 6: the issuer's keys are matched by key id in a
/// set of 103 (the signing key last; it was cut at 64), survive a reload
/// that changes nothing of `[auth]` while the key set answers 503 (they were
/// thrown away: 401 for everyone until the issuer was back), and a refused
/// token's header never reaches the log raw.
#[test]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
fn the_issuers_keys_are_matched_by_id_and_survive_a_reload_during_an_outage() {
    let auth = AuthServer::start();
    auth.configure(json!({"decoys": 102}));
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let tokens = private_file("b.tokens", "b-token\n");
    let cfg = profiles_config(port, &auth.issuer, &tokens);
    let mut cmd = Command::new(binary());
    cmd.args([
        "gateway",
        "--http",
        &format!("127.0.0.1:{port}"),
        "--config",
    ])
    .arg(&cfg)
    .env("TS_A_TOKEN", "a-token-one")
    .env("TS_A_NEXT", "a-token-two")
    .env("TOOLSEARCH_LOG", "info");
    let (mut gw, _, lines) = spawn_http_gateway(cmd);
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let init = |token: &str| {
        let auth = format!("Bearer {token}");
        raw(
            port,
            "POST",
            "/mcp",
            &[("Authorization", auth.as_str())],
            INIT,
        )
        .0
    };
    assert_eq!(
        init(&auth.mint(json!({"aud": url}))),
        200,
        "103 keys, k1 last"
    );
    // A token whose header carries a forged log line and terminal controls.
    let kid = "k9\n2026-01-01T00:00:00Z  INFO forged line\u{1b}[31m\u{7}";
    let forged = auth.mint(json!({"aud": url, "key": "other", "kid": kid}));
    assert_eq!(init(&forged), 401);
    // The key set goes down; a reload that changes nothing of [auth].
    auth.configure(json!({"jwks_down": true}));
    let ok = Command::new("kill")
        .args(["-HUP", &gw.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut log = Vec::new();
    loop {
        let line = rx
            .recv_timeout(deadline.saturating_duration_since(std::time::Instant::now()))
            .expect("a reload line within 60 s");
        let done = line.contains("toolsearch: configuration reloaded");
        log.push(line);
        if done {
            break;
        }
    }
    assert_eq!(init(&auth.mint(json!({"aud": url}))), 200, "keys kept");
    let _ = gw.kill();
    let _ = gw.wait();
    log.extend(rx.try_iter());
    let all = log.join("\n");
    assert!(all.contains("refused an access token"), "{all}");
    assert!(
        !all.contains('\u{1b}') && !all.contains('\u{7}'),
        "raw control bytes in the log"
    );
    assert!(
        !log.iter().any(|l| l.starts_with("2026-01-01T00:00:00Z")),
        "a forged log line: {all}"
    );
}
