//! The inverted index behind search: BM25F postings per field, plus a vocabulary of
//! name parts (with a trigram index) for the exact-part, prefix and infix tiers.

use crate::text;
use crate::tool::Tool;
use rustc_hash::FxHashMap;
use serde_json::Value;

/// Indexed fields, in decreasing order of weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(dead_code)] // all variants name positions in the per-field arrays
pub(crate) enum Field {
    Name = 0,
    Server = 1,
    Description = 2,
    ParamName = 3,
    ParamText = 4,
    ParamValue = 5,
}

pub(crate) const FIELDS: usize = 6;
/// How much a term occurrence in each field counts: name parts first; server and
/// description next; parameter names and descriptions last but not negligible, since
/// many real tools (RapidAPI-style endpoints) say what they do only there.
pub(crate) const FIELD_WEIGHT: [f32; FIELDS] = [3.0, 1.5, 1.5, 1.0, 1.0, 0.5];
/// BM25 length normalisation per field; short fields (names) barely normalise.
const FIELD_B: [f32; FIELDS] = [0.3, 0.3, 0.75, 0.5, 0.75, 0.75];
/// Term-frequency saturation: tool text is short, so a repeated word adds little.
pub(crate) const K1: f32 = 0.8;
/// Parameter text beyond this many bytes per tool is not indexed (keeps huge schemas cheap).
const MAX_PARAM_TEXT: usize = 4096;

#[derive(Debug, Clone, Copy)]
pub(crate) struct Posting {
    pub doc: u32,
    pub tf: [u8; FIELDS],
    /// The BM25F term-frequency component, computed once at build time: it depends
    /// only on the tool and the term, so queries only multiply it by the IDF.
    pub sat: f32,
}

#[derive(Debug, Default)]
pub(crate) struct Index {
    pub n_docs: u32,
    /// Stemmed term -> term id.
    pub terms: FxHashMap<String, u32>,
    /// Postings per term id, sorted by doc.
    pub postings: Vec<Vec<Posting>>,
    pub field_len: Vec<[u16; FIELDS]>,
    pub avg_len: [f32; FIELDS],
    /// Distinct lower-case name parts (unstemmed), sorted, and the docs having each.
    pub parts: Vec<String>,
    pub part_docs: Vec<Vec<u32>>,
    /// Each tool's last name word (the head noun of `verb_object` names), as a part id.
    pub head_part: Vec<u32>,
    /// Three-char window -> indexes into `parts` containing it (for infix matches).
    pub trigrams: FxHashMap<[char; 3], Vec<u32>>,
}

/// Parameter names and parameter text of a tool (the other fields are borrowed).
fn param_texts(tool: &Tool) -> [String; 3] {
    let mut p = Params::default();
    collect_params(&tool.input_schema, 0, &mut p);
    for text in [&mut p.text, &mut p.values] {
        let cut = crate::tool::truncate_at_boundary(text, MAX_PARAM_TEXT).len();
        text.truncate(cut);
    }
    [p.names, p.text, p.values]
}

/// What a schema says about its parameters.
#[derive(Default)]
struct Params {
    /// Their names, space-separated.
    names: String,
    /// Their descriptions.
    text: String,
    /// String enum values: argument values, which hint at a tool more weakly.
    values: String,
}

/// Property names and descriptions (and string enum values) of a schema, a few levels deep.
fn collect_params(schema: &Value, depth: usize, p: &mut Params) {
    if depth > 3 || p.text.len() > MAX_PARAM_TEXT {
        return;
    }
    let Some(obj) = schema.as_object() else {
        return;
    };
    // One pass over the keys: lookups in the schema's map would hash every key.
    for (key, value) in obj {
        match (key.as_str(), value) {
            ("properties", Value::Object(props)) => {
                for (name, prop) in props {
                    if !p.names.is_empty() {
                        p.names.push(' ');
                    }
                    p.names.push_str(name);
                    let Some(prop_obj) = prop.as_object() else {
                        continue;
                    };
                    for (k, v) in prop_obj {
                        match (k.as_str(), v) {
                            ("description", Value::String(d)) => {
                                p.text.push_str(d);
                                p.text.push(' ');
                            }
                            ("enum", Value::Array(values)) => {
                                for v in values.iter().filter_map(Value::as_str).take(16) {
                                    p.values.push_str(v);
                                    p.values.push(' ');
                                }
                            }
                            _ => {}
                        }
                    }
                    collect_params(prop, depth + 1, p);
                }
            }
            ("items", items) => collect_params(items, depth + 1, p),
            ("anyOf" | "oneOf" | "allOf", Value::Array(variants)) => {
                for v in variants.iter().take(8) {
                    collect_params(v, depth + 1, p);
                }
            }
            _ => {}
        }
    }
}

