//! The similarity scan: the `k` tools nearest a query vector, exactly, at a quarter of
//! the memory traffic of scanning the f32 vectors.
//!
//! Every tool vector is also kept as int8 with one scale per vector (symmetric:
//! `q = round(v / s)`, `s = max|v| / 127`): 9,648 tools × 384 dimensions are 3.7 MB
//! instead of 14.8 MB, small enough to stay in the last-level cache between requests.
//! The scan computes the int8 dot product of every tool, which differs from the exact
//! cosine by at most a bound known per tool ([`Quantized::error_bound`]); a tool whose
//! approximate score plus its bound cannot reach the `k`-th best lower bound cannot be
//! among the `k` nearest, so only the rest are re-scored in f32. The answer is the
//! exact f32 answer (same tools, same order, same similarities), which
//! `matches_the_exact_scan` checks on random data.

/// int8 copies of a flat array of vectors, with what the error bound needs.
#[derive(Debug, Clone, Default)]
pub(crate) struct Quantized {
    dim: usize,
    codes: Vec<i8>,
    /// Per vector: its scale `s` (`v ≈ s · q`).
    scales: Vec<f32>,
    /// Per vector: the L1 norm of the f32 vector.
    l1: Vec<f32>,
}

/// One vector's int8 codes and scale.
fn quantize(v: &[f32], out: &mut Vec<i8>) -> f32 {
    let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    if max == 0.0 || !max.is_finite() {
        out.extend(std::iter::repeat_n(0i8, v.len()));
        return 0.0;
    }
    let scale = max / 127.0;
    out.extend(
        v.iter()
            .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8),
    );
    scale
}

/// The int8 dot product, accumulated in i32 over 16 lanes (vectorised by the compiler:
/// the i8 → i16 widening multiply-add is SSE2's `pmaddwd`).
fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    let mut acc = [0i32; 16];
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let tail: i32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(&x, &y)| i32::from(x) * i32::from(y))
        .sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..16 {
            acc[i] += i32::from(i16::from(x[i]) * i16::from(y[i]));
        }
    }
    acc.iter().sum::<i32>() + tail
}

/// A query prepared for the scan.
pub(crate) struct QueryCodes {
    codes: Vec<i8>,
    scale: f32,
    l1: f32,
}

impl Quantized {
    /// Quantizes `vectors` (`dim` floats each).
    pub(crate) fn new(vectors: &[f32], dim: usize) -> Quantized {
        let n = vectors.len() / dim.max(1);
        let mut q = Quantized {
            dim,
            codes: Vec::with_capacity(vectors.len()),
            scales: Vec::with_capacity(n),
            l1: Vec::with_capacity(n),
        };
        for v in vectors.chunks_exact(dim.max(1)).take(n) {
            let s = quantize(v, &mut q.codes);
            q.scales.push(s);
            q.l1.push(v.iter().map(|x| x.abs()).sum());
        }
        q
    }

    pub(crate) fn query(&self, v: &[f32]) -> QueryCodes {
        let mut codes = Vec::with_capacity(v.len());
        let scale = quantize(v, &mut codes);
        QueryCodes {
            codes,
            scale,
            l1: v.iter().map(|x| x.abs()).sum(),
        }
    }

    /// Approximate similarity of vector `doc` to `q`.
    fn approx(&self, doc: usize, q: &QueryCodes) -> f32 {
        let codes = &self.codes[doc * self.dim..(doc + 1) * self.dim];
        self.scales[doc] * q.scale * dot_i8(codes, &q.codes) as f32
    }

    /// A bound on `|approx - exact|` for `doc`: with `a = s·qa + ea`, `b = t·qb + eb`
    /// and `|ea| ≤ s/2`, `|eb| ≤ t/2` per component, the difference
    /// `a·b - s·t·(qa·qb)` is `a·eb + b·ea - ea·eb`, so its size is at most
    /// `(t/2)·|a|₁ + (s/2)·|b|₁ + dim·s·t/4`; plus a margin for f32 rounding.
    fn error_bound(&self, doc: usize, q: &QueryCodes) -> f32 {
        let (s, t) = (self.scales[doc], q.scale);
        let bound = 0.5 * t * self.l1[doc] + 0.5 * s * q.l1 + 0.25 * self.dim as f32 * s * t;
        bound * 1.001 + 1e-5
    }

