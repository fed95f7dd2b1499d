//! What the `toolsearch` binary and the lab (`toolsearch-lab`: eval, bench) share:
//! catalog loading and JSON output ([`common`]), and loading the embedding model
//! ([`semantic`]).

pub mod common;
pub mod semantic;

/// Version of every JSON document the binaries print; bump on breaking changes.
pub const SCHEMA_VERSION: u32 = 3;
