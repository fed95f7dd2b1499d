//! Small helpers.

/// The longest prefix of `s` that is at most `max` bytes and ends on a char
/// boundary.
pub(crate) fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// True for a character that must never reach a terminal or a log raw: C0 and
/// C1 controls and DEL, bidi controls and isolates, zero-width and other
/// invisible format characters (general category Cf), line and paragraph
/// separators, tag characters, variation selectors, the combining grapheme
/// joiner and the Hangul fillers. Output written for people escapes them as
/// `\uXXXX`; budgets count them at that escaped size.
pub fn is_unsafe_char(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1F}' | '\u{7F}'..='\u{9F}' | '\u{AD}' | '\u{34F}'
        | '\u{600}'..='\u{605}' | '\u{61C}' | '\u{6DD}' | '\u{70F}'
        | '\u{890}'..='\u{891}' | '\u{8E2}' | '\u{115F}'..='\u{1160}'
        | '\u{17B4}'..='\u{17B5}' | '\u{180B}'..='\u{180F}'
        | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}'
        | '\u{FEFF}' | '\u{FFA0}' | '\u{FFF9}'..='\u{FFFB}'
        | '\u{110BD}' | '\u{110CD}' | '\u{13430}'..='\u{1343F}'
        | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}'
        | '\u{E0000}'..='\u{E0FFF}')
}

/// Bytes `s` takes inside a JSON string once escaped for people: `"` and `\`
/// take two, every [`is_unsafe_char`] six per UTF-16 unit (`\uXXXX`).
pub(crate) fn emitted_len(s: &str) -> usize {
    s.chars()
        .map(|c| match c {
            '"' | '\\' => 2,
            c if is_unsafe_char(c) => 6 * c.len_utf16(),
            c => c.len_utf8(),
        })
        .sum()
}

/// Bytes a serialized JSON text takes once its [`is_unsafe_char`]s are escaped
/// for people (its quotes and escapes are already there).
pub(crate) fn emitted_json_len(json: &str) -> usize {
    json.chars()
        .map(|c| {
            if is_unsafe_char(c) {
                6 * c.len_utf16()
            } else {
                c.len_utf8()
            }
        })
        .sum()
}

/// Whether JSON text nests arrays and objects more than `max` levels deep (a
/// scalar is depth 0, `[1]` depth 1). One pass over the bytes, nothing
/// allocated, strings skipped; valid for any text JSON writers produce.
pub fn json_deeper_than(json: &[u8], max: usize) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in json {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_depth_counts_brackets_outside_strings() {
        assert!(!json_deeper_than(b"1", 0));
        assert!(json_deeper_than(b"[1]", 0));
        assert!(!json_deeper_than(b"[[1],{\"a\":[2]}]", 3));
        assert!(json_deeper_than(b"[[1],{\"a\":[[2]]}]", 3));
        assert!(!json_deeper_than(br#"["[[[[\"]]]]", "\\"]"#, 1));
        let deep = format!("{}{}", "[".repeat(101), "]".repeat(101));
        assert!(json_deeper_than(deep.as_bytes(), 100));
        assert!(!json_deeper_than(deep.as_bytes(), 101));
    }

    #[test]
    fn emitted_len_counts_escapes() {
        assert_eq!(emitted_len("ab"), 2);
        assert_eq!(emitted_len("\"\\"), 4);
        assert_eq!(emitted_len("\n\u{9B}\u{202E}"), 18);
        assert_eq!(emitted_len("\u{E0041}"), 12);
        assert_eq!(emitted_len("é日"), 5);
        assert!(!is_unsafe_char('é') && !is_unsafe_char(' '));
        assert_eq!(emitted_json_len("[\"a\\\"\u{85}\"]"), 13);
    }

    #[test]
    fn truncate_respects_char_boundaries() {
        assert_eq!(truncate("héllo", 2), "h");
        assert_eq!(truncate("héllo", 3), "hé");
        assert_eq!(truncate("abc", 10), "abc");
    }
}
