//! What a reload may change: every setting but those the gateway reads once
//! at start (its addresses, the admin surface, the sandbox pool's size, the
//! connection and stream bounds of the front door, the embedding model).
//! A new configuration that changes one of those is refused whole, naming
//! each, and the one in force stays.

use std::collections::BTreeMap;

use super::diff::leaves;
use super::Config;

/// The settings a reload cannot change (a key, or every key under it), and
/// why.
pub const RESTART_ONLY: &[(&str, &str)] = &[
    ("http.listen", "the listening address is bound at start"),
    ("admin", "the admin surface is bound at start"),
    ("http.allowed_hosts", "the hosts served are fixed at start"),
    (
        "http.allowed_origins",
        "the origins served are fixed at start",
    ),
    (
        "http.max_concurrent_snippets",
        "the sandbox pool is sized at start",
    ),
    (
        "http.snippet_queue_ms",
        "the snippet queue is made at start",
    ),
    (
        "http.session_idle_ttl_ms",
        "the session store is made at start",
    ),
    (
        "http.header_timeout_ms",
        "connection bounds are set at start",
    ),
    ("http.body_timeout_ms", "connection bounds are set at start"),
    ("http.max_connections", "connection bounds are set at start"),
    ("http.send_queue", "stream bounds are set at start"),
    ("http.send_timeout_ms", "stream bounds are set at start"),
    ("http.replay_window_ms", "stream bounds are set at start"),
    ("http.replay_bytes", "stream bounds are set at start"),
    (
        "limits.timeout_ms",
        "the sandbox pool's deadline is set at start",
    ),
    ("semantic", "the embedding model is loaded at start"),
    ("embed_model", "the embedding model is loaded at start"),
];

/// The settings `to` changes from `from` that only a restart can: each as
/// `key (why)`. Empty when a reload may apply `to`.
pub fn needs_restart(from: &Config, to: &Config) -> Vec<String> {
    let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
    leaves("", &from.effective(), &mut a);
    leaves("", &to.effective(), &mut b);
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let mut out: Vec<String> = Vec::new();
    for k in keys.into_iter().filter(|k| a.get(*k) != b.get(*k)) {
        let rule = RESTART_ONLY.iter().find(|(prefix, _)| {
            k.as_str() == *prefix || k.strip_prefix(prefix).is_some_and(|r| r.starts_with('.'))
        });
        if let Some((_, why)) = rule {
            out.push(format!("{k} ({why})"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_address_needs_a_restart_and_a_new_policy_does_not() {
        let a = Config::parse("[http]\nlisten = \"127.0.0.1:8080\"\n").unwrap();
        let b = Config::parse(
            "[http]\nlisten = \"127.0.0.1:9090\"\n[admin]\nlisten = \"127.0.0.1:9100\"\n",
        )
        .unwrap();
        let why = needs_restart(&a, &b);
        assert_eq!(why.len(), 2, "{why:?}");
        assert!(why[0].starts_with("admin.listen ("), "{why:?}");
        assert!(why[1].starts_with("http.listen ("), "{why:?}");
        let c = Config::parse(
            "[http]\nlisten = \"127.0.0.1:8080\"\nrate_limit_per_minute = 5\n[policy]\ndeny = [\"*x*\"]\n\
             [[servers]]\nname = \"t\"\ncommand = \"x\"\n",
        )
        .unwrap();
        assert!(needs_restart(&a, &c).is_empty());
    }
}
