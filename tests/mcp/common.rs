//! Starting the gateway binary with a config over the fixture servers, and
//! looking at the processes it started.

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::{json, Value};

pub use toolsearch_tests::{binary, repo};

pub fn node_module(path: &str) -> PathBuf {
    let p = repo().join("tests/fixtures/node_modules").join(path);
    assert!(
        p.exists(),
        "{} is missing: run `cargo xtask setup` (npm ci in tests/fixtures)",
        p.display()
    );
    p
}

pub fn python_module_ok(module: &str) {
    let ok = std::process::Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "python3 cannot import {module}: run `cargo xtask setup` (pip install -r tests/fixtures/requirements.txt)");
}

/// The `[[servers]]` of the three fixture servers.
pub fn servers() -> String {
    python_module_ok("mcp_server_time");
    let everything = node_module("@modelcontextprotocol/server-everything/dist/index.js");
    let memory = node_module("@modelcontextprotocol/server-memory/dist/index.js");
    let memory_file = temp_path("memory.jsonl");
    format!(
        r#"
[[servers]]
name = "everything"
command = "node"
args = [{everything:?}, "stdio"]

[[servers]]
name = "memory"
command = "node"
args = [{memory:?}]
env = {{ MEMORY_FILE_PATH = {memory_file:?} }}

[[servers]]
name = "time"
command = "python3"
args = ["-m", "mcp_server_time", "--local-timezone", "UTC"]
"#
    )
}

/// A loopback port free now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// One raw HTTP/1.1 request on loopback: status, headers (lower-cased
/// names), body.
pub fn raw(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    let mut all = Vec::new();
    let _ = s.read_to_end(&mut all);
    let text = String::from_utf8_lossy(&all).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, head.to_ascii_lowercase(), body.to_string())
}

static SEQ: AtomicU32 = AtomicU32::new(0);

/// A fresh path under the temp directory.
pub fn temp_path(name: &str) -> PathBuf {
    let n = SEQ.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("toolsearch-mcp-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Writes a config: `head` (top-level keys) then the fixture servers.
pub fn config(head: &str) -> PathBuf {
    let path = temp_path("gateway.toml");
    std::fs::write(&path, format!("{head}\n{}", servers())).unwrap();
    path
}

/// A gateway process and an rmcp client session with it.
pub struct Gw {
    pub client: RunningService<RoleClient, ()>,
    pub pid: u32,
}

impl Gw {
    pub async fn start(config: &Path) -> Gw {
        let mut cmd = tokio::process::Command::new(binary());
        cmd.args(["gateway", "--config"]).arg(config);
        let transport = TokioChildProcess::new(cmd).expect("start the gateway");
        let pid = transport.id().expect("pid");
        let client = ().serve(transport).await.expect("initialize");
        Gw { client, pid }
    }

    pub async fn call(&self, name: &str, args: Value) -> CallToolResult {
        let Value::Object(args) = args else {
            panic!("args must be an object")
        };
        self.client
            .peer()
            .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(args))
            .await
            .unwrap_or_else(|e| panic!("calling {name}: {e}"))
    }

    /// Runs a snippet; its `ExecResult` JSON.
    pub async fn code(&self, code: &str) -> Value {
        let r = self.call("tool_search_code", json!({"code": code})).await;
        crate::harness::code_view(&r)
    }

    pub async fn tool_names(&self) -> Vec<String> {
        let tools = self
            .client
            .peer()
            .list_all_tools()
            .await
            .expect("tools/list");
        tools.into_iter().map(|t| t.name.to_string()).collect()
    }
}

/// The JSON in a result's first text item.
pub fn text_json(r: &CallToolResult) -> Value {
    let v = serde_json::to_value(r).unwrap();
    let text = v["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {v}"));
    serde_json::from_str(text).unwrap_or_else(|_| panic!("not JSON: {text}"))
}

/// Every live descendant of `pid`, with its command line.
pub fn descendants(pid: u32) -> Vec<(u32, String)> {
    let mut parent_of = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(p) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else {
            continue;
        };
        // pid (comm) state ppid ...: comm may hold spaces and parentheses.
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
            continue;
        };
        let mut f = after.split_whitespace();
        let state = f.next().unwrap_or("");
        let ppid: u32 = f.next().and_then(|x| x.parse().ok()).unwrap_or(0);
        if state == "Z" {
            continue;
        }
        let cmd = std::fs::read(format!("/proc/{p}/cmdline"))
            .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
            .unwrap_or_default();
        parent_of.push((p, ppid, cmd));
    }
    let mut out: Vec<(u32, String)> = Vec::new();
    let mut frontier = vec![pid];
    while let Some(parent) = frontier.pop() {
        for (p, pp, cmd) in &parent_of {
            if *pp == parent {
                out.push((*p, cmd.clone()));
                frontier.push(*p);
            }
        }
    }
    out
}

pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| s.rfind(')').is_some_and(|i| !s[i + 2..].starts_with('Z')))
        .unwrap_or(false)
}

/// Slack for a wait that only guards against a hang: generous, since CI runs
/// on two cores busy with other work, and a passing wait ends at once anyway.
/// Tests assert outcomes; speed is for the benchmarks.
pub const HANG_GUARD: Duration = Duration::from_secs(30);

/// Polls `f` every 100 ms for up to `secs` seconds.
pub async fn eventually<F: FnMut() -> bool>(secs: u64, mut f: F) -> bool {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while std::time::Instant::now() < until {
        if f() {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    f()
}

/// Starts `toolsearch gateway --http 127.0.0.1:0`; its port, from stderr.
pub fn http_gateway(cfg: &std::path::Path, env: &[(&str, &str)]) -> (std::process::Child, u16) {
    let mut cmd = Command::new(binary());
    cmd.args(["gateway", "--http", "127.0.0.1:0", "--config"])
        .arg(cfg)
        .envs(env.iter().copied());
    let (child, port, lines) = spawn_http_gateway(cmd);
    // Keep draining stderr so the gateway never blocks on it.
    std::thread::spawn(move || for _ in lines {});
    (child, port)
}

/// The stderr lines of a gateway after the one that named its address.
pub type StderrLines = std::io::Lines<std::io::BufReader<std::process::ChildStderr>>;

/// Spawns `cmd`, a gateway serving HTTP on a loopback port it prints on stderr;
/// the process, its port, and the rest of its stderr (to be read, so that the
/// gateway never blocks on it).
pub fn spawn_http_gateway(cmd: Command) -> (std::process::Child, u16, StderrLines) {
    let (child, port, _, lines) = spawn_http_gateway_with_admin(cmd);
    (child, port, lines)
}

/// [`spawn_http_gateway`], and the admin surface's address (`127.0.0.1:N`)
/// when the gateway printed one before its MCP address.
pub fn spawn_http_gateway_with_admin(
    mut cmd: Command,
) -> (std::process::Child, u16, Option<String>, StderrLines) {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let t0 = Instant::now();
    let mut admin = None;
    let port = loop {
        let line = lines
            .next()
            .expect("the gateway printed its address")
            .unwrap();
        if let Some(url) = line.strip_prefix("toolsearch: admin surface on ") {
            // `127.0.0.1:N`, or `https://ADDR` when the surface speaks TLS.
            admin = Some(url.trim().trim_start_matches("http://").to_string());
        } else if let Some(rest) = line
            .strip_prefix("toolsearch: serving MCP on ")
            .and_then(|l| l.split("://127.0.0.1:").nth(1))
        {
            break rest.trim_end_matches("/mcp").parse::<u16>().unwrap();
        }
        assert!(t0.elapsed() < Duration::from_secs(60));
    };
    (child, port, admin, lines)
}

/// A gateway's stderr lines, kept as a thread of their own reads them (so
/// that the gateway never blocks on its stderr).
pub struct KeptLines(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl KeptLines {
    /// How many lines so far hold `needle`.
    pub fn holding(&self, needle: &str) -> usize {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.contains(needle))
            .count()
    }

    /// How many lines hold `needle` once at least `n` do, or after 30 s (a
    /// line the gateway wrote before it answered may still be on its way
    /// through the pipe).
    pub async fn holding_at_least(&self, needle: &str, n: usize) -> usize {
        let started = Instant::now();
        loop {
            let held = self.holding(needle);
            if held >= n || started.elapsed() > Duration::from_secs(30) {
                return held;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// Keeps every line of `lines` from now on.
pub fn kept_lines(lines: StderrLines) -> KeptLines {
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let keep = log.clone();
    std::thread::spawn(move || {
        for l in lines.map_while(Result::ok) {
            keep.lock().unwrap().push(l);
        }
    });
    KeptLines(log)
}

/// CPU time (user + system, in clock ticks) a process has used so far.
pub fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // After "pid (comm) ": state is field 3; utime and stime are fields 14 and 15.
    let Some(after) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
        return 0;
    };
    let f: Vec<&str> = after.split_whitespace().collect();
    let field = |n: usize| {
        f.get(n - 3)
            .and_then(|x| x.parse::<u64>().ok())
            .unwrap_or(0)
    };
    field(14) + field(15)
}
