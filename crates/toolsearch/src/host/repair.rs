//! Repair of the coercions models commonly get wrong, before arguments are checked
//! ([`crate::validate`]). Bounded like every walk over a schema: depth counts `$ref`
//! hops ([`MAX_WALK_DEPTH`]), a budget of [`REPAIR_STEPS`] values, at most
//! [`MAX_NOTES`] notes (the rest are counted in one more note).

use serde_json::Value;
use toolsearch_catalog::clean::clean_inline;
use toolsearch_catalog::schema::{json_preview, resolve, Budget, MAX_WALK_DEPTH};

use super::validate::is_type;

/// Values one repair may visit.
pub const REPAIR_STEPS: u64 = 200_000;
/// Notes returned in full.
pub const MAX_NOTES: usize = 20;

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
        let nested = matches!(&args, Value::Object(obj)
            if obj.len() == 1 && !declares(wrapper) && obj.get(wrapper).is_some_and(Value::is_object));
        if !nested {
            continue;
        }
        if let Value::Object(mut obj) = std::mem::take(&mut args) {
            notes.push(format!(
                "arguments were nested under `{wrapper}`; unwrapped them"
            ));
            args = obj.remove(wrapper).unwrap_or_default();
        }
    }
    let mut fixer = Fixer {
        root: schema,
        notes: &mut notes,
        more: 0,
        budget: Budget::new(REPAIR_STEPS),
    };
    fixer.fix(schema, &mut args, &mut String::from("$"), 0);
    let more = fixer.more;
    if more > 0 {
        notes.push(format!("… and {more} more conversions"));
    }
    (args, notes)
}

struct Fixer<'a> {
    root: &'a Value,
    notes: &'a mut Vec<String>,
    /// Notes past [`MAX_NOTES`].
    more: usize,
    budget: Budget,
}

impl Fixer<'_> {
    fn note(&mut self, note: String) {
        if self.notes.len() < MAX_NOTES {
            // It quotes the model's own values: cleaned like any text sent back.
            self.notes.push(clean_inline(&note, 400).into_owned());
        } else {
            self.more += 1;
        }
    }

    /// Fixes `v` (at `path`, restored on return) against `schema`.
    fn fix(&mut self, schema: &Value, v: &mut Value, path: &mut String, level: usize) {
        if level > MAX_WALK_DEPTH || !self.budget.step() {
            return;
        }
        let Some(s) = schema.as_object() else { return };
        if let Some(Value::String(r)) = s.get("$ref") {
            if let Some(target) = resolve(self.root, r) {
                self.fix(target, v, path, level + 1);
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
                let note = format!(
                    "{}: converted {} to {}",
                    toolsearch_catalog::truncate_with_ellipsis(path, 160),
                    json_preview(v, 40),
                    json_preview(&fixed, 40)
                );
                self.note(note);
                *v = fixed;
            }
        }
        let len = path.len();
        match v {
            Value::Object(obj) => {
                if let Some(props) = s.get("properties").and_then(Value::as_object) {
                    for (key, value) in obj.iter_mut() {
                        if let Some(prop) = props.get(key) {
                            push_key(path, key);
                            self.fix(prop, value, path, level + 1);
                            path.truncate(len);
                        }
                    }
                }
            }
            Value::Array(items) => {
                if let Some(item_schema @ Value::Object(_)) = s.get("items") {
                    for (i, item) in items.iter_mut().enumerate() {
                        if self.budget.is_spent() {
                            break;
                        }
                        path.push_str(&format!("[{i}]"));
                        self.fix(item_schema, item, path, level + 1);
                        path.truncate(len);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Appends `.key` (or `["key"]`) to a path, the key cut short.
fn push_key(path: &mut String, key: &str) {
    if !key.is_empty() && key.chars().all(|c| c.is_alphanumeric() || c == '_') {
        path.push('.');
        path.push_str(toolsearch_catalog::truncate_at_boundary(key, 64));
    } else {
        path.push('[');
        path.push_str(&json_preview(&Value::String(key.to_owned()), 64));
        path.push(']');
    }
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
    use crate::host::validate::validate;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "owner": {"type": "string"},
                "count": {"type": "integer", "minimum": 1},
                "draft": {"type": "boolean"},
                "labels": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["owner"],
            "additionalProperties": false
        })
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

    #[test]
    fn notes_are_capped() {
        let s = json!({"type": "array", "items": {"type": "integer"}});
        let many: Vec<String> = (0..1000).map(|i| i.to_string()).collect();
        let (fixed, notes) = repair(&s, json!(many));
        assert_eq!(fixed[999], json!(999));
        assert_eq!(notes.len(), MAX_NOTES + 1);
        assert!(notes[MAX_NOTES].contains("980 more"), "{notes:?}");
    }
}
