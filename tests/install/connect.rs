//! `toolsearch connect` for each client, in a temporary home holding a realistic
//! config of that client with two servers: a stdio one with a secret in its
//! environment and a remote one that signs in with the client's OAuth (both
//! moved behind the gateway; the remote one needs a login of the gateway's
//! own, `toolsearch oauth login`, and is listed so). Connect, check the client's file against its
//! documented shape, run the client's own listing where its CLI installs from
//! npm (Claude Code, Gemini CLI, Codex), let the client write something new,
//! undo, and check that the servers are back and the new entry is kept.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{root, Scratch};

const SECRET: &str = "sk-live-7f3a9c1e-do-not-print";

/// The `toolsearch` binary of this build, as connect records it (canonical).
pub(crate) fn toolsearch() -> PathBuf {
    toolsearch_tests::binary().canonicalize().unwrap()
}

/// The fixtures' npm binaries (`cargo xtask fixtures`).
pub(crate) fn npm_bin() -> PathBuf {
    let dir = root().join("tests/fixtures/node_modules/.bin");
    assert!(
        dir.join("claude").exists(),
        "{}: run `cargo xtask fixtures`",
        dir.display()
    );
    dir
}

/// A temporary home; commands run in it with a plain environment.
pub(crate) struct Home {
    _tmp: Scratch,
    home: PathBuf,
}

impl Home {
    pub(crate) fn new(what: &str) -> Home {
        let tmp = Scratch::new(what);
        let home = tmp.join("home");
        std::fs::create_dir_all(&home).unwrap();
        Home { _tmp: tmp, home }
    }
    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.home.join(rel)
    }
    pub(crate) fn command(&self, program: &Path) -> Command {
        let mut c = Command::new(program);
        let path = format!(
            "{}:{}",
            npm_bin().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        c.current_dir(&self.home)
            .env_clear()
            .env("HOME", &self.home)
            .env("PATH", path)
            .env("LANG", "C.UTF-8")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .stdin(Stdio::null());
        c
    }
    pub(crate) fn connect(&self, args: &[&str]) -> (Output, Value) {
        let out = run(self.command(&toolsearch()).arg("connect").args(args), 300);
        let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (out, v)
    }
    pub(crate) fn write(&self, rel: &str, text: &str, mode: u32) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    pub(crate) fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_default()
    }
}

/// Runs `c` to its end, killing it after `secs`.
pub(crate) fn run(c: &mut Command, secs: u64) -> Output {
    let child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("starting {:?}: {e}", c.get_program()));
    let pid = child.id();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = done.clone();
    std::thread::spawn(move || {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(secs) {
            if flag.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    });
    let out = child.wait_with_output().unwrap();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    out
}

pub(crate) fn text(o: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// The stdio server with a secret, in the JSON shape most clients share.
fn time_server(with_type: bool) -> Value {
    let mut v = json!({"command": "python3", "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"],
                       "env": {"TIME_API_KEY": SECRET}});
    if with_type {
        v["type"] = json!("stdio");
    }
    v
}

