//! Golden files of the exact definitions sent, per shape and provider, for the demo
//! catalog (`tests/golden/definitions-<shape>-<provider>.json`). A change shows up
//! as a diff to review; `UPDATE_GOLDEN=1 cargo test -p toolsearch --test all golden`
//! rewrites them.

use toolsearch::{Activation, Catalog, Mode, Provider, Session, ToolSearch};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");

#[test]
fn definitions_match_the_golden_files() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut changed = Vec::new();
    let shapes = [
        ("code", Mode::Code, Activation::Always),
        ("tools", Mode::Tools, Activation::Always),
        ("direct", Mode::Tools, Activation::Never),
    ];
    let providers = [
        ("openai_chat", Provider::OpenAiChat),
        ("openai_responses", Provider::OpenAiResponses),
        ("anthropic", Provider::Anthropic),
        ("mcp", Provider::Mcp),
    ];
    for (shape, mode, activation) in shapes {
        let ts = ToolSearch::builder()
            .catalog(Catalog::demo())
            .mode(mode)
            .activation(activation)
            .build()
            .unwrap();
        for (name, provider) in providers {
            let defs = ts.definitions(&Session::new("golden"), provider);
            assert_eq!(defs.decision.shape, shape);
            let text = serde_json::to_string_pretty(&defs.tools).unwrap() + "\n";
            let path = format!("{DIR}/definitions-{shape}-{name}.json");
            if update {
                std::fs::write(&path, &text).unwrap();
                continue;
            }
            let want = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{path}: {e}; run with UPDATE_GOLDEN=1"));
            if want != text {
                changed.push(path);
            }
        }
    }
    assert!(
        changed.is_empty(),
        "definitions changed: {changed:?}; review the diff of a run with UPDATE_GOLDEN=1"
    );
}
