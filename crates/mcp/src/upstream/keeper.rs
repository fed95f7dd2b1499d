//! A stdio server's keeper: a small process of this program between the
//! gateway and each stdio server, so that stopping a server stops everything it
//! started, whatever that did.
//!
//! A process group is not enough: a wrapper (`npx`, `uvx`, a shell) whose
//! helper outlives it, or a grandchild that calls `setsid()`, escapes a group
//! kill and is adopted by init. The keeper is a child subreaper
//! (`PR_SET_CHILD_SUBREAPER`): whatever its server starts and orphans is
//! re-parented to the keeper, never to init. When the server exits, or the
//! keeper is told to stop (SIGTERM, SIGINT, SIGHUP: the gateway signals the
//! keeper's process group), or the gateway dies (`PR_SET_PDEATHSIG`), the
//! keeper gives the server a grace period to exit and then kills every
//! process below it and reaps them. The server's stdin, stdout and stderr are
//! the gateway's pipes, inherited: the keeper holds none of them open.
//!
//! A process uses a keeper once [`use_keeper`] named how to start one (the CLI
//! does, with its own executable); an embedder that does not still gets the
//! group kill on every exit path.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, SigSet, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;

/// How to start a keeper: a program and the arguments that make it one (the
/// keeper's own arguments and the server's command line follow).
#[derive(Debug, Clone)]
pub struct KeeperCommand {
    /// The program (the CLI: its own executable).
    pub program: PathBuf,
    /// Arguments before the keeper's (the CLI: its hidden subcommand).
    pub args: Vec<String>,
}

static KEEPER: OnceLock<KeeperCommand> = OnceLock::new();

/// Starts every stdio server of this process under a keeper from now on. A
/// process-wide choice, made once (later calls are ignored).
pub fn use_keeper(cmd: KeeperCommand) {
    let _ = KEEPER.set(cmd);
}

/// The keeper to start servers under, when one was named.
pub(crate) fn keeper() -> Option<&'static KeeperCommand> {
    KEEPER.get()
}

/// The keeper's command line for `command args`: the gateway's pid (a keeper
/// whose gateway is gone stops), the grace period, then the server's.
pub(crate) fn keeper_args(grace: Duration, command: &str, args: &[String]) -> Vec<OsString> {
    let mut out: Vec<OsString> = vec![
        "--parent".into(),
        std::process::id().to_string().into(),
        "--grace-ms".into(),
        grace.as_millis().to_string().into(),
        "--".into(),
        command.into(),
    ];
    out.extend(args.iter().map(OsString::from));
    out
}

/// What the keeper waits for: a child changed state, it is told to stop, or
/// its gateway died (`SIGUSR1`, the parent-death signal).
fn watched() -> SigSet {
    let mut set = SigSet::empty();
    for s in [
        Signal::SIGCHLD,
        Signal::SIGTERM,
        Signal::SIGINT,
        Signal::SIGHUP,
        Signal::SIGUSR1,
    ] {
        set.add(s);
    }
    set
}

/// Runs as the keeper of `command` (its arguments follow) for the gateway
/// `parent`; returns the exit code to leave with (the server's, or 128 + the
/// signal that ended it).
pub fn run_keeper(parent: u32, grace: Duration, command: &[OsString]) -> i32 {
    let Some((program, args)) = command.split_first() else {
        eprintln!("server keeper: no command to run");
        return 2;
    };
    let parent = Pid::from_raw(parent as i32);
    if let Err(e) = nix::sys::prctl::set_child_subreaper(true) {
        eprintln!("server keeper: cannot become a subreaper: {e}");
    }
    // SIGUSR1, not SIGTERM: the signal also comes when the thread that started
    // the keeper ends, and only a real death of the gateway is acted on.
    let _ = nix::sys::prctl::set_pdeathsig(Signal::SIGUSR1);
    if nix::unistd::getppid() != parent {
        // The gateway died before the death signal was armed.
        return 1;
    }
    let signals = watched();
    if let Err(e) = signals.thread_block() {
        eprintln!("server keeper: cannot block signals: {e}");
        return 2;
    }
    // The child starts with an empty signal mask (std resets it).
    let child = match std::process::Command::new(program).args(args).spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cannot run `{}`: {e}", program.to_string_lossy());
            return 127;
        }
    };
    // The pipes belong to the server alone: its death must read as EOF.
    if let Ok(null) = std::fs::File::options()
        .read(true)
        .write(true)
        .open("/dev/null")
    {
        let _ = nix::unistd::dup2_stdin(&null);
        let _ = nix::unistd::dup2_stdout(&null);
    }
    let main = Pid::from_raw(child.id() as i32);
    drop(child);
    let code = watch(main, parent, grace, &signals);
    clean_up();
    code
}

