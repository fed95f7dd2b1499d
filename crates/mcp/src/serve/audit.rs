//! Audit lines of refusals on the admin surface: a request with a missing or
//! wrong admin token is written (target `toolsearch::audit`) at most once a
//! minute per source (an IPv4 address, an IPv6 /64: one host's addresses),
//! with how many were refused since that source's last line; and at most
//! [`MAX_LINES`] lines a minute in all, the refusals past that counted into
//! the next line written (`others`). So a guesser can neither hide nor flood
//! the log. The sources remembered are bounded; past the bound, the ones
//! quiet longest are forgotten, their held counts moved to `others`.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One line per source per this long, at most.
const WINDOW: Duration = Duration::from_secs(60);

/// Sources remembered at once.
const MAX_SOURCES: usize = 1024;

/// Lines a [`WINDOW`], at most, from every source together.
const MAX_LINES: u32 = 30;

/// A refusal's source: an IPv4 address, or an IPv6 address's /64.
fn source(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into()),
        },
        v4 => v4,
    }
}

struct Source {
    /// When its last line was written (`None`: never).
    line: Option<Instant>,
    /// When it was last refused.
    seen: Instant,
    /// Refusals since its last line.
    held: u64,
}

/// What a line to write says.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Due {
    /// The refusals of this source it stands for (this one included).
    pub refused: u64,
    /// The refusals of other sources no line has told yet.
    pub others: u64,
}

struct State {
    sources: HashMap<IpAddr, Source>,
    /// The current window's start and the lines written in it.
    window: (Instant, u32),
    /// Refusals held by sources forgotten, or past the lines' cap.
    others: u64,
}

pub(super) struct Refusals {
    state: Mutex<State>,
}

impl Refusals {
    pub(super) fn new() -> Refusals {
        Refusals {
            state: Mutex::new(State {
                sources: HashMap::new(),
                window: (Instant::now(), 0),
                others: 0,
            }),
        }
    }

    /// Counts a refusal of `ip` at `now`: what the line to write now says,
    /// when one is due.
    pub(super) fn note(&self, ip: IpAddr, now: Instant) -> Option<Due> {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let key = source(ip);
        if !st.sources.contains_key(&key) && st.sources.len() >= MAX_SOURCES {
            // Past the bound: the quietest half goes, its held counts kept.
            let mut seen: Vec<Instant> = st.sources.values().map(|s| s.seen).collect();
            seen.sort_unstable();
            let cut = seen[seen.len() / 2];
            let mut lost = 0;
            st.sources.retain(|_, s| {
                let keep = s.seen > cut;
                if !keep {
                    lost += s.held;
                }
                keep
            });
            st.others += lost;
        }
        let s = st.sources.entry(key).or_insert(Source {
            line: None,
            seen: now,
            held: 0,
        });
        s.seen = now;
        s.held += 1;
        if s.line.is_some_and(|t| now.duration_since(t) < WINDOW) {
            return None;
        }
        let held = s.held;
        if now.duration_since(st.window.0) >= WINDOW {
            st.window = (now, 0);
        }
        if st.window.1 >= MAX_LINES {
            // Held by the source, told by its next line (or in `others`).
            return None;
        }
        st.window.1 += 1;
        let others = std::mem::take(&mut st.others);
        if let Some(s) = st.sources.get_mut(&key) {
            s.line = Some(now);
            s.held = 0;
        }
        Some(Due {
            refused: held,
            others,
        })
    }

    /// Writes the line for a refusal of `peer` when one is due.
    pub(super) fn refused(&self, peer: std::net::SocketAddr, what: &str, agent: &str) {
        if let Some(due) = self.note(peer.ip(), Instant::now()) {
            tracing::warn!(
                target: "toolsearch::audit",
                who = %format!("no admin token from {}", peer.ip()),
                agent = %agent,
                what = %what,
                status = 401u16,
                refused = due.refused,
                others = due.others,
                "operator page: missing or wrong admin token"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn due(refused: u64, others: u64) -> Option<Due> {
        Some(Due { refused, others })
    }

    #[test]
    fn one_line_a_minute_per_source_counting_what_it_stands_for() {
        let r = Refusals::new();
        let (a, b) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let t0 = Instant::now();
        assert_eq!(r.note(a, t0), due(1, 0));
        for i in 1..=5 {
            assert_eq!(r.note(a, t0 + Duration::from_secs(i)), None);
        }
        // Another address has its own line.
        assert_eq!(r.note(b, t0 + Duration::from_secs(2)), due(1, 0));
        // A minute on: one line for the six since the last.
        assert_eq!(r.note(a, t0 + WINDOW), due(6, 0));
        assert_eq!(r.note(a, t0 + WINDOW + Duration::from_secs(1)), None);
    }

    #[test]
    fn an_ipv6_host_is_one_source_whatever_address_of_its_64_it_takes() {
        let r = Refusals::new();
        let t0 = Instant::now();
        assert_eq!(r.note("fd00::1".parse().unwrap(), t0), due(1, 0));
        for i in 2..100u16 {
            let ip: IpAddr = format!("fd00::{i:x}:{i:x}").parse().unwrap();
            assert_eq!(r.note(ip, t0), None, "{ip}");
        }
        assert_eq!(r.note("fd00:0:0:1::1".parse().unwrap(), t0), due(1, 0));
        assert_eq!(
            source("::ffff:10.0.0.1".parse().unwrap()),
            "10.0.0.1".parse::<IpAddr>().unwrap()
        );
    }

    #[test]
    fn the_lines_and_the_sources_remembered_are_bounded_and_nothing_goes_untold() {
        let r = Refusals::new();
        let t0 = Instant::now();
        let n = MAX_SOURCES as u32 * 3;
        let mut lines = 0;
        for i in 0..n {
            let ip = IpAddr::from(std::net::Ipv4Addr::from(0x0a00_0000 + i));
            if r.note(ip, t0 + Duration::from_millis(u64::from(i)))
                .is_some()
            {
                lines += 1;
            }
            assert!(r.state.lock().unwrap().sources.len() <= MAX_SOURCES);
        }
        assert_eq!(lines, MAX_LINES);
        // A minute on, the next line tells every refusal no line told.
        let next = r
            .note("10.9.9.9".parse().unwrap(), t0 + WINDOW * 2)
            .unwrap();
        let held: u64 = r
            .state
            .lock()
            .unwrap()
            .sources
            .values()
            .map(|s| s.held)
            .sum();
        assert_eq!(
            u64::from(lines) + next.refused + next.others + held,
            u64::from(n) + 1
        );
        assert!(next.others > 0);
    }
}
