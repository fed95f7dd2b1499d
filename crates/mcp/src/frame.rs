//! Newline-delimited JSON-RPC, read with bounds: the framing of stdio (both
//! the gateway's own and its stdio servers') and of in-process links.
//!
//! rmcp's line codec drops what it cannot read without a word: a line over
//! 16 MiB, one nested past serde's recursion limit, one with a lone surrogate
//! escape (`"\ud83d"`, what a model emits when it cuts an emoji). Its peer
//! then waits for an answer that never comes. Here every line is read
//! whole up to a cap (past it the rest is skipped while its top-level `id` is
//! still found) and lone surrogates become U+FFFD; [`bound_nesting`] empties
//! what is nested past [`MAX_NESTING`] where the reader chooses to (a listing)
//! rather than refuse (a result), so that each line becomes a message or an
//! error its reader can answer.

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

/// The most levels of nesting kept in one message; a container at this level
/// that holds more is emptied (well under serde_json's recursion limit of 128; a tool's schema sits 5
/// containers down in a `tools/list` answer, and the catalog's own limit
/// is 64 inside the schema, where it reports what it cut).
pub const MAX_NESTING: usize = 100;

/// One line read from the stream.
#[derive(Debug)]
pub enum Frame {
    /// A line within the cap.
    Line {
        /// Its bytes (no newline), lone surrogates repaired.
        bytes: Vec<u8>,
    },
    /// A line longer than the cap.
    TooLong {
        /// Its length in bytes.
        len: usize,
        /// Its top-level `id` (a string or number), when it had one.
        id: Option<Value>,
    },
}

/// Writes each line sent (a newline added, flushed) to `writer` from a task
/// of its own, until every sender is gone or a write fails; then `writer` is
/// dropped (for a child's stdin: its end of input).
pub fn line_writer<W: AsyncWrite + Send + Unpin + 'static>(
    writer: W,
    queue: usize,
) -> mpsc::Sender<Vec<u8>> {
    let (tx, mut rx) = mpsc::channel::<Vec<u8>>(queue);
    tokio::spawn(async move {
        let mut writer = writer;
        while let Some(mut line) = rx.recv().await {
            line.push(b'\n');
            if writer.write_all(&line).await.is_err() || writer.flush().await.is_err() {
                break;
            }
        }
    });
    tx
}

/// The sending half of a transport: each message is passed to `note` (the
/// transport's bookkeeping), serialized once and queued for `lines` (see
/// [`line_writer`]); a closed queue is a broken pipe.
pub fn json_sink<M, F>(
    lines: mpsc::Sender<Vec<u8>>,
    note: F,
) -> std::pin::Pin<Box<dyn futures::Sink<M, Error = std::io::Error> + Send>>
where
    M: serde::Serialize + Send + 'static,
    F: FnMut(&M) + Send + 'static,
{
    Box::pin(futures::sink::unfold(
        (lines, note),
        |(lines, mut note), msg: M| async move {
            note(&msg);
            let line = serde_json::to_vec(&msg).map_err(std::io::Error::other)?;
            lines
                .send(line)
                .await
                .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))?;
            Ok((lines, note))
        },
    ))
}

/// Reads one line of at most `cap` bytes; `None` at the end of the stream.
///
/// # Errors
/// The stream failed.
pub async fn read_frame<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    cap: usize,
) -> std::io::Result<Option<Frame>> {
    let mut line: Vec<u8> = Vec::new();
    let mut scan: Option<IdScan> = None;
    let mut len = 0usize;
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            // End of stream: a last line without a newline still counts.
            if len == 0 {
                return Ok(None);
            }
            break;
        }
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], i + 1),
            None => (buf, buf.len()),
        };
        len += chunk.len();
        match &mut scan {
            Some(s) => s.feed(chunk),
            None if len > cap => {
                let mut s = IdScan::default();
                s.feed(&line);
                s.feed(chunk);
                line = Vec::new();
                scan = Some(s);
            }
            None => line.extend_from_slice(chunk),
        }
        let ended = done > chunk.len();
        reader.consume(done);
        if ended {
            break;
        }
    }
    if let Some(s) = scan {
        return Ok(Some(Frame::TooLong { len, id: s.id() }));
    }
    Ok(Some(Frame::Line {
        bytes: repair_surrogates(line),
    }))
}

