//! `toolsearch connect CLIENT`: moves the MCP servers configured in a client
//! behind the gateway (into the gateway's config) and leaves one `toolsearch`
//! entry in the client; `--undo` puts them back, `--dry-run` shows the change.
//! The client's own CLI makes the changes where it has one that makes them
//! without loss (`clients::cli_command`); otherwise its file is edited, after a
//! backup. Connect keeps a record of what it moved beside the gateway's config
//! (`connect/CLIENT-SCOPE.json`, 0600), which `--undo` replays in reverse, so
//! what the client wrote since is kept.

mod classify;
mod clients;
mod files;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use classify::{decide, gateway_name, Decision, Table};
use clients::{cli_command, Client, Format, Op, Scope};

/// The name of the entry connect leaves in the client.
const ENTRY: &str = "toolsearch";

#[derive(clap::Args)]
pub struct Args {
    /// The client whose servers move behind the gateway.
    client: Client,
    /// Move the servers of this project (the client's project scope: `.mcp.json`,
    /// `.cursor/mcp.json`, `.vscode/mcp.json`, `.codex/config.toml`,
    /// `.gemini/settings.json`) instead of the user's.
    #[arg(long)]
    project: Option<PathBuf>,
    /// Put the servers connect moved back in the client and remove its entry.
    #[arg(long)]
    undo: bool,
    /// Print the change; make none.
    #[arg(long)]
    dry_run: bool,
    /// The gateway's config file (default: ~/.config/toolsearch/config.toml).
    #[arg(long, env = "TOOLSEARCH_CONFIG")]
    config: Option<PathBuf>,
}

/// One scope of the client a run works in.
struct Place {
    client: Client,
    scope: Scope,
    file: PathBuf,
    format: Format,
    config: PathBuf,
    record: PathBuf,
}

impl Place {
    fn new(client: Client, scope: Scope, config: &Path) -> Result<Place> {
        let tag = match &scope {
            Scope::User => "user".to_owned(),
            Scope::Local(d) | Scope::Project(d) => format!(
                "{}-{}",
                scope.name(),
                &crate::common::hex(&Sha256::digest(d.display().to_string().as_bytes()))[..12]
            ),
        };
        let record = config
            .parent()
            .context("the gateway's config has no folder")?
            .join("connect")
            .join(format!("{}-{tag}.json", client.name()));
        Ok(Place {
            client,
            file: client.file(&scope)?,
            format: client.format(&scope),
            scope,
            config: config.to_path_buf(),
            record,
        })
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let config = match args.config {
        Some(c) => absolute(&c)?,
        None => crate::gateway::default_config_file()
            .context("no default place for the gateway's config: set HOME or pass --config")?,
    };
    let scopes = match &args.project {
        Some(p) => vec![Scope::Project(
            p.canonicalize()
                .with_context(|| format!("--project {}", p.display()))?,
        )],
        None => {
            let cwd = std::env::current_dir().context("reading the current folder")?;
            args.client.scopes(&cwd.canonicalize().unwrap_or(cwd))
        }
    };
    let places = scopes
        .into_iter()
        .map(|s| Place::new(args.client, s, &config))
        .collect::<Result<Vec<_>>>()?;
    let report = if args.undo {
        undo(&places, args.dry_run)?
    } else {
        connect(&places, args.dry_run)?
    };
    crate::common::print_json(report)?;
    Ok(ExitCode::SUCCESS)
}

fn absolute(p: &Path) -> Result<PathBuf> {
    Ok(if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()?.join(p)
    })
}

/// A server connect takes from a scope: its name there, its name in the
/// gateway, its table there and its entry as the client had it.
type Moved = (String, String, Table, Value);

/// What one scope gives and what changes in it.
struct Plan {
    servers: Map<String, Value>,
    moved: Vec<Moved>,
    ops: Vec<Op>,
}

