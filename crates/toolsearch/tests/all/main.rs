//! The facade's bridge over the real catalog, policy and sandbox.

#[path = "../../examples/support/mod.rs"]
mod support;

mod bridge;
mod e2e;
mod facade;
mod hostile_defs;
mod hostile_props;
mod semantic;
