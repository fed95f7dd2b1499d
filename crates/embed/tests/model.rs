//! Checks against the real all-MiniLM-L6-v2 model (`cargo xtask fetch-model` installs
//! it; TOOLSEARCH_EMBED_MODEL points elsewhere): `#[ignore]`d under a plain
//! `cargo test`, run by `cargo xtask test`, where a missing model fails them.

use std::path::PathBuf;
use toolsearch_catalog::{Catalog, SearchOptions, Tool};
use toolsearch_embed::{Embedder, Hybrid, SemanticIndex, WordPiece};

fn model_dir() -> PathBuf {
    toolsearch_embed::installed_model_dir()
        .unwrap_or_else(|why| panic!("{why}: run `cargo xtask fetch-model`"))
}

/// Ids from the reference implementation (Hugging Face `tokenizers`, loading the
/// model's own tokenizer.json), so the two tokenizers are compared, not restated.
#[test]
#[ignore = "needs the embedding model (`cargo xtask fetch-model`); `cargo xtask test` runs it"]
fn tokenizer_matches_the_reference_implementation() {
    let dir = model_dir();
    let vocab =
        WordPiece::from_vocab(&std::fs::read_to_string(dir.join("vocab.txt")).unwrap()).unwrap();
    let cases: [(&str, &[u32]); 3] = [
        (
            "I'm planning a meal using the ingredient beef and grocery.",
            &[101, 1045, 1005, 1049, 4041, 1037, 7954, 2478, 1996, 21774, 12486, 1998, 13025, 1012, 102],
        ),
        (
            "Get currency / forex or crypto exchange rates. Café 天气 naïve e-mail @user #tag $5.00",
            &[
                101, 2131, 9598, 1013, 18921, 2595, 2030, 19888, 2080, 3863, 6165, 1012, 7668, 1811,
                100, 15743, 1041, 1011, 5653, 1030, 5310, 1001, 6415, 1002, 1019, 1012, 4002, 102,
            ],
        ),
        (
            "get_currentWeather-v2: Retrieves the weather™ —forecast… ½",
            &[
                101, 2131, 1035, 2783, 28949, 1011, 1058, 2475, 1024, 12850, 2015, 1996, 4633,
                30108, 1517, 19939, 1529, 1092, 102,
            ],
        ),
    ];
    for (text, want) in cases {
        assert_eq!(vocab.encode(text, 256), want, "{text}");
    }
}

#[test]
#[ignore = "needs the embedding model (`cargo xtask fetch-model`); `cargo xtask test` runs it"]
fn similar_meanings_are_closer_than_unrelated_ones() {
    let dir = model_dir();
    let model = Embedder::load(&dir).unwrap();
    assert_eq!(model.dim(), 384);
    let v = |s: &str| model.embed(s);
    let cos = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    let q = v("what will the weather be like tomorrow");
    let near = v("get the weather forecast for a city");
    let far = v("create a pull request on a repository");
    assert!((cos(&q, &q) - 1.0).abs() < 1e-4, "unit length");
    assert!(
        cos(&q, &near) > cos(&q, &far) + 0.2,
        "{} vs {}",
        cos(&q, &near),
        cos(&q, &far)
    );
    // Batching does not change a vector.
    let batch = model.embed_batch(&["what will the weather be like tomorrow", "x"]);
    assert!(cos(&batch[0], &q) > 0.9999);
}

fn tool(name: &str, description: &str) -> Tool {
    Tool::new(
        toolsearch_catalog::Source::Client,
        None,
        name,
        description,
        serde_json::json!({"type": "object", "properties": {}}),
    )
}

#[test]
#[ignore = "needs the embedding model (`cargo xtask fetch-model`); `cargo xtask test` runs it"]
fn fusion_finds_a_tool_by_meaning_and_keeps_query_syntax() {
    let dir = model_dir();
    let model = Embedder::load(&dir).unwrap();
    let catalog = Catalog::new(vec![
        tool("get_forecast", "Weather forecast for a location"),
        tool("create_pull_request", "Open a pull request on GitHub"),
        tool("send_email", "Send an email message"),
        tool("movie_showtimes", "Cinema listings near you"),
    ])
    .unwrap();
    let index = SemanticIndex::build(&model, &catalog, None).unwrap();
    let hybrid = Hybrid::new(&catalog, &index, &model).unwrap();
    let opts = SearchOptions::default();
    // No word in common with any tool: lexical finds nothing, meaning finds the film tool.
    let lexical = catalog.search("which films are playing tonight", &opts);
    assert!(lexical.hits.is_empty());
    let fused = hybrid.search("which films are playing tonight", &opts);
    assert_eq!(fused.hits[0].name, "movie_showtimes", "{fused:?}");
    #[cfg(feature = "lab")]
    for fusion in [
        toolsearch_embed::Fusion::Convex {
            lexical_weight: 0.5,
        },
        toolsearch_embed::Fusion::Rrf { k: 60.0 },
    ] {
        let other = hybrid.with_fusion(fusion);
        let fused = other.search("which films are playing tonight", &opts);
        assert_eq!(
            fused.hits[0].name, "movie_showtimes",
            "{fusion:?}: {fused:?}"
        );
    }
    // Syntax stays lexical: select: and exact names.
    let sel = hybrid.search("select:send_email", &opts);
    assert_eq!(sel.hits.len(), 1);
    assert_eq!(sel.hits[0].name, "send_email");
    let exact = hybrid.search("send_email weather", &opts);
    assert_eq!(exact.hits[0].name, "send_email");
    // Junk finds nothing rather than the least unrelated tool.
    assert!(hybrid.search("zxqv blorp", &opts).hits.is_empty());
    // One incidental prose word of a long query ("message" in send_email's text) is not
    // enough on its own: the tool must also be close in meaning...
    let junk = hybrid.search("zxqv blorp quux message", &opts);
    assert!(junk.hits.is_empty(), "{junk:?}");
    // ...and when it is, the tool is found though lexical search alone drops it.
    let query = "let my boss know by written message today";
    assert!(catalog.search(query, &opts).hits.is_empty());
    let found = hybrid.search(query, &opts);
    assert_eq!(found.hits[0].name, "send_email", "{found:?}");
    // A scope hides tools from the semantic side too.
    let scoped = hybrid.search_scoped("which films are playing tonight", &opts, &|t| {
        t.name != "movie_showtimes"
    });
    assert!(scoped.hits.iter().all(|h| h.name != "movie_showtimes"));
    // An index for another snapshot is refused.
    let other = Catalog::new(vec![tool("a_tool", "x")]).unwrap();
    assert!(Hybrid::new(&other, &index, &model).is_err());
}
