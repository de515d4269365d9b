//! The synchronous backend: each [`Req`] runs as its system call when it
//! is pushed and its result waits in a queue for the next reap. The
//! fallback when io_uring is missing, off (`IOLAB_NO_IO_URING=1`) or not
//! built yet; with `qd` > 1 the slots still take turns on one thread.
//!
//! Opens go through `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`, so
//! no component of a path (not only the last, as `O_NOFOLLOW` gives) may
//! be a symbolic link and nothing outside the anchor directory can be
//! reached; on a kernel without openat2 (before 5.6) it falls back to
//! `openat` with `O_NOFOLLOW`.

use super::backend::{Backend, Req};
use iolab_spec::Op;
use std::collections::VecDeque;

/// Plain system calls, one at a time.
pub struct SyncBackend {
    done: VecDeque<(u32, i32)>,
    openat2: bool,
}

impl SyncBackend {
    /// A backend for up to `qd` requests in flight.
    pub fn new(qd: u32) -> SyncBackend {
        SyncBackend {
            done: VecDeque::with_capacity(qd as usize * 2 + 4),
            openat2: true,
        }
    }
}

fn ret(r: libc::c_long) -> i32 {
    if r < 0 {
        -std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO)
    } else {
        r as i32
    }
}

/// `struct open_how` of openat2(2).
#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}
const RESOLVE_NO_SYMLINKS: u64 = 0x04;
const RESOLVE_BENEATH: u64 = 0x08;

impl SyncBackend {
    fn open(&mut self, dir: i32, path: *const libc::c_char, flags: i32, mode: u32) -> i32 {
        let flags = flags | libc::O_CLOEXEC | libc::O_NOFOLLOW;
        if self.openat2 {
            let how = OpenHow {
                flags: flags as u32 as u64,
                mode: if flags & libc::O_CREAT != 0 {
                    mode as u64
                } else {
                    0
                },
                resolve: RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS,
            };
            // SAFETY: path is a C string the slot owns; how lives here.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_openat2,
                    dir,
                    path,
                    &how as *const OpenHow,
                    std::mem::size_of::<OpenHow>(),
                )
            };
            let r = ret(r);
            if r != -libc::ENOSYS {
                return r;
            }
            self.openat2 = false;
        }
        // SAFETY: as above; O_NOFOLLOW guards the last component.
        ret(unsafe { libc::openat(dir, path, flags, mode) } as libc::c_long)
    }

    /// Runs `req` and returns what the system call returned (or -errno).
    fn run(&mut self, req: Req) -> i32 {
        // SAFETY (every call below): the pointers in `req` point into
        // memory the pushing slot owns until this returns.
        unsafe {
            match req {
                Req::Open {
                    dir,
                    path,
                    flags,
                    mode,
                } => self.open(dir, path, flags, mode),
                Req::Close { fd } => ret(libc::close(fd) as _),
                Req::Read { fd, buf, len, off } => {
                    ret(libc::pread(fd, buf as *mut _, len as usize, off as i64) as _)
                }
                Req::Write { fd, buf, len, off } => {
                    ret(libc::pwrite(fd, buf as *const _, len as usize, off as i64) as _)
                }
                Req::Fsync { fd, datasync } if datasync => ret(libc::fdatasync(fd) as _),
                Req::Fsync { fd, .. } => ret(libc::fsync(fd) as _),
                Req::Statx {
                    dir,
                    path,
                    flags,
                    out,
                } => ret(libc::statx(dir, path, flags, libc::STATX_BASIC_STATS, out) as _),
                Req::Unlink { dir, path, rmdir } => {
                    let f = if rmdir { libc::AT_REMOVEDIR } else { 0 };
                    ret(libc::unlinkat(dir, path, f) as _)
                }
                Req::Mkdir { dir, path, mode } => ret(libc::mkdirat(dir, path, mode) as _),
                Req::Rename { dir, from, to } => ret(libc::renameat(dir, from, dir, to) as _),
                Req::Getdents { fd, buf, len } => {
                    ret(libc::syscall(libc::SYS_getdents64, fd, buf, len as usize))
                }
                Req::Setattr { fd, mode } => match libc::fchmod(fd, mode) {
                    0 => ret(libc::futimens(fd, std::ptr::null()) as _),
                    _ => ret(-1),
                },
                Req::Access { dir, path, mode } => {
                    ret(libc::faccessat(dir, path, mode, libc::AT_SYMLINK_NOFOLLOW) as _)
                }
            }
        }
    }
}

impl Backend for SyncBackend {
    #[inline]
    fn push(&mut self, tag: u32, req: Req) {
        let r = self.run(req);
        self.done.push_back((tag, r));
    }

    #[inline]
    fn reap(&mut self, _min: u32, done: &mut impl FnMut(u32, i32)) -> u32 {
        let n = self.done.len() as u32;
        while let Some((tag, r)) = self.done.pop_front() {
            done(tag, r);
        }
        n
    }

    fn in_flight(&self) -> u32 {
        self.done.len() as u32
    }

    fn sync_ops(&self) -> &[Op] {
        &Op::ALL
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;
    use std::os::unix::io::AsRawFd;

    #[test]
    fn opens_refuse_a_symlink_anywhere_on_the_path() {
        let d = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("f"), b"secret").unwrap();
        std::os::unix::fs::symlink(outside.path(), d.path().join("link")).unwrap();
        let dir = std::fs::File::open(d.path()).unwrap();
        let mut b = SyncBackend::new(1);
        let p = CString::new("link/f").unwrap();
        let req = Req::Open {
            dir: dir.as_raw_fd(),
            path: p.as_ptr(),
            flags: libc::O_RDONLY,
            mode: 0,
        };
        b.push(7, req);
        let mut got = Vec::new();
        assert_eq!(b.reap(1, &mut |t, r| got.push((t, r))), 1);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, 7);
        assert!(
            got[0].1 == -libc::ELOOP || got[0].1 == -libc::EXDEV,
            "{got:?}"
        );
        assert_eq!(b.in_flight(), 0);
    }
}
