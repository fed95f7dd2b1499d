use deno_core::{JsRuntime, RuntimeOptions};
use std::time::Instant;
fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    rt.block_on(async {
        for i in 0..5 {
            let t = Instant::now();
            let js = JsRuntime::new(RuntimeOptions::default());
            let c = t.elapsed();
            let t = Instant::now();
            drop(js);
            eprintln!("{i}: create {:?} drop {:?}", c, t.elapsed());
        }
    });
}
