//! `cargo xtask recall`: the default ranking's recall@5 and nDCG@10 on the public
//! sets in `../shared/data`, against the figures committed in `eval/recall.json`.
//! Fails when a set drops more than max(0.005, 1/queries) below its committed
//! figure, and when the data, the model or the lab binary (`toolsearch-lab eval`
//! scores the sets) is missing: it never skips.
//! `--update "why"` rewrites the file with the figures of this run and the reason
//! (a change that moves recall on purpose commits both together).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

/// (label, catalog, queries): paths under the shared data, except the task set,
/// which is the project's own (eval/README.md says how it was written).
pub fn sets(data: &Path, root: &Path) -> Vec<(&'static str, PathBuf, PathBuf)> {
    vec![
        (
            "toollens train / own catalog",
            data.join("toollens/catalog.jsonl"),
            data.join("toollens/queries_train.jsonl"),
        ),
        (
            "bfcl / own catalog",
            data.join("bfcl/catalog.jsonl"),
            data.join("bfcl/queries.jsonl"),
        ),
        (
            "bfcl / 9,648-tool catalog",
            data.join("scale/catalog_all.jsonl"),
            data.join("bfcl/queries.jsonl"),
        ),
        (
            "mcp tasks / livemcpbench catalog",
            data.join("livemcpbench/catalog.jsonl"),
            root.join("eval/mcp_tasks.jsonl"),
        ),
    ]
}

/// The figures of one set.
struct Figures {
    queries: u64,
    recall: f64,
    ndcg: f64,
}

fn figures(v: &Value) -> Option<Figures> {
    Some(Figures {
        queries: v["queries"].as_u64()?,
        recall: v["recall@5"].as_f64()?,
        ndcg: v["ndcg@10"].as_f64()?,
    })
}

/// How far below its committed figure a set may fall: one query, at least 0.005.
fn tolerance(queries: u64) -> f64 {
    (1.0 / queries.max(1) as f64).max(0.005)
}

/// Runs the check (`update`: the reason to write the new figures with).
pub fn run(
    root: &Path,
    data: &Path,
    model: &Path,
    binary: &Path,
    update: Option<&str>,
) -> Result<()> {
    let file = root.join("eval/recall.json");
    if !model.join("model.safetensors").exists() {
        bail!(
            "recall: no embedding model at {} (run `cargo xtask fetch-model`): the default \
             ranking fuses it, so its recall cannot be checked without it",
            model.display()
        );
    }
    if !binary.exists() {
        bail!(
            "recall: no lab binary at {} (cargo build -p toolsearch-lab)",
            binary.display()
        );
    }
    let committed: Value = match std::fs::read_to_string(&file) {
        Ok(text) => serde_json::from_str(&text).with_context(|| format!("{}", file.display()))?,
        Err(_) if update.is_some() => json!({}),
        Err(e) => bail!(
            "recall: {}: {e} (write it with `cargo xtask recall --update \"why\"`)",
            file.display()
        ),
    };
    let mut now = serde_json::Map::new();
    let mut failed = Vec::new();
    eprintln!(
        "{:<34} {:>7}  {:>21}  {:>21}",
        "set", "queries", "recall@5 was -> now", "nDCG@10 was -> now"
    );
    for (label, catalog, queries) in sets(data, root) {
        for path in [&catalog, &queries] {
            if !path.exists() {
                bail!(
                    "recall: {} is absent (the shared data: ../shared/data or TOOLSEARCH_DATA)",
                    path.display()
                );
            }
        }
        let out = Command::new(binary)
            .args(["eval", "--json", "--catalog"])
            .arg(&catalog)
            .arg("--queries")
            .arg(&queries)
            .arg("--embed-model")
            .arg(model)
            .stderr(std::process::Stdio::null())
            .output()
            .with_context(|| format!("running {}", binary.display()))?;
        if !out.status.success() {
            bail!("recall: eval on {label} failed ({})", out.status);
        }
        let v: Value = serde_json::from_slice(&out.stdout).context("eval's JSON")?;
        let got = figures(&v).with_context(|| format!("{label}: no figures in {v}"))?;
        if v["ranker"] != "hybrid" {
            bail!(
                "recall: {label} ran `{}`, not the default fused ranking",
                v["ranker"]
            );
        }
        let was = figures(&committed["sets"][label]);
        let tol = tolerance(got.queries);
        let cell = |old: Option<f64>, new: f64| match old {
            Some(o) => format!("{o:.3} -> {new:.3} ({:+.3})", new - o),
            None => format!("new {new:.3}"),
        };
        let bad = was
            .as_ref()
            .is_some_and(|w| w.recall - got.recall > tol || w.ndcg - got.ndcg > tol);
        eprintln!(
            "{label:<34} {:>7}  {:>21}  {:>21}{}",
            got.queries,
            cell(was.as_ref().map(|w| w.recall), got.recall),
            cell(was.as_ref().map(|w| w.ndcg), got.ndcg),
            if bad { "  FAIL" } else { "" }
        );
        if bad {
            failed.push(format!("{label} (tolerance {tol:.4})"));
        }
        now.insert(
            label.to_string(),
            json!({"queries": got.queries, "recall@5": got.recall, "ndcg@10": got.ndcg}),
        );
    }
    if let Some(reason) = update {
        let doc = json!({
            "what": "recall@5 and nDCG@10 of the default ranking (lexical fused with all-MiniLM-L6-v2) on the public sets; `cargo xtask recall` fails when a set falls more than max(0.005, 1/queries) below",
            "reason": reason,
            "sets": now,
        });
        std::fs::write(&file, serde_json::to_string_pretty(&doc)? + "\n")?;
        eprintln!("recall: wrote {}", file.display());
        return Ok(());
    }
    if !failed.is_empty() {
        bail!(
            "recall dropped on {}: fix the ranking, or if the drop is meant, run `cargo xtask \
             recall --update \"why\"` and commit eval/recall.json with the change",
            failed.join(", ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tolerance_is_one_query_and_at_least_half_a_point() {
        assert_eq!(tolerance(70), 1.0 / 70.0);
        assert_eq!(tolerance(16_893), 0.005);
        assert_eq!(tolerance(0), 1.0);
    }
}
