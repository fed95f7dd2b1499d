//! Argument checking before dispatch: a JSON Schema subset that covers what tool
//! schemas use (types, required, properties, additionalProperties, items, enum,
//! const, bounds, anyOf / oneOf / allOf, local `$ref`), and the repair of the
//! coercions models commonly get wrong.
//!
//! Unknown keywords are ignored (a schema we cannot read never blocks a call);
//! every violation names the exact path at fault.

use serde_json::{Map, Value};

/// Nesting depth past which values are not checked further.
const MAX_DEPTH: usize = 32;

/// One way the arguments break the schema.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Violation {
    /// Where: `$`, `$.owner`, `$.labels[2]`.
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

/// Checks `args` against `schema`; empty when they conform.
pub fn validate(schema: &Value, args: &Value) -> Vec<Violation> {
    let mut out = Vec::new();
    Checker {
        root: schema,
        out: &mut out,
    }
    .check(schema, args, "$", 0);
    out
}

struct Checker<'a> {
    root: &'a Value,
    out: &'a mut Vec<Violation>,
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn is_type(v: &Value, t: &str) -> bool {
    match t {
        "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "number" => v.is_number(),
        other => type_name(v) == other,
    }
}

/// Resolves a local `$ref` (`#/definitions/X`, `#/$defs/X`, any JSON pointer).
pub(crate) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

impl Checker<'_> {
    fn fail(&mut self, path: &str, message: String) {
        self.out.push(Violation {
            path: path.to_owned(),
            message,
        });
    }

    fn check(&mut self, schema: &Value, v: &Value, path: &str, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let Some(s) = schema.as_object() else {
            if schema == &Value::Bool(false) {
                self.fail(path, "no value is allowed here".into());
            }
            return;
        };
        if let Some(Value::String(r)) = s.get("$ref") {
            if let Some(target) = resolve(self.root, r) {
                self.check(target, v, path, depth + 1);
            }
            return;
        }
        if let Some(t) = s.get("type") {
            let types: Vec<&str> = match t {
                Value::String(t) => vec![t.as_str()],
                Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            let nullable = s.get("nullable") == Some(&Value::Bool(true)) && v.is_null();
            if !types.is_empty() && !nullable && !types.iter().any(|t| is_type(v, t)) {
                self.fail(
                    path,
                    format!("expected {}, got {}", types.join(" or "), type_name(v)),
                );
                return;
            }
        }
        if let Some(Value::Array(options)) = s.get("enum") {
            if !options.contains(v) {
                let shown: Vec<String> = options.iter().take(12).map(|o| o.to_string()).collect();
                self.fail(path, format!("must be one of {}", shown.join(", ")));
            }
        }
        if let Some(c) = s.get("const") {
            if c != v {
                self.fail(path, format!("must be {c}"));
            }
        }
        self.bounds(s, v, path);
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(variants)) = s.get(key) {
                let ok = variants
                    .iter()
                    .any(|variant| validate_with_root(self.root, variant, v, depth).is_empty());
                if !ok && !variants.is_empty() {
                    self.fail(
                        path,
                        format!("matches none of the {} allowed shapes", variants.len()),
                    );
                }
            }
        }
        if let Some(Value::Array(all)) = s.get("allOf") {
            for part in all {
                self.check(part, v, path, depth + 1);
            }
        }
        match v {
            Value::Object(obj) => self.object(s, obj, path, depth),
            Value::Array(items) => self.array(s, items, path, depth),
            _ => {}
        }
    }

    fn bounds(&mut self, s: &Map<String, Value>, v: &Value, path: &str) {
        let num = |k: &str| s.get(k).and_then(Value::as_f64);
        if let Some(x) = v.as_f64() {
            if num("minimum").is_some_and(|m| x < m) {
                self.fail(path, format!("must be at least {}", s["minimum"]));
            }
            if num("maximum").is_some_and(|m| x > m) {
                self.fail(path, format!("must be at most {}", s["maximum"]));
            }
            if num("exclusiveMinimum").is_some_and(|m| x <= m) {
                self.fail(
                    path,
                    format!("must be greater than {}", s["exclusiveMinimum"]),
                );
            }
            if num("exclusiveMaximum").is_some_and(|m| x >= m) {
                self.fail(path, format!("must be less than {}", s["exclusiveMaximum"]));
            }
        }
        if let Some(text) = v.as_str() {
            let len = text.chars().count() as f64;
            if num("minLength").is_some_and(|m| len < m) {
                self.fail(
                    path,
                    format!("must have at least {} characters", s["minLength"]),
                );
            }
            if num("maxLength").is_some_and(|m| len > m) {
                self.fail(
                    path,
                    format!("must have at most {} characters", s["maxLength"]),
                );
            }
        }
        if let Some(items) = v.as_array() {
            let len = items.len() as f64;
            if num("minItems").is_some_and(|m| len < m) {
                self.fail(path, format!("must have at least {} items", s["minItems"]));
            }
            if num("maxItems").is_some_and(|m| len > m) {
                self.fail(path, format!("must have at most {} items", s["maxItems"]));
            }
        }
    }

    fn object(
        &mut self,
        s: &Map<String, Value>,
        obj: &Map<String, Value>,
        path: &str,
        depth: usize,
    ) {
        if let Some(Value::Array(required)) = s.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !obj.contains_key(name) {
                    self.fail(&child(path, name), "is required".into());
                }
            }
        }
        let props = s.get("properties").and_then(Value::as_object);
        for (key, value) in obj {
            match props.and_then(|p| p.get(key)) {
                Some(prop) => self.check(prop, value, &child(path, key), depth + 1),
                None => match s.get("additionalProperties") {
                    Some(Value::Bool(false)) => {
                        let known: Vec<&str> = props
                            .map(|p| p.keys().map(String::as_str).collect())
                            .unwrap_or_default();
                        self.fail(
                            &child(path, key),
                            format!("is not a known property (known: {})", known.join(", ")),
                        );
                    }
                    Some(extra @ Value::Object(_)) => {
                        self.check(extra, value, &child(path, key), depth + 1)
                    }
                    _ => {}
                },
            }
        }
    }

    fn array(&mut self, s: &Map<String, Value>, items: &[Value], path: &str, depth: usize) {
        match s.get("items") {
            Some(Value::Array(tuple)) => {
                for (i, (schema, v)) in tuple.iter().zip(items).enumerate() {
                    self.check(schema, v, &format!("{path}[{i}]"), depth + 1);
                }
            }
            Some(schema) => {
                for (i, v) in items.iter().enumerate() {
                    self.check(schema, v, &format!("{path}[{i}]"), depth + 1);
                }
            }
            None => {}
        }
    }
}