/// Finds a JSON object's top-level `"id"` value while its text streams by,
/// holding only that value (capped) and the key being read.
#[derive(Default)]
struct IdScan {
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// The top-level key being read, or the last one read.
    key: Vec<u8>,
    reading_key: bool,
    expecting_key: bool,
    /// The value of `id` being captured (depth > 0 within it is allowed).
    value: Option<Vec<u8>>,
    capturing: bool,
    done: Option<Vec<u8>>,
}

/// The longest `id` kept (ids are numbers or short strings).
const MAX_ID_BYTES: usize = 256;

impl IdScan {
    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.step(b);
        }
    }

    fn step(&mut self, b: u8) {
        if self.capturing {
            let top = self.depth == 1 && !self.in_string;
            if top && (b == b',' || b == b'}') {
                self.capturing = false;
                self.done = self.value.take();
            } else if let Some(v) = &mut self.value {
                if v.len() < MAX_ID_BYTES {
                    v.push(b);
                }
            }
        }
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                self.reading_key = false;
            } else if self.reading_key && self.key.len() < 16 {
                self.key.push(b);
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.expecting_key {
                    self.key.clear();
                    self.reading_key = true;
                    self.expecting_key = false;
                }
            }
            b'{' | b'[' => {
                self.depth += 1;
                if self.depth == 1 {
                    self.expecting_key = b == b'{';
                }
            }
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            b',' if self.depth == 1 => self.expecting_key = true,
            b':' if self.depth == 1 && self.key == b"id" && self.done.is_none() => {
                self.capturing = true;
                self.value = Some(Vec::new());
            }
            _ => {}
        }
    }

    fn id(self) -> Option<Value> {
        let raw = self.done?;
        serde_json::from_slice::<Value>(&raw)
            .ok()
            .filter(|v| v.is_string() || v.is_number())
    }
}

/// Bounds nesting to `max` levels: a container at level `max` that holds more
/// containers is emptied (`{}` or `[]`); says whether any was. Strings are respected; the input
/// need not be valid JSON (what is not stays what it was, for the parser to
/// refuse).
pub fn bound_nesting(line: Vec<u8>, max: usize) -> (Vec<u8>, bool) {
    // Fast path: most lines are shallow.
    if !too_deep(&line, max) {
        return (line, false);
    }
    let mut out = Vec::with_capacity(line.len());
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    // While skipping a cut container: the depth at which it ends.
    let mut skip_to: Option<usize> = None;
    for &b in &line {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            if skip_to.is_none() {
                out.push(b);
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth >= max && skip_to.is_none() {
                    skip_to = Some(depth - 1);
                    out.extend_from_slice(if b == b'{' { b"{}" } else { b"[]" });
                    continue;
                }
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if skip_to == Some(depth) {
                    skip_to = None;
                    continue;
                }
            }
            _ => {}
        }
        if skip_to.is_none() {
            out.push(b);
        }
    }
    (out, true)
}

/// Whether JSON text nests containers more than `max` levels deep (strings
/// respected; one pass, nothing allocated).
pub fn too_deep(line: &[u8], max: usize) -> bool {
    toolsearch_sandbox::json_deeper_than(line, max)
}

/// The top-level `id` of a JSON object's text (a string or number), found
/// without parsing it (the text may be too deep or too large to).
pub fn top_level_id(line: &[u8]) -> Option<Value> {
    let mut scan = IdScan::default();
    scan.feed(line);
    scan.id()
}

