//! One JS runtime and what it needs: the engine set-up, the bridge ops, the
//! watchdog that ends runaway code, and the journal of a job's calls and logs.

pub(crate) mod engine;
pub(crate) mod jobs;
pub(crate) mod journal;
pub(crate) mod ops;
pub(crate) mod runtime;
pub(crate) mod watchdog;
