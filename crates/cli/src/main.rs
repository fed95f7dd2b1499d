//! `toolsearch`: search and run tool catalogs from the command line, and serve them
//! as an MCP gateway. Evaluation and benchmarks are the lab's (`toolsearch-lab`,
//! `crates/lab`).

mod connect;
mod demo;
mod exec;
mod gateway;
mod model;
mod oauth;
mod probe;
mod prompt_size;
mod search;

use toolsearch_cli::{common, semantic};

use clap::{Parser, Subcommand};

// No `#[global_allocator]`: with mimalloc, the bench (`toolsearch-lab bench`) segfaulted inside the
// quickjs engine (it mixes the Rust allocator with the C one), so the binaries keep
// the system allocator.

use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "toolsearch",
    version,
    about = "Tool search for LLM agents with many tools"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Search a catalog and print the results as JSON.
    Search(search::Args),
    /// Run one tool_search_code snippet against a catalog (echo dispatcher).
    Exec(exec::Args),
    /// Bytes of the tool definitions sent up front per mode (direct, code, tools).
    PromptSize(prompt_size::Args),
    /// Run the demo on the embedded default catalog.
    Demo(demo::Args),
    /// Serve MCP in front of the MCP servers of a config file (stdio or HTTP).
    Gateway(gateway::Args),
    /// Move the MCP servers of a client (claude-code, claude-desktop, cursor, vscode,
    /// codex, gemini) behind the gateway and leave one toolsearch entry in it.
    Connect(connect::Args),
    /// Log in to remote servers behind OAuth (the gateway as their client): `login`,
    /// `status`, `logout`.
    #[command(subcommand)]
    Oauth(oauth::Command),
    /// Check a gateway configuration file.
    #[command(subcommand)]
    Config(gateway::ConfigCommand),
    /// The embedding model search fuses with its lexical ranking: fetch it, or see
    /// where it is looked for.
    #[command(subcommand)]
    Model(model::Command),
    /// Connect to one MCP server over streamable HTTP as the gateway would, list its
    /// tools and call each once (for protocol conformance runs).
    #[command(hide = true)]
    Probe(probe::Args),
    /// Serve as a sandbox worker process (stdin/stdout protocol of
    /// `Isolation::Process`; started by `exec`, `demo`, the gateway and
    /// `toolsearch-lab bench`, not by hand).
    #[command(hide = true)]
    SandboxWorker,
    /// Keep one stdio server for a gateway: run it, and when it exits or is
    /// told to stop, end everything it started (started by the gateway).
    #[command(hide = true)]
    ServerKeeper(gateway::KeeperArgs),
}

fn main() -> ExitCode {
    // Facades built without a pool of their own (`prompt-size`, `search`'s code
    // mode) start this executable as their sandbox worker.
    toolsearch::serve_if_worker();
    let cli = Cli::parse();
    // The gateway sets its logs up once its configuration is read (traces
    // may go to a collector too).
    if !matches!(cli.command, Command::Gateway(_)) {
        common::init_logs();
    }
    let result = match cli.command {
        Command::Search(args) => search::run(args),
        Command::Exec(args) => exec::run(args),
        Command::PromptSize(args) => prompt_size::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Gateway(args) => gateway::run(args),
        Command::Config(cmd) => gateway::config(cmd),
        Command::Model(cmd) => model::run(cmd),
        Command::Oauth(cmd) => oauth::run(cmd),
        Command::Connect(args) => connect::run(args),
        Command::Probe(args) => probe::run(args),
        Command::SandboxWorker => return toolsearch_sandbox::run_worker_process(),
        Command::ServerKeeper(args) => return gateway::keep(args),
    };
    common::exit_code("toolsearch", result)
}
