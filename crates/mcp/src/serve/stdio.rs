//! The gateway over stdio: one client for the gateway's whole life, on the
//! process's stdin and stdout.

use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use tokio_util::sync::CancellationToken;

use super::{stop as stop_gateway, stop_on_signal};
use crate::gateway::Gateway;

type Reader = Box<dyn tokio::io::AsyncRead + Send + Unpin>;
type Writer = Box<dyn tokio::io::AsyncWrite + Send + Unpin>;

/// stdin and stdout for the protocol. When they are pipes (how MCP clients start a
/// server) they are read and written from the runtime's own thread, non-blocking;
/// tokio's `stdin()`/`stdout()` hand every read and write to a blocking-pool thread,
/// two thread wake-ups per message that cost about 0.4 ms each after an idle pause
/// (measured with `toolsearch-lab bench-gateway --pause-ms 20`). Anything else (a
/// terminal, a file, a socket) keeps tokio's blocking stdio.
fn stdio_pipes() -> (Reader, Writer) {
    use std::os::fd::AsFd;
    use tokio::net::unix::pipe;
    let dup = |fd: std::os::fd::BorrowedFd<'_>| fd.try_clone_to_owned().map(std::fs::File::from);
    let reader: Reader = match dup(std::io::stdin().as_fd()).and_then(pipe::Receiver::from_file) {
        Ok(r) => Box::new(r),
        Err(_) => Box::new(tokio::io::stdin()),
    };
    let writer: Writer = match dup(std::io::stdout().as_fd()).and_then(pipe::Sender::from_file) {
        Ok(w) => Box::new(w),
        Err(_) => Box::new(tokio::io::stdout()),
    };
    (reader, writer)
}

/// Serves one MCP session on stdin/stdout until stdin closes or a signal comes;
/// then stops the servers. What cannot be read is answered (see
/// [`crate::serve::lines`]); stdin's end stops the calls in flight at once
/// (their client is gone).
///
/// # Errors
/// The client's `initialize` failed.
pub async fn stdio(gw: Arc<Gateway>) -> anyhow::Result<()> {
    gw.fleet().serve_one_client();
    let signal = stop_on_signal(&CancellationToken::new());
    let session = gw.session();
    let served = tokio::select! {
        r = session.serve(super::lines::transport(stdio_pipes(), {
            let gw = gw.clone();
            move || gw.begin_stop()
        })) => r,
        () = signal.cancelled() => {
            gw.shutdown().await;
            return Ok(());
        }
    };
    let running = match served {
        Ok(r) => r,
        Err(e) => {
            gw.shutdown().await;
            return Err(anyhow::anyhow!("the MCP client did not initialize: {e}"));
        }
    };
    let quit = running.cancellation_token();
    let waiting = running.waiting();
    tokio::pin!(waiting);
    tokio::select! {
        _ = &mut waiting => gw.shutdown().await,
        () = signal.cancelled() => {
            stop_gateway(&gw, || quit.cancel()).await;
            let _ = tokio::time::timeout(Duration::from_secs(1), waiting).await;
        }
    }
    Ok(())
}
