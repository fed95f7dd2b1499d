//! The worker side of the bridge: a job's `search`/`describe`/`call` become
//! requests on stdout, and their answers (read from stdin by the process's reader)
//! are delivered to the waiting job. Shared by the in-process worker (`child`) and
//! the forking one (`zygote`).

use std::collections::HashMap;
use std::fs::File;
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use crate::bridge::{Bridge, BridgeError, BridgeErrorCode, BridgeFuture};
use crate::encode::{decode, encode_err};
use crate::ipc::{self, BridgeOp, ToHost};

/// Where the answer to one bridge request goes.
pub(crate) enum Waiter {
    Sync(mpsc::SyncSender<String>),
    Async(tokio::sync::oneshot::Sender<String>),
}

pub(crate) use crate::ipc::Out;
pub(crate) type Waiters = Arc<Mutex<HashMap<u64, Waiter>>>;

/// Stdout as a file of its own (a duplicate descriptor), unbuffered: [`send`]
/// writes each message whole, so no buffer is ever half-written when a process
/// forks or dies.
pub(crate) fn stdout_file() -> std::io::Result<Out> {
    let fd = std::io::stdout().as_fd().try_clone_to_owned()?;
    Ok(Arc::new(Mutex::new(File::from(fd))))
}

/// Sends one message (one `write` of its whole line).
pub(crate) fn send(out: &Out, msg: &ToHost) {
    let mut out = out.lock().unwrap_or_else(|p| p.into_inner());
    // A broken pipe means the host is gone; the reader loop ends on EOF.
    let _ = ipc::send(&mut *out, msg);
}

/// Hands a bridge answer from the host to the request waiting for it.
pub(crate) fn deliver(waiters: &Waiters, req: u64, payload: String) {
    let waiter = waiters
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&req);
    match waiter {
        Some(Waiter::Sync(tx)) => drop(tx.try_send(payload)),
        Some(Waiter::Async(tx)) => drop(tx.send(payload)),
        None => {}
    }
}

/// A bridge that asks the host.
pub(crate) struct ProxyBridge {
    pub job: u64,
    pub out: Out,
    pub waiters: Waiters,
    pub next_req: Arc<AtomicU64>,
    /// Sync requests give up at this point (the host answers long before).
    pub deadline: Instant,
}

impl ProxyBridge {
    fn request(&self, op: BridgeOp, waiter: Waiter) -> u64 {
        let req = self.next_req.fetch_add(1, Ordering::SeqCst);
        self.waiters
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(req, waiter);
        send(
            &self.out,
            &ToHost::Request {
                job: self.job,
                req,
                op,
            },
        );
        req
    }

    /// The host's answer to a search or describe, as it encoded it (a result
    /// as `"1" + JSON`, or an encoded error): handed to the snippet unparsed.
    fn lookup(&self, op: BridgeOp) -> String {
        let (tx, rx) = mpsc::sync_channel(1);
        self.request(op, Waiter::Sync(tx));
        let wait = self.deadline.saturating_duration_since(Instant::now()) + Duration::from_secs(1);
        rx.recv_timeout(wait)
            .unwrap_or_else(|_| encode_err(BridgeErrorCode::Unavailable, "the host did not answer"))
    }
}

impl Bridge for ProxyBridge {
    fn search(&self, query: &str, limit: Option<u32>) -> Result<serde_json::Value, BridgeError> {
        decode(&self.lookup(BridgeOp::Search {
            query: query.to_owned(),
            limit,
        }))
    }

    fn describe(&self, id: &str) -> Result<serde_json::Value, BridgeError> {
        decode(&self.lookup(BridgeOp::Describe { id: id.to_owned() }))
    }

    /// The host's text, unparsed: encoded once there, parsed once in JS.
    fn search_encoded(&self, query: &str, limit: Option<u32>) -> Option<String> {
        Some(self.lookup(BridgeOp::Search {
            query: query.to_owned(),
            limit,
        }))
    }

    fn describe_encoded(&self, id: &str) -> Option<String> {
        Some(self.lookup(BridgeOp::Describe { id: id.to_owned() }))
    }

    fn call(&self, id: &str, args: serde_json::Value, cancel: CancellationToken) -> BridgeFuture {
        match serde_json::value::to_raw_value(&args) {
            Ok(raw) => self.call_json(id, raw, cancel),
            Err(e) => {
                let e = BridgeError::new(BridgeErrorCode::InvalidArgs, e.to_string());
                Box::pin(async move { Err(e) })
            }
        }
    }

