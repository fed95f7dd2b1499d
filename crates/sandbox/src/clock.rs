//! A job's clock: the deadline counts the snippet's own time, not the time a
//! person takes to approve one of its calls.
//!
//! While a call waits for an approval (the host's approver runs inside
//! [`pause_for_a_person`]) the job is *paused*; a paused job whose isolate is
//! idle (its event loop waiting, no JavaScript running) earns that wall time
//! back as credit, and its deadline moves by the credit. A snippet that keeps
//! running while it waits (a loop, other calls' results arriving) earns nothing
//! for that time, so it is stopped at its deadline as before. Each approval has
//! its own maximum wait (the host's setting), so the credit is bounded too.
//!
//! On the process backend the host owns the pause (the approver runs there) and
//! tells the worker (`ToChild::Pause`), whose clock knows whether the isolate is
//! idle; the host's own bound (`deadline + grace`, then the worker is killed)
//! moves by the whole time paused.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// How often a bound that a pause may move is looked at again while paused.
const PAUSED_RECHECK: Duration = Duration::from_millis(50);

type OnChange = Box<dyn Fn(bool) + Send + Sync>;

#[derive(Default)]
struct State {
    /// Approvals being waited for.
    pauses: usize,
    /// The isolate is running JavaScript (its event loop is being polled).
    busy: bool,
    /// Credit earned: paused and idle.
    credit: Duration,
    /// Wall time paused, busy or not (the host's bound).
    paused: Duration,
    /// Last time the counters above were brought up to date.
    last: Option<Instant>,
}

impl State {
    fn settle(&mut self, now: Instant) {
        if let Some(last) = self.last {
            let d = now.saturating_duration_since(last);
            if self.pauses > 0 {
                self.paused += d;
                if !self.busy {
                    self.credit += d;
                }
            }
        }
        self.last = Some(now);
    }
}

#[derive(Default)]
struct Inner {
    state: Mutex<State>,
    /// Called with `true` when the first pause begins and `false` when the last
    /// one ends (the host forwards them to a worker process).
    on_change: Option<OnChange>,
}

/// The clock of one job. Cheap to clone; clones share the clock.
#[derive(Clone, Default)]
pub struct JobClock(Arc<Inner>);

impl std::fmt::Debug for JobClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (credit, paused) = self.totals();
        f.debug_struct("JobClock")
            .field("credit", &credit)
            .field("paused", &paused)
            .finish()
    }
}

