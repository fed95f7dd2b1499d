//! Sandbox figures for `toolsearch bench`: latency of a search → describe → call
//! snippet with a warm pool and cold, and throughput of fresh-runtime executions,
//! each with and without the startup snapshot (the baseline: a cold deno_core
//! bootstrap per runtime) in the same run.

use crate::eval::harness::{percentile, round3};
use anyhow::{ensure, Result};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolsearch::{CallContext, CatalogBridge, EchoDispatcher, Policy};
use toolsearch_catalog::Catalog;
use toolsearch_sandbox::{Bridge, Isolation, Pool, PoolConfig, WorkerCommand};

pub const SNIPPET: &str = r#"
const hits = await openclaw.tools.search("open a github issue", {limit: 3});
const tool = await openclaw.tools.describe(hits[0].id);
return await openclaw.tools.call(tool.id, {owner: "acme", repo: "app", title: "Crash on start"});
"#;

fn pool(workers: usize, prewarm: bool, snapshot: bool) -> Result<Pool> {
    Ok(Pool::new(PoolConfig {
        workers,
        queue: 4096,
        prewarm,
        snapshot,
        ..PoolConfig::default()
    })?)
}

/// Sequential latency in ms; with `pause`, waits between requests so the worker
/// can pre-warm the next isolate (a warm pool).
fn latency(
    rt: &tokio::runtime::Runtime,
    pool: &Pool,
    bridge: &Arc<dyn Bridge>,
    n: usize,
    pause: Duration,
) -> Result<(Value, f64)> {
    let mut ms = Vec::with_capacity(n);
    let mut startup = Vec::with_capacity(n);
    for _ in 0..n {
        std::thread::sleep(pause);
        let t = Instant::now();
        let r = rt.block_on(pool.execute(SNIPPET, bridge.clone()));
        ms.push(t.elapsed().as_secs_f64() * 1e3);
        ensure!(r.ok, "benchmark snippet failed: {:?}", r.error);
        startup.push(r.stats.startup_us as f64 / 1e3);
    }
    ms.sort_by(f64::total_cmp);
    startup.sort_by(f64::total_cmp);
    let p50 = percentile(&ms, 0.5);
    Ok((
        json!({"runs": n, "p50_ms": round3(p50), "p95_ms": round3(percentile(&ms, 0.95)), "runtime_creation_p50_ms": round3(percentile(&startup, 0.5))}),
        p50,
    ))
}

/// Fresh-runtime executions per second with every worker busy.
fn throughput(
    rt: &tokio::runtime::Runtime,
    pool: &Pool,
    bridge: &Arc<dyn Bridge>,
    n: usize,
) -> Result<f64> {
    let t = Instant::now();
    let results = rt.block_on(async {
        let mut tasks = Vec::with_capacity(n);
        for _ in 0..n {
            let (pool, bridge) = (pool.clone(), bridge.clone());
            tasks.push(tokio::spawn(
                async move { pool.execute(SNIPPET, bridge).await },
            ));
        }
        let mut out = Vec::with_capacity(n);
        for task in tasks {
            out.push(task.await);
        }
        out
    });
    let secs = t.elapsed().as_secs_f64();
    for r in results {
        let r = r?;
        ensure!(r.ok, "benchmark snippet failed: {:?}", r.error);
    }
    Ok(n as f64 / secs)
}

/// [`throughput`] of a pool with every worker busy, after a warm-up round.
fn busy_throughput(
    rt: &tokio::runtime::Runtime,
    pool: &Pool,
    bridge: &Arc<dyn Bridge>,
    runs: usize,
) -> Result<f64> {
    throughput(rt, pool, bridge, 50)?;
    throughput(rt, pool, bridge, runs.max(100) * 2)
}

