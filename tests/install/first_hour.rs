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
