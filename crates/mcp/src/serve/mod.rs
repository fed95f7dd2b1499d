//! Serving the gateway: over stdio (one session) or streamable HTTP (many), and
//! stopping cleanly on stdin EOF, SIGTERM or SIGINT: every downstream server and
//! everything it started is stopped before the process exits.

mod http;
mod stdio;

pub use http::http;
pub use stdio::stdio;

/// Resolves on SIGTERM or SIGINT.
pub async fn shutdown_signal() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = term => {}
    }
}
