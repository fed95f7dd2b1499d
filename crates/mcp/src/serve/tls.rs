//! TLS identities of the two listeners: `[http] tls_cert`/`tls_key` (re-read
//! by a reload, `http.rs`) and `[admin] tls_cert`/`tls_key` (re-read when the
//! files change: [`Renewing`]). rustls with the `ring` provider, TLS 1.2
//! and 1.3.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use tokio_rustls::TlsAcceptor;

/// A TLS acceptor from PEM files; errors name `section`'s keys (`[http]`).
///
/// # Errors
/// A file that cannot be read, is writable by others, holds no certificate
/// or no key, or a key that does not match the certificate.
pub(super) fn acceptor(cert: &Path, key: &Path, section: &str) -> anyhow::Result<TlsAcceptor> {
    use crate::trust::{read_trusted, Trust};
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    crate::upstream::http_client::install_tls_provider();
    let pem = read_trusted(cert, 16 << 20, Trust::Shared)
        .map_err(|e| anyhow::anyhow!("{section} tls_cert {}: {e}", cert.display()))?;
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<_, _>>()
        .map_err(|e| anyhow::anyhow!("{section} tls_cert {}: {e}", cert.display()))?;
    if chain.is_empty() {
        anyhow::bail!("{section} tls_cert {} holds no certificate", cert.display());
    }
    // Not writable by others; readable is allowed, as Kubernetes mounts a TLS
    // Secret (mode 0644 by default).
    let key = read_trusted(key, 1 << 20, Trust::Shared)
        .map_err(|e| e.to_string())
        .and_then(|pem| PrivateKeyDer::from_pem_slice(&pem).map_err(|e| e.to_string()))
        .map_err(|e| anyhow::anyhow!("{section} tls_key {}: {e}", key.display()))?;
    let config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| {
            anyhow::anyhow!("{section} tls_cert and tls_key do not make a TLS identity: {e}")
        })?;
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// What says a file changed: its modification time and length.
type Stamp = Option<(SystemTime, u64)>;

fn stamp(path: &Path) -> Stamp {
    let m = std::fs::metadata(path).ok()?;
    Some((m.modified().ok()?, m.len()))
}

/// An identity re-read when its files change (a renewed certificate serves
/// the next connection, no restart); a pair that does not load (a renewal
/// half written) leaves the one in force, with a warning once per change.
pub(super) struct Renewing {
    cert: PathBuf,
    key: PathBuf,
    section: &'static str,
    now: Mutex<([Stamp; 2], TlsAcceptor)>,
}

impl Renewing {
    /// The identity of `cert` and `key`, loaded now.
    ///
    /// # Errors
    /// As [`acceptor`].
    pub(super) fn load(cert: &Path, key: &Path, section: &'static str) -> anyhow::Result<Self> {
        let stamps = [stamp(cert), stamp(key)];
        let tls = acceptor(cert, key, section)?;
        Ok(Renewing {
            cert: cert.to_path_buf(),
            key: key.to_path_buf(),
            section,
            now: Mutex::new((stamps, tls)),
        })
    }

    /// The identity for a new connection: re-read first when a file changed
    /// since it was loaded (two `stat`s otherwise).
    pub(super) fn current(&self) -> TlsAcceptor {
        let stamps = [stamp(&self.cert), stamp(&self.key)];
        let mut now = self.now.lock().unwrap_or_else(|p| p.into_inner());
        if now.0 != stamps {
            // Tried once per change either way.
            now.0 = stamps;
            match acceptor(&self.cert, &self.key, self.section) {
                Ok(tls) => {
                    now.1 = tls;
                    tracing::info!(section = self.section, "TLS identity re-read");
                }
                Err(e) => tracing::warn!(
                    error = %e,
                    "the TLS files changed but do not load; the identity in force stays"
                ),
            }
        }
        now.1.clone()
    }
}
