//! Whether code mode can run, as definitions see it. The pool is probed
//! before the first code tool is offered; after that only the platform's
//! failures change the answer, never one job's: a job whose process died
//! (`crashed`), ran out of memory or time says nothing about the pool, and
//! an `engine` error is believed only when a probe (a trivial snippet) fails
//! too. While code mode is down it is re-probed from a background thread,
//! [`REPROBE_FIRST`] doubling to [`REPROBE_MAX`]; every change is published
//! on a watch channel ([`ToolSearch::code_mode_changes`]), which the gateway
//! turns into `tools/list_changed`.
//!
//! [`ToolSearch::code_mode_changes`]: crate::ToolSearch::code_mode_changes

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::sync::watch;

/// The first re-probe after code mode went down.
pub const REPROBE_FIRST: Duration = Duration::from_secs(5);
/// The longest wait between two re-probes.
pub const REPROBE_MAX: Duration = Duration::from_secs(300);

/// What probes said, and who waits for changes.
pub(crate) struct CodeHealth {
    /// The last answer (`None`: not probed yet; `Err` holds the reason).
    answer: Mutex<Option<Result<(), String>>>,
    /// Set by [`CodeHealth::pin_down`]: the host turned code mode off; never
    /// re-probed.
    pinned: AtomicBool,
    /// A re-probe thread runs.
    reprobing: AtomicBool,
    /// A probe checking an `engine` error runs (one at a time, whatever the
    /// number of such errors).
    verifying: AtomicBool,
    /// Whether code mode is available now (false until probed).
    changes: watch::Sender<bool>,
}

impl Default for CodeHealth {
    fn default() -> Self {
        CodeHealth {
            answer: Mutex::new(None),
            pinned: AtomicBool::new(false),
            reprobing: AtomicBool::new(false),
            verifying: AtomicBool::new(false),
            changes: watch::Sender::new(false),
        }
    }
}

impl CodeHealth {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Result<(), String>>> {
        self.answer.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The last answer, or `probe`'s when there is none yet (made under the
    /// lock: concurrent first callers wait for one probe).
    pub(crate) fn get_or_probe(
        &self,
        probe: impl FnOnce() -> Result<(), String>,
    ) -> Result<(), String> {
        let mut answer = self.lock();
        if let Some(a) = answer.as_ref() {
            return a.clone();
        }
        let a = probe();
        if let Err(reason) = &a {
            tracing::warn!(%reason, "code mode unavailable; using the structured tools");
        }
        *answer = Some(a.clone());
        drop(answer);
        self.changes.send_replace(a.is_ok());
        a
    }

    /// Whether the last answer is "down" and may be re-probed.
    pub(crate) fn down_and_reprobable(&self) -> bool {
        !self.pinned.load(Ordering::SeqCst) && matches!(self.lock().as_ref(), Some(Err(_)))
    }

    /// Whether code mode is down, may be re-probed, and no re-probe runs yet.
    pub(crate) fn wants_reprobe(&self) -> bool {
        self.down_and_reprobable() && !self.reprobing.load(Ordering::SeqCst)
    }

    /// Records a probe's answer; publishes a change of availability.
    pub(crate) fn set(&self, answer: Result<(), String>) {
        if self.pinned.load(Ordering::SeqCst) {
            return;
        }
        let up = answer.is_ok();
        *self.lock() = Some(answer);
        self.changes
            .send_if_modified(|v| std::mem::replace(v, up) != up);
    }

    /// The host turned code mode off for good.
    pub(crate) fn pin_down(&self, reason: &str) {
        self.pinned.store(true, Ordering::SeqCst);
        *self.lock() = Some(Err(reason.to_owned()));
        self.changes
            .send_if_modified(|v| std::mem::replace(v, false));
    }

    /// Claims the one check of an `engine` error; false when one runs
    /// already. [`CodeHealth::verified`] ends it.
    pub(crate) fn begin_verify(&self) -> bool {
        !self.verifying.swap(true, Ordering::SeqCst)
    }

    /// The check claimed by [`CodeHealth::begin_verify`] is over.
    pub(crate) fn verified(&self) {
        self.verifying.store(false, Ordering::SeqCst);
    }

    /// Follows availability changes.
    pub(crate) fn subscribe(&self) -> watch::Receiver<bool> {
        self.changes.subscribe()
    }

    /// Starts the re-probe thread unless one runs: it probes at
    /// [`REPROBE_FIRST`], doubling to [`REPROBE_MAX`], until a probe passes
    /// (then code mode is up again) or the facade is gone.
    pub(crate) fn reprobe(
        self: &Arc<Self>,
        probe: impl Fn() -> Result<(), String> + Send + 'static,
    ) {
        if self.reprobing.swap(true, Ordering::SeqCst) {
            return;
        }
        let health: Weak<CodeHealth> = Arc::downgrade(self);
        let started = std::thread::Builder::new()
            .name("code-mode-reprobe".into())
            .spawn(move || {
                let mut wait = REPROBE_FIRST;
                loop {
                    if !sleep_while_alive(&health, wait) {
                        return;
                    }
                    let answer = probe();
                    let Some(h) = health.upgrade() else { return };
                    match answer {
                        Ok(()) => {
                            tracing::info!("code mode is available again");
                            h.set(Ok(()));
                            h.reprobing.store(false, Ordering::SeqCst);
                            return;
                        }
                        Err(reason) => {
                            wait = (wait * 2).min(REPROBE_MAX);
                            tracing::warn!(%reason, next_in_s = wait.as_secs(), "code mode still unavailable");
                            h.set(Err(reason));
                        }
                    }
                }
            });
        if let Err(e) = started {
            tracing::error!("cannot start the code mode re-probe: {e}");
            self.reprobing.store(false, Ordering::SeqCst);
        }
    }
}

/// Sleeps `wait` in short steps; false as soon as the health is gone.
fn sleep_while_alive(health: &Weak<CodeHealth>, wait: Duration) -> bool {
    let until = Instant::now() + wait;
    loop {
        if health.strong_count() == 0 {
            return false;
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return true;
        }
        std::thread::sleep(left.min(Duration::from_millis(200)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_published_once_per_transition_and_a_pin_is_final() {
        let h = CodeHealth::default();
        let mut rx = h.subscribe();
        assert_eq!(h.get_or_probe(|| Ok(())), Ok(()));
        assert!(*rx.borrow_and_update());
        h.set(Ok(()));
        assert!(!rx.has_changed().unwrap(), "no change, no news");
        h.set(Err("x".into()));
        assert!(rx.has_changed().unwrap() && !*rx.borrow_and_update());
        assert!(h.down_and_reprobable());
        h.set(Ok(()));
        assert!(*rx.borrow_and_update());
        h.pin_down("off");
        assert!(!*rx.borrow_and_update());
        h.set(Ok(()));
        assert!(!h.down_and_reprobable());
        assert_eq!(h.get_or_probe(|| Ok(())), Err("off".into()));
    }
}
