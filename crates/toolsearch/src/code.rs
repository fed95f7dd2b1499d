//! Code mode: the sandbox pool, the engine probe, and `tool_search_code` runs.
//! Built with the `code` feature (on by default); without it the engine probe
//! answers "unavailable" and deferral uses the structured tools.

use serde_json::Value;

use crate::facade::{CallOptions, Session, ToolOutput, ToolSearch};
#[cfg(feature = "code")]
use {
    crate::bridge::CatalogBridge,
    std::sync::Arc,
    toolsearch_sandbox::{ErrorKind, Pool, PoolConfig},
};

#[cfg(feature = "code")]
impl ToolSearch {
    /// Whether the JS engine can run code mode (probed once, before any code tool is sent).
    pub(crate) fn engine_ok(&self) -> Result<(), String> {
        let mut engine = self.engine.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(answer) = engine.as_ref() {
            return answer.clone();
        }
        let answer = self
            .pool()
            .and_then(|p| p.probe().map_err(|e| e.to_string()));
        if let Err(reason) = &answer {
            tracing::warn!(%reason, "code mode unavailable; using the structured tools");
        }
        *engine = Some(answer.clone());
        answer
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
            // Snippets are written by a model whose input anyone can write: worker
            // processes under the OS layer when the worker program is found, else
            // in-process threads (trusted code only), said once in the log.
            let isolation = match toolsearch_sandbox::WorkerCommand::locate() {
                Some(command) => toolsearch_sandbox::Isolation::Process(command),
                None => {
                    tracing::warn!(
                        "toolsearch-sandbox-worker not found (set TOOLSEARCH_SANDBOX_WORKER or \
                         pass .sandbox(pool)); code mode runs snippets on in-process threads"
                    );
                    toolsearch_sandbox::Isolation::Thread
                }
            };
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
                "INVALID_ARGS",
                "tool_search_code needs `code`: the body of an async function",
            );
        };
        let pool = match self.pool() {
            Ok(p) => p,
            Err(e) => {
                return ToolOutput::error("UNAVAILABLE", format!("code mode is unavailable: {e}"))
            }
        };
        let bridge = Arc::new(CatalogBridge::from_host(
            self.host.clone(),
            Arc::new(Self::scope(session)),
            self.context(session, opts),
        ));
        let result = pool.execute(code, bridge).await;
        {
            let mut t = self.host.telemetry(&session.id);
            t.turn.isolate_start_us.push(result.stats.startup_us);
            t.turn.snippet_run_us.push(result.stats.run_us);
        }
        if result
            .error
            .as_ref()
            .is_some_and(|e| e.kind == ErrorKind::Engine)
        {
            // Next definitions use the structured tools.
            let reason = result
                .error
                .as_ref()
                .map(|e| e.message.clone())
                .unwrap_or_default();
            *self.engine.lock().unwrap_or_else(|p| p.into_inner()) = Some(Err(reason.clone()));
            self.host
                .telemetry(&session.id)
                .turn
                .fallbacks
                .push(format!("code mode broke mid-session ({reason})"));
            return ToolOutput::error("UNAVAILABLE", format!("code mode is unavailable ({reason}); use tool_search, tool_describe and tool_call next turn"));
        }
        let is_error = !result.ok;
        ToolOutput {
            content: serde_json::to_value(&result).unwrap_or(Value::Null),
            is_error,
            passthrough: None,
        }
    }

    /// Marks the engine unusable (for tests and for hosts that know better).
    pub fn disable_code_mode(&self, reason: &str) {
        *self.engine.lock().unwrap_or_else(|p| p.into_inner()) = Some(Err(reason.to_string()));
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
            "UNAVAILABLE",
            "code mode is not built in (the `code` feature is off); use tool_search, \
             tool_describe and tool_call",
        )
    }

    /// Code mode is never available in this build; kept so callers compile alike.
    pub fn disable_code_mode(&self, _reason: &str) {}
}
