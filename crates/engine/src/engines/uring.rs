//! io_uring: one ring per worker thread (created on that thread), the
//! worker's buffer slots registered as fixed buffers and its files as fixed
//! files, submit-and-wait in one system call, completions matched to slots
//! by `user_data`. Registration failures (memlock limits, old kernels) fall
//! back to plain buffers or descriptors and are reported, not hidden.
//!
//! The ring is set up as fio 3.42 and its `t/io_uring` set theirs up:
//! single issuer with deferred task work (completions are posted when the
//! worker asks for them, no task-work interrupts), the completion queue
//! clamped to the submission queue, the ring's own descriptor registered
//! (`IORING_REGISTER_RING_FDS`: `io_uring_enter` then skips the descriptor
//! lookup and reference count) and, where the kernel has it (6.15+), waits
//! that do not mark the worker as in iowait (`IORING_ENTER_NO_IOWAIT`, as
//! fio does since 3.42: iowait is an accounting and cpufreq/idle hint for
//! one task waiting on a disk, not for a tool that is always waiting).
//! `io_uring_enter` is called directly (not through the crate's
//! `submit_and_wait`) so that every call can carry those flags.

use super::{Cqe, Engine, OpKind, Sqe};
use io_uring::{opcode, types, IoUring};
use std::io;
use std::os::unix::io::{AsRawFd, RawFd};

/// What the ring really got, for the result's effective settings.
#[derive(Debug, Clone, Default)]
pub struct UringSetup {
    pub registered_buffers: bool,
    pub registered_files: bool,
    /// Setup flags that took: "single_issuer+defer_taskrun", "coop_taskrun"
    /// or "", then "+registered_ring" and "+no_iowait" where those took.
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
    /// What `io_uring_enter` is given: the registered ring index (with
    /// IORING_ENTER_REGISTERED_RING in `enter_flags`) or the ring's fd.
    enter_fd: RawFd,
    /// Flags every `io_uring_enter` carries (REGISTERED_RING, NO_IOWAIT).
    enter_flags: u32,
    ring_registered: bool,
    /// Which descriptors are block devices (for trims).
    block: Vec<bool>,
    /// Flags of every write (`RWF_ATOMIC` with `atomic`), else 0.
    write_flags: i32,
    /// Trims done at queue time, handed back with the next completions.
    done: Vec<Cqe>,
}

// From <linux/io_uring.h>; named here because the calls are made directly.
const IORING_REGISTER_RING_FDS: libc::c_uint = 20;
const IORING_UNREGISTER_RING_FDS: libc::c_uint = 21;
const IORING_ENTER_GETEVENTS: u32 = 1 << 0;
const IORING_ENTER_EXT_ARG: u32 = 1 << 3;
const IORING_ENTER_REGISTERED_RING: u32 = 1 << 4;
const IORING_ENTER_NO_IOWAIT: u32 = 1 << 7;

/// `struct io_uring_rsrc_update`.
#[repr(C)]
struct RsrcUpdate {
    offset: u32,
    resv: u32,
    data: u64,
}

/// `struct __kernel_timespec`.
#[repr(C)]
struct KernelTimespec {
    tv_sec: i64,
    tv_nsec: i64,
}

/// `struct io_uring_getevents_arg` (IORING_ENTER_EXT_ARG).
#[repr(C)]
struct GeteventsArg {
    sigmask: u64,
    sigmask_sz: u32,
    min_wait_usec: u32,
    ts: u64,
}

/// Register the ring's own descriptor for this thread; the index to pass
/// to `io_uring_enter`, or None where the kernel cannot (before 5.18) or
/// the thread's table (16 rings) is full.
pub(crate) fn register_ring_fd(ring_fd: RawFd) -> Option<RawFd> {
    let mut up = RsrcUpdate {
        offset: u32::MAX, // any free slot
        resv: 0,
        data: ring_fd as u64,
    };
    // SAFETY: one valid io_uring_rsrc_update, as IORING_REGISTER_RING_FDS expects.
    let r = unsafe {
        libc::syscall(
            libc::SYS_io_uring_register,
            ring_fd,
            IORING_REGISTER_RING_FDS,
            &mut up as *mut RsrcUpdate,
            1 as libc::c_uint,
        )
    };
    (r == 1).then_some(up.offset as RawFd)
}

