//! One MCP session of the gateway: the client's requests (`tools/list`,
//! `tools/call`), answered from the shared gateway, and the state the session
//! owns, released when it ends.
// MCP logging is deprecated by SEP-2577, but the servers in front of which the
// gateway stands still send it, and clients still read it: it is forwarded.
#![allow(deprecated)]

use std::sync::atomic::Ordering;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler};
use serde_json::Value;
use toolsearch::{
    BridgeTool, CallOptions, Conversation, ErrorCode, Mode, Notifier, Session, Shape, ToolOutput,
};
use tracing::Instrument;

use super::notes::{flush, note_queue, ToClient};
use super::round::{Binding, Round};
use super::Gateway;

/// How long a call in flight when the gateway stops may take to wind down
/// once cancelled, before it is answered anyway.
const STOP_WIND_DOWN: std::time::Duration = std::time::Duration::from_millis(500);

/// The JSON-RPC error of a call the gateway's stop ended or refused.
fn stopped() -> McpError {
    McpError::new(
        rmcp::model::ErrorCode(SHUTTING_DOWN),
        "the gateway is shutting down: the call was stopped; retry on another instance or later",
        None,
    )
}

/// The JSON-RPC error code of a call ended by the gateway's stop (in the
/// range JSON-RPC leaves to servers).
pub const SHUTTING_DOWN: i32 = -32001;

/// Counts one tool call as being answered while it lives.
struct Answering(Arc<std::sync::atomic::AtomicUsize>);

impl Answering {
    fn enter(count: &Arc<std::sync::atomic::AtomicUsize>) -> Answering {
        count.fetch_add(1, Ordering::AcqRel);
        Answering(count.clone())
    }
}

impl Drop for Answering {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Gateway {
    /// A handler for one new MCP session of the `default` profile (stdio,
    /// token-less loopback HTTP).
    pub fn session(self: &Arc<Self>) -> GatewaySession {
        self.session_as(crate::config::DEFAULT_PROFILE)
            .expect("the default profile is always served")
    }

    /// A handler for one new MCP session of the profile `name` (`None` when
    /// there is no such profile).
    pub fn session_as(self: &Arc<Self>, name: &str) -> Option<GatewaySession> {
        let p = self.profile(name)?;
        let n = self.next_session.fetch_add(1, Ordering::Relaxed);
        self.open.fetch_add(1, Ordering::Relaxed);
        p.opened();
        let id = format!("mcp-{n}");
        self.book.opened(&id, name);
        Some(GatewaySession {
            gw: self.clone(),
            profile_name: name.to_string(),
            principal: None,
            bound: std::sync::Mutex::new(Bound {
                conversation: p.ts.open(Session::new(id.clone())),
                profile: p,
            }),
            id,
        })
    }

    /// Sessions of the profile `name` open now.
    pub fn open_sessions_of(&self, name: &str) -> u64 {
        self.profile(name)
            .map_or(0, |p| p.open.load(Ordering::Relaxed))
    }
}

/// One MCP session of the gateway. It owns its conversation (its reveals,
/// its turn record) and its entry in the gateway's list of clients
/// told of list changes: dropping it (the transport closed, the client sent
/// DELETE, the idle TTL passed) releases them, and the calls it was running
/// are cancelled by their transport.
pub struct GatewaySession {
    gw: Arc<Gateway>,
    id: String,
    profile_name: String,
    /// Who opened it, over HTTP (see `auth::Caller::principal`).
    principal: Option<Arc<str>>,
    /// Its profile's facade in force and its conversation there: a new
    /// configuration that makes the facade again moves the session to it
    /// with its next request.
    bound: std::sync::Mutex<Bound>,
}

/// A session's profile and its conversation with that profile's facade.
#[derive(Clone)]
struct Bound {
    profile: Arc<super::profile::Profile>,
    conversation: Conversation,
}

impl GatewaySession {
    fn id(&self) -> &str {
        &self.id
    }

