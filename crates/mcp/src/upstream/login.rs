//! The gateway's side of a login: the server's HTTP client carries its
//! stored token (rmcp's `AuthClient`: refreshed before expiry and once on a
//! 401, refresh tokens rotated as issued, each saved to the login file), its
//! errors say what an operator does next, and a change of login (a logout,
//! a new login, a refresh token rejected) ends the connection with the
//! reason, without a restart. A running gateway never opens a browser: a
//! 403 `insufficient_scope` is reported with the command that asks for the
//! scope.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::auth::{
    AuthClient, AuthError, AuthorizationManager, CredentialStore, OAuthClientConfig,
    StoredCredentials, WWWAuthenticateParams,
};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};

use super::http_client::Marking;
use crate::config::ServerConfig;
use crate::oauth::net::Net;
use crate::oauth::record::{path_of, Owner, Record};

/// How often a login file is looked at for a change.
const POLL: Duration = Duration::from_millis(500);

/// The login file as rmcp's credential store: read at each use (a new login
/// or a logout is seen at once), written atomically on each refresh, and
/// bound to the login it was opened with (a newer login is never
/// overwritten by this one's refresh).
#[derive(Clone)]
struct FileCredentials {
    path: PathBuf,
    login_id: String,
}

impl FileCredentials {
    fn current(&self) -> Result<Record, AuthError> {
        match Record::read(&self.path) {
            Ok(Some(r)) if r.login_id == self.login_id => Ok(r),
            Ok(_) => Err(AuthError::CredentialStoreError(
                "the login was replaced or removed".into(),
            )),
            Err(e) => Err(AuthError::CredentialStoreError(e)),
        }
    }

    /// Marks the login as needing a new one, keeping the first reason.
    fn mark(&self, why: &str) -> Result<(), AuthError> {
        let mut r = self.current()?;
        if r.needs_login.is_some() {
            return Ok(());
        }
        r.needs_login = Some(why.to_string());
        r.write(&self.path)
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))
    }
}

#[async_trait::async_trait]
impl CredentialStore for FileCredentials {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        Ok(match self.current() {
            Ok(r) if r.needs_login.is_none() => Some(r.credentials),
            _ => None,
        })
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let mut r = self.current()?;
        r.credentials = credentials;
        r.write(&self.path)
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.mark("the authorization server changed")
    }

    async fn on_refresh_token_rejected(&self, _: &StoredCredentials) -> Result<(), AuthError> {
        self.mark("the authorization server rejected the refresh token")
    }
}

/// A server's HTTP client with its login (see the module's documentation).
#[derive(Clone)]
pub(crate) struct Gate {
    inner: AuthClient<Marking>,
    server: Arc<str>,
    command: Arc<str>,
    store: FileCredentials,
    /// Held by every clone the connection keeps: gone, the watch ends.
    #[allow(dead_code)]
    alive: Arc<()>,
}

/// The login a connection was opened with, watched for a change.
pub(crate) struct Login {
    alive: std::sync::Weak<()>,
    store: FileCredentials,
    command: String,
    url: String,
}

/// Why `cfg`'s server cannot be called with its stored login, if it cannot.
fn unusable(
    cfg: &ServerConfig,
    read: Result<Option<Record>, String>,
    command: &str,
) -> Result<Record, String> {
    let owner = Owner::of(cfg);
    match read {
        Err(e) => Err(format!("needs a login: {e}; run `{command}`")),
        Ok(None) => Err(format!(
            "needs a login: none is stored for {owner}; run `{command}`"
        )),
        Ok(Some(r)) => match &r.needs_login {
            Some(why) => Err(format!("needs a login: {why}; run `{command}`")),
            None if Some(&r.url) != cfg.url.as_ref() => Err(format!(
                "needs a login: the stored one was made for another URL; run `{command}`"
            )),
            None => Ok(r),
        },
    }
}

impl Gate {
    /// The client for `cfg`'s server with its stored login.
    ///
    /// # Errors
    /// No usable login (the reason says the command), or a client secret
    /// variable that is not set.
    pub(crate) async fn open(cfg: &ServerConfig, client: Marking) -> anyhow::Result<(Gate, Login)> {
        let path = path_of(cfg)?;
        let command = Owner::of(cfg).login_command(cfg.name());
        let record = unusable(cfg, Record::read(&path), &command).map_err(anyhow::Error::msg)?;
        let url = record.url.clone();
        let net = Arc::new(Net::new(cfg.ca_file.as_deref())?);
        let mut manager = AuthorizationManager::new_with_oauth_http_client(url.as_str(), net)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        manager.set_metadata(record.metadata.clone());
        manager.set_resource(record.resource.clone()).await;
        let mut client_cfg = OAuthClientConfig::new(
            record.credentials.client_id.clone(),
            "http://127.0.0.1/callback",
        )
        .with_scopes(record.credentials.granted_scopes.clone());
        if let Some(var) = cfg
            .oauth
            .as_ref()
            .and_then(|o| o.client_secret_env.as_ref())
        {
            let secret = std::env::var(var)
                .map_err(|_| anyhow::anyhow!("the client secret variable `{var}` is not set"))?;
            client_cfg = client_cfg.with_client_secret(secret);
        }
        manager
            .configure_client(client_cfg)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let store = FileCredentials {
            path,
            login_id: record.login_id.clone(),
        };
        manager.set_credential_store(store.clone());
        let alive = Arc::new(());
        let login = Login {
            alive: Arc::downgrade(&alive),
            store: store.clone(),
            command: command.clone(),
            url,
        };
        let gate = Gate {
            inner: AuthClient::new(client, manager),
            server: Arc::from(cfg.name()),
            command: Arc::from(command.as_str()),
            store,
            alive,
        };
        Ok((gate, login))
    }

