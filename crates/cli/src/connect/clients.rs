//! The six clients `toolsearch connect` knows: where each keeps its MCP servers,
//! in what shape, and which of its own commands change them. Sources (checked
//! with the clients' CLIs where they install from npm: claude-code 2.1.197,
//! gemini-cli 0.61.0, codex 0.171.0):
//!
//! - Claude Code: <https://code.claude.com/docs/en/mcp>. Local scope (the
//!   default of `claude mcp add`): `projects["/abs/dir"].mcpServers` of
//!   `~/.claude.json`, seen when Claude runs in that folder; user scope:
//!   `mcpServers` of `~/.claude.json` (`$CLAUDE_CONFIG_DIR/.claude.json`);
//!   project scope: `.mcp.json`. `claude mcp add-json NAME JSON -s SCOPE`,
//!   `claude mcp remove NAME -s SCOPE`. Expands `${VAR}`.
//! - Claude Desktop: <https://modelcontextprotocol.io/docs/develop/connect-local-servers>
//!   (`mcpServers` of `claude_desktop_config.json`; stdio only). Anthropic ships
//!   no Linux build: the Linux path is Electron's user data folder,
//!   `$XDG_CONFIG_HOME/Claude` (what Linux repackagings use). No CLI.
//! - Cursor: <https://cursor.com/docs/mcp>. `mcpServers` of `~/.cursor/mcp.json`
//!   and `.cursor/mcp.json`; `${env:NAME}` interpolation. No CLI.
//! - VS Code: <https://code.visualstudio.com/docs/copilot/reference/mcp-configuration>.
//!   `servers` (and `inputs`) of the user profile's `mcp.json`
//!   (`$VSCODE_APPDATA`, else `$XDG_CONFIG_HOME`, else `~/.config`, then
//!   `Code/User/mcp.json`) and `.vscode/mcp.json`; `"type": "stdio" | "http" |
//!   "sse"`; `${input:ID}` and `${env:NAME}`. `code --add-mcp JSON` adds to the
//!   user profile; nothing removes.
//! - Codex CLI: <https://github.com/openai/codex/blob/main/docs/config.md>.
//!   `[mcp_servers.NAME]` of `~/.codex/config.toml` (`$CODEX_HOME`) and
//!   `.codex/config.toml`; `env` is literal, `env_vars` and
//!   `bearer_token_env_var` read the environment. `codex mcp add NAME -- CMD
//!   ARGS`, `codex mcp remove NAME` (the user file only).
//! - Gemini CLI: <https://github.com/google-gemini/gemini-cli/blob/main/docs/tools/mcp-server.md>.
//!   `mcpServers` of `~/.gemini/settings.json` (`$GEMINI_CLI_HOME/.gemini`) and
//!   `.gemini/settings.json`; `$VAR` and `${VAR}` expansion; `url` + `type`,
//!   `httpUrl`, `oauth`. Its `gemini mcp add/remove` write every other server
//!   back with its `$VAR`s expanded (secrets on disk), so connect edits the file.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::{json, Value};

/// A client whose MCP servers `connect` can move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Client {
    ClaudeCode,
    ClaudeDesktop,
    Cursor,
    Vscode,
    Codex,
    Gemini,
}

/// How the client's file holds its servers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    /// A JSON object whose member at this path of keys maps names to entries.
    Json(Vec<String>),
    /// Codex's TOML: `[mcp_servers.NAME]`.
    CodexToml,
}

/// Which of a client's scopes a run reads and changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// The user's servers, seen everywhere.
    User,
    /// Claude Code's default scope: the user's servers for one folder only.
    Local(PathBuf),
    /// The servers of a project folder (a file in it, shared with its team).
    Project(PathBuf),
}

impl Scope {
    /// As reports and the clients' CLIs name it.
    pub fn name(&self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Local(_) => "local",
            Scope::Project(_) => "project",
        }
    }

    /// The folder it belongs to (none for the user's).
    pub fn dir(&self) -> Option<&Path> {
        match self {
            Scope::User => None,
            Scope::Local(d) | Scope::Project(d) => Some(d),
        }
    }
}