/// Moves the servers of every scope of `places` behind the gateway. The
/// entry goes in the first (the user's, or the project's with
/// `--project`); the others only lose the servers moved.
fn connect(places: &[Place], dry_run: bool) -> Result<Value> {
    let client = places[0].client;
    let exe = std::env::current_exe()
        .and_then(|e| e.canonicalize())
        .context("locating this executable")?;
    let (exe, exe_note) = stable_exe(exe);
    let entry = client.entry(&exe, &places[0].config);
    let mut taken: Vec<String> = files::gateway_names(&places[0].config)?;
    let had_servers = !taken.is_empty();
    // A server the gateway has already (the same one from another client or
    // scope) is served once: the move points at it.
    let mut same = files::gateway_keys(&places[0].config)?;
    let mut merged: std::collections::HashSet<String> = Default::default();
    let mut kept = Vec::new();
    let mut plans = Vec::with_capacity(places.len());
    for place in places {
        let servers = files::read_servers(&place.file, &place.format)?;
        let mut moved = Vec::new();
        for (name, e) in &servers {
            if name == ENTRY {
                continue;
            }
            if classify::is_gateway(e) {
                kept.push(json!({"name": name, "scope": place.scope.name(),
                    "reason": "it runs a toolsearch gateway itself: one behind another would only add a hop"}));
                continue;
            }
            match decide(client, e) {
                Decision::Keep(reason) => {
                    kept.push(json!({"name": name, "scope": place.scope.name(), "reason": reason}))
                }
                Decision::Move(table) => {
                    let table = match settle_oauth(table, e) {
                        Ok(t) => t,
                        Err(reason) => {
                            kept.push(json!({"name": name, "scope": place.scope.name(), "reason": reason}));
                            continue;
                        }
                    };
                    let key = table.key();
                    let as_name = match same.iter().find(|(k, _)| *k == key) {
                        Some((_, existing)) => {
                            merged.insert(existing.clone());
                            existing.clone()
                        }
                        None => {
                            let n = unique(gateway_name(name), client, &taken);
                            taken.push(n.clone());
                            same.push((key, n.clone()));
                            n
                        }
                    };
                    moved.push((name.clone(), as_name, table, e.clone()));
                }
            }
        }
        let ops = moved.iter().map(|m| Op::Remove(m.0.clone())).collect();
        plans.push(Plan {
            servers,
            moved,
            ops,
        });
    }
    let any_moved = plans.iter().any(|p| !p.moved.is_empty());
    let has_entry = plans[0].servers.get(ENTRY) == Some(&entry);
    let adds_entry = !has_entry && (any_moved || had_servers);
    if adds_entry {
        if plans[0].servers.contains_key(ENTRY) {
            plans[0].ops.push(Op::Remove(ENTRY.into()));
        }
        plans[0].ops.push(Op::Add(ENTRY.into(), entry.clone()));
    }
    let moved_list: Vec<Value> = places
        .iter()
        .zip(&plans)
        .flat_map(|(place, plan)| {
            plan.moved.iter().map(|(n, a, t, _)| {
                let mut m = json!({"name": n, "as": a, "scope": place.scope.name(), "transport": t.transport()});
                if t.oauth.is_some() {
                    m["needs_login"] = json!(format!("toolsearch oauth login {a}"));
                }
                if merged.contains(a) {
                    m["same_as_existing"] = json!(true);
                }
                m
            })
        })
        .collect();
    let mut report = json!({
        "client": client.name(),
        "scopes": places.iter().map(|p| json!({"scope": p.scope.name(), "file": p.file.display().to_string(),
            "folder": p.scope.dir().map(|d| d.display().to_string())})).collect::<Vec<_>>(),
        "gateway_config": places[0].config.display().to_string(),
        "dry_run": dry_run,
        "moved": moved_list,
        "kept": kept,
    });
    if plans.iter().all(|p| p.ops.is_empty()) {
        report["note"] = json!(if plans[0].servers.contains_key(ENTRY) {
            "already connected: nothing new to move"
        } else {
            "nothing to move: the client has no server the gateway can take, in any scope read"
        });
        return Ok(report);
    }
    if dry_run {
        report["gateway_servers"] = plans
            .iter()
            .flat_map(|p| p.moved.iter())
            .filter(|(_, a, _, _)| !merged.contains(a))
            .map(|(_, a, t, _)| redacted(a, t))
            .collect::<Vec<_>>()
            .into();
        report["changes"] = places
            .iter()
            .zip(&plans)
            .flat_map(|(place, p)| p.ops.iter().map(|op| describe(op, &place.scope)))
            .collect::<Vec<_>>()
            .into();
        if adds_entry {
            report["would_add"] =
                json!({"name": ENTRY, "command": entry["command"], "args": entry["args"]});
        }
        return Ok(report);
    }
    // The gateway's config first: if it cannot be written, the client is untouched.
    let add: Vec<(String, Table, String)> = plans
        .iter()
        .flat_map(|p| p.moved.iter())
        .filter(|(_, a, _, _)| !merged.contains(a))
        .map(|(_, a, t, _)| (a.clone(), t.clone(), client.name().to_owned()))
        .collect();
    files::edit_gateway(&places[0].config, &add, &[])?;
    let mut via = Vec::new();
    for (i, (place, plan)) in places.iter().zip(&plans).enumerate() {
        if plan.ops.is_empty() {
            continue;
        }
        let mut record = files::read_record(&place.record)?.unwrap_or_else(|| {
            json!({"client": client.name(), "scope": place.scope.name(),
                   "client_file": place.file.display().to_string(), "moved": []})
        });
        let previous = record.clone();
        if let Some(list) = record["moved"].as_array_mut() {
            list.extend(
                plan.moved
                    .iter()
                    .map(|(n, a, _, e)| json!({"name": n, "as": a, "entry": e})),
            );
        }
        if i == 0 {
            record["entry"] = entry.clone();
        }
        write_record(&place.record, &record)?;
        match apply(place, &plan.ops, false) {
            Ok((how, backup)) => via.push(json!({"scope": place.scope.name(), "via": how,
                "backup": backup.map(|b| b.display().to_string())})),
            Err(e) => {
                // This scope's servers go back out of the gateway so a second
                // try starts from the same place (scopes done before stay done).
                let names: Vec<String> = plan
                    .moved
                    .iter()
                    .map(|m| m.1.clone())
                    .filter(|a| !merged.contains(a))
                    .collect();
                let _ = files::edit_gateway(&place.config, &[], &names);
                let _ = write_record(&place.record, &previous);
                return Err(e);
            }
        }
        let after = files::read_servers(&place.file, &place.format)?;
        if let Some((n, ..)) = plan.moved.iter().find(|m| after.contains_key(&m.0)) {
            bail!(
                "{} still lists `{n}` in the {} scope after connect removed it",
                place.file.display(),
                place.scope.name()
            );
        }
        if i == 0 && adds_entry && !after.contains_key(ENTRY) {
            bail!(
                "{} has no `{ENTRY}` entry after connect added it",
                place.file.display()
            );
        }
    }
    report["changed"] = via.into();
    if adds_entry {
        report["entry"] = json!({"name": ENTRY, "scope": places[0].scope.name(),
            "command": entry["command"], "args": entry["args"]});
    }
    if let Some(note) = exe_note {
        report["warning"] = json!(note);
    }
    report["next"] = json!(client.next_step());
    let logins: Vec<String> = plans
        .iter()
        .flat_map(|p| p.moved.iter())
        .filter(|(_, a, t, _)| t.oauth.is_some() && !merged.contains(a))
        .map(|(_, a, _, _)| format!("toolsearch oauth login {a}"))
        .collect();
    if !logins.is_empty() {
        report["logins"] = json!({
            "note": "these servers need a login of the gateway's own (the client's tokens are never read); until then the gateway lists them as needing a login",
            "run": logins,
        });
    }
    Ok(report)
}