    /// An error as the operator and the model should read it.
    fn teach(&self, e: StreamableHttpError<reqwest::Error>) -> StreamableHttpError<reqwest::Error> {
        let (server, command) = (&self.server, &self.command);
        let needs = |why: &str| {
            let text =
                format!("server `{server}` needs a login: {why}; an operator runs `{command}`");
            let _ = self.store.mark(why);
            StreamableHttpError::Auth(AuthError::AuthorizationFailed(text))
        };
        match e {
            StreamableHttpError::AuthRequired(_)
            | StreamableHttpError::Auth(AuthError::AuthorizationRequired) => {
                needs("the server refused its token and it could not be renewed")
            }
            StreamableHttpError::InsufficientScope(e) => {
                let scope = e.required_scope.clone().or_else(|| {
                    let base = url::Url::parse("http://x/").ok()?;
                    WWWAuthenticateParams::parse(&e.www_authenticate_header, &base).scope
                });
                let scope = scope
                    .map(|s| crate::text::clean_for_log(&s, 200))
                    .unwrap_or_default();
                tracing::warn!(server = %server, %scope, "the server needs a scope the login lacks; a running gateway never opens a browser");
                StreamableHttpError::Auth(AuthError::InvalidScope(format!(
                    "server `{server}` refused the request: its login lacks the scope `{scope}` (403 insufficient_scope); an operator runs `{command} --scope {scope}` to ask for it"
                )))
            }
            StreamableHttpError::Auth(AuthError::TokenRefreshFailed(why)) => {
                StreamableHttpError::Auth(AuthError::TokenRefreshFailed(format!(
                    "server `{server}`: renewing its token failed ({}); nothing was sent",
                    crate::text::clean_for_log(&why, 300)
                )))
            }
            other => other,
        }
    }
}

impl Login {
    /// Ends the connection (`ct`) when the login changes: removed, replaced,
    /// marked as needing a login, or made for another URL; the reason goes
    /// to `note`. Ends with the connection.
    pub(crate) async fn watch(
        self,
        ct: rmcp::service::RunningServiceCancellationToken,
        note: Arc<Mutex<Option<String>>>,
    ) {
        loop {
            tokio::time::sleep(POLL).await;
            if self.alive.strong_count() == 0 {
                return;
            }
            let why = match Record::read(&self.store.path) {
                Ok(Some(r)) if r.login_id != self.store.login_id => {
                    Some("a new login was made; connecting with it".to_string())
                }
                Ok(Some(r)) if r.needs_login.is_none() && r.url == self.url => None,
                Ok(None) => Some(format!("needs a login: logged out; run `{}`", self.command)),
                Ok(Some(r)) => Some(format!(
                    "needs a login: {}; run `{}`",
                    r.needs_login
                        .as_deref()
                        .unwrap_or("the login was made for another URL"),
                    self.command
                )),
                Err(e) => Some(format!("needs a login: {e}; run `{}`", self.command)),
            };
            if let Some(why) = why {
                *note.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
                ct.cancel();
                return;
            }
        }
    }
}

/// Resolves when `cfg`'s login file changes (made, replaced, refreshed or
/// removed): a server waiting to be retried is retried at once.
pub(crate) async fn changed(cfg: &ServerConfig) {
    let Ok(path) = path_of(cfg) else {
        return std::future::pending().await;
    };
    let stamp = || {
        std::fs::metadata(&path)
            .ok()
            .map(|m| (m.modified().ok(), m.len()))
    };
    let first = stamp();
    loop {
        tokio::time::sleep(POLL).await;
        if stamp() != first {
            return;
        }
    }
}

type Headers = HashMap<HeaderName, HeaderValue>;
type Result2<T> = Result<T, StreamableHttpError<reqwest::Error>>;
type Stream = futures::stream::BoxStream<'static, Result<sse_stream::Sse, SseError>>;

impl StreamableHttpClient for Gate {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth: Option<String>,
        headers: Headers,
    ) -> Result2<StreamableHttpPostResponse> {
        let limits = StreamableHttpResponseLimits::default();
        self.post_message_with_response_limits(uri, message, session_id, auth, headers, limits)
            .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth: Option<String>,
        headers: Headers,
        max_sse_event_size: usize,
    ) -> Result2<StreamableHttpPostResponse> {
        let mut limits = StreamableHttpResponseLimits::default();
        limits.max_sse_event_size = max_sse_event_size;
        self.post_message_with_response_limits(uri, message, session_id, auth, headers, limits)
            .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth: Option<String>,
        headers: Headers,
        limits: StreamableHttpResponseLimits,
    ) -> Result2<StreamableHttpPostResponse> {
        self.inner
            .post_message_with_response_limits(uri, message, session_id, auth, headers, limits)
            .await
            .map_err(|e| self.teach(e))
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth: Option<String>,
        headers: Headers,
    ) -> Result2<()> {
        self.inner
            .delete_session(uri, session_id, auth, headers)
            .await
            .map_err(|e| self.teach(e))
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth: Option<String>,
        headers: Headers,
    ) -> Result2<Stream> {
        self.inner
            .get_stream(uri, session_id, last_event_id, auth, headers)
            .await
            .map_err(|e| self.teach(e))
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth: Option<String>,
        headers: Headers,
        max_sse_event_size: usize,
    ) -> Result2<Stream> {
        self.inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth,
                headers,
                max_sse_event_size,
            )
            .await
            .map_err(|e| self.teach(e))
    }
}
