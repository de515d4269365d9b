//! A thread's cache of leaf-directory descriptors, so metadata operations
//! never resolve a multi-component path.
//!
//! `unlinkat`, `renameat`, `mkdirat`, `statx` and `faccessat` have no
//! `RESOLVE_*` flags: given `d1/d0/f17` relative to the anchor, they
//! follow `d1` or `d0` if someone swapped one for a symbolic link, and
//! would delete or rename a file outside the anchor. So the executor
//! issues them relative to a descriptor of the file's leaf directory
//! with the single name component (`f17`, `f17.d`), and that descriptor
//! is opened with `openat2(anchor, "d1/d0", O_PATH | O_DIRECTORY,
//! RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`: a symbolic link anywhere on
//! the way fails the operation (ELOOP, or ENOTDIR/EXDEV), counted like
//! any error.
//!
//! The cache is direct-mapped on (fileset, leaf), bounded (at most 1024
//! entries, and fewer when `RLIMIT_NOFILE` is short for the workload's
//! threads), each entry closed when it is replaced and at the end. An
//! entry counts the requests in flight that use its descriptor: one in
//! use is never closed (the kernel may not have resolved the path yet);
//! a lookup that lands on it opens a private descriptor instead, closed
//! when the operation ends. A descriptor keeps naming the directory it
//! was opened on: an operation through it that finds its file gone
//! (ENOENT: the directory may have been replaced) drops the entry, so the
//! next lookup resolves the path again.

use super::syscall::open_beneath;

/// No entry (the anchor itself, or nothing acquired).
pub(super) const NO_ENT: u32 = u32::MAX;
/// A private descriptor, closed when released.
pub(super) const PRIVATE: u32 = u32::MAX - 1;
const EMPTY: u64 = u64::MAX;
/// Most entries per thread.
const MAX_ENTRIES: usize = 1024;

/// Leaf-directory descriptors of one thread.
pub(super) struct DirCache {
    keys: Box<[u64]>,
    fds: Box<[i32]>,
    users: Box<[u32]>,
    mask: u64,
}

impl DirCache {
    /// A cache for `leaves` leaf directories (of all the filesets) used
    /// by one of `threads` threads.
    pub fn new(leaves: u64, threads: u32) -> DirCache {
        let n = entries(leaves, threads, nofile());
        DirCache {
            keys: vec![EMPTY; n].into(),
            fds: vec![-1; n].into(),
            users: vec![0; n].into(),
            mask: n.saturating_sub(1) as u64,
        }
    }

    /// The key of leaf `leaf` of fileset `set`.
    #[inline(always)]
    pub fn key(set: u32, leaf: u64) -> u64 {
        (set as u64) << 48 | leaf & ((1 << 48) - 1)
    }

    /// A descriptor of the directory `path[..cut]` (relative to `anchor`,
    /// the leaf of `key`) for one request: `(entry, fd)` to hand back to
    /// [`DirCache::release`], or `-errno` when it cannot be opened safely.
    /// `path[cut]` is the `/` before the name; it is put back as it was.
    #[inline]
    pub fn acquire(&mut self, key: u64, anchor: i32, path: &mut [u8], cut: usize) -> (u32, i32) {
        if self.keys.is_empty() {
            return (PRIVATE, open_dir(anchor, path, cut));
        }
        let i = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32 & self.mask) as usize;
        if self.keys[i] == key {
            self.users[i] += 1;
            return (i as u32, self.fds[i]);
        }
        if self.users[i] > 0 {
            return (PRIVATE, open_dir(anchor, path, cut));
        }
        self.miss(i, key, anchor, path, cut)
    }

    /// Entry `i` (unused) takes leaf `key`: the old descriptor closes, the
    /// new one opens.
    #[cold]
    fn miss(&mut self, i: usize, key: u64, anchor: i32, path: &mut [u8], cut: usize) -> (u32, i32) {
        close(self.fds[i]);
        self.keys[i] = EMPTY;
        let fd = open_dir(anchor, path, cut);
        self.fds[i] = fd.max(-1);
        if fd < 0 {
            return (NO_ENT, fd);
        }
        self.keys[i] = key;
        self.users[i] = 1;
        (i as u32, fd)
    }

    /// `f(dir, name)` for the NUL-terminated `path` (relative to
    /// `anchor`, in leaf `key`): `dir` its leaf directory, `name` its last
    /// component; `Err(errno)` when the leaf cannot be reached safely. For
    /// the set-up and the clean-up, one call at a time.
    pub fn with_leaf<R>(
        &mut self,
        key: u64,
        anchor: i32,
        path: &mut [u8],
        f: impl FnOnce(i32, *const libc::c_char) -> R,
    ) -> Result<R, i32> {
        let Some(cut) = path.iter().rposition(|&b| b == b'/') else {
            return Ok(f(anchor, path.as_ptr().cast()));
        };
        let (ent, fd) = self.acquire(key, anchor, path, cut);
        if fd < 0 {
            return Err(-fd);
        }
        let r = f(fd, path[cut + 1..].as_ptr().cast());
        self.release(ent, fd, false);
        Ok(r)
    }

    /// A request that used `(ent, fd)` from [`DirCache::acquire`] is over;
    /// `stale`: it found its file gone, the entry must resolve again.
    #[inline]
    pub fn release(&mut self, ent: u32, fd: i32, stale: bool) {
        match ent {
            NO_ENT => {}
            PRIVATE => close(fd),
            i => {
                let i = i as usize;
                self.users[i] -= 1;
                if stale {
                    self.keys[i] = EMPTY;
                }
            }
        }
    }
}