pub fn run(runs: usize) -> Result<Value> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let bridge: Arc<dyn Bridge> = Arc::new(CatalogBridge::new(
        Catalog::demo(),
        Arc::new(Policy::default()),
        Arc::new(EchoDispatcher),
        CallContext::default(),
    ));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()?;
    let mut out = json!({"engine": Pool::engine_name(), "cores": cores, "snippet": "search -> describe -> call (demo catalog, echo dispatcher)"});
    for (label, snapshot) in [("snapshot", true), ("no_snapshot_baseline", false)] {
        let warm_pool = pool(1, true, snapshot)?;
        let (warm, warm_p50) = latency(&rt, &warm_pool, &bridge, runs, Duration::from_millis(40))?;
        drop(warm_pool);
        let cold_pool = pool(1, false, snapshot)?;
        // Cold: an idle worker with no pre-warmed runtime. The pause lets it finish
        // dropping the previous isolate (after its reply), which back-to-back
        // requests would otherwise queue behind.
        let (cold, _) = latency(&rt, &cold_pool, &bridge, runs, Duration::from_millis(5))?;
        // The same with no pause: each request also waits for the previous
        // isolate's teardown.
        let (back_to_back, _) = latency(&rt, &cold_pool, &bridge, runs, Duration::ZERO)?;
        drop(cold_pool);
        let per_sec = busy_throughput(&rt, &pool(cores, true, snapshot)?, &bridge, runs)?;
        out[label] = json!({"warm": warm, "cold": cold, "cold_back_to_back": back_to_back, "throughput_per_s": round3(per_sec), "warm_p50_ms": round3(warm_p50)});
    }
    // Worker processes that fork a copy of one template isolate per job (the
    // runtime is created once per process, not per snippet).
    let command = WorkerCommand {
        program: std::env::current_exe()?,
        args: vec!["sandbox-worker".into()],
    };
    // The same with the OS layer (seccomp, rlimits) on and off, in this run.
    let forking = |workers: usize, harden: bool| -> Result<Pool> {
        let pool = Pool::new(PoolConfig {
            workers,
            queue: 4096,
            isolation: Isolation::Process(command.clone()),
            harden,
            ..PoolConfig::default()
        })?;
        pool.probe()?;
        Ok(pool)
    };
    let mut per_sec = 0.0;
    for (label, harden) in [
        ("process_fork_per_job", true),
        ("process_fork_per_job_os_layer_off", false),
    ] {
        let one = forking(1, harden)?;
        let (warm, warm_p50) = latency(&rt, &one, &bridge, runs, Duration::from_millis(5))?;
        drop(one);
        let throughput = busy_throughput(&rt, &forking(cores, harden)?, &bridge, runs)?;
        if harden {
            per_sec = throughput;
        }
        out[label] = json!({"latency": warm, "latency_p50_ms": round3(warm_p50), "throughput_per_s": round3(throughput)});
    }
    let off = out["process_fork_per_job_os_layer_off"]["throughput_per_s"]
        .as_f64()
        .unwrap_or(0.0);
    out["os_layer_throughput_ratio_on_vs_off"] = json!(round3(per_sec / off.max(1e-9)));
    let base = out["no_snapshot_baseline"]["throughput_per_s"]
        .as_f64()
        .unwrap_or(0.0);
    let ours = out["snapshot"]["throughput_per_s"].as_f64().unwrap_or(0.0);
    out["throughput_ratio_vs_baseline"] = json!(round3(ours / base.max(1e-9)));
    out["process_fork_throughput_ratio_vs_baseline"] = json!(round3(per_sec / base.max(1e-9)));
    let base_cold = out["no_snapshot_baseline"]["cold"]["p50_ms"]
        .as_f64()
        .unwrap_or(0.0);
    let ours_cold = out["snapshot"]["cold"]["p50_ms"].as_f64().unwrap_or(0.0);
    out["cold_p50_ratio_vs_baseline"] = json!(round3(base_cold / ours_cold.max(1e-9)));
    Ok(out)
}
