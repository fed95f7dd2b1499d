//! `toolsearch exec`: run one `tool_search_code` snippet against a catalog with the
//! built-in echo dispatcher (each tool returns `{"tool": id, "arguments": args}`).

use crate::common::{load_catalog, print_json, run_snippet, worker_command};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use toolsearch::Policy;
use toolsearch_sandbox::{Isolation, Limits};

#[derive(clap::Args)]
pub struct Args {
    /// Catalog file; the embedded demo catalog when omitted.
    #[arg(long)]
    catalog: Option<PathBuf>,
    /// Wall-clock budget of the snippet, in milliseconds (100-600000, the
    /// gateway's `limits.timeout_ms` range).
    #[arg(long, default_value_t = 10_000, value_parser = timeout_ms, allow_hyphen_values = true)]
    timeout_ms: u64,
    /// Only tools matching one of these globs are visible (`mcp:github:*`, `github`, `create_*`).
    #[arg(long)]
    allow: Vec<String>,
    /// Tools matching any of these globs are hidden (deny wins).
    #[arg(long)]
    deny: Vec<String>,
    /// Where the snippet runs: `process` (default; a forked worker process under
    /// the OS layer, killed on overrun: for untrusted code) or `thread` (in this
    /// process: trusted code only).
    #[arg(long, default_value = "process", value_parser = ["process", "thread"])]
    isolation: String,
    /// The snippet: the body of an async function.
    #[arg(long, conflicts_with = "file")]
    code: Option<String>,
    /// Read the snippet from a file (`-` for standard input).
    #[arg(long)]
    file: Option<PathBuf>,
    /// `-`: read the snippet from standard input.
    #[arg(value_name = "-")]
    stdin: Option<String>,
}

/// The range of `--timeout-ms`: the gateway's `limits.timeout_ms`.
const TIMEOUT_MS: std::ops::RangeInclusive<u64> = 100..=600_000;

/// `--timeout-ms`: a whole number of milliseconds in [`TIMEOUT_MS`]; the error
/// names the range whatever was wrong.
fn timeout_ms(s: &str) -> std::result::Result<u64, String> {
    let range = format!("{}..={}", TIMEOUT_MS.start(), TIMEOUT_MS.end());
    match s.trim().parse::<u64>() {
        Ok(n) if TIMEOUT_MS.contains(&n) => Ok(n),
        Ok(n) => Err(format!("{n} is not in {range} (milliseconds)")),
        Err(_) => Err(format!(
            "not a whole number of milliseconds; give one in {range}"
        )),
    }
}

/// Reads the snippet; never more than the source limit plus one byte (a
/// larger snippet is refused with that limit before the rest is read).
fn read_source(args: &Args) -> Result<Vec<u8>> {
    let cap = Limits::default().source_bytes as u64;
    let what = "the snippet (the source limit)";
    let from_stdin = || -> Result<Vec<u8>> {
        toolsearch_catalog::read_at_most(std::io::stdin().lock(), cap, what)
            .context("reading the snippet from standard input")
    };
    match (&args.code, &args.file, args.stdin.as_deref()) {
        (Some(code), None, None) => Ok(code.clone().into_bytes()),
        (None, Some(f), None) if f.as_os_str() == "-" => from_stdin(),
        (None, Some(f), None) => std::fs::File::open(f)
            .and_then(|file| toolsearch_catalog::read_at_most(file, cap, what))
            .with_context(|| format!("reading {}", f.display())),
        (None, None, Some("-")) => from_stdin(),
        (None, None, Some(other)) => {
            bail!("unexpected argument `{other}`; give the snippet with --code, --file or -")
        }
        (None, None, None) => {
            bail!("no snippet: give it with --code JS, --file F or - (standard input)")
        }
        _ => bail!("give the snippet only once (--code, --file or -)"),
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let source = read_source(&args)?;
    let loaded = load_catalog(args.catalog.as_deref(), false)?;
    let policy = Policy::from_patterns(&args.allow, &args.deny);
    let limits = Limits {
        deadline: Duration::from_millis(args.timeout_ms),
        ..Limits::default()
    };
    let isolation = match args.isolation.as_str() {
        "thread" => Isolation::Thread,
        _ => Isolation::Process(worker_command()?),
    };
    let result = run_snippet(loaded.catalog, policy, limits, &source, isolation)?;
    // A snippet that failed fails the command (its record says why).
    let ok = result["ok"].as_bool() == Some(true);
    print_json(result)?;
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
