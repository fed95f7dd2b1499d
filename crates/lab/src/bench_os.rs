//! What the OS says about the bench's processes (Linux `/proc`): proportional
//! memory (PSS) of a process tree and the CPU time of idle pools.

use anyhow::{Context, Result};
use serde_json::{json, Value};
use std::time::Duration;

/// Every process below `root` (children, their children, ...).
pub fn descendants(root: u32) -> Vec<u32> {
    let mut parent_of: Vec<(u32, u32)> = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for entry in dir.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok())
            else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            // `pid (comm) state ppid ...`: comm may hold spaces and parentheses.
            let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
                continue;
            };
            if let Some(ppid) = rest.split_whitespace().nth(1).and_then(|p| p.parse().ok()) {
                parent_of.push((pid, ppid));
            }
        }
    }
    let mut out = Vec::new();
    let mut frontier = vec![root];
    while let Some(p) = frontier.pop() {
        for &(child, parent) in &parent_of {
            if parent == p {
                out.push(child);
                frontier.push(child);
            }
        }
    }
    out
}

/// PSS of one process in KiB (`/proc/<pid>/smaps_rollup`).
fn pss_kib(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("Pss:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// PSS of `root` and every process below it, in KiB (a process that exits while
/// it is read counts nothing).
pub fn pss_kib_tree(root: u32) -> Result<u64> {
    let own = pss_kib(root).context("reading /proc/<pid>/smaps_rollup (Linux only)")?;
    Ok(own
        + descendants(root)
            .into_iter()
            .filter_map(pss_kib)
            .sum::<u64>())
}

/// Nanoseconds on CPU of every thread of `pid` (`/proc/<pid>/task/*/schedstat`;
/// 0 where there is no such process).
pub fn cpu_ns(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

fn tree_cpu_ns(root: u32) -> u64 {
    cpu_ns(root) + descendants(root).into_iter().map(cpu_ns).sum::<u64>()
}

/// CPU used by this process and its workers over `secs` seconds of nothing to
/// do (the pools alive and idle): any polling or busy waiting shows here.
pub fn idle_cpu(secs: u64) -> Result<Value> {
    let me = std::process::id();
    let before = tree_cpu_ns(me);
    std::thread::sleep(Duration::from_secs(secs));
    let used = tree_cpu_ns(me).saturating_sub(before);
    Ok(json!({
        "what": "CPU time of the host and its worker processes while both pools (threads and forking processes) sit idle",
        "seconds": secs,
        "cpu_ms": crate::eval::harness::round3(used as f64 / 1e6),
        "cpu_share": ((used as f64 / 1e9 / secs.max(1) as f64) * 1e6).round() / 1e6,
        "processes": descendants(me).len() + 1,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_process_is_found_and_its_memory_counted() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("sleep runs");
        let me = std::process::id();
        let found = descendants(me);
        let own = pss_kib(me).expect("own PSS");
        let tree = pss_kib_tree(me).expect("tree PSS");
        let _ = child.kill();
        let _ = child.wait();
        assert!(
            found.contains(&child.id()),
            "{found:?} lacks {}",
            child.id()
        );
        assert!(own > 0 && tree > own, "own {own} KiB, tree {tree} KiB");
    }

    #[test]
    fn idle_cpu_reports_the_window_and_a_small_share() {
        let v = idle_cpu(1).unwrap();
        assert_eq!(v["seconds"], 1);
        let share = v["cpu_share"].as_f64().unwrap();
        assert!((0.0..0.5).contains(&share), "{v}");
    }
}
