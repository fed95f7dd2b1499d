//! Argument checking before dispatch: a JSON Schema subset that covers what tool
//! schemas use (types, required, properties, additionalProperties, items, enum,
//! const, bounds, anyOf / oneOf / allOf, local `$ref`). The repair of common
//! coercions runs first (the `repair` module).
//!
//! Unknown keywords are ignored (a schema we cannot read never blocks a call);
//! every violation names the exact path at fault.
//!
//! Bounded whatever the schema and the arguments (the contract of
//! [`toolsearch_catalog::schema`]): depth counts `$ref` hops like any other level
//! ([`MAX_WALK_DEPTH`]); each (schema node, value, depth) is checked once, so
//! `allOf` / `anyOf` fan-out through `$ref` costs what its distinct pairs cost, and a
//! violation reached a thousand ways is reported once; a budget of
//! [`VALIDATION_STEPS`] ends a check that would go on longer. Then the arguments
//! count as **unchecked**, not as wrong: the call goes ahead with a note (the tool's
//! own server validates them too; the host never blocks a call on a schema it cannot
//! read). At most [`MAX_VIOLATIONS`] violations are listed, each path and message
//! capped; property lists and enum values are summarised, never copied whole.
//!
//! When the subset passes in full and the schema uses a keyword it skips, the host
//! then checks the arguments with the `jsonschema` crate (`full.rs`: compiled lazily
//! per tool, offline, `format` not asserted, bounded in size).

mod full;

use std::collections::HashMap;

use serde_json::{Map, Value};
use toolsearch_catalog::clean::clean_inline;
use toolsearch_catalog::schema::{json_preview, resolve, Budget, MAX_WALK_DEPTH};
use toolsearch_catalog::truncate_with_ellipsis;

pub(crate) use full::Compiled;

/// Violations listed in full; further ones are only counted.
pub const MAX_VIOLATIONS: usize = 20;
/// Steps (a schema node checked against a value) one check may take.
pub const VALIDATION_STEPS: u64 = 200_000;
/// Longest violation message, in bytes.
const MAX_MESSAGE_BYTES: usize = 240;
/// Longest violation path, in bytes.
const MAX_PATH_BYTES: usize = 160;
/// Property names or enum values quoted in one message.
const SHOWN: usize = 8;
/// Longest property name or value quoted in a message.
const SHOWN_BYTES: usize = 40;

/// One way the arguments break the schema.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Violation {
    /// Where: `$`, `$.owner`, `$.labels[2]`.
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

/// What checking arguments found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checked {
    /// The first [`MAX_VIOLATIONS`] violations, in the order found.
    pub violations: Vec<Violation>,
    /// Violations found beyond those listed.
    pub more: usize,
    /// True when the step budget ran out before the check was complete: what was
    /// not reached counts as valid.
    pub incomplete: bool,
}

/// Checks `args` against `schema`; empty when they conform (or could not be checked
/// in full: see [`check`]).
pub fn validate(schema: &Value, args: &Value) -> Vec<Violation> {
    check(schema, args).violations
}

/// Checks `args` against `schema`, within the bounds described in the module docs.
pub fn check(schema: &Value, args: &Value) -> Checked {
    let mut c = Checker {
        root: schema,
        budget: Budget::new(VALIDATION_STEPS),
        out: Checked::default(),
        memo: HashMap::new(),
    };
    c.check(schema, args, Path::Root, 0, true);
    c.out.incomplete = c.budget.is_spent();
    c.out
}

/// Where a value is, as a chain of parents; rendered only for a violation.
#[derive(Clone, Copy)]
enum Path<'p> {
    Root,
    Key(&'p Path<'p>, &'p str),
    Index(&'p Path<'p>, usize),
}

impl Path<'_> {
    fn render(&self) -> String {
        let mut segments = Vec::new();
        let mut at = self;
        loop {
            match at {
                Path::Root => break,
                Path::Key(parent, key) => {
                    segments.push(Segment::Key(key));
                    at = parent;
                }
                Path::Index(parent, i) => {
                    segments.push(Segment::Index(*i));
                    at = parent;
                }
            }
        }
        segments.reverse();
        render_path(&segments)
    }
}

