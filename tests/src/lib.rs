//! Cross-crate test suites live in this package's tests (see Cargo.toml); this
//! library holds what more than one of them needs.

use std::path::{Path, PathBuf};

/// The checkout.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The `toolsearch` binary next to the running test's own directory (`target/debug`).
pub fn binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    let bin = dir.join("toolsearch");
    assert!(
        bin.exists(),
        "{} is missing: build it first (`cargo build -p toolsearch-cli`)",
        bin.display()
    );
    bin
}
