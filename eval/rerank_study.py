#!/usr/bin/env python3
"""Issue 34's four ranking ideas, measured offline on the fused ranking's top 30.

Each idea reorders what the default ranking already found (the top 30 of
`toolsearch-lab eval --explain`, with its score parts and similarity), using the
catalog's structure:

  servers   servers as documents: a server's vector is the mean of its tools'
            vectors; a tool gains w * (how close its server is to the request).
            Plus the request naming the server ("in my Notion").
  fields    normalised fields: the share of the tool's name words the request
            holds, of its description words, of its parameter names; and a
            penalty per required parameter the request names nothing of.
  neighbours
            tools used together: a tool gains w * the best fused score of another
            candidate of its own server (siblings of hits).
  learned   a logistic reranker over all of the above plus the scorer's own parts
            (lexical share, semantic share, similarity, rank, lexical-top lift),
            fitted on one family, applied unchanged to the others.

Every weight is fitted on ONE family (a grid for one-weight ideas; gradient
descent for the learned one) and checked on the others; an idea is kept only when
it holds on every set. Exact-name pins stay first, as the product pins them.

Input: for each set NAME, `/tmp/study/NAME.explain.jsonl` and `/tmp/study/NAME.vec/`
written by

    toolsearch-lab eval --json --catalog C --queries Q \\
        --embed-model target/models/all-MiniLM-L6-v2 \\
        --explain /tmp/study/NAME.explain.jsonl --dump-vectors /tmp/study/NAME.vec

(NAME in toollens, bfcl, bfcl9k, mcp: the sets of `cargo xtask recall`). NumPy only.

    python3 eval/rerank_study.py [--dir /tmp/study] [--fit toollens] [--tables]
"""

import argparse
import json
import os
import re

import numpy as np

DATA = os.environ.get("TOOLSEARCH_DATA", os.path.join(os.path.dirname(__file__), "../../shared/data"))
SETS = {
    "toollens": ("toollens/catalog.jsonl", "toollens/queries_train.jsonl"),
    "bfcl": ("bfcl/catalog.jsonl", "bfcl/queries.jsonl"),
    "bfcl9k": ("scale/catalog_all.jsonl", "bfcl/queries.jsonl"),
    "mcp": ("livemcpbench/catalog.jsonl", None),
}
FAMILY = {"toollens": "toollens", "bfcl": "bfcl", "bfcl9k": "bfcl", "mcp": "mcp"}
DIM = 384
K = 5

STOP = set(
    "a an the of to in on for with and or from by at is are be as it this that my me i you your "
    "what which who how when where can could would should please get give find show tell want need "
    "using use all any some into about do does did up out than then there their its our we us "
    "will just also if so not no yes".split()
)


def words(text):
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text or "")
    out = []
    for w in re.split(r"[^A-Za-z0-9]+", text.lower()):
        if len(w) < 2 or w in STOP:
            continue
        if len(w) > 4 and w.endswith("ies"):
            w = w[:-3] + "y"
        elif len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.append(w)
    return out


def share(tool_words, query_words):
    tw = set(tool_words)
    return len(tw & query_words) / len(tw) if tw else 0.0


