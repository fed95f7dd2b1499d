//! A BERT encoder (the architecture of MiniLM / all-MiniLM-L6-v2 and similar
//! sentence-transformers models) read from `model.safetensors` + `config.json`,
//! run on the CPU one sequence at a time, so no padding or attention mask is needed.

use crate::gemm::{gemm, View};
use crate::EmbedError;
use serde_json::Value;

/// The shape of the encoder, from `config.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Width of every hidden state (384 for MiniLM-L6).
    pub hidden: usize,
    /// Transformer layers.
    pub layers: usize,
    /// Attention heads per layer.
    pub heads: usize,
    /// Width of the feed-forward layer.
    pub intermediate: usize,
    /// Longest input, in tokens.
    pub max_positions: usize,
    /// Layer-norm epsilon.
    pub eps: f32,
}

impl Config {
    pub(crate) fn from_json(v: &Value) -> Result<Config, EmbedError> {
        let num = |k: &str| {
            v.get(k)
                .and_then(Value::as_u64)
                .map(|n| n as usize)
                .ok_or_else(|| EmbedError::Model(format!("config.json: `{k}` is missing")))
        };
        let act = v
            .get("hidden_act")
            .and_then(Value::as_str)
            .unwrap_or("gelu");
        if act != "gelu" {
            return Err(EmbedError::Model(format!(
                "config.json: hidden_act `{act}` is not supported (only gelu)"
            )));
        }
        let cfg = Config {
            hidden: num("hidden_size")?,
            layers: num("num_hidden_layers")?,
            heads: num("num_attention_heads")?,
            intermediate: num("intermediate_size")?,
            max_positions: num("max_position_embeddings")?,
            eps: v
                .get("layer_norm_eps")
                .and_then(Value::as_f64)
                .unwrap_or(1e-12) as f32,
        };
        if cfg.heads == 0 || !cfg.hidden.is_multiple_of(cfg.heads) {
            return Err(EmbedError::Model(format!(
                "config.json: hidden_size {} is not a multiple of num_attention_heads {}",
                cfg.hidden, cfg.heads
            )));
        }
        Ok(cfg)
    }
}

struct Layer {
    qkv_w: Vec<f32>, // [3H x H]: query, key and value rows stacked, one product for all three
    qkv_b: Vec<f32>,
    attn_out_w: Vec<f32>,
    attn_out_b: Vec<f32>,
    ln1: (Vec<f32>, Vec<f32>),
    inter_w: Vec<f32>,
    inter_b: Vec<f32>,
    out_w: Vec<f32>,
    out_b: Vec<f32>,
    ln2: (Vec<f32>, Vec<f32>),
}

/// The encoder's weights.
pub(crate) struct Bert {
    pub cfg: Config,
    word: Vec<f32>,
    position: Vec<f32>,
    token_type: Vec<f32>,
    emb_ln: (Vec<f32>, Vec<f32>),
    layers: Vec<Layer>,
    vocab_size: usize,
}

/// Tensors of a safetensors file, by name (F32 only), read by the `safetensors`
/// crate (header checked: offsets in bounds, contiguous, no overlap).
struct Tensors<'a> {
    file: safetensors::SafeTensors<'a>,
    prefix: &'static str,
}

