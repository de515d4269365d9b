//! How the file-system driver's executor issues system calls: it pushes
//! [`Req`]s tagged with the slot that wants them and reaps completions.
//! Two backends implement [`Backend`]: io_uring (`uring.rs`: several
//! operations in flight per thread, metadata included) and plain system
//! calls (`sync.rs`: each request runs when pushed; the fallback when
//! io_uring is missing, off, or lacks an opcode).
//!
//! Every pointer in a request points into memory its slot owns and does
//! not move or free until the request's completion has been reaped. The
//! result handed back is what the system call returns (`fd`, bytes, 0)
//! or `-errno`, exactly as io_uring reports it.

use iolab_spec::Op;
use libc::c_char;
use std::os::unix::io::RawFd;

/// One system-level operation.
#[derive(Clone, Copy, Debug)]
pub enum Req {
    /// `openat2(dir, path, {flags | O_NOFOLLOW | O_CLOEXEC, mode,
    /// RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS})` -> fd (on a kernel
    /// without openat2, `openat` with O_NOFOLLOW one component at a time).
    Open {
        dir: RawFd,
        path: *const c_char,
        flags: i32,
        mode: u32,
    },
    Close {
        fd: RawFd,
    },
    /// `pread(fd, buf, len, off)` -> bytes.
    Read {
        fd: RawFd,
        buf: *mut u8,
        len: u32,
        off: u64,
    },
    /// `pwrite(fd, buf, len, off)` -> bytes.
    Write {
        fd: RawFd,
        buf: *const u8,
        len: u32,
        off: u64,
    },
    /// `fsync`, or `fdatasync` when `datasync`.
    Fsync {
        fd: RawFd,
        datasync: bool,
    },
    /// `statx(dir, path, flags, STATX_BASIC_STATS, out)`; with
    /// `AT_EMPTY_PATH` and an empty path it is fstat of `dir` (getattr).
    Statx {
        dir: RawFd,
        path: *const c_char,
        flags: i32,
        out: *mut libc::statx,
    },
    /// `unlinkat(dir, path, rmdir ? AT_REMOVEDIR : 0)`.
    Unlink {
        dir: RawFd,
        path: *const c_char,
        rmdir: bool,
    },
    /// `mkdirat(dir, path, mode)`.
    Mkdir {
        dir: RawFd,
        path: *const c_char,
        mode: u32,
    },
    /// `renameat(dir, from, to_dir, to)`.
    Rename {
        dir: RawFd,
        from: *const c_char,
        to_dir: RawFd,
        to: *const c_char,
    },
    /// `getdents64(fd, buf, len)` -> bytes (0 at the end). No io_uring
    /// opcode: always a system call.
    Getdents {
        fd: RawFd,
        buf: *mut u8,
        len: u32,
    },
    /// `fchmod(fd, mode)` then `futimens(fd, now)` (vdbench setattr). No
    /// io_uring opcode: always a system call.
    Setattr {
        fd: RawFd,
        mode: u32,
    },
    /// `faccessat(dir, path, mode, AT_SYMLINK_NOFOLLOW)`. No io_uring
    /// opcode: always a system call.
    Access {
        dir: RawFd,
        path: *const c_char,
        mode: i32,
    },
}

/// Issues requests and hands back their results.
pub trait Backend {
    /// Queue `req` for the slot `tag`. May run it at once (the
    /// synchronous backend; an io_uring backend for a request it has no
    /// opcode for). Never blocks on other requests' completions beyond
    /// what submitting needs.
    fn push(&mut self, tag: u32, req: Req);

    /// Submit what is queued and wait until at least `min` completions
    /// are ready (0: do not wait), then hand each ready one to
    /// `done(tag, result)`. Returns how many were handed over.
    fn reap(&mut self, min: u32, done: &mut impl FnMut(u32, i32)) -> u32;

    /// Requests pushed and not yet handed back.
    fn in_flight(&self) -> u32;

    /// The operations this backend ran as plain system calls (for the
    /// result's `fs.sync_ops`): all of them for the synchronous backend.
    fn sync_ops(&self) -> &[Op];

    /// Every request runs on the calling thread, inside `push`: its CPU
    /// is the thread's, between the operation's start and its end (the
    /// synchronous backend). False where requests may run elsewhere (in
    /// the kernel's io-wq workers) or complete inside a later `reap`.
    fn runs_inline(&self) -> bool {
        false
    }
}
