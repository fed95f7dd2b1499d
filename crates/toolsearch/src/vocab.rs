//! The words the model and the caller see, as types: the bridge tools' names and the
//! shape a list of definitions takes. Each has one mapping to the wire
//! (`name` / `as_str`), so a new tool or shape is a compile error wherever a case
//! is missing, not a string that falls through a `_ =>`.

use serde::{Serialize, Serializer};

/// The tools toolsearch adds to a list: never deferred, never a catalog tool's name
/// (catalog tools that take one are renamed, see [`crate::provider_names`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BridgeTool {
    /// Code mode's one tool: a snippet that searches, describes and calls.
    SearchCode,
    /// Search (structured, reveal and native modes).
    Search,
    /// Full schemas of tools found by search (structured mode).
    Describe,
    /// Call a tool found by search (structured mode).
    Call,
}

impl BridgeTool {
    /// Every bridge tool, in declaration order.
    pub const ALL: [BridgeTool; 4] = [
        BridgeTool::SearchCode,
        BridgeTool::Search,
        BridgeTool::Describe,
        BridgeTool::Call,
    ];

    /// The name the model calls it by.
    pub const fn name(self) -> &'static str {
        match self {
            BridgeTool::SearchCode => "tool_search_code",
            BridgeTool::Search => "tool_search",
            BridgeTool::Describe => "tool_describe",
            BridgeTool::Call => "tool_call",
        }
    }

    /// The bridge tool called `name`, if it is one.
    pub fn from_name(name: &str) -> Option<BridgeTool> {
        BridgeTool::ALL.into_iter().find(|b| b.name() == name)
    }

    /// Whether answering spends CPU on the caller's thread (a ranking that may
    /// embed its query; a describe): an async host runs these on a blocking
    /// thread. A snippet runs on the sandbox's pool, a call waits on its tool.
    pub const fn is_cpu_bound(self) -> bool {
        matches!(self, BridgeTool::Search | BridgeTool::Describe)
    }
}

impl std::fmt::Display for BridgeTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The names of the bridge tools, as strings.
pub const BRIDGE_TOOLS: [&str; 4] = [
    BridgeTool::SearchCode.name(),
    BridgeTool::Search.name(),
    BridgeTool::Describe.name(),
    BridgeTool::Call.name(),
];

/// The shape a list of definitions takes, and how the bridge tools answer under it.
/// Definitions and routing read the same value ([`crate::ToolSearch`]'s `shape`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shape {
    /// Deferral is off: every tool in full.
    Direct,
    /// `tool_search_code` and the never-deferred tools.
    Code,
    /// `tool_search`, `tool_describe`, `tool_call` and the never-deferred tools.
    Tools,
    /// Stubs (or, in the hidden form, nothing) for deferred tools; `tool_search`
    /// reveals full schemas.
    Reveal,
    /// The provider's own deferral (Anthropic's `defer_loading` and
    /// `tool_reference`, OpenAI's namespaces and `tool_search`).
    Native,
}

impl Shape {
    /// Every shape, in declaration order.
    pub const ALL: [Shape; 5] = [
        Shape::Direct,
        Shape::Code,
        Shape::Tools,
        Shape::Reveal,
        Shape::Native,
    ];

