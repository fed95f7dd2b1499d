//! What changes between two configurations: their effective views (every
//! default filled in, secrets redacted) compared key by key, servers and
//! profiles by name. `toolsearch config check FILE --diff OTHER` prints it.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::Config;

/// Every leaf of `v` by its path (`http.rate_limit_per_minute`,
/// `servers[time].args`); lists of named objects are keyed by name.
fn leaves(prefix: &str, v: &Value, out: &mut BTreeMap<String, Value>) {
    let join = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                leaves(&join(k), x, out);
            }
        }
        Value::Array(items) if !items.is_empty() && items.iter().all(|i| i["name"].is_string()) => {
            for i in items {
                let name = i["name"].as_str().unwrap_or_default();
                leaves(&format!("{prefix}[{name}]"), i, out);
            }
        }
        _ => {
            out.insert(prefix.to_string(), v.clone());
        }
    }
}

/// The keys whose effective values differ from `from` to `to`: each with
/// both values (`null` where a key is only on one side).
pub fn diff(from: &Config, to: &Config) -> Value {
    let changed: Vec<Value> = changed(from, to)
        .into_iter()
        .map(|(k, (a, b))| json!({"key": k, "from": a, "to": b}))
        .collect();
    json!({"changes": changed.len(), "changed": changed})
}

/// Each key whose effective value differs from `from` to `to`, in key order,
/// with its value on each side (`None` where it is only on one side).
pub(super) fn changed(
    from: &Config,
    to: &Config,
) -> BTreeMap<String, (Option<Value>, Option<Value>)> {
    let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
    leaves("", &from.effective(), &mut a);
    leaves("", &to.effective(), &mut b);
    let keys: std::collections::BTreeSet<String> = a.keys().chain(b.keys()).cloned().collect();
    keys.into_iter()
        .filter_map(|k| {
            let pair = (a.remove(&k), b.remove(&k));
            (pair.0 != pair.1).then_some((k, pair))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_names_each_changed_key_servers_by_name_and_no_secret() {
        let a = Config::parse(
            "[http]\nrate_limit_per_minute = 100\n[[servers]]\nname = \"t\"\ncommand = \"x\"\nenv = { K = \"old-secret\" }\n",
        )
        .unwrap();
        let b = Config::parse(
            "[http]\nrate_limit_per_minute = 200\n[[servers]]\nname = \"t\"\ncommand = \"y\"\nenv = { K = \"new-secret\" }\n\
             [[servers]]\nname = \"u\"\ncommand = \"z\"\n",
        )
        .unwrap();
        let d = diff(&a, &b);
        let keys: Vec<&str> = d["changed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["key"].as_str().unwrap())
            .collect();
        assert!(keys.contains(&"http.rate_limit_per_minute"), "{keys:?}");
        assert!(keys.contains(&"servers[t].command"), "{keys:?}");
        assert!(keys.contains(&"servers[u].name"), "{keys:?}");
        let text = d.to_string();
        assert!(!text.contains("secret"), "{text}");
        assert_eq!(diff(&a, &a)["changes"], 0);
    }
}
