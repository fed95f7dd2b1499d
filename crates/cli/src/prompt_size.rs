//! `toolsearch prompt-size`: bytes of the tool definitions sent up front in each
//! shape (direct, code, tools), with the saving against direct exposure.

use crate::common::{load_catalog, print_json};
use anyhow::Result;
use serde_json::{json, Value};
use std::process::ExitCode;
use toolsearch::{Activation, Mode, Provider, Session, Settings, ToolSearch};

#[derive(clap::Args)]
pub struct Args {
    /// Catalog file; the embedded demo catalog when omitted.
    #[arg(long)]
    catalog: Option<std::path::PathBuf>,
    /// Print JSON (the only output format; accepted for scripts that pass it).
    #[arg(long)]
    json: bool,
}

/// Serialized bytes of the definitions, and of their parameter schemas alone.
fn measure(defs: &[Value]) -> (usize, usize) {
    let total = defs.iter().map(|d| d.to_string().len()).sum();
    let schemas = defs
        .iter()
        .map(|d| d["function"]["parameters"].to_string().len())
        .sum();
    (total, schemas)
}

pub fn run(args: Args) -> Result<ExitCode> {
    let catalog = load_catalog(args.catalog.as_deref(), false)?.catalog;
    let session = Session::new("prompt-size");
    let mut shapes = serde_json::Map::new();
    let mut direct_bytes = 0usize;
    for (label, mode, activation) in [
        ("direct", Mode::Tools, Activation::Never),
        ("code", Mode::Code, Activation::Always),
        ("tools", Mode::Tools, Activation::Always),
    ] {
        let ts = ToolSearch::builder()
            .catalog(catalog.clone())
            .settings(Settings {
                mode,
                activation,
                ..Settings::default()
            })
            .build()?;
        let defs = ts.definitions(&session, Provider::OpenAiChat);
        let (bytes, schema_bytes) = measure(&defs.tools);
        if label == "direct" {
            direct_bytes = bytes;
        }
        let saving = if direct_bytes > 0 {
            1.0 - bytes as f64 / direct_bytes as f64
        } else {
            0.0
        };
        shapes.insert(
            label.into(),
            json!({
                "shape": defs.decision.shape,
                "tools_sent": defs.tools.len(),
                "tool_bytes": bytes,
                "schema_bytes": schema_bytes,
                "est_tokens": bytes / 4,
                "saving_vs_direct": (saving * 10_000.0).round() / 10_000.0,
            }),
        );
    }
    print_json(json!({
        "catalog_tools": catalog.len(),
        "provider": "openai_chat",
        "token_estimate": "bytes / 4",
        "modes": shapes,
    }))?;
    let _ = args.json;
    Ok(ExitCode::SUCCESS)
}
