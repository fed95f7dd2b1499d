//! The second containment layer, under the isolate (Linux, process backend).
//!
//! A JS engine bug must not become a host compromise. A worker process, once
//! its template isolate is built (fork path) or its pool is up (in-process
//! path), and before it runs any snippet:
//!
//! - lowers its resource limits: open files ([`MAX_FILES`]), data
//!   (`RLIMIT_DATA`, [`data_budget`]: the backstop for a heap limit the engine
//!   would not enforce; never `RLIMIT_AS`, the engine reserves large address
//!   ranges) and core dumps (none);
//! - sets `no_new_privs` and installs a seccomp filter that allows only what
//!   the engine, its threads and the pipe protocol need: no sockets, no
//!   `execve`, no `ptrace`, no namespaces, and no opening of files at all;
//!   signals (`tgkill`), limits (`prlimit64`) and priorities (`setpriority`)
//!   only for the worker's own process, and a forked job process narrows that
//!   to itself with a filter of its own ([`pin_to_this_process`]). A
//!   forbidden call kills the process (`SIGSYS`): on the fork path that is the
//!   job's own process, and the zygote reports a `crashed` error for that job.
//!
//! Worker processes also start with an empty environment (`process.rs`).
//! `PoolConfig::harden` (default on; `TOOLSEARCH_SANDBOX_HARDEN=0` in the
//! host's environment turns the default off) is the switch for platforms
//! without seccomp. The filter is built with `seccompiler`'s safe API; the few
//! raw calls (rlimits) live in `sys.rs`.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

use crate::limits::Limits;
use crate::sys::{self, Rlimit};

/// Open files a worker process may hold (stdio, a pipe per job, a few spare).
pub(crate) const MAX_FILES: u64 = 64;

/// `RLIMIT_DATA` of a worker process: room for the engine and its threads
/// (measured: a worker with its template isolate holds about 40-60 MB of
/// data mappings), one job's heap with its unwinding headroom, and its
/// `ArrayBuffer` budget.
pub(crate) fn data_budget(limits: &Limits) -> u64 {
    let heap = limits.heap_bytes as u64;
    (384 << 20)
        + 2 * (heap + (16 << 20))
        + limits.array_buffer_bytes as u64
        + ALLOCATOR_HEADROOM.load(std::sync::atomic::Ordering::Relaxed)
}

/// Added to [`data_budget`] when the worker is a host's own executable
/// ([`crate::serve_if_worker`]), whose global allocator may be another than the
/// system's: mimalloc maps a 1 GiB arena read-write up front (with overcommit),
/// which counts against `RLIMIT_DATA` and made the template isolate's first
/// allocation fail. Address space, not memory: the job's heap limit and buffer
/// budget are unchanged.
static ALLOCATOR_HEADROOM: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// See [`ALLOCATOR_HEADROOM`].
pub(crate) fn allow_host_allocator() {
    ALLOCATOR_HEADROOM.store(4 << 30, std::sync::atomic::Ordering::Relaxed);
}

/// Lowers this process's resource limits (never raises them).
pub(crate) fn limit_resources(limits: &Limits) -> std::io::Result<()> {
    sys::set_rlimit(Rlimit::Core, 0)?;
    sys::set_rlimit(Rlimit::Files, MAX_FILES)?;
    sys::set_rlimit(Rlimit::Data, data_budget(limits))
}

/// Syscalls a worker needs after set-up, without conditions. Found by tracing
/// workers over the sandbox test suite and the bench (`strace -f -c`).
fn allowed() -> Vec<i64> {
    let mut v = vec![
        // pipes and memory
        libc::SYS_read,
        libc::SYS_write,
        libc::SYS_readv,
        libc::SYS_writev,
        libc::SYS_close,
        libc::SYS_pipe2,
        libc::SYS_fcntl,
        libc::SYS_lseek,
        libc::SYS_fstat,
        libc::SYS_newfstatat,
        libc::SYS_statx,
        libc::SYS_ppoll,
        libc::SYS_mmap,
        libc::SYS_munmap,
        libc::SYS_mprotect,
        libc::SYS_mremap,
        libc::SYS_madvise,
        libc::SYS_brk,
        // threads, time, signals
        libc::SYS_futex,
        libc::SYS_set_robust_list,
        libc::SYS_rseq,
        libc::SYS_sched_yield,
        libc::SYS_sched_getaffinity,
        libc::SYS_clock_gettime,
        libc::SYS_clock_getres,
        libc::SYS_clock_nanosleep,
        libc::SYS_nanosleep,
        libc::SYS_gettimeofday,
        libc::SYS_getrandom,
        libc::SYS_getpid,
        libc::SYS_getppid,
        libc::SYS_gettid,
        libc::SYS_rt_sigaction,
        libc::SYS_rt_sigprocmask,
        libc::SYS_rt_sigreturn,
        libc::SYS_sigaltstack,
        libc::SYS_getrusage,
        libc::SYS_sysinfo,
        libc::SYS_getrlimit,
        // children (the zygote forks, waits and its child exits)
        libc::SYS_wait4,
        libc::SYS_waitid,
        libc::SYS_exit,
        libc::SYS_exit_group,
    ];
    #[cfg(target_arch = "x86_64")]
    v.extend([libc::SYS_poll, libc::SYS_arch_prctl]);
    v
}

