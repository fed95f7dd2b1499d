//! Text from servers and clients made safe for the gateway's own log, and
//! any text that leaves the process made free of the secrets URLs carry.

use std::borrow::Cow;

/// Longest line of a server's text (a stderr line, a log message) written to
/// the gateway's log.
pub const MAX_LOG_LINE: usize = 2000;

/// Text from a server (a name, a description, a stderr line) made safe for one log
/// line: controls, bidi overrides and other invisible characters escaped, at most
/// `max` bytes.
pub fn clean_for_log(text: &str, max: usize) -> String {
    toolsearch_catalog::clean::escape_for_log(text, max)
}

/// `bytes` as lower-case hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `text` with every URL in it (`http://`, `https://`, `ws://`, `wss://`)
/// stripped of its user info and query (see [`crate::config::redact_url`]):
/// a server URL often carries a key (`?api_key=...`), and its errors (a
/// failed connect, a refused redirect) quote it. Every text that leaves the
/// process goes through it: errors sent to clients and the model, the
/// servers' status, log lines.
pub fn redact_urls(text: &str) -> Cow<'_, str> {
    const SCHEMES: [&str; 4] = ["http://", "https://", "ws://", "wss://"];
    let lower = text.to_ascii_lowercase();
    let starts: Vec<usize> = (0..text.len())
        .filter(|&i| text.is_char_boundary(i))
        .filter(|&i| SCHEMES.iter().any(|s| lower[i..].starts_with(s)))
        .filter(|&i| i == 0 || !lower.as_bytes()[i - 1].is_ascii_alphanumeric())
        .collect();
    if starts.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for start in starts {
        if start < at {
            continue;
        }
        let rest = &text[start..];
        let mut end = rest
            .find(|c: char| c.is_whitespace() || "\"'<>`|".contains(c))
            .unwrap_or(rest.len());
        // Punctuation after a URL, and a closing bracket it did not open, are
        // the sentence's.
        loop {
            let url = &rest[..end];
            let Some(last) = url.chars().last() else {
                break;
            };
            let unopened = |open: char, close: char| {
                last == close && url.matches(close).count() > url.matches(open).count()
            };
            if ".,;:!".contains(last) || unopened('(', ')') || unopened('[', ']') {
                end -= last.len_utf8();
            } else {
                break;
            }
        }
        out.push_str(&text[at..start]);
        out.push_str(&crate::config::redact_url(&rest[..end]));
        at = start + end;
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}

/// Seconds since the epoch as RFC 3339 (UTC).
pub fn rfc3339_secs(secs: u64) -> String {
    let days = secs / 86_400;
    let rem = secs % 86_400;
    // Civil from days (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// A time as RFC 3339 (UTC), to the second.
pub fn rfc3339(at: std::time::SystemTime) -> String {
    rfc3339_secs(
        at.duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn times_read_as_dates() {
        assert_eq!(super::rfc3339_secs(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::rfc3339_secs(1_798_675_200), "2026-12-31T00:00:00Z");
        assert_eq!(
            super::rfc3339_secs(951_782_400 + 3661),
            "2000-02-29T01:01:01Z"
        );
    }

    #[test]
    fn urls_lose_their_user_info_and_query_wherever_they_are() {
        let cases = [
            (
                "error sending request for url (http://127.0.0.1:1/mcp?api_key=SECRET)",
                "error sending request for url (http://127.0.0.1:1/mcp?<redacted>)",
            ),
            (
                "HTTPS://user:SECRET@h.example/x, then wss://h/y?t=SECRET.",
                "HTTPS://<redacted>@h.example/x, then wss://h/y?<redacted>.",
            ),
            (
                "\"https://h/p?k=SECRET\" failed",
                "\"https://h/p?<redacted>\" failed",
            ),
            (
                "no url here: http:/x and xhttp://y?k=v",
                "no url here: http:/x and xhttp://y?k=v",
            ),
            ("[https://h/a(b)?k=SECRET]", "[https://h/a(b)?<redacted>]"),
        ];
        for (text, want) in cases {
            assert_eq!(super::redact_urls(text), want, "{text}");
        }
        assert!(matches!(
            super::redact_urls("plain text"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn log_text_escapes_controls_and_bidi() {
        let s = super::clean_for_log("evil\u{202E}txt\n\u{1b}[2J", 100);
        assert!(!s.chars().any(|c| c.is_control() || c == '\u{202E}'), "{s}");
        assert!(s.contains("\\u{202e}"));
        assert!(super::clean_for_log(&"x".repeat(50), 10).len() <= 14);
    }

    /// One class of unsafe characters: whatever the sandbox escapes in a snippet's
    /// output, and every control character, is escaped in log lines too.
    #[test]
    fn log_escaping_covers_the_sandbox_class_and_controls() {
        let missed: Vec<u32> = (0..=0x10FFFFu32)
            .filter_map(char::from_u32)
            .filter(|&c| toolsearch_sandbox::is_unsafe_char(c) || c.is_control())
            .filter(|&c| super::clean_for_log(&c.to_string(), 100) == c.to_string())
            .map(|c| c as u32)
            .collect();
        assert!(missed.is_empty(), "not escaped: {missed:x?}");
    }
}
