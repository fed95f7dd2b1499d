//! Call: resolve → gate → dispatch. The dispatcher runs under the call's timeout
//! and cancellation; the after-call hooks and the turn record see every outcome.

use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;
use toolsearch_catalog::Tool;

use super::{Host, Scope};
use crate::dispatch::{CallContext, DispatchErrorKind};
use crate::error::{ErrorCode, HostError};

impl Host {
    /// Policy check, argument repair and validation, approval, hooks, dispatch.
    /// Returns the tool's result and the notes of any repairs made.
    pub async fn call(
        self: Arc<Self>,
        id: &str,
        args: Value,
        scope: &Scope,
        cx: CallContext,
    ) -> Result<(Value, Vec<String>), HostError> {
        let (_, value, notes) = self.call_tool(id, args, scope, cx).await?;
        Ok((value, notes))
    }

    /// [`Host::call`], also giving the tool that ran.
    pub(crate) async fn call_tool(
        self: Arc<Self>,
        id: &str,
        args: Value,
        scope: &Scope,
        cx: CallContext,
    ) -> Result<(Tool, Value, Vec<String>), HostError> {
        let (tool, _, dispatcher) = self.resolve(id, scope)?;
        let (args, notes) = match self.gate(&tool, args, &cx).await {
            Ok(x) => x,
            Err(e) => {
                // A refused call (policy, arguments, approval) is part of the
                // turn too: the record names the tool and why.
                scope.record(|t| t.refused(&tool, e.code));
                return Err(e);
            }
        };
        let started = Instant::now();
        let timeout = cx.deadline.map_or(self.call_timeout, |d| {
            d.saturating_duration_since(started).min(self.call_timeout)
        });
        let cancel = cx.cancel.clone();
        // Keys that cleaning renamed go back as the tool's server spells them.
        let fut = dispatcher.dispatch(&tool, tool.upstream_arguments(args.clone()), cx.clone());
        let outcome = match tokio::time::timeout(timeout, fut).await {
            Ok(r) => r.map_err(|e| {
                let code = match e.kind {
                    DispatchErrorKind::Unavailable => ErrorCode::Unavailable,
                    DispatchErrorKind::Timeout => ErrorCode::Timeout,
                    DispatchErrorKind::InvalidArgs => ErrorCode::InvalidArgs,
                    DispatchErrorKind::UnknownTool => ErrorCode::UnknownTool,
                    DispatchErrorKind::Changed => ErrorCode::Stale,
                    _ => ErrorCode::ToolError,
                };
                HostError {
                    detail: e.detail.clone(),
                    source: Some(Box::new(e.clone())),
                    ..HostError::new(code, e.message)
                }
            }),
            Err(_) => {
                cancel.cancel();
                Err(HostError::new(
                    ErrorCode::Timeout,
                    format!(
                        "`{}` did not answer within {} ms",
                        tool.id,
                        timeout.as_millis()
                    ),
                ))
            }
        };
        let shown: Result<Value, String> = outcome.clone().map_err(|e| e.message);
        for hook in &self.after {
            hook(&tool, &shown, &cx);
        }
        scope.record(|t| t.called(&tool, &args, &shown, started.elapsed()));
        outcome.map(|v| (tool, v, notes))
    }
}
