//! What an execution hands back.

use serde::{Deserialize, Serialize};

use crate::bridge::BridgeErrorCode;

/// Outcome of one snippet execution. Always produced, also on timeouts and
/// limit breaches, so logs and completed tool calls survive.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExecResult {
    /// True if the snippet returned a value that was serialized within limits.
    pub ok: bool,
    /// The snippet's return value as JSON (`undefined` becomes `null`);
    /// `null` when `ok` is false.
    pub value: serde_json::Value,
    /// Captured `console.log/warn/error` lines, capped by `Limits::log_bytes`.
    pub logs: Vec<LogLine>,
    /// Why the execution failed, if it did.
    pub error: Option<ExecError>,
    /// Counters and timings.
    pub stats: Stats,
    /// Tool calls in the order they finished; calls still running when the
    /// snippet ended are listed last with status `abandoned`.
    pub calls: Vec<CallRecord>,
    /// Calls the snippet made and never awaited, so they never ran (the first
    /// 16 ids; `stats.not_awaited` counts them all). Any makes the job fail
    /// with [`ErrorKind::NotAwaited`], its value kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_awaited: Vec<String>,
}

impl ExecResult {
    pub(crate) fn succeeded(value: serde_json::Value) -> Self {
        ExecResult {
            ok: true,
            value,
            logs: Vec::new(),
            error: None,
            stats: Stats::default(),
            calls: Vec::new(),
            not_awaited: Vec::new(),
        }
    }

    pub(crate) fn failed(kind: ErrorKind, message: impl Into<String>) -> Self {
        ExecResult {
            ok: false,
            value: serde_json::Value::Null,
            logs: Vec::new(),
            error: Some(ExecError::new(kind, message)),
            stats: Stats::default(),
            calls: Vec::new(),
            not_awaited: Vec::new(),
        }
    }
}

impl ExecError {
    /// An error of `kind` saying `message`, at no position.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ExecError {
            kind,
            message: message.into(),
            line: None,
            column: None,
        }
    }

    /// The same error at `(line, column)` of the snippet, when known.
    pub fn at(mut self, at: Option<(u32, u32)>) -> Self {
        (self.line, self.column) = (at.map(|a| a.0), at.map(|a| a.1));
        self
    }

    /// The error for a snippet stopped at its deadline.
    /// The snippet's own time ran out; `waited` is the time it spent idle
    /// waiting for approvals, which did not count.
    pub(crate) fn timeout(deadline: std::time::Duration, waited: std::time::Duration) -> Self {
        let not_counted = if waited.is_zero() {
            String::new()
        } else {
            format!(
                " of its own time ({:.1} s waiting for approvals not counted)",
                waited.as_secs_f64()
            )
        };
        ExecError::new(
            ErrorKind::Timeout,
            format!(
                "the snippet did not finish within {} ms{not_counted} and was stopped; do less \
                 per snippet",
                deadline.as_millis()
            ),
        )
    }
}

/// A failure of the snippet or of the sandbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecError {
    /// Class of failure.
    pub kind: ErrorKind,
    /// Bounded human-readable description (for the model).
    pub message: String,
    /// The snippet's line (from 1) where a script error was thrown or the
    /// snippet failed to compile, when the engine said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The column (from 1) on that line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

/// Class of an execution failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorKind {
    /// The deadline passed (loops, hanging tools, runaway microtasks).
    Timeout,
    /// The heap limit or the ArrayBuffer budget was hit.
    Memory,
    /// A size or count budget was exceeded, or the pool is busy.
    Limit,
    /// An uncaught `UNKNOWN_TOOL` / `APPROVAL_DENIED` bridge error.
    Policy,
    /// An uncaught `INVALID_ARGS` bridge error.
    Argument,
    /// The return value could not be serialized or was too large.
    Result,
    /// The snippet threw (or did not compile).
    Script,
    /// The snippet made tool calls it never awaited: they never ran (a call
    /// starts when awaited). The snippet's value is kept.
    #[serde(rename = "not_awaited")]
    NotAwaited,
    /// The process that ran this job died while running it (a signal, an
    /// abort at the OS memory limit, an engine crash) or sent the host
    /// something it could not read. Only this job failed: its worker was
    /// replaced and the next job runs normally.
    Crashed,
    /// The pool cannot run snippets (the engine or a worker process cannot
    /// start, the sandbox is shutting down): the platform's fault, not the
    /// job's; a host may fall back to the structured tools until a probe
    /// succeeds again.
    Engine,
}

/// One captured console line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    /// Which console method produced it.
    pub level: LogLevel,
    /// The formatted text (arguments joined by spaces).
    pub text: String,
}

/// Console method of a [`LogLine`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// `console.log`, `console.info`, `console.debug`.
    Log,
    /// `console.warn`.
    Warn,
    /// `console.error`.
    Error,
}

/// Status of one tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CallStatus {
    /// The tool returned a result.
    Ok,
    /// The tool (or the bridge) returned an error.
    Error,
    /// The snippet ended (returned, threw or timed out) while the call was
    /// still running; its cancellation token was fired and its future dropped.
    Abandoned,
}

/// A tool call made by the snippet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// Tool id as passed by the snippet.
    pub id: String,
    /// How it ended.
    pub status: CallStatus,
    /// Bridge error code when `status` is `error`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<BridgeErrorCode>,
    /// The tool's result when `status` is `ok`, unless the results kept so far
    /// already exceed `Limits::result_bytes` (then `None`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<serde_json::Value>,
    /// Wall time of the call in milliseconds.
    pub ms: u64,
}

/// Counters and timings of one execution.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Engine that ran the snippet (`"quickjs"` or `"v8"`).
    pub engine: String,
    /// `search` invocations that reached the bridge.
    pub searches: u32,
    /// `describe` invocations that reached the bridge.
    pub describes: u32,
    /// `call` invocations dispatched to the bridge.
    pub calls: u32,
    /// Bridge invocations refused by the sandbox (budgets, bad arguments).
    pub rejected: u32,
    /// Time spent creating the isolate used for this job, in microseconds.
    pub startup_us: u64,
    /// True if that isolate was created (pre-warmed) before the job arrived,
    /// so the job did not wait for it.
    pub prewarmed: bool,
    /// Time from start of execution to the result, in microseconds.
    pub run_us: u64,
    /// Time spent waiting in the queue, in microseconds.
    pub queue_us: u64,
    /// Bytes that entered the isolate (source plus bridge results).
    pub bytes_in: u64,
    /// Bytes that left the isolate (arguments, queries, logs, result).
    pub bytes_out: u64,
    /// Ids passed to `call`, in call order (including failed calls).
    pub called_ids: Vec<String>,
    /// Console lines dropped because `Limits::log_bytes` was exhausted.
    pub logs_dropped: u32,
    /// Calls made and never awaited (they never ran).
    #[serde(default)]
    pub not_awaited: u32,
}

/// Errors of the pool itself (not of a snippet).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SandboxError {
    /// The configuration is unusable; the message says which field to fix.
    #[error("invalid sandbox configuration: {0}")]
    Config(String),
    /// The JS engine could not create an isolate; use the structured tools.
    #[error("the JS engine could not start: {0}")]
    Engine(String),
    /// A worker thread could not be spawned.
    #[error("could not spawn a sandbox worker thread: {0}")]
    Thread(#[from] std::io::Error),
}
