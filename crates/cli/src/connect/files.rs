//! Reading and writing the files `connect` changes: the client's (JSON or
//! Codex's TOML), the gateway's config and connect's own record of what it
//! moved. Every write goes to a temporary file beside the target, with the
//! target's permissions or tighter, then is renamed over it.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde_json::{Map, Value};

use super::classify::Table;
use super::clients::{Format, Op};

/// The client's servers, name → entry (Codex tables as JSON); empty when the
/// file does not exist.
pub fn read_servers(path: &Path, format: &Format) -> Result<Map<String, Value>> {
    let Some(text) = read_optional(path)? else {
        return Ok(Map::new());
    };
    match format {
        Format::Json(keys) => {
            let mut at = &Value::Object(parse_json(path, &text)?);
            for key in keys {
                at = match at.get(key) {
                    None | Some(Value::Null) => return Ok(Map::new()),
                    Some(v) => v,
                };
            }
            match at {
                Value::Object(m) => Ok(m.clone()),
                _ => bail!("{}: `{}` is not an object", path.display(), keys.join(".")),
            }
        }
        Format::CodexToml => {
            let doc: toml::Table = toml::from_str(&text)
                .with_context(|| format!("{} is not valid TOML", path.display()))?;
            match doc.get("mcp_servers") {
                None => Ok(Map::new()),
                Some(v) => match serde_json::to_value(v)? {
                    Value::Object(m) => Ok(m),
                    _ => bail!("{}: `mcp_servers` is not a table", path.display()),
                },
            }
        }
    }
}

fn read_optional(path: &Path) -> Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

/// JSON, with a clear refusal for comments (JSONC): rewriting would drop them.
fn parse_json(path: &Path, text: &str) -> Result<Map<String, Value>> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => bail!("{} does not hold a JSON object", path.display()),
        Err(e) if text.contains("//") || text.contains("/*") => bail!(
            "{} is not plain JSON ({e}); it seems to hold comments, which rewriting it would \
             drop: remove them, or move the servers by hand",
            path.display()
        ),
        Err(e) => bail!("{} is not valid JSON: {e}", path.display()),
    }
}

/// Applies `ops` to the client's file in one write, after copying it to a
/// backup beside it; returns the backup's path (`None` when the file was new).
pub fn edit_client(path: &Path, format: &Format, ops: &[Op]) -> Result<Option<PathBuf>> {
    let old = read_optional(path)?;
    let text = match format {
        Format::Json(keys) => {
            let mut doc = Value::Object(parse_json(path, old.as_deref().unwrap_or(""))?);
            let mut servers = &mut doc;
            for key in keys {
                let Value::Object(m) = servers else {
                    bail!("{}: `{}` is not an object", path.display(), keys.join("."));
                };
                servers = m
                    .entry(key.clone())
                    .or_insert_with(|| Value::Object(Map::new()));
            }
            let Value::Object(servers) = servers else {
                bail!("{}: `{}` is not an object", path.display(), keys.join("."));
            };
            for op in ops {
                match op {
                    Op::Remove(name) => {
                        servers.shift_remove(name);
                    }
                    Op::Add(name, entry) => {
                        servers.insert(name.clone(), entry.clone());
                    }
                }
            }
            let mut t = serde_json::to_string_pretty(&doc)?;
            t.push('\n');
            t
        }
        Format::CodexToml => {
            let mut doc: toml_edit::DocumentMut = old
                .as_deref()
                .unwrap_or("")
                .parse()
                .with_context(|| format!("{} is not valid TOML", path.display()))?;
            if !doc.contains_key("mcp_servers") {
                let mut t = toml_edit::Table::new();
                t.set_implicit(true);
                doc.insert("mcp_servers", toml_edit::Item::Table(t));
            }
            let servers = doc["mcp_servers"]
                .as_table_mut()
                .with_context(|| format!("{}: `mcp_servers` is not a table", path.display()))?;
            for op in ops {
                match op {
                    Op::Remove(name) => {
                        servers.remove(name);
                    }
                    Op::Add(name, entry) => {
                        servers.insert(name, toml_edit::Item::Table(toml_table(entry)?));
                    }
                }
            }
            doc.to_string()
        }
    };
    let backup = match &old {
        Some(_) => {
            let stamp = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let name = format!(
                "{}.toolsearch-backup-{stamp}",
                path.file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or("config")
            );
            let backup = path.with_file_name(name);
            std::fs::copy(path, &backup)
                .with_context(|| format!("backing up {}", path.display()))?;
            prune_backups(path);
            Some(backup)
        }
        None => None,
    };
    write_atomic(path, text.as_bytes(), None)?;
    Ok(backup)
}

