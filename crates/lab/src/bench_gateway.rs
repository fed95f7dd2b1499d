//! `toolsearch-lab bench-gateway`: the latency the gateway adds to a direct call of a
//! downstream tool, against calling that server directly, in the same run.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use crate::eval::harness::percentile;
use anyhow::{bail, Context, Result};
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::{json, Value};
use toolsearch_mcp::Config;

use toolsearch_cli::common::print_json;

/// The tool a gateway benchmark calls, and the configuration serving it
/// (`bench-gateway`, `bench-telemetry`).
#[derive(clap::Args)]
pub struct ToolArgs {
    /// The gateway configuration serving the tool (bench-gateway: the tool's
    /// server must be a stdio server in it).
    #[arg(long)]
    pub config: PathBuf,
    /// The tool to call: `mcp:<server>:<tool>`.
    #[arg(long, default_value = "mcp:everything:echo")]
    pub tool: String,
    /// Its arguments (JSON object).
    #[arg(long, default_value = r#"{"message": "hi"}"#)]
    pub args: String,
}

impl ToolArgs {
    /// `--args`, read.
    pub fn arguments(&self) -> Result<serde_json::Map<String, Value>> {
        let Value::Object(args) = serde_json::from_str(&self.args).context("--args is not JSON")?
        else {
            bail!("--args must be a JSON object");
        };
        Ok(args)
    }
}

/// One call, timed in milliseconds; a tool error is an error.
pub async fn timed_call(
    client: &RunningService<RoleClient, ()>,
    name: &str,
    args: &serde_json::Map<String, Value>,
) -> Result<f64> {
    let t0 = Instant::now();
    let r = client
        .peer()
        .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(args.clone()))
        .await
        .with_context(|| format!("calling {name}"))?;
    let took = t0.elapsed().as_secs_f64() * 1e3;
    if r.is_error == Some(true) {
        bail!("{name} answered an error: {:?}", r.content);
    }
    Ok(took)
}

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    call: ToolArgs,
    /// Calls per side.
    #[arg(long, default_value_t = 200)]
    runs: usize,
    /// Pause between calls, in milliseconds (real traffic is not back to back).
    #[arg(long, default_value_t = 20)]
    pause_ms: u64,
}

async fn measure(
    client: &RunningService<RoleClient, ()>,
    name: &str,
    args: &serde_json::Map<String, Value>,
    runs: usize,
    pause: Duration,
) -> Result<Vec<f64>> {
    let mut ms = Vec::with_capacity(runs);
    for i in 0..runs + 5 {
        tokio::time::sleep(pause).await;
        let took = timed_call(client, name, args).await?;
        // The first calls warm both sides up.
        if i >= 5 {
            ms.push(took);
        }
    }
    ms.sort_by(f64::total_cmp);
    Ok(ms)
}

pub fn run(a: Args) -> Result<ExitCode> {
    let cfg = Config::load(&a.call.config)?;
    let mut parts = a.call.tool.splitn(3, ':');
    let (Some("mcp"), Some(server), Some(tool)) = (parts.next(), parts.next(), parts.next()) else {
        bail!("--tool must be mcp:<server>:<tool>");
    };
    let Some(s) = cfg.servers.iter().find(|s| s.name() == server) else {
        bail!("no server `{server}` in the config");
    };
    let Some(command) = &s.command else {
        bail!("server `{server}` is not a stdio server");
    };
    let args = a.call.arguments()?;
    let pause = Duration::from_millis(a.pause_ms);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let report = rt.block_on(async {
        // Directly: the same server, started the same way.
        let mut direct_cmd = tokio::process::Command::new(command);
        direct_cmd.args(&s.args).envs(&s.env);
        if let Some(cwd) = &s.cwd {
            direct_cmd.current_dir(cwd);
        }
        let direct = ().serve(TokioChildProcess::new(direct_cmd)?).await?;
        let direct_ms = measure(&direct, tool, &args, a.runs, pause).await?;
        let _ = direct.cancel().await;

        // Through the gateway (the `toolsearch` binary next to this one) as a plain
        // aggregator, the tool sent directly.
        let gw_cfg =
            std::env::temp_dir().join(format!("toolsearch-bench-{}.toml", std::process::id()));
        let text = std::fs::read_to_string(&a.call.config)?;
        let text: String = text
            .lines()
            .filter(|l| {
                !l.trim_start().starts_with("activation")
                    && !l.trim_start().starts_with("tool_search =")
            })
            .collect::<Vec<_>>()
            .join("\n");
        std::fs::write(&gw_cfg, format!("activation = \"never\"\n{text}\n"))?;
        let mut gw_cmd = tokio::process::Command::new(crate::toolsearch_exe()?);
        gw_cmd.args(["gateway", "--config"]).arg(&gw_cfg);
        let gw = ().serve(TokioChildProcess::new(gw_cmd)?).await?;
        let tools = gw.peer().list_all_tools().await?;
        let Some(wire) = tools
            .iter()
            .map(|t| t.name.to_string())
            .find(|n| n == tool || n.ends_with(&format!("__{tool}")))
        else {
            bail!("the gateway does not serve `{tool}` directly");
        };
        let gw_ms = measure(&gw, &wire, &args, a.runs, pause).await?;
        let _ = gw.cancel().await;
        let _ = std::fs::remove_file(&gw_cfg);
        let (d50, d95) = (percentile(&direct_ms, 0.5), percentile(&direct_ms, 0.95));
        let (g50, g95) = (percentile(&gw_ms, 0.5), percentile(&gw_ms, 0.95));
        anyhow::Ok(json!({
            "tool": a.call.tool,
            "runs": a.runs,
            "pause_ms": a.pause_ms,
            "direct": {"p50_ms": d50, "p95_ms": d95},
            "through_gateway": {"p50_ms": g50, "p95_ms": g95},
            "added_p50_ms": g50 - d50,
            "added_p95_ms": g95 - d95,
            "ratio_p50": if d50 > 0.0 { g50 / d50 } else { 0.0 },
        }))
    })?;
    rt.shutdown_timeout(Duration::from_secs(1));
    print_json(report)?;
    Ok(ExitCode::SUCCESS)
}
