//! Helpers shared by subcommands: catalog loading and JSON output.

use anyhow::{Context, Result};
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::time::Instant;
use toolsearch_catalog::{load_path, Catalog, LoadOptions};

/// A catalog and how long building it took.
pub struct LoadedCatalog {
    pub catalog: Catalog,
    pub build_ms: f64,
}

/// Loads `path`, or the embedded demo catalog when `None`. Problems go to stderr.
pub fn load_catalog(path: Option<&Path>, strict: bool) -> Result<LoadedCatalog> {
    let Some(path) = path else {
        let start = Instant::now();
        let catalog = Catalog::demo();
        return Ok(LoadedCatalog {
            catalog,
            build_ms: start.elapsed().as_secs_f64() * 1e3,
        });
    };
    let opts = LoadOptions {
        strict,
        ..Default::default()
    };
    let loaded =
        load_path(path, &opts).with_context(|| format!("loading catalog {}", path.display()))?;
    for p in &loaded.problems {
        let tool = p
            .tool
            .as_deref()
            .map(|t| format!(" (tool `{t}`)"))
            .unwrap_or_default();
        let what = if p.skipped { "skipped" } else { "kept" };
        eprintln!(
            "toolsearch: {}: {}{tool}: {} [{what}]",
            path.display(),
            p.location,
            p.message
        );
    }
    // Time the snapshot + index build alone, from already-parsed tools.
    let tools = loaded.catalog.tools().to_vec();
    let start = Instant::now();
    let catalog = Catalog::new(tools)?;
    Ok(LoadedCatalog {
        catalog,
        build_ms: start.elapsed().as_secs_f64() * 1e3,
    })
}

/// Prints `value` as pretty JSON with `schema_version` first.
pub fn print_json(mut value: Value) -> Result<()> {
    if let Value::Object(map) = &mut value {
        let mut out = serde_json::Map::new();
        out.insert("schema_version".into(), crate::SCHEMA_VERSION.into());
        out.extend(std::mem::take(map));
        value = Value::Object(out);
    }
    let mut stdout = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut stdout, &value)?;
    writeln!(stdout)?;
    stdout.flush()?;
    Ok(())
}

/// True when the error is a closed stdout (`toolsearch ... | head`), which is not a failure.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe))
    })
}

/// Runs one snippet in a one-job sandbox over `catalog`, scoped by `policy`, with the
/// echo dispatcher (each tool returns `{"tool": id, "arguments": args}`).
pub fn run_snippet(
    catalog: toolsearch_catalog::Catalog,
    policy: toolsearch::Policy,
    limits: toolsearch_sandbox::Limits,
    source: &[u8],
) -> Result<toolsearch_sandbox::ExecResult> {
    use std::sync::Arc;
    use toolsearch_sandbox::{Pool, PoolConfig};
    let bridge = Arc::new(toolsearch::CatalogBridge::new(
        catalog,
        Arc::new(policy),
        Arc::new(toolsearch::EchoDispatcher),
        toolsearch::CallContext::default(),
    ));
    let pool = Pool::new(PoolConfig {
        workers: 1,
        queue: 1,
        limits: limits.clone(),
        prewarm: false,
        // One runtime: making a startup snapshot (~0.5 s) would cost more than it saves.
        snapshot: false,
        ..PoolConfig::default()
    })
    .context("starting the sandbox")?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()?;
    Ok(rt.block_on(pool.execute_bytes(source, bridge, limits)))
}
