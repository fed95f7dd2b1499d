//! The gateway against real MCP servers and clients: npm
//! `@modelcontextprotocol/server-everything` and `server-memory`, PyPI
//! `mcp-server-time`; clients: rmcp (Rust), the Python `mcp` SDK and the
//! inspector CLI (`@modelcontextprotocol/inspector --cli`, on Node 22).
//!
//! These tests need node and the fixtures in `tests/fixtures` (`cargo xtask
//! setup` installs them at the pinned versions) and the `toolsearch` binary
//! (built by `cargo build`): they are `#[ignore]`d with that reason under a plain
//! `cargo test`, and `cargo xtask test` (the README's test command, run by CI)
//! runs them with `--include-ignored`, where a missing tool fails them.

mod admin;
mod admin_tls;
mod answers;
mod approvals;
mod authority;
mod authorization;
mod bounds;
mod clients;
mod common;
mod conformance;
mod eras;
mod fairness;
mod front_door;
mod gateway;
mod golden;
mod harness;
mod health;
mod hostile;
mod identities;
mod keeper;
mod lazy;
mod lifecycle;
mod live_definitions;
mod liveness;
mod metadata;
mod oauth_client;
mod oauth_reload;
mod page;
mod plans;
mod profiles;
mod progress;
mod prometheus;
mod prompt_cache;
mod protocol;
mod reload;
mod replica_loss;
mod replica_set;
mod replicas;
mod routing;
mod runtime;
mod say_why;
mod secrets;
mod sessions;
mod soak;
mod soak_bad_clients;
mod stateless;
mod stopping;
mod streams;
mod tls;
mod traces;