    /// The tools that can be among the `k` nearest to `q` of those `allow` admits:
    /// every tool whose best case reaches the `k`-th best worst case.
    pub(crate) fn candidates(
        &self,
        q: &QueryCodes,
        k: usize,
        allow: &dyn Fn(usize) -> bool,
    ) -> Vec<usize> {
        let n = self.scales.len();
        let mut scored: Vec<(usize, f32, f32)> = (0..n)
            .filter(|&d| allow(d))
            .map(|d| (d, self.approx(d, q), self.error_bound(d, q)))
            .collect();
        if k == 0 || scored.len() <= k {
            return scored.into_iter().map(|s| s.0).collect();
        }
        let mut lows: Vec<f32> = scored.iter().map(|s| s.1 - s.2).collect();
        let (_, kth, _) = lows.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a));
        let threshold = *kth;
        scored.retain(|s| s.1 + s.2 >= threshold);
        scored.into_iter().map(|s| s.0).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic generator (no dependency): xorshift.
    fn rng(seed: &mut u64) -> f32 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        (*seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    }

    fn unit(v: &mut [f32]) {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter_mut().for_each(|x| *x /= n);
    }

    fn exact_top(vectors: &[f32], dim: usize, q: &[f32], k: usize) -> Vec<usize> {
        let mut s: Vec<(usize, f32)> = vectors
            .chunks_exact(dim)
            .enumerate()
            .map(|(d, v)| (d, crate::dot(v, q)))
            .collect();
        s.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        s.into_iter().take(k).map(|x| x.0).collect()
    }

    #[test]
    fn the_candidates_always_hold_the_exact_nearest() {
        let (dim, n) = (384, 3000);
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        // Clustered vectors (a shared direction plus noise), as sentence embeddings
        // are: many near-ties, the hard case for a filter.
        let centre: Vec<f32> = (0..dim).map(|_| rng(&mut seed)).collect();
        let mut vectors = Vec::with_capacity(n * dim);
        for _ in 0..n {
            let mut v: Vec<f32> = centre.iter().map(|c| c + 0.6 * rng(&mut seed)).collect();
            unit(&mut v);
            vectors.extend(v);
        }
        let q8 = Quantized::new(&vectors, dim);
        let mut widest = 0;
        for _ in 0..40 {
            let mut q: Vec<f32> = centre.iter().map(|c| c + 0.8 * rng(&mut seed)).collect();
            unit(&mut q);
            for k in [1, 10, 50] {
                let cand = q8.candidates(&q8.query(&q), k, &|_| true);
                widest = widest.max(cand.len());
                for d in exact_top(&vectors, dim, &q, k) {
                    assert!(
                        cand.contains(&d),
                        "doc {d} of the exact top {k} was filtered"
                    );
                }
            }
        }
        // The filter does filter: far fewer than every tool is re-scored.
        assert!(widest < n / 2, "{widest} candidates of {n}");
    }

    #[test]
    fn allow_and_degenerate_vectors() {
        let vectors = [1.0, 0.0, 0.0, 0.0, 0.6, 0.8];
        let q8 = Quantized::new(&vectors, 2);
        let q = q8.query(&[0.0, 1.0]);
        let cand = q8.candidates(&q, 1, &|d| d != 2);
        assert!(cand.contains(&0) && !cand.contains(&2), "{cand:?}");
        // A zero vector and a zero query scan without dividing by zero.
        let q = q8.query(&[0.0, 0.0]);
        assert_eq!(q8.candidates(&q, 5, &|_| true).len(), 3);
        assert_eq!(dot_i8(&[1; 19], &[-2; 19]), -38);
    }
}