impl<'a> Tensors<'a> {
    fn parse(bytes: &'a [u8]) -> Result<Tensors<'a>, EmbedError> {
        let file = safetensors::SafeTensors::deserialize(bytes)
            .map_err(|e| EmbedError::Model(format!("model.safetensors: {e}")))?;
        // Some exports name tensors `bert.embeddings...`.
        let prefix = if file
            .tensor("bert.embeddings.word_embeddings.weight")
            .is_ok()
        {
            "bert."
        } else {
            ""
        };
        Ok(Tensors { file, prefix })
    }

    /// The tensor `name`, checked to have `shape`.
    fn get(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, EmbedError> {
        let full = format!("{}{name}", self.prefix);
        let bad = |m: String| EmbedError::Model(format!("model.safetensors: `{full}`: {m}"));
        let view = self.file.tensor(&full).map_err(|_| bad("missing".into()))?;
        if view.dtype() != safetensors::Dtype::F32 {
            return Err(bad(format!(
                "dtype {:?} is not supported (F32 only)",
                view.dtype()
            )));
        }
        if view.shape() != shape {
            return Err(bad(format!("shape {:?}, expected {shape:?}", view.shape())));
        }
        // The data need not be 4-byte aligned: copy it out little-endian.
        Ok(view
            .data()
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
            .collect())
    }
}

impl Bert {
    pub(crate) fn load(cfg: Config, safetensors: &[u8]) -> Result<Bert, EmbedError> {
        let t = Tensors::parse(safetensors)?;
        let h = cfg.hidden;
        let vocab_size = t
            .file
            .tensor(&format!("{}embeddings.word_embeddings.weight", t.prefix))
            .ok()
            .and_then(|v| v.shape().first().copied())
            .unwrap_or(0);
        let ln = |p: &str| -> Result<(Vec<f32>, Vec<f32>), EmbedError> {
            Ok((
                t.get(&format!("{p}.weight"), &[h])?,
                t.get(&format!("{p}.bias"), &[h])?,
            ))
        };
        let mut layers = Vec::with_capacity(cfg.layers);
        for i in 0..cfg.layers {
            let p = format!("encoder.layer.{i}");
            let mut qkv_w = Vec::with_capacity(3 * h * h);
            let mut qkv_b = Vec::with_capacity(3 * h);
            for part in ["query", "key", "value"] {
                qkv_w.extend(t.get(&format!("{p}.attention.self.{part}.weight"), &[h, h])?);
                qkv_b.extend(t.get(&format!("{p}.attention.self.{part}.bias"), &[h])?);
            }
            layers.push(Layer {
                qkv_w,
                qkv_b,
                attn_out_w: t.get(&format!("{p}.attention.output.dense.weight"), &[h, h])?,
                attn_out_b: t.get(&format!("{p}.attention.output.dense.bias"), &[h])?,
                ln1: ln(&format!("{p}.attention.output.LayerNorm"))?,
                inter_w: t.get(
                    &format!("{p}.intermediate.dense.weight"),
                    &[cfg.intermediate, h],
                )?,
                inter_b: t.get(&format!("{p}.intermediate.dense.bias"), &[cfg.intermediate])?,
                out_w: t.get(&format!("{p}.output.dense.weight"), &[h, cfg.intermediate])?,
                out_b: t.get(&format!("{p}.output.dense.bias"), &[h])?,
                ln2: ln(&format!("{p}.output.LayerNorm"))?,
            });
        }
        Ok(Bert {
            word: t.get("embeddings.word_embeddings.weight", &[vocab_size, h])?,
            position: t.get(
                "embeddings.position_embeddings.weight",
                &[cfg.max_positions, h],
            )?,
            token_type: t.get("embeddings.token_type_embeddings.weight", &[2, h])?,
            emb_ln: ln("embeddings.LayerNorm")?,
            layers,
            vocab_size,
            cfg,
        })
    }

    pub(crate) fn vocab_size(&self) -> usize {
        self.vocab_size
    }

    /// Final hidden states of each sequence (ids past `max_positions` are dropped),
    /// row-major `[T x H]` each. The sequences share every matrix product (their rows
    /// are stacked), which amortises packing the weights; attention stays per sequence.
    pub(crate) fn hidden_states(&self, seqs: &[&[u32]]) -> Vec<Vec<f32>> {
        let Config {
            hidden: h,
            heads,
            intermediate: inter,
            eps,
            ..
        } = self.cfg;
        let lens: Vec<usize> = seqs
            .iter()
            .map(|s| s.len().min(self.cfg.max_positions))
            .collect();
        let starts: Vec<usize> = lens
            .iter()
            .scan(0, |acc, &l| {
                let s = *acc;
                *acc += l;
                Some(s)
            })
            .collect();
        let rows_total: usize = lens.iter().sum();
        let mut x = vec![0.0f32; rows_total * h];
        for (s, seq) in seqs.iter().enumerate() {
            for (r, &id) in seq[..lens[s]].iter().enumerate() {
                let id = (id as usize).min(self.vocab_size - 1);
                let row = &mut x[(starts[s] + r) * h..][..h];
                let (w, p, ty) = (
                    &self.word[id * h..],
                    &self.position[r * h..],
                    &self.token_type,
                );
                for c in 0..h {
                    row[c] = w[c] + p[c] + ty[c];
                }
            }
        }
        layer_norm(&mut x, h, &self.emb_ln, eps);

        let t_max = lens.iter().copied().max().unwrap_or(0);
        let dh = h / heads;
        let scale = 1.0 / (dh as f32).sqrt();
        let rt = rows_total;
        let mut qkv = vec![0.0f32; rt * 3 * h];
        let mut scores = vec![0.0f32; t_max * t_max];
        let mut ctx = vec![0.0f32; rt * h];
        let mut tmp = vec![0.0f32; rt * h];
        let mut mid = vec![0.0f32; rt * inter];
        for l in &self.layers {
            linear(&x, rt, h, &l.qkv_w, &l.qkv_b, &mut qkv);
            for (&start, &t) in starts.iter().zip(&lens) {
                let rows = View {
                    offset: start * 3 * h,
                    rows: t,
                    cols: dh,
                    rs: 3 * h,
                    cs: 1,
                };
                let sv = View::dense(0, t, t);
                for head in 0..heads {
                    let (q, k, v) = (head * dh, h + head * dh, 2 * h + head * dh);
                    gemm(
                        scale,
                        &qkv,
                        rows.block(q, t, dh),
                        &qkv,
                        rows.block(k, t, dh).t(),
                        0.0,
                        &mut scores,
                        sv,
                    );
                    softmax_rows(&mut scores, t);
                    let cv = View::dense(start * h, t, h).block(head * dh, t, dh);
                    gemm(
                        1.0,
                        &scores,
                        sv,
                        &qkv,
                        rows.block(v, t, dh),
                        0.0,
                        &mut ctx,
                        cv,
                    );
                }
            }
            linear(&ctx, rt, h, &l.attn_out_w, &l.attn_out_b, &mut tmp);
            add_in_place(&mut x, &tmp);
            layer_norm(&mut x, h, &l.ln1, eps);
            linear(&x, rt, h, &l.inter_w, &l.inter_b, &mut mid);
            mid.iter_mut().for_each(|v| *v = gelu(*v));
            linear(&mid, rt, inter, &l.out_w, &l.out_b, &mut tmp);
            add_in_place(&mut x, &tmp);
            layer_norm(&mut x, h, &l.ln2, eps);
        }
        starts
            .iter()
            .zip(&lens)
            .map(|(&s, &t)| x[s * h..(s + t) * h].to_vec())
            .collect()
    }
}

/// Up to this many rows (tokens of one short query), [`linear`] takes one dot product
/// per output instead of a packed matrix product: packing a weight matrix reads and
/// writes all of it, which for a few rows costs more than the product itself. A short
/// query on the 9,648-tool bench: 14.7 ms p50 with packing, 10.5 ms direct, 6.3 ms
/// direct with AVX2 / AVX-512 (`toolsearch-lab bench --embed-model`); splitting the
/// outputs over two threads gained nothing (the weights' 42 MB are read from memory
/// either way).
const DIRECT_ROWS: usize = 48;

/// `y = x * w^T + b` for a Linear layer storing `w` as `[out x in]`.
fn linear(x: &[f32], t: usize, input: usize, w: &[f32], b: &[f32], y: &mut [f32]) {
    let out = b.len();
    if t <= DIRECT_ROWS {
        linear_direct(x, t, input, w, b, y);
        return;
    }
    gemm(
        1.0,
        x,
        View::dense(0, t, input),
        w,
        View::dense(0, out, input).t(),
        0.0,
        y,
        View::dense(0, t, out),
    );
    for row in y[..t * out].chunks_exact_mut(out) {
        row.iter_mut().zip(b).for_each(|(v, b)| *v += b);
    }
}

/// [`linear`] for a few rows: one dot product per output, each weight row read once
/// while the few input rows stay in cache; compiled for AVX2 + FMA (and AVX-512)
/// too, picked at run time.
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512vl+avx2+fma",
    "x86_64+avx2+fma",
    "aarch64+neon"
))]
fn linear_direct(x: &[f32], t: usize, input: usize, w: &[f32], b: &[f32], y: &mut [f32]) {
    let out = b.len();
    for (j, (wr, bias)) in w.chunks_exact(input).zip(b).enumerate().take(out) {
        for r in 0..t {
            y[r * out + j] = crate::dot(&x[r * input..(r + 1) * input], wr) + bias;
        }
    }
}

