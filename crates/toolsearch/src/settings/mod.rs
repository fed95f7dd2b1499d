//! Settings and their checks: what [`Builder::build`](crate::Builder::build)
//! refuses before the first request.

pub mod modes;
pub mod windows;

use modes::{Activation, Mode, DEFAULT_COUNT_THRESHOLD, DEFAULT_SHARE_THRESHOLD};

use crate::vocab::Provider;

/// Default number of sessions whose reveal state is kept (oldest evicted first).
pub const DEFAULT_MAX_SESSIONS: usize = 1024;
/// Default byte budget of the catalog listing inside the bridge descriptions.
pub const DEFAULT_LISTING_BYTES: usize = 560;

/// Settings; `Default` gives the documented defaults.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Shape when deferral is on. Default [`Mode::Code`] ([`Mode::Tools`] in a
    /// build without the `code` feature).
    pub mode: Mode,
    /// When deferral is on. Default [`Activation::Auto`].
    pub activation: Activation,
    /// Default 15.
    pub count_threshold: usize,
    /// Default 0.10.
    pub share_threshold: f64,
    /// The model's context window in tokens, when known (enables the share rule).
    pub context_window: Option<usize>,
    /// Tool names (or ids) never deferred, merged with each tool's own policy.
    pub never_defer: Vec<String>,
    /// Budget of the listing in the bridge descriptions. Default 560 bytes.
    pub listing_bytes: usize,
    /// Sessions whose reveal state is kept. Default 1024.
    pub max_sessions: usize,
    /// Hits per search when the caller gives no limit (1 to 50). Default 8.
    pub search_default_limit: usize,
    /// Most hits per search and most `select:` names (1 to 50). Default 20.
    pub max_search_limit: usize,
    /// Reveal mode's stubs, hidden form and reminder.
    pub reveal: modes::RevealSettings,
    /// Native mode's search (ours answering, or the provider's hosted one).
    pub native: modes::NativeSettings,
    /// The provider definitions are built for, when known: [`Mode::Native`] needs one
    /// that hosts tool search (Anthropic, OpenAI Responses) and fails at build
    /// otherwise; [`Mode::Auto`] picks native for it. Default none.
    pub provider: Option<Provider>,
    /// The model the definitions are for (e.g. `claude-sonnet-4-5`): without a
    /// `context_window`, its window (see [`crate::windows`]) is what the share
    /// rule divides by. Default none (the provider's smallest window).
    pub model: Option<String>,
    /// Built-in tools (source `builtin`) are deferred like the others. Default off:
    /// built-in tools are never deferred unless a tool says `Deferrable::Always`
    /// (Hermes' default; MCP and client tools are deferrable).
    pub defer_builtins: bool,
}

impl Settings {
    /// The context window the share rule divides by, and where it came from: the
    /// `context_window`, else the `model`'s (see [`crate::windows`]), else the
    /// provider's smallest.
    pub fn window(&self) -> (usize, windows::WindowSource) {
        windows::context_window(self.context_window, self.model.as_deref(), self.provider)
    }

    /// The search limits, each within 1 to 50 and the default within the most.
    pub fn limits(&self) -> SearchLimits {
        let max = self
            .max_search_limit
            .clamp(1, toolsearch_catalog::HARD_MAX_LIMIT);
        SearchLimits {
            default: self.search_default_limit.clamp(1, max),
            max,
        }
    }
}

