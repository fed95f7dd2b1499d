//! The facade crate's layers, read from `docs/architecture.md`: no module uses
//! one above its own layer, and no file is longer than one reader holds.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Longest file in the crate, in lines.
const MAX_LINES: usize = 600;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Module → layer index, lowest first, from the `layers` block of the doc.
fn layers() -> HashMap<String, usize> {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/architecture.md");
    let text = std::fs::read_to_string(&doc).expect("docs/architecture.md");
    let block = text
        .split("```layers\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("a ```layers block in docs/architecture.md");
    let mut out = HashMap::new();
    for (i, line) in block.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let (_, modules) = line.split_once(':').expect("`layer: module, module`");
        for m in modules.split(',') {
            assert!(
                out.insert(m.trim().to_string(), i).is_none(),
                "{m} is listed twice"
            );
        }
    }
    out
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file belongs to (`lib` for `lib.rs`).
fn module_of(file: &Path) -> String {
    let rel = file.strip_prefix(src()).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// Every `crate::name` in the code of `text` (comments left out).
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            let after = &rest[i + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            // `crate::{a, b}` lists several.
            if let Some(list) = after.strip_prefix('{') {
                let list = list.split('}').next().unwrap_or("");
                for item in list.split(',') {
                    let item: String = item
                        .trim()
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if !item.is_empty() {
                        out.push((n + 1, item));
                    }
                }
            } else if !name.is_empty() {
                out.push((n + 1, name));
            }
            rest = after;
        }
    }
    out
}

#[test]
fn no_module_uses_a_layer_above_its_own_and_no_file_is_too_long() {
    let layers = layers();
    let mut all = Vec::new();
    files(&src(), &mut all);
    let mut wrong = Vec::new();
    for file in &all {
        let text = std::fs::read_to_string(file).unwrap();
        let lines = text.lines().count();
        let rel = file.strip_prefix(src()).unwrap().display().to_string();
        if lines > MAX_LINES {
            wrong.push(format!("{rel}: {lines} lines (at most {MAX_LINES})"));
        }
        let module = module_of(file);
        let Some(&own) = layers.get(&module) else {
            wrong.push(format!(
                "{rel}: module `{module}` is in no layer of the doc"
            ));
            continue;
        };
        for (line, used) in crate_paths(&text) {
            if used.starts_with(|c: char| c.is_ascii_uppercase()) {
                if module != "lib" {
                    wrong.push(format!(
                        "{rel}:{line}: `crate::{used}` names a re-export; name its module"
                    ));
                }
                continue;
            }
            match layers.get(&used) {
                Some(&theirs) if theirs > own => wrong.push(format!(
                    "{rel}:{line}: `{module}` uses `crate::{used}`, a layer above it"
                )),
                Some(_) => {}
                // A function or re-export of the crate root (`crate::serve_if_worker`).
                None if module == "lib" => {}
                None => wrong.push(format!(
                    "{rel}:{line}: `crate::{used}` is not a module of the layers"
                )),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_check_finds_an_upward_path() {
    // The check itself can fail: an upward path in a line of code is found,
    // the same in a comment is not.
    let found =
        crate_paths("use crate::facade::ToolSearch; // crate::calls\nlet x = crate::{plan, wire};");
    let names: Vec<&str> = found.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(names, ["facade", "plan", "wire"]);
    let layers = layers();
    assert_eq!(layers["error"], 0, "{layers:?}");
    assert!(
        layers["facade"] > layers["calls"] && layers["calls"] > layers["host"],
        "{layers:?}"
    );
}
