//! Reveals rebuilt from the conversation itself: the earlier `tool_search` results
//! in a provider's message list name the tools they revealed. Stateless, so a
//! session survives eviction, a restart, or landing on another gateway replica.
//!
//! Read shapes: OpenAI Chat (`tool_calls` and `role: "tool"` messages), OpenAI
//! Responses (`function_call` / `function_call_output` items) and Anthropic
//! (`tool_use` / `tool_result` blocks). Anything else is skipped, never an error.

use std::collections::HashSet;

use serde_json::Value;

/// Most messages read (the newest ones are what matter least: reveals accumulate, so
/// the whole list is read up to this cap).
pub const MAX_MESSAGES: usize = 10_000;

/// Tool ids that earlier `tool_search` results in `messages` returned, in order.
pub fn revealed_ids(messages: &[Value], search_tool: &str) -> Vec<String> {
    let mut calls: HashSet<String> = HashSet::new();
    let mut out: Vec<String> = Vec::new();
    for m in messages.iter().take(MAX_MESSAGES) {
        // OpenAI Chat: the assistant's tool calls, then `role: tool` answers.
        for call in m["tool_calls"].as_array().into_iter().flatten() {
            if call["function"]["name"] == search_tool {
                if let Some(id) = call["id"].as_str() {
                    calls.insert(id.to_owned());
                }
            }
        }
        if m["role"] == "tool" {
            if let Some(id) = m["tool_call_id"].as_str() {
                if calls.contains(id) {
                    collect(&m["content"], &mut out);
                }
            }
        }
        // OpenAI Responses items.
        match m["type"].as_str() {
            Some("function_call") if m["name"] == search_tool => {
                if let Some(id) = m["call_id"].as_str() {
                    calls.insert(id.to_owned());
                }
            }
            Some("function_call_output") => {
                if let Some(id) = m["call_id"].as_str() {
                    if calls.contains(id) {
                        collect(&m["output"], &mut out);
                    }
                }
            }
            _ => {}
        }
        // Anthropic content blocks.
        for block in m["content"].as_array().into_iter().flatten() {
            match block["type"].as_str() {
                Some("tool_use") if block["name"] == search_tool => {
                    if let Some(id) = block["id"].as_str() {
                        calls.insert(id.to_owned());
                    }
                }
                Some("tool_result") => {
                    if let Some(id) = block["tool_use_id"].as_str() {
                        if calls.contains(id) {
                            collect(&block["content"], &mut out);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// The ids in one `tool_search` result: a JSON string, a list of text parts, or the
/// value itself; `hits[].id` is what our result carries.
fn collect(content: &Value, out: &mut Vec<String>) {
    match content {
        Value::String(s) => {
            if let Ok(v) = serde_json::from_str::<Value>(s) {
                ids_of(&v, out);
            }
        }
        Value::Array(parts) => {
            for p in parts {
                match p["text"].as_str() {
                    Some(text) => collect(&Value::String(text.to_owned()), out),
                    None => ids_of(p, out),
                }
            }
        }
        v => ids_of(v, out),
    }
}

fn ids_of(v: &Value, out: &mut Vec<String>) {
    for hit in v["hits"].as_array().into_iter().flatten() {
        if let Some(id) = hit["id"].as_str() {
            if !out.iter().any(|o| o == id) {
                out.push(id.to_owned());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(ids: &[&str]) -> String {
        let hits: Vec<Value> = ids.iter().map(|i| json!({"id": i})).collect();
        json!({"hits": hits}).to_string()
    }

    #[test]
    fn each_provider_shape_gives_back_the_revealed_ids() {
        let chat = vec![
            json!({"role": "user", "content": "hi"}),
            json!({"role": "assistant", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "tool_search", "arguments": "{}"}},
                {"id": "c2", "type": "function", "function": {"name": "other", "arguments": "{}"}}]}),
            json!({"role": "tool", "tool_call_id": "c1", "content": result(&["a", "b"])}),
            json!({"role": "tool", "tool_call_id": "c2", "content": result(&["nope"])}),
        ];
        assert_eq!(revealed_ids(&chat, "tool_search"), ["a", "b"]);
        let responses = vec![
            json!({"type": "function_call", "name": "tool_search", "call_id": "r1", "arguments": "{}"}),
            json!({"type": "function_call_output", "call_id": "r1", "output": result(&["c"])}),
            json!({"type": "function_call_output", "call_id": "zz", "output": result(&["nope"])}),
        ];
        assert_eq!(revealed_ids(&responses, "tool_search"), ["c"]);
        let anthropic = vec![
            json!({"role": "assistant", "content": [
                {"type": "text", "text": "searching"},
                {"type": "tool_use", "id": "t1", "name": "tool_search", "input": {}}]}),
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1",
                 "content": [{"type": "text", "text": result(&["d", "a"])}]}]}),
        ];
        assert_eq!(revealed_ids(&anthropic, "tool_search"), ["d", "a"]);
    }

    #[test]
    fn malformed_messages_are_skipped() {
        let junk = vec![
            json!(null),
            json!({"role": "tool", "tool_call_id": 5, "content": "{"}),
            json!({"content": "not json"}),
            json!({"role": "assistant", "tool_calls": "x"}),
        ];
        assert!(revealed_ids(&junk, "tool_search").is_empty());
    }
}
