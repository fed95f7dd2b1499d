//! The one rule for every file the gateway trusts: its configuration, client
//! token files, lazy servers' manifests and their key, TLS certificates and
//! keys, and CA files. Each is read through [`read_trusted`], which refuses a
//! file another user could have written, with the reason:
//!
//! - It is a regular file once every symlink is followed; anything else (a
//!   FIFO, a device, a directory) is refused before it is opened, and it is
//!   opened non-blocking and checked again, so a file swapped for a FIFO
//!   between the check and the open cannot make a read wait.
//! - It is owned by the gateway's (effective) user or by root, as OpenSSH
//!   decides for `authorized_keys`, and neither its group nor others may
//!   write it. A secret (`Trust::Secret`: token files and the manifests'
//!   key) may not be read by them either; a TLS key may (Kubernetes mounts a
//!   TLS Secret 0644 by default).
//! - The directory holding it, and the one holding each symlink on the way
//!   to it, is owned by that user or root and not writable by group or
//!   others, unless it has the sticky bit (`/tmp`, a Kubernetes volume's
//!   root): there no one else can rename or remove what is ours.
//!
//! Symlinks are judged by where they live and where they lead, not by their
//! own mode (which no system uses): Kubernetes mounts a Secret or ConfigMap
//! as root-owned files behind root-owned `..data` symlinks, and those pass.
//! Reads are bounded by the caller's cap.

use std::io::Read;
use std::path::{Path, PathBuf};

/// What a file holds, for the rule on who may read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    /// Others may read it (a configuration, a certificate, a manifest).
    Shared,
    /// Only its owner may read it (token files, private keys).
    Secret,
}

/// How many symlinks are followed on the way to a file.
const MAX_LINKS: usize = 40;

/// The file at `path`, at most `cap` bytes, when the rule above trusts it;
/// else why not, in a sentence that says what to change.
pub fn read_trusted(path: &Path, cap: u64, trust: Trust) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err(
            "it is not a regular file (a FIFO, a device or a directory is never opened)".into(),
        );
    }
    #[cfg(unix)]
    judge(path, &meta, trust)?;
    let file = open_nonblocking(path).map_err(|e| e.to_string())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let now = file.metadata().map_err(|e| e.to_string())?;
        if !now.is_file() || now.dev() != meta.dev() || now.ino() != meta.ino() {
            return Err("it was replaced while it was opened; try again".into());
        }
    }
    let mut bytes = Vec::new();
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > cap {
        return Err(format!("it is larger than {cap} bytes"));
    }
    Ok(bytes)
}

/// Up to `n` bytes of the regular file at `path` (empty when it is not one or
/// cannot be read), opened without waiting: for a watcher's stamp, not for
/// trusting what it says.
pub fn read_prefix(path: &Path, n: u64) -> Vec<u8> {
    let mut bytes = Vec::new();
    if let Ok(f) = open_nonblocking(path) {
        if f.metadata().is_ok_and(|m| m.is_file()) {
            let _ = f.take(n).read_to_end(&mut bytes);
        }
    }
    bytes
}

/// Opens `path` for reading without waiting on a FIFO's writer.
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut o, nix::libc::O_NONBLOCK);
    o.open(path)
}

#[cfg(unix)]
fn judge(path: &Path, meta: &std::fs::Metadata, trust: Trust) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let me = nix::unistd::geteuid().as_raw();
    owned(meta.uid(), me, "it")?;
    let mode = meta.mode();
    if mode & 0o022 != 0 {
        return Err(format!(
            "it is writable by its group or by others (mode {:o}): `chmod go-w` it",
            mode & 0o7777
        ));
    }
    if trust == Trust::Secret && mode & 0o044 != 0 {
        return Err(format!(
            "it is readable by its group or by others (mode {:o}): `chmod 600` it",
            mode & 0o7777
        ));
    }
    for dir in holders(path)? {
        let d = std::fs::metadata(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let what = format!("its directory {}", dir.display());
        owned(d.uid(), me, &what)?;
        let sticky = d.mode() & 0o1000 != 0;
        if d.mode() & 0o022 != 0 && !sticky {
            return Err(format!(
                "{what} is writable by its group or by others (mode {:o}): `chmod go-w` it",
                d.mode() & 0o7777
            ));
        }
    }
    Ok(())
}

#[cfg(unix)]
fn owned(uid: u32, me: u32, what: &str) -> Result<(), String> {
    if uid == me || uid == 0 {
        Ok(())
    } else {
        Err(format!(
            "{what} is owned by uid {uid}, neither the gateway's user (uid {me}) nor root"
        ))
    }
}

