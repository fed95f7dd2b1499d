//! A lazy server's manifest: its last `tools/list` on disk, so the gateway can
//! serve search, describe and listings at once and start the server only when a
//! call needs it.
//!
//! One file per server and configuration: `<dir>/<name>.<key>.json`, where the
//! key is a keyed digest of what decides what the server serves (command,
//! arguments, environment names and values, working directory, URL, header
//! names and values), keyed with a random secret kept in `<dir>/.key` (0600),
//! so that neither the file nor its name says anything of the values. A
//! changed configuration has another key, so it never reads an old manifest;
//! a server changed in place (a package upgraded) is caught at its first call,
//! which is checked against what the started server serves (`forward.rs`). Files are written to a
//! temporary name and renamed (a reader never sees half a file), and read as
//! untrusted: bounded like a live listing, and a corrupt, foreign or oversized
//! file is ignored with the reason (the caller warns once), never trusted.

use crate::trust::{create_private_dir, open_private};
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

/// The keyed digest of what decides what a server serves: its name, command,
/// arguments, environment (names and values), working directory, URL and
/// headers (names and values), keyed with `secret`. Each part is
/// length-prefixed, so no two configurations share a key by moving text
/// between fields.
pub fn key(cfg: &ServerConfig, secret: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update((secret.len() as u64).to_le_bytes());
    h.update(secret);
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
    for (k, v) in &cfg.env {
        part("env", k);
        part("value", v);
    }
    part(
        "cwd",
        &cfg.cwd
            .as_deref()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
    );
    part("url", cfg.url.as_deref().unwrap_or(""));
    for (k, v) in &cfg.headers {
        part("header", k);
        part("value", v);
    }
    // What else decides what runs or answers: the bearer token (its
    // variable's name and value), the CA trusted, and the `PATH` a command
    // is found on (`npx`, `uvx` resolve through it).
    if let Some(var) = &cfg.bearer_token_env {
        part("bearer", var);
        part("value", &std::env::var(var).unwrap_or_default());
    }
    if let Some(ca) = &cfg.ca_file {
        part("ca", &ca.display().to_string());
    }
    if cfg.command.is_some() && !cfg.env.contains_key("PATH") {
        part("path", &std::env::var("PATH").unwrap_or_default());
    }
    crate::text::hex(&h.finalize())
}

/// The name of the secret that keys the manifests of a directory.
const SECRET_FILE: &str = ".key";

/// The secret of `dir`, made (32 random bytes, 0600) when there is none.
/// Read by the rule for trusted secrets: one another user could have
/// written is refused, with the reason.
fn secret(dir: &Path) -> Result<Vec<u8>, String> {
    let path = dir.join(SECRET_FILE);
    if std::fs::symlink_metadata(&path).is_err() {
        create_private_dir(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        let mut bytes = [0u8; 32];
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes))
            .map_err(|e| format!("cannot draw a secret: {e}"))?;
        // Written whole under a temporary name, then linked into place (a
        // link never replaces a file): two gateways racing here both read the
        // first one linked, and no reader sees half a secret.
        let tmp = dir.join(format!(
            ".key.{}-{}.tmp",
            std::process::id(),
            TMP.fetch_add(1, Ordering::Relaxed)
        ));
        let made = open_private(&tmp)
            .and_then(|mut f| {
                f.write_all(crate::text::hex(&bytes).as_bytes())?;
                f.sync_all()
            })
            .and_then(|()| std::fs::hard_link(&tmp, &path));
        let _ = std::fs::remove_file(&tmp);
        if let Err(e) = made {
            if e.kind() != std::io::ErrorKind::AlreadyExists {
                return Err(format!("cannot write {}: {e}", path.display()));
            }
        }
    }
    let bytes = crate::trust::read_trusted(&path, 1024, crate::trust::Trust::Secret)
        .map_err(|e| format!("its key {} is not trusted: {e}", path.display()))?;
    if bytes.len() < 32 {
        return Err(format!("its key {} is too short", path.display()));
    }
    Ok(bytes)
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
    dir: PathBuf,
    cfg: ServerConfig,
    /// Its path and key, once the directory's secret was read (see [`Store::place`]).
    place: std::sync::OnceLock<(PathBuf, String)>,
    server: String,
    /// The sequence number of the list last written: an older list finishing
    /// its write late never replaces a newer one.
    written: Mutex<u64>,
}

/// Makes temporary names unique within the process.
static TMP: AtomicU64 = AtomicU64::new(0);

impl Store {
    /// The manifest of `cfg` in `dir`.
    /// (Nothing is read or written until it is used.)
    pub fn new(dir: &Path, cfg: &ServerConfig) -> Store {
        Store {
            dir: dir.to_path_buf(),
            cfg: cfg.clone(),
            place: std::sync::OnceLock::new(),
            server: cfg.name().to_string(),
            written: Mutex::new(0),
        }
    }

    /// Its path and key (blocking: reads, or makes, the directory's secret).
    fn place(&self) -> Result<&(PathBuf, String), String> {
        if let Some(p) = self.place.get() {
            return Ok(p);
        }
        let key = key(&self.cfg, &secret(&self.dir)?);
        let path = self
            .dir
            .join(format!("{}.{}.json", self.cfg.name(), &key[..16]));
        Ok(self.place.get_or_init(|| (path, key)))
    }

    /// Its path for a log line: the file's, else its directory's.
    pub fn shown(&self) -> String {
        self.place
            .get()
            .map_or(&self.dir, |(p, _)| p)
            .display()
            .to_string()
    }