/// What every client's case shares: connect (after a dry run that changes
/// nothing), the gateway's side, then undo after the client wrote a new server.
/// `servers` reads the client's servers as JSON; `add_own` makes the client
/// write a server of its own.
fn round_trip(
    h: &Home,
    client: &str,
    file: &str,
    servers: &dyn Fn(&str) -> Value,
    listing: &dyn Fn(&Home),
    add_own: &dyn Fn(&Home),
) {
    let before = h.read(file);
    let before_mode = mode(&h.path(file));
    let (out, dry) = h.connect(&[client, "--dry-run"]);
    assert!(out.status.success(), "dry run: {}", text(&out));
    assert_eq!(h.read(file), before, "a dry run changes nothing");
    assert!(!h.path(".config/toolsearch/config.toml").exists());
    let names = |v: &Value| -> Vec<String> {
        let mut n: Vec<String> = v
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["name"].as_str().map(str::to_owned))
            .collect();
        n.sort();
        n
    };
    assert_eq!(names(&dry["moved"]), ["remote", "time"], "{dry}");
    assert!(
        !text(&out).contains(SECRET),
        "the dry run shows no secret:\n{}",
        text(&out)
    );

    let (out, report) = h.connect(&[client]);
    assert!(out.status.success(), "connect: {}", text(&out));
    assert!(
        !text(&out).contains(SECRET),
        "connect prints no secret:\n{}",
        text(&out)
    );
    assert_eq!(names(&report["moved"]), ["remote", "time"], "{report}");
    assert_eq!(report["kept"], json!([]), "{report}");
    let remote = report["moved"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "remote")
        .unwrap();
    let login = format!("toolsearch oauth login {}", remote["as"].as_str().unwrap());
    assert_eq!(remote["needs_login"], json!(login), "{report}");
    assert_eq!(report["logins"]["run"], json!([login]), "{report}");
    let after = servers(&h.read(file));
    assert!(
        after.get("time").is_none() && after.get("remote").is_none(),
        "{client}: both moved: {after}"
    );
    let entry = &after["toolsearch"];
    let config = h.path(".config/toolsearch/config.toml");
    assert_eq!(
        entry["command"],
        json!(toolsearch().display().to_string()),
        "{entry}"
    );
    assert_eq!(
        entry["args"],
        json!(["gateway", "--config", config.display().to_string()]),
        "{entry}"
    );
    assert!(
        mode(&h.path(file)) == before_mode || mode(&h.path(file)) & 0o077 == 0,
        "{client}: the client's file keeps its permissions"
    );
    // The gateway's side: the secret is there, and only its owner reads it.
    let gateway = std::fs::read_to_string(&config).unwrap();
    assert!(
        gateway.contains(SECRET) && gateway.contains("mcp_server_time"),
        "{gateway}"
    );
    assert_eq!(mode(&config), 0o600);
    assert!(gateway.contains(".oauth]"), "{gateway}");
    let check = run(h.command(&toolsearch()).args(["config", "check"]), 60);
    assert!(check.status.success(), "config check: {}", text(&check));
    assert!(!text(&check).contains(SECRET));
    // The OAuth server needs a login, and says which command makes it.
    let status = run(h.command(&toolsearch()).args(["oauth", "status"]), 60);
    let st: Value = serde_json::from_slice(&status.stdout).unwrap_or(Value::Null);
    assert_eq!(
        st["servers"][0]["state"],
        "needs-login",
        "{}",
        text(&status)
    );
    assert!(
        st["servers"][0]["reason"]
            .as_str()
            .unwrap_or_default()
            .contains(&login),
        "{st}"
    );
    // Connecting again moves nothing more and keeps one entry.
    let (out, again) = h.connect(&[client]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(again["moved"], json!([]), "{again}");

    listing(h);

    // The client writes a server of its own; undo keeps it.
    add_own(h);
    let (out, undone) = h.connect(&[client, "--undo"]);
    assert!(out.status.success(), "undo: {}", text(&out));
    assert_eq!(
        names(
            &undone["restored"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| json!({"name": n}))
                .collect::<Value>()
        ),
        ["remote", "time"],
        "{undone}"
    );
    let restored = servers(&h.read(file));
    assert!(restored.get("toolsearch").is_none(), "{restored}");
    assert!(
        restored.get("remote").is_some() && restored.get("notes").is_some(),
        "{restored}"
    );
    let time = &restored["time"];
    assert_eq!(
        time["env"]["TIME_API_KEY"], SECRET,
        "{client}: the server comes back whole"
    );
    assert!(
        !config.exists(),
        "the last undo removes the gateway config it emptied"
    );
    let (out, _) = h.connect(&[client, "--undo"]);
    assert!(!out.status.success());
    assert!(text(&out).contains("nothing to undo"), "{}", text(&out));
}

fn json_servers(key: &'static str) -> impl Fn(&str) -> Value {
    move |t: &str| serde_json::from_str::<Value>(t).unwrap()[key].clone()
}

/// Adds `notes` to the JSON file's `key` (what a client does when its user adds a server).
fn add_json(file: &'static str, key: &'static str) -> impl Fn(&Home) {
    move |h: &Home| {
        let mut v: Value = serde_json::from_str(&h.read(file)).unwrap();
        v[key]["notes"] = json!({"command": "notes-server", "args": []});
        std::fs::write(h.path(file), serde_json::to_string_pretty(&v).unwrap()).unwrap();
    }
}

