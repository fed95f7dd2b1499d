//! `toolsearch oauth login` and `logout`: the authorization code flow with
//! PKCE through a loopback redirect, and revocation (RFC 7009).
//!
//! The loopback listener is bound to 127.0.0.1 on a port the system picks,
//! reads at most [`MAX_HEAD`] bytes of each request within 5 s, answers
//! anything but `/callback` with 404, and accepts one redirect: that one
//! decides the login (its `state` must be the one sent), and the listener
//! closes. With `paste` the redirected URL may be pasted instead (a browser
//! on another machine cannot reach the loopback).

use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::auth::{
    AuthorizationCallback, AuthorizationManager, AuthorizationRequest, AuthorizationSession,
    StoredCredentials,
};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use super::net::{self, Net};
use super::record::{now_secs, path_of, Owner, Record};
use crate::config::ServerConfig;

/// The most of a redirect request read.
const MAX_HEAD: usize = 16 << 10;

/// How a login is made.
pub struct LoginOptions {
    /// `--profile`: the login is this profile's.
    pub profile: Option<String>,
    /// Scopes asked for beside the config's (`--scope`, for a step-up).
    pub scopes: Vec<String>,
    /// Open the URL in a browser (`$BROWSER`, else the desktop's opener).
    pub browser: bool,
    /// Also read the redirected URL from stdin (`--no-browser`).
    pub paste: bool,
    /// How long the login may wait for the redirect.
    pub timeout: Duration,
    /// Where what the user must do is said (the URL to open).
    pub tell: Box<dyn Fn(&str) + Send + Sync>,
}

/// What a login made.
#[derive(Debug)]
pub struct Done {
    /// The login file written.
    pub path: std::path::PathBuf,
    /// The scopes granted.
    pub scopes: Vec<String>,
    /// When the access token expires (seconds since the epoch), when said.
    pub expires_at: Option<u64>,
}

/// The owner of `cfg`'s login, checked against `--profile`.
fn owner_for(cfg: &ServerConfig, profile: Option<&str>) -> anyhow::Result<Owner> {
    let name = cfg.name();
    if cfg.oauth.is_none() {
        anyhow::bail!(
            "server `{name}` has no `[servers.oauth]` table: add one (it may be empty) so that the gateway calls it with a login"
        );
    }
    let owner = Owner::of(cfg);
    match (&owner, profile) {
        (Owner::Gateway, Some(p)) => anyhow::bail!(
            "server `{name}`'s login belongs to the gateway (`oauth.login`): log in without --profile, or set `login = \"{p}\"` under its [servers.oauth] to make it profile `{p}`'s"
        ),
        (Owner::Profile(o), None) => anyhow::bail!(
            "server `{name}`'s login belongs to profile `{o}`: run `toolsearch oauth login {name} --profile {o}`"
        ),
        (Owner::Profile(o), Some(p)) if o != p => anyhow::bail!(
            "server `{name}`'s login belongs to profile `{o}`, not `{p}` (`oauth.login`)"
        ),
        _ => Ok(owner),
    }
}

