//! The io_uring backend of the file-system driver: one ring per worker
//! thread, each [`Req`] one SQE tagged with its slot (`user_data`), so a
//! thread keeps several operations in flight, metadata included
//! (`openat2`, `close`, `read`, `write`, `fsync`/`fdatasync`, `statx`,
//! `unlinkat`, `mkdirat`, `renameat`).
//!
//! Opens are `IORING_OP_OPENAT2` with `RESOLVE_BENEATH |
//! RESOLVE_NO_SYMLINKS` (as the system-call path, `syscall.rs`): no
//! symbolic link anywhere on the path is followed. The `open_how` each
//! points at lives in a table with one entry per tag, preallocated for
//! the ring's depth, untouched until the tag's completion is reaped. A
//! kernel without OpenAt2 (before 5.6) runs opens as system calls.
//!
//! The ring is set up as the block engine's (`engines/uring.rs`: single
//! issuer with deferred task work where the kernel has them, the ring's
//! descriptor registered, waits outside iowait), so it must be created,
//! used and dropped on the worker thread that owns it.
//!
//! Requests without an io_uring opcode (`getdents64`, vdbench's setattr
//! and access) and requests whose opcode this kernel lacks (probed once
//! with `IORING_REGISTER_PROBE` at construction) run as system calls
//! (`fs/syscall.rs`) when pushed; their results wait in a
//! preallocated local queue and are handed over by the next `reap`.
//! [`Backend::sync_ops`] names the operations that run that way.
//!
//! On Linux 6.18 (the machine this was written on) every opcode is
//! there: only `readdir`, `setattr` and `access` run synchronously
//! (they have no opcode on any kernel). The opcodes date from 5.6
//! (openat, close, read, write, statx; fsync 5.1), 5.11 (unlinkat,
//! renameat) and 5.15 (mkdirat).
//!
//! What asynchronous metadata costs and gains (bench/fs-meta-uring): the
//! kernel runs statx, unlinkat, mkdirat, renameat and a creating openat
//! on io-wq worker threads, never inline; a plain open of a cached path,
//! close, and cached reads and writes complete inline. So when metadata
//! is cached, the ring does not beat one thread of plain calls and
//! costs more CPU per operation (on a 2-vCPU VM: stat 1.4 µs as a call,
//! 2.7 µs at QD 64, 5.4 µs at QD 1); when metadata must be read from
//! the device, the operations in flight overlap their waits and the
//! ring wins by the depth the device allows.
//! [`UringBackend::run_as_syscalls`] lets the driver keep chosen
//! operations off the ring.

use super::backend::{Backend, Req};
use super::syscall::{open_how, syscall};
use crate::engines::uring::{build_ring, enter, enter_target, unregister_ring_fd, UringSetup};
use io_uring::{opcode, squeue, types, IoUring, Probe};
use iolab_spec::Op;
use std::io;
use std::os::unix::io::{AsRawFd, RawFd};

/// The kinds of [`Req`], as indices into the backend's opcode table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Open,
    Close,
    Read,
    Write,
    Fsync,
    Statx,
    Unlink,
    Mkdir,
    Rename,
    Getdents,
    Setattr,
    Access,
}

const KINDS: usize = 12;

impl Kind {
    const ALL: [Kind; KINDS] = [
        Kind::Open,
        Kind::Close,
        Kind::Read,
        Kind::Write,
        Kind::Fsync,
        Kind::Statx,
        Kind::Unlink,
        Kind::Mkdir,
        Kind::Rename,
        Kind::Getdents,
        Kind::Setattr,
        Kind::Access,
    ];

    fn of(req: &Req) -> Kind {
        match req {
            Req::Open { .. } => Kind::Open,
            Req::Close { .. } => Kind::Close,
            Req::Read { .. } => Kind::Read,
            Req::Write { .. } => Kind::Write,
            Req::Fsync { .. } => Kind::Fsync,
            Req::Statx { .. } => Kind::Statx,
            Req::Unlink { .. } => Kind::Unlink,
            Req::Mkdir { .. } => Kind::Mkdir,
            Req::Rename { .. } => Kind::Rename,
            Req::Getdents { .. } => Kind::Getdents,
            Req::Setattr { .. } => Kind::Setattr,
            Req::Access { .. } => Kind::Access,
        }
    }

