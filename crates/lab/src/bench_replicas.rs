//! `toolsearch-lab bench-replicas`: what the deployment of issue 62 costs a
//! call. One gateway alone (no balancer, nothing shared: the baseline) against
//! 1, 2 and 3 replicas sharing a Redis behind HAProxy running
//! `deploy/haproxy.cfg` (its server lines cut to the replicas measured), in
//! one run, on one machine. Each call is a `tool_call` of a read-only tool of
//! `tests/fixtures/ledger_server.py` (tools mode) by an rmcp client session;
//! every request passes the front door's rate admission (in Redis for the
//! replicas: one script per request).
//!
//! Two loads: back to back (`--clients` sessions calling as fast as they are
//! answered: calls per second), and spaced (each session calling once every
//! `--pause-ms`, the traffic an agent makes: latency of each call). On a
//! machine of two cores the replicas share the cores, so the point is the
//! balancer's and Redis's cost per call, not scaling.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde_json::json;

#[derive(clap::Args)]
pub struct Args {
    /// The gateway binary measured (default: the `toolsearch` next to this one).
    #[arg(long)]
    binary: Option<PathBuf>,
    /// Sessions calling at once.
    #[arg(long, default_value_t = 8)]
    clients: usize,
    /// Seconds of each load on each setup.
    #[arg(long, default_value_t = 8)]
    secs: u64,
    /// The spaced load's pause between one session's calls.
    #[arg(long, default_value_t = 1000)]
    pause_ms: u64,
}

/// A process stopped (SIGKILL) when dropped.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// A gateway on `cfg`, sharing `redis` when given: its process and port.
fn gateway(exe: &Path, cfg: &Path, redis: Option<&str>) -> Result<(Proc, u16)> {
    let mut cmd = Command::new(exe);
    cmd.args(["gateway", "--http", "127.0.0.1:0", "--config"])
        .arg(cfg)
        .env_remove("TOOLSEARCH_REDIS_URL")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(url) = redis {
        cmd.env("TOOLSEARCH_REDIS_URL", url).env(
            "TOOLSEARCH_SEALING_KEYS",
            "bench:62656e63682d6b65792d62656e63682d6b65792d62656e63682d6b6579212121",
        );
    }
    let mut child = cmd
        .spawn()
        .with_context(|| format!("starting {}", exe.display()))?;
    let port = crate::gateway_port(&mut child)?;
    let proc = Proc(child);
    Ok((proc, port))
}

fn redis() -> Result<(Proc, String)> {
    let port = free_port()?;
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("redis-server (apt install redis-server)")?;
    let proc = Proc(child);
    listening(port, "redis-server")?;
    Ok((proc, format!("redis://127.0.0.1:{port}")))
}

/// HAProxy running the shipped configuration with its first `ports.len()`
/// server lines, in front of `ports`: its process and port.
fn haproxy(root: &Path, dir: &Path, ports: &[u16]) -> Result<(Proc, u16)> {
    let shipped = std::fs::read_to_string(root.join("deploy/haproxy.cfg"))?;
    let kept: String = shipped
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            !l.starts_with("server r")
                || (1..=ports.len()).any(|i| l.starts_with(&format!("server r{i} ")))
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let cfg = dir.join(format!("haproxy-{}.cfg", ports.len()));
    std::fs::write(&cfg, kept)?;
    let port = free_port()?;
    let mut cmd = Command::new("haproxy");
    cmd.arg("-db")
        .arg("-f")
        .arg(&cfg)
        .env("TS_BIND", format!("127.0.0.1:{port}"));
    for (i, p) in ports.iter().enumerate() {
        cmd.env(format!("TS_REPLICA_{}", i + 1), format!("127.0.0.1:{p}"));
    }
    let child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("haproxy (apt install haproxy)")?;
    let proc = Proc(child);
    listening(port, "haproxy")?;
    Ok((proc, port))
}