impl Settings {
    /// Checks each setting's range (what [`Builder::build`] runs).
    ///
    /// # Errors
    /// The first setting out of range.
    pub fn validate(&self) -> Result<(), BuildError> {
        let hard = toolsearch_catalog::HARD_MAX_LIMIT;
        if !(1..=hard).contains(&self.max_search_limit) {
            return Err(BuildError::new(
                "max_search_limit",
                format!("{} is out of range 1..={hard}", self.max_search_limit),
            ));
        }
        if !(1..=self.max_search_limit).contains(&self.search_default_limit) {
            return Err(BuildError::new(
                "search_default_limit",
                format!(
                    "{} is out of range 1..={} (max_search_limit)",
                    self.search_default_limit, self.max_search_limit
                ),
            ));
        }
        if !(self.share_threshold > 0.0 && self.share_threshold <= 1.0) {
            return Err(BuildError::new(
                "share_threshold",
                format!("{} is not a share in (0, 1]", self.share_threshold),
            ));
        }
        if self.context_window == Some(0) {
            return Err(BuildError::new("context_window", "must be more than zero"));
        }
        if self.max_sessions == 0 {
            return Err(BuildError::new("max_sessions", "must be at least 1"));
        }
        if !(MIN_LISTING_BYTES..=MAX_LISTING_BYTES).contains(&self.listing_bytes) {
            return Err(BuildError::new(
                "listing_bytes",
                format!(
                    "{} is out of range {MIN_LISTING_BYTES}..={MAX_LISTING_BYTES}",
                    self.listing_bytes
                ),
            ));
        }
        if let Some(bad) = self.never_defer.iter().find(|n| n.trim().is_empty()) {
            return Err(BuildError::new(
                "never_defer",
                format!("{bad:?} is not a tool name"),
            ));
        }
        if self.mode == Mode::Native {
            match self.provider {
                None => {
                    return Err(BuildError::new(
                        "mode",
                        "native needs the provider (Anthropic or OpenAI Responses) set",
                    ))
                }
                Some(p) if !modes::hosts_search(p) => {
                    return Err(BuildError::new(
                        "mode",
                        format!(
                            "provider {} hosts no tool search; native needs Anthropic or \
                             OpenAI Responses (use auto to fall back to code)",
                            p.name()
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
        let r = &self.reveal;
        if !(16..=4096).contains(&r.stub_description_bytes) {
            return Err(BuildError::new(
                "reveal.stub_description_bytes",
                format!("{} is out of range 16..=4096", r.stub_description_bytes),
            ));
        }
        if !(MIN_LISTING_BYTES..=64 * 1024).contains(&r.reminder_bytes) {
            return Err(BuildError::new(
                "reveal.reminder_bytes",
                format!(
                    "{} is out of range {MIN_LISTING_BYTES}..=65536",
                    r.reminder_bytes
                ),
            ));
        }
        if self.mode == Mode::Code && !cfg!(feature = "code") {
            return Err(BuildError::new(
                "mode",
                "code mode is not built in (enable the `code` feature); use Mode::Tools",
            ));
        }
        Ok(())
    }
}

/// Smallest listing budget [`Settings::validate`] accepts.
pub const MIN_LISTING_BYTES: usize = 64;
/// Largest listing budget [`Settings::validate`] accepts.
pub const MAX_LISTING_BYTES: usize = 64 * 1024;

/// A setting [`Builder::build`] refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BuildError {
    /// The setting, as the builder and the config file name it.
    pub setting: &'static str,
    /// Why it was refused.
    pub message: String,
}

impl BuildError {
    pub(crate) fn new(setting: &'static str, message: impl Into<String>) -> Self {
        BuildError {
            setting,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "toolsearch setting `{}`: {}", self.setting, self.message)
    }
}

impl std::error::Error for BuildError {}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            mode: if cfg!(feature = "code") {
                Mode::Code
            } else {
                Mode::Tools
            },
            activation: Activation::Auto,
            count_threshold: DEFAULT_COUNT_THRESHOLD,
            share_threshold: DEFAULT_SHARE_THRESHOLD,
            context_window: None,
            never_defer: Vec::new(),
            listing_bytes: DEFAULT_LISTING_BYTES,
            max_sessions: DEFAULT_MAX_SESSIONS,
            search_default_limit: toolsearch_catalog::DEFAULT_LIMIT,
            max_search_limit: toolsearch_catalog::MAX_LIMIT,
            reveal: modes::RevealSettings::default(),
            native: modes::NativeSettings::default(),
            provider: None,
            model: None,
            defer_builtins: false,
        }
    }
}

/// Hits per search: the default when the caller gives no limit, and the most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchLimits {
    /// Hits when no limit is given.
    pub default: usize,
    /// Most hits (and most `select:` names).
    pub max: usize,
}

impl Default for SearchLimits {
    fn default() -> Self {
        SearchLimits {
            default: toolsearch_catalog::DEFAULT_LIMIT,
            max: toolsearch_catalog::MAX_LIMIT,
        }
    }
}
