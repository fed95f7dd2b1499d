//! Unpacking the files under one folder of a wheel (a zip archive). Only what
//! wheels use: stored and deflated entries, no zip64. It reads only a wheel
//! whose SHA-256 was already checked against the pinned one, and still refuses
//! any entry name that would leave the destination.

use std::path::{Component, Path};

use anyhow::{bail, Context, Result};

const EOCD: u32 = 0x0605_4b50;
const CENTRAL: u32 = 0x0201_4b50;
const LOCAL: u32 = 0x0403_4b50;

fn u16_at(b: &[u8], at: usize) -> Result<usize> {
    let s = b.get(at..at + 2).context("the wheel is truncated")?;
    Ok(u16::from_le_bytes([s[0], s[1]]) as usize)
}

fn u32_at(b: &[u8], at: usize) -> Result<usize> {
    let s = b.get(at..at + 4).context("the wheel is truncated")?;
    Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]) as usize)
}

/// Writes every file of `wheel` under `prefix` into `dest` (created), named
/// without the prefix; returns how many.
pub fn unpack(wheel: &Path, prefix: &str, dest: &Path) -> Result<usize> {
    let bytes = std::fs::read(wheel).with_context(|| format!("reading {}", wheel.display()))?;
    let from = bytes.len().saturating_sub(22 + 65_535);
    let end = (from..bytes.len().saturating_sub(21))
        .rev()
        .find(|&i| u32_at(&bytes, i).is_ok_and(|s| s == EOCD as usize))
        .context("not a zip archive (no end of central directory)")?;
    let entries = u16_at(&bytes, end + 10)?;
    let mut at = u32_at(&bytes, end + 16)?;
    let mut written = 0;
    for _ in 0..entries {
        if u32_at(&bytes, at)? != CENTRAL as usize {
            bail!("the wheel's central directory is damaged");
        }
        let method = u16_at(&bytes, at + 10)?;
        let packed = u32_at(&bytes, at + 20)?;
        let size = u32_at(&bytes, at + 24)?;
        let (name_len, extra, comment) = (
            u16_at(&bytes, at + 28)?,
            u16_at(&bytes, at + 30)?,
            u16_at(&bytes, at + 32)?,
        );
        let local = u32_at(&bytes, at + 42)?;
        let name = bytes
            .get(at + 46..at + 46 + name_len)
            .context("the wheel is truncated")?;
        let name = std::str::from_utf8(name).context("an entry name is not UTF-8")?;
        at += 46 + name_len + extra + comment;
        let Some(rel) = name.strip_prefix(prefix) else {
            continue;
        };
        if rel.is_empty() || rel.ends_with('/') {
            continue;
        }
        let rel = Path::new(rel);
        if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
            bail!("the wheel holds an entry named `{name}`, outside its folder");
        }
        if u32_at(&bytes, local)? != LOCAL as usize {
            bail!("the wheel's entry `{name}` is damaged");
        }
        let data = local + 30 + u16_at(&bytes, local + 26)? + u16_at(&bytes, local + 28)?;
        let data = bytes
            .get(data..data + packed)
            .context("the wheel is truncated")?;
        let content = match method {
            0 => data.to_vec(),
            8 => miniz_oxide::inflate::decompress_to_vec_with_limit(data, size)
                .map_err(|e| anyhow::anyhow!("`{name}` does not inflate: {e:?}"))?,
            m => bail!("`{name}` uses zip method {m}, which wheels do not"),
        };
        let out = dest.join(rel);
        if let Some(dir) = out.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&out, content).with_context(|| format!("writing {}", out.display()))?;
        written += 1;
    }
    if written == 0 {
        bail!("the wheel holds nothing under `{prefix}`");
    }
    Ok(written)
}
