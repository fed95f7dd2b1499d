"""A tiny random BERT and its golden sentence embeddings, computed in NumPy from the
published definitions, for crates/embed/tests/tiny_bert.rs to check the Rust encoder
and tokenizer against without the 90 MB MiniLM download.

usage: python3 eval/tiny_bert_reference.py   (from the workspace root; needs numpy)

Writes crates/embed/tests/tiny_bert/: config.json, vocab.txt, model.safetensors
(written by hand: u64 little-endian header length, JSON header, raw little-endian
F32 data), 1_Pooling/config.json (mean pooling) and golden.json (per text: the ids,
the mean-pooled and the [CLS]-pooled unit vectors). Everything is deterministic
(numpy.random.default_rng(7)), so rerunning rewrites the same bytes.

Written from the definitions, not from the Rust code:
- tokenizer: BERT's BasicTokenizer (google-research/bert tokenization.py, as in
  Hugging Face BertTokenizer, do_lower_case): drop NUL, U+FFFD and control characters
  (Cc, Cf; tab, CR, LF count as whitespace), whitespace (those three and Zs) splits,
  CJK ideographs become words, lower-case, NFD and drop nonspacing marks (Mn), split
  off punctuation (ASCII symbols and Unicode P*); then WordPiece greedy longest match,
  `##` for a non-initial piece, a whole word becomes [UNK] when any part is unmatched
  or it has more than 100 characters. [CLS] pieces [SEP], truncated to
  min(128, max_position_embeddings) ids in all (sentence-transformers truncates the
  pieces, then adds the two specials; 128 is the crate's token budget).
- encoder: Hugging Face BertModel, one unpadded sequence: word + position (0..T-1)
  + token type 0 embeddings, LayerNorm; per layer: multi-head self-attention
  softmax(Q K^T / sqrt(d_head)) V, output dense, residual, LayerNorm; dense,
  GELU (exact, erf), dense, residual, LayerNorm. Linear weights are [out, in]
  (y = x W^T + b). Pooling as sentence-transformers: mean of every token state
  (mask all ones) or the [CLS] state, then L2 normalised.
Computed in float64 from the float32 weights; the Rust side runs in float32.
"""
import json, math, os, struct, unicodedata
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'crates', 'embed', 'tests', 'tiny_bert')
CFG = {
    'architectures': ['BertModel'], 'model_type': 'bert',
    'vocab_size': None,  # filled in below
    'hidden_size': 16, 'num_hidden_layers': 2, 'num_attention_heads': 2,
    'intermediate_size': 32, 'max_position_embeddings': 32, 'type_vocab_size': 2,
    'layer_norm_eps': 1e-12, 'hidden_act': 'gelu',
    'hidden_dropout_prob': 0.0, 'attention_probs_dropout_prob': 0.0,
}
CRATE_TOKEN_BUDGET = 128  # toolsearch_embed::DEFAULT_MAX_TOKENS

VOCAB = (
    ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']
    + list(".,!?-'()/:&#$@")
    + ['the', 'a', 'for', 'in', 'of', 'to', 'and', 'get', 'set', 'weather', 'forecast',
       'city', 'cafe', 'naive', 'zur', 'search', 'find', 'file', 'open', 'read', 'write',
       'repo', 'commit', 'push', 'pull', 'request', 'un', 'play', 'tool', 'e', 'mail',
       '天', '气', '5', '00']
    + ['##s', '##ing', '##ed', '##er', '##ich', '##want', '##wanted', '##able', '##ly',
       '##e', '##a', '##x', '##cast']
)

TEXTS = [
    # plain lowercase words
    'get the weather forecast for a city',
    # case, accents (composed and combining), CJK, a symbol that stays inside its word
    'Café WEATHER in Zürich, NAÏVE naïve 天气 weather\u2122',
    # punctuation and other whitespace
    "search files: open/read (repo)\t--\ncommit & push! e-mail @user #tag $5.00",
    # words split into ## pieces, greedy longest match (un ##wanted, not un ##want ##ed)
    'unwanted searching players readable forecasts',
    # unknown words: no piece at all, an unmatchable tail, over 100 characters
    'xylophone unwantedq ' + 'a' * 101 + ' tools',
    # longer than 32 ids: truncated to [CLS] + 30 pieces + [SEP], inside a word
    'get the weather forecast for a city and find a file to read, then write the file, '
    'commit, push and pull the request for the repo unwanted forecasts playing',
    # nothing but the specials
    '',
]


# ---- tokenizer ---------------------------------------------------------------

def is_whitespace(c):
    return c in ' \t\n\r' or unicodedata.category(c) == 'Zs'

