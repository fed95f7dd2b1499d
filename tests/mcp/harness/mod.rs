//! The gateway in process, under plain `cargo test` (no node, no binary): its
//! servers are [`script::Script`]s, over an in-process byte stream or over
//! streamable HTTP on a loopback port, and its clients are rmcp clients over
//! in-process byte streams, each one MCP session that records what reaches it.

pub mod script;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{NotificationContext, RequestContext, RoleClient, RunningService};
use rmcp::ServiceExt;
use serde_json::{json, Value};
use toolsearch_mcp::{Config, Gateway, Link};

pub use script::Script;

/// How a server is reached.
pub enum Reach {
    /// An in-process byte stream (what stdio is).
    Stream(Arc<Script>),
    /// Streamable HTTP on a loopback port.
    Http(Arc<Script>),
}

/// A gateway in tools mode (no sandbox needed) over `servers`, by name.
pub async fn gateway(servers: Vec<(&str, Reach)>, extra: &str) -> Arc<Gateway> {
    gateway_with(
        &format!("mode = \"tools\"\nactivation = \"always\"\nsemantic = false\n{extra}\n"),
        servers,
    )
    .await
}

/// A gateway whose file starts with `head` (mode, activation, ...) over `servers`.
pub async fn gateway_with(head: &str, servers: Vec<(&str, Reach)>) -> Arc<Gateway> {
    let mut toml = format!("{head}\n");
    let mut links: HashMap<String, Link> = HashMap::new();
    for (name, reach) in servers {
        match reach {
            Reach::Stream(script) => {
                toml.push_str(&format!(
                    "[[servers]]\nname = \"{name}\"\ncommand = \"in-process\"\n"
                ));
                links.insert(
                    name.to_string(),
                    Arc::new(move || {
                        let script = script.clone();
                        Box::pin(async move { Ok(script::stream(script)) })
                    }),
                );
            }
            Reach::Http(script) => {
                let url = script::http(script).await;
                toml.push_str(&format!(
                    "[[servers]]\nname = \"{name}\"\nurl = \"{url}\"\n"
                ));
            }
        }
    }
    toolsearch_tests::isolate_state();
    let cfg = Config::parse(&toml).unwrap();
    let gw = Gateway::start_linked(&cfg, None, &links).await.unwrap();
    // The servers' first starts are over before a test looks (the gateway
    // itself answers at once and waits for none).
    gw.settle(cfg.startup_timeout() + std::time::Duration::from_secs(1))
        .await;
    gw
}

/// What reached one client.
#[derive(Default)]
pub struct Seen {
    pub logs: Vec<String>,
    pub progress: Vec<f64>,
    pub prompts: Vec<String>,
    pub questions: Vec<String>,
    /// `notifications/tools/list_changed` heard.
    pub list_changed: usize,
}

/// A client that records what reaches it, answers sampling with
/// `<prompt>@<name>` and elicitation with `{who: name}`.
#[derive(Clone)]
pub struct Recorder {
    pub name: String,
    pub seen: Arc<Mutex<Seen>>,
}

#[allow(deprecated)]
impl rmcp::ClientHandler for Recorder {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"sampling": {}, "elicitation": {"form": {}}},
            "clientInfo": {"name": self.name, "version": "0"}
        }))
        .unwrap()
    }

    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _cx: NotificationContext<RoleClient>,
    ) {
        let text = params
            .data
            .as_str()
            .map_or_else(|| params.data.to_string(), str::to_string);
        self.seen.lock().unwrap().logs.push(text);
    }

    async fn on_tool_list_changed(&self, _cx: NotificationContext<RoleClient>) {
        self.seen.lock().unwrap().list_changed += 1;
    }

    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _cx: NotificationContext<RoleClient>,
    ) {
        self.seen.lock().unwrap().progress.push(params.progress);
    }

    async fn create_message(
        &self,
        params: rmcp::model::CreateMessageRequestParams,
        _cx: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, rmcp::ErrorData> {
        let asked = serde_json::to_value(&params).unwrap();
        let prompt = asked["messages"][0]["content"]["text"]
            .as_str()
            .unwrap_or("")
            .to_string();
        self.seen.lock().unwrap().prompts.push(prompt.clone());
        Ok(serde_json::from_value(json!({
            "role": "assistant",
            "content": {"type": "text", "text": format!("{prompt}@{}", self.name)},
            "model": "recorder",
            "stopReason": "endTurn"
        }))
        .unwrap())
    }

    async fn create_elicitation(
        &self,
        params: rmcp::model::ElicitRequestParams,
        _cx: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        let asked = serde_json::to_value(&params).unwrap();
        self.seen
            .lock()
            .unwrap()
            .questions
            .push(asked["message"].as_str().unwrap_or("").to_string());
        Ok(
            serde_json::from_value(json!({"action": "accept", "content": {"who": self.name}}))
                .unwrap(),
        )
    }
}