class Set:
    def __init__(self, name, d):
        cat_file, q_file = SETS[name]
        self.name = name
        vec = os.path.join(d, f"{name}.vec")
        self.ids = open(os.path.join(vec, "ids.txt")).read().split("\n")[:-1]
        self.pos = {t: i for i, t in enumerate(self.ids)}
        self.tools = np.fromfile(os.path.join(vec, "tools.f32"), dtype="<f4").reshape(-1, DIM)
        qv = np.fromfile(os.path.join(vec, "queries.f32"), dtype="<f4").reshape(-1, DIM)
        labels = [json.loads(l)["groups"] for l in open(os.path.join(vec, "labels.jsonl"))]
        keep = [i for i, g in enumerate(labels) if g]
        self.qv = qv[keep]
        self.groups = [labels[i] for i in keep]
        self.lines = [json.loads(l) for l in open(os.path.join(d, f"{name}.explain.jsonl"))]
        assert len(self.lines) == len(self.groups), (name, len(self.lines), len(self.groups))
        # The catalog's fields, by tool position.
        by_name = {}
        for line in open(os.path.join(DATA, cat_file)):
            t = json.loads(line)
            by_name[t["name"]] = t
        self.server = []
        self.fields = []
        for tid in self.ids:
            name = tid.split(":", 2)[2]
            t = by_name.get(name, {})
            server = tid.split(":", 2)[1] if tid.startswith("mcp:") else ""
            self.server.append(server)
            schema = t.get("input_schema") or {}
            props = schema.get("properties") or {}
            required = [r for r in (schema.get("required") or []) if isinstance(r, str)]
            tool_name = name.split("__", 1)[1] if "__" in name else name
            self.fields.append(
                (
                    words(tool_name),
                    words(t.get("description", ""))[:60],
                    [words(p) for p in props][:30],
                    [words(r) for r in required][:10],
                    words(server.replace("-", " ")),
                )
            )
        # Servers as documents: the mean of their tools' vectors.
        servers = sorted(set(s for s in self.server if s))
        sid = {s: i for i, s in enumerate(servers)}
        self.server_of = np.array([sid.get(s, -1) for s in self.server])
        cent = np.zeros((max(len(servers), 1), DIM), dtype=np.float32)
        for i, s in enumerate(self.server_of):
            if s >= 0:
                cent[s] += self.tools[i]
        cent /= np.maximum(np.linalg.norm(cent, axis=1, keepdims=True), 1e-6)
        self.centroids = cent
        self.features()

    def features(self):
        """Per query: candidate positions, fused scores, pinned flags, feature rows."""
        self.cands = []
        for qi, line in enumerate(self.lines):
            hits = line["hits"]
            qwords = set(words(line["query"]))
            docs = [self.pos[h["id"]] for h in hits]
            score = np.array([h["score"] for h in hits], dtype=np.float64)
            pinned = np.array(["exact_name" in h["parts"] for h in hits])
            srv_sim_all = self.centroids @ self.qv[qi]
            rows = []
            for r, (d, h) in enumerate(zip(docs, hits)):
                parts = h["parts"]
                name_w, desc_w, params, req, srv_w = self.fields[d]
                s = self.server_of[d]
                siblings = [score[j] for j, e in enumerate(docs) if j != r and s >= 0 and self.server_of[e] == s]
                unfilled = sum(1 for p in req if not (set(p) & qwords))
                rows.append(
                    [
                        h["score"],
                        parts.get("lexical", 0.0),
                        parts.get("semantic", 0.0),
                        h["similarity"] or 0.0,
                        1.0 / (r + 1),
                        1.0 if "lexical_top" in parts else 0.0,
                        float(srv_sim_all[s]) if s >= 0 else 0.0,
                        share(srv_w, qwords) if s >= 0 else 0.0,
                        share(name_w, qwords),
                        share(desc_w, qwords),
                        share([w for p in params for w in p], qwords),
                        float(unfilled),
                        max(siblings) if siblings else 0.0,
                        float(len(siblings)),
                    ]
                )
            self.cands.append((np.array(docs), score, pinned, np.array(rows, dtype=np.float64).reshape(-1, 14)))


FEATURES = [
    "score", "lexical", "semantic", "similarity", "inv_rank", "lexical_top",
    "server_sim", "server_named", "name_share", "desc_share", "param_share",
    "unfilled_required", "best_sibling", "siblings",
]
F = {n: i for i, n in enumerate(FEATURES)}


def evaluate(st, scorer):
    """recall@5 and nDCG@10 with each query's candidates reordered by scorer(rows)."""
    recall = ndcg = 0.0
    for (docs, score, pinned, rows), groups in zip(st.cands, st.groups):
        if len(docs):
            s = scorer(rows)
            s = np.where(pinned, 1e9 - np.arange(len(docs)), s)
            order = docs[np.argsort(-s, kind="stable")]
        else:
            order = docs
        ranks = []
        for g in groups:
            gs = set(g)
            ranks.append(next((i for i, d in enumerate(order) if d in gs), None))
        recall += sum(1 for r in ranks if r is not None and r < K) / len(groups)
        dcg = sum(1 / np.log2(r + 2) for r in ranks if r is not None and r < 10)
        ideal = sum(1 / np.log2(r + 2) for r in range(min(len(groups), 10)))
        ndcg += dcg / ideal
    n = len(st.groups)
    return round(recall / n, 3), round(ndcg / n, 3)


def one_weight(feature, grid):
    return lambda w: (lambda rows: rows[:, F["score"]] + w * rows[:, F[feature]])


