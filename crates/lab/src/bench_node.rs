//! The baseline users would pick instead of toolsearch's sandbox: one Node child
//! per snippet (`bench/node_subprocess_sandbox.js`: the permission model on, a
//! `vm` context with code generation from strings off, the bridge as JSON lines
//! over stdin/stdout), answered by the same bridge as our pool.

use anyhow::{bail, ensure, Context, Result};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use toolsearch_sandbox::Bridge;

/// The baseline's script, written next to the run (the binary carries it).
const SCRIPT: &str = include_str!("../bench/node_subprocess_sandbox.js");

/// A `node` found on `PATH`, the flags it runs the baseline with, and the script.
pub struct NodeBaseline {
    pub version: String,
    pub flags: Vec<String>,
    script: PathBuf,
}

impl NodeBaseline {
    /// `None` with the reason when `node` is missing or too old for a permission model.
    pub fn find() -> std::result::Result<NodeBaseline, String> {
        let out = Command::new("node")
            .arg("--version")
            .output()
            .map_err(|e| format!("node is not on PATH ({e})"))?;
        let version = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        let major: u32 = version
            .trim_start_matches('v')
            .split('.')
            .next()
            .and_then(|m| m.parse().ok())
            .ok_or_else(|| format!("cannot read node's version from {version:?}"))?;
        // Node 20 ships the permission model as experimental, 22 as stable.
        let permission = match major {
            0..=19 => {
                return Err(format!(
                    "node {version} has no permission model (needs 20+)"
                ))
            }
            20 | 21 => "--experimental-permission",
            _ => "--permission",
        };
        let script = std::env::temp_dir().join(format!(
            "toolsearch-bench-node-baseline-{}.js",
            std::process::id()
        ));
        std::fs::write(&script, SCRIPT)
            .map_err(|e| format!("writing {}: {e}", script.display()))?;
        let flags = vec![
            permission.to_owned(),
            format!("--allow-fs-read={}", script.display()),
            "--no-warnings".to_owned(),
        ];
        Ok(NodeBaseline {
            version,
            flags,
            script,
        })
    }

    /// Milliseconds of `node -e 0` (start and exit, nothing else): the floor.
    pub fn floor_ms(&self) -> Result<f64> {
        let t = Instant::now();
        let status = Command::new("node").args(["-e", "0"]).status()?;
        ensure!(status.success(), "node -e 0 failed: {status}");
        Ok(t.elapsed().as_secs_f64() * 1e3)
    }

    /// Runs `code` in a fresh Node child; milliseconds until its answer arrived.
    pub fn run(
        &self,
        rt: &tokio::runtime::Runtime,
        bridge: &Arc<dyn Bridge>,
        code: &str,
    ) -> Result<f64> {
        let t = Instant::now();
        let mut child = Command::new("node")
            .args(&self.flags)
            .arg(&self.script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .context("starting node")?;
        let mut stdin = child.stdin.take().context("node's stdin")?;
        let mut lines = BufReader::new(child.stdout.take().context("node's stdout")?).lines();
        writeln!(stdin, "{}", json!({ "code": code }))?;
        let outcome = loop {
            let Some(line) = lines.next() else {
                bail!("the node baseline exited without an answer")
            };
            let msg: Value = serde_json::from_str(&line?)?;
            if let Some(done) = msg.get("done") {
                break Ok(done.clone());
            }
            if let Some(error) = msg.get("error") {
                break Err(error.to_string());
            }
            let answer = match msg["op"].as_str() {
                Some("search") => bridge.search(
                    msg["query"].as_str().unwrap_or_default(),
                    msg["limit"].as_u64().map(|l| l as u32),
                ),
                Some("describe") => bridge.describe(msg["id"].as_str().unwrap_or_default()),
                Some("call") => rt.block_on(bridge.call(
                    msg["id"].as_str().unwrap_or_default(),
                    msg["args"].clone(),
                    CancellationToken::new(),
                )),
                other => bail!("the node baseline sent an unknown op {other:?}"),
            };
            let reply = match answer {
                Ok(v) => json!({"req": msg["req"], "ok": v}),
                Err(e) => json!({"req": msg["req"], "err": e.message}),
            };
            writeln!(stdin, "{reply}")?;
        };
        let ms = t.elapsed().as_secs_f64() * 1e3;
        drop(stdin);
        let _ = child.wait();
        match outcome {
            Ok(_) => Ok(ms),
            Err(e) => bail!("the benchmark snippet failed under node: {e}"),
        }
    }

    /// `runs` sequential snippets, `pause` apart: the sorted latencies in ms.
    pub fn latencies(
        &self,
        rt: &tokio::runtime::Runtime,
        bridge: &Arc<dyn Bridge>,
        code: &str,
        runs: usize,
        pause: Duration,
    ) -> Result<Vec<f64>> {
        let mut ms = Vec::with_capacity(runs);
        for _ in 0..runs {
            std::thread::sleep(pause);
            ms.push(self.run(rt, bridge, code)?);
        }
        ms.sort_by(f64::total_cmp);
        Ok(ms)
    }
}

impl Drop for NodeBaseline {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.script);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolsearch::{CallContext, CatalogBridge, EchoDispatcher, Policy};
    use toolsearch_catalog::Catalog;

    fn bridge() -> Arc<dyn Bridge> {
        Arc::new(CatalogBridge::new(
            Catalog::demo(),
            Arc::new(Policy::default()),
            Arc::new(EchoDispatcher),
            CallContext::default(),
        ))
    }

    // Needs `node` 20+ on PATH: CI installs it (`.ci/run`, `cargo xtask setup`).
    #[test]
    fn the_node_baseline_runs_the_bench_snippet_through_the_same_bridge() {
        let node = NodeBaseline::find().expect("node 20+ on PATH");
        assert!(node.flags[0].contains("permission"), "{:?}", node.flags);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let ms = node
            .run(&rt, &bridge(), toolsearch_cli::common::SNIPPET)
            .unwrap();
        assert!(ms > 0.0);
        // Code generation from strings is off in the snippet's context.
        let err = node
            .run(&rt, &bridge(), "return eval('1 + 1');")
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("Code generation from strings disallowed"),
            "{err}"
        );
    }
}
