//! One [`Req`] run as a plain system call, with the result io_uring would
//! give (`fd`, bytes or 0, or `-errno`). The one synchronous execution of
//! a request, shared by the synchronous backend (`sync.rs`) and by the
//! io_uring backend for the requests it has no opcode for (`uring.rs`).
//!
//! Opens go through `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`
//! ([`open_beneath`]): no component of the path (not only the last, as
//! `O_NOFOLLOW` gives) may be a symbolic link, and nothing outside the
//! directory the path is relative to can be reached. On a kernel without
//! openat2 (before 5.6: ENOSYS, remembered for the process) it falls back
//! to [`open_walk`]: the path walked one component at a time with
//! `openat(O_PATH | O_DIRECTORY | O_NOFOLLOW)`, the last opened with
//! `O_NOFOLLOW`, so a directory swapped for a symbolic link is refused
//! there too (a plain `openat(dir, "d1/d0", O_NOFOLLOW)` would follow
//! `d1` and reach outside the anchor).

use super::backend::Req;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// What every open of the driver resolves with.
pub(crate) const RESOLVE_SAFE: u64 = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS;

/// `struct open_how` of openat2(2) (libc's is non-exhaustive: it cannot
/// be built).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct OpenHow {
    pub flags: u64,
    pub mode: u64,
    pub resolve: u64,
}

/// openat2 answered ENOSYS once: the kernel lacks it.
static NO_OPENAT2: AtomicBool = AtomicBool::new(false);

/// The `open_how` of an open with `flags` and `mode` (mode only with
/// O_CREAT: openat2 refuses one otherwise), O_CLOEXEC and O_NOFOLLOW
/// added, resolved with [`RESOLVE_SAFE`].
#[inline]
pub(crate) fn open_how(flags: i32, mode: u32) -> OpenHow {
    let flags = flags | libc::O_CLOEXEC | libc::O_NOFOLLOW;
    let mode = if flags & libc::O_CREAT != 0 { mode } else { 0 };
    OpenHow {
        flags: flags as u32 as u64,
        mode: mode as u64,
        resolve: RESOLVE_SAFE,
    }
}

/// `openat2(dir, path, how(flags, mode))` -> fd or `-errno`;
/// [`open_walk`] where the kernel has no openat2.
///
/// # Safety
/// `path` is a NUL-terminated string valid for the call.
pub(crate) unsafe fn open_beneath(
    dir: libc::c_int,
    path: *const libc::c_char,
    flags: i32,
    mode: u32,
) -> i32 {
    let how = open_how(flags, mode);
    if !NO_OPENAT2.load(Relaxed) {
        let size = std::mem::size_of::<OpenHow>();
        let r = libc::syscall(libc::SYS_openat2, dir, path, &how, size);
        let r = ret(r);
        if r != -libc::ENOSYS {
            return r;
        }
        NO_OPENAT2.store(true, Relaxed);
    }
    open_walk(dir, path, how.flags as i32, mode)
}

/// `open_beneath` without openat2: `path` (relative, no `..`) walked from
/// `dir` one component at a time, each directory opened with
/// `openat(O_PATH | O_DIRECTORY | O_NOFOLLOW)` (a symbolic link there
/// fails: ENOTDIR), the last component opened with `flags` (which carry
/// O_NOFOLLOW) and `mode`. Returns the fd or `-errno`: EXDEV for an
/// absolute path or `..` (as RESOLVE_BENEATH), ENAMETOOLONG for a
/// component over NAME_MAX, ENOENT for an empty path. No allocation: each
/// name is copied into a stack buffer.
///
/// # Safety
/// `path` is a NUL-terminated string valid for the call.
pub(crate) unsafe fn open_walk(
    dir: libc::c_int,
    path: *const libc::c_char,
    flags: i32,
    mode: u32,
) -> i32 {
    let bytes = std::ffi::CStr::from_ptr(path).to_bytes();
    if bytes.first() == Some(&b'/') {
        return -libc::EXDEV;
    }
    let mut parts = bytes.split(|&b| b == b'/').filter(|c| !c.is_empty());
    let Some(mut name) = parts.next() else {
        return -libc::ENOENT;
    };
    let mut cur = dir;
    let mut buf = [0u8; libc::NAME_MAX as usize + 1];
    let walk = libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    let r = loop {
        if name == b".." {
            break -libc::EXDEV;
        }
        if name.len() >= buf.len() {
            break -libc::ENAMETOOLONG;
        }
        buf[..name.len()].copy_from_slice(name);
        buf[name.len()] = 0;
        let next = parts.next();
        let f = if next.is_some() { walk } else { flags };
        let fd = ret(libc::openat(cur, buf.as_ptr().cast(), f, mode) as i64);
        if cur != dir {
            libc::close(cur);
        }
        match next {
            Some(n) if fd >= 0 => (cur, name) = (fd, n),
            _ => return fd,
        }
    };
    if cur != dir {
        libc::close(cur);
    }
    r
}

