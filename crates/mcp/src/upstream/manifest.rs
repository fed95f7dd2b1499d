//! A lazy server's manifest: its last `tools/list` on disk, so the gateway can
//! serve search, describe and listings at once and start the server only when a
//! call needs it.
//!
//! One file per server and configuration: `<dir>/<name>.<key>.json`, where the
//! key hashes what decides which server runs (command, arguments, environment
//! names, working directory, URL, header names). A changed configuration has
//! another key, so it never reads an old manifest. Files are written to a
//! temporary name and renamed (a reader never sees half a file), and read as
//! untrusted: bounded like a live listing, and a corrupt, foreign or oversized
//! file is ignored with the reason (the caller warns once), never trusted.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::listing::{MAX_LISTED_BYTES, MAX_LISTED_TOOLS};
use crate::config::ServerConfig;

/// What the `format` field of a manifest says.
pub const FORMAT: &str = "toolsearch-manifest/1";

/// The largest manifest read: a live listing's bound and room for the header.
pub const MAX_MANIFEST_BYTES: u64 = MAX_LISTED_BYTES as u64 + (1 << 20);

/// The hash of what decides which server runs: its name, command, arguments,
/// environment names (never values), working directory, URL and header names.
/// Each part is length-prefixed, so no two configurations share a key by
/// moving text between fields.
pub fn key(cfg: &ServerConfig) -> String {
    let mut h = Sha256::new();
    let mut part = |tag: &str, text: &str| {
        h.update(tag.as_bytes());
        h.update((text.len() as u64).to_le_bytes());
        h.update(text.as_bytes());
    };
    part("name", cfg.name());
    part("command", cfg.command.as_deref().unwrap_or(""));
    for a in &cfg.args {
        part("arg", a);
    }
    for k in cfg.env.keys() {
        part("env", k);
    }
    part(
        "cwd",
        &cfg.cwd
            .as_deref()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
    );
    part("url", cfg.url.as_deref().unwrap_or(""));
    for k in cfg.headers.keys() {
        part("header", k);
    }
    h.finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>()
}

/// A manifest as read.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// The protocol revision the server spoke when it listed these tools.
    pub protocol: String,
    /// When it was written.
    pub written_at: SystemTime,
    /// The server's tools as it listed them (MCP `Tool` objects).
    pub tools: Vec<Value>,
}

#[derive(Serialize, Deserialize)]
struct File {
    format: String,
    server: String,
    key: String,
    protocol: String,
    written_at_ms: u64,
    tools: Vec<Value>,
}

/// One server's manifest file.
#[derive(Debug)]
pub struct Store {
    path: PathBuf,
    server: String,
    key: String,
    /// The sequence number of the list last written: an older list finishing
    /// its write late never replaces a newer one.
    written: Mutex<u64>,
}

/// Makes temporary names unique within the process.
static TMP: AtomicU64 = AtomicU64::new(0);

impl Store {
    /// The manifest of `cfg` in `dir`.
    pub fn new(dir: &Path, cfg: &ServerConfig) -> Store {
        let key = key(cfg);
        Store {
            path: dir.join(format!("{}.{}.json", cfg.name(), &key[..16])),
            server: cfg.name().to_string(),
            key,
            written: Mutex::new(0),
        }
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The manifest, `Ok(None)` when there is none, or why the file cannot be
    /// trusted (unreadable, not a manifest, another server's or configuration's,
    /// past the bounds of a live listing).
    pub fn read(&self) -> Result<Option<Manifest>, String> {
        // Only a regular file is read (opening a FIFO would wait for a writer).
        match std::fs::metadata(&self.path) {
            Ok(m) if !m.is_file() => return Err("it is not a regular file".into()),
            _ => {}
        }
        let f = match std::fs::File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot read it: {e}")),
        };
        let bytes = toolsearch_catalog::read_at_most(f, MAX_MANIFEST_BYTES, "the file")
            .map_err(|e| format!("cannot read it: {e}"))?;
        let file: File =
            serde_json::from_slice(&bytes).map_err(|e| format!("it is not a manifest ({e})"))?;
        if file.format != FORMAT {
            return Err(format!(
                "its format is `{}`, not `{FORMAT}`",
                crate::text::clean_for_log(&file.format, 60)
            ));
        }
        if file.server != self.server || file.key != self.key {
            return Err("it was written for another server or configuration".into());
        }
        if file.tools.len() > MAX_LISTED_TOOLS {
            return Err(format!(
                "it holds more than {MAX_LISTED_TOOLS} tools (the most a listing may)"
            ));
        }
        if let Some(i) = file.tools.iter().position(|t| !t.is_object()) {
            return Err(format!("its tool {i} is not an object"));
        }
        Ok(Some(Manifest {
            protocol: file.protocol,
            written_at: UNIX_EPOCH + Duration::from_millis(file.written_at_ms),
            tools: file.tools,
        }))
    }