def is_control(c):
    if c in '\t\n\r':
        return False
    return unicodedata.category(c) in ('Cc', 'Cf')

def is_punctuation(c):
    cp = ord(c)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(c).startswith('P')

def is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)

def basic_tokenize(text):
    clean = []
    for c in text:
        if ord(c) == 0 or ord(c) == 0xFFFD or is_control(c):
            continue
        clean.append(' ' if is_whitespace(c) else c)
    spaced = ''.join(' %s ' % c if is_cjk(ord(c)) else c for c in clean)
    words = []
    for tok in spaced.strip().split():
        tok = tok.lower()
        tok = ''.join(c for c in unicodedata.normalize('NFD', tok) if unicodedata.category(c) != 'Mn')
        cur = ''
        for c in tok:
            if is_punctuation(c):
                if cur:
                    words.append(cur)
                words.append(c)
                cur = ''
            else:
                cur += c
        if cur:
            words.append(cur)
    return words

def wordpiece(word, ids):
    if len(word) > 100:
        return ['[UNK]']
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            sub = word[start:end] if start == 0 else '##' + word[start:end]
            if sub in ids:
                break
            end -= 1
        if end == start:
            return ['[UNK]']
        pieces.append(sub)
        start = end
    return pieces

def encode(text, ids, max_len):
    pieces = [p for w in basic_tokenize(text) for p in wordpiece(w, ids)]
    pieces = ['[CLS]'] + pieces[:max_len - 2] + ['[SEP]']
    return pieces, [ids[p] for p in pieces]


# ---- encoder -----------------------------------------------------------------

def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b

_erf = np.vectorize(math.erf)

def gelu(x):
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))

def dense(x, W, name):
    return x @ W[name + '.weight'].T + W[name + '.bias']

def hidden_states(ids, W, cfg):
    T, H, NH = len(ids), cfg['hidden_size'], cfg['num_attention_heads']
    dh = H // NH
    x = (W['embeddings.word_embeddings.weight'][ids]
         + W['embeddings.position_embeddings.weight'][np.arange(T)]
         + W['embeddings.token_type_embeddings.weight'][np.zeros(T, dtype=int)])
    eps = cfg['layer_norm_eps']
    x = layer_norm(x, W['embeddings.LayerNorm.weight'], W['embeddings.LayerNorm.bias'], eps)
    for l in range(cfg['num_hidden_layers']):
        p = 'encoder.layer.%d.' % l
        heads = lambda m: m.reshape(T, NH, dh).transpose(1, 0, 2)  # (NH, T, dh)
        q = heads(dense(x, W, p + 'attention.self.query'))
        k = heads(dense(x, W, p + 'attention.self.key'))
        v = heads(dense(x, W, p + 'attention.self.value'))
        s = q @ k.transpose(0, 2, 1) / math.sqrt(dh)
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        ctx = (s @ v).transpose(1, 0, 2).reshape(T, H)
        x = layer_norm(dense(ctx, W, p + 'attention.output.dense') + x,
                       W[p + 'attention.output.LayerNorm.weight'],
                       W[p + 'attention.output.LayerNorm.bias'], eps)
        mid = gelu(dense(x, W, p + 'intermediate.dense'))
        x = layer_norm(dense(mid, W, p + 'output.dense') + x,
                       W[p + 'output.LayerNorm.weight'], W[p + 'output.LayerNorm.bias'], eps)
    return x

def unit(v):
    return v / np.linalg.norm(v)


# ---- weights and files -------------------------------------------------------

def make_weights(cfg, rng):
    H, I, V = cfg['hidden_size'], cfg['intermediate_size'], cfg['vocab_size']
    shapes = {
        'embeddings.word_embeddings.weight': (V, H),
        'embeddings.position_embeddings.weight': (cfg['max_position_embeddings'], H),
        'embeddings.token_type_embeddings.weight': (cfg['type_vocab_size'], H),
        'embeddings.LayerNorm.weight': (H,), 'embeddings.LayerNorm.bias': (H,),
    }
    for l in range(cfg['num_hidden_layers']):
        p = 'encoder.layer.%d.' % l
        for part in ('query', 'key', 'value'):
            shapes[p + 'attention.self.%s.weight' % part] = (H, H)
            shapes[p + 'attention.self.%s.bias' % part] = (H,)
        shapes[p + 'attention.output.dense.weight'] = (H, H)
        shapes[p + 'attention.output.dense.bias'] = (H,)
        shapes[p + 'attention.output.LayerNorm.weight'] = (H,)
        shapes[p + 'attention.output.LayerNorm.bias'] = (H,)
        shapes[p + 'intermediate.dense.weight'] = (I, H)
        shapes[p + 'intermediate.dense.bias'] = (I,)
        shapes[p + 'output.dense.weight'] = (H, I)
        shapes[p + 'output.dense.bias'] = (H,)
        shapes[p + 'output.LayerNorm.weight'] = (H,)
        shapes[p + 'output.LayerNorm.bias'] = (H,)
    W = {}
    for name in sorted(shapes):
        shape = shapes[name]
        if name.endswith('LayerNorm.weight'):
            a = 1.0 + 0.2 * rng.standard_normal(shape)
        elif name.endswith('.bias'):
            a = 0.1 * rng.standard_normal(shape)
        elif 'attention.self' in name:
            a = 0.4 * rng.standard_normal(shape)  # sharper attention than 0.2 would give
        else:
            a = 0.2 * rng.standard_normal(shape)
        W[name] = a.astype('<f4')
    return W

