//! Shared by the examples (and the end-to-end test).
pub mod agent;
pub mod http;
