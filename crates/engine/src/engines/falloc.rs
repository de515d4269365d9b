//! fio's `falloc` engine: allocation instead of data, one I/O per worker
//! thread. A write is `fallocate(mode 0)` over the block (allocating it
//! and extending the file), a read `fallocate(FALLOC_FL_KEEP_SIZE)` (fio's
//! choice: allocation without growing the file), a trim a punched hole;
//! fsyncs are fsyncs. Nothing is copied, so the buffers are untouched.

use super::{neg_errno, Cqe, Engine, OpKind, Sqe};
use std::io;
use std::os::unix::io::RawFd;

pub struct FallocEngine {
    fds: Vec<RawFd>,
    done: Vec<Cqe>,
}

impl FallocEngine {
    pub fn new(fds: Vec<RawFd>, qd: usize) -> Self {
        FallocEngine {
            fds,
            done: Vec::with_capacity(qd),
        }
    }
}

impl Engine for FallocEngine {
    const CAPS: super::EngineCaps = super::EngineCaps { moves_data: false };

    #[inline]
    fn queue(&mut self, sqe: &Sqe) -> io::Result<()> {
        let fd = self.fds[sqe.file as usize];
        let mode = match sqe.op {
            OpKind::Write => Some(0),
            OpKind::Read => Some(libc::FALLOC_FL_KEEP_SIZE),
            OpKind::Trim => Some(libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE),
            OpKind::Fsync | OpKind::Fdatasync => None,
        };
        // SAFETY: fallocate/fsync on an open descriptor; no memory passed.
        let r = unsafe {
            match (mode, sqe.op) {
                (Some(m), _) => libc::fallocate(fd, m, sqe.offset as i64, sqe.len as i64),
                (None, OpKind::Fdatasync) => libc::fdatasync(fd),
                (None, _) => libc::fsync(fd),
            }
        };
        let res = match (r < 0, mode) {
            (true, _) => neg_errno(),
            (false, Some(_)) => sqe.len as i32,
            (false, None) => 0,
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
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::io::AsRawFd;

    fn one(e: &mut FallocEngine, op: OpKind, offset: u64, len: u32) -> i32 {
        let sqe = Sqe {
            slot: 0,
            op,
            file: 0,
            offset,
            len,
            buf: std::ptr::null_mut(),
            ioprio: 0,
        };
        e.queue(&sqe).unwrap();
        let mut out = Vec::with_capacity(1);
        e.submit_and_reap(1, None, &mut out).unwrap();
        out[0].res
    }

    #[test]
    fn writes_extend_reads_keep_the_size_trims_punch() {
        let f = tempfile::tempfile().unwrap();
        let mut e = FallocEngine::new(vec![f.as_raw_fd()], 1);
        assert_eq!(one(&mut e, OpKind::Write, 1 << 20, 65536), 65536);
        let m = f.metadata().unwrap();
        assert_eq!(m.size(), (1 << 20) + 65536);
        assert!(m.blocks() * 512 >= 65536);
        assert_eq!(one(&mut e, OpKind::Read, 4 << 20, 65536), 65536);
        assert_eq!(f.metadata().unwrap().size(), (1 << 20) + 65536);
        let before = f.metadata().unwrap().blocks();
        assert_eq!(one(&mut e, OpKind::Trim, 1 << 20, 65536), 65536);
        assert!(f.metadata().unwrap().blocks() < before);
        assert_eq!(one(&mut e, OpKind::Fsync, 0, 0), 0);
    }
}