/// Backups connect made of one file that are kept (the newest).
const BACKUPS_KEPT: usize = 3;

/// Removes all but the newest [`BACKUPS_KEPT`] backups of `path` (a failure
/// to remove one is no reason to fail the change).
fn prune_backups(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return;
    };
    let prefix = format!("{name}.toolsearch-backup-");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut backups: Vec<(u64, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().to_str()?.to_owned();
            let stamp = n.strip_prefix(&prefix)?.parse::<u64>().ok()?;
            Some((stamp, e.path()))
        })
        .collect();
    backups.sort();
    let extra = backups.len().saturating_sub(BACKUPS_KEPT);
    for (_, old) in backups.into_iter().take(extra) {
        let _ = std::fs::remove_file(old);
    }
}

/// A JSON object as a TOML table (Codex entries); objects inside it become
/// inline tables.
fn toml_table(v: &Value) -> Result<toml_edit::Table> {
    let Value::Object(m) = v else {
        bail!("a server entry is not an object");
    };
    let mut t = toml_edit::Table::new();
    for (k, v) in m {
        t.insert(k, toml_edit::Item::Value(toml_value(v)?));
    }
    Ok(t)
}

fn toml_value(v: &Value) -> Result<toml_edit::Value> {
    Ok(match v {
        Value::String(s) => s.as_str().into(),
        Value::Bool(b) => (*b).into(),
        Value::Number(n) if n.is_i64() => n.as_i64().unwrap_or_default().into(),
        Value::Number(n) => n.as_f64().unwrap_or_default().into(),
        Value::Array(a) => {
            let mut arr = toml_edit::Array::new();
            for x in a {
                arr.push(toml_value(x)?);
            }
            toml_edit::Value::Array(arr)
        }
        Value::Object(m) => {
            let mut inline = toml_edit::InlineTable::new();
            for (k, x) in m {
                inline.insert(k, toml_value(x)?);
            }
            toml_edit::Value::InlineTable(inline)
        }
        Value::Null => bail!("TOML has no null"),
    })
}