    /// Writes list number `seq` (numbers grow with each listing), unless a
    /// later one was written already: to a temporary file in the same
    /// directory, synced, then renamed over the manifest. Returns when it was
    /// written (`None`: a later list was).
    pub fn write(
        &self,
        seq: u64,
        protocol: &str,
        tools: &[Value],
    ) -> std::io::Result<Option<SystemTime>> {
        let mut written = self.written.lock().unwrap_or_else(|p| p.into_inner());
        if *written > seq {
            return Ok(None);
        }
        let now = SystemTime::now();
        let file = File {
            format: FORMAT.into(),
            server: self.server.clone(),
            key: self.key.clone(),
            protocol: protocol.into(),
            written_at_ms: now
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
            tools: tools.to_vec(),
        };
        let bytes = serde_json::to_vec(&file)?;
        let dir = self.path.parent().unwrap_or(Path::new("."));
        create_private_dir(dir)?;
        let tmp = dir.join(format!(
            ".{}.{}-{}.tmp",
            self.server,
            std::process::id(),
            TMP.fetch_add(1, Ordering::Relaxed)
        ));
        let result = (|| {
            let mut f = open_private(&tmp)?;
            f.write_all(&bytes)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &self.path)
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result?;
        *written = seq;
        Ok(Some(now))
    }
}

/// Creates `dir` (and its parents) readable by its owner only: manifests say
/// which servers a user runs.
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(dir)
}

fn open_private(path: &Path) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(args: &[&str]) -> ServerConfig {
        let text = format!(
            "[[servers]]\nname = \"s\"\ncommand = \"x\"\nargs = {args:?}\n[servers.env]\nTOKEN = \"secret\"\n"
        );
        crate::config::Config::parse(&text)
            .expect("config")
            .servers
            .remove(0)
    }

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ts-manifest-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_written_manifest_reads_back_and_a_changed_command_line_never_finds_it() {
        let d = dir("round");
        let tools = vec![serde_json::json!({"name": "a", "inputSchema": {"type": "object"}})];
        let store = Store::new(&d, &server(&["1"]));
        assert!(store.read().expect("none yet").is_none());
        store.write(1, "2025-11-25", &tools).expect("write");
        let m = store.read().expect("good").expect("present");
        assert_eq!(m.tools, tools);
        assert_eq!(m.protocol, "2025-11-25");
        // An older list finishing late does not replace the newer one.
        assert!(store.write(0, "old", &[]).expect("skip").is_none());
        assert_eq!(store.read().expect("good").expect("present").tools, tools);
        // Another argument: another key, another file.
        let other = Store::new(&d, &server(&["2"]));
        assert_ne!(other.path(), store.path());
        assert!(other.read().expect("none").is_none());
        // The secret's value is not part of the key (only the name is).
        let text = "[[servers]]\nname = \"s\"\ncommand = \"x\"\nargs = [\"1\"]\n[servers.env]\nTOKEN = \"other\"\n";
        let same = crate::config::Config::parse(text)
            .expect("config")
            .servers
            .remove(0);
        assert_eq!(key(&same), key(&server(&["1"])));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn corrupt_foreign_or_oversized_files_are_refused_with_the_reason() {
        let d = dir("bad");
        let cfg = server(&[]);
        let store = Store::new(&d, &cfg);
        create_private_dir(&d).expect("dir");
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (b"{not json".to_vec(), "not a manifest"),
            (
                serde_json::to_vec(&serde_json::json!({"format": "other/9", "server": "s", "key": key(&cfg), "protocol": "", "written_at_ms": 0, "tools": []})).expect("json"),
                "format",
            ),
            (
                serde_json::to_vec(&serde_json::json!({"format": FORMAT, "server": "s", "key": "0", "protocol": "", "written_at_ms": 0, "tools": []})).expect("json"),
                "another server",
            ),
            (
                serde_json::to_vec(&serde_json::json!({"format": FORMAT, "server": "s", "key": key(&cfg), "protocol": "", "written_at_ms": 0, "tools": [1]})).expect("json"),
                "not an object",
            ),
        ];
        for (bytes, why) in cases {
            std::fs::write(store.path(), &bytes).expect("write");
            let e = store.read().expect_err("refused");
            assert!(e.contains(why), "{e}");
        }
        // A FIFO (or any file that is not regular) is refused, not waited on.
        std::fs::remove_file(store.path()).expect("remove");
        let made = std::process::Command::new("mkfifo")
            .arg(store.path())
            .status()
            .expect("mkfifo");
        assert!(made.success());
        let e = store.read().expect_err("refused");
        assert!(e.contains("not a regular file"), "{e}");
        std::fs::remove_file(store.path()).expect("remove");
        // Past the bound: refused before it is parsed.
        let f = std::fs::File::create(store.path()).expect("create");
        f.set_len(MAX_MANIFEST_BYTES + 1).expect("grow");
        let e = store.read().expect_err("refused");
        assert!(e.contains("larger than"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
