//! Where the gateway keeps what it learns: `$XDG_STATE_HOME/toolsearch`, else
//! `~/.local/state/toolsearch`.

use std::path::PathBuf;

/// `$XDG_STATE_HOME/toolsearch`, else `~/.local/state/toolsearch` (`None` when
/// neither is known).
fn state_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".local").join("state"))
        })
        .map(|base| base.join("toolsearch"))
}

/// `<state>/servers`: lazy servers' manifests (unless `manifest_dir` says).
pub fn default_manifest_dir() -> Option<PathBuf> {
    state_dir().map(|d| d.join("servers"))
}

/// `<state>/oauth`: the logins `toolsearch oauth login` makes, one file per
/// server and owner (mode 0600 in a 0700 folder).
pub fn oauth_dir() -> Option<PathBuf> {
    state_dir().map(|d| d.join("oauth"))
}
