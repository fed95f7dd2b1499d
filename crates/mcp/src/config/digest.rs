//! The configuration's digest: what replicas of one file report (`/readyz`,
//! the metrics, `config check`), so that an operator sees whether they run one.

use super::Config;

impl Config {
    /// A digest of [`Config::effective`] (keys sorted; 16 hex digits of its
    /// SHA-256): the same for every replica started with one configuration,
    /// so an operator sees at once whether they run one (`/readyz`, the
    /// metrics, `config check`). Secrets are redacted in what is digested: a
    /// digest tells nothing of them, and a change of a secret alone leaves it.
    /// Defaults resolved on the host (the embedding model found, the state
    /// directory) are in it: replicas that resolve them differently differ.
    pub fn digest(&self) -> String {
        use sha2::Digest;
        let v = toolsearch::canonical(&self.effective());
        let bytes = serde_json::to_vec(&v).unwrap_or_default();
        // Not `text::hex`: `text` reads the configuration (a module cycle).
        sha2::Sha256::digest(&bytes)[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}
