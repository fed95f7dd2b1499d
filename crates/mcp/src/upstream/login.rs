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
    AuthClient, AuthError, AuthorizationManager, CredentialRefreshGuard, CredentialStore,
    OAuthClientConfig, StoredCredentials, WWWAuthenticateParams,
};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};

use super::http_client::Marking;
use crate::config::ServerConfig;
use crate::oauth::net::Net;
use crate::oauth::record::{self, path_of, Owner, Record};

/// How often a login file is looked at for a change.
const POLL: Duration = Duration::from_millis(500);

/// The login file as rmcp's credential store: read at each use (a new login
/// or a logout is seen at once), written atomically on each refresh, and
/// bound to the login it was opened with (a newer login is never
/// overwritten by this one's refresh). A refresh holds the file's lock
/// (`record::lock`) from its load to its save, as every other writer does.
#[derive(Clone)]
struct FileCredentials {
    path: PathBuf,
    login_id: String,
}

/// What the login file says now, for this connection's login.
enum Now {
    /// Usable.
    Ok(Box<Record>),
    /// Marked as needing a new login: why.
    Needs(String),
    /// Removed (a logout), or replaced by another login.
    Gone,
}

impl FileCredentials {
    fn now(&self) -> Result<Now, AuthError> {
        match Record::read(&self.path) {
            Ok(Some(r)) if r.login_id != self.login_id => Ok(Now::Gone),
            Ok(Some(r)) => Ok(match r.needs_login.clone() {
                Some(why) => Now::Needs(why),
                None => Now::Ok(Box::new(r)),
            }),
            Ok(None) => Ok(Now::Gone),
            Err(e) => Err(AuthError::CredentialStoreError(e)),
        }
    }

    /// Marks this login as needing a new one (keeping the first reason);
    /// the lock is the caller's.
    fn mark_held(&self, why: &str) -> Result<(), AuthError> {
        if let Now::Ok(mut r) = self.now()? {
            r.needs_login = Some(why.to_string());
            r.write(&self.path)
                .map_err(|e| AuthError::CredentialStoreError(e.to_string()))?;
        }
        Ok(())
    }

    /// [`Self::mark_held`] under the file's lock.
    async fn mark(&self, why: &str) -> Result<(), AuthError> {
        let _lock = self.lock().await?;
        self.mark_held(why)
    }

    async fn lock(&self) -> Result<std::fs::File, AuthError> {
        let path = self.path.clone();
        tokio::task::spawn_blocking(move || record::lock(&path, record::LOCK_WAIT))
            .await
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))?
            .map_err(AuthError::CredentialStoreError)
    }
}

#[async_trait::async_trait]
impl CredentialStore for FileCredentials {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        // A file that cannot be read now is an error (the call fails and
        // the next one reads again), not a lost login.
        Ok(match self.now()? {
            Now::Ok(r) => Some(r.credentials),
            Now::Needs(_) | Now::Gone => None,
        })
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        // Under the refresh guard (rmcp takes it before its load).
        match self.now()? {
            Now::Ok(mut r) => {
                r.credentials = credentials;
                r.write(&self.path)
                    .map_err(|e| AuthError::CredentialStoreError(e.to_string()))
            }
            Now::Needs(_) | Now::Gone => Err(AuthError::CredentialStoreError(
                "the login was removed or replaced meanwhile".into(),
            )),
        }
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.mark("the authorization server changed").await
    }

    async fn on_refresh_token_rejected(&self, spent: &StoredCredentials) -> Result<(), AuthError> {
        use oauth2::TokenResponse as _;
        // Under the refresh guard. Only the refresh token the file still
        // holds counts: one another process already replaced says nothing.
        let token = |c: &StoredCredentials| {
            c.token_response
                .as_ref()
                .and_then(|t| t.refresh_token().map(|r| r.secret().clone()))
        };
        match self.now()? {
            Now::Ok(r) if token(&r.credentials) == token(spent) => {
                self.mark_held("the authorization server rejected the refresh token")
            }
            _ => Ok(()),
        }
    }

    async fn acquire_refresh_guard(&self) -> Result<Option<CredentialRefreshGuard>, AuthError> {
        Ok(Some(CredentialRefreshGuard::new(self.lock().await?)))
    }
}

/// A server's HTTP client with its login (see the module's documentation).
#[derive(Clone)]
pub(crate) struct Gate {
    inner: AuthClient<Marking>,
    server: Arc<str>,
    command: Arc<str>,
    store: FileCredentials,
    /// Where the reason a start failed goes (the server's).
    note: Arc<Mutex<Option<String>>>,
    /// True until the connection is up: only a start's failure is noted
    /// (a lost connection's reason is the watcher's).
    starting: Arc<std::sync::atomic::AtomicBool>,
    /// Held by every clone the connection keeps: gone, the watch ends.
    #[allow(dead_code)]
    alive: Arc<()>,
}

/// The login a connection was opened with, watched for a change.
pub(crate) struct Login {
    alive: std::sync::Weak<()>,
    starting: Arc<std::sync::atomic::AtomicBool>,
    store: FileCredentials,
    command: String,
    url: String,
}

