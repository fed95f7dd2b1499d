//! `toolsearch-lab bench-lazy`: a gateway in front of many slow stdio servers
//! (each waits before it answers `initialize`), `lazy = false` against
//! `lazy = true` with manifests present, in the same run: time to the first
//! `tools/list` answer, time to the first call of a cold server, and the
//! gateway's memory and process count with every server running against the
//! lazy servers stopped after `idle_stop_ms`. Each gateway is stopped at the
//! end and the process table is searched for anything it left behind.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::{json, Value};

use crate::bench_os::{descendants, pss_kib_tree};
use crate::eval::harness::{percentile, round3};
use toolsearch_cli::common::print_json;

#[derive(clap::Args)]
pub struct Args {
    /// Servers behind the gateway.
    #[arg(long, default_value_t = 20)]
    servers: usize,
    /// Milliseconds each takes to answer `initialize`.
    #[arg(long, default_value_t = 3000)]
    start_delay_ms: u64,
    /// `idle_stop_ms` of the lazy gateway.
    #[arg(long, default_value_t = 2000)]
    idle_stop_ms: u64,
    /// Gateways started per side (eager and lazy alternate).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// The gateway's mode: `code` (the default; searches and calls go through
    /// `tool_search_code`) or `tools` (`tool_search` and `tool_call`).
    #[arg(long, default_value = "code")]
    mode: String,
    /// Lexical search only (by default the gateway fuses the embedding model
    /// when one is installed, as a user's does).
    #[arg(long)]
    lexical: bool,
}

/// What one gateway showed.
struct Run {
    first_list_ms: f64,
    tools_listed: bool,
    cold_call_ms: f64,
    /// Processes of the gateway's tree (itself included) and their PSS, KiB.
    processes: usize,
    pss_kib: u64,
    /// The gateway process's own resident memory, KiB.
    rss_kib: u64,
    orphans: usize,
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Processes anywhere whose command line holds `tag`.
fn tagged(tag: &str) -> usize {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    dir.flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|s| s.parse::<u32>().is_ok())
        })
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|c| String::from_utf8_lossy(c).contains(tag))
        .count()
}

fn config(a: &Args, dir: &Path, lazy: bool, tag: &str) -> Result<PathBuf> {
    let me = std::env::current_exe().context("locating this executable")?;
    let mut text = format!(
        "mode = {:?}\nactivation = \"always\"\n{}lazy = {lazy}\n\
         manifest_dir = {:?}\n[limits]\nidle_stop_ms = {}\n\n",
        a.mode,
        if a.lexical { "semantic = false\n" } else { "" },
        dir.join("manifests").display().to_string(),
        a.idle_stop_ms
    );
    for i in 0..a.servers {
        let args = [
            "slow-server".to_string(),
            "--delay-ms".into(),
            a.start_delay_ms.to_string(),
            "--prefix".into(),
            format!("s{i:02}"),
            "--tag".into(),
            tag.to_string(),
        ];
        text.push_str(&format!(
            "[[servers]]\nname = \"s{i:02}\"\ncommand = {:?}\nargs = {args:?}\n\n",
            me.display().to_string()
        ));
    }
    let path = dir.join(if lazy { "lazy.toml" } else { "eager.toml" });
    std::fs::write(&path, text)?;
    Ok(path)
}