/// Namespaces a `clone` may never ask for.
const CLONE_NS: u64 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWCGROUP) as u64;

fn arch() -> seccompiler::TargetArch {
    #[cfg(target_arch = "x86_64")]
    let arch = seccompiler::TargetArch::x86_64;
    #[cfg(target_arch = "aarch64")]
    let arch = seccompiler::TargetArch::aarch64;
    #[cfg(target_arch = "riscv64")]
    let arch = seccompiler::TargetArch::riscv64;
    arch
}

/// `arg` (a pid, as a 32-bit value) is `value`.
fn arg_is(arg: u8, value: u32) -> Result<SeccompRule, seccompiler::BackendError> {
    SeccompRule::new(vec![SeccompCondition::new(
        arg,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Eq,
        u64::from(value),
    )?])
}

/// The calls that act on a process or thread named by an argument, allowed
/// only on `pid` (the caller's own process) or `0` (the caller): signals
/// (`tgkill`'s thread group), resource limits (`prlimit64`) and priorities
/// (`setpriority`'s `who`). After an engine exploit a worker must not signal
/// the host or lower its limits (same uid, so the kernel alone would allow it).
fn own_process_rules(pid: u32) -> Result<Vec<(i64, Vec<SeccompRule>)>, seccompiler::BackendError> {
    Ok(vec![
        (libc::SYS_tgkill, vec![arg_is(0, pid)?]),
        (libc::SYS_prlimit64, vec![arg_is(0, 0)?, arg_is(0, pid)?]),
        (libc::SYS_setpriority, vec![arg_is(1, 0)?, arg_is(1, pid)?]),
    ])
}

fn build(pid: u32) -> Result<(BpfProgram, BpfProgram, BpfProgram), seccompiler::BackendError> {
    let arch = arch();
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        allowed().into_iter().map(|s| (s, vec![])).collect();
    rules.extend(own_process_rules(pid)?);
    // Threads and the zygote's fork: `clone` without new namespaces.
    rules.insert(
        libc::SYS_clone,
        vec![SeccompRule::new(vec![SeccompCondition::new(
            0,
            SeccompCmpArgLen::Qword,
            SeccompCmpOp::MaskedEq(CLONE_NS),
            0,
        )?])?],
    );
    // Thread names, the parent-death signal and glibc's names for mappings.
    rules.insert(
        libc::SYS_prctl,
        [
            libc::PR_SET_NAME,
            libc::PR_GET_NAME,
            libc::PR_SET_PDEATHSIG,
            libc::PR_SET_NO_NEW_PRIVS,
            0x5356_4d41,
        ]
        .into_iter()
        .map(|op| {
            SeccompRule::new(vec![SeccompCondition::new(
                0,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::Eq,
                op as u64,
            )?])
        })
        .collect::<Result<_, _>>()?,
    );
    // A forked job process narrows the pinned calls to itself with a filter of
    // its own (`pin_to_this_process`): `seccomp` may only add a filter (which
    // can only forbid more), and seccompiler sets `no_new_privs` first.
    rules.insert(
        libc::SYS_seccomp,
        vec![arg_is(0, libc::SECCOMP_SET_MODE_FILTER)?],
    );
    // `clone3` passes its flags in memory, which a filter cannot read: it is
    // allowed here and answered ENOSYS by the second filter, so the C library
    // falls back to `clone`, whose flags the rule above checks.
    rules.insert(libc::SYS_clone3, vec![]);
    // Asking whether a path exists: allowed here and answered EACCES by the
    // third filter, so nothing is learnt of the file system, and a library that
    // probes a path on a new thread (mimalloc's NUMA check, `access("/sys/...")`,
    // in a host's executable serving as its own worker) sees a failure instead
    // of killing the job.
    for call in path_probes() {
        rules.insert(call, vec![]);
    }
    let allow = SeccompFilter::new(
        rules,
        SeccompAction::KillProcess,
        SeccompAction::Allow,
        arch,
    )?;
    let no_clone3 = SeccompFilter::new(
        [(libc::SYS_clone3, vec![])].into_iter().collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )?;
    let no_probes = SeccompFilter::new(
        path_probes().into_iter().map(|c| (c, vec![])).collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES as u32),
        arch,
    )?;
    Ok((
        allow.try_into()?,
        no_clone3.try_into()?,
        no_probes.try_into()?,
    ))
}

