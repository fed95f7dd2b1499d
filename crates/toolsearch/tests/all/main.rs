//! The facade's bridge over the real catalog, policy and sandbox.

mod bridge;
mod code_health;
mod facade;
mod golden;
mod hostile_defs;
mod hostile_props;
mod layers;
mod modes;
mod seen;
mod semantic;
mod trace;
