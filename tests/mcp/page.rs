//! The operator page in a real browser (issue 65): Debian's `chromium`,
//! headless, driven by `tests/fixtures/page_drive.mjs` (`puppeteer-core`
//! pointed at it) against the `toolsearch` binary's admin surface.
//!
//! - The whole page: log in with the token, the servers (one down with its
//!   reason), the catalog a page at a time, a search with its explanation
//!   (the embedding's share and the fusion), a tool described, a snippet
//!   dry-run (its call recorded, not made), a live session, the reload view,
//!   logout. A server whose tool description holds `<img onerror>`,
//!   `</script>` and a `javascript:` link shows them as text and runs
//!   nothing: no dialog, no script error, no request to another origin.
//!   API calls without the token or from another origin get nothing.
//! - The 9,648-tool catalog: the page's weight and first paint, and the
//!   catalog view rendering one page, never the whole catalog.
//!
//! Screenshots go to `$TOOLSEARCH_SCREENSHOTS` when set (`cargo xtask
//! screenshots` sets it to `docs/page`), else to a temporary folder.

use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::common::*;

/// What a hostile server writes into its tool's description.
const HOSTILE: &str =
    "Renders a note. <img src=x onerror=alert(1)> </script><script>alert(2)</script> \
     <a href=\"javascript:alert(3)\">click here</a>";

/// The admin token the tests' gateways use.
pub(crate) const TOKEN: &str = "page-admin-token-0123456789";

pub(crate) struct Killed(pub(crate) std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn chromium() -> String {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .expect("chromium is installed (`cargo xtask setup`)")
        .to_string()
}

/// A scripted server (`churn_server.py`) serving `tools`.
pub(crate) fn scripted(name: &str, tools: &Value) -> String {
    let list = temp_path(&format!("{name}.tools.json"));
    std::fs::write(&list, tools.to_string()).unwrap();
    let down = temp_path(&format!("{name}.down"));
    let script = repo().join("tests/fixtures/churn_server.py");
    format!(
        "[[servers]]\nname = \"{name}\"\ncommand = \"python3\"\nargs = [{script:?}]\n\
         env = {{ LIST_FILE = {list:?}, DOWN_FILE = {down:?} }}\n"
    )
}

/// Starts the gateway on `config` (HTTP and the admin surface on loopback);
/// the process, its MCP URL, its admin URL and its stderr lines.
fn start(config: &str) -> (Killed, String, String, KeptLines) {
    start_with(config, "").0
}

/// [`start`], with more keys of `[admin]`; and the config file's path.
fn start_with(
    config: &str,
    admin: &str,
) -> ((Killed, String, String, KeptLines), std::path::PathBuf) {
    let var = format!("TS_PAGE_ADMIN_{}", std::process::id());
    let cfg = temp_path("page.toml");
    std::fs::write(
        &cfg,
        format!("{config}[admin]\nlisten = \"127.0.0.1:0\"\ntoken_env = \"{var}\"\n{admin}"),
    )
    .unwrap();
    let mut cmd = Command::new(binary());
    cmd.args(["gateway", "--http", "127.0.0.1:0", "--config"])
        .arg(&cfg)
        .env(&var, TOKEN);
    let (child, port, admin, lines) = spawn_http_gateway_with_admin(cmd);
    let admin = admin.expect("the gateway printed its admin address");
    (
        (
            Killed(child),
            format!("http://127.0.0.1:{port}/mcp"),
            format!("http://{admin}"),
            kept_lines(lines),
        ),
        cfg,
    )
}

/// One request to the admin surface with the token: its status and JSON.
async fn admin_api(admin: &str, method: &'static str, path: &str, body: Value) -> (u16, Value) {
    let port: u16 = admin.rsplit(':').next().unwrap().parse().unwrap();
    let (path, body) = (
        path.to_string(),
        if body.is_null() {
            String::new()
        } else {
            body.to_string()
        },
    );
    tokio::task::spawn_blocking(move || {
        let auth = format!("Bearer {TOKEN}");
        let (status, _, text) = raw(port, method, &path, &[("Authorization", &auth)], &body);
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    })
    .await
    .unwrap()
}

/// Waits (at most 2 min: a loaded machine starts servers slowly) until
/// profile `default`'s catalog holds `at_least` tools.
async fn wait_listed(admin: &str, at_least: u64) {
    for _ in 0..1200 {
        let (_, page) = admin_api(admin, "GET", "/api/catalog?limit=1", Value::Null).await;
        if page["total"].as_u64() >= Some(at_least) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the gateway's catalog never held {at_least} tools");
}

/// Where screenshots go.
fn shots() -> std::path::PathBuf {
    match std::env::var_os("TOOLSEARCH_SCREENSHOTS") {
        Some(dir) => repo().join(dir),
        None => temp_path("shots"),
    }
}

/// Runs the driver; its report.
pub(crate) fn drive(admin: &str, extra: &[&str]) -> Value {
    let driver = repo().join("tests/fixtures/page_drive.mjs");
    node_module("puppeteer-core/package.json");
    let shots = shots();
    std::fs::create_dir_all(&shots).unwrap();
    let out = Command::new("node")
        .arg(&driver)
        .args(["--url", admin, "--token", TOKEN, "--chromium", &chromium()])
        .arg("--shots")
        .arg(&shots)
        .args(extra)
        .current_dir(repo().join("tests/fixtures"))
        .stdin(Stdio::null())
        .output()
        .expect("node runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the driver failed: {stderr}");
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("the driver's report is not JSON ({e}): {stderr}"))
}

/// The report's step `name`, which must have passed.
pub(crate) fn passed(report: &Value, name: &str) {
    let step = report["steps"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["name"] == name))
        .unwrap_or_else(|| panic!("no step {name}: {report}"));
    assert_eq!(step["ok"], true, "step {name}: {step}");
}

