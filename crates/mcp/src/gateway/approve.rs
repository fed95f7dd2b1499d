//! Approvals through the client: `destructive = "elicit"` asks the session's
//! user, by MCP elicitation, before a destructive tool runs.

use serde_json::Value;
use toolsearch_catalog::Tool;

use super::Peers;

/// `destructive = "elicit"`: asks the session's user, through MCP elicitation,
/// before a tool annotated `destructiveHint` runs; denies when the client cannot
/// ask or the user does not accept. Other tools pass.
pub(super) struct Elicit {
    pub(super) peers: Peers,
}

impl toolsearch::Approver for Elicit {
    fn approve(
        &self,
        tool: &Tool,
        args: &Value,
        cx: &toolsearch::CallContext,
    ) -> toolsearch::ApprovalFuture {
        if !tool.is_destructive() {
            return Box::pin(async { Ok(()) });
        }
        let peer = cx.session.as_deref().and_then(|s| {
            self.peers
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get(s)
                .cloned()
        });
        let args = crate::text::clean_for_log(&args.to_string(), 400);
        let id = tool.id.clone();
        Box::pin(async move {
            let Some(peer) = peer else {
                return Err("no client to ask for approval".to_string());
            };
            let can_ask = peer
                .peer_info()
                .is_some_and(|i| i.capabilities.elicitation.is_some());
            if !can_ask {
                return Err(
                    "it is destructive and the client cannot be asked (no elicitation support)"
                        .into(),
                );
            }
            let params: rmcp::model::ElicitRequestParams =
                serde_json::from_value(serde_json::json!({
                    "mode": "form",
                    "message": format!("Allow the destructive tool `{id}` to run with {args}?"),
                    "requestedSchema": {
                        "type": "object",
                        "properties": {"confirm": {"type": "boolean", "title": "Run it"}},
                        "required": ["confirm"]
                    }
                }))
                .map_err(|e| format!("cannot ask: {e}"))?;
            let answer = peer
                .create_elicitation(params)
                .await
                .map_err(|e| format!("the approval request failed: {e}"))?;
            let accepted = serde_json::to_value(&answer.action).ok()
                == Some(Value::String("accept".into()))
                && answer.content.as_ref().and_then(|c| c.get("confirm"))
                    == Some(&Value::Bool(true));
            if accepted {
                Ok(())
            } else {
                Err("the user did not approve it".into())
            }
        })
    }
}
