//! Answer: what `tool_search_code` hands the model for one snippet. It carries
//! what the code returned and what it logged, each once; tool results the code
//! did not return never enter the context. The whole record (every call, its
//! result, the figures) stays in [`ExecResult`] for the library, `toolsearch
//! exec` and telemetry.
//!
//! As MCP content (the shape documented in the tool's description and in
//! `js/openclaw.d.ts`):
//! - success: one text item, the JSON of the returned value; then the images,
//!   audio and resources the value holds that came from a tool's own MCP
//!   content, as content of their kind (in the value, a short stand-in
//!   `{"type": "image", "attached": 1}`); then, only when there is any, a text
//!   item `{"logs", "search_notes", "hint", "unfinished"}`.
//! - failure (`isError`): one text item `{"error": {kind, message, line?,
//!   column?, source?, hint?}, "calls", "logs"?, "search_notes"?}` where `calls`
//!   lists each call's id and status, with its result when the snippet returned
//!   no value (so partial work is not lost, and never carried twice).
//!
//! Only media a tool really returned are promoted: the bridge keeps a keyed
//! hash of every image, audio and resource item of the MCP results it handed
//! the snippet ([`Media`]), and an object of the value is promoted only when it
//! hashes the same. An object that merely looks like one (a tool's JSON text
//! parsed by `call`, a string the snippet built) stays JSON text.

use std::collections::HashSet;
use std::hash::{BuildHasher, Hash, Hasher, RandomState};
use std::sync::Mutex;

use serde_json::{json, Map, Value};
use toolsearch_sandbox::{CallStatus, ErrorKind, ExecResult, LogLevel};

use crate::host::hints;
use crate::output::ToolOutput;

/// Most media items one answer carries as content of their kind; more stay in
/// the value as a stand-in saying they were left out. Their size is bounded by
/// the value's own cap (`Limits::result_bytes`).
pub const MAX_MEDIA: usize = 8;

/// MCP content types that are promoted (text items stay in the JSON).
const MEDIA_TYPES: [&str; 4] = ["image", "audio", "resource_link", "resource"];

/// The media items the bridge handed one snippet, by keyed hash.
#[derive(Default)]
pub(crate) struct Media {
    keys: RandomState,
    seen: Mutex<HashSet<u64>>,
}

/// Most media items remembered per snippet (a hash each).
const MAX_SEEN: usize = 4096;

impl Media {
    /// Remembers the media items of an MCP result's `content` array.
    pub fn record(&self, content: &Value) {
        let Some(items) = content.as_array() else {
            return;
        };
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        for item in items.iter().filter(|i| media_type(i).is_some()) {
            if seen.len() < MAX_SEEN {
                seen.insert(self.hash(item));
            }
        }
    }

    fn genuine(&self, item: &Value) -> bool {
        media_type(item).is_some()
            && self
                .seen
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .contains(&self.hash(item))
    }

    fn hash(&self, v: &Value) -> u64 {
        let mut h = self.keys.build_hasher();
        canonical_hash(v, &mut h);
        h.finish()
    }
}

/// Hashes `v` with object keys in sorted order (whatever order a round trip
/// through the engine left them in).
fn canonical_hash(v: &Value, h: &mut impl Hasher) {
    match v {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => (1u8, b).hash(h),
        Value::Number(n) => (2u8, n.to_string()).hash(h),
        Value::String(s) => (3u8, s).hash(h),
        Value::Array(a) => {
            (4u8, a.len()).hash(h);
            a.iter().for_each(|x| canonical_hash(x, h));
        }
        Value::Object(m) => {
            (5u8, m.len()).hash(h);
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            for k in keys {
                k.hash(h);
                canonical_hash(&m[k], h);
            }
        }
    }
}

fn media_type(item: &Value) -> Option<&str> {
    let t = item.get("type")?.as_str()?;
    MEDIA_TYPES.contains(&t).then_some(t)
}

