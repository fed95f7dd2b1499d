//! The model's weights, memory-mapped instead of read into a 90 MB buffer: the
//! only `unsafe` of this crate besides the matrix kernel's (`gemm.rs`).

use std::fs::File;
use std::path::Path;

/// A read-only map of a whole file.
pub(crate) struct Mapped(memmap2::Mmap);

impl Mapped {
    /// Maps `path` read-only.
    ///
    /// # Errors
    /// The file cannot be opened or mapped.
    pub(crate) fn open(path: &Path) -> std::io::Result<Mapped> {
        let file = File::open(path)?;
        // SAFETY: the map is read-only and private to this process. Another
        // process truncating or rewriting the file while it is mapped would change
        // (or unmap) bytes under us; model files are written once by `fetch-model`
        // (to a temporary name, then renamed) and never modified in place, and the
        // bytes are only read to copy the weights out and hash them during `load`.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(&file)? };
        Ok(Mapped(map))
    }

    /// The file's bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.0
    }
}
