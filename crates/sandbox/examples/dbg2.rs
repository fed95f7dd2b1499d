use deno_core::v8;
fn rss() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    s.lines().find(|l| l.starts_with("VmRSS:")).unwrap().split_whitespace().nth(1).unwrap().parse().unwrap()
}
fn cb<'s, 'i>(scope: &mut v8::PinScope<'s, 'i>, _e: v8::Local<'s, v8::Value>, _c: v8::Local<'s, v8::Array>) -> v8::Local<'s, v8::Value> { v8::undefined(scope).into() }
extern "C" fn rej(_m: v8::PromiseRejectMessage) {}
fn main() {
    deno_core::JsRuntime::init_platform(None);
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(100);
    eprintln!("start rss {}", rss());
    for i in 0..n {
        let mut isolate = v8::Isolate::new(v8::CreateParams::default());
        let mode = std::env::args().nth(2).unwrap_or_default();
        if mode.contains('p') { isolate.set_prepare_stack_trace_callback(cb); }
        if mode.contains('r') { isolate.set_promise_reject_callback(rej); }
        if mode.contains('m') { isolate.set_microtasks_policy(v8::MicrotasksPolicy::Explicit); }
        if mode.contains('s') { isolate.set_capture_stack_trace_for_uncaught_exceptions(true, 10); }
        {
            v8::scope!(let hs, &mut isolate);
            let ctx = v8::Context::new(hs, Default::default());
            let scope = &mut v8::ContextScope::new(hs, ctx);
            let code = v8::String::new(scope, "1+1").unwrap();
            let script = v8::Script::compile(scope, code, None).unwrap();
            script.run(scope).unwrap();
        }
        drop(isolate);
        if i % 20 == 0 { eprintln!("iter {i}: rss {}", rss()); }
    }
    eprintln!("end rss {}", rss());
}
