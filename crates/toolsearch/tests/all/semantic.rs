//! Search through the facade with the embedding model (`cargo xtask fetch-model`);
//! `#[ignore]`d under a plain `cargo test`, run by `cargo xtask test`, where a
//! missing model fails them.

use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use toolsearch::{Embedder, Mode, Policy, Session, ToolSearch};
use toolsearch_catalog::{Catalog, Source, Tool};

fn model() -> Arc<Embedder> {
    let dir = toolsearch_embed::installed_model_dir()
        .unwrap_or_else(|why| panic!("{why}: run `cargo xtask fetch-model`"));
    Arc::new(Embedder::load(&dir).expect("model loads"))
}

fn hit_ids(content: &serde_json::Value) -> Vec<String> {
    content["hits"]
        .as_array()
        .map(|h| {
            h.iter()
                .map(|h| h["id"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Tools mode on the demo catalog with the model, its vectors ready.
fn fused_demo() -> (ToolSearch, Arc<toolsearch::SemanticSearch>) {
    let ts = ToolSearch::builder()
        .catalog(Catalog::demo())
        .mode(Mode::Tools)
        .semantic(model(), None)
        .build()
        .unwrap();
    let semantic = ts.host().semantic().expect("configured").clone();
    assert_eq!(
        semantic.wait_ready(&ts.host().catalog(), Duration::from_secs(60)),
        Ok(true)
    );
    (ts, semantic)
}

#[tokio::test]
#[ignore = "needs the embedding model (`cargo xtask fetch-model`); `cargo xtask test` runs it"]
async fn structured_search_finds_tools_by_meaning_within_the_session_scope() {
    let (ts, semantic) = fused_demo();
    let q = json!({"query": "will it rain tomorrow"});
    let s = Session::new("s");
    let out = ts.handle_call(&s, "tool_search", q.clone()).await;
    assert!(!out.is_error, "{}", out.content);
    assert!(
        hit_ids(&out.content)[0].starts_with("mcp:weather:"),
        "{}",
        out.content
    );

    // The session's scope hides tools from the semantic side too.
    let mut narrow = Session::new("narrow");
    narrow.scope = Policy::from_patterns::<&str, &str>(&[], &["mcp:weather:*"]);
    let out = ts.handle_call(&narrow, "tool_search", q.clone()).await;
    assert!(
        hit_ids(&out.content)
            .iter()
            .all(|id| !id.starts_with("mcp:weather:")),
        "{}",
        out.content
    );

    // A new snapshot is searched lexically until its vectors are ready, then fused.
    let mut tools = Catalog::demo().tools().to_vec();
    tools.push(Tool::new(
        Source::Mcp,
        Some("films"),
        "showtimes",
        "Cinema listings near you",
        json!({"type": "object"}),
    ));
    ts.set_catalog(Catalog::new(tools).unwrap());
    assert_eq!(
        semantic.wait_ready(&ts.host().catalog(), Duration::from_secs(60)),
        Ok(true)
    );
    let out = ts
        .handle_call(
            &s,
            "tool_search",
            json!({"query": "which movies are playing tonight"}),
        )
        .await;
    assert_eq!(
        hit_ids(&out.content).first().map(String::as_str),
        Some("mcp:films:showtimes"),
        "{}",
        out.content
    );
}

#[tokio::test]
#[ignore = "needs the embedding model (`cargo xtask fetch-model`); `cargo xtask test` runs it"]
async fn client_tools_are_found_by_meaning_with_the_shared_ones() {
    let (ts, _) = fused_demo();
    let showtimes = Tool::new(
        Source::Client,
        Some("films"),
        "showtimes",
        "Cinema listings near you",
        json!({"type": "object"}),
    );
    let client =
        toolsearch::ClientTools::new(vec![showtimes], Arc::new(toolsearch::EchoDispatcher))
            .unwrap();
    let s = Session {
        client_tools: Some(client),
        ..Session::new("run")
    };
    // No word in common: only the client tool's own vector finds it, in the same
    // fused ranking as the shared tools.
    for query in ["which movies are playing tonight", "will it rain tomorrow"] {
        let out = ts
            .handle_call(&s, "tool_search", json!({"query": query}))
            .await;
        let ids = hit_ids(&out.content);
        let want = if query.contains("movies") {
            "client:films:showtimes"
        } else {
            "mcp:weather:"
        };
        assert!(
            ids.first().is_some_and(|id| id.starts_with(want)),
            "{query}: {}",
            out.content
        );
    }
}
