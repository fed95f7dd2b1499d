//! The facade's bridge over the real catalog, policy and sandbox.

mod bridge;
mod e2e;
mod facade;