/// One step of a path into the arguments.
pub(crate) enum Segment<'p> {
    Key(&'p str),
    Index(usize),
}

/// `$`, `$.owner`, `$.labels[2]`, `$["odd key"]`, capped at [`MAX_PATH_BYTES`].
pub(crate) fn render_path(segments: &[Segment<'_>]) -> String {
    let mut out = String::from("$");
    for s in segments {
        match s {
            Segment::Key(key) => {
                if !key.is_empty() && key.chars().all(|c| c.is_alphanumeric() || c == '_') {
                    out.push('.');
                    out.push_str(key);
                } else {
                    out.push('[');
                    out.push_str(&json_preview(
                        &Value::String((*key).to_owned()),
                        SHOWN_BYTES,
                    ));
                    out.push(']');
                }
            }
            Segment::Index(i) => out.push_str(&format!("[{i}]")),
        }
        if out.len() > MAX_PATH_BYTES * 2 {
            break;
        }
    }
    clean_inline(&out, MAX_PATH_BYTES).into_owned()
}

/// What is known of one (schema, value, depth) already checked.
#[derive(Clone, Copy)]
struct Memo {
    valid: bool,
    /// Its violations were reported (not only probed for an `anyOf`).
    reported: bool,
}

struct Checker<'a> {
    root: &'a Value,
    budget: Budget,
    out: Checked,
    memo: HashMap<(usize, usize, usize), Memo>,
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

pub(crate) fn is_type(v: &Value, t: &str) -> bool {
    match t {
        "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "number" => v.is_number(),
        other => type_name(v) == other,
    }
}

/// `a, b, c, … (12 in all)`: at most [`SHOWN`] items, each cut short.
fn summary<'v>(items: impl ExactSizeIterator<Item = String> + 'v) -> String {
    let total = items.len();
    let shown: Vec<String> = items
        .take(SHOWN)
        .map(|s| truncate_with_ellipsis(&s, SHOWN_BYTES))
        .collect();
    if total > SHOWN {
        format!("{}, … ({total} in all)", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

impl<'a> Checker<'a> {
    /// Records a violation at `path` (listed while fewer than [`MAX_VIOLATIONS`]).
    fn fail(&mut self, path: &Path<'_>, message: String) {
        if self.out.violations.len() >= MAX_VIOLATIONS {
            self.out.more += 1;
            return;
        }
        // Argument keys and values are the model's text; schema text is clean already.
        self.out.violations.push(Violation {
            path: path.render(),
            message: clean_inline(&message, MAX_MESSAGE_BYTES).into_owned(),
        });
    }

    /// True when `v` conforms to `schema`. With `report` off (probing an `anyOf`
    /// member) nothing is recorded and the first failure ends the check.
    fn check(
        &mut self,
        schema: &'a Value,
        v: &Value,
        path: Path<'_>,
        level: usize,
        report: bool,
    ) -> bool {
        if level > MAX_WALK_DEPTH {
            return true;
        }
        let key = (
            schema as *const Value as usize,
            v as *const Value as usize,
            level,
        );
        if let Some(m) = self.memo.get(&key) {
            if m.valid || m.reported || !report {
                return m.valid;
            }
        }
        if !self.budget.step() {
            return true;
        }
        let valid = self.node(schema, v, &path, level, report);
        self.memo.insert(
            key,
            Memo {
                valid,
                reported: report,
            },
        );
        valid
    }

    fn node(
        &mut self,
        schema: &'a Value,
        v: &Value,
        path: &Path<'_>,
        level: usize,
        report: bool,
    ) -> bool {
        let Some(s) = schema.as_object() else {
            if schema == &Value::Bool(false) {
                if report {
                    self.fail(path, "no value is allowed here".into());
                }
                return false;
            }
            return true;
        };
        if let Some(Value::String(r)) = s.get("$ref") {
            return match resolve(self.root, r) {
                Some(target) => self.check(target, v, *path, level + 1, report),
                None => true,
            };
        }
        if let Some(t) = s.get("type") {
            let types: Vec<&str> = match t {
                Value::String(t) => vec![t.as_str()],
                Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            let nullable = s.get("nullable") == Some(&Value::Bool(true)) && v.is_null();
            if !types.is_empty() && !nullable && !types.iter().any(|t| is_type(v, t)) {
                if report {
                    let wanted = summary(types.iter().map(|t| t.to_string()));
                    self.fail(
                        path,
                        format!(
                            "expected {}, got {}",
                            wanted.replace(", ", " or "),
                            type_name(v)
                        ),
                    );
                }
                return false;
            }
        }
        let mut ok = true;
        // A failure: recorded when reporting, else the end of the probe.
        macro_rules! failed {
            ($msg:expr) => {{
                ok = false;
                if !report {
                    return false;
                }
                self.fail(path, $msg);
            }};
        }
        if let Some(Value::Array(options)) = s.get("enum") {
            self.budget.take(options.len() as u64 / 16);
            if !options.contains(v) {
                failed!(format!(
                    "must be one of {}",
                    summary(options.iter().map(|o| json_preview(o, SHOWN_BYTES)))
                ));
            }
        }
        if let Some(c) = s.get("const") {
            if c != v {
                failed!(format!("must be {}", json_preview(c, SHOWN_BYTES)));
            }
        }
        for message in bounds(s, v) {
            failed!(message);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(variants)) = s.get(key) {
                if !variants.is_empty()
                    && !variants
                        .iter()
                        .any(|variant| self.check(variant, v, *path, level + 1, false))
                {
                    failed!(format!(
                        "matches none of the {} allowed shapes",
                        variants.len()
                    ));
                }
            }
        }
        if let Some(Value::Array(all)) = s.get("allOf") {
            for part in all {
                if !self.check(part, v, *path, level + 1, report) {
                    ok = false;
                    if !report {
                        return false;
                    }
                }
            }
        }
        let children = match v {
            Value::Object(obj) => self.object(s, obj, path, level, report),
            Value::Array(items) => self.array(s, items, path, level, report),
            _ => true,
        };
        ok && children
    }

    fn object(
        &mut self,
        s: &'a Map<String, Value>,
        obj: &Map<String, Value>,
        path: &Path<'_>,
        level: usize,
        report: bool,
    ) -> bool {
        let mut ok = true;
        if let Some(Value::Array(required)) = s.get("required") {
            self.budget.take(required.len() as u64 / 16);
            for name in required.iter().filter_map(Value::as_str) {
                if !obj.contains_key(name) {
                    ok = false;
                    if !report {
                        return false;
                    }
                    self.fail(&Path::Key(path, name), "is required".into());
                }
            }
        }
        let props = s.get("properties").and_then(Value::as_object);
        // A required property is missing: a key the schema does not name (but
        // allows) is most likely it misnamed (`tz` beside `timezone`).
        let open = !matches!(
            s.get("additionalProperties"),
            Some(Value::Bool(false) | Value::Object(_))
        );
        if let (false, true, Some(p)) = (ok, open, props) {
            let known = summary(p.keys().map(|k| format!("`{k}`")));
            for key in obj.keys().filter(|k| !p.contains_key(k.as_str())) {
                let why = format!(
                    "is not a property of this tool (a required one misnamed? known: {known})"
                );
                self.fail(&Path::Key(path, key), why);
            }
        }
        for (key, value) in obj {
            if self.budget.is_spent() {
                break;
            }
            let at = Path::Key(path, key);
            let valid = match props.and_then(|p| p.get(key)) {
                Some(prop) => self.check(prop, value, at, level + 1, report),
                None => match s.get("additionalProperties") {
                    Some(Value::Bool(false)) => {
                        if report {
                            let known = props
                                .map(|p| summary(p.keys().map(|k| format!("`{k}`"))))
                                .unwrap_or_else(|| "none".into());
                            self.fail(&at, format!("is not a known property (known: {known})"));
                        }
                        false
                    }
                    Some(extra @ Value::Object(_)) => {
                        self.check(extra, value, at, level + 1, report)
                    }
                    _ => true,
                },
            };
            if !valid {
                ok = false;
                if !report {
                    return false;
                }
            }
        }
        ok
    }

    fn array(
        &mut self,
        s: &'a Map<String, Value>,
        items: &[Value],
        path: &Path<'_>,
        level: usize,
        report: bool,
    ) -> bool {
        let mut ok = true;
        for (i, v) in items.iter().enumerate() {
            if self.budget.is_spent() {
                break;
            }
            let schema = match s.get("items") {
                Some(Value::Array(tuple)) => match tuple.get(i) {
                    Some(schema) => schema,
                    None => break,
                },
                Some(schema) => schema,
                None => break,
            };
            if !self.check(schema, v, Path::Index(path, i), level + 1, report) {
                ok = false;
                if !report {
                    return false;
                }
            }
        }
        ok
    }
}

/// Messages for the numeric, length and size bounds `v` breaks.
fn bounds(s: &Map<String, Value>, v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let num = |k: &str| s.get(k).and_then(Value::as_f64);
    let shown = |k: &str| json_preview(&s[k], SHOWN_BYTES);
    if let Some(x) = v.as_f64() {
        if num("minimum").is_some_and(|m| x < m) {
            out.push(format!("must be at least {}", shown("minimum")));
        }
        if num("maximum").is_some_and(|m| x > m) {
            out.push(format!("must be at most {}", shown("maximum")));
        }
        if num("exclusiveMinimum").is_some_and(|m| x <= m) {
            out.push(format!(
                "must be greater than {}",
                shown("exclusiveMinimum")
            ));
        }
        if num("exclusiveMaximum").is_some_and(|m| x >= m) {
            out.push(format!("must be less than {}", shown("exclusiveMaximum")));
        }
    }
    if let Some(text) = v.as_str() {
        let len = text.chars().count() as f64;
        if num("minLength").is_some_and(|m| len < m) {
            out.push(format!(
                "must have at least {} characters",
                shown("minLength")
            ));
        }
        if num("maxLength").is_some_and(|m| len > m) {
            out.push(format!(
                "must have at most {} characters",
                shown("maxLength")
            ));
        }
    }
    if let Some(items) = v.as_array() {
        let len = items.len() as f64;
        if num("minItems").is_some_and(|m| len < m) {
            out.push(format!("must have at least {} items", shown("minItems")));
        }
        if num("maxItems").is_some_and(|m| len > m) {
            out.push(format!("must have at most {} items", shown("maxItems")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    pub(crate) fn schema() -> Value {
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
        let v = validate(&schema(), &json!({"owner": "a", "odd key": 1}));
        assert_eq!(v[0].path, "$[\"odd key\"]");
        assert!(v[0].message.contains("`owner`"), "{}", v[0].message);
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
    fn a_violation_reached_many_ways_is_reported_once() {
        let s = json!({"allOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}],
            "$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}, {"$ref": "#/$defs/b"}]}, "b": {"type": "string"}}});
        let c = check(&s, &json!(1));
        assert_eq!(c.violations.len(), 1, "{c:?}");
        assert!(!c.incomplete);
    }

    #[test]
    fn messages_summarise_instead_of_copying() {
        let props: Map<String, Value> = (0..1000).map(|i| (format!("p{i}"), json!({}))).collect();
        let s = json!({"type": "object", "properties": props, "additionalProperties": false,
            "required": (0..1000).map(|i| format!("r{i}")).collect::<Vec<_>>()});
        let c = check(&s, &json!({"zzz": 1}));
        assert_eq!(c.violations.len(), MAX_VIOLATIONS);
        assert_eq!(c.more, 1000 + 1 - MAX_VIOLATIONS);
        let s = json!({"type": "object", "properties": props, "additionalProperties": false});
        let c = check(&s, &json!({"zzz": 1}));
        assert!(c.violations[0].message.len() <= MAX_MESSAGE_BYTES);
        assert!(
            c.violations[0].message.contains("(1000 in all)"),
            "{:?}",
            c.violations
        );
    }
}
