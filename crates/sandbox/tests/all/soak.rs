//! Soak: mixed benign and hostile snippets through one pool, zero crashes, RSS
//! back near its baseline; prints the figures. CI runs 100 jobs; the 1,000-job
//! run is `cargo xtask soak`'s (tests named `longrun_*`).

use std::time::{Duration, Instant};

use toolsearch_sandbox::{ErrorKind, Limits};

use crate::common::*;

const BENIGN: &[&str] = &[
    "const h = await openclaw.tools.search('echo'); const d = await openclaw.tools.describe(h[0].id); return openclaw.tools.call(d.id, {x: 1})",
    "console.log('hello'); return [1, 2, 3].map(x => x * 2)",
    "return (await Promise.all([openclaw.tools.call('add', {a: 1, b: 2}), openclaw.tools.call('slow', {})]))",
    "return JSON.parse('{\"a\": [1, 2]}')",
];

const HOSTILE: &[&str] = &[
    "for(;;){}",
    "const a = []; for(;;) a.push({x: 1})",
    "eval('1')",
    "Deno.core.ops.op_panic('x')",
    "for(;;) console.log('x'.repeat(1e5))",
    "return 1n",
    "function f(){ f() } f()",
    "const k = []; for (let i = 0; i < 100; i++) k.push(new Uint8Array(1 << 20))",
    "await new Promise(() => {})",
    "throw {get message(){ for(;;); }}",
    // issue 14's classes
    "return Array.prototype.indexOf.call({length: 2**53-1}, 1)",
    "return new Array(2**32-1).join()",
    "const k = []; for (let i = 0; i < 40; i++) k.push(Array.from({length: 2**22})); return k.length",
    "const s = new Uint8Array(8 << 20); const k = []; for (let i = 0; i < 100; i++) k.push(new Uint8Array(s)); return 1",
    "Function.prototype.call = function () { return this }; return openclaw.tools.call('echo', {})",
    "return 'import.defer(x)'",
    "for (let i = 0; i < 65536; i++) console.log(''); return '\\u009b'.repeat(100000)",
];

#[test]
fn soak_hundred_mixed_snippets() {
    // Its own process: the RSS figures count every child of the test process.
    in_own_process("soak::soak_hundred_mixed_snippets", || soak(10));
}

#[test]
#[ignore = "long soak: `cargo xtask soak` runs it"]
fn longrun_soak_thousand_mixed_snippets() {
    in_own_process("soak::longrun_soak_thousand_mixed_snippets", || soak(100));
}

/// `chunks` rounds of 10 snippets at once, one in three hostile.
fn soak(chunks: usize) {
    // The hostile loops run to the deadline, so theirs is short; benign
    // snippets get one that only guards against a hang, so a loaded machine
    // cannot fail them.
    let hostile_limits = Limits {
        deadline: Duration::from_millis(150),
        ..test_limits()
    };
    // Process isolation: what a long-running gateway uses (bounded memory).
    let pool = process_pool(2, test_limits());
    // Warm up allocator arenas before taking the baseline.
    for _ in 0..20 {
        pool.execute_blocking(BENIGN[0], FakeBridge::new());
    }
    let baseline = rss_kib_children();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .unwrap();
    let t0 = Instant::now();
    let (ok, failed, peak) = rt.block_on(async {
        let (mut ok, mut failed, mut peak) = (0usize, 0usize, 0u64);
        for chunk in 0..chunks {
            let mut tasks = Vec::new();
            for j in 0..10 {
                let i = chunk * 10 + j;
                let (code, limits) = if i % 3 == 0 {
                    (HOSTILE[(i / 3) % HOSTILE.len()], hostile_limits.clone())
                } else {
                    (BENIGN[i % BENIGN.len()], test_limits())
                };
                let pool = pool.clone();
                tasks.push(tokio::spawn(async move {
                    let r = pool.execute_with(code, FakeBridge::new(), limits).await;
                    (i % 3 == 0, r)
                }));
            }
            for t in tasks {
                let (hostile, r) = t.await.unwrap();
                if hostile {
                    assert!(
                        !r.ok || r.value.is_null(),
                        "hostile snippet succeeded: {:?}",
                        r.value
                    );
                    assert_ne!(err_kind(&r), Some(ErrorKind::Engine), "{:?}", r.error);
                    failed += 1;
                } else {
                    assert!(r.ok, "benign snippet failed: {:?}", r.error);
                    ok += 1;
                }
            }
            peak = peak.max(rss_kib_children());
        }
        (ok, failed, peak)
    });
    assert_clean(&pool);
    let end = rss_kib_children();
    eprintln!(
            "soak: {} snippets ({ok} benign ok, {failed} hostile stopped) in {:.1} s; worker processes' RSS baseline {baseline} KiB, peak {peak} KiB, end {end} KiB ({:+} KiB)",
            ok + failed,
            t0.elapsed().as_secs_f64(),
            end as i64 - baseline as i64
        );
    assert_eq!(ok + failed, chunks * 10);
    // Each worker process keeps at most JOBS_PER_PROCESS isolates' worth of engine memory.
    assert!(
        end < baseline + 2 * 160 * 1024,
        "RSS did not come back: baseline {baseline} KiB, end {end} KiB"
    );
}
