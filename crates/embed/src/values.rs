//! Argument values in a request ("Replace 'ACME' with 'Globex' in /tmp/contract.docx").
//!
//! A request that carries its arguments is partly about the values, not the action:
//! the embedding of "Click '#login-button' on https://shop.example/login" follows the
//! shop and the login as much as the click. [`split_values`] finds quoted text, URLs,
//! e-mail addresses, paths, CSS selectors and numbers or codes (a run of letters and
//! digits holding a digit), so that a request made mostly of values is embedded
//! without them ([`embedded_text`]). The lexical side keeps the whole request.

/// Above this share of a request's characters, values are left out of the embedded
/// text. On the public sets (`eval/fusion_study.py`) leaving them out whatever their
/// share moved fused recall@5 by -0.004 to +0.000 while improving the embedding alone
/// (+0.002 to +0.006 recall@5 on all four sets); from 30% it changes only requests
/// that are mostly values, and the fused figures stay within 0.002 of before.
pub const VALUE_SHARE_MASKED: f32 = 0.3;

/// The request with its values removed, and the share of its characters (spaces
/// aside) they made up.
pub fn split_values(text: &str) -> (String, f32) {
    let unquoted = strip_quoted(text);
    let mut kept: Vec<String> = Vec::new();
    for token in unquoted.split_whitespace() {
        let core = token.trim_end_matches([',', '.', ';', ':', '!', '?', ')', ']']);
        let core = core.trim_start_matches(['(', '[']);
        if is_value_token(core) {
            continue;
        }
        let word = strip_coded_runs(token);
        if !word.trim_matches(|c: char| !c.is_alphanumeric()).is_empty() {
            kept.push(word);
        }
    }
    let masked = kept.join(" ");
    let total = text.chars().filter(|c| !c.is_whitespace()).count();
    let left = masked.chars().filter(|c| !c.is_whitespace()).count();
    let share = if total == 0 {
        0.0
    } else {
        1.0 - left as f32 / total as f32
    };
    (masked, share.max(0.0))
}

/// The text to embed for `query`: the query itself, or without its values when they
/// are more than [`VALUE_SHARE_MASKED`] of it and at least two words remain. Also
/// returns the values' share.
pub fn embedded_text(query: &str) -> (std::borrow::Cow<'_, str>, f32) {
    let (masked, share) = split_values(query);
    if share > VALUE_SHARE_MASKED && masked.split_whitespace().count() >= 2 {
        (masked.into(), share)
    } else {
        (query.into(), share)
    }
}

/// Removes `"…"`, `“…”`, `` `…` `` and `'…'` spans (a single quote opens only after
/// a space or the start, and closes only before a space, punctuation or the end, so
/// "Apple's" and "don't" stay).
fn strip_quoted(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let close = match c {
            '"' => Some('"'),
            '“' => Some('”'),
            '`' => Some('`'),
            '‘' => Some('’'),
            '\'' if i == 0 || chars[i - 1].is_whitespace() => Some('\''),
            _ => None,
        };
        if let Some(close) = close {
            let end = chars[i + 1..].iter().enumerate().position(|(j, &d)| {
                d == close
                    && (close != '\''
                        || chars
                            .get(i + 2 + j)
                            .is_none_or(|n| n.is_whitespace() || n.is_ascii_punctuation()))
            });
            if let Some(len) = end {
                out.push(' ');
                i += len + 2;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// A URL, e-mail address, path or CSS selector, as one whitespace-separated token.
fn is_value_token(t: &str) -> bool {
    if t.is_empty() {
        return false;
    }
    let lower = t.to_ascii_lowercase();
    if lower.contains("://") || lower.starts_with("www.") {
        return true;
    }
    if let Some((user, domain)) = t.split_once('@') {
        if !user.is_empty() && domain.contains('.') && !domain.ends_with('.') {
            return true;
        }
    }
    let b = t.as_bytes();
    let path = b[0] == b'/'
        || t.starts_with("~/")
        || t.starts_with("./")
        || t.starts_with("../")
        || (b.len() > 2 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'\\');
    if path && t.len() > 1 {
        return true;
    }
    // `#login-button`, `.nav-item`, `div#main`: a selector, not prose.
    let selector = |s: &str| {
        s.len() > 1
            && (s.starts_with('#') || s.starts_with('.'))
            && s[1..].starts_with(|c: char| c.is_ascii_alphabetic())
    };
    selector(t)
        || t.find(['#', '.']).is_some_and(|p| {
            p > 0 && t[..p].chars().all(|c| c.is_ascii_lowercase()) && t[..p].len() <= 8 && {
                let rest = &t[p..];
                rest.starts_with('#') && selector(rest)
            }
        })
}

/// Removes from a token every run of letters and digits that holds a digit (`42`,
/// `2024-01-03`, `Q3`, `v1.2`), keeping the rest (`a=1,` keeps `a=,`).
fn strip_coded_runs(token: &str) -> String {
    let mut out = String::with_capacity(token.len());
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        if !run.chars().any(|c| c.is_ascii_digit()) {
            out.push_str(run);
        }
        run.clear();
    };
    for c in token.chars() {
        if c.is_alphanumeric() {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_value_is_recognised() {
        let cases = [
            ("Fetch https://example.com/a?b=1 now", "Fetch now"),
            ("Mail bob@example.org the report", "Mail the report"),
            ("Read /tmp/report.pdf and ~/notes.txt", "Read and"),
            ("Click #login-button then .nav-item", "Click then"),
            ("Replace 'ACME' with \"Globex\"", "Replace with"),
            ("Close it on 3 January 2024 in Q3", "Close it on January in"),
            ("Apple's price, don't wait", "Apple's price, don't wait"),
            ("roots with a=1, b=-3", "roots with a=, b=-"),
        ];
        for (text, masked) in cases {
            assert_eq!(split_values(text).0, masked, "{text}");
        }
    }

    #[test]
    fn the_share_counts_characters_and_gates_the_embedded_text() {
        let (text, share) = embedded_text("Summarise the weather news");
        assert_eq!((text.as_ref(), share), ("Summarise the weather news", 0.0));
        let q = "Click '#checkout-button-primary' on https://shop.example.com/cart/12345";
        let (text, share) = embedded_text(q);
        assert!(share > 0.7, "{share}");
        assert_eq!(text, "Click on");
        // Mostly values but only one word would remain: the request is embedded whole.
        let (text, _) = embedded_text("Open https://example.com/a/very/long/path");
        assert_eq!(text, "Open https://example.com/a/very/long/path");
        // A few values in a long request: kept.
        let q = "Convert 250 US dollars to Norwegian kroner at today's rate";
        assert_eq!(embedded_text(q).0, q);
    }
}
