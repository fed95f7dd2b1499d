//! What a reload may change: every setting but those the gateway reads once
//! at start (its addresses, the admin surface, the sandbox pool's size, the
//! connection and stream bounds of the front door, the embedding model).
//! A new configuration that changes one of those is refused whole, naming
//! each, and the one in force stays.

use super::diff::changed;
use super::Config;

/// The settings a reload cannot change (a key, or every key under it), and
/// why.
pub const RESTART_ONLY: &[(&str, &str)] = &[
    ("http.listen", "the listening address is bound at start"),
    ("admin", "the admin surface is bound at start"),
    (
        "replicas",
        "the shared store and the sealing keys are set up at start",
    ),
    (
        "telemetry",
        "metrics and the trace export are set up at start",
    ),
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
    let changed: Vec<String> = changed(from, to).into_keys().collect();
    // One entry per rule, naming its keys (a table added or removed whole
    // names its keys, not the table).
    RESTART_ONLY
        .iter()
        .filter_map(|(prefix, why)| {
            let under: Vec<&str> = changed
                .iter()
                .filter(|k| k.strip_prefix(prefix).is_some_and(|r| r.starts_with('.')))
                .map(|k| k.as_str())
                .collect();
            let keys = if under.is_empty() {
                changed.iter().find(|k| k.as_str() == *prefix)?.to_string()
            } else {
                under.join(", ")
            };
            Some(format!("{keys} ({why})"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_address_needs_a_restart_and_a_new_policy_does_not() {
        let a = Config::parse("[http]\nlisten = \"127.0.0.1:8080\"\n").unwrap();
        let b = Config::parse(
            "[http]\nlisten = \"127.0.0.1:9090\"\n[admin]\nlisten = \"127.0.0.1:9100\"\ntoken_env = \"T\"\n",
        )
        .unwrap();
        let why = needs_restart(&a, &b);
        assert_eq!(why.len(), 2, "{why:?}");
        assert!(why[0].starts_with("http.listen ("), "{why:?}");
        assert!(
            why[1].starts_with("admin.allowed_hosts, admin.listen"),
            "{why:?}"
        );
        let c = Config::parse(
            "[http]\nlisten = \"127.0.0.1:8080\"\nrate_limit_per_minute = 5\n[policy]\ndeny = [\"*x*\"]\n\
             [[servers]]\nname = \"t\"\ncommand = \"x\"\n",
        )
        .unwrap();
        assert!(needs_restart(&a, &c).is_empty());
    }
}
