//! A stdio server's process: how it is started (under a keeper when the process
//! uses one), what it inherits from the gateway's environment, its stderr
//! (logged, never the protocol), and how it is stopped with everything it
//! started, on every path.

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use tokio::io::AsyncBufReadExt;

use crate::config::ServerConfig;
use crate::text::{clean_for_log, MAX_LOG_LINE};

/// How long a stopping server may take to exit before it is killed.
pub(crate) const STOP_GRACE: Duration = Duration::from_millis(1500);

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

/// A stdio server's process (under its keeper when the process uses one, see
/// [`super::keeper`]) in a process group of its own. Stopped with
/// [`ServerProcess::stop`]; dropped without it (a start that timed out, a
/// connection given up), its group is signalled at once: the keeper is told to
/// stop (it ends everything below it), or without a keeper the group is killed.
pub(crate) struct ServerProcess {
    child: tokio::process::Child,
    group: Pid,
    kept: bool,
    stopped: bool,
}

/// The pipes of a started server: its stdout and stdin carry the protocol.
pub(crate) type Pipes = (tokio::process::ChildStdout, tokio::process::ChildStdin);

impl ServerProcess {
    /// Starts `cfg`'s command with its arguments, environment and directory.
    pub(crate) fn spawn(
        server: &str,
        cfg: &ServerConfig,
        tail: &Arc<Tail>,
    ) -> anyhow::Result<(ServerProcess, Pipes)> {
        let command = cfg.command.as_deref().unwrap_or_default();
        let keeper = super::keeper::keeper();
        let mut cmd = match keeper {
            Some(k) => {
                // The keeper runs the command: say now when it cannot be found.
                let path = cfg
                    .env
                    .get("PATH")
                    .cloned()
                    .or_else(|| std::env::var("PATH").ok())
                    .unwrap_or_default();
                if !runnable(command, &path, cfg.cwd.as_deref()) {
                    anyhow::bail!("cannot run `{command}`: not found or not executable");
                }
                let mut c = tokio::process::Command::new(&k.program);
                c.args(&k.args)
                    .args(super::keeper::keeper_args(STOP_GRACE, command, &cfg.args));
                c
            }
            None => {
                let mut c = tokio::process::Command::new(command);
                c.args(&cfg.args);
                c
            }
        };
        cmd.env_clear()
            .envs(inherited_env())
            .envs(&cfg.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group: stopping it stops what it started (npx → node).
            .process_group(0);
        if let Some(cwd) = &cfg.cwd {
            cmd.current_dir(cwd);
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| anyhow::anyhow!("cannot run `{command}`: {e}"))?;
        let pipes = (
            child.stdout.take().expect("piped"),
            child.stdin.take().expect("piped"),
        );
        tail.restart();
        if let Some(stderr) = child.stderr.take() {
            tokio::spawn(log_stderr(server.to_string(), stderr, tail.clone()));
        }
        let group = Pid::from_raw(child.id().map_or(0, |p| p as i32));
        let process = ServerProcess {
            child,
            group,
            kept: keeper.is_some(),
            stopped: false,
        };
        Ok((process, pipes))
    }

    /// Waits until the process the gateway started (the keeper, or the server
    /// itself) exits; how it ended.
    pub(crate) async fn exited(&mut self) -> String {
        match self.child.wait().await {
            Ok(status) => status.to_string(),
            Err(e) => format!("cannot wait for it: {e}"),
        }
    }

    /// Ends the server and everything it started: SIGTERM to its process group
    /// (the keeper gives the server [`STOP_GRACE`], then kills everything below
    /// it), then SIGKILL to the group once the grace (and the keeper's clean-up)
    /// is over.
    pub(crate) async fn stop(mut self, server: &str) {
        self.stopped = true;
        if self.group.as_raw() <= 0 {
            return;
        }
        let _ = killpg(self.group, Signal::SIGTERM);
        let wait = if self.kept {
            STOP_GRACE + KEEPER_CLEAN_UP
        } else {
            STOP_GRACE
        };
        if tokio::time::timeout(wait, self.child.wait()).await.is_err() {
            tracing::warn!(
                server,
                "server did not stop within {} ms of SIGTERM; killing it",
                wait.as_millis()
            );
        }
        // Whatever it started and left in its group goes too.
        let _ = killpg(self.group, Signal::SIGKILL);
        let _ = tokio::time::timeout(KEEPER_CLEAN_UP, self.child.wait()).await;
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if self.stopped || self.group.as_raw() <= 0 {
            return;
        }
        // The keeper ends everything below it; without one the group is killed.
        // Tokio reaps the process in the background.
        let signal = if self.kept {
            Signal::SIGTERM
        } else {
            Signal::SIGKILL
        };
        let _ = killpg(self.group, signal);
    }
}

/// How long a keeper may take, after its grace, to kill and reap what is left.
const KEEPER_CLEAN_UP: Duration = Duration::from_secs(1);

/// True when `command` names an executable file: a path (relative to `cwd`), or
/// a name found in `path`.
fn runnable(command: &str, path: &str, cwd: Option<&std::path::Path>) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &std::path::Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if command.contains('/') {
        let p = std::path::Path::new(command);
        return match cwd {
            Some(dir) if p.is_relative() => executable(&dir.join(p)),
            _ => executable(p),
        };
    }
    !command.is_empty() && std::env::split_paths(path).any(|dir| executable(&dir.join(command)))
}

