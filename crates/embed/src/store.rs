//! The vectors already computed, by text: one file per model in the cache directory
//! (`<model>.store`), a record per text (a 16-byte hash of the token budget and the
//! text, then its vector). A catalog change embeds only the texts it has not seen;
//! the file keeps the texts of the newest request first, then older ones, up to
//! [`MAX_STORE_BYTES`], so it stays bounded however often the catalog changes. A
//! directory that cannot be written is said once, and the vectors of the last
//! request are kept in memory instead.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use sha2::{Digest, Sha256};

use crate::{EmbedError, Embedder};

const MAGIC: &[u8; 8] = b"TSEMB02\n";

/// Most bytes a store file takes (64 MiB: about 43,000 vectors of 384 floats; a
/// build reads it whole, so this also bounds its transient memory).
pub const MAX_STORE_BYTES: usize = 64 << 20;

/// Texts embedded per step between two checks of the caller's cancellation.
const STEP: usize = 256;

/// What one request of vectors cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EmbedStats {
    /// Texts asked for.
    pub texts: usize,
    /// Of them, embedded now (the rest came from the store).
    pub embedded: usize,
}

type Key = [u8; 16];

fn key(embedder: &Embedder, text: &str) -> Key {
    let mut h = Sha256::new();
    h.update((embedder.max_tokens() as u64).to_le_bytes());
    h.update(text.as_bytes());
    let d = h.finalize();
    let mut k = [0u8; 16];
    k.copy_from_slice(&d[..16]);
    k
}

/// The last request's vectors, when the directory could not be written: what the
/// process asks for next (a catalog change) embeds only what is new all the same.
static MEMORY: Mutex<Option<Remembered>> = Mutex::new(None);

/// A model's id and the vectors of its last request, by text.
type Remembered = (String, HashMap<Key, Vec<f32>>);
static WARNED: AtomicBool = AtomicBool::new(false);
static TMP: AtomicUsize = AtomicUsize::new(0);

/// The vectors of `texts` (text `i` at `i * dim..`), from the store where they are
/// and embedded otherwise, `cancel` checked between steps.
///
/// # Errors
/// [`EmbedError::Cancelled`] when `cancel` said so.
pub fn vectors(
    embedder: &Embedder,
    texts: &[String],
    cache: Option<&Path>,
    cancel: &dyn Fn() -> bool,
    max_bytes: usize,
) -> Result<(Vec<f32>, EmbedStats), EmbedError> {
    let dim = embedder.dim();
    let model = embedder.model_id().to_string();
    let keys: Vec<Key> = texts.iter().map(|t| key(embedder, t)).collect();
    let file = cache.map(|dir| dir.join(format!("{model}.store")));
    let mut known: HashMap<Key, Vec<f32>> = HashMap::new();
    let mut order: Vec<Key> = Vec::new();
    if let Some((m, mem)) = MEMORY.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
        if *m == model {
            known.extend(mem.iter().map(|(k, v)| (*k, v.clone())));
        }
    }
    if let Some(f) = &file {
        for (k, v) in read(f, dim) {
            order.push(k);
            known.entry(k).or_insert(v);
        }
    }
    let mut missing: Vec<usize> = Vec::new();
    let mut seen: std::collections::HashSet<Key> = Default::default();
    for (i, k) in keys.iter().enumerate() {
        if !known.contains_key(k) && seen.insert(*k) {
            missing.push(i);
        }
    }
    for step in missing.chunks(STEP) {
        if cancel() {
            return Err(EmbedError::Cancelled);
        }
        let batch: Vec<String> = step.iter().map(|&i| texts[i].clone()).collect();
        for (&i, v) in step.iter().zip(embedder.embed_many(&batch)) {
            known.insert(keys[i], v);
        }
    }
    let mut flat = Vec::with_capacity(texts.len() * dim);
    for k in &keys {
        flat.extend_from_slice(&known[k]);
    }
    let stats = EmbedStats {
        texts: texts.len(),
        embedded: missing.len(),
    };
    // This request's texts first, then the older ones, within the bound.
    let mut kept: Vec<Key> = Vec::new();
    let mut in_kept: std::collections::HashSet<Key> = Default::default();
    let per = 16 + dim * 4;
    for k in keys.iter().chain(order.iter()) {
        if 16 + (kept.len() + 1) * per > max_bytes {
            break;
        }
        if in_kept.insert(*k) {
            kept.push(*k);
        }
    }
    if let Some(f) = file.as_ref().filter(|_| !missing.is_empty()) {
        match write(f, dim, &kept, &known) {
            Ok(()) => remove_legacy(f, &model),
            Err(e) => {
                if !WARNED.swap(true, Ordering::Relaxed) {
                    tracing::warn!(error = %e, "the embedding cache cannot be written; vectors are kept in memory");
                }
                let mem: HashMap<Key, Vec<f32>> =
                    keys.iter().map(|k| (*k, known[k].clone())).collect();
                *MEMORY.lock().unwrap_or_else(|p| p.into_inner()) = Some((model, mem));
            }
        }
    }
    Ok((flat, stats))
}