/// Catalogs at least this large build their index on two threads.
const PARALLEL_FROM: usize = 2000;

/// Where to cut `tools` so both halves hold about as much text (tools vary a lot:
/// one-line endpoints next to long scientific functions).
fn balanced_split(tools: &[Tool]) -> usize {
    let weight = |t: &Tool| {
        let params = t
            .input_schema
            .get("properties")
            .and_then(Value::as_object)
            .map_or(0, |p| p.len());
        t.description.len() + t.name.len() + 96 * params
    };
    let total: usize = tools.iter().map(weight).sum();
    let mut acc = 0;
    for (i, t) in tools.iter().enumerate() {
        acc += weight(t);
        if acc * 2 >= total {
            return (i + 1).clamp(1, tools.len() - 1);
        }
    }
    tools.len() / 2
}

/// The index of a contiguous range of tools, with its own term and part ids.
#[derive(Default)]
struct Partial {
    /// Stems by local term id.
    terms: Vec<String>,
    postings: Vec<Vec<Posting>>,
    parts: Vec<String>,
    part_docs: Vec<Vec<u32>>,
    head_part: Vec<u32>,
    field_len: Vec<[u16; FIELDS]>,
    totals: [f64; FIELDS],
}

impl Partial {
    /// Tokenizes `tools`, whose first one is doc `offset`.
    fn build(tools: &[Tool], offset: u32) -> Partial {
        let mut out = Partial::default();
        // Word as written -> local term id (None for stopwords): each distinct word is
        // stemmed once; stem -> local term id.
        let mut stems: FxHashMap<String, Option<u32>> = FxHashMap::default();
        let mut term_ids: FxHashMap<String, u32> = FxHashMap::default();
        let mut part_ids: FxHashMap<String, u32> = FxHashMap::default();
        // Per-doc term frequencies, dense by local term id, with the ids this doc touched
        // (cheaper than a hash map per word; reset through `touched`).
        let mut tf_of: Vec<[u8; FIELDS]> = Vec::new();
        let mut touched: Vec<u32> = Vec::new();
        for (i, tool) in tools.iter().enumerate() {
            let doc = offset + i as u32;
            let [param_names, param_text, param_values] = param_texts(tool);
            let texts: [&str; FIELDS] = [
                tool.short_name(),
                tool.server.as_deref().unwrap_or(""),
                &tool.description,
                &param_names,
                &param_text,
                &param_values,
            ];
            let mut lens = [0u16; FIELDS];
            let mut head = u32::MAX;
            for (f, text) in texts.iter().enumerate() {
                text::for_each_word(text, |w| {
                    if f == Field::Name as usize {
                        let pid = match part_ids.get(w) {
                            Some(&pid) => pid,
                            None => {
                                out.parts.push(w.to_string());
                                out.part_docs.push(Vec::new());
                                let pid = (out.parts.len() - 1) as u32;
                                part_ids.insert(w.to_string(), pid);
                                pid
                            }
                        };
                        let docs = &mut out.part_docs[pid as usize];
                        if docs.last() != Some(&doc) {
                            docs.push(doc);
                        }
                        head = pid;
                    }
                    let tid = match stems.get(w) {
                        Some(&t) => t,
                        None => {
                            let t = (!text::is_stopword(w)).then(|| {
                                let stem = text::stem(w);
                                let next = out.terms.len() as u32;
                                let tid = *term_ids.entry(stem.clone()).or_insert(next);
                                if tid == next {
                                    out.terms.push(stem);
                                    out.postings.push(Vec::new());
                                    tf_of.push([0; FIELDS]);
                                }
                                tid
                            });
                            stems.insert(w.to_string(), t);
                            t
                        }
                    };
                    let Some(tid) = tid else { return };
                    let tf = &mut tf_of[tid as usize];
                    if *tf == [0; FIELDS] {
                        touched.push(tid);
                    }
                    tf[f] = tf[f].saturating_add(1);
                    lens[f] = lens[f].saturating_add(1);
                });
            }
            for (total, len) in out.totals.iter_mut().zip(lens) {
                *total += f64::from(len);
            }
            out.field_len.push(lens);
            out.head_part.push(head);
            for tid in touched.drain(..) {
                let tf = std::mem::take(&mut tf_of[tid as usize]);
                out.postings[tid as usize].push(Posting { doc, tf, sat: 0.0 });
            }
        }
        out
    }
}