/// Logs in to `cfg`'s server and stores the tokens (see the module's
/// documentation). Nothing is stored unless every step succeeds.
///
/// # Errors
/// Each refusal with its reason: discovery, registration, the redirect, the
/// token exchange, or the file.
pub async fn login(cfg: &ServerConfig, opts: LoginOptions) -> anyhow::Result<Done> {
    let owner = owner_for(cfg, opts.profile.as_deref())?;
    let oauth = cfg.oauth.clone().unwrap_or_default();
    let name = cfg.name();
    let url = url::Url::parse(cfg.url.as_deref().unwrap_or_default())
        .map_err(|e| anyhow::anyhow!("server `{name}`'s url is not a URL: {e}"))?;
    if let Some(why) = net::refuse(&url) {
        anyhow::bail!("server `{name}`: {why}");
    }
    let path = path_of(cfg)?;
    let net = Arc::new(Net::new(cfg.ca_file.as_deref(), &url).await?);
    let challenge = match &oauth.metadata_url {
        Some(m) => {
            // Parsed: a quote in it is percent-encoded, not the end of the value.
            let m = url::Url::parse(m).map_err(|e| anyhow::anyhow!("oauth.metadata_url: {e}"))?;
            Some(format!("Bearer resource_metadata=\"{m}\""))
        }
        None => probe(&net, &url, name).await?,
    };
    let mut manager = AuthorizationManager::new_with_oauth_http_client(url.as_str(), net.clone())
        .await
        .map_err(|e| anyhow::anyhow!("server `{name}`: {e}"))?;
    let resolution = manager
        .resolve_metadata_from_challenge(challenge.as_deref())
        .await
        .map_err(|e| {
            anyhow::anyhow!(
                "discovering server `{name}`'s authorization server failed: {}",
                chain(&e)
            )
        })?;
    if !resolution.source.is_discovered() {
        anyhow::bail!(
            "server `{name}` publishes no authorization metadata (neither RFC 9728 protected resource metadata nor RFC 8414 or OpenID metadata was found): give `oauth.metadata_url`, or it is not an OAuth server"
        );
    }
    let metadata = resolution.metadata.clone();
    check_endpoints(&metadata, name)?;
    manager.set_metadata(resolution.metadata);

    let listener = tokio::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0)).await?;
    let redirect_uri = format!(
        "http://127.0.0.1:{}/callback",
        listener.local_addr()?.port()
    );
    let mut request =
        AuthorizationRequest::new(&redirect_uri).with_client_name("toolsearch gateway");
    let mut scopes = oauth.scopes.clone();
    scopes.extend(
        opts.scopes
            .iter()
            .filter(|s| !oauth.scopes.contains(s))
            .cloned(),
    );
    request = if scopes.is_empty() {
        request.with_initial_scope_selection()
    } else {
        request.with_scopes(scopes)
    };
    if let Some(id) = &oauth.client_id {
        request = request.with_preregistered_client(id);
        if let Some(var) = &oauth.client_secret_env {
            let secret = std::env::var(var)
                .map_err(|_| anyhow::anyhow!("the client secret variable `{var}` is not set"))?;
            request = request.with_client_secret(secret);
        }
    }
    if let Some(u) = &oauth.client_metadata_url {
        request = request.with_client_metadata_url(u);
    }
    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, e)| anyhow::anyhow!("server `{name}`: {}", chain(&e)))?;
    let auth_url = session.get_authorization_url().to_string();
    let sent_state = url::Url::parse(&auth_url)
        .ok()
        .and_then(|u| {
            u.query_pairs()
                .find(|(k, _)| k == "state")
                .map(|(_, v)| v.into_owned())
        })
        .ok_or_else(|| anyhow::anyhow!("the authorization URL carries no state"))?;
    (opts.tell)(&auth_url);
    if opts.browser {
        open_browser(&auth_url, &opts.tell);
    }
    let arrived = tokio::time::timeout(opts.timeout, wait(listener, opts.paste))
        .await
        .map_err(|_| {
            anyhow::anyhow!(
                "no redirect came back within {} s; nothing was stored (run the command again)",
                opts.timeout.as_secs()
            )
        })??;
    let outcome = async {
        let callback = arrived.params.map_err(anyhow::Error::msg)?;
        if callback.csrf_token != sent_state {
            anyhow::bail!(
                "the redirect's `state` is not the one this login sent (a forged or stale redirect); nothing was stored"
            );
        }
        session
            .handle_callback_with_issuer(&callback.code, &callback.csrf_token, callback.issuer.as_deref())
            .await
            .map_err(|e| anyhow::anyhow!("the token exchange failed: {}", chain(&e)))?;
        let (client_id, token) = session
            .get_credentials()
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let scopes = session.auth_manager.get_current_scopes().await;
        let resource = session.auth_manager.resource().await;
        let credentials = StoredCredentials::new(client_id, token, scopes.clone(), Some(now_secs()))
            .with_issuer(metadata.issuer.clone());
        let record = Record::new(cfg, &owner, resource, metadata, credentials);
        let _lock = super::record::lock(&path, super::record::LOCK_WAIT).map_err(anyhow::Error::msg)?;
        record
            .write(&path)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        Ok(Done {
            path: path.clone(),
            scopes,
            expires_at: record.expires_at(),
        })
    }
    .await;
    if let Some(mut stream) = arrived.reply {
        let page = match &outcome {
            Ok(_) => format!("toolsearch: logged in to {name}. You can close this tab."),
            Err(e) => format!("toolsearch: the login to {name} failed: {e}"),
        };
        let status = if outcome.is_ok() {
            "200 OK"
        } else {
            "400 Bad Request"
        };
        let _ =
            tokio::time::timeout(Duration::from_secs(5), respond(&mut stream, status, &page)).await;
    }
    outcome
}

