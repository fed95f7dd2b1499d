//! `[http]`: serving streamable HTTP (`toolsearch gateway --http ADDR`): auth,
//! accepted hosts and origins, TLS, and the bounds of the front door (rate,
//! snippets, sessions and their idle TTL, connections and their timeouts).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::{error, range, ConfigError};

/// `[http]`: serving streamable HTTP (`toolsearch gateway --http ADDR`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpConfig {
    /// Serve streamable HTTP on this address (`127.0.0.1:8080`) when
    /// `gateway --http` names none. A reload cannot change it.
    pub listen: Option<std::net::SocketAddr>,
    /// Environment variable holding the bearer token clients must send. Required to
    /// bind a non-loopback address.
    pub bearer_token_env: Option<String>,
    /// Extra `Host` values accepted (loopback names always are).
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
    /// `Origin` values accepted from browsers (`https://app.example.com:443`);
    /// requests with any other `Origin` are refused.
    #[serde(default)]
    pub allowed_origins: Vec<String>,
    /// Requests per minute per caller (a credential's principal, or an address
    /// when none is asked) and per profile (1 to 100,000). Default 600.
    pub rate_limit_per_minute: Option<Spanned<u64>>,
    /// Snippets running at once across all sessions (1 to 256); one session
    /// runs at most half of them (at least 1; over stdio, with one client for
    /// the gateway's life, all of them). Default 8.
    pub max_concurrent_snippets: Option<Spanned<u64>>,
    /// How long a snippet waits for a slot before it is refused with LIMIT (0
    /// to 60,000 ms); a freed slot goes to the waiting session running the
    /// fewest. Default 2,000.
    pub snippet_queue_ms: Option<Spanned<u64>>,
    /// MCP sessions open at once (1 to 1,000,000); a new one past it is refused
    /// (503). Default 10,000.
    pub max_sessions: Option<Spanned<u64>>,
    /// A session nobody used for this long is closed and its calls cancelled
    /// (1,000 to 86,400,000 ms). Default 600,000 (10 minutes).
    pub session_idle_ttl_ms: Option<Spanned<u64>>,
    /// A connection must send a request's headers within this long, and an
    /// idle keep-alive connection is closed after it (1,000 to 600,000 ms).
    /// Default 10,000.
    pub header_timeout_ms: Option<Spanned<u64>>,
    /// A request's body must arrive within this long (1,000 to 600,000 ms).
    /// Default 30,000.
    pub body_timeout_ms: Option<Spanned<u64>>,
    /// Connections open at once (1 to 1,000,000; never more than the process's
    /// open-file limit allows, less a reserve for servers and the sandbox).
    /// Past it a new connection is answered 503 and closed. Default 1,024.
    pub max_connections: Option<Spanned<u64>>,
    /// Messages queued for one client's stream (1 to 100,000). Default 64.
    pub send_queue: Option<Spanned<u64>>,
    /// How long one send to a client's stream may wait for the client to read
    /// (100 to 600,000 ms); past it that stream is closed (the client may resume
    /// it with `Last-Event-ID`), and nobody else waits. Default 5,000.
    pub send_timeout_ms: Option<Spanned<u64>>,
    /// How long a finished call's events are kept for a client that resumes
    /// its stream with `Last-Event-ID` (1,000 to 3,600,000 ms). Default 60,000.
    pub replay_window_ms: Option<Spanned<u64>>,
    /// Most bytes of events kept per stream for a resume (65,536 to
    /// 268,435,456; a session keeps at most 16 finished streams). Default 4 MiB.
    pub replay_bytes: Option<Spanned<u64>>,
    /// PEM certificate chain: serve HTTPS instead of HTTP (with `tls_key`). A
    /// relative path is read from the config file's folder.
    pub tls_cert: Option<PathBuf>,
    /// PEM private key for `tls_cert`.
    pub tls_key: Option<PathBuf>,
}

impl HttpConfig {
    /// `rate_limit_per_minute`, or its default.
    pub fn rate_limit(&self) -> u64 {
        self.rate_limit_per_minute
            .as_ref()
            .map_or(600, |s| *s.get_ref())
    }

    /// `max_sessions`, or its default.
    pub fn max_sessions(&self) -> usize {
        self.max_sessions
            .as_ref()
            .map_or(10_000, |s| *s.get_ref() as usize)
    }

    /// `max_concurrent_snippets`, or its default. A sandbox pool for the
    /// gateway must queue at least this many jobs (see the CLI's pool).
    pub fn max_concurrent_snippets(&self) -> usize {
        self.max_concurrent_snippets
            .as_ref()
            .map_or(8, |s| *s.get_ref() as usize)
    }

    /// `snippet_queue_ms`, or its default.
    pub fn snippet_queue(&self) -> std::time::Duration {
        let v = self
            .snippet_queue_ms
            .as_ref()
            .map_or(2_000, |s| *s.get_ref());
        std::time::Duration::from_millis(v)
    }