/// A remote server with no credential in the client's entry moves with
/// `oauth` when it refuses a request without a token (or cannot be reached
/// now: it is then asked again at login); one that answers needs no login.
/// An entry that says `oauth` (or wraps `mcp-remote`) is not asked.
fn settle_oauth(mut table: Table, entry: &Value) -> Result<Table, String> {
    let Some(url) = table.url.clone() else {
        return Ok(table);
    };
    if table.oauth.is_none() {
        return Ok(table);
    }
    // One that needs a login over `http://` to another machine stays: a
    // token is never sent in clear text.
    let clear_text = url.starts_with("http://") && !toolsearch_mcp::config::is_loopback_url(&url);
    let refuse = || {
        Err("it needs a login over http:// to another machine: a token is never sent in clear text (use https://)".to_string())
    };
    let said =
        entry.get("oauth").is_some() || table.command.is_none() && entry.get("command").is_some();
    if said {
        return if clear_text { refuse() } else { Ok(table) };
    }
    let open = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .ok()
        .and_then(|rt| {
            rt.block_on(toolsearch_mcp::oauth::asks_for_login(&url))
                .ok()
        })
        == Some(false);
    if open {
        table.oauth = None;
    } else if clear_text {
        return refuse();
    }
    Ok(table)
}

/// The command the client's entry runs: this executable, unless it lives in
/// a runner's cache (`uvx`, `pipx run`), which a cache clean removes; then a
/// `toolsearch` installed on PATH when there is one, else this one with a
/// warning that says how to make it last.
fn stable_exe(exe: PathBuf) -> (PathBuf, Option<String>) {
    let text = exe.display().to_string();
    let cached = [
        "/.cache/uv/",
        "/uv/archive-",
        "/.cache/pipx/",
        "/pipx/.cache/",
    ]
    .iter()
    .any(|p| text.contains(p));
    if !cached {
        return (exe, None);
    }
    let on_path = std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join("toolsearch"))
        .filter_map(|p| p.canonicalize().ok())
        .find(|p| p.is_file() && !p.display().to_string().contains("/.cache/"));
    match on_path {
        Some(p) => (p, None),
        None => (
            exe,
            Some(format!(
                "this toolsearch runs from a runner's cache ({text}): `uv cache clean` (or pipx's) \
                 removes it and the client's entry stops working. Install it to stay \
                 (`uv tool install` or `pipx install` with the same source), then run connect again"
            )),
        ),
    }
}

