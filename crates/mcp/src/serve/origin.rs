//! The second step of an HTTP request: where it comes from. Before anything
//! is counted against anyone (see [`super::admit`]), a request must name one
//! allowed host and, when it comes from a page, one allowed origin:
//!
//! | request                                             | answer |
//! |-----------------------------------------------------|--------|
//! | no `Host` (and no absolute-form target)             | 400    |
//! | two `Host` field lines, or an unreadable one        | 400    |
//! | two `Origin` field lines                            | 400    |
//! | a `Host` not allowed (DNS rebinding)                | 403    |
//! | an absolute-form target whose authority is not allowed | 403 |
//! | an `Origin` not allowed, or an unreadable one       | 403    |
//!
//! RFC 9112 §3.2 asks a server to answer 400 to a request with more than one
//! `Host`, and §3.2.2 to take the authority of an absolute-form target
//! (`POST http://evil.example/mcp`) over `Host`: both are checked, so neither
//! can smuggle a host past the other. A refused request costs nothing: a page
//! in the user's browser can send as many as it likes without using up the
//! rate budget of the local client it shares an address with.

use http::HeaderMap;

/// Why a request was refused here: its status and message.
#[derive(Debug, PartialEq, Eq)]
pub struct Refused {
    /// 400 (ambiguous or unreadable) or 403 (not allowed).
    pub status: u16,
    /// Says which field and why.
    pub message: String,
}

fn refused(status: u16, message: impl Into<String>) -> Refused {
    Refused {
        status,
        message: message.into(),
    }
}

/// A host, lower-cased without brackets, and its port when one is given.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Authority {
    host: String,
    port: Option<u16>,
}

impl Authority {
    fn parse(text: &str) -> Option<Authority> {
        let a = http::uri::Authority::try_from(text.trim()).ok()?;
        if a.as_str().contains('@') {
            return None;
        }
        Some(Authority {
            host: a.host().trim_matches(['[', ']']).to_ascii_lowercase(),
            port: a.port_u16(),
        })
    }
}

/// An allowed origin: `null`, or a scheme and host with a port (any port
/// when the entry gives none or `:*`).
#[derive(Debug, Clone)]
enum AllowedOrigin {
    Null,
    Tuple {
        scheme: String,
        host: String,
        port: Option<u16>,
    },
}

/// An origin a request names: `null` or its scheme, host and port.
fn parse_origin(text: &str) -> Option<(String, Authority)> {
    let uri = http::Uri::try_from(text.trim()).ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    if uri.path_and_query().is_some_and(|p| p.as_str() != "/") {
        return None;
    }
    Some((scheme, Authority::parse(uri.authority()?.as_str())?))
}

/// The port a scheme implies (RFC 6454 §6.2 omits it from an origin).
fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

/// The hosts and origins a gateway accepts.
#[derive(Debug, Clone)]
pub struct Origins {
    hosts: Vec<Authority>,
    origins: Vec<AllowedOrigin>,
    /// The configuration section a refusal tells the operator to edit.
    section: &'static str,
}

impl Origins {
    /// From the configured entries: hosts (`name` or `name:port`) and origins
    /// (`scheme://host`, `scheme://host:port`, `scheme://host:*`, `null`).
    /// Entries that cannot be read match nothing (`config check` names them).
    pub fn new(hosts: &[String], origins: &[String]) -> Origins {
        let hosts = hosts.iter().filter_map(|h| Authority::parse(h)).collect();
        let origins = origins
            .iter()
            .filter_map(|o| {
                let o = o.trim();
                if o.eq_ignore_ascii_case("null") {
                    return Some(AllowedOrigin::Null);
                }
                let (base, any) = match o.strip_suffix(":*") {
                    Some(base) => (base, true),
                    None => (o, false),
                };
                let (scheme, a) = parse_origin(base)?;
                Some(AllowedOrigin::Tuple {
                    scheme,
                    host: a.host,
                    port: if any { None } else { a.port },
                })
            })
            .collect();
        Origins {
            hosts,
            origins,
            section: "[http]",
        }
    }

    /// The same, configured in `section` (`[admin]`): what refusals name.
    pub fn in_section(mut self, section: &'static str) -> Origins {
        self.section = section;
        self
    }

    fn host_allowed(&self, a: &Authority) -> bool {
        self.hosts
            .iter()
            .any(|h| h.host == a.host && h.port.is_none_or(|p| a.port == Some(p)))
    }

    fn origin_allowed(&self, text: &str) -> bool {
        if text.trim().eq_ignore_ascii_case("null") {
            return self
                .origins
                .iter()
                .any(|o| matches!(o, AllowedOrigin::Null));
        }
        let Some((scheme, a)) = parse_origin(text) else {
            return false;
        };
        let port = a.port.or_else(|| default_port(&scheme));
        self.origins.iter().any(|o| match o {
            AllowedOrigin::Null => false,
            AllowedOrigin::Tuple {
                scheme: s,
                host,
                port: p,
            } => *s == scheme && *host == a.host && p.is_none_or(|p| port == Some(p)),
        })
    }

