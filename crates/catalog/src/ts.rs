//! TypeScript declarations generated from JSON Schema, handed to models in describe.
//!
//! Covers objects (optional vs required, doc comments), arrays and tuples, enums and
//! `const`, unions (`anyOf`/`oneOf`, type lists), `allOf` intersections, nullable and
//! `additionalProperties` maps. Local `$ref`s (`#/definitions/X`, `#/$defs/X`, any JSON
//! pointer) become named type aliases declared before the function (`type Node =
//! {...};`), each rendered once however often it is referenced, so recursive schemas
//! are expressed exactly and fan-out through `$ref` costs nothing extra; remote or
//! dangling ones are `unknown`.
//!
//! Bounded whatever the schema (see [`crate::schema`]): objects and arrays nest at
//! most [`MAX_DEPTH`] levels deep, every recursion (union members included) counts
//! toward [`MAX_WALK_DEPTH`], at most [`MAX_ALIASES`] aliases, a step budget, and
//! [`MAX_TS_BYTES`] of output; past a limit the part is `unknown`, and a declaration
//! that would be too large declares `args: unknown` with a note. Text from the schema
//! is cleaned again as it is written (doc comments by [`clean_text`], keys and string
//! literals escaped), so the output holds no hidden characters even for a schema that
//! never went through [`crate::schema::sanitize`].

use crate::clean::{clean_text, is_hidden, is_line_break, truncate_at_boundary};
use crate::schema::{json_within, resolve, Budget, MAX_WALK_DEPTH};
use crate::tool::{Tool, MAX_DESCRIPTION_BYTES};
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::{Map, Value};

/// Nesting of objects and arrays past which types degrade to `unknown`.
pub const MAX_DEPTH: usize = 8;
/// Type aliases one declaration may define; further `$ref` targets are `unknown`.
pub const MAX_ALIASES: usize = 64;
/// Longest declaration, in bytes; a longer one becomes `args: unknown` with a note.
pub const MAX_TS_BYTES: usize = 96 * 1024;
/// Schema nodes one declaration may visit.
const STEPS: u64 = 50_000;
/// Enum members beyond this many (or this many bytes) are summarised by their base type.
const MAX_ENUM: usize = 50;
const MAX_ENUM_BYTES: usize = 2048;
/// What a declaration says when its input schema could not be shown.
const TOO_LARGE_NOTE: &str =
    "The input schema is too large or complex to show as TypeScript; read input_schema.";

/// `declare function name(args: {...}): Promise<Result>;` for a tool, with its
/// description as a doc comment; a tool with a [`Tool::schema_note`] (its schema was
/// too large to load) declares `args: unknown` and carries the note.
pub fn declare(tool: &Tool) -> String {
    let input = tool.schema_note.is_none().then_some(&tool.input_schema);
    render(
        tool.short_name(),
        &tool.description,
        input,
        tool.output_schema.as_ref(),
        tool.schema_note.as_deref(),
    )
}

/// `declare function name(args: {...}): Promise<Result>;` with the description as a doc comment.
pub fn declaration(name: &str, description: &str, input: &Value, output: Option<&Value>) -> String {
    render(name, description, Some(input), output, None)
}

fn render(
    name: &str,
    description: &str,
    input: Option<&Value>,
    output: Option<&Value>,
    note: Option<&str>,
) -> String {
    let mut r = Render::default();
    let args = match input {
        Some(schema) => r.ty(schema, schema, 0, 0),
        None => "unknown".into(),
    };
    let ret = match output {
        Some(schema) => r.ty(schema, schema, 0, 0),
        None => "unknown".into(),
    };
    let aliases = r.finish();
    let mut out = String::new();
    for (alias, doc, body) in &aliases {
        push_doc(&mut out, doc, "");
        out.push_str(&format!("type {alias} = {body};\n"));
    }
    let doc = match note {
        Some(n) => format!("{}\n\nNote: {n}", description.trim()),
        None => description.to_string(),
    };
    push_doc(&mut out, &doc, "");
    out.push_str(&format!(
        "declare function {}(args: {args}): Promise<{ret}>;",
        identifier(name)
    ));
    if (r.budget.is_spent() || out.len() > MAX_TS_BYTES) && input.is_some() {
        return render(name, description, None, None, Some(TOO_LARGE_NOTE));
    }
    out
}

/// A valid JS identifier made from a tool name (`gh.search-code` -> `gh_search_code`).
pub fn identifier(name: &str) -> String {
    let mut id: String = name
        .chars()
        .map(|c| if is_identifier_char(c) { c } else { '_' })
        .collect();
    if id.is_empty() || id.starts_with(|c: char| c.is_numeric()) {
        id.insert(0, '_');
    }
    id
}

