//! Integration tests of the sandbox (one binary; see the modules).

mod common;
mod containment;
mod crash;
mod dts;
mod engine_memory;
mod glue;
mod happy;
mod liveness;
mod process;
mod security;
mod soak;
mod surface;
