//! `toolsearch-lab bench-telemetry`: what metrics and traces add to a call's
//! latency. Gateways that differ only in `[telemetry]` run side by side
//! (counting off, twice: the second shows the run's noise; metrics; metrics
//! and traces kept at 1%; metrics and every trace), each exporting to a
//! receiver in this process; the calls go to them in turn, a pause apart, so
//! that load and drift fall on all alike. Each repetition starts them afresh
//! and gives each one's p50; the report gives the median over the
//! repetitions, and what each adds to the gateway that counts nothing.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::{json, Value};

use crate::bench_gateway::{timed_call, ToolArgs};
use crate::bench_os::cpu_ns;
use crate::eval::harness::percentile;
use toolsearch_cli::common::print_json;

#[derive(clap::Args)]
pub struct Args {
    /// The tool and the configuration serving it (its servers are used; its
    /// own `mode`, `activation` and `[telemetry]` are replaced).
    #[command(flatten)]
    call: ToolArgs,
    /// Calls per gateway and kind in each repetition.
    #[arg(long, default_value_t = 100)]
    runs: usize,
    /// Repetitions (the report takes their median).
    #[arg(long, default_value_t = 5)]
    repeats: usize,
    /// Pause before each call, in milliseconds (real traffic is not back to back).
    #[arg(long, default_value_t = 20)]
    pause_ms: u64,
}

/// The gateways compared: a name and their `[telemetry]`. The second is the
/// first again: what it "adds" is the noise floor of the run.
const VARIANTS: [(&str, &str); 5] = [
    ("off", "metrics = false"),
    ("off_again", "metrics = false"),
    ("metrics", "metrics = true"),
    (
        "metrics+traces_1pct",
        "metrics = true\nsample = 0.01\nENDPOINT",
    ),
    (
        "metrics+traces_all",
        "metrics = true\nsample = 1.0\nENDPOINT",
    ),
];