    /// Checks where a request comes from (see the module's table).
    ///
    /// # Errors
    /// The status and message to answer with.
    pub fn check(&self, uri: &http::Uri, headers: &HeaderMap) -> Result<(), Refused> {
        let hosts: Vec<_> = headers.get_all(http::header::HOST).iter().collect();
        if hosts.len() > 1 {
            return Err(refused(
                400,
                "two Host header fields: send exactly one (RFC 9112 §3.2)",
            ));
        }
        let mut named = Vec::with_capacity(2);
        if let Some(h) = hosts.first() {
            let a = h
                .to_str()
                .ok()
                .and_then(Authority::parse)
                .ok_or_else(|| refused(400, "the Host header is not a host[:port]"))?;
            named.push(("Host", a));
        }
        // An absolute-form target (`POST http://host/mcp`) names its own
        // authority, which a server is to take over `Host` (RFC 9112 §3.2.2).
        if let Some(a) = uri.authority() {
            let a = Authority::parse(a.as_str())
                .ok_or_else(|| refused(400, "the request target's authority is unreadable"))?;
            named.push(("the request target's authority", a));
        }
        if named.is_empty() {
            return Err(refused(400, "no Host header (RFC 9112 §3.2)"));
        }
        for (field, a) in &named {
            if !self.host_allowed(a) {
                return Err(refused(
                    403,
                    format!(
                        "{field} names a host this gateway does not serve (add it to {} allowed_hosts)",
                        self.section
                    ),
                ));
            }
        }
        let origins: Vec<_> = headers.get_all(http::header::ORIGIN).iter().collect();
        if origins.len() > 1 {
            return Err(refused(400, "two Origin header fields: send at most one"));
        }
        if let Some(o) = origins.first() {
            let allowed = o.to_str().is_ok_and(|o| self.origin_allowed(o));
            if !allowed {
                return Err(refused(
                    403,
                    format!(
                        "requests from this Origin are refused (add it to {} allowed_origins)",
                        self.section
                    ),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origins() -> Origins {
        Origins::new(
            &[
                "localhost".into(),
                "127.0.0.1".into(),
                "[::1]".into(),
                "gw.example:8443".into(),
            ],
            &[
                "http://localhost:*".into(),
                "https://app.example".into(),
                "https://exact.example:8443".into(),
            ],
        )
    }

    fn check(target: &str, fields: &[(&str, &str)]) -> Result<(), u16> {
        let mut h = HeaderMap::new();
        for (k, v) in fields {
            h.append(
                http::header::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                http::HeaderValue::from_bytes(v.as_bytes()).unwrap(),
            );
        }
        origins()
            .check(&target.parse().unwrap(), &h)
            .map_err(|r| r.status)
    }

    #[test]
    fn one_allowed_host_passes() {
        assert_eq!(check("/mcp", &[("host", "127.0.0.1:9")]), Ok(()));
        assert_eq!(check("/mcp", &[("host", "LOCALHOST")]), Ok(()));
        assert_eq!(check("/mcp", &[("host", "[::1]:80")]), Ok(()));
        assert_eq!(check("/mcp", &[("host", "gw.example:8443")]), Ok(()));
        assert_eq!(check("/mcp", &[("host", "gw.example:8444")]), Err(403));
        assert_eq!(check("/mcp", &[("host", "evil.example")]), Err(403));
    }

    #[test]
    fn ambiguous_or_missing_hosts_are_bad_requests() {
        assert_eq!(check("/mcp", &[]), Err(400));
        let two = [("host", "127.0.0.1"), ("host", "127.0.0.1")];
        assert_eq!(check("/mcp", &two), Err(400));
        let mixed = [("host", "127.0.0.1"), ("host", "evil.example")];
        assert_eq!(check("/mcp", &mixed), Err(400));
        assert_eq!(check("/mcp", &[("host", "a b")]), Err(400));
        assert_eq!(check("/mcp", &[("host", "user@127.0.0.1")]), Err(400));
    }

    #[test]
    fn an_absolute_form_target_is_checked_like_host() {
        let local = [("host", "127.0.0.1")];
        assert_eq!(check("http://evil.example/mcp", &local), Err(403));
        assert_eq!(check("http://127.0.0.1:5/mcp", &local), Ok(()));
        assert_eq!(
            check("http://127.0.0.1/mcp", &[("host", "evil.example")]),
            Err(403)
        );
        // No Host at all, but the target names an allowed one.
        assert_eq!(check("http://localhost/mcp", &[]), Ok(()));
    }

    #[test]
    fn origins_are_one_and_allowed() {
        let h = ("host", "127.0.0.1");
        assert_eq!(
            check("/mcp", &[h, ("origin", "http://localhost:5173")]),
            Ok(())
        );
        assert_eq!(
            check("/mcp", &[h, ("origin", "https://app.example:1")]),
            Ok(())
        );
        assert_eq!(
            check("/mcp", &[h, ("origin", "https://exact.example")]),
            Err(403)
        );
        assert_eq!(
            check("/mcp", &[h, ("origin", "https://exact.example:8443")]),
            Ok(())
        );
        assert_eq!(
            check("/mcp", &[h, ("origin", "https://evil.example")]),
            Err(403)
        );
        assert_eq!(check("/mcp", &[h, ("origin", "null")]), Err(403));
        assert_eq!(check("/mcp", &[h, ("origin", "garbage")]), Err(403));
        let two = [
            h,
            ("origin", "http://localhost:1"),
            ("origin", "http://localhost:1"),
        ];
        assert_eq!(check("/mcp", &two), Err(400));
    }
}
