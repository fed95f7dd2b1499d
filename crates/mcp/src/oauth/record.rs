//! A login at rest: one JSON file per server and owner under
//! `$XDG_STATE_HOME/toolsearch/oauth/` (`<server>.gateway.json` or
//! `<server>.profile-<name>.json`), mode 0600 in a 0700 folder, written
//! atomically (a temporary file renamed over it) and read under the rule of
//! every trusted file (`crate::trust`, as a secret). Never in the config,
//! logs, metrics, traces or `config check`.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use rmcp::transport::auth::{AuthorizationMetadata, StoredCredentials};
use serde::{Deserialize, Serialize};

use crate::config::{Config, ServerConfig};

/// The format tag of a login file.
const FORMAT: &str = "toolsearch-oauth-1";
/// A login file is small; a larger one is not read.
const MAX_BYTES: u64 = 256 << 10;

/// Whose login: the gateway's, or one profile's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owner {
    /// The gateway's (`login = "gateway"`, the default).
    Gateway,
    /// A profile's (`login = "<profile>"`).
    Profile(String),
}

impl Owner {
    /// The owner a server entry names.
    pub fn of(cfg: &ServerConfig) -> Owner {
        match cfg.oauth.as_ref().and_then(|o| o.owner()) {
            Some(p) => Owner::Profile(p.to_string()),
            None => Owner::Gateway,
        }
    }

    fn file_part(&self) -> String {
        match self {
            Owner::Gateway => "gateway".into(),
            Owner::Profile(p) => format!("profile-{p}"),
        }
    }

    /// `toolsearch oauth login NAME` with `--profile P` when a profile's.
    pub fn login_command(&self, server: &str) -> String {
        match self {
            Owner::Gateway => format!("toolsearch oauth login {server}"),
            Owner::Profile(p) => format!("toolsearch oauth login {server} --profile {p}"),
        }
    }
}

impl std::fmt::Display for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Owner::Gateway => f.write_str("the gateway"),
            Owner::Profile(p) => write!(f, "profile `{p}`"),
        }
    }
}

/// What a login file holds.
#[derive(Clone, Serialize, Deserialize)]
pub struct Record {
    /// `toolsearch-oauth-1`.
    pub format: String,
    /// The server entry's name.
    pub server: String,
    /// `gateway` or `profile-<name>`.
    pub owner: String,
    /// The server's URL when the login was made: another URL needs a new login.
    pub url: String,
    /// Changes with each login (not with refreshes): a running gateway tells a
    /// new login from a refresh by it.
    pub login_id: String,
    /// When the login was made (seconds since the epoch).
    pub logged_in_at: u64,
    /// The resource the tokens are for (RFC 8707).
    pub resource: String,
    /// The authorization server's metadata as discovered at login.
    pub metadata: AuthorizationMetadata,
    /// The client id, the tokens and the scopes granted.
    pub credentials: StoredCredentials,
    /// Set when the tokens can no longer be used (a refresh token rejected):
    /// why. The gateway then reports the server as needing a login.
    #[serde(default)]
    pub needs_login: Option<String>,
}

impl std::fmt::Debug for Record {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Record")
            .field("server", &self.server)
            .field("owner", &self.owner)
            .field("credentials", &self.credentials)
            .finish_non_exhaustive()
    }
}

/// Seconds since the epoch (what login files count in).
pub fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The file of `server`'s login owned by `owner`, in `dir`.
pub fn path_in(dir: &Path, server: &str, owner: &Owner) -> PathBuf {
    dir.join(format!("{server}.{}.json", owner.file_part()))
}

/// The file of the login a server entry uses (in `$XDG_STATE_HOME`).
pub fn path_of(cfg: &ServerConfig) -> anyhow::Result<PathBuf> {
    let dir = crate::config::oauth_dir().ok_or_else(|| {
        anyhow::anyhow!("neither XDG_STATE_HOME nor HOME is set: there is no place for logins")
    })?;
    Ok(path_in(&dir, cfg.name(), &Owner::of(cfg)))
}

impl Record {
    pub(crate) fn new(
        cfg: &ServerConfig,
        owner: &Owner,
        resource: String,
        metadata: AuthorizationMetadata,
        credentials: StoredCredentials,
    ) -> Record {
        let mut id = [0u8; 12];
        let _ = ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut id);
        Record {
            format: FORMAT.into(),
            server: cfg.name().into(),
            owner: owner.file_part(),
            url: cfg.url.clone().unwrap_or_default(),
            login_id: crate::text::hex(&id),
            logged_in_at: now_secs(),
            resource,
            metadata,
            credentials,
            needs_login: None,
        }
    }

    /// When the access token expires (seconds since the epoch), when known.
    pub fn expires_at(&self) -> Option<u64> {
        use oauth2::TokenResponse as _;
        use rmcp::transport::auth::OAuthTokenResponse;
        let t: &OAuthTokenResponse = self.credentials.token_response.as_ref()?;
        Some(self.credentials.token_received_at? + t.expires_in()?.as_secs())
    }

    /// Reads the login at `path` (`Ok(None)`: there is none).
    ///
    /// # Errors
    /// A file the trust rule refuses, or one that is not a login.
    pub fn read(path: &Path) -> Result<Option<Record>, String> {
        if !path.exists() {
            return Ok(None);
        }
        let bytes = crate::trust::read_trusted(path, MAX_BYTES, crate::trust::Trust::Secret)
            .map_err(|e| format!("cannot read the login {}: {e}", path.display()))?;
        let record: Record = serde_json::from_slice(&bytes).map_err(|e| {
            format!(
                "the login {} is unreadable ({e}); log in again",
                path.display()
            )
        })?;
        if record.format != FORMAT {
            return Err(format!(
                "the login {} is of another format (`{}`); log in again",
                path.display(),
                record.format.escape_debug()
            ));
        }
        Ok(Some(record))
    }

    /// Writes it to `path` atomically (0600, in a 0700 folder).
    ///
    /// # Errors
    /// The folder or the file cannot be written.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let bytes = serde_json::to_vec_pretty(self)?;
        let dir = path.parent().unwrap_or(Path::new("."));
        crate::trust::ensure_private_dir(dir)?;
        crate::trust::replace_private(path, &self.server, &bytes)
    }
}

