//! Issue 61: the bytes a model is sent up front (the tool list and
//! `initialize`'s instructions) change only when the tools it can use
//! change. Through the binary, over HTTP, with clients that read every byte
//! of `tools/list` and count `tools/list_changed`; the server behind is
//! `tests/fixtures/churn_server.py`, whose list and health files drive.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use rmcp::ServiceExt;
use serde_json::{json, Value};

use crate::common::*;

/// A client that counts `tools/list_changed`.
#[derive(Clone, Default)]
struct Heard(Arc<AtomicUsize>);

impl rmcp::ClientHandler for Heard {
    async fn on_tool_list_changed(&self, _cx: NotificationContext<RoleClient>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

pub(crate) struct Client {
    service: RunningService<RoleClient, Heard>,
    heard: Heard,
}

impl Client {
    pub(crate) async fn connect(port: u16) -> Client {
        toolsearch_mcp::http_client::install_tls_provider();
        let heard = Heard::default();
        let service = heard
            .clone()
            .serve(rmcp::transport::StreamableHttpClientTransport::from_uri(
                format!("http://127.0.0.1:{port}/mcp"),
            ))
            .await
            .expect("initialize");
        Client { service, heard }
    }

    /// The served tools as JSON text, and the instructions.
    pub(crate) async fn prefix(&self) -> (String, String) {
        let tools = self
            .service
            .peer()
            .list_all_tools()
            .await
            .expect("tools/list");
        let instructions = self
            .service
            .peer_info()
            .and_then(|i| i.instructions.clone())
            .unwrap_or_default();
        (serde_json::to_string(&tools).unwrap(), instructions)
    }

    fn heard(&self) -> usize {
        self.heard.0.load(Ordering::SeqCst)
    }

    /// Runs a snippet; its `ExecResult` JSON.
    async fn code(&self, code: &str) -> Value {
        let Value::Object(args) = json!({"code": code}) else {
            unreachable!()
        };
        let r = self
            .service
            .peer()
            .call_tool(CallToolRequestParams::new("tool_search_code").with_arguments(args))
            .await
            .expect("tools/call");
        crate::harness::code_view(&r)
    }
}

/// The fixture server's tools: `names` in that order, each schema's keys
/// in order, or reversed.
pub(crate) fn tools(names: &[&str], reversed: bool) -> Value {
    let keyed = |mut pairs: Vec<(&str, Value)>| {
        if reversed {
            pairs.reverse();
        }
        Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    };
    Value::Array(
        names
            .iter()
            .map(|n| {
                let schema = keyed(vec![
                    ("type", json!("object")),
                    (
                        "properties",
                        keyed(vec![
                            (
                                "service",
                                json!({"type": "string", "description": "Service."}),
                            ),
                            ("region", json!({"enum": ["eu", "us"], "type": "string"})),
                        ]),
                    ),
                    ("required", json!(["service"])),
                ]);
                json!({"name": n, "description": format!("{n} a service."), "inputSchema": schema})
            })
            .collect(),
    )
}

pub(crate) struct Setup {
    list: PathBuf,
    down: PathBuf,
    pub(crate) config: PathBuf,
}

impl Setup {
    pub(crate) fn new(head: &str) -> Setup {
        let list = temp_path("churn-list.json");
        let down = list.with_file_name("churn-down");
        let setup = Setup {
            config: list.with_file_name("gateway.toml"),
            list,
            down,
        };
        setup.set_list(&tools(&["deploy", "rollback", "status"], false));
        let churn = repo().join("tests/fixtures/churn_server.py");
        std::fs::write(
            &setup.config,
            format!(
                "semantic = false\n{head}\n\n[[servers]]\nname = \"churn\"\ncommand = \"python3\"\n\
                 args = [{churn:?}]\nenv = {{ LIST_FILE = {:?}, DOWN_FILE = {:?} }}\n",
                setup.list.display().to_string(),
                setup.down.display().to_string()
            ),
        )
        .unwrap();
        setup
    }

    pub(crate) fn set_list(&self, tools: &Value) {
        let tmp = self.list.with_extension("tmp");
        std::fs::write(&tmp, tools.to_string()).unwrap();
        std::fs::rename(tmp, &self.list).unwrap();
    }
}

/// A gateway over HTTP whose stderr lines are kept.
pub(crate) struct Gateway {
    child: std::process::Child,
    pub(crate) port: u16,
    /// Its admin surface's port, with `[admin]`.
    pub(crate) admin: Option<u16>,
    log: KeptLines,
}

pub(crate) const ADMIN_TOKEN: &str = "prompt-cache-admin-secret";

impl Gateway {
    pub(crate) fn start(config: &Path) -> Gateway {
        let mut cmd = Command::new(binary());
        cmd.args(["gateway", "--http", "127.0.0.1:0", "--config"])
            .arg(config)
            .env("TOOLSEARCH_LOG", "info")
            .env("TOOLSEARCH_ADMIN_TOKEN", ADMIN_TOKEN);
        let (child, port, admin, lines) = spawn_http_gateway_with_admin(cmd);
        let admin = admin.map(|a| a.rsplit(':').next().unwrap().parse().unwrap());
        let log = kept_lines(lines);
        Gateway {
            child,
            port,
            admin,
            log,
        }
    }

    /// The `served_list_changes` lines of its metrics.
    fn served_changes(&self) -> Vec<String> {
        let port = self.admin.expect("[admin] in the config");
        let auth = format!("Bearer {ADMIN_TOKEN}");
        let (status, _, body) = raw(port, "GET", "/metrics", &[("Authorization", &auth)], "");
        assert_eq!(status, 200, "{body}");
        body.lines()
            .filter(|l| l.starts_with("toolsearch_served_list_changes_total{"))
            .map(str::to_string)
            .collect()
    }

    /// Log lines holding `needle`.
    pub(crate) fn count(&self, needle: &str) -> usize {
        self.log.holding(needle)
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits until `client` lists a prefix holding `needle`.
pub(crate) async fn listed(client: &Client, needle: &str) -> (String, String) {
    let t0 = Instant::now();
    loop {
        let p = client.prefix().await;
        if p.0.contains(needle) {
            return p;
        }
        assert!(t0.elapsed() < HANG_GUARD, "never listed {needle}: {}", p.0);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Until a call of the fixture's `deploy` answers `ok` or not.
async fn deploy_answers(client: &Client, ok: bool) -> Value {
    let t0 = Instant::now();
    loop {
        let v = client
            .code("return await openclaw.tools.call('mcp:churn:deploy', {service: 'web'})")
            .await;
        if (v["ok"] != json!(false)) == ok {
            return v;
        }
        assert!(
            t0.elapsed() < HANG_GUARD,
            "deploy never answered ok={ok}: {v}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
#[ignore = "needs python and the toolsearch binary; `cargo xtask test` runs it"]
async fn a_server_down_and_back_changes_no_byte_served_and_tells_nobody() {
    let setup =
        Setup::new("mode = \"code\"\nactivation = \"always\"\n[admin]\nlisten = \"127.0.0.1:0\"");
    let gw = Gateway::start(&setup.config);
    let client = Client::connect(gw.port).await;
    let before = listed(&client, "rollback").await;
    deploy_answers(&client, true).await;

    std::fs::write(&setup.down, "").unwrap();
    let refused = deploy_answers(&client, false).await;
    assert!(
        refused.to_string().contains("UNAVAILABLE"),
        "the call says the server is down: {refused}"
    );
    // The model learns of it where it costs once: a search's notes.
    let found = client
        .code("return await openclaw.tools.search('deploy a service')")
        .await;
    let notes = found["search_notes"].to_string();
    assert!(
        notes.contains("churn") && notes.contains("unavailable"),
        "the search says the server is down: {found}"
    );
    let down = client.prefix().await;
    assert_eq!(
        down, before,
        "the list and instructions while the server is down"
    );
    // A session opened now is sent the same bytes.
    let fresh = Client::connect(gw.port).await;
    assert_eq!(
        fresh.prefix().await,
        before,
        "a new session while it is down"
    );

    std::fs::remove_file(&setup.down).unwrap();
    deploy_answers(&client, true).await;
    assert_eq!(client.prefix().await, before, "after the server came back");
    assert_eq!(fresh.prefix().await, before);
    // A change the model must see, last: rebuilds run one at a time, in
    // order, so once it is told every earlier one (the outage, the return)
    // has been decided, and none of them told anyone.
    told_once_of_a_tool_added(&gw, &setup, &[&client, &fresh]).await;
}

/// Adds a tool to the churn server; waits until each client heard of it;
/// then each heard exactly that, and the gateway counted one change.
async fn told_once_of_a_tool_added(gw: &Gateway, setup: &Setup, clients: &[&Client]) {
    setup.set_list(&tools(&["deploy", "rollback", "status", "promote"], false));
    for c in clients {
        listed(c, "promote").await;
        let t0 = Instant::now();
        while c.heard() == 0 {
            assert!(t0.elapsed() < HANG_GUARD, "a tool added was not told");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(c.heard(), 1, "told of something else before the tool added");
    }
    assert_eq!(
        gw.served_changes(),
        ["toolsearch_served_list_changes_total{profile=\"default\",cause=\"servers\"} 1"],
    );
}

#[tokio::test]
#[ignore = "needs python and the toolsearch binary; `cargo xtask test` runs it"]
async fn a_server_listing_its_tools_in_another_order_changes_nothing_served() {
    for mode in [
        "mode = \"code\"\nactivation = \"never\"",
        "mode = \"tools\"\nactivation = \"always\"",
    ] {
        let head = format!("{mode}\n[admin]\nlisten = \"127.0.0.1:0\"");
        let setup = Setup::new(&head);
        let gw = Gateway::start(&setup.config);
        let client = Client::connect(gw.port).await;
        let before = listed(&client, "rollback").await;
        let rebuilt = gw.count("catalog rebuilt");
        // The same tools, listed backwards, each schema's keys backwards.
        setup.set_list(&tools(&["status", "rollback", "deploy"], true));
        let t0 = Instant::now();
        while gw.count("catalog rebuilt") == rebuilt {
            assert!(t0.elapsed() < HANG_GUARD, "the gateway never re-listed");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(client.prefix().await, before, "{head}");
        // What the model can use changed: that is told, and served; and only
        // that was (the reorder's rebuild was decided before it).
        told_once_of_a_tool_added(&gw, &setup, &[&client]).await;
        assert_ne!(client.prefix().await, before, "{head}");
    }
}

#[tokio::test]
#[ignore = "needs python, node and the toolsearch binary; `cargo xtask test` runs it"]
async fn two_gateways_with_one_config_serve_the_same_bytes() {
    for head in [
        "mode = \"code\"\nactivation = \"always\"",
        "mode = \"tools\"\nactivation = \"always\"",
        "mode = \"code\"\nactivation = \"never\"",
    ] {
        let setup = Setup::new(head);
        // Every fixture server behind the churn one, in one config.
        let mut text = std::fs::read_to_string(&setup.config).unwrap();
        text.push_str(&servers());
        std::fs::write(&setup.config, text).unwrap();
        let (a, b) = (Gateway::start(&setup.config), Gateway::start(&setup.config));
        let (ca, cb) = (Client::connect(a.port).await, Client::connect(b.port).await);
        // Both have every server's tools (the time server's last).
        let pa = listed(&ca, "convert_time").await;
        let pb = listed(&cb, "convert_time").await;
        assert!(
            pa.0.contains("rollback") && pa.0.contains("get-sum"),
            "{}",
            pa.0
        );
        assert_eq!(pa, pb, "{head}: two replicas");
        // And a restart: the first list of a new process, at once.
        drop(a);
        let c = Gateway::start(&setup.config);
        let cc = Client::connect(c.port).await;
        assert_eq!(
            cc.prefix().await,
            pa,
            "{head}: the first list after a restart"
        );
    }
}
