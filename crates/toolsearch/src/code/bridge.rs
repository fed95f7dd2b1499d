//! The sandbox's [`Bridge`]: what `openclaw.tools.search / describe / call` reach
//! from inside a snippet. A thin shape over [`Host`], which does the work.

use crate::dispatch::{CallContext, Dispatcher};
use crate::host::{Host, HostParts, Scope};
use crate::policy::Policy;
use serde_json::Value;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use toolsearch_catalog::Catalog;
use toolsearch_sandbox::{Bridge, BridgeError, BridgeErrorCode, BridgeFuture};

use crate::error::{ErrorCode, HostError};

/// The host's error as the snippet sees it: the only place that knows both types.
fn to_bridge(e: HostError) -> BridgeError {
    let code = match e.code {
        ErrorCode::UnknownTool => BridgeErrorCode::UnknownTool,
        ErrorCode::InvalidArgs => BridgeErrorCode::InvalidArgs,
        ErrorCode::Timeout => BridgeErrorCode::Timeout,
        ErrorCode::ToolError => BridgeErrorCode::ToolError,
        ErrorCode::ApprovalDenied => BridgeErrorCode::ApprovalDenied,
        ErrorCode::Unavailable => BridgeErrorCode::Unavailable,
        ErrorCode::Stale => BridgeErrorCode::Stale,
        ErrorCode::Limit => BridgeErrorCode::Limit,
        // Neither reaches a snippet from the host's steps (a cancelled caller ends
        // the snippet; an internal failure is the gateway's): a snippet has no
        // word for them.
        ErrorCode::Cancelled | ErrorCode::Internal => BridgeErrorCode::Unavailable,
    };
    // A snippet's error has one text: the parameters follow the message, once.
    let message = match &e.input_schema {
        Some(schema) => format!("{}. Its parameters: {schema}", e.message),
        None => e.message,
    };
    BridgeError {
        detail: e.detail,
        ..BridgeError::new(code, message)
    }
}

/// Search, describe and call for one snippet: a host, the caller's scope and context.
#[derive(Clone)]
pub struct CatalogBridge {
    host: Arc<Host>,
    scope: Arc<Scope>,
    context: CallContext,
    notes: Arc<std::sync::Mutex<Vec<Value>>>,
    /// The media items of the MCP results handed to the snippet (the only ones
    /// its answer promotes to content of their kind).
    media: Arc<super::answer::Media>,
    /// The snippet's span (or, when no subscriber wants it, the nearest span
    /// that is wanted): each search, describe and call the snippet makes runs
    /// in it, since they reach the host from the sandbox, outside it. Let go
    /// when the snippet's run ends ([`CatalogBridge::end_span`]): the sandbox
    /// may keep the bridge a little longer.
    span: Arc<std::sync::Mutex<tracing::Span>>,
}

/// Most search notes one snippet's answer carries (a snippet makes at most a few
/// dozen searches; repeats are kept once).
pub const MAX_SEARCH_NOTES: usize = 32;

/// What a search said besides its hits, as the structured `tool_search` shows it:
/// `{query, limit_note?, not_found?, hint?}`, or `None` when it said nothing.
pub(crate) fn search_note(query: &str, result: &Value) -> Option<Value> {
    let mut note = serde_json::Map::new();
    for key in ["limit_note", "not_found", "hint", "unavailable"] {
        match &result[key] {
            Value::Null => {}
            Value::Array(a) if a.is_empty() => {}
            v => {
                note.insert(key.to_string(), v.clone());
            }
        }
    }
    if note.is_empty() {
        return None;
    }
    note.insert("query".to_string(), Value::String(query.to_string()));
    Some(Value::Object(note))
}

impl std::fmt::Debug for CatalogBridge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatalogBridge")
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

impl CatalogBridge {
    /// A bridge over `catalog`, showing only what `policy` allows, running calls
    /// through `dispatcher` with `context` (session, principal). For embedding the
    /// bridge alone; [`crate::ToolSearch`] builds its bridges from its host.
    pub fn new(
        catalog: Catalog,
        policy: Arc<Policy>,
        dispatcher: Arc<dyn Dispatcher>,
        context: CallContext,
    ) -> Self {
        let host = Arc::new(Host::new(HostParts::new(catalog, policy, dispatcher)));
        CatalogBridge {
            host,
            scope: Arc::new(Scope::default()),
            context,
            notes: Default::default(),
            media: Default::default(),
            span: Arc::new(std::sync::Mutex::new(tracing::Span::none())),
        }
    }

    /// A bridge for one snippet whose span is `span`.
    pub(crate) fn from_host(
        host: Arc<Host>,
        scope: Arc<Scope>,
        context: CallContext,
        span: tracing::Span,
    ) -> Self {
        CatalogBridge {
            host,
            scope,
            context,
            notes: Default::default(),
            media: Default::default(),
            span: Arc::new(std::sync::Mutex::new(span)),
        }
    }

