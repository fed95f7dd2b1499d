//! Untrusted JSON Schemas: the limits every walk over one obeys, and the cleaning
//! applied when a tool is made ([`sanitize`]).
//!
//! Input schemas come from third-party servers. Every function that walks one (the
//! TypeScript generator, argument validation and repair, the index's reading of
//! parameters) is bounded three ways:
//!
//! - **depth**: at most [`MAX_WALK_DEPTH`] levels, where following a `$ref` counts as a
//!   level like entering a property, so no recursion depth depends on the input
//!   (walks stay well inside a 256 KiB thread stack);
//! - **work**: a [`Budget`] of steps per walk; what is reached more than once
//!   through `$ref` is done once (TypeScript names it as an alias, validation memoises
//!   each schema/value pair), so fan-out is linear, and the budget stops anything else;
//! - **size**: schemas are cleaned and capped when a tool is made: strings and keys
//!   by [`MAX_SCHEMA_STRING_BYTES`] / [`MAX_KEY_BYTES`], nesting by
//!   [`MAX_SCHEMA_NESTING`], the whole by [`MAX_SCHEMA_BYTES`].
//!
//! A schema over [`MAX_SCHEMA_BYTES`] loads **degraded**: it is replaced by
//! `{"type": "object"}`, the tool carries a `schema_note` saying so, describe shows
//! its arguments as `unknown`, and its arguments are passed to the tool unchecked (the
//! tool's own server still validates them; the host never blocks a call on a schema
//! it cannot read). `$ref` cycles are fine everywhere: TypeScript names them, and the
//! other walks stop at the depth limit.

mod sanitize;

pub use sanitize::{sanitize, Sanitized};

use serde_json::Value;

/// Largest input or output schema kept, in bytes of JSON after cleaning.
pub const MAX_SCHEMA_BYTES: usize = 64 * 1024;
/// JSON nesting kept in a schema; anything deeper is replaced by `{}` (any value).
pub const MAX_SCHEMA_NESTING: usize = 64;
/// Longest string kept inside a schema (descriptions, titles, enum values, defaults).
pub const MAX_SCHEMA_STRING_BYTES: usize = 4096;
/// Longest object key kept inside a schema; a longer one is cut and renamed.
pub const MAX_KEY_BYTES: usize = 128;
/// Deepest level any walk over a schema reaches; each `$ref` followed is a level.
pub const MAX_WALK_DEPTH: usize = 32;

/// The work one walk over a schema may do, in steps (a node visited, a value
/// checked). Once spent it stays spent, and the walk reports that its result is
/// partial rather than going on.
#[derive(Debug, Clone)]
pub struct Budget {
    left: u64,
    spent: bool,
}

impl Budget {
    /// A budget of `steps` steps.
    pub fn new(steps: u64) -> Budget {
        Budget {
            left: steps,
            spent: false,
        }
    }

    /// Takes one step; `false` (from now on) when none is left.
    pub fn step(&mut self) -> bool {
        self.take(1)
    }

    /// Takes `n` steps at once (bytes written, items scanned); `false` when fewer are left.
    pub fn take(&mut self, n: u64) -> bool {
        if self.spent || n > self.left {
            self.spent = true;
            self.left = 0;
            return false;
        }
        self.left -= n;
        true
    }

    /// True once a step was refused.
    pub fn is_spent(&self) -> bool {
        self.spent
    }
}

/// Resolves a local `$ref` (`#`, `#/$defs/X`, `#/definitions/X`, any JSON pointer
/// into `root`); `None` for remote or dangling references.
pub fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

/// `v` as compact JSON when that takes at most `max` bytes; `None` (after writing at
/// most `max` bytes) when it would take more. For showing a value or a schema in a
/// message without ever serializing something huge.
pub fn json_within(v: &Value, max: usize) -> Option<String> {
    struct Capped(Vec<u8>, usize);
    impl std::io::Write for Capped {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.0.len() + buf.len() > self.1 {
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            self.0.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut w = Capped(Vec::new(), max);
    serde_json::to_writer(&mut w, v).ok()?;
    String::from_utf8(w.0).ok()
}

/// `v` as compact JSON when it fits `max` bytes, else a short stand-in (`"abc…"`,
/// `[… 3 items]`, `{… 2 keys}`), never serializing more than `max` bytes.
pub fn json_preview(v: &Value, max: usize) -> String {
    if let Some(s) = json_within(v, max) {
        return s;
    }
    match v {
        Value::String(s) => {
            let head = crate::clean::truncate_at_boundary(s, max.saturating_sub(8));
            let quoted = serde_json::to_string(head).unwrap_or_default();
            format!("{}…\"", quoted.trim_end_matches('"'))
        }
        Value::Array(items) => format!("[… {} items]", items.len()),
        Value::Object(map) => format!("{{… {} keys}}", map.len()),
        _ => "…".into(),
    }
}

/// Drops a value without recursion (serde_json's own drop recurses once per level,
/// which a value built in code may nest deeper than the stack allows).
pub fn drop_flat(v: Value) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn budget_stays_spent() {
        let mut b = Budget::new(3);
        assert!(b.step() && b.take(2));
        assert!(!b.step());
        assert!(b.is_spent() && !b.take(0));
    }

    #[test]
    fn resolves_local_pointers_only() {
        let root = json!({"$defs": {"a/b": {"x": 1}, "c": 2}});
        assert_eq!(resolve(&root, "#/$defs/c"), Some(&json!(2)));
        assert_eq!(resolve(&root, "#/$defs/a~1b/x"), Some(&json!(1)));
        assert_eq!(resolve(&root, "#"), Some(&root));
        assert_eq!(resolve(&root, "https://x/y.json#/a"), None);
        assert_eq!(resolve(&root, "#/nope"), None);
    }

    #[test]
    fn deep_values_drop_without_recursion() {
        let handle = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let mut v = json!(1);
                for _ in 0..200_000 {
                    v = Value::Array(vec![v]);
                }
                drop_flat(v);
            })
            .unwrap();
        handle.join().unwrap();
    }
}