    /// Tells this session's client of its profile's list changes from now on.
    fn listening(&self, peer: &rmcp::service::Peer<RoleServer>) {
        self.gw
            .peers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(self.id().to_string())
            .or_insert_with(|| (self.profile_name.clone(), peer.clone()));
    }

    /// Opened by `principal` (an HTTP caller).
    pub(crate) fn of_principal(mut self, principal: Arc<str>) -> GatewaySession {
        self.gw.book.principal(&self.id, &principal);
        self.principal = Some(principal);
        self
    }

    /// Whose share of the snippet slots a call of this request draws on:
    /// its session's; for a client that holds no session (2026-07-28, each
    /// request its own handler), its principal's, so that one caller's
    /// requests share one share as a session's calls do.
    fn slot_holder(&self, cx: &RequestContext<RoleServer>) -> String {
        match &self.principal {
            Some(p) if stateless(cx) => format!("{}/principal:{p}", self.profile_name()),
            _ => format!("{}/{}", self.profile_name(), self.id()),
        }
    }

    /// The name of its profile.
    pub fn profile_name(&self) -> &str {
        &self.profile_name
    }

    /// Its profile as configured now, and its conversation there.
    ///
    /// # Errors
    /// The profile was removed from the configuration.
    fn bound(&self) -> Result<Bound, McpError> {
        let mut b = self.bound.lock().unwrap_or_else(|p| p.into_inner());
        match self.gw.profile(&self.profile_name) {
            Some(now) if Arc::ptr_eq(&now, &b.profile) => Ok(b.clone()),
            Some(now) => {
                // The count is the profile's (shared by its facades): the
                // session stays counted once.
                b.conversation = now.ts.open(Session::new(self.id.clone()));
                b.profile = now;
                Ok(b.clone())
            }
            None => Err(McpError::invalid_request(
                format!(
                    "this session's profile `{}` was removed from the gateway's configuration: the \
                     session can make no more requests",
                    self.profile_name
                ),
                None,
            )),
        }
    }

    /// The profile it is bound to (the one in force at its last request).
    fn held(&self) -> Bound {
        self.bound.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl Drop for GatewaySession {
    fn drop(&mut self) {
        self.gw
            .peers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(self.id());
        self.gw.book.closed(self.id());
        self.gw.open.fetch_sub(1, Ordering::Relaxed);
        self.held().profile.closed();
    }
}

/// An MCP result for a facade answer: the tool's own result when it ran one MCP
/// tool directly, else the answer's JSON as text.
pub fn to_result(out: ToolOutput) -> CallToolResult {
    if let Some(native) = out.passthrough {
        if let Ok(r) = serde_json::from_value::<CallToolResult>(native) {
            return r;
        }
    }
    let text = serde_json::to_string(&out.content).unwrap_or_default();
    if out.is_error {
        CallToolResult::error(vec![ContentBlock::text(text)])
    } else {
        CallToolResult::success(vec![ContentBlock::text(text)])
    }
}

impl GatewaySession {
    /// The turn line of one call: what it ran downstream, what was refused, how
    /// many searches and describes, whether it failed.
    fn log_turn(
        &self,
        conversation: &Conversation,
        name: &str,
        out: &ToolOutput,
        started: std::time::Instant,
    ) {
        let record = conversation.take_record();
        self.gw
            .metrics
            .call(self.profile_name(), name, out, &record, started.elapsed());
        self.gw.book.turn(self.id(), name, &record, out.is_error);
        let f = turn_fields(&record);
        tracing::info!(
            session = %self.id(),
            profile = self.profile_name(),
            // Who made it: what a stateless client's turns are told apart by
            // (each of its requests is a session of its own).
            principal = self.principal.as_deref().unwrap_or("anonymous"),
            tool = %crate::text::clean_for_log(name, 80),
            downstream = ?f.downstream,
            calls = record.calls,
            refused = ?f.refused,
            searches = record.searches,
            describes = record.describes,
            error = out.is_error,
            code = out.content["error"]["code"].as_str().unwrap_or(""),
            ms = started.elapsed().as_millis() as u64,
            "turn"
        );
    }
}

/// What the turn line says of a record.
struct TurnFields<'a> {
    /// Tools run downstream (not those only described).
    downstream: Vec<&'a str>,
    /// Calls refused before they ran, with their code.
    refused: Vec<(&'a str, &'static str)>,
}

fn turn_fields(record: &toolsearch::TurnRecord) -> TurnFields<'_> {
    TurnFields {
        downstream: record.called.iter().map(|s| s.id.as_str()).collect(),
        refused: record
            .refused
            .iter()
            .map(|r| (r.id.as_str(), r.code.as_str()))
            .collect(),
    }
}

impl ServerHandler for GatewaySession {
    fn get_info(&self) -> ServerConfig {
        let mut caps = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        caps.logging = Some(Default::default());
        ServerConfig::new(caps)
            .with_server_info(Implementation::new("toolsearch", env!("CARGO_PKG_VERSION")))
            .with_instructions(instructions(
                self.held()
                    .conversation
                    .shape_now(toolsearch::Provider::Mcp),
            ))
    }

