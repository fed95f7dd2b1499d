//! The first hour (issue 60), through the gateway with the official Python
//! client: `initialize` is answered at once whatever the servers do, and a
//! server that fails is explained once, with its own words.
//!
//! The config holds three servers: `hang` never answers (it reads nothing),
//! `broken` fails to start (its module does not exist: the cause is only on
//! its stderr), and `time` works. The default limits: a 30 s startup
//! timeout, which `initialize` used to wait out.

use std::process::{Command, Stdio};

use serde_json::Value;

use crate::common::*;

fn config(tag: &str) -> std::path::PathBuf {
    let path = temp_path(&format!("{tag}.toml"));
    let manifests = temp_path(&format!("{tag}-manifests"));
    std::fs::write(
        &path,
        format!(
            "semantic = false\nmanifest_dir = {manifests:?}\n\n\
             [[servers]]\nname = \"hang\"\ncommand = \"sleep\"\nargs = [\"1000\"]\n\n\
             [[servers]]\nname = \"broken\"\ncommand = \"python3\"\nargs = [\"-m\", \"mcp_server_no_such_module\"]\n\n\
             [[servers]]\nname = \"time\"\ncommand = \"python3\"\nargs = [\"-m\", \"mcp_server_time\", \"--local-timezone\", \"UTC\"]\n"
        ),
    )
    .unwrap();
    path
}

#[test]
#[ignore = "needs python3 with mcp 2.x and mcp-server-time (`cargo xtask fixtures`); `cargo xtask test` runs it"]
fn a_slow_and_a_failed_server_are_explained_once_and_block_nothing() {
    let cfg = config("say-why");
    let log = temp_path("say-why.log");
    let out = Command::new("python3")
        .arg(repo().join("tests/fixtures/py_say_why.py"))
        .arg(binary())
        .arg(&cfg)
        .arg(&log)
        .stderr(Stdio::inherit())
        .output()
        .expect("python3 runs");
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        out.status.success(),
        "py_say_why.py failed; gateway log:\n{logged}"
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(text.trim()).unwrap_or_else(|_| panic!("not JSON: {text}"));
    eprintln!(
        "initialize {:.2} s, first list {:.2} s",
        v["initialize_s"], v["list_s"]
    );

    // Blocker 1: `initialize` does not wait for `hang` (30 s before); the
    // first list waits at most first_list_ms (3 s) for it, and serves
    // deferral, which stays on when `hang` never comes.
    let init = v["initialize_s"].as_f64().unwrap();
    assert!(init < 10.0, "initialize took {init:.1} s: {v}");
    assert!(v["list_s"].as_f64().unwrap() < 20.0, "{v}");
    assert_eq!(v["tools"], serde_json::json!(["tool_search_code"]), "{v}");

    let answers = v["answers"].as_array().unwrap();
    // The first search says what is down and why, in the server's words.
    let first = answers[0]["text"].as_str().unwrap();
    assert!(first.contains("mcp:time:get_current_time"), "{first}");
    assert!(
        first.contains("broken") && first.contains("No module named mcp_server_no_such_module"),
        "the cause from the server's stderr: {first}"
    );
    // The second is not told again.
    let second = answers[1]["text"].as_str().unwrap();
    assert!(second.contains("mcp:time:convert_time"), "{second}");
    assert!(
        !second.contains("broken") && !second.contains("unavailable"),
        "told once per conversation: {second}"
    );
    // A call to a tool of the failed server says it is down, and why.
    let call = answers[2]["text"].as_str().unwrap();
    assert!(answers[2]["is_error"].as_bool().unwrap(), "{call}");
    assert!(
        call.contains("UNAVAILABLE")
            && call.contains("server `broken` is down")
            && call.contains("No module named"),
        "{call}"
    );
    assert!(!call.contains("use search"), "{call}");

    // The log's WARN for `broken` is said once, though it was restarted
    // several times meanwhile (backoff from 250 ms, over more than 4 s).
    let warns = logged
        .lines()
        .filter(|l| l.contains("WARN") && l.contains("server unavailable") && l.contains("broken"))
        .count();
    assert_eq!(warns, 1, "one WARN for the same reason:\n{logged}");
}

#[test]
#[ignore = "needs python3 and mcp-server-time (`cargo xtask fixtures`); `cargo xtask test` runs it"]
fn config_check_says_why_a_server_did_not_start() {
    let v = crate::health::check_servers(&config("say-why-check"));
    let broken = v["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "broken")
        .unwrap();
    let error = broken["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("No module named mcp_server_no_such_module"),
        "{broken}"
    );
}