/// Refuses metadata naming an endpoint the login would not call: each is
/// `https://` (`http://` on loopback) and a URL.
fn check_endpoints(
    m: &rmcp::transport::auth::AuthorizationMetadata,
    name: &str,
) -> anyhow::Result<()> {
    let extra = |k: &str| {
        m.additional_fields
            .get(k)
            .and_then(serde_json::Value::as_str)
    };
    let endpoints = [
        (
            "authorization_endpoint",
            Some(m.authorization_endpoint.as_str()),
        ),
        ("token_endpoint", Some(m.token_endpoint.as_str())),
        ("registration_endpoint", m.registration_endpoint.as_deref()),
        ("revocation_endpoint", extra("revocation_endpoint")),
    ];
    // PKCE with S256 is required (MCP authorization): an authorization
    // server that does not say it supports S256 is not used.
    let s256 = m
        .code_challenge_methods_supported
        .as_ref()
        .is_some_and(|l| l.iter().any(|x| x == "S256"));
    if !s256 {
        anyhow::bail!(
            "server `{name}`'s authorization server does not say it supports PKCE with S256 (`code_challenge_methods_supported`), which MCP requires: it is not used"
        );
    }
    for (key, value) in endpoints {
        let Some(value) = value else { continue };
        let why = match url::Url::parse(value) {
            Ok(u) => net::refuse(&u),
            Err(e) => Some(format!("it is not a URL ({e})")),
        };
        if let Some(why) = why {
            anyhow::bail!(
                "server `{name}`'s authorization server names a `{key}` the gateway will not call: {why}"
            );
        }
    }
    Ok(())
}

/// An error and its causes in one line.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = s.source();
    }
    crate::text::clean_for_log(&crate::text::redact_urls(&text), 600)
}

/// Whether the server at `url` asks for a login: true when it refuses a
/// request without a token (401, or 403 with a challenge), false when it
/// answers it. For `toolsearch connect`, deciding whether a remote server
/// it moves needs `oauth`.
///
/// # Errors
/// The server cannot be reached, or `url` is not one the gateway calls.
pub async fn asks_for_login(url: &str) -> Result<bool, String> {
    let url = url::Url::parse(url).map_err(|e| e.to_string())?;
    let net = Net::new(None, &url).await.map_err(|e| e.to_string())?;
    let response = first_answer(&net, &url).await?;
    let challenge = response
        .headers()
        .get(http::header::WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("bearer"));
    Ok(response.status() == http::StatusCode::UNAUTHORIZED
        || response.status() == http::StatusCode::FORBIDDEN && challenge)
}

/// The server's answer to a request with no token: its `WWW-Authenticate`
/// challenge (`None` when it gives none: discovery then tries the
/// well-known paths).
async fn probe(net: &Net, url: &url::Url, name: &str) -> anyhow::Result<Option<String>> {
    let response = first_answer(net, url)
        .await
        .map_err(|e| anyhow::anyhow!("server `{name}` could not be reached: {e}"))?;
    if response.status().is_success() {
        anyhow::bail!("server `{name}` answered without a login: it does not need OAuth (remove its `oauth` table)");
    }
    Ok(response
        .headers()
        .get(http::header::WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string))
}

