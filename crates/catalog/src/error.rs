//! The catalog crate's error type.

/// Everything that can go wrong building, loading or querying a catalog.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// Two tools share an id; ids must be unique.
    #[error("duplicate tool id `{id}`: every tool needs a unique `source:server:name` id")]
    DuplicateId {
        /// The repeated id.
        id: String,
    },
    /// A record could not become a tool.
    #[error("{location}: {message}")]
    InvalidTool {
        /// `line N` or `tool NAME` or `definition N`.
        location: String,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// The input is not JSON Lines nor a JSON tool list.
    #[error("{0}")]
    Format(String),
    /// Reading a catalog file failed.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// More queries in one call than allowed.
    #[error("too many queries: {given} given, at most {max} per call")]
    TooManyQueries {
        /// Queries given.
        given: usize,
        /// The maximum.
        max: usize,
    },
}
