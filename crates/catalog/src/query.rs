//! Query syntax.
//!
//! - plain keywords: `create github issue`
//! - an exact tool name or id, optionally quoted or back-ticked: `` `read_file` ``
//! - `select:a,b`: pick tools by exact name or id
//! - `+word`: a required word (tools without it are filtered out)
//! - `server:NAME` (optionally `page:N`): list one server's tools
//! - empty: browse

use crate::text;

/// At most this many distinct terms of a query are used; the rest are ignored.
pub const MAX_TERMS: usize = 32;
/// At most this many names in one `select:`.
pub const MAX_SELECT: usize = 20;

/// A parsed query.
#[derive(Debug, Clone, PartialEq)]
pub enum Query {
    /// Nothing to search for: browse.
    Empty,
    /// `select:a,b`: exact names or ids, de-duplicated, in the order given.
    Select(Vec<String>),
    /// `server:NAME page:N`: one server's tools.
    Server {
        /// The server name as typed.
        name: String,
        /// 1-based page.
        page: usize,
    },
    /// Keyword search.
    Keywords(Keywords),
}

/// The keyword form of a query.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Keywords {
    /// Distinct terms, in query order.
    pub terms: Vec<Term>,
    /// Strings that may be an exact tool name or id (the whole query, identifier-like words).
    pub exact: Vec<String>,
    /// The whole query is one name (no spaces, no `+`): when a tool has exactly
    /// that name, the answer is that tool alone ([`Keywords::names_only`]).
    pub one_name: bool,
}

impl Keywords {
    /// Whether a ranking of these keywords answers only the `pinned` tools named
    /// exactly: the query is one name and some tool has it. The stubs of reveal
    /// mode tell the model to search a tool's exact name; the answer is that tool,
    /// and the prompt grows only by what was asked for.
    pub fn names_only(&self, pinned: usize) -> bool {
        self.one_name && pinned > 0
    }
}

/// One query term.
#[derive(Debug, Clone, PartialEq)]
pub struct Term {
    /// The stemmed form matched against the index.
    pub stem: String,
    /// The lower-case word as typed, matched against name parts (prefix / infix tiers).
    pub word: String,
    /// Written `+word`: tools lacking it are dropped.
    pub required: bool,
}

const WRAPPING: &[char] = &['"', '\'', '`', '“', '”', '‘', '’'];

