//! `toolsearch probe URL`: the gateway's source side as a client of one MCP server
//! (streamable HTTP): connect, list its tools, and call each once with arguments
//! made from its schema. What `@modelcontextprotocol/conformance client` runs.

use std::process::ExitCode;

use anyhow::{bail, Result};
use serde_json::{json, Map, Value};
use toolsearch::Session;
use toolsearch_mcp::{Config, Gateway};

#[derive(clap::Args)]
pub struct Args {
    /// The server's streamable HTTP endpoint.
    url: String,
}

/// The smallest arguments a schema asks for: each required property filled by type.
fn arguments(schema: &Value) -> Value {
    let mut args = Map::new();
    let props = schema["properties"].as_object();
    for key in schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let ty = props
            .and_then(|p| p.get(key))
            .and_then(|p| p["type"].as_str())
            .unwrap_or("string");
        let v = match ty {
            "number" | "integer" => json!(2),
            "boolean" => json!(true),
            "array" => json!([]),
            "object" => json!({}),
            _ => json!("probe"),
        };
        args.insert(key.to_string(), v);
    }
    Value::Object(args)
}

pub fn run(a: Args) -> Result<ExitCode> {
    let cfg = Config::parse(&format!(
        "activation = \"never\"\ndestructive = \"allow\"\n[[servers]]\nname = \"target\"\nurl = {:?}\n",
        a.url
    ))?;
    toolsearch_mcp::http_client::install_tls_provider();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let report = rt.block_on(async {
        let gw = Gateway::start(&cfg, None).await?;
        gw.settle(cfg.startup_timeout() + std::time::Duration::from_secs(1))
            .await;
        let status = gw.fleet().status();
        if !status.iter().all(|s| s.up) {
            gw.shutdown().await;
            bail!("the server did not start: {:?}", status[0].error);
        }
        let session = Session::new("probe");
        let mut calls = Vec::new();
        for def in gw.tools_for(&session) {
            let name = def["name"].as_str().unwrap_or_default().to_string();
            let args = arguments(&def["inputSchema"]);
            let out = gw
                .toolsearch()
                .handle_call(&session, &name, args.clone())
                .await;
            calls.push(json!({"tool": name, "arguments": args, "is_error": out.is_error}));
        }
        gw.shutdown().await;
        anyhow::Ok(json!({"server": status, "calls": calls}))
    })?;
    rt.shutdown_timeout(std::time::Duration::from_secs(1));
    crate::common::print_json(report)?;
    Ok(ExitCode::SUCCESS)
}
