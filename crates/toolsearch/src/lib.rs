//! The toolsearch host facade: policy, dispatch, and the bridge that lets a
//! `tool_search_code` snippet search, describe and call catalog tools.
//!
//! ```
//! use std::sync::Arc;
//! use toolsearch::{CallContext, CatalogBridge, EchoDispatcher, Policy};
//! use toolsearch_catalog::Catalog;
//! use toolsearch_sandbox::Bridge;
//!
//! let policy = Policy::from_patterns(&["github"], &["*merge*"]);
//! let bridge = CatalogBridge::new(Catalog::demo(), Arc::new(policy), Arc::new(EchoDispatcher), CallContext::default());
//! let found = bridge.search("merge a pull request", None).unwrap();
//! assert!(found["hits"].as_array().unwrap().iter().all(|h| h["server"] == "github"));
//! assert!(bridge.describe("mcp:github:merge_pull_request").is_err());
//! ```
#![deny(missing_docs)]

mod activation;
mod bridge;
mod definitions;
mod defs;
mod dispatch;
mod facade;
mod host;
pub mod outcome;
mod policy;
mod repair;
mod semantic;
mod telemetry;
mod validate;

pub use activation::{Activation, Mode, DEFAULT_COUNT_THRESHOLD, DEFAULT_SHARE_THRESHOLD};
pub use bridge::{echo_value, CatalogBridge};
pub use definitions::Definitions;
pub use defs::{
    definition, listing_text, provider_names, Provider, SearchLimits, BRIDGE_TOOLS, MAX_NAME,
};
pub use dispatch::{
    dispatcher_fn, AskError, AskFuture, CallContext, DispatchError, DispatchErrorKind,
    DispatchFuture, Dispatcher, EchoDispatcher, FnDispatcher, Notifier, Notify,
};
pub use facade::{
    Builder, CallOptions, Session, Settings, ToolOutput, ToolSearch, DEFAULT_LISTING_BYTES,
    DEFAULT_MAX_SESSIONS,
};
pub use host::{
    AfterCall, ApprovalFuture, Approver, Availability, BeforeCall, ClientTools, Host, Scope,
    DEFAULT_CALL_TIMEOUT,
};
pub use policy::{Glob, NarrowedPolicy, Policy};
pub use repair::{repair, MAX_NOTES, REPAIR_STEPS};
pub use semantic::SemanticSearch;
pub use telemetry::{ActivationDecision, Captured, Selected, TurnRecord};
/// The catalog crate, for what the facade does not re-export by name.
pub use toolsearch_catalog as catalog;
pub use toolsearch_catalog::{load_path, load_str, Catalog, LoadOptions, Source, Tool};
pub use toolsearch_embed::Embedder;
pub use validate::{check, validate, Checked, Violation, MAX_VIOLATIONS, VALIDATION_STEPS};
