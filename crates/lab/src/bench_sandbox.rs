//! Sandbox figures for `toolsearch-lab bench`, for one search → describe → call
//! snippet: latency of the in-process pool (warm after several pauses, cold, with
//! and without the startup snapshot) and of forking worker processes (OS layer on
//! and off), throughput at 1, 8 and 64 callers, memory over many jobs, idle CPU,
//! and the same snippet through the Node subprocess baseline (`bench_node.rs`).

use crate::eval::harness::{percentile, round3};
use anyhow::{ensure, Result};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolsearch::{CallContext, CatalogBridge, EchoDispatcher, Policy};
use toolsearch_catalog::Catalog;
use toolsearch_cli::common::SNIPPET;
use toolsearch_sandbox::{Bridge, Isolation, Pool, PoolConfig, WorkerCommand};

/// Pauses between sequential requests for the warm figures: back to back, a busy
/// client, the bench's historical 40 ms, and traffic seconds apart.
const PAUSES_MS: [u64; 4] = [0, 15, 40, 1000];

fn pool(workers: usize, prewarm: bool, snapshot: bool) -> Result<Pool> {
    Ok(Pool::new(PoolConfig {
        workers,
        queue: 4096,
        prewarm,
        snapshot,
        ..PoolConfig::default()
    })?)
}

/// What one sequential latency run measured (every sample kept for the plot).
struct Latency {
    /// Sorted milliseconds, request to answer.
    ms: Vec<f64>,
    figures: Value,
}

/// Sequential latency in ms; with `pause`, waits between requests so the worker
/// can pre-warm the next isolate (a warm pool).
fn latency(
    rt: &tokio::runtime::Runtime,
    pool: &Pool,
    bridge: &Arc<dyn Bridge>,
    n: usize,
    pause: Duration,
) -> Result<Latency> {
    let mut ms = Vec::with_capacity(n);
    let (mut startup, mut run_ms, mut queue_ms) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..n {
        std::thread::sleep(pause);
        let t = Instant::now();
        let r = rt.block_on(pool.execute(SNIPPET, bridge.clone()));
        ms.push(t.elapsed().as_secs_f64() * 1e3);
        ensure!(r.ok, "benchmark snippet failed: {:?}", r.error);
        startup.push(r.stats.startup_us as f64 / 1e3);
        run_ms.push(r.stats.run_us as f64 / 1e3);
        queue_ms.push(r.stats.queue_us as f64 / 1e3);
    }
    for v in [&mut ms, &mut startup, &mut run_ms, &mut queue_ms] {
        v.sort_by(f64::total_cmp);
    }
    let figures = json!({
        "runs": n,
        "pause_ms": pause.as_millis() as u64,
        "p50_ms": round3(percentile(&ms, 0.5)),
        "p95_ms": round3(percentile(&ms, 0.95)),
        "runtime_creation_p50_ms": round3(percentile(&startup, 0.5)),
        "run_p50_ms": round3(percentile(&run_ms, 0.5)),
        "queue_p50_ms": round3(percentile(&queue_ms, 0.5)),
    });
    Ok(Latency { ms, figures })
}

/// [`latency`] after each pause of [`PAUSES_MS`], by pause.
fn by_pause(
    rt: &tokio::runtime::Runtime,
    pool: &Pool,
    bridge: &Arc<dyn Bridge>,
    runs: usize,
) -> Result<Value> {
    let mut out = serde_json::Map::new();
    for pause_ms in PAUSES_MS {
        // Long pauses take few runs (20 s at most per pause).
        let n = runs.min((20_000 / pause_ms.max(1)) as usize).max(10);
        let fig = latency(rt, pool, bridge, n, Duration::from_millis(pause_ms))?;
        out.insert(format!("{pause_ms}ms"), fig.figures);
    }
    Ok(out.into())
}