/// The ring with the best set-up flags this kernel accepts: single issuer
/// with deferred task work (what fio 3.42 uses), else cooperative task
/// work, else none; `setup.flags` says which.
pub(crate) fn build_ring(entries: u32, setup: &mut UringSetup) -> io::Result<IoUring> {
    if let Ok(r) = IoUring::builder()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .setup_cqsize(entries)
        .build(entries)
    {
        setup.flags = "single_issuer+defer_taskrun".into();
        return Ok(r);
    }
    if let Ok(r) = IoUring::builder().setup_coop_taskrun().build(entries) {
        setup.flags = "coop_taskrun".into();
        return Ok(r);
    }
    IoUring::new(entries)
}

/// Register the buffer pool and the files with the ring; each that fails
/// falls back to the unregistered form with a note. (registered buffers,
/// registered files).
fn register(
    ring: &IoUring,
    bufs: &[libc::iovec],
    fds: &[RawFd],
    setup: &mut UringSetup,
) -> (bool, bool) {
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
    let fixed_files = match ring.submitter().register_files(fds) {
        Ok(()) => true,
        Err(e) => {
            setup.notes.push(format!(
                "io_uring file registration failed ({e}); using plain descriptors"
            ));
            false
        }
    };
    (fixed_bufs, fixed_files)
}

/// How `io_uring_enter` will reach `ring`: (descriptor or registered
/// index, flags every call carries, whether the descriptor is registered
/// and must be released with [`unregister_ring_fd`]). Registers the
/// ring's descriptor and asks for waits outside iowait where the kernel
/// has them, noting both in `setup.flags`.
pub(crate) fn enter_target(ring: &IoUring, setup: &mut UringSetup) -> (RawFd, u32, bool) {
    let (enter_fd, mut enter_flags, registered) = match register_ring_fd(ring.as_raw_fd()) {
        Some(idx) => {
            setup.flags.push_str("+registered_ring");
            (idx, IORING_ENTER_REGISTERED_RING, true)
        }
        None => (ring.as_raw_fd(), 0, false),
    };
    if ring.params().is_feature_no_iowait() {
        enter_flags |= IORING_ENTER_NO_IOWAIT;
        setup.flags.push_str("+no_iowait");
    }
    (enter_fd, enter_flags, registered)
}

/// Release the registered descriptor `idx` of `ring_fd` (it holds a
/// reference to the ring until then).
pub(crate) fn unregister_ring_fd(ring_fd: RawFd, idx: RawFd) {
    let up = RsrcUpdate {
        offset: idx as u32,
        resv: 0,
        data: 0,
    };
    // SAFETY: one valid io_uring_rsrc_update naming our own slot.
    unsafe {
        libc::syscall(
            libc::SYS_io_uring_register,
            ring_fd,
            IORING_UNREGISTER_RING_FDS,
            &up as *const RsrcUpdate,
            1 as libc::c_uint,
        );
    }
}

impl UringEngine {
    /// Issue every write with these `RWF_*` flags (`RWF_ATOMIC`).
    /// The kernel refuses RWF_ATOMIC on a registered buffer (EINVAL: the
    /// atomic write path takes user-memory iterators only), so atomic
    /// writes go through plain ones. True when registered buffers were
    /// given up.
    pub fn set_write_flags(&mut self, flags: i32) -> bool {
        self.write_flags = flags;
        let give_up = flags & libc::RWF_ATOMIC != 0 && self.fixed_bufs;
        if give_up {
            self.fixed_bufs = false;
        }
        give_up
    }

