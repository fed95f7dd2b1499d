//! Issue 62: what replicas of one configuration report, so that an operator
//! sees whether they run one.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::*;
use crate::prompt_cache::{Gateway, Setup, ADMIN_TOKEN};

/// `/readyz` of a gateway's admin surface: its JSON.
fn readyz(gw: &Gateway) -> Value {
    let auth = format!("Bearer {ADMIN_TOKEN}");
    let port = gw.admin.expect("[admin] in the config");
    let (_, _, body) = raw(port, "GET", "/readyz", &[("Authorization", &auth)], "");
    serde_json::from_str(&body).unwrap_or_else(|_| panic!("{body}"))
}

/// The digest `toolsearch_config_info` carries.
fn metric_digest(gw: &Gateway) -> String {
    let auth = format!("Bearer {ADMIN_TOKEN}");
    let port = gw.admin.expect("[admin] in the config");
    let (_, _, body) = raw(port, "GET", "/metrics", &[("Authorization", &auth)], "");
    let line = body
        .lines()
        .find(|l| l.starts_with("toolsearch_config_info{"))
        .unwrap_or_else(|| panic!("no config_info in:\n{body}"));
    line.split('"').nth(1).unwrap().to_string()
}

#[test]
#[ignore = "needs python and the toolsearch binary; `cargo xtask test` runs it"]
fn replicas_of_one_configuration_report_one_digest_and_a_reload_changes_it() {
    let head = "mode = \"code\"\nactivation = \"always\"\n[admin]\nlisten = \"127.0.0.1:0\"";
    let setup = Setup::new(head);
    let (a, b) = (Gateway::start(&setup.config), Gateway::start(&setup.config));
    let (ra, rb) = (readyz(&a), readyz(&b));
    let digest = ra["config"]
        .as_str()
        .expect("a digest in /readyz")
        .to_string();
    assert_eq!(digest.len(), 16, "{ra}");
    assert_eq!(rb["config"], digest, "two replicas of one file: {ra} {rb}");
    assert_eq!(metric_digest(&a), digest);
    // `config check` names the same digest before anything runs.
    let out = std::process::Command::new(binary())
        .args(["config", "check"])
        .arg(&setup.config)
        .env("TOOLSEARCH_ADMIN_TOKEN", ADMIN_TOKEN)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains(&format!("configuration digest {digest}")),
        "{said}"
    );

    // A reload of another configuration: the one in force is reported.
    let text = std::fs::read_to_string(&setup.config).unwrap();
    let tmp = setup.config.with_extension("swp");
    std::fs::write(
        &tmp,
        text.replace("activation = \"always\"", "activation = \"auto\""),
    )
    .unwrap();
    std::fs::rename(&tmp, &setup.config).unwrap();
    let t0 = Instant::now();
    while readyz(&a)["config"] == digest.as_str() {
        assert!(t0.elapsed() < HANG_GUARD, "the reload never showed");
        std::thread::sleep(Duration::from_millis(100));
    }
    let after = readyz(&a)["config"].as_str().unwrap().to_string();
    assert_ne!(after, digest);
    assert_eq!(metric_digest(&a), after);
    // The other replica reloads too (it watches the same file): one again.
    let t0 = Instant::now();
    while readyz(&b)["config"] != after.as_str() {
        assert!(t0.elapsed() < HANG_GUARD, "b never took the new file");
        std::thread::sleep(Duration::from_millis(100));
    }
}
