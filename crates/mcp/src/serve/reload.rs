//! Reload: a new configuration put in force while the gateway serves, on
//! `SIGHUP` and when its file changes (watched as editors save it: written in
//! place or renamed over; a burst of writes makes one reload). The new file
//! is read and checked whole first: a file that does not parse or validate,
//! a change only a restart can make (see [`crate::config::needs_restart`]),
//! a token variable that is not set or a TLS identity that does not load is
//! refused with its reason, and the configuration in force stays. Otherwise
//! the front door (credentials, rate and session budgets, TLS certificate)
//! and the gateway (servers, profiles, policy, limits: see
//! [`Gateway::apply`]) take it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::http::Doorway;
use crate::config::Config;
use crate::gateway::{Applied, Gateway};

/// How often the file is looked at.
pub const WATCH_EVERY: Duration = Duration::from_millis(500);

/// How long the file must stay unchanged before a change is applied (an
/// editor's save is several writes, or a write then a rename).
pub const SETTLE: Duration = Duration::from_millis(300);

/// Puts new configurations in force (one at a time).
pub struct Reloader {
    path: PathBuf,
    gw: Arc<Gateway>,
    /// The configuration in force.
    current: tokio::sync::Mutex<Config>,
    /// The HTTP front door, when the gateway serves HTTP.
    door: Mutex<Option<Arc<Doorway>>>,
    /// New configurations applied, and refused, so far.
    counts: Mutex<(u64, u64)>,
    /// The last reload's outcome, when there was one (the page shows it).
    last: Mutex<Option<serde_json::Value>>,
    /// The files watched: the configuration's, and the TLS certificate and
    /// key it names (a renewed certificate is re-read).
    watched: Mutex<Vec<PathBuf>>,
}

/// The files whose change reloads `cfg` read from `path`.
fn files_of(path: &Path, cfg: &Config) -> Vec<PathBuf> {
    let mut v = vec![path.to_path_buf()];
    v.extend(cfg.http.tls_cert.iter().cloned());
    v.extend(cfg.http.tls_key.iter().cloned());
    v
}

/// What a reload did.
#[derive(Debug, serde::Serialize)]
pub struct Reloaded {
    /// The keys whose effective values changed (see `config check --diff`).
    pub changed: usize,
    /// What the gateway changed.
    pub applied: Applied,
}

impl Reloader {
    /// A reloader of the file at `path`, whose configuration `cfg` is in
    /// force in `gw`.
    pub fn new(path: &Path, cfg: Config, gw: Arc<Gateway>) -> Arc<Reloader> {
        Arc::new(Reloader {
            path: path.to_path_buf(),
            gw,
            watched: Mutex::new(files_of(path, &cfg)),
            current: tokio::sync::Mutex::new(cfg),
            door: Mutex::new(None),
            counts: Mutex::default(),
            last: Mutex::default(),
        })
    }

