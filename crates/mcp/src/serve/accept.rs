//! The first step of an HTTP request: accepting its connection. Connections
//! are capped (by the config and by the process's open-file limit); past the
//! cap a new one is answered 503 and closed, so that a client is never left
//! without an answer. A connection must send its request headers within the
//! header timeout, which also closes idle keep-alive connections (slowloris
//! peers and idle sockets cannot hold descriptors). Accept errors (the
//! descriptor table full, the peer gone) back off from 10 ms to 1 s and are
//! logged at most once a second, with how many there were.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Full;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Descriptors kept out of the connection cap: servers' pipes, the sandbox's
/// workers, log files and the listener itself.
pub const RESERVED_FDS: u64 = 64;

/// Connections past the cap answered 503 at once (more are closed unanswered).
const REFUSALS: usize = 64;

/// The shortest and longest pause after an accept error.
const BACKOFF: (Duration, Duration) = (Duration::from_millis(10), Duration::from_secs(1));

/// The connection cap: `configured`, but never more than the open-file limit
/// leaves after [`RESERVED_FDS`] (at least 1).
pub fn connection_cap(configured: usize) -> usize {
    let soft = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
        .map_or(u64::MAX, |(soft, _)| soft);
    let room = soft.saturating_sub(RESERVED_FDS).max(1);
    configured.min(usize::try_from(room).unwrap_or(usize::MAX))
}

/// What accepting produced: a connection within the cap (its permit held
/// while it lives), or nothing to serve this time.
pub enum Accepted {
    /// Serve it.
    Serve(TcpStream, std::net::SocketAddr, OwnedSemaphorePermit),
    /// Handled already (refused, or an error backed off from).
    Handled,
}

/// Accepts connections within a cap.
pub struct Acceptor {
    listener: TcpListener,
    slots: Arc<Semaphore>,
    refusals: Arc<Semaphore>,
    cap: usize,
    backoff: Duration,
    /// Errors since the last one logged, and when that was.
    unlogged: (u64, Option<Instant>),
}

impl Acceptor {
    /// Accepts on `listener`, at most `cap` connections at once.
    pub fn new(listener: TcpListener, cap: usize) -> Acceptor {
        Acceptor {
            listener,
            slots: Arc::new(Semaphore::new(cap)),
            refusals: Arc::new(Semaphore::new(REFUSALS)),
            cap,
            backoff: BACKOFF.0,
            unlogged: (0, None),
        }
    }

    /// Accepts one connection (waiting for one), refusing it past the cap.
    pub async fn next(&mut self) -> Accepted {
        let (stream, peer) = match self.listener.accept().await {
            Ok(x) => x,
            Err(e) => {
                self.failed(&e);
                tokio::time::sleep(self.backoff).await;
                self.backoff = (self.backoff * 2).min(BACKOFF.1);
                return Accepted::Handled;
            }
        };
        self.backoff = BACKOFF.0;
        match self.slots.clone().try_acquire_owned() {
            Ok(permit) => Accepted::Serve(stream, peer, permit),
            Err(_) => {
                self.refuse(stream);
                Accepted::Handled
            }
        }
    }

    /// Logs an accept error, at most once a second, with how many came since.
    fn failed(&mut self, e: &std::io::Error) {
        let (count, last) = &mut self.unlogged;
        *count += 1;
        if last.is_none_or(|t| t.elapsed() >= Duration::from_secs(1)) {
            tracing::warn!(error = %e, errors = *count, "accepting connections failed; backing off");
            *count = 0;
            *last = Some(Instant::now());
        }
    }

    /// Answers one connection past the cap with 503 and closes it (a few at a
    /// time, each given a second; more are closed unanswered).
    pub fn refuse(&self, stream: TcpStream) {
        let Ok(permit) = self.refusals.clone().try_acquire_owned() else {
            drop(stream);
            return;
        };
        let cap = self.cap;
        tokio::spawn(async move {
            let _permit = permit;
            let svc = hyper::service::service_fn(move |_req| async move {
                let body = serde_json::json!({
                    "jsonrpc": "2.0", "id": null,
                    "error": {"code": -32000, "message": format!("the gateway holds its most connections ({cap}); retry shortly")}
                })
                .to_string();
                let r = http::Response::builder()
                    .status(503)
                    .header(http::header::CONTENT_TYPE, "application/json")
                    .header(http::header::RETRY_AFTER, "1")
                    .header(http::header::CONNECTION, "close")
                    .body(Full::new(Bytes::from(body)))
                    .expect("a valid response");
                Ok::<_, std::convert::Infallible>(r)
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(Duration::from_secs(1))
                .keep_alive(false)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), svc);
            let _ = tokio::time::timeout(Duration::from_secs(2), conn).await;
        });
    }
}

/// Serves HTTP/1 (with upgrades) on one connection, plain or TLS, until it
/// closes: its headers due within `header_timeout` (also the keep-alive idle
/// limit).
pub async fn serve_connection<S, H>(stream: S, handler: H, header_timeout: Duration)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    H: hyper::service::HttpService<hyper::body::Incoming> + Send,
    H::Future: Send + 'static,
    H::ResBody: Send + 'static,
    <H::ResBody as hyper::body::Body>::Data: Send,
    <H::ResBody as hyper::body::Body>::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let io = hyper_util::rt::TokioIo::new(stream);
    let _ = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(header_timeout)
        .serve_connection(io, handler)
        .with_upgrades()
        .await;
}
