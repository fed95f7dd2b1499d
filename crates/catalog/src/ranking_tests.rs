//! The exact-name rule ([`crate::pin`]) and the explanation of scores: a tool named
//! exactly is first however many share its name, and a hit's explained parts add up
//! to its score.

use crate::query::{parse, Keywords, Query};
use crate::*;
use proptest::prelude::*;
use serde_json::json;

fn tool(server: Option<&str>, name: &str, desc: &str) -> Tool {
    Tool::new(Source::Mcp, server, name, desc, json!({"type": "object"}))
}

fn keywords(q: &str) -> Keywords {
    match parse(q) {
        Query::Keywords(kw) => kw,
        other => panic!("expected keywords, got {other:?}"),
    }
}

fn ids(r: &SearchResult) -> Vec<&str> {
    r.hits.iter().map(|h| h.id.as_str()).collect()
}

fn explained() -> SearchOptions {
    SearchOptions {
        explain: true,
        ..SearchOptions::default()
    }
}

/// The same tool on two servers, and tools that match the query's words better.
fn shared_name_catalog() -> Catalog {
    Catalog::new(vec![
        tool(Some("zeta"), "send_note", "Sends"),
        tool(
            Some("mail"),
            "send_note_and_note_again",
            "Send a note: note, note, send the note",
        ),
        tool(Some("alpha"), "send_note", "Sends"),
        tool(Some("notes"), "note_sender", "Send a note to a note list"),
    ])
    .unwrap()
}

#[test]
fn exact_name_docs_lists_every_visible_tool_of_the_name_in_id_order() {
    let c = shared_name_catalog();
    let docs = c.exact_name_docs(&keywords("send_note"), &|_| true);
    let named: Vec<&str> = docs.iter().map(|&d| c.tools()[d].id.as_str()).collect();
    assert_eq!(named, ["mcp:alpha:send_note", "mcp:zeta:send_note"]);
    // The id of one, and (case-insensitive) its name again: each tool once, the id's first.
    let docs = c.exact_name_docs(&keywords("mcp:zeta:send_note SEND_NOTE"), &|_| true);
    let named: Vec<&str> = docs.iter().map(|&d| c.tools()[d].id.as_str()).collect();
    assert_eq!(named, ["mcp:zeta:send_note", "mcp:alpha:send_note"]);
    // Invisible tools are not named.
    let docs = c.exact_name_docs(&keywords("send_note"), &|t| {
        t.server.as_deref() != Some("alpha")
    });
    assert_eq!(docs, [c.position("mcp:zeta:send_note").unwrap()]);
}

#[test]
fn two_tools_sharing_a_name_are_both_pinned_first() {
    let c = shared_name_catalog();
    let r = c.search("send_note", &explained());
    assert_eq!(
        ids(&r)[..2],
        ["mcp:alpha:send_note", "mcp:zeta:send_note"],
        "{:?}",
        ids(&r)
    );
    // The query is that name alone: those two tools are the answer.
    assert_eq!(r.hits.len(), 2, "{:?}", ids(&r));
    // In prose: pinned above tools that match the words better, by the exact-name
    // part.
    let r = c.search("please run send_note for me", &explained());
    assert_eq!(ids(&r)[..2], ["mcp:alpha:send_note", "mcp:zeta:send_note"]);
    assert!(r.hits.len() > 2, "{:?}", ids(&r));
    for h in &r.hits[..2] {
        let parts = h.explain.as_ref().unwrap();
        assert_eq!(parts[0].rule, "exact_name");
        assert!(parts[0].score >= f64::from(EXACT_NAME_BONUS));
    }
    assert!(r.hits[2..]
        .iter()
        .all(|h| h.explain.as_ref().unwrap()[0].rule != "exact_name"));
    // When only one of them is visible.
    let r = c.search_scoped("send_note", &SearchOptions::default(), &|t| {
        t.server.as_deref() != Some("alpha")
    });
    assert_eq!(ids(&r)[0], "mcp:zeta:send_note");
}

#[test]
fn an_exact_name_matching_no_word_is_still_first() {
    // `the_and` is made of stopwords: no word of the query reaches it.
    let c = Catalog::new(vec![
        tool(None, "get_weather", "Weather for a city"),
        tool(None, "the_and", "Unrelated"),
    ])
    .unwrap();
    let r = c.search("the_and weather", &explained());
    assert_eq!(ids(&r), ["mcp::the_and", "mcp::get_weather"]);
    let parts = r.hits[0].explain.as_ref().unwrap();
    assert_eq!(parts.len(), 1, "{parts:?}");
    assert_eq!(parts[0].rule, "exact_name");
    assert_eq!(r.total, 2);
}

#[test]
fn the_fusion_ranking_leaves_exact_names_to_the_fusion() {
    let c = shared_name_catalog();
    let kw = keywords("send_note");
    let ranking = c.keyword_ranking(&kw, 10, &|_| true);
    assert!(
        ranking.iter().all(|h| h.score < EXACT_NAME_BONUS),
        "no exact-name lift in the words' ranking"
    );
}

