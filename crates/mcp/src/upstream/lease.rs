//! A call's hold on a server: [`Upstream::acquire`] gives the connection at
//! once when there is one, and starts a stopped lazy server and waits for it
//! when there is not; while a [`Lease`] is held the server is not stopped for
//! idleness.

use std::sync::Arc;
use std::time::Instant;

use rmcp::service::{Peer, RoleClient};
use tokio_util::sync::CancellationToken;

use super::server::{Phase, Upstream};

/// A call's hold on a connection: while any is held the server is not stopped
/// for idleness.
pub struct Lease {
    upstream: Arc<Upstream>,
    peer: Peer<RoleClient>,
    started: bool,
}

impl Lease {
    /// The connection to call through.
    pub fn peer(&self) -> &Peer<RoleClient> {
        &self.peer
    }

    /// True when the server was started (or restarted) while this call waited.
    pub fn started(&self) -> bool {
        self.started
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let mut st = self.upstream.state();
        st.busy = st.busy.saturating_sub(1);
        st.last_used = Instant::now();
    }
}

impl Upstream {
    /// True while a call holds a lease on it.
    pub(crate) fn is_busy(&self) -> bool {
        self.state().busy > 0
    }

    /// The connection for one call: at once when connected. A lazy server that
    /// is stopped (or died) is started, and the call waits for that start (at
    /// most the startup timeout, as any start), racing `cancel` and the
    /// fleet's stop. Errors say why there is no connection.
    pub async fn acquire(self: &Arc<Self>, cancel: &CancellationToken) -> Result<Lease, String> {
        let mut pings = self.pings.subscribe();
        // The failed starts and the starts begun when this call asked for one.
        let mut asked: Option<(u64, u64)> = None;
        // A start that came and went before this call took it (the server
        // died or was stopped at once) is asked for again, this many times.
        let mut retries = 2;
        // An eager server's first start this call waited for.
        let mut waited = false;
        loop {
            {
                let mut st = self.state();
                if let Some(peer) = st.peer.clone().filter(|p| !p.is_transport_closed()) {
                    st.busy += 1;
                    st.last_used = Instant::now();
                    return Ok(Lease {
                        upstream: self.clone(),
                        peer,
                        started: asked.is_some() || waited,
                    });
                }
                if st.closed {
                    return Err("the gateway is stopping".into());
                }
                let why = || {
                    st.error
                        .clone()
                        .unwrap_or_else(|| "not connected yet".into())
                };
                if !self.lazy {
                    // An eager server's first start (the gateway just began)
                    // is waited for, as a lazy one's; after that a server
                    // that is not up fails the call at once.
                    if !st.first_start() {
                        return Err(why());
                    }
                    waited = true;
                }
                if let Some((failed, begun)) = asked {
                    if st.failed_starts > failed {
                        return Err(why());
                    }
                    if st.phase != Phase::Starting && st.starts > begun {
                        if retries == 0 {
                            return Err(st.error.clone().unwrap_or_else(|| {
                                "it stopped each time it was started for this call".into()
                            }));
                        }
                        retries -= 1;
                        asked = None;
                    }
                }
                match asked {
                    _ if !self.lazy => {}
                    Some(_) => {}
                    None => {
                        asked = Some((st.failed_starts, st.starts));
                        // A start under way is waited for; otherwise this call asks
                        // for one, and marks it asked: the calls after it wait for
                        // the same start (a second permit would start the server
                        // again after its next idle stop).
                        if st.phase != Phase::Starting {
                            st.phase = Phase::Starting;
                            self.wanted.notify_one();
                        }
                    }
                }
            }
            tokio::select! {
                r = pings.changed() => if r.is_err() {
                    return Err("the gateway is stopping".into());
                },
                () = cancel.cancelled() => {
                    return Err("the call was cancelled while the server started".into());
                }
            }
        }
    }
}

/// Whether a call may be checked against the list the gateway holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// The list answers every `tools/list_changed` heard so far.
    Yes,
    /// Listing again failed, or did not finish in time: what the server
    /// serves is not known.
    Unknown,
    /// The caller gave up, or the gateway is stopping.
    Cancelled,
}

impl Upstream {
    /// Waits while the server has said its tools changed and the listing that
    /// answers it has not finished (its settle and its timeout; racing
    /// `cancel` and the server's end), so that a call is checked against the
    /// definition the server serves now.
    pub async fn settled_list(&self, cancel: &CancellationToken) -> Settled {
        let want = self.relists_heard.load(std::sync::atomic::Ordering::SeqCst);
        let mut pings = self.pings.subscribe();
        let deadline = tokio::time::Instant::now()
            + super::server::RELIST_SETTLE
            + self.startup_timeout
            + std::time::Duration::from_millis(100);
        loop {
            {
                let st = self.state();
                if st.peer.is_none() {
                    // Gone: the call fails on its own connection.
                    return Settled::Yes;
                }
                if st.relists_done >= want {
                    return if st.relist_failed {
                        Settled::Unknown
                    } else {
                        Settled::Yes
                    };
                }
            }
            tokio::select! {
                r = pings.changed() => if r.is_err() { return Settled::Cancelled },
                () = cancel.cancelled() => return Settled::Cancelled,
                () = tokio::time::sleep_until(deadline) => return Settled::Unknown,
            }
        }
    }
}
