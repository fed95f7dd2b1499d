//! Static bearer tokens: read once at start from the environment variables
//! and files the config names (never from the config itself), kept as
//! SHA-256 digests, and matched in constant time against every one (no early
//! exit: the time taken says nothing about which token came close).

use std::path::Path;
use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::config::{Config, DEFAULT_PROFILE};

/// The largest token file read.
const MAX_TOKEN_FILE: u64 = 1 << 20;

/// Every static token and the profile it opens.
#[derive(Default)]
pub(crate) struct Tokens {
    /// Each token's digest, the profile it opens and its principal (see
    /// [`principal`], made once).
    entries: Vec<([u8; 32], Arc<str>, Arc<str>)>,
    /// The principals of `entries`, for [`Tokens::has_principal`].
    principals: std::collections::HashSet<Arc<str>>,
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

impl Tokens {
    /// Reads the tokens of `cfg`: `[http] bearer_token_env` opens `default`;
    /// each profile's `token_env` and `token_file` open it.
    ///
    /// # Errors
    /// A variable that is not set or is empty, a file that cannot be read,
    /// is readable by others or holds no token, or a token that opens two
    /// profiles.
    pub(crate) fn load(cfg: &Config) -> anyhow::Result<Tokens> {
        let mut tokens = Tokens::default();
        if let Some(var) = &cfg.http.bearer_token_env {
            let t = std::env::var(var).map_err(|_| {
                anyhow::anyhow!("[http] bearer_token_env names `{var}`, which is not set")
            })?;
            tokens.add(
                &t,
                DEFAULT_PROFILE,
                &format!("[http] bearer_token_env `{var}`"),
            )?;
        }
        for p in &cfg.profiles {
            for var in &p.token_env {
                let t = std::env::var(var).map_err(|_| {
                    anyhow::anyhow!(
                        "profile `{}`: token_env names `{var}`, which is not set",
                        p.name()
                    )
                })?;
                tokens.add(
                    &t,
                    p.name(),
                    &format!("profile `{}` token_env `{var}`", p.name()),
                )?;
            }
            if let Some(path) = &p.token_file {
                let read = read_token_file(path).map_err(|e| {
                    anyhow::anyhow!("profile `{}`: token_file {}: {e}", p.name(), path.display())
                })?;
                for (line, t) in read {
                    tokens.add(
                        &t,
                        p.name(),
                        &format!("profile `{}` token_file line {line}", p.name()),
                    )?;
                }
            }
        }
        Ok(tokens)
    }

    fn add(&mut self, token: &str, profile: &str, from: &str) -> anyhow::Result<()> {
        let token = token.trim();
        if token.is_empty() {
            anyhow::bail!("{from}: the token is empty");
        }
        if token.chars().any(|c| c.is_whitespace() || c.is_control()) {
            anyhow::bail!("{from}: a token holds no spaces or control characters");
        }
        let d = digest(token);
        if let Some((_, other, _)) = self.entries.iter().find(|(e, _, _)| *e == d) {
            if &**other != profile {
                anyhow::bail!("{from}: the same token already opens profile `{other}`; a token opens one profile");
            }
            return Ok(());
        }
        let who = principal(&d);
        self.principals.insert(who.clone());
        self.entries.push((d, Arc::from(profile), who));
        Ok(())
    }

    /// The profile `sent` opens and the principal it is, compared against
    /// every token.
    pub(crate) fn profile(&self, sent: &str) -> Option<(Arc<str>, Arc<str>)> {
        let d = digest(sent);
        let mut found = None;
        for (e, profile, who) in &self.entries {
            if super::same(e, &d) {
                found = Some((profile.clone(), who.clone()));
            }
        }
        found
    }

    /// True when some token of these is the principal `p` (see [`principal`]).
    pub(crate) fn has_principal(&self, p: &str) -> bool {
        self.principals.contains(p)
    }
}

/// Who a static token is: `token:` and a digest of its digest, the same
/// after a restart and on every replica of one configuration, whatever else
/// the configuration holds (a token's place in a list would hand its sessions
/// to another when the list changes). It says nothing of the token.
pub(crate) fn principal(digest: &[u8; 32]) -> Arc<str> {
    let mut h = Sha256::new();
    h.update(b"toolsearch principal\0");
    h.update(digest);
    Arc::from(format!("token:{}", crate::text::hex(&h.finalize()[..16])))
}

/// The tokens of a file, with their line numbers.
fn read_token_file(path: &Path) -> anyhow::Result<Vec<(usize, String)>> {
    let bytes = crate::trust::read_trusted(path, MAX_TOKEN_FILE, crate::trust::Trust::Secret)
        .map_err(|e| anyhow::anyhow!(e))?;
    let text = String::from_utf8(bytes).map_err(|_| anyhow::anyhow!("the file is not UTF-8"))?;
    let tokens: Vec<(usize, String)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .map(|(i, l)| (i, l.to_string()))
        .collect();
    if tokens.is_empty() {
        anyhow::bail!("it holds no token");
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_open_their_profile_only() {
        let mut t = Tokens::default();
        t.add("alpha-token-1", "a", "x").unwrap();
        t.add("alpha-token-2", "a", "x").unwrap();
        t.add("beta-token", "b", "x").unwrap();
        let profile = |s: &str| t.profile(s).map(|(p, _)| p.to_string());
        assert_eq!(profile("alpha-token-2").as_deref(), Some("a"));
        assert_eq!(profile("beta-token").as_deref(), Some("b"));
        assert_ne!(
            t.profile("alpha-token-1").unwrap().1,
            t.profile("alpha-token-2").unwrap().1
        );
        // A principal is the token's, not its place: the same in another
        // list, and never another token's.
        let mut other = Tokens::default();
        other.add("beta-token", "b", "x").unwrap();
        other.add("alpha-token-2", "a", "x").unwrap();
        assert_eq!(
            other.profile("alpha-token-2").unwrap().1,
            t.profile("alpha-token-2").unwrap().1
        );
        let p = t.profile("alpha-token-1").unwrap().1;
        assert!(t.has_principal(&p) && !other.has_principal(&p));
        assert!(!p.contains("alpha"));
        assert_eq!(t.profile("alpha-token"), None);
        assert_eq!(t.profile(""), None);
        let twice = t
            .add("beta-token", "a", "profile `a` token_env `B`")
            .unwrap_err();
        assert!(
            twice.to_string().contains("already opens profile `b`"),
            "{twice}"
        );
        assert!(t.add("  ", "a", "y").is_err());
    }

    #[test]
    fn a_token_file_must_be_private_and_hold_a_token() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("ts-tokens-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("t");
        std::fs::write(&f, "# rotation\n\nnew-token\n old-token \n").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
        let open = read_token_file(&f).unwrap_err().to_string();
        assert!(open.contains("chmod 600"), "{open}");
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
        let read = read_token_file(&f).unwrap();
        assert_eq!(
            read,
            [(3, "new-token".to_string()), (4, "old-token".to_string())]
        );
        std::fs::write(&f, "# none\n").unwrap();
        assert!(read_token_file(&f)
            .unwrap_err()
            .to_string()
            .contains("no token"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
