//! Hostile tool definitions at the catalog level (issue 14, classes 8, 9, 11, 12, 13):
//! loading, the index, search, TypeScript declarations, listings and cleaning.
//!
//! Time is bounded indirectly: inputs that were exponential or quadratic are big
//! enough that a regression would take minutes (and gigabytes), and each test checks
//! sizes, notes and errors. Walks that once recursed per `$ref` or per level run on a
//! 256 KiB stack, so a regression overflows instead of passing by luck.

use serde_json::{json, Map, Value};
use toolsearch_catalog::clean::{is_clean_text, is_identifier_name};
use toolsearch_catalog::schema::drop_flat;
use toolsearch_catalog::ts::{self, MAX_TS_BYTES};
use toolsearch_catalog::{
    load_str, Catalog, LoadOptions, Loaded, SearchOptions, Source, Tool, DEGRADED_SCHEMA_NOTE,
};

#[path = "hostile_defs/text.rs"]
mod text;

/// Runs `f` on a thread with a 256 KiB stack (what small worker threads may have).
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .expect("spawn")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

fn jsonl(records: &[Value]) -> String {
    records
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

fn load(records: &[Value]) -> Loaded {
    load_str(&jsonl(records), &LoadOptions::default()).expect("lenient load never fails")
}

/// Every string and key in `v` (iteratively: `v` may be deep).
fn strings(v: &Value) -> Vec<&str> {
    let mut out = Vec::new();
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => out.push(s.as_str()),
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                for (k, v) in map {
                    out.push(k);
                    stack.push(v);
                }
            }
            _ => {}
        }
    }
    out
}

/// Everything a model can read about the catalog is clean: each tool's describe
/// output (record, schemas, TypeScript), search hits and the browse listing.
fn assert_model_text_clean(c: &Catalog) {
    for t in c.tools() {
        assert!(is_identifier_name(&t.name), "name {:?}", t.name);
        if let Some(s) = &t.server {
            assert!(is_identifier_name(s), "server {s:?}");
        }
        let d = serde_json::to_value(c.describe(&t.id).unwrap()).unwrap();
        for s in strings(&d) {
            assert!(
                is_clean_text(s),
                "unclean text in describe of {}: {s:?}",
                t.id
            );
        }
        assert!(d["typescript"].as_str().unwrap().len() <= MAX_TS_BYTES + 1024);
    }
    for q in ["", "search", "server:x"] {
        let r = serde_json::to_value(c.search(q, &SearchOptions::default())).unwrap();
        for s in strings(&r) {
            assert!(is_clean_text(s), "unclean text in search {q:?}: {s:?}");
        }
    }
}

fn tool(name: &str, schema: Value) -> Tool {
    Tool::new(Source::Mcp, Some("srv"), name, "A tool.", schema)
}

/// An object made by moving `pairs` in.
fn obj<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// `{wrap(inner)}` nested `n` times around `{"type": "string"}`.
fn nest(n: usize, wrap: impl Fn(Value) -> Value) -> Value {
    let mut v = json!({"type": "string"});
    for _ in 0..n {
        v = wrap(v);
    }
    v
}

// ---------------------------------------------------------------- class 8

