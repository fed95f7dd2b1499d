#![allow(clippy::print_stdout)]
//! Embedding ToolSearch in a gateway's HTTP handlers: `POST /tools` returns the
//! definitions for a provider, `POST /call` handles a model's tool call. Plain std
//! networking keeps the example dependency-free; the handlers are what an axum or
//! hyper route would call.
//!
//! ```sh
//! cargo run -p toolsearch-examples --example gateway          # serves, calls itself once, exits
//! cargo run -p toolsearch-examples --example gateway -- serve # keeps serving on 127.0.0.1:8787
//! ```

#[path = "support/mod.rs"]
mod support;

use std::sync::Arc;

use serde_json::{json, Value};
use toolsearch::Catalog;
use toolsearch::{Provider, Session, ToolSearch};

/// `POST /tools {"session", "provider"}` -> `{"tools", "decision"}`.
fn tools_handler(ts: &ToolSearch, body: &Value) -> Value {
    let provider = match body["provider"].as_str() {
        Some("anthropic") => Provider::Anthropic,
        Some("openai_responses") => Provider::OpenAiResponses,
        Some("mcp") => Provider::Mcp,
        _ => Provider::OpenAiChat,
    };
    let session = Session::new(body["session"].as_str().unwrap_or("default"));
    let defs = ts.definitions(&session, provider);
    json!({"tools": defs.tools, "decision": defs.decision})
}

/// `POST /call {"session", "name", "arguments"}` -> `{"content", "is_error"}`.
async fn call_handler(ts: &ToolSearch, body: &Value) -> Value {
    let session = Session::new(body["session"].as_str().unwrap_or("default"));
    let name = body["name"].as_str().unwrap_or_default();
    let out = ts
        .handle_call(&session, name, body["arguments"].clone())
        .await;
    json!({"content": out.content, "is_error": out.is_error})
}

fn main() {
    let ts = Arc::new(
        ToolSearch::builder()
            .catalog(Catalog::demo())
            .build()
            .expect("default settings are in range"),
    );
    let handler_ts = ts.clone();
    let rt = Arc::new(
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime"),
    );
    let handler_rt = rt.clone();
    let handle = move |line: &str, body: &str| -> String {
        let body: Value = serde_json::from_str(body).unwrap_or_default();
        let reply = if line.starts_with("POST /tools") {
            tools_handler(&handler_ts, &body)
        } else if line.starts_with("POST /call") {
            handler_rt.block_on(call_handler(&handler_ts, &body))
        } else {
            json!({"error": "use POST /tools or POST /call"})
        };
        reply.to_string()
    };
    let addr = support::http::serve(handle);
    if std::env::args().nth(1).as_deref() == Some("serve") {
        println!("gateway on http://{addr} (POST /tools, POST /call)");
        loop {
            std::thread::park();
        }
    }
    let tools =
        support::http::post(&addr, "/tools", &json!({"session": "s1"}), None).expect("tools");
    println!("decision: {}", tools["decision"]);
    let code = "return (await openclaw.tools.search('weather forecast')).map(h => h.id)";
    let out = support::http::post(
        &addr,
        "/call",
        &json!({"session": "s1", "name": "tool_search_code", "arguments": {"code": code}}),
        None,
    )
    .expect("call");
    println!("tool_search_code -> {}", out["content"]["value"]);
}
