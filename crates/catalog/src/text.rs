//! Tokenising tool names and prose into search terms.
//!
//! Names split on `_`, `__`, `-`, `.`, `/`, spaces, camelCase and letter/digit
//! boundaries; everything is lower-cased; alphabetic ASCII words are stemmed
//! (Snowball English). Runs of CJK characters become overlapping bigrams, since
//! those scripts put no spaces between words.

use rust_stemmers::{Algorithm, Stemmer};
use std::sync::OnceLock;

/// Words too common in English prose to carry intent in a query or a description.
const STOPWORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as",
    "at", "be", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could",
    "did", "do", "does", "doing", "during", "each", "either", "etc", "few", "for", "from",
    "further", "given", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his",
    "how", "i", "if", "im", "in", "into", "is", "it", "its", "itself", "just", "let", "like",
    "may", "me", "might", "more", "most", "must", "my", "myself", "need", "no", "nor", "not",
    "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "out", "over", "own",
    "please", "same", "shall", "she", "should", "so", "some", "such", "than", "that", "the",
    "their", "theirs", "them", "then", "there", "these", "they", "this", "those", "through", "to",
    "too", "under", "until", "up", "us", "use", "using", "very", "via", "want", "was", "we",
    "were", "what", "when", "where", "whether", "which", "while", "who", "whom", "why", "will",
    "with", "would", "you", "your", "yours", "yourself", "ll", "ve", "re", "s", "t", "d", "m",
];

/// Groups of action verbs that tool names use interchangeably: a user who says "open
/// an issue" means the tool named `create_issue`.
const VERB_GROUPS: &[&[&str]] = &[
    &["create", "add", "new", "make", "open", "insert", "register"],
    &[
        "get", "fetch", "retrieve", "read", "show", "view", "load", "obtain", "lookup",
    ],
    &["list", "enumerate", "browse"],
    &["search", "find", "query", "lookup", "locate", "look"],
    &[
        "update", "edit", "modify", "change", "set", "patch", "rename",
    ],
    &["delete", "remove", "erase", "destroy", "drop", "clear"],
    &["send", "post", "publish", "notify"],
    &["run", "execute", "invoke", "launch", "start", "trigger"],
    &["stop", "halt", "kill", "terminate", "cancel"],
    &["schedule", "book", "reserve"],
];

/// Other stems that name the same action as `stem` (empty for most words).
pub fn verb_synonyms(stem_: &str) -> impl Iterator<Item = &'static str> + '_ {
    static GROUPS: OnceLock<Vec<Vec<String>>> = OnceLock::new();
    let groups = GROUPS.get_or_init(|| {
        VERB_GROUPS
            .iter()
            .map(|g| g.iter().map(|w| stem(w)).collect())
            .collect()
    });
    groups
        .iter()
        .filter(move |g| g.iter().any(|s| s == stem_))
        .flat_map(|g| g.iter().map(String::as_str))
        .filter(move |s| *s != stem_)
}

/// True for English function words that carry no intent.
pub fn is_stopword(word: &str) -> bool {
    static SET: OnceLock<rustc_hash::FxHashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| STOPWORDS.iter().copied().collect())
        .contains(word)
}

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// The stem of one lower-case word; words with non-ASCII letters or digits are kept as they are.
pub fn stem(word: &str) -> String {
    if word.len() > 3 && word.bytes().all(|b| b.is_ascii_lowercase()) {
        stemmer().stem(word).into_owned()
    } else {
        word.to_string()
    }
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xAC00..=0xD7AF
        | 0x20000..=0x2FFFF)
}

#[derive(Clone, Copy, PartialEq)]
enum Class {
    Lower,
    Upper,
    Digit,
    Other,
}

fn class(c: char) -> Class {
    if c.is_ascii() {
        return if c.is_ascii_digit() {
            Class::Digit
        } else if c.is_ascii_uppercase() {
            Class::Upper
        } else {
            Class::Other
        };
    }
    if c.is_numeric() {
        Class::Digit
    } else if c.is_uppercase() {
        Class::Upper
    } else {
        Class::Other
    }
}