/// Appends `more` to `list`, moving it instead of copying when `list` is empty (every
/// list of the first half, and the second half's new terms).
fn append<T>(list: &mut Vec<T>, mut more: Vec<T>) {
    if list.is_empty() {
        *list = more;
    } else {
        list.append(&mut more);
    }
}

impl Index {
    pub(crate) fn build(tools: &[Tool]) -> Index {
        // Tokenizing is most of the work: large catalogs are split in two halves built
        // side by side, then merged (term and part ids are remapped; postings stay in
        // doc order because the second half's docs all come after the first's).
        let partials: Vec<Partial> = if tools.len() >= PARALLEL_FROM {
            let mid = balanced_split(tools);
            std::thread::scope(|scope| {
                let second = scope.spawn(|| Partial::build(&tools[mid..], mid as u32));
                let first = Partial::build(&tools[..mid], 0);
                vec![
                    first,
                    second
                        .join()
                        .unwrap_or_else(|p| std::panic::resume_unwind(p)),
                ]
            })
        } else {
            vec![Partial::build(tools, 0)]
        };
        let mut ix = Index {
            n_docs: tools.len() as u32,
            ..Default::default()
        };
        let mut totals = [0f64; FIELDS];
        let mut part_ids: FxHashMap<String, u32> = FxHashMap::default();
        let mut parts: Vec<String> = Vec::new();
        let mut part_docs: Vec<Vec<u32>> = Vec::new();
        for partial in partials {
            let term_map: Vec<u32> = partial
                .terms
                .into_iter()
                .map(|term| {
                    let next = ix.terms.len() as u32;
                    let tid = *ix.terms.entry(term).or_insert(next);
                    if tid == next {
                        ix.postings.push(Vec::new());
                    }
                    tid
                })
                .collect();
            for (local, list) in partial.postings.into_iter().enumerate() {
                append(&mut ix.postings[term_map[local] as usize], list);
            }
            let part_map: Vec<u32> = partial
                .parts
                .into_iter()
                .zip(partial.part_docs)
                .map(|(part, docs)| {
                    let pid = match part_ids.get(&part) {
                        Some(&pid) => pid,
                        None => {
                            parts.push(part.clone());
                            part_docs.push(Vec::new());
                            let pid = (parts.len() - 1) as u32;
                            part_ids.insert(part, pid);
                            pid
                        }
                    };
                    append(&mut part_docs[pid as usize], docs);
                    pid
                })
                .collect();
            ix.head_part.extend(partial.head_part.into_iter().map(|h| {
                if h == u32::MAX {
                    h
                } else {
                    part_map[h as usize]
                }
            }));
            ix.field_len.extend(partial.field_len);
            for (t, p) in totals.iter_mut().zip(partial.totals) {
                *t += p;
            }
        }
        let n = f64::from(ix.n_docs.max(1));
        for (avg, total) in ix.avg_len.iter_mut().zip(totals) {
            *avg = ((total / n) as f32).max(1.0);
        }
        let mut postings = std::mem::take(&mut ix.postings);
        for p in postings.iter_mut().flatten() {
            p.sat = ix.compute_saturated_tf(p);
        }
        ix.postings = postings;
        // Sort the part vocabulary so prefix matches are one binary-searched range.
        let mut order: Vec<u32> = (0..parts.len() as u32).collect();
        order.sort_by(|a, b| parts[*a as usize].cmp(&parts[*b as usize]));
        let mut new_id = vec![0u32; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_id[old as usize] = new as u32;
        }
        for h in ix.head_part.iter_mut().filter(|h| **h != u32::MAX) {
            *h = new_id[*h as usize];
        }
        ix.parts = order
            .iter()
            .map(|&i| std::mem::take(&mut parts[i as usize]))
            .collect();
        ix.part_docs = order
            .iter()
            .map(|&i| std::mem::take(&mut part_docs[i as usize]))
            .collect();
        for (pid, part) in ix.parts.iter().enumerate() {
            let chars: Vec<char> = part.chars().collect();
            for w in chars.windows(3) {
                let list = ix.trigrams.entry([w[0], w[1], w[2]]).or_default();
                if list.last() != Some(&(pid as u32)) {
                    list.push(pid as u32);
                }
            }
        }
        ix
    }

