//! Audit lines of refusals on the admin surface: a request with a missing or
//! wrong admin token is written (target `toolsearch::audit`) at most once a
//! minute per peer address, with how many were refused since that peer's last
//! line, so that a guesser can neither hide nor flood the log. The peers
//! remembered are bounded; past the bound, the ones quiet longest are
//! forgotten.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One line per peer per this long, at most.
const WINDOW: Duration = Duration::from_secs(60);

/// Peers remembered at once.
const MAX_PEERS: usize = 1024;

/// When each peer's last line was written, and the refusals since.
#[derive(Default)]
pub(super) struct Refusals {
    peers: Mutex<HashMap<IpAddr, (Instant, u64)>>,
}

impl Refusals {
    /// Counts a refusal of `peer` at `now`: `Some(n)` when a line is to be
    /// written now, `n` the refusals it stands for (this one included).
    pub(super) fn note(&self, peer: IpAddr, now: Instant) -> Option<u64> {
        let mut peers = self.peers.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((last, held)) = peers.get_mut(&peer) {
            *held += 1;
            if now.duration_since(*last) < WINDOW {
                return None;
            }
            let n = *held;
            *last = now;
            *held = 0;
            return Some(n);
        }
        if peers.len() >= MAX_PEERS {
            // Past the bound: the quietest half goes (its held counts are
            // lost, the lines already written stay).
            let mut seen: Vec<Instant> = peers.values().map(|(t, _)| *t).collect();
            seen.sort_unstable();
            let cut = seen[seen.len() / 2];
            peers.retain(|_, (t, _)| *t > cut);
        }
        peers.insert(peer, (now, 0));
        Some(1)
    }

    /// Writes the line for a refusal of `peer` when one is due.
    pub(super) fn refused(&self, peer: std::net::SocketAddr, what: &str, agent: &str) {
        if let Some(n) = self.note(peer.ip(), Instant::now()) {
            tracing::warn!(
                target: "toolsearch::audit",
                who = %format!("no admin token from {}", peer.ip()),
                agent = %agent,
                what = %what,
                status = 401u16,
                refused = n,
                "operator page: missing or wrong admin token"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_a_minute_per_peer_counting_what_it_stands_for() {
        let r = Refusals::default();
        let (a, b) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let t0 = Instant::now();
        assert_eq!(r.note(a, t0), Some(1));
        for i in 1..=5 {
            assert_eq!(r.note(a, t0 + Duration::from_secs(i)), None);
        }
        // Another peer has its own line.
        assert_eq!(r.note(b, t0 + Duration::from_secs(2)), Some(1));
        // A minute on: one line for the six since the last.
        assert_eq!(r.note(a, t0 + WINDOW), Some(6));
        assert_eq!(r.note(a, t0 + WINDOW + Duration::from_secs(1)), None);
    }

    #[test]
    fn the_peers_remembered_are_bounded() {
        let r = Refusals::default();
        let t0 = Instant::now();
        for i in 0..(MAX_PEERS as u32 * 3) {
            let peer = IpAddr::from(std::net::Ipv4Addr::from(0x0a00_0000 + i));
            assert_eq!(
                r.note(peer, t0 + Duration::from_millis(u64::from(i))),
                Some(1)
            );
            assert!(r.peers.lock().unwrap().len() <= MAX_PEERS);
        }
        // The newest are the ones kept: a repeat within the minute is held.
        let last = IpAddr::from(std::net::Ipv4Addr::from(
            0x0a00_0000 + MAX_PEERS as u32 * 3 - 1,
        ));
        assert_eq!(r.note(last, t0 + Duration::from_secs(4)), None);
    }
}
