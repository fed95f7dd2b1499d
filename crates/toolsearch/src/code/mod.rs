//! Code mode: the sandbox pool, the engine probe, and `tool_search_code` runs
//! (`bridge.rs` is what a snippet's `openclaw.tools` reach, `answer.rs` what the
//! model gets back, `health.rs` whether the engine can run). Built with the
//! `code` feature (on by default); without it the engine probe answers
//! "unavailable" and deferral uses the structured tools.

#[cfg(feature = "code")]
pub mod answer;
#[cfg(feature = "code")]
pub(crate) mod bridge;
#[cfg(feature = "code")]
pub(crate) mod health;

use std::sync::Arc;

use serde_json::Value;

use crate::dispatch::CallContext;
use crate::error::ErrorCode;
use crate::host::{Host, Scope};
use crate::output::ToolOutput;
#[cfg(feature = "code")]
use {
    bridge::CatalogBridge,
    std::sync::Mutex,
    toolsearch_sandbox::{ErrorKind, Pool, PoolConfig},
};

/// Code mode's engine: the sandbox pool (made on first use) and whether it can
/// run snippets.
#[derive(Default)]
pub(crate) struct CodeMode {
    #[cfg(feature = "code")]
    pool: Mutex<Option<Pool>>,
    /// Whether code mode can run (probes and their answers).
    #[cfg(feature = "code")]
    health: Arc<health::CodeHealth>,
}

#[cfg(feature = "code")]
impl CodeMode {
    /// Code mode on `pool` (`None`: one made on first use).
    pub(crate) fn new(pool: Option<Pool>) -> Self {
        CodeMode {
            pool: Mutex::new(pool),
            health: Arc::default(),
        }
    }

    /// Whether the JS engine can run code mode: probed before the first code
    /// tool is sent, then re-probed in the background while it cannot (see
    /// `health.rs`).
    /// Called for every set of definitions: when code mode is up, or down with
    /// its re-probe running, this is one lock and no I/O.
    pub(crate) fn engine_ok(&self) -> Result<(), String> {
        let answer = self.health.get_or_probe(|| self.probe_pool());
        if let Err(reason) = &answer {
            if self.health.wants_reprobe() {
                match self.pool() {
                    Ok(pool) => keep_probing(&self.health, pool),
                    // No pool could be built (no worker program): nothing to
                    // re-probe until the host is restarted.
                    Err(_) => self.health.pin_down(reason),
                }
            }
        }
        answer
    }

    fn probe_pool(&self) -> Result<(), String> {
        self.pool().and_then(|p| probe(&p))
    }

    /// Follows whether code mode is available (`true`) or definitions fall back
    /// to the structured tools (`false`, also before the first probe). It
    /// changes only when the pool itself stops or starts working again, never
    /// because of one snippet; a gateway tells its clients
    /// `tools/list_changed` then.
    pub(crate) fn code_mode_changes(&self) -> tokio::sync::watch::Receiver<bool> {
        self.health.subscribe()
    }

    /// Stops code mode's sandbox, for a host about to exit: its worker
    /// processes and the job processes they forked are killed, and this waits
    /// (up to `within`) until all have exited (see
    /// [`Pool::shutdown`](toolsearch_sandbox::Pool::shutdown)). Snippets
    /// running or sent later get an error. True when nothing was left running
    /// (or no sandbox was started). Blocks: call it outside async code.
    pub(crate) fn shutdown_sandbox(&self, within: std::time::Duration) -> bool {
        let pool = self.pool.lock().unwrap_or_else(|p| p.into_inner()).clone();
        pool.is_none_or(|p| p.shutdown(within))
    }

    fn pool(&self) -> Result<Pool, String> {
        let mut pool = self.pool.lock().unwrap_or_else(|p| p.into_inner());
        if pool.is_none() {
            // Snippets are written by a model whose input anyone can write: they
            // run in worker processes under the OS layer, never on in-process
            // threads unless the embedder chose that (`.sandbox(pool)`). Without
            // a worker program code mode is unavailable (the structured tools are
            // sent; the probe logs the reason once).
            let command = toolsearch_sandbox::WorkerCommand::locate().map_err(|e| {
                format!(
                    "code mode runs snippets in sandbox worker processes and none was found \
                     ({e}); to run trusted code on in-process threads instead, pass \
                     .sandbox(Pool::new(PoolConfig {{ isolation: Isolation::Thread, .. }}))"
                )
            })?;
            let isolation = toolsearch_sandbox::Isolation::Process(command);
            let cfg = PoolConfig {
                isolation,
                ..PoolConfig::default()
            };
            *pool = Some(Pool::new(cfg).map_err(|e| e.to_string())?);
        }
        Ok(pool.clone().expect("set above"))
    }

