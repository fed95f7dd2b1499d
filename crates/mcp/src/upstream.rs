//! One downstream MCP server: start it (a stdio child or a streamable HTTP
//! endpoint), list its tools (following pagination), re-list them when it says
//! they changed, and keep it connected: a server that fails to start or dies is
//! marked down and retried with backoff, and the rest of the gateway never waits
//! on it.
// MCP logging is deprecated by SEP-2577, but the servers in front of which the
// gateway stands still send it, and clients still read it: it is forwarded.
#![allow(deprecated)]

use std::process::Stdio;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use rmcp::model::{
    ClientConfig, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, LoggingMessageNotificationParam, ProgressNotificationParam,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RoleClient, RunningService};
use rmcp::{ClientHandler, ErrorData as McpError, ServiceExt};
use serde_json::Value;
use tokio::io::AsyncBufReadExt;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::config::ServerConfig;
use crate::route::{Calls, Relation};

/// First retry delay after a failure; doubled up to [`MAX_BACKOFF`].
pub const MIN_BACKOFF: Duration = Duration::from_millis(250);
/// Longest wait between reconnection attempts.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// How long a stopping server may take to exit before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(2);
/// Longest line of a server's stderr that is logged.
const MAX_LOG_LINE: usize = 2000;

/// Variables a stdio server inherits from the gateway; every other variable of the
/// gateway (its tokens among them) stays out of it. `env` in the config adds more.
const INHERITED_ENV: [&str; 13] = [
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TERM",
    "TMPDIR",
    "TZ",
    "SHELL",
    "PYENV_ROOT",
    "VIRTUAL_ENV",
];
/// Prefixes of variables a stdio server inherits (toolchain settings, not secrets).
const INHERITED_PREFIXES: [&str; 4] = ["NODE_", "npm_config_", "PYTHON", "XDG_"];

/// Opens a byte stream to an in-process server that speaks MCP on it (newline
/// delimited JSON-RPC, as over stdio): for embedders whose servers live in the
/// same process, and for tests. A server with a link is reached through it,
/// whatever its `command` or `url` say.
pub type Link = Arc<
    dyn Fn() -> futures::future::BoxFuture<'static, std::io::Result<tokio::io::DuplexStream>>
        + Send
        + Sync,
>;

/// A change the gateway must act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// This server's tools or state changed: build a new snapshot.
    Changed(String),
}

/// What is known about the server now.
#[derive(Default)]
struct State {
    peer: Option<Peer<RoleClient>>,
    /// Its tools as it last listed them (kept while it is down).
    tools: Option<Vec<Value>>,
    /// Why it is down, when it is.
    error: Option<String>,
    /// How many times it came up.
    connections: u64,
}

/// One configured server and its connection.
pub struct Upstream {
    cfg: ServerConfig,
    state: Mutex<State>,
    /// The calls in flight, where what the server sends during them goes.
    calls: Arc<Calls>,
    events: mpsc::UnboundedSender<Event>,
    startup_timeout: Duration,
    link: Option<Link>,
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("name", &self.name())
            .finish_non_exhaustive()
    }
}

/// A live connection: the service, and for stdio the child's process group.
struct Connection {
    running: RunningService<RoleClient, Handler>,
    /// Set by each `tools/list_changed`; one permit however many came.
    relist: Arc<tokio::sync::Notify>,
    child: Option<tokio::process::Child>,
}

impl Upstream {
    /// A server that is not started yet; [`Upstream::run`] keeps it connected.
    /// `one_client` says whether the gateway serves a single client for its
    /// whole life (see `route`).
    pub fn new(
        cfg: ServerConfig,
        startup_timeout: Duration,
        events: mpsc::UnboundedSender<Event>,
        one_client: Arc<AtomicBool>,
        link: Option<Link>,
    ) -> Arc<Self> {
        Arc::new(Upstream {
            cfg,
            state: Mutex::new(State::default()),
            calls: Arc::new(Calls::new(one_client)),
            events,
            startup_timeout,
            link,
        })
    }

