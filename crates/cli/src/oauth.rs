//! `toolsearch oauth login|status|logout`: the gateway's logins to remote
//! servers behind OAuth 2.1 (see `toolsearch_mcp::oauth`). A running gateway
//! picks a login or a logout up without a restart.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use clap::Subcommand;
use toolsearch_mcp::config::Config;
use toolsearch_mcp::oauth;

use crate::common::print_json;
use crate::gateway::config_file;

#[derive(Subcommand)]
pub enum Command {
    /// Log in to a configured HTTP server: discover its authorization server,
    /// register, open the authorization URL (printed, and opened in a browser
    /// where one exists) and store the tokens the loopback redirect brings.
    Login {
        /// The server's name in the configuration.
        server: String,
        /// The login is this profile's (the server entry's `oauth.login` names it).
        #[arg(long)]
        profile: Option<String>,
        /// A scope to ask for beside the configured ones (repeat for several;
        /// what a 403 `insufficient_scope` names).
        #[arg(long = "scope", value_name = "SCOPE")]
        scopes: Vec<String>,
        /// Open no browser (a remote shell): open the printed URL anywhere, and
        /// paste here the address the browser was sent to if it cannot reach
        /// this machine's loopback.
        #[arg(long)]
        no_browser: bool,
        /// How long to wait for the redirect, in seconds.
        #[arg(long, default_value_t = 300)]
        timeout: u64,
        /// The configuration file (default: the gateway's, see `gateway --config`).
        #[arg(long, env = "TOOLSEARCH_CONFIG")]
        config: Option<PathBuf>,
    },
    /// Each OAuth server's login: logged in (until when, which scopes, for which
    /// profiles) or why it needs one, and the command. Never a token.
    Status {
        /// The configuration file (default: the gateway's).
        #[arg(long, env = "TOOLSEARCH_CONFIG")]
        config: Option<PathBuf>,
    },
    /// Revoke a server's login where its authorization server offers revocation
    /// (RFC 7009), and delete it.
    Logout {
        /// The server's name in the configuration.
        server: String,
        /// The login is this profile's.
        #[arg(long)]
        profile: Option<String>,
        /// The configuration file (default: the gateway's).
        #[arg(long, env = "TOOLSEARCH_CONFIG")]
        config: Option<PathBuf>,
    },
}

fn server<'a>(cfg: &'a Config, name: &str) -> Result<&'a toolsearch_mcp::config::ServerConfig> {
    cfg.servers
        .iter()
        .find(|s| s.name() == name)
        .ok_or_else(|| {
            let known: Vec<&str> = cfg
                .servers
                .iter()
                .filter(|s| s.oauth.is_some())
                .map(|s| s.name())
                .collect();
            anyhow::anyhow!(
                "no server `{name}` in the configuration (servers with `oauth`: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            )
        })
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    toolsearch_mcp::http_client::install_tls_provider();
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?)
}

pub fn run(cmd: Command) -> Result<ExitCode> {
    match cmd {
        Command::Login {
            server: name,
            profile,
            scopes,
            no_browser,
            timeout,
            config,
        } => {
            let cfg = Config::load(&config_file(config)?)?;
            let s = server(&cfg, &name)?;
            let opts = oauth::LoginOptions {
                profile,
                scopes,
                browser: !no_browser,
                paste: no_browser,
                timeout: Duration::from_secs(timeout.max(1)),
                tell: Box::new(move |line: &str| {
                    if line.starts_with("http") {
                        eprintln!("Open this URL to log in:\n\n  {line}\n");
                        if no_browser {
                            eprintln!("Waiting for the redirect. If the browser cannot reach this machine, paste here the address it ended on.");
                        }
                    } else {
                        eprintln!("{line}");
                    }
                }),
            };
            let done = runtime()?.block_on(oauth::login(s, opts))?;
            let expires = done
                .expires_at
                .map(|t| {
                    format!(
                        ", the access token expires in {} s",
                        t.saturating_sub(oauth::record::now_secs())
                    )
                })
                .unwrap_or_default();
            eprintln!(
                "Logged in to `{name}` (scopes: {}{expires}). A running gateway uses it now.",
                if done.scopes.is_empty() {
                    "as granted".to_string()
                } else {
                    done.scopes.join(" ")
                }
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Status { config } => {
            let cfg = Config::load(&config_file(config)?)?;
            let all = oauth::status(&cfg);
            let needs = all.iter().any(|s| s.state == "needs-login");
            print_json(serde_json::json!({ "servers": all }))?;
            Ok(if needs {
                ExitCode::from(3)
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Logout {
            server: name,
            profile,
            config,
        } => {
            let cfg = Config::load(&config_file(config)?)?;
            let s = server(&cfg, &name)?;
            let said = runtime()?.block_on(oauth::logout(s, profile.as_deref()))?;
            eprintln!("{said}");
            Ok(ExitCode::SUCCESS)
        }
    }
}
