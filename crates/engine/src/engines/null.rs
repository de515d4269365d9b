//! The null engine touches no device and completes every I/O at once, so a
//! run measures iolab's own cost per I/O: offsets, timestamps, latency
//! recording and accounting all still happen.

use super::{Cqe, Engine, OpKind, Sqe};
use std::io;

pub struct NullEngine {
    done: Vec<Cqe>,
}

impl NullEngine {
    pub fn new(qd: usize) -> Self {
        NullEngine {
            done: Vec::with_capacity(qd),
        }
    }
}

impl Engine for NullEngine {
    const CAPS: super::EngineCaps = super::EngineCaps { moves_data: false };

    #[inline]
    fn queue(&mut self, sqe: &Sqe) -> io::Result<()> {
        let res = if matches!(sqe.op, OpKind::Fsync | OpKind::Fdatasync) {
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
