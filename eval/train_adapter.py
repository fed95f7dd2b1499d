#!/usr/bin/env python3
"""A low-rank query adapter for the embedding model, trained on public retrieval pairs
(NumPy only, CPU, seconds; deterministic for a seed).

The query vector q becomes q + (q U) Vᵀ, renormalised; tool vectors are unchanged
(so the tool-vector cache stays valid). U, V are dim × rank, trained with a softmax
cross-entropy over the family's whole catalog (every other tool a negative),
temperature 0.05, Adam, an L2 penalty on U and V.

Input: directories written by `toolsearch-lab eval --dump-vectors DIR --embed-model M`
(`tools.f32`, `queries.f32`, `labels.jsonl`).

    python3 eval/train_adapter.py --train /tmp/vec/toollens --eval /tmp/vec/bfcl \
        --eval /tmp/vec/mcp [--out adapter.bin] [--rank 32] [--epochs 4]

prints semantic-only recall@5 with and without the adapter on every set (a family's
held-out figure must come from an adapter that never saw it), and writes the adapter
(`TSADP01\\n`, dim, rank as u32 LE, then U and V as f32 LE, row-major).
"""

import argparse
import json
import os
import struct

import numpy as np

DIM = 384


def load(d):
    tools = np.fromfile(os.path.join(d, "tools.f32"), dtype="<f4").reshape(-1, DIM)
    queries = np.fromfile(os.path.join(d, "queries.f32"), dtype="<f4").reshape(-1, DIM)
    labels = [json.loads(l)["groups"] for l in open(os.path.join(d, "labels.jsonl"))]
    assert len(labels) == len(queries), d
    return tools, queries, labels


def adapt(q, U, V):
    if U is None:
        return q
    a = q + (q @ U) @ V.T
    return a / np.linalg.norm(a, axis=1, keepdims=True)


def recall_at(tools, queries, labels, U, V, k=5):
    qa = adapt(queries, U, V)
    total, n = 0.0, 0
    for start in range(0, len(qa), 1024):
        s = qa[start:start + 1024] @ tools.T
        top = np.argsort(-s, axis=1, kind="stable")[:, :k]
        for row, groups in zip(top, labels[start:start + 1024]):
            groups = [g for g in groups if g]
            if not groups:
                continue
            found = sum(1 for g in groups if any(t in g for t in row))
            total += found / len(groups)
            n += 1
    return total / max(n, 1)


def train(sets, rank, epochs, lr, l2, tau, seed):
    rng = np.random.default_rng(seed)
    U = rng.normal(0, 1e-3, (DIM, rank)).astype(np.float32)
    V = np.zeros((DIM, rank), dtype=np.float32)
    m = [np.zeros_like(U), np.zeros_like(V)]
    v = [np.zeros_like(U), np.zeros_like(V)]
    step = 0
    batches = []
    for si, (tools, queries, labels) in enumerate(sets):
        idx = [i for i, g in enumerate(labels) if any(g)]
        batches.append((si, np.array(idx)))
    for epoch in range(epochs):
        work = []
        for si, idx in batches:
            perm = rng.permutation(idx)
            work += [(si, perm[i:i + 128]) for i in range(0, len(perm), 128)]
        order = rng.permutation(len(work))
        loss_sum = 0.0
        for w in order:
            si, b = work[w]
            tools, queries, labels = sets[si]
            q = queries[b]
            h = q @ U
            a = q + h @ V.T
            norm = np.linalg.norm(a, axis=1, keepdims=True)
            qh = a / norm
            s = (qh @ tools.T) / tau
            s -= s.max(axis=1, keepdims=True)
            p = np.exp(s)
            p /= p.sum(axis=1, keepdims=True)
            y = np.zeros_like(p)
            for r, i in enumerate(b):
                pos = sorted({t for g in labels[i] for t in g})
                y[r, pos] = 1.0 / len(pos)
            loss_sum += -(y * np.log(p + 1e-12)).sum() / len(b)
            g = ((p - y) @ tools) / tau / len(b)
            g = (g - (g * qh).sum(axis=1, keepdims=True) * qh) / norm
            gU = q.T @ (g @ V) + l2 * U
            gV = g.T @ h + l2 * V
            step += 1
            for j, (P, G) in enumerate(((U, gU), (V, gV))):
                m[j] = 0.9 * m[j] + 0.1 * G
                v[j] = 0.999 * v[j] + 0.001 * G * G
                mh = m[j] / (1 - 0.9 ** step)
                vh = v[j] / (1 - 0.999 ** step)
                P -= (lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        print(f"epoch {epoch + 1}: loss {loss_sum / len(order):.4f}")
    return U, V


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", action="append", default=[])
    ap.add_argument("--eval", action="append", default=[])
    ap.add_argument("--out")
    ap.add_argument("--rank", type=int, default=32)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--l2", type=float, default=1e-3)
    ap.add_argument("--tau", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    train_sets = [load(d) for d in a.train]
    U, V = train(train_sets, a.rank, a.epochs, a.lr, a.l2, a.tau, a.seed)
    for d in a.train + a.eval:
        t, q, l = load(d)
        base = recall_at(t, q, l, None, None)
        new = recall_at(t, q, l, U, V)
        tag = "train" if d in a.train else "held-out"
        print(f"{d} ({tag}): semantic recall@5 {base:.3f} -> {new:.3f} ({new - base:+.3f})")
    if a.out:
        with open(a.out, "wb") as f:
            f.write(b"TSADP01\n")
            f.write(struct.pack("<II", DIM, a.rank))
            f.write(U.astype("<f4").tobytes())
            f.write(V.astype("<f4").tobytes())


if __name__ == "__main__":
    main()
