//! The toolsearch host facade: policy, dispatch, and the bridge that lets a
//! `tool_search_code` snippet search, describe and call catalog tools.
//!
//!
//! A request goes from the [`ToolSearch`] facade (`facade/`) or a
//! [`Conversation`] to `calls/` (the model's call by name: search, describe,
//! call, code) or `render/` (the definitions, in the shape `plan/` chose, in
//! each provider's format from `wire/`); a snippet's calls cross
//! `code/bridge.rs`; all reach `host/` (`search.rs`, `resolve.rs`, `gate.rs`,
//! `call.rs`) and then the [`Dispatcher`]. A conversation's state lives in
//! `conversation/`. The layers, lowest first, are listed in
//! `docs/architecture.md`; no module uses one above its own.
//!
//! ```
//! use toolsearch::{Catalog, Mode, Scope, ToolSearch};
//! use toolsearch::Policy;
//!
//! let ts = ToolSearch::builder()
//!     .catalog(Catalog::demo())
//!     .policy(Policy::from_patterns(&["github"], &["*merge*"]))
//!     .mode(Mode::Tools)
//!     .build()
//!     .unwrap();
//! let found = ts.host().search(&["merge a pull request"], None, &Scope::default()).unwrap();
//! assert!(found["hits"].as_array().unwrap().iter().all(|h| h["server"] == "github"));
//! assert!(ts.host().describe("mcp:github:merge_pull_request", &Scope::default()).is_err());
//! ```
//!
//! Features: `code` (default; code mode on the sandbox, engine `quickjs` by
//! default or `v8`) and `semantic` (default; the embedding model fused with
//! search). `--no-default-features` builds the structured tools alone, with no JS
//! engine.
#![deny(missing_docs)]

// The layers, lowest first (docs/architecture.md; `tests/all/layers.rs`).
mod calls;
mod code;
mod conversation;
mod dispatch;
mod error;
mod facade;
mod host;
mod output;
mod plan;
mod policy;
mod render;
mod settings;
mod vocab;
mod wire;

// What a user meets first: the facade, built with settings, and its conversations.
pub use conversation::Session;
pub use facade::{Builder, Conversation, ToolSearch};
pub use settings::modes::{Activation, Mode, DEFAULT_COUNT_THRESHOLD, DEFAULT_SHARE_THRESHOLD};
pub use settings::{
    BuildError, SearchLimits, Settings, DEFAULT_LISTING_BYTES, DEFAULT_MAX_SESSIONS,
    MAX_LISTING_BYTES, MIN_LISTING_BYTES,
};
pub use toolsearch_catalog::{load_path, load_str, Catalog, LoadOptions, Source, Tool};
pub use vocab::{BridgeTool, Fallback, Provider, Shape, BRIDGE_TOOLS};

// What it hands back: definitions, answers, records.
pub use error::{ErrorCode, HostError};
pub use host::record::{ActivationDecision, Captured, Refused, Selected, TurnRecord};
pub use output::ToolOutput;
pub use render::Definitions;

// How tools run: the dispatcher, the call's context, approvals and hooks.
pub use dispatch::{
    dispatcher_fn, echo_value, AskError, AskFuture, CallContext, CallOptions, DispatchError,
    DispatchErrorKind, DispatchFuture, Dispatcher, EchoDispatcher, FnDispatcher, Notifier, Notify,
    TraceContext,
};
pub use host::{
    AfterCall, ApprovalFuture, Approver, Availability, BeforeCall, ClientTools, Host, Outage,
    Outages, Pending, Scope, DEFAULT_APPROVAL_TIMEOUT, DEFAULT_CALL_TIMEOUT,
};
pub use policy::{Glob, Policy};

// Code mode.
#[cfg(feature = "code")]
pub use code::bridge::CatalogBridge;
#[cfg(feature = "code")]
pub use code::health::{REPROBE_FIRST, REPROBE_MAX};
/// The sandbox crate (pools, limits, isolation), for what the facade does not
/// re-export by name.
#[cfg(feature = "code")]
pub use toolsearch_sandbox as sandbox;
#[cfg(feature = "code")]
pub use toolsearch_sandbox::{Isolation, Limits, Pool, PoolConfig, WorkerCommand};

/// Call it first in `main` (one line: `toolsearch::serve_if_worker();`). Code
/// mode runs snippets in worker processes; with this call the host's own
/// executable is that worker: when the process was started as one it serves
/// and exits, otherwise this returns at once. Without it (and without a
/// `toolsearch-sandbox-worker` program beside the executable)
/// [`Builder::build`] refuses [`Mode::Code`]. A no-op without the `code`
/// feature.
pub fn serve_if_worker() {
    #[cfg(feature = "code")]
    toolsearch_sandbox::serve_if_worker();
}

// Search, semantic ranking and the checks the host runs on arguments.
pub use host::repair::{repair, MAX_NOTES, REPAIR_STEPS};
#[cfg(feature = "semantic")]
pub use host::semantic::SemanticSearch;
pub use host::validate::{check, validate, Checked, Violation, MAX_VIOLATIONS, VALIDATION_STEPS};
/// The catalog crate, for what the facade does not re-export by name.
pub use toolsearch_catalog as catalog;
#[cfg(feature = "semantic")]
pub use toolsearch_embed::Embedder;

// Definitions by hand, for callers that build their own lists.
pub use plan::names::{provider_names, MAX_NAME};
pub use render::bridge_tools::listing_text;
pub use wire::canonical;
pub use wire::definition;

// The modules of the deferral modes and the provider formats.
#[cfg(feature = "code")]
pub use code::answer;
pub use host::outcome;
pub use settings::windows;
pub use wire::gemini;

/// Native mode: the provider hosts tool search (see the module of each format).
pub mod native {
    pub use crate::settings::modes::{hosts_search as supported, NativeSearch, NativeSettings};
    pub use crate::wire::anthropic::ANTHROPIC_BETA;
    pub use crate::wire::openai::NAMESPACE_SIZE;
}

/// Progressive disclosure ([`Mode::Reveal`]): deferred tools go out as stubs (or,
/// in the hidden form, as names only), `tool_search` returns the full schemas of
/// its matches and records them as revealed for the conversation, and the model
/// calls them by name (checked against the full schema). The list never changes
/// under a conversation: stubs stay as they are; in the hidden form the revealed
/// tools are appended in full, after everything else.
pub mod reveal {
    pub use crate::conversation::restore;
    pub use crate::conversation::MAX_REVEALED;
    pub use crate::render::reveal as stubs;
    pub use crate::settings::modes::RevealSettings;
}

#[doc(hidden)]
pub use host::PlanCounts;
