//! Issue 62: replicas of one configuration behind HAProxy on Redis
//! ([`crate::replica_set`]): what they report, so that an operator sees
//! whether they run one; every mode to both eras through the balancer;
//! approval rounds that hold across replicas; Redis lost and back.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::*;
use crate::prompt_cache::{Gateway, Setup, ADMIN_TOKEN};
use crate::replica_set::{py, Replica, ReplicaSet};

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

/// The flow of `py_replicas.py` in `mode` through `set`'s balancer, checked.
fn flow(set: &ReplicaSet, shape: &str, era: &str) -> Value {
    let out = py(&["flow", era, &set.url()]);
    let errors = out["errors"].as_array().cloned().unwrap_or_default();
    assert!(errors.is_empty(), "{shape} {era}: {out}");
    assert_eq!(out["shape"], shape, "{out}");
    let expected = if era == "legacy" {
        "2025-11-25"
    } else {
        "2026-07-28"
    };
    assert_eq!(out["protocol"], expected, "{out}");
    assert!(
        out["answers"][0].as_str().unwrap().contains("balance ran"),
        "{out}"
    );
    assert_eq!(out["approved"][1], false, "{shape} {era}: {out}");
    assert!(
        out["approved"][0]
            .as_str()
            .unwrap()
            .contains("transfer ran"),
        "{out}"
    );
    assert_eq!(out["declined"][1], true, "{out}");
    let declined = out["declined"][0].as_str().unwrap();
    assert!(
        declined.contains("APPROVAL_DENIED") && declined.contains("did not approve"),
        "{out}"
    );
    assert_eq!(out["asked"].as_array().unwrap().len(), 2, "{out}");
    out
}

#[test]
#[ignore = "needs python, redis-server, haproxy and the toolsearch binary; `cargo xtask test` runs it"]
fn three_replicas_behind_haproxy_serve_every_mode_to_both_eras_with_approvals() {
    python_module_ok("mcp");
    for mode in ["code", "tools", "reveal"] {
        let set = ReplicaSet::start(&format!(
            "mode = \"{mode}\"\nactivation = \"always\"\ndestructive = \"elicit\"\n\
             [replicas]\ncount = 3\n"
        ));
        for era in ["auto", "legacy"] {
            let before = set.ledger().len();
            flow(&set, mode, era);
            if era == "auto" {
                // Stateless requests went to any replica: more than one
                // answered tool calls.
                let answering = set
                    .replicas
                    .iter()
                    .filter(|r| !r.metrics("toolsearch_calls_total{").is_empty())
                    .count();
                assert!(answering >= 2, "{mode}: one replica answered every call");
            }
            let calls: Vec<Value> = set.ledger().split_off(before);
            let tools: Vec<&str> = calls.iter().map(|c| c["tool"].as_str().unwrap()).collect();
            // What ran: the balance, and the approved transfer once; the
            // declined one never reached the server.
            assert_eq!(tools, ["balance", "transfer"], "{mode} {era}: {calls:?}");
            assert_eq!(calls[1]["arguments"]["to"], "approved", "{calls:?}");
            if era == "legacy" {
                // A session stays on the replica that made it.
                assert_eq!(calls[0]["pid"], calls[1]["pid"], "{mode}: {calls:?}");
            }
        }
    }
}

/// `ask` then `answer` with `py_replicas.py`.
fn ask(url: &str, to: &str, amount: &str) -> String {
    let out = py(&["ask", url, to, amount]);
    assert_eq!(out["input_required"], true, "{out}");
    let asked = out["asked"]["approve"].as_str().unwrap_or_default();
    assert!(
        asked.contains("`mcp:ledger:transfer`") && asked.contains(to),
        "{out}"
    );
    out["state"].as_str().unwrap().to_string()
}

fn answer(url: &str, to: &str, amount: &str, state: &str, decision: &str) -> Value {
    py(&["answer", url, to, amount, state, decision])
}

/// An answer refused with `why`, as an error the model reads.
fn refused(out: &Value, why: &str) {
    assert_eq!(out["is_error"], true, "{out}");
    let text = out["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("APPROVAL_DENIED") && text.contains(why) && text.contains("nothing ran"),
        "wanted `{why}`: {out}"
    );
}

