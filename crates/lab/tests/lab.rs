//! The `toolsearch-lab` binary: `eval`'s figures and files, and the fusion flags
//! only the lab has.

use std::process::Command;

fn lab(args: &[&str]) -> (i32, serde_json::Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_toolsearch-lab"))
        .args(args)
        // The model is passed explicitly where a test wants it.
        .env_remove("TOOLSEARCH_EMBED_MODEL")
        .output()
        .expect("run toolsearch-lab");
    let json = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (
        out.status.code().unwrap_or(-1),
        json,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn fusion_flags_are_checked_before_any_model_is_loaded() {
    let dir = std::env::temp_dir().join(format!("ts-lab-fusion-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let queries = dir.join("q.jsonl");
    std::fs::write(
        &queries,
        r#"{"id": 1, "query": "weather forecast", "relevant": ["get_forecast"]}"#,
    )
    .unwrap();
    let q = queries.to_str().unwrap();
    for (flag, value) in [("--fusion", "max"), ("--lexical-weight", "1.5")] {
        let (code, _, err) = lab(&["eval", "--queries", q, "--embed-model", ".", flag, value]);
        assert_ne!(code, 0);
        assert!(err.contains(flag), "{err}");
    }
    // Every fusion of the lab is accepted (lexical figures here: no model named).
    for fusion in ["distribution", "convex", "rrf", "semantic"] {
        let (code, v, err) = lab(&["eval", "--queries", q, "--fusion", fusion]);
        assert_eq!(code, 0, "{fusion}: {err}");
        assert_eq!(v["recall@5"], 1.0, "{fusion}: {v}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every line of a JSON Lines file, parsed.
fn read_jsonl(path: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{path}: {e}")))
        .collect()
}

#[test]
fn eval_prints_figures_and_writes_the_misses() {
    let dir = std::env::temp_dir().join(format!("ts-eval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let queries = dir.join("q.jsonl");
    let misses = dir.join("misses.jsonl");
    std::fs::write(
        &queries,
        concat!(
            r#"{"id": "hit", "query": "weather forecast", "relevant": ["get_forecast"]}"#,
            "\n",
            r#"{"id": "miss", "query": "weather forecast", "relevant": ["send_email"]}"#,
            "\n",
        ),
    )
    .unwrap();
    let (code, v, err) = lab(&[
        "eval",
        "--queries",
        queries.to_str().unwrap(),
        "--misses",
        misses.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["schema_version"], 3);
    assert_eq!(v["queries"], 2);
    assert_eq!(v["recall@5"], 0.5);
    let lines = read_jsonl(misses.to_str().unwrap());
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["id"], "miss");
    assert_eq!(lines[0]["missed"][0]["ids"][0], "mcp:gmail:send_email");
    assert_eq!(lines[0]["top"][0], "mcp:weather:get_forecast");
    // A misses path that cannot be written is an error, not a silent loss.
    let (code, _, err) = lab(&[
        "eval",
        "--queries",
        queries.to_str().unwrap(),
        "--misses",
        dir.join("no/such/dir/m.jsonl").to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("writing misses"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The project's task set (eval/mcp_tasks.jsonl) names only tools of its catalog, so
/// no label is silently dropped by eval; and eval scores every query of it.
#[test]
#[ignore = "needs the shared data (../shared/data); `cargo xtask test` runs it"]
fn the_task_set_names_only_tools_of_its_catalog() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    // Where `cargo xtask eval` looks too.
    let data = std::env::var("TOOLSEARCH_DATA").unwrap_or(format!("{root}/../shared/data"));
    let catalog = format!("{data}/livemcpbench/catalog.jsonl");
    let tasks = format!("{root}/eval/mcp_tasks.jsonl");
    assert!(
        std::path::Path::new(&catalog).exists(),
        "{catalog} is absent"
    );
    let names: std::collections::HashSet<String> = read_jsonl(&catalog)
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    let mut ids = std::collections::HashSet::new();
    let lines = read_jsonl(&tasks);
    for q in &lines {
        assert!(ids.insert(q["id"].to_string()), "duplicate id {}", q["id"]);
        let groups = q["relevant_groups"].as_array().unwrap();
        assert!(!groups.is_empty(), "{}", q["id"]);
        for member in groups.iter().flat_map(|g| g.as_array().unwrap()) {
            let m = member.as_str().unwrap();
            assert!(names.contains(m), "{}: {m} is not in the catalog", q["id"]);
        }
    }
    let (code, v, err) = lab(&["eval", "--catalog", &catalog, "--queries", &tasks]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["queries"].as_u64(), Some(lines.len() as u64), "{v}");
    assert_eq!(v["skipped"].as_u64(), Some(0), "{v}");
}

/// With the model (`cargo xtask fetch-model`), each of the lab's fusions ranks the
/// demo catalog fused, and the report names the one used.
#[test]
#[ignore = "needs the embedding model (`cargo xtask fetch-model`); `cargo xtask test` runs it"]
fn every_fusion_of_the_lab_runs_with_the_model() {
    let model = match toolsearch_embed::installed_model_dir() {
        Ok(dir) => dir.to_str().expect("a UTF-8 model path").to_owned(),
        Err(why) => panic!("{why}: run `cargo xtask fetch-model`"),
    };
    let dir = std::env::temp_dir().join(format!("ts-lab-fusions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let queries = dir.join("q.jsonl");
    std::fs::write(
        &queries,
        r#"{"id": 1, "query": "will it rain tomorrow", "relevant": ["get_forecast"]}"#,
    )
    .unwrap();
    let cache = dir.join("cache");
    for fusion in ["distribution", "convex", "rrf", "semantic"] {
        let (code, v, err) = lab(&[
            "eval",
            "--queries",
            queries.to_str().unwrap(),
            "--embed-model",
            &model,
            "--embed-cache",
            cache.to_str().unwrap(),
            "--fusion",
            fusion,
        ]);
        assert_eq!(code, 0, "{fusion}: {err}");
        assert_eq!(v["ranker"], "hybrid", "{fusion}: {v}");
        assert_eq!(v["semantic"]["fusion"], fusion, "{fusion}: {v}");
        assert_eq!(v["queries"], 1, "{fusion}: {v}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
