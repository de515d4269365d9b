//! fio's `ftruncate` engine: each write truncates the file to the write's
//! offset (growing or shrinking it), one I/O per worker thread; fsyncs are
//! fsyncs; reads and trims fail with EINVAL as in fio (the spec refuses
//! them before any I/O). Nothing is copied.

use super::{neg_errno, Cqe, Engine, OpKind, Sqe};
use std::io;
use std::os::unix::io::RawFd;

pub struct FtruncateEngine {
    fds: Vec<RawFd>,
    done: Vec<Cqe>,
}

impl FtruncateEngine {
    pub fn new(fds: Vec<RawFd>, qd: usize) -> Self {
        FtruncateEngine {
            fds,
            done: Vec::with_capacity(qd),
        }
    }
}

impl Engine for FtruncateEngine {
    const CAPS: super::EngineCaps = super::EngineCaps { moves_data: false };

    #[inline]
    fn queue(&mut self, sqe: &Sqe) -> io::Result<()> {
        let fd = self.fds[sqe.file as usize];
        // SAFETY: ftruncate/fsync on an open descriptor; no memory passed.
        let r = unsafe {
            match sqe.op {
                OpKind::Write => libc::ftruncate(fd, sqe.offset as i64),
                OpKind::Fsync => libc::fsync(fd),
                OpKind::Fdatasync => libc::fdatasync(fd),
                OpKind::Read | OpKind::Trim => -2,
            }
        };
        let res = if r == -2 {
            -libc::EINVAL
        } else if r < 0 {
            neg_errno()
        } else if matches!(sqe.op, OpKind::Fsync | OpKind::Fdatasync) {
            0
        } else {
            sqe.len as i32
        };
        self.done.push(Cqe {
            slot: sqe.slot,
            res,
        });
        Ok(())
    }

    super::synchronous_reap!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::io::AsRawFd;

    #[test]
    fn a_write_truncates_to_its_offset_and_a_read_is_refused() {
        let f = tempfile::tempfile().unwrap();
        let mut e = FtruncateEngine::new(vec![f.as_raw_fd()], 1);
        let mut out = Vec::with_capacity(2);
        for (slot, (op, offset)) in [(OpKind::Write, 12288u64), (OpKind::Read, 0)]
            .into_iter()
            .enumerate()
        {
            let sqe = Sqe {
                slot: slot as u32,
                op,
                file: 0,
                offset,
                len: 4096,
                buf: std::ptr::null_mut(),
                ioprio: 0,
            };
            e.queue(&sqe).unwrap();
        }
        e.submit_and_reap(2, None, &mut out).unwrap();
        assert_eq!(out[0].res, 4096);
        assert_eq!(out[1].res, -libc::EINVAL);
        assert_eq!(f.metadata().unwrap().len(), 12288);
    }
}
