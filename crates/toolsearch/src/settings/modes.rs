//! The deferral modes and their settings: which shape deferral takes
//! ([`Mode`]), when it is on ([`Activation`]), reveal mode's stubs and native
//! mode's search.

use crate::vocab::Provider;

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
    /// When the deferrable tools reach [`Settings::count_threshold`](crate::Settings::count_threshold) (≥), or their
    /// schemas reach [`Settings::share_threshold`](crate::Settings::share_threshold) of the context window.
    Auto,
    /// Whenever at least one tool is deferrable.
    Always,
    /// Never: direct pass-through.
    Never,
}

impl serde::Serialize for Activation {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
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

/// Settings of reveal mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevealSettings {
    /// Send no stubs: deferred tools are hidden until searched, and
    /// `ToolSearch::insert_reminder` lists their names once. Default off.
    pub hidden: bool,
    /// Longest stub description, in bytes (a summary of the tool's own). Default 160.
    pub stub_description_bytes: usize,
    /// Above this many bytes of stubs the hidden form is used instead. Default 32 KiB.
    pub max_stub_bytes: usize,
    /// Budget of the `<available-deferred-tools>` reminder, in bytes; also of the
    /// tool names in `tool_search`'s description. Default 4 KiB.
    pub reminder_bytes: usize,
    /// In the hidden form, name the hidden tools in `tool_search`'s description
    /// (servers with their tool counts, and the names that fit `reminder_bytes`)
    /// instead of the reminder. `None` (the default): on for [`Provider::Mcp`],
    /// whose servers cannot insert a message, off for the rest.
    pub listing_in_search: Option<bool>,
}

impl Default for RevealSettings {
    fn default() -> Self {
        RevealSettings {
            hidden: false,
            stub_description_bytes: 160,
            max_stub_bytes: 32 * 1024,
            reminder_bytes: 4 * 1024,
            listing_in_search: None,
        }
    }
}

/// Who runs the search in native mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NativeSearch {
    /// Our ranking answers (Anthropic `tool_reference` blocks, OpenAI
    /// `tool_search_output`): the default.
    #[default]
    Client,
    /// The provider's own search (Anthropic BM25, OpenAI hosted).
    Hosted,
    /// Anthropic's regex variant (the model writes patterns); OpenAI: as `Hosted`.
    HostedRegex,
}

/// Settings of [`Mode::Native`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NativeSettings {
    /// Who runs the search. Default [`NativeSearch::Client`].
    pub search: NativeSearch,
}

/// True when `provider` hosts tool search with deferred loading.
pub fn hosts_search(provider: Provider) -> bool {
    matches!(provider, Provider::Anthropic | Provider::OpenAiResponses)
}