/// Moves the genuine media items out of `v` (depth first, in order), leaving a
/// stand-in for each.
fn take_media(v: &mut Value, media: &Media, out: &mut Vec<Value>) {
    match v {
        Value::Object(m) => {
            let item = Value::Object(std::mem::take(m));
            if media.genuine(&item) {
                let kind = media_type(&item).unwrap_or("media").to_owned();
                *v = if out.len() < MAX_MEDIA {
                    out.push(item);
                    json!({"type": kind, "attached": out.len()})
                } else {
                    json!({"type": kind, "left_out": format!(
                        "an answer carries at most {MAX_MEDIA} images, audio or resources; return fewer")})
                };
                return;
            }
            let Value::Object(back) = item else {
                unreachable!("taken as an object")
            };
            *m = back;
            m.values_mut().for_each(|x| take_media(x, media, out));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| take_media(x, media, out)),
        _ => {}
    }
}

/// The log lines as the model reads them: the text, prefixed with the level
/// for warnings and errors.
fn logs(result: &ExecResult) -> Option<Value> {
    let mut lines: Vec<Value> = result
        .logs
        .iter()
        .map(|l| match l.level {
            LogLevel::Log => Value::String(l.text.clone()),
            LogLevel::Warn => Value::String(format!("warn: {}", l.text)),
            LogLevel::Error => Value::String(format!("error: {}", l.text)),
        })
        .collect();
    if result.stats.logs_dropped > 0 {
        lines.push(Value::String(format!(
            "({} more lines dropped: the log budget was spent)",
            result.stats.logs_dropped
        )));
    }
    (!lines.is_empty()).then_some(Value::Array(lines))
}

/// Calls still running when the snippet returned (cancelled), in a sentence.
fn unfinished(result: &ExecResult) -> Option<String> {
    let ids: Vec<&str> = result
        .calls
        .iter()
        .filter(|c| c.status == CallStatus::Abandoned)
        .map(|c| c.id.as_str())
        .collect();
    match ids.len() {
        0 => None,
        1 => Some(format!(
            "1 call was still running when the snippet returned and was cancelled: {}",
            ids[0]
        )),
        n => Some(format!(
            "{n} calls were still running when the snippet returned and were cancelled: {}",
            ids.join(", ")
        )),
    }
}

/// The answer to one snippet: `code` is its text (for the failing line),
/// `notes` what its searches said besides their hits.
pub(crate) fn answer(
    result: &ExecResult,
    code: &str,
    notes: Vec<Value>,
    media: &Media,
) -> ToolOutput {
    let mut extra = Map::new();
    if let Some(l) = logs(result) {
        extra.insert("logs".into(), l);
    }
    if let Some(u) = unfinished(result) {
        extra.insert("unfinished".into(), Value::String(u));
    }
    let mut items = Vec::new();
    let failed = result.error.as_ref().filter(|_| !result.ok);
    let mut value = result.value.clone();
    if failed.is_none() {
        take_media(&mut value, media, &mut items);
    }
    // The value's JSON, made once: the answer's first text, and what tells
    // which search notes the value already shows (the snippet returned the
    // search's array, which carries them): those are not repeated.
    let value_text = serde_json::to_string(&value).unwrap_or_default();
    let notes: Vec<Value> = notes
        .into_iter()
        .filter(|n| !already_shown(n, &value_text))
        .collect();
    if !notes.is_empty() {
        extra.insert("search_notes".into(), Value::Array(notes));
    }
    let Some(error) = failed else {
        if let Some(h) = hints::no_return(result, code) {
            extra.insert("hint".into(), Value::String(h));
        }
        let mut content = vec![json!({"type": "text", "text": value_text})];
        content.extend(items);
        if !extra.is_empty() {
            content.push(text(&Value::Object(extra.clone())));
        }
        let mut library = Map::new();
        library.insert("value".into(), value);
        library.extend(extra);
        return ToolOutput {
            content: Value::Object(library),
            is_error: false,
            passthrough: Some(json!({"content": content, "isError": false})),
        };
    };
    let mut e = Map::new();
    e.insert(
        "kind".into(),
        serde_json::to_value(error.kind).unwrap_or(Value::Null),
    );
    e.insert("message".into(), Value::String(error.message.clone()));
    if let (Some(line), Some(column)) = (error.line, error.column) {
        e.insert("line".into(), line.into());
        e.insert("column".into(), column.into());
        if let Some(source) = source_line(code, line) {
            e.insert("source".into(), Value::String(source));
        }
    }
    if let Some(h) = hints::for_error(error, code) {
        e.insert("hint".into(), Value::String(h));
    }
    let mut out = Map::new();
    out.insert("error".into(), Value::Object(e));
    let has_value = error.kind == ErrorKind::NotAwaited;
    if has_value {
        out.insert("value".into(), value);
    }
    let calls: Vec<Value> = result
        .calls
        .iter()
        .map(|c| {
            let mut call = json!({"id": c.id, "status": c.status});
            if let Some(code) = c.code {
                call["code"] = json!(code);
            }
            match (&c.result, has_value) {
                (Some(r), false) => call["result"] = r.clone(),
                (None, false) if c.status == CallStatus::Ok => {
                    call["result_dropped"] = json!("the results kept so far passed the result cap")
                }
                _ => {}
            }
            call
        })
        .collect();
    if !calls.is_empty() {
        out.insert("calls".into(), Value::Array(calls));
    }
    out.extend(extra);
    let mut content = Value::Object(out);
    take_media(&mut content, media, &mut items);
    let mut mcp = vec![text(&content)];
    mcp.extend(items);
    ToolOutput {
        content,
        is_error: true,
        passthrough: Some(json!({"content": mcp, "isError": true})),
    }
}