/// The server's answer to an `initialize` without a token.
async fn first_answer(net: &Net, url: &url::Url) -> Result<http::Response<Vec<u8>>, String> {
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "toolsearch-oauth-probe", "version": env!("CARGO_PKG_VERSION")}}
    });
    let mut request = reqwest::Request::new(reqwest::Method::POST, url.clone());
    let headers = request.headers_mut();
    headers.insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    headers.insert(
        http::header::ACCEPT,
        http::HeaderValue::from_static("application/json, text/event-stream"),
    );
    *request.body_mut() = Some(body.to_string().into());
    net.send(request, true).await
}

/// Opens `url` with `$BROWSER`, else the desktop's opener; says so when none.
fn open_browser(url: &str, tell: &(dyn Fn(&str) + Send + Sync)) {
    let program = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty())
        .or_else(|| {
            if cfg!(target_os = "macos") {
                Some("open".into())
            } else if std::env::var_os("DISPLAY").is_some()
                || std::env::var_os("WAYLAND_DISPLAY").is_some()
            {
                Some("xdg-open".into())
            } else {
                None
            }
        });
    let opened = program.is_some_and(|p| {
        std::process::Command::new(p)
            .arg(url)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .is_ok()
    });
    if !opened {
        tell("(no browser could be opened here: open the URL above yourself)");
    }
}

/// The redirect that came back: its parameters (or why they are refused)
/// and, when it came to the listener, the connection to answer.
struct Arrived {
    params: Result<AuthorizationCallback, String>,
    reply: Option<tokio::net::TcpStream>,
}

/// Lines typed on stdin, read by a thread of their own (detached: a login
/// that ends another way does not wait for the user to press Enter).
fn stdin_lines() -> tokio::sync::mpsc::Receiver<String> {
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    std::thread::spawn(move || {
        for line in std::io::stdin().lines().map_while(Result::ok) {
            if tx.blocking_send(line).is_err() {
                return;
            }
        }
    });
    rx
}

/// Waits for the one redirect (see the module's documentation).
async fn wait(listener: tokio::net::TcpListener, paste: bool) -> anyhow::Result<Arrived> {
    let mut stdin = if paste { Some(stdin_lines()) } else { None };
    let mut reading = paste;
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (mut stream, _) = accepted?;
                let Ok(Some(target)) = tokio::time::timeout(Duration::from_secs(5), read_target(&mut stream)).await else {
                    continue;
                };
                if target.split('?').next() != Some("/callback") {
                    let _ = respond(&mut stream, "404 Not Found", "not here").await;
                    continue;
                }
                let params = parse(&format!("http://127.0.0.1{target}"));
                return Ok(Arrived { params, reply: Some(stream) });
            }
            line = async { stdin.as_mut().expect("reading").recv().await }, if reading => match line {
                Some(l) if !l.trim().is_empty() => {
                    return Ok(Arrived { params: parse(l.trim()), reply: None });
                }
                Some(_) => {}
                None => reading = false,
            }
        }
    }
}

/// The parameters of a redirected URL, or why it is refused.
fn parse(url: &str) -> Result<AuthorizationCallback, String> {
    let parsed = url::Url::parse(url)
        .map_err(|e| format!("the pasted text is not the redirected URL: {e}"))?;
    let get = |k: &str| {
        parsed
            .query_pairs()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.into_owned())
    };
    if let Some(error) = get("error") {
        let what = get("error_description").unwrap_or_default();
        return Err(crate::text::clean_for_log(
            &format!("the authorization server refused the login: {error} {what}"),
            400,
        ));
    }
    AuthorizationCallback::from_redirect_url(url).map_err(|e| e.to_string())
}

/// The request target of an HTTP request's first line (`None`: not HTTP).
async fn read_target(stream: &mut tokio::net::TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buf = [0u8; 2048];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut buf).await.ok()?;
        if n == 0 || head.len() + n > MAX_HEAD {
            return None;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let line = std::str::from_utf8(&head).ok()?.lines().next()?.to_string();
    let mut parts = line.split(' ');
    (parts.next()? == "GET").then_some(())?;
    parts.next().map(str::to_string)
}