    async fn on_initialized(&self, cx: NotificationContext<RoleServer>) {
        self.listening(&cx.peer);
    }

    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _cx: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        // Downstream log messages are forwarded at every level; the client filters.
        tracing::debug!(session = %self.id(), level = ?request.level, "client log level");
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        self.gw.first_list().await;
        if self.gw.is_stopping() {
            return Err(stopped());
        }
        // A client of the 2026-07-28 revision sends no `initialized`.
        self.listening(&cx.peer);
        let b = self.bound()?;
        let snapshot = self.gw.snapshots.load(Ordering::SeqCst);
        let tools = b.profile.served(snapshot, &b.conversation).await;
        let bytes = *b.profile.bytes.lock().unwrap_or_else(|p| p.into_inner());
        self.gw
            .metrics
            .listed(&self.profile_name, bytes.served, bytes.aggregator);
        let mut result = ListToolsResult::with_all_items(tools.as_ref().clone());
        // 2026-07-28 (SEP-2549): how long the list may be kept, from how long
        // it has stood; private, as every profile's list is.
        if stateless(&cx) {
            let pending = !self.gw.fleet().unknown().is_empty();
            result.ttl_ms = Some(b.profile.list_ttl(pending).as_millis() as u64);
            result.cache_scope = Some(rmcp::model::CacheScope::Private);
        }
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.gw.calls.fetch_add(1, Ordering::Relaxed);
        let _answering = Answering::enter(&self.gw.in_flight);
        // Returns at once once the first list is served, or the stop began.
        self.gw.first_list().await;
        if self.gw.is_stopping() {
            return Err(stopped());
        }
        let Bound {
            profile,
            conversation,
        } = self.bound()?;
        let name = request.name.to_string();
        // The request's span (the root of its trace, or a child of the
        // client's): its search, describe, snippet and downstream calls are
        // its children.
        let crate::telemetry::Request { span, trace } = crate::telemetry::request(
            &name,
            self.id(),
            self.profile_name(),
            &cx.meta,
            cx.extensions
                .get::<http::request::Parts>()
                .map(|p| &p.headers),
        );
        let args = Value::Object(request.arguments.unwrap_or_default());
        // `initialized` may still be in flight when the first call arrives.
        self.listening(&cx.peer);
        let bridge = BridgeTool::from_name(&name);
        let _permit = if bridge == Some(BridgeTool::SearchCode) {
            // A slot of the session's fair share, waiting briefly for one;
            // the wait ends with the client's cancel or the gateway's stop.
            let holder = self.slot_holder(&cx);
            let slot = tokio::select! {
                slot = self.gw.snippets.acquire(&holder) => slot,
                () = cx.ct.cancelled() => Err("the client cancelled the call".to_string()),
                () = self.gw.stopping.cancelled() => return Err(stopped()),
            };
            match slot {
                Ok(p) => Some(p),
                Err(why) => {
                    let out = ToolOutput::error(ErrorCode::Limit, why);
                    self.log_turn(&conversation, &name, &out, std::time::Instant::now());
                    return Ok(CallToolResponse::Complete(to_result(out)));
                }
            }
        } else {
            None
        };
        let notes = note_queue(cx.peer.clone(), cx.id.clone());
        // Cancelled by the client, by its session's end, or by the gateway's
        // stop; each stop answers with its own reason (a timeout is the
        // host's answer, never inferred from this token).
        let cancel = cx.ct.child_token();
        // A client without a session answers approvals in rounds: the one it
        // answered is redeemed before anything runs.
        let round = if stateless(&cx) {
            let principal = self.principal.as_deref().unwrap_or("anonymous");
            let config = self.gw.config_digest();
            let bound = Binding::new(principal, self.profile_name(), &config, &name, &args);
            let grant = match request.request_state.as_deref() {
                Some(state) => {
                    let answers = request.input_responses.as_ref();
                    match self
                        .gw
                        .seals
                        .redeem(state, answers, &bound, &self.gw.store)
                        .await
                    {
                        Ok(grant) => Some(grant),
                        Err(why) => {
                            let out = ToolOutput::error(ErrorCode::ApprovalDenied, why);
                            self.log_turn(&conversation, &name, &out, std::time::Instant::now());
                            return Ok(CallToolResponse::Complete(to_result(out)));
                        }
                    }
                }
                None => None,
            };
            Some((Round::new(grant, cancel.clone()), bound))
        } else {
            None
        };
        let opts = CallOptions {
            cancel: cancel.clone(),
            notify: Some(Notifier(Arc::new(ToClient {
                peer: cx.peer.clone(),
                progress_token: cx.meta.get_progress_token(),
                session: self.id().to_string(),
                notes: notes.clone(),
                origin: cx.id.clone(),
                round: round.as_ref().map(|(r, _)| r.clone()),
            }))),
            trace,
        };
        let started = std::time::Instant::now();
        // MCP clients cache `tools/list`: a reveal (reveal mode) changes this
        // session's list, so this session's client is told.
        let reveal = profile.ts.settings().mode == Mode::Reveal;
        let revealed = reveal.then(|| conversation.revealed().len());
        let work = async {
            if bridge.is_some_and(BridgeTool::is_cpu_bound) {
                // Search and describe are CPU work (a fused search embeds its query):
                // a blocking thread runs them, never the runtime's.
                let (conversation, opts, name) = (conversation.clone(), opts.clone(), name.clone());
                let rt = tokio::runtime::Handle::current();
                let span = span.clone();
                tokio::task::spawn_blocking(move || {
                    rt.block_on(
                        conversation
                            .handle_call_with(&name, args, &opts)
                            .instrument(span),
                    )
                })
                .await
                .unwrap_or_else(|_| {
                    ToolOutput::error(ErrorCode::Internal, "the call failed inside the gateway")
                })
            } else {
                conversation
                    .handle_call_with(&name, args, &opts)
                    .instrument(span.clone())
                    .await
            }
        };
        tokio::pin!(work);
        let mut out = tokio::select! {
            out = &mut work => out,
            () = self.gw.stopping.cancelled() => {
                // The work is cancelled (a snippet ends, a forwarded call is
                // cancelled on its server) and given a moment to wind down.
                cancel.cancel();
                let _ = tokio::time::timeout(STOP_WIND_DOWN, &mut work).await;
                return Err(stopped());
            }
        };
        // Every progress and log message of the call reaches the client before its
        // result (under load, separately spawned sends could be overtaken).
        flush(&notes).await;
        // The call stopped where a destructive tool needs the user's approval:
        // the round asking it is the answer.
        if let Some((round, bound)) = &round {
            if let Some(wanted) = round.wanted() {
                self.log_turn(&conversation, &name, &out, started);
                return Ok(CallToolResponse::InputRequired(
                    self.gw.seals.ask(&wanted, bound),
                ));
            }
        }
        if reveal
            && Some(conversation.revealed().len()) != revealed
            && conversation.reveals_change_the_list(toolsearch::Provider::Mcp)
        {
            let _ = cx.peer.notify_tool_list_changed().await;
        }
        self.log_turn(&conversation, &name, &out, started);
        if reveal && bridge == Some(BridgeTool::Search) && !out.is_error && stateless(&cx) {
            // No session keeps a reveal: the list this client is served does
            // not grow, and it is told so in the answer (a field of its JSON:
            // clients parse it).
            if let Some(answer) = out.content.as_object_mut() {
                answer.insert("note".into(), Value::String(STATELESS_REVEAL.into()));
            }
        }
        Ok(CallToolResponse::Complete(to_result(out)))
    }
}