    /// The io_uring opcode that does this request, if there is one.
    fn opcode(self) -> Option<u8> {
        Some(match self {
            Kind::Open => opcode::OpenAt2::CODE,
            Kind::Close => opcode::Close::CODE,
            Kind::Read => opcode::Read::CODE,
            Kind::Write => opcode::Write::CODE,
            Kind::Fsync => opcode::Fsync::CODE,
            Kind::Statx => opcode::Statx::CODE,
            Kind::Unlink => opcode::UnlinkAt::CODE,
            Kind::Mkdir => opcode::MkDirAt::CODE,
            Kind::Rename => opcode::RenameAt::CODE,
            Kind::Getdents | Kind::Setattr | Kind::Access => return None,
        })
    }

    /// The workload operations that issue this request (a create is an
    /// open with `O_CREAT`, a readdir an open, getdents and a close, ...).
    fn ops(self) -> &'static [Op] {
        match self {
            Kind::Open => &[Op::Open, Op::Create],
            Kind::Close => &[Op::Close],
            Kind::Read => &[Op::Read],
            Kind::Write => &[Op::Write, Op::Append, Op::Rewrite],
            Kind::Fsync => &[Op::Fsync, Op::Fdatasync],
            Kind::Statx => &[Op::Stat, Op::Getattr],
            Kind::Unlink => &[Op::Delete, Op::Rmdir],
            Kind::Mkdir => &[Op::Mkdir],
            Kind::Rename => &[Op::Rename],
            Kind::Getdents => &[Op::Readdir],
            Kind::Setattr => &[Op::Setattr],
            Kind::Access => &[Op::Access],
        }
    }
}

/// The operations (in [`Op::ALL`] order) some of whose requests run as
/// system calls when `on_ring[kind]` says which kinds go through the ring.
fn sync_ops_of(on_ring: &[bool; KINDS]) -> Vec<Op> {
    Op::ALL
        .into_iter()
        .filter(|op| {
            Kind::ALL
                .iter()
                .any(|k| !on_ring[*k as usize] && k.ops().contains(op))
        })
        .collect()
}

/// Which request kinds this kernel can run on `ring` (none where the
/// probe itself fails: kernels before 5.6, which lack them anyway).
fn probe(ring: &IoUring) -> [bool; KINDS] {
    let mut p = Probe::new();
    let probed = ring.submitter().register_probe(&mut p).is_ok();
    Kind::ALL.map(|k| probed && k.opcode().is_some_and(|c| p.is_supported(c)))
}

/// The SQE for `req` (a kind with an opcode); an open's `open_how` is
/// `how`, memory that stays put until the completion is reaped.
fn entry(req: &Req, how: &mut types::OpenHow) -> squeue::Entry {
    use types::Fd;
    match *req {
        Req::Open {
            dir,
            path,
            flags,
            mode,
        } => {
            let h = open_how(flags, mode);
            *how = types::OpenHow::new()
                .flags(h.flags)
                .mode(h.mode)
                .resolve(h.resolve);
            opcode::OpenAt2::new(Fd(dir), path, how).build()
        }
        Req::Close { fd } => opcode::Close::new(Fd(fd)).build(),
        Req::Read { fd, buf, len, off } => opcode::Read::new(Fd(fd), buf, len).offset(off).build(),
        Req::Write { fd, buf, len, off } => {
            opcode::Write::new(Fd(fd), buf, len).offset(off).build()
        }
        Req::Fsync { fd, datasync } => {
            let flags = if datasync {
                types::FsyncFlags::DATASYNC
            } else {
                types::FsyncFlags::empty()
            };
            opcode::Fsync::new(Fd(fd)).flags(flags).build()
        }
        Req::Statx {
            dir,
            path,
            flags,
            out,
        } => opcode::Statx::new(Fd(dir), path, out.cast::<types::statx>())
            .flags(flags)
            .mask(libc::STATX_BASIC_STATS)
            .build(),
        Req::Unlink { dir, path, rmdir } => opcode::UnlinkAt::new(Fd(dir), path)
            .flags(if rmdir { libc::AT_REMOVEDIR } else { 0 })
            .build(),
        Req::Mkdir { dir, path, mode } => opcode::MkDirAt::new(Fd(dir), path).mode(mode).build(),
        Req::Rename {
            dir,
            from,
            to_dir,
            to,
        } => opcode::RenameAt::new(Fd(dir), from, Fd(to_dir), to).build(),
        Req::Getdents { .. } | Req::Setattr { .. } | Req::Access { .. } => {
            unreachable!("no io_uring opcode for {req:?}")
        }
    }
}

