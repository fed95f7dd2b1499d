//! Steps of a request: "Stage all changes in my repo, commit them with the message
//! 'fix typo', and then show the log" asks for three tools. Ranked as one query, the
//! tool matching most of its words fills the first places; ranked step by step and
//! interleaved, each step's best tool gets one of them.
//!
//! [`split_steps`] cuts a request at clause boundaries (a sentence end, `;`, `then`,
//! `, and`, `also`), outside quoted text, keeping only pieces of at least
//! [`MIN_STEP_TERMS`] search terms (a shorter piece joins the one before it);
//! [`interleave`] merges the whole request's ranking with each step's.
//!
//! Off by default ([`SearchOptions::steps`]): on every public set it cost recall@5,
//! lexical and fused (`eval/README.md`), because the requests it splits are mostly
//! one step written in several sentences, and the whole request's second to fifth
//! hits are what a step's first hit displaces.

use crate::query::{self, Query};
use crate::rank::RuleScore;
use crate::search::{Hit, SearchOptions, SearchResult};

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
    // Pieces too short to search on their own join the previous one.
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
    if steps.first().is_some_and(|s| terms(s) < MIN_STEP_TERMS) && steps.len() > 1 {
        let first = steps.remove(0);
        steps[0] = format!("{first} {}", steps[0]);
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

/// `search` of the request, and when it has several steps ([`split_steps`]), of each
/// step too, interleaved ([`interleave`]), unless `opts.steps` is off.
pub fn by_steps(
    request: &str,
    opts: &SearchOptions,
    mut search: impl FnMut(&str) -> SearchResult,
) -> SearchResult {
    let whole = search(request);
    if !opts.steps || whole.matched_by != crate::MatchedBy::Lexical || whole.hits.is_empty() {
        return whole;
    }
    let (limit, _) = opts.clamp(opts.limit);
    let steps = split_steps(request);
    if steps.is_empty() {
        return whole;
    }
    let results: Vec<SearchResult> = steps
        .iter()
        .map(|s| search(s))
        .filter(|r| r.matched_by == crate::MatchedBy::Lexical)
        .collect();
    interleave(whole, results, limit)
}

/// The whole request's result with each step's best tools interleaved into it:
/// the request's first hit, then each step's first, then the request's second, each
/// step's second, and so on, without repeats, up to `limit`. Scores are made
/// monotone (a hit placed above a better-scoring one takes the score above it, and
/// its explanation says so with an `interleave` part), so the order is the scores'.
pub fn interleave(whole: SearchResult, steps: Vec<SearchResult>, limit: usize) -> SearchResult {
    let mut lists: Vec<std::vec::IntoIter<Hit>> = Vec::with_capacity(steps.len() + 1);
    let mut out = SearchResult {
        hits: Vec::new(),
        ..whole.clone()
    };
    lists.push(whole.hits.into_iter());
    for s in steps {
        out.total = out.total.max(s.total);
        lists.push(s.hits.into_iter());
    }
    let mut hits: Vec<Hit> = Vec::with_capacity(limit);
    'fill: loop {
        let mut any = false;
        for list in lists.iter_mut() {
            for hit in list.by_ref() {
                any = true;
                if hits.iter().any(|h| h.id == hit.id) {
                    continue;
                }
                hits.push(hit);
                if hits.len() >= limit {
                    break 'fill;
                }
                break;
            }
        }
        if !any {
            break;
        }
    }
    let mut above = f64::INFINITY;
    for hit in &mut hits {
        if hit.score > above {
            if let Some(parts) = &mut hit.explain {
                parts.push(RuleScore {
                    score: ((above - hit.score) * 1e4).round() / 1e4,
                    ..RuleScore::new("interleave", None, 0.0)
                });
            }
            hit.score = above;
        }
        above = hit.score;
    }
    out.hits = hits;
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
    fn interleaving_takes_turns_without_repeats_and_keeps_scores_in_order() {
        let c = crate::Catalog::demo();
        let opts = SearchOptions {
            explain: true,
            ..SearchOptions::default()
        };
        let whole = c.search("create a github issue", &opts);
        let step = c.search("send a slack message", &opts);
        let first_step_hit = step.hits[0].id.clone();
        let merged = interleave(whole.clone(), vec![step, whole.clone()], 5);
        let ids: Vec<&str> = merged.hits.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids.len(), 5);
        assert_eq!(ids[0], whole.hits[0].id);
        assert_eq!(ids[1], first_step_hit);
        let mut seen = ids.clone();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), ids.len(), "no repeats: {ids:?}");
        assert!(merged.hits.windows(2).all(|w| w[0].score >= w[1].score));
        for h in &merged.hits {
            let parts: f64 = h.explain.as_ref().unwrap().iter().map(|p| p.score).sum();
            assert!(
                (parts - h.score).abs() < 1e-3,
                "{}: {parts} vs {}",
                h.id,
                h.score
            );
        }
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
