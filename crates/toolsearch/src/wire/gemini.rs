//! Gemini function declarations: `{name, description, parameters}`, where
//! `parameters` is the OpenAPI 3.0 schema subset Gemini accepts. JSON Schema is
//! converted: local `$ref`s inlined (a cycle ends in a plain `object`), `type` lists
//! become `nullable` or `anyOf`, `const` a one-value `enum`, `oneOf` an `anyOf`, a
//! one-part `allOf` merged; every other keyword outside the subset is dropped, and
//! what was dropped is reported ([`crate::Definitions::notes`]).

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};
use toolsearch_catalog::schema::{resolve, MAX_WALK_DEPTH};

/// Keywords of a Gemini `Schema` kept as they are.
const KEPT: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// Most schema nodes written per declaration (inlining `$ref`s can multiply them).
pub const MAX_NODES: usize = 5_000;

/// `schema` in Gemini's subset, and the keywords dropped on the way (sorted).
pub fn convert(schema: &Value) -> (Value, Vec<String>) {
    let mut c = Converter {
        root: schema,
        dropped: BTreeSet::new(),
        nodes: 0,
    };
    let mut out = c.node(schema, 0);
    if out.get("type").is_none() {
        out["type"] = json!("object");
    }
    (out, c.dropped.into_iter().collect())
}

/// One function declaration.
pub fn declaration(name: &str, description: &str, schema: &Value) -> Value {
    let (parameters, _) = convert(schema);
    json!({"name": name, "description": description, "parameters": parameters})
}

struct Converter<'a> {
    root: &'a Value,
    dropped: BTreeSet<String>,
    nodes: usize,
}

impl Converter<'_> {
    fn node(&mut self, schema: &Value, depth: usize) -> Value {
        self.nodes += 1;
        let Some(map) = schema.as_object() else {
            // `true` / `{}`: anything; `false` cannot be said.
            if schema == &Value::Bool(false) {
                self.dropped.insert("false schema".into());
            }
            return json!({});
        };
        if depth > MAX_WALK_DEPTH || self.nodes > MAX_NODES {
            self.dropped.insert("nesting beyond the limit".into());
            return json!({"type": "object"});
        }
        if let Some(r) = map.get("$ref").and_then(Value::as_str) {
            let Some(target) = resolve(self.root, r) else {
                self.dropped.insert("$ref (not local)".into());
                return json!({"type": "object"});
            };
            let mut out = self.node(target, depth + 1);
            // Siblings of `$ref` (a description, say) refine the target.
            let mut rest = map.clone();
            rest.remove("$ref");
            if let Value::Object(extra) = self.node(&Value::Object(rest), depth + 1) {
                for (k, v) in extra {
                    out[k.as_str()] = v;
                }
            }
            return out;
        }
        let mut out = Map::new();
        for (k, v) in map {
            match k.as_str() {
                "properties" => {
                    let props: Map<String, Value> = v
                        .as_object()
                        .into_iter()
                        .flatten()
                        .map(|(name, s)| (name.clone(), self.node(s, depth + 1)))
                        .collect();
                    out.insert(k.clone(), Value::Object(props));
                }
                "items" if v.is_object() => {
                    out.insert(k.clone(), self.node(v, depth + 1));
                }
                "items" => {
                    self.dropped.insert("items (tuple form)".into());
                }
                "anyOf" | "oneOf" => {
                    if k == "oneOf" {
                        self.dropped.insert("oneOf (read as anyOf)".into());
                    }
                    let parts: Vec<Value> = v
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|p| self.node(p, depth + 1))
                        .collect();
                    out.insert("anyOf".into(), Value::Array(parts));
                }
                "allOf" => match v.as_array().map(Vec::as_slice) {
                    Some([one]) => {
                        if let Value::Object(m) = self.node(one, depth + 1) {
                            for (k2, v2) in m {
                                out.entry(k2).or_insert(v2);
                            }
                        }
                    }
                    _ => {
                        self.dropped.insert("allOf".into());
                    }
                },
                "type" => self.types(v, &mut out),
                "const" => match v {
                    Value::String(_) => {
                        out.insert("enum".into(), json!([v]));
                    }
                    _ => {
                        self.dropped.insert("const (not a string)".into());
                    }
                },
                "enum" => {
                    if v.as_array().is_some_and(|e| e.iter().all(Value::is_string)) {
                        out.insert(k.clone(), v.clone());
                    } else {
                        self.dropped.insert("enum (not all strings)".into());
                    }
                }
                "required" => {
                    if v.as_array().is_some_and(|r| r.iter().all(Value::is_string)) {
                        out.insert(k.clone(), v.clone());
                    }
                }
                "$defs" | "definitions" | "$schema" | "$id" | "$comment" => {}
                kept if KEPT.contains(&kept) => {
                    out.insert(k.clone(), v.clone());
                }
                other => {
                    self.dropped.insert(other.to_owned());
                }
            }
        }
        Value::Object(out)
    }

    /// `type`: one name kept; `[t, "null"]` as `t` + `nullable`; several as `anyOf`.
    fn types(&mut self, v: &Value, out: &mut Map<String, Value>) {
        match v {
            Value::String(_) => {
                out.insert("type".into(), v.clone());
            }
            Value::Array(ts) => {
                let named: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
                let non_null: Vec<&str> = named.iter().copied().filter(|t| *t != "null").collect();
                if non_null.len() < named.len() {
                    out.insert("nullable".into(), Value::Bool(true));
                }
                match non_null.as_slice() {
                    [] => {}
                    [one] => {
                        out.insert("type".into(), json!(one));
                    }
                    many => {
                        let parts: Vec<Value> = many.iter().map(|t| json!({"type": t})).collect();
                        out.insert("anyOf".into(), Value::Array(parts));
                    }
                }
            }
            _ => {
                self.dropped.insert("type (not a name)".into());
            }
        }
    }
}

