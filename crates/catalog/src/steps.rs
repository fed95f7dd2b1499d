//! Steps of a request: "Stage all changes in my repo, commit them with the message
//! 'fix typo', and then show the log" asks for three tools. Ranked as one query, the
//! tool matching most of its words fills the first places; ranked step by step and
//! interleaved, each step's best tool gets one of them.
//!
//! [`split_steps`] cuts a request at clause boundaries (a sentence end, `;`, `then`,
//! `, and`, `also`), outside quoted text, keeping only pieces of at least
//! [`MIN_STEP_TERMS`] search terms (a shorter piece joins the one before it);
//! [`take_turns`] interleaves the whole request's ranking with each step's
//! ([`crate::by_steps`]).
//!
//! Off by default ([`crate::SearchOptions::steps`]): on every public set it cost recall@5,
//! lexical and fused (`eval/README.md`), because the requests it splits are mostly
//! one step written in several sentences, and the whole request's second to fifth
//! hits are what a step's first hit displaces.

use crate::query::{self, Query};

/// Most steps a request is split into (the rest stays in the last one).
pub const MAX_STEPS: usize = 4;
/// Search terms (stop words and values aside) a piece needs to be a step of its own.
pub const MIN_STEP_TERMS: usize = 2;

/// Words that start a new step after a comma or on their own.
const STEP_WORDS: &[&str] = &["then", "also", "afterwards", "finally", "next"];

fn terms(piece: &str) -> usize {
    match query::parse(piece) {
        Query::Keywords(kw) => kw.terms.len(),
        _ => 0,
    }
}

/// The request's steps, in order; empty when it is one step (the usual case).
pub fn split_steps(request: &str) -> Vec<String> {
    let mut pieces: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let chars: Vec<char> = request.chars().collect();
    let mut i = 0;
    let cut = |current: &mut String, pieces: &mut Vec<String>| {
        let piece = current.trim().to_string();
        if !piece.is_empty() {
            pieces.push(piece);
        }
        current.clear();
    };
    while i < chars.len() {
        let c = chars[i];
        let prev_space = i == 0 || chars[i - 1].is_whitespace();
        if let Some(q) = quote {
            current.push(c);
            if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        match c {
            '"' | '`' | '“' => {
                quote = Some(if c == '“' { '”' } else { c });
                current.push(c);
                i += 1;
                continue;
            }
            '\'' if prev_space => {
                quote = Some('\'');
                current.push(c);
                i += 1;
                continue;
            }
            '.' | '?' | '!' | ';' if chars.get(i + 1).is_none_or(|n| n.is_whitespace()) => {
                cut(&mut current, &mut pieces);
                i += 1;
                continue;
            }
            _ => {}
        }
        // A step word at a word start: `then …`, `, and then …`, `, and …`.
        if prev_space && c.is_alphabetic() {
            let word: String = chars[i..]
                .iter()
                .take_while(|c| c.is_alphanumeric())
                .collect::<String>()
                .to_lowercase();
            let after_comma = current.trim_end().ends_with(',');
            if STEP_WORDS.contains(&word.as_str()) || (word == "and" && after_comma) {
                let rest = current.trim_end().trim_end_matches(',').to_string();
                current = rest;
                cut(&mut current, &mut pieces);
                i += word.chars().count();
                continue;
            }
        }
        current.push(c);
        i += 1;
    }
    cut(&mut current, &mut pieces);
    // Pieces too short to search on their own join the previous one (a short first
    // piece takes the next one in, so no short step is left unless it is alone).
    let mut steps: Vec<String> = Vec::new();
    for piece in pieces {
        match steps.last_mut() {
            Some(last) if terms(&piece) < MIN_STEP_TERMS || terms(last) < MIN_STEP_TERMS => {
                last.push(' ');
                last.push_str(&piece);
            }
            _ => steps.push(piece),
        }
    }
    while steps.len() > MAX_STEPS {
        let last = steps.pop().expect("more than one");
        let before = steps.last_mut().expect("more than one");
        before.push(' ');
        before.push_str(&last);
    }
    if steps.len() < 2 {
        steps.clear();
    }
    steps
}

/// Takes turns over `lists`: the first's first item, the second's first, ..., then
/// the first's second, and so on, skipping items `same` as one already taken, up to
/// `limit` items.
pub fn take_turns<T>(lists: Vec<Vec<T>>, limit: usize, same: impl Fn(&T, &T) -> bool) -> Vec<T> {
    let mut lists: Vec<std::vec::IntoIter<T>> = lists.into_iter().map(Vec::into_iter).collect();
    let mut out: Vec<T> = Vec::with_capacity(limit);
    'fill: loop {
        let mut any = false;
        for list in lists.iter_mut() {
            for item in list.by_ref() {
                any = true;
                if out.iter().any(|o| same(o, &item)) {
                    continue;
                }
                out.push(item);
                if out.len() >= limit {
                    break 'fill;
                }
                break;
            }
        }
        if !any {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_splits_at_its_clause_boundaries() {
        assert_eq!(
            split_steps(
                "Stage all changes in my repo; commit them with the message 'fix typo. now', \
                 and then show the commit log"
            ),
            [
                "Stage all changes in my repo",
                "commit them with the message 'fix typo. now'",
                "show the commit log"
            ]
        );
        assert_eq!(
            split_steps("Find flights to Lisbon. Also book a hotel near the beach; rent a car"),
            [
                "Find flights to Lisbon",
                "book a hotel near the beach",
                "rent a car"
            ]
        );
    }

    #[test]
    fn one_step_requests_are_not_split() {
        for q in [
            // A comma alone lists objects as often as steps: not a boundary.
            "Stage all changes in my repo, the docs, and the tests",
            "create a github issue",
            "Find the area of a triangle with base 10 and height 5.",
            "What is the weather in Paris and in Rome?",
            "Hi. Get the weather forecast",
            "read_file",
        ] {
            assert!(split_steps(q).is_empty(), "{q}: {:?}", split_steps(q));
        }
    }

    #[test]
    fn turns_skip_repeats_and_stop_at_the_limit() {
        let lists = vec![vec![1, 2, 3], vec![2, 4], vec![], vec![5, 1, 6]];
        assert_eq!(
            take_turns(lists.clone(), 10, |a, b| a == b),
            [1, 2, 5, 3, 4, 6]
        );
        assert_eq!(take_turns(lists, 3, |a, b| a == b), [1, 2, 5]);
        assert!(take_turns(Vec::<Vec<u8>>::new(), 3, |a, b| a == b).is_empty());
    }

    #[test]
    fn steps_are_capped() {
        let q = "send an email. read the inbox. list calendar events. create a task. \
                 delete old files. post a tweet";
        let steps = split_steps(q);
        assert_eq!(steps.len(), MAX_STEPS);
        assert!(steps[MAX_STEPS - 1].ends_with("post a tweet"));
    }
}
