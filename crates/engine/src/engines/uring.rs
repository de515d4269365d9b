//! io_uring: one ring per worker thread (created on that thread), the
//! worker's buffer slots registered as fixed buffers and its files as fixed
//! files, submit-and-wait in one system call, completions matched to slots
//! by `user_data`. Registration failures (memlock limits, old kernels) fall
//! back to plain buffers or descriptors and are reported, not hidden.

use super::{Cqe, Engine, OpKind, Sqe};
use io_uring::{opcode, types, IoUring};
use std::io;
use std::os::unix::io::RawFd;

/// What the ring really got, for the result's effective settings.
#[derive(Debug, Clone, Default)]
pub struct UringSetup {
    pub registered_buffers: bool,
    pub registered_files: bool,
    /// Setup flags that took: "single_issuer+defer_taskrun", "coop_taskrun" or "".
    pub flags: String,
    /// Why a registration was not used, if any.
    pub notes: Vec<String>,
}

pub struct UringEngine {
    ring: IoUring,
    fds: Vec<RawFd>,
    fixed_bufs: bool,
    fixed_files: bool,
    buf_base: usize,
    slot_size: usize,
    pending: u32,
}

impl UringEngine {
    /// Create the ring on the calling thread. `bufs` are the slot iovecs.
    pub fn new(
        entries: u32,
        fds: Vec<RawFd>,
        bufs: &[libc::iovec],
    ) -> io::Result<(UringEngine, UringSetup)> {
        let entries = entries.next_power_of_two().clamp(1, 32768);
        let mut setup = UringSetup::default();
        let ring = match IoUring::builder()
            .setup_single_issuer()
            .setup_defer_taskrun()
            .build(entries)
        {
            Ok(r) => {
                setup.flags = "single_issuer+defer_taskrun".into();
                r
            }
            Err(_) => match IoUring::builder().setup_coop_taskrun().build(entries) {
                Ok(r) => {
                    setup.flags = "coop_taskrun".into();
                    r
                }
                Err(_) => IoUring::new(entries)?,
            },
        };
        // SAFETY: the iovecs describe the worker's buffer pool, which
        // outlives the ring (the worker drops the engine first).
        let fixed_bufs = match unsafe { ring.submitter().register_buffers(bufs) } {
            Ok(()) => true,
            Err(e) => {
                setup.notes.push(format!(
                    "io_uring buffer registration failed ({e}); using unregistered buffers"
                ));
                false
            }
        };
        let fixed_files = match ring.submitter().register_files(&fds) {
            Ok(()) => true,
            Err(e) => {
                setup.notes.push(format!(
                    "io_uring file registration failed ({e}); using plain descriptors"
                ));
                false
            }
        };
        setup.registered_buffers = fixed_bufs;
        setup.registered_files = fixed_files;
        let (buf_base, slot_size) = match bufs {
            [first, ..] => (first.iov_base as usize, first.iov_len),
            [] => (0, 1),
        };
        Ok((
            UringEngine {
                ring,
                fds,
                fixed_bufs,
                fixed_files,
                buf_base,
                slot_size,
                pending: 0,
            },
            setup,
        ))
    }

    #[inline]
    fn build(&self, sqe: &Sqe) -> io_uring::squeue::Entry {
        let idx = ((sqe.buf as usize - self.buf_base) / self.slot_size) as u16;
        macro_rules! with_fd {
            ($mk:expr) => {
                if self.fixed_files {
                    $mk(types::Fixed(sqe.file))
                } else {
                    $mk(types::Fd(self.fds[sqe.file as usize]))
                }
            };
        }
        let e = match (sqe.op, self.fixed_bufs) {
            (OpKind::Read, true) => {
                with_fd!(|fd| opcode::ReadFixed::new(fd, sqe.buf, sqe.len, idx)
                    .offset(sqe.offset)
                    .build())
            }
            (OpKind::Write, true) => {
                with_fd!(|fd| opcode::WriteFixed::new(fd, sqe.buf, sqe.len, idx)
                    .offset(sqe.offset)
                    .build())
            }
            (OpKind::Read, false) => with_fd!(|fd| opcode::Read::new(fd, sqe.buf, sqe.len)
                .offset(sqe.offset)
                .build()),
            (OpKind::Write, false) => {
                with_fd!(|fd| opcode::Write::new(fd, sqe.buf, sqe.len)
                    .offset(sqe.offset)
                    .build())
            }
            (OpKind::Fsync, _) => with_fd!(|fd| opcode::Fsync::new(fd).build()),
        };
        e.user_data(sqe.slot as u64)
    }
}

impl Engine for UringEngine {
    const CAPS: super::EngineCaps = super::EngineCaps { moves_data: true };

    #[inline]
    fn queue(&mut self, sqe: &Sqe) -> io::Result<()> {
        let e = self.build(sqe);
        loop {
            // SAFETY: the buffer stays valid and untouched until the
            // completion for this slot is reaped (worker invariant).
            let pushed = unsafe { self.ring.submission().push(&e).is_ok() };
            if pushed {
                self.pending += 1;
                return Ok(());
            }
            self.ring.submit()?;
            self.pending = 0;
        }
    }

    #[inline]
    fn submit_and_reap(
        &mut self,
        wait: u32,
        timeout_ns: Option<u64>,
        out: &mut Vec<Cqe>,
    ) -> io::Result<()> {
        let r = match timeout_ns {
            None => self.ring.submit_and_wait(wait as usize),
            Some(ns) => {
                let ts = types::Timespec::new()
                    .sec(ns / 1_000_000_000)
                    .nsec((ns % 1_000_000_000) as u32);
                let args = types::SubmitArgs::new().timespec(&ts);
                self.ring.submitter().submit_with_args(wait as usize, &args)
            }
        };
        match r {
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::ETIME) | Some(libc::EINTR) | Some(libc::EBUSY)
                ) => {}
            Err(e) => return Err(e),
        }
        self.pending = 0;
        for c in self.ring.completion() {
            out.push(Cqe {
                slot: c.user_data() as u32,
                res: c.result(),
            });
        }
        Ok(())
    }
}