    /// Create the ring on the calling thread. `bufs` are the slot iovecs.
    pub fn new(
        entries: u32,
        fds: Vec<RawFd>,
        bufs: &[libc::iovec],
    ) -> io::Result<(UringEngine, UringSetup)> {
        let entries = entries.next_power_of_two().clamp(1, 32768);
        let mut setup = UringSetup::default();
        let ring = build_ring(entries, &mut setup)?;
        let (fixed_bufs, fixed_files) = register(&ring, bufs, &fds, &mut setup);
        // A registered ring holds a reference to itself until it is
        // unregistered (Drop) or the thread exits; the ring is used and
        // dropped on this thread (the worker's), as registration requires.
        let (enter_fd, enter_flags, ring_registered) = enter_target(&ring, &mut setup);
        setup.registered_buffers = fixed_bufs;
        setup.registered_files = fixed_files;
        let (buf_base, slot_size) = match bufs {
            [first, ..] => (first.iov_base as usize, first.iov_len),
            [] => (0, 1),
        };
        Ok((
            UringEngine {
                ring,
                fixed_bufs,
                fixed_files,
                buf_base,
                slot_size,
                pending: 0,
                enter_fd,
                enter_flags,
                ring_registered,
                block: super::block_fds(&fds),
                write_flags: 0,
                done: Vec::with_capacity(entries as usize),
                fds,
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
                    .ioprio(sqe.ioprio)
                    .build())
            }
            (OpKind::Write, true) => {
                with_fd!(|fd| opcode::WriteFixed::new(fd, sqe.buf, sqe.len, idx)
                    .offset(sqe.offset)
                    .rw_flags(self.write_flags)
                    .ioprio(sqe.ioprio)
                    .build())
            }
            (OpKind::Read, false) => with_fd!(|fd| opcode::Read::new(fd, sqe.buf, sqe.len)
                .offset(sqe.offset)
                .ioprio(sqe.ioprio)
                .build()),
            (OpKind::Write, false) => {
                with_fd!(|fd| opcode::Write::new(fd, sqe.buf, sqe.len)
                    .offset(sqe.offset)
                    .rw_flags(self.write_flags)
                    .ioprio(sqe.ioprio)
                    .build())
            }
            (OpKind::Fsync, _) => with_fd!(|fd| opcode::Fsync::new(fd).build()),
            // Trims never reach the ring (`queue` does them).
            (OpKind::Trim, _) => opcode::Nop::new().build(),
            (OpKind::Fdatasync, _) => with_fd!(|fd| opcode::Fsync::new(fd)
                .flags(io_uring::types::FsyncFlags::DATASYNC)
                .build()),
        };
        e.user_data(sqe.slot as u64)
    }
}

impl Engine for UringEngine {
    const CAPS: super::EngineCaps = super::EngineCaps { moves_data: true };