fn strip_wrapping(s: &str) -> &str {
    s.trim().trim_matches(WRAPPING).trim()
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// A word that looks like a code identifier rather than prose: `read_file`, `gh.search`,
/// `NotebookEdit`, `mcp:github:create_issue`.
pub(crate) fn is_identifier_like(word: &str) -> bool {
    let has_sep = word.contains(['_', '.', '/', ':']) || word.trim_matches('-').contains('-');
    let inner_upper =
        word.chars().skip(1).any(char::is_uppercase) && word.chars().any(char::is_lowercase);
    word.chars().count() >= 3 && (has_sep || inner_upper)
}

/// Parses one query string.
pub fn parse(input: &str) -> Query {
    let trimmed = input.trim();
    if strip_wrapping(trimmed).is_empty() {
        return Query::Empty;
    }
    if let Some(rest) = strip_prefix_ci(trimmed, "select:") {
        let mut names: Vec<String> = Vec::new();
        for name in rest
            .split(',')
            .map(strip_wrapping)
            .filter(|n| !n.is_empty())
        {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
        return Query::Select(names);
    }
    if let Some(rest) = strip_prefix_ci(trimmed, "server:") {
        let mut name = Vec::new();
        let mut page = 1;
        for word in rest.split_whitespace() {
            match strip_prefix_ci(word, "page:").map(str::parse::<usize>) {
                Some(Ok(p)) => page = p.max(1),
                _ => name.push(word),
            }
        }
        return Query::Server {
            name: strip_wrapping(&name.join(" ")).to_string(),
            page,
        };
    }
    let mut kw = Keywords::default();
    let whole = strip_wrapping(trimmed);
    if !whole.contains(char::is_whitespace) {
        kw.exact.push(whole.to_string());
        kw.one_name = !whole.is_empty() && !whole.starts_with('+');
    }
    for raw in trimmed.split_whitespace() {
        let (required, raw) = match raw.strip_prefix('+') {
            Some(rest) if !rest.is_empty() => (true, rest),
            _ => (false, raw),
        };
        let ident = raw.trim_matches(|c: char| !c.is_alphanumeric() && c != '_');
        if is_identifier_like(ident)
            && kw.exact.len() < MAX_TERMS
            && !kw.exact.iter().any(|e| e == ident)
        {
            kw.exact.push(ident.to_string());
        }
        // A word that starts with a digit (`2024`, `13th`, `4:30pm`, `34.228.28.69`) is an
        // argument value in a task description, not a sign of which tool is meant.
        let value = ident.starts_with(|c: char| c.is_ascii_digit());
        if value && !required {
            continue;
        }
        for word in text::words(raw) {
            if !required && text::is_stopword(&word) {
                continue;
            }
            let stem = text::stem(&word);
            if let Some(t) = kw.terms.iter_mut().find(|t| t.stem == stem) {
                t.required |= required;
            } else if kw.terms.len() < MAX_TERMS {
                kw.terms.push(Term {
                    stem,
                    word,
                    required,
                });
            }
        }
    }
    if kw.terms.is_empty() && kw.exact.is_empty() {
        return Query::Empty;
    }
    Query::Keywords(kw)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keywords(q: &str) -> Keywords {
        match parse(q) {
            Query::Keywords(k) => k,
            other => panic!("expected keywords, got {other:?}"),
        }
    }

    #[test]
    fn empty_and_stopword_only_queries_browse() {
        assert_eq!(parse(""), Query::Empty);
        assert_eq!(parse("   ``  "), Query::Empty);
        assert_eq!(parse("the of"), Query::Empty);
    }

    #[test]
    fn select_splits_trims_and_dedupes() {
        assert_eq!(
            parse("select: a , `b`,a,,c"),
            Query::Select(vec!["a".into(), "b".into(), "c".into()])
        );
        assert_eq!(parse("SELECT:x"), Query::Select(vec!["x".into()]));
        assert_eq!(parse("select:"), Query::Select(vec![]));
    }

    #[test]
    fn server_form_takes_a_page() {
        assert_eq!(
            parse("server:github page:3"),
            Query::Server {
                name: "github".into(),
                page: 3
            }
        );
        assert_eq!(
            parse("server:My Server"),
            Query::Server {
                name: "My Server".into(),
                page: 1
            }
        );
        assert_eq!(
            parse("server:x page:0"),
            Query::Server {
                name: "x".into(),
                page: 1
            }
        );
    }

    #[test]
    fn plus_marks_required_and_keeps_stopwords() {
        let k = keywords("+slack send the message");
        let req: Vec<_> = k
            .terms
            .iter()
            .filter(|t| t.required)
            .map(|t| t.word.as_str())
            .collect();
        assert_eq!(req, ["slack"]);
        let all: Vec<_> = k.terms.iter().map(|t| t.word.as_str()).collect();
        assert_eq!(all, ["slack", "send", "message"]);
        let k = keywords("+the thing");
        assert!(k.terms.iter().any(|t| t.word == "the" && t.required));
        // A lone "+" is just punctuation.
        assert!(keywords("+ thing").terms.iter().all(|t| !t.required));
    }

    #[test]
    fn exact_names_quoted_backticked_or_inside_prose() {
        assert_eq!(keywords("`read_file`").exact, ["read_file"]);
        assert_eq!(keywords("\"NotebookEdit\"").exact, ["NotebookEdit"]);
        assert_eq!(keywords("search").exact, ["search"]);
        let k = keywords("please run gh__create_issue now");
        assert_eq!(k.exact, ["gh__create_issue"]);
        assert!(keywords("create an issue").exact.is_empty());
    }

    #[test]
    fn terms_are_stemmed_and_deduplicated() {
        let k = keywords("searching search searches");
        assert_eq!(k.terms.len(), 1);
        assert_eq!(k.terms[0].word, "searching");
    }

    #[test]
    fn term_count_is_capped() {
        let q: Vec<String> = (0..100).map(|i| format!("w{i}x")).collect();
        assert!(keywords(&q.join(" ")).terms.len() <= MAX_TERMS);
    }
}
