//! MCP for toolsearch, on the official Rust SDK (`rmcp`). The folders follow
//! rmcp's split of transport from service, and the two sides of a gateway:
//!
//! - **The servers behind** ([`upstream`]): stdio, streamable HTTP and
//!   in-process servers whose tools become catalog snapshots ([`Fleet`]),
//!   rebuilt on `tools/list_changed`, reconnected with backoff; their tools get
//!   ids `mcp:<server>:<tool>` from the gateway, never from what a server
//!   claims; what a server sends during a call is routed to that call only.
//! - **Forwarding** ([`forward`]): a call that passed the host's checks goes to
//!   its server under the server's own name, with the host's timeout and
//!   cancellation both ways.
//! - **The clients in front** ([`gateway`], [`serve`]): an MCP server serving
//!   `tool_search_code` (or the structured tools) to any number of MCP
//!   clients, each session owning its state; over stdio or streamable HTTP.
//!
//! Configuration is one TOML file ([`Config`]), in parts per section.
#![deny(missing_docs)]

pub mod auth;
pub mod config;
pub mod forward;
pub mod frame;
pub mod gateway;
pub mod oauth;
pub mod serve;
pub mod store;
pub mod telemetry;
pub mod text;
pub mod trust;
pub mod upstream;

/// The rmcp patches this crate relies on (`docs/rmcp-patches.md`): without them
/// one client that stops reading stalls the gateway's catalog for everyone, and
/// streamable HTTP loses results a client resumes for. A build that reached
/// crates.io's rmcp instead of the one this repository vendors stops here
/// ("cannot find value `TOOLSEARCH_PATCHES`"): add `[patch.crates-io] rmcp = {
/// path = "<toolsearch>/vendor/rmcp" }` to the workspace's `Cargo.toml` (the
/// README's "Embedding" section).
const _: () = assert!(
    rmcp::TOOLSEARCH_PATCHES >= 8,
    "toolsearch-mcp needs the rmcp vendored in toolsearch's vendor/rmcp"
);

pub use config::{Config, ConfigError};
pub use gateway::{Gateway, GatewaySession};
pub use text::clean_for_log;
pub use upstream::{http_client, Fleet, Link, ServerStatus, Upstream};
