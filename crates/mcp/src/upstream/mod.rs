//! The servers behind the gateway: each one ([`Upstream`]: its process or
//! endpoint, its tools, its connection), all of them ([`Fleet`]), the HTTP
//! client that reaches the streamable HTTP ones, and the calls in flight on
//! each, to which what a server sends is routed.

pub(crate) mod calls;
mod child;
pub mod fleet;
mod handler;
pub mod http_client;
pub mod keeper;
mod lease;
mod life;
mod listing;
mod login;
pub mod manifest;
pub mod pipe;
mod server;

pub use fleet::{Fleet, FleetChanges, ServerStatus};
pub use lease::{Lease, Settled};
pub use listing::{MAX_LISTED_BYTES, MAX_LISTED_TOOLS, MAX_LIST_PAGES};
pub use server::{Event, Lifecycle, Link, Phase, Upstream, MAX_BACKOFF, MIN_BACKOFF};