/// True when a word ends before a character of class `cls` that follows one of class
/// `prev` (camelCase, letter/digit changes); `next` peeks at the character after it.
#[inline(always)]
fn is_boundary(prev: Class, cls: Class, next: impl FnOnce() -> Option<char>) -> bool {
    match (prev, cls) {
        (Class::Lower, Class::Upper) => true,
        (Class::Digit, Class::Lower | Class::Upper) => true,
        (Class::Lower | Class::Upper, Class::Digit) => true,
        // "HTMLParser": the last capital of a run starts the next word.
        (Class::Upper, Class::Upper) => next().is_some_and(|n| n.is_lowercase() && !is_cjk(n)),
        _ => false,
    }
}

/// Splits text into lower-case words (no stemming, no stopword removal).
///
/// `"getHTMLPage_v2"` gives `get`, `html`, `page`, `v`, `2`; `"搜索关键词"` gives the bigrams
/// `搜索`, `索关`, `关键`, `键词`.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_word(text, |w| out.push(w.to_string()));
    out
}

/// Calls `f` with each word of `words(text)`, reusing one buffer (no allocation per word).
pub fn for_each_word(text: &str, f: impl FnMut(&str)) {
    for_each_word_with(&mut String::new(), text, f);
}

/// [`for_each_word`] with the caller's buffer, so tokenizing many texts allocates it once.
/// A word passed as it is written (lower-case ASCII between separators) is a slice of
/// `text`; others are in `cur`.
pub fn for_each_word_with(cur: &mut String, text: &str, mut f: impl FnMut(&str)) {
    cur.clear();
    // The current CJK run: its last character and its length.
    let mut cjk_run: Option<(char, usize)> = None;
    let mut prev = Class::Other;
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut buf = [0u8; 8];
    // ASCII is classified byte by byte; other characters are decoded.
    let char_at = |i: usize| -> Option<(char, usize)> {
        let b = *bytes.get(i)?;
        if b < 0x80 {
            Some((b as char, 1))
        } else {
            text[i..].chars().next().map(|c| (c, c.len_utf8()))
        }
    };
    macro_rules! flush {
        () => {
            if !cur.is_empty() {
                f(cur);
                cur.clear();
            }
        };
    }
    // A CJK run of one character is a word of its own (longer runs gave bigrams).
    macro_rules! end_cjk_run {
        () => {
            if let Some((p, 1)) = cjk_run.take() {
                f(p.encode_utf8(&mut buf));
            }
        };
    }
    while i < bytes.len() {
        // Fast path for the common cases, an ASCII word written `word` or `Word` that
        // starts and ends at a separator: no boundary can fall inside it. A lower-case
        // one is passed as a slice of `text`; a capitalised one is lower-cased whole.
        let capital = bytes[i].is_ascii_uppercase();
        if cur.is_empty() && (capital || bytes[i].is_ascii_lowercase()) {
            let from = i + usize::from(capital);
            let end = from
                + bytes[from..]
                    .iter()
                    .position(|b| !b.is_ascii_lowercase())
                    .unwrap_or(bytes.len() - from);
            if bytes
                .get(end)
                .is_none_or(|&b| b < 0x80 && !b.is_ascii_alphanumeric())
            {
                end_cjk_run!();
                if capital {
                    cur.push(bytes[i].to_ascii_lowercase() as char);
                    cur.push_str(&text[from..end]);
                    f(cur);
                    cur.clear();
                } else {
                    f(&text[i..end]);
                }
                i = end;
                prev = Class::Other;
                continue;
            }
        }
        let Some((c, len)) = char_at(i) else { break };
        i += len;
        let ascii = c.is_ascii();
        if !ascii && is_cjk(c) {
            flush!();
            // Overlapping bigrams.
            let run = match cjk_run {
                Some((p, run)) => {
                    let n = p.encode_utf8(&mut buf).len();
                    let m = c.encode_utf8(&mut buf[n..]).len();
                    f(std::str::from_utf8(&buf[..n + m]).unwrap_or_default());
                    run
                }
                None => 0,
            };
            cjk_run = Some((c, run + 1));
            prev = Class::Other;
            continue;
        }
        end_cjk_run!();
        if !(if ascii {
            c.is_ascii_alphanumeric()
        } else {
            c.is_alphanumeric()
        }) {
            flush!();
            prev = Class::Other;
            continue;
        }
        let cls = match class(c) {
            Class::Other => Class::Lower,
            cls => cls,
        };
        if is_boundary(prev, cls, || char_at(i).map(|(n, _)| n)) {
            flush!();
        }
        if ascii {
            cur.push(c.to_ascii_lowercase());
        } else {
            cur.extend(c.to_lowercase());
        }
        prev = cls;
    }
    flush!();
    end_cjk_run!();
}