/// The records of a store file (none when it is absent, of another dimension or
/// damaged: it is rewritten).
fn read(path: &Path, dim: usize) -> Vec<(Key, Vec<f32>)> {
    let Ok(bytes) = std::fs::read(path) else {
        return Vec::new();
    };
    let Some(body) = bytes.strip_prefix(MAGIC) else {
        return Vec::new();
    };
    let Some((head, data)) = body.split_at_checked(8) else {
        return Vec::new();
    };
    let word = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().expect("4 bytes")) as usize;
    let (d, n) = (word(0), word(4));
    let per = 16 + dim * 4;
    if d != dim || data.len() != n * per {
        return Vec::new();
    }
    data.chunks_exact(per)
        .map(|r| {
            let mut k = [0u8; 16];
            k.copy_from_slice(&r[..16]);
            let v = r[16..]
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
                .collect();
            (k, v)
        })
        .collect()
}

/// Writes `keys`' records to a temporary file and renames it: a reader never sees
/// half a store.
fn write(
    path: &Path,
    dim: usize,
    keys: &[Key],
    vectors: &HashMap<Key, Vec<f32>>,
) -> Result<(), EmbedError> {
    let io = |path: PathBuf| move |source| EmbedError::Io { path, source };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io(dir.to_path_buf()))?;
    }
    let tmp = path.with_extension(format!(
        "tmp{}-{}",
        std::process::id(),
        TMP.fetch_add(1, Ordering::Relaxed)
    ));
    let mut buf = Vec::with_capacity(16 + keys.len() * (16 + dim * 4));
    buf.extend_from_slice(MAGIC);
    buf.extend_from_slice(&(dim as u32).to_le_bytes());
    buf.extend_from_slice(&(keys.len() as u32).to_le_bytes());
    for k in keys {
        buf.extend_from_slice(k);
        for x in &vectors[k] {
            buf.extend_from_slice(&x.to_le_bytes());
        }
    }
    let written = std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(&buf))
        .map_err(io(tmp.clone()))
        .and_then(|()| std::fs::rename(&tmp, path).map_err(io(path.to_path_buf())));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Removes the files of the cache's earlier layout (one file per whole catalog,
/// `<model>-<hash>.vec`, never deleted): the store holds their vectors from now on.
fn remove_legacy(store: &Path, model: &str) {
    let Some(dir) = store.parent() else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!("{model}-");
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(&prefix) && name.ends_with(".vec") {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_damaged_or_foreign_store_reads_as_empty() {
        let dir = std::env::temp_dir().join(format!("ts-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("m.store");
        let mut vecs = HashMap::new();
        vecs.insert([1u8; 16], vec![1.0, 2.0]);
        vecs.insert([2u8; 16], vec![3.0, -4.0]);
        write(&f, 2, &[[2u8; 16], [1u8; 16]], &vecs).unwrap();
        let back = read(&f, 2);
        assert_eq!(back.len(), 2);
        assert_eq!(back[0], ([2u8; 16], vec![3.0, -4.0]));
        assert!(read(&f, 3).is_empty(), "other dimension");
        let bytes = std::fs::read(&f).unwrap();
        std::fs::write(&f, &bytes[..bytes.len() - 1]).unwrap();
        assert!(read(&f, 2).is_empty(), "truncated");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