/// The directories that hold `path` and each symlink on the way to the file
/// it names (each directory once).
#[cfg(unix)]
fn holders(path: &Path) -> Result<Vec<PathBuf>, String> {
    use std::os::unix::fs::MetadataExt;
    let mut at = std::path::absolute(path).map_err(|e| e.to_string())?;
    let mut dirs: Vec<PathBuf> = Vec::new();
    // A symlink among the directories on the way (`/etc/app/current/...`)
    // is judged by the directory holding it, as the file's own are.
    for dir in at.ancestors().skip(1) {
        if std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
            if let Some(holder) = dir.parent() {
                let holder = holder
                    .canonicalize()
                    .unwrap_or_else(|_| holder.to_path_buf());
                if !dirs.contains(&holder) {
                    dirs.push(holder);
                }
            }
        }
    }
    let me = nix::unistd::geteuid().as_raw();
    for _ in 0..MAX_LINKS {
        let parent = at
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("/"));
        // The directory as it really is (its own path may pass through links).
        let parent = parent.canonicalize().unwrap_or(parent);
        if !dirs.contains(&parent) {
            dirs.push(parent.clone());
        }
        let here = parent.join(at.file_name().unwrap_or_default());
        match std::fs::read_link(&here) {
            Ok(next) => {
                // In a directory anyone may write (sticky: only owners
                // rename), a link is trusted only when it is ours or root's.
                let open = std::fs::metadata(&parent).is_ok_and(|d| d.mode() & 0o002 != 0);
                let owner = std::fs::symlink_metadata(&here).map_or(u32::MAX, |m| m.uid());
                if open && owner != me && owner != 0 {
                    return Err(format!(
                        "the symlink {} is owned by uid {owner}, in a directory anyone may write",
                        here.display()
                    ));
                }
                at = parent.join(next);
            }
            Err(_) => return Ok(dirs),
        }
    }
    Err(format!("more than {MAX_LINKS} symlinks lead to it"))
}

/// Creates `dir` (and its parents) readable by its owner only (0700).
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(dir)
}

/// [`create_private_dir`], and one that was there already made private too
/// (0700) when it is the gateway user's: a login's folder.
pub fn ensure_private_dir(dir: &Path) -> std::io::Result<()> {
    create_private_dir(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let meta = std::fs::metadata(dir)?;
        if meta.mode() & 0o077 != 0 && meta.uid() == nix::unistd::geteuid().as_raw() {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
        }
    }
    Ok(())
}

/// Puts `bytes` at `path` atomically: written to a new temporary file
/// beside it (`.<stem>.<pid>-<n>.tmp`, 0600), synced, then renamed over it;
/// the temporary file is removed when anything fails.
///
/// # Errors
/// The temporary file cannot be made, written or renamed.
pub fn replace_private(path: &Path, stem: &str, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    static TMP: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = path.parent().unwrap_or(Path::new("."));
    let n = TMP.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{stem}.{}-{n}.tmp", std::process::id()));
    let result = (|| {
        let mut f = open_private(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Creates `path`, which must not exist, readable by its owner only (0600).
pub fn open_private(path: &Path) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ts-trust-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
        d
    }

    fn chmod(p: &Path, mode: u32) {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn a_file_others_could_write_is_refused_with_the_reason() {
        let d = dir("modes");
        let f = d.join("config.toml");
        std::fs::write(&f, "x = 1").unwrap();
        chmod(&f, 0o644);
        assert_eq!(read_trusted(&f, 100, Trust::Shared).unwrap(), b"x = 1");
        let e = read_trusted(&f, 100, Trust::Secret).unwrap_err();
        assert!(e.contains("readable by its group"), "{e}");
        chmod(&f, 0o666);
        let e = read_trusted(&f, 100, Trust::Shared).unwrap_err();
        assert!(
            e.contains("writable by its group") && e.contains("666"),
            "{e}"
        );
        chmod(&f, 0o600);
        chmod(&d, 0o777);
        let e = read_trusted(&f, 100, Trust::Shared).unwrap_err();
        assert!(e.contains("its directory") && e.contains("777"), "{e}");
        // A sticky directory (as /tmp) keeps what is ours ours.
        chmod(&d, 0o1777);
        assert!(read_trusted(&f, 100, Trust::Secret).is_ok());
        chmod(&d, 0o755);
        // Another user's file (only root can make one here).
        if nix::unistd::geteuid().is_root() {
            nix::unistd::chown(&f, Some(nix::unistd::Uid::from_raw(12345)), None).unwrap();
            let e = read_trusted(&f, 100, Trust::Shared).unwrap_err();
            assert!(e.contains("owned by uid 12345"), "{e}");
        }
        // Past the cap.
        std::fs::remove_file(&f).unwrap();
        std::fs::write(&f, "0123456789").unwrap();
        chmod(&f, 0o600);
        assert!(read_trusted(&f, 9, Trust::Shared)
            .unwrap_err()
            .contains("larger than 9"));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_fifo_is_refused_without_being_opened() {
        let d = dir("fifo");
        let f = d.join("tokens");
        nix::unistd::mkfifo(&f, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let e = read_trusted(&f, 100, Trust::Secret).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        // Opened non-blocking, even a FIFO that passed the check cannot wait.
        assert!(open_nonblocking(&f).is_ok());
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn kubernetes_style_symlinks_pass_and_a_link_in_an_open_directory_does_not() {
        // volume/token -> ..data/token, ..data -> ..2026_11_29/ (all ours, 0755).
        let d = dir("k8s");
        let real = d.join("..2026_11_29");
        std::fs::create_dir(&real).unwrap();
        chmod(&real, 0o755);
        std::fs::write(real.join("token"), "t").unwrap();
        chmod(&real.join("token"), 0o400);
        std::os::unix::fs::symlink("..2026_11_29", d.join("..data")).unwrap();
        std::os::unix::fs::symlink("..data/token", d.join("token")).unwrap();
        assert_eq!(
            read_trusted(&d.join("token"), 10, Trust::Secret).unwrap(),
            b"t"
        );
        // The same link, made in a directory anyone may write: refused.
        let open = dir("open");
        chmod(&open, 0o777);
        std::os::unix::fs::symlink(d.join("token"), open.join("token")).unwrap();
        let e = read_trusted(&open.join("token"), 10, Trust::Secret).unwrap_err();
        assert!(e.contains("its directory") && e.contains("777"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
        let _ = std::fs::remove_dir_all(&open);
    }
}
