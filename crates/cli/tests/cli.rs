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
    let code = r#"const h = await openclaw.tools.search("weather"); return {ids: h.map(x => x.id), out: await openclaw.tools.call(h[0].id, {latitude: 59.9, longitude: 10.7})}"#;
    let (status, v, _) = toolsearch(&["exec", "--deny", "get_alerts", "--code", code]);
    assert_eq!(status, 0);
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["ok"], true, "{v}");
    assert!(!v["value"]["ids"]
        .as_array()
        .unwrap()
        .iter()
        .any(|id| id == "mcp:weather:get_alerts"));
    assert_eq!(v["value"]["out"]["arguments"]["latitude"], 59.9);
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

fn modes(v: &serde_json::Value, mode: &str) -> (u64, u64) {
    let m = &v["modes"][mode];
    (
        m["tool_bytes"].as_u64().unwrap(),
        m["schema_bytes"].as_u64().unwrap(),
    )
}

#[test]
fn prompt_size_is_pinned_on_the_demo_catalog() {
    let (code, v, _) = toolsearch(&["prompt-size", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(v["token_estimate"], "bytes / 4");
    // Regression guard: exact bytes (definitions are deterministic). Update on purpose.
    assert_eq!(modes(&v, "direct"), (14509, 9018));
    assert_eq!(modes(&v, "code"), (2527, 884));
    assert_eq!(modes(&v, "tools"), (2695, 1201));
}

#[test]
fn prompt_size_on_the_real_mcp_catalog_stays_within_budget() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/scale/catalog_mcp_real.jsonl"
    );
    if !std::path::Path::new(path).exists() {
        eprintln!("skipped: {path} is absent");
        return;
    }
    let (code, v, _) = toolsearch(&["prompt-size", "--catalog", path]);
    assert_eq!(code, 0);
    let (direct, _) = modes(&v, "direct");
    let (code_bytes, _) = modes(&v, "code");
    let (tools_bytes, _) = modes(&v, "tools");
    eprintln!("prompt-size on 3,598 MCP tools: direct {direct} B, code {code_bytes} B, tools {tools_bytes} B");
    assert!(direct > 2_000_000);
    assert!(code_bytes <= 2048, "{code_bytes}");
    assert!(tools_bytes <= 1536, "{tools_bytes}");
}