/// One thread's io_uring for file-system requests.
pub struct UringBackend {
    ring: IoUring,
    /// What `io_uring_enter` is given (registered index or descriptor)
    /// and the flags every call carries.
    enter_fd: RawFd,
    enter_flags: u32,
    ring_registered: bool,
    /// Per [`Kind`]: true when it goes through the ring.
    on_ring: [bool; KINDS],
    sync_ops: Vec<Op>,
    /// Results of requests run as system calls, not yet handed over;
    /// preallocated for `depth` so a push never allocates.
    local: Vec<(u32, i32)>,
    /// Requests on the ring (queued or submitted) not yet reaped.
    ring_in_flight: u32,
    /// The `open_how` of each tag's open (index = tag), valid until its
    /// completion is reaped; `depth` entries, grown only for a tag beyond.
    hows: Vec<types::OpenHow>,
    setup: UringSetup,
}

impl UringBackend {
    /// A ring for `depth` requests in flight, created on the calling
    /// thread (the one that will use it), and the kernel's opcodes probed.
    pub fn new(depth: u32) -> io::Result<UringBackend> {
        let entries = depth.next_power_of_two().clamp(1, 32768);
        let mut setup = UringSetup::default();
        let ring = build_ring(entries, &mut setup)?;
        let (enter_fd, enter_flags, ring_registered) = enter_target(&ring, &mut setup);
        let on_ring = probe(&ring);
        Ok(UringBackend {
            ring,
            enter_fd,
            enter_flags,
            ring_registered,
            sync_ops: sync_ops_of(&on_ring),
            on_ring,
            local: Vec::with_capacity(depth.max(1) as usize),
            ring_in_flight: 0,
            hows: vec![types::OpenHow::new(); depth.max(1) as usize],
            setup,
        })
    }

    /// What the ring's set-up got (flags that took, notes).
    pub fn setup(&self) -> &UringSetup {
        &self.setup
    }

    /// Run the requests of `ops` as system calls even where the kernel
    /// has their opcodes (a choice of the driver, and the tests of the
    /// fallback). Requests are shared between operations, so naming one
    /// moves its siblings too (`stat` takes `getattr`: both are statx;
    /// `append` takes `write` and `rewrite`); [`Backend::sync_ops`] then
    /// names them all. Call it before the first push.
    pub fn run_as_syscalls(&mut self, ops: &[Op]) {
        for k in Kind::ALL {
            if k.ops().iter().any(|o| ops.contains(o)) {
                self.on_ring[k as usize] = false;
            }
        }
        self.sync_ops = sync_ops_of(&self.on_ring);
    }