fn is_identifier_char(c: char) -> bool {
    (c.is_alphanumeric() && !is_hidden(c)) || c == '_' || c == '$'
}

fn push_doc(out: &mut String, text: &str, indent: &str) {
    let text = clean_text(text, MAX_DESCRIPTION_BYTES);
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
    matches!(chars.next(), Some(c) if is_identifier_char(c) && !c.is_numeric())
        && chars.all(is_identifier_char)
}

/// A JSON string literal that is also valid TypeScript, with hidden characters and
/// line breaks written as `\u{..}` escapes.
fn js_string(s: &str) -> String {
    let quoted = serde_json::to_string(s).unwrap_or_else(|_| "\"?\"".into());
    if !quoted.chars().any(|c| is_hidden(c) || is_line_break(c)) {
        return quoted;
    }
    quoted
        .chars()
        .map(|c| {
            if is_hidden(c) || is_line_break(c) {
                format!("\\u{{{:x}}}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn property_key(key: &str) -> String {
    if is_identifier(key) {
        key.to_string()
    } else {
        js_string(key)
    }
}

/// A literal type for `v`; `None` for a string longer than `max` bytes (shown by its
/// base type instead).
fn literal(v: &Value, max: usize) -> Option<String> {
    Some(match v {
        Value::String(s) if s.len() > max => return None,
        Value::String(s) => js_string(s),
        Value::Number(_) | Value::Bool(_) | Value::Null => v.to_string(),
        _ => "unknown".into(),
    })
}

/// A `$ref` target shown as a named alias.
struct Alias<'a> {
    name: String,
    root: &'a Value,
    target: &'a Value,
    /// The rendered type, once done.
    body: Option<String>,
}

struct Render<'a> {
    budget: Budget,
    /// Bytes of object bodies written so far (nested ones counted at each level).
    produced: usize,
    aliases: Vec<Alias<'a>>,
    /// Alias index by the address of its target.
    by_target: FxHashMap<usize, usize>,
    names: FxHashSet<String>,
}

impl Default for Render<'_> {
    fn default() -> Self {
        Render {
            budget: Budget::new(STEPS),
            produced: 0,
            aliases: Vec::new(),
            by_target: FxHashMap::default(),
            names: FxHashSet::default(),
        }
    }
}

/// Names a type alias must not take.
const RESERVED: &[&str] = &[
    "any",
    "Array",
    "bigint",
    "boolean",
    "Boolean",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "Date",
    "debugger",
    "declare",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "Error",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "Function",
    "if",
    "import",
    "in",
    "infer",
    "instanceof",
    "interface",
    "keyof",
    "let",
    "Map",
    "never",
    "new",
    "null",
    "number",
    "Number",
    "object",
    "Object",
    "Partial",
    "Promise",
    "Record",
    "return",
    "Set",
    "string",
    "String",
    "super",
    "switch",
    "symbol",
    "Symbol",
    "this",
    "throw",
    "true",
    "try",
    "type",
    "typeof",
    "undefined",
    "unknown",
    "var",
    "void",
    "while",
    "with",
    "yield",
];

impl<'a> Render<'a> {
    /// The alias of a `$ref` target, made on first use (rendered later, at top level).
    fn reference(&mut self, root: &'a Value, reference: &str) -> String {
        let Some(target) = resolve(root, reference) else {
            return "unknown".into();
        };
        let key = target as *const Value as usize;
        if let Some(&i) = self.by_target.get(&key) {
            return self.aliases[i].name.clone();
        }
        if self.aliases.len() >= MAX_ALIASES {
            return "unknown".into();
        }
        let last = reference.rsplit('/').next().unwrap_or("");
        let last = last.replace("~1", "/").replace("~0", "~");
        let mut base = identifier(truncate_at_boundary(&last, 48));
        if reference == "#" || base.trim_matches('_').is_empty() {
            base = "Root".into();
        }
        if RESERVED.contains(&base.as_str()) {
            base.push('_');
        }
        let mut name = base.clone();
        let mut n = 1;
        while self.names.contains(&name) {
            n += 1;
            name = format!("{base}{n}");
        }
        self.names.insert(name.clone());
        self.by_target.insert(key, self.aliases.len());
        self.aliases.push(Alias {
            name: name.clone(),
            root,
            target,
            body: None,
        });
        name
    }

    /// Renders every alias (each at top level: `$ref` chains never deepen the
    /// recursion) and returns (name, doc, body) in order of first use.
    fn finish(&mut self) -> Vec<(String, String, String)> {
        let mut i = 0;
        while i < self.aliases.len() {
            let (root, target) = (self.aliases[i].root, self.aliases[i].target);
            let body = self.ty(root, target, 0, 0);
            self.aliases[i].body = Some(body);
            i += 1;
        }
        // `type A = B; type B = A;` is an error in TypeScript: such cycles mean anything.
        let index: FxHashMap<&str, usize> = self
            .aliases
            .iter()
            .enumerate()
            .map(|(i, a)| (a.name.as_str(), i))
            .collect();
        let cyclic: Vec<bool> = (0..self.aliases.len())
            .map(|start| {
                let mut at = start;
                for _ in 0..self.aliases.len() {
                    match self.aliases[at].body.as_deref().and_then(|b| index.get(b)) {
                        Some(&next) if next == start => return true,
                        Some(&next) => at = next,
                        None => return false,
                    }
                }
                false
            })
            .collect();
        self.aliases
            .iter()
            .zip(cyclic)
            .map(|(a, cyclic)| {
                let doc = a
                    .target
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                let body = if cyclic {
                    "unknown".to_string()
                } else {
                    a.body.clone().unwrap_or_else(|| "unknown".into())
                };
                (a.name.clone(), doc, body)
            })
            .collect()
    }

    /// The type of `schema` (inside `root`), `depth` objects/arrays deep, after `level`
    /// recursive steps.
    fn ty(&mut self, root: &'a Value, schema: &'a Value, depth: usize, level: usize) -> String {
        if depth > MAX_DEPTH || level > MAX_WALK_DEPTH || !self.budget.step() {
            return "unknown".into();
        }
        let obj = match schema {
            Value::Bool(true) => return "unknown".into(),
            Value::Bool(false) => return "never".into(),
            Value::Object(o) => o,
            _ => return "unknown".into(),
        };
        if let Some(Value::String(r)) = obj.get("$ref") {
            return self.reference(root, r);
        }
        if let Some(l) = obj.get("const").and_then(|c| literal(c, MAX_ENUM_BYTES)) {
            return l;
        }
        if let Some(Value::Array(values)) = obj.get("enum") {
            if !values.is_empty() && values.len() <= MAX_ENUM {
                let parts: Option<Vec<String>> =
                    values.iter().map(|v| literal(v, MAX_ENUM_BYTES)).collect();
                if let Some(parts) = parts.map(|p| dedup(p.into_iter())) {
                    if parts.iter().map(|p| p.len() + 3).sum::<usize>() <= MAX_ENUM_BYTES {
                        return parts.join(" | ");
                    }
                }
            }
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(variants)) = obj.get(key) {
                let parts = dedup(variants.iter().map(|v| self.ty(root, v, depth, level + 1)));
                if !parts.is_empty() {
                    return join(&parts, " | ");
                }
            }
        }
        if let Some(Value::Array(all)) = obj.get("allOf") {
            let parts = dedup(all.iter().map(|v| self.ty(root, v, depth, level + 1)));
            if !parts.is_empty() {
                return join(&parts, " & ");
            }
        }
        match obj.get("type") {
            Some(Value::String(t)) => self.of_type(root, t, obj, depth, level),
            Some(Value::Array(types)) => {
                let mut seen = FxHashSet::default();
                let mut parts = Vec::new();
                for t in types.iter().filter_map(Value::as_str) {
                    if seen.insert(t) {
                        parts.push(self.of_type(root, t, obj, depth, level));
                    }
                }
                let parts = dedup(parts.into_iter());
                if parts.is_empty() {
                    "unknown".into()
                } else {
                    join(&parts, " | ")
                }
            }
            _ if obj.contains_key("properties") => self.object(root, obj, depth, level),
            _ if obj.contains_key("items") => self.of_type(root, "array", obj, depth, level),
            _ => "unknown".into(),
        }
    }

    fn of_type(
        &mut self,
        root: &'a Value,
        t: &str,
        obj: &'a Map<String, Value>,
        depth: usize,
        level: usize,
    ) -> String {
        match t {
            "string" => "string".into(),
            "integer" | "number" => "number".into(),
            "boolean" => "boolean".into(),
            "null" => "null".into(),
            "object" => self.object(root, obj, depth, level),
            "array" => match obj.get("items") {
                Some(Value::Array(tuple)) => {
                    let parts: Vec<String> = tuple
                        .iter()
                        .map(|v| self.ty(root, v, depth + 1, level + 1))
                        .collect();
                    format!("[{}]", parts.join(", "))
                }
                Some(items) => {
                    let inner = self.ty(root, items, depth + 1, level + 1);
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

    fn object(
        &mut self,
        root: &'a Value,
        obj: &'a Map<String, Value>,
        depth: usize,
        level: usize,
    ) -> String {
        let required: FxHashSet<&str> = match obj.get("required") {
            Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
            _ => FxHashSet::default(),
        };
        let indent = "  ".repeat(depth + 1);
        let mut body = String::new();
        if let Some(Value::Object(props)) = obj.get("properties") {
            for (key, prop) in props {
                if self.budget.is_spent() || body.len() > MAX_TS_BYTES {
                    break;
                }
                let mut doc = prop
                    .get("description")
                    .and_then(Value::as_str)
                    .map(|d| truncate_at_boundary(d, 2 * MAX_DESCRIPTION_BYTES))
                    .unwrap_or("")
                    .to_string();
                if let Some(d) = prop.get("default").and_then(|d| json_within(d, 80)) {
                    doc = format!(
                        "{doc}{}@default {d}",
                        if doc.is_empty() { "" } else { "\n" }
                    );
                }
                push_doc(&mut body, &doc, &indent);
                let opt = if required.contains(key.as_str()) {
                    ""
                } else {
                    "?"
                };
                let t = self.ty(root, prop, depth + 1, level + 1);
                let key = property_key(truncate_at_boundary(key, 1024));
                body.push_str(&format!("{indent}{key}{opt}: {t};\n"));
            }
        }
        // Output written at every level of nesting: past a few declarations' worth,
        // the declaration would be cut anyway.
        self.produced += body.len();
        if self.produced > 8 * MAX_TS_BYTES {
            self.budget.take(u64::MAX);
        }
        match obj.get("additionalProperties") {
            Some(extra @ Value::Object(_)) => {
                let t = self.ty(root, extra, depth + 1, level + 1);
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

/// The distinct parts, in order of first appearance.
fn dedup(parts: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen = FxHashSet::default();
    parts.filter(|p| seen.insert(p.clone())).collect()
}

fn join(parts: &[String], sep: &str) -> String {
    parts
        .iter()
        .map(|p| wrap_union_member(p))
        .collect::<Vec<_>>()
        .join(sep)
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
        Render::default().ty(&schema, &schema, 0, 0)
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
    fn refs_become_aliases_and_recursion_is_named() {
        let s = json!({"type": "object", "properties": {
            "node": {"$ref": "#/$defs/Node"},
            "other": {"$ref": "#/$defs/Node"},
            "missing": {"$ref": "#/$defs/Nope"},
            "remote": {"$ref": "https://example.com/x.json"},
            "string": {"$ref": "#/$defs/string"}
        }, "$defs": {
            "Node": {"type": "object", "description": "A node.", "properties": {"next": {"$ref": "#/$defs/Node"}}},
            "string": {"type": "string"}
        }});
        let t = declaration("f", "", &s, None);
        assert!(
            t.starts_with(
                "/** A node. */\ntype Node = {\n  next?: Node;\n};\ntype string_ = string;\n"
            ),
            "{t}"
        );
        assert!(t.contains("  node?: Node;\n  other?: Node;\n"), "{t}");
        assert!(t.contains("missing?: unknown;"), "{t}");
        assert!(t.contains("remote?: unknown;"), "{t}");
        assert!(t.contains("string?: string_;"), "{t}");
        // Aliases of aliases in a cycle mean nothing.
        let s = json!({"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}});
        let t = declaration("f", "", &s, None);
        assert!(
            t.contains("type A = unknown;") && t.contains("type B = unknown;"),
            "{t}"
        );
    }

    #[test]
    fn odd_keys_are_quoted_and_comments_cannot_be_closed() {
        let s = json!({"type": "object", "properties": {
            "my-key": {"type": "string", "description": "evil */ declare const x: 1; /*"},
            "a\u{202e}b\u{3164}": {"enum": ["x\u{2028}y"], "description": "line\u{2029}SYSTEM\u{e0041}"},
        }});
        let t = args(s);
        assert!(t.contains("\"my-key\"?: string;"), "{t}");
        assert!(!t.contains("evil */"), "{t}");
        assert!(
            t.contains("\"a\\u{202e}b\\u{3164}\"?: \"x\\u{2028}y\";"),
            "{t}"
        );
        assert!(t.contains(" * SYSTEM\n"), "{t}");
        assert!(crate::clean::is_clean_text(&t), "{t}");
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
