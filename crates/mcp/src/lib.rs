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

pub mod config;
pub mod forward;
pub mod frame;
pub mod gateway;
pub mod serve;
pub mod text;
pub mod upstream;

pub use config::{Config, ConfigError};
pub use gateway::{Gateway, GatewaySession};
pub use text::clean_for_log;
pub use upstream::{http_client, Fleet, Link, ServerStatus, Upstream};
