//! The full JSON Schema check, by the `jsonschema` crate, for the keywords the subset
//! in `mod.rs` does not read: `pattern`, `oneOf` exclusivity, `not`, `if` / `then` /
//! `else`, `prefixItems`, `uniqueItems`, `multipleOf`, `contains`, `propertyNames`,
//! `dependentRequired`, keywords beside `$ref`, and the rest of draft 2020-12.
//!
//! It runs after the subset passed in full (the subset's messages name the fault
//! better, and its step budget has already refused what it could not finish), and
//! only when the schema uses such a keyword. Decisions:
//!
//! - **Compiled lazily**, once per tool and schema, cached on the host (at most
//!   [`CACHE_ENTRIES`], least recently used dropped): compiling 9,648 schemas on every
//!   catalog change would cost seconds, while a call compiles one.
//! - A schema that does not compile (under its own `$schema`, else draft 2020-12,
//!   then draft 7, then draft 4, for tools written to older drafts) is **not checked
//!   by it**: the subset's verdict stands. So is a schema whose patterns need
//!   look-around (patterns run on the linear-time `regex` engine, with size limits:
//!   no backtracking on hostile patterns).
//! - **No remote or file `$ref`**: the retriever is offline and the crate is built
//!   without its HTTP client (`default-features = false`).
//! - **`format` is not asserted** (an annotation, as draft 2020-12 says by default):
//!   tools disagree on what `date` or `uri` accept, and a wrong refusal costs a call.
//! - OpenAPI's `nullable: true` is honoured (`null` joins `type`), as the subset does.
//! - **Bounded**: the schema, unrolled through every `$ref` (no memo, as the
//!   validator walks it), must have at most [`MAX_UNROLLED`] nodes, no deeper than
//!   [`MAX_WALK_DEPTH`] (so a `$ref` cycle never qualifies), and unrolled nodes
//!   times argument nodes must stay under [`MAX_WORK`]; otherwise only the subset
//!   checks the call.

use std::sync::{Arc, Mutex};

use jsonschema::error::ValidationErrorKind;
use jsonschema::paths::LocationSegment;
use jsonschema::{Draft, PatternOptions, Validator};
use serde_json::{Map, Value};
use toolsearch_catalog::clean::clean_inline;
use toolsearch_catalog::lru::Lru;
use toolsearch_catalog::schema::{resolve, MAX_WALK_DEPTH};

use super::{render_path, Checked, Segment, Violation, MAX_MESSAGE_BYTES, MAX_VIOLATIONS};

/// Compiled schemas kept.
pub const CACHE_ENTRIES: usize = 1024;
/// Largest schema, counted with every `$ref` expanded where it is used.
pub const MAX_UNROLLED: u64 = 20_000;
/// Largest (unrolled schema nodes × argument nodes) checked.
pub const MAX_WORK: u64 = 4_000_000;
/// Errors looked at beyond those listed (only counted).
const MAX_COUNTED: usize = 1_000;
/// Size limits of one compiled pattern (the `regex` crate's program and DFA).
const PATTERN_BYTES: usize = 1 << 20;

