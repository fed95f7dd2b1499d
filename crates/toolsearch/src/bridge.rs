//! The sandbox's [`Bridge`] over a catalog, a policy and a dispatcher: what
//! `openclaw.tools.search / describe / call` reach from inside a snippet.

use crate::dispatch::{CallContext, DispatchErrorKind, Dispatcher};
use crate::policy::Policy;
use serde_json::{json, Value};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use toolsearch_catalog::{Catalog, SearchOptions, Tool};
use toolsearch_sandbox::{Bridge, BridgeError, BridgeErrorCode, BridgeFuture};

/// Search, describe and call over one catalog snapshot, scoped by a policy.
#[derive(Clone)]
pub struct CatalogBridge {
    catalog: Catalog,
    policy: Arc<Policy>,
    dispatcher: Arc<dyn Dispatcher>,
    context: CallContext,
}

impl std::fmt::Debug for CatalogBridge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatalogBridge")
            .field("catalog", &self.catalog)
            .field("policy", &self.policy)
            .finish()
    }
}

/// The error for ids that do not exist and ids the policy hides: identical, so a
/// snippet cannot probe the policy.
pub(crate) fn unknown_tool(id: &str) -> BridgeError {
    BridgeError::new(
        BridgeErrorCode::UnknownTool,
        format!("unknown tool `{id}`; use search() to find tool ids"),
    )
}

impl CatalogBridge {
    /// A bridge over `catalog`, showing only what `policy` allows, running calls
    /// through `dispatcher` with `context` (session, principal).
    pub fn new(
        catalog: Catalog,
        policy: Arc<Policy>,
        dispatcher: Arc<dyn Dispatcher>,
        context: CallContext,
    ) -> Self {
        CatalogBridge {
            catalog,
            policy,
            dispatcher,
            context,
        }
    }

    fn visible(&self, id: &str) -> Option<&Tool> {
        self.catalog.get(id).filter(|t| self.policy.allows(t))
    }
}

impl Bridge for CatalogBridge {
    fn search(&self, query: &str, limit: Option<u32>) -> Result<Value, BridgeError> {
        let opts = SearchOptions {
            limit: limit.map(|l| l as usize),
            ..Default::default()
        };
        let result = self
            .catalog
            .search_scoped(query, &opts, &|t| self.policy.allows(t));
        serde_json::to_value(&result)
            .map_err(|e| BridgeError::new(BridgeErrorCode::Unavailable, e.to_string()))
    }

    fn describe(&self, id: &str) -> Result<Value, BridgeError> {
        let tool = self.visible(id).ok_or_else(|| unknown_tool(id))?;
        let d = self
            .catalog
            .describe(&tool.id)
            .ok_or_else(|| unknown_tool(id))?;
        serde_json::to_value(&d)
            .map_err(|e| BridgeError::new(BridgeErrorCode::Unavailable, e.to_string()))
    }

    fn call(&self, id: &str, args: Value, cancel: CancellationToken) -> BridgeFuture {
        let Some(tool) = self.visible(id).cloned() else {
            let err = unknown_tool(id);
            return Box::pin(async move { Err(err) });
        };
        let cx = CallContext {
            cancel,
            ..self.context.clone()
        };
        let fut = self.dispatcher.dispatch(&tool, args, cx);
        Box::pin(async move {
            fut.await.map_err(|e| {
                let code = match e.kind {
                    DispatchErrorKind::Unavailable => BridgeErrorCode::Unavailable,
                    DispatchErrorKind::Timeout => BridgeErrorCode::Timeout,
                    DispatchErrorKind::InvalidArgs => BridgeErrorCode::InvalidArgs,
                    _ => BridgeErrorCode::ToolError,
                };
                BridgeError::new(code, e.message)
            })
        })
    }
}

/// `{"tool": id, "arguments": args}` — handy for checking what reached a dispatcher.
pub fn echo_value(id: &str, args: &Value) -> Value {
    json!({"tool": id, "arguments": args})
}
