#!/usr/bin/env python3
"""A templated, value-heavy request set drawn from a catalog (a check, not a benchmark).

Held-out set C of issue 18 ("templated single-step requests" over ~9.7k tools, most
carrying argument values: quoted text, selectors, paths, URLs, codes) has no public
twin here. This builds a stand-in of the same class from the shared catalog: for
tools with English descriptions and parameters, a request made from the
description's first clause and one of a few templates, with values drawn from the
parameter's schema (enum, default, example) or its name (path, URL, selector, code,
date, e-mail, quoted text). Fixed seed; one labelled tool per request.

    python3 eval/templated_requests.py ../shared/data/scale/catalog_all.jsonl \
        --sources mcp --n 800 --seed 11 > /tmp/templated.jsonl

It is written by the project, from templates the project chose: read its figures as
a check of the class (does fusion lose to lexical search when requests carry
values?), never as a figure to tune to.
"""

import argparse
import json
import random
import re

TEMPLATES = [
    "{action} with {args}",
    "Please {action_lc} for {v1}",
    "I need to {action_lc}: {args}",
    "Can you {action_lc}? Use {args}",
    "{v1}: {action_lc}",
    "{action}. {args}",
]

QUOTED = ["'quarterly revenue report'", '"Lisbon"', "'hello world'", '"Project Apollo"',
          "'meeting notes'", '"acme-corp"', "'fix typo in README'", '"machine learning"']


def value_for(name, schema, rng):
    n = name.lower()
    if isinstance(schema, dict):
        if schema.get("enum"):
            return str(rng.choice(schema["enum"]))
        for key in ("default", "example"):
            if key in schema and isinstance(schema[key], (str, int, float)) and str(schema[key]):
                return str(schema[key])
        typ = schema.get("type")
    else:
        typ = None
    if "url" in n or "link" in n or "href" in n:
        return rng.choice(["https://example.com/products/42", "https://news.ycombinator.com", "https://github.com/acme/app"])
    if "path" in n or "file" in n or "dir" in n:
        return rng.choice(["/home/user/data/report.csv", "~/projects/app/src/main.rs", "./notes/todo.md"])
    if "selector" in n or "element" in n:
        return rng.choice(["#login-button", ".nav-item > a", "div#main input[name=q]"])
    if "email" in n or "mail" in n:
        return "alice@example.com"
    if "date" in n or "time" in n:
        return rng.choice(["2024-05-01", "2025-12-31T09:00:00Z"])
    if n.endswith("id") or n.endswith("_id") or "code" in n or "symbol" in n:
        return rng.choice(["AAPL", "ENSG00000141510", "A1B2C3", "PR-1042", "US-CA"])
    if typ in ("integer", "number"):
        return str(rng.choice([3, 10, 42, 250]))
    if typ == "boolean":
        return "true"
    return rng.choice(QUOTED)


def action_of(desc):
    first = re.split(r"(?<=[.!?])\s|\n", desc.strip())[0].rstrip(".")
    words = first.split()
    if not 3 <= len(words) <= 40:
        return None
    words = words[:14]
    # "Gets the weather" -> "Get the weather"
    w0 = words[0]
    if w0.endswith("es") and w0[:-2].lower() in ("search", "fetch", "match", "push", "list", "process"):
        words[0] = w0[:-2]
    elif w0.endswith("s") and not w0.endswith("ss") and len(w0) > 3:
        words[0] = w0[:-1]
    return " ".join(words)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("catalog")
    ap.add_argument("--sources", default="mcp", help="mcp (registries, LiveMCPBench, GitHub) or all")
    ap.add_argument("--n", type=int, default=800)
    ap.add_argument("--seed", type=int, default=11)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    tools = [json.loads(l) for l in open(a.catalog) if l.strip()]
    pool = []
    for t in tools:
        src = t.get("source", "")
        if a.sources == "mcp" and not any(s in src for s in ("mcp", "MCP", "LiveMCPBench")):
            continue
        desc = t.get("description") or ""
        if not desc.isascii():
            continue
        props = (t.get("input_schema") or {}).get("properties") or {}
        if not props or not isinstance(props, dict):
            continue
        action = action_of(desc)
        if action:
            pool.append((t, action, props))
    rng.shuffle(pool)
    for i, (t, action, props) in enumerate(pool[: a.n]):
        req = (t.get("input_schema") or {}).get("required") or list(props)[:1]
        names = [p for p in req if p in props][:2] or list(props)[:1]
        vals = [(p, value_for(p, props[p], rng)) for p in names]
        args = ", ".join(f"{p.replace('_', ' ')} {v}" for p, v in vals)
        tpl = rng.choice(TEMPLATES)
        q = tpl.format(action=action, action_lc=action[0].lower() + action[1:], args=args, v1=vals[0][1])
        print(json.dumps({"id": f"tpl{i}", "query": q, "relevant": [t["name"]]}))


if __name__ == "__main__":
    main()
