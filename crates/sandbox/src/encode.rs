//! The text form of a bridge answer, as the ops hand it to JS (`"1" + JSON`
//! for a result; `"0" + CODE + "\n" + message`, or `"2"` with the error's
//! detail) and as the pool's host writes it for a worker. Encoded once where
//! the answer is made, decoded only where a value is needed.

use std::io::Write;

use crate::bridge::{BridgeError, BridgeErrorCode};
use crate::limits::MAX_JSON_DEPTH;

pub(crate) fn encode_err(code: BridgeErrorCode, message: &str) -> String {
    let mut s = String::with_capacity(message.len() + 16);
    s.push('0');
    s.push_str(code.as_str());
    s.push('\n');
    s.push_str(message);
    s
}

/// Encodes an error: `"0" + CODE + "\n" + message`, or with its detail
/// `"2" + CODE + "\n" + {"message", "detail"}` when that fits in `cap` bytes.
pub(crate) fn encode_bridge_err(e: &BridgeError, cap: usize) -> String {
    let msg = crate::util::truncate(&e.message, 2000);
    let Some(detail) = &e.detail else {
        return encode_err(e.code, msg);
    };
    let body = serde_json::json!({"message": msg, "detail": detail});
    match encode_ok(&body, cap, "the error detail") {
        Ok(json) => {
            let mut s = String::with_capacity(json.len() + 16);
            s.push('2');
            s.push_str(e.code.as_str());
            s.push('\n');
            s.push_str(&json[1..]);
            s
        }
        Err(_) => encode_err(
            e.code,
            &format!("{msg} (the tool's error content is larger than {cap} bytes and was dropped)"),
        ),
    }
}

/// A `Write` that fails once more than `cap` bytes were written.
struct CappedWriter {
    buf: Vec<u8>,
    cap: usize,
}

impl Write for CappedWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if self.buf.len() + data.len() > self.cap {
            return Err(std::io::Error::other("too large"));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Serializes a bridge result as `"1" + JSON`, refusing results larger than
/// `cap` bytes without building them in full.
pub(crate) fn encode_ok(v: &serde_json::Value, cap: usize, what: &str) -> Result<String, String> {
    let mut w = CappedWriter {
        buf: Vec::with_capacity(256),
        cap: cap.saturating_add(1),
    };
    w.buf.push(b'1');
    match serde_json::to_writer(&mut w, v) {
        Ok(()) if crate::util::json_deeper_than(&w.buf, MAX_JSON_DEPTH) => Err(encode_err(
            BridgeErrorCode::Limit,
            &format!(
                "{what} nests arrays and objects more than {MAX_JSON_DEPTH} levels deep and was dropped"
            ),
        )),
        Ok(()) => String::from_utf8(w.buf)
            .map_err(|_| encode_err(BridgeErrorCode::ToolError, "invalid UTF-8")),
        Err(_) => Err(encode_err(
            BridgeErrorCode::Limit,
            &format!("{what} is larger than {cap} bytes of JSON and was dropped; ask for less"),
        )),
    }
}

/// Turns an encoded bridge answer back into what a [`Bridge`] returns.
pub(crate) fn decode(payload: &str) -> Result<serde_json::Value, BridgeError> {
    if let Some(json) = payload.strip_prefix('1') {
        return serde_json::from_str(json).map_err(|e| {
            BridgeError::new(
                BridgeErrorCode::Unavailable,
                format!("bad answer from the host: {e}"),
            )
        });
    }
    Err(decode_err(payload))
}

/// The error an encoded answer that is not a result carries
/// (`"0" + CODE + "\n" + message`, or `"2"` with `{"message", "detail"}`).
pub(crate) fn decode_err(payload: &str) -> BridgeError {
    let with_detail = payload.starts_with('2');
    let body = payload
        .strip_prefix('0')
        .or_else(|| payload.strip_prefix('2'))
        .unwrap_or(payload);
    let (code, message) = body.split_once('\n').unwrap_or(("UNAVAILABLE", body));
    let code = BridgeErrorCode::from_str(code).unwrap_or(BridgeErrorCode::Unavailable);
    if with_detail {
        // `{"message", "detail"}`, as `ops::encode_bridge_err` wrote it.
        let parsed: serde_json::Value = serde_json::from_str(message).unwrap_or_default();
        let mut e = BridgeError::new(code, parsed["message"].as_str().unwrap_or(message));
        if let Some(detail) = parsed.get("detail").and_then(|d| d.as_object()) {
            e = e.with_detail(detail.clone());
        }
        return e;
    }
    BridgeError::new(code, message)
}
