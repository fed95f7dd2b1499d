//! One server behind the gateway: start it (a stdio child, a streamable HTTP
//! endpoint or an in-process link), list its tools, re-list them when it says
//! they changed, and keep it connected: a server that fails to start or dies is
//! marked down and retried with backoff, and the rest of the gateway never
//! waits on it.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::service::{Peer, RoleClient, RunningService};
use rmcp::ServiceExt;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::calls::Calls;
use super::child::ServerProcess;
use super::handler::{client_info, Handler};
use super::listing::list_tools;
use crate::config::ServerConfig;

/// First retry delay after a failure; doubled up to [`MAX_BACKOFF`].
pub const MIN_BACKOFF: Duration = Duration::from_millis(250);
/// How long a connection's service may take to end once cancelled.
const SERVICE_STOP: Duration = Duration::from_millis(500);

/// Longest wait between reconnection attempts.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);

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
    child: Option<ServerProcess>,
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
        // The status and the log carry no secret a server's URL holds.
        let why = crate::text::redact_urls(&why).into_owned();
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
                    self.set_down(format!("server `{}` failed to start: {e:#}", self.name()))
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
            server: self.name().to_string(),
            calls: Arc::downgrade(&self.calls),
            marked: self.link.is_none() && self.cfg.command.is_none(),
            relist: relist.clone(),
            info: client_info(),
        };
        let (running, child) = if let Some(link) = &self.link {
            let stream = link()
                .await
                .map_err(|e| anyhow::anyhow!("cannot reach the linked server: {e}"))?;
            let (read, write) = tokio::io::split(stream);
            let transport = super::pipe::transport(self.name(), read, write);
            (handler.serve(transport).await?, None)
        } else if self.cfg.command.is_some() {
            let (process, (stdout, stdin)) = ServerProcess::spawn(self.name(), &self.cfg)?;
            let transport = super::pipe::transport(self.name(), stdout, stdin);
            (handler.serve(transport).await?, Some(process))
        } else {
            let url = self.cfg.url.clone().unwrap_or_default();
            let transport = super::http_client::transport(&self.cfg, &url)?;
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

    /// Waits until `child` exits (for ever without one); how it ended.
    async fn exited(child: Option<&mut super::child::ServerProcess>) -> String {
        match child {
            Some(c) => c.exited().await,
            None => std::future::pending().await,
        }
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
                // Any process the gateway started for the server (its keeper)
                // ending ends the connection at once: its calls in flight are
                // answered (UNAVAILABLE) now, not at their timeout, and the
                // server is started again as after a crash.
                status = Self::exited(child.as_mut()) => {
                    ct.cancel();
                    let _ = tokio::time::timeout(SERVICE_STOP, &mut waiting).await;
                    tracing::warn!(server = self.name(), %status, "the server's process ended");
                    break format!("its process ended: {status}");
                }
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
                            let why = crate::text::redact_urls(&format!("server `{}`: re-listing its tools failed: {e}", self.name())).into_owned();
                            tracing::warn!(server = self.name(), error = %crate::text::redact_urls(&e.to_string()), "re-listing tools failed; keeping the last list");
                            self.state().error = Some(why);
                        }
                    }
                }
                () = shutdown.cancelled() => {
                    ct.cancel();
                    let _ = tokio::time::timeout(SERVICE_STOP, &mut waiting).await;
                    break "shut down".to_string();
                }
            }
        };
        self.state().peer = None;
        if let Some(child) = child {
            child.stop(self.name()).await;
        }
        ended
    }
}
