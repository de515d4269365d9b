//! I/O engines, after fio's `ioengine_ops`: `queue` hands an I/O to the
//! engine (a synchronous engine does it there and then), `submit_and_reap`
//! submits what was queued and waits for completions. Workers are generic
//! over the engine, so the hot path has no dynamic dispatch.

mod falloc;
mod ftruncate;
mod null;
mod page_fault;
mod psync;
pub(crate) mod uring;

pub use falloc::FallocEngine;
pub use ftruncate::FtruncateEngine;
pub use null::NullEngine;
pub use page_fault::PageFaultEngine;
pub use psync::PsyncEngine;
pub use uring::{UringEngine, UringSetup};

use std::io;
use std::os::unix::io::RawFd;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    Read,
    Write,
    Fsync,
    /// A discard of `len` bytes at `offset` (no buffer).
    Trim,
    /// fdatasync (io_uring: fsync with IORING_FSYNC_DATASYNC).
    Fdatasync,
}

/// One I/O handed to an engine.
#[derive(Debug, Clone, Copy)]
pub struct Sqe {
    /// Slot index: identifies the I/O in its completion.
    pub slot: u32,
    pub op: OpKind,
    /// Index into the engine's file table.
    pub file: u32,
    pub offset: u64,
    pub len: u32,
    pub buf: *mut u8,
    /// The I/O's priority (Linux ioprio value; 0: the thread's). Only
    /// io_uring carries it per I/O.
    pub ioprio: u16,
}

/// A completion: the slot and the result (bytes, or -errno).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cqe {
    pub slot: u32,
    pub res: i32,
}

/// What an engine's I/O does, so that code decides by capability, never
/// by the engine's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineCaps {
    /// Its I/O reaches the target (the null engine's does not): alignment
    /// rules, prefill and device statistics apply.
    pub moves_data: bool,
}

/// The capabilities of the engine `kind` names (the one place a name maps
/// to an engine).
pub fn caps(kind: iolab_spec::EngineKind) -> EngineCaps {
    match kind {
        iolab_spec::EngineKind::IoUring => UringEngine::CAPS,
        iolab_spec::EngineKind::Psync => PsyncEngine::CAPS,
        iolab_spec::EngineKind::Null => NullEngine::CAPS,
        iolab_spec::EngineKind::Falloc => FallocEngine::CAPS,
        iolab_spec::EngineKind::Ftruncate => FtruncateEngine::CAPS,
        iolab_spec::EngineKind::PageFault => PageFaultEngine::CAPS,
    }
}

pub trait Engine {
    const CAPS: EngineCaps;
    /// Queue one I/O. The buffer stays valid until its completion.
    fn queue(&mut self, sqe: &Sqe) -> io::Result<()>;
    /// Submit queued I/O and wait until at least `wait` completions are
    /// available or `timeout_ns` passes; append completions to `out`
    /// (whose capacity is at least the queue depth, so it never grows).
    fn submit_and_reap(
        &mut self,
        wait: u32,
        timeout_ns: Option<u64>,
        out: &mut Vec<Cqe>,
    ) -> io::Result<()>;
}

/// `Engine::submit_and_reap` of a synchronous engine (psync, null,
/// falloc, ftruncate, page_fault): each I/O was done when it was queued
/// and its completion waits in `self.done` for the next reap.
macro_rules! synchronous_reap {
    () => {
        #[inline]
        fn submit_and_reap(
            &mut self,
            _wait: u32,
            _timeout_ns: Option<u64>,
            out: &mut Vec<Cqe>,
        ) -> std::io::Result<()> {
            super::hand_over(&mut self.done, out);
            Ok(())
        }
    };
}
pub(crate) use synchronous_reap;

/// -errno of the last OS error, for synchronous engines.
pub(crate) fn neg_errno() -> i32 {
    -io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

/// `BLKDISCARD` (`_IO(0x12, 119)`, <linux/fs.h>; not in the libc crate).
const BLKDISCARD: libc::c_ulong = 0x1277;

/// For each descriptor, whether it is a block device (a trim is then a
/// discard, else a punched hole).
pub(crate) fn block_fds(fds: &[RawFd]) -> Vec<bool> {
    fds.iter()
        .map(|&fd| {
            // SAFETY: fstat writes one struct stat into `st`.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            unsafe { libc::fstat(fd, &mut st) == 0 && st.st_mode & libc::S_IFMT == libc::S_IFBLK }
        })
        .collect()
}

/// One trim, synchronously, as fio does for every engine but io_uring's
/// block-command path: BLKDISCARD on a block device, a punched hole that
/// keeps the size in a file. `len` when done, else -errno.
///
/// Synchronous in the io_uring engine too: a file's hole could go through
/// IORING_OP_FALLOCATE, but io_uring runs fallocate in its worker threads
/// anyway (it cannot be done without blocking), and a device's discard
/// has an io_uring form only as a block command (Linux 6.12+). Done at
/// queue time, a trim also completes before anything queued after it is
/// submitted, so trimwrite's write always lands on a trimmed block.
#[cold]
pub(crate) fn trim(fd: RawFd, block: bool, offset: u64, len: u32) -> i32 {
    let r = if block {
        let range = [offset, len as u64];
        // SAFETY: BLKDISCARD reads two u64 (start, length) from `range`.
        unsafe { libc::ioctl(fd, BLKDISCARD, range.as_ptr()) }
    } else {
        // SAFETY: fallocate on an open descriptor; no memory is passed.
        unsafe {
            libc::fallocate(
                fd,
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                offset as i64,
                len as i64,
            )
        }
    };
    if r < 0 {
        neg_errno()
    } else {
        len as i32
    }
}

/// Hand over completions a synchronous engine already has (null, psync):
/// nothing to submit and nothing to wait for.
#[inline]
pub(crate) fn hand_over(done: &mut Vec<Cqe>, out: &mut Vec<Cqe>) {
    if out.is_empty() {
        // The usual case (the worker clears `out` before each reap): trade
        // the vectors instead of copying, which at QD 1 was a call to
        // memmove per I/O. Both have room for the queue depth.
        std::mem::swap(done, out);
    } else {
        out.extend_from_slice(done);
        done.clear();
    }
}