/// Jobs per second and latency with `callers` concurrent callers, each sending
/// its next request as soon as the previous one is answered.
fn concurrent(
    rt: &tokio::runtime::Runtime,
    pool: &Pool,
    bridge: &Arc<dyn Bridge>,
    callers: usize,
    jobs: usize,
) -> Result<Value> {
    let per_caller = jobs.div_ceil(callers);
    let t = Instant::now();
    let results = rt.block_on(async {
        let mut tasks = Vec::with_capacity(callers);
        for _ in 0..callers {
            let (pool, bridge) = (pool.clone(), bridge.clone());
            tasks.push(tokio::spawn(async move {
                let mut out = Vec::with_capacity(per_caller);
                for _ in 0..per_caller {
                    let t = Instant::now();
                    let r = pool.execute(SNIPPET, bridge.clone()).await;
                    out.push((t.elapsed().as_secs_f64() * 1e3, r.ok, r.error));
                }
                out
            }));
        }
        let mut all = Vec::with_capacity(callers * per_caller);
        for task in tasks {
            all.extend(task.await?);
        }
        Ok::<_, tokio::task::JoinError>(all)
    })?;
    let secs = t.elapsed().as_secs_f64();
    let mut ms = Vec::with_capacity(results.len());
    for (elapsed, ok, error) in results {
        ensure!(ok, "benchmark snippet failed: {error:?}");
        ms.push(elapsed);
    }
    ms.sort_by(f64::total_cmp);
    Ok(json!({
        "callers": callers,
        "jobs": ms.len(),
        "per_s": round3(ms.len() as f64 / secs),
        "p50_ms": round3(percentile(&ms, 0.5)),
        "p95_ms": round3(percentile(&ms, 0.95)),
    }))
}

/// The concurrency table: 1, 8 and 64 callers against `pool`.
fn concurrency_table(
    rt: &tokio::runtime::Runtime,
    pool: &Pool,
    bridge: &Arc<dyn Bridge>,
    jobs: usize,
) -> Result<Value> {
    // Warm-up: every worker has run a job (processes started, pages touched).
    concurrent(rt, pool, bridge, 8, 64)?;
    let mut rows = Vec::new();
    for callers in CALLERS {
        rows.push(concurrent(
            rt,
            pool,
            bridge,
            callers,
            jobs.max(callers * 4),
        )?);
    }
    Ok(rows.into())
}

const CALLERS: [usize; 3] = [1, 8, 64];

/// Memory over `jobs` jobs (8 callers): PSS summed over this process and every
/// worker process below it, sampled every 100 jobs; the mean of the first
/// 1,000 jobs' samples against the last 1,000's.
fn memory(
    rt: &tokio::runtime::Runtime,
    pool: &Pool,
    bridge: &Arc<dyn Bridge>,
    jobs: usize,
) -> Result<Value> {
    const EVERY: usize = 100;
    let mut samples = Vec::new();
    let mut done = 0;
    while done < jobs {
        concurrent(rt, pool, bridge, 8, EVERY)?;
        done += EVERY;
        samples.push(crate::bench_os::pss_kib_tree(std::process::id())? as f64);
    }
    let window = (1000 / EVERY).min(samples.len());
    let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len().max(1) as f64;
    let first = mean(&samples[..window]);
    let last = mean(&samples[samples.len() - window..]);
    Ok(json!({
        "jobs": done,
        "pss_first_1000_jobs_mib": round3(first / 1024.0),
        "pss_last_1000_jobs_mib": round3(last / 1024.0),
        "pss_max_mib": round3(samples.iter().copied().fold(0.0, f64::max) / 1024.0),
        "last_vs_first": round3(last / first.max(1.0)),
        "growth_kib_per_job": round3((last - first) / (done.saturating_sub(1000)).max(1) as f64),
        "processes_measured": crate::bench_os::descendants(std::process::id()).len() + 1,
    }))
}

/// Runs `toolsearch-lab bench --memory-only <backend>` and reads its figures.
fn memory_in_child(backend: &str, jobs: usize) -> Result<Value> {
    let out = std::process::Command::new(std::env::current_exe()?)
        .args(["bench", "--memory-only", backend, "--memory-jobs"])
        .arg(jobs.to_string())
        .stderr(std::process::Stdio::inherit())
        .output()?;
    ensure!(
        out.status.success(),
        "the {backend} memory run failed: {}",
        out.status
    );
    let mut value: Value = serde_json::from_slice(&out.stdout)?;
    if let Some(map) = value.as_object_mut() {
        map.remove("schema_version");
    }
    Ok(value)
}

/// The cores, the bridge every snippet talks to (the demo catalog, an echo
/// dispatcher) and the callers' runtime.
fn setting() -> Result<(usize, Arc<dyn Bridge>, tokio::runtime::Runtime)> {
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
    Ok((cores, bridge, rt))
}