/// `name`, or `name-CLIENT`, `name-CLIENT-2`... when the gateway has it already.
fn unique(name: String, client: Client, taken: &[String]) -> String {
    let free = |n: &str| !taken.iter().any(|t| t.eq_ignore_ascii_case(n));
    if free(&name) {
        return name;
    }
    let base: String = format!("{name}-{}", client.name())
        .chars()
        .take(44)
        .collect();
    (1..)
        .map(|i| {
            if i == 1 {
                base.clone()
            } else {
                format!("{base}-{i}")
            }
        })
        .find(|n| free(n))
        .expect("an unused name")
}

/// A gateway table as `--dry-run` prints it: values of headers and of env (but
/// plain settings such as `TZ`) hidden.
fn redacted(name: &str, t: &Table) -> Value {
    let hide = |m: &std::collections::BTreeMap<String, String>| -> Map<String, Value> {
        m.keys().map(|k| (k.clone(), json!("<redacted>"))).collect()
    };
    let env: Map<String, Value> = t
        .env
        .iter()
        .map(|(k, v)| (k.clone(), json!(toolsearch_mcp::config::shown_env(k, v))))
        .collect();
    json!({"name": name, "command": t.command, "args": t.args, "env": env,
           "cwd": t.cwd, "url": t.url.as_deref().map(toolsearch_mcp::config::redact_url),
           "headers": hide(&t.headers), "allow": t.allow, "deny": t.deny})
}

fn describe(op: &Op, scope: &Scope) -> Value {
    match op {
        Op::Remove(n) => json!({"remove": n, "scope": scope.name()}),
        Op::Add(n, _) => json!({"add": n, "scope": scope.name()}),
    }
}

fn write_record(path: &Path, record: &Value) -> Result<()> {
    let mut text = serde_json::to_string_pretty(record)?;
    text.push('\n');
    files::write_atomic(path, text.as_bytes(), Some(0o600))
}

/// Runs `ops` on the client: each through its CLI where `cli_command` has one,
/// the rest as one edit of its file. Returns how, and the backup made.
fn apply(place: &Place, ops: &[Op], undo: bool) -> Result<(&'static str, Option<PathBuf>)> {
    let mut by_file = Vec::new();
    let mut used_cli = false;
    for op in ops {
        match cli_command(place.client, op, &place.scope, undo) {
            Some(mut c) => {
                used_cli = true;
                let what = match op {
                    Op::Remove(n) => format!("removing `{n}`"),
                    Op::Add(n, _) => format!("adding `{n}`"),
                };
                let out = run_bounded(&mut c, CLI_TIMEOUT)
                    .with_context(|| format!("{what} with {:?}", c.get_program()))?;
                if !out.status.success() {
                    bail!(
                        "{} failed {what} ({}): {}",
                        place.client.cli().unwrap_or("the client's CLI"),
                        out.status,
                        String::from_utf8_lossy(&out.stderr).trim()
                    );
                }
            }
            None => by_file.push(op.clone()),
        }
    }
    let backup = if by_file.is_empty() {
        None
    } else {
        files::edit_client(&place.file, &place.format, &by_file)?
    };
    let via = match (used_cli, by_file.is_empty()) {
        (true, true) => "the client's CLI",
        (true, false) => "the client's CLI and its file",
        _ => "its file",
    };
    Ok((via, backup))
}

/// The longest a client's CLI may take for one change (they take 1-4 s).
const CLI_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

