//! `toolsearch-lab`: the lab, kept out of the product (`toolsearch`). It scores a
//! catalog's search against labelled queries (`eval`), measures search and sandbox
//! speed against plain baselines and writes `docs/benchmarks.md` (`bench`), and
//! measures the latency the gateway adds (`bench-gateway`) and what lazy servers
//! save (`bench-lazy`). Where it runs the
//! product's own processes (sandbox workers, the gateway), it runs the `toolsearch`
//! binary next to its own executable.

mod bench;
mod bench_churn;
mod bench_docs;
mod bench_fused;
mod bench_gateway;
mod bench_lazy;
mod bench_node;
mod bench_os;
mod bench_profiles;
mod bench_replicas;
mod bench_sandbox;
mod bench_telemetry;
mod eval;
mod semantic;
mod slow_server;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

// No `#[global_allocator]`: with mimalloc, the bench segfaulted inside the quickjs
// engine (it mixes the Rust allocator with the C one); the system allocator it is.

#[derive(Parser)]
#[command(
    name = "toolsearch-lab",
    version,
    about = "The toolsearch lab: retrieval evaluation and benchmarks"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Score a catalog's search against labelled queries and print one JSON object.
    Eval(eval::Args),
    /// Print search speed figures against a plain-BM25 baseline, and the sandbox's.
    Bench(bench::Args),
    /// The latency the gateway adds to a direct call of a downstream tool.
    BenchGateway(bench_gateway::Args),
    /// What metrics and traces add to a call's latency: gateways differing
    /// only in `[telemetry]`, called in turn.
    BenchTelemetry(bench_telemetry::Args),
    /// Start time, first call and footprint of a gateway over many slow servers,
    /// `lazy = false` against `lazy = true`.
    BenchLazy(bench_lazy::Args),
    /// What client profiles cost: a snapshot's rebuild and the memory held, with
    /// N profiles against none.
    BenchProfiles(bench_profiles::Args),
    /// How often a scripted day (restarts, a server down and back, a lazy
    /// start, a reordered list, reloads, a tool added, a profile narrowed)
    /// rewrites the prefix clients are sent, per mode and profile.
    BenchChurn(bench_churn::Args),
    /// What a call costs through 1, 2 and 3 replicas behind HAProxy on Redis
    /// (`deploy/haproxy.cfg`) against one gateway alone, back to back and spaced.
    BenchReplicas(bench_replicas::Args),
    /// A stdio MCP server slow to start (what `bench-lazy` runs behind the gateway).
    #[command(hide = true)]
    SlowServer(slow_server::Args),
}

/// The port a gateway started with `--http 127.0.0.1:0` serves on, read from
/// its stderr (60 s at most); the rest of its stderr is drained by a thread of
/// its own, so that it never blocks on it.
pub fn gateway_port(child: &mut std::process::Child) -> Result<u16> {
    use std::io::BufRead;
    let stderr = child.stderr.take().context("the gateway's stderr")?;
    let mut lines = std::io::BufReader::new(stderr).lines();
    let t0 = std::time::Instant::now();
    let mut said = String::new();
    let port = loop {
        let Some(Ok(line)) = lines.next() else {
            anyhow::bail!("the gateway ended before it named its address: {said}");
        };
        if let Some(rest) = line.split("://127.0.0.1:").nth(1) {
            break rest.trim_end_matches("/mcp").trim().parse::<u16>()?;
        }
        if t0.elapsed() > std::time::Duration::from_secs(60) {
            anyhow::bail!("the gateway named no address in 60 s");
        }
        said = line;
    };
    std::thread::spawn(move || for _ in lines {});
    Ok(port)
}

/// The product's binary, `toolsearch`, next to this one (both are built into the
/// same target directory): the bench's sandbox workers and the gateway it measures.
pub fn toolsearch_exe() -> Result<PathBuf> {
    let me = std::env::current_exe().context("locating this executable")?;
    let exe = me.with_file_name(format!("toolsearch{}", std::env::consts::EXE_SUFFIX));
    anyhow::ensure!(
        exe.is_file(),
        "no `toolsearch` binary next to {} (build it too: cargo build --release -p toolsearch-cli)",
        me.display()
    );
    Ok(exe)
}

fn main() -> ExitCode {
    toolsearch_cli::common::init_logs();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Eval(args) => eval::run(args),
        Command::Bench(args) => bench::run(args),
        Command::BenchGateway(args) => bench_gateway::run(args),
        Command::BenchTelemetry(args) => bench_telemetry::run(args),
        Command::BenchLazy(args) => bench_lazy::run(args),
        Command::BenchProfiles(args) => bench_profiles::run(args),
        Command::BenchChurn(args) => bench_churn::run(args),
        Command::BenchReplicas(args) => bench_replicas::run(args),
        Command::SlowServer(args) => slow_server::run(args),
    };
    toolsearch_cli::common::exit_code("toolsearch-lab", result)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
