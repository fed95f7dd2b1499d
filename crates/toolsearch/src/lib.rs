//! The toolsearch host facade: policy, dispatch, and the bridge that lets a
//! `tool_search_code` snippet search, describe and call catalog tools.
//!
//!
//! A request goes query → catalog → rank (`toolsearch-catalog`, fused by
//! `semantic.rs` when the `semantic` feature is on) → `routing.rs` (the model's
//! call by name) or `code.rs` + `bridge.rs` (a snippet's calls, `code` feature) →
//! `host/` (`resolve.rs`, `gate.rs`, `call.rs`) → the [`Dispatcher`].
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

mod activation;
#[cfg(feature = "code")]
pub mod answer;
#[cfg(feature = "code")]
mod bridge;
mod code;
#[cfg(feature = "code")]
mod code_health;
mod definitions;
mod defs;
mod dispatch;
mod error;
mod facade;
pub mod gemini;
mod hints;
mod host;
mod modes;
pub mod native;
pub mod outcome;
mod plan;
mod policy;
mod repair;
pub mod reveal;
mod routing;
#[cfg(feature = "semantic")]
mod semantic;
mod telemetry;
mod validate;
mod vocab;
pub mod windows;

pub use activation::{Activation, Mode, DEFAULT_COUNT_THRESHOLD, DEFAULT_SHARE_THRESHOLD};
#[cfg(feature = "code")]
pub use bridge::CatalogBridge;
#[cfg(feature = "code")]
pub use code_health::{REPROBE_FIRST, REPROBE_MAX};
pub use definitions::Definitions;
pub use defs::{definition, listing_text, provider_names, Provider, SearchLimits, MAX_NAME};
pub use dispatch::echo_value;
pub use dispatch::{
    dispatcher_fn, AskError, AskFuture, CallContext, DispatchError, DispatchErrorKind,
    DispatchFuture, Dispatcher, EchoDispatcher, FnDispatcher, Notifier, Notify,
};
pub use error::{ErrorCode, HostError};
pub use facade::{
    BuildError, Builder, CallOptions, Session, Settings, ToolOutput, ToolSearch,
    DEFAULT_LISTING_BYTES, DEFAULT_MAX_SESSIONS, MAX_LISTING_BYTES, MIN_LISTING_BYTES,
};
pub use host::{
    AfterCall, ApprovalFuture, Approver, Availability, BeforeCall, ClientTools, Host, Outage,
    Outages, Scope, DEFAULT_APPROVAL_TIMEOUT, DEFAULT_CALL_TIMEOUT,
};
pub use policy::{Glob, NarrowedPolicy, Policy};
pub use repair::{repair, MAX_NOTES, REPAIR_STEPS};
#[cfg(feature = "semantic")]
pub use semantic::SemanticSearch;
pub use telemetry::{ActivationDecision, Captured, Refused, Selected, TurnRecord};
/// The catalog crate, for what the facade does not re-export by name.
pub use toolsearch_catalog as catalog;
pub use toolsearch_catalog::{load_path, load_str, Catalog, LoadOptions, Source, Tool};
#[cfg(feature = "semantic")]
pub use toolsearch_embed::Embedder;
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
pub use validate::{check, validate, Checked, Violation, MAX_VIOLATIONS, VALIDATION_STEPS};
pub use vocab::{BridgeTool, Fallback, Shape, BRIDGE_TOOLS};
