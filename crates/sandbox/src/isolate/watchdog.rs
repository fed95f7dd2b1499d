//! A per-worker thread that terminates runaway JS.
//!
//! Termination only lands at the next entry into JS, and deno_core cancels a
//! pending termination while it reads a thrown value's getters, so once the
//! deadline passes the watchdog re-issues `terminate_execution` every
//! [`REFIRE`] until the worker acknowledges by disarming it.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use deno_core::v8;

use crate::clock::JobClock;

/// Interval between repeated termination requests.
pub(crate) const REFIRE: Duration = Duration::from_millis(20);

struct Armed {
    /// The deadline before any credit (`clock.rs`).
    deadline: Instant,
    clock: JobClock,
    handle: v8::IsolateHandle,
    fired: Arc<AtomicBool>,
}

#[derive(Default)]
struct State {
    armed: Option<Armed>,
    shutdown: bool,
}

type Shared = Arc<(Mutex<State>, Condvar)>;

/// Handle to a watchdog thread; dropping it stops the thread.
pub(crate) struct Watchdog {
    shared: Shared,
}

fn lock(m: &Mutex<State>) -> MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Watchdog {
    pub(crate) fn spawn(
        name: String,
        threads: &Arc<std::sync::atomic::AtomicUsize>,
    ) -> std::io::Result<Watchdog> {
        let threads = threads.clone();
        let shared: Shared = Arc::new((Mutex::new(State::default()), Condvar::new()));
        let thread_shared = shared.clone();
        std::thread::Builder::new().name(name).spawn(move || {
            let _live = ThreadGuard::new(&threads);
            watch(&thread_shared)
        })?;
        Ok(Watchdog { shared })
    }

    /// Starts watching an isolate; `fired` is set when termination was requested.
    pub(crate) fn arm(
        &self,
        handle: v8::IsolateHandle,
        deadline: Instant,
        clock: JobClock,
        fired: Arc<AtomicBool>,
    ) {
        let (m, cv) = &*self.shared;
        lock(m).armed = Some(Armed {
            deadline,
            handle,
            clock,
            fired,
        });
        cv.notify_one();
    }

    /// Stops watching. After this returns no termination request is issued
    /// for the previously armed isolate, so it can be dropped safely.
    pub(crate) fn disarm(&self) {
        let (m, cv) = &*self.shared;
        lock(m).armed = None;
        cv.notify_one();
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        let (m, cv) = &*self.shared;
        let mut s = lock(m);
        s.armed = None;
        s.shutdown = true;
        cv.notify_one();
    }
}

fn watch(shared: &Shared) {
    let (m, cv) = &**shared;
    let mut s = lock(m);
    loop {
        if s.shutdown {
            return;
        }
        let wait = match &s.armed {
            None => None,
            Some(a) => match a.clock.left_of_deadline(a.deadline) {
                Some(left) => Some(left),
                None => {
                    a.fired.store(true, Ordering::SeqCst);
                    a.handle.terminate_execution();
                    Some(REFIRE)
                }
            },
        };
        s = match wait {
            None => cv.wait(s).unwrap_or_else(|p| p.into_inner()),
            Some(d) => cv.wait_timeout(s, d).unwrap_or_else(|p| p.into_inner()).0,
        };
    }
}

/// Resolves once the job's deadline, moved by its clock's credit, has passed.
pub(crate) async fn deadline_passed(deadline: Instant, clock: &JobClock) {
    while let Some(left) = clock.left_of_deadline(deadline) {
        tokio::time::sleep(left).await;
    }
}

static LIVE_THREADS: AtomicUsize = AtomicUsize::new(0);

/// Number of sandbox threads (workers and their watchdogs) alive in this
/// process.
pub fn live_threads() -> usize {
    LIVE_THREADS.load(Ordering::SeqCst)
}

/// Counts a live sandbox thread (process-wide and per pool).
pub(crate) struct ThreadGuard(Arc<AtomicUsize>);

impl ThreadGuard {
    pub(crate) fn new(pool: &Arc<AtomicUsize>) -> Self {
        LIVE_THREADS.fetch_add(1, Ordering::SeqCst);
        pool.fetch_add(1, Ordering::SeqCst);
        ThreadGuard(pool.clone())
    }
}

impl Drop for ThreadGuard {
    fn drop(&mut self) {
        LIVE_THREADS.fetch_sub(1, Ordering::SeqCst);
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}