    /// The configured name.
    pub fn name(&self) -> &str {
        self.cfg.name()
    }

    /// The configuration.
    pub fn config(&self) -> &ServerConfig {
        &self.cfg
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// True while connected.
    pub fn is_up(&self) -> bool {
        self.state()
            .peer
            .as_ref()
            .is_some_and(|p| !p.is_transport_closed())
    }

    /// The tools it last listed (`None` before it first listed them).
    pub fn tools(&self) -> Option<Vec<Value>> {
        self.state().tools.clone()
    }

    /// Why it is down (`None` when up or not tried yet).
    pub fn last_error(&self) -> Option<String> {
        self.state().error.clone()
    }

    /// How many times it came up (reconnections included).
    pub fn connections(&self) -> u64 {
        self.state().connections
    }

    /// The connection to call through, or why there is none.
    pub fn peer(&self) -> Result<Peer<RoleClient>, String> {
        let st = self.state();
        match &st.peer {
            Some(p) if !p.is_transport_closed() => Ok(p.clone()),
            _ => Err(st
                .error
                .clone()
                .unwrap_or_else(|| "not connected yet".to_string())),
        }
    }

    /// The calls in flight on this server.
    pub(crate) fn calls(&self) -> &Arc<Calls> {
        &self.calls
    }

    fn changed(&self) {
        let _ = self.events.send(Event::Changed(self.name().to_string()));
    }

    fn set_down(&self, why: String) {
        let was_up = {
            let mut st = self.state();
            let was_up = st.peer.take().is_some();
            st.error = Some(why.clone());
            was_up
        };
        tracing::warn!(server = self.name(), reason = %why, "server unavailable");
        if was_up {
            self.changed();
        }
    }

    /// Keeps the server connected until `shutdown` fires: connect, serve, and on
    /// failure wait (backoff doubling from 250 ms to 30 s) and try again.
    pub async fn run(self: Arc<Self>, shutdown: CancellationToken) {
        let mut backoff = MIN_BACKOFF;
        let mut first = true;
        while !shutdown.is_cancelled() {
            let attempt = tokio::time::timeout(self.startup_timeout, self.connect());
            let outcome = tokio::select! {
                r = attempt => r,
                () = shutdown.cancelled() => break,
            };
            match outcome {
                Ok(Ok(conn)) => {
                    backoff = MIN_BACKOFF;
                    let healthy = self.serve(conn, &shutdown).await;
                    if shutdown.is_cancelled() {
                        break;
                    }
                    self.set_down(format!("server `{}` disconnected ({healthy})", self.name()));
                }
                Ok(Err(e)) => {
                    self.set_down(format!("server `{}` failed to start: {e}", self.name()))
                }
                Err(_) => self.set_down(format!(
                    "server `{}` did not start within {} ms",
                    self.name(),
                    self.startup_timeout.as_millis()
                )),
            }
            if first {
                first = false;
                // The fleet waits for each server's first attempt.
                self.changed();
            }
            tokio::select! {
                () = tokio::time::sleep(backoff) => {}
                () = shutdown.cancelled() => break,
            }
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
        self.state().peer = None;
    }

    async fn connect(self: &Arc<Self>) -> anyhow::Result<Connection> {
        let relist = Arc::new(tokio::sync::Notify::new());
        let handler = Handler {
            upstream: Arc::downgrade(self),
            marked: self.link.is_none() && self.cfg.command.is_none(),
            relist: relist.clone(),
            info: client_info(),
        };
        let (running, child) = if let Some(link) = &self.link {
            let stream = link()
                .await
                .map_err(|e| anyhow::anyhow!("cannot reach the linked server: {e}"))?;
            (handler.serve(stream).await?, None)
        } else if let Some(command) = &self.cfg.command {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(&self.cfg.args)
                .env_clear()
                .envs(inherited_env())
                .envs(&self.cfg.env)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .kill_on_drop(true)
                // Its own process group: stopping it stops what it started (npx → node).
                .process_group(0);
            if let Some(cwd) = &self.cfg.cwd {
                cmd.current_dir(cwd);
            }
            let mut child = cmd
                .spawn()
                .map_err(|e| anyhow::anyhow!("cannot run `{command}`: {e}"))?;
            let (stdout, stdin) = (
                child.stdout.take().expect("piped"),
                child.stdin.take().expect("piped"),
            );
            if let Some(stderr) = child.stderr.take() {
                tokio::spawn(log_stderr(self.name().to_string(), stderr));
            }
            let running = handler.serve((stdout, stdin)).await?;
            (running, Some(child))
        } else {
            let url = self.cfg.url.clone().unwrap_or_default();
            let transport = crate::http_client::transport(&self.cfg, &url)?;
            (handler.serve(transport).await?, None)
        };
        let tools = list_tools(running.peer()).await?;
        {
            let mut st = self.state();
            st.tools = Some(tools);
            st.peer = Some(running.peer().clone());
            st.error = None;
            st.connections += 1;
        }
        tracing::info!(server = self.name(), "server connected");
        self.changed();
        Ok(Connection {
            running,
            relist,
            child,
        })
    }

    /// Serves one connection until it ends or `shutdown` fires; says how it ended.
    /// A `tools/list_changed` re-lists the tools: at most one listing runs at a
    /// time and any number of notifications during it make one more (a storm
    /// costs two listings), each bounded like the first (see [`list_tools`]).
    async fn serve(&self, conn: Connection, shutdown: &CancellationToken) -> String {
        let Connection {
            running,
            relist,
            mut child,
        } = conn;
        let peer = running.peer().clone();
        let ct = running.cancellation_token();
        let mut waiting = Box::pin(running.waiting());
        let mut listing: Option<futures::future::BoxFuture<'static, anyhow::Result<Vec<Value>>>> =
            None;
        let ended = loop {
            tokio::select! {
                r = &mut waiting => break format!("{:?}", r.map(|q| format!("{q:?}")).unwrap_or_else(|e| e.to_string())),
                () = relist.notified(), if listing.is_none() => {
                    let (peer, limit) = (peer.clone(), self.startup_timeout);
                    listing = Some(Box::pin(async move {
                        tokio::time::timeout(limit, list_tools(&peer))
                            .await
                            .unwrap_or_else(|_| Err(anyhow::anyhow!("its tools/list did not finish within {} ms", limit.as_millis())))
                    }));
                }
                listed = async { listing.as_mut().expect("guarded").await }, if listing.is_some() => {
                    listing = None;
                    match listed {
                        Ok(tools) => {
                            {
                                let mut st = self.state();
                                st.tools = Some(tools);
                                st.error = None;
                            }
                            tracing::info!(server = self.name(), "tool list changed");
                            self.changed();
                        }
                        Err(e) => {
                            // The last good list stays; the reason is shown in `status`.
                            let why = format!("server `{}`: re-listing its tools failed: {e}", self.name());
                            tracing::warn!(server = self.name(), error = %e, "re-listing tools failed; keeping the last list");
                            self.state().error = Some(why);
                        }
                    }
                }
                () = shutdown.cancelled() => {
                    ct.cancel();
                    let _ = tokio::time::timeout(STOP_GRACE, &mut waiting).await;
                    break "shut down".to_string();
                }
            }
        };
        self.state().peer = None;
        if let Some(child) = child.as_mut() {
            stop_child(self.name(), child).await;
        }
        ended
    }
}

/// Most pages of one `tools/list` the gateway reads.
pub const MAX_LIST_PAGES: usize = 100;
/// Most tools one `tools/list` may hold.
pub const MAX_LISTED_TOOLS: usize = 100_000;
/// Most bytes (as JSON) the tools of one `tools/list` may take.
pub const MAX_LISTED_BYTES: usize = 64 << 20;

/// Every tool the server lists, all pages, within [`MAX_LIST_PAGES`],
/// [`MAX_LISTED_TOOLS`] and [`MAX_LISTED_BYTES`]; a cursor seen before ends
/// the listing as an error too (a loop). Past a bound the listing fails whole:
/// a partial list would serve tools the server may no longer have.
pub(crate) async fn list_tools(peer: &Peer<RoleClient>) -> anyhow::Result<Vec<Value>> {
    let mut tools = Vec::new();
    let mut bytes = 0usize;
    let mut cursor: Option<String> = None;
    let mut cursors = std::collections::HashSet::new();
    for _ in 0..MAX_LIST_PAGES {
        let params = rmcp::model::PaginatedRequestParams::default().with_cursor(cursor.take());
        let page = peer.list_tools(Some(params)).await?;
        for t in page.tools {
            let v = serde_json::to_value(t)?;
            bytes += serde_json::to_vec(&v).map_or(0, |b| b.len());
            tools.push(v);
        }
        if tools.len() > MAX_LISTED_TOOLS {
            anyhow::bail!("it lists more than {MAX_LISTED_TOOLS} tools (the most the gateway takes from one server)");
        }
        if bytes > MAX_LISTED_BYTES {
            anyhow::bail!(
                "its tools take more than {} MiB as JSON (the most the gateway takes from one server)",
                MAX_LISTED_BYTES >> 20
            );
        }
        match page.next_cursor {
            None => return Ok(tools),
            Some(next) => {
                if !cursors.insert(next.clone()) {
                    anyhow::bail!(
                        "its tools/list pagination loops (cursor `{}` came twice)",
                        crate::clean_for_log(&next, 80)
                    );
                }
                cursor = Some(next);
            }
        }
    }
    anyhow::bail!("its tools/list goes on past {MAX_LIST_PAGES} pages (the most the gateway reads)")
}

/// Ends a stdio server and everything it started: SIGTERM to its process group,
/// then SIGKILL after a grace period.
pub(crate) async fn stop_child(server: &str, child: &mut tokio::process::Child) {
    use nix::sys::signal::{killpg, Signal};
    use nix::unistd::Pid;
    let Some(pid) = child.id() else {
        return;
    };
    let group = Pid::from_raw(pid as i32);
    let _ = killpg(group, Signal::SIGTERM);
    if tokio::time::timeout(STOP_GRACE, child.wait())
        .await
        .is_err()
    {
        tracing::warn!(
            server,
            "server did not stop within 2 s of SIGTERM; killing it"
        );
    }
    // Whatever it started and left behind goes too.
    let _ = killpg(group, Signal::SIGKILL);
    let _ = child.wait().await;
}

fn inherited_env() -> Vec<(String, String)> {
    std::env::vars()
        .filter(|(k, _)| {
            INHERITED_ENV.contains(&k.as_str())
                || INHERITED_PREFIXES.iter().any(|p| k.starts_with(p))
        })
        .collect()
}

/// Logs a server's stderr lines (cleaned, capped) on the gateway's stderr: they can
/// never reach the gateway's stdout, which is the protocol.
async fn log_stderr(server: String, stderr: tokio::process::ChildStderr) {
    let mut lines = tokio::io::BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let line = crate::clean_for_log(&line, MAX_LOG_LINE);
        tracing::info!(target: "toolsearch::server", server = %server, "{line}");
    }
}

fn client_info() -> ClientConfig {
    let mut info = ClientConfig::default();
    // The newest released revision that servers in the field speak; rmcp would
    // offer its newest draft, which many servers (and the conformance suite) refuse.
    info.protocol_version = rmcp::model::ProtocolVersion::V_2025_11_25;
    info.client_info.name = "toolsearch".into();
    info.client_info.version = env!("CARGO_PKG_VERSION").into();
    // Requests a server makes during a call go to the client that made it (see
    // `Handler::ask_caller`); one whose client cannot answer gets an error.
    if let Ok(caps) = serde_json::from_value(serde_json::json!({
        "sampling": {},
        "elicitation": {"form": {}}
    })) {
        info.capabilities = caps;
    }
    info
}

/// The client side of one connection: what the server sends, routed to the
/// call it belongs to (see `route`).
struct Handler {
    upstream: Weak<Upstream>,
    /// The transport marks the request each message relates to (HTTP).
    marked: bool,
    relist: Arc<tokio::sync::Notify>,
    info: ClientConfig,
}

impl Handler {
    /// Forwards a request the server makes during a call to the client that made
    /// that call; a request that names no call in flight is refused, never
    /// guessed: a sampling prompt carries data another client must not see.
    async fn ask_caller(
        &self,
        method: &str,
        params: Value,
        rel: Relation,
    ) -> Result<Value, McpError> {
        let refuse = |why: String| McpError::new(rmcp::model::ErrorCode(-32600), why, None);
        let Some(up) = self.upstream.upgrade() else {
            return Err(refuse("the gateway is shutting down".into()));
        };
        let Some(to) = up.calls.route(&rel).await else {
            tracing::warn!(
                server = up.name(),
                method,
                "refused a server request that belongs to no call in flight"
            );
            return Err(refuse(format!(
                "`{method}` is answered only during the call it belongs to: send it on that \
                 call's response stream (streamable HTTP) or with the call's progress token \
                 in `_meta`"
            )));
        };
        tracing::info!(
            server = up.name(),
            method,
            "forwarding a server request to the client"
        );
        to.0.ask(method, params)
            .await
            .map_err(|e| McpError::new(rmcp::model::ErrorCode(e.code), e.message, None))
    }

