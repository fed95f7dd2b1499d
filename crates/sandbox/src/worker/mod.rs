//! The worker process's side: the job loop (`child.rs`), the forking template
//! isolate on Linux (`zygote.rs`), the bridge proxied over the pipe (`proxy.rs`)
//! and the OS layer each job process runs under (`harden.rs`).

pub(crate) mod child;
#[cfg(target_os = "linux")]
pub(crate) mod harden;
pub(crate) mod proxy;
#[cfg(target_os = "linux")]
pub(crate) mod zygote;
