//! TLS identities of the two listeners: `[http] tls_cert`/`tls_key` (re-read
//! by a reload, `http.rs`) and `[admin] tls_cert`/`tls_key` (re-read when the
//! files change: [`Renewing`]). rustls with the `ring` provider, TLS 1.2
//! and 1.3.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

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

/// What says a file changed: its inode, change time (a `chmod` or `chown`
/// too), modification time and length.
type Stamp = Option<(u64, i64, i64, SystemTime, u64)>;

fn stamp(path: &Path) -> Stamp {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some((
        m.ino(),
        m.ctime(),
        m.ctime_nsec(),
        m.modified().ok()?,
        m.len(),
    ))
}

/// After a pair that does not load, the next try waits this long (its fix
/// may not show in the files' stamps: a folder's mode, say).
const RETRY: Duration = Duration::from_secs(5);

/// An identity re-read when its files change (a renewed certificate serves
/// the next connection, no restart); a pair that does not load (a renewal
/// half written: rustls refuses a certificate with another's key) leaves the
/// one in force, with a warning, and is tried again at most every
/// [`RETRY`] until it loads.
pub(super) struct Renewing {
    cert: PathBuf,
    key: PathBuf,
    section: &'static str,
    now: Mutex<Now>,
}

struct Now {
    /// The stamps of the files the identity in force was read from.
    stamps: [Stamp; 2],
    tls: TlsAcceptor,
    /// When a failed load may be tried again.
    retry_at: Option<Instant>,
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
            now: Mutex::new(Now {
                stamps,
                tls,
                retry_at: None,
            }),
        })
    }

    fn now(&self) -> std::sync::MutexGuard<'_, Now> {
        self.now.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The identity for a new connection: re-read first when a file changed
    /// since it was loaded (two `stat`s otherwise). Blocking: call it off
    /// the runtime. The files are read outside the lock; a connection
    /// meanwhile gets the identity in force.
    pub(super) fn current(&self) -> TlsAcceptor {
        let stamps = [stamp(&self.cert), stamp(&self.key)];
        {
            let mut now = self.now();
            let due = now.retry_at.is_none_or(|t| Instant::now() >= t);
            if now.stamps == stamps || !due {
                return now.tls.clone();
            }
            // One reader at a time: the others go on with the one in force.
            now.retry_at = Some(Instant::now() + RETRY);
        }
        let loaded = acceptor(&self.cert, &self.key, self.section);
        let mut now = self.now();
        match loaded {
            Ok(tls) => {
                *now = Now {
                    stamps,
                    tls,
                    retry_at: None,
                };
                tracing::info!(section = self.section, "TLS identity re-read");
            }
            Err(e) => tracing::warn!(
                section = self.section,
                cert = %self.cert.display(),
                key = %self.key.display(),
                error = %e,
                "the TLS files changed but do not load; the identity in force stays (tried again in 5 s)"
            ),
        }
        now.tls.clone()
    }
}
