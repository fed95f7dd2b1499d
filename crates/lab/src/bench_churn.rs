//! `toolsearch-lab bench-churn`: how often a scripted day rewrites the prefix
//! a model is sent up front (the tool list and `initialize`'s instructions),
//! per mode and profile, against a real gateway process over HTTP with real
//! servers behind it (server-everything, server-memory, mcp-server-time run
//! lazily, and `tests/fixtures/churn_server.py`, whose list and health the
//! script drives through files). Each rewrite is a prompt-cache write for
//! every conversation that sees it; the report prints each, its cause and its
//! bytes, and the same day's cost for a plain aggregator (every tool's
//! definition sent up front, its servers' lists merged as they stand).
//!
//! Each client is a session of its own, connected as a user's would be; what
//! is compared is the `tools/list` answer as the client reads it and the
//! `instructions` of its `initialize`, byte for byte.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use rmcp::model::CallToolRequestParams;
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde_json::{json, Value};

#[derive(clap::Args)]
pub struct Args {
    /// The gateway binary measured (default: the `toolsearch` next to this
    /// one); a build of an older commit gives the "before".
    #[arg(long)]
    binary: Option<PathBuf>,
    /// Modes to replay the day in (comma-separated): `code`, `tools`,
    /// `reveal`, `direct` (every tool sent up front by the gateway itself).
    #[arg(long, default_value = "code,tools,reveal,direct")]
    modes: String,
    /// Seconds the fixture server stays down (the day's "5 minutes", scaled).
    #[arg(long, default_value_t = 4)]
    down_secs: u64,
    /// Seconds given to the gateway after each event before the clients look.
    #[arg(long, default_value_t = 2)]
    settle_secs: u64,
}

const PROFILES: [&str; 2] = ["all", "team"];

/// A client session that counts the `tools/list_changed` it hears.
#[derive(Clone, Default)]
struct Heard(Arc<AtomicUsize>);

impl rmcp::ClientHandler for Heard {
    async fn on_tool_list_changed(&self, _cx: NotificationContext<RoleClient>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

struct Client {
    service: RunningService<RoleClient, Heard>,
    heard: Heard,
}

impl Client {
    async fn connect(port: u16, profile: &str) -> Result<Client> {
        let heard = Heard::default();
        let transport = StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(format!("http://127.0.0.1:{port}/mcp"))
                .auth_header(token(profile)),
        );
        let service = heard
            .clone()
            .serve(transport)
            .await
            .with_context(|| format!("initialize as profile {profile}"))?;
        Ok(Client { service, heard })
    }

    /// The prefix as this client reads it: the served tools and the
    /// instructions, as JSON text.
    async fn prefix(&self) -> Result<Prefix> {
        let tools = self.service.peer().list_all_tools().await?;
        let instructions = self
            .service
            .peer_info()
            .and_then(|i| i.instructions.clone())
            .unwrap_or_default();
        Ok(Prefix {
            tools: serde_json::to_string(&tools)?,
            instructions,
            heard: self.heard.0.load(Ordering::SeqCst),
        })
    }

    async fn call(&self, name: &str, args: Value) -> Result<()> {
        let r = self
            .service
            .peer()
            .call_tool(
                CallToolRequestParams::new(name.to_string())
                    .with_arguments(args.as_object().cloned().unwrap_or_default()),
            )
            .await?;
        if r.is_error == Some(true) {
            bail!("{name} failed: {}", serde_json::to_string(&r.content)?);
        }
        Ok(())
    }
}

fn token(profile: &str) -> String {
    format!("churn-token-{profile}-0123456789abcdef")
}

#[derive(Clone, PartialEq)]
struct Prefix {
    tools: String,
    instructions: String,
    heard: usize,
}

impl Prefix {
    fn same_bytes(&self, other: &Prefix) -> bool {
        self.tools == other.tools && self.instructions == other.instructions
    }
}

/// One event's effect on one profile's client.
struct Row {
    event: &'static str,
    profile: &'static str,
    /// Prefix rewrites the client saw.
    changes: usize,
    /// `list_changed` it heard.
    heard: usize,
    /// The prefix's size after the event (tools and instructions).
    bytes: usize,
    /// Where the first rewrite differed: the new bytes around it.
    what: String,
}

/// The new text around the first byte where `old` and `new` differ.
fn first_difference(old: &Prefix, new: &Prefix) -> String {
    let (a, b) = if old.tools != new.tools {
        (&old.tools, &new.tools)
    } else {
        (&old.instructions, &new.instructions)
    };
    let at = a
        .bytes()
        .zip(b.bytes())
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let from = b.floor_char_boundary(at.saturating_sub(40));
    let to = b.ceil_char_boundary((at + 60).min(b.len()));
    format!("…{}…", &b[from..to])
        .replace('|', "\\|")
        .replace('`', "'")
}

/// A plain aggregator's rewrites for each event: it serves the union of its
/// servers' lists as they stand (a server's tools leave with it and return
/// with it, in the order listed; a client connecting at start sees the
/// servers connected so far).
fn aggregator_changes(event: &str, profile: &str) -> usize {
    match event {
        "start (no manifests)"
        | "restart"
        | "server down"
        | "server back"
        | "same tools reordered"
        | "tool added" => 1,
        "profile narrowed" if profile == "team" => 1,
        _ => 0,
    }
}

struct Gateway {
    child: Child,
    port: u16,
}

impl Gateway {
    fn start(exe: &Path, cfg: &Path) -> Result<Gateway> {
        let mut child = Command::new(exe)
            .args(["gateway", "--http", "127.0.0.1:0", "--config"])
            .arg(cfg)
            .envs(PROFILES.map(|p| (format!("CHURN_TOKEN_{}", p.to_uppercase()), token(p))))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("starting {}", exe.display()))?;
        let port = crate::gateway_port(&mut child)?;
        Ok(Gateway { child, port })
    }

