//! Serving the gateway: over stdio (one session) or streamable HTTP (many), and
//! stopping cleanly on stdin EOF, SIGTERM or SIGINT: every downstream server and
//! everything it started is stopped before the process exits.

mod accept;
mod admin;
mod admin_api;
mod admit;
mod audit;
mod http;
pub mod lines;
mod message;
mod origin;
mod pins;
pub mod protocol;
mod reload;
mod shell;
mod stdio;
mod tls;

pub use admin::{check_token, Admin};
pub use http::http;
pub use reload::{Reloaded, Reloader, SETTLE, WATCH_EVERY};
pub use stdio::stdio;

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::gateway::Gateway;

/// A token fired by SIGTERM or SIGINT, or with `parent`. The signals are
/// listened for from this call on (a signal between two waits is never
/// missed); call it in the runtime.
pub fn stop_on_signal(parent: &CancellationToken) -> CancellationToken {
    use tokio::signal::unix::{signal, SignalKind};
    let token = parent.child_token();
    let (term, int) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    );
    let fire = token.clone();
    tokio::spawn(async move {
        let wait = |s: std::io::Result<tokio::signal::unix::Signal>| async move {
            match s {
                Ok(mut s) => {
                    s.recv().await;
                }
                Err(_) => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            () = wait(term) => fire.cancel(),
            () = wait(int) => fire.cancel(),
            () = fire.cancelled() => {}
        }
    });
    token
}

/// How long the calls in flight when the gateway stops may take to be
/// answered (they are cancelled first: see [`Gateway::begin_stop`]).
pub const DRAIN: Duration = Duration::from_secs(2);

/// How long answers written by the last calls may take to leave, before the
/// transports close.
const FLUSH: Duration = Duration::from_millis(100);

/// The stop of a serving gateway: calls in flight are cancelled and answered
/// with an error, then the transports close (`close`), then the servers stop.
async fn stop(gw: &Gateway, close: impl FnOnce()) {
    gw.begin_stop();
    if !gw.drain(DRAIN).await {
        tracing::warn!(
            "calls were still being answered {} ms after the stop began",
            DRAIN.as_millis()
        );
    }
    tokio::time::sleep(FLUSH).await;
    close();
    gw.shutdown().await;
}