    #[inline]
    fn queue(&mut self, sqe: &Sqe) -> io::Result<()> {
        if sqe.op == OpKind::Trim {
            return self.trim(sqe);
        }
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
        let to_submit = self.ring.submission().len() as u32;
        let mut wait = wait;
        if !self.done.is_empty() {
            wait = wait.saturating_sub(self.done.len() as u32);
            out.append(&mut self.done);
        }
        let r = self.enter(to_submit, wait, timeout_ns);
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

impl UringEngine {
    /// A trim, done now ([`super::trim`] says why); its completion waits
    /// for the next reap.
    #[cold]
    fn trim(&mut self, sqe: &Sqe) -> io::Result<()> {
        let fd = self.fds[sqe.file as usize];
        let res = super::trim(fd, self.block[sqe.file as usize], sqe.offset, sqe.len);
        self.done.push(Cqe {
            slot: sqe.slot,
            res,
        });
        Ok(())
    }

    /// One `io_uring_enter`: submit `to_submit`, run deferred task work
    /// and wait for `wait` completions or `timeout_ns`.
    #[inline]
    fn enter(&self, to_submit: u32, wait: u32, timeout_ns: Option<u64>) -> io::Result<()> {
        enter(self.enter_fd, self.enter_flags, to_submit, wait, timeout_ns)
    }
}

/// One `io_uring_enter` on `enter_fd` (a descriptor or registered index,
/// as [`enter_target`] gave with `enter_flags`): submit `to_submit`, run
/// deferred task work and wait for `wait` completions or `timeout_ns`.
#[inline]
pub(crate) fn enter(
    enter_fd: RawFd,
    enter_flags: u32,
    to_submit: u32,
    wait: u32,
    timeout_ns: Option<u64>,
) -> io::Result<()> {
    let flags = enter_flags | IORING_ENTER_GETEVENTS;
    let ts;
    let arg;
    let (flags, argp, argsz) = match timeout_ns {
        None => (flags, std::ptr::null(), 0),
        Some(ns) => {
            ts = KernelTimespec {
                tv_sec: (ns / 1_000_000_000) as i64,
                tv_nsec: (ns % 1_000_000_000) as i64,
            };
            arg = GeteventsArg {
                sigmask: 0,
                sigmask_sz: 0,
                min_wait_usec: 0,
                ts: &ts as *const KernelTimespec as u64,
            };
            (
                flags | IORING_ENTER_EXT_ARG,
                &arg as *const GeteventsArg as *const libc::c_void,
                std::mem::size_of::<GeteventsArg>(),
            )
        }
    };
    // SAFETY: the ring (or its registered index) is the caller's; the
    // argument, when given, is a valid io_uring_getevents_arg that
    // outlives the call; queued entries point at memory their owners keep
    // until completion.
    let r = unsafe {
        libc::syscall(
            libc::SYS_io_uring_enter,
            enter_fd,
            to_submit,
            wait,
            flags,
            argp,
            argsz,
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

impl Drop for UringEngine {
    /// Unregister the ring's descriptor (it holds a reference to the ring
    /// until then); the ring itself is closed when `ring` drops after this.
    fn drop(&mut self) {
        if self.ring_registered {
            unregister_ring_fd(self.ring.as_raw_fd(), self.enter_fd);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::time::{Duration, Instant};

    /// A ring on this kernel, or None (printing why) where io_uring is not
    /// available (seccomp, io_uring_disabled).
    fn engine(fds: Vec<RawFd>, bufs: &[libc::iovec]) -> Option<(UringEngine, UringSetup)> {
        match UringEngine::new(8, fds, bufs) {
            Ok(x) => Some(x),
            Err(e) if std::env::var_os("CI").is_none() => {
                println!("SKIP io_uring test: no io_uring here ({e})");
                None
            }
            Err(e) => panic!("io_uring unavailable under CI: {e}"),
        }
    }

    #[test]
    fn every_read_and_write_carries_its_ioprio_in_the_sqe() {
        let f = tempfile::tempfile().unwrap();
        let mut buf = vec![0u8; 4096];
        let iov = [libc::iovec {
            iov_base: buf.as_mut_ptr().cast(),
            iov_len: buf.len(),
        }];
        let Some((eng, _)) = engine(vec![f.as_raw_fd()], &iov) else {
            return;
        };
        for op in [OpKind::Read, OpKind::Write] {
            let e = eng.build(&Sqe {
                slot: 0,
                op,
                file: 0,
                offset: 0,
                len: 4096,
                buf: buf.as_mut_ptr(),
                ioprio: (1 << 13) | 3,
            });
            // SAFETY: an Entry is one 64-byte io_uring_sqe (repr C);
            // ioprio is its u16 at byte 2 (opcode, flags, ioprio, ...).
            let raw: [u8; 64] = unsafe { std::mem::transmute(e) };
            assert_eq!(
                u16::from_ne_bytes([raw[2], raw[3]]),
                (1 << 13) | 3,
                "{op:?}"
            );
        }
    }

    #[test]
    fn reads_through_the_direct_enter_and_times_out_when_idle() {
        let mut f = tempfile::tempfile().unwrap();
        let data: Vec<u8> = (0..8192u32).map(|i| (i * 7 + 3) as u8).collect();
        f.write_all(&data).unwrap();
        let mut buf = vec![0u8; 4096];
        let iov = [libc::iovec {
            iov_base: buf.as_mut_ptr().cast(),
            iov_len: buf.len(),
        }];
        let Some((mut eng, setup)) = engine(vec![f.as_raw_fd()], &iov) else {
            return;
        };
        eng.queue(&Sqe {
            slot: 0,
            op: OpKind::Read,
            file: 0,
            offset: 4096,
            len: 4096,
            buf: buf.as_mut_ptr(),
            ioprio: 0,
        })
        .unwrap();
        let mut out = Vec::with_capacity(8);
        let t = Instant::now();
        while out.is_empty() && t.elapsed() < Duration::from_secs(5) {
            eng.submit_and_reap(1, Some(1_000_000_000), &mut out)
                .unwrap();
        }
        assert_eq!(out, vec![Cqe { slot: 0, res: 4096 }], "setup {setup:?}");
        assert_eq!(&buf[..], &data[4096..]);

        // Nothing in flight: the wait ends at the timeout (ETIME), not an error.
        out.clear();
        let t = Instant::now();
        eng.submit_and_reap(1, Some(20_000_000), &mut out).unwrap();
        let waited = t.elapsed();
        assert!(out.is_empty());
        assert!(
            waited >= Duration::from_millis(15) && waited < Duration::from_secs(2),
            "waited {waited:?} for a 20 ms timeout"
        );
    }

    #[test]
    fn registered_ring_descriptor_is_released_on_drop() {
        // A thread has 16 slots for registered rings: without the
        // unregistration in Drop the 17th ring would get none.
        let f = tempfile::tempfile().unwrap();
        let Some((eng, first)) = engine(vec![f.as_raw_fd()], &[]) else {
            return;
        };
        drop(eng);
        if !first.flags.contains("+registered_ring") {
            println!("SKIP registered ring test: the kernel did not register the ring ({first:?})");
            return;
        }
        for i in 0..40 {
            let (eng, setup) = UringEngine::new(8, vec![f.as_raw_fd()], &[]).unwrap();
            assert!(
                setup.flags.contains("+registered_ring"),
                "ring {i} not registered: {setup:?}"
            );
            drop(eng);
        }
    }
}