    fn signal(&self, sig: &str) -> Result<()> {
        let ok = Command::new("kill")
            .args([sig, &self.child.id().to_string()])
            .status()?
            .success();
        anyhow::ensure!(ok, "kill {sig} failed");
        Ok(())
    }

    fn stop(mut self) -> Result<()> {
        self.signal("-TERM")?;
        let t0 = Instant::now();
        while self.child.try_wait()?.is_none() {
            if t0.elapsed() > Duration::from_secs(10) {
                self.child.kill()?;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(())
    }
}

/// The fixture server's tools: `n` of them, in the order given, each schema's
/// keys in the order given (`shuffled` reverses both).
fn churn_tools(n: usize, shuffled: bool) -> Value {
    let names = ["deploy", "rollback", "status", "promote"];
    let mut tools: Vec<Value> = names[..n]
        .iter()
        .map(|name| {
            let props = vec![
                ("service", json!({"type": "string", "description": "Service name."})),
                ("region", json!({"type": "string", "enum": ["eu", "us"]})),
                ("dry_run", json!({"type": "boolean", "default": false})),
            ];
            let keyed = |pairs: Vec<(&str, Value)>| {
                let mut m = serde_json::Map::new();
                let it: Vec<_> = if shuffled {
                    pairs.into_iter().rev().collect()
                } else {
                    pairs
                };
                for (k, v) in it {
                    m.insert(k.to_string(), v);
                }
                Value::Object(m)
            };
            let schema = keyed(vec![
                ("type", json!("object")),
                ("properties", keyed(props)),
                ("required", json!(["service"])),
            ]);
            json!({"name": name, "description": format!("{name} a service in a region."), "inputSchema": schema})
        })
        .collect();
    if shuffled {
        tools.reverse();
    }
    Value::Array(tools)
}

struct Day {
    dir: PathBuf,
    mode: String,
    exe: PathBuf,
}

impl Day {
    fn list_file(&self) -> PathBuf {
        self.dir.join("churn-list.json")
    }
    fn down_file(&self) -> PathBuf {
        self.dir.join("churn-down")
    }
    fn config(&self) -> PathBuf {
        self.dir.join("gateway.toml")
    }

    fn write_config(&self, rate: u64, team: &[&str]) -> Result<()> {
        let repo = repo_root()?;
        let node = repo.join("tests/fixtures/node_modules/@modelcontextprotocol");
        let everything = node.join("server-everything/dist/index.js");
        let memory = node.join("server-memory/dist/index.js");
        anyhow::ensure!(
            everything.is_file() && memory.is_file(),
            "{} lacks the npm servers: run `cargo xtask setup`",
            node.display()
        );
        let (mode, activation) = match self.mode.as_str() {
            "direct" => ("code", "never"),
            m => (m, "always"),
        };
        let s = |p: &Path| p.display().to_string();
        let text = format!(
            r#"mode = "{mode}"
activation = "{activation}"
semantic = false
manifest_dir = {manifests:?}

[http]
rate_limit_per_minute = {rate}

[[servers]]
name = "everything"
command = "node"
args = [{everything:?}, "stdio"]

[[servers]]
name = "memory"
command = "node"
args = [{memory:?}]
env = {{ MEMORY_FILE_PATH = {memfile:?} }}

[[servers]]
name = "churn"
command = "python3"
args = [{churn:?}]
env = {{ LIST_FILE = {list:?}, DOWN_FILE = {down:?} }}

[[servers]]
name = "time"
command = "python3"
args = ["-m", "mcp_server_time", "--local-timezone", "UTC"]
lazy = true

[[profiles]]
name = "all"
token_env = ["CHURN_TOKEN_ALL"]

[[profiles]]
name = "team"
servers = {team:?}
token_env = ["CHURN_TOKEN_TEAM"]
"#,
            manifests = s(&self.dir.join("manifests")),
            everything = s(&everything),
            memory = s(&memory),
            memfile = s(&self.dir.join("memory.jsonl")),
            churn = s(&repo.join("tests/fixtures/churn_server.py")),
            list = s(&self.list_file()),
            down = s(&self.down_file()),
        );
        std::fs::write(self.config(), text)?;
        Ok(())
    }

    fn set_list(&self, tools: &Value) -> Result<()> {
        let tmp = self.dir.join("churn-list.tmp");
        std::fs::write(&tmp, serde_json::to_string(tools)?)?;
        std::fs::rename(tmp, self.list_file())?;
        Ok(())
    }
}

/// The repository (its fixtures): the working directory or one above it.
fn repo_root() -> Result<PathBuf> {
    let here = std::env::current_dir()?;
    here.ancestors()
        .find(|d| d.join("tests/fixtures/churn_server.py").is_file())
        .map(Path::to_path_buf)
        .context("run from the repository (its tests/fixtures/churn_server.py is needed)")
}

async fn connect_all(port: u16) -> Result<Vec<Client>> {
    let mut out = Vec::new();
    for p in PROFILES {
        out.push(Client::connect(port, p).await?);
    }
    Ok(out)
}

/// Each client's prefix now, against `last`: one row per profile; `last`
/// becomes now. `fresh` clients (new sessions) are compared with the last
/// prefix of the profile's earlier session.
async fn look(
    event: &'static str,
    clients: &[Client],
    last: &mut [Prefix],
    rows: &mut Vec<Row>,
    fresh: bool,
) -> Result<()> {
    for (i, c) in clients.iter().enumerate() {
        let now = c.prefix().await?;
        let changed = usize::from(!now.same_bytes(&last[i]));
        let what = if changed > 0 {
            first_difference(&last[i], &now)
        } else {
            String::new()
        };
        let heard = if fresh {
            now.heard
        } else {
            now.heard - last[i].heard
        };
        match rows
            .iter_mut()
            .find(|r| r.event == event && r.profile == PROFILES[i])
        {
            Some(r) => {
                r.changes += changed;
                r.heard += heard;
                r.bytes = now.tools.len() + now.instructions.len();
                if r.what.is_empty() {
                    r.what = what;
                }
            }
            None => rows.push(Row {
                event,
                profile: PROFILES[i],
                changes: changed,
                heard,
                bytes: now.tools.len() + now.instructions.len(),
                what,
            }),
        }
        last[i] = now;
    }
    Ok(())
}

/// Looks every half second until the prefixes stood still for two seconds
/// (at most 30 s): what a slow server's late list changes is counted.
async fn look_until_quiet(
    event: &'static str,
    clients: &[Client],
    last: &mut [Prefix],
    rows: &mut Vec<Row>,
) -> Result<()> {
    let t0 = Instant::now();
    let mut still = 0;
    while still < 4 && t0.elapsed() < Duration::from_secs(30) {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let before: Vec<Prefix> = last.to_vec();
        look(event, clients, last, rows, false).await?;
        still = if before == *last { still + 1 } else { 0 };
    }
    Ok(())
}

async fn close(clients: Vec<Client>) {
    for c in clients {
        let _ = c.service.cancel().await;
    }
}

/// The lazy server's tool, called as a client of profile `all` in `mode`
/// would (a separate session, not one whose prefix is watched).
async fn call_lazy(port: u16, mode: &str) -> Result<()> {
    let c = Client::connect(port, "all").await?;
    let args = json!({"timezone": "UTC"});
    let called: Result<()> = match mode {
        "code" => {
            c.call(
                "tool_search_code",
                json!({"code": format!("return await openclaw.tools.call('mcp:time:get_current_time', {args})")}),
            )
            .await
        }
        "tools" => {
            c.call(
                "tool_call",
                json!({"id": "mcp:time:get_current_time", "arguments": args}),
            )
            .await
        }
        _ => {
            if mode == "reveal" {
                c.call("tool_search", json!({"query": "get_current_time"}))
                    .await?;
            }
            let tools = c.service.peer().list_all_tools().await?;
            let name = tools
                .iter()
                .map(|t| t.name.to_string())
                .find(|n| n.contains("get_current_time"))
                .context("no get_current_time tool served")?;
            c.call(&name, args).await
        }
    };
    called?;
    close(vec![c]).await;
    Ok(())
}

async fn replay(day: &Day, a: &Args) -> Result<(Vec<Row>, bool)> {
    let settle = Duration::from_secs(a.settle_secs);
    let mut rows = Vec::new();
    let _ = std::fs::remove_file(day.down_file());
    day.set_list(&churn_tools(3, false))?;
    day.write_config(600, &["churn", "time", "memory"])?;

    let gw = Gateway::start(&day.exe, &day.config())?;
    let clients = connect_all(gw.port).await?;
    let mut last = Vec::new();
    for c in &clients {
        last.push(c.prefix().await?);
    }
    for (i, profile) in PROFILES.into_iter().enumerate() {
        rows.push(Row {
            event: "start (no manifests)",
            profile,
            changes: 0,
            heard: last[i].heard,
            bytes: 0,
            what: String::new(),
        });
    }
    tokio::time::sleep(settle).await;
    look_until_quiet("start (no manifests)", &clients, &mut last, &mut rows).await?;
    close(clients).await;
    gw.stop()?;

    let gw = Gateway::start(&day.exe, &day.config())?;
    let clients = connect_all(gw.port).await?;
    look("restart", &clients, &mut last, &mut rows, true).await?;
    tokio::time::sleep(settle).await;
    look_until_quiet("restart", &clients, &mut last, &mut rows).await?;

    std::fs::write(day.down_file(), "")?;
    tokio::time::sleep(Duration::from_secs(a.down_secs)).await;
    look_until_quiet("server down", &clients, &mut last, &mut rows).await?;
    std::fs::remove_file(day.down_file())?;
    // Backoff doubles from 250 ms: the next start comes within the time it
    // was down, plus a start.
    tokio::time::sleep(Duration::from_secs(a.down_secs) + settle).await;
    look_until_quiet("server back", &clients, &mut last, &mut rows).await?;

    call_lazy(gw.port, &day.mode).await?;
    tokio::time::sleep(settle).await;
    look_until_quiet("lazy server started", &clients, &mut last, &mut rows).await?;

    day.set_list(&churn_tools(3, true))?;
    tokio::time::sleep(settle).await;
    look_until_quiet("same tools reordered", &clients, &mut last, &mut rows).await?;

    day.write_config(900, &["churn", "time", "memory"])?;
    gw.signal("-HUP")?;
    tokio::time::sleep(settle).await;
    look_until_quiet(
        "reload, nothing served changed",
        &clients,
        &mut last,
        &mut rows,
    )
    .await?;

    day.set_list(&churn_tools(4, true))?;
    tokio::time::sleep(settle).await;
    look_until_quiet("tool added", &clients, &mut last, &mut rows).await?;

    day.write_config(900, &["churn", "time"])?;
    gw.signal("-HUP")?;
    tokio::time::sleep(settle).await;
    look_until_quiet("profile narrowed", &clients, &mut last, &mut rows).await?;

    // A replica: a second process, the same configuration (and state).
    let twin = Gateway::start(&day.exe, &day.config())?;
    let twins = connect_all(twin.port).await?;
    let mut same = true;
    for (c, t) in clients.iter().zip(&twins) {
        same &= c.prefix().await?.same_bytes(&t.prefix().await?);
    }
    close(twins).await;
    twin.stop()?;
    close(clients).await;
    gw.stop()?;
    Ok((rows, same))
}

pub fn run(a: Args) -> Result<ExitCode> {
    toolsearch_mcp::http_client::install_tls_provider();
    let exe = match &a.binary {
        Some(b) => b.clone(),
        None => crate::toolsearch_exe()?,
    };
    let rt = tokio::runtime::Runtime::new()?;
    let mut by_mode: BTreeMap<String, (Vec<Row>, bool)> = BTreeMap::new();
    let modes: Vec<String> = a.modes.split(',').map(|m| m.trim().to_string()).collect();
    for mode in &modes {
        let dir =
            std::env::temp_dir().join(format!("toolsearch-churn-{}-{mode}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        let day = Day {
            dir: dir.clone(),
            mode: mode.clone(),
            exe: exe.clone(),
        };
        eprintln!("bench-churn: replaying the day in {mode} mode");
        let out = rt
            .block_on(replay(&day, &a))
            .with_context(|| format!("the day in {mode} mode"))?;
        let _ = std::fs::remove_dir_all(&dir);
        by_mode.insert(mode.clone(), out);
    }
    use std::io::Write;
    std::io::stdout().write_all(report(&modes, &by_mode, &a).as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

fn report(modes: &[String], by_mode: &BTreeMap<String, (Vec<Row>, bool)>, a: &Args) -> String {
    let mut out = format!(
        "The day: every event below in turn, each given {} s before the clients look; \
         the server down for {} s (the day's five minutes, scaled). A change is a \
         `tools/list` answer or `initialize` instructions differing by a byte from what \
         the same profile's client read last (a new session after a restart or on a \
         replica compared with the one before). Cache cost: the bytes of each rewritten \
         prefix, summed (each is written at 1.25x the input price for every conversation \
         that sees it; a read costs 0.1x).\n\n",
        a.settle_secs, a.down_secs
    );
    out.push_str("| event | profile |");
    for m in modes {
        out.push_str(&format!(" {m}: changes / list_changed / bytes |"));
    }
    out.push_str(" plain aggregator: changes |\n|---|---|");
    out.push_str(&"---|".repeat(modes.len() + 1));
    out.push('\n');
    let first = &by_mode[&modes[0]].0;
    for r in first {
        out.push_str(&format!("| {} | {} |", r.event, r.profile));
        for m in modes {
            let row = by_mode[m]
                .0
                .iter()
                .find(|x| x.event == r.event && x.profile == r.profile);
            match row {
                Some(x) => out.push_str(&format!(" {} / {} / {} |", x.changes, x.heard, x.bytes)),
                None => out.push_str(" - |"),
            }
        }
        out.push_str(&format!(" {} |\n", aggregator_changes(r.event, r.profile)));
    }
    out.push_str("\nWhat each change rewrote (the new bytes around the first that differs):\n\n| mode | event | profile | new bytes |\n|---|---|---|---|\n");
    for m in modes {
        for r in by_mode[m].0.iter().filter(|r| !r.what.is_empty()) {
            out.push_str(&format!(
                "| {m} | {} | {} | `{}` |\n",
                r.event, r.profile, r.what
            ));
        }
    }
    out.push_str("\n| mode | profile | changes not from tools added or removed or a profile narrowed | all changes | cache bytes written | plain aggregator's (over the direct list) | ratio | replica identical |\n|---|---|---|---|---|---|---|---|\n");
    let direct = by_mode.get("direct");
    for m in modes {
        let (rows, same) = &by_mode[m];
        for p in PROFILES {
            let mine: Vec<&Row> = rows.iter().filter(|r| r.profile == p).collect();
            let all: usize = mine.iter().map(|r| r.changes).sum();
            let avoidable: usize = mine
                .iter()
                .filter(|r| r.event != "tool added" && r.event != "profile narrowed")
                .map(|r| r.changes)
                .sum();
            let written: usize = mine.iter().map(|r| r.changes * r.bytes).sum();
            let agg: Option<usize> = direct.map(|(d, _)| {
                d.iter()
                    .filter(|r| r.profile == p)
                    .map(|r| aggregator_changes(r.event, p) * r.bytes)
                    .sum()
            });
            let (agg_s, ratio) = match agg {
                Some(g) if g > 0 => (g.to_string(), format!("{:.3}", written as f64 / g as f64)),
                _ => ("-".into(), "-".into()),
            };
            out.push_str(&format!(
                "| {m} | {p} | {avoidable} | {all} | {written} | {agg_s} | {ratio} | {} |\n",
                if *same { "yes" } else { "no" }
            ));
        }
    }
    out
}
