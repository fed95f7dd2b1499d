//! Cross-crate test suites live in this package's tests (see Cargo.toml).