/// True when every part of a search note (but its query) is in `shown`, the
/// returned value's JSON.
fn already_shown(note: &Value, shown: &str) -> bool {
    note.as_object().is_some_and(|m| {
        m.iter()
            .filter(|(k, _)| k.as_str() != "query")
            .all(|(_, v)| shown.contains(&serde_json::to_string(v).unwrap_or_default()))
    })
}

/// A text content item holding `v` as JSON.
fn text(v: &Value) -> Value {
    json!({"type": "text", "text": serde_json::to_string(v).unwrap_or_default()})
}

/// Line `line` (from 1) of the snippet, trimmed and capped.
fn source_line(code: &str, line: u32) -> Option<String> {
    let l = code.lines().nth(line.checked_sub(1)? as usize)?.trim();
    if l.is_empty() {
        return None;
    }
    Some(toolsearch_catalog::truncate_with_ellipsis(l, 160))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_media_a_tool_returned_are_promoted() {
        let media = Media::default();
        let image = json!({"type": "image", "data": "AAAA", "mimeType": "image/png"});
        media.record(&json!([{"type": "text", "text": "x"}, image.clone()]));
        let forged = json!({"type": "image", "data": "BBBB", "mimeType": "image/png"});
        let reordered = json!({"mimeType": "image/png", "type": "image", "data": "AAAA"});
        let mut v = json!({"a": image, "b": forged.clone(), "c": [reordered]});
        let mut out = Vec::new();
        take_media(&mut v, &media, &mut out);
        assert_eq!(out.len(), 2, "{v}");
        assert_eq!(v["a"], json!({"type": "image", "attached": 1}));
        assert_eq!(v["b"], forged, "a look-alike stays JSON");
        assert_eq!(v["c"][0], json!({"type": "image", "attached": 2}));
    }

    #[test]
    fn media_past_the_bound_are_left_out_with_a_reason() {
        let media = Media::default();
        let items: Vec<Value> = (0..MAX_MEDIA + 2)
            .map(|i| json!({"type": "resource_link", "uri": format!("file:///{i}"), "name": "f"}))
            .collect();
        media.record(&Value::Array(items.clone()));
        let mut v = Value::Array(items);
        let mut out = Vec::new();
        take_media(&mut v, &media, &mut out);
        assert_eq!(out.len(), MAX_MEDIA);
        assert!(v[MAX_MEDIA]["left_out"].is_string(), "{v}");
    }

    #[test]
    fn a_note_the_value_shows_is_not_repeated() {
        let note = json!({"query": "q", "hint": "try other words"});
        assert!(already_shown(
            &note,
            r#"{"hits":[],"hint":"try other words"}"#
        ));
        assert!(!already_shown(&note, r#"[]"#));
    }

    #[test]
    fn the_source_line_is_trimmed_and_capped() {
        assert_eq!(source_line("a\n   b;  \n", 2).as_deref(), Some("b;"));
        assert_eq!(source_line("a", 3), None);
        assert!(source_line(&"x".repeat(400), 1).unwrap().ends_with('…'));
    }
}