    /// One `io_uring_enter`: submit what is queued, run deferred task
    /// work, wait for `wait` completions. Interruptions and a full
    /// completion queue (EBUSY) are not errors: the caller reaps and
    /// comes back.
    fn try_enter(&mut self, wait: u32) -> io::Result<()> {
        let to_submit = self.ring.submission().len() as u32;
        match enter(self.enter_fd, self.enter_flags, to_submit, wait, None) {
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::EINTR | libc::EBUSY | libc::EAGAIN | libc::ETIME)
                ) =>
            {
                Ok(())
            }
            r => r,
        }
    }

    /// [`Self::try_enter`]; any other failure means the ring itself is
    /// broken (a bug, not an I/O error: those come back per request).
    fn enter(&mut self, wait: u32) {
        if let Err(e) = self.try_enter(wait) {
            panic!(
                "io_uring_enter failed ({e}): a UringBackend must be created, used and \
                 dropped on one thread"
            );
        }
    }

    /// A full submission queue (more requests pushed than the ring's
    /// depth without a reap) goes to the kernel; if the kernel takes none
    /// because the completion queue is full too, completions move to the
    /// local queue (which then grows: the caller pushed beyond `depth`).
    #[cold]
    fn make_room(&mut self) {
        self.enter(0);
        if self.ring.submission().is_full() {
            for c in self.ring.completion() {
                self.local.push((c.user_data() as u32, c.result()));
                self.ring_in_flight -= 1;
            }
        }
    }

    /// Room in the `open_how` table for `tag` (a tag beyond the depth the
    /// ring was made for). Only when no request is on the ring: moving
    /// the table would move memory an open in flight points at.
    #[cold]
    fn grow_hows(&mut self, tag: u32) {
        while self.ring_in_flight > 0 {
            self.enter(self.ring_in_flight);
            let local = &mut self.local;
            let n = {
                let mut n = 0;
                for c in self.ring.completion() {
                    local.push((c.user_data() as u32, c.result()));
                    n += 1;
                }
                n
            };
            self.ring_in_flight -= n;
        }
        self.hows.resize(tag as usize + 1, types::OpenHow::new());
    }

    /// Hand every completion on the ring to `done`; how many.
    fn drain(&mut self, done: &mut impl FnMut(u32, i32)) -> u32 {
        let mut n = 0;
        for c in self.ring.completion() {
            done(c.user_data() as u32, c.result());
            n += 1;
        }
        self.ring_in_flight -= n;
        n
    }
}

impl Backend for UringBackend {
    fn push(&mut self, tag: u32, req: Req) {
        if !self.on_ring[Kind::of(&req) as usize] {
            self.local.push((tag, syscall(&req)));
            return;
        }
        if tag as usize >= self.hows.len() {
            self.grow_hows(tag);
        }
        let e = entry(&req, &mut self.hows[tag as usize]).user_data(tag as u64);
        // SAFETY: the memory the request points at stays valid and
        // untouched until its completion is reaped (backend.rs).
        while unsafe { self.ring.submission().push(&e).is_err() } {
            self.make_room();
        }
        self.ring_in_flight += 1;
    }

    fn reap(&mut self, min: u32, done: &mut impl FnMut(u32, i32)) -> u32 {
        let mut n = self.local.len() as u32;
        for &(tag, res) in &self.local {
            done(tag, res);
        }
        self.local.clear();
        while self.ring_in_flight > 0 {
            let want = min.saturating_sub(n).min(self.ring_in_flight);
            self.enter(want);
            n += self.drain(done);
            if n >= min {
                break;
            }
        }
        n
    }

    fn in_flight(&self) -> u32 {
        self.ring_in_flight + self.local.len() as u32
    }

    fn sync_ops(&self) -> &[Op] {
        &self.sync_ops
    }
}

impl Drop for UringBackend {
    /// Wait for the requests still in flight (so the kernel writes into
    /// no memory their slots free after this), release the registered
    /// ring descriptor; the ring closes after.
    fn drop(&mut self) {
        while self.ring_in_flight > 0 && self.try_enter(self.ring_in_flight).is_ok() {
            self.drain(&mut |_, _| {});
        }
        if self.ring_registered {
            unregister_ring_fd(self.ring.as_raw_fd(), self.enter_fd);
        }
    }
}

#[cfg(test)]
#[path = "uring_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "uring_bench.rs"]
mod bench;
