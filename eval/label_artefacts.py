"""How much of a query set's misses are label artefacts rather than ranking faults.

usage: label_artefacts.py --catalog CAT --queries Q --misses MISSES [--k 5]

MISSES is what `toolsearch-lab eval --misses FILE` wrote for the same catalog and queries.
Prints one JSON object:

- `recall@k`: recomputed from the misses (it must equal what `toolsearch-lab eval` printed);
- `same_function_recall@k`: a missed tool counts as found when a top-k hit is another
  version of it (`f`, `f__v2`, `f__v3`: BFCL pools near-identical rewrites of one
  function under such names and labels one of them per query);
- `labels_sharing_no_word`: the share of (query, labelled tool) pairs where the query
  has no content word of the tool's name, server, description or parameter names
  (words of 3+ letters compared on their first 5, without the search's stopwords), so
  no lexical rule can find the tool from the query;
- `recall@k_one_label_by_versions`: for queries labelled with one tool, the recall
  when that function has no other version in the catalog, and when it has some.
"""
import argparse, json, os, re

ap = argparse.ArgumentParser()
ap.add_argument("--catalog", required=True)
ap.add_argument("--queries", required=True)
ap.add_argument("--misses", required=True)
ap.add_argument("--k", type=int, default=5)
a = ap.parse_args()

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
text_rs = open(os.path.join(root, "crates/catalog/src/text.rs")).read()
stop_block = text_rs[text_rs.index("const STOPWORDS") : text_rs.index("];", text_rs.index("const STOPWORDS"))]
STOPWORDS = set(re.findall(r'"([a-z]+)"', stop_block))


def words(text):
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return {w[:5] for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 2 and w not in STOPWORDS}


def version_of(name):
    return re.sub(r"__v\d+$", "", name.rsplit(":", 1)[-1])


tools = {}
for line in open(a.catalog):
    if line.strip():
        t = json.loads(line)
        props = (t.get("input_schema") or {}).get("properties") or {}
        tools[t["name"]] = words(" ".join([t["name"], t.get("server") or "", t.get("description") or "", *props]))

versions = {}
for name in tools:
    versions[version_of(name)] = versions.get(version_of(name), 0) + 1
split = {"no_other_version": [0, 0], "other_versions": [0, 0]}
misses = {json.dumps(m["id"]): m for m in map(json.loads, open(a.misses)) if m}
n = recall = same = pairs = no_word = 0
for line in open(a.queries):
    if not line.strip():
        continue
    q = json.loads(line)
    groups = q.get("relevant_groups") or [[r] for r in q.get("relevant", [])]
    groups = [[m for m in g if m in tools] for g in groups]
    groups = [g for g in groups if g]
    if not groups:
        continue
    n += 1
    qw = words(q["query"])
    for g in groups:
        pairs += 1
        no_word += not any(qw & tools[m] for m in g)
    m = misses.get(json.dumps(q["id"]))
    missed = len(m["missed"]) if m else 0
    recall += (len(groups) - missed) / len(groups)
    if len(groups) == 1 and len(groups[0]) == 1:
        cell = split["no_other_version" if versions[version_of(groups[0][0])] == 1 else "other_versions"]
        cell[0] += not m
        cell[1] += 1
    if m:
        top = {version_of(i) for i in m["top"][: a.k]}
        rescued = sum(any(version_of(i) in top for i in g["ids"]) for g in m["missed"])
        same += (len(groups) - missed + rescued) / len(groups)
    else:
        same += 1
print(json.dumps({
    "queries": n,
    f"recall@{a.k}": round(recall / n, 3),
    f"same_function_recall@{a.k}": round(same / n, 3),
    "labels_sharing_no_word": round(no_word / pairs, 3),
    f"recall@{a.k}_one_label_by_versions": {
        k: {"queries": v[1], f"recall@{a.k}": round(v[0] / v[1], 3) if v[1] else None} for k, v in split.items()
    },
}))