/// Keywords the subset does not check: a schema without any goes unchecked here.
const BEYOND_SUBSET: &[&str] = &[
    "pattern",
    "patternProperties",
    "oneOf",
    "not",
    "if",
    "prefixItems",
    "additionalItems",
    "uniqueItems",
    "multipleOf",
    "contains",
    "propertyNames",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "minProperties",
    "maxProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// The compiled schemas of one host, by tool id.
pub(crate) struct Compiled {
    entries: Mutex<Lru<String, Entry>>,
}

impl Default for Compiled {
    fn default() -> Self {
        Compiled {
            entries: Mutex::new(Lru::new(CACHE_ENTRIES)),
        }
    }
}

struct Entry {
    /// The schema compiled (a tool whose schema changed compiles again).
    schema: Value,
    plan: Option<Arc<Plan>>,
}

/// A schema worth checking in full, compiled.
struct Plan {
    validator: Validator,
    unrolled: u64,
}

impl Compiled {
    /// Checks `args` against the tool's schema in full; `None` when this check does
    /// not apply (see the module docs), so the subset's verdict stands.
    pub(crate) fn check(&self, tool_id: &str, schema: &Value, args: &Value) -> Option<Checked> {
        let plan = self.plan(tool_id, schema)?;
        let nodes = count_nodes(args, MAX_WORK / plan.unrolled.max(1) + 1);
        if nodes.saturating_mul(plan.unrolled) > MAX_WORK {
            return None;
        }
        Some(violations(&plan.validator, args))
    }

    fn plan(&self, tool_id: &str, schema: &Value) -> Option<Arc<Plan>> {
        {
            let mut cache = self.entries.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(e) = cache.get(tool_id) {
                if &e.schema == schema {
                    return e.plan.clone();
                }
            }
        }
        // Compiled outside the lock: other calls go on meanwhile.
        let plan = compile(schema).map(Arc::new);
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(
                tool_id.to_owned(),
                Entry {
                    schema: schema.clone(),
                    plan: plan.clone(),
                },
            );
        plan
    }

    /// Schemas compiled and kept (for tests).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

/// The plan for `schema`, or `None` when it is not checked in full.
fn compile(schema: &Value) -> Option<Plan> {
    let mut shape = Shape::default();
    if !shape.walk(schema, schema, 0) || !shape.beyond_subset {
        return None;
    }
    let schema = with_nullable(schema);
    let drafts: &[Option<Draft>] = if schema.get("$schema").is_some() {
        &[None]
    } else {
        &[None, Some(Draft::Draft7), Some(Draft::Draft4)]
    };
    drafts.iter().find_map(|draft| {
        let mut options = jsonschema::options()
            .offline()
            .should_validate_formats(false)
            .with_pattern_options(
                PatternOptions::regex()
                    .size_limit(PATTERN_BYTES)
                    .dfa_size_limit(PATTERN_BYTES),
            );
        if let Some(d) = draft {
            options = options.with_draft(*d);
        }
        let validator = options.build(&schema).ok()?;
        Some(Plan {
            validator,
            unrolled: shape.nodes,
        })
    })
}

/// What the unrolled walk of a schema found.
#[derive(Default)]
struct Shape {
    nodes: u64,
    beyond_subset: bool,
}

impl Shape {
    /// Counts `v` and everything under it, following local `$ref`s where they are
    /// used; false when over [`MAX_UNROLLED`] or [`MAX_WALK_DEPTH`], or when a `$ref`
    /// cannot be followed here (anchors, `$id`-relative or remote references).
    fn walk(&mut self, root: &Value, v: &Value, depth: usize) -> bool {
        if depth > MAX_WALK_DEPTH {
            return false;
        }
        self.nodes += 1;
        if self.nodes > MAX_UNROLLED {
            return false;
        }
        match v {
            Value::Object(map) => self.object(root, map, depth),
            Value::Array(items) => items.iter().all(|i| self.walk(root, i, depth + 1)),
            _ => true,
        }
    }

    fn object(&mut self, root: &Value, map: &Map<String, Value>, depth: usize) -> bool {
        if let Some(r) = map.get("$ref") {
            let Some(target) = r.as_str().and_then(|r| resolve(root, r)) else {
                return false;
            };
            if map.len() > 1 {
                self.beyond_subset = true;
            }
            if !self.walk(root, target, depth + 1) {
                return false;
            }
        }
        if map.contains_key("$dynamicRef") || map.contains_key("$recursiveRef") {
            return false;
        }
        if BEYOND_SUBSET.iter().any(|k| map.contains_key(*k)) {
            self.beyond_subset = true;
        }
        map.iter()
            .filter(|(k, _)| k.as_str() != "$ref")
            .all(|(_, v)| self.walk(root, v, depth + 1))
    }
}

/// The schema with OpenAPI's `nullable: true` read as JSON Schema: `null` joins `type`.
fn with_nullable(schema: &Value) -> Value {
    fn fix(v: &mut Value, depth: usize) {
        if depth > MAX_WALK_DEPTH {
            return;
        }
        match v {
            Value::Object(map) => {
                if map.get("nullable") == Some(&Value::Bool(true)) {
                    match map.get_mut("type") {
                        Some(Value::String(t)) if t != "null" => {
                            let t = std::mem::take(t);
                            map.insert("type".into(), serde_json::json!([t, "null"]));
                        }
                        Some(Value::Array(ts)) if !ts.iter().any(|t| t == "null") => {
                            ts.push("null".into());
                        }
                        _ => {}
                    }
                }
                map.values_mut().for_each(|v| fix(v, depth + 1));
            }
            Value::Array(items) => items.iter_mut().for_each(|v| fix(v, depth + 1)),
            _ => {}
        }
    }
    let mut out = schema.clone();
    fix(&mut out, 0);
    out
}

/// Values in `v` (itself included), counting stopped past `cap`.
fn count_nodes(v: &Value, cap: u64) -> u64 {
    let mut n = 0u64;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        n += 1;
        if n > cap {
            break;
        }
        match v {
            Value::Object(map) => stack.extend(map.values()),
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    n
}

/// The validator's errors as violations; engine failures (a pattern that could not
/// run) are not faults of the arguments and are left out.
fn violations(validator: &Validator, args: &Value) -> Checked {
    let mut out = Checked::default();
    for error in validator.iter_errors(args).take(MAX_COUNTED) {
        if matches!(
            error.kind(),
            ValidationErrorKind::BacktrackLimitExceeded { .. }
                | ValidationErrorKind::RegexEngineFailure { .. }
                | ValidationErrorKind::Referencing(_)
        ) {
            continue;
        }
        if out.violations.len() == MAX_VIOLATIONS {
            out.more += 1;
            continue;
        }
        let segments: Vec<LocationSegment<'_>> = error.instance_path().iter().collect();
        let path: Vec<Segment<'_>> = segments
            .iter()
            .map(|s| match s {
                LocationSegment::Property(p) => Segment::Key(p),
                LocationSegment::Index(i) => Segment::Index(*i),
            })
            .collect();
        let message = error.masked_with("the value").to_string();
        out.violations.push(Violation {
            path: render_path(&path),
            message: clean_inline(&message, MAX_MESSAGE_BYTES).into_owned(),
        });
    }
    out
}

#[cfg(test)]
#[path = "full_tests.rs"]
mod tests;
