//! Activation: whether deferral is on for a scope. A pure decision from counts
//! the caller measured, so it is tested without a catalog.

use crate::settings::modes::Activation;
#[cfg(test)]
use crate::settings::modes::{DEFAULT_COUNT_THRESHOLD, DEFAULT_SHARE_THRESHOLD};

/// The settings [`decide`] reads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rule {
    pub(crate) activation: Activation,
    pub(crate) count_threshold: usize,
    pub(crate) share_threshold: f64,
}

/// Whether deferral is on, and why, for `deferrable` tools whose schemas take
/// `share` of the context window (when a window is configured), `pending`
/// when more tools are expected (see [`crate::Pending`]): deferral is then on
/// unless activation is `never`.
pub(crate) fn decide(
    s: Rule,
    deferrable: usize,
    share: Option<f64>,
    pending: bool,
) -> (bool, String) {
    let (on, why) = decide_now(s, deferrable, share);
    if pending && !on && s.activation != Activation::Never {
        return (
            true,
            format!("{why}; tools not listed yet are expected (servers still starting)"),
        );
    }
    (on, why)
}

fn decide_now(s: Rule, deferrable: usize, share: Option<f64>) -> (bool, String) {
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
        assert!(!decide(s, DEFAULT_COUNT_THRESHOLD - 1, None, false).0);
        assert!(decide(s, DEFAULT_COUNT_THRESHOLD, None, false).0);
        assert!(decide(s, 2, Some(DEFAULT_SHARE_THRESHOLD), false).0);
        let (on, why) = decide(s, 2, Some(0.01), false);
        assert!(!on && why.contains("1.0% of the context window"), "{why}");
    }

    #[test]
    fn always_and_never_ignore_the_thresholds_but_nothing_deferrable_is_off() {
        assert!(decide(settings(Activation::Always), 1, None, false).0);
        assert!(!decide(settings(Activation::Never), 10_000, Some(0.9), false).0);
        let (on, why) = decide(settings(Activation::Always), 0, None, false);
        assert!(!on && why == "nothing is deferrable");
    }

    #[test]
    fn expected_tools_turn_deferral_on_unless_activation_is_never() {
        for (activation, deferrable) in [
            (Activation::Auto, 0),
            (Activation::Auto, 2),
            (Activation::Always, 0),
        ] {
            let (on, why) = decide(settings(activation), deferrable, None, true);
            assert!(on && why.contains("servers still starting"), "{why}");
        }
        assert!(decide(settings(Activation::Always), 2, None, true).0);
        assert!(!decide(settings(Activation::Never), 2, None, true).0);
        let (on, why) = decide(settings(Activation::Auto), 100, None, true);
        assert!(on && !why.contains("starting"), "{why}");
    }
}