#[test]
fn pin_exact_lifts_above_any_other_score_and_keeps_the_rest_in_order() {
    // (doc, score) best first; docs 3 and 7 are named exactly, 7 is not ranked.
    let mut ranking = vec![(5usize, 150.0f32), (3, 2.0), (4, 1.0)];
    let pinned = pin_exact(&mut ranking, &[7, 3], |e| e.0, |e| &mut e.1, |d| (d, 0.0));
    assert_eq!(pinned.count, 2);
    // The bonus would leave doc 7 (own score 0) under doc 5: the lift grows to 151.
    assert_eq!(pinned.lift, 151.0);
    assert_eq!(ranking, [(3, 153.0), (7, 151.0), (5, 150.0), (4, 1.0)]);
    // Equal own scores keep the order of `exact`; nothing to pin changes nothing.
    let mut ranking = vec![(1usize, 0.5f32)];
    let pinned = pin_exact(&mut ranking, &[9, 8], |e| e.0, |e| &mut e.1, |d| (d, 0.0));
    assert_eq!(pinned.lift, EXACT_NAME_BONUS);
    assert_eq!(ranking, [(9, 100.0), (8, 100.0), (1, 0.5)]);
    let pinned = pin_exact(&mut ranking, &[], |e| e.0, |e| &mut e.1, |d| (d, 0.0));
    assert_eq!((pinned.count, ranking.len()), (0, 3));
}

/// Words random tools and queries are made of: shared, so queries match.
const WORDS: &[&str] = &[
    "get", "send", "file", "files", "issue", "note", "notebook", "book", "list", "create",
    "delete", "remove", "fetch", "read", "message", "weather", "data", "user", "the", "a",
];

fn arb_name() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(WORDS), 1..4).prop_map(|w| w.join("_"))
}

fn arb_tool() -> impl Strategy<Value = Tool> {
    (
        arb_name(),
        proptest::option::of(proptest::sample::select(&["a", "b", "c"][..])),
        proptest::collection::vec(proptest::sample::select(WORDS), 0..10),
        proptest::collection::vec(proptest::sample::select(WORDS), 0..3),
    )
        .prop_map(|(name, server, desc, params)| {
            let props: serde_json::Map<String, serde_json::Value> = params
                .iter()
                .map(|p| {
                    (
                        p.to_string(),
                        json!({"type": "string", "description": desc.join(" ")}),
                    )
                })
                .collect();
            Tool::new(
                Source::Mcp,
                server,
                &name,
                &desc.join(" "),
                json!({"type": "object", "properties": props}),
            )
        })
}

/// A query word: a plain word, a required one, a tool name, or a near-miss of one.
fn arb_query_word() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(WORDS).prop_map(str::to_string),
        1 => proptest::sample::select(WORDS).prop_map(|w| format!("+{w}")),
        2 => arb_name(),
        1 => arb_name().prop_map(|n| format!("`{n}`")),
        1 => arb_name().prop_map(|n| format!("{n}x")),
    ]
}

fn arb_query() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => proptest::collection::vec(arb_query_word(), 1..6).prop_map(|w| w.join(" ")),
        1 => proptest::collection::vec(arb_name(), 1..3)
            .prop_map(|n| format!("select:{}", n.join(","))),
    ]
}

/// Every hit carries parts, and they add up to its score (both rounded to 4 decimals).
fn assert_parts_add_up(r: &SearchResult, q: &str) -> Result<(), TestCaseError> {
    for h in &r.hits {
        let parts = h.explain.as_ref();
        prop_assert!(parts.is_some(), "{q:?}: {} has no parts", h.id);
        let parts = parts.unwrap();
        let sum: f64 = parts.iter().map(|p| p.score).sum();
        let tolerance = 1e-3 * parts.len().max(1) as f64;
        prop_assert!(
            (sum - h.score).abs() <= tolerance,
            "{q:?}: {} scores {} but its parts add up to {sum}: {parts:?}",
            h.id,
            h.score
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn explained_parts_add_up_to_the_score(
        tools in proptest::collection::vec(arb_tool(), 1..25),
        q in arb_query(),
        band in prop_oneof![Just(0.0f32), Just(DEFAULT_BAND)],
        limit in 1usize..20,
    ) {
        let mut seen = std::collections::HashSet::new();
        let tools: Vec<Tool> = tools.into_iter().filter(|t| seen.insert(t.id.clone())).collect();
        let c = Catalog::new(tools).unwrap();
        let opts = SearchOptions { explain: true, band, limit: Some(limit), ..SearchOptions::default() };
        let r = c.search(&q, &opts);
        assert_parts_add_up(&r, &q)?;
        prop_assert!(r.hits.windows(2).all(|w| w[0].score >= w[1].score), "{q:?}: {:?}", ids(&r));
        // The tools named exactly lead a keyword search, in `exact_name_docs` order
        // among equal scores, and nothing else is lifted.
        if let Query::Keywords(kw) = parse(&q) {
            let exact = c.exact_name_docs(&kw, &|_| true);
            let named: Vec<&str> = exact.iter().map(|&d| c.tools()[d].id.as_str()).collect();
            let lead = r.hits.iter().take_while(|h| named.contains(&h.id.as_str())).count();
            prop_assert_eq!(lead, named.len().min(r.hits.len()), "{:?}: {:?} for {:?}", q, ids(&r), named);
            let is_pinned = |h: &Hit| h.explain.as_ref().unwrap().iter().any(|p| p.rule == "exact_name");
            prop_assert!(r.hits.iter().all(|h| is_pinned(h) == named.contains(&h.id.as_str())));
        }
    }
}