/// Nothing ran that the page did not mean to run, and nothing left for
/// another origin.
pub(crate) fn nothing_ran(report: &Value) {
    for key in [
        "dialogs",
        "page_errors",
        "console_errors",
        "foreign_requests",
    ] {
        assert_eq!(
            report[key].as_array().map(Vec::len),
            Some(0),
            "{key}: {}",
            report[key]
        );
    }
}

fn print_figures(what: &str, report: &Value) {
    eprintln!(
        "page ({what}): first paint {} ms, first contentful paint {} ms; weight {} B transferred, \
         {} B decoded, {} resources; catalog rows in the DOM {}; catalog render {} ms; with the \
         API answers {}",
        report["paint"]["first_paint_ms"],
        report["paint"]["first_contentful_paint_ms"],
        report["weight"]["transfer_bytes"],
        report["weight"]["decoded_bytes"],
        report["weight"]["resources"],
        report["catalog_rows_in_dom"],
        report["catalog_render_ms"],
        report["weight_with_api"],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium, node with puppeteer-core, python3 and the embedding model (`cargo xtask setup`), and the toolsearch binary; `cargo xtask test` runs it"]
async fn the_page_works_in_a_real_browser_and_shows_what_a_server_wrote_as_text() {
    let tools = json!([
        {"name": "get_forecast", "description": "Weather forecast for a city: temperature and rain for the next days",
         "inputSchema": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}}},
        {"name": "get_alerts", "description": "Severe weather alerts for a region",
         "inputSchema": {"type": "object", "properties": {"region": {"type": "string"}}}},
        {"name": "render_note", "description": HOSTILE, "title": "<b onmouseover=alert(4)>Note</b>",
         "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "description": HOSTILE}}}},
    ]);
    let model = binary()
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("models/all-MiniLM-L6-v2");
    assert!(
        model.exists(),
        "{} is missing: run `cargo xtask fetch-model`",
        model.display()
    );
    let config = format!(
        "embed_model = {model:?}\n{}\
         [[servers]]\nname = \"broken\"\ncommand = \"/nonexistent/<img src=x onerror=alert(5)>\"\n",
        scripted("weather", &tools)
    );
    let (_gw, mcp, admin, log) = start(&config);
    wait_listed(&admin, 3).await;
    // A client's session, open while the page looks.
    let client = crate::harness::http_client(&mcp, "page-test".into()).await;
    let listed = client.list_all_tools().await.unwrap();
    assert!(!listed.is_empty());
    // One turn of it, which the sessions view shows.
    let args = json!({"code": "return (await openclaw.tools.search('weather alerts')).length;"});
    let turn = client
        .peer()
        .call_tool(
            rmcp::model::CallToolRequestParams::new("tool_search_code")
                .with_arguments(args.as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_ne!(turn.is_error, Some(true), "{turn:?}");
    let admin2 = admin.clone();
    let report = tokio::task::spawn_blocking(move || {
        drive(
            &admin2,
            &["--query", "weather forecast", "--hostile-server", "weather"],
        )
    })
    .await
    .unwrap();
    eprintln!("{report}");
    for step in [
        "open_without_token",
        "login",
        "servers",
        "catalog",
        "search",
        "describe",
        "dry_run",
        "sessions",
        "reload",
        "hostile_dom",
        "api_without_token",
        "api_foreign_origin",
        "logout",
    ] {
        passed(&report, step);
    }
    nothing_ran(&report);
    // Logged in: the token in sessionStorage, no cookie.
    assert_eq!(
        report["login"],
        json!({"token_stored": true, "cookie_empty": true})
    );
    // The servers: one up, one down with its reason.
    let servers = report["servers"].to_string();
    assert!(
        servers.contains("weather") && servers.contains("broken"),
        "{servers}"
    );
    assert!(servers.contains("down"), "{servers}");
    // What a server's failure said, and what a server's tool said, reach the
    // servers table and the trial's answer as text.
    assert!(
        servers.contains("<img src=x onerror=alert(5)>"),
        "{servers}"
    );
    let answer = report["dry_run"]["answer"].as_str().unwrap_or_default();
    assert!(answer.contains("onerror=alert(1)"), "{answer}");
    // The search, explained: the embedding's share and the fusion.
    let search = &report["search"];
    assert!(search["hits"].as_u64() > Some(0), "{search}");
    assert!(search["explained"].as_u64() > Some(0), "{search}");
    assert_eq!(search["fusion_shown"], true, "{search}");
    // Each fused hit's lexical share comes with the fields and terms it matched.
    let port: u16 = admin.rsplit(':').next().unwrap().parse().unwrap();
    let auth = format!("Bearer {TOKEN}");
    let (status, _, body) = tokio::task::spawn_blocking(move || {
        raw(
            port,
            "GET",
            "/api/search?q=weather%20forecast",
            &[("Authorization", &auth)],
            "",
        )
    })
    .await
    .unwrap();
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    let first = &v["result"]["hits"][0];
    let fields = first["lexical_rules"].as_array().map(Vec::len).unwrap_or(0);
    assert!(fields > 0, "no lexical fields under the fused hit: {first}");
    assert!(
        first["explain"].to_string().contains("similarity"),
        "{first}"
    );
    assert!(
        report["describe"]["typescript_chars"].as_u64() > Some(0),
        "{}",
        report["describe"]
    );
    // The dry run: the call recorded, not made.
    let dry = &report["dry_run"];
    assert!(dry["calls_rows"].as_u64() >= Some(1), "{dry}");
    assert!(
        dry["answer"]
            .as_str()
            .is_some_and(|a| a.contains("dry run")),
        "{dry}"
    );
    assert!(
        dry["calls_text"]
            .as_str()
            .is_some_and(|t| t.contains("not made")),
        "{dry}"
    );
    // The client's session is listed.
    // Each profile's open sessions, counted.
    let profiles = report["sessions"]["profiles_text"]
        .as_str()
        .unwrap_or_default();
    assert!(profiles.contains("default\t1\t"), "{profiles}");
    assert!(
        report["sessions"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("tool_search_code")),
        "the session's last turn: {}",
        report["sessions"]
    );
    assert!(
        report["sessions"]["rows"].as_u64() >= Some(1),
        "{}",
        report["sessions"]
    );
    // What the hostile server wrote shows as text, and nothing of it runs.
    let hostile = &report["hostile"];
    assert_eq!(
        (
            &hostile["img"],
            &hostile["javascript_links"],
            &hostile["scripts"],
            &hostile["payload_text_shown"]
        ),
        (&json!(0), &json!(0), &json!(1), &json!(true)),
        "{hostile}"
    );
    // The API: nothing without the token, nothing for another origin.
    let checks = &report["api_checks"];
    for (key, status) in [
        ("no_token", 401),
        ("wrong_token", 401),
        ("foreign_origin", 403),
        ("foreign_origin_post", 403),
        ("cross_site", 403),
    ] {
        assert_eq!(checks[key]["status"], status, "{key}: {checks}");
        assert!(
            checks[key]["bytes"].as_u64() < Some(200),
            "{key} says only why: {checks}"
        );
    }
    // Every action from the page has its audit line; the trial's names itself.
    assert!(
        log.holding_at_least("operator page", 5).await >= 5,
        "no audit lines"
    );
    assert_eq!(
        log.holding_at_least("trial from the operator page starting", 1)
            .await,
        1
    );
    assert_eq!(
        log.holding_at_least("trial from the operator page answered", 1)
            .await,
        1
    );
    // The two refused tokens of this minute, from one address: one line.
    assert_eq!(
        log.holding_at_least("missing or wrong admin token", 1)
            .await,
        1
    );
    print_figures("fixture catalog", &report);
    drop(client);
}

const SCALE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/data/scale/catalog_all.jsonl"
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium, node with puppeteer-core, the shared data (../shared/data) and the toolsearch binary; `cargo xtask test` runs it"]
async fn the_catalog_view_of_9648_tools_renders_one_page() {
    let text = std::fs::read_to_string(SCALE).expect("the shared data is present (../shared/data)");
    let mut seen = std::collections::HashSet::new();
    let tools: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|t| seen.insert(t["name"].as_str().unwrap_or_default().to_string()))
        .map(|t| json!({"name": t["name"], "description": t["description"], "inputSchema": t["input_schema"]}))
        .collect();
    let n = tools.len();
    assert!(n > 9000, "{n} tools");
    let config = format!(
        "semantic = false\n{}",
        scripted("scale", &Value::Array(tools))
    );
    let (_gw, _mcp, admin, _log) = start(&config);
    // The page looks once the server's list is in the catalog.
    wait_listed(&admin, 9000).await;
    let admin2 = admin.clone();
    let report = tokio::task::spawn_blocking(move || drive(&admin2, &["--scenario", "catalog"]))
        .await
        .unwrap();
    passed(&report, "catalog");
    nothing_ran(&report);
    // One page, never the catalog.
    assert_eq!(report["catalog_rows"], 50, "{report}");
    assert_eq!(report["catalog_rows_in_dom"], 50, "{report}");
    // "1–50 of N": the whole catalog counted (a tool the gateway cannot
    // serve is left out, and named among its server's problems).
    let status = report["catalog_status"]
        .as_str()
        .unwrap_or_default()
        .replace(',', "");
    let total: usize = status
        .rsplit("of ")
        .next()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0);
    assert!(total > 9000 && total <= n, "{status} (of {n})");
    print_figures(&format!("{n} tools"), &report);
}

/// Real calls from the page only when `[admin] page_calls` allows, and then
/// under the profile's approvals: a plain tool runs, a destructive one is
/// refused (nobody on the page can approve it). Two trials at a time; a
/// third is told to wait. The reload view: a refused file's reason and what
/// it would change.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 and the toolsearch binary; `cargo xtask test` runs it"]
async fn real_calls_from_the_page_are_opt_in_and_meet_the_profiles_approvals() {
    let tools = json!([
        {"name": "get_forecast", "description": "Weather forecast for a city",
         "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}},
        {"name": "delete_city", "description": "Deletes a city from the list",
         "annotations": {"destructiveHint": true},
         "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}},
        {"name": "slow", "description": "Waits", "inputSchema": {"type": "object"}},
        {"name": "get_alerts", "description": "Weather alerts", "inputSchema": {"type": "object"}},
    ]);
    let config = format!(
        "semantic = false\ndestructive = \"elicit\"\n{}[policy]\ndeny = [\"*alerts*\"]\n",
        scripted("weather", &tools)
    );
    let ((_gw, _mcp, admin, log), cfg) = start_with(&config, "page_calls = true\n");
    let snippet = "return [await openclaw.tools.call('mcp:weather:get_forecast', {city: 'Oslo'}), \
                   await openclaw.tools.call('mcp:weather:delete_city', {city: 'Oslo'}).catch(e => e.code)];";
    // What the gateway's [policy] hides is not in what the page says a
    // model sees.
    wait_listed(&admin, 3).await;
    let (_, page) = admin_api(&admin, "GET", "/api/catalog", Value::Null).await;
    assert_eq!(page["total"], 3, "{page}");
    assert!(!page.to_string().contains("get_alerts"), "{page}");
    let (status, hidden) = admin_api(
        &admin,
        "GET",
        "/api/tool?id=mcp:weather:get_alerts",
        Value::Null,
    )
    .await;
    assert_eq!(status, 400, "{hidden}");
    let (_, profiles) = admin_api(&admin, "GET", "/api/profiles", Value::Null).await;
    assert_eq!(profiles["profiles"][0]["tools"], 3, "{profiles}");
    // A dry run: nothing made.
    let (status, dry) = admin_api(&admin, "POST", "/api/try", json!({"code": snippet})).await;
    assert_eq!(status, 200, "{dry}");
    assert_eq!(dry["dry_run"], true);
    let calls = dry["calls"].as_array().unwrap();
    assert!(calls.iter().all(|c| c["made"] == false), "{dry}");
    assert!(
        dry["answer"]
            .as_str()
            .unwrap()
            .contains("recorded, not made"),
        "{dry}"
    );
    // Real calls: the plain tool runs; the destructive one meets the approval
    // nobody on the page can give.
    let (status, real) = admin_api(
        &admin,
        "POST",
        "/api/try",
        json!({"code": snippet, "real_calls": true}),
    )
    .await;
    assert_eq!(status, 200, "{real}");
    assert_eq!(real["dry_run"], false);
    let answer = real["answer"].as_str().unwrap();
    assert!(answer.contains("get_forecast ran"), "{real}");
    assert!(answer.contains("APPROVAL_DENIED"), "{real}");
    let made: Vec<&Value> = real["calls"].as_array().unwrap().iter().collect();
    assert_eq!(
        made.len(),
        1,
        "only the approved call reached the dispatcher: {real}"
    );
    assert_eq!(
        (made[0]["tool"].as_str(), &made[0]["made"]),
        (Some("mcp:weather:get_forecast"), &json!(true))
    );
    // Both actions have their audit lines.
    assert_eq!(
        log.holding_at_least("trial from the operator page answered", 2)
            .await,
        2
    );
    assert!(log.holding_at_least("dry_run=false", 1).await >= 1);
    // The servers table counts the call sent.
    let (_, servers) = admin_api(&admin, "GET", "/api/servers", Value::Null).await;
    assert_eq!(servers["servers"][0]["calls"], 1, "{servers}");
    // The reload view: a change only a restart makes is refused, and said.
    let (_, before) = admin_api(&admin, "GET", "/api/reload", Value::Null).await;
    assert_eq!(before["pending"]["changes"], 0, "{before}");
    assert!(before["in_force"].is_object(), "{before}");
    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(
        &cfg,
        text.replace("listen = \"127.0.0.1:0\"", "listen = \"127.0.0.1:1\""),
    )
    .unwrap();
    let mut view = Value::Null;
    for _ in 0..100 {
        view = admin_api(&admin, "GET", "/api/reload", Value::Null).await.1;
        if view["last"]["ok"] == false {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(view["last"]["ok"], false, "{view}");
    assert!(
        view["last"]["error"].as_str().unwrap().contains("restart"),
        "{view}"
    );
    assert!(view["pending"]["changes"].as_u64() >= Some(1), "{view}");
    assert!(
        view["pending"].to_string().contains("admin.listen"),
        "{view}"
    );
    // A broken file: the reason, and the configuration in force stays.
    std::fs::write(&cfg, "this is not toml [").unwrap();
    let mut broken = Value::Null;
    for _ in 0..100 {
        broken = admin_api(&admin, "GET", "/api/reload", Value::Null).await.1;
        if broken["pending"]["error"].is_string() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(broken["pending"]["error"].is_string(), "{broken}");
    assert!(broken["in_force"].is_object(), "{broken}");
}

/// A page that goes away mid-trial (its connection closed) leaves no trial
/// behind: three abandoned runaway snippets, then a trial runs at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 and the toolsearch binary; `cargo xtask test` runs it"]
async fn a_trial_whose_page_went_away_is_ended() {
    use std::io::Write;
    let tools = json!([{"name": "get_forecast", "description": "Weather forecast", "inputSchema": {"type": "object"}}]);
    // A watchdog that would end the runaway snippets only after 5 minutes.
    let config = format!(
        "semantic = false\n{}[limits]\ntimeout_ms = 300000\n",
        scripted("weather", &tools)
    );
    let (_gw, _mcp, admin, _log) = start(&config);
    let port: u16 = admin.rsplit(':').next().unwrap().parse().unwrap();
    for _ in 0..3 {
        let body = json!({"code": "while (true) {}"}).to_string();
        let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(
            s,
            "POST /api/try HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {TOKEN}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        drop(s);
    }
    let started = std::time::Instant::now();
    let mut last = (0, Value::Null);
    // The runaway snippets are cancelled with their connections: a trial is
    // admitted well before any watchdog would have ended them.
    while started.elapsed() < std::time::Duration::from_secs(60) {
        last = admin_api(&admin, "POST", "/api/try", json!({"code": "return 1 + 1;"})).await;
        if last.0 == 200 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(last.0, 200, "{}", last.1);
    assert_eq!(last.1["answer"], "2", "{}", last.1);
}
