//! One thread of a file-system workload: `qd` slots, each running an
//! operation (a mix draw, or its flow's next step) as a short sequence of
//! [`Req`]s through a [`Backend`], generic so nothing per operation goes
//! through a `dyn`.
//!
//! The loop, in the spirit of the block worker (`crate::worker`): start an
//! operation in every free slot that is due, reap completions (one clock
//! read per reap batch; operations started after it take that time as
//! their start), advance each slot's operation by its result, close the
//! interval's figures into a snapshot at each boundary. No allocation,
//! lock or formatting per operation: paths are written into buffers the
//! slots own, statistics go into a fixed table indexed by operation, and
//! an error's record (with its path) is made on the cold path only.
//!
//! The steps of an operation are in `action.rs`.

use super::backend::{Backend, Req};
use super::dirs::{DirCache, NO_ENT};
use super::table::Claim;
use super::{Plan, Shared};
use crate::buffers::BufferPool;
use crate::clock::WorkerClock;
use iolab_core::{ErrorTally, GapTracker, Port, Snapshot, Timeline, WorkerEnd};
use iolab_raw::{DirStats, ErrOp, FilesetCounters, IoErrorRec, Op, OpStats};
use iolab_spec::OnError;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Room for a relative path in a slot's buffers (the layout's paths are
/// a few bytes per level).
pub(super) const PATH_CAP: usize = 4096;

/// Where a slot's operation is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Ph {
    /// No operation: the slot may start one.
    Idle,
    Open,
    Xfer,
    /// One request (fsync, statx, unlink, mkdir, rename, access,
    /// setattr).
    One,
    Dents,
    /// Closing the descriptor the operation opened for itself.
    Close,
    /// A flow's `close` of its current file.
    CloseCur,
}

/// One operation in flight, and the flow's current file.
pub(super) struct Slot {
    pub ph: Ph,
    /// Index into the plan's actions.
    pub act: u32,
    pub op: Op,
    pub set: u32,
    pub file: u64,
    /// Rename's target.
    pub file2: u64,
    /// Files claimed: 0, 1 (`file`) or 2 (`file` and `file2`).
    pub claimed: u8,
    /// State bits `file` is released with.
    pub bits: u8,
    /// How `file` is held (alone, or shared).
    pub claim: Claim,
    pub fd: i32,
    /// `fd` was opened for this operation and is closed at its end.
    pub own: bool,
    pub dir_open: bool,
    pub open_flags: i32,
    pub off: u64,
    pub end: u64,
    pub len: u32,
    pub bytes: u64,
    pub start: u64,
    pub due: u64,
    pub wait_until: u64,
    /// Since when a flow step has waited for files held by other threads
    /// (0: not waiting); see `Exec::busy_wait`.
    pub busy_since: u64,
    /// The errno of a failed step (the operation then only closes).
    pub failed: Option<i32>,
    /// A flow's position: step index and iteration.
    pub pos: u32,
    pub iter: u32,
    /// A flow's current file (`cur_fd` -1: none).
    pub cur_set: u32,
    pub cur_file: u64,
    pub cur_fd: i32,
    pub cur_write: bool,
    /// The flags the current file was opened with (O_DIRECT decides how
    /// its transfers are cut).
    pub cur_flags: i32,
    pub cur_claim: Claim,
    /// Where the last sequential transfer ended, on `last_file`.
    pub last_file: u64,
    pub last_pos: u64,
    pub path: Vec<u8>,
    pub path2: Vec<u8>,
    /// The leaf directories (cache entry, descriptor) the operation's
    /// request is relative to (`path`'s, `path2`'s); see `dirs.rs`.
    pub dir: (u32, i32),
    pub dir2: (u32, i32),
    pub stx: Box<libc::statx>,
    pub buf: *mut u8,
}

impl Slot {
    fn new(buf: *mut u8) -> Slot {
        Slot {
            ph: Ph::Idle,
            act: 0,
            op: Op::Read,
            set: 0,
            file: 0,
            file2: 0,
            claimed: 0,
            bits: 0,
            claim: Claim::Excl,
            fd: -1,
            own: false,
            dir_open: false,
            open_flags: 0,
            off: 0,
            end: 0,
            len: 0,
            bytes: 0,
            start: 0,
            due: 0,
            wait_until: 0,
            busy_since: 0,
            failed: None,
            pos: 0,
            iter: 0,
            cur_set: 0,
            cur_file: 0,
            cur_fd: -1,
            cur_write: false,
            cur_flags: 0,
            cur_claim: Claim::Excl,
            last_file: u64::MAX,
            last_pos: 0,
            path: Vec::with_capacity(PATH_CAP),
            path2: Vec::with_capacity(PATH_CAP),
            dir: (NO_ENT, -1),
            dir2: (NO_ENT, -1),
            // SAFETY: statx is plain data; zero is a valid value.
            stx: Box::new(unsafe { std::mem::zeroed() }),
            buf,
        }
    }
}

