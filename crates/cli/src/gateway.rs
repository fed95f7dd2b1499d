//! `toolsearch gateway`: an MCP server in front of the MCP servers of a config
//! file, over stdio (default) or streamable HTTP; and `toolsearch config check`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result};
use tokio_util::sync::CancellationToken;
use toolsearch::{Provider, Session, Settings, ToolSearch};
use toolsearch_mcp::config::ActivationName;
use toolsearch_mcp::{Config, Gateway};
use toolsearch_sandbox::Pool;

use crate::common::{print_json, worker_command, SHUTDOWN_WAIT};

#[derive(clap::Args)]
pub struct Args {
    /// The configuration file (TOML; see the README). Default:
    /// $XDG_CONFIG_HOME/toolsearch/config.toml, else ~/.config/toolsearch/config.toml.
    #[arg(long, env = "TOOLSEARCH_CONFIG")]
    config: Option<PathBuf>,
    /// Serve streamable HTTP on this address (loopback unless auth is configured)
    /// instead of stdio; port 0 picks a free port (printed on stderr). Default:
    /// the config's `[http] listen`, else stdio.
    #[arg(long)]
    http: Option<SocketAddr>,
    /// Start the servers, print the `tools/list` bytes of this gateway as a plain
    /// aggregator (`activation = "never"`) against code and tools mode, and exit.
    #[arg(long)]
    compare_bytes: bool,
}

#[derive(clap::Args)]
pub struct KeeperArgs {
    /// The gateway's process id: a keeper whose gateway is gone stops.
    #[arg(long)]
    parent: u32,
    /// How long the server may take to exit once told to stop.
    #[arg(long)]
    grace_ms: u64,
    /// The server's command line.
    #[arg(last = true, required = true)]
    command: Vec<std::ffi::OsString>,
}