impl Gate {
    /// The client for `cfg`'s server with its stored login.
    ///
    /// # Errors
    /// No usable login (the reason says the command), or a client secret
    /// variable that is not set.
    pub(crate) async fn open(
        cfg: &ServerConfig,
        client: Marking,
        note: Arc<Mutex<Option<String>>>,
    ) -> anyhow::Result<(Gate, Login)> {
        let path = path_of(cfg)?;
        let command = Owner::of(cfg).login_command(cfg.name());
        let record = record::usable(cfg, Record::read(&path))
            .map_err(|why| anyhow::anyhow!("needs a login: {why}; run `{command}`"))?;
        let url = record.url.clone();
        let server = url::Url::parse(&url).map_err(|e| anyhow::anyhow!("{e}"))?;
        let net = Arc::new(Net::new(cfg.ca_file.as_deref(), &server).await?);
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
        let starting = Arc::new(std::sync::atomic::AtomicBool::new(true));
        let login = Login {
            alive: Arc::downgrade(&alive),
            starting: starting.clone(),
            store: store.clone(),
            command: command.clone(),
            url,
        };
        let gate = Gate {
            inner: AuthClient::new(client, manager),
            server: Arc::from(cfg.name()),
            command: Arc::from(command.as_str()),
            store,
            note,
            starting,
            alive,
        };
        Ok((gate, login))
    }

    /// An error as the operator and the model should read it.
    async fn teach(
        &self,
        e: StreamableHttpError<reqwest::Error>,
    ) -> StreamableHttpError<reqwest::Error> {
        match e {
            StreamableHttpError::AuthRequired(_)
            | StreamableHttpError::Auth(AuthError::AuthorizationRequired) => {
                let why = "the server refused its token and it could not be renewed";
                let _ = self.store.mark(why).await;
                let e = self.needs(why);
                self.say(&e.to_string());
                e
            }
            StreamableHttpError::InsufficientScope(e) => {
                let base = url::Url::parse("http://x/").expect("a URL");
                let params = WWWAuthenticateParams::parse(&e.www_authenticate_header, &base);
                let scopes: Vec<String> = e
                    .required_scope
                    .clone()
                    .or(params.scope)
                    .unwrap_or_default()
                    .split_whitespace()
                    .take(8)
                    .map(|s| crate::text::clean_for_log(s, 100))
                    .collect();
                let server = &self.server;
                let said = params
                    .error_description
                    .map(|d| format!(" (it says: {})", crate::text::clean_for_log(&d, 200)))
                    .unwrap_or_default();
                let text = if scopes.is_empty() {
                    format!(
                        "server `{server}` refused the request: its login lacks a scope it requires (403 insufficient_scope){said}; an operator runs `{} --scope SCOPE` with that scope",
                        self.command
                    )
                } else {
                    let flags: String = scopes
                        .iter()
                        .map(|s| format!(" --scope {}", shell_word(s)))
                        .collect();
                    format!(
                        "server `{server}` refused the request: its login lacks the scope {} (403 insufficient_scope){said}; an operator runs `{}{flags}` to ask for it",
                        scopes.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", "),
                        self.command
                    )
                };
                tracing::warn!(server = %server, "{text}; a running gateway never opens a browser");
                self.say(&text);
                StreamableHttpError::Auth(AuthError::InvalidScope(text))
            }
            StreamableHttpError::Auth(AuthError::TokenRefreshFailed(why)) => {
                StreamableHttpError::Auth(AuthError::TokenRefreshFailed(format!(
                    "server `{}`: renewing its token failed ({}); nothing was sent",
                    self.server,
                    crate::text::clean_for_log(&why, 300)
                )))
            }
            other => other,
        }
    }

    /// Keeps `text` as the reason a failed start or a lost connection is
    /// reported with (rather than the transport's wording around it).
    fn say(&self, text: &str) {
        if self.starting.load(std::sync::atomic::Ordering::SeqCst) {
            *self.note.lock().unwrap_or_else(|p| p.into_inner()) = Some(text.to_string());
        }
    }

    /// Runs one request of the transport: refused before sending when the
    /// login needs renewing, its error taught.
    async fn guarded<T>(
        &self,
        request: impl std::future::Future<Output = Result2<T>>,
    ) -> Result2<T> {
        self.refuse_early()?;
        match request.await {
            Ok(v) => Ok(v),
            Err(e) => Err(self.teach(e).await),
        }
    }

    /// The error of a call made while the login needs renewing.
    fn needs(&self, why: &str) -> StreamableHttpError<reqwest::Error> {
        StreamableHttpError::Auth(AuthError::AuthorizationFailed(format!(
            "server `{}` needs a login: {why}; an operator runs `{}`",
            self.server, self.command
        )))
    }

    /// Refuses before sending when the login is marked as needing a new one
    /// or was removed: nothing goes out without its token.
    fn refuse_early(&self) -> Result2<()> {
        match self.store.now() {
            Ok(Now::Needs(why)) => Err(self.needs(&why)),
            Ok(Now::Gone) if !self.store.path.exists() => Err(self.needs("logged out")),
            _ => Ok(()),
        }
    }
}

/// `word` as one shell word: as it is when plain, else single-quoted.
fn shell_word(word: &str) -> String {
    if !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.:/=@,+%".contains(&b))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

impl Login {
    /// The connection is up: from now on a lost connection's reason is the
    /// watcher's alone.
    pub(crate) fn started(&self) {
        self.starting
            .store(false, std::sync::atomic::Ordering::SeqCst);
    }

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
        self.guarded(
            self.inner
                .post_message_with_response_limits(uri, message, session_id, auth, headers, limits),
        )
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth: Option<String>,
        headers: Headers,
    ) -> Result2<()> {
        self.guarded(self.inner.delete_session(uri, session_id, auth, headers))
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth: Option<String>,
        headers: Headers,
    ) -> Result2<Stream> {
        self.guarded(
            self.inner
                .get_stream(uri, session_id, last_event_id, auth, headers),
        )
        .await
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
        self.guarded(self.inner.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth,
            headers,
            max_sse_event_size,
        ))
        .await
    }
}