/// Search terms of a text: words without stopwords, stemmed.
pub fn terms(text: &str) -> Vec<String> {
    words(text)
        .into_iter()
        .filter(|w| !is_stopword(w))
        .map(|w| stem(&w))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_separators_camel_case_and_digits() {
        assert_eq!(
            words("mcp__slack__send_message"),
            ["mcp", "slack", "send", "message"]
        );
        assert_eq!(words("NotebookEdit"), ["notebook", "edit"]);
        assert_eq!(words("getHTMLPage_v2"), ["get", "html", "page", "v", "2"]);
        assert_eq!(words("a-b.c/d e"), ["a", "b", "c", "d", "e"]);
        assert_eq!(words("s3Bucket"), ["s", "3", "bucket"]);
    }

    #[test]
    fn whole_ascii_words_still_split_where_the_general_path_would() {
        // The fast path covers `send`, `Message`, `Url`, `bing`; the rest must fall back.
        assert_eq!(words("send Message."), ["send", "message"]);
        assert_eq!(words("URL, Url url"), ["url", "url", "url"]);
        assert_eq!(
            words("HTMLParser ABc aB"),
            ["html", "parser", "a", "bc", "a", "b"]
        );
        assert_eq!(words("Get2 Übung Straße"), ["get", "2", "übung", "straße"]);
        assert_eq!(words("sendMessage x"), ["send", "message", "x"]);
        assert_eq!(
            words("abc2 café bing天气"),
            ["abc", "2", "café", "bing", "天气"]
        );
        assert_eq!(words("天气bing"), ["天气", "bing"]);
        assert_eq!(words("天bing"), ["天", "bing"]);
        assert_eq!(words("a"), ["a"]);
    }

    #[test]
    fn empty_and_punctuation_only_give_nothing() {
        assert!(words("").is_empty());
        assert!(words("__--..//  ").is_empty());
        assert!(terms("the of and").is_empty());
    }

    #[test]
    fn unicode_letters_are_lowercased_and_kept() {
        assert_eq!(words("ÉCOLE_Straße"), ["école", "straße"]);
        assert_eq!(words("Ωmega"), ["ωmega"]);
    }

    #[test]
    fn chinese_becomes_bigrams() {
        assert_eq!(words("搜索关键词"), ["搜索", "索关", "关键", "键词"]);
        assert_eq!(words("用bing搜"), ["用", "bing", "搜"]);
    }

    #[test]
    fn verb_groups_give_synonym_stems() {
        let syn: Vec<_> = verb_synonyms(&stem("open")).collect();
        assert!(syn.contains(&stem("create").as_str()), "{syn:?}");
        assert!(!syn.contains(&"open"));
        let syn: Vec<_> = verb_synonyms(&stem("finding")).collect();
        assert!(syn.contains(&"search"), "{syn:?}");
        assert_eq!(verb_synonyms("weather").count(), 0);
    }

    #[test]
    fn stems_english_plurals_and_verbs() {
        assert_eq!(terms("Lists the issues"), ["list", "issu"]);
        assert_eq!(stem("searching"), stem("search"));
        assert_eq!(stem("x2"), "x2");
    }
}
