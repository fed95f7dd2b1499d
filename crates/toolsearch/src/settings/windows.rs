//! Context windows: what the share rule of `activation = auto` divides by when the
//! settings give no `context_window`. The model's own window when its name is known
//! (a prefix table, longest prefix first), else the smallest common window of the
//! provider's current models, else 128,000 tokens. Figures are input windows as the
//! providers document them (November 2026; sources in `docs/modes.md`).

use serde::Serialize;

use crate::vocab::Provider;

/// Model-name prefixes and their context windows, in tokens. Longest prefix wins
/// (`gpt-5-chat` before `gpt-5`, `claude-opus-4-6` before `claude-opus-4`).
pub const MODEL_WINDOWS: &[(&str, usize)] = &[
    ("claude-opus-4-6", 1_000_000),
    ("claude-sonnet-4-6", 1_000_000),
    ("claude-opus-4", 200_000),
    ("claude-sonnet-4", 200_000),
    ("claude-haiku-4", 200_000),
    ("claude-3", 200_000),
    ("claude-", 200_000),
    ("gpt-5-chat", 128_000),
    // 400,000 in all, of which 128,000 are output: the input budget.
    ("gpt-5", 272_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
    ("gemini-1.5-pro", 2_097_152),
    ("gemini-1.0", 32_760),
    ("gemini-", 1_048_576),
];

/// The smallest window of a provider's current models: what an unnamed model of
/// that provider gets.
pub const fn provider_window(provider: Provider) -> usize {
    match provider {
        Provider::Anthropic => 200_000,
        Provider::OpenAiChat | Provider::OpenAiResponses => 128_000,
        Provider::Gemini => 1_048_576,
        // An MCP client's model is unknown: the smallest common window.
        Provider::Mcp => 128_000,
    }
}

/// When neither a model nor a provider is known.
pub const FALLBACK_WINDOW: usize = 128_000;

/// Where a context window came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "from", rename_all = "lowercase")]
pub enum WindowSource {
    /// Set in the settings (`context_window`).
    Configured,
    /// The model's entry in [`MODEL_WINDOWS`].
    Model {
        /// The table's prefix that matched.
        prefix: &'static str,
    },
    /// The provider's default ([`provider_window`]).
    Provider {
        /// The provider's name.
        provider: &'static str,
    },
    /// Nothing known: [`FALLBACK_WINDOW`].
    Fallback,
}

impl std::fmt::Display for WindowSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WindowSource::Configured => f.write_str("configured"),
            WindowSource::Model { prefix } => write!(f, "model table ({prefix}*)"),
            WindowSource::Provider { provider } => write!(f, "provider {provider} default"),
            WindowSource::Fallback => f.write_str("default"),
        }
    }
}

impl PartialEq<&str> for WindowSource {
    #[allow(clippy::cmp_owned)] // the text is a few words; compared as it is shown
    fn eq(&self, text: &&str) -> bool {
        self.to_string() == *text
    }
}

/// The context window that applies, and where it came from.
pub fn context_window(
    configured: Option<usize>,
    model: Option<&str>,
    provider: Option<Provider>,
) -> (usize, WindowSource) {
    if let Some(w) = configured {
        return (w, WindowSource::Configured);
    }
    if let Some(model) = model {
        let model = model.trim().to_ascii_lowercase();
        // A provider prefix in the name (`anthropic/claude-…`, `openai/gpt-…`).
        let bare = model.rsplit('/').next().unwrap_or(&model);
        if let Some(&(prefix, w)) = MODEL_WINDOWS
            .iter()
            .filter(|(p, _)| bare.starts_with(p))
            .max_by_key(|(p, _)| p.len())
        {
            return (w, WindowSource::Model { prefix });
        }
    }
    match provider {
        Some(p) => (
            provider_window(p),
            WindowSource::Provider { provider: p.name() },
        ),
        None => (FALLBACK_WINDOW, WindowSource::Fallback),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_prefix_wins_and_the_provider_fills_in() {
        let w = |m: &str| context_window(None, Some(m), Some(Provider::Mcp)).0;
        assert_eq!(w("gpt-5-chat-latest"), 128_000);
        assert_eq!(w("gpt-5-mini"), 272_000);
        assert_eq!(w("claude-opus-4-6"), 1_000_000);
        assert_eq!(w("claude-opus-4-1-20250805"), 200_000);
        assert_eq!(w("anthropic/claude-sonnet-4-5"), 200_000);
        assert_eq!(w("Gemini-2.5-Pro"), 1_048_576);
        assert_eq!(w("gemini-1.5-pro-002"), 2_097_152);
        assert_eq!(
            context_window(None, Some("my-local-llama"), Some(Provider::Anthropic)),
            (
                200_000,
                WindowSource::Provider {
                    provider: "anthropic"
                }
            )
        );
        assert_eq!(
            context_window(Some(8_000), Some("gpt-4.1"), None),
            (8_000, WindowSource::Configured)
        );
        assert_eq!(
            context_window(None, None, None),
            (FALLBACK_WINDOW, WindowSource::Fallback)
        );
        for (_, w) in MODEL_WINDOWS {
            assert!(*w > 0);
        }
    }
}