/// `toolsearch server-keeper`: see `toolsearch_mcp::upstream::keeper`.
pub fn keep(args: KeeperArgs) -> ExitCode {
    let code = toolsearch_mcp::upstream::keeper::run_keeper(
        args.parent,
        std::time::Duration::from_millis(args.grace_ms),
        &args.command,
    );
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

#[derive(clap::Subcommand)]
pub enum ConfigCommand {
    /// Check a configuration file and print the effective configuration (every
    /// default filled in, secrets redacted).
    Check {
        /// The configuration file (default: the gateway's, see `gateway --config`).
        file: Option<PathBuf>,
        /// Also start the servers (waiting at most the startup timeout for each),
        /// and print each one's state: up or why not, its tools, what is wrong
        /// with any of them, and a lazy one's manifest (its age, or why it is not
        /// used); then stop them. A lazy server with a manifest is not started
        /// (its state is `stopped`); one without is, and its manifest written.
        #[arg(long)]
        servers: bool,
        /// Compare with another file: print each key whose effective value
        /// differs (servers and profiles by name, secrets redacted).
        #[arg(long, value_name = "OTHER", conflicts_with = "servers")]
        diff: Option<PathBuf>,
    },
}

pub fn config(cmd: ConfigCommand) -> Result<ExitCode> {
    match cmd {
        ConfigCommand::Check {
            file,
            servers,
            diff,
        } => {
            let cfg = Config::load(&config_file(file)?)?;
            if let Some(other) = diff {
                let to = Config::load(&other)?;
                print_json(toolsearch_mcp::config::diff(&cfg, &to))?;
                return Ok(ExitCode::SUCCESS);
            }
            // What the gateway's start checks beyond the file, checked here
            // the same way: the admin token's variable.
            let gate = toolsearch_mcp::auth::Gatekeeper::new(&cfg).ok();
            toolsearch_mcp::serve::check_token(&cfg, gate.as_ref())?;
            eprintln!(
                "toolsearch: configuration digest {} (a gateway running it reports the same in \
                 /readyz and the metrics)",
                cfg.digest()
            );
            if !servers {
                print_json(cfg.effective())?;
                return Ok(ExitCode::SUCCESS);
            }
            use_keeper()?;
            let rt = runtime(false)?;
            // The servers' state does not depend on the mode or the search: no
            // sandbox and no embedding model are started for it.
            let mut bare = cfg.clone();
            bare.mode = toolsearch_mcp::config::ModeName::Tools;
            bare.semantic = Some(false);
            // Said before a wait that lasts as long as the slowest server.
            eprintln!(
                "toolsearch: starting {} servers; one that does not answer is given {} ms \
                 (limits.startup_timeout_ms)",
                bare.servers.len(),
                bare.startup_timeout().as_millis()
            );
            let status = rt.block_on(async {
                let gw = Gateway::start(&bare, None).await?;
                // Lazy servers with no manifest start in the background.
                gw.fleet()
                    .settled(bare.startup_timeout() + std::time::Duration::from_secs(1))
                    .await;
                let status = gw.fleet().status();
                gw.shutdown().await;
                anyhow::Ok(status)
            })?;
            rt.shutdown_timeout(std::time::Duration::from_secs(1));
            print_json(serde_json::json!({"config": cfg.effective(), "servers": status}))?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The configuration file named, else the default one; when neither is given
/// nor there, an error that says how to make one.
pub fn config_file(named: Option<PathBuf>) -> Result<PathBuf> {
    if let Some(path) = named {
        return Ok(path);
    }
    let path = default_config_file().context(
        "no configuration file named and no default place for one (set XDG_CONFIG_HOME or HOME, \
         or pass --config FILE)",
    )?;
    if !path.is_file() {
        anyhow::bail!(
            "no configuration file at {} (the default; --config FILE names another). Make one:\n  \
             toolsearch connect CLIENT     moves the MCP servers of your client (claude-code, \
             claude-desktop, cursor, vscode, codex, gemini) behind the gateway and writes it\n\
             or write it by hand, one [[servers]] table per server:\n\n  \
             [[servers]]\n  name = \"time\"\n  command = \"uvx\"\n  args = [\"mcp-server-time\"]\n\n\
             then check it with `toolsearch config check --servers`",
            path.display()
        );
    }
    Ok(path)
}

/// `$XDG_CONFIG_HOME/toolsearch/config.toml`, else `~/.config/toolsearch/config.toml`.
pub fn default_config_file() -> Option<PathBuf> {
    Some(
        crate::common::config_home()?
            .join("toolsearch")
            .join("config.toml"),
    )
}

/// Every stdio server runs under a keeper of this executable (what a server
/// starts cannot outlive it).
fn use_keeper() -> Result<()> {
    toolsearch_mcp::upstream::keeper::use_keeper(toolsearch_mcp::upstream::keeper::KeeperCommand {
        program: std::env::current_exe().context("locating this executable")?,
        args: vec!["server-keeper".into()],
    });
    Ok(())
}

/// Over stdio the gateway serves one client: one thread answers it fastest (no
/// hand-offs between worker threads; measured with `toolsearch-lab bench-gateway`: 1.03 ms added at
/// p50 against 1.25 ms on two workers, 0.44 ms once stdio pipes are read on this
/// thread too, see `serve::stdio`). Over HTTP many sessions share it: two
/// worker threads. Snippets run in worker processes either way.
fn runtime(http: bool) -> Result<tokio::runtime::Runtime> {
    let mut b = if http {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        b.worker_threads(2);
        b
    } else {
        tokio::runtime::Builder::new_current_thread()
    };
    b.enable_all().build().context("starting the async runtime")
}

fn pool(cfg: &Config) -> Result<Pool> {
    Pool::new(toolsearch_mcp::gateway::pool_config(cfg, worker_command()?))
        .map_err(|e| anyhow::anyhow!("cannot start the sandbox: {e}"))
}

/// How long a stop may take from its signal (or the client's end of input)
/// to the spans still batched having gone: the README's "within 5 s", with
/// room for the runtime's own end. A collector that hangs gets what is left.
#[cfg(feature = "otel")]
const STOP_BUDGET: std::time::Duration = std::time::Duration::from_secs(4);

pub fn run(args: Args) -> Result<ExitCode> {
    // Before any thread allocates: a gateway runs for weeks.
    toolsearch_sandbox::bound_kept_memory();
    let path = config_file(args.config)?;
    let cfg = Config::load(&path)?;
    let http = args.http.or(cfg.http.listen);
    toolsearch_mcp::http_client::install_tls_provider();
    use_keeper()?;
    let rt = runtime(http.is_some())?;
    #[cfg(feature = "otel")]
    let traces =
        toolsearch_mcp::telemetry::otlp::Traces::start(&cfg.telemetry, rt.handle().clone())?;
    #[cfg(feature = "otel")]
    match &traces {
        Some(t) => crate::common::init_logs_and_traces(t),
        None => crate::common::init_logs(),
    }
    #[cfg(not(feature = "otel"))]
    crate::common::init_logs();
    let pool = pool(&cfg)?;
    // When the stop began: its signal, else the end of serving (stdin's EOF).
    let stop_began = Arc::new(std::sync::OnceLock::<std::time::Instant>::new());
    let out = rt.block_on(async {
        // A signal while the servers start ends the start (their processes are
        // signalled as the runtime drops them).
        let signal = toolsearch_mcp::serve::stop_on_signal(&CancellationToken::new());
        {
            let (signal, began) = (signal.clone(), stop_began.clone());
            tokio::spawn(async move {
                signal.cancelled().await;
                let _ = began.set(std::time::Instant::now());
            });
        }
        let gw = tokio::select! {
            gw = Gateway::start(&cfg, Some(pool.clone())) => gw?,
            () = signal.cancelled() => return Ok(()),
        };
        if args.compare_bytes {
            // Every server's list, not only those known at once.
            gw.settle(cfg.startup_timeout() + std::time::Duration::from_secs(1))
                .await;
            let report = compare_bytes(&gw, &cfg, pool.clone());
            gw.shutdown().await;
            print_json(report)?;
            return Ok(());
        }
        // The operator's surface, beside either transport; a token or an
        // address that is wrong stops the start.
        // SIGHUP and a change of the file put a new configuration in force.
        let reload = toolsearch_mcp::serve::Reloader::new(&path, cfg.clone(), gw.clone());
        if let Some(admin) = toolsearch_mcp::serve::Admin::bind(gw.clone(), &cfg).await? {
            let admin = admin.with_reloader(reload.clone());
            eprintln!("toolsearch: admin surface on {}", admin.url());
            tokio::spawn(admin.run(signal.clone()));
        }
        tokio::spawn(reload.clone().run(signal.clone()));
        match http {
            Some(addr) => {
                toolsearch_mcp::serve::http(gw, &cfg, addr, signal, Some(&reload), |url| {
                    eprintln!("toolsearch: serving MCP on {url}")
                })
                .await
            }
            None => {
                use std::io::IsTerminal;
                if std::io::stdin().is_terminal() {
                    eprintln!(
                        "toolsearch: serving MCP on stdio, waiting for a client's messages. This is \
                         a server: point an MCP client at it (`toolsearch connect CLIENT` does), or \
                         serve HTTP with --http ADDR. Ctrl-C stops it."
                    );
                }
                toolsearch_mcp::serve::stdio(gw).await
            }
        }
    });
    #[cfg(feature = "otel")]
    let began = *stop_began.get_or_init(std::time::Instant::now);
    // Server children are gone (the gateway's shutdown waited for them); the
    // sandbox's worker processes and their job processes go now, before this
    // process exits, whatever a snippet was doing. Stray tasks are not waited for.
    if !pool.shutdown(SHUTDOWN_WAIT) {
        eprintln!(
            "toolsearch: sandbox worker processes were still exiting after {SHUTDOWN_WAIT:?}"
        );
    }
    // The spans still batched go while the runtime that sends them runs (a
    // stdio gateway's runtime runs tasks only inside `block_on`).
    #[cfg(feature = "otel")]
    if let Some(t) = traces {
        let _ = rt.block_on(async move {
            let left = STOP_BUDGET.saturating_sub(began.elapsed());
            tokio::task::spawn_blocking(move || t.shutdown(left)).await
        });
    }
    rt.shutdown_timeout(std::time::Duration::from_secs(1));
    out.map(|()| ExitCode::SUCCESS)
}

/// `tools/list` bytes in each shape over the gateway's current catalog.
fn compare_bytes(gw: &Arc<Gateway>, cfg: &Config, pool: Pool) -> serde_json::Value {
    let catalog = gw.toolsearch().host().catalog();
    let session = Session::new("bytes");
    let bytes = |activation: ActivationName, mode: toolsearch::Mode| {
        let mut c = cfg.clone();
        c.activation = Some(activation);
        c.tool_search = None;
        let settings = Settings {
            mode,
            ..c.settings()
        };
        let ts = ToolSearch::builder()
            .settings(settings)
            .catalog(catalog.clone())
            .sandbox(pool.clone())
            .build()
            .expect("the gateway was built with these settings");
        let defs = ts.definitions(&session, Provider::Mcp);
        let list = serde_json::json!({"tools": defs.tools});
        (list.to_string().len(), defs.decision.shape)
    };
    let (never, _) = bytes(ActivationName::Never, toolsearch::Mode::Code);
    let (code, code_shape) = bytes(ActivationName::Always, toolsearch::Mode::Code);
    let (tools, _) = bytes(ActivationName::Always, toolsearch::Mode::Tools);
    serde_json::json!({
        "servers": gw.fleet().status(),
        "tools": catalog.len(),
        "tools_list_bytes": {
            "aggregator": never,
            "code": code,
            "code_shape": code_shape,
            "tools": tools,
        },
        "ratio_aggregator_over_code": if code > 0 { never as f64 / code as f64 } else { 0.0 },
    })
}