fn add_in_place(x: &mut [f32], y: &[f32]) {
    x.iter_mut().zip(y).for_each(|(a, b)| *a += b);
}

fn layer_norm(x: &mut [f32], h: usize, (gamma, beta): &(Vec<f32>, Vec<f32>), eps: f32) {
    for row in x.chunks_exact_mut(h) {
        let mean = row.iter().sum::<f32>() / h as f32;
        let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h as f32;
        let inv = 1.0 / (var + eps).sqrt();
        for ((v, g), b) in row.iter_mut().zip(gamma).zip(beta) {
            *v = (*v - mean) * inv * g + b;
        }
    }
}

fn softmax_rows(s: &mut [f32], t: usize) {
    for row in s[..t * t].chunks_exact_mut(t) {
        let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mut sum = 0.0;
        for v in row.iter_mut() {
            *v = (*v - max).exp();
            sum += *v;
        }
        row.iter_mut().for_each(|v| *v /= sum);
    }
}

/// BERT's exact (erf) GELU.
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// erf by Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7, under f32's own
/// rounding at these magnitudes): a third of libm's cost, and GELU runs on every
/// feed-forward activation.
fn erf(x: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_6
            + t * (-0.284_496_74 + t * (1.421_413_7 + t * (-1.453_152_1 + t * 1.061_405_4))));
    let y = 1.0 - poly * (-x * x).exp();
    y.copysign(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_norm_and_softmax_are_normalised() {
        let mut x = vec![1.0, 2.0, 3.0, 4.0];
        layer_norm(&mut x, 4, &(vec![1.0; 4], vec![0.0; 4]), 1e-12);
        let mean: f32 = x.iter().sum::<f32>() / 4.0;
        let var: f32 = x.iter().map(|v| v * v).sum::<f32>() / 4.0;
        assert!(mean.abs() < 1e-6 && (var - 1.0).abs() < 1e-4, "{x:?}");
        let mut s = vec![1.0, 2.0, 1000.0, 1000.0];
        softmax_rows(&mut s, 2);
        assert!((s[0] + s[1] - 1.0).abs() < 1e-6 && s[1] > s[0]);
        assert_eq!(&s[2..], [0.5, 0.5]);
    }

    #[test]
    fn gelu_matches_known_values() {
        assert_eq!(gelu(0.0), 0.0);
        assert!((gelu(1.0) - 0.841_344_7).abs() < 1e-6);
        assert!((gelu(-1.0) + 0.158_655_3).abs() < 1e-6);
        for i in -400..=400 {
            let x = i as f32 / 100.0;
            assert!((erf(x) - libm::erff(x)).abs() < 3e-7, "erf({x})");
        }
    }

    #[test]
    fn config_rejects_an_unsupported_activation_and_bad_heads() {
        let mut v = serde_json::json!({"hidden_size": 8, "num_hidden_layers": 1,
            "num_attention_heads": 3, "intermediate_size": 16, "max_position_embeddings": 4});
        assert!(Config::from_json(&v)
            .unwrap_err()
            .to_string()
            .contains("multiple"));
        v["num_attention_heads"] = 2.into();
        assert_eq!(Config::from_json(&v).unwrap().heads, 2);
        v["hidden_act"] = "relu".into();
        assert!(Config::from_json(&v)
            .unwrap_err()
            .to_string()
            .contains("relu"));
    }
}