async fn respond(
    stream: &mut tokio::net::TcpStream,
    status: &str,
    text: &str,
) -> std::io::Result<()> {
    let body = format!(
        "<!doctype html><meta charset=utf-8><title>toolsearch</title><p>{}</p>",
        text.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    );
    let head = format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body.as_bytes()).await?;
    stream.shutdown().await
}

/// Revokes `cfg`'s login where its authorization server offers revocation
/// (RFC 7009), then deletes it. Says what happened.
///
/// # Errors
/// A login file that cannot be removed, or a server entry without `oauth`.
pub async fn logout(cfg: &ServerConfig, profile: Option<&str>) -> anyhow::Result<String> {
    let owner = owner_for(cfg, profile)?;
    let name = cfg.name();
    let path = path_of(cfg)?;
    let record = match Record::read(&path) {
        Ok(Some(r)) => Some(r),
        Ok(None) => return Ok(format!("no login of {owner} is stored for `{name}`")),
        Err(e) => {
            tracing::warn!(server = name, error = %e, "the login is unreadable; deleting it without revoking");
            None
        }
    };
    let mut said = String::from("deleted here");
    if let Some(r) = record {
        let endpoint = r
            .metadata
            .additional_fields
            .get("revocation_endpoint")
            .and_then(serde_json::Value::as_str)
            .map(str::to_string);
        said = match endpoint {
            None => "the authorization server offers no revocation (RFC 7009): the tokens were deleted here and lapse at the server when they expire".into(),
            Some(endpoint) => revoke(cfg, &r, &endpoint).await,
        };
    }
    let _lock = super::record::lock(&path, super::record::LOCK_WAIT).map_err(anyhow::Error::msg)?;
    match std::fs::remove_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => anyhow::bail!("cannot delete {}: {e}", path.display()),
    }
    Ok(format!("logged {owner} out of `{name}`: {said}"))
}

/// Revokes the refresh token, then the access token; what the server said.
async fn revoke(cfg: &ServerConfig, r: &Record, endpoint: &str) -> String {
    use oauth2::TokenResponse as _;
    let Ok(url) = url::Url::parse(endpoint) else {
        return "the revocation endpoint is not a URL; the tokens were deleted here".into();
    };
    let Ok(server) = url::Url::parse(&r.url) else {
        return "the login's server URL is not a URL; the tokens were deleted here".into();
    };
    let Ok(net) = Net::new(cfg.ca_file.as_deref(), &server).await else {
        return "no HTTP client; the tokens were deleted here".into();
    };
    let Some(token) = r.credentials.token_response.as_ref() else {
        return "no token was held".into();
    };
    let secret = cfg
        .oauth
        .as_ref()
        .and_then(|o| o.client_secret_env.as_ref())
        .and_then(|v| std::env::var(v).ok());
    let mut tokens = Vec::new();
    if let Some(t) = token.refresh_token() {
        tokens.push((t.secret().clone(), "refresh_token"));
    }
    tokens.push((token.access_token().secret().clone(), "access_token"));
    let mut outcomes = Vec::new();
    for (value, hint) in tokens {
        let mut form = url::form_urlencoded::Serializer::new(String::new());
        form.append_pair("token", &value)
            .append_pair("token_type_hint", hint)
            .append_pair("client_id", &r.credentials.client_id);
        if let Some(s) = &secret {
            form.append_pair("client_secret", s);
        }
        let mut request = reqwest::Request::new(reqwest::Method::POST, url.clone());
        request.headers_mut().insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static("application/x-www-form-urlencoded"),
        );
        *request.body_mut() = Some(form.finish().into());
        outcomes.push(match net.send(request, false).await {
            Ok(resp) if resp.status().is_success() => format!("{hint} revoked"),
            Ok(resp) => format!("{hint} not revoked (the server answered {})", resp.status()),
            Err(e) => format!("{hint} not revoked ({e})"),
        });
    }
    format!("{}; the tokens were deleted here", outcomes.join(", "))
}
