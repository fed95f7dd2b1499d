//! `[limits]` and `[policy]`: budgets of snippets, calls, server start-up and
//! approvals; allow and deny globs.

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::{range, ConfigError};

/// `[limits]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// A snippet's wall-clock budget (100 to 600,000 ms). Default 10,000.
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: Spanned<u64>,
    /// One downstream call (100 to 3,600,000 ms). Default 60,000.
    #[serde(default = "default_call_timeout_ms")]
    pub call_timeout_ms: Spanned<u64>,
    /// How long a server may take to start and list its tools (100 to 600,000 ms).
    /// Default 30,000; a slower server is marked down and retried in the background
    /// (a lazy one: by the next call, which waits at most this long for it).
    #[serde(default = "default_startup_timeout_ms")]
    pub startup_timeout_ms: Spanned<u64>,
    /// How long the first `tools/list` (and the first search or call) waits
    /// for servers whose tools are not known yet: started with no manifest
    /// (0 to 600,000 ms, at most `startup_timeout_ms`). Default 3,000.
    /// `initialize` never waits; a server later than this joins through
    /// `list_changed`, and with `activation = "auto"` deferral stays on.
    #[serde(default = "default_first_list_ms")]
    pub first_list_ms: Spanned<u64>,
    /// Longest wait for one approval (`destructive = "elicit"`) before the call
    /// is refused (1,000 to 3,600,000 ms). Default 120,000. A snippet waiting for
    /// an approval is paused: the wait does not count against `timeout_ms`.
    #[serde(default = "default_approval_timeout_ms")]
    pub approval_timeout_ms: Spanned<u64>,
    /// A lazy server (`lazy = true`) with no call for this long is stopped, and
    /// started again by the next call (0 to 86,400,000 ms; 0 never stops one).
    /// Default 600,000 (ten minutes).
    #[serde(default = "default_idle_stop_ms")]
    pub idle_stop_ms: Spanned<u64>,
}

fn default_timeout_ms() -> Spanned<u64> {
    Spanned::new(0..0, 10_000)
}
fn default_call_timeout_ms() -> Spanned<u64> {
    Spanned::new(0..0, 60_000)
}
fn default_startup_timeout_ms() -> Spanned<u64> {
    Spanned::new(0..0, 30_000)
}
fn default_first_list_ms() -> Spanned<u64> {
    Spanned::new(0..0, 3_000)
}
fn default_approval_timeout_ms() -> Spanned<u64> {
    Spanned::new(0..0, 120_000)
}
fn default_idle_stop_ms() -> Spanned<u64> {
    Spanned::new(0..0, 600_000)
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout_ms: default_timeout_ms(),
            call_timeout_ms: default_call_timeout_ms(),
            startup_timeout_ms: default_startup_timeout_ms(),
            first_list_ms: default_first_list_ms(),
            approval_timeout_ms: default_approval_timeout_ms(),
            idle_stop_ms: default_idle_stop_ms(),
        }
    }
}

/// `[policy]`: allow and deny globs over tool ids (`mcp:server:tool`) and names.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyConfig {
    /// When non-empty, only matching tools are visible.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Matching tools are hidden (deny wins).
    #[serde(default)]
    pub deny: Vec<String>,
}

impl Limits {
    pub(super) fn check(&self, text: &str) -> Result<(), ConfigError> {
        range(
            text,
            "limits.timeout_ms",
            &Some(self.timeout_ms.clone()),
            100,
            600_000,
        )?;
        range(
            text,
            "limits.call_timeout_ms",
            &Some(self.call_timeout_ms.clone()),
            100,
            3_600_000,
        )?;
        range(
            text,
            "limits.startup_timeout_ms",
            &Some(self.startup_timeout_ms.clone()),
            100,
            600_000,
        )?;
        range(
            text,
            "limits.first_list_ms",
            &Some(self.first_list_ms.clone()),
            0,
            600_000,
        )?;
        range(
            text,
            "limits.approval_timeout_ms",
            &Some(self.approval_timeout_ms.clone()),
            1_000,
            3_600_000,
        )?;
        range(
            text,
            "limits.idle_stop_ms",
            &Some(self.idle_stop_ms.clone()),
            0,
            super::servers::MAX_IDLE_STOP_MS,
        )?;
        Ok(())
    }

    pub(super) fn effective(&self) -> serde_json::Value {
        serde_json::json!({
            "timeout_ms": *self.timeout_ms.get_ref(),
            "call_timeout_ms": *self.call_timeout_ms.get_ref(),
            "startup_timeout_ms": *self.startup_timeout_ms.get_ref(),
            "first_list_ms": *self.first_list_ms.get_ref(),
            "approval_timeout_ms": *self.approval_timeout_ms.get_ref(),
            "idle_stop_ms": *self.idle_stop_ms.get_ref(),
        })
    }
}
