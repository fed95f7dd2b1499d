//! `toolsearch prompt-size`: bytes of the tool definitions sent up front in each
//! mode (direct, code, tools, reveal with stubs, reveal hidden, native where the
//! provider hosts search), with the saving against direct exposure; and with
//! `--break-even`, the same over subsets of the catalog drawn with a fixed seed,
//! beside the extra round trips each mode costs to call one tool.

use crate::common::{load_catalog, print_json};
use anyhow::{bail, Result};
use serde_json::{json, Value};
use std::process::ExitCode;
use toolsearch::reveal::RevealSettings;
use toolsearch::{Activation, Catalog, Mode, Provider, Session, Settings, Shape, ToolSearch};

#[derive(clap::Args)]
pub struct Args {
    /// Catalog file; the embedded demo catalog when omitted.
    #[arg(long)]
    catalog: Option<std::path::PathBuf>,
    /// Print JSON (the only output format; accepted for scripts that pass it).
    #[arg(long)]
    json: bool,
    /// Provider shape: openai_chat (default), openai_responses, anthropic, mcp, gemini.
    #[arg(long, default_value = "openai_chat")]
    provider: String,
    /// Also measure subsets of 10, 15, 19, 50, 100 and 500 tools and the whole
    /// catalog, drawn with a fixed seed.
    #[arg(long)]
    break_even: bool,
    /// Seed of the subsets.
    #[arg(long, default_value_t = 7)]
    seed: u64,
}

/// The modes measured: label, mode, activation, hidden reveal.
const MODES: [(&str, Mode, Activation, bool); 6] = [
    ("direct", Mode::Tools, Activation::Never, false),
    ("code", Mode::Code, Activation::Always, false),
    ("tools", Mode::Tools, Activation::Always, false),
    ("reveal", Mode::Reveal, Activation::Always, false),
    ("reveal_hidden", Mode::Reveal, Activation::Always, true),
    ("native", Mode::Native, Activation::Always, false),
];

/// Extra model round trips to call one deferred tool, per shape (beyond the call).
fn round_trips(shape: Shape) -> Value {
    match shape {
        Shape::Direct => json!({"extra": 0, "how": "the call"}),
        Shape::Code => json!({"extra": 1, "how": "one snippet searches, describes and calls"}),
        Shape::Tools => json!({"extra": 2, "how": "tool_search, tool_describe, then tool_call"}),
        Shape::Reveal => {
            json!({"extra": 1, "how": "tool_search returns the schema; the tool is then called by name (0 when a stub is called with fitting arguments)"})
        }
        Shape::Native => {
            json!({"extra": 1, "how": "the search (ours: tool_search; hosted: inside the provider's turn, 0 client round trips)"})
        }
    }
}

/// Bytes of the definitions of one mode, and of their parameter schemas.
fn measure(
    catalog: &Catalog,
    provider: Provider,
    (mode, activation, hidden): (Mode, Activation, bool),
) -> Result<Option<(usize, usize, usize, Shape)>> {
    if mode == Mode::Native && !toolsearch::native::supported(provider) {
        return Ok(None);
    }
    let ts = ToolSearch::builder()
        .catalog(catalog.clone())
        .settings(Settings {
            mode,
            activation,
            provider: Some(provider),
            reveal: RevealSettings {
                hidden,
                ..RevealSettings::default()
            },
            ..Settings::default()
        })
        .build()?;
    let session = Session::new("prompt-size");
    let defs = ts.definitions(&session, provider);
    // What the model reads up front: a provider that hosts search keeps deferred
    // definitions out of the prompt (a namespace shows its name and description).
    let total = defs.tools.iter().map(prompt_bytes).sum::<usize>()
        + ts.reminder(&session, provider).map_or(0, |r| r.len());
    let schemas = defs
        .tools
        .iter()
        .map(|d| {
            [
                &d["function"]["parameters"],
                &d["parameters"],
                &d["input_schema"],
                &d["inputSchema"],
            ]
            .iter()
            .find(|v| !v.is_null())
            .map_or(0, |v| v.to_string().len())
        })
        .sum();
    Ok(Some((
        total,
        schemas,
        defs.tools.len(),
        defs.decision.shape,
    )))
}

/// Bytes of one definition the model reads up front.
fn prompt_bytes(d: &Value) -> usize {
    if d["defer_loading"] == true {
        return 0;
    }
    if d["type"] == "namespace" {
        return json!({"type": "namespace", "name": d["name"], "description": d["description"]})
            .to_string()
            .len();
    }
    d.to_string().len()
}

/// `n` tools of `catalog` drawn with `seed` (a fixed shuffle: the same subsets every run).
fn subset(catalog: &Catalog, n: usize, seed: u64) -> Result<Catalog> {
    let mut tools = catalog.tools().to_vec();
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    for i in (1..tools.len()).rev() {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let j = (state >> 33) as usize % (i + 1);
        tools.swap(i, j);
    }
    tools.truncate(n);
    Ok(Catalog::new(tools)?)
}

pub fn run(args: Args) -> Result<ExitCode> {
    let Some(provider) = Provider::from_name(&args.provider) else {
        bail!(
            "unknown provider `{}`: use openai_chat, openai_responses, anthropic, mcp or gemini",
            args.provider
        );
    };
    let catalog = load_catalog(args.catalog.as_deref(), false)?.catalog;
    let mut shapes = serde_json::Map::new();
    let mut direct_bytes = 0usize;
    for (label, mode, activation, hidden) in MODES {
        let Some((bytes, schema_bytes, sent, shape)) =
            measure(&catalog, provider, (mode, activation, hidden))?
        else {
            shapes.insert(label.into(), json!({"supported": false}));
            continue;
        };
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
                "shape": shape,
                "tools_sent": sent,
                "tool_bytes": bytes,
                "schema_bytes": schema_bytes,
                "est_tokens": bytes / 4,
                "saving_vs_direct": (saving * 10_000.0).round() / 10_000.0,
                "round_trips": round_trips(shape),
            }),
        );
    }
    let mut out = json!({
        "catalog_tools": catalog.len(),
        "provider": provider.name(),
        "token_estimate": "bytes / 4",
        "tool_bytes": "bytes the model reads up front: reveal includes its reminder when hidden, native excludes the definitions the provider defers",
        "modes": shapes,
    });
    if args.break_even {
        let mut rows = Vec::new();
        let sizes = [10, 15, 19, 50, 100, 500, catalog.len()];
        for n in sizes.into_iter().filter(|&n| n <= catalog.len()) {
            let part = subset(&catalog, n, args.seed)?;
            let mut row = serde_json::Map::new();
            row.insert("catalog_tools".into(), json!(n));
            for (label, mode, activation, hidden) in MODES {
                if let Some((bytes, ..)) = measure(&part, provider, (mode, activation, hidden))? {
                    row.insert(label.into(), json!(bytes));
                }
            }
            rows.push(Value::Object(row));
        }
        out["break_even"] = json!({"seed": args.seed, "bytes_up_front": rows});
    }
    print_json(out)?;
    let _ = args.json;
    Ok(ExitCode::SUCCESS)
}