/// What a thread hands back at its end (through `WorkerEnd::extra`).
pub struct FsWorkerOut {
    pub counters: FilesetCounters,
    pub op_errors: Vec<(Op, i32, u64)>,
    pub skipped: u64,
    /// It stopped the workload: no operation found a file to work on.
    pub starved: bool,
    /// It stopped the workload because this operation (on this fileset)
    /// can never find a file in the state it needs (`starve.rs`).
    pub hopeless: Option<(Op, u32)>,
    /// None of its starts found a file (it tried, and started nothing).
    pub idle: bool,
    /// The workload's operations this thread's backend ran as system
    /// calls.
    pub sync_ops: Vec<Op>,
    /// It sampled CPU per operation, and what it measured.
    pub cpu_sampled: bool,
    pub op_cpu: Vec<(Op, iolab_raw::OpCpuRaw)>,
}

/// One thread's executor.
pub(super) struct Exec<B: Backend> {
    pub be: B,
    pub sh: Arc<Shared>,
    pub plan: Plan,
    pub slots: Vec<Slot>,
    pub pool: BufferPool,
    pub buf_len: usize,
    pub port: Port,
    pub t0: Instant,
    pub clock: WorkerClock,
    pub tl: Timeline,
    pub end_ns: Option<u64>,
    pub rng: fastrand::Rng,
    pub pickers: Vec<super::table::Picker>,
    /// Leaf-directory descriptors for metadata requests.
    pub dirs: DirCache,
    /// This interval's figures, indexed like `plan.ops`.
    pub stats: Vec<DirStats>,
    pub iv_idx: u32,
    pub next_b: u64,
    pub iv_errors: u64,
    pub iv_fsyncs: u64,
    pub measuring: bool,
    pub stopping: bool,
    pub now: u64,
    pub next_due: f64,
    /// Slots with an operation under way.
    pub active: u32,
    pub done: Vec<(u32, i32)>,
    pub counters: FilesetCounters,
    pub op_errors: Vec<(Op, i32, u64)>,
    pub skipped: u64,
    /// Starts in a row that found no file (back off instead of spinning).
    pub skip_streak: u32,
    /// How long an idle thread whose last start found no file sleeps: it
    /// doubles with each such start, from 20 µs to 1 ms, and goes back
    /// to 0 when a start finds a file (waiters on busy files stay cheap).
    pub backoff_ns: u64,
    /// When the last operation started (for the starvation check).
    pub last_ok: u64,
    /// Operations started.
    pub starts: u64,
    /// The last start found files in the state it needs, all held by
    /// other threads.
    pub refused_busy: bool,
    /// The thread stopped: its starts found no file for too long.
    pub starved: bool,
    /// The action of the last start that found no file in the state it
    /// needs and none held by other threads (`u32::MAX`: none yet).
    pub last_miss: u32,
    /// The operation and fileset that can never find a file, when that
    /// stopped the thread.
    pub hopeless: Option<(Op, u32)>,
    pub errors: ErrorTally,
    pub gaps: GapTracker,
    /// CPU per operation, sampled (`cpu_sample.rs`).
    pub cpu: super::cpu_sample::CpuSampler,
}

/// Run one thread to its end; everything goes out through `port`.
pub(super) fn run<B: Backend>(
    be: B,
    sh: Arc<Shared>,
    plan: Plan,
    pool: BufferPool,
    port: Port,
    t0: Instant,
) {
    let mut x = Exec::new(be, sh, plan, pool, port, t0);
    x.main_loop();
    x.finish();
}

