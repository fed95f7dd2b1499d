//! Activation: whether deferral is on for a scope, and in which shape. A pure
//! decision from counts the caller measured, so it is tested without a catalog.

/// The shape of deferral when it is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `tool_search_code` alone (plus never-deferred tools). Falls back to
    /// [`Mode::Tools`] when the JS engine cannot start.
    Code,
    /// `tool_search`, `tool_describe`, `tool_call` as plain tools.
    Tools,
    /// Progressive disclosure: deferred tools as stubs (or hidden), `tool_search`
    /// returns full schemas and reveals its matches for the session; they are called
    /// by name (in the hidden form appended in full to the list; see the `reveal`
    /// module).
    Reveal,
    /// The provider hosts the search: deferred tools carry `defer_loading` beside the
    /// provider's tool-search tool (Anthropic, OpenAI Responses; see the `native` module).
    Native,
    /// [`Mode::Native`] where the provider supports it, [`Mode::Code`] elsewhere.
    Auto,
}

impl Mode {
    /// The mode's name as configured (`code`, `tools`, `reveal`, `native`, `auto`).
    pub fn name(self) -> &'static str {
        match self {
            Mode::Code => "code",
            Mode::Tools => "tools",
            Mode::Reveal => "reveal",
            Mode::Native => "native",
            Mode::Auto => "auto",
        }
    }

    /// Every mode, in documentation order.
    pub const ALL: [Mode; 5] = [
        Mode::Code,
        Mode::Tools,
        Mode::Reveal,
        Mode::Native,
        Mode::Auto,
    ];
}

/// When deferral is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activation {
    /// When the deferrable tools reach [`Settings::count_threshold`] (≥), or their
    /// schemas reach [`Settings::share_threshold`] of the context window.
    Auto,
    /// Whenever at least one tool is deferrable.
    Always,
    /// Never: direct pass-through.
    Never,
}

/// Default count threshold of [`Activation::Auto`].
pub const DEFAULT_COUNT_THRESHOLD: usize = 15;
/// Default context-window share threshold of [`Activation::Auto`].
pub const DEFAULT_SHARE_THRESHOLD: f64 = 0.10;

impl Activation {
    /// The setting's name as configured (`auto`, `always`, `never`).
    pub fn name(self) -> &'static str {
        match self {
            Activation::Auto => "auto",
            Activation::Always => "always",
            Activation::Never => "never",
        }
    }
}

/// The settings [`decide`] reads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rule {
    pub(crate) activation: Activation,
    pub(crate) count_threshold: usize,
    pub(crate) share_threshold: f64,
}

/// Whether deferral is on, and why, for `deferrable` tools whose schemas take
/// `share` of the context window (when a window is configured).
pub(crate) fn decide(s: Rule, deferrable: usize, share: Option<f64>) -> (bool, String) {
    match s.activation {
        _ if deferrable == 0 => (false, "nothing is deferrable".to_string()),
        Activation::Never => (false, "activation is never".to_string()),
        Activation::Always => (true, "activation is always".to_string()),
        Activation::Auto => {
            let by_count = deferrable >= s.count_threshold;
            let by_share = share.is_some_and(|x| x >= s.share_threshold);
            let reason = format!(
                "{} deferrable tools (threshold {}){}",
                deferrable,
                s.count_threshold,
                share
                    .map(|x| format!(
                        ", {:.1}% of the context window (threshold {:.0}%)",
                        x * 100.0,
                        s.share_threshold * 100.0
                    ))
                    .unwrap_or_default()
            );
            (by_count || by_share, reason)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(activation: Activation) -> Rule {
        Rule {
            activation,
            count_threshold: DEFAULT_COUNT_THRESHOLD,
            share_threshold: DEFAULT_SHARE_THRESHOLD,
        }
    }

    #[test]
    fn auto_turns_on_at_the_count_or_the_share_threshold() {
        let s = settings(Activation::Auto);
        assert!(!decide(s, DEFAULT_COUNT_THRESHOLD - 1, None).0);
        assert!(decide(s, DEFAULT_COUNT_THRESHOLD, None).0);
        assert!(decide(s, 2, Some(DEFAULT_SHARE_THRESHOLD)).0);
        let (on, why) = decide(s, 2, Some(0.01));
        assert!(!on && why.contains("1.0% of the context window"), "{why}");
    }

    #[test]
    fn always_and_never_ignore_the_thresholds_but_nothing_deferrable_is_off() {
        assert!(decide(settings(Activation::Always), 1, None).0);
        assert!(!decide(settings(Activation::Never), 10_000, Some(0.9)).0);
        let (on, why) = decide(settings(Activation::Always), 0, None);
        assert!(!on && why == "nothing is deferrable");
    }
}