/// One client of the gateway, in process.
pub struct Client {
    pub recorder: Recorder,
    pub service: RunningService<RoleClient, Recorder>,
}

impl Client {
    /// Opens an MCP session of `gw` for a client named `name`.
    pub async fn connect(gw: &Arc<Gateway>, name: &str) -> Client {
        Client::connect_as(gw, name, "default").await
    }

    /// Opens an MCP session of `gw`'s profile `profile` for a client named `name`.
    pub async fn connect_as(gw: &Arc<Gateway>, name: &str, profile: &str) -> Client {
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let session = gw.session_as(profile).expect("a configured profile");
        tokio::spawn(async move {
            if let Ok(running) = session.serve(theirs).await {
                let _ = running.waiting().await;
            }
        });
        let recorder = Recorder {
            name: name.to_string(),
            seen: Arc::default(),
        };
        let service = recorder.clone().serve(ours).await.unwrap();
        Client { recorder, service }
    }

    /// Calls `tool` of the gateway's server `server` through `tool_call`.
    pub async fn call(&self, server: &str, tool: &str, args: Value) -> CallToolResult {
        let args = json!({"id": format!("mcp:{server}:{tool}"), "arguments": args});
        self.service
            .peer()
            .call_tool(
                CallToolRequestParams::new("tool_call")
                    .with_arguments(args.as_object().unwrap().clone()),
            )
            .await
            .unwrap()
    }

    /// What reached this client so far.
    pub fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.recorder.seen.lock().unwrap()
    }
}

/// The text of a result's first content block, parsed as JSON when it is.
pub fn text(r: &CallToolResult) -> Value {
    let v = serde_json::to_value(r).unwrap();
    let t = v["content"][0]["text"].as_str().unwrap_or("").to_string();
    serde_json::from_str(&t).unwrap_or(Value::String(t))
}

/// A `tool_search_code` answer in one object, as the library's `ToolOutput`
/// content has it: `{ok, value, logs?, search_notes?, hint?}` from a success
/// (the value's text item, then the notes item when there is one), the error
/// object with `ok: false` from a failure.
pub fn code_view(r: &CallToolResult) -> Value {
    let first = text(r);
    if r.is_error == Some(true) {
        let mut v = first;
        v["ok"] = Value::Bool(false);
        return v;
    }
    let mut out = serde_json::json!({"ok": true, "value": first});
    let v = serde_json::to_value(r).unwrap();
    let items = v["content"].as_array().cloned().unwrap_or_default();
    if items.len() > 1 {
        if let Some(t) = items.last().and_then(|i| i["text"].as_str()) {
            if let Ok(Value::Object(extra)) = serde_json::from_str::<Value>(t) {
                for (k, x) in extra {
                    out[k] = x;
                }
            }
        }
    }
    out
}

/// The `Accept` of a streamable HTTP client.
pub const ACCEPT: &str = "application/json, text/event-stream";

/// A POST of `body` on session `id` over raw HTTP (2025-11-25).
pub fn http_post(
    http: &reqwest::Client,
    url: &str,
    id: &str,
    body: &Value,
) -> reqwest::RequestBuilder {
    http.post(url)
        .header("accept", ACCEPT)
        .header("content-type", "application/json")
        .header("mcp-session-id", id)
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string())
}

/// Opens a session over raw HTTP with client `capabilities` (`initialize`,
/// then `notifications/initialized`, answered 202); its id, or the status and
/// body of a refused `initialize`.
pub async fn open_http_session(
    http: &reqwest::Client,
    url: &str,
    capabilities: Value,
) -> Result<String, (u16, String)> {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities,
        "clientInfo": {"name": "raw", "version": "0"}}});
    let r = http
        .post(url)
        .header("accept", ACCEPT)
        .header("content-type", "application/json")
        .body(init.to_string())
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let id = r
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_string());
    let body = r.text().await.unwrap_or_default();
    let Some(id) = id.filter(|_| status == 200) else {
        return Err((status, body));
    };
    let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let r = http_post(http, url, &id, &done).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 202);
    Ok(id)
}

