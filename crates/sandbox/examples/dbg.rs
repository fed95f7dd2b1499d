use deno_core::{JsRuntime, RuntimeOptions};
use std::time::Instant;
fn rss() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    s.lines().find(|l| l.starts_with("VmRSS:")).unwrap().split_whitespace().nth(1).unwrap().parse().unwrap()
}
fn main() {
    let threads: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let per: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(400);
    eprintln!("start rss {}", rss());
    for t in 0..threads {
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
            rt.block_on(async {
                let t0 = Instant::now();
                for i in 0..per {
                    let mut js = JsRuntime::try_new(RuntimeOptions::default()).unwrap();
                    js.execute_script("x.js", "1+1").unwrap();
                    drop(js);
                    if i % 20 == 0 { eprintln!("thread {t} iter {i}: rss {}", rss()); }
                }
                eprintln!("thread {t}: {per} runtimes in {:?}", t0.elapsed());
            });
        })
        .join()
        .unwrap();
        eprintln!("after thread {t}: rss {}", rss());
    }
}
