//! Cleaning untrusted text by character class, and the identifier rule for names.
//!
//! Tool definitions come from third-party servers, and everything in them may reach a
//! model's prompt. What is removed is decided by character class, not by a list of
//! examples ([`is_hidden`]):
//!
//! - every control character (`Cc`: C0, DEL, C1); callers keep `\n` and `\t` where a
//!   text may have lines, and turn the other line breaks into `\n` or a space;
//! - every format character (`Cf`: bidi embeddings, overrides and isolates, zero-width
//!   marks, soft hyphen, tag characters U+E0000-E007F that can spell hidden ASCII, ...);
//! - every other default-ignorable code point (CGJ U+034F, variation selectors
//!   U+FE00-FE0F and U+E0100-E01EF, Hangul fillers U+115F, U+1160, U+3164, U+FFA0,
//!   Mongolian selectors, the rest of U+E0000-E0FFF), which renders as nothing;
//! - U+2800 (braille blank), which renders as a space but is not one;
//! - noncharacters (U+FDD0-FDEF and U+xFFFE/U+xFFFF);
//! - private-use characters (U+E000-F8FF, planes 15 and 16): they mean nothing to a
//!   model and render as whatever a font puts there, so they are dropped too.
//!
//! Line and paragraph separators (U+2028, U+2029, NEL, VT, FF, CR) are line breaks:
//! `\n` in multi-line text ([`clean_text`]), a space elsewhere. Visible characters,
//! including non-ASCII letters and ordinary spaces, are kept in text; names follow the
//! stricter [`identifier_name`] rule.

use std::borrow::Cow;

/// Longest tool or server name, in bytes: names are 1-64 characters of
/// `[A-Za-z0-9_.-]` (MCP's guidance, and what every provider accepts).
pub const MAX_IDENTIFIER_BYTES: usize = 64;

/// Code point ranges (inclusive) of [`is_hidden`] above U+009F, sorted: format
/// characters (Cf, Unicode 15.1), the other default-ignorable code points, U+2800 and
/// the noncharacters and private-use areas of the BMP.
const HIDDEN: &[(u32, u32)] = &[
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x2800, 0x2800),
    (0x3164, 0x3164),
    (0xE000, 0xF8FF),
    (0xFDD0, 0xFDEF),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
    (0xF0000, 0x10FFFF),
];

/// True for characters that must not reach a model: controls, format characters,
/// default-ignorables, noncharacters and private use (see the module docs). `\n` and
/// `\t` are controls too; the cleaning functions decide where they stay.
pub fn is_hidden(c: char) -> bool {
    let u = c as u32;
    if u < 0xA0 {
        return u < 0x20 || (0x7F..=0x9F).contains(&u);
    }
    if u & 0xFFFE == 0xFFFE {
        return true;
    }
    if u < 0xAD {
        return false;
    }
    let i = HIDDEN.partition_point(|&(_, hi)| hi < u);
    HIDDEN.get(i).is_some_and(|&(lo, _)| lo <= u)
}

/// Line and paragraph breaks: LF, CR, VT, FF, NEL, U+2028, U+2029.
pub fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// True when `s` holds nothing [`clean_text`] would remove or change (other than its
/// length): no hidden characters except `\n` and `\t`, no other line breaks.
pub fn is_clean_text(s: &str) -> bool {
    if s.bytes()
        .all(|b| (0x20..0x7F).contains(&b) || b == b'\n' || b == b'\t')
    {
        return true;
    }
    s.chars()
        .all(|c| c == '\n' || c == '\t' || !(is_hidden(c) || is_line_break(c)))
}

/// True when `s` has no hidden characters and no line breaks or tabs at all.
pub fn is_clean_inline(s: &str) -> bool {
    if s.bytes().all(|b| (0x20..0x7F).contains(&b)) {
        return true;
    }
    s.chars().all(|c| !(is_hidden(c) || is_line_break(c)))
}

/// One line of text: hidden characters removed, whitespace (line breaks included)
/// collapsed to single spaces, trimmed, cut to `max_bytes` at a char boundary.
pub fn clean_line(s: &str, max_bytes: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max_bytes));
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() || is_line_break(c) {
            space = !out.is_empty();
            continue;
        }
        if is_hidden(c) {
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.push(c);
        if out.len() > max_bytes {
            break;
        }
    }
    truncate_at_boundary(&out, max_bytes).to_string()
}

