//! Building the index: tokenizing tools on two threads that meet in the middle, then
//! merging their partial indexes.

use super::*;
use crate::text;
use serde_json::Value;
use std::borrow::Cow;

/// What a schema says about its parameters, as slices of the schema's own strings (the
/// lists are reused across tools).
#[derive(Default)]
struct Params<'a> {
    names: Vec<&'a str>,
    /// Their descriptions.
    text: Vec<&'a str>,
    /// String enum values: argument values, which hint at a tool more weakly.
    values: Vec<&'a str>,
    /// Bytes of `text` collected so far, each piece counted with a separator.
    text_len: usize,
    /// Schema nodes still to visit for this tool.
    steps: usize,
}

/// Schema nodes read per tool: more than a schema within the size cap can hold, so
/// only a schema that escaped the cap would be cut short.
const MAX_PARAM_NODES: usize = 20_000;

impl<'a> Params<'a> {
    /// Refills the lists with `tool`'s parameters; their text is capped in bytes.
    fn read(&mut self, tool: &'a Tool) {
        self.names.clear();
        self.text.clear();
        self.values.clear();
        self.text_len = 0;
        self.steps = MAX_PARAM_NODES;
        collect_params(&tool.input_schema, 0, self);
        cap_text(&mut self.text);
        cap_text(&mut self.values);
    }
}

/// Keeps the first [`MAX_PARAM_TEXT`] bytes of `pieces`, each counted with a separator.
fn cap_text(pieces: &mut Vec<&str>) {
    let mut budget = MAX_PARAM_TEXT;
    for k in 0..pieces.len() {
        if pieces[k].len() + 1 > budget {
            pieces[k] = crate::tool::truncate_at_boundary(pieces[k], budget);
            pieces.truncate(k + 1);
            return;
        }
        budget -= pieces[k].len() + 1;
    }
}

