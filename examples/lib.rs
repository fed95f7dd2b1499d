//! Examples of embedding toolsearch, run by `cargo xtask test`:
//!
//! - `agent_loop`: an agent loop against an OpenAI-compatible endpoint (or a
//!   scripted stand-in model on loopback), with tool search in code mode;
//! - `gateway`: a gateway's HTTP handlers (`POST /tools`, `POST /call`).
//!
//! ```sh
//! cargo run -p toolsearch-examples --example agent_loop
//! cargo run -p toolsearch-examples --example gateway
//! ```
//!
//! The README's library example is built by `cargo xtask test` too, as a crate
//! outside this workspace (`xtask/src/outside.rs`), so a first build of a
//! dependent crate is checked.
