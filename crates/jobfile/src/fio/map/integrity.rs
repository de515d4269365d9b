//! fio's data-integrity options beside `verify`: `verify_pattern` and
//! `buffer_pattern` (iolab's `data = pattern:...`), `verify_interval`,
//! `verify_write_sequence`, `fill_device` (iolab's `fill`) and `atomic`
//! (iolab's `atomic`, RWF_ATOMIC).

use super::job::{Dirs, Keys};
use super::{Job, Notes};
use crate::resolve::JobError;

/// A fio pattern (`0x...` bytes in the order written, a quoted string, or
/// a decimal number stored little-endian in as few bytes as it needs, as
/// fio's lib/pattern.c does) as iolab's `pattern:0x...`.
fn pattern(job: &Job, key: &str, v: &str) -> Result<String, JobError> {
    let v = v.trim();
    let bytes: Vec<u8> = if v.starts_with("0x") || v.starts_with("0X") {
        return iolab_spec::parse_pattern(v)
            .map(|p| format!("pattern:{}", p.to_hex()))
            .map_err(|m| job.bad(key, &m));
    } else if v.len() >= 2 && (v.starts_with('"') && v.ends_with('"'))
        || (v.starts_with('\'') && v.ends_with('\''))
    {
        v.as_bytes()[1..v.len() - 1].to_vec()
    } else if let Ok(n) = v.parse::<u32>() {
        let le = n.to_le_bytes();
        let len = (4 - n.leading_zeros() as usize / 8).max(1);
        le[..len].to_vec()
    } else if v.contains('%') {
        return Err(job.bad(
            key,
            "iolab's patterns are fixed bytes: the %o offset form is not supported (iolab's stamps, verify=crc32c, carry each block's offset)",
        ));
    } else {
        return Err(job.bad(
            key,
            "give 0x and hex digits, a quoted string or a decimal number (fio's combinations of them are not supported)",
        ));
    };
    iolab_spec::PatternBytes::new(&bytes)
        .map(|p| format!("pattern:{}", p.to_hex()))
        .map_err(|m| job.bad(key, &m))
}

/// `buffer_pattern` and `verify_pattern` set what writes carry (the
/// latter wins, as fio fills verified buffers with it); called before
/// `verify`, which treats a `verify_pattern` without `verify` as
/// fio's `verify=pattern`.
pub(crate) fn patterns(job: &Job, k: &mut Keys, notes: &mut Notes) -> Result<(), JobError> {
    for key in ["buffer_pattern", "verify_pattern"] {
        if let Some(v) = job.val(key) {
            k.s("data", pattern(job, key, v)?);
        }
    }
    if job.val("verify_pattern").is_some() {
        notes.once("verify_pattern: writes carry the pattern and every verified read is compared with it byte for byte, whoever wrote the block (fio's verify header is not written: the pattern is the check)");
    }
    Ok(())
}

/// `verify_interval`, `verify_write_sequence`, `fill_device`, `atomic`.
pub(crate) fn options(
    job: &Job,
    d: &Dirs,
    direct: bool,
    k: &mut Keys,
    notes: &mut Notes,
) -> Result<(), JobError> {
    if job.opt("verify_interval").is_some() {
        let v = job.size("verify_interval")?.unwrap_or(0);
        if v == 0 || v % 512 != 0 {
            return Err(job.bad("verify_interval", "give a multiple of 512 bytes"));
        }
        notes.once("verify_interval: iolab checks every 512-byte sector of each block read (a finding names the block, its bad sectors and the first bad byte), as fine as any verify_interval");
    }
    if job.flag("verify_write_sequence")? == Some(false) {
        notes.once("verify_write_sequence=0: iolab's stamps carry each block's generation, shared by all workers of a workload, which never have overlapping I/O in flight at once: the order of writes is always checked, and reads never race writes to the same block");
    }
    if job.flag("fill_device")? == Some(true) {
        if !d.write {
            return Err(job.bad(
                "fill_device",
                "iolab fills only with writes; give the job rw=write (fio fills the file system first, then reads)",
            ));
        }
        k.b("fill", true);
        notes.once("fill_device: writes run until the file system is full; ENOSPC ends the job as its natural end, not an error, and a new file without size is created at the file system's free space");
    }
    if job.flag("atomic")? == Some(true) {
        if !direct {
            return Err(job.bad(
                "atomic",
                "atomic writes need direct=1 (RWF_ATOMIC is for O_DIRECT writes)",
            ));
        }
        k.b("atomic", true);
        notes.once("atomic: writes carry RWF_ATOMIC; a target whose statx STATX_WRITE_ATOMIC limits do not cover the block size is refused before any I/O");
    }
    Ok(())
}
