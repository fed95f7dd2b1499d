//! The encoder and tokenizer against an independent reference, without the real model:
//! `tests/tiny_bert/` holds a tiny random BERT (vocab 67, hidden 16, 2 layers, 2 heads,
//! 32 positions) and `golden.json`, the ids and unit vectors that
//! `eval/tiny_bert_reference.py` (NumPy, written from the BERT definition) computes
//! for a few texts. Regenerate both with `python3 eval/tiny_bert_reference.py`.

use std::path::{Path, PathBuf};
use toolsearch_embed::{Embedder, WordPiece};

/// Per component, on unit vectors (the Rust side runs in f32, the reference in f64).
const TOLERANCE: f32 = 1e-5;

fn model_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tiny_bert")
}

struct Golden {
    text: String,
    tokens: Vec<u32>,
    mean: Vec<f32>,
    cls: Vec<f32>,
}

fn golden() -> Vec<Golden> {
    let raw = std::fs::read_to_string(model_dir().join("golden.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&raw).unwrap();
    let floats = |x: &serde_json::Value| -> Vec<f32> {
        x.as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_f64().unwrap() as f32)
            .collect()
    };
    let cases: Vec<Golden> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|g| Golden {
            text: g["text"].as_str().unwrap().to_string(),
            tokens: g["tokens"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_u64().unwrap() as u32)
                .collect(),
            mean: floats(&g["embedding"]),
            cls: floats(&g["embedding_cls"]),
        })
        .collect();
    assert!(cases.len() >= 6, "golden.json has {} texts", cases.len());
    cases
}

fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len(), "vector widths differ");
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// Every text's vector within [`TOLERANCE`] of the reference; the message lists each
/// text's largest difference.
fn check(got: &[Vec<f32>], cases: &[Golden], want: impl Fn(&Golden) -> &[f32], what: &str) {
    let diffs: Vec<f32> = got
        .iter()
        .zip(cases)
        .map(|(g, c)| max_abs_diff(g, want(c)))
        .collect();
    let worst = diffs.iter().copied().fold(0.0, f32::max);
    assert!(
        worst <= TOLERANCE,
        "{what}: max abs difference {worst:e} > {TOLERANCE:e}; per text: {:#?}",
        cases
            .iter()
            .zip(&diffs)
            .map(|(c, d)| format!("{d:e}  {:?}", c.text))
            .collect::<Vec<_>>()
    );
}

#[test]
fn tokens_match_the_reference() {
    let dir = model_dir();
    let model = Embedder::load(&dir).unwrap();
    assert_eq!(model.dim(), 16);
    assert_eq!(model.max_tokens(), 32, "min(128, max_position_embeddings)");
    let vocab =
        WordPiece::from_vocab(&std::fs::read_to_string(dir.join("vocab.txt")).unwrap()).unwrap();
    assert_eq!(vocab.len(), 67);
    let cases = golden();
    assert!(
        cases.iter().any(|c| c.tokens.len() == model.max_tokens()),
        "one golden text is truncated"
    );
    for c in &cases {
        assert_eq!(
            vocab.encode(&c.text, model.max_tokens()),
            c.tokens,
            "{:?}",
            c.text
        );
    }
}

#[test]
fn mean_pooled_embeddings_match_the_reference() {
    let model = Embedder::load(&model_dir()).unwrap();
    let cases = golden();
    let got: Vec<Vec<f32>> = cases.iter().map(|c| model.embed(&c.text)).collect();
    check(&got, &cases, |c| &c.mean, "mean pooling");
}

#[test]
fn cls_pooled_embeddings_match_the_reference() {
    // The same model with `1_Pooling/config.json` asking for the [CLS] state.
    let src = model_dir();
    let dir = std::env::temp_dir().join(format!("toolsearch-tiny-bert-cls-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("1_Pooling")).unwrap();
    for f in ["config.json", "vocab.txt", "model.safetensors"] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    std::fs::write(
        dir.join("1_Pooling/config.json"),
        r#"{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}"#,
    )
    .unwrap();
    let model = Embedder::load(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    let model = model.unwrap();
    let cases = golden();
    let got: Vec<Vec<f32>> = cases.iter().map(|c| model.embed(&c.text)).collect();
    check(&got, &cases, |c| &c.cls, "[CLS] pooling");
}

#[test]
fn batches_give_the_single_text_vectors() {
    let model = Embedder::load(&model_dir()).unwrap();
    let cases = golden();
    let texts: Vec<&str> = cases.iter().map(|c| c.text.as_str()).collect();
    let single: Vec<Vec<f32>> = texts.iter().map(|t| model.embed(t)).collect();
    let mut reversed: Vec<&str> = texts.clone();
    reversed.reverse();
    let owned: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
    let batches = [
        ("embed_batch", model.embed_batch(&texts)),
        ("embed_batch reversed", {
            let mut v = model.embed_batch(&reversed);
            v.reverse();
            v
        }),
        ("embed_many", model.embed_many(&owned)),
    ];
    for (what, got) in batches {
        assert_eq!(got.len(), texts.len(), "{what}");
        let worst = got
            .iter()
            .zip(&single)
            .map(|(a, b)| max_abs_diff(a, b))
            .fold(0.0, f32::max);
        assert!(
            worst <= 1e-6,
            "{what}: max abs difference {worst:e} from one-by-one"
        );
        check(&got, &cases, |c| &c.mean, what);
    }
}