impl<B: Backend> Exec<B> {
    fn new(be: B, sh: Arc<Shared>, plan: Plan, pool: BufferPool, port: Port, t0: Instant) -> Self {
        let tl = port.window.timeline;
        let iv_idx = port.window.first_interval();
        let w = plan.worker;
        let pickers = sh
            .sets
            .iter()
            .map(|s| {
                let n = s.table.files();
                super::table::Picker::new(plan.select, n, plan.index, plan.threads, plan.seed)
            })
            .collect();
        let svc = plan.svc;
        let leaves = sh
            .sets
            .iter()
            .map(|s| s.layout.leaf_of(s.table.files()))
            .sum::<u64>();
        Exec {
            dirs: DirCache::new(leaves + sh.sets.len() as u64, sh.threads),
            slots: (0..plan.qd as usize)
                .map(|i| Slot::new(pool.ptr(i)))
                .collect(),
            buf_len: plan.buf_len,
            stats: plan.ops.iter().map(|_| DirStats::new(svc)).collect(),
            rng: fastrand::Rng::with_seed(plan.seed ^ (w as u64 + 1).wrapping_mul(0x9e37_79b9)),
            clock: WorkerClock::new(t0, plan.clock),
            next_b: tl.end(iv_idx),
            iv_idx,
            measuring: tl.warmup_ns == 0,
            next_due: port.window.start_ns as f64 + plan.rate_phase_ns,
            end_ns: port.window.end_ns,
            done: Vec::with_capacity(plan.qd as usize * 2 + 4),
            tl,
            pickers,
            iv_errors: 0,
            iv_fsyncs: 0,
            stopping: false,
            now: 0,
            active: 0,
            counters: FilesetCounters::default(),
            op_errors: Vec::new(),
            skipped: 0,
            skip_streak: 0,
            backoff_ns: 0,
            starts: 0,
            refused_busy: false,
            starved: false,
            last_miss: u32::MAX,
            hopeless: None,
            last_ok: port.window.start_ns,
            errors: ErrorTally::default(),
            gaps: GapTracker::new(),
            cpu: super::cpu_sample::CpuSampler::new(
                be.runs_inline() && plan.qd == 1,
                plan.seed ^ w as u64,
            ),
            be,
            sh,
            plan,
            pool,
            port,
            t0,
        }
    }

    fn main_loop(&mut self) {
        self.now = self.clock.now();
        loop {
            self.check_phase();
            if !self.stopping {
                self.start_ops();
            }
            if self.be.in_flight() == 0 {
                if self.stopping && self.active == 0 {
                    return;
                }
                self.idle();
                continue;
            }
            self.reap();
        }
    }

    /// Warm-up's end and the reasons to stop starting operations.
    #[inline]
    fn check_phase(&mut self) {
        if !self.measuring && self.now >= self.tl.warmup_ns {
            self.measuring = true;
        }
        if self.stopping {
            return;
        }
        let sh = &self.sh;
        if self.port.stop.load(Relaxed)
            || self.end_ns.is_some_and(|e| self.now >= e)
            || sh.ops_left.as_ref().is_some_and(|b| b.load(Relaxed) <= 0)
            || sh.bytes_left.as_ref().is_some_and(|b| b.load(Relaxed) <= 0)
        {
            self.stopping = true;
        }
    }

    /// Start an operation in every idle slot that is due (think time,
    /// rate).
    #[inline]
    fn start_ops(&mut self) {
        for s in 0..self.slots.len() {
            if self.stopping {
                return;
            }
            let sl = &self.slots[s];
            if sl.ph != Ph::Idle || sl.wait_until > self.now {
                continue;
            }
            let due = match self.plan.rate_period_ns {
                Some(p) => {
                    if self.next_due > self.now as f64 {
                        return;
                    }
                    let d = self.next_due as u64;
                    self.next_due += p;
                    d
                }
                None => self.now,
            };
            if self.measuring && !self.charge_op() {
                self.stopping = true;
                return;
            }
            let due = self.cpu_begin(s as u32, due);
            self.begin(s as u32, due);
        }
    }

    /// One operation from the shared `--ops` countdown; false when spent.
    #[inline(always)]
    fn charge_op(&mut self) -> bool {
        match self.sh.ops_left.as_ref() {
            Some(b) => b
                .fetch_update(Relaxed, Relaxed, |v| (v > 0).then_some(v - 1))
                .is_ok(),
            None => true,
        }
    }