/// What a reveal-mode `tool_search` adds for a client that holds no session.
const STATELESS_REVEAL: &str = "This client holds no session (MCP 2026-07-28): the tools \
     found are not added to its tool list. Call one by its `call_as` name with arguments \
     that fit its `input_schema` above.";

/// Whether the request is of the 2026-07-28 revision (no session).
pub(crate) fn stateless(cx: &RequestContext<RoleServer>) -> bool {
    cx.protocol_version().as_ref().is_some_and(sessionless)
}

/// Whether `v` is a revision without sessions (2026-07-28 or newer; ISO
/// dates compare as text in time order).
pub(crate) fn sessionless(v: &rmcp::model::ProtocolVersion) -> bool {
    v.as_str() >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str()
}

/// What `initialize` tells a client about the tools, in the shape its list has.
fn instructions(shape: Shape) -> String {
    let [code, search, describe, call] = BridgeTool::ALL.map(BridgeTool::name);
    match shape {
        Shape::Code => format!(
            "Tools of several MCP servers behind one search: find, describe and call them \
             from a short JavaScript snippet given to {code}."
        ),
        Shape::Tools => format!(
            "Tools of several MCP servers behind one search: find them with {search}, load \
             their parameters with {describe} and run them with {call}."
        ),
        Shape::Reveal => format!(
            "Tools of several MCP servers, most with their parameters not loaded: call \
             {search} with a tool's exact name (or the task) to load them, then call the \
             tool by its name."
        ),
        Shape::Direct | Shape::Native => {
            "Tools of several MCP servers, behind one gateway.".to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_name_only_the_tools_of_their_shape() {
        for shape in Shape::ALL {
            let text = instructions(shape);
            let named: Vec<&str> = BridgeTool::ALL
                .into_iter()
                .map(BridgeTool::name)
                .filter(|n| text.contains(n))
                .collect();
            let expected: &[&str] = match shape {
                Shape::Code => &["tool_search_code"],
                Shape::Tools => &["tool_search", "tool_describe", "tool_call"],
                Shape::Reveal => &["tool_search"],
                Shape::Direct | Shape::Native => &[],
            };
            // `tool_search_code` contains `tool_search`: count whole words.
            let words: Vec<&str> = text
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| w.starts_with("tool_"))
                .collect();
            assert_eq!(words, expected, "{shape}: {text} ({named:?})");
        }
    }

    #[test]
    fn the_turn_line_counts_only_calls_as_downstream() {
        let mut r = toolsearch::TurnRecord::default();
        let sel = |id: &str| toolsearch::Selected {
            id: id.into(),
            source: "mcp",
        };
        r.selected = vec![sel("mcp:a:described"), sel("mcp:a:called")];
        r.called = vec![sel("mcp:a:called")];
        r.refused = vec![toolsearch::Refused {
            id: "mcp:a:denied".into(),
            code: ErrorCode::ApprovalDenied,
        }];
        let f = turn_fields(&r);
        assert_eq!(f.downstream, ["mcp:a:called"]);
        assert_eq!(f.refused, [("mcp:a:denied", "APPROVAL_DENIED")]);
    }
}