    /// Passes the arguments on as the snippet sent them: the worker never
    /// parses them (its memory does not grow with what a snippet sends).
    fn call_json(
        &self,
        id: &str,
        args: Box<serde_json::value::RawValue>,
        cancel: CancellationToken,
    ) -> BridgeFuture {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let req = self.request(
            BridgeOp::Call {
                id: id.to_owned(),
                args,
            },
            Waiter::Async(tx),
        );
        let (out, waiters, job) = (self.out.clone(), self.waiters.clone(), self.job);
        Box::pin(async move {
            tokio::select! {
                payload = rx => match payload {
                    Ok(p) => decode(&p),
                    Err(_) => Err(BridgeError::new(BridgeErrorCode::Unavailable, "the host went away")),
                },
                _ = cancel.cancelled() => {
                    waiters.lock().unwrap_or_else(|p| p.into_inner()).remove(&req);
                    send(&out, &ToHost::CancelCall { job, req });
                    Err(BridgeError::new(BridgeErrorCode::Timeout, "the snippet ended before the tool answered"))
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_reads_both_encodings() {
        assert_eq!(decode("1[1,2]").unwrap(), serde_json::json!([1, 2]));
        let e = decode("0UNKNOWN_TOOL\nno such tool").unwrap_err();
        assert_eq!(e.code, BridgeErrorCode::UnknownTool);
        assert_eq!(e.message, "no such tool");
        assert_eq!(
            decode("0WHAT\nx").unwrap_err().code,
            BridgeErrorCode::Unavailable
        );
        let e =
            decode("2TOOL_ERROR\n{\"message\":\"m\",\"detail\":{\"content\":[1]}}").unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (BridgeErrorCode::ToolError, "m")
        );
        assert_eq!(e.detail.unwrap()["content"], serde_json::json!([1]));
    }

    /// A host's bridge whose search answers with a value; what the pool's host
    /// side does with it is what `pool/requests.rs` does.
    struct Host;

    impl Bridge for Host {
        fn search(&self, _: &str, _: Option<u32>) -> Result<serde_json::Value, BridgeError> {
            Ok(serde_json::json!({"hits": [{"id": "mcp:a:b", "description": "x\"y"}], "total": 1}))
        }
        fn describe(&self, _: &str) -> Result<serde_json::Value, BridgeError> {
            unreachable!()
        }
        fn call(&self, _: &str, _: serde_json::Value, _: CancellationToken) -> BridgeFuture {
            unreachable!()
        }
    }

    /// A proxy of job 1 writing to a buffer, with its waiters.
    fn proxy() -> (ProxyBridge, Arc<Mutex<Vec<u8>>>, Waiters) {
        let out: Arc<Mutex<Vec<u8>>> = Arc::default();
        let waiters: Waiters = Arc::default();
        let proxy = ProxyBridge {
            job: 1,
            out: out.clone(),
            waiters: waiters.clone(),
            next_req: Arc::default(),
            deadline: Instant::now() + Duration::from_secs(30),
        };
        (proxy, out, waiters)
    }

    #[test]
    fn a_search_answer_crosses_the_pipe_encoded_once_and_reaches_the_snippet_unparsed() {
        let (proxy, out, waiters) = proxy();
        let asking = std::thread::spawn(move || proxy.search_encoded("q", Some(3)));
        // The worker's request, as the host reads it.
        let line = loop {
            let buf = out.lock().unwrap().clone();
            if buf.ends_with(b"\n") {
                break buf;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let mut input = std::io::BufReader::new(&line[..]);
        let Some(ToHost::Request {
            req,
            op: BridgeOp::Search { query, limit },
            ..
        }) = ipc::recv(&mut input, ipc::MIN_LINE_CAP).unwrap()
        else {
            panic!("not a search request")
        };
        assert_eq!((query.as_str(), limit), ("q", Some(3)));
        // The host encodes the bridge's value once (the pool's `handle_request`).
        assert_eq!(Host.search_encoded(&query, limit), None);
        let value = Host.search(&query, limit).unwrap();
        let encoded = crate::isolate::ops::encode_lookup(Ok(Ok(value.clone())), 1 << 20, "x");
        assert_eq!(encoded, format!("1{value}"));
        // Over the pipe: the result is part of the line, not a string inside it.
        let mut wire = Vec::new();
        let reply = ipc::ToChild::Reply {
            req,
            answer: ipc::Answer::from_encoded(encoded.clone()),
        };
        ipc::send(&mut wire, &reply).unwrap();
        let mut input = std::io::BufReader::new(&wire[..]);
        let Some(ipc::ToChild::Reply { req, answer }) =
            ipc::recv(&mut input, ipc::MIN_LINE_CAP).unwrap()
        else {
            panic!("not a reply")
        };
        deliver(&waiters, req, answer.into_encoded());
        // The snippet's op gets the host's text byte for byte: no value was
        // made of it in the worker and nothing encoded it again (JS parses it once).
        let got = asking.join().unwrap().expect("the proxy hands the text on");
        assert_eq!(got, encoded);
    }

    #[test]
    fn text_that_is_not_canonical_json_passes_the_proxy_unchanged() {
        // A re-encode would reorder keys and drop the spaces.
        let text = "1{\"z\": 1,  \"a\": [ 1 ]}";
        let (proxy, _out, waiters) = proxy();
        let asking = std::thread::spawn(move || proxy.describe_encoded("mcp:a:b"));
        while waiters.lock().unwrap().is_empty() {
            std::thread::sleep(Duration::from_millis(5));
        }
        let req = *waiters.lock().unwrap().keys().next().unwrap();
        deliver(&waiters, req, text.to_string());
        assert_eq!(asking.join().unwrap().as_deref(), Some(text));
    }
}
