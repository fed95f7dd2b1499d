//! The operator page's shell: `/`, `/app.js` and `/app.css`, embedded in the
//! binary (feature `page`), served without a token (the page asks for it and
//! sends it as a header to the JSON API, `admin_api.rs`). Every answer of the
//! admin surface carries headers that keep other sites out: a strict
//! Content-Security-Policy (no inline script, nothing from another origin, no
//! framing), `nosniff`, no referrer, no caching of the API's answers.
//!
//! The shell is served only over TLS (`[admin] tls_cert`) or to a caller on
//! this machine (a loopback peer: a local browser, or an SSH tunnel's end): a
//! token typed into a page served in clear text over a network could be read
//! on the way.

/// The policy of the shell's documents: its own script and style only, and
/// Trusted Types with no policy, so the browser itself refuses any markup
/// written from script (`innerHTML` and the like): the page's own rule.
const PAGE_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
     img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types 'none'";

/// The policy of every other answer (JSON, text): nothing at all.
const DATA_POLICY: &str = "default-src 'none'; frame-ancestors 'none'";

/// The page's paths.
const PATHS: [&str; 4] = ["/", "/index.html", "/app.js", "/app.css"];

/// The asset at `path`: its content type and bytes, when the page is built
/// in and `path` is one of its files.
#[cfg(feature = "page")]
pub(super) fn asset(path: &str) -> Option<(&'static str, &'static str)> {
    Some(match path {
        "/app.js" => (
            "text/javascript; charset=utf-8",
            include_str!("page/app.js"),
        ),
        "/app.css" => ("text/css; charset=utf-8", include_str!("page/app.css")),
        p if PATHS.contains(&p) => ("text/html; charset=utf-8", include_str!("page/index.html")),
        _ => return None,
    })
}

/// Without the `page` feature there is no asset.
#[cfg(not(feature = "page"))]
pub(super) fn asset(_path: &str) -> Option<(&'static str, &'static str)> {
    None
}

/// Why `path` names no asset for this caller, when it is one of the page's:
/// the build has none, or the caller is not on this machine (`loopback`:
/// its address is a loopback one, as an SSH tunnel's end is) and the
/// surface has no TLS (`tls`).
pub(super) fn not_served(path: &str, loopback: bool, tls: bool) -> Option<&'static str> {
    if !PATHS.contains(&path) {
        return None;
    }
    Some(if !cfg!(feature = "page") {
        "this build has no operator page (cargo feature `page`); the JSON API under /api/ is served"
    } else if !loopback && !tls {
        "the operator page is served only over TLS or to this machine (without [admin] \
         tls_cert and tls_key the token would cross the network in clear): set them, or \
         reach it through an SSH tunnel (`ssh -L 9464:127.0.0.1:PORT HOST`); the JSON API \
         under /api/ is served"
    } else {
        return None;
    })
}

/// Sets the headers every admin answer carries; `page` for the shell's own
/// documents.
pub(super) fn guard(headers: &mut http::HeaderMap, page: bool) {
    use http::header::{self, HeaderValue};
    let policy = if page { PAGE_POLICY } else { DATA_POLICY };
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(policy),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("same-origin"),
    );
    headers.insert(
        "cross-origin-opener-policy",
        HeaderValue::from_static("same-origin"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shell_goes_to_this_machine_or_over_tls_only() {
        let page = cfg!(feature = "page");
        for path in PATHS {
            assert_eq!(not_served(path, true, false).is_none(), page, "{path}");
            assert_eq!(not_served(path, false, true).is_none(), page, "{path}");
            let why = not_served(path, false, false).unwrap();
            assert!(
                why.contains(if page { "tls_cert" } else { "feature" }),
                "{why}"
            );
        }
        // Other paths are not the shell's to refuse.
        for path in ["/api/servers", "/metrics", "/app.js.map", "/x"] {
            assert_eq!(not_served(path, false, false), None, "{path}");
        }
    }
}
