//! Messages between the host and a sandbox worker process: one JSON object per
//! line on the child's stdin (host → child) and stdout (child → host), each line
//! at most [`line_cap`] bytes (a longer one is refused in pieces of that size,
//! so a runaway writer never makes the reader buffer it).
//!
//! A bridge result travels as raw JSON inside the line ([`Answer::Ok`]), not as
//! a JSON string holding JSON: no escaping on the way, one parse at the end.
//! An error travels as a typed [`BridgeError`] ([`Answer::Err`]); the child
//! hands the ops its encoded form (`encode.rs`), as an in-process bridge's.
//!
//! **The framing rule.** Every value a line carries (a return value, call
//! arguments, a tool result, an error's detail) was checked where it was
//! produced: at most [`MAX_JSON_DEPTH`](crate::MAX_JSON_DEPTH) levels deep and
//! within its size limit, so with the envelope's few levels every line stays
//! under serde_json's nesting limit and [`line_cap`]. A line that breaks the
//! rule anyway (a compromised or dying worker: too long, too deep, not UTF-8,
//! half written) is never waited on: the host kills and replaces that worker
//! and answers its job with a `crashed` error; a worker that cannot read the
//! host's line exits (the host sees its output end, the same path).

use std::io::{BufRead, Read, Write};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::bridge::{BridgeError, BridgeErrorCode};
use crate::encode::{decode_err, encode_bridge_err};
use crate::limits::Limits;
use crate::result::ExecResult;

/// Host → child. Externally tagged (`{"job": {..}}`): raw JSON inside an
/// internally tagged enum would be buffered and re-read by serde.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
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
    Reply { req: u64, answer: Answer },
    /// The job is waiting for a person (an approval) from now on (`true`), or
    /// no longer (`false`): its deadline counts only its own time (`clock.rs`).
    Pause { job: u64, paused: bool },
    /// Finish the running job (if any) and exit.
    Shutdown,
}

/// A bridge answer: the result as raw JSON, or the error.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Answer {
    /// The JSON the bridge returned (already capped by the host).
    Ok(Box<RawValue>),
    /// The bridge's error (its detail already capped by the host).
    Err(BridgeError),
}

impl Answer {
    /// From the encoded string the ops produce (`"1" + JSON` for a result).
    pub(crate) fn from_encoded(payload: String) -> Answer {
        match payload.strip_prefix('1') {
            Some(json) => match RawValue::from_string(json.to_owned()) {
                Ok(raw) => Answer::Ok(raw),
                Err(e) => Answer::Err(BridgeError::new(
                    BridgeErrorCode::Unavailable,
                    format!("the bridge answer is not JSON: {e}"),
                )),
            },
            None => Answer::Err(decode_err(&payload)),
        }
    }

    /// Back to the encoded string the child's bridge decodes.
    pub(crate) fn into_encoded(self) -> String {
        match self {
            Answer::Ok(raw) => {
                let json = raw.get();
                let mut s = String::with_capacity(json.len() + 1);
                s.push('1');
                s.push_str(json);
                s
            }
            // The host capped its detail already.
            Answer::Err(e) => encode_bridge_err(&e, usize::MAX),
        }
    }
}

/// The bridge operation a child asks the host to perform. Externally tagged,
/// as every message here: the arguments stay raw JSON text.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum BridgeOp {
    Search {
        query: String,
        limit: Option<u32>,
    },
    Describe {
        id: String,
    },
    /// The arguments as the snippet sent them (an object within the argument
    /// size and [`MAX_JSON_DEPTH`](crate::MAX_JSON_DEPTH) limits), never parsed
    /// in the worker.
    Call {
        id: String,
        args: Box<RawValue>,
    },
}

/// Child → host.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ToHost {
    /// The child is up (its isolate is pre-warmed).
    Ready {
        pid: u32,
        /// The worker forks a fresh copy of one template isolate per job (see
        /// `zygote.rs`), so it does not accumulate engine memory.
        #[serde(default)]
        forks: bool,
    },
    /// The worker took the job: from here on a death of the worker is the
    /// job's (before it, the job is run again on a fresh worker).
    Started { job: u64 },
    /// A bridge request of the running job.
    Request { job: u64, req: u64, op: BridgeOp },
    /// The snippet no longer waits for this call: cancel it.
    CancelCall { job: u64, req: u64 },
    /// The job's result.
    Done { job: u64, result: Box<ExecResult> },
}

/// Where a worker's messages to the host go (its stdout, or a test's pipe),
/// written one whole message per `write`.
pub(crate) type Out = std::sync::Arc<std::sync::Mutex<dyn Write + Send>>;

/// Both directions of a worker's channel to its host: where it reads the
/// host's lines and where it writes its own. The worker process uses its stdin
/// and stdout; the protocol's tests use an in-process pipe.
pub(crate) trait Transport {
    /// The host's lines.
    type In: BufRead + Send + 'static;
    /// Splits the channel.
    fn into_parts(self) -> (Self::In, Out);
}

impl<R: BufRead + Send + 'static> Transport for (R, Out) {
    type In = R;
    fn into_parts(self) -> (R, Out) {
        self
    }
}

