//! TypeScript declarations generated from JSON Schema, handed to models in describe.
//!
//! Covers objects (optional vs required, doc comments), arrays and tuples, enums and
//! `const`, unions (`anyOf`/`oneOf`, type lists), `allOf` intersections, nullable and
//! `additionalProperties` maps. Local `$ref`s (`#/definitions/X`, `#/$defs/X`, any JSON
//! pointer) are resolved inline; recursive or unresolvable ones degrade to `unknown`.

use serde_json::{Map, Value};

/// Nesting depth past which types degrade to `unknown`.
const MAX_DEPTH: usize = 8;
/// Enum members beyond this many are summarised by their base type.
const MAX_ENUM: usize = 50;

/// `declare function name(args: {...}): Promise<Result>;` with the description as a doc comment.
pub fn declaration(name: &str, description: &str, input: &Value, output: Option<&Value>) -> String {
    let mut out = String::new();
    push_doc(&mut out, description, "");
    let args = Ctx {
        root: input,
        stack: Vec::new(),
    }
    .ty(input, 0);
    let ret = match output {
        Some(schema) => Ctx {
            root: schema,
            stack: Vec::new(),
        }
        .ty(schema, 0),
        None => "unknown".into(),
    };
    out.push_str(&format!(
        "declare function {}(args: {args}): Promise<{ret}>;",
        identifier(name)
    ));
    out
}

/// A valid JS identifier made from a tool name (`gh.search-code` -> `gh_search_code`).
pub fn identifier(name: &str) -> String {
    let mut id: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '$' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if id.is_empty() || id.starts_with(|c: char| c.is_numeric()) {
        id.insert(0, '_');
    }
    id
}

fn push_doc(out: &mut String, text: &str, indent: &str) {
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    // `*/` would end the comment early.
    let text = text.replace("*/", "*\\/");
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() == 1 {
        out.push_str(&format!("{indent}/** {} */\n", lines[0].trim()));
    } else {
        out.push_str(&format!("{indent}/**\n"));
        for l in lines {
            out.push_str(&format!("{indent} * {}\n", l.trim_end()));
        }
        out.push_str(&format!("{indent} */\n"));
    }
}

fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

fn property_key(key: &str) -> String {
    if is_identifier(key) {
        key.to_string()
    } else {
        serde_json::to_string(key).unwrap_or_else(|_| "\"?\"".into())
    }
}

fn literal(v: &Value) -> String {
    match v {
        Value::String(_) | Value::Number(_) | Value::Bool(_) | Value::Null => v.to_string(),
        _ => "unknown".into(),
    }
}

struct Ctx<'a> {
    root: &'a Value,
    /// `$ref`s being expanded, to stop recursion.
    stack: Vec<String>,
}

impl<'a> Ctx<'a> {
    fn resolve(&self, reference: &str) -> Option<&'a Value> {
        let pointer = reference.strip_prefix('#')?;
        if pointer.is_empty() {
            return Some(self.root);
        }
        self.root.pointer(pointer)
    }

    fn ty(&mut self, schema: &Value, depth: usize) -> String {
        if depth > MAX_DEPTH {
            return "unknown".into();
        }
        let obj = match schema {
            Value::Bool(true) => return "unknown".into(),
            Value::Bool(false) => return "never".into(),
            Value::Object(o) => o,
            _ => return "unknown".into(),
        };
        if let Some(Value::String(r)) = obj.get("$ref") {
            if self.stack.iter().any(|s| s == r) {
                return "unknown /* recursive */".into();
            }
            return match self.resolve(r) {
                Some(target) => {
                    self.stack.push(r.clone());
                    let t = self.ty(target, depth);
                    self.stack.pop();
                    t
                }
                None => "unknown".into(),
            };
        }
        if let Some(c) = obj.get("const") {
            return literal(c);
        }
        if let Some(Value::Array(values)) = obj.get("enum") {
            if !values.is_empty() && values.len() <= MAX_ENUM {
                return values.iter().map(literal).collect::<Vec<_>>().join(" | ");
            }
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(variants)) = obj.get(key) {
                let mut parts: Vec<String> = Vec::new();
                for v in variants {
                    let t = self.ty(v, depth);
                    if !parts.contains(&t) {
                        parts.push(t);
                    }
                }
                if !parts.is_empty() {
                    return parts
                        .iter()
                        .map(|p| wrap_union_member(p))
                        .collect::<Vec<_>>()
                        .join(" | ");
                }
            }
        }
        if let Some(Value::Array(all)) = obj.get("allOf") {
            let parts: Vec<String> = all.iter().map(|v| self.ty(v, depth)).collect();
            if !parts.is_empty() {
                return parts
                    .iter()
                    .map(|p| wrap_union_member(p))
                    .collect::<Vec<_>>()
                    .join(" & ");
            }
        }
        match obj.get("type") {
            Some(Value::String(t)) => self.of_type(t, obj, depth),
            Some(Value::Array(types)) => {
                let parts: Vec<String> = types
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|t| wrap_union_member(&self.of_type(t, obj, depth)))
                    .collect();
                if parts.is_empty() {
                    "unknown".into()
                } else {
                    parts.join(" | ")
                }
            }
            _ if obj.contains_key("properties") => self.object(obj, depth),
            _ if obj.contains_key("items") => self.of_type("array", obj, depth),
            _ => "unknown".into(),
        }
    }

    fn of_type(&mut self, t: &str, obj: &Map<String, Value>, depth: usize) -> String {
        match t {
            "string" => "string".into(),
            "integer" | "number" => "number".into(),
            "boolean" => "boolean".into(),
            "null" => "null".into(),
            "object" => self.object(obj, depth),
            "array" => match obj.get("items") {
                Some(Value::Array(tuple)) => {
                    let parts: Vec<String> = tuple.iter().map(|v| self.ty(v, depth + 1)).collect();
                    format!("[{}]", parts.join(", "))
                }
                Some(items) => {
                    let inner = self.ty(items, depth + 1);
                    if inner.contains([' ', '|', '&']) && !inner.starts_with('{') {
                        format!("Array<{inner}>")
                    } else {
                        format!("{inner}[]")
                    }
                }
                None => "unknown[]".into(),
            },
            _ => "unknown".into(),
        }
    }

    fn object(&mut self, obj: &Map<String, Value>, depth: usize) -> String {
        let required: Vec<&str> = match obj.get("required") {
            Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let indent = "  ".repeat(depth + 1);
        let mut body = String::new();
        if let Some(Value::Object(props)) = obj.get("properties") {
            for (key, prop) in props {
                let mut doc = prop
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                if let Some(default) = prop.get("default") {
                    let d = default.to_string();
                    if d.len() <= 80 {
                        doc = format!(
                            "{doc}{}@default {d}",
                            if doc.is_empty() { "" } else { "\n" }
                        );
                    }
                }
                push_doc(&mut body, &doc, &indent);
                let opt = if required.contains(&key.as_str()) {
                    ""
                } else {
                    "?"
                };
                let t = self.ty(prop, depth + 1);
                body.push_str(&format!("{indent}{}{opt}: {t};\n", property_key(key)));
            }
        }
        match obj.get("additionalProperties") {
            Some(Value::Object(_)) => {
                let t = self.ty(&obj["additionalProperties"], depth + 1);
                body.push_str(&format!("{indent}[key: string]: {t};\n"));
            }
            Some(Value::Bool(true)) if body.is_empty() => {
                body.push_str(&format!("{indent}[key: string]: unknown;\n"));
            }
            _ => {}
        }
        if body.is_empty() {
            return "{}".into();
        }
        format!("{{\n{body}{}}}", "  ".repeat(depth))
    }
}

