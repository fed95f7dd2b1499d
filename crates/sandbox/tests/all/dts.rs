//! `js/openclaw.d.ts`, the declaration handed to models, against what a snippet
//! really finds: the `openclaw.tools` methods, the `console` methods and the error
//! codes. A method added to the prelude or the ops without its declaration (or the
//! other way round) fails here.

use std::collections::BTreeSet;

use toolsearch_sandbox::BridgeErrorCode;

use crate::common::run;

fn dts() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../js/openclaw.d.ts");
    std::fs::read_to_string(path).expect("js/openclaw.d.ts")
}

/// Method names declared inside the block that opens with `opening`.
fn methods(text: &str, opening: &str) -> BTreeSet<String> {
    let start = text
        .find(opening)
        .unwrap_or_else(|| panic!("no `{opening}`"))
        + opening.len();
    let mut depth = 1usize;
    let mut end = start;
    for (i, c) in text[start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    end = start + i;
                    break;
                }
            }
            _ => {}
        }
    }
    text[start..end]
        .lines()
        .map(str::trim)
        .filter_map(|l| {
            let name = l.split('(').next()?;
            (l.contains('(') && !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric()))
                .then(|| name.to_string())
        })
        .collect()
}

fn keys(v: &serde_json::Value) -> BTreeSet<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .map(|k| k.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_declaration_matches_what_a_snippet_finds() {
    let text = dts();
    let r = run(
        "return {tools: Reflect.ownKeys(openclaw.tools), console: Reflect.ownKeys(console), \
         top: Reflect.ownKeys(openclaw)};",
    );
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(keys(&r.value["tools"]), methods(&text, "readonly tools: {"));
    assert_eq!(
        keys(&r.value["console"]),
        methods(&text, "declare const console: {")
    );
    assert_eq!(keys(&r.value["top"]), BTreeSet::from(["tools".to_string()]));
    let declared: BTreeSet<String> = text
        .split("type ToolErrorCode =")
        .nth(1)
        .unwrap_or("")
        .lines()
        .map(str::trim)
        .skip_while(|l| l.is_empty())
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| l.split('"').nth(1))
        .map(str::to_string)
        .collect();
    let real: BTreeSet<String> = BridgeErrorCode::ALL
        .iter()
        .map(|c| c.as_str().to_string())
        .collect();
    assert_eq!(declared, real);
}
