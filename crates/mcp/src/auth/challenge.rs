//! What a refused client hears, in the words of MCP authorization (RFC 6750
//! and RFC 9728): a 401 whose `WWW-Authenticate` points at the protected
//! resource metadata (from which a client finds the authorization server),
//! and a 403 `insufficient_scope` naming only the scope the operation needs.
//! Every invalid credential gets the same 401: nothing says whether a token
//! was unknown, expired, for another audience or badly signed.

use serde_json::json;

/// A refusal: the status, the `WWW-Authenticate` value, and the message of
/// the JSON-RPC error body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// 401 or 403.
    pub status: u16,
    /// The `WWW-Authenticate` header's value.
    pub www_authenticate: String,
    /// The error body's message.
    pub message: String,
}

impl Refused {
    /// A 401 of a gateway that is not an OAuth resource server.
    pub(crate) fn plain_unauthorized() -> Refused {
        Refused {
            status: 401,
            www_authenticate: "Bearer".into(),
            message: "missing or wrong bearer token".into(),
        }
    }
}

/// The well-known path of protected resource metadata (RFC 9728).
pub const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The answers of a gateway that is an OAuth resource server.
pub(crate) struct Challenge {
    resource: String,
    issuer: String,
    scopes: Vec<String>,
    /// The URL of the metadata, as `resource_metadata` names it.
    metadata_url: String,
}

impl Challenge {
    pub(crate) fn new(resource: &str, issuer: &str, scopes: Vec<String>) -> Challenge {
        Challenge {
            metadata_url: metadata_url(resource),
            resource: resource.to_string(),
            issuer: issuer.to_string(),
            scopes,
        }
    }

    /// The protected resource metadata document.
    pub(crate) fn metadata(&self) -> serde_json::Value {
        json!({
            "resource": self.resource,
            "authorization_servers": [self.issuer],
            "scopes_supported": self.scopes,
            "bearer_methods_supported": ["header"],
            "resource_name": "toolsearch gateway",
        })
    }

    /// 401: no credential, or one that is not valid (`sent`).
    pub(crate) fn unauthorized(&self, sent: bool) -> Refused {
        let mut v = format!(
            "Bearer resource_metadata=\"{}\", scope=\"{}\"",
            self.metadata_url,
            self.scopes.join(" ")
        );
        if sent {
            v.push_str(", error=\"invalid_token\"");
        }
        Refused {
            status: 401,
            www_authenticate: v,
            message: "missing or invalid credentials".into(),
        }
    }

    /// 403: a valid token without the scope `needed`.
    pub(crate) fn insufficient_scope(&self, needed: &str) -> Refused {
        Refused {
            status: 403,
            www_authenticate: format!(
                "Bearer error=\"insufficient_scope\", scope=\"{needed}\", resource_metadata=\"{}\", error_description=\"this operation needs the scope {needed}\"",
                self.metadata_url
            ),
            message: format!("insufficient scope: this operation needs the scope `{needed}`"),
        }
    }

    /// 403: a valid token that chooses no profile (which profiles exist is
    /// not said).
    pub(crate) fn no_profile(&self) -> Refused {
        Refused {
            status: 403,
            www_authenticate: format!(
                "Bearer error=\"insufficient_scope\", resource_metadata=\"{}\", error_description=\"the token chooses no profile of this gateway\"",
                self.metadata_url
            ),
            message: "the access token chooses no profile of this gateway".into(),
        }
    }
}

/// `https://host/.well-known/oauth-protected-resource/path` for a resource
/// `https://host/path` (RFC 9728 §3.1: the well-known part goes between
/// the host and the path).
pub(crate) fn metadata_url(resource: &str) -> String {
    match super::split_origin(resource) {
        Some((origin, path)) => {
            format!("{origin}{WELL_KNOWN}{}", path.trim_end_matches('/'))
        }
        None => format!("{resource}{WELL_KNOWN}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_url_puts_the_well_known_part_before_the_path() {
        assert_eq!(
            metadata_url("https://gw.example.com/mcp"),
            "https://gw.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            metadata_url("http://127.0.0.1:8080"),
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource"
        );
    }

    #[test]
    fn every_invalid_token_hears_the_same_and_a_scope_names_only_its_need() {
        let c = Challenge::new(
            "https://gw/mcp",
            "https://as/t",
            vec!["mcp:tools".into(), "mcp:call".into()],
        );
        let a = c.unauthorized(true);
        assert_eq!(a.status, 401);
        assert_eq!(
            a.www_authenticate,
            "Bearer resource_metadata=\"https://gw/.well-known/oauth-protected-resource/mcp\", scope=\"mcp:tools mcp:call\", error=\"invalid_token\""
        );
        assert!(!c.unauthorized(false).www_authenticate.contains("error="));
        let f = c.insufficient_scope("mcp:call");
        assert_eq!(f.status, 403);
        assert!(
            f.www_authenticate.contains("scope=\"mcp:call\","),
            "{}",
            f.www_authenticate
        );
        assert!(!f.www_authenticate.contains("mcp:tools"));
    }
}
