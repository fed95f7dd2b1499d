//! The fused search against lexical search, with the tiny test model
//! (`tests/tiny_bert/`, see `tests/tiny_bert.rs`) instead of the real one: the tools
//! named exactly are pinned the same way, and explained parts add up to the score.

use crate::{Embedder, Fusion, Hybrid, SemanticIndex};
use serde_json::json;
use std::path::Path;
use toolsearch_catalog::{
    Catalog, MatchedBy, SearchOptions, SearchResult, Source, Tool, EXACT_NAME_BONUS,
};

fn tiny_model() -> Embedder {
    Embedder::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tiny_bert"))
        .expect("the tiny test model loads")
}

fn tool(server: Option<&str>, name: &str, desc: &str) -> Tool {
    Tool::new(Source::Mcp, server, name, desc, json!({"type": "object"}))
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

/// The default fusion, and with the `lab` feature the ones kept to compare with it.
const FUSIONS: &[Fusion] = &[
    Fusion::Distribution {
        lexical_weight: 0.5,
    },
    #[cfg(feature = "lab")]
    Fusion::Convex {
        lexical_weight: 0.5,
    },
    #[cfg(feature = "lab")]
    Fusion::Rrf { k: 60.0 },
];

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
        tool(None, "get_weather", "Weather forecast for a city"),
        tool(None, "read_file", "Read a file from the repo"),
    ])
    .unwrap()
}

/// True when the hit was ranked by the fusion (its parts are the two sides'), not
/// handed over from lexical search.
fn fused(parts: &[toolsearch_catalog::RuleScore]) -> bool {
    parts
        .iter()
        .any(|p| p.rule == "semantic" || p.rule == "rrf:semantic")
}

#[test]
fn two_tools_sharing_a_name_are_both_pinned_first_in_fused_search() {
    let model = tiny_model();
    let catalog = shared_name_catalog();
    let index = SemanticIndex::build(&model, &catalog, None).unwrap();
    let lexical = catalog.search("send_note", &explained());
    assert_eq!(
        ids(&lexical)[..2],
        ["mcp:alpha:send_note", "mcp:zeta:send_note"]
    );
    for &fusion in FUSIONS {
        let hybrid = Hybrid::new(&catalog, &index, &model)
            .unwrap()
            .with_fusion(fusion);
        for q in ["send_note", "please run send_note for me"] {
            let r = hybrid.search(q, &explained());
            let got = ids(&r);
            let mut first_two = got[..2].to_vec();
            first_two.sort();
            assert_eq!(
                first_two,
                ["mcp:alpha:send_note", "mcp:zeta:send_note"],
                "{fusion:?} {q:?}: {got:?}"
            );
            // The name alone answers those two tools; in prose, a ranking follows.
            if q == "send_note" {
                assert_eq!(got.len(), 2, "{fusion:?} {q:?}: {got:?}");
            } else {
                assert!(got.len() > 2, "{fusion:?} {q:?}: {got:?}");
            }
            assert_eq!(r.matched_by, MatchedBy::Hybrid);
            for (i, h) in r.hits.iter().enumerate() {
                let parts = h.explain.as_ref().unwrap();
                assert!(fused(parts), "{fusion:?} {q:?}: {parts:?}");
                let pinned = parts[0].rule == "exact_name";
                assert_eq!(pinned, i < 2, "{fusion:?} {q:?}: {} {parts:?}", h.id);
                assert!(!pinned || h.score > f64::from(EXACT_NAME_BONUS));
            }
        }
    }
}

#[test]
fn an_exact_name_matching_no_word_is_first_in_fused_search() {
    // `the_and` is made of stopwords: no word of the query reaches it. With the
    // similarity floor out of reach, the semantic side does not find it either.
    let model = tiny_model();
    let catalog = Catalog::new(vec![
        tool(None, "get_weather", "Weather for a city"),
        tool(None, "the_and", "Unrelated"),
        tool(None, "read_file", "Read a file"),
    ])
    .unwrap();
    let index = SemanticIndex::build(&model, &catalog, None).unwrap();
    let lexical = catalog.search("the_and weather", &explained());
    assert_eq!(ids(&lexical)[0], "mcp::the_and");
    for &fusion in FUSIONS {
        for floor in [2.0, -1.0] {
            let hybrid = Hybrid::new(&catalog, &index, &model)
                .unwrap()
                .with_fusion(fusion)
                .with_min_similarity(floor);
            let r = hybrid.search("the_and weather", &explained());
            assert_eq!(r.matched_by, MatchedBy::Hybrid);
            assert_eq!(
                ids(&r)[0],
                "mcp::the_and",
                "{fusion:?} {floor}: {:?}",
                ids(&r)
            );
            assert!(r.hits[0].score > r.hits[1].score);
            let parts = r.hits[0].explain.as_ref().unwrap();
            assert_eq!(parts[0].rule, "exact_name", "{parts:?}");
            assert!(fused(r.hits[1].explain.as_ref().unwrap()));
            if floor > 1.0 {
                // Found by neither side: the lift is all its score.
                assert_eq!(parts.len(), 1, "{parts:?}");
                assert_eq!(ids(&r), ["mcp::the_and", "mcp::get_weather"]);
                assert_eq!(r.total, 2);
            }
        }
    }
}