fn no_listing(_: &Home) {}

#[test]
#[ignore = "needs the fixtures' npm clients and mcp-server-time (`cargo xtask fixtures`); `cargo xtask test` runs it"]
fn claude_code() {
    let h = Home::new("cc");
    let file = ".claude.json";
    let cfg = json!({"numStartups": 4, "userID": "0f1e", "projects": {"/work/app": {"allowedTools": []}},
        "mcpServers": {"time": time_server(true),
                       "remote": {"type": "http", "url": "https://mcp.linear.app/mcp"}}});
    h.write(file, &serde_json::to_string_pretty(&cfg).unwrap(), 0o600);
    let listing = |h: &Home| {
        // Claude Code's own health check starts the gateway and its server.
        let out = run(
            h.command(&npm_bin().join("claude")).args(["mcp", "list"]),
            180,
        );
        let t = text(&out);
        let line = t
            .lines()
            .find(|l| l.starts_with("toolsearch:"))
            .unwrap_or_default();
        assert!(
            line.contains("Connected") && !line.contains("Failed"),
            "claude mcp list:\n{t}"
        );
        eprintln!("claude mcp list: {line}");
        let keys: Value = serde_json::from_str(&h.read(file)).unwrap();
        assert_eq!(keys["userID"], "0f1e", "Claude's other keys are kept");
    };
    let add = |h: &Home| {
        let out = run(
            h.command(&npm_bin().join("claude")).args([
                "mcp",
                "add-json",
                "notes",
                r#"{"command":"notes-server"}"#,
                "-s",
                "user",
            ]),
            60,
        );
        assert!(out.status.success(), "{}", text(&out));
    };
    round_trip(
        &h,
        "claude-code",
        file,
        &json_servers("mcpServers"),
        &listing,
        &add,
    );
}

#[test]
#[ignore = "needs the fixtures' npm clients and mcp-server-time (`cargo xtask fixtures`); `cargo xtask test` runs it"]
fn gemini_cli() {
    let h = Home::new("gem");
    let file = ".gemini/settings.json";
    let cfg = json!({"theme": "Default", "general": {"vimMode": false},
        "mcpServers": {"time": time_server(false),
                       "remote": {"httpUrl": "https://mcp.linear.app/mcp", "oauth": {"enabled": true}}}});
    h.write(file, &serde_json::to_string_pretty(&cfg).unwrap(), 0o644);
    let listing = |h: &Home| {
        let out = run(
            h.command(&npm_bin().join("gemini"))
                .args(["mcp", "list"])
                .env("GEMINI_CLI_TRUST_WORKSPACE", "true"),
            180,
        );
        let t = text(&out);
        let line = t
            .lines()
            .find(|l| l.contains("toolsearch:"))
            .unwrap_or_default();
        assert!(line.contains("- Connected"), "gemini mcp list:\n{t}");
        eprintln!("gemini mcp list: {line}");
    };
    round_trip(
        &h,
        "gemini",
        file,
        &json_servers("mcpServers"),
        &listing,
        &add_json(file, "mcpServers"),
    );
}

