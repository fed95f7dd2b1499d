//! Where a server is in its life, and how it is started and stopped.

use std::path::PathBuf;
use std::time::Duration;

/// Where a server is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Being started (or waiting to be retried, before its first list).
    Starting,
    /// Connected.
    Running,
    /// Stopped on purpose (a lazy server before its first call, or idle):
    /// its tools come from its last list and the next call starts it.
    Stopped,
    /// Failed to start or died; see its error.
    Down,
}

/// How a server is started and stopped.
#[derive(Debug, Clone)]
pub struct Lifecycle {
    /// How long a start (connecting and the first list) may take.
    pub startup_timeout: Duration,
    /// Started by the first call that needs it, not with the gateway.
    pub lazy: bool,
    /// A lazy server with no call for this long is stopped (`None`: never).
    pub idle_stop: Option<Duration>,
    /// Where its manifest is kept (`None`: nowhere; a linked server keeps one
    /// only when lazy).
    pub manifest_dir: Option<PathBuf>,
}

impl Lifecycle {
    /// Started with the gateway and kept running.
    pub fn eager(startup_timeout: Duration) -> Lifecycle {
        Lifecycle {
            startup_timeout,
            lazy: false,
            idle_stop: None,
            manifest_dir: None,
        }
    }
}
