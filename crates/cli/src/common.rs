//! Helpers shared by subcommands (and by the lab's): catalog loading and JSON output.

use anyhow::{Context, Result};
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::time::Instant;
use toolsearch_catalog::{load_path, Catalog, LoadOptions};

/// The search → describe → call snippet `toolsearch demo` runs in code mode and
/// `toolsearch-lab bench` times.
pub const SNIPPET: &str = r#"
const hits = await openclaw.tools.search("open a github issue", {limit: 3});
const tool = await openclaw.tools.describe(hits[0].id);
return await openclaw.tools.call(tool.id, {owner: "acme", repo: "app", title: "Crash on start"});
"#;

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
        // The tool's name and the message quote the catalog: untrusted text,
        // one line each.
        let line = |t: &str| escape_unsafe(&t.replace(['\n', '\t'], " "));
        eprintln!(
            "toolsearch: {}: {}{}: {} [{what}]",
            path.display(),
            p.location,
            line(&tool),
            line(&p.message)
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

/// Worker processes of the sandbox: this binary's hidden `sandbox-worker` command.
pub fn worker_command() -> Result<toolsearch_sandbox::WorkerCommand> {
    Ok(toolsearch_sandbox::WorkerCommand {
        program: std::env::current_exe().context("locating this executable")?,
        args: vec!["sandbox-worker".into()],
    })
}

/// Prints `value` as pretty JSON with `schema_version` first.
///
/// What is printed is budgeted and safe for a terminal: every character that
/// must not reach one raw (C0/C1 controls, bidi controls, zero-width and other
/// format characters, line separators, tags: `toolsearch_sandbox::is_unsafe_char`)
/// is written as a `\uXXXX` escape, and when indentation would make the output
/// more than 64 KiB larger than the compact form (a deeply nested value), the
/// compact form is printed instead: output stays within the caps of what
/// produced it.
pub fn print_json(mut value: Value) -> Result<()> {
    if let Value::Object(map) = &mut value {
        let mut out = serde_json::Map::new();
        out.insert("schema_version".into(), crate::SCHEMA_VERSION.into());
        out.extend(std::mem::take(map));
        value = Value::Object(out);
    }
    let text = render_json(&value)?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    writeln!(stdout)?;
    stdout.flush()?;
    Ok(())
}

/// Most that indentation may add to the compact form.
const PRETTY_SLACK: usize = 64 << 10;

/// `value` as JSON for people: pretty within [`PRETTY_SLACK`] of the compact
/// form, else compact; unsafe characters escaped.
pub fn render_json(value: &Value) -> Result<String> {
    let compact = escape_unsafe(&serde_json::to_string(value)?);
    let pretty = escape_unsafe(&serde_json::to_string_pretty(value)?);
    Ok(if pretty.len() <= compact.len() + PRETTY_SLACK {
        pretty
    } else {
        compact
    })
}

/// Replaces every character a terminal must not see raw by its JSON escape
/// (`\uXXXX`, a surrogate pair above U+FFFF). Valid inside JSON strings, where
/// such characters can only be (the structure of JSON is ASCII), and for plain
/// text printed to a terminal.
/// Newlines and tabs are kept: in serialized JSON they are only its layout.
pub fn escape_unsafe(text: &str) -> String {
    let unsafe_char = |c: char| c != '\n' && c != '\t' && toolsearch_sandbox::is_unsafe_char(c);
    if !text.chars().any(unsafe_char) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if unsafe_char(c) {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Sends logs to stderr (stdout carries JSON, and for the gateway MCP messages),
/// filtered by `TOOLSEARCH_LOG`; warnings and errors when it is unset (a server
/// that is down shows in the client's log without any setting). Both binaries
/// call it first.
pub fn init_logs() {
    tracing_subscriber::fmt()
        .with_writer(|| Redacting(std::io::stderr()))
        .with_env_filter(log_filter())
        .init();
}

/// The crates whose lines below INFO quote whole messages (a tool's arguments
/// and results, a client's requests): kept at INFO whatever `TOOLSEARCH_LOG`
/// says, unless `TOOLSEARCH_LOG_PAYLOADS=1` turns capture on.
const PAYLOAD_CRATES: [&str; 4] = ["rmcp", "hyper", "reqwest", "h2"];

/// The target of the operator page's audit lines.
const AUDIT_TARGET: &str = "toolsearch::audit";

/// What `TOOLSEARCH_LOG` lets through to stderr: its directives, with
/// [`PAYLOAD_CRATES`] (and any module of theirs) held at INFO when it asks for
/// more, unless `TOOLSEARCH_LOG_PAYLOADS=1`.
fn log_filter() -> tracing_subscriber::EnvFilter {
    use tracing_subscriber::filter::LevelFilter;
    let capture = std::env::var("TOOLSEARCH_LOG_PAYLOADS").as_deref() == Ok("1");
    let spec = std::env::var("TOOLSEARCH_LOG").unwrap_or_default();
    let spec = if capture {
        spec
    } else {
        cap_payload_directives(&spec)
    };
    let audit_named = spec.contains(AUDIT_TARGET);
    let mut f = tracing_subscriber::EnvFilter::builder()
        .with_default_directive(LevelFilter::WARN.into())
        .parse_lossy(spec);
    // The operator page's audit lines (who did what from the page) are kept
    // whatever the level, unless the spec names them itself.
    if !audit_named {
        if let Ok(d) = format!("{AUDIT_TARGET}=info").parse() {
            f = f.add_directive(d);
        }
    }
    if !capture && f.max_level_hint().is_some_and(|l| l > LevelFilter::INFO) {
        for c in PAYLOAD_CRATES {
            if let Ok(d) = format!("{c}=info").parse() {
                f = f.add_directive(d);
            }
        }
    }
    f
}

/// `spec` (comma-separated `EnvFilter` directives) with every directive that
/// names one of [`PAYLOAD_CRATES`] or a module of theirs at DEBUG or TRACE
/// (or at no level, which is TRACE) set to INFO.
fn cap_payload_directives(spec: &str) -> String {
    spec.split(',')
        .map(|d| {
            let target = d.split(['[', '=']).next().unwrap_or("").trim();
            let ours = PAYLOAD_CRATES.iter().any(|c| {
                target == *c || target.strip_prefix(c).is_some_and(|r| r.starts_with("::"))
            });
            let level = d
                .rsplit_once('=')
                .map(|(_, l)| l.trim().to_ascii_lowercase());
            let verbose = match level.as_deref() {
                None => true,
                Some(l) => matches!(l, "debug" | "trace" | "4" | "5"),
            };
            if ours && verbose && !d.contains('[') {
                format!("{target}=info")
            } else {
                d.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// [`init_logs`], and the spans of toolsearch's own crates (with their
/// warnings) go to `traces` as well, whatever `TOOLSEARCH_LOG` says. Under a
/// request whose trace is not kept they are not made, for the logs either.
#[cfg(feature = "otel")]
pub fn init_logs_and_traces(traces: &toolsearch_mcp::telemetry::otlp::Traces) {
    use tracing_subscriber::prelude::*;
    let logs = log_filter();
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(|| Redacting(std::io::stderr()))
                .with_filter(log_filter()),
        )
        .with(traces.layer())
        // Last: the gate decides which of toolsearch's spans are made at all,
        // and turns off every callsite neither the logs nor the export want.
        .with(toolsearch_mcp::telemetry::otlp::Gate::new(move |m| {
            tracing_subscriber::layer::Filter::<tracing_subscriber::Registry>::callsite_enabled(
                &logs, m,
            )
        }))
        .init();
}

/// Log output with the secrets of URLs removed (their user info and query:
/// see [`toolsearch_mcp::text::redact_urls`]), whichever line quotes one (a
/// server's connect error, rmcp's and reqwest's own). The formatter writes
/// each event in one call.
struct Redacting<W>(W);

impl<W: std::io::Write> std::io::Write for Redacting<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        self.0
            .write_all(toolsearch_mcp::text::redact_urls(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// A command's exit code: its own on success, success when stdout was closed
/// (`... | head`), else 2, the error printed to stderr after `binary`'s name.
pub fn exit_code(binary: &str, result: Result<std::process::ExitCode>) -> std::process::ExitCode {
    match result {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{binary}: {}", message(&e));
            std::process::ExitCode::from(2)
        }
    }
}

/// An error and its causes on one line, each cause once: an error whose own text
/// already quotes its source (`cannot read X: <the OS error>`) does not print the
/// source twice.
fn message(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

/// True when the error is a closed stdout (`toolsearch ... | head`), which is not a failure.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe))
    })
}

/// Runs one snippet in a one-job sandbox over `catalog`, scoped by `policy`, with the
/// echo dispatcher (each tool returns `{"tool": id, "arguments": args}`): the
/// `ExecResult`, with `search_notes` (what its searches said besides their hits) as
/// `tool_search_code` answers.
pub fn run_snippet(
    catalog: toolsearch_catalog::Catalog,
    policy: toolsearch::Policy,
    limits: toolsearch_sandbox::Limits,
    source: &[u8],
    isolation: toolsearch_sandbox::Isolation,
) -> Result<serde_json::Value> {
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
        isolation,
        ..PoolConfig::default()
    })
    .context("starting the sandbox")?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()?;
    let result = rt.block_on(pool.execute_bytes(source, bridge.clone(), limits));
    // The worker process and its job process are gone before this returns.
    pool.shutdown(SHUTDOWN_WAIT);
    Ok(bridge.record_for(&result, &String::from_utf8_lossy(source)))
}

/// How long a command waits for its sandbox worker processes to exit.
pub const SHUTDOWN_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Lowercase hex of `bytes` (digests in messages and file names).
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `$XDG_CONFIG_HOME`, else `~/.config` (`None` without either variable).
pub fn config_home() -> Option<std::path::PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".config")))
}

#[cfg(test)]
mod tests {
    #[test]
    fn payload_directives_are_held_at_info() {
        let capped = super::cap_payload_directives(
            "debug,rmcp=trace,rmcp::service=debug,hyper,reqwest=warn,toolsearch_mcp=trace,rmcpx=trace",
        );
        assert_eq!(
            capped,
            "debug,rmcp=info,rmcp::service=info,hyper=info,reqwest=warn,toolsearch_mcp=trace,rmcpx=trace"
        );
    }
}