/// A pool of forking worker processes running the product's `toolsearch
/// sandbox-worker` (the `toolsearch` binary next to this one), as the gateway runs them.
fn forking(workers: usize, harden: bool) -> Result<Pool> {
    let pool = Pool::new(PoolConfig {
        workers,
        queue: 4096,
        isolation: Isolation::Process(WorkerCommand {
            program: crate::toolsearch_exe()?,
            args: vec!["sandbox-worker".into()],
        }),
        harden,
        ..PoolConfig::default()
    })?;
    pool.probe()?;
    Ok(pool)
}

/// `toolsearch-lab bench --memory-only threads|processes`: [`memory`] of one backend
/// (one worker per core) in this process.
pub fn memory_only(backend: &str, jobs: usize) -> Result<Value> {
    let (cores, bridge, rt) = setting()?;
    let pool = match backend {
        "threads" => pool(cores, true, true)?,
        "processes" => forking(cores, true)?,
        other => anyhow::bail!("--memory-only takes threads or processes, not {other:?}"),
    };
    memory(&rt, &pool, &bridge, jobs)
}

/// What `toolsearch-lab bench` asks of the sandbox figures.
pub struct Plan {
    /// Snippet runs per latency figure.
    pub runs: usize,
    /// Jobs of the memory run (per backend).
    pub memory_jobs: usize,
    /// Seconds the idle pools are watched for CPU use.
    pub idle_secs: u64,
}

