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
use clients::{cli_command, Client, Op};

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

/// Where one run works.
struct Place {
    client: Client,
    project: Option<PathBuf>,
    file: PathBuf,
    config: PathBuf,
    record: PathBuf,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let config = match args.config {
        Some(c) => absolute(&c)?,
        None => crate::gateway::default_config_file()
            .context("no default place for the gateway's config: set HOME or pass --config")?,
    };
    let project = match &args.project {
        Some(p) => Some(
            p.canonicalize()
                .with_context(|| format!("--project {}", p.display()))?,
        ),
        None => None,
    };
    let file = args.client.file(project.as_deref())?;
    let scope = match &project {
        None => "user".to_owned(),
        Some(p) => format!(
            "project-{}",
            &crate::common::hex(&Sha256::digest(p.display().to_string().as_bytes()))[..12]
        ),
    };
    let record = config
        .parent()
        .context("the gateway's config has no folder")?
        .join("connect")
        .join(format!("{}-{scope}.json", args.client.name()));
    let place = Place {
        client: args.client,
        project,
        file,
        config,
        record,
    };
    let report = if args.undo {
        undo(&place, args.dry_run)?
    } else {
        connect(&place, args.dry_run)?
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

fn connect(place: &Place, dry_run: bool) -> Result<Value> {
    let client = place.client;
    let format = client.format();
    let servers = files::read_servers(&place.file, format)?;
    let exe = std::env::current_exe()
        .and_then(|e| e.canonicalize())
        .context("locating this executable")?;
    let entry = client.entry(&exe, &place.config);
    let mut taken: Vec<String> = files::gateway_names(&place.config)?;
    let (mut moved, mut kept) = (Vec::new(), Vec::new());
    for (name, e) in &servers {
        if name == ENTRY {
            continue;
        }
        match decide(client, e) {
            Decision::Keep(reason) => kept.push(json!({"name": name, "reason": reason})),
            Decision::Move(table) => {
                let as_name = unique(gateway_name(name), client, &taken);
                taken.push(as_name.clone());
                moved.push((name.clone(), as_name, table, e.clone()));
            }
        }
    }
    let mut ops: Vec<Op> = moved.iter().map(|m| Op::Remove(m.0.clone())).collect();
    let has_entry = servers.get(ENTRY) == Some(&entry);
    if !has_entry && (!moved.is_empty() || !taken.is_empty()) {
        if servers.contains_key(ENTRY) {
            ops.push(Op::Remove(ENTRY.into()));
        }
        ops.push(Op::Add(ENTRY.into(), entry.clone()));
    }
    let mut report = json!({
        "client": client.name(),
        "scope": if place.project.is_some() { "project" } else { "user" },
        "client_file": place.file.display().to_string(),
        "gateway_config": place.config.display().to_string(),
        "dry_run": dry_run,
        "moved": moved.iter().map(|(n, a, t, _)| json!({"name": n, "as": a, "transport": t.transport()})).collect::<Vec<_>>(),
        "kept": kept,
        "entry": {"name": ENTRY, "command": entry["command"], "args": entry["args"]},
    });
    if ops.is_empty() {
        report["note"] = json!(if servers.contains_key(ENTRY) {
            "already connected: nothing new to move"
        } else {
            "nothing to move: the client has no server the gateway can take"
        });
        return Ok(report);
    }
    if dry_run {
        report["gateway_servers"] = moved
            .iter()
            .map(|(_, a, t, _)| redacted(a, t))
            .collect::<Vec<_>>()
            .into();
        report["changes"] = ops.iter().map(describe).collect::<Vec<_>>().into();
        return Ok(report);
    }
    // The gateway's config first: if it cannot be written, the client is untouched.
    let add: Vec<(String, Table, String)> = moved
        .iter()
        .map(|(_, a, t, _)| (a.clone(), t.clone(), client.name().to_owned()))
        .collect();
    files::edit_gateway(&place.config, &add, &[])?;
    let mut record = files::read_record(&place.record)?.unwrap_or_else(|| {
        json!({"client": client.name(), "client_file": place.file.display().to_string(), "moved": []})
    });
    let previous = record.clone();
    if let Some(list) = record["moved"].as_array_mut() {
        list.extend(
            moved
                .iter()
                .map(|(n, a, _, e)| json!({"name": n, "as": a, "entry": e})),
        );
    }
    record["entry"] = entry.clone();
    write_record(&place.record, &record)?;
    match apply(place, &ops, false) {
        Ok((via, backup)) => {
            report["via"] = json!(via);
            report["backup"] = json!(backup.map(|b| b.display().to_string()));
        }
        Err(e) => {
            // Undo the gateway's side so a second try starts from the same place.
            let names: Vec<String> = add.iter().map(|a| a.0.clone()).collect();
            let _ = files::edit_gateway(&place.config, &[], &names);
            let _ = write_record(&place.record, &previous);
            return Err(e);
        }
    }
    let after = files::read_servers(&place.file, format)?;
    if let Some((n, ..)) = moved.iter().find(|m| after.contains_key(&m.0)) {
        bail!(
            "{} still lists `{n}` after connect removed it",
            place.file.display()
        );
    }
    if !after.contains_key(ENTRY) {
        bail!(
            "{} has no `{ENTRY}` entry after connect added it",
            place.file.display()
        );
    }
    report["next"] = json!(client.next_step());
    Ok(report)
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

/// A gateway table as `--dry-run` prints it: values of env and headers hidden.
fn redacted(name: &str, t: &Table) -> Value {
    let hide = |m: &std::collections::BTreeMap<String, String>| -> Map<String, Value> {
        m.keys().map(|k| (k.clone(), json!("<redacted>"))).collect()
    };
    json!({"name": name, "command": t.command, "args": t.args, "env": hide(&t.env),
           "cwd": t.cwd, "url": t.url.as_deref().map(toolsearch_mcp::config::redact_url),
           "headers": hide(&t.headers), "allow": t.allow, "deny": t.deny})
}

fn describe(op: &Op) -> Value {
    match op {
        Op::Remove(n) => json!({"remove": n}),
        Op::Add(n, _) => json!({"add": n}),
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
        match cli_command(place.client, op, place.project.as_deref(), undo) {
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
        files::edit_client(&place.file, place.client.format(), &by_file)?
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

fn undo(place: &Place, dry_run: bool) -> Result<Value> {
    let Some(record) = files::read_record(&place.record)? else {
        bail!(
            "nothing to undo: connect has no record of moving {}'s servers (looked for {})",
            place.client.name(),
            place.record.display()
        );
    };
    let servers = files::read_servers(&place.file, place.client.format())?;
    let mut ops = Vec::new();
    if servers.contains_key(ENTRY) {
        ops.push(Op::Remove(ENTRY.into()));
    }
    let (mut restored, mut kept_theirs, mut owned) = (Vec::new(), Vec::new(), Vec::new());
    for m in record["moved"].as_array().into_iter().flatten() {
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
    let mut report = json!({
        "client": place.client.name(),
        "undo": true,
        "dry_run": dry_run,
        "client_file": place.file.display().to_string(),
        "gateway_config": place.config.display().to_string(),
        "restored": restored,
        "kept_yours": kept_theirs,
        "removed_from_gateway": owned,
    });
    if dry_run {
        report["changes"] = ops.iter().map(describe).collect::<Vec<_>>().into();
        return Ok(report);
    }
    let (via, backup) = apply(place, &ops, true)?;
    files::edit_gateway(&place.config, &[], &owned)?;
    std::fs::remove_file(&place.record)
        .with_context(|| format!("removing {}", place.record.display()))?;
    report["via"] = json!(via);
    report["backup"] = json!(backup.map(|b| b.display().to_string()));
    Ok(report)
}
