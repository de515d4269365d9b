//! I/O engines, after fio's `ioengine_ops`: `queue` hands an I/O to the
//! engine (a synchronous engine does it there and then), `submit_and_reap`
//! submits what was queued and waits for completions. Workers are generic
//! over the engine, so the hot path has no dynamic dispatch.

mod null;
mod psync;
pub(crate) mod uring;

pub use null::NullEngine;
pub use psync::PsyncEngine;
pub use uring::{UringEngine, UringSetup};

use std::io;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    Read,
    Write,
    Fsync,
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

/// -errno of the last OS error, for synchronous engines.
pub(crate) fn neg_errno() -> i32 {
    -io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
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