fn env_dir(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

fn home() -> Result<PathBuf> {
    env_dir("HOME").context("HOME is not set")
}

fn xdg_config() -> Result<PathBuf> {
    crate::common::config_home().context("neither XDG_CONFIG_HOME nor HOME is set")
}

impl Client {
    /// As the command line and reports name it.
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::ClaudeDesktop => "claude-desktop",
            Client::Cursor => "cursor",
            Client::Vscode => "vscode",
            Client::Codex => "codex",
            Client::Gemini => "gemini",
        }
    }

    /// Where in its file the servers of `scope` are.
    pub fn format(self, scope: &Scope) -> Format {
        match (self, scope) {
            (Client::Vscode, _) => Format::Json(vec!["servers".into()]),
            (Client::Codex, _) => Format::CodexToml,
            (_, Scope::Local(dir)) => Format::Json(vec![
                "projects".into(),
                dir.display().to_string(),
                "mcpServers".into(),
            ]),
            _ => Format::Json(vec!["mcpServers".into()]),
        }
    }

    /// The scopes a run without `--project` reads: Claude Code's user scope
    /// and the local scope of the folder it runs in; the user's for the others.
    pub fn scopes(self, cwd: &Path) -> Vec<Scope> {
        match self {
            Client::ClaudeCode => vec![Scope::User, Scope::Local(cwd.to_path_buf())],
            _ => vec![Scope::User],
        }
    }

    /// The file holding the servers of `scope`.
    pub fn file(self, scope: &Scope) -> Result<PathBuf> {
        if let Scope::Project(dir) = scope {
            return match self {
                Client::ClaudeCode => Ok(dir.join(".mcp.json")),
                Client::Cursor => Ok(dir.join(".cursor/mcp.json")),
                Client::Vscode => Ok(dir.join(".vscode/mcp.json")),
                Client::Codex => Ok(dir.join(".codex/config.toml")),
                Client::Gemini => Ok(dir.join(".gemini/settings.json")),
                Client::ClaudeDesktop => {
                    anyhow::bail!("Claude Desktop has no project scope; drop --project")
                }
            };
        }
        Ok(match self {
            Client::ClaudeCode => env_dir("CLAUDE_CONFIG_DIR")
                .unwrap_or(home()?)
                .join(".claude.json"),
            Client::ClaudeDesktop => xdg_config()?.join("Claude/claude_desktop_config.json"),
            Client::Cursor => home()?.join(".cursor/mcp.json"),
            Client::Vscode => env_dir("VSCODE_APPDATA")
                .map_or_else(xdg_config, Ok)?
                .join("Code/User/mcp.json"),
            Client::Codex => env_dir("CODEX_HOME")
                .unwrap_or(home()?.join(".codex"))
                .join("config.toml"),
            Client::Gemini => env_dir("GEMINI_CLI_HOME")
                .unwrap_or(home()?)
                .join(".gemini/settings.json"),
        })
    }

    /// The client's own command, when it has one that changes its servers.
    pub fn cli(self) -> Option<&'static str> {
        match self {
            Client::ClaudeCode => Some("claude"),
            Client::Codex => Some("codex"),
            Client::Vscode => Some("code"),
            _ => None,
        }
    }

    /// The toolsearch entry, in this client's shape.
    pub fn entry(self, exe: &Path, config: &Path) -> Value {
        let (command, args) = (
            exe.display().to_string(),
            json!(["gateway", "--config", config.display().to_string()]),
        );
        match self {
            Client::ClaudeCode | Client::Vscode => {
                json!({"type": "stdio", "command": command, "args": args})
            }
            _ => json!({"command": command, "args": args}),
        }
    }

    /// What the user does next to see it work.
    pub fn next_step(self) -> &'static str {
        match self {
            Client::ClaudeCode => "run `claude mcp list`: toolsearch should say Connected",
            Client::ClaudeDesktop => "restart Claude Desktop (it reads its config at start)",
            Client::Cursor => "open Cursor Settings > MCP: toolsearch should be listed and enabled",
            Client::Vscode => "run `MCP: List Servers` in VS Code and start toolsearch",
            Client::Codex => "run `codex mcp list`: toolsearch should be enabled",
            Client::Gemini => {
                "run `gemini mcp list` in a trusted folder: toolsearch should say Connected"
            }
        }
    }
}

/// One change to a client's servers.
#[derive(Debug, Clone)]
pub enum Op {
    Remove(String),
    Add(String, Value),
}

/// The client's command for `op`, when it has one that does it without loss and
/// it is on PATH; `None`: edit the file.
pub fn cli_command(
    client: Client,
    op: &Op,
    place: &Scope,
    undo: bool,
) -> Option<std::process::Command> {
    let program = find_on_path(client.cli()?)?;
    let mut c = std::process::Command::new(program);
    let project = place.dir();
    if let Some(dir) = project {
        c.current_dir(dir);
    }
    let scope = place.name();
    match (client, op) {
        (Client::ClaudeCode, Op::Remove(name)) => {
            c.args(["mcp", "remove", name, "-s", scope]);
        }
        (Client::ClaudeCode, Op::Add(name, entry)) => {
            c.args(["mcp", "add-json", name, &entry.to_string(), "-s", scope]);
        }
        // `codex mcp` changes the user file only. Its `add` of a remote server
        // may start an OAuth login and wait for it: re-added (undo) servers are
        // written to the file instead.
        (Client::Codex, _) if project.is_some() => return None,
        (Client::Codex, Op::Remove(name)) => {
            c.args(["mcp", "remove", name]);
        }
        (Client::Codex, Op::Add(name, entry)) if !undo => {
            c.args(["mcp", "add", name, "--"]);
            c.arg(entry["command"].as_str()?);
            for a in entry["args"].as_array()? {
                c.arg(a.as_str()?);
            }
        }
        (Client::Vscode, Op::Add(name, entry)) if project.is_none() && !undo => {
            let mut e = entry.clone();
            e["name"] = json!(name);
            c.args(["--add-mcp", &e.to_string()]);
        }
        _ => return None,
    }
    Some(c)
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}
