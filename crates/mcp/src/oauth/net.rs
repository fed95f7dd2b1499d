//! Every request to an authorization server (discovery, registration,
//! token, revocation) and the login's first probe of the server: untrusted
//! input, so each is bounded in time ([`TIMEOUT`]) and size ([`MAX_BODY`]),
//! goes only to `https://` (or `http://` on loopback, for tests and local
//! servers), and follows a redirect only within the same origin, at most
//! [`MAX_REDIRECTS`] times. Names are resolved by [`Guarded`]: never to a
//! link-local, multicast or unspecified address (a cloud's metadata
//! service), to loopback only when the server itself is on loopback, and to
//! a private network only when the server itself is on one; so a server's
//! 401 or its metadata cannot point the gateway at internal hosts.

use std::path::Path;
use std::time::Duration;

use futures::StreamExt as _;
use rmcp::transport::auth::{
    OAuthHttpClient, OAuthHttpClientError, OAuthHttpClientFuture, OAuthHttpRedirectPolicy,
    OAuthHttpRequest,
};

/// The longest one request may take, the body read included.
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// The largest body read from an authorization server.
pub const MAX_BODY: usize = 256 << 10;
/// Redirects followed (same origin only).
pub const MAX_REDIRECTS: usize = 3;

/// The OAuth HTTP client (see the module's documentation).
pub struct Net {
    follow: reqwest::Client,
    stop: reqwest::Client,
    guard: Guarded,
}

/// What an address is, for [`Guarded`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Public,
    Loopback,
    Private,
    /// Link-local (a cloud's metadata service), multicast, unspecified,
    /// broadcast: never.
    Never,
}

fn class(ip: std::net::IpAddr) -> Class {
    use std::net::IpAddr;
    match ip {
        IpAddr::V4(a) => {
            let o = a.octets();
            if a.is_loopback() {
                Class::Loopback
            } else if a.is_link_local()
                || a.is_multicast()
                || a.is_unspecified()
                || a.is_broadcast()
                || o[0] == 0
            {
                Class::Never
            } else if a.is_private() || (o[0] == 100 && (64..128).contains(&o[1])) {
                Class::Private
            } else {
                Class::Public
            }
        }
        IpAddr::V6(a) => {
            if let Some(v4) = a.to_ipv4_mapped() {
                return class(IpAddr::V4(v4));
            }
            let s = a.segments();
            if a.is_loopback() {
                Class::Loopback
            } else if a.is_multicast() || a.is_unspecified() || (s[0] & 0xffc0) == 0xfe80 {
                Class::Never
            } else if (s[0] & 0xfe00) == 0xfc00 {
                Class::Private
            } else {
                Class::Public
            }
        }
    }
}

/// The resolver and address rule of [`Net`] (see the module's documentation).
#[derive(Clone, Copy, Debug)]
pub struct Guarded {
    loopback: bool,
    private: bool,
}

impl Guarded {
    /// The rule for a server at `server`: its own kinds of address allowed.
    pub async fn for_server(server: &url::Url) -> Guarded {
        let classes: Vec<Class> = match server.host() {
            Some(url::Host::Ipv4(a)) => vec![class(a.into())],
            Some(url::Host::Ipv6(a)) => vec![class(a.into())],
            Some(url::Host::Domain(d)) if d.eq_ignore_ascii_case("localhost") => {
                vec![Class::Loopback]
            }
            Some(url::Host::Domain(d)) => {
                let port = server.port_or_known_default().unwrap_or(443);
                match tokio::time::timeout(
                    Duration::from_secs(5),
                    tokio::net::lookup_host((d, port)),
                )
                .await
                {
                    Ok(Ok(addrs)) => addrs.map(|a| class(a.ip())).collect(),
                    _ => Vec::new(),
                }
            }
            None => Vec::new(),
        };
        Guarded {
            loopback: classes.contains(&Class::Loopback),
            private: classes.contains(&Class::Private),
        }
    }

    fn allows(self, ip: std::net::IpAddr) -> bool {
        match class(ip) {
            Class::Public => true,
            Class::Loopback => self.loopback,
            Class::Private => self.private,
            Class::Never => false,
        }
    }

    /// Why `url`'s literal address is refused, if it is.
    fn refuses_literal(self, url: &url::Url) -> Option<String> {
        let ip: std::net::IpAddr = match url.host()? {
            url::Host::Ipv4(a) => a.into(),
            url::Host::Ipv6(a) => a.into(),
            url::Host::Domain(_) => return None,
        };
        (!self.allows(ip)).then(|| format!("refused {}: an address of a kind the server itself is not on (link-local, private or loopback)", shown(url)))
    }
}

