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

/// Sets `XDG_STATE_HOME` to a folder of this test process, once: gateways
/// (in process, or the binaries it starts) keep servers' manifests there,
/// never in the user's state.
pub fn isolate_state() {
    static STATE: std::sync::Once = std::sync::Once::new();
    STATE.call_once(|| {
        let dir = std::env::temp_dir().join(format!("ts-state-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        std::env::set_var("XDG_STATE_HOME", dir);
    });
}

/// The `toolsearch` binary next to the running test's own directory (`target/debug`).
/// The gateways a test process starts keep their state (servers' manifests)
/// in a folder of that process, never the user's: `XDG_STATE_HOME` is set
/// for it (and the processes it starts) on the first call.
pub fn binary() -> PathBuf {
    isolate_state();
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