/// A client of the gateway at `url` over streamable HTTP, named `name`, that
/// records what reaches it.
pub async fn http_client(url: &str, name: String) -> RunningService<RoleClient, Recorder> {
    http_client_with(url, name, None).await
}

/// [`http_client`], sending `token` as its bearer token.
pub async fn http_client_with(
    url: &str,
    name: String,
    token: Option<&str>,
) -> RunningService<RoleClient, Recorder> {
    toolsearch_mcp::http_client::install_tls_provider();
    let mut headers = reqwest::header::HeaderMap::new();
    if let Some(t) = token {
        headers.insert(
            reqwest::header::AUTHORIZATION,
            format!("Bearer {t}").parse().unwrap(),
        );
    }
    // Its connections close 1 s after its last request: the clients' side of
    // the sockets is gone soon after they leave.
    let http = reqwest::Client::builder()
        .pool_idle_timeout(std::time::Duration::from_secs(1))
        .default_headers(headers)
        .build()
        .unwrap();
    let transport = rmcp::transport::StreamableHttpClientTransport::with_client(
        http,
        rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
            url.to_string(),
        ),
    );
    let recorder = Recorder {
        name,
        seen: Arc::default(),
    };
    recorder.serve(transport).await.expect("connect")
}

/// Serves `gw` over streamable HTTP on a loopback port with `cfg`; returns its
/// URL and the token that stops it.
pub async fn serve_http(
    gw: Arc<Gateway>,
    cfg: &Config,
) -> (String, tokio_util::sync::CancellationToken) {
    let stop = tokio_util::sync::CancellationToken::new();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let (cfg, s) = (cfg.clone(), stop.clone());
    tokio::spawn(async move {
        let addr = "127.0.0.1:0".parse().unwrap();
        let _ = toolsearch_mcp::serve::http(gw, &cfg, addr, s, None, |url| {
            let _ = tx.send(url.to_string());
        })
        .await;
    });
    (rx.await.unwrap(), stop)
}

/// Runs `body` as the only test of a child copy of this test binary (for
/// figures of the whole process, such as RSS, that tests running beside it
/// would change) and asserts that it passed; inside the child, runs `body`.
pub fn alone(test_path: &str, body: impl FnOnce()) {
    const VAR: &str = "TOOLSEARCH_CHILD_CASE";
    if std::env::var(VAR).as_deref() == Ok(test_path) {
        body();
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            test_path,
            "--exact",
            "--nocapture",
            "--test-threads=1",
            "--include-ignored",
        ])
        .env(VAR, test_path)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    eprint!("{stderr}");
}

/// A runtime like the HTTP gateway's (two workers), for tests that run in a
/// process of their own ([`alone`]).
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// This process's resident memory, KiB.
pub fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Waits (20 s at most: a loaded machine is slow, never this slow) until `f`
/// holds; whether it did.
pub async fn until(mut f: impl FnMut() -> bool) -> bool {
    let end = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    while tokio::time::Instant::now() < end {
        if f() {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    f()
}

/// A raw client (newline-delimited JSON, no SDK) of a new session of `gw` over an in-process pipe of `pipe`
/// bytes: its lines and its writer, initialized.
pub async fn raw_session(
    gw: &Arc<Gateway>,
    pipe: usize,
) -> (
    tokio::io::Lines<tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    tokio::io::WriteHalf<tokio::io::DuplexStream>,
) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let (ours, theirs) = tokio::io::duplex(pipe);
    let session = gw.session();
    tokio::spawn(async move {
        if let Ok(running) = session.serve(theirs).await {
            let _ = running.waiting().await;
        }
    });
    let (read, mut write) = tokio::io::split(ours);
    let mut lines = tokio::io::BufReader::new(read).lines();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}});
    write
        .write_all(format!("{init}\n").as_bytes())
        .await
        .unwrap();
    let _ = lines.next_line().await.unwrap();
    let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    write
        .write_all(format!("{done}\n").as_bytes())
        .await
        .unwrap();
    (lines, write)
}
