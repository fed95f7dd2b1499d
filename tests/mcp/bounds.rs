//! A server cannot grow the gateway without bound: a `tools/list` that pages
//! for ever, loops or is too large fails with the reason (the last good list
//! stays for search; calls are refused until a listing succeeds), and a storm of `tools/list_changed` costs a couple of listings and
//! snapshots, not one per notification. On the in-process harness.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use toolsearch_mcp::Gateway;

use crate::harness::script::Pages;
use crate::harness::{gateway, text, until, Client, Reach, Script};

fn error_of(gw: &Arc<Gateway>, server: &str) -> String {
    gw.fleet()
        .status()
        .into_iter()
        .find(|s| s.name == server)
        .and_then(|s| s.error)
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listing_past_a_bound_fails_with_the_reason_and_the_last_list_stays() {
    for (mode, args, reason) in [
        (Pages::Endless, json!({"mode": "endless"}), "past 100 pages"),
        (Pages::Loop, json!({"mode": "loop"}), "loops"),
        // 8 pages of 10 tools of 1 MiB (each page under rmcp's 16 MiB line): 80 MiB.
        (
            Pages::Many {
                count: 8,
                kib: 1024,
            },
            json!({"mode": "many", "count": 8, "kib": 1024}),
            "more than 64 MiB",
        ),
    ] {
        let script = Script::new(10);
        let gw = gateway(vec![("s", Reach::Stream(script.clone()))], "").await;
        let client = Client::connect(&gw, "ann").await;
        let before = script.lists.load(Ordering::SeqCst);
        let r = client.call("s", "list_mode", args).await;
        assert_eq!(text(&r), json!("listing changed"));
        assert!(
            until(|| error_of(&gw, "s").contains(reason)).await,
            "{mode:?}: {}",
            error_of(&gw, "s")
        );
        let lists = script.lists.load(Ordering::SeqCst) - before;
        assert!(lists <= 100, "{mode:?}: {lists} pages read");
        // The server's last good list still serves search and listings, but
        // its tools do not run on it: what the server serves now is not known
        // (issue 59: every call is decided on the definition served when it
        // runs), and the refusal says so.
        let r = client.call("s", "work", json!({"tag": "ann"})).await;
        let answer = text(&r).to_string();
        assert!(
            r.is_error == Some(true) && answer.contains("listing them again failed"),
            "{mode:?}: {answer}"
        );
        gw.shutdown().await;

        // At start the same listing keeps the server down with the reason, and
        // the gateway starts without waiting for the startup timeout.
        let script = Script::new(10);
        *script.pages.lock().unwrap() = mode;
        let started = std::time::Instant::now();
        let gw = gateway(
            vec![("s", Reach::Stream(script.clone()))],
            "[limits]\nstartup_timeout_ms = 60000",
        )
        .await;
        assert!(started.elapsed() < Duration::from_secs(50), "{mode:?}");
        let status = gw.fleet().status();
        assert!(!status[0].up, "{mode:?}");
        assert!(error_of(&gw, "s").contains(reason), "{mode:?}: {status:?}");
        gw.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_changed_storm_costs_a_couple_of_listings_and_snapshots() {
    let stormy = Script::new(50);
    let calm = Script::new(0);
    let gw = gateway(
        vec![
            ("s", Reach::Stream(stormy.clone())),
            ("h", Reach::Http(calm.clone())),
        ],
        "",
    )
    .await;
    let a = Client::connect(&gw, "ann").await;
    let b = Client::connect(&gw, "bob").await;
    let (lists, snapshots) = (stormy.lists.load(Ordering::SeqCst), gw.snapshots_built());
    // Two storms of 500 while another client's calls run on the other server.
    let storms = async {
        for _ in 0..2 {
            let r = a.call("s", "storm", json!({"n": 500})).await;
            assert_eq!(text(&r), json!("stormed"));
        }
    };
    let calls = async {
        for i in 0..20 {
            let r = b.call("h", "work", json!({"tag": format!("bob{i}")})).await;
            assert_eq!(text(&r)["tag"], json!(format!("bob{i}")));
        }
    };
    tokio::join!(storms, calls);
    // Let the last listing and snapshot finish.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let lists = stormy.lists.load(Ordering::SeqCst) - lists;
    let snapshots = gw.snapshots_built() - snapshots;
    eprintln!("1,000 list_changed: {lists} listings, {snapshots} snapshots");
    // One listing runs at a time, 50 ms after the notification that asked for
    // it, and a burst during it makes one more: two per storm, a few more
    // when a loaded machine spreads a storm over its listings (11 were seen
    // before the settle), never one per notification.
    assert!(
        (1..=10).contains(&lists),
        "{lists} listings for 1,000 notifications"
    );
    // A re-list equal to the list before builds no snapshot at all.
    assert!(
        (0..=6).contains(&snapshots),
        "{snapshots} snapshots for 1,000 notifications"
    );
    gw.shutdown().await;
}
