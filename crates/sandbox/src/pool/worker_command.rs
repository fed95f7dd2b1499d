//! Which program a worker process runs: the host names one, or
//! [`WorkerCommand::locate`] finds `toolsearch-sandbox-worker`; never a silent
//! fallback to in-process threads.

use std::path::PathBuf;

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
    /// a wrong path is an error, never a reason to look elsewhere), else
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
                "no {name} next to {} (nor one directory up); install it there or set \
                 TOOLSEARCH_SANDBOX_WORKER",
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