#[test]
fn fused_parts_add_up_to_the_score() {
    let model = tiny_model();
    let catalog = shared_name_catalog();
    let index = SemanticIndex::build(&model, &catalog, None).unwrap();
    let queries = [
        "send_note",
        "send a note",
        "+note send",
        "weather forecast for the city",
        "read the file from my repo",
        "please run send_note then read_file",
        "get_weathr",
        "select:send_note,read_file",
        "zzzz qqqq",
        "open a pull request",
    ];
    for &fusion in FUSIONS {
        for floor in [crate::hybrid::DEFAULT_MIN_SIMILARITY, -1.0] {
            let hybrid = Hybrid::new(&catalog, &index, &model)
                .unwrap()
                .with_fusion(fusion)
                .with_min_similarity(floor);
            for q in queries {
                let r = hybrid.search(q, &explained());
                for w in r.hits.windows(2) {
                    assert!(w[0].score >= w[1].score, "{fusion:?} {q:?}: {:?}", ids(&r));
                }
                for h in &r.hits {
                    let parts = h.explain.as_ref().expect("parts when explaining");
                    let sum: f64 = parts.iter().map(|p| p.score).sum();
                    assert!(
                        (sum - h.score).abs() <= 1e-3 * parts.len().max(1) as f64,
                        "{fusion:?} {q:?}: {} scores {} but its parts add up to {sum}: {parts:?}",
                        h.id,
                        h.score
                    );
                }
            }
        }
    }
}

#[test]
fn a_repeated_query_is_embedded_once_and_answers_the_same() {
    let catalog = shared_name_catalog();
    let model = tiny_model();
    let index = SemanticIndex::build(&model, &catalog, None).unwrap();
    let hybrid = Hybrid::new(&catalog, &index, &model).unwrap();
    let first = hybrid.search("weather forecast for a city", &SearchOptions::default());
    let again = hybrid.search("weather forecast for a city", &SearchOptions::default());
    assert_eq!(first, again);
    let stats = model.query_cache_stats();
    assert_eq!((stats.hits, stats.misses), (1, 1), "{stats:?}");
    // With the cache off every search embeds.
    let model = tiny_model().with_query_cache(0);
    let hybrid = Hybrid::new(&catalog, &index, &model).unwrap();
    let off = hybrid.search("weather forecast for a city", &SearchOptions::default());
    assert_eq!(ids(&off), ids(&first));
    hybrid.search("weather forecast for a city", &SearchOptions::default());
    assert_eq!(model.query_cache_stats().misses, 2);
}

#[test]
fn the_int8_scan_answers_as_the_f32_scan_does() {
    let catalog = Catalog::demo();
    let model = tiny_model();
    let index = SemanticIndex::build(&model, &catalog, None).unwrap();
    for q in [
        "weather",
        "create a github issue",
        "send a message",
        "read a file",
    ] {
        let v = model.embed(q);
        for k in [1, 5, 50] {
            assert_eq!(
                index.nearest(&v, k, &|_| true),
                index.nearest_f32(&v, k, &|_| true),
                "{q} k={k}"
            );
        }
        let odd = |d: usize| d % 2 == 1;
        assert_eq!(index.nearest(&v, 5, &odd), index.nearest_f32(&v, 5, &odd));
    }
}

#[test]
fn a_required_word_stays_lexical_and_matched_by_says_how_hits_were_found() {
    let model = tiny_model();
    let catalog = shared_name_catalog();
    let index = SemanticIndex::build(&model, &catalog, None).unwrap();
    for &fusion in FUSIONS {
        let hybrid = Hybrid::new(&catalog, &index, &model)
            .unwrap()
            .with_fusion(fusion)
            .with_min_similarity(-1.0);
        // `+word`: exactly lexical search's answer, with no part from the model.
        let q = "+weather forecast for a city";
        let r = hybrid.search(q, &explained());
        let lexical = catalog.search(q, &explained());
        assert_eq!(ids(&r), ids(&lexical), "{fusion:?}");
        assert_eq!(r.matched_by, MatchedBy::Lexical);
        assert!(r.fusion.is_none(), "{fusion:?}");
        for h in &r.hits {
            assert!(!fused(h.explain.as_ref().unwrap()), "{fusion:?}: {}", h.id);
        }
        // Words and meaning together.
        let r = hybrid.search("weather forecast", &explained());
        assert_eq!(r.matched_by, MatchedBy::Hybrid, "{fusion:?}");
        // No word matches: what was found was found by meaning alone.
        let r = hybrid.search("zzqx vvbn", &explained());
        assert!(
            !r.hits.is_empty(),
            "{fusion:?}: no floor, so meaning finds some"
        );
        assert_eq!(
            r.matched_by,
            MatchedBy::Semantic,
            "{fusion:?} {:?}",
            ids(&r)
        );
    }
}
