//! The sizes iolab left its files at, kept in the anchor between runs
//! under `--verify` (`.iolab-sizes`: 8 bytes a file, little-endian,
//! `u64::MAX` for a file that did not exist), so that the next run with
//! `--verify` on the kept fileset (`format=no`) expects each file at
//! least that long and finds a file truncated between the runs.
//!
//! Every run takes the record away when it starts (a run without
//! `--verify` may change the files without keeping it up to date) and a
//! run with `--verify` writes it anew at its end. The file is opened
//! relative to the anchor's descriptor with `O_NOFOLLOW`.

use super::table::EXISTS;
use super::FsSet;
use std::ffi::CStr;
use std::io::{Read, Write};
use std::os::fd::FromRawFd;

const NAME: &CStr = c".iolab-sizes";

fn open(set: &FsSet, flags: i32) -> std::io::Result<std::fs::File> {
    let flags = flags | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    // SAFETY: a C string relative to the anchor's open descriptor.
    let fd = unsafe { libc::openat(set.dir_fd(), NAME.as_ptr(), flags, 0o644) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: just opened, ours.
    Ok(unsafe { std::fs::File::from_raw_fd(fd) })
}

/// Take the record of the last run away; with `apply`, a file that is
/// shorter now than that run left it is expected at the recorded size.
pub(super) fn take(set: &FsSet, apply: bool) {
    let n = set.table.files();
    if apply {
        let mut buf = Vec::new();
        let read = open(set, libc::O_RDONLY).and_then(|mut f| f.read_to_end(&mut buf));
        if read.is_ok() && buf.len() as u64 == n * 8 {
            for (i, b) in buf.chunks_exact(8).enumerate() {
                let left = u64::from_le_bytes(b.try_into().unwrap_or([0xff; 8]));
                let i = i as u64;
                if left != u64::MAX && set.table.bits(i) & EXISTS != 0 && left > set.table.size(i) {
                    set.table.set_size(i, left);
                }
            }
        }
    }
    // SAFETY: a C string relative to the anchor's open descriptor.
    unsafe { libc::unlinkat(set.dir_fd(), NAME.as_ptr(), 0) };
}

/// Record the sizes the files have now (at the end of a `--verify` run).
pub(super) fn save(set: &FsSet) -> std::io::Result<()> {
    let n = set.table.files();
    let mut buf = Vec::with_capacity(n as usize * 8);
    for i in 0..n {
        let v = if set.table.bits(i) & EXISTS != 0 {
            set.table.size(i)
        } else {
            u64::MAX
        };
        buf.extend_from_slice(&v.to_le_bytes());
    }
    open(set, libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC)?.write_all(&buf)
}