    /// Nothing in flight: sleep until the next slot's think time, the next
    /// scheduled operation or the interval's end (and back off after a run
    /// of starts that found no file).
    #[cold]
    fn idle(&mut self) {
        let mut wake = self.next_b;
        if let Some(e) = self.end_ns {
            wake = wake.min(e);
        }
        // An idle slot can start at its think time's end, with a rate not
        // before the next scheduled start, and after a start that found no
        // file not before the back-off (a slot that may not start yet
        // sleeps, it does not spin).
        let mut not_before = self.now + self.backoff_ns;
        if self.plan.rate_period_ns.is_some() {
            not_before = not_before.max(self.next_due as u64);
        }
        for sl in self.slots.iter().filter(|s| s.ph == Ph::Idle) {
            wake = wake.min(sl.wait_until.max(not_before));
        }
        self.sleep_until(wake);
        self.now = self.clock.now();
        if self.now >= self.next_b {
            self.end_intervals();
        }
    }

    fn sleep_until(&self, due_ns: u64) {
        let now = self.t0.elapsed().as_nanos() as u64;
        if due_ns > now {
            let wait = (due_ns - now).min(50_000_000);
            if self.port.stop.load(Relaxed) {
                return;
            }
            std::thread::sleep(Duration::from_nanos(wait));
        }
    }

    /// Submit, wait for at least one completion, advance each slot.
    #[inline]
    fn reap(&mut self) {
        let mut done = std::mem::take(&mut self.done);
        done.clear();
        self.be.reap(1, &mut |tag, res| done.push((tag, res)));
        self.now = self.clock.now();
        if !done.is_empty() {
            self.gaps.completed(self.now, self.tl.warmup_ns);
        }
        for &(tag, res) in done.iter() {
            self.advance(tag, res);
        }
        self.done = done;
        if self.now >= self.next_b {
            self.end_intervals();
        }
    }

    /// Queue `req` for slot `s`.
    #[inline(always)]
    pub(super) fn push(&mut self, s: u32, req: Req) {
        if self.be.in_flight() == 0 {
            self.gaps.busy(self.now);
        }
        self.be.push(s, req);
    }

    /// The operation of slot `s` ended (well, or with `failed`): count it,
    /// free the slot.
    #[inline]
    pub(super) fn record(&mut self, s: u32) {
        let sl = &self.slots[s as usize];
        let (bytes, failed, op) = (sl.bytes, sl.failed, sl.op);
        let idx = self.plan.acts[sl.act as usize].stat as usize;
        if failed.is_none() {
            let d = &mut self.stats[idx];
            d.ops += 1;
            d.bytes += bytes;
            d.lat.record(self.now.saturating_sub(sl.due));
            if let Some(h) = d.svc.as_mut() {
                h.record(self.now.saturating_sub(sl.start));
            }
            if matches!(op, Op::Fsync | Op::Fdatasync) {
                self.iv_fsyncs += 1;
            }
        }
        if bytes > 0 && self.measuring {
            if let Some(b) = self.sh.bytes_left.as_ref() {
                b.fetch_sub(bytes as i64, Relaxed);
            }
        }
        self.active -= 1;
        self.slots[s as usize].ph = Ph::Idle;
        self.cpu_end(s, op, failed.is_none());
    }

    /// Step `ph` of slot `s`'s operation failed with `errno`: count it by
    /// operation and errno, keep a record (the failed step, its path, and
    /// for a transfer its offset and length: [`err_step`]), and stop the
    /// workload when the error is not one of a tree changed by someone
    /// else ([`changed_by_others`]) and `--on-error stop`.
    #[cold]
    pub(super) fn failed(&mut self, s: u32, ph: Ph, errno: i32) {
        self.iv_errors += 1;
        let sl = &self.slots[s as usize];
        let op = sl.op;
        match self
            .op_errors
            .iter_mut()
            .find(|e| e.0 == op && e.1 == errno)
        {
            Some(e) => e.2 += 1,
            None => self.op_errors.push((op, errno, 1)),
        }
        let (now, worker) = (self.now, self.port.worker());
        let set = &self.sh.sets[sl.set as usize];
        let (step, off, len) = err_step(sl, ph);
        // The path is built only for a record kept (not once the records
        // are full: no allocation per failed operation then).
        let path = move || match op {
            // Readdir's directory; rename's name now (maybe `f17.r`).
            Op::Readdir | Op::Rename => {
                let p = &sl.path[..sl.path.len().saturating_sub(1)];
                set.anchor.join(String::from_utf8_lossy(p).as_ref())
            }
            Op::Mkdir | Op::Rmdir => set
                .anchor
                .join(format!("{}.d", set.layout.file_path(sl.file).display())),
            _ => set.anchor.join(set.layout.file_path(sl.file)),
        };
        self.errors.add(errno, || IoErrorRec {
            target: path().display().to_string(),
            offset: off,
            len,
            op: step,
            errno,
            time_ns: now,
            worker,
        });
        if !changed_by_others(errno) && self.plan.on_error == OnError::Stop {
            self.stopping = true;
            self.port.stop.store(true, Relaxed);
        }
    }

