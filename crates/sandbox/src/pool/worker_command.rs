//! Which program a worker process runs: the host names one, or
//! [`WorkerCommand::locate`] finds one (the host's own executable when its
//! `main` called [`serve_if_worker`], else `toolsearch-sandbox-worker`); never
//! a silent fallback to in-process threads.

use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

/// The first argument that makes a host's own executable serve as its sandbox
/// worker (see [`serve_if_worker`]).
pub const WORKER_ARG: &str = "--toolsearch-sandbox-worker";

/// Set by [`serve_if_worker`] in a process that is not a worker: this
/// executable can be its own worker program.
static SELF_WORKER: AtomicBool = AtomicBool::new(false);

/// Call it first in `main`: when this process was started as a sandbox worker
/// (first argument [`WORKER_ARG`]), it serves as one and exits; otherwise it
/// returns at once, and [`WorkerCommand::locate`] will start this very
/// executable as the worker, so a host needs no other program. Nothing may
/// write to stdout before it.
///
/// The worker runs the host's executable, global allocator included: its OS
/// data limit leaves room for that allocator's reservations (`cargo xtask
/// outside` checks one with mimalloc).
pub fn serve_if_worker() {
    assert!(
        tokio::runtime::Handle::try_current().is_err(),
        "toolsearch::serve_if_worker() must run first in a plain `fn main()`, before any async \
         runtime starts (the worker it serves forks copies of its process); start the runtime \
         after it"
    );
    if std::env::args_os().nth(1).as_deref() == Some(OsStr::new(WORKER_ARG)) {
        #[cfg(target_os = "linux")]
        crate::worker::harden::allow_host_allocator();
        let ok = crate::run_worker_process() == std::process::ExitCode::SUCCESS;
        std::process::exit(if ok { 0 } else { 1 });
    }
    SELF_WORKER.store(true, Ordering::Relaxed);
}

/// How to start a worker process: a program whose `main` calls
/// [`run_worker_process`](crate::run_worker_process) (for the given arguments).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerCommand {
    /// The executable.
    pub program: PathBuf,
    /// Arguments that make it serve as a sandbox worker.
    pub args: Vec<String>,
}

impl WorkerCommand {
    /// The worker program to use for untrusted code when the host did not name
    /// one: `$TOOLSEARCH_SANDBOX_WORKER` when it is set (it must name a file:
    /// a wrong path is an error, never a reason to look elsewhere), else this
    /// executable when its `main` called [`serve_if_worker`], else
    /// `toolsearch-sandbox-worker` next to this executable (or one directory
    /// up, for test binaries in `deps/`).
    ///
    /// # Errors
    /// A message naming what was looked for and where, when there is no worker
    /// program: the caller must not fall back to in-process threads for
    /// untrusted code.
    pub fn locate() -> Result<WorkerCommand, String> {
        let exe =
            std::env::current_exe().map_err(|e| format!("cannot locate this executable: {e}"))?;
        if std::env::var_os("TOOLSEARCH_SANDBOX_WORKER").is_none()
            && SELF_WORKER.load(Ordering::Relaxed)
        {
            return Ok(WorkerCommand {
                program: exe,
                args: vec![WORKER_ARG.into()],
            });
        }
        locate_from(std::env::var_os("TOOLSEARCH_SANDBOX_WORKER"), &exe)
    }
}

/// [`WorkerCommand::locate`] for a given variable value and executable path.
fn locate_from(
    named: Option<std::ffi::OsString>,
    exe: &std::path::Path,
) -> Result<WorkerCommand, String> {
    let command = |program| WorkerCommand {
        program,
        args: Vec::new(),
    };
    if let Some(named) = named {
        let path = PathBuf::from(named);
        return if path.is_file() {
            Ok(command(path))
        } else {
            Err(format!(
                "TOOLSEARCH_SANDBOX_WORKER names {}, which is not a file",
                path.display()
            ))
        };
    }
    let name = format!("toolsearch-sandbox-worker{}", std::env::consts::EXE_SUFFIX);
    let dir = exe.parent().unwrap_or(std::path::Path::new("."));
    [Some(dir.join(&name)), dir.parent().map(|d| d.join(&name))]
        .into_iter()
        .flatten()
        .find(|p| p.is_file())
        .map(command)
        .ok_or_else(|| {
            format!(
                "no worker program: call `toolsearch::serve_if_worker()` first in `main` (this \
                 executable then serves as its own worker), or put {name} next to {} (or one \
                 directory up), or set TOOLSEARCH_SANDBOX_WORKER",
                exe.display()
            )
        })
}

#[cfg(test)]
mod tests {
    use super::locate_from;

    #[test]
    fn a_worker_is_named_found_beside_the_executable_or_an_error_never_a_guess() {
        let dir = std::env::temp_dir().join(format!("toolsearch-locate-{}", std::process::id()));
        let deps = dir.join("deps");
        std::fs::create_dir_all(&deps).unwrap();
        let exe = deps.join("host");
        // Nothing there: an error naming what was looked for.
        let err = locate_from(None, &exe).unwrap_err();
        assert!(
            err.contains("toolsearch-sandbox-worker") && err.contains("host"),
            "{err}"
        );
        // One directory up (test binaries), then beside the executable.
        let up = dir.join("toolsearch-sandbox-worker");
        std::fs::write(&up, "").unwrap();
        assert_eq!(locate_from(None, &exe).unwrap().program, up);
        let beside = deps.join("toolsearch-sandbox-worker");
        std::fs::write(&beside, "").unwrap();
        assert_eq!(locate_from(None, &exe).unwrap().program, beside);
        // A named path wins, and a wrong one is an error even with a worker beside.
        assert_eq!(
            locate_from(Some(up.clone().into()), &exe).unwrap().program,
            up
        );
        let err = locate_from(Some("/nonexistent/worker".into()), &exe).unwrap_err();
        assert!(
            err.contains("TOOLSEARCH_SANDBOX_WORKER") && err.contains("/nonexistent/worker"),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