fn lock(m: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl JobClock {
    /// A clock that calls `on_change(paused)` when the job becomes paused or
    /// stops being paused.
    pub(crate) fn with_observer(on_change: impl Fn(bool) + Send + Sync + 'static) -> Self {
        JobClock(Arc::new(Inner {
            state: Mutex::default(),
            on_change: Some(Box::new(on_change)),
        }))
    }

    /// Starts (`true`) or ends (`false`) one pause. Returns whether the job's
    /// paused state changed.
    pub(crate) fn set_paused(&self, on: bool) -> bool {
        let changed = {
            let mut s = lock(&self.0.state);
            s.settle(Instant::now());
            if on {
                s.pauses += 1;
                s.pauses == 1
            } else if s.pauses > 0 {
                s.pauses -= 1;
                s.pauses == 0
            } else {
                false
            }
        };
        if changed {
            if let Some(f) = &self.0.on_change {
                f(on);
            }
        }
        changed
    }

    /// Marks the isolate as running JavaScript or idle.
    pub(crate) fn set_busy(&self, busy: bool) {
        let mut s = lock(&self.0.state);
        s.settle(Instant::now());
        s.busy = busy;
    }

    /// (credit earned while paused and idle, wall time paused), up to now.
    pub(crate) fn totals(&self) -> (Duration, Duration) {
        let mut s = lock(&self.0.state);
        s.settle(Instant::now());
        (s.credit, s.paused)
    }

    /// Credit earned so far: how far the deadline has moved.
    pub(crate) fn credit(&self) -> Duration {
        self.totals().0
    }

    /// Wall time paused so far: how far the host's bound has moved.
    pub(crate) fn paused(&self) -> Duration {
        self.totals().1
    }

    /// Whether an approval is being waited for.
    #[cfg(test)]
    fn is_paused(&self) -> bool {
        lock(&self.0.state).pauses > 0
    }

    /// How long until `deadline`, moved by the credit (the snippet's own time
    /// runs out); `None` once it passed.
    pub(crate) fn left_of_deadline(&self, deadline: Instant) -> Option<Duration> {
        self.left(deadline, true)
    }

    /// How long until `bound`, moved by the whole time paused (a host's or a
    /// child's bound past the deadline); `None` once it passed.
    pub(crate) fn left_of_bound(&self, bound: Instant) -> Option<Duration> {
        self.left(bound, false)
    }

    /// While paused the moved instant keeps moving, so the answer is at most
    /// [`PAUSED_RECHECK`]: look again then.
    fn left(&self, base: Instant, by_credit: bool) -> Option<Duration> {
        let now = Instant::now();
        let mut s = lock(&self.0.state);
        s.settle(now);
        let moved = base + if by_credit { s.credit } else { s.paused };
        let left = moved.checked_duration_since(now).filter(|d| !d.is_zero())?;
        Some(if s.pauses > 0 {
            left.min(PAUSED_RECHECK)
        } else {
            left
        })
    }

    /// Starts counting (the job's deadline begins now).
    pub(crate) fn start(&self) {
        lock(&self.0.state).settle(Instant::now());
    }
}

tokio::task_local! {
    static CURRENT: JobClock;
}

/// Runs a bridge call's future with `clock` as the job's clock (see
/// [`pause_for_a_person`]).
pub(crate) fn with_clock<F: Future>(clock: JobClock, fut: F) -> impl Future<Output = F::Output> {
    CURRENT.scope(clock, fut)
}

/// Held while a tool call waits for a person (an approval): the snippet's
/// deadline does not run meanwhile, as long as the snippet itself is idle.
/// Dropping it ends the pause.
#[derive(Debug)]
#[must_use = "the pause ends when this is dropped"]
pub struct Pause(Option<JobClock>);

impl Drop for Pause {
    fn drop(&mut self) {
        if let Some(clock) = self.0.take() {
            clock.set_paused(false);
        }
    }
}

/// Pauses the deadline of the snippet whose tool call is running on this task,
/// until the returned guard is dropped. Outside a snippet's call it does nothing.
/// For approvers and hooks that wait for a person; anything else a call waits
/// for counts against the snippet.
pub fn pause_for_a_person() -> Pause {
    let clock = CURRENT.try_with(Clone::clone).ok();
    if let Some(c) = &clock {
        c.set_paused(true);
    }
    Pause(clock)
}

/// A future that tells `clock` when it is being polled (the isolate is running
/// JavaScript) and when it is not (idle).
pub(crate) struct Metered<F> {
    pub inner: Pin<Box<F>>,
    pub clock: JobClock,
}

impl<F: Future> Future for Metered<F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.clock.set_busy(true);
        let r = self.inner.as_mut().poll(cx);
        self.clock.set_busy(false);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paused_idle_time_is_credited() {
        let clock = JobClock::default();
        clock.start();
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(clock.credit(), Duration::ZERO);
        assert!(clock.set_paused(true));
        std::thread::sleep(Duration::from_millis(30));
        clock.set_busy(true);
        let idle = clock.credit();
        assert!(idle >= Duration::from_millis(30), "{idle:?}");
        std::thread::sleep(Duration::from_millis(30));
        let (credit, paused) = clock.totals();
        assert_eq!(credit, idle, "busy time earned credit");
        assert!(paused >= Duration::from_millis(60), "{paused:?}");
        clock.set_busy(false);
        assert!(clock.set_paused(false));
        let after = clock.credit();
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(clock.credit(), after, "unpaused time earned credit");
    }

    #[test]
    fn pauses_nest_and_report_the_outer_edges() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        let clock = JobClock::with_observer(move |on| s.lock().unwrap().push(on));
        assert!(clock.set_paused(true));
        assert!(!clock.set_paused(true));
        assert!(!clock.set_paused(false));
        assert!(clock.set_paused(false));
        assert!(!clock.set_paused(false), "an unmatched end is ignored");
        assert_eq!(*seen.lock().unwrap(), vec![true, false]);
    }

    #[tokio::test]
    async fn a_pause_reaches_the_clock_of_the_running_call_only() {
        let clock = JobClock::default();
        let inner = clock.clone();
        with_clock(inner, async {
            let _p = pause_for_a_person();
            assert!(clock.is_paused());
        })
        .await;
        assert!(!clock.is_paused());
        let _outside = pause_for_a_person();
        assert!(!clock.is_paused());
    }
}