/// Deep schemas of every shape a walk descends into, built in code far deeper than a
/// parser allows, and `$ref` chains and cycles: loading cuts them, describe and the
/// index stay within a small stack.
#[test]
fn class8_deep_and_chained_schemas_describe_on_a_small_stack() {
    on_small_stack(|| {
        type Wrap = fn(Value) -> Value;
        // Built by moving values (`json!` would serialize the inner value again).
        let shapes: [(&str, Wrap); 12] = [
            ("properties", |v| {
                obj([("type", "object".into()), ("properties", obj([("p", v)]))])
            }),
            ("items", |v| obj([("type", "array".into()), ("items", v)])),
            ("tuple", |v| {
                obj([("type", "array".into()), ("items", Value::Array(vec![v]))])
            }),
            ("prefixItems", |v| {
                obj([
                    ("type", "array".into()),
                    ("prefixItems", Value::Array(vec![v])),
                ])
            }),
            ("additionalProperties", |v| {
                obj([("type", "object".into()), ("additionalProperties", v)])
            }),
            ("patternProperties", |v| {
                obj([
                    ("type", "object".into()),
                    ("patternProperties", obj([("^x", v)])),
                ])
            }),
            ("anyOf", |v| obj([("anyOf", Value::Array(vec![v]))])),
            ("oneOf", |v| {
                obj([("oneOf", Value::Array(vec![v, json!({"type": "null"})]))])
            }),
            ("allOf", |v| obj([("allOf", Value::Array(vec![v]))])),
            ("not", |v| obj([("not", v)])),
            ("enum", |v| obj([("enum", Value::Array(vec![v]))])),
            ("default", |v| {
                obj([("type", "object".into()), ("default", v)])
            }),
        ];
        let mut tools = Vec::new();
        for (name, wrap) in shapes {
            // 20,000 levels: a walk recursing per level needs megabytes of stack.
            let schema = obj([
                ("type", "object".into()),
                ("properties", obj([("x", nest(20_000, wrap))])),
            ]);
            let mut t = tool(name, schema);
            let warnings = t.sanitize();
            assert!(
                warnings.is_empty(),
                "sanitised by new already: {warnings:?}"
            );
            tools.push(t);
        }
        // A `$ref` chain of 8,000 aliases (160 KB): over the size budget, degraded.
        let mut defs = Map::new();
        for i in 0..8000 {
            defs.insert(
                format!("d{i}"),
                json!({"$ref": format!("#/$defs/d{}", i + 1)}),
            );
        }
        defs.insert("d8000".into(), json!({"type": "string"}));
        let chain =
            json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs});
        // The same chain handed to the generator directly, without the load-time caps.
        let raw_ts = ts::declaration("chain", "", &chain, None);
        assert!(raw_ts.len() <= MAX_TS_BYTES, "{}", raw_ts.len());
        tools.push(tool("chain_8000", chain));
        // A chain that fits the budget: 1,500 aliases.
        let mut defs = Map::new();
        for i in 0..1500 {
            defs.insert(
                format!("d{i}"),
                json!({"$ref": format!("#/$defs/d{}", i + 1)}),
            );
        }
        defs.insert(
            "d1500".into(),
            json!({"type": "object", "properties": {"leaf": {"type": "string"}}}),
        );
        tools.push(tool(
            "chain_1500",
            json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs}),
        ));
        // Cycles: self, mutual, through the root, through items.
        tools.push(tool(
            "self_ref",
            json!({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}}}),
        ));
        tools.push(tool("mutual_ref", json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}},
            "$defs": {"a": {"type": "object", "properties": {"b": {"$ref": "#/$defs/b"}}}, "b": {"type": "array", "items": {"$ref": "#/$defs/a"}}}})));
        tools.push(tool("root_ref", json!({"type": "object", "properties": {"again": {"$ref": "#"}, "n": {"type": "integer"}}})));
        let c = Catalog::new(tools).unwrap();
        for t in c.tools() {
            let d = c.describe(&t.id).unwrap();
            assert!(
                d.typescript.len() <= MAX_TS_BYTES,
                "{}: {}",
                t.name,
                d.typescript.len()
            );
            assert!(d.typescript.contains("declare function"), "{}", t.name);
        }
        let chain = c.describe("mcp:srv:chain_8000").unwrap();
        assert_eq!(
            chain.tool.schema_note.as_deref(),
            Some(DEGRADED_SCHEMA_NOTE)
        );
        assert!(
            chain.typescript.contains("args: unknown"),
            "{}",
            chain.typescript
        );
        let fits = c.describe("mcp:srv:chain_1500").unwrap();
        assert!(fits.tool.schema_note.is_none());
        assert!(
            fits.typescript.matches("\ntype ").count() < 70,
            "{}",
            fits.typescript.len()
        );
        let root = c.describe("mcp:srv:root_ref").unwrap().typescript;
        assert!(
            root.contains("type Root = {") && root.contains("again?: Root;"),
            "{root}"
        );
        let mutual = c.describe("mcp:srv:mutual_ref").unwrap().typescript;
        assert!(
            mutual.contains("type a = {\n  b?: b;\n};\ntype b = a[];"),
            "{mutual}"
        );
        assert!(c
            .describe("mcp:srv:self_ref")
            .unwrap()
            .typescript
            .contains("type a = unknown;"));
        // The index read the deep tools too, and search finds them.
        let found = c.search("patternProperties", &SearchOptions::default());
        assert_eq!(found.hits[0].name, "patternProperties");
        drop_flat(serde_json::to_value(c.tools()).unwrap());
    });
}

