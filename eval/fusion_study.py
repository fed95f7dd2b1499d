#!/usr/bin/env python3
"""Offline study of fusion rules (NumPy only).

Reads what `toolsearch-lab eval --dump-candidates FILE --embed-model M` leaves behind:
the dump (each query's lexical candidates and the lexical search's own top ten) and
the embedding cache (tool vectors in catalog order; query vectors of the distinct
query texts, sorted). It re-implements the fusion of `crates/embed/src/hybrid.rs` so
that per-query rules can be compared on every set at once, then fitted on one
family and checked on the others.

    python3 eval/fusion_study.py --set NAME DUMP QUERIES [--set ...] [--cache DIR]
"""

import argparse
import glob
import json
import os
import struct

import numpy as np

MIN_SIM = 0.2
DEPTH = 50


def read_vec(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"TSEMB01\n", path
    dim, n = struct.unpack("<II", data[8:16])
    return np.frombuffer(data[16:], dtype="<f4").reshape(n, dim)


def vec_of_texts(cache, texts, max_tokens=128):
    """The cached vectors of `texts` (sorted, distinct), found by the Rust cache key."""
    import hashlib

    h = hashlib.sha256(struct.pack("<Q", max_tokens))
    for t in texts:
        b = t.encode()
        h.update(struct.pack("<Q", len(b)))
        h.update(b)
    hits = glob.glob(os.path.join(cache, f"*-{h.hexdigest()[:16]}.vec"))
    if not hits:
        raise SystemExit(f"no cached vectors for these {len(texts)} texts in {cache}")
    return read_vec(hits[0])


def find_vec(cache, n, dim=384):
    """The newest cache file holding n vectors."""
    best = None
    for p in glob.glob(os.path.join(cache, "*.vec")):
        with open(p, "rb") as f:
            head = f.read(16)
        d, m = struct.unpack("<II", head[8:16])
        if m == n and d == dim:
            if best is None or os.path.getmtime(p) > os.path.getmtime(best):
                best = p
    if best is None:
        raise SystemExit(f"no cached vectors for {n} texts in {cache}")
    return read_vec(best)


class Set:
    def __init__(self, name, dump, queries, cache):
        self.name = name
        with open(dump) as f:
            lines = [json.loads(l) for l in f]
        self.ids = lines[0]["tools"]
        self.rows = lines[1:]
        with open(queries) as f:
            self.queries = [json.loads(l) for l in f if l.strip()]
        assert len(self.queries) == len(self.rows), (name, len(self.queries), len(self.rows))
        self.tool_vecs = find_vec(cache, len(self.ids))
        texts = sorted(set(q["query"] for q in self.queries))
        qv = vec_of_texts(cache, texts)
        index = {t: i for i, t in enumerate(texts)}
        self.qvecs = np.stack([qv[index[q["query"]]] for q in self.queries])
        # Labels: names resolve to ids ending in `::name` or equal to it.
        by_name = {}
        for i, tid in enumerate(self.ids):
            by_name.setdefault(tid, i)
            by_name.setdefault(tid.split("::", 1)[-1], i)
            by_name.setdefault(tid.rsplit(":", 1)[-1], i)
        self.groups = []
        for q in self.queries:
            gs = q.get("relevant_groups") or [[r] for r in q.get("relevant", [])]
            docs = [set(by_name[n] for n in g if n in by_name) for g in gs]
            self.groups.append([g for g in docs if g])
        self.sims = self.qvecs @ self.tool_vecs.T  # queries x tools
        self.cache = cache

    def sims_of(self, queries_file):
        """Similarities of another wording of the same queries (same order)."""
        with open(queries_file) as f:
            qs = [json.loads(l)["query"] for l in f if l.strip()]
        texts = sorted(set(qs))
        qv = vec_of_texts(self.cache, texts)
        index = {t: i for i, t in enumerate(texts)}
        return np.stack([qv[index[q]] for q in qs]) @ self.tool_vecs.T

    def recall(self, ranked_lists, k=5):
        total, n = 0.0, 0
        for groups, ranked in zip(self.groups, ranked_lists):
            if not groups:
                continue
            top = ranked[:k]
            total += sum(1 for g in groups if any(d in g for d in top)) / len(groups)
            n += 1
        return total / max(n, 1)


def dist_norm(scores):
    scores = np.asarray(scores, dtype=np.float64)
    if len(scores) == 0:
        return lambda x: 1.0
    mean = scores.mean()
    sd = scores.std()
    lo = mean - 3 * sd
    if sd < 1e-6:
        return lambda x: 1.0
    return lambda x: min(max((x - lo) / (6 * sd), 0.0), 1.0)


def signals(s, i):
    """What a per-query rule may look at."""
    row = s.rows[i]
    sims = s.sims[i]
    lex = row.get("lex", [])
    order = np.argsort(-sims, kind="stable")[:DEPTH]
    top_sims = sims[order]
    lt = [c[1] for c in lex]
    return {
        "lex_n": len(lex),
        "lex_top": lt[0] if lt else 0.0,
        "lex_margin": (lt[0] - lt[1]) / lt[0] if len(lt) > 1 and lt[0] > 0 else 1.0,
        "lex_covered": sum(1 for c in lex if c[2]),
        "sim_top": float(top_sims[0]),
        "sim_margin": float(top_sims[0] - top_sims[min(4, len(top_sims) - 1)]),
        "sim_spread": float(top_sims.std()),
        "agree": len(set(c[0] for c in lex[:5]) & set(order[:5].tolist())),
    }


def fused(s, i, w=0.5, sims=None):
    """The fused ranking of query i, as hybrid.rs computes it (pins first)."""
    row = s.rows[i]
    if row["kind"] != "keywords":
        return row["top"]
    sims = s.sims[i] if sims is None else sims
    lex = [(d, sc) for d, sc, cov in row["lex"] if cov or sims[d] >= MIN_SIM]
    order = np.argsort(-sims, kind="stable")[:DEPTH]
    retrieved = [(int(d), float(sims[d])) for d in order]
    lex_docs = {d for d, _ in lex}
    semantic = [(d, x) for d, x in retrieved if x >= MIN_SIM or d in lex_docs]
    if not lex:
        if not semantic:
            return row["top"]
    ln = dist_norm([x for _, x in lex])
    sn = dist_norm([x for _, x in retrieved])
    lex_score = dict(lex)
    docs = lex_docs | {d for d, _ in semantic}
    scored = []
    for d in docs:
        l = w * ln(lex_score[d]) if d in lex_score else 0.0
        scored.append((-(l + (1 - w) * sn(float(sims[d]))), s.ids[d], d))
    scored.sort()
    out = [d for _, _, d in scored]
    exact = row.get("exact", [])
    return exact + [d for d in out if d not in exact]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", nargs=3, action="append", metavar=("NAME", "DUMP", "QUERIES"))
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/toolsearch/embeddings"))
    args = ap.parse_args()
    sets = [Set(n, d, q, args.cache) for n, d, q in args.set]
    for s in sets:
        n = len(s.rows)
        lex = s.recall([r["top"] for r in s.rows])
        fu = s.recall([fused(s, i) for i in range(n)])
        print(f"{s.name}: lexical {lex:.3f} fused {fu:.3f}")


if __name__ == "__main__":
    main()
