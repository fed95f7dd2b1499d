//! The README's "use it as a library" section, built as a crate outside this
//! workspace exactly as a new user would: its `Cargo.toml` block and its Rust
//! block, copied verbatim (only `/path/to/toolsearch` becomes this checkout),
//! in a target directory of its own (`target/outside`: what a user's first
//! build compiles, nothing shared with the workspace's), with no environment
//! from this workspace. It runs three ways: as written (a snippet runs in code
//! mode through the crate's own executable as the sandbox worker), with
//! mimalloc as the global allocator, and without the `serve_if_worker` line
//! (`build()` must refuse code mode, naming that line).

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};

/// The body of the first fenced block of `lang` after `heading` in `text`.
fn block<'a>(text: &'a str, heading: &str, lang: &str) -> Result<&'a str> {
    let section = text
        .split_once(heading)
        .with_context(|| format!("README has no `{heading}`"))?
        .1;
    let fence = format!("```{lang}\n");
    let start = section
        .find(&fence)
        .with_context(|| format!("no ```{lang} block under `{heading}`"))?
        + fence.len();
    let len = section[start..]
        .find("```")
        .with_context(|| format!("unclosed ```{lang} block"))?;
    Ok(&section[start..start + len])
}

/// The line the README's `main` starts with.
const WORKER_LINE: &str = "toolsearch::serve_if_worker();";

/// One run of the outside crate: its stdout and stderr, or an error.
fn cargo_run(dir: &Path, target: &Path, features: &[&str]) -> Result<(bool, String, String)> {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    // Outside the checkout, so this workspace's .cargo/config.toml is not read;
    // and none of the variables `cargo xtask` itself runs under leak in.
    c.current_dir(dir)
        .args(["run", "--quiet"])
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove("RUSTFLAGS")
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env_remove("CLIPPY_ARGS")
        .env_remove("CMAKE_TOOLCHAIN_FILE")
        .env_remove("TOOLSEARCH_SANDBOX_WORKER")
        .env("CARGO_TARGET_DIR", target);
    if !features.is_empty() {
        c.arg("--features").arg(features.join(","));
    }
    let start = Instant::now();
    let out = c.output().with_context(|| format!("starting {c:?}"))?;
    eprintln!(
        "xtask: outside crate {features:?}: built and ran in {:.0} s",
        start.elapsed().as_secs_f64()
    );
    Ok((
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// Builds and runs the README's library example as an outside crate.
pub fn run(root: &Path) -> Result<()> {
    let readme = std::fs::read_to_string(root.join("README.md"))?;
    let heading = "## Embedding toolsearch in an agent loop";
    let root_s = root.to_str().context("the checkout's path is not UTF-8")?;
    let deps = block(&readme, heading, "toml")?.replace("/path/to/toolsearch", root_s);
    let main = block(&readme, heading, "rust")?;
    if !main.contains(WORKER_LINE) {
        bail!("the README's main does not call `{WORKER_LINE}`");
    }
    let dir = std::env::temp_dir().join(format!("toolsearch-outside-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src"))?;
    // The allocator variant: the same crate with one optional dependency.
    let manifest = format!(
        "[package]\nname = \"outside\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n{deps}\n\
         # CI only: the same program with a non-system global allocator.\n\
         [dependencies.mimalloc]\nversion = \"0.1\"\noptional = true\n"
    );
    std::fs::write(dir.join("Cargo.toml"), manifest)?;
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock"))?;
    let target = root.join("target/outside");
    let alloc = "#[cfg(feature = \"mimalloc\")]\n#[global_allocator]\n\
                 static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;\n\n";
    std::fs::write(dir.join("src/main.rs"), format!("{alloc}{main}"))?;
    eprintln!(
        "xtask: building the README's library example as an outside crate in {} (target {})",
        dir.display(),
        target.display()
    );
    for features in [&[][..], &["mimalloc"][..]] {
        let (ok, stdout, stderr) = cargo_run(&dir, &target, features)?;
        // Code mode ran the snippet: the forecast came back through the dispatcher.
        if !ok || !stdout.contains("error: false") || !stdout.contains("\"high_c\":21") {
            bail!(
                "the README's library example {features:?} did not run its snippet in code mode:\n\
                 {stdout}\n{stderr}"
            );
        }
        eprintln!("xtask: outside crate {features:?} ran: {}", stdout.trim());
    }
    // Without the line: a clear error at build(), naming it.
    std::fs::write(dir.join("src/main.rs"), main.replace(WORKER_LINE, ""))?;
    let (ok, stdout, stderr) = cargo_run(&dir, &target, &[])?;
    if ok || !stderr.contains("serve_if_worker") || !stderr.contains("\"sandbox\"") {
        bail!(
            "without `{WORKER_LINE}` build() must refuse code mode naming it; got:\n{stdout}\n{stderr}"
        );
    }
    eprintln!(
        "xtask: outside crate without the line: {}",
        stderr
            .lines()
            .find(|l| l.contains("serve_if_worker"))
            .unwrap_or("")
            .trim()
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