/// Replaces each `\uD800`-`\uDFFF` escape that is not half of a valid pair by
/// `\uFFFD` (serde_json refuses the whole line otherwise).
pub fn repair_surrogates(line: Vec<u8>) -> Vec<u8> {
    if !line
        .windows(3)
        .any(|w| w[0] == b'\\' && w[1] == b'u' && matches!(w[2], b'd' | b'D'))
    {
        return line;
    }
    let hex = |s: &[u8]| -> Option<u16> {
        std::str::from_utf8(s)
            .ok()
            .and_then(|s| u16::from_str_radix(s, 16).ok())
    };
    // The code unit of a `\uXXXX` escape starting at `i`, if there is one.
    let unit = |i: usize| -> Option<u16> {
        (line.get(i) == Some(&b'\\') && line.get(i + 1) == Some(&b'u'))
            .then(|| line.get(i + 2..i + 6).and_then(hex))
            .flatten()
    };
    let mut out = Vec::with_capacity(line.len());
    let (mut i, mut in_string) = (0, false);
    while i < line.len() {
        let b = line[i];
        if !in_string {
            in_string = b == b'"';
            out.push(b);
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                in_string = false;
                out.push(b);
                i += 1;
            }
            b'\\' => match unit(i) {
                Some(hi @ 0xD800..=0xDBFF) if matches!(unit(i + 6), Some(0xDC00..=0xDFFF)) => {
                    let _ = hi;
                    out.extend_from_slice(&line[i..i + 12]);
                    i += 12;
                }
                Some(0xD800..=0xDFFF) => {
                    out.extend_from_slice(b"\\uFFFD");
                    i += 6;
                }
                _ => {
                    // Any other escape: copy it and the escaped byte whole.
                    out.push(b);
                    if let Some(&n) = line.get(i + 1) {
                        out.push(n);
                    }
                    i += 2;
                }
            },
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn frames(input: &[u8], cap: usize) -> Vec<Frame> {
        let mut r = tokio::io::BufReader::with_capacity(7, input);
        let mut out = Vec::new();
        while let Some(f) = read_frame(&mut r, cap).await.unwrap() {
            out.push(f);
        }
        out
    }

    #[tokio::test]
    async fn lines_over_the_cap_keep_their_id_wherever_it_is() {
        let big = "x".repeat(100);
        let input = format!(
            "{{\"id\":7,\"result\":\"{big}\"}}\n{{\"result\":{{\"id\":1,\"a\":[\"{big}\"]}},\"id\":\"s-1\"}}\n[{{\"id\":3}},\"{big}\"]\n{{\"ok\":1}}\n"
        );
        let f = frames(input.as_bytes(), 50).await;
        assert_eq!(f.len(), 4, "{f:?}");
        assert!(matches!(&f[0], Frame::TooLong { id: Some(v), .. } if *v == serde_json::json!(7)));
        assert!(
            matches!(&f[1], Frame::TooLong { id: Some(v), .. } if *v == serde_json::json!("s-1"))
        );
        assert!(matches!(&f[2], Frame::TooLong { id: None, .. }));
        assert!(matches!(&f[3], Frame::Line { bytes } if bytes == b"{\"ok\":1}"));
        assert_eq!(
            top_level_id(br#"{"a":{"id":1},"id":"x","b":[[[[]]]]}"#),
            Some(serde_json::json!("x"))
        );
    }

    #[test]
    fn deep_nesting_is_cut_to_empty_containers_and_parses() {
        for open in ["{\"a\":", "[", "{\"s\":\"}]{[\\\"\",\"a\":"] {
            let close = if open.starts_with('[') { "]" } else { "}" };
            let line = format!("{}1{}", open.repeat(300), close.repeat(300));
            let (out, cut) = bound_nesting(line.into_bytes(), 100);
            assert!(cut);
            let v: Value = serde_json::from_slice(&out).expect("parses after the cut");
            assert!(!too_deep(&out, 100) && too_deep(&out, 99), "{v}");
        }
        let shallow = b"{\"a\":[1,{\"b\":\"[[[[\"}]}".to_vec();
        assert_eq!(bound_nesting(shallow.clone(), 3), (shallow, false));
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let cases = [
            (r#"{"t":"cut \ud83d"}"#, "cut \u{FFFD}"),
            (r#"{"t":"\udc00 low"}"#, "\u{FFFD} low"),
            (r#"{"t":"pair \ud83d\ude00 ok"}"#, "pair \u{1F600} ok"),
            (r#"{"t":"\\ud83d stays text"}"#, "\\ud83d stays text"),
            (r#"{"t":"\ud83d\ud83d"}"#, "\u{FFFD}\u{FFFD}"),
        ];
        for (input, want) in cases {
            let out = repair_surrogates(input.as_bytes().to_vec());
            let v: Value = serde_json::from_slice(&out).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!(v["t"], serde_json::json!(want), "{input}");
        }
    }
}
