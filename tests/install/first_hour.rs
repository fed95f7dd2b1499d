//! The first hour with a real client (issue 60): a gateway whose config
//! holds a server that never answers still connects within each client's own
//! limit, and `connect claude-code` finds the servers of Claude Code's
//! default (local) scope, says where each came from, and undoes the move.

use std::time::Instant;

use serde_json::{json, Value};

use crate::connect::{npm_bin, run, text, toolsearch, Home};

/// A gateway config with one server that never answers `initialize` (it
/// reads nothing) beside one that works; the default limits.
fn hanging_config(h: &Home) -> std::path::PathBuf {
    let config = h.path("gateway.toml");
    std::fs::write(
        &config,
        "[[servers]]\nname = \"hang\"\ncommand = \"sleep\"\nargs = [\"1000\"]\n\n\
         [[servers]]\nname = \"time\"\ncommand = \"python3\"\n\
         args = [\"-m\", \"mcp_server_time\", \"--local-timezone\", \"UTC\"]\n",
    )
    .unwrap();
    config
}

fn gateway_entry(config: &std::path::Path) -> Value {
    json!({"command": toolsearch().display().to_string(),
           "args": ["gateway", "--config", config.display().to_string()]})
}

#[test]
#[ignore = "needs the fixtures' npm clients and mcp-server-time (`cargo xtask fixtures`); `cargo xtask test` runs it"]
fn a_server_that_never_answers_disconnects_no_client() {
    let h = Home::new("hang");
    let config = hanging_config(&h);
    let mut entry = gateway_entry(&config);
    let claude = json!({"numStartups": 1, "mcpServers": {"toolsearch": {
        "type": "stdio", "command": entry["command"], "args": entry["args"]}}});
    h.write(".claude.json", &claude.to_string(), 0o600);
    entry["trust"] = json!(true);
    let gemini = json!({"mcpServers": {"toolsearch": entry}});
    h.write(".gemini/settings.json", &gemini.to_string(), 0o644);

    // Claude Code gives a server about 30 s; Gemini CLI's `mcp list` 5 s
    // (its MCP_LIST_DEFAULT_TIMEOUT_MSEC) for connect and ping. The gateway
    // used to answer `initialize` only after the hanging server's 30 s
    // startup timeout: both reported it failed.
    let t = Instant::now();
    let out = run(
        h.command(&npm_bin().join("claude")).args(["mcp", "list"]),
        180,
    );
    let claude_s = t.elapsed().as_secs_f64();
    let all = text(&out);
    let line = all
        .lines()
        .find(|l| l.starts_with("toolsearch:"))
        .unwrap_or_default();
    assert!(
        line.contains("Connected") && !line.contains("Failed"),
        "claude mcp list ({claude_s:.1} s):\n{all}"
    );
    let t = Instant::now();
    let out = run(
        h.command(&npm_bin().join("gemini"))
            .args(["mcp", "list"])
            .env("GEMINI_CLI_TRUST_WORKSPACE", "true"),
        180,
    );
    let gemini_s = t.elapsed().as_secs_f64();
    let all = text(&out);
    let line = all
        .lines()
        .find(|l| l.contains("toolsearch:"))
        .unwrap_or_default();
    assert!(
        line.contains("- Connected"),
        "gemini mcp list ({gemini_s:.1} s):\n{all}"
    );
    eprintln!(
        "with a server that never answers: claude mcp list {claude_s:.1} s, gemini mcp list {gemini_s:.1} s"
    );
}

/// The servers of `file`'s JSON at `path`.
fn at(h: &Home, path: &[&str]) -> Value {
    let mut v: Value = serde_json::from_str(&h.read(".claude.json")).unwrap();
    for k in path {
        v = v[*k].take();
    }
    v
}