/// Nesting past what the JSON parser accepts is reported and skipped; nesting it
/// accepts is cut to the schema limit with a warning. Nothing crashes.
#[test]
fn class8_deep_json_text_is_reported_not_fatal() {
    on_small_stack(|| {
        let deep_text = |n: usize| {
            format!(
                "{{\"name\": \"deep{n}\", \"input_schema\": {}{}}}",
                "{\"type\": \"array\", \"items\": ".repeat(n) + "{\"type\": \"string\"}",
                "}".repeat(n)
            )
        };
        let text = [deep_text(60), deep_text(100), deep_text(5000)].join("\n");
        let loaded = load_str(&text, &LoadOptions::default()).unwrap();
        let names: Vec<&str> = loaded
            .catalog
            .tools()
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(names, ["deep60", "deep100"]);
        let deep = loaded
            .problems
            .iter()
            .find(|p| p.location == "line 3")
            .unwrap();
        assert!(
            deep.skipped && deep.message.contains("recursion limit"),
            "{deep:?}"
        );
        let cut = loaded
            .problems
            .iter()
            .find(|p| p.location == "line 2")
            .unwrap();
        assert!(
            !cut.skipped && cut.message.contains("nested deeper than"),
            "{cut:?}"
        );
        for t in loaded.catalog.tools() {
            let d = loaded.catalog.describe(&t.id).unwrap();
            assert!(d.typescript.contains("unknown"), "{}", d.typescript);
        }
    });
}

// ---------------------------------------------------------------- class 9

/// Levels of `{kind: [ref next level x fan]}`; expanded, `fan^levels` nodes.
fn fan_out(levels: usize, fan: usize, kind: &str) -> Value {
    let mut defs = Map::new();
    for i in 0..levels {
        let next = json!({"$ref": format!("#/$defs/L{}", i + 1)});
        let level = match kind {
            "properties" => {
                let props: Map<String, Value> =
                    (0..fan).map(|k| (format!("p{k}"), next.clone())).collect();
                json!({"type": "object", "properties": props})
            }
            "items" => json!({"type": "array", "items": vec![next; fan]}),
            "additionalProperties" => json!({"type": "object", "additionalProperties": next,
                "properties": (0..fan).map(|k| (format!("q{k}"), json!({"$ref": format!("#/$defs/L{}", i + 1)}))).collect::<Map<_, _>>()}),
            "types" => {
                json!({"type": vec!["object"; fan], "properties": {"a": next.clone(), "b": next}})
            }
            union => json!({union: vec![next; fan]}),
        };
        defs.insert(format!("L{i}"), level);
    }
    defs.insert(
        format!("L{levels}"),
        json!({"type": "object", "properties": {"leaf": {"type": "string"}}}),
    );
    json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/L0"}}, "$defs": defs})
}

/// `$ref` fan-out through properties, unions, intersections, tuples and type lists:
/// each target is declared once, so the declaration is linear in the schema.
#[test]
fn class9_fan_out_through_refs_is_linear() {
    on_small_stack(|| {
        let mut tools = Vec::new();
        // The case (7 properties, 9 levels: 38.7 s, 4.47 GB) and deeper ones,
        // which would take longer than the universe expanded.
        for (kind, levels, fan) in [
            ("properties", 9, 7),
            ("properties", 40, 7),
            ("anyOf", 40, 7),
            ("oneOf", 40, 5),
            ("allOf", 40, 7),
            ("items", 40, 4),
            ("additionalProperties", 40, 3),
            ("types", 40, 6),
        ] {
            let schema = fan_out(levels, fan, kind);
            assert!(schema.to_string().len() < 30_000);
            tools.push(tool(&format!("{kind}_{levels}x{fan}"), schema));
        }
        let c = Catalog::new(tools).unwrap();
        for t in c.tools() {
            assert!(t.schema_note.is_none(), "{} fits the size budget", t.name);
            let d = c.describe(&t.id).unwrap();
            assert!(
                d.typescript.len() <= 20_000,
                "{}: {} bytes",
                t.name,
                d.typescript.len()
            );
            assert!(
                d.typescript.contains("type L0 = "),
                "{}: {}",
                t.name,
                d.typescript
            );
        }
        let nine = c.describe("mcp:srv:properties_9x7").unwrap().typescript;
        assert!(nine.contains("type L9 = {\n  leaf?: string;\n};"), "{nine}");
        assert!(nine.contains("  p6?: L1;"), "{nine}");
        // More distinct targets than aliases allowed: the rest are `unknown`.
        let mut defs = Map::new();
        let props: Map<String, Value> = (0..200)
            .map(|i| {
                defs.insert(format!("T{i}"), json!({"type": "integer"}));
                (format!("f{i}"), json!({"$ref": format!("#/$defs/T{i}")}))
            })
            .collect();
        let many = ts::declaration(
            "many",
            "",
            &json!({"type": "object", "properties": props, "$defs": defs}),
            None,
        );
        assert_eq!(
            many.matches("\ntype ").count() + 1,
            ts::MAX_ALIASES,
            "{many}"
        );
        assert!(many.contains("f199?: unknown;"), "{many}");
    });
}

// ---------------------------------------------------------------- class 11

