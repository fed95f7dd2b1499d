//! Text from servers and clients made safe for the gateway's own log.

/// Longest line of a server's text (a stderr line, a log message) written to
/// the gateway's log.
pub const MAX_LOG_LINE: usize = 2000;

/// Text from a server (a name, a description, a stderr line) made safe for one log
/// line: controls, bidi overrides and other invisible characters escaped, at most
/// `max` bytes.
pub fn clean_for_log(text: &str, max: usize) -> String {
    toolsearch_catalog::clean::escape_for_log(text, max)
}

#[cfg(test)]
mod tests {
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