/// The latency samples behind the plot, by name.
pub type Samples = Vec<(&'static str, Vec<f64>)>;

pub fn run(plan: &Plan) -> Result<(Value, Samples)> {
    let runs = plan.runs;
    let (cores, bridge, rt) = setting()?;
    let mut samples: Samples = Vec::new();
    let mut out = json!({
        "engine": Pool::engine_name(),
        "cores": cores,
        "snippet": "search -> describe -> call (demo catalog, echo dispatcher)",
        "default_backend": "forking worker processes (Isolation::Process, OS layer on): what the gateway, `exec`, `demo` and code mode run; the in-process thread pool (Isolation::Thread, the library's PoolConfig default) is for trusted code",
    });
    for (label, snapshot) in [("snapshot", true), ("no_snapshot_baseline", false)] {
        let warm_pool = pool(1, true, snapshot)?;
        let warm = latency(&rt, &warm_pool, &bridge, runs, Duration::from_millis(40))?;
        let by_pause = if snapshot {
            by_pause(&rt, &warm_pool, &bridge, runs)?
        } else {
            Value::Null
        };
        drop(warm_pool);
        let cold_pool = pool(1, false, snapshot)?;
        // Cold: an idle worker with no pre-warmed runtime. The pause lets it finish
        // dropping the previous isolate (after its reply), which back-to-back
        // requests would otherwise queue behind.
        let cold = latency(&rt, &cold_pool, &bridge, runs, Duration::from_millis(5))?;
        // The same with no pause: each request also waits for the previous
        // isolate's teardown.
        let back_to_back = latency(&rt, &cold_pool, &bridge, runs, Duration::ZERO)?;
        drop(cold_pool);
        let per_sec = busy_throughput(&rt, &pool(cores, true, snapshot)?, &bridge, runs)?;
        out[label] = json!({
            "warm": warm.figures,
            "warm_by_pause": by_pause,
            "cold": cold.figures,
            "cold_back_to_back": back_to_back.figures,
            "throughput_per_s": round3(per_sec),
            "warm_p50_ms": round3(percentile(&warm.ms, 0.5)),
        });
        if snapshot {
            samples.push(("in-process warm (40 ms pause)", warm.ms));
            samples.push(("in-process cold", cold.ms));
        }
    }
    // Worker processes that fork a copy of one template isolate per job (the
    // runtime is created once per process, not per snippet), with the OS layer
    // (seccomp, rlimits) on and off in this run.
    let mut per_sec = 0.0;
    for (label, harden) in [
        ("process_fork_per_job", true),
        ("process_fork_per_job_os_layer_off", false),
    ] {
        let one = forking(1, harden)?;
        let fork = latency(&rt, &one, &bridge, runs, Duration::from_millis(5))?;
        let by_pause = if harden {
            by_pause(&rt, &one, &bridge, runs)?
        } else {
            Value::Null
        };
        drop(one);
        let throughput = busy_throughput(&rt, &forking(cores, harden)?, &bridge, runs)?;
        out[label] = json!({
            "latency": fork.figures,
            "latency_by_pause": by_pause,
            "latency_p50_ms": round3(percentile(&fork.ms, 0.5)),
            "throughput_per_s": round3(throughput),
        });
        if harden {
            per_sec = throughput;
            samples.push(("forking process (default)", fork.ms));
        }
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

    // Concurrency, memory and idle cost of both backends.
    let threads = pool(cores, true, true)?;
    let processes = forking(cores, true)?;
    let jobs = (runs * 2).max(200);
    out["concurrency"] = json!({
        "thread_pool": concurrency_table(&rt, &threads, &bridge, jobs)?,
        "process_fork_per_job": concurrency_table(&rt, &processes, &bridge, jobs)?,
    });
    out["idle"] = crate::bench_os::idle_cpu(plan.idle_secs)?;
    drop((threads, processes));
    // Each backend's memory in a fresh process of its own: nothing this run did
    // before (other pools, other engines' state) counts against it.
    out["memory"] = json!({
        "what": "PSS summed over a fresh host process and every worker process below it, sampled every 100 jobs, 8 callers",
        "thread_pool": memory_in_child("threads", plan.memory_jobs)?,
        "process_fork_per_job": memory_in_child("processes", plan.memory_jobs)?,
    });

    out["node_baseline"] = match crate::bench_node::NodeBaseline::find() {
        Ok(node) => node_figures(&rt, &bridge, &node, runs, &out, &mut samples)?,
        Err(why) => {
            eprintln!("bench: the Node subprocess baseline is left out: {why}");
            json!({"skipped": why})
        }
    };
    Ok((out, samples))
}

/// The Node subprocess baseline's latency, its floor, and our ratios against it.
fn node_figures(
    rt: &tokio::runtime::Runtime,
    bridge: &Arc<dyn Bridge>,
    node: &crate::bench_node::NodeBaseline,
    runs: usize,
    ours: &Value,
    samples: &mut Samples,
) -> Result<Value> {
    let n = runs.min(100);
    let ms = node.latencies(rt, bridge, SNIPPET, n, Duration::from_millis(5))?;
    let mut floor = Vec::with_capacity(20);
    for _ in 0..20 {
        floor.push(node.floor_ms()?);
    }
    floor.sort_by(f64::total_cmp);
    let p50 = percentile(&ms, 0.5);
    let ratio = |ours: &Value| round3(p50 / ours.as_f64().unwrap_or(f64::NAN).max(1e-9));
    let figures = json!({
        "what": "one node child per snippet: permission model on, vm context with code generation from strings off, bridge as JSON lines over stdin/stdout",
        "script": "crates/lab/bench/node_subprocess_sandbox.js",
        "node_version": node.version,
        "flags": node.flags,
        "runs": n,
        "p50_ms": round3(p50),
        "p95_ms": round3(percentile(&ms, 0.95)),
        "floor_node_e_0_p50_ms": round3(percentile(&floor, 0.5)),
        "ratio_p50_node_over_warm": ratio(&ours["snapshot"]["warm"]["p50_ms"]),
        "ratio_p50_node_over_warm_after_1000ms": ratio(&ours["snapshot"]["warm_by_pause"]["1000ms"]["p50_ms"]),
        "ratio_p50_node_over_cold": ratio(&ours["snapshot"]["cold"]["p50_ms"]),
        "ratio_p50_node_over_fork": ratio(&ours["process_fork_per_job"]["latency"]["p50_ms"]),
    });
    samples.push(("Node subprocess baseline", ms));
    Ok(figures)
}

/// Fresh-runtime executions per second with every worker busy: `runs.max(100) * 2`
/// jobs sent at once (one caller each), after a warm-up round of 50.
fn busy_throughput(
    rt: &tokio::runtime::Runtime,
    pool: &Pool,
    bridge: &Arc<dyn Bridge>,
    runs: usize,
) -> Result<f64> {
    concurrent(rt, pool, bridge, 50, 50)?;
    let n = runs.max(100) * 2;
    let figures = concurrent(rt, pool, bridge, n, n)?;
    Ok(figures["per_s"].as_f64().unwrap_or(0.0))
}
