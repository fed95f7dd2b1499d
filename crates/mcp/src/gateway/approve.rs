//! Approvals through the client: `destructive = "elicit"` asks the session's
//! user, by MCP elicitation, before a destructive tool runs; a client without
//! a session is asked in an input-required round ([`super::round`]).

use serde_json::Value;
use toolsearch_catalog::Tool;

/// `destructive = "elicit"`: asks the session's user, through MCP elicitation
/// on the call's own line to its client ([`toolsearch::CallContext::notify`]),
/// before a tool annotated `destructiveHint` runs; denies when the client
/// cannot ask or the user does not accept. Other tools pass.
pub(super) struct Elicit;

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
        // A client without a session answers approvals in rounds of its own
        // (see `round`): decided here, never asked during the call.
        if let Some(decided) = cx.notify.as_ref().and_then(|n| n.0.approval(tool, args)) {
            return Box::pin(async move { decided });
        }
        let client = cx.notify.clone();
        let args = crate::text::clean_for_log(&args.to_string(), 400);
        let id = tool.id.clone();
        Box::pin(async move {
            // The call's own line to its client: the request goes with it.
            let Some(client) = client else {
                return Err("no client to ask for approval".to_string());
            };
            let params = serde_json::json!({
                "mode": "form",
                "message": format!("Allow the destructive tool `{id}` to run with {args}?"),
                "requestedSchema": {
                    "type": "object",
                    "properties": {"confirm": {"type": "boolean", "title": "Run it"}},
                    "required": ["confirm"]
                }
            });
            let answer = match client.0.ask("elicitation/create", params).await {
                Ok(answer) => answer,
                Err(e) if e.code == toolsearch::AskError::METHOD_NOT_FOUND => {
                    return Err(format!(
                        "it is destructive and its approval cannot be asked: {}",
                        e.message
                    ))
                }
                Err(e) => return Err(format!("the approval request failed: {}", e.message)),
            };
            let accepted = answer["action"] == "accept" && answer["content"]["confirm"] == true;
            if accepted {
                Ok(())
            } else {
                Err("the user did not approve it".into())
            }
        })
    }
}
