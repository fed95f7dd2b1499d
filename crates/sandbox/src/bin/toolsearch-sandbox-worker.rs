//! A sandbox worker process for `Isolation::Process` (see `toolsearch_sandbox::run_worker_process`).

fn main() -> std::process::ExitCode {
    toolsearch_sandbox::run_worker_process()
}