/// Writes one message as a single `write_all` of its whole line, and flushes: on
/// an unbuffered pipe no reader sees half a message from a writer that stops
/// (or is killed) between pieces.
pub(crate) fn send<T: Serialize>(out: &mut (impl Write + ?Sized), msg: &T) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(msg)?;
    line.push(b'\n');
    out.write_all(&line)?;
    out.flush()
}

/// The longest line either side accepts for jobs under `limits`: everything a
/// message can carry (source, result, logs, arguments, a tool's result), at the
/// worst JSON escaping (a control character becomes six bytes), plus room for
/// the envelope; never under [`MIN_LINE_CAP`].
pub(crate) fn line_cap(limits: &Limits) -> usize {
    let payload = limits
        .source_bytes
        .saturating_add(limits.result_bytes)
        .saturating_add(limits.log_bytes)
        .saturating_add(limits.arg_bytes)
        .saturating_add(limits.tool_result_bytes);
    payload
        .saturating_mul(6)
        .saturating_add(64 << 10)
        .max(MIN_LINE_CAP)
}

/// The smallest line cap (the first message, before the limits are known).
pub(crate) const MIN_LINE_CAP: usize = 16 << 20;

/// Reads one message of at most `cap` bytes; `Ok(None)` at end of input. A
/// longer line is an `InvalidData` error for each `cap`-sized piece of it (see
/// [`is_malformed`]), so the reader never holds more than `cap` bytes and comes
/// back in step at the next line.
pub(crate) fn recv<T: for<'de> Deserialize<'de>>(
    input: &mut impl BufRead,
    cap: usize,
) -> std::io::Result<Option<T>> {
    let mut line = Vec::new();
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    if input.by_ref().take(limit).read_until(b'\n', &mut line)? == 0 {
        return Ok(None);
    }
    if line.len() > cap && line.last() != Some(&b'\n') {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a message longer than {cap} bytes"),
        ));
    }
    serde_json::from_slice(&line)
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
        send(&mut buf, &ToHost::CancelCall { job: 1, req: 2 }).unwrap();
        assert_eq!(buf.iter().filter(|&&b| b == b'\n').count(), 2);
        let mut input = std::io::BufReader::new(&buf[..]);
        match recv::<ToHost>(&mut input, MIN_LINE_CAP).unwrap() {
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
            recv::<ToHost>(&mut input, MIN_LINE_CAP).unwrap(),
            Some(ToHost::CancelCall { job: 1, req: 2 })
        ));
        assert!(recv::<ToHost>(&mut input, MIN_LINE_CAP).unwrap().is_none());
    }

    #[test]
    fn a_result_travels_as_raw_json_and_comes_back_encoded_as_it_left() {
        let encoded = r#"1{"a":"x\"y","n":[1,2]}"#.to_string();
        let mut buf = Vec::new();
        let reply = ToChild::Reply {
            req: 7,
            answer: Answer::from_encoded(encoded.clone()),
        };
        send(&mut buf, &reply).unwrap();
        let line = String::from_utf8(buf.clone()).unwrap();
        // The result is part of the line's JSON, not a string inside it.
        assert!(line.contains(r#""ok":{"a":"x\"y","n":[1,2]}"#), "{line}");
        let mut input = std::io::BufReader::new(&buf[..]);
        match recv::<ToChild>(&mut input, MIN_LINE_CAP).unwrap() {
            Some(ToChild::Reply { req: 7, answer }) => assert_eq!(answer.into_encoded(), encoded),
            other => panic!("{other:?}"),
        }
        let err = "0UNKNOWN_TOOL\nno such tool".to_string();
        assert_eq!(Answer::from_encoded(err.clone()).into_encoded(), err);
        // An error crosses typed, its detail as JSON (not text holding JSON).
        let detailed = r#"2TOOL_ERROR
{"message":"it failed","detail":{"content":[{"text":"boom","type":"text"}]}}"#;
        let mut buf = Vec::new();
        let answer = Answer::from_encoded(detailed.to_string());
        send(&mut buf, &ToChild::Reply { req: 8, answer }).unwrap();
        let line = String::from_utf8(buf.clone()).unwrap();
        assert!(line.contains(r#""err":{"code":"TOOL_ERROR","message":"it failed","detail":{"content":[{"text":"boom""#), "{line}");
        let mut input = std::io::BufReader::new(&buf[..]);
        match recv::<ToChild>(&mut input, MIN_LINE_CAP).unwrap() {
            Some(ToChild::Reply { req: 8, answer }) => assert_eq!(answer.into_encoded(), detailed),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_overlong_line_is_refused_in_capped_pieces_and_the_next_line_still_reads() {
        let cap = 64;
        let mut buf = vec![b'x'; cap * 3 + 5];
        buf.push(b'\n');
        send(&mut buf, &ToHost::CancelCall { job: 1, req: 9 }).unwrap();
        let mut input = std::io::BufReader::new(&buf[..]);
        let mut refused = 0;
        loop {
            match recv::<ToHost>(&mut input, cap) {
                Err(e) => {
                    assert!(is_malformed(&e), "{e}");
                    refused += 1;
                    assert!(refused < 10, "never came back in step");
                }
                Ok(Some(ToHost::CancelCall { job: 1, req: 9 })) => break,
                other => panic!("{other:?}"),
            }
        }
        assert!(refused >= 3, "{refused}");
        assert!(recv::<ToHost>(&mut input, cap).unwrap().is_none());
    }
}