    /// The span the snippet's work runs in (none once its run ended).
    fn span(&self) -> tracing::Span {
        self.span.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Lets go of the snippet's span, so that it ends with the run.
    pub(crate) fn end_span(&self) {
        *self.span.lock().unwrap_or_else(|p| p.into_inner()) = tracing::Span::none();
    }

    /// What this bridge's searches said besides their hits (limit notes, names not
    /// found, typo hints), in order, each once, at most [`MAX_SEARCH_NOTES`].
    pub fn search_notes(&self) -> Vec<Value> {
        self.notes.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The whole record of a snippet's run (for `toolsearch exec` and logs): the
    /// `ExecResult`, with `search_notes` when this bridge's searches said anything
    /// besides their hits.
    pub fn record(&self, result: &toolsearch_sandbox::ExecResult) -> Value {
        let mut content = serde_json::to_value(result).unwrap_or(Value::Null);
        let notes = self.search_notes();
        if !notes.is_empty() && content.is_object() {
            content["search_notes"] = Value::Array(notes);
        }
        content
    }

    /// [`CatalogBridge::record`], with the hint the model's answer carries
    /// (a forgotten `await` or `return`, a result read the wrong way) as
    /// `hint`. `code` is the snippet's text.
    pub fn record_for(&self, result: &toolsearch_sandbox::ExecResult, code: &str) -> Value {
        let mut content = self.record(result);
        let hint = match result.error.as_ref().filter(|_| !result.ok) {
            Some(e) => crate::host::hints::for_error(e, code),
            None => crate::host::hints::no_return(result, code),
        };
        if let (Some(h), Some(m)) = (hint, content.as_object_mut()) {
            m.insert("hint".into(), Value::String(h));
        }
        content
    }

    /// A snippet's result as `tool_search_code` answers the model (see
    /// [`crate::answer`]): what the code returned and logged, media a tool
    /// returned as content of their kind; on failure the error, with where and
    /// a hint, and each call's status. `code` is the snippet's text.
    pub fn answer(
        &self,
        result: &toolsearch_sandbox::ExecResult,
        code: &str,
    ) -> crate::output::ToolOutput {
        super::answer::answer(result, code, self.search_notes(), &self.media)
    }
}

impl Bridge for CatalogBridge {
    fn search(&self, query: &str, limit: Option<u32>) -> Result<Value, BridgeError> {
        let anchor = self.span();
        let _in = anchor.enter();
        let _span = tracing::info_span!("search").entered();
        let result = self
            .host
            .search(&[query], limit.map(|l| l as usize), &self.scope)
            .map_err(to_bridge)?;
        if let Some(note) = search_note(query, &result) {
            let mut notes = self.notes.lock().unwrap_or_else(|p| p.into_inner());
            if notes.len() < MAX_SEARCH_NOTES && !notes.contains(&note) {
                notes.push(note);
            }
        }
        Ok(result)
    }

    fn describe(&self, id: &str) -> Result<Value, BridgeError> {
        let anchor = self.span();
        let _in = anchor.enter();
        let _span = tracing::info_span!("describe", tool = %id).entered();
        self.host.describe(id, &self.scope).map_err(to_bridge)
    }

    fn call(&self, id: &str, args: Value, cancel: CancellationToken) -> BridgeFuture {
        let (host, scope, id) = (self.host.clone(), self.scope.clone(), id.to_owned());
        let media = self.media.clone();
        let cx = CallContext {
            cancel,
            ..self.context.clone()
        };
        // Made inside the snippet's span (a subscriber may want it only there);
        // run in it, or in the snippet's when it is not wanted.
        let anchor = self.span();
        let span = {
            let _in = anchor.enter();
            tracing::info_span!("call", otel.name = %format!("call {id}"), tool = %id)
        };
        let span = if span.is_disabled() { anchor } else { span };
        Box::pin(tracing::Instrument::instrument(
            async move {
                let (tool, v, _notes) =
                    host.call_tool(&id, args, &scope, cx).await.map_err(|e| {
                        if let Some(content) = e.detail.as_ref().and_then(|d| d.get("content")) {
                            media.record(content);
                        }
                        to_bridge(e)
                    })?;
                Ok(match tool.source {
                    toolsearch_catalog::Source::Mcp => {
                        media.record(&v["content"]);
                        crate::host::outcome::snippet_value(v)
                    }
                    _ => v,
                })
            },
            span,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_host_error_code_reaches_the_snippet_under_the_same_name() {
        for code in ErrorCode::ALL {
            let mapped = to_bridge(HostError::new(code, "m"));
            match code {
                ErrorCode::Cancelled | ErrorCode::Internal => {
                    assert_eq!(mapped.code, BridgeErrorCode::Unavailable)
                }
                _ => assert_eq!(mapped.code.as_str(), code.as_str()),
            }
            assert_eq!(mapped.message, "m");
        }
    }
}
