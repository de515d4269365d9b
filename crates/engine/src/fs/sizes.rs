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

fn open(dir: i32, flags: i32) -> std::io::Result<std::fs::File> {
    let flags = flags | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    // SAFETY: a C string relative to the anchor's open descriptor.
    let fd = unsafe { libc::openat(dir, NAME.as_ptr(), flags, 0o644) };
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
        if let Some(buf) = read_record(set.dir_fd(), n) {
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

/// The record in anchor `dir` when it is a regular file of exactly
/// `files * 8` bytes (its size checked before anything is read, so a
/// stray or hostile file costs no memory; O_NONBLOCK so a FIFO there
/// does not hang the run); `None` otherwise.
fn read_record(dir: i32, files: u64) -> Option<Vec<u8>> {
    let mut f = open(dir, libc::O_RDONLY | libc::O_NONBLOCK).ok()?;
    let meta = f.metadata().ok()?;
    if !meta.is_file() || Some(meta.len()) != files.checked_mul(8) {
        return None;
    }
    let mut buf = vec![0; meta.len() as usize];
    f.read_exact(&mut buf).ok()?;
    Some(buf)
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
    open(set.dir_fd(), libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC)?.write_all(&buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    /// The record is read only when it has exactly the expected length,
    /// checked before reading: a longer one (here sparse, 1 TiB) or a
    /// FIFO (which would block an open without O_NONBLOCK) gives `None`
    /// at once, without memory or waiting.
    #[test]
    fn record_length_is_checked_before_reading() {
        let t = tempfile::tempdir().unwrap();
        let dir = std::fs::File::open(t.path()).unwrap();
        let p = t.path().join(".iolab-sizes");
        std::fs::write(&p, 7u64.to_le_bytes().repeat(3)).unwrap();
        assert_eq!(read_record(dir.as_raw_fd(), 3).unwrap().len(), 24);
        assert_eq!(read_record(dir.as_raw_fd(), 2), None);
        std::fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_len(1 << 40)
            .unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let fd = dir.as_raw_fd();
        std::thread::spawn(move || tx.send(read_record(fd, 3)).unwrap());
        let got = rx.recv_timeout(std::time::Duration::from_secs(5));
        assert_eq!(got, Ok(None), "a 1 TiB record is refused by its size");
        std::fs::remove_file(&p).unwrap();
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(read_record(fd, 3)).unwrap());
        let got = rx.recv_timeout(std::time::Duration::from_secs(5));
        assert_eq!(got, Ok(None), "a FIFO is no record and does not block");
    }
}
