//! The normal path: search → describe → call, console capture, values, errors.

use serde_json::json;
use toolsearch_sandbox::{CallStatus, ErrorKind, LogLevel, Pool};

use crate::common::*;

#[test]
fn search_describe_call_roundtrip() -> anyhow::Result<()> {
    eprintln!("engine: {}", Pool::engine_name());
    let r = run(r#"
        const hits = await openclaw.tools.search("echo", {limit: 3});
        const d = await openclaw.tools.describe(hits[0].id);
        const out = await openclaw.tools.call(d.id, {msg: "hi", n: 2});
        return {hits, out, ts: d.ts};
    "#);
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(r.value["out"], json!({"msg": "hi", "n": 2}));
    assert_eq!(r.value["hits"][0]["id"], json!("echo"));
    assert_eq!(r.stats.searches, 1);
    assert_eq!(r.stats.describes, 1);
    assert_eq!(r.stats.calls, 1);
    assert_eq!(r.stats.called_ids, vec!["echo".to_string()]);
    assert_eq!(r.calls.len(), 1);
    assert_eq!(r.calls[0].status, CallStatus::Ok);
    assert_eq!(r.calls[0].result, Some(json!({"msg": "hi", "n": 2})));
    Ok(())
}

#[test]
fn console_capture_and_returned_objects() -> anyhow::Result<()> {
    let r = run(r#"
        console.log("a", 1, [2], {b: 3}, null, undefined);
        console.info("info"); console.warn("careful"); console.error("bad");
        return {nested: {list: [1, "two", true, null]}, n: 1.5};
    "#);
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(
        r.value,
        json!({"nested": {"list": [1, "two", true, null]}, "n": 1.5})
    );
    let texts: Vec<_> = r.logs.iter().map(|l| (l.level, l.text.as_str())).collect();
    assert_eq!(
        texts,
        [
            (LogLevel::Log, "a 1 [2] {\"b\":3} null undefined"),
            (LogLevel::Log, "info"),
            (LogLevel::Warn, "careful"),
            (LogLevel::Error, "bad"),
        ]
    );
    Ok(())
}

#[test]
fn thrown_errors_become_script_errors_with_logs_kept() -> anyhow::Result<()> {
    let r = run(r#"console.log("step 1"); throw new TypeError("went wrong")"#);
    assert_eq!(err_kind(&r), Some(ErrorKind::Script));
    assert_eq!(err_msg(&r), "TypeError: went wrong");
    assert_eq!(r.logs.len(), 1);
    let r = run(r#"throw "plain string""#);
    assert_eq!(err_msg(&r), "Uncaught plain string");
    let r = run("return (");
    assert_eq!(err_kind(&r), Some(ErrorKind::Script));
    assert!(err_msg(&r).contains("SyntaxError"), "{}", err_msg(&r));
    Ok(())
}

#[test]
fn bridge_errors_carry_codes_and_map_to_kinds() -> anyhow::Result<()> {
    let r = run(
        r#"try { await openclaw.tools.call("fail", {}); } catch (e) { return [e.code, e.message, e instanceof Error]; }"#,
    );
    assert_eq!(r.value, json!(["TOOL_ERROR", "the tool failed", true]));
    // Uncaught: the kind follows the code.
    assert_eq!(
        err_kind(&run(r#"await openclaw.tools.call("nope", {})"#)),
        Some(ErrorKind::Policy)
    );
    assert_eq!(
        err_kind(&run(r#"await openclaw.tools.call(1)"#)),
        Some(ErrorKind::Argument)
    );
    Ok(())
}

/// Calls are lazy (OpenClaw's choice): one nobody awaits never starts, so it can
/// have no side effect the model never sees. (Before: it started and was abandoned
/// at return, cancelled half way; this test was `unawaited_calls_are_abandoned_and_reported`.)
/// Since issue 43 the job says so: it fails as `not_awaited`, naming the calls,
/// its value kept.
#[test]
fn unawaited_calls_never_start() -> anyhow::Result<()> {
    let bridge = FakeBridge::new();
    let r = run_with(
        r#"openclaw.tools.call("hang", {}); openclaw.tools.call("echo", {}); return "done""#,
        bridge.clone(),
    );
    assert!(!r.ok);
    assert_eq!(err_kind(&r), Some(ErrorKind::NotAwaited), "{:?}", r.error);
    assert_eq!(r.not_awaited, ["hang", "echo"]);
    assert_eq!(r.stats.not_awaited, 2);
    assert!(
        r.error.as_ref().unwrap().message.contains("hang, echo"),
        "{:?}",
        r.error
    );
    assert_eq!(r.value, json!("done"));
    assert!(r.calls.is_empty(), "{:?}", r.calls);
    assert_eq!(bridge.total_runs(), 0);
    // Started but not awaited at return: abandoned and cancelled, as before.
    let r = run_with(
        r#"openclaw.tools.call("hang", {}).then(() => {}); return "done""#,
        bridge.clone(),
    );
    assert!(r.ok, "{:?}", r.error);
    assert!(
        r.calls
            .iter()
            .any(|c| c.id == "hang" && c.status == CallStatus::Abandoned),
        "{:?}",
        r.calls
    );
    assert!(eventually(|| bridge
        .cancelled
        .load(std::sync::atomic::Ordering::SeqCst)
        == 1));
    // The pending call is a frozen thenable without a prototype to tamper with.
    let r = run(r#"const p = openclaw.tools.call("echo", {});
           let threw = null; try { p.then = null; } catch (e) { threw = e.name; }
           return [Object.isFrozen(p), Object.getPrototypeOf(p), typeof p.then, threw]"#);
    // (Never awaited, so it never ran: the job says so, its value kept.)
    assert_eq!(err_kind(&r), Some(ErrorKind::NotAwaited), "{:?}", r.error);
    assert_eq!(r.value, json!([true, null, "function", "TypeError"]));
    // Awaited twice: one call. Promise.all: both run.
    let r = run_with(
        r#"const p = openclaw.tools.call("echo", {n: 1}); const a = await p; const b = await p;
           const both = await Promise.all([openclaw.tools.call("echo", {n: 2}), openclaw.tools.call("echo", {n: 3})]);
           return [a, b, both.length]"#,
        bridge.clone(),
    );
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(r.calls.len(), 3, "{:?}", r.calls);
    assert_eq!(r.value[2], json!(2));
    Ok(())
}

#[test]
fn search_result_is_an_array_with_hints() -> anyhow::Result<()> {
    let r = run(
        r#"const h = await openclaw.tools.search("echo", {limit: 2}); return [Array.isArray(h), h.length, JSON.stringify(h).startsWith("[")]"#,
    );
    assert_eq!(r.value, json!([true, 1, true]));
    let r =
        run(r#"try { await openclaw.tools.search("x", {limit: 0}); } catch (e) { return e.code }"#);
    assert_eq!(r.value, json!("INVALID_ARGS"));
    Ok(())
}

#[test]
fn in_flight_calls_are_bounded_but_all_complete() -> anyhow::Result<()> {
    let r = run(
        r#"const ps = []; for (let i = 0; i < 20; i++) ps.push(openclaw.tools.call("slow", {})); return (await Promise.all(ps)).length"#,
    );
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(r.value, json!(20));
    // 20 calls of 30 ms with 8 in flight need at least 3 rounds.
    assert!(r.stats.run_us >= 90_000, "{} us", r.stats.run_us);
    Ok(())
}