#[test]
#[ignore = "needs the fixtures' npm clients and mcp-server-time (`cargo xtask fixtures`); `cargo xtask test` runs it"]
fn claude_codes_local_scope_is_moved_and_undone() {
    let h = Home::new("local");
    let project = h.path("app");
    std::fs::create_dir_all(&project).unwrap();
    let project_key = project.canonicalize().unwrap().display().to_string();
    let claude = |args: &[&str]| {
        let out = run(
            h.command(&npm_bin().join("claude"))
                .current_dir(&project)
                .args(args),
            180,
        );
        assert!(out.status.success(), "claude {args:?}: {}", text(&out));
        text(&out)
    };
    // A plain `claude mcp add` writes the local scope: this folder only.
    claude(&[
        "mcp",
        "add",
        "time",
        "--",
        "python3",
        "-m",
        "mcp_server_time",
        "--local-timezone",
        "UTC",
    ]);
    claude(&[
        "mcp",
        "add-json",
        "-s",
        "user",
        "notes",
        r#"{"command":"python3","args":["-m","mcp_server_time"]}"#,
    ]);
    assert!(at(&h, &["projects", &project_key, "mcpServers", "time"]).is_object());

    let out = run(
        h.command(&toolsearch())
            .current_dir(&project)
            .arg("connect")
            .arg("claude-code"),
        300,
    );
    assert!(out.status.success(), "connect: {}", text(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let scope_of = |name: &str| {
        report["moved"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == name)
            .map(|m| m["scope"].clone())
    };
    assert_eq!(scope_of("time"), Some(json!("local")), "{report}");
    assert_eq!(scope_of("notes"), Some(json!("user")), "{report}");
    assert_eq!(report["entry"]["scope"], "user", "{report}");
    assert!(at(&h, &["projects", &project_key, "mcpServers", "time"]).is_null());
    let listed = claude(&["mcp", "list"]);
    let line = listed
        .lines()
        .find(|l| l.starts_with("toolsearch:"))
        .unwrap_or_default();
    assert!(line.contains("Connected"), "{listed}");
    assert!(
        !listed
            .lines()
            .any(|l| l.starts_with("time:") || l.starts_with("notes:")),
        "moved servers are behind the gateway only:\n{listed}"
    );
    let gateway = std::fs::read_to_string(h.path(".config/toolsearch/config.toml")).unwrap();
    assert!(
        gateway.contains("name = \"time\"") && gateway.contains("name = \"notes\""),
        "{gateway}"
    );

    // Connecting again moves nothing and says no entry was written.
    let out = run(
        h.command(&toolsearch())
            .current_dir(&project)
            .args(["connect", "claude-code"]),
        300,
    );
    let again: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(again["moved"], json!([]), "{again}");
    assert!(
        again.get("entry").is_none(),
        "an entry not written is not printed: {again}"
    );

    let out = run(
        h.command(&toolsearch())
            .current_dir(&project)
            .args(["connect", "claude-code", "--undo"]),
        300,
    );
    assert!(out.status.success(), "undo: {}", text(&out));
    assert!(at(&h, &["projects", &project_key, "mcpServers", "time"]).is_object());
    assert!(at(&h, &["mcpServers", "notes"]).is_object());
    assert!(at(&h, &["mcpServers", "toolsearch"]).is_null());
    let got = claude(&["mcp", "get", "time"]);
    assert!(
        got.to_lowercase().contains("local"),
        "back in the local scope:\n{got}"
    );
    assert!(
        !h.path(".config/toolsearch/config.toml").exists(),
        "the last undo leaves no empty gateway config behind"
    );
}

/// The same server in two clients is served once; undoing one client keeps
/// it for the other; an entry that runs a gateway is never moved behind one;
/// backups do not pile up; the last undo leaves no empty config.
#[test]
#[ignore = "needs mcp-server-time (`cargo xtask fixtures`); `cargo xtask test` runs it"]
fn identical_servers_are_served_once_and_kept_while_another_client_needs_them() {
    let h = Home::new("same");
    let time =
        json!({"command": "python3", "args": ["-m", "mcp_server_time"], "env": {"TZ": "UTC"}});
    let cursor = ".cursor/mcp.json";
    let desktop = ".config/Claude/claude_desktop_config.json";
    h.write(
        cursor,
        &json!({"mcpServers": {"time": time,
            "old-gateway": {"command": "/opt/bin/toolsearch", "args": ["gateway", "--config", "/etc/gw.toml"]}}})
        .to_string(),
        0o644,
    );
    h.write(
        desktop,
        &json!({"mcpServers": {"clock": time}}).to_string(),
        0o644,
    );
    let connect = |args: &[&str]| {
        let (out, v) = h.connect(args);
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        v
    };
    let dry = connect(&["claude-desktop", "--dry-run"]);
    let first = connect(&["cursor"]);
    assert_eq!(first["moved"].as_array().unwrap().len(), 1, "{first}");
    let kept = first["kept"].to_string();
    assert!(
        kept.contains("old-gateway") && kept.contains("gateway itself"),
        "{first}"
    );
    assert!(
        dry["gateway_servers"][0]["env"]["TZ"] == "UTC",
        "a plain setting is shown: {dry}"
    );
    let second = connect(&["claude-desktop"]);
    assert_eq!(second["moved"][0]["as"], "time", "{second}");
    assert_eq!(second["moved"][0]["same_as_existing"], true, "{second}");
    let config = h.path(".config/toolsearch/config.toml");
    let gateway = std::fs::read_to_string(&config).unwrap();
    assert_eq!(
        gateway.matches("[[servers]]").count(),
        1,
        "served once:\n{gateway}"
    );

    let undone = connect(&["cursor", "--undo"]);
    assert_eq!(undone["kept_in_gateway"], json!(["time"]), "{undone}");
    assert!(std::fs::read_to_string(&config)
        .unwrap()
        .contains("mcp_server_time"));
    let undone = connect(&["claude-desktop", "--undo"]);
    assert_eq!(undone["removed_from_gateway"], json!(["time"]), "{undone}");
    assert!(!config.exists(), "the last undo removes the emptied config");

    // Connect and undo again and again: three backups of the file at most.
    for _ in 0..3 {
        connect(&["cursor"]);
        std::thread::sleep(std::time::Duration::from_millis(1100));
        connect(&["cursor", "--undo"]);
        std::thread::sleep(std::time::Duration::from_millis(1100));
    }
    let backups = std::fs::read_dir(h.path(".cursor"))
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .contains("toolsearch-backup")
        })
        .count();
    assert!((1..=3).contains(&backups), "{backups} backups");
}