/// Waits (20 s at most) until `what` accepts connections on `port`.
fn listening(port: u16, what: &str) -> Result<()> {
    let t0 = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        anyhow::ensure!(
            t0.elapsed() < Duration::from_secs(20),
            "{what} never listened"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

type Session = RunningService<RoleClient, ()>;

async fn session(port: u16) -> Result<Session> {
    let transport = StreamableHttpClientTransport::from_uri(format!("http://127.0.0.1:{port}/mcp"));
    Ok(().serve(transport).await?)
}

async fn call(s: &Session) -> Result<Duration> {
    let args = json!({"id": "mcp:ledger:balance", "arguments": {"account": "bench"}});
    let t0 = Instant::now();
    let r = s
        .peer()
        .call_tool(
            CallToolRequestParams::new("tool_call")
                .with_arguments(args.as_object().cloned().unwrap_or_default()),
        )
        .await?;
    anyhow::ensure!(r.is_error != Some(true), "the call failed: {:?}", r.content);
    Ok(t0.elapsed())
}

/// Back to back: calls per second. Spaced: each call's latency, sorted.
struct Measured {
    per_sec: f64,
    spaced: Vec<Duration>,
}

async fn measure(port: u16, a: &Args) -> Result<Measured> {
    let mut sessions = Vec::new();
    for _ in 0..a.clients {
        sessions.push(std::sync::Arc::new(session(port).await?));
    }
    // Warm: each session's first call (its replica's first use of Redis).
    for s in &sessions {
        call(s).await?;
    }
    let load = |spaced: bool| {
        let until = Instant::now() + Duration::from_secs(a.secs);
        let pause = Duration::from_millis(a.pause_ms);
        let tasks: Vec<_> = sessions
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let s = s.clone();
                let offset = pause.mul_f64(i as f64 / a.clients as f64);
                tokio::spawn(async move {
                    let mut took = Vec::new();
                    if spaced {
                        tokio::time::sleep(offset).await;
                    }
                    while Instant::now() < until {
                        took.push(call(&s).await?);
                        if spaced {
                            tokio::time::sleep(pause).await;
                        }
                    }
                    anyhow::Ok(took)
                })
            })
            .collect();
        async move {
            let mut all = Vec::new();
            for t in tasks {
                all.extend(t.await??);
            }
            anyhow::Ok(all)
        }
    };
    let t0 = Instant::now();
    let fast = load(false).await?;
    let per_sec = fast.len() as f64 / t0.elapsed().as_secs_f64();
    let mut spaced = load(true).await?;
    spaced.sort();
    for s in sessions {
        if let Ok(s) = std::sync::Arc::try_unwrap(s) {
            let _ = s.cancel().await;
        }
    }
    Ok(Measured { per_sec, spaced })
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

pub fn run(a: Args) -> Result<ExitCode> {
    toolsearch_mcp::http_client::install_tls_provider();
    let exe = match &a.binary {
        Some(b) => b.clone(),
        None => crate::toolsearch_exe()?,
    };
    let root = std::env::current_dir()?
        .ancestors()
        .find(|d| d.join("deploy/haproxy.cfg").is_file())
        .map(Path::to_path_buf)
        .context("run from the repository (its deploy/haproxy.cfg is run)")?;
    let dir = std::env::temp_dir().join(format!("toolsearch-replicas-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let cfg = dir.join("gateway.toml");
    std::fs::write(
        &cfg,
        format!(
            "mode = \"tools\"\nactivation = \"always\"\nsemantic = false\n\
             [http]\nrate_limit_per_minute = 100000\n[replicas]\ncount = 3\n\
             [[servers]]\nname = \"ledger\"\ncommand = \"python3\"\nargs = [{:?}]\n\
             env = {{ LEDGER_FILE = {:?} }}\n",
            root.join("tests/fixtures/ledger_server.py")
                .display()
                .to_string(),
            dir.join("ledger.jsonl").display().to_string()
        ),
    )?;
    let rt = tokio::runtime::Runtime::new()?;
    let mut rows = Vec::new();
    {
        eprintln!("bench-replicas: one gateway, alone");
        let (_gw, port) = gateway(&exe, &cfg, None)?;
        rows.push((
            "one gateway, no balancer, nothing shared".to_string(),
            rt.block_on(measure(port, &a))?,
        ));
    }
    let (_redis, url) = redis()?;
    for n in 1..=3usize {
        eprintln!("bench-replicas: {n} replica(s) behind HAProxy on Redis");
        let mut gws = Vec::new();
        let mut ports = Vec::new();
        for _ in 0..n {
            let (gw, port) = gateway(&exe, &cfg, Some(&url))?;
            gws.push(gw);
            ports.push(port);
        }
        let (_proxy, port) = haproxy(&root, &dir, &ports)?;
        rows.push((
            format!("{n} replica(s) behind HAProxy, budgets in Redis"),
            rt.block_on(measure(port, &a))?,
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
    let base = &rows[0].1;
    let mut out = format!(
        "{} sessions; back to back for {} s, then each calling once every {} ms for {} s; \
         a call is `tool_call` of a read-only tool (tools mode), one HTTP request. \
         {} cores.\n\n| setup | calls/s back to back | x baseline | spaced p50 ms | p95 ms | p50 x baseline |\n|---|---|---|---|---|---|\n",
        a.clients,
        a.secs,
        a.pause_ms,
        a.secs,
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    for (name, m) in &rows {
        out.push_str(&format!(
            "| {name} | {:.0} | {:.2} | {:.2} | {:.2} | {:.2} |\n",
            m.per_sec,
            m.per_sec / base.per_sec,
            pct(&m.spaced, 0.5),
            pct(&m.spaced, 0.95),
            pct(&m.spaced, 0.5) / pct(&base.spaced, 0.5),
        ));
    }
    use std::io::Write;
    std::io::stdout().write_all(out.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