/// The calls that test a path's existence or access (see `build`).
fn path_probes() -> Vec<i64> {
    let mut v = vec![libc::SYS_faccessat, libc::SYS_faccessat2];
    #[cfg(target_arch = "x86_64")]
    v.push(libc::SYS_access);
    v
}

/// Sets `no_new_privs` and installs the filter on this thread (and the threads
/// it starts later), or on every thread of the process with `all_threads`
/// (the in-process path, which already runs a pool). Signals, limits and
/// priorities are pinned to this process.
pub(crate) fn lock_down(all_threads: bool) -> Result<(), String> {
    sys::no_new_privs().map_err(|e| format!("no_new_privs: {e}"))?;
    let (allow, no_clone3, no_probes) =
        build(std::process::id()).map_err(|e| format!("building the seccomp filter: {e}"))?;
    let apply = if all_threads {
        seccompiler::apply_filter_all_threads
    } else {
        seccompiler::apply_filter
    };
    // `clone3` first: installing a filter sets `no_new_privs` again, a `prctl`
    // the allowlist would refuse were it already in place.
    apply(&no_clone3).map_err(|e| format!("installing the seccomp filter: {e}"))?;
    apply(&no_probes).map_err(|e| format!("installing the seccomp filter: {e}"))?;
    apply(&allow).map_err(|e| format!("installing the seccomp filter: {e}"))?;
    Ok(())
}

/// In a process forked after [`lock_down`] (a job's process): narrows the
/// calls pinned to the forking process to this one. Filters stack and each
/// can only forbid more, so this filter kills a call aimed at any other
/// process (the zygote included), and the first one keeps refusing every
/// process but the zygote: a job's process can signal no one, and change the
/// limits and priority of itself only.
pub(crate) fn pin_to_this_process() -> Result<(), String> {
    let pid = std::process::id();
    let not_own = |arg: u8| -> Result<SeccompRule, seccompiler::BackendError> {
        let cond = |v: u32| {
            SeccompCondition::new(arg, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, u64::from(v))
        };
        SeccompRule::new(vec![cond(0)?, cond(pid)?])
    };
    let filter = (|| -> Result<BpfProgram, seccompiler::BackendError> {
        let rules: BTreeMap<i64, Vec<SeccompRule>> = [
            (libc::SYS_tgkill, vec![not_own(0)?]),
            (libc::SYS_prlimit64, vec![not_own(0)?]),
            (libc::SYS_setpriority, vec![not_own(1)?]),
        ]
        .into_iter()
        .collect();
        SeccompFilter::new(
            rules,
            SeccompAction::Allow,
            SeccompAction::KillProcess,
            arch(),
        )?
        .try_into()
    })()
    .map_err(|e| format!("building the job's seccomp filter: {e}"))?;
    seccompiler::apply_filter(&filter)
        .map_err(|e| format!("installing the job's seccomp filter: {e}"))
}

/// What a self-test job reports when the process survived it: the result of a
/// forbidden call (the layer failed), or the process's limits and environment.
pub(crate) fn self_test(what: &str) -> serde_json::Value {
    // A test build's canary for the heap checking (`sys::heap_canary`): the
    // process aborts here when the checking is on.
    #[cfg(debug_assertions)]
    if what == "heap-canary" {
        return serde_json::Value::Bool(sys::heap_canary());
    }
    if what == "limits" {
        let get = |r| sys::get_rlimit(r).ok();
        return serde_json::json!({
            "files": get(Rlimit::Files),
            "data": get(Rlimit::Data),
            "core": get(Rlimit::Core),
            "env": std::env::vars_os()
                .map(|(k, _)| k.to_string_lossy().into_owned())
                .collect::<Vec<_>>(),
        });
    }
    serde_json::Value::String(
        sys::forbidden_syscall(what).unwrap_or_else(|| format!("{what}: no such test")),
    )
}
