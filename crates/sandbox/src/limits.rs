//! Per-execution limits and pool configuration.

use std::time::Duration;

/// Default wall-clock budget of one snippet: 10 s.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(10);
/// Default extra time the host waits past the deadline before it gives up on
/// the worker and answers anyway: 100 ms.
pub const DEFAULT_GRACE: Duration = Duration::from_millis(100);
/// Default JS heap limit: 64 MiB.
pub const DEFAULT_HEAP_BYTES: usize = 64 << 20;
/// Default budget of `ArrayBuffer` backing stores (they live off the heap): 16 MiB.
pub const DEFAULT_ARRAY_BUFFER_BYTES: usize = 16 << 20;
/// Default maximum snippet source size: 64 KiB.
pub const DEFAULT_SOURCE_BYTES: usize = 64 << 10;
/// Default maximum size of the serialized return value: 256 KiB.
pub const DEFAULT_RESULT_BYTES: usize = 256 << 10;
/// Default budget of captured console output: 64 KiB.
pub const DEFAULT_LOG_BYTES: usize = 64 << 10;
/// Default number of `openclaw.tools.call` invocations per snippet: 100.
pub const DEFAULT_MAX_CALLS: u32 = 100;
/// Default number of `search` + `describe` invocations per snippet: 200.
pub const DEFAULT_MAX_LOOKUPS: u32 = 200;
/// Default number of tool calls running at the same time: 8.
pub const DEFAULT_MAX_IN_FLIGHT: u32 = 8;
/// Default maximum size of one call's serialized arguments: 256 KiB.
pub const DEFAULT_ARG_BYTES: usize = 256 << 10;
/// Default maximum length of a search query: 4 KiB.
pub const DEFAULT_QUERY_BYTES: usize = 4 << 10;
/// Default maximum size of one serialized tool (or search/describe) result
/// before it enters the isolate: 1 MiB.
pub const DEFAULT_TOOL_RESULT_BYTES: usize = 1 << 20;
/// Default longest wait of a queued job for a free worker: 30 s.
pub const DEFAULT_QUEUE_TIMEOUT: Duration = Duration::from_secs(30);
/// Maximum length of a tool id, in bytes.
pub const MAX_ID_BYTES: usize = 256;
/// Deepest nesting of arrays and objects in any value that crosses the
/// sandbox: a snippet's return value, a call's arguments, a tool's (search,
/// describe) result and an error's detail. Checked where the value is
/// produced, so every message that carries one (the worker pipe adds a few
/// levels of envelope) stays readable by the other side: a deeper return
/// value is a `result` error, deeper arguments `INVALID_ARGS`, a deeper tool
/// result `LIMIT`.
pub const MAX_JSON_DEPTH: usize = 100;
/// Bytes of arguments that calls waiting for an in-flight slot may hold in
/// all (the arguments of calls already running are not counted): further
/// calls get `LIMIT` until some finish. At least one call of the largest
/// arguments always fits.
pub const PENDING_ARG_BYTES: usize = 1 << 20;

/// Limits applied to one snippet execution.
///
/// Every field has a `DEFAULT_*` constant; use
/// `Limits { deadline: .., ..Limits::default() }` to change a few. All limits
/// are always enforced (there is no "unlimited"); pick large values instead.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Limits {
    /// Wall-clock budget from the start of execution (not counting queueing).
    pub deadline: Duration,
    /// How long past `deadline` the host waits for the worker to acknowledge
    /// termination before it answers with a timeout on its own.
    pub grace: Duration,
    /// JS heap limit. On reaching it the snippet is terminated with
    /// [`ErrorKind::Memory`](crate::ErrorKind::Memory).
    pub heap_bytes: usize,
    /// Budget for `ArrayBuffer` backing stores (off-heap memory).
    pub array_buffer_bytes: usize,
    /// Maximum source size in bytes; larger snippets are rejected before compiling.
    pub source_bytes: usize,
    /// Maximum size of the JSON-serialized return value.
    pub result_bytes: usize,
    /// Budget of captured console output; later lines are dropped and counted.
    pub log_bytes: usize,
    /// Maximum number of `openclaw.tools.call` invocations.
    pub max_calls: u32,
    /// Maximum number of `search` plus `describe` invocations.
    pub max_lookups: u32,
    /// Maximum number of tool calls dispatched concurrently; further calls
    /// wait for a slot (they still count against `max_calls`).
    pub max_in_flight: u32,
    /// Maximum size of one call's JSON-serialized arguments.
    pub arg_bytes: usize,
    /// Maximum length of a search query in bytes.
    pub query_bytes: usize,
    /// Maximum size of one JSON-serialized tool, search or describe result;
    /// larger results become a `LIMIT` error and never enter the isolate.
    pub tool_result_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            deadline: DEFAULT_DEADLINE,
            grace: DEFAULT_GRACE,
            heap_bytes: DEFAULT_HEAP_BYTES,
            array_buffer_bytes: DEFAULT_ARRAY_BUFFER_BYTES,
            source_bytes: DEFAULT_SOURCE_BYTES,
            result_bytes: DEFAULT_RESULT_BYTES,
            log_bytes: DEFAULT_LOG_BYTES,
            max_calls: DEFAULT_MAX_CALLS,
            max_lookups: DEFAULT_MAX_LOOKUPS,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            arg_bytes: DEFAULT_ARG_BYTES,
            query_bytes: DEFAULT_QUERY_BYTES,
            tool_result_bytes: DEFAULT_TOOL_RESULT_BYTES,
        }
    }
}

