//! Generated hostile catalogs (issue 14): random deep, wide and recursive schemas
//! (`$ref` to `$defs` and to the root, cycles, `anyOf` / `allOf` / `oneOf` fan-out)
//! and text drawn from dangerous code points mixed with ASCII, run through load,
//! index, search, the listing, describe and argument repair and validation on a
//! 256 KiB stack: no panic, no stall (case sizes are bounded), and no hidden
//! character in anything a model reads.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{json, Map, Value};
use toolsearch::{check, listing_text, repair, MAX_NOTES, MAX_VIOLATIONS};
use toolsearch_catalog::clean::{is_clean_text, is_identifier_name};
use toolsearch_catalog::ts::MAX_TS_BYTES;
use toolsearch_catalog::{load_str, LoadOptions, SearchOptions};

use crate::hostile_defs::strings;

/// One or more members of each class that must never reach a model.
const DANGEROUS: &[char] = &[
    '\0',
    '\u{7}',
    '\u{8}',
    '\u{1b}',
    '\r',
    '\n',
    '\t',
    '\u{b}',
    '\u{7f}',
    '\u{85}',
    '\u{9b}',
    '\u{ad}',
    '\u{34f}',
    '\u{61c}',
    '\u{115f}',
    '\u{1160}',
    '\u{180e}',
    '\u{200b}',
    '\u{200d}',
    '\u{200e}',
    '\u{2028}',
    '\u{2029}',
    '\u{202a}',
    '\u{202e}',
    '\u{2066}',
    '\u{2069}',
    '\u{2800}',
    '\u{3164}',
    '\u{e000}',
    '\u{fdd0}',
    '\u{fe0f}',
    '\u{feff}',
    '\u{ffa0}',
    '\u{fff9}',
    '\u{fffe}',
    '\u{e0001}',
    '\u{e0041}',
    '\u{e007f}',
    '\u{e0100}',
    '\u{10fffd}',
];

fn hostile_char() -> impl Strategy<Value = char> {
    prop_oneof![
        6 => proptest::char::range('a', 'z'),
        1 => proptest::char::range('A', 'Z'),
        1 => proptest::sample::select(vec![' ', ':', '/', '_', '-', '.', '!', '"', '*', '~']),
        4 => proptest::sample::select(DANGEROUS),
        1 => any::<char>(),
    ]
}

fn text(max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(hostile_char(), 0..max).prop_map(|v| v.into_iter().collect())
}

/// A schema node: leaves of every kind, `$ref`s to `#/$defs/D0`..`D3` (`D4` dangles)
/// and to the root, and objects, arrays and unions over them.
fn schema() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        proptest::sample::select(vec![
            "string", "integer", "number", "boolean", "null", "object", "array"
        ])
        .prop_map(|t| json!({"type": t})),
        proptest::collection::vec(text(8), 1..5).prop_map(|e| json!({"enum": e})),
        text(8).prop_map(|c| json!({"const": c, "title": c})),
        (0..5usize).prop_map(|k| json!({"$ref": format!("#/$defs/D{k}")})),
        Just(json!({"$ref": "#"})),
        any::<bool>().prop_map(Value::Bool),
    ];
    leaf.prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            (proptest::collection::vec((text(10), inner.clone()), 0..6), text(24), any::<bool>())
                .prop_map(|(props, description, closed)| {
                    let required: Vec<&String> = props.iter().take(2).map(|(k, _)| k).collect();
                    let required = json!(required);
                    json!({"type": "object", "properties": props.into_iter().collect::<Map<_, _>>(),
                        "required": required, "description": description, "additionalProperties": !closed})
                }),
            inner.clone().prop_map(|i| json!({"type": "array", "items": i, "maxItems": 3})),
            proptest::collection::vec(inner.clone(), 1..5).prop_map(|v| json!({"anyOf": v})),
            proptest::collection::vec(inner.clone(), 1..5).prop_map(|v| json!({"allOf": v})),
            proptest::collection::vec(inner.clone(), 1..4).prop_map(|v| json!({"oneOf": v})),
            (inner.clone(), text(12))
                .prop_map(|(i, t)| json!({"type": "object", "additionalProperties": i, "title": t, "default": {t.clone(): [t]}})),
        ]
    })
}

