use super::*;
use serde_json::json;

/// The full check of `args` against `schema` by a fresh cache.
fn full(schema: Value, args: Value) -> Option<Checked> {
    Compiled::default().check("t", &schema, &args)
}

/// The paths the full check reports (it must apply).
fn paths(schema: Value, args: Value) -> Vec<String> {
    let checked = full(schema, args).expect("the full check applies");
    checked.violations.into_iter().map(|v| v.path).collect()
}

#[test]
fn each_keyword_the_subset_skips_is_checked_with_its_path() {
    let cases = [
        (
            json!({"properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}}}),
            json!({"code": "abc"}),
            "$.code",
        ),
        (
            json!({"properties": {"n": {"oneOf": [{"type": "integer"}, {"minimum": 0}]}}}),
            json!({"n": 3}),
            "$.n",
        ),
        (
            json!({"properties": {"x": {"not": {"type": "string"}}}}),
            json!({"x": "s"}),
            "$.x",
        ),
        (
            json!({"if": {"properties": {"kind": {"const": "file"}}, "required": ["kind"]},
                   "then": {"required": ["path"]}}),
            json!({"kind": "file"}),
            "$",
        ),
        (
            json!({"properties": {"pair": {"prefixItems": [{"type": "string"}, {"type": "integer"}]}}}),
            json!({"pair": ["a", "b"]}),
            "$.pair[1]",
        ),
        (
            json!({"$defs": {"s": {"type": "string"}},
                   "properties": {"a": {"$ref": "#/$defs/s", "maxLength": 2}}}),
            json!({"a": "long"}),
            "$.a",
        ),
        (
            json!({"properties": {"tags": {"type": "array", "uniqueItems": true}}}),
            json!({"tags": ["a", "a"]}),
            "$.tags",
        ),
        (
            json!({"properties": {"step": {"type": "number", "multipleOf": 5}}}),
            json!({"step": 7}),
            "$.step",
        ),
        (
            json!({"propertyNames": {"pattern": "^[a-z]+$"}}),
            json!({"Bad": 1}),
            "$",
        ),
    ];
    for (schema, args, path) in cases {
        // The subset lets each of these through: the full check is what catches it.
        assert!(
            super::super::check(&schema, &args).violations.is_empty(),
            "{schema}"
        );
        assert_eq!(paths(schema.clone(), args), [path], "{schema}");
    }
}

#[test]
fn valid_arguments_pass_the_full_check() {
    let schema = json!({"properties": {
        "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "n": {"oneOf": [{"type": "integer", "maximum": 0}, {"minimum": 10}]},
        "tags": {"type": "array", "uniqueItems": true},
    }});
    let checked = full(schema, json!({"code": "ABC", "n": 12, "tags": ["a", "b"]})).unwrap();
    assert!(checked.violations.is_empty(), "{:?}", checked.violations);
}

#[test]
fn format_is_not_asserted_and_nullable_is_honoured() {
    let schema = json!({"properties": {
        "when": {"type": "string", "format": "date-time", "pattern": "."},
        "note": {"type": "string", "nullable": true, "pattern": "^n"},
    }});
    let checked = full(schema, json!({"when": "tomorrow", "note": null})).unwrap();
    assert!(checked.violations.is_empty(), "{:?}", checked.violations);
}

#[test]
fn schemas_it_cannot_or_need_not_check_leave_the_subset_verdict() {
    let skipped = [
        // Nothing beyond the subset: no compile at all.
        json!({"properties": {"a": {"type": "string"}}, "required": ["a"]}),
        // A remote reference: never fetched.
        json!({"properties": {"a": {"$ref": "https://example.com/s.json", "pattern": "x"}}}),
        // A reference cycle.
        json!({"$defs": {"n": {"properties": {"next": {"$ref": "#/$defs/n"}}, "pattern": "x"}},
               "$ref": "#/$defs/n"}),
        json!({"$ref": "#", "pattern": "x"}),
        // A pattern that needs backtracking (look-ahead): the linear engine refuses it.
        json!({"properties": {"a": {"type": "string", "pattern": "^(?=a)a+$"}}}),
        // An anchor reference the walk cannot follow.
        json!({"$defs": {"s": {"$anchor": "s", "pattern": "x"}}, "$ref": "#s"}),
    ];
    for schema in skipped {
        assert!(
            full(schema.clone(), json!({"a": "zzz"})).is_none(),
            "{schema}"
        );
    }
}

#[test]
fn a_schema_that_doubles_through_refs_is_refused_before_it_is_walked() {
    // Each level refers to the next twice: 2^40 nodes once unrolled.
    let mut defs = serde_json::Map::new();
    for i in 0..40 {
        defs.insert(
            format!("d{i}"),
            json!({"pattern": "x", "allOf": [{"$ref": format!("#/$defs/d{}", i + 1)},
                                             {"$ref": format!("#/$defs/d{}", i + 1)}]}),
        );
    }
    defs.insert("d40".into(), json!({"type": "string"}));
    let schema = json!({"$defs": defs, "$ref": "#/$defs/d0"});
    let started = std::time::Instant::now();
    assert!(full(schema, json!("x")).is_none());
    // A hang guard, generous for a loaded machine: the refusal is a walk of at
    // most MAX_UNROLLED nodes (milliseconds), the unbounded walk 2^40 of them.
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

#[test]
fn large_arguments_against_a_large_schema_are_left_to_the_subset() {
    let props: serde_json::Map<String, Value> = (0..2_000)
        .map(|i| (format!("p{i}"), json!({"type": "string", "pattern": "^a"})))
        .collect();
    let schema =
        json!({"type": "object", "properties": props, "additionalProperties": {"pattern": "^a"}});
    let small = json!({"p1": "b"});
    assert_eq!(paths(schema.clone(), small), ["$.p1"]);
    let big: serde_json::Map<String, Value> =
        (0..5_000).map(|i| (format!("x{i}"), json!("b"))).collect();
    assert!(full(schema, Value::Object(big)).is_none());
}

#[test]
fn older_drafts_are_compiled_under_their_own_rules() {
    // Draft 7's tuple `items` with `additionalItems`: invalid under 2020-12.
    let schema = json!({"properties": {"pair": {
        "items": [{"type": "string"}], "additionalItems": false}}});
    assert_eq!(paths(schema, json!({"pair": ["a", 1]})), ["$.pair"]);
}

#[test]
fn violations_are_capped_and_counted() {
    let schema = json!({"type": "array", "items": {"pattern": "^a"}});
    let args = Value::Array((0..100).map(|_| json!("b")).collect());
    let checked = full(schema, args).unwrap();
    assert_eq!(checked.violations.len(), MAX_VIOLATIONS);
    assert_eq!(checked.more, 100 - MAX_VIOLATIONS);
    assert!(checked
        .violations
        .iter()
        .all(|v| v.message.len() <= MAX_MESSAGE_BYTES));
}

#[test]
fn the_cache_is_bounded_and_follows_schema_changes() {
    let cache = Compiled::default();
    let schema = |p: &str| json!({"properties": {"a": {"type": "string", "pattern": p}}});
    for i in 0..CACHE_ENTRIES + 10 {
        cache.check(&format!("tool{i}"), &schema("^a"), &json!({"a": "a"}));
    }
    assert_eq!(cache.len(), CACHE_ENTRIES);
    let bad = json!({"a": "b"});
    assert_eq!(
        cache
            .check("tool0", &schema("^a"), &bad)
            .unwrap()
            .violations
            .len(),
        1
    );
    // Same tool, new schema: compiled again, not the stale one.
    assert!(cache
        .check("tool0", &schema("^b"), &bad)
        .unwrap()
        .violations
        .is_empty());
}