    /// Send the snapshot of every interval that ended by now.
    #[cold]
    fn end_intervals(&mut self) {
        while self.now >= self.next_b {
            let end = self.next_b;
            self.send_snapshot(end);
            self.next_b = self.tl.end(self.iv_idx);
        }
        self.clock.resync();
    }

    fn send_snapshot(&mut self, end_ns: u64) {
        let svc = self.plan.svc;
        let mut ops = OpStats::default();
        for (i, &op) in self.plan.ops.iter().enumerate() {
            ops.set(
                op,
                std::mem::replace(&mut self.stats[i], DirStats::new(svc)),
            );
        }
        let mut snap = Box::new(Snapshot::new(self.iv_idx, ops));
        snap.end_ns = end_ns;
        snap.errors = std::mem::take(&mut self.iv_errors);
        snap.fsyncs = std::mem::take(&mut self.iv_fsyncs);
        self.port.interval(snap);
        self.iv_idx += 1;
    }

    /// Close what flows left open, send the last snapshot and the end.
    fn finish(mut self) {
        for s in 0..self.slots.len() {
            self.drop_current(s as u32);
        }
        for (p, set) in self.pickers.iter_mut().zip(&self.sh.sets) {
            p.forget(&set.table);
        }
        if self.now >= self.tl.start(self.iv_idx) {
            self.send_snapshot(self.now);
        }
        let out = FsWorkerOut {
            counters: self.counters,
            op_errors: std::mem::take(&mut self.op_errors),
            skipped: self.skipped,
            starved: self.starved,
            hopeless: self.hopeless,
            idle: self.skipped > 0 && self.starts == 0,
            sync_ops: self
                .plan
                .ops
                .iter()
                .copied()
                .filter(|o| self.be.sync_ops().contains(o))
                .collect(),
            cpu_sampled: self.cpu.sampled(),
            op_cpu: self.cpu.out(),
        };
        let Exec {
            be,
            pool,
            port,
            gaps,
            errors,
            now,
            ..
        } = self;
        drop(be);
        drop(pool);
        port.done(WorkerEnd {
            errors,
            gaps,
            end_ns: now,
            fatal: None,
            extra: Some(Box::new(out)),
        });
    }
}

/// What an error record says failed, and where: a transfer names its
/// step (`read`, `write`, `append`, `rewrite`: a `create`'s whole-file
/// write is a `write`) with the piece's offset and length; every other
/// step has no offset (0 and 0 in the record, which carries none for
/// these operations: docs/results.md), and names what failed: the open
/// of a mix's read or write is an `open` (`create` for a create's),
/// its close a `close`, a request of its own the operation.
fn err_step(sl: &Slot, ph: Ph) -> (ErrOp, u64, u32) {
    match (ph, sl.op) {
        (Ph::Xfer, Op::Read | Op::Append | Op::Rewrite) => (ErrOp::from(sl.op), sl.off, sl.len),
        (Ph::Xfer, _) => (ErrOp::Write, sl.off, sl.len),
        (Ph::Open, Op::Create | Op::Readdir) => (ErrOp::from(sl.op), 0, 0),
        (Ph::Open, _) => (ErrOp::Open, 0, 0),
        (Ph::Close | Ph::CloseCur, _) => (ErrOp::Close, 0, 0),
        _ => (ErrOp::from(sl.op), 0, 0),
    }
}

/// Errors that say someone else changed the tree during the run: a file
/// or directory removed (ENOENT, ESTALE), made (EEXIST), filled
/// (ENOTEMPTY), replaced by another kind or a symbolic link (ENOTDIR,
/// EISDIR, ELOOP, EXDEV: a path that would leave the anchor), or a file
/// cut short (0: a short transfer). They are counted, with their path,
/// and never stop the workload, even with `--on-error stop`; any other
/// error (EIO, ENOSPC, EACCES, EROFS, ...) stops it then.
pub(super) fn changed_by_others(errno: i32) -> bool {
    matches!(
        errno,
        0 | libc::ENOENT
            | libc::ESTALE
            | libc::EEXIST
            | libc::ENOTEMPTY
            | libc::ENOTDIR
            | libc::EISDIR
            | libc::ELOOP
            | libc::EXDEV
    )
}