#[test]
#[ignore = "needs python, redis-server, haproxy and the toolsearch binary; `cargo xtask test` runs it"]
fn approval_rounds_are_sealed_single_use_across_replicas_and_bound_to_call_and_policy() {
    python_module_ok("mcp");
    let head = "mode = \"tools\"\nactivation = \"always\"\ndestructive = \"elicit\"\n\
                [replicas]\ncount = 3\n";
    let set = ReplicaSet::start(head);
    let (r1, r2) = (set.replicas[0].url(), set.replicas[1].url());
    let state = ask(&r1, "round", "7");

    // Forged: one character of the state changed.
    let mut forged = state.clone().into_bytes();
    let i = forged.len() / 2;
    forged[i] = if forged[i] == b'A' { b'B' } else { b'A' };
    let forged = String::from_utf8(forged).unwrap();
    refused(
        &answer(&r1, "round", "7", &forged, "accept"),
        "not sealed by this gateway",
    );
    // Re-targeted: the same state with other arguments.
    refused(
        &answer(&r1, "round", "7000", &state, "accept"),
        "not sealed by this gateway",
    );
    refused(
        &answer(&r1, "elsewhere", "7", &state, "accept"),
        "not sealed by this gateway",
    );
    // Answered: runs once, on replica 1.
    let ran = answer(&r1, "round", "7", &state, "accept");
    assert_eq!(ran["is_error"], false, "{ran}");
    assert!(
        ran["text"].as_str().unwrap().contains("transfer ran"),
        "{ran}"
    );
    // Replayed on replica 2 (same keys, same Redis): refused.
    refused(
        &answer(&r2, "round", "7", &state, "accept"),
        "answered already",
    );
    // Through the balancer, whichever replica takes it: refused.
    refused(
        &answer(&set.url(), "round", "7", &state, "accept"),
        "answered already",
    );
    // Declined: nothing runs, and the round is spent.
    let declined = ask(&set.url(), "declined", "3");
    refused(
        &answer(&r2, "declined", "3", &declined, "decline"),
        "did not approve",
    );
    refused(
        &answer(&r1, "declined", "3", &declined, "accept"),
        "answered already",
    );
    // A state with no answer is not an approval either.
    let unanswered = ask(&r2, "unanswered", "4");
    refused(
        &answer(&r2, "unanswered", "4", &unanswered, "none"),
        "did not approve",
    );

    // Another policy: a gateway with the same keys and Redis under another
    // configuration refuses a round sealed under this one.
    let other = set.config.with_file_name("other.toml");
    let text = std::fs::read_to_string(&set.config).unwrap();
    std::fs::write(&other, text.replace("count = 3", "count = 2")).unwrap();
    let strict = Replica::start(&other, &set.redis.url(), 0);
    let sealed_here = ask(&r1, "policy", "9");
    refused(
        &answer(&strict.url(), "policy", "9", &sealed_here, "accept"),
        "policy in force",
    );

    let transfers: Vec<Value> = set.ran("transfer", "to", &"round".into());
    assert_eq!(transfers.len(), 1, "{:?}", set.ledger());
    assert_eq!(transfers[0]["arguments"]["amount"], 7.0);
    for to in ["elsewhere", "declined", "unanswered", "policy"] {
        assert!(
            set.ran("transfer", "to", &to.into()).is_empty(),
            "{to} ran: {:?}",
            set.ledger()
        );
    }
}

/// Sends `n` requests to `port` at once after another: how many were admitted
/// (not 429).
fn admitted(port: u16, n: usize) -> usize {
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    (0..n)
        .filter(|_| raw(port, "POST", "/mcp", &[], ping).0 != 429)
        .count()
}

