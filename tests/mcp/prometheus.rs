//! A real Prometheus (Debian's `prometheus`) scrapes the gateway's admin
//! surface with the admin token while a scripted session runs, and its HTTP
//! API is asked for the series the operator reads: calls by profile, kind and
//! outcome, their latency, downstream calls by server, servers' state, the
//! catalog, the sandbox, and the bytes sent up front against a plain
//! aggregator.

use std::process::{Command, Stdio};
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use serde_json::{json, Value};

use crate::common::*;
use crate::harness::http_client;

/// The gateway, its MCP URL and its admin address, from its stderr.
fn start_gateway(
    cfg: &std::path::Path,
    env: &[(&str, &str)],
) -> (std::process::Child, String, String) {
    let mut cmd = Command::new(binary());
    cmd.args(["gateway", "--http", "127.0.0.1:0", "--config"])
        .arg(cfg)
        .envs(env.iter().copied());
    let (child, port, admin, lines) = spawn_http_gateway_with_admin(cmd);
    std::thread::spawn(move || for _ in lines {});
    let admin = admin.expect("the gateway printed its admin address");
    (child, format!("http://127.0.0.1:{port}/mcp"), admin)
}

/// One instant query of Prometheus's HTTP API: its result vector.
async fn query(port: u16, q: &str) -> Vec<Value> {
    let url = format!(
        "http://127.0.0.1:{port}/api/v1/query?query={}",
        q.replace('{', "%7B")
            .replace('}', "%7D")
            .replace('"', "%22")
            .replace(' ', "%20")
    );
    let Ok(r) = reqwest::get(&url).await else {
        return Vec::new();
    };
    let v: Value = r.json().await.unwrap_or(Value::Null);
    v["data"]["result"].as_array().cloned().unwrap_or_default()
}

struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Debian's prometheus, node and the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn a_real_prometheus_scrapes_the_series_of_a_scripted_session() {
    let var = format!("TS_PROM_ADMIN_{}", std::process::id());
    let cfg = config(&format!(
        // The first list holds every server's tools (the saving counted from
        // the first listing is the whole one), however loaded the machine.
        "semantic = false\nactivation = \"always\"\n[limits]\nfirst_list_ms = 60000\n[admin]\nlisten = \"127.0.0.1:0\"\ntoken_env = \"{var}\"\n"
    ));
    let (gw, mcp, admin) = start_gateway(&cfg, &[(&var, "scrape-secret")]);
    let _gw = Killed(gw);
    // The scripted session: a snippet with a search and two downstream calls,
    // and a tools/list.
    let client = http_client(&mcp, "scripted".into()).await;
    let _ = client.peer().list_all_tools().await.unwrap();
    let Value::Object(args) = json!({"code": "
        await openclaw.tools.search('current time');
        await openclaw.tools.call('mcp:time:get_current_time', {timezone: 'UTC'});
        await openclaw.tools.call('mcp:everything:echo', {message: 'hi'});
        return 'done';"})
    else {
        unreachable!()
    };
    let r = client
        .peer()
        .call_tool(CallToolRequestParams::new("tool_search_code").with_arguments(args))
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");

    let dir = temp_path("prometheus.yml");
    let token = dir.with_file_name("token");
    std::fs::write(&token, "scrape-secret").unwrap();
    std::fs::write(
        &dir,
        format!(
            "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: toolsearch\n    \
             authorization:\n      credentials_file: {token:?}\n    static_configs:\n      - targets: [\"{admin}\"]\n"
        ),
    )
    .unwrap();
    let port = free_port();
    let prom = Command::new("prometheus")
        .arg(format!("--config.file={}", dir.display()))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.with_file_name("tsdb").display()
        ))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("prometheus (apt install prometheus; `cargo xtask setup` does)");
    let _prom = Killed(prom);

    // Scraped: the target is up (the token was taken) and the calls are there.
    let mut up = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while std::time::Instant::now() < deadline {
        up = query(port, "up{job=\"toolsearch\"}").await;
        let calls = query(port, "toolsearch_calls_total").await;
        if up.first().is_some_and(|s| s["value"][1] == json!("1")) && !calls.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(
        up.first().map(|s| s["value"][1].clone()),
        Some(json!("1")),
        "{up:?}"
    );
    let one = |q: &'static str| async move {
        let r = query(port, q).await;
        assert!(!r.is_empty(), "no series for {q}");
        r
    };
    let calls =
        one("toolsearch_calls_total{profile=\"default\",kind=\"snippet\",outcome=\"ok\"}").await;
    assert_eq!(calls[0]["value"][1], json!("1"), "{calls:?}");
    let latency = one("toolsearch_call_duration_seconds_count{kind=\"snippet\"}").await;
    assert_eq!(latency[0]["value"][1], json!("1"), "{latency:?}");
    for server in ["time", "everything"] {
        let q = format!("toolsearch_downstream_calls_total{{server=\"{server}\"}}");
        let r = query(port, &q).await;
        assert_eq!(
            r.first().map(|s| s["value"][1].clone()),
            Some(json!("1")),
            "{q}: {r:?}"
        );
        let q = format!("toolsearch_server_up{{server=\"{server}\"}}");
        let r = query(port, &q).await;
        assert_eq!(
            r.first().map(|s| s["value"][1].clone()),
            Some(json!("1")),
            "{q}: {r:?}"
        );
    }
    let tools = one("toolsearch_catalog_tools{profile=\"default\"}").await;
    assert!(
        tools[0]["value"][1]
            .as_str()
            .unwrap()
            .parse::<u64>()
            .unwrap()
            > 10,
        "{tools:?}"
    );
    let workers = one("toolsearch_sandbox_workers").await;
    let n = |v: &[Value]| v[0]["value"][1].as_str().unwrap().parse::<u64>().unwrap();
    assert!(n(&workers) >= 1, "{workers:?}");
    one("toolsearch_code_mode{profile=\"default\"}").await;
    // Up front: code mode's list against a plain aggregator's, and the saving.
    let served = one("toolsearch_tools_list_bytes{profile=\"default\"}").await;
    let plain = one("toolsearch_aggregator_list_bytes{profile=\"default\"}").await;
    assert!(
        n(&served) > 0 && n(&plain) > 4 * n(&served),
        "{served:?} {plain:?}"
    );
    let saved = one("toolsearch_list_bytes_saved_total{profile=\"default\"}").await;
    assert!(n(&saved) >= n(&plain) - n(&served), "{saved:?}");
    let _ = client.cancel().await;
}