impl Drop for DirCache {
    fn drop(&mut self) {
        for &fd in self.fds.iter() {
            close(fd);
        }
    }
}

/// Entries for `leaves` directories and one of `threads` threads under a
/// descriptor limit of `nofile`: a power of two, at most [`MAX_ENTRIES`],
/// no more than the leaves, and all threads' caches together within a
/// quarter of the limit (0: every lookup opens a private descriptor).
fn entries(leaves: u64, threads: u32, nofile: u64) -> usize {
    let budget = (nofile / 4 / threads.max(1) as u64).min(MAX_ENTRIES as u64);
    let want = leaves.next_power_of_two().min(MAX_ENTRIES as u64);
    let n = want.min(budget);
    if n == 0 {
        return 0;
    }
    // The largest power of two not above n.
    1 << (63 - n.leading_zeros())
}

/// The process's soft limit of open descriptors.
fn nofile() -> u64 {
    // SAFETY: getrlimit fills the struct it is given.
    let mut r: libc::rlimit = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) } != 0 {
        return 1024;
    }
    r.rlim_cur.min(1 << 20)
}

/// `openat2(anchor, path[..cut], O_PATH | O_DIRECTORY, RESOLVE_BENEATH |
/// RESOLVE_NO_SYMLINKS)` -> fd or `-errno`, `path[cut]` (a `/`) made the
/// string's end for the call.
fn open_dir(anchor: i32, path: &mut [u8], cut: usize) -> i32 {
    let saved = path[cut];
    path[cut] = 0;
    // SAFETY: path[..=cut] is NUL-terminated now.
    let fd = unsafe {
        open_beneath(
            anchor,
            path.as_ptr().cast(),
            libc::O_PATH | libc::O_DIRECTORY,
            0,
        )
    };
    path[cut] = saved;
    fd
}

fn close(fd: i32) {
    if fd >= 0 {
        // SAFETY: a descriptor this cache opened and nothing else uses.
        unsafe { libc::close(fd) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::io::AsRawFd;

    #[test]
    fn sizes_follow_leaves_threads_and_the_descriptor_limit() {
        assert_eq!(entries(3, 1, 20_000), 4);
        assert_eq!(entries(100_000, 1, 1 << 20), MAX_ENTRIES);
        assert_eq!(entries(100_000, 50, 1024), 4);
        assert_eq!(entries(100_000, 200, 1024), 1);
        assert_eq!(entries(100_000, 300, 1024), 0);
        assert_eq!(entries(1, 1, 1024), 1);
    }

    #[test]
    fn hits_share_a_descriptor_busy_entries_are_never_closed() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("d0/d1")).unwrap();
        std::fs::create_dir_all(d.path().join("d1/d1")).unwrap();
        let a = std::fs::File::open(d.path()).unwrap();
        let mut c = DirCache {
            keys: vec![EMPTY; 1].into(),
            fds: vec![-1; 1].into(),
            users: vec![0; 1].into(),
            mask: 0,
        };
        let mut p = b"d0/d1/f3\0".to_vec();
        let (e1, fd1) = c.acquire(1, a.as_raw_fd(), &mut p, 5);
        assert_eq!(p, b"d0/d1/f3\0");
        let (e2, fd2) = c.acquire(1, a.as_raw_fd(), &mut p, 5);
        assert_eq!((e1, fd1), (e2, fd2));
        assert!(fd1 >= 0);
        // Another leaf lands on the busy entry: a private descriptor.
        let mut q = b"d1/d1/f0\0".to_vec();
        let (e3, fd3) = c.acquire(2, a.as_raw_fd(), &mut q, 5);
        assert_eq!(e3, PRIVATE);
        assert!(fd3 >= 0 && fd3 != fd1);
        c.release(e3, fd3, false);
        c.release(e1, fd1, false);
        c.release(e2, fd2, true);
        // Stale: resolved again (a new descriptor, the old one closed).
        let (e4, fd4) = c.acquire(1, a.as_raw_fd(), &mut p, 5);
        assert_eq!(e4, 0);
        assert!(fd4 >= 0);
        c.release(e4, fd4, false);
    }

    #[test]
    fn a_symlink_on_the_way_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let out = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("d0")).unwrap();
        std::os::unix::fs::symlink(out.path(), d.path().join("d0/d1")).unwrap();
        let a = std::fs::File::open(d.path()).unwrap();
        let mut c = DirCache::new(4, 1);
        let mut p = b"d0/d1/f3\0".to_vec();
        let (e, fd) = c.acquire(7, a.as_raw_fd(), &mut p, 5);
        assert_eq!(e, NO_ENT);
        // ENOTDIR: O_PATH|O_NOFOLLOW takes the last link itself, which is
        // no directory; ELOOP/EXDEV from the resolve flags elsewhere.
        assert!(
            [libc::ELOOP, libc::EXDEV, libc::ENOTDIR].contains(&-fd),
            "{fd}"
        );
        let mut p2 = b"d0/d1/x/f3\0".to_vec();
        std::fs::create_dir(out.path().join("x")).unwrap();
        let fd2 = c.acquire(8, a.as_raw_fd(), &mut p2, 7).1;
        assert!(fd2 == -libc::ELOOP || fd2 == -libc::EXDEV, "{fd2}");
        // Nothing cached: the same lookup fails again.
        assert!(c.acquire(7, a.as_raw_fd(), &mut p, 5).1 < 0);
    }
}
