//! Streamable HTTP sources: rustls with the `ring` provider (no C build), the
//! config's headers and a bearer token read from an environment variable.

use std::collections::HashMap;

use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;

use crate::config::ServerConfig;

/// Installs `ring` as the process's TLS provider (once; later calls do nothing).
pub fn install_tls_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The transport for an HTTP server.
///
/// # Errors
/// A header that is not valid HTTP, a token variable that is not set, or a
/// `ca_file` that cannot be read or holds no PEM certificate.
pub(crate) fn transport(
    cfg: &ServerConfig,
    url: &str,
) -> anyhow::Result<StreamableHttpClientTransport<reqwest::Client>> {
    install_tls_provider();
    let mut headers = HashMap::new();
    for (k, v) in &cfg.headers {
        let name = http::HeaderName::try_from(k.as_str())
            .map_err(|_| anyhow::anyhow!("header name `{}` is not valid HTTP", k.escape_debug()))?;
        let value = http::HeaderValue::try_from(v.as_str())
            .map_err(|_| anyhow::anyhow!("the value of header `{k}` is not valid HTTP"))?;
        headers.insert(name, value);
    }
    let mut config =
        StreamableHttpClientTransportConfig::with_uri(url.to_string()).custom_headers(headers);
    if let Some(var) = &cfg.bearer_token_env {
        let token = std::env::var(var)
            .map_err(|_| anyhow::anyhow!("the bearer token variable `{var}` is not set"))?;
        config = config.auth_header(token);
    }
    let mut builder = reqwest::Client::builder();
    if let Some(path) = &cfg.ca_file {
        let pem = std::fs::File::open(path)
            .and_then(|f| toolsearch_catalog::read_at_most(f, 16 << 20, "the file"))
            .map_err(|e| anyhow::anyhow!("cannot read ca_file {}: {e}", path.display()))?;
        let roots = reqwest::Certificate::from_pem_bundle(&pem)
            .map_err(|e| anyhow::anyhow!("ca_file {} is not PEM: {e}", path.display()))?;
        if roots.is_empty() {
            anyhow::bail!("ca_file {} holds no certificate", path.display());
        }
        builder = builder.tls_certs_merge(roots);
    }
    let client = builder
        .build()
        .map_err(|e| anyhow::anyhow!("cannot build the HTTP client: {e}"))?;
    Ok(StreamableHttpClientTransport::with_client(client, config))
}