/// Waits until the server exits, or until the grace period after a stop
/// request ends; returns the exit code to leave with.
fn watch(main: Pid, parent: Pid, grace: Duration, signals: &SigSet) -> i32 {
    let mut deadline: Option<Instant> = None;
    loop {
        if let Some(code) = reap(Some(main)) {
            return code;
        }
        if let Some(d) = deadline {
            if Instant::now() >= d {
                return 128 + Signal::SIGTERM as i32;
            }
            std::thread::sleep(Duration::from_millis(10));
            continue;
        }
        let stop = match signals.wait() {
            Ok(Signal::SIGCHLD) | Err(_) => false,
            // The parent-death signal also fires when the thread that started
            // the keeper exits: only a gateway that is gone counts.
            Ok(Signal::SIGUSR1) => nix::unistd::getppid() != parent,
            Ok(_) => true,
        };
        if stop {
            let _ = kill(main, Signal::SIGTERM);
            deadline = Some(Instant::now() + grace);
        }
    }
}

/// Reaps every child that exited; returns the exit code of `main` when it was
/// among them.
fn reap(main: Option<Pid>) -> Option<i32> {
    let mut code = None;
    loop {
        match waitpid(None, Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::Exited(pid, c)) if Some(pid) == main => code = Some(c),
            Ok(WaitStatus::Signaled(pid, s, _)) if Some(pid) == main => {
                code = Some(128 + s as i32);
            }
            Ok(WaitStatus::StillAlive) | Err(_) => return code,
            Ok(_) => {}
        }
    }
}

/// Kills every process below this one (orphans were re-parented here) and reaps
/// them; bounded, for a process that forks as fast as it is killed.
fn clean_up() {
    let me = Pid::this();
    for _ in 0..200 {
        let below = descendants(me);
        if below.is_empty() {
            return;
        }
        for p in below {
            let _ = kill(p, Signal::SIGKILL);
        }
        std::thread::sleep(Duration::from_millis(5));
        reap(None);
    }
}

/// Every process below `root`, read from `/proc` (children before theirs).
pub(crate) fn descendants(root: Pid) -> Vec<Pid> {
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for entry in dir.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<i32>().ok())
            else {
                continue;
            };
            if let Some(ppid) = parent_of(pid) {
                children.entry(ppid).or_default().push(pid);
            }
        }
    }
    let mut out = Vec::new();
    let mut next = vec![root.as_raw()];
    while let Some(p) = next.pop() {
        for &c in children.get(&p).map(Vec::as_slice).unwrap_or_default() {
            out.push(Pid::from_raw(c));
            next.push(c);
        }
    }
    out
}

/// The parent of `pid` from `/proc/PID/stat` (the field after the command,
/// which may itself hold spaces and parentheses).
fn parent_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descendants_finds_a_grandchild() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & wait"])
            .spawn()
            .unwrap();
        let root = Pid::from_raw(child.id() as i32);
        let t0 = Instant::now();
        let found = loop {
            let d = descendants(root);
            if !d.is_empty() || t0.elapsed() > Duration::from_secs(20) {
                break d;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let parent = found.first().and_then(|p| parent_of(p.as_raw()));
        for p in &found {
            let _ = kill(*p, Signal::SIGKILL);
        }
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(parent, Some(root.as_raw()));
    }
}
