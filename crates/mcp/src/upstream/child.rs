//! A stdio server's process: what it inherits from the gateway's environment,
//! its stderr (logged, never the protocol), and how it is stopped with
//! everything it started.

use std::time::Duration;

use tokio::io::AsyncBufReadExt;

use crate::text::{clean_for_log, MAX_LOG_LINE};

/// How long a stopping server may take to exit before it is killed.
pub(crate) const STOP_GRACE: Duration = Duration::from_secs(2);

/// Variables a stdio server inherits from the gateway; every other variable of the
/// gateway (its tokens among them) stays out of it. `env` in the config adds more.
const INHERITED_ENV: [&str; 13] = [
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TERM",
    "TMPDIR",
    "TZ",
    "SHELL",
    "PYENV_ROOT",
    "VIRTUAL_ENV",
];
/// Prefixes of variables a stdio server inherits (toolchain settings, not secrets).
const INHERITED_PREFIXES: [&str; 4] = ["NODE_", "npm_config_", "PYTHON", "XDG_"];

/// Ends a stdio server and everything it started: SIGTERM to its process group,
/// then SIGKILL after a grace period.
pub(crate) async fn stop_child(server: &str, child: &mut tokio::process::Child) {
    use nix::sys::signal::{killpg, Signal};
    use nix::unistd::Pid;
    let Some(pid) = child.id() else {
        return;
    };
    let group = Pid::from_raw(pid as i32);
    let _ = killpg(group, Signal::SIGTERM);
    if tokio::time::timeout(STOP_GRACE, child.wait())
        .await
        .is_err()
    {
        tracing::warn!(
            server,
            "server did not stop within 2 s of SIGTERM; killing it"
        );
    }
    // Whatever it started and left behind goes too.
    let _ = killpg(group, Signal::SIGKILL);
    let _ = child.wait().await;
}

pub(crate) fn inherited_env() -> Vec<(String, String)> {
    std::env::vars()
        .filter(|(k, _)| {
            INHERITED_ENV.contains(&k.as_str())
                || INHERITED_PREFIXES.iter().any(|p| k.starts_with(p))
        })
        .collect()
}

/// Logs a server's stderr lines (cleaned, capped) on the gateway's stderr: they can
/// never reach the gateway's stdout, which is the protocol.
pub(crate) async fn log_stderr(server: String, stderr: tokio::process::ChildStderr) {
    let mut lines = tokio::io::BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let line = clean_for_log(&line, MAX_LOG_LINE);
        tracing::info!(target: "toolsearch::server", server = %server, "{line}");
    }
}
