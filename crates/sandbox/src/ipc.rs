//! Messages between the host and a sandbox worker process: one JSON object per
//! line on the child's stdin (host → child) and stdout (child → host).
//!
//! Bridge results travel as the same encoded strings the ops hand to JS
//! (`"1" + JSON` or `"0" + CODE + "\n" + message`), so the child decodes them
//! exactly as an in-process bridge would.

use std::io::{BufRead, Write};

use serde::{Deserialize, Serialize};

use crate::limits::Limits;
use crate::result::ExecResult;

/// Host → child.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub(crate) enum ToChild {
    /// The first message: the pool's limits (the template isolate is built
    /// for them) and whether to apply the OS layer (`harden.rs`).
    Config {
        limits: Limits,
        harden: bool,
        /// Fork a copy of a template isolate per job (Linux; `zygote.rs`).
        fork: bool,
    },
    /// Run a self-test of the OS layer where a job would run (hidden API:
    /// `Pool::self_test`); the process must die for a forbidden call.
    SelfTest { job: u64, what: String },
    /// Run a snippet.
    Job {
        job: u64,
        code: String,
        limits: Limits,
    },
    /// The answer to a bridge request.
    Reply { req: u64, payload: String },
    /// Finish the running job (if any) and exit.
    Shutdown,
}

/// The bridge operation a child asks the host to perform.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub(crate) enum BridgeOp {
    Search { query: String, limit: Option<u32> },
    Describe { id: String },
    Call { id: String, args: serde_json::Value },
}

/// Child → host.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub(crate) enum ToHost {
    /// The child is up (its isolate is pre-warmed).
    Ready {
        pid: u32,
        /// The worker forks a fresh copy of one template isolate per job (see
        /// `zygote.rs`), so it does not accumulate engine memory.
        #[serde(default)]
        forks: bool,
    },
    /// A bridge request of the running job.
    Request {
        job: u64,
        req: u64,
        #[serde(flatten)]
        op: BridgeOp,
    },
    /// The snippet no longer waits for this call: cancel it.
    CancelCall { req: u64 },
    /// The job's result.
    Done { job: u64, result: Box<ExecResult> },
}

/// Writes one message as a single `write_all` of its whole line, and flushes: on
/// an unbuffered pipe no reader sees half a message from a writer that stops
/// (or is killed) between pieces.
pub(crate) fn send<T: Serialize>(out: &mut impl Write, msg: &T) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(msg)?;
    line.push(b'\n');
    out.write_all(&line)?;
    out.flush()
}

/// Reads one message; `Ok(None)` at end of input.
pub(crate) fn recv<T: for<'de> Deserialize<'de>>(
    input: &mut impl BufRead,
) -> std::io::Result<Option<T>> {
    let mut line = String::new();
    if input.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    serde_json::from_str(&line)
        .map(Some)
        .map_err(std::io::Error::other)
}

/// Whether a [`recv`] error is one bad line (not JSON, not UTF-8, or the tail of
/// a message another reader took the start of) rather than a broken input.
pub(crate) fn is_malformed(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::Other | std::io::ErrorKind::InvalidData
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_one_per_line() {
        let mut buf = Vec::new();
        send(
            &mut buf,
            &ToHost::Request {
                job: 1,
                req: 2,
                op: BridgeOp::Search {
                    query: "a\nb".into(),
                    limit: Some(3),
                },
            },
        )
        .unwrap();
        send(&mut buf, &ToHost::CancelCall { req: 2 }).unwrap();
        assert_eq!(buf.iter().filter(|&&b| b == b'\n').count(), 2);
        let mut input = std::io::BufReader::new(&buf[..]);
        match recv::<ToHost>(&mut input).unwrap() {
            Some(ToHost::Request {
                job: 1,
                req: 2,
                op:
                    BridgeOp::Search {
                        query,
                        limit: Some(3),
                    },
            }) => {
                assert_eq!(query, "a\nb")
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            recv::<ToHost>(&mut input).unwrap(),
            Some(ToHost::CancelCall { req: 2 })
        ));
        assert!(recv::<ToHost>(&mut input).unwrap().is_none());
    }
}