fn validate_with_root(root: &Value, schema: &Value, v: &Value, depth: usize) -> Vec<Violation> {
    let mut out = Vec::new();
    Checker {
        root,
        out: &mut out,
    }
    .check(schema, v, "$", depth + 1);
    out
}

fn child(path: &str, key: &str) -> String {
    if !key.is_empty() && key.chars().all(|c| c.is_alphanumeric() || c == '_') {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", Value::String(key.to_owned()))
    }
}

/// Fixes the coercions models commonly get wrong, guided by the schema: a doubly
/// nested `{"arguments": {...}}`, arguments sent as a JSON string, `"42"` for an
/// integer, `"true"` for a boolean, a number for a string, one value for an array.
/// Returns the repaired arguments and one note per fix (empty: nothing changed).
pub fn repair(schema: &Value, args: Value) -> (Value, Vec<String>) {
    let mut notes = Vec::new();
    let mut args = args;
    if let Value::String(text) = &args {
        if let Ok(parsed @ Value::Object(_)) = serde_json::from_str::<Value>(text) {
            notes.push("arguments were a JSON string; parsed them as an object".to_owned());
            args = parsed;
        }
    }
    let declares = |name: &str| schema.get("properties").and_then(|p| p.get(name)).is_some();
    for wrapper in ["arguments", "args", "input", "parameters"] {
        if let Value::Object(obj) = &args {
            if obj.len() == 1 && !declares(wrapper) {
                if let Some(inner @ Value::Object(_)) = obj.get(wrapper) {
                    notes.push(format!(
                        "arguments were nested under `{wrapper}`; unwrapped them"
                    ));
                    args = inner.clone();
                }
            }
        }
    }
    let mut fixer = Fixer {
        root: schema,
        notes: &mut notes,
    };
    fixer.fix(schema, &mut args, "$", 0);
    (args, notes)
}

struct Fixer<'a> {
    root: &'a Value,
    notes: &'a mut Vec<String>,
}

impl Fixer<'_> {
    fn fix(&mut self, schema: &Value, v: &mut Value, path: &str, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let Some(s) = schema.as_object() else { return };
        if let Some(Value::String(r)) = s.get("$ref") {
            if let Some(target) = resolve(self.root, r) {
                self.fix(target, v, path, depth + 1);
            }
            return;
        }
        let wanted: Vec<&str> = match s.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !wanted.is_empty() && !wanted.iter().any(|t| is_type(v, t)) {
            if let Some(fixed) = coerce(v, &wanted) {
                self.notes.push(format!(
                    "{path}: converted {} to {}",
                    short(v),
                    short(&fixed)
                ));
                *v = fixed;
            }
        }
        match v {
            Value::Object(obj) => {
                if let Some(props) = s.get("properties").and_then(Value::as_object) {
                    for (key, value) in obj.iter_mut() {
                        if let Some(prop) = props.get(key) {
                            self.fix(prop, value, &child(path, key), depth + 1);
                        }
                    }
                }
            }
            Value::Array(items) => {
                if let Some(item_schema @ Value::Object(_)) = s.get("items") {
                    for (i, item) in items.iter_mut().enumerate() {
                        self.fix(item_schema, item, &format!("{path}[{i}]"), depth + 1);
                    }
                }
            }
            _ => {}
        }
    }
}