/// How long a process waits for another to finish with a login file.
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(20);

/// Takes the login file's lock (`<file>.lock`, an advisory lock of the
/// system): held by whoever refreshes, saves, marks or removes the login, so
/// that two gateways on one state folder never spend one refresh token twice
/// and a logout or a new login is never overwritten by a refresh. Waits at
/// most `wait`; the lock goes with the returned file.
///
/// # Errors
/// The lock file cannot be made, or another process held the lock all along.
pub fn lock(path: &Path, wait: std::time::Duration) -> Result<std::fs::File, String> {
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    let lock_path = PathBuf::from(name);
    if let Some(dir) = lock_path.parent() {
        crate::trust::ensure_private_dir(dir).map_err(|e| e.to_string())?;
    }
    let mut o = std::fs::OpenOptions::new();
    o.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    let file = o
        .open(&lock_path)
        .map_err(|e| format!("cannot open {}: {e}", lock_path.display()))?;
    let t0 = std::time::Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(std::fs::TryLockError::WouldBlock) if t0.elapsed() < wait => {
                std::thread::sleep(std::time::Duration::from_millis(25));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(format!(
                    "another process held the login {} for more than {} s",
                    path.display(),
                    wait.as_secs()
                ))
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(e.to_string()),
        }
    }
}

/// One server's login, as `toolsearch oauth status` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct LoginStatus {
    /// The server entry's name.
    pub server: String,
    /// `gateway` or `profile:<name>`.
    pub owner: String,
    /// `logged-in`, `expired` (a refresh token will renew it), `needs-login`.
    pub state: String,
    /// The access token's expiry (RFC 3339, UTC), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires: Option<String>,
    /// The scopes granted.
    pub scopes: Vec<String>,
    /// The profiles that call the server with this login.
    pub profiles: Vec<String>,
    /// Why it needs a login, and the command.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The login `cfg`'s server is called with (`read` is its file, read),
/// or why none can be: a read error, none stored, one marked as needing a
/// new login, or one made for another URL. The one rule the gateway's
/// connection and `oauth status` follow.
///
/// # Errors
/// Why, in words without the command to run.
pub fn usable(cfg: &ServerConfig, read: Result<Option<Record>, String>) -> Result<Record, String> {
    match read {
        Err(e) => Err(e),
        Ok(None) => Err(format!("none is stored for {}", Owner::of(cfg))),
        Ok(Some(r)) => match &r.needs_login {
            Some(why) => Err(why.clone()),
            None if Some(&r.url) != cfg.url.as_ref() => {
                Err("the stored one was made for another URL".into())
            }
            None => Ok(r),
        },
    }
}

/// The login state of every `oauth` server in `cfg` (never a token).
pub fn status(cfg: &Config) -> Vec<LoginStatus> {
    let profiles: Vec<String> = cfg
        .profiles()
        .iter()
        .map(|p| p.name().to_string())
        .collect();
    cfg.servers
        .iter()
        .filter_map(|s| Some((s, s.oauth.as_ref()?)))
        .map(|(s, o)| {
            let owner = Owner::of(s);
            let read = path_of(s)
                .map_err(|e| e.to_string())
                .and_then(|p| Record::read(&p));
            let command = owner.login_command(s.name());
            let marked_scopes = match &read {
                Ok(Some(r)) if r.needs_login.is_some() => r.credentials.granted_scopes.clone(),
                _ => Vec::new(),
            };
            let (state, reason, expires, scopes) = match usable(s, read) {
                Ok(r) => {
                    let at = r.expires_at();
                    let expired = at.is_some_and(|t| t <= now_secs());
                    (
                        if expired { "expired" } else { "logged-in" },
                        None,
                        at.map(crate::text::rfc3339_secs),
                        r.credentials.granted_scopes.clone(),
                    )
                }
                Err(why) => (
                    "needs-login",
                    Some(format!("{why}; run `{command}`")),
                    None,
                    marked_scopes,
                ),
            };
            LoginStatus {
                server: s.name().to_string(),
                owner: match &owner {
                    Owner::Gateway => "gateway".into(),
                    Owner::Profile(p) => format!("profile:{p}"),
                },
                state: state.into(),
                expires,
                scopes,
                profiles: profiles
                    .iter()
                    .filter(|p| o.shared_with(p))
                    .cloned()
                    .collect(),
                reason,
            }
        })
        .collect()
}
