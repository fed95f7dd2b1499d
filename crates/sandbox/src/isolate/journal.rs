//! The journal of one job: its logs, calls, counters and when it started. The
//! ops write it, the pool reads it to answer a job whose worker is stuck.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use crate::result::{CallRecord, LogLine, Stats};

/// Everything a job records; shared with the host so partial work survives a
/// timeout even if the worker is stuck.
#[derive(Debug, Default)]
pub(crate) struct Journal {
    pub logs: Vec<LogLine>,
    pub log_bytes: usize,
    pub calls: Vec<CallRecord>,
    pub in_flight: BTreeMap<u64, (String, Instant)>,
    pub next_call: u64,
    pub kept_result_bytes: usize,
    /// Bytes of arguments held by calls waiting for an in-flight slot.
    pub pending_arg_bytes: usize,
    pub stats: Stats,
    /// Ids of the first calls the snippet made and never awaited (they never ran).
    pub not_awaited: Vec<String>,
    /// When the worker started the job (set before execution begins).
    pub started: Option<Instant>,
    /// Kernel id of the worker thread running the job (0: unknown).
    pub worker_tid: i32,
}

/// Locks a journal, ignoring poisoning (a panicking bridge must not wedge it).
pub(crate) fn lock(j: &Mutex<Journal>) -> MutexGuard<'_, Journal> {
    j.lock().unwrap_or_else(|p| p.into_inner())
}
