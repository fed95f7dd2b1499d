//! Dispatch: a call that passed the host's checks goes to its server under the
//! name the server gave, with progress routed back to the caller, and is
//! cancelled on that server when the caller gives up or the call times out.

use std::sync::Arc;

use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest, ServerResult};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient, ServiceError};
use serde_json::Value;
use toolsearch::outcome::{error_detail, error_message};
use toolsearch::{CallContext, DispatchError, DispatchErrorKind, DispatchFuture, Dispatcher};
use toolsearch_catalog::Tool;

use crate::upstream::calls::InFlight;
use crate::upstream::Settled;
use crate::upstream::{Fleet, Upstream};

/// Forwards calls to the servers configured now, by name.
pub struct Forward {
    fleet: std::sync::Weak<Fleet>,
}

impl Forward {
    /// Forwards to the servers of `fleet` (those it holds at each call: a
    /// server a new configuration removed is not there).
    pub fn to_fleet(fleet: &Arc<Fleet>) -> Arc<dyn toolsearch::Dispatcher> {
        Arc::new(Forward {
            fleet: Arc::downgrade(fleet),
        })
    }
}

/// True when `upstream` is no longer the fleet's server of its name.
fn retired(fleet: &std::sync::Weak<Fleet>, upstream: &Arc<Upstream>) -> bool {
    fleet
        .upgrade()
        .and_then(|f| f.server(upstream.name()))
        .is_none_or(|now| !Arc::ptr_eq(&now, upstream))
}

/// The error of a call its server's retirement cut (a new configuration
/// removed or replaced the server, and the call outlasted the drain).
fn cut(server: &str) -> DispatchError {
    unavailable(
        server,
        "a new configuration of the gateway removed or replaced it while this call ran",
    )
}

fn unavailable(server: &str, why: impl std::fmt::Display) -> DispatchError {
    DispatchError::new(
        DispatchErrorKind::Unavailable,
        crate::text::redact_urls(&format!("server `{server}` is unavailable: {why}")).into_owned(),
    )
}

/// A call to a tool its (lazy) server no longer lists: its list was refreshed
/// from the server, and clients were told the tools changed.
fn vanished(server: &str, name: &str, started_now: bool) -> DispatchError {
    let when = if started_now {
        "it was started for this call and its fresh list"
    } else {
        "its list, refreshed since the search that found it,"
    };
    DispatchError::new(
        DispatchErrorKind::UnknownTool,
        format!(
            "server `{server}` no longer has a tool `{}`: {when} lacks it (the tools served \
             changed); search again",
            crate::text::clean_for_log(name, 120)
        ),
    )
}

/// A call to a tool whose server now serves it with another definition than
/// the one its checks were made on.
fn changed(server: &str, name: &str, what: &str) -> DispatchError {
    DispatchError::new(
        DispatchErrorKind::Changed,
        format!(
            "server `{server}` now serves tool `{}` with other {what} than the definition this \
             call was checked against; nothing ran. The tools changed: search again (or \
             describe it) and call with what it serves now",
            crate::text::clean_for_log(name, 120)
        ),
    )
}

