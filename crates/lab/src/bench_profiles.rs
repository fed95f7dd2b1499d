//! `toolsearch-lab bench-profiles`: what client profiles cost a gateway. Each
//! profile has its own catalog (the part of the snapshot it sees), so every
//! snapshot is indexed once for the whole fleet and once per profile. This
//! measures, on a real catalog, the time of one snapshot's rebuild and the
//! memory held, for the gateway without profiles (the baseline, in the same
//! run) and with N profiles each seeing 1/N of the servers (plus `default`,
//! which sees them all and shares the fleet's catalog), and a search's time
//! in one profile against the whole catalog.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use serde_json::json;
use toolsearch::{Mode, Settings, ToolSearch};
use toolsearch_catalog::{Catalog, SearchOptions, Tool};

use crate::eval::harness::percentile;
use toolsearch_cli::common::{load_catalog, print_json};

#[derive(clap::Args)]
pub struct Args {
    /// The catalog (JSON Lines or JSON), e.g. ../shared/data/scale/catalog_all.jsonl.
    #[arg(long)]
    catalog: PathBuf,
    /// Profile counts to compare with none (comma-separated).
    #[arg(long, default_value = "2,4,8")]
    profiles: String,
    /// Rebuilds measured per count.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Measure one count in this process (each count runs in a fresh process
    /// of its own, so that one's freed memory does not hide the next's).
    #[arg(long, hide = true)]
    only: Option<usize>,
}

const QUERIES: &[&str] = &[
    "create an issue",
    "send an email",
    "list files in a directory",
    "weather forecast",
    "query a database",
    "translate text",
];

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// The tools of every `n`-th server starting at `i` (servers in name order).
fn part(tools: &[Tool], servers: &[String], n: usize, i: usize) -> Result<Catalog> {
    let mine: std::collections::HashSet<&str> = servers
        .iter()
        .skip(i)
        .step_by(n)
        .map(String::as_str)
        .collect();
    let picked: Vec<Tool> = tools
        .iter()
        .filter(|t| t.server.as_deref().is_some_and(|s| mine.contains(s)))
        .cloned()
        .collect();
    Catalog::new(picked).context("a part of a valid catalog")
}

fn facade(catalog: Catalog) -> Result<Arc<ToolSearch>> {
    let settings = Settings {
        mode: Mode::Tools,
        ..Settings::default()
    };
    Ok(Arc::new(
        ToolSearch::builder()
            .settings(settings)
            .catalog(catalog)
            .build()?,
    ))
}

pub fn run(a: Args) -> Result<ExitCode> {
    if let Some(n) = a.only {
        print_json(measure(&a, n)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let counts: Vec<usize> = std::iter::once(Ok(0))
        .chain(a.profiles.split(',').map(|n| n.trim().parse::<usize>()))
        .collect::<Result<_, _>>()
        .context("--profiles: numbers separated by commas")?;
    let me = std::env::current_exe()?;
    let mut rows: Vec<serde_json::Value> = Vec::new();
    for n in counts {
        let out = std::process::Command::new(&me)
            .arg("bench-profiles")
            .arg("--catalog")
            .arg(&a.catalog)
            .args(["--rounds", &a.rounds.to_string(), "--only", &n.to_string()])
            .stderr(std::process::Stdio::null())
            .output()?;
        anyhow::ensure!(out.status.success(), "measuring {n} profiles failed");
        rows.push(serde_json::from_slice(&out.stdout)?);
    }
    let base = rows[0].clone();
    let ratio = |row: &serde_json::Value, key: &str| {
        let (x, b) = (
            row[key].as_f64().unwrap_or(0.0),
            base[key].as_f64().unwrap_or(1.0),
        );
        (x / b.max(1e-9) * 100.0).round() / 100.0
    };
    for row in &mut rows {
        row["rebuild_ratio_vs_none"] = json!(ratio(row, "rebuild_ms_p50"));
        row["held_ratio_vs_none"] = json!(ratio(row, "held_mib"));
    }
    print_json(json!({
        "catalog_tools": base["catalog_tools"],
        "servers": base["servers"],
        "build": if cfg!(debug_assertions) { "dev" } else { "release" },
        "what": "one snapshot's rebuild (the fleet's catalog, then each profile's part) and the memory the facades hold, each count in a fresh process; 0 profiles is the gateway without [[profiles]]",
        "rows": rows,
    }))?;
    Ok(ExitCode::SUCCESS)
}

/// The figures of a gateway with `n` profiles.
fn measure(a: &Args, n: usize) -> Result<serde_json::Value> {
    let loaded = load_catalog(Some(&a.catalog), false)?;
    let tools = loaded.catalog.tools().to_vec();
    let mut servers: Vec<String> = tools.iter().filter_map(|t| t.server.clone()).collect();
    servers.sort();
    servers.dedup();
    anyhow::ensure!(
        servers.len() >= 8,
        "the catalog needs tools of at least 8 servers"
    );
    {
        let before = rss_kib();
        // The facades a gateway holds: `default` over the fleet's catalog, and
        // one per profile over its part.
        let full = Catalog::new(tools.clone())?;
        let default = facade(full.clone())?;
        let parts: Vec<Arc<ToolSearch>> = (0..n)
            .map(|i| facade(part(&tools, &servers, n, i)?))
            .collect::<Result<_>>()?;
        let held_mib = rss_kib().saturating_sub(before) as f64 / 1024.0;
        // One snapshot's rebuild, as the gateway's follower does it.
        let mut ms = Vec::new();
        for _ in 0..a.rounds.max(1) {
            let t0 = Instant::now();
            let full = Catalog::new(tools.clone())?;
            for (i, p) in parts.iter().enumerate() {
                p.set_catalog(part(&tools, &servers, n, i)?);
            }
            default.set_catalog(full);
            ms.push(t0.elapsed().as_secs_f64() * 1e3);
        }
        ms.sort_by(f64::total_cmp);
        let rebuild = percentile(&ms, 0.5);
        // A search in the first profile (the whole catalog without profiles).
        let searched = parts.first().unwrap_or(&default);
        let catalog = searched.host().catalog();
        let mut us = Vec::new();
        for _ in 0..20 {
            for q in QUERIES {
                let t0 = Instant::now();
                let _ = catalog.search(q, &SearchOptions::default());
                us.push(t0.elapsed().as_secs_f64() * 1e6);
            }
        }
        us.sort_by(f64::total_cmp);
        Ok(json!({
            "profiles": n,
            "catalog_tools": tools.len(),
            "servers": servers.len(),
            "tools_in_first_profile": catalog.len(),
            "rebuild_ms_p50": (rebuild * 10.0).round() / 10.0,
            "held_mib": (held_mib * 10.0).round() / 10.0,
            "search_p50_us": (percentile(&us, 0.5)).round(),
        }))
    }
}
