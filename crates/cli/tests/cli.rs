//! The `toolsearch` binary: JSON shapes, exit codes, exec.

use std::process::Command;

fn toolsearch(args: &[&str]) -> (i32, serde_json::Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_toolsearch"))
        .args(args)
        .output()
        .expect("run toolsearch");
    let json = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (
        out.status.code().unwrap_or(-1),
        json,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn search_prints_versioned_json_on_the_demo_catalog() {
    let (code, v, _) = toolsearch(&["search", "--limit", "50", "weather forecast"]);
    assert_eq!(code, 0);
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["hits"][0]["id"], "mcp:weather:get_forecast");
    assert_eq!(v["limit"], 20);
    assert!(v["limit_note"].as_str().unwrap().contains("50"));
}

#[test]
fn exec_runs_a_snippet_with_the_echo_dispatcher_and_policy_globs() {
    let code = r#"const h = await openclaw.tools.search("weather"); return {ids: h.map(x => x.id), out: await openclaw.tools.call(h[0].id, {city: "Oslo"})}"#;
    let (status, v, _) = toolsearch(&["exec", "--deny", "get_alerts", "--code", code]);
    assert_eq!(status, 0);
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["ok"], true, "{v}");
    assert!(!v["value"]["ids"]
        .as_array()
        .unwrap()
        .iter()
        .any(|id| id == "mcp:weather:get_alerts"));
    assert_eq!(v["value"]["out"]["arguments"]["city"], "Oslo");
    assert_eq!(v["stats"]["calls"], 1);
}

#[test]
fn exec_exits_zero_when_the_snippet_fails_and_nonzero_on_usage_errors() {
    let (status, v, _) = toolsearch(&["exec", "--timeout-ms", "200", "--code", "for(;;){}"]);
    assert_eq!(status, 0);
    assert_eq!(v["error"]["kind"], "timeout");
    let (status, _, err) = toolsearch(&["exec"]);
    assert_ne!(status, 0);
    assert!(err.contains("no snippet"), "{err}");
    let (status, _, err) = toolsearch(&[
        "exec",
        "--catalog",
        "/nonexistent/x.jsonl",
        "--code",
        "return 1",
    ]);
    assert_ne!(status, 0);
    assert!(err.contains("/nonexistent/x.jsonl"), "{err}");
}
