//! The README's "use it as a library" section, built as a crate outside this
//! workspace exactly as a new user would: its `Cargo.toml` block, its one shell
//! line and its Rust block, copied verbatim (only `/path/to/toolsearch` becomes
//! this checkout). The build shares this workspace's target directory, lock file
//! and dev profile so the engine is not compiled twice.

use std::path::Path;
use std::process::Command;

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

/// The workspace manifest's `[profile.dev]` and `[profile.dev.package.*]` tables,
/// verbatim: the same opt-level and debug settings give the same artifacts.
fn dev_profiles(manifest: &str) -> String {
    let mut out = String::new();
    let mut keep = false;
    for line in manifest.lines() {
        if line.starts_with('[') {
            keep = line.starts_with("[profile.dev]") || line.starts_with("[profile.dev.package.");
        }
        if keep {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Builds and runs the README's library example as an outside crate.
pub fn run(root: &Path) -> Result<()> {
    let readme = std::fs::read_to_string(root.join("README.md"))?;
    let heading = "## Embedding toolsearch in an agent loop";
    let root_s = root.to_str().context("the checkout's path is not UTF-8")?;
    let here = |s: &str| s.replace("/path/to/toolsearch", root_s);
    let deps = here(block(&readme, heading, "toml")?);
    let shell = here(block(&readme, heading, "sh")?);
    let main = block(&readme, heading, "rust")?;
    let Some(toolchain) = shell
        .lines()
        .find_map(|l| l.trim().strip_prefix("export CMAKE_TOOLCHAIN_FILE="))
    else {
        bail!("the README's shell line does not export CMAKE_TOOLCHAIN_FILE");
    };
    let dir = std::env::temp_dir().join(format!("toolsearch-outside-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src"))?;
    let manifest = format!(
        "[package]\nname = \"outside\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n{deps}\n\
         # CI only: the workspace's dev profiles, so the engine's artifacts are reused.\n{}",
        dev_profiles(&std::fs::read_to_string(root.join("Cargo.toml"))?)
    );
    std::fs::write(dir.join("Cargo.toml"), manifest)?;
    std::fs::write(dir.join("src/main.rs"), main)?;
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock"))?;
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    // Outside the checkout, so this workspace's .cargo/config.toml is not read; and
    // none of the variables `cargo xtask` itself runs under leak in
    // (`CMAKE_TOOLCHAIN_FILE`, which that config sets, is replaced by the README's).
    c.current_dir(&dir)
        .args(["run", "--quiet"])
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove("RUSTFLAGS")
        .env("CMAKE_TOOLCHAIN_FILE", toolchain)
        .env(
            "CARGO_TARGET_DIR",
            std::env::var_os("CARGO_TARGET_DIR")
                .map(std::path::PathBuf::from)
                .unwrap_or_else(|| root.join("target")),
        );
    eprintln!(
        "xtask: building the README's library example as an outside crate in {}",
        dir.display()
    );
    let out = c.output().with_context(|| format!("starting {c:?}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        bail!(
            "the README's library example failed ({}):\n{}\n{}",
            out.status,
            stdout,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    if !stdout.contains("definitions;") || !stdout.contains("mcp:") {
        bail!("the README's library example printed something unexpected: {stdout}");
    }
    eprintln!("xtask: outside crate ran: {}", stdout.trim());
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