    /// Its path (blocking, as [`Store::place`]).
    ///
    /// # Errors
    /// The directory's secret cannot be made or is not trusted.
    pub fn path(&self) -> Result<PathBuf, String> {
        self.place().map(|(p, _)| p.clone())
    }

    /// The manifest, `Ok(None)` when there is none, or why the file cannot be
    /// trusted (unreadable, not a manifest, another server's or configuration's,
    /// past the bounds of a live listing).
    pub fn read(&self) -> Result<Option<Manifest>, String> {
        let (path, key) = self.place()?;
        // Read by the rule for every file the gateway trusts: only a regular
        // file, never one another user could have written (it decides what
        // is served and, until the server runs, its safety hints).
        if std::fs::symlink_metadata(path).is_err() {
            return Ok(None);
        }
        let bytes =
            crate::trust::read_trusted(path, MAX_MANIFEST_BYTES, crate::trust::Trust::Shared)?;
        let file: File =
            serde_json::from_slice(&bytes).map_err(|e| format!("it is not a manifest ({e})"))?;
        if file.format != FORMAT {
            return Err(format!(
                "its format is `{}`, not `{FORMAT}`",
                crate::text::clean_for_log(&file.format, 60)
            ));
        }
        if file.server != self.server || file.key != *key {
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
        let (path, key) = self.place().map_err(std::io::Error::other)?;
        let mut written = self.written.lock().unwrap_or_else(|p| p.into_inner());
        if *written > seq {
            return Ok(None);
        }
        let now = SystemTime::now();
        let file = File {
            format: FORMAT.into(),
            server: self.server.clone(),
            key: key.clone(),
            protocol: protocol.into(),
            written_at_ms: now
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
            tools: tools.to_vec(),
        };
        let bytes = serde_json::to_vec(&file)?;
        let dir = path.parent().unwrap_or(Path::new("."));
        create_private_dir(dir)?;
        crate::trust::replace_private(path, &self.server, &bytes)?;
        *written = seq;
        forget_old_siblings(dir, &self.server, path);
        Ok(Some(now))
    }
}

/// How long a manifest of a configuration no longer in use is kept (another
/// gateway may still run it): then it is removed, so that rotated values do
/// not fill the directory.
const KEEP_UNUSED: Duration = Duration::from_secs(30 * 24 * 3600);

/// Removes `server`'s manifests in `dir` other than `current` that were not
/// written for [`KEEP_UNUSED`].
fn forget_old_siblings(dir: &Path, server: &str, current: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!("{server}.");
    for e in entries.filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(&prefix) else {
            continue;
        };
        // `<server>.<16 hex>.json` only (another server's name may extend this one).
        let ours = rest.len() == 21 && rest.ends_with(".json");
        let old = e
            .metadata()
            .ok()
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age >= KEEP_UNUSED);
        if ours && old && e.path() != current {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Creates `dir` (and its parents) readable by its owner only: manifests say
/// which servers a user runs.
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
        assert_ne!(other.path().unwrap(), store.path().unwrap());
        assert!(other.read().expect("none").is_none());
        // A changed environment value (a mode, a version) is another key, and
        // the key says nothing of the value: it is keyed with the directory's
        // secret, which only the gateway's user can read.
        let text = "[[servers]]\nname = \"s\"\ncommand = \"x\"\nargs = [\"1\"]\n[servers.env]\nTOKEN = \"other\"\n";
        let changed = crate::config::Config::parse(text)
            .expect("config")
            .servers
            .remove(0);
        let moved = Store::new(&d, &changed);
        assert_ne!(moved.path().unwrap(), store.path().unwrap());
        assert!(moved.read().expect("none").is_none());
        let secret = secret(&d).expect("secret");
        assert_eq!(secret.len(), 64);
        assert_ne!(key(&changed, &secret), key(&server(&["1"]), &secret));
        assert_ne!(key(&changed, b"another secret"), key(&changed, &secret));
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(d.join(SECRET_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn corrupt_foreign_or_oversized_files_are_refused_with_the_reason() {
        let d = dir("bad");
        let cfg = server(&[]);
        let store = Store::new(&d, &cfg);
        create_private_dir(&d).expect("dir");
        let k = key(&cfg, &secret(&d).expect("secret"));
        let path = store.path().expect("path");
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (b"{not json".to_vec(), "not a manifest"),
            (
                serde_json::to_vec(&serde_json::json!({"format": "other/9", "server": "s", "key": k, "protocol": "", "written_at_ms": 0, "tools": []})).expect("json"),
                "format",
            ),
            (
                serde_json::to_vec(&serde_json::json!({"format": FORMAT, "server": "s", "key": "0", "protocol": "", "written_at_ms": 0, "tools": []})).expect("json"),
                "another server",
            ),
            (
                serde_json::to_vec(&serde_json::json!({"format": FORMAT, "server": "s", "key": k, "protocol": "", "written_at_ms": 0, "tools": [1]})).expect("json"),
                "not an object",
            ),
        ];
        for (bytes, why) in cases {
            std::fs::write(&path, &bytes).expect("write");
            let e = store.read().expect_err("refused");
            assert!(e.contains(why), "{e}");
        }
        // A FIFO (or any file that is not regular) is refused, not waited on.
        std::fs::remove_file(&path).expect("remove");
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .expect("mkfifo");
        assert!(made.success());
        let e = store.read().expect_err("refused");
        assert!(e.contains("not a regular file"), "{e}");
        std::fs::remove_file(&path).expect("remove");
        // Past the bound: refused before it is parsed.
        let f = std::fs::File::create(&path).expect("create");
        f.set_len(MAX_MANIFEST_BYTES + 1).expect("grow");
        let e = store.read().expect_err("refused");
        assert!(e.contains("larger than"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