fn short(v: &Value) -> String {
    toolsearch_catalog::truncate_with_ellipsis(&v.to_string(), 40)
}

/// The first of `wanted` that `v` converts to without loss.
fn coerce(v: &Value, wanted: &[&str]) -> Option<Value> {
    for t in wanted {
        let out = match (*t, v) {
            ("integer", Value::String(s)) => s.trim().parse::<i64>().ok().map(Value::from),
            ("number", Value::String(s)) => s
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number)),
            ("integer", Value::Number(n)) => n
                .as_f64()
                .filter(|f| f.fract() == 0.0)
                .map(|f| Value::from(f as i64)),
            ("boolean", Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                _ => None,
            },
            ("string", Value::Number(n)) => Some(Value::String(n.to_string())),
            ("string", Value::Bool(b)) => Some(Value::String(b.to_string())),
            ("array", single) if !single.is_null() && !single.is_array() => {
                Some(Value::Array(vec![single.clone()]))
            }
            ("null", Value::String(s)) if s == "null" => Some(Value::Null),
            _ => None,
        };
        if out.is_some() {
            return out;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "owner": {"type": "string"},
                "count": {"type": "integer", "minimum": 1},
                "draft": {"type": "boolean"},
                "labels": {"type": "array", "items": {"type": "string"}},
                "state": {"enum": ["open", "closed"]},
                "target": {"$ref": "#/$defs/target"}
            },
            "required": ["owner"],
            "additionalProperties": false,
            "$defs": {"target": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}}
        })
    }

    #[test]
    fn valid_arguments_pass() {
        let args = json!({"owner": "acme", "count": 2, "labels": ["a"], "state": "open", "target": {"id": 3}});
        assert_eq!(validate(&schema(), &args), vec![]);
    }

    #[test]
    fn every_violation_names_its_path() {
        let args =
            json!({"count": 0, "labels": ["a", 2], "state": "merged", "target": {}, "extra": 1});
        let paths: Vec<String> = validate(&schema(), &args)
            .into_iter()
            .map(|v| v.path)
            .collect();
        // Missing required properties first, then the arguments in the order given.
        assert_eq!(
            paths,
            [
                "$.owner",
                "$.count",
                "$.labels[1]",
                "$.state",
                "$.target.id",
                "$.extra"
            ]
        );
        let v = validate(&schema(), &json!("nope"));
        assert_eq!(v[0].message, "expected object, got string");
    }

    #[test]
    fn unions_and_type_lists() {
        let s = json!({"anyOf": [{"type": "string"}, {"type": "integer"}]});
        assert!(validate(&s, &json!("x")).is_empty());
        assert!(validate(&s, &json!(3)).is_empty());
        assert_eq!(validate(&s, &json!(true)).len(), 1);
        let s = json!({"type": ["string", "null"]});
        assert!(validate(&s, &json!(null)).is_empty());
    }

    #[test]
    fn repairs_common_coercions_and_says_so() {
        let (fixed, notes) = repair(
            &schema(),
            json!({"arguments": {"owner": 7, "count": "42", "draft": "true", "labels": "bug"}}),
        );
        assert_eq!(
            fixed,
            json!({"owner": "7", "count": 42, "draft": true, "labels": ["bug"]})
        );
        assert_eq!(notes.len(), 5, "{notes:?}");
        assert!(notes[0].contains("nested under `arguments`"));
        assert!(validate(&schema(), &fixed).is_empty());
        let (fixed, notes) = repair(&schema(), json!("{\"owner\": \"a\"}"));
        assert_eq!(fixed, json!({"owner": "a"}));
        assert_eq!(notes.len(), 1);
        // Nothing to repair: nothing said.
        let (_, notes) = repair(&schema(), json!({"owner": "a", "count": 3}));
        assert!(notes.is_empty());
        // Not convertible: left for validation to report.
        let (fixed, _) = repair(&schema(), json!({"owner": "a", "count": "many"}));
        assert_eq!(validate(&schema(), &fixed)[0].path, "$.count");
    }
}
