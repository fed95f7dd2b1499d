//! A minimal agent loop over an OpenAI-compatible Chat Completions endpoint, and a
//! scripted stand-in model (used when no endpoint is configured, and by the e2e test).
#![allow(dead_code)]

use serde_json::{json, Value};
use toolsearch::{Provider, Session, ToolSearch};

/// The session the scripted agent runs in (its turn record is kept under it).
pub const SESSION: &str = "agent-loop";

use super::http;

/// Runs the task until the model answers without tool calls (at most `turns` turns).
pub async fn run(
    ts: &ToolSearch,
    addr: &str,
    path: &str,
    model: &str,
    key: Option<&str>,
    task: &str,
    turns: usize,
) -> Result<String, String> {
    let session = Session::new(SESSION);
    let mut messages = vec![json!({"role": "user", "content": task})];
    for _ in 0..turns {
        let tools = ts.definitions(&session, Provider::OpenAiChat).tools;
        let resp = http::post(
            addr,
            path,
            &json!({"model": model, "messages": messages, "tools": tools}),
            key,
        )?;
        let msg = resp["choices"][0]["message"].clone();
        if msg.is_null() {
            return Err(format!("unexpected answer: {resp}"));
        }
        messages.push(msg.clone());
        let Some(calls) = msg["tool_calls"].as_array().filter(|c| !c.is_empty()) else {
            return Ok(msg["content"].as_str().unwrap_or_default().to_string());
        };
        for call in calls {
            let name = call["function"]["name"].as_str().unwrap_or_default();
            let args: Value =
                serde_json::from_str(call["function"]["arguments"].as_str().unwrap_or("{}"))
                    .unwrap_or(json!({}));
            let out = ts.handle_call(&session, name, args).await;
            messages.push(json!({"role": "tool", "tool_call_id": call["id"], "content": out.content.to_string()}));
        }
    }
    Err("the model did not finish within the turn budget".into())
}

/// A scripted model: first turn calls `call(tool names)` (name and arguments), then
/// answers `done`.
pub fn scripted(
    done: &'static str,
    call: impl Fn(&[&str]) -> (String, Value) + Send + Sync + 'static,
) -> impl Fn(&str, &str) -> String {
    move |_line: &str, body: &str| {
        let request: Value = serde_json::from_str(body).unwrap_or_default();
        let messages = request["messages"].as_array().cloned().unwrap_or_default();
        let message = if messages.last().is_some_and(|m| m["role"] == "tool") {
            json!({"role": "assistant", "content": done})
        } else {
            let names: Vec<&str> = request["tools"]
                .as_array()
                .map(|t| {
                    t.iter()
                        .filter_map(|t| t["function"]["name"].as_str())
                        .collect()
                })
                .unwrap_or_default();
            let (name, args) = call(&names);
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": name, "arguments": args.to_string()}}]})
        };
        json!({"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}).to_string()
    }
}
