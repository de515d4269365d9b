//! pread/pwrite, one outstanding I/O per worker thread: the baseline every
//! storage engineer knows (dd, fio `psync`, vdbench threads).

use super::{neg_errno, Cqe, Engine, OpKind, Sqe};
use std::io;
use std::os::unix::io::RawFd;

pub struct PsyncEngine {
    fds: Vec<RawFd>,
    /// Which descriptors are block devices (for trims).
    block: Vec<bool>,
    /// Flags of every write (`RWF_ATOMIC` with `atomic`): pwritev2.
    write_flags: i32,
    done: Vec<Cqe>,
}

impl PsyncEngine {
    /// Issue every write with these `RWF_*` flags (`RWF_ATOMIC`).
    pub fn with_write_flags(mut self, flags: i32) -> Self {
        self.write_flags = flags;
        self
    }

    pub fn new(fds: Vec<RawFd>, qd: usize) -> Self {
        PsyncEngine {
            block: super::block_fds(&fds),
            write_flags: 0,
            fds,
            done: Vec::with_capacity(qd),
        }
    }
}

impl Engine for PsyncEngine {
    const CAPS: super::EngineCaps = super::EngineCaps { moves_data: true };

    #[inline]
    fn queue(&mut self, sqe: &Sqe) -> io::Result<()> {
        let fd = self.fds[sqe.file as usize];
        // SAFETY: buf points to at least len bytes of the worker's buffer
        // pool, exclusively owned by this slot until its completion.
        let r = unsafe {
            match sqe.op {
                OpKind::Read => libc::pread(
                    fd,
                    sqe.buf as *mut libc::c_void,
                    sqe.len as usize,
                    sqe.offset as i64,
                ),
                OpKind::Write if self.write_flags != 0 => {
                    let iov = libc::iovec {
                        iov_base: sqe.buf as *mut libc::c_void,
                        iov_len: sqe.len as usize,
                    };
                    libc::pwritev2(fd, &iov, 1, sqe.offset as i64, self.write_flags)
                }
                OpKind::Write => libc::pwrite(
                    fd,
                    sqe.buf as *const libc::c_void,
                    sqe.len as usize,
                    sqe.offset as i64,
                ),
                OpKind::Fsync => libc::fsync(fd) as isize,
                OpKind::Trim => {
                    super::trim(fd, self.block[sqe.file as usize], sqe.offset, sqe.len) as isize
                }
                OpKind::Fdatasync => libc::fdatasync(fd) as isize,
            }
        };
        let res = if r < 0 { neg_errno() } else { r as i32 };
        self.done.push(Cqe {
            slot: sqe.slot,
            res,
        });
        Ok(())
    }

    super::synchronous_reap!();
}
