//! The one job loop step every runner shares: the worker threads of the
//! thread backend (`pool/threads.rs`), the in-process worker of a worker
//! process and the protocol tests (`worker/child.rs`), and the forked copy of
//! a template isolate (`worker/zygote.rs`). A job runs on the isolate made for
//! it ahead of time when that fits its heap limit, else on a fresh one; at
//! most one isolate is live on a thread.

use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use std::time::Instant;

use crate::isolate::journal::lock;
use crate::isolate::runtime::{JobSpec, Live, Sandbox};
use crate::isolate::watchdog::Watchdog;
use crate::limits::Limits;
use crate::result::{ErrorKind, ExecResult};

/// The isolates of one job thread: the next one, made ahead of its job.
pub(crate) struct Isolates {
    next: Option<Result<Live, String>>,
    snapshot: Option<&'static [u8]>,
    counter: Arc<AtomicUsize>,
    /// Isolates made on this thread so far.
    pub created: usize,
}

impl Isolates {
    /// None made yet; `counter` counts the live ones (see `live_isolates`).
    pub(crate) fn new(snapshot: Option<&'static [u8]>, counter: Arc<AtomicUsize>) -> Isolates {
        Isolates {
            next: None,
            snapshot,
            counter,
            created: 0,
        }
    }

    /// Makes the next isolate for jobs under `limits`, unless one waits
    /// already. Call it inside the thread's tokio runtime, after the isolate
    /// of the last job was dropped.
    pub(crate) fn prewarm(&mut self, limits: &Limits) {
        if self.next.is_none() {
            self.next = Some(self.create(limits));
        }
    }

    fn create(&mut self, limits: &Limits) -> Result<Live, String> {
        self.created += 1;
        Sandbox::create(
            limits.heap_bytes,
            limits.array_buffer_bytes,
            self.snapshot,
            &self.counter,
        )
    }

    /// Runs one job (see [`run_on`]) on the waiting isolate when it fits the
    /// job's heap limit, else on a fresh one. Returns the isolate used: the
    /// caller drops it once the answer is out.
    pub(crate) async fn run(
        &mut self,
        spec: &JobSpec<'_>,
        watchdog: &Watchdog,
    ) -> (ExecResult, Used) {
        let fits =
            matches!(&self.next, Some(Ok(l)) if l.sandbox.heap_bytes == spec.limits.heap_bytes);
        let live = match self.next.take() {
            Some(live) if fits => live,
            other => {
                drop(other);
                self.create(spec.limits)
            }
        };
        let (res, live) = run_on(live, fits, spec, watchdog).await;
        let filled_its_heap = res.error.as_ref().map(|e| e.kind) == Some(ErrorKind::Memory);
        (
            res,
            Used {
                live,
                filled_its_heap,
            },
        )
    }
}

/// The isolate a job ran on, to drop once the answer is out. Dropping the
/// isolate of a job that filled its heap gives the freed pages back to the
/// system: a heap limit's worth would otherwise stay with the thread's
/// allocator arena for good (measured: 70-140 MiB after three such jobs).
pub(crate) struct Used {
    live: Option<Live>,
    filled_its_heap: bool,
}

impl Drop for Used {
    fn drop(&mut self) {
        drop(self.live.take());
        if self.filled_its_heap {
            crate::sys::release_free_memory();
        }
    }
}

/// Runs one job on `live` (an engine error when it could not be made):
/// marks the journal started (with the running thread), runs the snippet
/// under the watchdog, and records whether the isolate was made ahead.
pub(crate) async fn run_on(
    live: Result<Live, String>,
    prewarmed: bool,
    spec: &JobSpec<'_>,
    watchdog: &Watchdog,
) -> (ExecResult, Option<Live>) {
    {
        let mut j = lock(&spec.journal);
        j.started.get_or_insert_with(Instant::now);
        #[cfg(target_os = "linux")]
        {
            j.worker_tid = crate::sys::thread_id();
        }
    }
    match live {
        Ok(mut live) => {
            let mut res = live.sandbox.run(spec, watchdog).await;
            res.stats.prewarmed = prewarmed;
            (res, Some(live))
        }
        Err(e) => (
            ExecResult::failed(
                ErrorKind::Engine,
                format!("the JS engine could not start: {e}"),
            ),
            None,
        ),
    }
}
