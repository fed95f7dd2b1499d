#![allow(clippy::print_stdout)]
//! An agent loop against an OpenAI-compatible endpoint, with tool search in code mode.
//!
//! ```sh
//! # against a local OpenAI-compatible server (plain HTTP: vLLM, llama.cpp, Ollama ...)
//! OPENAI_BASE_URL=http://127.0.0.1:11434/v1 MODEL=qwen2.5 cargo run -p toolsearch-examples --example agent_loop
//! # without one: a scripted stand-in model on loopback
//! cargo run -p toolsearch-examples --example agent_loop
//! ```

#[path = "support/mod.rs"]
mod support;

use serde_json::json;
use toolsearch::Catalog;
use toolsearch::{Mode, ToolSearch};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), String> {
    let ts = ToolSearch::builder()
        .catalog(Catalog::demo())
        .mode(Mode::Code)
        .build()
        .map_err(|e| e.to_string())?;
    let task = "Open a GitHub issue in acme/app titled 'Crash on start'.";
    let (addr, path, model) = match std::env::var("OPENAI_BASE_URL") {
        Ok(url) => {
            let rest = url
                .strip_prefix("http://")
                .ok_or("only http:// endpoints are supported by this example")?;
            let (addr, base) = rest.split_once('/').unwrap_or((rest, ""));
            (
                addr.to_string(),
                format!("/{base}/chat/completions").replace("//", "/"),
                std::env::var("MODEL").unwrap_or_else(|_| "gpt-4o-mini".into()),
            )
        }
        Err(_) => {
            eprintln!("OPENAI_BASE_URL is not set: using a scripted stand-in model on loopback");
            let model = support::agent::scripted("Done: the issue is open.", |names| {
                if names.contains(&"tool_search_code") {
                    let code = "const [hit] = await openclaw.tools.search('open a github issue');\n\
                                const tool = await openclaw.tools.describe(hit.id);\n\
                                return openclaw.tools.call(tool.id, {owner: 'acme', repo: 'app', title: 'Crash on start'});";
                    ("tool_search_code".to_string(), json!({"code": code}))
                } else {
                    (
                        "create_issue".to_string(),
                        json!({"owner": "acme", "repo": "app", "title": "Crash on start"}),
                    )
                }
            });
            (
                support::http::serve(model),
                "/v1/chat/completions".to_string(),
                "scripted".to_string(),
            )
        }
    };
    let key = std::env::var("OPENAI_API_KEY").ok();
    let answer = support::agent::run(&ts, &addr, &path, &model, key.as_deref(), task, 6).await?;
    let record = ts.take_record(&toolsearch::Session::new(support::agent::SESSION));
    println!("answer: {answer}");
    println!(
        "turn record: {}",
        serde_json::to_string_pretty(&record).unwrap_or_default()
    );
    Ok(())
}