    /// [`Handler::ask_caller`] with typed params and answer.
    async fn relay<R: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: impl serde::Serialize,
        cx: &RequestContext<RoleClient>,
    ) -> Result<R, McpError> {
        let params = serde_json::to_value(params)
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        let mut rel = Relation::of_meta(&cx.meta, self.marked);
        if rel.request.is_none() {
            // rmcp's own record of the response stream a request came on.
            if let Some(rmcp::service::InboundStreamOrigin::OutboundRequest(id)) =
                cx.extensions.get::<rmcp::service::InboundStreamOrigin>()
            {
                rel.request = Some(crate::route::id_key(id));
            }
        }
        let v = self.ask_caller(method, params, rel).await?;
        serde_json::from_value(v).map_err(|e| {
            McpError::internal_error(
                format!("the client's answer to `{method}` is not valid: {e}"),
                None,
            )
        })
    }
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    async fn on_tool_list_changed(&self, _cx: NotificationContext<RoleClient>) {
        // One permit however many come: a storm makes one more listing.
        self.relist.notify_one();
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _cx: NotificationContext<RoleClient>,
    ) {
        let Some(up) = self.upstream.upgrade() else {
            return;
        };
        // Only the call whose token it carries: never the one-client fallback.
        let rel = Relation::of_token(&params.progress_token);
        if let Some(to) = up.calls.route_named(&rel).await {
            to.0.progress(params.progress, params.total, params.message);
        }
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        cx: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, McpError> {
        self.relay("sampling/createMessage", params, &cx).await
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        cx: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        self.relay("elicitation/create", params, &cx).await
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        cx: NotificationContext<RoleClient>,
    ) {
        let Some(up) = self.upstream.upgrade() else {
            return;
        };
        let level = serde_json::to_value(params.level)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| "info".into());
        // The gateway's log always; the client of the call it belongs to, if any.
        let text = crate::clean_for_log(&params.data.to_string(), MAX_LOG_LINE);
        tracing::info!(target: "toolsearch::server", server = up.name(), level = %level, "{text}");
        // rmcp 3.11 moves a notification's extensions into the context before
        // its `_meta` (which lives among them), so `cx.meta` comes out empty:
        // the `_meta` is read where it went.
        let rel = match cx.extensions.get::<rmcp::model::NotificationMetaObject>() {
            Some(meta) => Relation::of_meta(&meta.0, self.marked),
            None => Relation::of_meta(&cx.meta.0, self.marked),
        };
        if let Some(to) = up.calls.route(&rel).await {
            to.0.log(&level, params.logger.as_deref(), params.data);
        }
    }
}