async fn one(a: &Args, cfg: &Path, lazy: bool, tag: &str) -> Result<Run> {
    let mut cmd = tokio::process::Command::new(crate::toolsearch_exe()?);
    cmd.args(["gateway", "--config"]).arg(cfg);
    let t0 = Instant::now();
    let transport = TokioChildProcess::new(cmd)?;
    let pid = transport.id().context("the gateway's pid")?;
    let gw = ().serve(transport).await?;
    let listed = gw.peer().list_all_tools().await?;
    let first_list_ms = t0.elapsed().as_secs_f64() * 1e3;
    // Is the last server's tool found at once (served from its manifest, or
    // listed by a running server)?
    let last = format!("s{:02}_tool_0", a.servers - 1);
    let code = a.mode == "code";
    let request = |tool: &str, args: Value| {
        CallToolRequestParams::new(tool.to_string())
            .with_arguments(args.as_object().cloned().unwrap_or_default())
    };
    let search = |q: &str| {
        if code {
            request(
                "tool_search_code",
                json!({"code": format!("return await openclaw.tools.search({q:?})")}),
            )
        } else {
            request("tool_search", json!({"query": q}))
        }
    };
    let found = gw.peer().call_tool(search(&last)).await?;
    let entry = if code {
        "tool_search_code"
    } else {
        "tool_search"
    };
    let tools_listed = listed.iter().any(|t| t.name == entry)
        && serde_json::to_string(&found.content)?.contains(&last);
    // Without manifests, the servers' tools come when they answer.
    let end = Instant::now() + Duration::from_secs(60);
    while !serde_json::to_string(&gw.peer().call_tool(search("s07_tool_1")).await?.content)?
        .contains("mcp:s07:s07_tool_1")
    {
        if Instant::now() > end {
            bail!("the servers' tools were not listed within 60 s");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let call = |id: String| {
        if code {
            request(
                "tool_search_code",
                json!({"code": format!("return await openclaw.tools.call({id:?}, {{message: \"hi\"}})")}),
            )
        } else {
            request(
                "tool_call",
                json!({"id": id, "arguments": {"message": "hi"}}),
            )
        }
    };
    let t1 = Instant::now();
    let r = gw
        .peer()
        .call_tool(call("mcp:s07:s07_tool_1".to_string()))
        .await?;
    let cold_call_ms = t1.elapsed().as_secs_f64() * 1e3;
    if r.is_error == Some(true) {
        bail!("the call failed: {:?}", r.content);
    }
    if lazy {
        // Every lazy server idle past `idle_stop_ms` (and its process gone).
        tokio::time::sleep(Duration::from_millis(a.idle_stop_ms + 2_500)).await;
    } else {
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let processes = descendants(pid).len() + 1;
    let pss_kib = pss_kib_tree(pid)?;
    let rss_kib = rss_kib(pid);
    let _ = gw.cancel().await;
    // The gateway has stopped when its pid is gone (the client waits for it).
    let end = Instant::now() + Duration::from_secs(10);
    while Path::new(&format!("/proc/{pid}")).exists() && Instant::now() < end {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    Ok(Run {
        first_list_ms,
        tools_listed,
        cold_call_ms,
        processes,
        pss_kib,
        rss_kib,
        orphans: tagged(tag),
    })
}

fn summary(runs: &[Run]) -> Value {
    let median = |f: &dyn Fn(&Run) -> f64| {
        let mut v: Vec<f64> = runs.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        round3(percentile(&v, 0.5))
    };
    json!({
        "first_list_ms": median(&|r| r.first_list_ms),
        "first_list_ms_each": runs.iter().map(|r| round3(r.first_list_ms)).collect::<Vec<_>>(),
        "tools_searchable_at_first_list": runs.iter().all(|r| r.tools_listed),
        "cold_server_first_call_ms": median(&|r| r.cold_call_ms),
        "processes": median(&|r| r.processes as f64),
        "tree_pss_mib": round3(median(&|r| r.pss_kib as f64) / 1024.0),
        "gateway_rss_mib": round3(median(&|r| r.rss_kib as f64) / 1024.0),
        "orphans_after_stop": runs.iter().map(|r| r.orphans).sum::<usize>(),
    })
}

pub fn run(a: Args) -> Result<ExitCode> {
    if a.servers < 8 {
        bail!("--servers must be at least 8 (the cold call goes to s07)");
    }
    if a.mode != "code" && a.mode != "tools" {
        bail!("--mode must be `code` or `tools`");
    }
    let tag = format!("toolsearch-bench-lazy-{}", std::process::id());
    let dir = std::env::temp_dir().join(&tag);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let eager = config(&a, &dir, false, &tag)?;
    let lazy = config(&a, &dir, true, &tag)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let report = rt.block_on(async {
        // A first lazy gateway writes the manifests (no manifest: every server
        // starts at once, in the background).
        let warm = one(&a, &lazy, true, &tag).await?;
        let manifests = std::fs::read_dir(dir.join("manifests"))?.count();
        if manifests != a.servers {
            bail!("{manifests} manifests written for {} servers", a.servers);
        }
        let (mut e, mut l) = (Vec::new(), Vec::new());
        for _ in 0..a.runs {
            e.push(one(&a, &eager, false, &tag).await?);
            l.push(one(&a, &lazy, true, &tag).await?);
        }
        let (es, ls) = (summary(&e), summary(&l));
        let ratio = |k: &str| {
            let (x, y) = (es[k].as_f64().unwrap_or(0.0), ls[k].as_f64().unwrap_or(0.0));
            if y > 0.0 { round3(x / y) } else { 0.0 }
        };
        anyhow::Ok(json!({
            "what": "a gateway in front of slow stdio servers; lazy=false against lazy=true with manifests present, same run",
            "mode": a.mode,
            "semantic": if a.lexical { "off" } else { "as installed" },
            "servers": a.servers,
            "start_delay_ms": a.start_delay_ms,
            "idle_stop_ms": a.idle_stop_ms,
            "runs_per_side": a.runs,
            "lazy_without_manifests_first_list_ms": round3(warm.first_list_ms),
            "eager": es,
            "lazy": ls,
            "first_list_eager_over_lazy": ratio("first_list_ms"),
            "processes_running_over_idle": ratio("processes"),
            "tree_pss_running_over_idle": ratio("tree_pss_mib"),
            "gateway_rss_running_over_idle": ratio("gateway_rss_mib"),
        }))
    })?;
    rt.shutdown_timeout(Duration::from_secs(1));
    let _ = std::fs::remove_dir_all(&dir);
    print_json(report)?;
    Ok(ExitCode::SUCCESS)
}