IDEAS = {
    "servers: server similarity": (one_weight("server_sim", None), [0.0, 0.05, 0.1, 0.2, 0.3, 0.5]),
    "servers: server named": (one_weight("server_named", None), [0.0, 0.05, 0.1, 0.2, 0.3]),
    "fields: name share": (one_weight("name_share", None), [0.0, 0.05, 0.1, 0.2, 0.3]),
    "fields: parameter share": (one_weight("param_share", None), [0.0, 0.05, 0.1, 0.2]),
    "fields: unfilled required (penalty)": (one_weight("unfilled_required", None), [0.0, -0.01, -0.02, -0.05, -0.1]),
    "neighbours: best sibling": (one_weight("best_sibling", None), [0.0, 0.05, 0.1, 0.2, 0.3]),
    "neighbours: sibling count": (one_weight("siblings", None), [0.0, 0.005, 0.01, 0.02, 0.05]),
}


def fit_logistic(sets, l2=1e-3, epochs=300, lr=0.5):
    """Pointwise logistic regression: a candidate is positive when it is in a relevant
    group. Features standardised on the fit set; returns a scorer."""
    xs, ys = [], []
    for st in sets:
        for (docs, score, pinned, rows), groups in zip(st.cands, st.groups):
            rel = set(d for g in groups for d in g)
            if not len(docs) or not any(d in rel for d in docs):
                continue
            xs.append(rows)
            ys.append(np.array([1.0 if d in rel else 0.0 for d in docs]))
    x = np.vstack(xs)
    y = np.concatenate(ys)
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = (x - mu) / sd
    w = np.zeros(z.shape[1])
    b = 0.0
    for _ in range(epochs):
        p = 1 / (1 + np.exp(-(z @ w + b)))
        g = p - y
        w -= lr * (z.T @ g / len(y) + l2 * w)
        b -= lr * g.mean()
    return (lambda rows: ((rows - mu) / sd) @ w), dict(zip(FEATURES, np.round(w / sd, 4)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="/tmp/study")
    ap.add_argument("--fit", action="append", help="family to fit on (default: each in turn)")
    ap.add_argument("--tables", action="store_true", help="print every idea's grid as a table")
    args = ap.parse_args()
    sets = {n: Set(n, args.dir) for n in SETS}
    base = {n: evaluate(st, lambda rows: rows[:, F["score"]]) for n, st in sets.items()}
    print("baseline (the fused order):", {n: b[0] for n, b in base.items()})
    if args.tables:
        for idea, (make, grid) in IDEAS.items():
            print(f"\n{idea}\n\n| weight | " + " | ".join(sets) + " | best for |\n|" + " --- |" * (len(sets) + 2))
            res = {w: {n: evaluate(st, make(w))[0] for n, st in sets.items()} for w in grid}
            for w in grid:
                best_for = [
                    fam for fam in ("toollens", "bfcl", "mcp")
                    if w == max(grid, key=lambda v: (np.mean([res[v][n] for n in sets if FAMILY[n] == fam]), -abs(v)))
                ]
                print(f"| {w} | " + " | ".join(f"{res[w][n]:.3f}" for n in sets) + f" | {', '.join(best_for)} |")
        return
    fits = args.fit or ["toollens", "bfcl", "mcp"]
    for fam in fits:
        fit_sets = [st for n, st in sets.items() if FAMILY[n] == fam]
        print(f"\n## fitted on {fam}")
        for idea, (make, grid) in IDEAS.items():
            best = max(grid, key=lambda w: (np.mean([evaluate(st, make(w))[0] for st in fit_sets]), -abs(w)))
            res = {n: evaluate(st, make(best)) for n, st in sets.items()}
            deltas = {n: round(res[n][0] - base[n][0], 3) for n in sets}
            holds = all(d >= 0 for d in deltas.values()) and any(d > 0 for d in deltas.values())
            print(f"{idea:40s} w={best:<6} recall@5 {dict((n, r[0]) for n, r in res.items())} "
                  f"delta {deltas} {'HOLDS' if holds else 'drop'}")
        scorer, weights = fit_logistic(fit_sets)
        res = {n: evaluate(st, scorer) for n, st in sets.items()}
        deltas = {n: round(res[n][0] - base[n][0], 3) for n in sets}
        print(f"{'learned (logistic, all features)':40s} recall@5 {dict((n, r[0]) for n, r in res.items())} "
              f"nDCG@10 {dict((n, r[1]) for n, r in res.items())} delta {deltas}")
        print("   weights:", weights)


if __name__ == "__main__":
    main()
