//! `[admin]`: the operator's surface (`/healthz`, `/readyz`, `/metrics`, the
//! operator page and its JSON API), on an address of its own, never the
//! clients' one.

use serde::{Deserialize, Serialize};

use super::{error, ConfigError};

/// `[admin]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdminConfig {
    /// Where it listens (`127.0.0.1:9464`). A non-loopback address needs
    /// `remote = true`.
    pub listen: String,
    /// The environment variable holding the admin token, which every path but
    /// `/healthz` needs. It must differ from every client token. Default
    /// `TOOLSEARCH_ADMIN_TOKEN`.
    #[serde(default = "default_token_env")]
    pub token_env: String,
    /// Serve a non-loopback `listen` on purpose. Default false.
    pub remote: Option<bool>,
    /// Extra `Host` values accepted (loopback names always are).
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
    /// Let a snippet tried from the operator page make real tool calls
    /// (with the chosen profile's approvals in force). Default false: a
    /// trial's calls are recorded, not made, because with this on the admin
    /// token reaches every profile's tools.
    pub page_calls: Option<bool>,
    /// PEM certificate chain: serve the surface over HTTPS (with `tls_key`),
    /// which lets the operator page be served to other machines. A relative
    /// path is read from the config file's folder; renewed files are re-read
    /// by the next connection.
    pub tls_cert: Option<std::path::PathBuf>,
    /// PEM private key for `tls_cert`.
    pub tls_key: Option<std::path::PathBuf>,
}

fn default_token_env() -> String {
    "TOOLSEARCH_ADMIN_TOKEN".into()
}

impl AdminConfig {
    /// The address.
    pub fn addr(&self) -> Result<std::net::SocketAddr, ConfigError> {
        self.listen.parse().map_err(|_| {
            error(format!(
                "[admin] `listen` is `{}`; it must be an address and port (127.0.0.1:9464)",
                self.listen.escape_debug()
            ))
        })
    }

    pub(super) fn check(&self) -> Result<(), ConfigError> {
        let addr = self.addr()?;
        if !addr.ip().is_loopback() && self.remote != Some(true) {
            return Err(error(format!(
                "[admin] `listen` {addr} is not loopback: set `remote = true` to serve it on purpose"
            )));
        }
        if self.token_env.is_empty() {
            return Err(error("[admin] `token_env` is empty"));
        }
        if self.tls_cert.is_some() != self.tls_key.is_some() {
            return Err(error(
                "[admin] `tls_cert` and `tls_key` go together; give both or neither",
            ));
        }
        Ok(())
    }

    pub(super) fn effective(&self) -> serde_json::Value {
        serde_json::json!({
            "listen": self.listen,
            "token_env": self.token_env,
            "remote": self.remote.unwrap_or(false),
            "allowed_hosts": self.allowed_hosts,
            "page_calls": self.page_calls.unwrap_or(false),
            "tls_cert": self.tls_cert,
            "tls_key": self.tls_key.as_ref().map(|_| "<path redacted>"),
        })
    }
}