    /// Runs one `tool_search_code` call for `scope` (its record counts the
    /// run) with `cx` (its session, cancellation and progress sink).
    pub(crate) async fn run(
        &self,
        host: &Arc<Host>,
        scope: Scope,
        cx: CallContext,
        args: Value,
    ) -> ToolOutput {
        let Some(code) = args["code"].as_str() else {
            return ToolOutput::error(
                ErrorCode::InvalidArgs,
                "tool_search_code needs `code`: the body of an async function",
            );
        };
        let pool = match self.pool() {
            Ok(p) => p,
            Err(e) => {
                return ToolOutput::error(
                    ErrorCode::Unavailable,
                    format!("code mode is unavailable: {e}"),
                )
            }
        };
        let scope = Arc::new(scope);
        let span = tracing::info_span!(
            "snippet",
            code_bytes = code.len(),
            outcome = tracing::field::Empty,
            calls = tracing::field::Empty,
        );
        // Where the snippet's searches and calls run: its span, or the nearest
        // one a subscriber wants (a trace's request whose snippet is not
        // traced still passes its context on).
        let anchor = if span.is_disabled() {
            tracing::Span::current()
        } else {
            span.clone()
        };
        let bridge = Arc::new(CatalogBridge::from_host(
            host.clone(),
            scope.clone(),
            cx,
            anchor,
        ));
        let result =
            tracing::Instrument::instrument(pool.execute(code, bridge.clone()), span.clone()).await;
        bridge.end_span();
        if !span.is_disabled() {
            let outcome = result
                .error
                .as_ref()
                .map_or("ok".into(), |e| format!("{:?}", e.kind).to_lowercase());
            span.record("outcome", outcome);
            span.record("calls", result.calls.len());
        }
        scope.record(|t| {
            t.turn.isolate_start_us.push(result.stats.startup_us);
            t.turn.snippet_run_us.push(result.stats.run_us);
        });
        if let Some(e) = result
            .error
            .as_ref()
            .filter(|e| e.kind == ErrorKind::Engine)
        {
            // The pool may be broken, or this was a passing event (a slow
            // start on a loaded host, a failed fork): a probe decides, off this
            // request's path. One job's own failure (`crashed`, `memory`, ...)
            // never gets here.
            let reason = e.message.clone();
            scope.record(|t| {
                t.turn
                    .fallbacks
                    .push(crate::vocab::Fallback::CodeFailed { reason }.to_string())
            });
            self.verify_engine(pool.clone());
        }
        bridge.answer(&result, code)
    }

    /// After an `engine` error: probes the pool on a thread of its own; when
    /// the probe fails too, code mode is down (definitions fall back, the
    /// change is published) and re-probed until it works again.
    /// One such probe runs at a time, and none while code mode is already down
    /// (its re-probe runs).
    fn verify_engine(&self, pool: Pool) {
        if self.health.down_and_reprobable() || !self.health.begin_verify() {
            return;
        }
        let health = self.health.clone();
        let started = std::thread::Builder::new()
            .name("code-mode-verify".into())
            .spawn(move || {
                let answer = probe(&pool);
                health.verified();
                if let Err(reason) = answer {
                    tracing::warn!(%reason, "code mode unavailable; using the structured tools");
                    health.set(Err(reason));
                    keep_probing(&health, pool);
                }
            });
        if let Err(e) = started {
            self.health.verified();
            tracing::error!("cannot verify the sandbox: {e}");
        }
    }

    /// Marks the engine unusable for good (for tests and for hosts that know
    /// better); never re-probed.
    pub(crate) fn disable_code_mode(&self, reason: &str) {
        self.health.pin_down(reason);
    }
}

/// Runs the pool's probe (a trivial snippet).
#[cfg(feature = "code")]
fn probe(pool: &Pool) -> Result<(), String> {
    pool.probe().map_err(|e| e.to_string())
}

/// While code mode is down (and not turned off by the host), re-probes `pool`
/// in the background until it works again.
#[cfg(feature = "code")]
fn keep_probing(health: &Arc<health::CodeHealth>, pool: Pool) {
    if health.down_and_reprobable() {
        health.reprobe(move || probe(&pool));
    }
}

#[cfg(not(feature = "code"))]
impl CodeMode {
    /// Code mode is not built in: deferral uses the structured tools.
    pub(crate) fn engine_ok(&self) -> Result<(), String> {
        Err("toolsearch was built without the `code` feature".into())
    }

    pub(crate) async fn run(
        &self,
        _host: &Arc<Host>,
        _scope: Scope,
        _cx: CallContext,
        _args: Value,
    ) -> ToolOutput {
        ToolOutput::error(
            ErrorCode::Unavailable,
            "code mode is not built in (the `code` feature is off); use tool_search, \
             tool_describe and tool_call",
        )
    }

    /// Code mode is never available in this build; kept so callers compile alike.
    pub(crate) fn disable_code_mode(&self, _reason: &str) {}

    /// Always `false` in this build (no code mode), and never changes.
    pub(crate) fn code_mode_changes(&self) -> tokio::sync::watch::Receiver<bool> {
        tokio::sync::watch::channel(false).1
    }
}