fn inherited_env() -> Vec<(String, String)> {
    std::env::vars()
        .filter(|(k, _)| {
            INHERITED_ENV.contains(&k.as_str())
                || INHERITED_PREFIXES.iter().any(|p| k.starts_with(p))
        })
        .collect()
}

/// Logs a server's stderr lines (cleaned, capped) on the gateway's stderr: they can
/// never reach the gateway's stdout, which is the protocol. The last lines are
/// kept in `tail` (a failed start says why with them).
async fn log_stderr(server: String, stderr: tokio::process::ChildStderr, tail: Arc<Tail>) {
    let run = tail.run();
    let mut lines = tokio::io::BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let line = clean_for_log(&line, MAX_LOG_LINE);
        tracing::info!(target: "toolsearch::server", server = %server, "{line}");
        tail.push(run, &line);
    }
    tail.ended(run);
}

/// A server's process while it starts, and the last lines its processes
/// wrote on stderr: a start given up (failed, timed out, or the gateway
/// stopping) stops its process as a connection's end does, and says why in
/// the server's own words.
#[derive(Default)]
pub(crate) struct Spawned {
    process: Mutex<Option<ServerProcess>>,
    pub(crate) tail: Arc<Tail>,
}

/// How long a failed start waits for the last of its process's stderr.
const STDERR_WAIT: Duration = Duration::from_millis(300);

impl Spawned {
    /// Holds the process of a start under way.
    pub(crate) fn hold(&self, p: ServerProcess) {
        *self.process.lock().unwrap_or_else(|p| p.into_inner()) = Some(p);
    }

    /// The process of the start, for the connection it made.
    pub(crate) fn take(&self) -> Option<ServerProcess> {
        self.process
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }

    /// Stops the process of a start given up, and waits for it (see
    /// [`ServerProcess::stop`]).
    pub(crate) async fn stop(&self, server: &str) {
        if let Some(p) = self.take() {
            p.stop(server).await;
        }
    }

    /// `why`, with the last lines the process wrote on stderr when it wrote
    /// any (its own words are usually the cause: a module not found, a
    /// missing key).
    pub(crate) async fn explain(&self, why: String) -> String {
        match self.tail.said(STDERR_WAIT).await {
            Some(said) => format!("{why}; its stderr ends: {said}"),
            None => why,
        }
    }
}

/// Lines of a server's stderr kept for a reason.
const TAIL_LINES: usize = 4;
/// Longest line kept.
const TAIL_LINE: usize = 200;

/// The last few lines a server's process wrote on its stderr (of its latest
/// start), bounded: what a failed start's reason quotes.
#[derive(Default)]
pub(crate) struct Tail {
    state: Mutex<TailState>,
    ended: tokio::sync::Notify,
}

#[derive(Default)]
struct TailState {
    /// Starts so far: lines of an older process are dropped.
    run: u64,
    lines: VecDeque<String>,
    /// The latest process's stderr reached its end.
    done: bool,
}

impl Tail {
    fn lock(&self) -> std::sync::MutexGuard<'_, TailState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A new process: what the last one wrote goes.
    fn restart(&self) {
        let mut st = self.lock();
        st.run += 1;
        st.lines.clear();
        st.done = false;
    }

    fn run(&self) -> u64 {
        self.lock().run
    }

    fn push(&self, run: u64, line: &str) {
        let mut st = self.lock();
        if st.run != run || line.trim().is_empty() {
            return;
        }
        if st.lines.len() == TAIL_LINES {
            st.lines.pop_front();
        }
        st.lines.push_back(
            toolsearch_catalog::truncate_at_boundary(line.trim(), TAIL_LINE).to_string(),
        );
    }

    fn ended(&self, run: u64) {
        let mut st = self.lock();
        if st.run == run {
            st.done = true;
            drop(st);
            self.ended.notify_waiters();
        }
    }

    /// The lines kept, joined (`None`: it wrote nothing), after waiting at
    /// most `limit` for the stream's end (a process that just died has
    /// usually said why in its last lines, not yet read).
    pub(crate) async fn said(&self, limit: Duration) -> Option<String> {
        let wait = self.ended.notified();
        let waits = {
            let st = self.lock();
            st.run > 0 && !st.done
        };
        if waits {
            let _ = tokio::time::timeout(limit, wait).await;
        }
        let st = self.lock();
        (!st.lines.is_empty()).then(|| st.lines.iter().cloned().collect::<Vec<_>>().join(" | "))
    }
}