def write_safetensors(path, W):
    header, offset, blobs = {'__metadata__': {'format': 'pt'}}, 0, []
    for name in sorted(W):
        b = W[name].astype('<f4').tobytes()
        header[name] = {'dtype': 'F32', 'shape': list(W[name].shape),
                        'data_offsets': [offset, offset + len(b)]}
        offset += len(b)
        blobs.append(b)
    h = json.dumps(header, separators=(',', ':')).encode()
    h += b' ' * (-len(h) % 8)  # the format pads the header with spaces to 8 bytes
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(h)) + h + b''.join(blobs))

def main():
    rng = np.random.default_rng(7)
    cfg = dict(CFG, vocab_size=len(VOCAB))
    assert len(set(VOCAB)) == len(VOCAB)
    ids = {t: i for i, t in enumerate(VOCAB)}
    W = make_weights(cfg, rng)
    W64 = {k: v.astype(np.float64) for k, v in W.items()}
    max_len = min(CRATE_TOKEN_BUDGET, cfg['max_position_embeddings'])

    os.makedirs(os.path.join(OUT, '1_Pooling'), exist_ok=True)
    with open(os.path.join(OUT, 'config.json'), 'w') as f:
        json.dump(cfg, f, indent=2); f.write('\n')
    with open(os.path.join(OUT, 'vocab.txt'), 'w', encoding='utf-8') as f:
        f.write(''.join(t + '\n' for t in VOCAB))
    with open(os.path.join(OUT, '1_Pooling', 'config.json'), 'w') as f:
        json.dump({'word_embedding_dimension': cfg['hidden_size'],
                   'pooling_mode_cls_token': False, 'pooling_mode_mean_tokens': True,
                   'pooling_mode_max_tokens': False,
                   'pooling_mode_mean_sqrt_len_tokens': False}, f, indent=2)
        f.write('\n')
    write_safetensors(os.path.join(OUT, 'model.safetensors'), W)

    golden = []
    for text in TEXTS:
        pieces, tok = encode(text, ids, max_len)
        hs = hidden_states(tok, W64, cfg)
        mean, cls = unit(hs.mean(0)), unit(hs[0])
        golden.append({'text': text, 'pieces': pieces, 'tokens': tok,
                       'embedding': [float('%.9g' % x) for x in mean],
                       'embedding_cls': [float('%.9g' % x) for x in cls]})
        full = 2 + sum(len(wordpiece(w, ids)) for w in basic_tokenize(text))
        print('%2d ids%s  %r' % (len(tok), ' (of %d)' % full if full > len(tok) else '', text[:60]))
        print('     ', ' '.join(pieces))
    with open(os.path.join(OUT, 'golden.json'), 'w', encoding='utf-8') as f:
        f.write('[\n' + ',\n'.join(json.dumps(g, ensure_ascii=False) for g in golden) + '\n]\n')

    embs = np.array([g['embedding'] for g in golden])
    cos = embs @ embs.T
    print('vocab %d, hidden %d, %d layers, %d heads, max %d ids; %d weights'
          % (len(VOCAB), cfg['hidden_size'], cfg['num_hidden_layers'],
             cfg['num_attention_heads'], max_len, sum(w.size for w in W.values())))
    print('cosines between the texts\' vectors: min %.3f, max off-diagonal %.3f'
          % (cos.min(), (cos - 2 * np.eye(len(golden))).max()))
    for root, _, files in os.walk(OUT):
        for name in sorted(files):
            p = os.path.join(root, name)
            print('%7d  %s' % (os.path.getsize(p), os.path.relpath(p, os.path.join(OUT, '..', '..', '..', '..'))))

if __name__ == '__main__':
    main()
