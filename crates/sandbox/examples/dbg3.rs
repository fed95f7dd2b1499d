use deno_core::{JsRuntime, JsRuntimeForSnapshot, RuntimeOptions};
use std::time::Instant;
fn rss() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    s.lines().find(|l| l.starts_with("VmRSS:")).unwrap().split_whitespace().nth(1).unwrap().parse().unwrap()
}
fn main() {
    let prep: String = std::env::args().nth(1).unwrap_or_default();
    let n: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(60);
    JsRuntime::init_platform(None);
    let snap: &'static [u8] = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        let _e = rt.enter();
        let mut r = JsRuntimeForSnapshot::new(RuntimeOptions::default());
        if !prep.is_empty() { r.execute_script("prep.js", prep).unwrap(); }
        &*Box::leak(r.snapshot())
    }).join().unwrap();
    eprintln!("snapshot {} bytes; rss {}", snap.len(), rss());
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        rt.block_on(async {
            let r0 = rss();
            let t0 = Instant::now();
            for _ in 0..n {
                let mut js = JsRuntime::try_new(RuntimeOptions { startup_snapshot: Some(snap), ..Default::default() }).unwrap();
                js.execute_script("x.js", "1+1").unwrap();
            }
            eprintln!("{n} runtimes: {:?} each, rss +{} KiB each", t0.elapsed() / n as u32, (rss() - r0) / n as u64);
        });
    }).join().unwrap();
}
