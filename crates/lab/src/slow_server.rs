//! `toolsearch-lab slow-server` (hidden): a stdio MCP server that waits before it
//! answers `initialize`, as servers that download or compile on start do. Its
//! tools are `<prefix>_tool_0` .. `<prefix>_tool_{n-1}`, each answering with its
//! arguments. The standard library and serde_json only: the benches run many.

use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use serde_json::{json, Value};

#[derive(clap::Args)]
pub struct Args {
    /// Milliseconds it waits before answering `initialize`.
    #[arg(long, default_value_t = 3000)]
    delay_ms: u64,
    /// Tools it lists.
    #[arg(long, default_value_t = 5)]
    tools: usize,
    /// The prefix of its tools' names.
    #[arg(long, default_value = "slow")]
    prefix: String,
    /// A word on its command line that finds it in the process table (the
    /// bench looks for orphans by it).
    #[arg(long, default_value = "")]
    tag: String,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(msg) = serde_json::from_str::<Value>(&line?) else {
            continue;
        };
        let Some(id) = msg.get("id").cloned() else {
            continue;
        };
        let result = match msg["method"].as_str().unwrap_or("") {
            "initialize" => {
                std::thread::sleep(Duration::from_millis(a.delay_ms));
                json!({
                    "protocolVersion": msg["params"]["protocolVersion"].as_str().unwrap_or("2025-11-25"),
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "slow-server", "version": "0"}
                })
            }
            "tools/list" => json!({"tools": (0..a.tools).map(|i| json!({
                "name": format!("{}_tool_{i}", a.prefix),
                "description": format!("Tool {i} of the {} server: answers with its arguments.", a.prefix),
                "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}}
            })).collect::<Vec<_>>()}),
            "tools/call" => {
                json!({"content": [{"type": "text", "text": msg["params"]["arguments"].to_string()}]})
            }
            _ => json!({}),
        };
        writeln!(
            out,
            "{}",
            json!({"jsonrpc": "2.0", "id": id, "result": result})
        )?;
        out.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}