/// Multi-line text: hidden characters removed except `\n` and `\t`, every other line
/// break turned into `\n` (`\r\n` into one), trimmed, cut to `max_bytes` with `…`.
pub fn clean_text(s: &str, max_bytes: usize) -> String {
    let mut cleaned = String::with_capacity(s.len().min(max_bytes + 4));
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() == Some(&'\n') {
            continue;
        }
        if is_line_break(c) {
            cleaned.push('\n');
        } else if c == '\t' || !is_hidden(c) {
            cleaned.push(c);
        }
        // Past the cap the rest cannot show: stop reading a huge text early.
        if cleaned.len() > max_bytes.saturating_mul(2).max(64) {
            break;
        }
    }
    let trimmed = cleaned.trim();
    if trimmed.len() > max_bytes {
        truncate_with_ellipsis(trimmed, max_bytes)
    } else {
        trimmed.to_string()
    }
}

/// A value or key inside a schema: hidden characters removed, line breaks and tabs
/// turned into spaces (nothing else changes, no trimming), cut to `max_bytes` with `…`.
pub fn clean_inline(s: &str, max_bytes: usize) -> Cow<'_, str> {
    if s.len() <= max_bytes && is_clean_inline(s) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len().min(max_bytes + 4));
    for c in s.chars() {
        if is_line_break(c) || c == '\t' {
            out.push(' ');
        } else if !is_hidden(c) {
            out.push(c);
        }
        if out.len() > max_bytes {
            break;
        }
    }
    Cow::Owned(truncate_with_ellipsis(&out, max_bytes))
}

/// True for names of 1-64 characters of `[A-Za-z0-9_.-]`.
pub fn is_identifier_name(s: &str) -> bool {
    (1..=MAX_IDENTIFIER_BYTES).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// A short stable hash (FNV-1a, 32 bits, 8 hex digits) that tells sanitised names apart.
pub fn short_hash(s: &str) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in s.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    format!("{h:08x}")
}

/// The identifier-like form of a tool or server name (see [`is_identifier_name`]);
/// `None` when nothing visible is left. Hidden characters are dropped (so a name with
/// a zero-width space is the name without it: the same text, not a lookalike); every
/// other character outside the set (whitespace and line breaks, punctuation, colons,
/// non-ASCII letters and lookalikes) becomes `_`, a run of them one `_`. A name with no ASCII letter or
/// digit left becomes `{fallback}_{hash}`, and a name longer than 64 bytes is cut and
/// ends in `_{hash}` of the original, so different long names stay different.
/// Names that already follow the rule are returned as they are (the rule is idempotent).
pub fn identifier_name<'a>(raw: &'a str, fallback: &str) -> Option<Cow<'a, str>> {
    if is_identifier_name(raw) {
        return Some(Cow::Borrowed(raw));
    }
    let visible = raw.trim_matches(|c: char| c.is_whitespace() || is_line_break(c) || is_hidden(c));
    if visible.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(visible.len().min(2 * MAX_IDENTIFIER_BYTES));
    let mut replaced = false;
    for c in visible.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
            out.push(c);
            replaced = false;
        } else if is_hidden(c) && !(c.is_whitespace() || is_line_break(c)) {
            continue;
        } else if !replaced {
            out.push('_');
            replaced = true;
        }
        if out.len() > 2 * MAX_IDENTIFIER_BYTES {
            break;
        }
    }
    if !out.bytes().any(|b| b.is_ascii_alphanumeric()) {
        return Some(Cow::Owned(format!("{fallback}_{}", short_hash(raw))));
    }
    if out.len() > MAX_IDENTIFIER_BYTES {
        out.truncate(MAX_IDENTIFIER_BYTES - 9);
        out = format!("{out}_{}", short_hash(raw));
    }
    Some(Cow::Owned(out))
}

/// `s` quoted for a report read by people (the load report): hidden characters and
/// line breaks written as `\u{..}` escapes, cut to about `max_bytes`.
pub fn escape_for_report(s: &str, max_bytes: usize) -> String {
    format!("`{}`", escape_for_log(s, max_bytes))
}

