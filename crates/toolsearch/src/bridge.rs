//! The sandbox's [`Bridge`]: what `openclaw.tools.search / describe / call` reach
//! from inside a snippet. A thin shape over [`Host`], which does the work.

use crate::dispatch::{CallContext, Dispatcher};
use crate::host::{Host, HostParts, Scope};
use crate::policy::Policy;
use serde_json::{json, Value};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use toolsearch_catalog::Catalog;
use toolsearch_sandbox::{Bridge, BridgeError, BridgeFuture};

/// Search, describe and call for one snippet: a host, the caller's scope and context.
#[derive(Clone)]
pub struct CatalogBridge {
    host: Arc<Host>,
    scope: Arc<Scope>,
    context: CallContext,
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
        }
    }

    pub(crate) fn from_host(host: Arc<Host>, scope: Arc<Scope>, context: CallContext) -> Self {
        CatalogBridge {
            host,
            scope,
            context,
        }
    }
}

impl Bridge for CatalogBridge {
    fn search(&self, query: &str, limit: Option<u32>) -> Result<Value, BridgeError> {
        self.host
            .search(&[query], limit.map(|l| l as usize), &self.scope)
    }

    fn describe(&self, id: &str) -> Result<Value, BridgeError> {
        self.host.describe(id, &self.scope)
    }

    fn call(&self, id: &str, args: Value, cancel: CancellationToken) -> BridgeFuture {
        let (host, scope, id) = (self.host.clone(), self.scope.clone(), id.to_owned());
        let cx = CallContext {
            cancel,
            ..self.context.clone()
        };
        Box::pin(async move {
            let (tool, v, _notes) = host.call_tool(&id, args, &scope, cx).await?;
            Ok(match tool.source {
                toolsearch_catalog::Source::Mcp => crate::outcome::snippet_value(v),
                _ => v,
            })
        })
    }
}

/// `{"tool": id, "arguments": args}` — handy for checking what reached a dispatcher.
pub fn echo_value(id: &str, args: &Value) -> Value {
    json!({"tool": id, "arguments": args})
}