    /// `header_timeout_ms`, or its default.
    pub fn header_timeout(&self) -> std::time::Duration {
        let v = self
            .header_timeout_ms
            .as_ref()
            .map_or(10_000, |s| *s.get_ref());
        std::time::Duration::from_millis(v)
    }

    /// `body_timeout_ms`, or its default.
    pub fn body_timeout(&self) -> std::time::Duration {
        let v = self
            .body_timeout_ms
            .as_ref()
            .map_or(30_000, |s| *s.get_ref());
        std::time::Duration::from_millis(v)
    }

    /// `max_connections`, or its default (before the open-file limit is applied).
    pub fn max_connections(&self) -> usize {
        self.max_connections
            .as_ref()
            .map_or(1_024, |s| *s.get_ref() as usize)
    }

    /// `send_queue`, or its default.
    pub fn send_queue(&self) -> usize {
        self.send_queue
            .as_ref()
            .map_or(64, |s| *s.get_ref() as usize)
    }

    /// `send_timeout_ms`, or its default.
    pub fn send_timeout(&self) -> std::time::Duration {
        let v = self
            .send_timeout_ms
            .as_ref()
            .map_or(5_000, |s| *s.get_ref());
        std::time::Duration::from_millis(v)
    }

    /// `replay_window_ms`, or its default.
    pub fn replay_window(&self) -> std::time::Duration {
        let v = self
            .replay_window_ms
            .as_ref()
            .map_or(60_000, |s| *s.get_ref());
        std::time::Duration::from_millis(v)
    }

    /// `replay_bytes`, or its default.
    pub fn replay_bytes(&self) -> usize {
        self.replay_bytes
            .as_ref()
            .map_or(4 << 20, |s| *s.get_ref() as usize)
    }

    /// `session_idle_ttl_ms`, or its default.
    pub fn session_idle_ttl(&self) -> std::time::Duration {
        std::time::Duration::from_millis(
            self.session_idle_ttl_ms
                .as_ref()
                .map_or(600_000, |s| *s.get_ref()),
        )
    }
}

impl HttpConfig {
    pub(super) fn check(&self, text: &str) -> Result<(), ConfigError> {
        range(
            text,
            "http.rate_limit_per_minute",
            &self.rate_limit_per_minute,
            1,
            100_000,
        )?;
        range(
            text,
            "http.max_concurrent_snippets",
            &self.max_concurrent_snippets,
            1,
            256,
        )?;
        range(text, "http.max_sessions", &self.max_sessions, 1, 1_000_000)?;
        range(
            text,
            "http.snippet_queue_ms",
            &self.snippet_queue_ms,
            0,
            60_000,
        )?;
        range(
            text,
            "http.session_idle_ttl_ms",
            &self.session_idle_ttl_ms,
            1_000,
            86_400_000,
        )?;
        range(
            text,
            "http.header_timeout_ms",
            &self.header_timeout_ms,
            1_000,
            600_000,
        )?;
        range(
            text,
            "http.body_timeout_ms",
            &self.body_timeout_ms,
            1_000,
            600_000,
        )?;
        range(
            text,
            "http.max_connections",
            &self.max_connections,
            1,
            1_000_000,
        )?;
        range(text, "http.send_queue", &self.send_queue, 1, 100_000)?;
        range(
            text,
            "http.send_timeout_ms",
            &self.send_timeout_ms,
            100,
            600_000,
        )?;
        range(
            text,
            "http.replay_window_ms",
            &self.replay_window_ms,
            1_000,
            3_600_000,
        )?;
        range(
            text,
            "http.replay_bytes",
            &self.replay_bytes,
            65_536,
            268_435_456,
        )?;
        if self.tls_cert.is_some() != self.tls_key.is_some() {
            return Err(error(
                "[http] `tls_cert` and `tls_key` go together; give both or neither".to_string(),
            ));
        }
        Ok(())
    }

    pub(super) fn effective(&self) -> serde_json::Value {
        let v = |s: &Option<Spanned<u64>>, d: u64| s.as_ref().map_or(d, |s| *s.get_ref());
        serde_json::json!({
            "listen": self.listen.map(|a| a.to_string()),
            "bearer_token_env": self.bearer_token_env,
            "allowed_hosts": self.allowed_hosts,
            "allowed_origins": self.allowed_origins,
            "rate_limit_per_minute": self.rate_limit(),
            "max_concurrent_snippets": v(&self.max_concurrent_snippets, 8),
            "snippet_queue_ms": self.snippet_queue().as_millis() as u64,
            "max_sessions": self.max_sessions(),
            "session_idle_ttl_ms": self.session_idle_ttl().as_millis() as u64,
            "header_timeout_ms": self.header_timeout().as_millis() as u64,
            "body_timeout_ms": self.body_timeout().as_millis() as u64,
            "max_connections": self.max_connections(),
            "send_queue": self.send_queue(),
            "send_timeout_ms": self.send_timeout().as_millis() as u64,
            "replay_window_ms": self.replay_window().as_millis() as u64,
            "replay_bytes": self.replay_bytes(),
            "tls_cert": self.tls_cert,
            "tls_key": self.tls_key.as_ref().map(|_| "<path redacted>"),
        })
    }
}