/// Configuration of a [`Pool`](crate::Pool).
#[derive(Debug, Clone)]
pub struct PoolConfig {
    /// Worker threads, each running one isolate at a time. Default: the
    /// number of available cores (at least 1).
    pub workers: usize,
    /// Jobs that may wait for a free worker; beyond that `execute` answers at
    /// once with a "busy" error. Default: 4 per worker.
    pub queue: usize,
    /// Limits used by [`Pool::execute`](crate::Pool::execute). The heap limit
    /// of a pre-warmed isolate is taken from here too (see
    /// [`Pool::execute_with`](crate::Pool::execute_with)).
    pub limits: Limits,
    /// Create the next isolate right after a job finishes, so a request does
    /// not wait for isolate creation. Default: true.
    pub prewarm: bool,
    /// Where isolates run. Default: [`Isolation::Thread`].
    pub isolation: Isolation,
    /// Start isolates from a startup snapshot made once per process (much
    /// cheaper than a cold bootstrap). Default: true; off only to measure the
    /// difference.
    pub snapshot: bool,
    /// With [`Isolation::Process`] on Linux: worker processes lower their
    /// resource limits and install a seccomp filter (no sockets, no `execve`,
    /// no `ptrace`, no opening of files) before they run any snippet, and
    /// start with an empty environment. Default: on, unless the host's
    /// environment has `TOOLSEARCH_SANDBOX_HARDEN=0` (for platforms without
    /// seccomp). Ignored by [`Isolation::Thread`] and off Linux.
    pub harden: bool,
    /// With [`Isolation::Process`] on Linux: each worker process forks a fresh
    /// copy of a template isolate per job (nothing of one job reaches the next;
    /// `docs/engine-patches.md`). Off, a worker runs its jobs one after the
    /// other in one process of its own (for where forking is impossible). A
    /// worker that finds it cannot fork safely serves in-process all the same.
    /// Default: on, unless the host's environment has
    /// `TOOLSEARCH_SANDBOX_FORK=0`.
    pub fork_per_job: bool,
    /// How long a job may wait in the queue for a free worker before it is
    /// answered with a `limit` error ("no worker became free"). Default: 30 s.
    pub queue_timeout: Duration,
    /// With [`Isolation::Process`]: the most jobs running at once. A job that
    /// finds every worker busy gets a worker of its own up to this many (each
    /// extra one ends after [`EXTRA_WORKER_IDLE`] without a job): a snippet
    /// waiting on a slow tool call holds its worker, and must not keep a
    /// one-line snippet of someone else waiting. Past `workers` the jobs share
    /// the cores. Default 0: `workers` (no extra workers).
    pub max_workers: usize,
}

/// How long an extra worker (past [`PoolConfig::workers`]) waits for a job
/// before it ends, with its process.
pub const EXTRA_WORKER_IDLE: Duration = Duration::from_secs(30);

impl Default for PoolConfig {
    fn default() -> Self {
        let workers = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1);
        PoolConfig {
            workers,
            queue: workers * 4,
            limits: Limits::default(),
            prewarm: true,
            isolation: Isolation::Thread,
            snapshot: true,
            harden: harden_default(),
            fork_per_job: std::env::var("TOOLSEARCH_SANDBOX_FORK").map_or(true, |v| v != "0"),
            queue_timeout: DEFAULT_QUEUE_TIMEOUT,
            max_workers: 0,
        }
    }
}

/// On (Linux only) unless the host's environment has `TOOLSEARCH_SANDBOX_HARDEN=0`.
fn harden_default() -> bool {
    cfg!(target_os = "linux")
        && std::env::var("TOOLSEARCH_SANDBOX_HARDEN").map_or(true, |v| v != "0")
}

/// Where a pool runs its isolates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Isolation {
    /// On worker threads of this process: the lowest latency, for **trusted
    /// code** (tests, tools, short-lived processes). An engine abort takes the
    /// process down; a built-in the engine cannot interrupt (QuickJS polls for
    /// termination only in bytecode) keeps its thread spinning past the
    /// deadline: the pool answers the job, replaces the worker, lowers the
    /// stuck thread to nice 19 and counts it in
    /// [`PoolStats::wedged_workers`](crate::PoolStats::wedged_workers), but cannot
    /// stop it. On the `quickjs` engine every isolate also leaves about a
    /// megabyte behind (threads are recycled, memory is not).
    Thread,
    /// In supervised worker processes started with this command, replaced every
    /// [`JOBS_PER_PROCESS`](crate::JOBS_PER_PROCESS) jobs and killed on overrun:
    /// memory stays bounded, a spinning built-in dies with its process, and the
    /// host survives any snippet. On Linux each job runs in a forked copy of a
    /// template isolate under the OS layer ([`PoolConfig::harden`]). **The
    /// choice for untrusted code**: gateways and other long-running hosts.
    Process(crate::WorkerCommand),
}
