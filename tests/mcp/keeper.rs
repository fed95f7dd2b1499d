//! The death of any process the gateway started for a stdio server (the
//! server's keeper, or the server itself) answers that server's calls in
//! flight at once (UNAVAILABLE, long before their timeout), and the server is
//! started again as after a crash. Needs python3 and the binary.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::*;

/// The keeper of the fixture server, or the server itself.
fn victim(gateway: u32, keeper: bool) -> Option<u32> {
    descendants(gateway)
        .into_iter()
        .find(|(_, cmd)| {
            cmd.contains("misbehaving_server.py") && cmd.contains("server-keeper") == keeper
        })
        .map(|(p, _)| p)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 and the toolsearch binary; `cargo xtask test` runs it"]
async fn the_death_of_a_servers_keeper_or_server_answers_its_calls_at_once() {
    let script = repo().join("tests/fixtures/misbehaving_server.py");
    let cfg = temp_path("keeper.toml");
    std::fs::write(
        &cfg,
        format!(
            "mode = \"tools\"\nactivation = \"always\"\nsemantic = false\n[limits]\ncall_timeout_ms = 120000\n\n[[servers]]\nname = \"s\"\ncommand = \"python3\"\nargs = [{:?}]\n",
            script.display().to_string()
        ),
    )
    .unwrap();
    let gw = Gw::start(&cfg).await;
    for keeper in [true, false, true] {
        let what = if keeper { "keeper" } else { "server" };
        let pid = victim(gw.pid, keeper).unwrap_or_else(|| panic!("no {what} under the gateway"));
        let hang = json!({"id": "mcp:s:hang", "arguments": {}});
        let killed = async {
            // The call is in flight (the server never answers `hang`).
            tokio::time::sleep(Duration::from_millis(1500)).await;
            assert!(std::process::Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status()
                .unwrap()
                .success());
            Instant::now()
        };
        let (answer, at) = tokio::join!(gw.call("tool_call", hang), killed);
        let after = at.elapsed();
        let v = text_json(&answer);
        eprintln!("{what} killed: the call in flight was answered {after:?} later: {v}");
        assert_eq!(v["error"]["code"], "UNAVAILABLE", "{what}: {v}");
        assert!(
            after < Duration::from_secs(20),
            "{what}: answered after {after:?}"
        );
        // Started again: its tools answer.
        let t0 = Instant::now();
        let mut back = false;
        while t0.elapsed() < HANG_GUARD {
            let r = gw
                .call(
                    "tool_call",
                    json!({"id": "mcp:s:echo", "arguments": {"x": 1}}),
                )
                .await;
            if r.is_error != Some(true) {
                back = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert!(
            back,
            "the server did not come back after its {what} was killed"
        );
        assert_ne!(victim(gw.pid, keeper), Some(pid));
    }
}