    /// Inverse document frequency; never negative, even for a word in every tool.
    pub(crate) fn idf(&self, df: usize) -> f32 {
        let n = self.n_docs as f32;
        let df = df as f32;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// The BM25F term-frequency component for one posting, in `[0, K1 + 1)`.
    pub(crate) fn saturated_tf(&self, p: &Posting) -> f32 {
        p.sat
    }

    fn compute_saturated_tf(&self, p: &Posting) -> f32 {
        let lens = &self.field_len[p.doc as usize];
        let mut tf = 0.0;
        for f in 0..FIELDS {
            if p.tf[f] > 0 {
                let norm = 1.0 - FIELD_B[f] + FIELD_B[f] * f32::from(lens[f]) / self.avg_len[f];
                tf += FIELD_WEIGHT[f] * f32::from(p.tf[f]) / norm;
            }
        }
        tf * (K1 + 1.0) / (K1 + tf)
    }

    /// Weighted term frequency of each field, for `--explain`.
    pub(crate) fn field_shares(&self, p: &Posting) -> [f32; FIELDS] {
        let lens = &self.field_len[p.doc as usize];
        let mut out = [0.0; FIELDS];
        for f in 0..FIELDS {
            if p.tf[f] > 0 {
                let norm = 1.0 - FIELD_B[f] + FIELD_B[f] * f32::from(lens[f]) / self.avg_len[f];
                out[f] = FIELD_WEIGHT[f] * f32::from(p.tf[f]) / norm;
            }
        }
        out
    }

    pub(crate) fn posting(&self, tid: u32, doc: u32) -> Option<&Posting> {
        let list = &self.postings[tid as usize];
        list.binary_search_by_key(&doc, |p| p.doc)
            .ok()
            .map(|i| &list[i])
    }

    /// Indexes into `parts` that start with `word` (the word itself included when present).
    pub(crate) fn parts_with_prefix(&self, word: &str) -> std::ops::Range<usize> {
        let start = self.parts.partition_point(|p| p.as_str() < word);
        let end = start + self.parts[start..].partition_point(|p| p.starts_with(word));
        start..end
    }

    /// Indexes into `parts` containing `word` somewhere after their first character.
    pub(crate) fn parts_with_infix(&self, word: &str) -> Vec<u32> {
        let chars: Vec<char> = word.chars().collect();
        if chars.len() < 3 {
            return Vec::new();
        }
        let mut best: Option<&Vec<u32>> = None;
        for w in chars.windows(3) {
            match self.trigrams.get(&[w[0], w[1], w[2]]) {
                None => return Vec::new(),
                Some(list) if best.is_none_or(|b| list.len() < b.len()) => best = Some(list),
                Some(_) => {}
            }
        }
        best.map(|list| {
            list.iter()
                .copied()
                .filter(|&pid| {
                    let p = &self.parts[pid as usize];
                    p.find(word).is_some_and(|at| at > 0)
                })
                .collect()
        })
        .unwrap_or_default()
    }
}