#[test]
#[ignore = "needs the fixtures' npm clients and mcp-server-time (`cargo xtask fixtures`); `cargo xtask test` runs it"]
fn codex() {
    let h = Home::new("codex");
    let file = ".codex/config.toml";
    let cfg = format!(
        "# Codex settings\nmodel = \"gpt-5-codex\"\n\n[mcp_servers.time]\ncommand = \"python3\"\n\
         args = [\"-m\", \"mcp_server_time\", \"--local-timezone\", \"UTC\"]\nenv = {{ TIME_API_KEY = \"{SECRET}\" }}\n\n\
         [mcp_servers.remote]\nurl = \"https://mcp.linear.app/mcp\"\n"
    );
    h.write(file, &cfg, 0o600);
    let servers = |t: &str| -> Value {
        let doc: toml::Table = toml::from_str(t).unwrap();
        serde_json::to_value(
            doc.get("mcp_servers")
                .cloned()
                .unwrap_or(toml::Value::Table(Default::default())),
        )
        .unwrap()
    };
    let listing = |h: &Home| {
        let out = run(
            h.command(&npm_bin().join("codex"))
                .args(["mcp", "list", "--json"]),
            120,
        );
        let t = String::from_utf8_lossy(&out.stdout).to_string();
        let list: Value = serde_json::from_str(&t)
            .unwrap_or_else(|e| panic!("codex mcp list --json ({e}):\n{}", text(&out)));
        let ours = list
            .as_array()
            .into_iter()
            .flatten()
            .find(|s| s["name"] == "toolsearch")
            .cloned();
        let ours = ours.unwrap_or_else(|| panic!("codex mcp list: no toolsearch:\n{t}"));
        assert_eq!(ours["enabled"], true, "{ours}");
        assert_eq!(
            ours["transport"]["command"],
            json!(toolsearch().display().to_string()),
            "{ours}"
        );
        assert!(
            h.read(file).starts_with("# Codex settings"),
            "Codex's comments are kept"
        );
        eprintln!("codex mcp list --json: toolsearch {}", ours["transport"]);
    };
    let add = |h: &Home| {
        let out = run(
            h.command(&npm_bin().join("codex"))
                .args(["mcp", "add", "notes", "--", "notes-server"]),
            60,
        );
        assert!(out.status.success(), "{}", text(&out));
    };
    round_trip(&h, "codex", file, &servers, &listing, &add);
}

#[test]
#[ignore = "needs mcp-server-time (`cargo xtask fixtures`); `cargo xtask test` runs it"]
fn claude_desktop() {
    let h = Home::new("cd");
    let file = ".config/Claude/claude_desktop_config.json";
    let cfg = json!({"globalShortcut": "Ctrl+Space",
        "mcpServers": {"time": time_server(false),
                       "remote": {"command": "npx", "args": ["-y", "mcp-remote", "https://mcp.notion.com/mcp"]}}});
    h.write(file, &serde_json::to_string_pretty(&cfg).unwrap(), 0o644);
    round_trip(
        &h,
        "claude-desktop",
        file,
        &json_servers("mcpServers"),
        &no_listing,
        &add_json(file, "mcpServers"),
    );
    assert!(std::fs::read_dir(h.path(".config/Claude"))
        .unwrap()
        .flatten()
        .any(|e| e
            .file_name()
            .to_string_lossy()
            .contains("toolsearch-backup")));
}

#[test]
#[ignore = "needs mcp-server-time (`cargo xtask fixtures`); `cargo xtask test` runs it"]
fn cursor() {
    let h = Home::new("cursor");
    let file = ".cursor/mcp.json";
    let cfg = json!({"mcpServers": {"time": time_server(false),
                                    "remote": {"url": "https://mcp.linear.app/mcp"}}});
    h.write(file, &serde_json::to_string_pretty(&cfg).unwrap(), 0o644);
    round_trip(
        &h,
        "cursor",
        file,
        &json_servers("mcpServers"),
        &no_listing,
        &add_json(file, "mcpServers"),
    );
}

#[test]
#[ignore = "needs mcp-server-time (`cargo xtask fixtures`); `cargo xtask test` runs it"]
fn vscode() {
    let h = Home::new("vscode");
    let file = ".config/Code/User/mcp.json";
    let cfg = json!({"servers": {"time": time_server(true),
                                 "remote": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}},
                     "inputs": []});
    h.write(file, &serde_json::to_string_pretty(&cfg).unwrap(), 0o644);
    let shape = |h: &Home| {
        let v: Value = serde_json::from_str(&h.read(file)).unwrap();
        assert_eq!(
            v["servers"]["toolsearch"]["type"], "stdio",
            "VS Code's documented shape: {v}"
        );
        assert_eq!(v["inputs"], json!([]), "VS Code's inputs are kept");
    };
    round_trip(
        &h,
        "vscode",
        file,
        &json_servers("servers"),
        &shape,
        &add_json(file, "servers"),
    );
}