/// A system call's return value as io_uring gives it: the value, or
/// `-errno`.
#[inline]
fn ret(r: i64) -> i32 {
    if r < 0 {
        -errno()
    } else {
        r as i32
    }
}

/// Run `req` now; its result or `-errno`. The pointers in `req` follow
/// [`Req`]'s rule: valid, owned by the caller's slot, for the call.
pub(crate) fn syscall(req: &Req) -> i32 {
    // SAFETY: every pointer in a Req points into memory its slot owns
    // for as long as the request runs (backend.rs); the calls only read
    // or fill what the arguments describe.
    let r: i64 = unsafe {
        match *req {
            Req::Open {
                dir,
                path,
                flags,
                mode,
            } => return open_beneath(dir, path, flags, mode),
            Req::Close { fd } => libc::close(fd) as i64,
            Req::Read { fd, buf, len, off } => {
                libc::pread(fd, buf.cast(), len as usize, off as libc::off_t) as i64
            }
            Req::Write { fd, buf, len, off } => {
                libc::pwrite(fd, buf.cast(), len as usize, off as libc::off_t) as i64
            }
            Req::Fsync {
                fd,
                datasync: false,
            } => libc::fsync(fd) as i64,
            Req::Fsync { fd, datasync: true } => libc::fdatasync(fd) as i64,
            Req::Statx {
                dir,
                path,
                flags,
                out,
            } => libc::statx(dir, path, flags, libc::STATX_BASIC_STATS, out) as i64,
            Req::Unlink { dir, path, rmdir } => {
                let flags = if rmdir { libc::AT_REMOVEDIR } else { 0 };
                libc::unlinkat(dir, path, flags) as i64
            }
            Req::Mkdir { dir, path, mode } => libc::mkdirat(dir, path, mode) as i64,
            Req::Rename {
                dir,
                from,
                to_dir,
                to,
            } => libc::renameat(dir, from, to_dir, to) as i64,
            Req::Getdents { fd, buf, len } => {
                libc::syscall(libc::SYS_getdents64, fd, buf, len as libc::c_uint)
            }
            Req::Setattr { fd, mode } => setattr(fd, mode),
            Req::Access { dir, path, mode } => {
                libc::faccessat(dir, path, mode, libc::AT_SYMLINK_NOFOLLOW) as i64
            }
        }
    };
    ret(r)
}

/// vdbench's setattr: `fchmod(fd, mode)` then `futimens(fd, now)`; -1 with
/// errno set at the first that fails.
///
/// # Safety
/// Plain system calls on a descriptor; nothing is dereferenced.
unsafe fn setattr(fd: libc::c_int, mode: u32) -> i64 {
    if libc::fchmod(fd, mode as libc::mode_t) < 0 {
        return -1;
    }
    libc::futimens(fd, std::ptr::null()) as i64
}

/// The calling thread's errno.
fn errno() -> i32 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;
    use std::os::fd::AsRawFd;

    fn walk(dir: &std::fs::File, path: &str, flags: i32) -> i32 {
        let c = CString::new(path).unwrap();
        let flags = flags | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: a valid C string for the call.
        let fd = unsafe { open_walk(dir.as_raw_fd(), c.as_ptr(), flags, 0) };
        if fd >= 0 {
            // SAFETY: just opened, ours.
            unsafe { libc::close(fd) };
        }
        fd
    }

    /// The fallback without openat2 does not follow a directory of the
    /// path swapped for a symbolic link (`d1` -> a tree outside the
    /// anchor), for a directory open and a file open, and still opens
    /// the real tree.
    #[test]
    fn open_walk_refuses_swapped_directory() {
        let t = tempfile::tempdir().unwrap();
        let (anchor, out) = (t.path().join("a"), t.path().join("out"));
        for root in [&anchor, &out] {
            std::fs::create_dir_all(root.join("d1/d0")).unwrap();
            std::fs::write(root.join("d1/d0/f3"), b"x").unwrap();
        }
        let a = std::fs::File::open(&anchor).unwrap();
        assert!(walk(&a, "d1/d0", libc::O_PATH | libc::O_DIRECTORY) >= 0);
        assert!(walk(&a, "d1/d0/f3", libc::O_RDONLY) >= 0);
        std::fs::remove_dir_all(anchor.join("d1")).unwrap();
        std::os::unix::fs::symlink(out.join("d1"), anchor.join("d1")).unwrap();
        assert!(walk(&a, "d1/d0", libc::O_PATH | libc::O_DIRECTORY) < 0);
        assert!(walk(&a, "d1/d0/f3", libc::O_RDONLY) < 0);
        assert!(walk(&a, "d1", libc::O_RDONLY) < 0, "last component");
        assert_eq!(walk(&a, "../out/d1", libc::O_PATH), -libc::EXDEV);
        assert_eq!(walk(&a, "/tmp", libc::O_PATH), -libc::EXDEV);
    }
}
