//! The worker processes of a process pool that are not reaped yet: who kills
//! them (one at a time, or every one at shutdown) and how a killed one is reaped.

use std::collections::HashSet;
use std::process::Child;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// The worker processes of one pool that are not reaped yet, by process group
/// (each worker leads its own, which holds the job processes it forks).
#[derive(Default)]
pub(crate) struct Registry {
    pub(super) groups: Mutex<HashSet<u32>>,
    /// Set once the pool shuts down: no process starts after it.
    pub(super) closing: AtomicBool,
    /// Worker stdouts not at their end yet. Every process of a worker's group
    /// holds its stdout, so at 0 every one of them has exited.
    pub(super) open_outputs: AtomicUsize,
}

impl Registry {
    pub(super) fn groups(&self) -> std::sync::MutexGuard<'_, HashSet<u32>> {
        self.groups.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn closing(&self) -> bool {
        self.closing.load(Ordering::SeqCst)
    }

    /// Kills the group of `pid` and forgets it, before its leader is reaped (so
    /// the id cannot have been reused by then).
    pub(super) fn kill(&self, pid: u32) {
        let mut groups = self.groups();
        if groups.remove(&pid) {
            #[cfg(target_os = "linux")]
            crate::sys::kill_group(pid);
        }
    }

    /// Marks the pool closing and kills every worker process group it has.
    pub(super) fn close(&self) {
        self.closing.store(true, Ordering::SeqCst);
        let groups = self.groups();
        #[cfg(target_os = "linux")]
        for pid in groups.iter() {
            crate::sys::kill_group(*pid);
        }
        drop(groups);
    }
}

/// Kills `child`'s group and `child`, then reaps it; how it ended.
pub(super) fn end(registry: &Registry, child: &mut Child) -> String {
    registry.kill(child.id());
    let _ = child.kill();
    child.wait().map(|s| s.to_string()).unwrap_or_default()
}