/// Property names and descriptions (and string enum values) of a schema, a few levels
/// deep (`$ref`s are not followed), at most [`MAX_PARAM_NODES`] nodes.
fn collect_params<'a>(schema: &'a Value, depth: usize, p: &mut Params<'a>) {
    if depth > 3 || p.text_len > MAX_PARAM_TEXT || p.steps == 0 {
        return;
    }
    p.steps -= 1;
    let Some(obj) = schema.as_object() else {
        return;
    };
    // One pass over the keys: lookups in the schema's map would hash every key.
    for (key, value) in obj {
        match (key.as_str(), value) {
            ("properties", Value::Object(props)) => {
                for (name, prop) in props {
                    if p.steps == 0 {
                        return;
                    }
                    p.steps -= 1;
                    p.names.push(name);
                    let Some(prop_obj) = prop.as_object() else {
                        continue;
                    };
                    for (k, v) in prop_obj {
                        match (k.as_str(), v) {
                            ("description", Value::String(d)) => {
                                p.text.push(d);
                                p.text_len += d.len() + 1;
                            }
                            ("enum", Value::Array(values)) => {
                                for v in values.iter().filter_map(Value::as_str).take(16) {
                                    p.values.push(v);
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
pub(crate) const PARALLEL_FROM: usize = 2000;

/// Tools a builder claims at a time from the shared range.
const CHUNK: usize = 32;

/// The docs not yet claimed by the two builders, one taking chunks from the front and
/// one from the back: they meet wherever the work is evenly shared, however uneven the
/// tools are (one-line endpoints next to long scientific functions), with no estimate.
struct Unclaimed(std::sync::Mutex<std::ops::Range<usize>>);

impl Unclaimed {
    fn claim(&self, from_back: bool) -> Option<std::ops::Range<usize>> {
        let mut left = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if left.is_empty() {
            return None;
        }
        let n = CHUNK.min(left.len());
        Some(if from_back {
            left.end -= n;
            left.end..left.end + n
        } else {
            left.start += n;
            left.start - n..left.start
        })
    }
}

/// The index of a contiguous range of docs, with its own term and part ids.
#[derive(Default)]
struct Partial {
    /// Stem -> local term id.
    terms: FxHashMap<String, u32>,
    postings: Vec<Vec<Posting>>,
    parts: Vec<String>,
    part_docs: Vec<Vec<u32>>,
    head_part: Vec<u32>,
    field_len: Vec<[u16; FIELDS]>,
    totals: [f64; FIELDS],
}

impl Partial {
    /// Tokenizes the tools of the chunks it claims from `unclaimed`: from the front in
    /// doc order, or from the back in reverse doc order (put back in order at the end).
    fn build(tools: &[Tool], unclaimed: &Unclaimed, from_back: bool) -> Partial {
        let mut out = Partial::default();
        // Word as written -> local term id (None for stopwords), so each distinct word
        // is stemmed once. A word that is a slice of the tool's own text is keyed by
        // that slice (no copy); lower-cased or split ones are copied.
        let mut stems: FxHashMap<Cow<'_, str>, Option<u32>> = FxHashMap::default();
        // Name part -> local part id; `parts` is taken out of it at the end rather than
        // copied into it.
        let mut part_ids: FxHashMap<String, u32> = FxHashMap::default();
        // Per-doc term frequencies, dense by local term id, with the ids this doc touched
        // (cheaper than a hash map per word; reset through `touched`).
        let mut tf_of: Vec<[u8; FIELDS]> = Vec::new();
        let mut touched: Vec<u32> = Vec::new();
        let mut params = Params::default();
        let mut word_buf = String::new();
        let docs = std::iter::from_fn(|| unclaimed.claim(from_back)).flat_map(|chunk| {
            (0..chunk.len()).map(move |k| {
                if from_back {
                    chunk.end - 1 - k
                } else {
                    chunk.start + k
                }
            })
        });
        for i in docs {
            let tool = &tools[i];
            let doc = i as u32;
            params.read(tool);
            let own: [&str; 3] = [
                tool.short_name(),
                tool.server.as_deref().unwrap_or(""),
                &tool.description,
            ];
            // Each field's text, in pieces tokenized one after the other.
            let fields: [&[&str]; FIELDS] = [
                &own[0..1],
                &own[1..2],
                &own[2..3],
                &params.names,
                &params.text,
                &params.values,
            ];
            let mut lens = [0u16; FIELDS];
            let mut head = u32::MAX;
            for (f, piece) in fields
                .iter()
                .enumerate()
                .flat_map(|(f, pieces)| pieces.iter().map(move |p| (f, *p)))
            {
                text::for_each_word_with(&mut word_buf, piece, |w| {
                    if f == Field::Name as usize {
                        let pid = match part_ids.get(w) {
                            Some(&pid) => pid,
                            None => {
                                let pid = out.part_docs.len() as u32;
                                out.part_docs.push(Vec::new());
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
                                let next = out.postings.len() as u32;
                                let tid = *out.terms.entry(text::stem(w)).or_insert(next);
                                if tid == next {
                                    out.postings.push(Vec::new());
                                    tf_of.push([0; FIELDS]);
                                }
                                tid
                            });
                            let key = match slice_of(piece, w) {
                                Some(slice) => Cow::Borrowed(slice),
                                None => Cow::Owned(w.to_string()),
                            };
                            stems.insert(key, t);
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
        out.parts = by_id(part_ids);
        if from_back {
            out.head_part.reverse();
            out.field_len.reverse();
            out.postings.iter_mut().for_each(|list| list.reverse());
            out.part_docs.iter_mut().for_each(|list| list.reverse());
        }
        out
    }
}

/// `word` as a slice of `text` when it is one (the tokenizer passes words it need not
/// lower-case or split as slices of the text): found by address, not by comparing.
fn slice_of<'t>(text: &'t str, word: &str) -> Option<&'t str> {
    let start = (word.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    text.get(start..start + word.len())
        .filter(|s| s.as_ptr() == word.as_ptr())
}

/// The keys of an id map, ordered by id (ids are dense from 0).
fn by_id(ids: FxHashMap<String, u32>) -> Vec<String> {
    let mut out = vec![String::new(); ids.len()];
    for (key, id) in ids {
        out[id as usize] = key;
    }
    out
}

/// Appends `more` to `list`, moving it instead of copying when `list` is empty (the
/// first partial's part lists).
fn append<T>(list: &mut Vec<T>, mut more: Vec<T>) {
    if list.is_empty() {
        *list = more;
    } else {
        list.append(&mut more);
    }
}

/// The value of a finished scoped thread (its panic, if any, goes on unwinding here).
fn join<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|p| std::panic::resume_unwind(p))
}

impl Index {
    /// Builds the index of `tools` and runs `alongside` (work of the caller's that needs
    /// no index) on a second thread at the moment a core is free.
    pub(crate) fn build_alongside<R: Send>(
        tools: &[Tool],
        alongside: impl FnOnce() -> R + Send,
    ) -> (Index, R) {
        let unclaimed = Unclaimed(std::sync::Mutex::new(0..tools.len()));
        std::thread::scope(|scope| {
            if tools.len() < PARALLEL_FROM {
                let job = scope.spawn(alongside);
                let ix = Index::merge(vec![Partial::build(tools, &unclaimed, false)], tools.len());
                return (ix, join(job));
            }
            // Tokenizing is most of the work: large catalogs are built by two threads,
            // one from each end, then merged. Both cores are busy until then, so the
            // caller's job overlaps the merge rather than the tokenizing.
            let unclaimed = &unclaimed;
            let second = scope.spawn(move || Partial::build(tools, unclaimed, true));
            let first = Partial::build(tools, unclaimed, false);
            let second = join(second);
            let job = scope.spawn(alongside);
            let ix = Index::merge(vec![first, second], tools.len());
            (ix, join(job))
        })
    }

    /// Joins partial indexes of consecutive doc ranges: term and part ids are remapped;
    /// postings stay in doc order because each partial's docs all come after the last's.
    fn merge(partials: Vec<Partial>, n_docs: usize) -> Index {
        let mut ix = Index {
            n_docs: n_docs as u32,
            ..Default::default()
        };
        let more_terms: usize = partials.iter().skip(1).map(|p| p.terms.len()).sum();
        let mut partials = partials.into_iter();
        let Some(first) = partials.next() else {
            return ix;
        };
        // The first partial's term ids are kept as they are; later ones are remapped.
        ix.terms = first.terms;
        ix.postings = first.postings;
        ix.terms.reserve(more_terms);
        ix.postings.reserve(more_terms);
        let mut totals = [0f64; FIELDS];
        // Every partial's parts as (part, partial, local id, docs): sorted by part, equal
        // parts become adjacent (in partial order, as the sort is stable), which both
        // merges them and gives the sorted vocabulary that prefix matching needs.
        let mut parts: Vec<(String, u32, u32, Vec<u32>)> = Vec::new();
        let mut heads: Vec<Vec<u32>> = Vec::new();
        let mut part_counts: Vec<usize> = Vec::new();
        // Its terms and postings are in `ix` already; the loop takes the rest of it.
        let first = Partial {
            terms: FxHashMap::default(),
            postings: Vec::new(),
            ..first
        };
        for (which, partial) in std::iter::once(first).chain(partials).enumerate() {
            let mut postings = partial.postings;
            for (term, local) in partial.terms {
                let next = ix.terms.len() as u32;
                let tid = *ix.terms.entry(term).or_insert(next);
                let list = std::mem::take(&mut postings[local as usize]);
                if tid == next {
                    ix.postings.push(list);
                } else {
                    append(&mut ix.postings[tid as usize], list);
                }
            }
            part_counts.push(partial.parts.len());
            parts.extend(
                partial
                    .parts
                    .into_iter()
                    .zip(partial.part_docs)
                    .enumerate()
                    .map(|(local, (part, docs))| (part, which as u32, local as u32, docs)),
            );
            heads.push(partial.head_part);
            ix.field_len.extend(partial.field_len);
            for (t, p) in totals.iter_mut().zip(partial.totals) {
                *t += p;
            }
        }
        let n = f64::from(ix.n_docs.max(1));
        for (avg, total) in ix.avg_len.iter_mut().zip(totals) {
            *avg = ((total / n) as f32).max(1.0);
        }
        // Each field's BM25F weight over its length norm, per doc: a posting's saturated
        // term frequency is then a dot product, with no division per field.
        let field_weights: Vec<[f32; FIELDS]> = ix
            .field_len
            .iter()
            .map(|lens| std::array::from_fn(|f| ix.field_weight(lens, f)))
            .collect();
        for p in ix.postings.iter_mut().flatten() {
            let w = &field_weights[p.doc as usize];
            let tf: f32 = (0..FIELDS).map(|f| w[f] * f32::from(p.tf[f])).sum();
            p.sat = tf * (K1 + 1.0) / (K1 + tf);
        }

        parts.sort_by(|a, b| a.0.cmp(&b.0));
        // Final part id by partial and local id.
        let mut part_map: Vec<Vec<u32>> = part_counts.iter().map(|&n| vec![0; n]).collect();
        for (part, which, local, docs) in parts {
            if ix.parts.last() != Some(&part) {
                ix.parts.push(part);
                ix.part_docs.push(Vec::new());
            }
            let pid = ix.parts.len() - 1;
            append(&mut ix.part_docs[pid], docs);
            part_map[which as usize][local as usize] = pid as u32;
        }
        for (heads, map) in heads.into_iter().zip(&part_map) {
            ix.head_part.extend(heads.into_iter().map(|h| {
                if h == u32::MAX {
                    h
                } else {
                    map[h as usize]
                }
            }));
        }
        let mut chars: Vec<char> = Vec::new();
        for (pid, part) in ix.parts.iter().enumerate() {
            chars.clear();
            chars.extend(part.chars());
            for w in chars.windows(3) {
                let list = ix.trigrams.entry([w[0], w[1], w[2]]).or_default();
                if list.last() != Some(&(pid as u32)) {
                    list.push(pid as u32);
                }
            }
        }
        ix
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::Source;
    use serde_json::json;

    /// Tools of very uneven sizes, sharing words across the whole range.
    fn uneven_tools(n: usize) -> Vec<Tool> {
        let words = [
            "send", "Email", "weather", "getUser", "HTTP", "repo", "file", "note",
        ];
        (0..n)
            .map(|i| {
                let w = |k: usize| words[(i * 7 + k) % words.len()];
                let desc = format!("{} {} item{}. ", w(1), w(2), i % 97).repeat(1 + i % 13);
                let schema = json!({"type": "object", "properties": {
                    w(3): {"type": "string", "description": format!("the {} {}", w(4), i % 5)},
                    "mode": {"type": "string", "enum": [w(5), "other"]}
                }});
                let name = format!("{}_{}{}", w(0), w(6), i % 300);
                Tool::new(Source::Mcp, Some(w(7)), &name, &desc, schema)
            })
            .collect()
    }

    /// Everything the index holds, keyed by strings (term and part ids differ by build).
    fn contents(ix: &Index) -> impl PartialEq + std::fmt::Debug {
        let mut terms: Vec<(&String, &Vec<Posting>)> = ix
            .terms
            .iter()
            .map(|(t, &id)| (t, &ix.postings[id as usize]))
            .collect();
        terms.sort_by(|a, b| a.0.cmp(b.0));
        let heads: Vec<&str> = ix
            .head_part
            .iter()
            .map(|&h| ix.parts.get(h as usize).map_or("", String::as_str))
            .collect();
        let mut trigrams: Vec<_> = ix.trigrams.iter().collect();
        trigrams.sort();
        (
            terms
                .into_iter()
                .map(|(t, p)| (t.clone(), p.clone()))
                .collect::<Vec<_>>(),
            ix.parts.clone(),
            ix.part_docs.clone(),
            heads.into_iter().map(String::from).collect::<Vec<_>>(),
            ix.field_len.clone(),
            ix.avg_len,
            trigrams
                .into_iter()
                .map(|(k, v)| (*k, v.clone()))
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn two_threads_build_the_same_index_as_one() {
        let tools = uneven_tools(PARALLEL_FROM + 345);
        let unclaimed = Unclaimed(std::sync::Mutex::new(0..tools.len()));
        let serial = Index::merge(vec![Partial::build(&tools, &unclaimed, false)], tools.len());
        let (parallel, ()) = Index::build_alongside(&tools, || ());
        assert_eq!(parallel.n_docs, serial.n_docs);
        assert!(serial.terms.len() > 300, "{}", serial.terms.len());
        assert_eq!(contents(&parallel), contents(&serial));
    }

    #[test]
    fn builders_claim_every_doc_once_from_both_ends() {
        let unclaimed = Unclaimed(std::sync::Mutex::new(0..70));
        let front = unclaimed.claim(false).unwrap();
        let back = unclaimed.claim(true).unwrap();
        let rest = unclaimed.claim(false).unwrap();
        assert_eq!((front, back, rest), (0..32, 38..70, 32..38));
        assert_eq!(unclaimed.claim(true), None);
    }
}