/// The notes for the tools sent in full to Gemini: per tool, what was dropped.
pub(crate) fn dropped_notes<'t>(sent: impl Iterator<Item = (&'t str, &'t Value)>) -> Vec<String> {
    sent.filter_map(|(name, schema)| {
        let (_, dropped) = convert(schema);
        (!dropped.is_empty()).then(|| format!("gemini: `{name}`: dropped {}", dropped.join(", ")))
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_schema_becomes_the_gemini_subset_and_drops_are_reported() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"color": {"type": "string", "enum": ["red", "blue"]}},
            "properties": {
                "color": {"$ref": "#/$defs/color", "description": "pick one"},
                "note": {"type": ["string", "null"]},
                "size": {"type": ["integer", "string"]},
                "mode": {"const": "fast"},
                "shape": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "extra": {"type": "object", "additionalProperties": {"type": "string"}},
                "code": {"type": "string", "pattern": "^[a-z]+$"},
                "n": {"type": "number", "exclusiveMinimum": 0}
            },
            "required": ["color"]
        });
        let (out, dropped) = convert(&schema);
        let p = &out["properties"];
        assert_eq!(
            p["color"],
            json!({"type": "string", "enum": ["red", "blue"], "description": "pick one"})
        );
        assert_eq!(p["note"], json!({"type": "string", "nullable": true}));
        assert_eq!(
            p["size"]["anyOf"],
            json!([{"type": "integer"}, {"type": "string"}])
        );
        assert_eq!(p["mode"], json!({"enum": ["fast"]}));
        assert!(p["shape"]["anyOf"].is_array());
        assert_eq!(p["extra"], json!({"type": "object"}));
        assert_eq!(p["code"]["pattern"], "^[a-z]+$");
        assert!(out.get("$defs").is_none() && out.get("$schema").is_none());
        assert_eq!(
            dropped,
            [
                "additionalProperties",
                "exclusiveMinimum",
                "oneOf (read as anyOf)"
            ]
        );
    }

    #[test]
    fn reference_cycles_and_fan_out_stay_bounded() {
        let cyclic = json!({"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}},
                            "$ref": "#/$defs/n"});
        let (out, dropped) = convert(&cyclic);
        assert_eq!(out["type"], "object");
        assert!(dropped.iter().any(|d| d.contains("nesting")), "{dropped:?}");
        // Each level refers to the next 8 times: inlining stops at the node cap.
        let mut defs = Map::new();
        for i in 0..20 {
            let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
            let props: Map<String, Value> =
                (0..8).map(|k| (format!("p{k}"), next.clone())).collect();
            defs.insert(
                format!("d{i}"),
                json!({"type": "object", "properties": props}),
            );
        }
        defs.insert("d20".into(), json!({"type": "string"}));
        let fan = json!({"$defs": defs, "$ref": "#/$defs/d0"});
        let (out, _) = convert(&fan);
        assert!(out.to_string().len() < 2_000_000);
    }
}