    /// The shape's name in telemetry, logs and the CLI.
    pub const fn as_str(self) -> &'static str {
        match self {
            Shape::Direct => "direct",
            Shape::Code => "code",
            Shape::Tools => "tools",
            Shape::Reveal => "reveal",
            Shape::Native => "native",
        }
    }

    /// Whether `tool_search` answers with ids to describe and call (code and tools
    /// shapes, and direct, where no bridge tool is sent).
    pub const fn is_structured(self) -> bool {
        matches!(self, Shape::Direct | Shape::Code | Shape::Tools)
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Shape {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Why a list is not in the shape the settings asked for, or why a snippet's run
/// fell back: the fallbacks the turn record and the definitions' notes report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fallback {
    /// Native asked for a provider that hosts no tool search: code mode instead.
    NoHostedSearch {
        /// The provider of the list.
        provider: Provider,
    },
    /// Native search answers for the settings' provider, not the list's: code mode.
    OtherProvider {
        /// The provider the settings name.
        declared: Provider,
        /// The provider of the list.
        asked: Provider,
    },
    /// Auto: the provider hosts search, but the settings name no provider, so
    /// `tool_search` could not answer in its format: code mode.
    Undeclared {
        /// The provider of the list.
        provider: Provider,
    },
    /// Code mode cannot run: the structured tools were sent (after `then`, the
    /// fallback that led to code mode, if any).
    CodeUnavailable {
        /// Why code mode cannot run.
        reason: String,
        /// The fallback that chose code mode first.
        then: Option<Box<Fallback>>,
    },
    /// One snippet's run failed in the engine (the pool is probed again).
    CodeFailed {
        /// What the engine said.
        reason: String,
    },
}

impl std::fmt::Display for Fallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fallback::NoHostedSearch { provider } => write!(
                f,
                "provider {} hosts no tool search: sent code mode instead of native",
                provider.name()
            ),
            Fallback::OtherProvider { declared, asked } => write!(
                f,
                "native search answers for provider {} (the settings), not {}: sent code \
                 mode instead of native",
                declared.name(),
                asked.name()
            ),
            Fallback::Undeclared { provider } => write!(
                f,
                "provider {} hosts tool search, but the settings name no provider \
                 (Builder::provider): sent code mode instead of native",
                provider.name()
            ),
            Fallback::CodeUnavailable { reason, then: None } => write!(
                f,
                "code mode unavailable ({reason}); sent the structured tools"
            ),
            Fallback::CodeUnavailable {
                reason,
                then: Some(first),
            } => write!(
                f,
                "{first}; code mode unavailable ({reason}): sent the structured tools"
            ),
            Fallback::CodeFailed { reason } => {
                write!(f, "code mode failed for this snippet ({reason})")
            }
        }
    }
}

/// The wire shape of tool definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// OpenAI Chat Completions: `{"type": "function", "function": {name, description, parameters}}`.
    OpenAiChat,
    /// OpenAI Responses: `{"type": "function", name, description, parameters, "strict": false}`.
    OpenAiResponses,
    /// Anthropic Messages: `{name, description, input_schema}`.
    Anthropic,
    /// MCP `tools/list`: `{name, description, inputSchema}`.
    Mcp,
    /// Gemini function declarations: `{name, description, parameters}` with the
    /// parameters in Gemini's schema subset (see `crate::gemini`); the caller wraps
    /// them in `{"functionDeclarations": [...]}`.
    Gemini,
}

impl Provider {
    /// Every provider shape.
    pub const ALL: [Provider; 5] = [
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Anthropic,
        Provider::Mcp,
        Provider::Gemini,
    ];

    /// The provider's name as configured (`openai_chat`, `openai_responses`,
    /// `anthropic`, `mcp`, `gemini`).
    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAiChat => "openai_chat",
            Provider::OpenAiResponses => "openai_responses",
            Provider::Anthropic => "anthropic",
            Provider::Mcp => "mcp",
            Provider::Gemini => "gemini",
        }
    }

    /// The provider named `name` (as [`Provider::name`] gives it; `-` accepted for `_`).
    pub fn from_name(name: &str) -> Option<Provider> {
        let n = name.replace('-', "_");
        Provider::ALL.into_iter().find(|p| p.name() == n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for b in BridgeTool::ALL {
            assert_eq!(BridgeTool::from_name(b.name()), Some(b));
        }
        assert_eq!(BridgeTool::from_name("tool_search_codes"), None);
        assert_eq!(
            BRIDGE_TOOLS.to_vec(),
            BridgeTool::ALL.map(BridgeTool::name).to_vec()
        );
        let shapes: Vec<&str> = Shape::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(shapes, ["direct", "code", "tools", "reveal", "native"]);
        assert_eq!(serde_json::to_value(Shape::Reveal).unwrap(), "reveal");
    }
}