/// An input schema: a node with `$defs` `D0`..`D3` that may refer to each other.
fn input_schema() -> impl Strategy<Value = Value> {
    (schema(), proptest::collection::vec(schema(), 4)).prop_map(|(root, defs)| {
        let mut root = match root {
            Value::Object(map) => map,
            other => Map::from_iter([("anyOf".to_string(), json!([other]))]),
        };
        let defs: Map<String, Value> = defs
            .into_iter()
            .enumerate()
            .map(|(i, d)| (format!("D{i}"), d))
            .collect();
        root.insert("$defs".into(), Value::Object(defs));
        Value::Object(root)
    })
}

/// Arbitrary arguments with hostile keys and strings.
fn arguments() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        text(10).prop_map(Value::String),
        Just(json!("42")),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((text(8), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn record() -> impl Strategy<Value = Value> {
    (
        text(40),
        proptest::option::of(text(16)),
        proptest::option::of(text(16)),
        text(80),
        input_schema(),
        proptest::option::of(schema()),
    )
        .prop_map(|(name, server, native, description, input, output)| {
            json!({"name": name, "server": server, "tool_name": native, "description": description,
                "input_schema": input, "output_schema": output, "annotations": {"title": description}})
        })
}

fn clean(s: &str, what: &str) -> Result<(), TestCaseError> {
    prop_assert!(is_clean_text(s), "unclean {what}: {s:?}");
    Ok(())
}

/// One generated catalog, end to end.
fn case(records: Vec<Value>, queries: Vec<String>, args: Value) -> Result<(), TestCaseError> {
    let jsonl: String = records.iter().map(|r| r.to_string() + "\n").collect();
    let loaded = load_str(&jsonl, &LoadOptions::default()).expect("lenient load");
    let c = &loaded.catalog;
    for p in &loaded.problems {
        clean(&p.message, "load report")?;
    }
    for t in c.tools() {
        prop_assert!(is_identifier_name(&t.name), "name {:?}", t.name);
        prop_assert!(t.server.as_deref().is_none_or(is_identifier_name));
        let d = serde_json::to_value(c.describe(&t.id).unwrap()).unwrap();
        prop_assert!(d["typescript"].as_str().unwrap().len() <= MAX_TS_BYTES);
        for s in strings(&d) {
            clean(s, "describe")?;
        }
        let checked = check(&t.input_schema, &args);
        prop_assert!(checked.violations.len() <= MAX_VIOLATIONS);
        for v in &checked.violations {
            prop_assert!(v.path.len() <= 200 && v.message.len() <= 300, "{v:?}");
            clean(&v.path, "violation path")?;
            clean(&v.message, "violation")?;
        }
        let (fixed, notes) = repair(&t.input_schema, args.clone());
        prop_assert!(notes.len() <= MAX_NOTES + 1);
        for n in &notes {
            clean(n, "repair note")?;
        }
        let _ = check(&t.input_schema, &fixed);
        let _ = t.upstream_arguments(fixed);
    }
    let names: Vec<String> = c.tools().iter().map(|t| t.name.clone()).collect();
    let mut all = queries;
    all.extend(["".to_string(), format!("select:{}", names.join(","))]);
    all.extend(names.iter().take(2).cloned());
    for q in &all {
        let r = serde_json::to_value(c.search(q, &SearchOptions::default())).unwrap();
        for s in strings(&r) {
            clean(s, "search result")?;
        }
    }
    for budget in [80, 560, 100_000] {
        clean(&listing_text(c, budget, &|_| true), "listing")?;
    }
    Ok(())
}

#[test]
fn generated_hostile_catalogs_stay_clean_and_bounded() {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let mut runner = TestRunner::new(Config {
                // About a second in a dev build.
                cases: 256,
                failure_persistence: None,
                ..Config::default()
            });
            let strategy = (
                proptest::collection::vec(record(), 1..8),
                proptest::collection::vec(text(24), 0..4),
                arguments(),
            );
            runner
                .run(&strategy, |(records, queries, args)| {
                    case(records, queries, args)
                })
                .unwrap();
        })
        .unwrap()
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
}
