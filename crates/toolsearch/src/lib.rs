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

mod bridge;
mod dispatch;
mod policy;
mod validate;

pub use bridge::{echo_value, CatalogBridge};
pub use dispatch::{
    dispatcher_fn, CallContext, DispatchError, DispatchErrorKind, DispatchFuture, Dispatcher,
    EchoDispatcher, FnDispatcher,
};
pub use policy::{Glob, NarrowedPolicy, Policy};
pub use validate::{repair, validate, Violation};