    /// The configuration file it reloads.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The last reload's outcome: when, whether it was applied, what it
    /// changed or why it was refused.
    pub fn last(&self) -> Option<serde_json::Value> {
        self.last.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The configuration in force (its effective form: defaults filled in,
    /// secrets redacted), and what the file on disk would change: `config
    /// check IN_FORCE --diff FILE`, or why the file cannot be read.
    pub async fn pending(&self) -> (serde_json::Value, serde_json::Value) {
        let current = self.current.lock().await.clone();
        let path = self.path.clone();
        let on_disk = tokio::task::spawn_blocking(move || Config::load(&path))
            .await
            .map_err(|e| anyhow::anyhow!("reading the configuration failed: {e}"))
            .and_then(|r| r.map_err(anyhow::Error::from));
        let pending = match on_disk {
            Ok(next) => crate::config::diff(&current, &next),
            Err(e) => serde_json::json!({ "error": format!("{e:#}") }),
        };
        (current.effective(), pending)
    }

    /// The HTTP front door takes new configurations too.
    pub(crate) fn attach(&self, door: Arc<Doorway>) {
        *self.door.lock().unwrap_or_else(|p| p.into_inner()) = Some(door);
    }

    /// `(applied, refused)` so far.
    pub fn counts(&self) -> (u64, u64) {
        *self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reads the file again and puts it in force.
    ///
    /// # Errors
    /// Why the new configuration was refused (the one in force stays).
    pub async fn reload(&self) -> anyhow::Result<Reloaded> {
        let out = self.reload_inner().await;
        self.gw.count_reload(out.is_ok());
        let at = crate::text::rfc3339(std::time::SystemTime::now());
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) = Some(match &out {
            Ok(r) => serde_json::json!({"at": at, "ok": true, "summary": r, "error": null}),
            Err(e) => {
                serde_json::json!({"at": at, "ok": false, "summary": null, "error": format!("{e:#}")})
            }
        });
        let mut c = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        match &out {
            Ok(_) => c.0 += 1,
            Err(_) => c.1 += 1,
        }
        out
    }

    async fn reload_inner(&self) -> anyhow::Result<Reloaded> {
        let mut current = self.current.lock().await;
        // Files are read off the runtime (a slow disk, a network mount).
        let path = self.path.clone();
        let next = tokio::task::spawn_blocking(move || Config::load(&path))
            .await
            .map_err(|e| anyhow::anyhow!("reading the configuration failed: {e}"))??;
        let restart = crate::config::needs_restart(&current, &next);
        if !restart.is_empty() {
            anyhow::bail!(
                "these settings change only with a restart: {}",
                restart.join("; ")
            );
        }
        let changed = crate::config::diff(&current, &next)["changes"]
            .as_u64()
            .unwrap_or(0) as usize;
        let door = self.door.lock().unwrap_or_else(|p| p.into_inner()).clone();
        // Everything that can fail, before anything changes, by the same
        // checks as at start (token files and TLS files read off the runtime).
        let opened = match &door {
            Some(d) => {
                let (d, cfg) = (d.clone(), next.clone());
                Some(
                    tokio::task::spawn_blocking(move || d.prepare(&cfg))
                        .await
                        .map_err(|e| anyhow::anyhow!("checking the configuration failed: {e}"))??,
                )
            }
            None => {
                let cfg = next.clone();
                tokio::task::spawn_blocking(move || {
                    let gate = crate::auth::Gatekeeper::new(&cfg).ok();
                    super::admin::check_token(&cfg, gate.as_ref()).map(|_| ())
                })
                .await
                .map_err(|e| anyhow::anyhow!("checking the configuration failed: {e}"))??;
                None
            }
        };
        let applied = self.gw.apply(&next).await?;
        if let (Some(d), Some(opened)) = (door, opened) {
            d.install(opened);
        }
        *self.watched.lock().unwrap_or_else(|p| p.into_inner()) = files_of(&self.path, &next);
        *current = next;
        Ok(Reloaded { changed, applied })
    }

    /// Reloads on `SIGHUP` and when the file changes, until `stop` fires;
    /// each outcome is logged (and printed on stderr: `toolsearch: …`).
    /// `SIGHUP` is listened for from this call on (before, it would end the
    /// process); call it in the runtime.
    pub fn run(
        self: Arc<Self>,
        stop: CancellationToken,
    ) -> impl std::future::Future<Output = ()> + Send {
        use tokio::signal::unix::{signal, SignalKind};
        let hup = match signal(SignalKind::hangup()) {
            Ok(s) => Some(s),
            Err(e) => {
                tracing::warn!(error = %e, "SIGHUP cannot be listened for; the file is still watched");
                None
            }
        };
        self.follow(hup, stop)
    }

    async fn follow(
        self: Arc<Self>,
        mut hup: Option<tokio::signal::unix::Signal>,
        stop: CancellationToken,
    ) {
        let mut seen = self.stamps().await;
        loop {
            let why = tokio::select! {
                () = stop.cancelled() => return,
                Some(()) = async { match hup.as_mut() { Some(h) => h.recv().await, None => None } } => "SIGHUP",
                () = tokio::time::sleep(WATCH_EVERY) => {
                    let now = self.stamps().await;
                    if now == seen {
                        continue;
                    }
                    // Settled: the same for SETTLE (an editor's save is done).
                    let mut last = now;
                    loop {
                        tokio::select! {
                            () = stop.cancelled() => return,
                            () = tokio::time::sleep(SETTLE) => {}
                        }
                        let again = self.stamps().await;
                        if again == last {
                            break;
                        }
                        last = again;
                    }
                    seen = last;
                    if seen.iter().any(|(_, s)| s.is_none()) {
                        // Gone (removed, or between an editor's unlink and
                        // rename): nothing to apply until it is back.
                        continue;
                    }
                    "a file changed"
                }
            };
            if why == "SIGHUP" {
                seen = self.stamps().await;
            }
            let out = self.reload().await;
            // A new configuration may name other TLS files: watched from now.
            let watched = self
                .watched
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone();
            if seen.iter().map(|(f, _)| f).ne(watched.iter()) {
                seen = self.stamps().await;
            }
            match out {
                Ok(r) => {
                    let summary = serde_json::to_string(&r).unwrap_or_default();
                    tracing::info!(trigger = why, %summary, "configuration reloaded");
                    eprintln!("toolsearch: configuration reloaded ({why}): {summary}");
                }
                Err(e) => {
                    tracing::warn!(trigger = why, error = %format!("{e:#}"), "new configuration refused; the one in force stays");
                    eprintln!(
                        "toolsearch: new configuration refused ({why}); the one in force stays: {e:#}"
                    );
                }
            }
        }
    }
}

impl Reloader {
    /// The watched files with their stamps, read off the runtime (each is
    /// read and hashed).
    async fn stamps(&self) -> Vec<(PathBuf, Stamp)> {
        let files = self
            .watched
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        tokio::task::spawn_blocking(move || {
            files
                .into_iter()
                .map(|f| {
                    let s = Stamp::of(&f);
                    (f, s)
                })
                .collect()
        })
        .await
        .unwrap_or_default()
    }
}

/// What the watcher compares: the file's identity, size, modification time
/// and a hash of its bytes (a rename over it changes the identity; a write
/// within the same second changes the bytes). `None` when it cannot be read.
#[derive(PartialEq, Eq, Clone, Copy, Debug)]
struct Stamp(Option<(u64, u64, u64, std::time::SystemTime, u64)>);

impl Stamp {
    fn of(path: &Path) -> Stamp {
        use std::hash::{Hash, Hasher};
        use std::os::unix::fs::MetadataExt;
        let Ok(meta) = std::fs::metadata(path) else {
            return Stamp(None);
        };
        // Only a regular file is opened (a FIFO would wait for a writer for
        // ever); one that is not has a stamp of its type alone, and the reload
        // it makes says why it cannot be read. A config file is small; one that
        // is not is hashed only up to its first MiB (its stamp still moves
        // with size and time).
        let bytes = if meta.is_file() {
            crate::trust::read_prefix(path, 1 << 20)
        } else {
            Vec::new()
        };
        let mut h = std::collections::hash_map::DefaultHasher::new();
        bytes.hash(&mut h);
        Stamp(Some((
            meta.dev(),
            meta.ino(),
            meta.len(),
            meta.modified().unwrap_or(std::time::UNIX_EPOCH),
            h.finish(),
        )))
    }

    fn is_none(&self) -> bool {
        self.0.is_none()
    }
}