/// How the definition a server serves now compares with the one a call was
/// checked against.
enum Live {
    Same,
    /// The server's current list lacks the tool.
    Absent,
    /// It differs in what the checks read (named).
    Changed(&'static str),
}

/// The tool as `upstream` lists it now, read exactly as the catalog reads a
/// listing (so an unchanged definition compares equal), against `tool`.
fn live(upstream: &Upstream, tool: &Tool) -> Live {
    let Some(listed) = upstream.tools() else {
        // No list yet (an eager server still starting): the server is the
        // judge; its own `tools/call` answers.
        return Live::Same;
    };
    let name = tool.upstream_name();
    let Some(raw) = listed
        .iter()
        .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
    else {
        return Live::Absent;
    };
    let opts = toolsearch_catalog::load::LoadOptions {
        served_by: Some(upstream.name().to_string()),
        ..Default::default()
    };
    let loaded = toolsearch_catalog::load::load_definitions(Value::Array(vec![raw.clone()]), &opts);
    let Some(now) = loaded.ok().and_then(|l| {
        l.catalog
            .tools()
            .iter()
            .find(|t| t.upstream_name() == name)
            .cloned()
    }) else {
        return Live::Changed("a definition the gateway cannot serve");
    };
    if now.input_schema != tool.input_schema || now.schema_note != tool.schema_note {
        Live::Changed("parameters")
    } else if now.output_schema != tool.output_schema {
        Live::Changed("a result schema")
    } else if now.annotations != tool.annotations {
        Live::Changed("annotations (its safety hints)")
    } else {
        Live::Same
    }
}

impl Dispatcher for Forward {
    fn dispatch(&self, tool: &Tool, args: Value, cx: CallContext) -> DispatchFuture {
        let server = tool.server.clone().unwrap_or_default();
        let fleet = self.fleet.clone();
        let upstream = fleet.upgrade().and_then(|f| f.server(&server));
        let name = tool.upstream_name().to_string();
        let checked = tool.clone();
        let span = tracing::info_span!(
            "downstream",
            otel.name = %format!("tools/call {}", crate::text::clean_for_log(&name, 80)),
            otel.kind = "client",
            mcp.method.name = "tools/call",
            gen_ai.tool.name = %crate::text::clean_for_log(&name, 80),
            toolsearch.server = %server,
        );
        let work = async move {
            let Some(upstream) = upstream else {
                return Err(unavailable(
                    &server,
                    "it is not in the gateway's configuration (removed, or the gateway is stopping)",
                ));
            };
            // A stopped lazy server is started here, the call waiting for it.
            let lease = match upstream.acquire(&cx.cancel).await {
                Ok(lease) => lease,
                Err(_) if retired(&fleet, &upstream) => return Err(cut(&server)),
                Err(why) => return Err(unavailable(&server, why)),
            };
            match upstream.settled_list(&cx.cancel).await {
                Settled::Yes => {}
                Settled::Unknown => {
                    return Err(unavailable(
                        &server,
                        "it said its tools changed and listing them again failed or did not \
                         finish, so what it serves now is not known; nothing ran, try again shortly",
                    ))
                }
                Settled::Cancelled => {
                    return Err(DispatchError::new(
                        DispatchErrorKind::Timeout,
                        "the call was cancelled",
                    ))
                }
            }
            // Every check the call passed (policy, destructive gating,
            // approval, arguments) read `tool`; the server may serve another
            // definition now (a lazy server's manifest older than the server, a
            // `list_changed` since the search): then nothing runs.
            match live(&upstream, &checked) {
                Live::Same => {}
                Live::Absent => return Err(vanished(&server, &name, lease.started())),
                Live::Changed(what) => return Err(changed(&server, &name, what)),
            }
            let answer = call(&upstream, lease.peer().clone(), name, args, cx).await;
            drop(lease);
            match answer {
                // The server ended under the call because a new configuration
                // removed or replaced it (its calls had the call timeout to end).
                Err(e)
                    if e.kind == DispatchErrorKind::Unavailable && retired(&fleet, &upstream) =>
                {
                    Err(cut(&server))
                }
                answer => answer,
            }
        };
        Box::pin(tracing::Instrument::instrument(work, span))
    }
}

/// Sends `notifications/cancelled` for a request unless disarmed (the answer
/// came), and ends the routing of what the server sends for it.
struct CancelOnDrop {
    peer: Option<Peer<RoleClient>>,
    id: rmcp::model::RequestId,
    _routed: Option<InFlight>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(peer) = self.peer.take() {
            let id = self.id.clone();
            if let Ok(rt) = tokio::runtime::Handle::try_current() {
                rt.spawn(async move {
                    let params = rmcp::model::CancelledNotificationParam::new(
                        Some(id),
                        Some("the caller no longer waits for this call".into()),
                    );
                    let _ = peer.notify_cancelled(params).await;
                });
            }
        }
    }
}

