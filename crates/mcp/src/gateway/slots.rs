//! A snippet's slot: `max_concurrent_snippets` shared fairly across profiles
//! first, then sessions. With more than one profile configured, one profile
//! holds at most half of the slots, and one session at most half; so other
//! profiles and sessions always find room (a gateway serving one client for its whole life, over stdio,
//! gives it all); a snippet with no free slot waits (at most `snippet_queue_ms`)
//! and, when one frees, the waiting session whose profile holds the fewest
//! goes first, then the one holding the fewest itself (oldest first among
//! equals). A snippet still waiting at the end of its wait is refused with
//! LIMIT, naming the wait and the caller's own share only (never what other
//! tenants run). A profile may run fewer
//! (`profiles[].max_concurrent_snippets`): a holder's key is
//! `profile/session`, and its profile's snippets count against its cap.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::oneshot;

/// The gateway's snippet slots.
pub(crate) struct Slots {
    state: Mutex<State>,
    max: usize,
    per_session: usize,
    wait: Duration,
    /// Set when the gateway serves one client for its whole life.
    alone: Arc<std::sync::atomic::AtomicBool>,
}

/// The profile of a holder's key (`profile/session`).
fn profile_of(key: &str) -> &str {
    key.split_once('/').map_or("", |(p, _)| p)
}

#[derive(Default)]
struct State {
    running: usize,
    held: HashMap<String, usize>,
    waiting: VecDeque<Waiter>,
    /// Profiles running fewer than `max` at once, and their most (a new
    /// configuration sets them: see [`Slots::set_caps`]).
    caps: HashMap<String, usize>,
    /// Profiles clients can reach: with more than one, each holds at most half.
    profiles: usize,
}

impl State {
    /// One slot of `session` free again.
    fn give_back(&mut self, session: &str) {
        self.running = self.running.saturating_sub(1);
        if let Some(n) = self.held.get_mut(session) {
            *n -= 1;
            if *n == 0 {
                self.held.remove(session);
            }
        }
    }
}

struct Waiter {
    session: String,
    grant: oneshot::Sender<Permit>,
}

/// One slot, given back when dropped.
pub(crate) struct Permit {
    slots: Arc<Slots>,
    session: String,
}

impl Drop for Permit {
    fn drop(&mut self) {
        let session = std::mem::take(&mut self.session);
        self.slots.release(&session);
    }
}

impl Slots {
    /// `max` slots (at least 1), a session holding at most half of them (at
    /// least 1), and `wait` the longest a snippet waits for one.
    #[cfg(test)]
    pub(crate) fn new(
        max: usize,
        wait: Duration,
        alone: Arc<std::sync::atomic::AtomicBool>,
    ) -> Arc<Slots> {
        Slots::with_caps(max, wait, alone, HashMap::new(), 1)
    }

    /// [`Slots::new`], with profiles' caps (`caps[profile]` at most at once)
    /// and how many profiles clients can reach (more than one: each holds at
    /// most half).
    pub(crate) fn with_caps(
        max: usize,
        wait: Duration,
        alone: Arc<std::sync::atomic::AtomicBool>,
        caps: HashMap<String, usize>,
        reachable: usize,
    ) -> Arc<Slots> {
        let max = max.max(1);
        let slots = Arc::new(Slots {
            state: Mutex::default(),
            max,
            per_session: (max / 2).max(1),
            wait,
            alone,
        });
        slots.set_caps(caps, reachable);
        slots
    }

    /// Sets the profiles' caps (a new configuration's): snippets running
    /// keep their slots, the next ones are counted against the new caps,
    /// and waiters a raised cap lets run are granted now.
    pub(crate) fn set_caps(self: &Arc<Self>, caps: HashMap<String, usize>, reachable: usize) {
        let mut st = self.state();
        st.profiles = reachable;
        st.caps = caps.into_iter().filter(|(_, n)| *n < self.max).collect();
        self.grant_waiting(&mut st);
    }

    /// Slots held now by `profile`'s sessions.
    fn profile_held(st: &State, profile: &str) -> usize {
        st.held
            .iter()
            .filter(|(k, _)| profile_of(k) == profile)
            .map(|(_, n)| n)
            .sum()
    }