fn wrap_union_member(t: &str) -> String {
    if t.contains(" | ") || t.contains(" & ") {
        format!("({t})")
    } else {
        t.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(schema: Value) -> String {
        Ctx {
            root: &schema,
            stack: Vec::new(),
        }
        .ty(&schema, 0)
    }

    #[test]
    fn object_with_required_optional_and_docs() {
        let s = json!({"type": "object", "required": ["city"], "properties": {
            "city": {"type": "string", "description": "City name"},
            "days": {"type": "integer", "default": 3}
        }});
        assert_eq!(
            args(s),
            "{\n  /** City name */\n  city: string;\n  /** @default 3 */\n  days?: number;\n}"
        );
    }

    #[test]
    fn arrays_enums_unions_and_nullables() {
        assert_eq!(
            args(json!({"type": "array", "items": {"type": "string"}})),
            "string[]"
        );
        assert_eq!(args(json!({"enum": ["a", "b", 3]})), "\"a\" | \"b\" | 3");
        assert_eq!(
            args(json!({"type": "array", "items": {"enum": ["x", "y"]}})),
            "Array<\"x\" | \"y\">"
        );
        assert_eq!(args(json!({"type": ["string", "null"]})), "string | null");
        assert_eq!(
            args(json!({"anyOf": [{"type": "string"}, {"type": "number"}]})),
            "string | number"
        );
        assert_eq!(args(json!({"const": "fixed"})), "\"fixed\"");
        assert_eq!(
            args(json!({"type": "array", "items": [{"type": "string"}, {"type": "number"}]})),
            "[string, number]"
        );
        assert_eq!(
            args(
                json!({"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "object"}]})
            ),
            "{\n  a?: string;\n} & {}"
        );
    }

    #[test]
    fn refs_resolve_and_recursion_degrades() {
        let s = json!({"type": "object", "properties": {
            "node": {"$ref": "#/$defs/Node"},
            "missing": {"$ref": "#/$defs/Nope"},
            "remote": {"$ref": "https://example.com/x.json"}
        }, "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}});
        let t = args(s);
        assert!(
            t.contains("node?: {\n    next?: unknown /* recursive */;\n  };"),
            "{t}"
        );
        assert!(t.contains("missing?: unknown;"), "{t}");
        assert!(t.contains("remote?: unknown;"), "{t}");
    }

    #[test]
    fn odd_keys_are_quoted_and_comments_cannot_be_closed() {
        let s = json!({"type": "object", "properties": {
            "my-key": {"type": "string", "description": "evil */ declare const x: 1; /*"},
        }});
        let t = args(s);
        assert!(t.contains("\"my-key\"?: string;"), "{t}");
        assert!(!t.contains("evil */"), "{t}");
    }

    #[test]
    fn maps_and_declaration_shape() {
        assert_eq!(
            args(json!({"type": "object", "additionalProperties": {"type": "number"}})),
            "{\n  [key: string]: number;\n}"
        );
        let d = declaration(
            "gh.search-code",
            "Search code.",
            &json!({"type": "object"}),
            Some(&json!({"type": "string"})),
        );
        assert_eq!(
            d,
            "/** Search code. */\ndeclare function gh_search_code(args: {}): Promise<string>;"
        );
        assert_eq!(identifier("9lives"), "_9lives");
    }

    #[test]
    fn deep_nesting_degrades_to_unknown() {
        let mut s = json!({"type": "string"});
        for _ in 0..20 {
            s = json!({"type": "array", "items": s});
        }
        assert!(args(s).contains("unknown"));
    }
}