/// Scheduler turns a finished call gives the notification tasks spawned before its
/// response (see [`call`]).
const STRAGGLER_YIELDS: usize = 8;

async fn call(
    upstream: &Arc<Upstream>,
    peer: Peer<RoleClient>,
    name: String,
    args: Value,
    cx: CallContext,
) -> Result<Value, DispatchError> {
    let server = upstream.name().to_string();
    let arguments = match args {
        Value::Object(m) => m,
        Value::Null => serde_json::Map::new(),
        _ => {
            return Err(DispatchError::new(
                DispatchErrorKind::InvalidArgs,
                "arguments must be a JSON object",
            ))
        }
    };
    let mut params = CallToolRequestParams::new(name).with_arguments(arguments);
    // The trace goes on to the server (in `_meta`; an HTTP server's request
    // carries it as headers too).
    let mut meta = rmcp::model::MetaObject::new();
    crate::telemetry::pass_on(&mut meta, cx.trace.as_deref());
    if !meta.is_empty() {
        params.meta = Some(meta.into());
    }
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let handle = peer
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .map_err(|e| unavailable(&server, e))?;
    let routed = cx.notify.as_ref().map(|n| {
        upstream
            .calls()
            .enter(&handle.id, &handle.progress_token, n.clone())
    });
    let mut guard = CancelOnDrop {
        peer: Some(peer),
        id: handle.id.clone(),
        _routed: routed,
    };
    let answer = tokio::select! {
        r = handle.await_response() => r,
        () = cx.cancel.cancelled() => {
            return Err(DispatchError::new(DispatchErrorKind::Timeout, "the call was cancelled"));
        }
    };
    guard.peer = None;
    if cx.notify.is_some() {
        // rmcp hands each notification to a task of its own and the response to this
        // future directly: a log or progress message the server sent just before its
        // result may still be waiting to run. Letting those tasks run before the call
        // stops listening keeps them (and sends them before the result); without it,
        // on a loaded machine the last log line was lost (conformance
        // `tools-call-with-logging` under two busy cores: 1 run in 3).
        for _ in 0..STRAGGLER_YIELDS {
            tokio::task::yield_now().await;
        }
    }
    drop(guard);
    match answer {
        Ok(ServerResult::CallToolResult(result)) => {
            let is_error = result.is_error == Some(true);
            let v = serde_json::to_value(result).map_err(|e| {
                DispatchError::new(DispatchErrorKind::Tool, format!("unreadable result: {e}"))
            })?;
            if is_error {
                Err(
                    DispatchError::new(DispatchErrorKind::Tool, error_message(&v))
                        .with_detail(error_detail(&v)),
                )
            } else {
                Ok(v)
            }
        }
        Ok(_) => Err(DispatchError::new(
            DispatchErrorKind::Tool,
            format!("server `{server}` answered the call with something other than a tool result"),
        )),
        Err(ServiceError::McpError(e)) => {
            let kind = if e.code == rmcp::model::ErrorCode::INVALID_PARAMS {
                DispatchErrorKind::InvalidArgs
            } else {
                DispatchErrorKind::Tool
            };
            Err(DispatchError::new(
                kind,
                crate::text::clean_for_log(&e.message, 1000),
            ))
        }
        Err(ServiceError::Timeout { .. }) => Err(DispatchError::new(
            DispatchErrorKind::Timeout,
            format!("server `{server}` did not answer in time"),
        )),
        Err(e) => Err(unavailable(&server, e)),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_unavailable_server_s_error_carries_no_secret_of_its_url() {
        let why = "error sending request for url (https://u:PASS@h.example/mcp?api_key=SECRET)";
        let e = super::unavailable("remote", why);
        assert!(
            !e.message.contains("SECRET") && !e.message.contains("PASS"),
            "{}",
            e.message
        );
        assert!(
            e.message
                .contains("https://<redacted>@h.example/mcp?<redacted>"),
            "{}",
            e.message
        );
    }
}
