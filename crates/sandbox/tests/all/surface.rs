//! One surface on every path (issue 30, item 3): the names a snippet can reach
//! from `globalThis` are the same whether its isolate was built cold, restored
//! from a snapshot on a host thread, forked from a worker's template, or
//! restored inside a worker process (`TOOLSEARCH_SANDBOX_FORK=0`), and they are
//! the committed list `surface-<engine>.txt`. A name that appears (an engine
//! upgrade, a polyfill coming back after a restore) fails here until the list is
//! reviewed: `TOOLSEARCH_BLESS=1` rewrites it from the thread path.

use std::path::PathBuf;

use toolsearch_sandbox::{Isolation, Pool, PoolConfig};

use crate::common::{assert_child_ok, in_child, process_pool, test_limits, FakeBridge};

/// Walks own keys (strings and symbols), accessors and prototypes three levels
/// from `globalThis`, cutting cycles on the current path; a function written in
/// JavaScript (a sandbox wrapper, a polyfill) is marked `(js)`.
const WALK: &str = r#"
const names = [];
const fts = Reflect.getPrototypeOf(function () {}).toString;
const kind = (v) => typeof v !== "function" ? "" :
  Reflect.apply(fts, v, []).includes("[native code]") ? "" : " (js)";
const gopd = Object.getOwnPropertyDescriptor, own = Reflect.ownKeys, proto = Reflect.getPrototypeOf;
function walk(obj, path, depth, stack) {
  if (obj === null || (typeof obj !== "object" && typeof obj !== "function")) return;
  if (stack.includes(obj) || depth >= 3) return;
  stack.push(obj);
  for (const k of own(obj)) {
    const p = path + "." + (typeof k === "symbol" ? "[" + String(k) + "]" : k);
    const d = gopd(obj, k);
    names.push(p + ("value" in d ? kind(d.value) : ""));
    if ("value" in d) walk(d.value, p, depth + 1, stack);
    else {
      if (d.get) walk(d.get, p + "<get>", depth + 1, stack);
      if (d.set) walk(d.set, p + "<set>", depth + 1, stack);
    }
  }
  walk(proto(obj), path + ".__proto__", depth + 1, stack);
  stack.pop();
}
walk(globalThis, "globalThis", 0, []);
names.sort();
return names.join("\n");
"#;

fn list_path(pool: &Pool) -> PathBuf {
    let engine = pool
        .execute_blocking("return 1", FakeBridge::new())
        .stats
        .engine;
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/all/surface-{engine}.txt"))
}

/// The surface seen by two jobs in a row on `pool` (the second one on a worker
/// that already ran a job).
fn surface(pool: &Pool, path: &str) -> Vec<String> {
    let mut seen = Vec::new();
    for _ in 0..2 {
        let r = pool.execute_blocking(WALK, FakeBridge::new());
        assert!(r.ok, "{path}: the walk failed: {:?}", r.error);
        let names: Vec<String> = r
            .value
            .as_str()
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        if let Some(first) = seen.first() {
            assert_eq!(first, &names, "{path}: the second job saw another surface");
        }
        seen.push(names);
    }
    seen.swap_remove(0)
}

/// Names of the language's own that begin with `__`.
const STANDARD_DUNDER: &[&str] = &[
    "__proto__",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
];

/// An engine's or the host's internal name among the reachable ones: any other
/// `__` name (`__v8x_fast_api_next_call`, `__bootstrap`), or one that names the
/// engine or the runtime (`Deno`, `v8x`).
fn internal_names(got: &[String]) -> Vec<&String> {
    got.iter()
        .filter(|name| {
            name.split('.').any(|segment| {
                let segment = segment.trim_end_matches(" (js)");
                let segment = segment.split('<').next().unwrap_or(segment);
                (segment.starts_with("__") && !STANDARD_DUNDER.contains(&segment))
                    || segment == "Deno"
                    || segment.to_ascii_lowercase().contains("v8x")
            })
        })
        .collect()
}

#[test]
fn the_internal_name_check_finds_internal_names() {
    let names: Vec<String> = [
        "globalThis.__v8x_fast_api_next_call",
        "globalThis.Deno.core",
        "globalThis.x.__bootstrap<get>",
        "globalThis.__proto__.__defineGetter__.name",
        "globalThis.Object.keys",
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(
        internal_names(&names),
        names[..3].iter().collect::<Vec<_>>()
    );
}

fn compare(path: &str, got: &[String], list: &PathBuf) {
    let internal = internal_names(got);
    assert!(
        internal.is_empty(),
        "{path}: engine-internal names are reachable: {internal:#?}"
    );
    let want = std::fs::read_to_string(list).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; write it with TOOLSEARCH_BLESS=1 and review it",
            list.display()
        )
    });
    let want: Vec<&str> = want.lines().collect();
    let extra: Vec<&String> = got.iter().filter(|n| !want.contains(&n.as_str())).collect();
    let missing: Vec<&&str> = want
        .iter()
        .filter(|n| !got.iter().any(|g| g == **n))
        .collect();
    assert!(
        extra.is_empty() && missing.is_empty(),
        "{path}: the reachable names differ from {} ({} names there, {} here)\nnot on the list: {extra:#?}\nmissing: {missing:#?}",
        list.display(),
        want.len(),
        got.len()
    );
}

fn thread_pool(snapshot: bool) -> Pool {
    Pool::new(PoolConfig {
        workers: 1,
        queue: 8,
        limits: test_limits(),
        isolation: Isolation::Thread,
        snapshot,
        ..PoolConfig::default()
    })
    .expect("thread pool")
}

#[test]
fn the_reachable_names_are_one_committed_list_on_threads() {
    let restored = thread_pool(true);
    let list = list_path(&restored);
    let got = surface(&restored, "threads, restored from a snapshot");
    if std::env::var_os("TOOLSEARCH_BLESS").is_some() {
        std::fs::write(&list, got.join("\n") + "\n").expect("write the list");
    }
    compare("threads, restored from a snapshot", &got, &list);
    let cold = thread_pool(false);
    compare(
        "threads, built cold",
        &surface(&cold, "threads, built cold"),
        &list,
    );
}

#[test]
fn the_reachable_names_are_one_committed_list_on_the_fork_path() {
    let pool = process_pool(1, test_limits());
    let list = list_path(&pool);
    compare("a forked worker", &surface(&pool, "a forked worker"), &list);
}

#[test]
fn the_reachable_names_are_one_committed_list_in_a_worker_that_does_not_fork() {
    let test = "surface::the_reachable_names_are_one_committed_list_in_a_worker_that_does_not_fork";
    let out = in_child(test, || {
        // Read by `PoolConfig::default()`; this process runs one test.
        std::env::set_var("TOOLSEARCH_SANDBOX_FORK", "0");
        let pool = process_pool(1, test_limits());
        let list = list_path(&pool);
        compare(
            "a worker restoring a snapshot per job",
            &surface(&pool, "a worker restoring a snapshot per job"),
            &list,
        );
    });
    if let Some(out) = out {
        assert_child_ok(&out);
    }
}
