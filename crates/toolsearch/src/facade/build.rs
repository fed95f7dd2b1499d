//! Building a [`ToolSearch`]: the settings, the host's parts and the sandbox,
//! checked before the first request.

use std::sync::Arc;
use std::time::Duration;

use toolsearch_catalog::Catalog;
#[cfg(feature = "code")]
use toolsearch_sandbox::Pool;

use super::ToolSearch;
use crate::code::CodeMode;
use crate::conversation::Registry;
use crate::dispatch::{Dispatcher, EchoDispatcher};
use crate::host::{AfterCall, Approver, Availability, BeforeCall, Host, HostParts, Outages};
use crate::policy::Policy;
use crate::settings::modes::{Activation, Mode};
use crate::settings::{BuildError, Settings};
use crate::vocab::Provider;

/// Builds a [`ToolSearch`].
pub struct Builder {
    host: HostParts,
    settings: Settings,
    #[cfg(feature = "code")]
    pool: Option<Pool>,
}

impl Builder {
    /// The tool catalog (default: empty).
    pub fn catalog(mut self, catalog: Catalog) -> Self {
        self.host.catalog = catalog;
        self
    }
    /// The host policy (default: allow everything).
    pub fn policy(mut self, policy: Policy) -> Self {
        self.host.policy = Arc::new(policy);
        self
    }
    /// Runs the real tools (default: [`EchoDispatcher`]).
    pub fn dispatcher(mut self, dispatcher: Arc<dyn Dispatcher>) -> Self {
        self.host.dispatcher = dispatcher;
        self
    }
    /// Shape when deferral is on (default [`Mode::Code`]).
    pub fn mode(mut self, mode: Mode) -> Self {
        self.settings.mode = mode;
        self
    }
    /// When deferral is on (default [`Activation::Auto`]).
    pub fn activation(mut self, activation: Activation) -> Self {
        self.settings.activation = activation;
        self
    }
    /// The provider definitions are built for (needed by [`Mode::Native`]).
    pub fn provider(mut self, provider: Provider) -> Self {
        self.settings.provider = Some(provider);
        self
    }
    /// All settings at once.
    pub fn settings(mut self, settings: Settings) -> Self {
        self.settings = settings;
        self
    }
    /// The sandbox pool for code mode (default: one made on first use, of worker
    /// processes running the program [`WorkerCommand::locate`](crate::WorkerCommand::locate)
    /// finds; see [`serve_if_worker`](crate::serve_if_worker)).
    #[cfg(feature = "code")]
    pub fn sandbox(mut self, pool: Pool) -> Self {
        self.pool = Some(pool);
        self
    }
    /// Asks before every call (and for destructive ones, see [`Builder::approve_destructive`]).
    pub fn approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.host.approver = Some(approver);
        self
    }
    /// Tools annotated `destructiveHint` need approval (refused without an approver).
    pub fn approve_destructive(mut self, on: bool) -> Self {
        self.host.approve_destructive = on;
        self
    }
    /// A hook before each call; it sees the real tool and can block the call.
    pub fn before_call(mut self, hook: BeforeCall) -> Self {
        self.host.before.push(hook);
        self
    }
    /// A hook after each call, with the outcome.
    pub fn after_call(mut self, hook: AfterCall) -> Self {
        self.host.after.push(hook);
        self
    }
    /// Per-call timeout (default 60 s).
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.host.call_timeout = timeout;
        self
    }
    /// Longest wait for one approval before the call is refused (default
    /// [`DEFAULT_APPROVAL_TIMEOUT`](crate::DEFAULT_APPROVAL_TIMEOUT), 120 s). A
    /// snippet waiting for an approval is paused: the wait does not count against
    /// its deadline.
    pub fn approval_timeout(mut self, timeout: Duration) -> Self {
        self.host.approval_timeout = timeout;
        self
    }
    /// Fuses an embedding model with search (all shapes: code mode, structured tools).
    /// Tool vectors are built in the background for each catalog snapshot and cached
    /// in `cache`; search is lexical until they are ready.
    #[cfg(feature = "semantic")]
    pub fn semantic(
        mut self,
        embedder: Arc<toolsearch_embed::Embedder>,
        cache: Option<std::path::PathBuf>,
    ) -> Self {
        self.host.semantic = Some(crate::host::semantic::SemanticSearch::new(embedder, cache));
        self
    }
    /// Tells which tools' backends can take calls now (see [`crate::Availability`]).
    pub fn availability(mut self, availability: Availability) -> Self {
        self.host.availability = Some(availability);
        self
    }
    /// Tells which configured backends are down and why (see [`crate::Outages`]).
    pub fn outages(mut self, outages: Outages) -> Self {
        self.host.outages = Some(outages);
        self
    }
    /// Tells when tools not in the catalog yet are expected (see [`crate::Pending`]).
    pub fn pending(mut self, pending: crate::host::Pending) -> Self {
        self.host.pending = Some(pending);
        self
    }
    /// Record arguments and results in the turn record (default off: they carry tokens).
    pub fn capture_payloads(mut self, on: bool) -> Self {
        self.host.capture = on;
        self
    }
    /// Checks every setting and builds it: a setting out of range fails here, not
    /// on the first request.
    ///
    /// # Errors
    /// [`BuildError`] naming the first setting that is out of range,
    /// [`Mode::Code`] asked of a build without the `code` feature, or of a host
    /// with no sandbox worker program (setting `sandbox`: call
    /// [`serve_if_worker`](crate::serve_if_worker) first in `main`).
    pub fn build(mut self) -> Result<ToolSearch, BuildError> {
        self.settings.validate()?;
        if self.host.call_timeout.is_zero() {
            return Err(BuildError::new("call_timeout", "must be more than zero"));
        }
        if self.host.approval_timeout.is_zero() {
            return Err(BuildError::new(
                "approval_timeout",
                "must be more than zero",
            ));
        }
        // Code mode's worker program is found now, so a host that cannot run
        // snippets learns it here, not from a model's first call.
        #[cfg(feature = "code")]
        if self.settings.mode == Mode::Code && self.pool.is_none() {
            if let Err(e) = toolsearch_sandbox::WorkerCommand::locate() {
                return Err(BuildError::new(
                    "sandbox",
                    format!(
                        "code mode runs snippets in sandbox worker processes: {e}; or choose \
                         .mode(Mode::Tools), or pass .sandbox(pool) for a pool of your own"
                    ),
                ));
            }
        }
        self.host.limits = self.settings.limits();
        let conversations = Registry::new(self.settings.max_sessions, self.host.capture);
        let host = Arc::new(Host::new(self.host));
        #[cfg(feature = "code")]
        let code = CodeMode::new(self.pool);
        #[cfg(not(feature = "code"))]
        let code = CodeMode::default();
        Ok(ToolSearch {
            host,
            settings: self.settings,
            code,
            plans: Default::default(),
            conversations,
        })
    }
}

impl ToolSearch {
    /// A builder with the defaults.
    pub fn builder() -> Builder {
        Builder {
            host: HostParts::new(
                Catalog::empty(),
                Arc::new(Policy::default()),
                Arc::new(EchoDispatcher),
            ),
            settings: Settings::default(),
            #[cfg(feature = "code")]
            pool: None,
        }
    }
}
