//! The store of tool vectors (issue 34): a catalog change embeds only its new
//! tools, the directory stays bounded over many changes, the files of the earlier
//! layout are removed, a directory that cannot be written keeps search working,
//! and a superseded build stops. On the tiny test model (`tests/tiny_bert/`).

use std::path::{Path, PathBuf};

use serde_json::json;
use toolsearch_catalog::{Catalog, Source, Tool};
use toolsearch_embed::{EmbedError, Embedder, SemanticIndex};

fn model() -> Embedder {
    Embedder::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tiny_bert"))
        .expect("the tiny test model loads")
}

/// `n` tools whose texts are the test's own (`tag`): the store is shared by the
/// process, as it is by a gateway.
fn catalog(tag: &str, n: usize, generation: usize) -> Catalog {
    let tools = (0..n)
        .map(|i| {
            Tool::new(
                Source::Mcp,
                Some("srv"),
                &format!("tool_{i}"),
                // Every fourth tool's text changes with the generation.
                &if i % 4 == 0 {
                    format!("{tag}: does task {i}, version {generation}")
                } else {
                    format!("{tag}: does task {i}")
                },
                json!({"type": "object"}),
            )
        })
        .collect();
    Catalog::new(tools).unwrap()
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ts-cache-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn bytes_in(d: &Path) -> (u64, usize) {
    let files: Vec<_> = std::fs::read_dir(d).unwrap().flatten().collect();
    (
        files.iter().map(|f| f.metadata().unwrap().len()).sum(),
        files.len(),
    )
}

#[test]
fn a_catalog_change_embeds_only_its_new_tools_and_the_directory_stays_bounded() {
    let m = model();
    let d = dir("bounded");
    // A file of the earlier layout (one per whole catalog, never deleted).
    let legacy = d.join(format!("{}-0123456789abcdef.vec", m.model_id()));
    std::fs::write(&legacy, b"old").unwrap();
    let first = SemanticIndex::build(&m, &catalog("bounded", 200, 0), Some(&d)).unwrap();
    assert_eq!(first.stats().embedded, 200);
    assert!(!legacy.exists(), "the earlier layout's files are removed");
    // The same catalog again: nothing embedded, the same vectors.
    let again = SemanticIndex::build(&m, &catalog("bounded", 200, 0), Some(&d)).unwrap();
    assert_eq!(again.stats().embedded, 0);
    assert_eq!(again.vector(7), first.vector(7));
    // One tool added: one embedded.
    let plus_one = SemanticIndex::build(&m, &catalog("bounded", 201, 0), Some(&d)).unwrap();
    assert_eq!(plus_one.stats().embedded, 1);
    eprintln!(
        "201 tools after 200: embedded {}",
        plus_one.stats().embedded
    );
    // Twenty changes of a quarter of the tools each, the store bounded to 400
    // texts: 50 embedded each time (the older versions of the changed texts are
    // the ones dropped), one file in the directory, never past its bound.
    let (first_bytes, _) = bytes_in(&d);
    let per_text = (first_bytes - 16) / 201;
    let bound = (16 + 400 * per_text) as usize;
    let mut sizes = Vec::new();
    for g in 1..=20 {
        let texts: Vec<String> = catalog("bounded", 200, g)
            .tools()
            .iter()
            .map(toolsearch_embed::tool_text)
            .collect();
        let (_, stats) =
            toolsearch_embed::embed_cached_within(&m, &texts, Some(&d), bound).unwrap();
        assert_eq!(stats.embedded, 50, "generation {g}");
        let (bytes, files) = bytes_in(&d);
        assert_eq!(files, 1, "one store file, no temporary left");
        assert!(bytes as usize <= bound, "generation {g}: {bytes} > {bound}");
        sizes.push(bytes);
    }
    eprintln!("store size over 20 changes (bound {bound}): {sizes:?}");
    assert_eq!(sizes[19], bound as u64, "full, and no further");
    // The catalog of the last change is whole in the store: nothing to embed.
    let last = SemanticIndex::build(&m, &catalog("bounded", 200, 20), Some(&d)).unwrap();
    assert_eq!(last.stats().embedded, 0);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_directory_that_cannot_be_written_keeps_search_and_memory() {
    let m = model();
    let d = dir("unwritable");
    // A file where the directory should be: nothing can be written under it.
    let not_a_dir = d.join("file");
    std::fs::write(&not_a_dir, b"x").unwrap();
    let ix = SemanticIndex::build(&m, &catalog("unwritable", 30, 100), Some(&not_a_dir)).unwrap();
    assert_eq!(ix.len(), 30);
    assert_eq!(ix.stats().embedded, 30);
    // The vectors are kept in memory: one new tool, one embedded.
    let ix = SemanticIndex::build(&m, &catalog("unwritable", 31, 100), Some(&not_a_dir)).unwrap();
    assert_eq!(ix.stats().embedded, 1);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_superseded_build_stops() {
    let m = model();
    let r = SemanticIndex::build_with(&m, &catalog("superseded", 600, 7), None, &|| true);
    assert!(matches!(r, Err(EmbedError::Cancelled)), "{r:?}");
}
