//! One [`Req`] run as a plain system call, with the result io_uring would
//! give (`fd`, bytes or 0, or `-errno`). The one synchronous execution of
//! a request, shared by the synchronous backend (`sync.rs`) and by the
//! io_uring backend for the requests it has no opcode for (`uring.rs`).

use super::backend::Req;

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
            } => libc::openat(dir, path, flags, mode) as i64,
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
            Req::Rename { dir, from, to } => libc::renameat(dir, from, dir, to) as i64,
            Req::Getdents { fd, buf, len } => {
                libc::syscall(libc::SYS_getdents64, fd, buf, len as libc::c_uint)
            }
            Req::Setattr { fd, mode } => setattr(fd, mode),
            Req::Access { dir, path, mode } => {
                libc::faccessat(dir, path, mode, libc::AT_SYMLINK_NOFOLLOW) as i64
            }
        }
    };
    if r < 0 {
        -errno()
    } else {
        r as i32
    }
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