#[test]
#[ignore = "needs python, redis-server, haproxy and the toolsearch binary; `cargo xtask test` runs it"]
fn redis_lost_for_a_while_degrades_budgets_refuses_approvals_and_comes_back() {
    python_module_ok("mcp");
    let head = "mode = \"tools\"\nactivation = \"always\"\ndestructive = \"elicit\"\n\
                [http]\nrate_limit_per_minute = 90\n[replicas]\ncount = 3\n";
    let mut set = ReplicaSet::start(head);
    let (r1, r2) = (set.replicas[0].url(), set.replicas[1].url());
    let ready = set.replicas[0].store_becomes("redis");
    assert!(
        ready["store"]["url"]
            .as_str()
            .unwrap()
            .starts_with("redis://"),
        "{ready}"
    );
    // Two rounds asked while Redis answers (asking needs no Redis).
    let first = ask(&r1, "after-outage", "1");

    let t0 = Instant::now();
    set.redis.stop();
    // Every replica says why, and what that changes.
    for r in &set.replicas {
        let ready = r.store_becomes("redis-unreachable");
        assert_eq!(
            ready["ready"], true,
            "a Redis down takes no replica out: {ready}"
        );
        let note = ready["store"]["note"].as_str().unwrap();
        assert!(
            note.contains("1/3") && note.contains("approvals are refused"),
            "{ready}"
        );
        // Said in the log (its reader may lag).
        let t0 = Instant::now();
        while r.logged("Redis is unreachable") == 0 {
            assert!(t0.elapsed() < HANG_GUARD, "the loss was never logged");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    // Approvals fail closed, with the reason; nothing runs.
    refused(
        &answer(&r2, "after-outage", "1", &first, "accept"),
        "shared store is unreachable",
    );
    // A replica's share of the budget: 90/3 = 30 in its window (fewer when a
    // slow Redis had sent a request of its own there earlier).
    let r3 = &set.replicas[2];
    let during = admitted(r3.port, 45);
    assert!(
        (25..=30).contains(&during),
        "replica 3 alone while Redis is down: {during}"
    );
    assert_eq!(
        r3.metrics("toolsearch_shared_store_up "),
        ["toolsearch_shared_store_up 0"]
    );
    let degraded = r3.metrics("toolsearch_rate_local_share_admissions_total ");
    let counted: u64 = degraded[0].rsplit(' ').next().unwrap().parse().unwrap();
    assert!(
        counted >= 45,
        "every request of the outage counted: {degraded:?}"
    );
    // Said once, not at every request of the outage.
    for r in &set.replicas {
        assert_eq!(r.logged("Redis is unreachable"), 1);
    }

    set.redis.restart();
    let outage = t0.elapsed();
    for r in &set.replicas {
        r.store_becomes("redis");
    }
    // Service resumes, no restart: the round refused during the outage is
    // answered now, once.
    let ran = answer(&r2, "after-outage", "1", &first, "accept");
    assert_eq!(ran["is_error"], false, "{ran}");
    assert_eq!(set.ran("transfer", "to", &"after-outage".into()).len(), 1);
    assert_eq!(
        r3.metrics("toolsearch_shared_store_up "),
        ["toolsearch_shared_store_up 1"]
    );

    // One budget for every replica again: through the balancer, the three
    // admit 90 between them (a few more as the bucket refills), not 3 × 90.
    let t1 = Instant::now();
    let through = admitted(set.port, 150);
    let refill = (t1.elapsed().as_secs_f64() * 1.5).ceil() as usize;
    eprintln!(
        "rate: admitted {through} of 150 against the limit 90/min across 3 replicas \
         ({:.1} s, refill allowance {refill}); Redis was down {:.1} s",
        t1.elapsed().as_secs_f64(),
        outage.as_secs_f64()
    );
    assert!(
        (80..=90 + refill).contains(&through),
        "admitted {through} through three replicas"
    );
}

#[test]
#[ignore = "needs python (mcp 2.3) and the toolsearch binary; `cargo xtask test` runs it"]
fn a_modern_only_server_and_a_handshake_one_are_each_spoken_to_in_their_revision() {
    python_module_ok("mcp");
    let ledger = temp_path("ledger.jsonl");
    let path = ledger.with_file_name("gateway.toml");
    std::fs::write(
        &path,
        format!(
            "mode = \"tools\"\nactivation = \"always\"\nsemantic = false\n\
             [admin]\nlisten = \"127.0.0.1:0\"\n\
             [[servers]]\nname = \"modern\"\ncommand = \"python3\"\nargs = [{:?}]\n\
             [[servers]]\nname = \"ledger\"\ncommand = \"python3\"\nargs = [{:?}]\n\
             env = {{ LEDGER_FILE = {:?} }}\n",
            repo()
                .join("tests/fixtures/modern_server.py")
                .display()
                .to_string(),
            repo()
                .join("tests/fixtures/ledger_server.py")
                .display()
                .to_string(),
            ledger.display().to_string()
        ),
    )
    .unwrap();
    let want = [("modern", "2026-07-28"), ("ledger", "2025-11-25")];
    // `config check --servers` names each one's revision.
    let out = std::process::Command::new(binary())
        .args(["config", "check", "--servers"])
        .arg(&path)
        .env("TOOLSEARCH_ADMIN_TOKEN", ADMIN_TOKEN)
        .output()
        .unwrap();
    let checked: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    for (name, revision) in want {
        let s = checked["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("{checked}"));
        assert_eq!(s["up"], true, "{s}");
        assert_eq!(s["protocol"], revision, "{s}");
    }
    // So does `/readyz` of a gateway, and the modern-only server's tool runs.
    let gw = Gateway::start(&path);
    let t0 = Instant::now();
    let ready = loop {
        let r = readyz(&gw);
        if r["protocols"]["modern"].is_string() && r["protocols"]["ledger"].is_string() {
            break r;
        }
        assert!(t0.elapsed() < HANG_GUARD, "{r}");
        std::thread::sleep(Duration::from_millis(100));
    };
    for (name, revision) in want {
        assert_eq!(ready["protocols"][name], revision, "{ready}");
    }
    let answer = crate::stateless::stateless(
        gw.port,
        "tools/call",
        serde_json::json!({"name": "tool_call", "arguments": {"id": "mcp:modern:stamp", "arguments": {"note": "hello"}}}),
        serde_json::json!({}),
    );
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("stamped hello (modern only)"), "{answer}");
}