impl reqwest::dns::Resolve for Guarded {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let this = *self;
        Box::pin(async move {
            let host = name.as_str().to_string();
            let found: Vec<std::net::SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let kept: Vec<std::net::SocketAddr> =
                found.into_iter().filter(|a| this.allows(a.ip())).collect();
            if kept.is_empty() {
                let e: Box<dyn std::error::Error + Send + Sync> = format!(
                    "{host} resolves only to addresses of a kind the server itself is not on (link-local, private or loopback): not called"
                )
                .into();
                return Err(e);
            }
            Ok(Box::new(kept.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// Why a URL is refused, when it is: `https`, or `http` to a loopback host.
pub fn refuse(url: &url::Url) -> Option<String> {
    match url.scheme() {
        "https" => None,
        "http" if crate::config::is_loopback_url(url.as_str()) => None,
        "http" => Some(format!(
            "refused {}: OAuth endpoints must be https:// (http:// only on loopback)",
            shown(url)
        )),
        other => Some(format!(
            "refused a `{}` URL: OAuth endpoints must be https://",
            other.escape_debug()
        )),
    }
}

/// A URL as said in errors: origin and path, never its query.
pub fn shown(url: &url::Url) -> String {
    crate::text::clean_for_log(
        &format!("{}{}", url.origin().ascii_serialization(), url.path()),
        200,
    )
}

impl Net {
    /// The client for the server at `server`, trusting `ca_file`'s roots
    /// beside the system's.
    ///
    /// # Errors
    /// An unreadable CA file, or a client that cannot be built.
    pub async fn new(ca_file: Option<&Path>, server: &url::Url) -> anyhow::Result<Net> {
        let guard = Guarded::for_server(server).await;
        let _ = rustls::crypto::ring::default_provider().install_default();
        let roots = match ca_file {
            Some(path) => {
                let pem = crate::trust::read_trusted(path, 16 << 20, crate::trust::Trust::Shared)
                    .map_err(|e| {
                    anyhow::anyhow!("cannot read ca_file {}: {e}", path.display())
                })?;
                Some(
                    reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| {
                        anyhow::anyhow!("ca_file {} is not PEM: {e}", path.display())
                    })?,
                )
            }
            None => None,
        };
        let build = |redirect: reqwest::redirect::Policy| {
            let mut b = reqwest::Client::builder()
                .timeout(TIMEOUT)
                .connect_timeout(Duration::from_secs(5))
                .redirect(redirect)
                .dns_resolver(std::sync::Arc::new(guard))
                .user_agent(concat!("toolsearch/", env!("CARGO_PKG_VERSION")));
            if let Some(r) = &roots {
                b = b.tls_certs_merge(r.clone());
            }
            b.build()
                .map_err(|e| anyhow::anyhow!("cannot build the HTTP client: {e}"))
        };
        Ok(Net {
            follow: build(same_origin(guard))?,
            stop: build(reqwest::redirect::Policy::none())?,
            guard,
        })
    }

    /// GET or POST through the bounded client; the status, headers and body.
    pub(crate) async fn send(
        &self,
        request: reqwest::Request,
        follow: bool,
    ) -> Result<http::Response<Vec<u8>>, String> {
        if let Some(why) =
            refuse(request.url()).or_else(|| self.guard.refuses_literal(request.url()))
        {
            return Err(why);
        }
        let target = shown(request.url());
        let client = if follow { &self.follow } else { &self.stop };
        let response = client
            .execute(request)
            .await
            .map_err(|e| format!("{target}: {}", describe(&e)))?;
        let mut out = http::Response::builder().status(response.status());
        for (k, v) in response.headers() {
            out = out.header(k, v);
        }
        if response
            .content_length()
            .is_some_and(|n| n > MAX_BODY as u64)
        {
            return Err(format!("{target} answered more than {MAX_BODY} bytes"));
        }
        let mut body = Vec::new();
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| format!("{target}: {}", describe(&e)))?;
            if body.len() + chunk.len() > MAX_BODY {
                return Err(format!("{target} answered more than {MAX_BODY} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        out.body(body).map_err(|e| e.to_string())
    }
}

/// A reqwest error in a sentence: its cause chain, no URL query.
fn describe(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        return format!("no answer within {} s", TIMEOUT.as_secs());
    }
    let mut text = crate::text::redact_urls(&e.to_string()).into_owned();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&crate::text::redact_urls(&s.to_string()));
        source = s.source();
    }
    crate::text::clean_for_log(&text, 400)
}

/// Follows a redirect only to the same origin, at most [`MAX_REDIRECTS`].
fn same_origin(guard: Guarded) -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(move |attempt| {
        let first = attempt.previous().first().map(url::Url::origin);
        if attempt.previous().len() > MAX_REDIRECTS {
            return attempt.error(format!("more than {MAX_REDIRECTS} redirects"));
        }
        if first.as_ref() != Some(&attempt.url().origin()) {
            let to = shown(attempt.url());
            return attempt.error(format!(
                "a redirect to another origin ({to}) is not followed"
            ));
        }
        if let Some(why) = guard.refuses_literal(attempt.url()) {
            return attempt.error(why);
        }
        attempt.follow()
    })
}

#[cfg(test)]
mod tests {
    use super::{class, Class};

    #[test]
    fn addresses_fall_in_their_class() {
        for (ip, c) in [
            ("169.254.169.254", Class::Never),
            ("fe80::1", Class::Never),
            ("0.0.0.0", Class::Never),
            ("224.0.0.1", Class::Never),
            ("::ffff:169.254.169.254", Class::Never),
            ("127.0.0.1", Class::Loopback),
            ("::1", Class::Loopback),
            ("10.1.2.3", Class::Private),
            ("192.168.1.1", Class::Private),
            ("100.64.0.1", Class::Private),
            ("fd00::1", Class::Private),
            ("93.184.215.14", Class::Public),
            ("2606:4700::1111", Class::Public),
        ] {
            assert_eq!(class(ip.parse().unwrap()), c, "{ip}");
        }
    }
}

#[derive(Debug)]
struct Refused(String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

impl OAuthHttpClient for Net {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        Box::pin(async move {
            let follow = request.redirect_policy == OAuthHttpRedirectPolicy::Follow;
            let request = reqwest::Request::try_from(request.request)
                .map_err(|e| Box::new(e) as OAuthHttpClientError)?;
            self.send(request, follow)
                .await
                .map_err(|e| Box::new(Refused(e)) as OAuthHttpClientError)
        })
    }
}