    /// The most slots one session holds.
    fn share(&self) -> usize {
        if self.alone.load(std::sync::atomic::Ordering::Relaxed) {
            self.max
        } else {
            self.per_session
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The most slots one profile holds: its cap, and half of them when
    /// other profiles are configured (they keep room).
    fn profile_share(&self, st: &State, profile: &str) -> usize {
        let fair = if st.profiles > 1 && !self.alone.load(std::sync::atomic::Ordering::Relaxed) {
            (self.max / 2).max(1)
        } else {
            self.max
        };
        st.caps.get(profile).map_or(fair, |cap| (*cap).min(fair))
    }

    fn fits(&self, st: &State, session: &str) -> bool {
        let profile = profile_of(session);
        st.running < self.max
            && st.held.get(session).copied().unwrap_or(0) < self.share()
            && Self::profile_held(st, profile) < self.profile_share(st, profile)
    }

    fn take(self: &Arc<Self>, st: &mut State, session: &str) -> Permit {
        st.running += 1;
        *st.held.entry(session.to_string()).or_default() += 1;
        Permit {
            slots: self.clone(),
            session: session.to_string(),
        }
    }

    /// A slot for a snippet of `session`: at once when one is free to it, else
    /// after waiting its turn.
    ///
    /// # Errors
    /// The message to refuse the snippet with (LIMIT), when no slot came
    /// within the wait.
    pub(crate) async fn acquire(self: &Arc<Self>, session: &str) -> Result<Permit, String> {
        let granted = {
            let mut st = self.state();
            // Waiters that cannot run yet (their session holds its share)
            // do not hold this one back.
            if self.fits(&st, session) && !st.waiting.iter().any(|w| self.fits(&st, &w.session)) {
                return Ok(self.take(&mut st, session));
            }
            let (grant, granted) = oneshot::channel();
            st.waiting.push_back(Waiter {
                session: session.to_string(),
                grant,
            });
            self.grant_waiting(&mut st);
            granted
        };
        match tokio::time::timeout(self.wait, granted).await {
            Ok(Ok(permit)) => Ok(permit),
            _ => {
                // Gone from the queue (a grant racing the timeout was given
                // back when its receiver was dropped).
                let st = &mut *self.state();
                st.waiting.retain(|w| !w.grant.is_closed());
                let mine = st.held.get(session).copied().unwrap_or(0);
                let profile = profile_of(session);
                let theirs = Self::profile_held(st, profile);
                // Only the caller's own share is told: what other tenants
                // run is theirs.
                Err(format!(
                    "no snippet slot came free within {} ms: this {} may run at most {} \
                     snippets at once (it runs {mine}), and profile `{profile}` at most {} (it \
                     runs {theirs}); try again shortly",
                    self.wait.as_millis(),
                    if session.contains("/principal:") {
                        "caller"
                    } else {
                        "session"
                    },
                    self.share(),
                    self.profile_share(st, profile),
                ))
            }
        }
    }

    fn release(self: &Arc<Self>, session: &str) {
        let mut st = self.state();
        st.give_back(session);
        self.grant_waiting(&mut st);
    }

    /// Gives free slots to waiting snippets: the session holding the fewest
    /// first, the oldest first among equals.
    fn grant_waiting(self: &Arc<Self>, st: &mut State) {
        loop {
            st.waiting.retain(|w| !w.grant.is_closed());
            let next = st
                .waiting
                .iter()
                .enumerate()
                .filter(|(_, w)| self.fits(st, &w.session))
                .min_by_key(|(i, w)| {
                    (
                        Self::profile_held(st, profile_of(&w.session)),
                        st.held.get(&w.session).copied().unwrap_or(0),
                        *i,
                    )
                })
                .map(|(i, _)| i);
            let Some(i) = next else { return };
            let Some(w) = st.waiting.remove(i) else {
                return;
            };
            let permit = self.take(st, &w.session);
            if let Err(permit) = w.grant.send(permit) {
                // Its snippet stopped waiting: the slot goes back (without
                // re-entering this function through the permit's drop).
                std::mem::forget(permit);
                st.give_back(&w.session);
            }
        }
    }

    /// Snippets running now.
    pub(crate) fn running(&self) -> usize {
        self.state().running
    }

    /// Snippets waiting for a slot now.
    pub(crate) fn waiting(&self) -> usize {
        self.state()
            .waiting
            .iter()
            .filter(|w| !w.grant.is_closed())
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_session_holds_half_and_the_fewest_holding_go_first() {
        let slots = Slots::new(4, Duration::from_millis(200), Arc::default());
        let a1 = slots.acquire("a").await.unwrap();
        let _a2 = slots.acquire("a").await.unwrap();
        // A third of session a waits (half is its most) and is refused, naming the wait.
        let refused = slots.acquire("a").await.err().unwrap();
        assert!(
            refused.contains("200 ms") && refused.contains("this session may run at most 2"),
            "{refused}"
        );
        // Others find room at once.
        let b1 = slots.acquire("b").await.unwrap();
        let _c1 = slots.acquire("c").await.unwrap();
        assert_eq!(slots.running(), 4);
        // Full: a (holding 2) and d (holding 0) wait; the slot that frees goes to d.
        let (s1, s2) = (slots.clone(), slots.clone());
        let a3 = tokio::spawn(async move { s1.acquire("a").await.map(|_| ()) });
        tokio::time::sleep(Duration::from_millis(20)).await;
        let d = tokio::spawn(async move { s2.acquire("d").await.map(|p| p.session.clone()) });
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(b1);
        assert_eq!(d.await.unwrap().unwrap(), "d");
        drop(a1);
        assert!(a3.await.unwrap().is_ok());
        // Every slot is given back.
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(slots.running() <= 4);
    }

    #[tokio::test]
    async fn a_profile_runs_at_most_its_cap_and_others_keep_room() {
        let caps = HashMap::from([("a".to_string(), 1)]);
        let slots = Slots::with_caps(4, Duration::from_millis(50), Arc::default(), caps, 1);
        let _a1 = slots.acquire("a/s1").await.unwrap();
        // Another session of profile a waits for a's one slot, and is refused.
        let refused = slots.acquire("a/s2").await.err().unwrap();
        assert!(
            refused.contains("profile `a` at most 1 (it runs 1)"),
            "{refused}"
        );
        // Profile b is not held back by a's cap.
        let _b1 = slots.acquire("b/s3").await.unwrap();
        let _b2 = slots.acquire("b/s4").await.unwrap();
        assert_eq!(slots.running(), 3);
    }

    #[tokio::test]
    async fn profiles_share_the_slots_first_and_a_refusal_speaks_only_of_its_own() {
        let caps = HashMap::from([("a".to_string(), 8), ("b".to_string(), 8)]);
        let slots = Slots::with_caps(8, Duration::from_millis(50), Arc::default(), caps, 2);
        // Profile a's two sessions take what they can: half of the slots.
        let mut held = Vec::new();
        for s in ["a/s1", "a/s2", "a/s1", "a/s2"] {
            held.push(slots.acquire(s).await.unwrap());
        }
        let refused = slots.acquire("a/s1").await.err().unwrap();
        assert!(
            refused.contains("profile `a` at most 4 (it runs 4)"),
            "{refused}"
        );
        // Profile b runs at once, and is told nothing of a's load.
        let b = slots.acquire("b/s3").await.unwrap();
        assert_eq!(slots.running(), 5);
        drop(b);
        let mut bs = Vec::new();
        for s in ["b/s3", "b/s4", "b/s3", "b/s4"] {
            bs.push(slots.acquire(s).await.unwrap());
        }
        let refused = slots.acquire("b/s5").await.err().unwrap();
        assert!(
            !refused.contains("`a`") && !refused.contains(" 8 "),
            "{refused}"
        );
    }

    #[tokio::test]
    async fn a_gateway_with_one_client_gives_it_every_slot() {
        let alone = Arc::new(std::sync::atomic::AtomicBool::new(true));
        let slots = Slots::new(4, Duration::from_millis(50), alone);
        let mut held = Vec::new();
        for _ in 0..4 {
            held.push(slots.acquire("only").await.unwrap());
        }
        assert!(slots.acquire("only").await.is_err());
    }
}