/// Writes `bytes` to `path` through a temporary file beside it. Permissions:
/// `mode` when given, else the existing file's, else 0600.
pub fn write_atomic(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<()> {
    let dir = path.parent().context("a file with no folder")?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mode = mode.unwrap_or_else(|| {
        std::fs::metadata(path).map_or(0o600, |m| m.permissions().mode() & 0o777)
    });
    let tmp = dir.join(format!(
        ".{}.toolsearch-{}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("file"),
        std::process::id()
    ));
    let result = (|| {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&tmp)?;
        f.set_permissions(std::fs::Permissions::from_mode(mode))?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.with_context(|| format!("writing {}", path.display()))
}

/// The gateway's config with `add` appended as `[[servers]]` tables and the
/// tables named in `remove` taken out; checked by the gateway's own parser
/// before it is written (0600: it may hold secrets).
pub fn edit_gateway(path: &Path, add: &[(String, Table, String)], remove: &[String]) -> Result<()> {
    let old = read_optional(path)?.unwrap_or_default();
    let mut doc: toml_edit::DocumentMut = old
        .parse()
        .with_context(|| format!("{} is not valid TOML", path.display()))?;
    let doc_has_profiles = doc.contains_key("profiles");
    if !doc.contains_key("servers") {
        doc.insert(
            "servers",
            toml_edit::Item::ArrayOfTables(toml_edit::ArrayOfTables::new()),
        );
    }
    let servers = doc["servers"]
        .as_array_of_tables_mut()
        .with_context(|| format!("{}: `servers` is not an array of tables", path.display()))?;
    servers.retain(|t| {
        !t.get("name")
            .and_then(|n| n.as_str())
            .is_some_and(|n| remove.iter().any(|r| r == n))
    });
    for (name, table, from) in add {
        let mut t = toml_edit::Table::new();
        t.decor_mut()
            .set_prefix(format!("\n# moved from {from} by `toolsearch connect`\n"));
        t.insert("name", toml_edit::value(name.as_str()));
        if let Some(c) = &table.command {
            t.insert("command", toml_edit::value(c.as_str()));
        }
        let list = |v: &[String]| {
            let mut a = toml_edit::Array::new();
            v.iter().for_each(|s| a.push(s.as_str()));
            toml_edit::value(a)
        };
        let inline = |m: &std::collections::BTreeMap<String, String>| {
            let mut i = toml_edit::InlineTable::new();
            m.iter().for_each(|(k, v)| {
                i.insert(k, v.as_str().into());
            });
            toml_edit::value(i)
        };
        if !table.args.is_empty() {
            t.insert("args", list(&table.args));
        }
        if !table.env.is_empty() {
            t.insert("env", inline(&table.env));
        }
        if let Some(cwd) = &table.cwd {
            t.insert("cwd", toml_edit::value(cwd.as_str()));
        }
        if let Some(u) = &table.url {
            t.insert("url", toml_edit::value(u.as_str()));
        }
        if !table.headers.is_empty() {
            t.insert("headers", inline(&table.headers));
        }
        if !table.allow.is_empty() {
            t.insert("allow", list(&table.allow));
        }
        if !table.deny.is_empty() {
            t.insert("deny", list(&table.deny));
        }
        if let Some(hint) = &table.oauth {
            let mut o = toml_edit::Table::new();
            if let Some(id) = &hint.client_id {
                o.insert("client_id", toml_edit::value(id.as_str()));
            }
            if !hint.scopes.is_empty() {
                o.insert("scopes", list(&hint.scopes));
            }
            // With profiles configured, the login is the connected client's
            // (it reaches the gateway over stdio: the `default` profile) and
            // no other profile's.
            if doc_has_profiles {
                o.insert("profiles", list(&["default".to_string()]));
            }
            t.insert("oauth", toml_edit::Item::Table(o));
        }
        servers.push(t);
    }
    let text = doc.to_string();
    toolsearch_mcp::Config::parse(&text)
        .map_err(|e| anyhow::anyhow!("the gateway config connect would write is refused: {e}"))?;
    write_atomic(path, text.as_bytes(), Some(0o600))
}

/// The gateway names (`as`) that connect's records other than `ours` (in
/// the folder of `record`) moved servers to.
pub fn names_in_other_records(
    record: &Path,
    ours: &[&Path],
) -> Result<std::collections::HashSet<String>> {
    let mut names = std::collections::HashSet::new();
    let Some(dir) = record.parent() else {
        return Ok(names);
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(names),
        Err(e) => return Err(e).with_context(|| format!("reading {}", dir.display())),
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|x| x != "json") || ours.contains(&path.as_path()) {
            continue;
        }
        if let Some(r) = read_record(&path)? {
            for m in r["moved"].as_array().into_iter().flatten() {
                if let Some(a) = m["as"].as_str() {
                    names.insert(a.to_owned());
                }
            }
        }
    }
    Ok(names)
}

/// The gateway's `[[servers]]` by [`Table::key`], with their names (none
/// when the file does not exist).
pub fn gateway_keys(path: &Path) -> Result<Vec<(Value, String)>> {
    let Some(text) = read_optional(path)? else {
        return Ok(Vec::new());
    };
    let doc: toml::Table =
        toml::from_str(&text).with_context(|| format!("{} is not valid TOML", path.display()))?;
    let tables = doc.get("servers").and_then(|s| s.as_array());
    Ok(tables
        .into_iter()
        .flatten()
        .filter_map(|t| {
            let name = t.get("name")?.as_str()?.to_owned();
            let t: Table = serde_json::from_value(serde_json::to_value(t).ok()?).ok()?;
            Some((t.key(), name))
        })
        .collect())
}

/// The `[[servers]]` names of the gateway's config (none when it does not exist).
pub fn gateway_names(path: &Path) -> Result<Vec<String>> {
    let Some(text) = read_optional(path)? else {
        return Ok(Vec::new());
    };
    let doc: toml::Table =
        toml::from_str(&text).with_context(|| format!("{} is not valid TOML", path.display()))?;
    Ok(doc
        .get("servers")
        .and_then(|s| s.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|t| t.get("name").and_then(|n| n.as_str()).map(str::to_owned))
                .collect()
        })
        .unwrap_or_default())
}

/// Connect's record of one client and scope, as JSON (0600: entries may hold secrets).
pub fn read_record(path: &Path) -> Result<Option<Value>> {
    match read_optional(path)? {
        None => Ok(None),
        Some(t) => Ok(Some(serde_json::from_str(&t).with_context(|| {
            format!("{} is not connect's record (JSON)", path.display())
        })?)),
    }
}
