//! What `toolsearch config check --servers` says about servers, by name and
//! tool: a real stdio server (through its keeper and the bounded transport)
//! whose one schema is nested 62 objects deep is up, its other tools are
//! listed, and the bad tool is named. Needs python3 and the binary.

use std::process::Command;

use serde_json::Value;

use crate::common::*;

/// What `toolsearch config check --servers FILE` prints (it must succeed).
pub(crate) fn check_servers(cfg: &std::path::Path) -> Value {
    let out = Command::new(binary())
        .args(["config", "check", "--servers"])
        .arg(cfg)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
#[ignore = "needs python3 and the toolsearch binary; `cargo xtask test` runs it"]
fn config_check_with_servers_names_the_bad_tool() {
    let script = repo().join("tests/fixtures/misbehaving_server.py");
    for depth in ["62", "120"] {
        let cfg = temp_path("gateway.toml");
        std::fs::write(
            &cfg,
            format!(
                "mode = \"tools\"\nsemantic = false\n[limits]\nstartup_timeout_ms = 20000\n\n[[servers]]\nname = \"deep\"\ncommand = \"python3\"\nargs = [{:?}, \"--deep\", \"{depth}\"]\n\n[[servers]]\nname = \"missing\"\ncommand = \"no-such-command-anywhere\"\n",
                script.display().to_string()
            ),
        )
        .unwrap();
        let v = check_servers(&cfg);
        let servers = v["servers"].as_array().unwrap();
        let deep = &servers[0];
        assert_eq!(deep["up"], true, "{depth}: {deep}");
        // hang, echo, big and deep: the deep one served with its schema cut.
        assert_eq!(deep["tools"], 4, "{depth}: {deep}");
        let problems = deep["problems"].to_string();
        assert!(
            problems.contains("`deep`") && problems.contains("nested deeper"),
            "{depth}: {problems}"
        );
        // A server that cannot start says why, at once.
        let missing = &servers[1];
        assert_eq!(missing["up"], false);
        assert!(
            missing["error"]
                .as_str()
                .unwrap_or("")
                .contains("no-such-command-anywhere"),
            "{missing}"
        );
        // The effective configuration is printed too.
        assert_eq!(v["config"]["limits"]["startup_timeout_ms"], 20000, "{v}");
    }
}

#[test]
#[ignore = "needs python3 and the toolsearch binary; `cargo xtask test` runs it"]
fn config_check_with_servers_shows_a_lazy_servers_manifest_and_state() {
    let script = repo().join("tests/fixtures/misbehaving_server.py");
    let cfg = temp_path("gateway.toml");
    let pids = temp_path("pids");
    let dir = temp_path("manifests");
    std::fs::write(
        &cfg,
        format!(
            "mode = \"tools\"\nsemantic = false\nlazy = true\nmanifest_dir = {:?}\n\n[[servers]]\nname = \"s\"\ncommand = \"python3\"\nargs = [{:?}, \"--helper\"]\nenv = {{ PIDFILE = {:?} }}\n",
            dir.display().to_string(),
            script.display().to_string(),
            pids.display().to_string()
        ),
    )
    .unwrap();
    let check = || check_servers(&cfg)["servers"][0].clone();
    // No manifest yet: the server is started, listed, and its manifest written.
    let first = check();
    assert_eq!(first["state"], "running", "{first}");
    assert_eq!(first["lazy"], true, "{first}");
    assert_eq!(first["tools"], 3, "{first}");
    assert!(first["manifest_age_s"].is_u64(), "{first}");
    let started = std::fs::read_to_string(&pids)
        .unwrap_or_default()
        .lines()
        .count();
    assert_eq!(started, 3, "its helpers");
    // Then: served from the manifest, not started.
    let second = check();
    assert_eq!(second["state"], "stopped", "{second}");
    assert_eq!(second["tools"], 3, "{second}");
    assert!(
        second["manifest_age_s"].as_u64().is_some_and(|s| s < 600),
        "{second}"
    );
    let started = std::fs::read_to_string(&pids)
        .unwrap_or_default()
        .lines()
        .count();
    assert_eq!(started, 3, "started again for a check");
    for p in std::fs::read_to_string(&pids).unwrap_or_default().lines() {
        let _ = Command::new("kill").args(["-9", p.trim()]).status();
    }
}
