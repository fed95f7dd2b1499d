//! Code mode: the sandbox pool, the engine probe, and `tool_search_code` runs.
//! Built with the `code` feature (on by default); without it the engine probe
//! answers "unavailable" and deferral uses the structured tools.

use serde_json::Value;

use crate::facade::{CallOptions, Session, ToolOutput, ToolSearch};

impl ToolSearch {
    /// Probes code mode now when the mode may use it (a trivial snippet on the
    /// pool: up to seconds on a cold machine), so that no `definitions` call
    /// waits for the first probe. Whether code mode can run (`Ok` too when the
    /// mode never uses it). Blocks: call it at start, outside async code (the
    /// gateway does, on a blocking thread).
    pub fn probe_code_mode(&self) -> Result<(), String> {
        match self.settings.mode {
            crate::Mode::Code | crate::Mode::Auto => self.engine_ok(),
            _ => Ok(()),
        }
    }
}
#[cfg(feature = "code")]
use {
    crate::bridge::CatalogBridge,
    std::sync::Arc,
    toolsearch_sandbox::{ErrorKind, Pool, PoolConfig},
};

#[cfg(feature = "code")]
impl ToolSearch {
    /// Whether the JS engine can run code mode: probed before the first code
    /// tool is sent, then re-probed in the background while it cannot (see
    /// `code_health.rs`).
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
    pub fn code_mode_changes(&self) -> tokio::sync::watch::Receiver<bool> {
        self.health.subscribe()
    }

    /// Stops code mode's sandbox, for a host about to exit: its worker
    /// processes and the job processes they forked are killed, and this waits
    /// (up to `within`) until all have exited (see
    /// [`Pool::shutdown`](toolsearch_sandbox::Pool::shutdown)). Snippets
    /// running or sent later get an error. True when nothing was left running
    /// (or no sandbox was started). Blocks: call it outside async code.
    pub fn shutdown_sandbox(&self, within: std::time::Duration) -> bool {
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

    pub(crate) async fn run_code(
        &self,
        session: &Session,
        args: Value,
        opts: &CallOptions,
    ) -> ToolOutput {
        let Some(code) = args["code"].as_str() else {
            return ToolOutput::error(
                crate::ErrorCode::InvalidArgs,
                "tool_search_code needs `code`: the body of an async function",
            );
        };
        let pool = match self.pool() {
            Ok(p) => p,
            Err(e) => {
                return ToolOutput::error(
                    crate::ErrorCode::Unavailable,
                    format!("code mode is unavailable: {e}"),
                )
            }
        };
        let bridge = Arc::new(CatalogBridge::from_host(
            self.host.clone(),
            Arc::new(Self::scope(session)),
            self.context(session, opts),
        ));
        let result = pool.execute(code, bridge.clone()).await;
        {
            let mut t = self.host.telemetry(&session.id);
            t.turn.isolate_start_us.push(result.stats.startup_us);
            t.turn.snippet_run_us.push(result.stats.run_us);
        }
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
            self.host
                .telemetry(&session.id)
                .turn
                .fallbacks
                .push(crate::Fallback::CodeFailed { reason }.to_string());
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
    pub fn disable_code_mode(&self, reason: &str) {
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
fn keep_probing(health: &Arc<crate::code_health::CodeHealth>, pool: Pool) {
    if health.down_and_reprobable() {
        health.reprobe(move || probe(&pool));
    }
}

#[cfg(not(feature = "code"))]
impl ToolSearch {
    /// Code mode is not built in: deferral uses the structured tools.
    pub(crate) fn engine_ok(&self) -> Result<(), String> {
        Err("toolsearch was built without the `code` feature".into())
    }

    pub(crate) async fn run_code(
        &self,
        _session: &Session,
        _args: Value,
        _opts: &CallOptions,
    ) -> ToolOutput {
        ToolOutput::error(
            crate::ErrorCode::Unavailable,
            "code mode is not built in (the `code` feature is off); use tool_search, \
             tool_describe and tool_call",
        )
    }

    /// Code mode is never available in this build; kept so callers compile alike.
    pub fn disable_code_mode(&self, _reason: &str) {}

    /// Always `false` in this build (no code mode), and never changes.
    pub fn code_mode_changes(&self) -> tokio::sync::watch::Receiver<bool> {
        tokio::sync::watch::channel(false).1
    }
}