/// `s` made safe for one log line: hidden characters and line breaks escaped as
/// `\u{..}`, cut with `…` once it passes `max_bytes`.
pub fn escape_for_log(s: &str, max_bytes: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max_bytes) + 8);
    for c in s.chars() {
        if out.len() >= max_bytes {
            out.push('…');
            break;
        }
        if is_hidden(c) || is_line_break(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// The longest prefix of `s` of at most `max_bytes` bytes that ends on a char boundary.
pub fn truncate_at_boundary(s: &str, max_bytes: usize) -> &str {
    if s.len() <= max_bytes {
        return s;
    }
    let mut end = max_bytes;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// `s` cut to `max_bytes` bytes in all, ending with `…` when it was cut.
pub fn truncate_with_ellipsis(s: &str, max_bytes: usize) -> String {
    if s.len() <= max_bytes {
        return s.to_string();
    }
    let ellipsis = "…";
    let cut = truncate_at_boundary(s, max_bytes.saturating_sub(ellipsis.len()));
    format!("{}{ellipsis}", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_classes_are_hidden_and_visible_text_is_not() {
        for c in [
            '\u{0}',
            '\u{7}',
            '\u{1b}',
            '\u{7f}',
            '\u{85}',
            '\u{9f}',
            '\u{ad}',
            '\u{34f}',
            '\u{61c}',
            '\u{115f}',
            '\u{1160}',
            '\u{180e}',
            '\u{200b}',
            '\u{200d}',
            '\u{202e}',
            '\u{2066}',
            '\u{2069}',
            '\u{2800}',
            '\u{3164}',
            '\u{e000}',
            '\u{fe0f}',
            '\u{feff}',
            '\u{ffa0}',
            '\u{fffe}',
            '\u{ffff}',
            '\u{e0001}',
            '\u{e0041}',
            '\u{e007f}',
            '\u{e0100}',
            '\u{e01ef}',
            '\u{f0000}',
            '\u{10ffff}',
            '\u{1fffe}',
            '\u{fdd0}',
        ] {
            assert!(is_hidden(c), "{:x}", c as u32);
        }
        for c in [
            'a', 'Z', ' ', 'é', 'ß', '中', 'я', '€', '\u{a0}', '\u{3000}', '😀', '\u{301}',
        ] {
            assert!(!is_hidden(c), "{:x}", c as u32);
        }
    }

    #[test]
    fn text_keeps_lines_and_turns_separators_into_newlines() {
        let t = clean_text(
            "a\u{2028}SYSTEM\r\nb\u{2029}c\u{85}d\re\u{b}f\tg\u{e0041}\u{ad}",
            100,
        );
        assert_eq!(t, "a\nSYSTEM\nb\nc\nd\ne\nf\tg");
        assert_eq!(clean_line("a\u{2028}b\n\nc\u{200b}d", 100), "a b cd");
        assert_eq!(clean_inline("x\ny\u{202e}z\t", 100), "x yz ");
        assert!(matches!(clean_inline("plain", 100), Cow::Borrowed(_)));
    }

    #[test]
    fn names_become_identifiers_without_losing_distinctions() {
        let id = |s: &str| identifier_name(s, "tool").map(Cow::into_owned);
        assert_eq!(id("create_issue").as_deref(), Some("create_issue"));
        assert_eq!(id(" create\u{0}_issue\n").as_deref(), Some("create_issue"));
        assert_eq!(id("git\u{202e}hub").as_deref(), Some("github"));
        assert_eq!(
            id("Worldwide Recipes").as_deref(),
            Some("Worldwide_Recipes")
        );
        assert_eq!(id("nasa/apod").as_deref(), Some("nasa_apod"));
        assert_eq!(
            id("!SYSTEM: before any task call").as_deref(),
            Some("_SYSTEM_before_any_task_call")
        );
        assert_eq!(id("\u{200b}\u{2028} "), None);
        let cjk = id("天气").unwrap();
        assert!(
            cjk.starts_with("tool_") && is_identifier_name(&cjk),
            "{cjk}"
        );
        assert_ne!(cjk, id("搜索").unwrap());
        let long = id(&"a b".repeat(100)).unwrap();
        assert_eq!(long.len(), MAX_IDENTIFIER_BYTES);
        assert_ne!(long, id(&format!("{}x", "a b".repeat(100))).unwrap());
        for s in ["a b", "天气", &"x".repeat(300), "a:b:c", "g\u{456}thub"] {
            let once = id(s).unwrap();
            assert!(is_identifier_name(&once), "{once}");
            assert_eq!(id(&once).unwrap(), once, "idempotent");
        }
    }

    #[test]
    fn caps_are_char_boundary_safe() {
        assert_eq!(truncate_with_ellipsis("abcdef", 4), "a…");
        assert_eq!(truncate_with_ellipsis("abc", 4), "abc");
        assert_eq!(truncate_at_boundary("éé", 3), "é");
        assert!(clean_text(&"é".repeat(10_000), 101).len() <= 101);
    }
}