/// Runs `c` with no input; kills it past `limit` (an error then).
fn run_bounded(
    c: &mut std::process::Command,
    limit: std::time::Duration,
) -> Result<std::process::Output> {
    use std::process::Stdio;
    let mut child = c
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let start = std::time::Instant::now();
    // The CLIs print a few lines: the pipes never fill before they exit.
    while child.try_wait()?.is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            bail!("no answer within {} s; stopped it", limit.as_secs());
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    Ok(child.wait_with_output()?)
}

/// Puts back what connect moved from every scope of `places` that has a
/// record, and removes the entry.
fn undo(places: &[Place], dry_run: bool) -> Result<Value> {
    let mut records = Vec::new();
    for place in places {
        if let Some(r) = files::read_record(&place.record)? {
            records.push((place, r));
        }
    }
    if records.is_empty() {
        bail!(
            "nothing to undo: connect has no record of moving {}'s servers (looked for {})",
            places[0].client.name(),
            places
                .iter()
                .map(|p| p.record.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let (mut restored, mut kept_theirs, mut owned, mut changes, mut plans) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, place) in places.iter().enumerate() {
        let servers = files::read_servers(&place.file, &place.format)?;
        let mut ops = Vec::new();
        if i == 0 && servers.contains_key(ENTRY) {
            ops.push(Op::Remove(ENTRY.into()));
        }
        let record = records
            .iter()
            .find(|(p, _)| std::ptr::eq(*p, place))
            .map(|(_, r)| r);
        for m in record
            .and_then(|r| r["moved"].as_array())
            .into_iter()
            .flatten()
        {
            let (Some(name), Some(as_name)) = (m["name"].as_str(), m["as"].as_str()) else {
                continue;
            };
            owned.push(as_name.to_owned());
            if servers.contains_key(name) {
                // The client has a server of that name again: it wrote it since.
                kept_theirs.push(name.to_owned());
            } else {
                ops.push(Op::Add(name.to_owned(), m["entry"].clone()));
                restored.push(name.to_owned());
            }
        }
        changes.extend(ops.iter().map(|op| describe(op, &place.scope)));
        plans.push(ops);
    }
    // A gateway server another client's (or scope's) move still points at
    // stays.
    let ours: Vec<&Path> = records.iter().map(|(p, _)| p.record.as_path()).collect();
    let others = files::names_in_other_records(&places[0].record, &ours)?;
    let (shared, owned): (Vec<String>, Vec<String>) =
        owned.into_iter().partition(|n| others.contains(n));
    let mut report = json!({
        "client": places[0].client.name(),
        "undo": true,
        "dry_run": dry_run,
        "scopes": records.iter().map(|(p, _)| p.scope.name()).collect::<Vec<_>>(),
        "gateway_config": places[0].config.display().to_string(),
        "restored": restored,
        "kept_yours": kept_theirs,
        "removed_from_gateway": owned,
    });
    if !shared.is_empty() {
        report["kept_in_gateway"] = json!(shared);
        report["kept_because"] = json!("another client's servers are the same ones");
    }
    if dry_run {
        report["changes"] = changes.into();
        return Ok(report);
    }
    let mut via = Vec::new();
    for (place, ops) in places.iter().zip(&plans) {
        if ops.is_empty() {
            continue;
        }
        let (how, backup) = apply(place, ops, true)?;
        via.push(json!({"scope": place.scope.name(), "via": how,
            "backup": backup.map(|b| b.display().to_string())}));
    }
    let config = &places[0].config;
    files::edit_gateway(config, &[], &owned)?;
    if files::gateway_names(config)?.is_empty() {
        // A config with no server serves no tool: one that holds nothing
        // else goes; one with settings of the user's stays, and says so.
        let text = std::fs::read_to_string(config).unwrap_or_default();
        if toml::from_str::<toml::Table>(&text).is_ok_and(|t| t.is_empty()) {
            std::fs::remove_file(config)
                .with_context(|| format!("removing {}", config.display()))?;
            report["gateway_config_removed"] = json!(true);
        } else {
            report["note"] = json!(format!(
                "{} names no server now: a gateway started with it serves no tool",
                config.display()
            ));
        }
    }
    for (place, _) in &records {
        std::fs::remove_file(&place.record)
            .with_context(|| format!("removing {}", place.record.display()))?;
    }
    report["changed"] = via.into();
    Ok(report)
}