/// A stand-in collector: answers every POST with 200 and counts the bytes.
fn receiver(bytes: Arc<AtomicU64>) -> Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    std::thread::spawn(move || {
        for conn in listener.incoming().map_while(Result::ok) {
            let bytes = bytes.clone();
            std::thread::spawn(move || {
                let mut out = conn.try_clone().expect("a socket clones");
                let mut r = BufReader::new(conn);
                loop {
                    let mut len = 0usize;
                    loop {
                        let mut line = String::new();
                        if r.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        let l = line.to_ascii_lowercase();
                        if let Some(v) = l.strip_prefix("content-length:") {
                            len = v.trim().parse().unwrap_or(0);
                        }
                        if line == "\r\n" {
                            break;
                        }
                    }
                    let mut body = vec![0; len];
                    if r.read_exact(&mut body).is_err() {
                        return;
                    }
                    bytes.fetch_add(len as u64, Ordering::Relaxed);
                    let ok = "HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n";
                    if out.write_all(ok.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    Ok(port)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    percentile(&v, 0.5)
}

pub fn run(a: Args) -> Result<ExitCode> {
    let args = a.call.arguments()?;
    let text = std::fs::read_to_string(&a.call.config)?;
    if text.lines().any(|l| l.trim() == "[telemetry]") {
        bail!("the config has a [telemetry] table: this benchmark sets its own");
    }
    let kept: String = text
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            !["activation", "tool_search =", "mode ="]
                .iter()
                .any(|k| l.starts_with(k))
        })
        .collect::<Vec<_>>()
        .join("\n");
    let bytes = Arc::new(AtomicU64::new(0));
    let port = receiver(bytes.clone())?;
    let endpoint = format!("otlp_endpoint = \"http://127.0.0.1:{port}/v1/traces\"");
    let pause = Duration::from_millis(a.pause_ms);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let dir =
        std::env::temp_dir().join(format!("toolsearch-bench-telemetry-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let mut paths = Vec::new();
    for (name, telemetry) in VARIANTS {
        let path = dir.join(format!("{name}.toml"));
        std::fs::write(
            &path,
            format!(
                "mode = \"code\"\nactivation = \"always\"\n{kept}\n\n[telemetry]\n{}\n",
                telemetry.replace("ENDPOINT", &endpoint)
            ),
        )?;
        paths.push(path);
    }
    let exe = crate::toolsearch_exe()?;
    let report = rt.block_on(async {
        // The two kinds of call: the tool sent directly, and a snippet that
        // calls it once.
        let snippet = serde_json::Map::from_iter([(
            "code".to_string(),
            Value::String(format!(
                "return await openclaw.tools.call({}, {});",
                json!(a.call.tool),
                Value::Object(args.clone())
            )),
        )]);
        let kinds = [
            ("direct", a.call.tool.clone(), args.clone()),
            ("snippet", "tool_search_code".to_string(), snippet),
        ];
        // p50s[variant][kind] over the repetitions.
        let mut p50s = vec![vec![Vec::new(); kinds.len()]; VARIANTS.len()];
        let mut p95s = p50s.clone();
        let mut added = p50s.clone();
        let mut cpu_us = vec![Vec::new(); VARIANTS.len()];
        // Per call, what it took minus what the `off` gateway's call of the same
        // kind took in the same round (the two a few tens of ms apart).
        let mut paired = p50s.clone();
        let t0 = Instant::now();
        let n = VARIANTS.len();
        for rep in 0..a.repeats {
            // Fresh gateways each repetition, started in a rotating order: a
            // process's own luck (where its threads and memory land) falls on
            // one repetition, not on its variant's every figure.
            let mut gws = Vec::new();
            for j in 0..n {
                let path = &paths[(rep + j) % n];
                let mut cmd = tokio::process::Command::new(&exe);
                cmd.args(["gateway", "--config"]).arg(path);
                let child = TokioChildProcess::new(cmd)?;
                let pid = child.id().unwrap_or(0);
                gws.push(((rep + j) % n, pid, ().serve(child).await?));
            }
            gws.sort_by_key(|(v, _, _)| *v);
            let pids: Vec<u32> = gws.iter().map(|(_, p, _)| *p).collect();
            let gws: Vec<_> = gws.into_iter().map(|(_, _, g)| g).collect();
            let cpu0: Vec<u64> = pids.iter().map(|p| cpu_ns(*p)).collect();
            let mut ms = vec![vec![Vec::new(); kinds.len()]; gws.len()];
            for i in 0..a.runs + 5 {
                for k in 0..kinds.len() {
                    for j in 0..gws.len() {
                        // A different gateway goes first each round.
                        let g = (i + j) % gws.len();
                        let (_, name, args) = &kinds[k];
                        tokio::time::sleep(pause).await;
                        let took = timed_call(&gws[g], name, args).await?;
                        if i >= 5 {
                            ms[g][k].push(took);
                        }
                    }
                }
            }
            for g in 0..gws.len() {
                for k in 0..kinds.len() {
                    let d = ms[g][k].iter().zip(&ms[0][k]).map(|(a, b)| a - b);
                    paired[g][k].extend(d);
                }
            }
            for g in 0..gws.len() {
                for k in 0..kinds.len() {
                    ms[g][k].sort_by(f64::total_cmp);
                    p50s[g][k].push(percentile(&ms[g][k], 0.5));
                    p95s[g][k].push(percentile(&ms[g][k], 0.95));
                }
            }
            for g in 0..gws.len() {
                for k in 0..kinds.len() {
                    let d = p50s[g][k].last().unwrap() - p50s[0][k].last().unwrap();
                    added[g][k].push(d);
                }
            }
            // The gateway's own CPU time per call (every thread; the
            // sandbox's workers and the servers are other processes).
            let calls = ((a.runs + 5) * kinds.len()) as f64;
            for (g, pid) in pids.iter().enumerate() {
                let used = cpu_ns(*pid).saturating_sub(cpu0[g]) as f64;
                cpu_us[g].push(used / calls / 1e3);
            }
            for gw in gws {
                let _ = gw.cancel().await;
            }
        }
        let mut out = serde_json::Map::new();
        for (g, (name, _)) in VARIANTS.iter().enumerate() {
            let mut per = serde_json::Map::new();
            for (k, (kind, _, _)) in kinds.iter().enumerate() {
                let base = median(p50s[0][k].clone());
                let p50 = median(p50s[g][k].clone());
                per.insert(
                    kind.to_string(),
                    json!({
                        "p50_ms": p50,
                        "p95_ms": median(p95s[g][k].clone()),
                        "added_p50_us": median(added[g][k].clone()) * 1e3,
                        "paired_median_us": median(paired[g][k].clone()) * 1e3,
                        "p50s_ms": p50s[g][k],
                        "ratio_p50_to_off": if base > 0.0 { p50 / base } else { 0.0 },
                    }),
                );
            }
            per.insert(
                "cpu_us_per_call".into(),
                json!({
                    "median": median(cpu_us[g].clone()),
                    "added": median(
                        cpu_us[g].iter().zip(&cpu_us[0]).map(|(a, b)| a - b).collect()
                    ),
                }),
            );
            out.insert(name.to_string(), Value::Object(per));
        }
        anyhow::Ok(json!({
            "tool": a.call.tool,
            "runs_per_repeat": a.runs,
            "repeats": a.repeats,
            "pause_ms": a.pause_ms,
            "seconds": t0.elapsed().as_secs(),
            "exported_bytes": bytes.load(Ordering::Relaxed),
            "how": "gateways differing only in [telemetry], started afresh for each repetition and called in turn (interleaved); per gateway and kind the median over the repetitions of each repetition's p50; added_p50_us: median over repetitions of (p50 - the `off` gateway's p50 in the same repetition); paired_median_us: median over all calls of (the call - the `off` gateway's call of the same kind in the same round); cpu_us_per_call: the gateway process's CPU time (all its threads) per call, both kinds, median over repetitions, and added over `off` in the same repetition; `off_again` is `off` run twice: its figures are the run's noise",
            "variants": out,
        }))
    })?;
    rt.shutdown_timeout(Duration::from_secs(1));
    let _ = std::fs::remove_dir_all(&dir);
    print_json(report)?;
    Ok(ExitCode::SUCCESS)
}