/// Many tools sharing one name, one native name, or one name after sanitising:
/// loading, exact-name search, `select:`, several queries at once and resolving stay
/// linear (100,000 tools: quadratic is 10^10 steps).
#[test]
fn class11_many_tools_sharing_a_name_stay_linear() {
    let n = 100_000;
    // One `tool_name` on many servers, and the same `name` on many servers.
    let records: Vec<Value> = (0..n)
        .map(|i| {
            if i % 2 == 0 {
                json!({"name": format!("s{i}__get_data"), "tool_name": "get_data", "server": format!("s{i}")})
            } else {
                json!({"name": "get_data", "server": format!("s{i}"), "description": "Get data."})
            }
        })
        .collect();
    let loaded = load(&records);
    assert!(loaded.problems.is_empty(), "{:?}", &loaded.problems[..3]);
    let c = loaded.catalog;
    assert_eq!(c.len(), n);
    let opts = SearchOptions::default();
    for q in [
        "get_data",
        "`get_data`",
        "GET_DATA",
        "get data please",
        "select:get_data,s2__get_data",
    ] {
        let r = c.search(q, &opts);
        assert!(!r.hits.is_empty() && r.hits.len() <= 20, "{q}");
    }
    let r = c.search("get_data", &opts);
    assert_eq!(r.total, n);
    let seven = ["get_data"; 7];
    let many = c.search_many(&seven, &opts, &|_| true).unwrap();
    assert_eq!(many.hits.len(), 8);
    let explained = c.search(
        "get_data",
        &SearchOptions {
            explain: true,
            ..opts.clone()
        },
    );
    assert!(explained.hits[0]
        .explain
        .as_ref()
        .unwrap()
        .iter()
        .any(|r| r.rule == "exact_name"));
    assert!(matches!(
        c.resolve("get_data", &|_| true),
        toolsearch_catalog::Resolved::Ambiguous(k) if k == n
    ));
    // A typo'd name against them: fuzzy matching scans once.
    let typo = c.search("get_dta", &opts);
    assert!(typo.hits.len() <= 8);
}

/// The same raw record repeated is a duplicate; different records that sanitise to
/// one id are all kept, told apart by a hash; one server spelled many ways likewise.
#[test]
fn class11_collisions_after_sanitising_lose_nothing() {
    let n = 20_000;
    let spellings = ["a b", "a\tb", "a  b", "a\u{2028}b", "a_b", " a b "];
    let mut records: Vec<Value> = (0..n)
        .map(|i| json!({"name": format!("tool{}", (i / spellings.len()) % 3), "server": spellings[i % spellings.len()]}))
        .collect();
    records.extend((0..n).map(|_| json!({"name": "dup", "server": "same"})));
    let loaded = load(&records);
    let c = &loaded.catalog;
    // Three names on six raw servers, all kept; `dup` once.
    assert_eq!(c.len(), 3 * spellings.len() + 1);
    let skipped = loaded.problems.iter().filter(|p| p.skipped).count();
    assert_eq!(skipped, n - 1 + (n - 3 * spellings.len()));
    for t in c.tools() {
        assert!(
            is_identifier_name(&t.name) && t.id.starts_with("mcp:a_b:") || t.name == "dup",
            "{}",
            t.id
        );
    }
    let renamed = c
        .tools()
        .iter()
        .filter(|t| t.name.starts_with("tool0_"))
        .count();
    assert_eq!(renamed, spellings.len() - 1);
    // Each still calls its server by the original spelling.
    let servers: std::collections::BTreeSet<&str> = c
        .tools()
        .iter()
        .filter_map(|t| t.upstream_server())
        .collect();
    assert_eq!(servers.len(), spellings.len() + 1);
}

/// Schemas that never went through the load-time caps (huge keys, enum strings and
/// descriptions, thousands of wide objects) handed to the generator directly: the
/// declaration stays within its byte cap, built in bounded work.
#[test]
fn class9_raw_schemas_are_bounded_in_output() {
    on_small_stack(|| {
        let big = "k".repeat(256 * 1024);
        let wide: Map<String, Value> = (0..64)
            .map(|i| {
                (
                    format!("{big}{i}"),
                    json!({"type": "string", "description": big}),
                )
            })
            .collect();
        let nested: Map<String, Value> = (0..3000)
            .map(|i| {
                let leaf = json!({"enum": ["a", "b"], "description": "d".repeat(4000)});
                (format!("o{i}"), json!({"type": "object", "properties": {"a": {"type": "object", "properties": {"b": leaf}}}}))
            })
            .collect();
        for schema in [
            json!({"type": "object", "properties": wide}),
            json!({"type": "object", "properties": nested}),
            json!({"enum": vec![big.as_str(); 50], "const": big}),
        ] {
            let t = ts::declaration("raw", &big, &schema, Some(&schema));
            assert!(t.len() <= MAX_TS_BYTES, "{}", t.len());
            assert!(is_clean_text(&t));
        }
    });
}
