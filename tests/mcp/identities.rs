//! Who owns a session, what a reload checks, and which files are trusted,
//! through the binary (issue 59, items 2-4):
//! - a static token's sessions are its own whatever the token files around
//!   it become: adding a token touches no one, removing one ends its
//!   sessions and never hands them to another;
//! - a reload runs every check a start runs (an admin token that is also a
//!   client's is refused), and a file that is briefly a FIFO wedges nothing;
//! - a file another user could have written is refused with the reason.

use std::path::Path;

use serde_json::{json, Value};

use crate::common::*;
use crate::harness::{http_post, open_http_session};
use crate::reload::{save, server, sighup, Running};

fn private(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    let tmp = path.with_extension("new");
    std::fs::write(&tmp, text).unwrap();
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// Runs `cmd` with `args`; its stdout (it must succeed).
fn run(cmd: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(cmd).args(args).output().unwrap();
    assert!(out.status.success(), "{cmd} {args:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn mkfifo(path: &Path) {
    run("mkfifo", &["-m", "600", path.to_str().unwrap()]);
}

fn client(token: &str) -> reqwest::Client {
    toolsearch_mcp::http_client::install_tls_provider();
    let mut h = reqwest::header::HeaderMap::new();
    h.insert("authorization", format!("Bearer {token}").parse().unwrap());
    reqwest::Client::builder()
        .default_headers(h)
        .build()
        .unwrap()
}

/// The status of `tools/list` on session `id` sent with `token`.
async fn list_status(url: &str, token: &str, id: &str) -> u16 {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"});
    http_post(&client(token), url, id, &body)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

const HEAD: &str = "semantic = false\nmode = \"tools\"\nactivation = \"always\"\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn a_tokens_sessions_stay_its_own_when_the_token_files_change() {
    let tokens = temp_path("a.tokens");
    private(&tokens, "tok-a1\ntok-a2\n");
    let vb = format!("TS_ID_B_{}", std::process::id());
    let path = temp_path("identities.toml");
    save(
        &path,
        &format!(
            "{HEAD}[[profiles]]\nname = \"a\"\ntoken_file = {tokens:?}\n[[profiles]]\nname = \"b\"\ntoken_env = [\"{vb}\"]\n{}",
            server("time")
        ),
    );
    let gw = Running::start(&path, &[(&vb, "tok-b")]);
    let url = gw.url();
    let a1 = open_http_session(&client("tok-a1"), &url, json!({}))
        .await
        .unwrap();
    let b = open_http_session(&client("tok-b"), &url, json!({}))
        .await
        .unwrap();
    assert_eq!(list_status(&url, "tok-b", &b).await, 200);
    // A token added in front of the others: nobody else's session moves.
    private(&tokens, "tok-a0\ntok-a1\ntok-a2\n");
    sighup(gw.child.id());
    let line = gw.reload_line().await;
    assert!(line.contains("reloaded"), "{line}");
    assert_eq!(
        list_status(&url, "tok-b", &b).await,
        200,
        "b's session moved"
    );
    assert_eq!(list_status(&url, "tok-a1", &a1).await, 200);
    // tok-a1 rotated out: its session ends, and no other token gets it.
    private(&tokens, "tok-a0\ntok-a2\n");
    sighup(gw.child.id());
    let line = gw.reload_line().await;
    assert!(line.contains("reloaded"), "{line}");
    assert_eq!(
        list_status(&url, "tok-a2", &a1).await,
        404,
        "handed to tok-a2"
    );
    assert_eq!(list_status(&url, "tok-a1", &a1).await, 401);
    assert_eq!(list_status(&url, "tok-b", &b).await, 200);
    // Item 6: a single-valued field sent twice, or routing fields that
    // contradict the body, are 400 (a valid token then junk was 200).
    let port = gw.port;
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}"#;
    let status = |headers: Vec<(&'static str, &'static str)>| {
        tokio::task::spawn_blocking(move || raw(port, "POST", "/mcp", &headers, init).0)
    };
    let good = ("Authorization", "Bearer tok-b");
    assert_eq!(status(vec![good]).await.unwrap(), 200);
    for second in [
        ("Authorization", "Bearer junk"),
        ("Authorization", "Basic eDp5"),
    ] {
        assert_eq!(status(vec![good, second]).await.unwrap(), 400, "{second:?}");
    }
    assert_eq!(
        status(vec![good, ("Mcp-Method", "tools/call")])
            .await
            .unwrap(),
        400
    );
    assert_eq!(
        status(vec![
            good,
            ("MCP-Protocol-Version", "2025-11-25"),
            ("MCP-Protocol-Version", "2026-07-28")
        ])
        .await
        .unwrap(),
        400
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn a_reload_checks_what_a_start_checks_and_a_fifo_wedges_nothing() {
    let pid = std::process::id();
    let (va, vadmin) = (format!("TS_ID_A_{pid}"), format!("TS_ID_ADMIN_{pid}"));
    let tokens = temp_path("a.tokens");
    private(&tokens, "tok-file\n");
    let path = temp_path("checks.toml");
    let cfg = |vars: &str| {
        format!(
            "{HEAD}[admin]\nlisten = \"127.0.0.1:0\"\ntoken_env = \"{vadmin}\"\n[[profiles]]\nname = \"a\"\ntoken_env = [{vars}]\ntoken_file = {tokens:?}\n{}",
            server("time")
        )
    };
    save(&path, &cfg(&format!("\"{va}\"")));
    let env = [(va.as_str(), "tok-a"), (vadmin.as_str(), "tok-admin")];
    let gw = Running::start(&path, &env);
    let url = gw.url();
    // The admin token made a client's by a reload: refused as at start.
    save(&path, &cfg(&format!("\"{va}\", \"{vadmin}\"")));
    let line = gw.reload_line().await;
    assert!(
        line.contains("refused") && line.contains("also a client's token"),
        "{line}"
    );
    assert_eq!(
        open_http_session(&client("tok-admin"), &url, json!({}))
            .await
            .unwrap_err()
            .0,
        401
    );
    // A token file that is a FIFO for a while: the reload is refused with
    // the reason, and the next one is applied.
    save(&path, &cfg(&format!("\"{va}\"")));
    assert!(gw.reload_line().await.contains("reloaded"));
    std::fs::remove_file(&tokens).unwrap();
    mkfifo(&tokens);
    sighup(gw.child.id());
    let line = gw.reload_line().await;
    assert!(line.contains("not a regular file"), "{line}");
    // The configuration file itself renamed over by a FIFO: the watcher goes on.
    let fifo = path.with_extension("fifo");
    mkfifo(&fifo);
    std::fs::rename(&fifo, &path).unwrap();
    let line = gw.reload_line().await;
    assert!(line.contains("not a regular file"), "{line}");
    std::fs::remove_file(&tokens).unwrap();
    private(&tokens, "tok-file2\n");
    save(&path, &cfg(&format!("\"{va}\"")));
    let line = gw.reload_line().await;
    assert!(line.contains("reloaded"), "{line}");
    assert!(open_http_session(&client("tok-file2"), &url, json!({}))
        .await
        .is_ok());
}

/// `toolsearch config check --servers FILE`: its JSON, and its log (warnings).
fn check_servers(cfg: &Path) -> (Value, String) {
    let out = std::process::Command::new(binary())
        .args(["config", "check", "--servers"])
        .arg(cfg)
        .env("TOOLSEARCH_LOG", "warn")
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{log}");
    (serde_json::from_slice(&out.stdout).unwrap(), log)
}

#[test]
#[ignore = "needs the toolsearch binary; `cargo xtask test` runs it"]
fn files_another_user_could_write_are_refused_with_the_reason() {
    use std::os::unix::fs::PermissionsExt;
    let mode =
        |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
    // A configuration anyone may write is not read.
    let cfg = temp_path("open.toml");
    std::fs::write(&cfg, HEAD).unwrap();
    mode(&cfg, 0o666);
    let out = std::process::Command::new(binary())
        .args(["config", "check"])
        .arg(&cfg)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("writable by its group or by others"),
        "{err}"
    );
    // A lazy server's manifest: written by a first run, then opened to others.
    let dir = temp_path("manifests");
    let calls = temp_path("calls");
    let state = temp_path("state");
    let script = repo().join("tests/fixtures/changing_server.py");
    let cfg = temp_path("lazy.toml");
    std::fs::write(
        &cfg,
        format!(
            "{HEAD}lazy = true\nmanifest_dir = {dir:?}\n[[servers]]\nname = \"l\"\ncommand = \"python3\"\nargs = [{script:?}]\nenv = {{ STATE_FILE = {state:?}, CALLFILE = {calls:?} }}\n"
        ),
    )
    .unwrap();
    check_servers(&cfg);
    let manifest = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("l."))
        .expect("a manifest written");
    let (v, _) = check_servers(&cfg);
    assert_eq!(v["servers"][0]["state"], "stopped", "served from it: {v}");
    // Each time: not served (the server is started, and writes a fresh
    // manifest of its own), with a warning that says why.
    let ignored = |why: &str| {
        let (v, log) = check_servers(&cfg);
        assert_eq!(v["servers"][0]["state"], "running", "served from it: {v}");
        assert!(
            log.contains("manifest ignored") && log.contains(why),
            "{why}: {log}"
        );
    };
    mode(&manifest, 0o666);
    ignored("writable by its group or by others");
    if run("id", &["-u"]).trim() == "0" {
        // Only root can give a file away.
        mode(&manifest, 0o600);
        run("chown", &["12345", manifest.to_str().unwrap()]);
        ignored("owned by uid 12345");
    }
    mode(&dir, 0o777);
    ignored("its directory");
    mode(&dir, 0o700);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn a_session_holds_a_bounded_number_of_streams() {
    // Issue 59, item 8: one session held 300 GET streams at once.
    use std::io::{BufRead, Write};
    let path = temp_path("streams.toml");
    save(&path, &format!("{HEAD}{}", server("time")));
    let gw = Running::start(&path, &[]);
    let id = open_http_session(&client("none"), &gw.url(), json!({}))
        .await
        .unwrap();
    let port = gw.port;
    let sid = id.clone();
    let statuses = tokio::task::spawn_blocking(move || {
        let id = sid;
        let mut held = Vec::new();
        let mut statuses = Vec::new();
        for _ in 0..6 {
            let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
            s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
                .unwrap();
            write!(
                s,
                "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\
                 Mcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n"
            )
            .unwrap();
            let mut line = String::new();
            std::io::BufReader::new(s.try_clone().unwrap())
                .read_line(&mut line)
                .unwrap();
            statuses.push(line.split_whitespace().nth(1).unwrap_or("").to_string());
            held.push(s);
        }
        statuses
    })
    .await
    .unwrap();
    assert_eq!(statuses[..4], ["200", "200", "200", "200"], "{statuses:?}");
    assert_eq!(statuses[4..], ["429", "429"], "{statuses:?}");
    // The session itself still answers.
    let again = tokio::task::spawn_blocking(move || {
        raw(
            port,
            "DELETE",
            "/mcp",
            &[("Mcp-Session-Id", id.as_str())],
            "",
        )
        .0
    })
    .await
    .unwrap();
    assert!(again < 500, "{again}");
}

#[tokio::test]
#[ignore = "needs the toolsearch binary; `cargo xtask test` runs it"]
async fn payloads_stay_out_of_the_log_at_every_level() {
    // Issue 59, item 8: at debug, rmcp's lines carried arguments and results.
    use rmcp::ServiceExt;
    use tokio::io::AsyncReadExt;
    let path = temp_path("payloads.toml");
    std::fs::write(&path, format!("{HEAD}{}", server("time"))).unwrap();
    let mut cmd = tokio::process::Command::new(binary());
    cmd.args(["gateway", "--config"])
        .arg(&path)
        .env("TOOLSEARCH_LOG", "trace");
    let (transport, stderr) = rmcp::transport::TokioChildProcess::builder(cmd)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = stderr.unwrap();
    let log = tokio::spawn(async move {
        let mut all = String::new();
        let _ = stderr.read_to_string(&mut all).await;
        all
    });
    let client = ().serve(transport).await.unwrap();
    let mut args = serde_json::Map::new();
    args.insert("query".into(), json!("zq-payload-marker-81 current time"));
    let r = client
        .peer()
        .call_tool(rmcp::model::CallToolRequestParams::new("tool_search").with_arguments(args))
        .await
        .unwrap();
    assert!(
        serde_json::to_string(&r)
            .unwrap()
            .contains("get_current_time"),
        "{r:?}"
    );
    // A call through to the server: its request and result cross rmcp's
    // client side too (a manifest may have answered the search alone).
    let mut args = serde_json::Map::new();
    args.insert("id".into(), json!("mcp:time:get_current_time"));
    args.insert(
        "arguments".into(),
        // The server ignores `note` and logs nothing of it on its stderr
        // (which the gateway relays as the server's own lines).
        json!({"timezone": "UTC", "note": "zq-payload-marker-81"}),
    );
    let _ = client
        .peer()
        .call_tool(rmcp::model::CallToolRequestParams::new("tool_call").with_arguments(args))
        .await
        .unwrap();
    let _ = client.cancel().await;
    let log = log.await.unwrap();
    assert!(log.lines().count() > 10, "the log at trace level: {log}");
    assert!(
        !log.contains("zq-payload-marker-81"),
        "a payload in the log"
    );
}
