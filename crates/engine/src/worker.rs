//! The block driver's worker loop: one thread, one engine, `qd` slots.
//!
//! Per I/O it does only this: draw the next I/O from the generator, stamp
//! write buffers, queue it, and on completion record its latency and count
//! it. Clock reads are per batch (one after each reap), not per I/O, and
//! read the TSC where that is safe ([`crate::clock`]); the only allocation
//! is per interval (the snapshot sent to the run core through its
//! [`Port`]).
//!
//! The loop is cut into steps ([`Worker::issue`], [`Worker::reap`],
//! [`Worker::complete`], ...) that each fit on a screen;
//! `tests/fn_length.rs` keeps them that way.
//!
//! Buffer lifetime: the engine may hold the addresses of the pool's
//! buffers (io_uring registers them) and write into them until each I/O
//! completes. [`Worker::finish`] therefore drains every outstanding I/O,
//! drops the engine, and only then unmaps the pool; if the drain fails,
//! the pool is leaked rather than unmapped under the kernel's feet.

use crate::buffers::BufferPool;
use crate::clock::{TscRate, WorkerClock};
use crate::data::{BufState, DataGen};
use crate::engines::{Cqe, Engine, OpKind, Sqe};
use crate::gen::{Dir, IoGen, IoPlan};
use crate::verify::{Hooks, WorkerVerify};
use iolab_core::{ErrorTally, GapTracker, Port, Snapshot, Timeline, WorkerEnd};
use iolab_raw::{DirStats, ErrOp, IoErrorRec, Op, OpStats};
use iolab_spec::OnError;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

// A slot's op; reads, writes and trims index `Worker::dirs` with it.
const OP_READ: u8 = 0;
const OP_WRITE: u8 = 1;
const OP_TRIM: u8 = 2;
const OP_FSYNC: u8 = 3;
/// The re-read of a completed write (`--verify-after`): checked, not
/// counted as workload I/O.
const OP_READ_AFTER: u8 = 4;

/// How long [`Worker::finish`] waits for outstanding I/O after a fatal
/// engine error before giving up on it (and leaking the buffers).
const DRAIN_LIMIT: Duration = Duration::from_secs(30);

#[derive(Clone, Copy, Default)]
struct Slot {
    op: u8,
    target: u32,
    len: u32,
    offset: u64,
    submit_ns: u64,
    due_ns: u64,
}

/// What a worker is told to do (its part of the workload).
pub struct WorkerCtx {
    /// The TSC rate where the workers read the TSC (`--clock`), else None.
    pub clock: Option<TscRate>,
    pub qd: u32,
    /// Completions to wait for before refilling (`--batch-complete`).
    pub batch_complete: u32,
    pub gen: IoGen,
    pub data: DataGen,
    /// The slots' base content when reads and writes share them, else
    /// empty ([`fill_buffers`]).
    pub base: Vec<u8>,
    /// Paths of this worker's targets (for error records).
    pub target_paths: Vec<String>,
    /// This worker's share of `--ops` / `--io-size` (after warm-up).
    pub budget_ops: Option<u64>,
    pub budget_bytes: Option<u64>,
    /// Nanoseconds between this worker's scheduled I/Os with `--rate`.
    pub rate_period_ns: Option<f64>,
    pub rate_phase_ns: f64,
    /// With a rate: exponential gaps of mean `rate_period_ns` (a Poisson
    /// process, fio `rate_process=poisson`) drawn from this seeded
    /// generator; `None`: evenly spaced.
    pub poisson: Option<fastrand::Rng>,
    /// Pause this long (ns) after every `think_blocks` I/Os, once they
    /// have all completed (fio thinktime); 0: never.
    pub think_ns: u64,
    pub think_blocks: u64,
    /// fio's flow control with the run's other workloads of one flow id.
    pub flow: Option<crate::flow::FlowCtl>,
    /// Sync after every N writes (`fsync_every` or `fdatasync_every`,
    /// the smaller); 0: never.
    pub fsync_every: u64,
    /// The sync every N writes issue: fsync or fdatasync.
    pub sync_kind: OpKind,
    /// fsync every written target when the worker ends (fio end_fsync).
    pub end_fsync: bool,
    pub on_error: OnError,
    /// `fill`: a write that meets ENOSPC or EDQUOT ends the workload and
    /// is counted here, not as an error (fio fill_device).
    pub fill: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
    /// `--verify`: lock, stamp and check every I/O (the task hands it
    /// to [`run`] as its hooks).
    pub verify: Option<WorkerVerify>,
}

/// An exponentially distributed gap of mean `mean` (inverse transform of
/// a uniform draw in (0, 1]).
#[inline]
fn exp_gap(rng: &mut fastrand::Rng, mean: f64) -> f64 {
    -(1.0 - rng.f64()).ln() * mean
}

fn now_ns(t0: Instant) -> u64 {
    t0.elapsed().as_nanos() as u64
}

fn sleep_until(t0: Instant, due_ns: u64) {
    let now = now_ns(t0);
    if due_ns <= now {
        return;
    }
    let wait = due_ns - now;
    if wait > 200_000 {
        std::thread::sleep(Duration::from_nanos(wait - 100_000));
    }
    while now_ns(t0) < due_ns {
        std::hint::spin_loop();
    }
}

/// Fill every slot with the data pattern's base content (before the clock
/// starts): the same in every slot of a worker. With `keep_base` (reads
/// and writes share the slots) a copy is returned, to put back what a read
/// overwrote before the slot is written from ([`DataGen::prepare_write`]).
pub fn fill_buffers(pool: &mut BufferPool, data: &DataGen, index: u32, keep_base: bool) -> Vec<u8> {
    let mut rng = fastrand::Rng::with_seed(index as u64 ^ 0x5eed);
    data.fill_base(pool.slot_mut(0), &mut rng);
    let base = pool.slot_mut(0).to_vec();
    for s in 1..pool.slots() {
        pool.slot_mut(s).copy_from_slice(&base);
    }
    if keep_base {
        base
    } else {
        Vec::new()
    }
}

/// What the issue step does next.
enum Flow {
    Go,
    Stop,
    /// A fatal engine error (in `Worker::fatal`).
    Fatal,
}

/// One worker's state. Fields drop in declaration order: the engine
/// before the pool its registered buffers point into (and
/// [`Worker::finish`] drains the engine and drops both explicitly).
struct Worker<E: Engine, V: Hooks> {
    eng: E,
    pool: BufferPool,
    hooks: V,
    c: WorkerCtx,
    port: Port,
    t0: Instant,
    clock: WorkerClock,
    tl: Timeline,
    end_ns: Option<u64>,
    slots: Vec<Slot>,
    bufst: Vec<BufState>,
    free: Vec<u32>,
    cqes: Vec<Cqe>,
    /// With --verify, I/O planned this pass is queued together after it
    /// (so the journal can be synced once before a batch of writes).
    batch: Vec<Sqe>,
    batch_writes: bool,
    /// A planned I/O whose blocks another in-flight I/O holds (--verify).
    held: Option<(IoPlan, u64)>,
    iv_idx: u32,
    next_b: u64,
    /// This interval's reads, writes and trims, indexed by the slot's op
    /// (no branch per I/O; the fourth, never counted in, lets `op & 3`
    /// index without a bounds check); folded into the snapshot's table at
    /// the boundary.
    dirs: [DirStats; 4],
    /// The workload trims (its table has a trim slot).
    trims: bool,
    iv_errors: u64,
    iv_fsyncs: u64,
    inflight: u32,
    inflight_bytes: u64,
    measuring: bool,
    stopping: bool,
    write_seq: u64,
    writes_since_fsync: u64,
    fsync_due: bool,
    /// Targets written since the last sync, one bit each (targets from 63
    /// on share bit 63); every one of them gets its own fsync.
    ntargets: u32,
    dirty: u64,
    fsync_cursor: u32,
    next_due: f64,
    /// The sync the next due sync issues (`sync_kind`, fsync at the end).
    sync_op: OpKind,
    /// I/Os left before the next think pause (`u64::MAX`: no think).
    think_left: u64,
    /// A think pause is due once nothing is in flight, or under way.
    thinking: bool,
    /// The pause's end (0: not started).
    think_until: u64,
    /// The flow said this worker is ahead: pause once nothing is in flight.
    flow_held: bool,
    gaps: GapTracker,
    errors: ErrorTally,
    fatal: Option<String>,
    budget_ops: Option<u64>,
    budget_bytes: Option<u64>,
    now: u64,
}

/// Run the worker to its end; everything goes out through `port`.
///
/// `V` is [`crate::verify::NoVerify`] without `--verify`: its hooks are
/// empty and `V::ON` is false, so the plain loop compiles without them.
pub fn run<E: Engine, V: Hooks>(
    c: WorkerCtx,
    eng: E,
    pool: BufferPool,
    hooks: V,
    port: Port,
    t0: Instant,
) {
    // SAFETY: prctl(PR_SET_TIMERSLACK) only changes this thread's timer
    // slack (1 ns), so rate-limited sleeps wake on time.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1u64, 0, 0, 0);
    }
    let mut w = Worker::new(c, eng, pool, hooks, port, t0);
    w.main_loop();
    w.finish();
}

impl<E: Engine, V: Hooks> Worker<E, V> {
    fn new(c: WorkerCtx, eng: E, pool: BufferPool, mut hooks: V, port: Port, t0: Instant) -> Self {
        let qd = c.qd as usize;
        let svc = c.rate_period_ns.is_some();
        let tl = port.window.timeline;
        let iv_idx = port.window.first_interval();
        hooks.start(t0);
        let clock = WorkerClock::new(t0, c.clock);
        Worker {
            slots: vec![Slot::default(); qd],
            bufst: vec![BufState::default(); qd],
            free: (0..qd as u32).rev().collect(),
            cqes: Vec::with_capacity(qd * 2 + 8),
            batch: Vec::with_capacity(qd + 1),
            batch_writes: false,
            held: None,
            iv_idx,
            next_b: tl.end(iv_idx),
            dirs: std::array::from_fn(|_| DirStats::new(svc)),
            trims: c.gen.trims(),
            iv_errors: 0,
            iv_fsyncs: 0,
            inflight: 0,
            inflight_bytes: 0,
            measuring: tl.warmup_ns == 0,
            stopping: false,
            write_seq: 0,
            writes_since_fsync: 0,
            fsync_due: false,
            ntargets: c.target_paths.len().max(1) as u32,
            dirty: 0,
            fsync_cursor: 0,
            next_due: port.window.start_ns as f64 + c.rate_phase_ns,
            sync_op: c.sync_kind,
            think_left: if c.think_ns > 0 {
                c.think_blocks.max(1)
            } else {
                u64::MAX
            },
            thinking: false,
            think_until: 0,
            flow_held: false,
            gaps: GapTracker::new(),
            errors: ErrorTally::default(),
            fatal: None,
            budget_ops: c.budget_ops,
            budget_bytes: c.budget_bytes,
            now: clock.now(),
            end_ns: port.window.end_ns,
            tl,
            clock,
            t0,
            eng,
            pool,
            hooks,
            c,
            port,
        }
    }

    fn main_loop(&mut self) {
        loop {
            self.check_phase();
            if let Flow::Fatal = self.issue() {
                return;
            }
            if let Err(e) = self.flush_batch() {
                self.fatal = Some(format!("queueing I/O: {e}"));
                return;
            }
            if self.inflight == 0 {
                if self.stopping {
                    if self.end_sync_due() {
                        continue;
                    }
                    return;
                }
                self.idle();
                continue;
            }
            if let Err(e) = self.reap() {
                self.fatal = Some(format!("waiting for completions: {e}"));
                return;
            }
        }
    }

    /// Warm-up's end and the reasons to stop issuing.
    #[inline]
    fn check_phase(&mut self) {
        let now = self.now;
        if !self.measuring && now >= self.tl.warmup_ns {
            self.measuring = true;
            // In-flight warm-up I/O completes in measured time: charge it.
            if let Some(b) = self.budget_ops.as_mut() {
                *b = b.saturating_sub(self.inflight as u64);
            }
            if let Some(b) = self.budget_bytes.as_mut() {
                *b = b.saturating_sub(self.inflight_bytes);
            }
        }
        if !self.stopping
            && (self.port.stop.load(Ordering::Relaxed)
                || self.end_ns.is_some_and(|e| now >= e)
                || self.budget_ops == Some(0)
                || self.budget_bytes == Some(0))
        {
            self.stopping = true;
        }
    }

    /// Hand `sqe` to the engine, or to the batch with --verify.
    #[inline(always)]
    fn queue(&mut self, sqe: Sqe) -> std::io::Result<()> {
        if V::ON {
            self.batch.push(sqe);
            Ok(())
        } else {
            self.eng.queue(&sqe)
        }
    }

    #[inline(always)]
    fn went_busy(&mut self) {
        if self.inflight == 0 {
            self.gaps.busy(self.now);
        }
        self.inflight += 1;
    }

    /// Issue while there is a free slot and something to issue. A due
    /// fsync is issued even when stopping, so every N writes are followed
    /// by a sync.
    #[inline]
    fn issue(&mut self) -> Flow {
        while (!self.stopping || self.fsync_due) && !self.free.is_empty() {
            if self.fsync_due {
                match self.issue_fsync() {
                    Flow::Go => continue,
                    f => return f,
                }
            }
            if self.stopping {
                break;
            }
            match self.issue_io() {
                Flow::Go => {}
                Flow::Stop => break,
                f => return f,
            }
        }
        Flow::Go
    }

    /// The next dirty target's fsync, once nothing is in flight. `Go`:
    /// look again (nothing left to sync); `Stop`: issue nothing more now.
    #[cold]
    fn issue_fsync(&mut self) -> Flow {
        if self.inflight > 0 {
            return Flow::Stop;
        }
        let Some(target) = self.next_dirty() else {
            self.synced_all();
            return Flow::Go;
        };
        self.fsync_cursor = target + 1;
        let slot = self.free.pop().unwrap_or(0);
        let now = self.now;
        self.slots[slot as usize] = Slot {
            op: OP_FSYNC,
            target,
            len: 0,
            offset: 0,
            submit_ns: now,
            due_ns: now,
        };
        let buf = self.pool.ptr(slot as usize);
        let sqe = Sqe {
            slot,
            op: self.sync_op,
            file: target,
            offset: 0,
            len: 0,
            buf,
            ioprio: 0,
        };
        if let Err(e) = self.queue(sqe) {
            return self.fatal(format!("queueing fsync: {e}"));
        }
        self.went_busy();
        if self.next_dirty().is_none() {
            // The last one: I/O goes on while it runs.
            self.synced_all();
        }
        Flow::Stop
    }

    #[cold]
    fn end_sync_due(&mut self) -> bool {
        if !self.c.end_fsync || self.dirty == 0 || self.fsync_due {
            return false;
        }
        // Once: every target written since the last sync, with fsync.
        self.c.end_fsync = false;
        self.sync_op = OpKind::Fsync;
        self.fsync_due = true;
        self.fsync_cursor = 0;
        true
    }

    #[cold]
    fn fatal(&mut self, why: String) -> Flow {
        self.fatal = Some(why);
        Flow::Fatal
    }

    fn next_dirty(&self) -> Option<u32> {
        (self.fsync_cursor..self.ntargets).find(|&t| self.dirty & (1 << t.min(63)) != 0)
    }

    fn synced_all(&mut self) {
        self.fsync_due = false;
        self.writes_since_fsync = 0;
        self.dirty = 0;
        self.fsync_cursor = 0;
    }

    /// The next I/O and its due time, charged to the budget; `None` when
    /// it is not due yet (--rate) or the budget is spent.
    #[inline(always)]
    fn next_plan(&mut self) -> Option<(IoPlan, u64)> {
        if let Some(h) = self.held.take() {
            return Some(h);
        }
        if self.thinking {
            return None;
        }
        if let Some(f) = self.c.flow.as_ref() {
            if f.ahead() {
                self.flow_held = true;
                return None;
            }
        }
        let due = match self.c.rate_period_ns {
            Some(p) => {
                if self.next_due > self.now as f64 {
                    return None;
                }
                let d = self.next_due as u64;
                self.next_due += match self.c.poisson.as_mut() {
                    Some(rng) => exp_gap(rng, p),
                    None => p,
                };
                d
            }
            None => self.now,
        };
        let mut plan = self.c.gen.next_io();
        if self.measuring {
            plan.len = self.charge(plan.len);
            if plan.len == 0 {
                self.stopping = true;
                return None;
            }
        }
        if let Some(f) = self.c.flow.as_mut() {
            f.count();
        }
        Some((plan, due))
    }

    /// Take one I/O of `len` bytes from the budget: the length to issue,
    /// 0 when the budget is spent. The last I/O of a byte budget is cut
    /// to what is left when that is aligned, as fio cuts it, so a mix of
    /// block sizes ends on the byte count (not up to a block beyond).
    #[inline(always)]
    fn charge(&mut self, len: u32) -> u32 {
        if let Some(b) = self.budget_ops.as_mut() {
            if *b == 0 {
                return 0;
            }
            *b -= 1;
        }
        let mut len = len;
        if let Some(b) = self.budget_bytes.as_mut() {
            if *b == 0 {
                return 0;
            }
            if *b < len as u64 && *b % self.c.gen.align() == 0 {
                len = *b as u32;
            }
            *b = b.saturating_sub(len as u64);
        }
        len
    }

    /// Plan, prepare and queue one read or write.
    #[inline(always)]
    fn issue_io(&mut self) -> Flow {
        let Some((plan, due)) = self.next_plan() else {
            return Flow::Stop;
        };
        if V::ON && !self.hooks.try_lock(&plan) {
            self.held = Some((plan, due));
            return Flow::Stop;
        }
        let slot = self.free.pop().unwrap_or(0);
        let op = match plan.dir {
            Dir::Read => {
                let st = &mut self.bufst[slot as usize];
                st.read = st.read.max(plan.len);
                OpKind::Read
            }
            Dir::Write => {
                self.prepare_write(slot, &plan);
                OpKind::Write
            }
            Dir::Trim => self.prepare_trim(&plan),
        };
        self.slots[slot as usize] = Slot {
            op: plan.dir as u8,
            target: plan.target,
            len: plan.len,
            offset: plan.offset,
            submit_ns: self.now,
            due_ns: due,
        };
        let buf = self.pool.ptr(slot as usize);
        let sqe = Sqe {
            slot,
            op,
            file: plan.target,
            offset: plan.offset,
            len: plan.len,
            buf,
            ioprio: self.c.gen.ioprio(&plan),
        };
        if let Err(e) = self.queue(sqe) {
            return self.fatal(format!("queueing I/O: {e}"));
        }
        self.went_busy();
        self.inflight_bytes += plan.len as u64;
        // Wrapping: a held I/O (--verify) may still go out during a pause.
        self.think_left = self.think_left.wrapping_sub(1);
        if self.think_left == 0 {
            self.thinking = true;
            return Flow::Stop;
        }
        Flow::Go
    }

    /// Fill a write's buffer (data pattern or verification stamps) and
    /// note what the write makes due (an fsync).
    #[inline(always)]
    fn prepare_write(&mut self, slot: u32, plan: &IoPlan) {
        self.write_seq += 1;
        let buf = self.pool.slot_mut(slot as usize);
        if V::ON {
            self.hooks.stamp(buf, plan, self.now);
        } else {
            self.c.data.prepare_write(
                buf,
                plan.len as usize,
                plan.offset,
                self.write_seq,
                self.c.gen.rng(),
                &mut self.bufst[slot as usize],
                &self.c.base,
            );
        }
        self.batch_writes = true;
        self.writes_since_fsync += 1;
        self.dirty |= 1 << plan.target.min(63);
        if self.c.fsync_every > 0 && self.writes_since_fsync >= self.c.fsync_every {
            self.fsync_due = true;
        }
    }

    /// A trim changes the target as a write does: it counts towards
    /// `fsync_every` and marks its target for the next sync.
    #[cold]
    fn prepare_trim(&mut self, plan: &IoPlan) -> OpKind {
        self.writes_since_fsync += 1;
        self.dirty |= 1 << plan.target.min(63);
        if self.c.fsync_every > 0 && self.writes_since_fsync >= self.c.fsync_every {
            self.fsync_due = true;
        }
        OpKind::Trim
    }

    /// With --verify: sync the journal if needed, then queue the batch.
    #[inline]
    fn flush_batch(&mut self) -> std::io::Result<()> {
        if !V::ON || self.batch.is_empty() {
            return Ok(());
        }
        self.hooks.before_submit(self.batch_writes);
        self.batch_writes = false;
        for i in 0..self.batch.len() {
            if let Err(e) = self.eng.queue(&self.batch[i]) {
                // What the engine never got is not in flight.
                self.inflight -= (self.batch.len() - i) as u32;
                self.batch.clear();
                return Err(e);
            }
        }
        self.batch.clear();
        Ok(())
    }

    /// Nothing in flight and nothing issued: wait for the next scheduled
    /// I/O (--rate) or boundary, or for another worker's locks.
    #[cold]
    fn idle(&mut self) {
        if self.held.is_some() {
            // Another worker's I/O holds the blocks of our next one.
            std::thread::yield_now();
        }
        if self.thinking {
            return self.think();
        }
        if self.flow_held {
            return self.flow_pause();
        }
        if self.c.rate_period_ns.is_some() {
            let target = (self.next_due as u64).min(self.next_b);
            sleep_until(self.t0, target);
        }
        self.now = self.clock.now();
        if self.now >= self.next_b {
            self.end_intervals();
        }
    }

    /// Ahead of its flow share with nothing in flight: sleep `flow_sleep`
    /// (at most to the next boundary or the workload's end), or yield.
    #[cold]
    fn flow_pause(&mut self) {
        self.flow_held = false;
        let ns = self.c.flow.as_ref().map_or(0, |f| f.sleep_ns);
        if ns == 0 {
            std::thread::yield_now();
        } else {
            let wake = (self.now + ns)
                .min(self.next_b)
                .min(self.end_ns.unwrap_or(u64::MAX));
            sleep_until(self.t0, wake);
        }
        self.now = self.clock.now();
        if self.now >= self.next_b {
            self.end_intervals();
        }
    }

    /// Nothing in flight after `think_blocks` I/Os: pause for `think`
    /// (fio thinktime), waking at each interval boundary and the
    /// workload's end, which may stop it.
    #[cold]
    fn think(&mut self) {
        if self.think_until == 0 {
            self.think_until = self.now + self.c.think_ns;
        }
        let wake = self
            .think_until
            .min(self.next_b)
            .min(self.end_ns.unwrap_or(u64::MAX));
        sleep_until(self.t0, wake);
        self.now = self.clock.now();
        if self.now >= self.think_until {
            self.thinking = false;
            self.think_until = 0;
            self.think_left = self.c.think_blocks.max(1);
        }
        if self.now >= self.next_b {
            self.end_intervals();
        }
    }

    /// Wait for --batch-complete completions (at least one; no more than
    /// are in flight), waking at the next interval boundary (and the next
    /// scheduled I/O with --rate) regardless; then complete them.
    #[inline]
    fn reap(&mut self) -> std::io::Result<()> {
        let mut wake = self.next_b;
        if self.c.rate_period_ns.is_some() && !self.free.is_empty() && !self.stopping {
            wake = wake.min(self.next_due as u64);
        }
        let timeout = Some(wake.saturating_sub(self.now).max(1000));
        self.cqes.clear();
        let want = self.c.batch_complete.min(self.inflight).max(1);
        self.eng.submit_and_reap(want, timeout, &mut self.cqes)?;
        self.now = self.clock.now();
        if self.now >= self.next_b {
            self.end_intervals();
        }
        if self.cqes.is_empty() {
            return Ok(());
        }
        self.gaps.completed(self.now, self.tl.warmup_ns);
        // Taken out of `self` for the loop, so its length and items stay
        // in registers while `complete` changes the worker.
        let cqes = std::mem::take(&mut self.cqes);
        for &cq in cqes.iter() {
            self.complete(cq);
        }
        self.cqes = cqes;
        Ok(())
    }

    /// One completion: free its slot (or re-read it), count it or record
    /// its error.
    #[inline(always)]
    fn complete(&mut self, cq: Cqe) {
        let s = self.slots[cq.slot as usize];
        let ok = cq.res == s.len as i32;
        if V::ON && s.op == OP_READ_AFTER {
            return self.complete_read_after(cq, s, ok);
        }
        // A verified write that completed is re-read in the same slot
        // with --verify-after; its blocks stay locked meanwhile.
        let reread = V::ON && ok && s.op == OP_WRITE && self.hooks.wants_after();
        if !reread {
            self.free.push(cq.slot);
            self.inflight -= 1;
        }
        let failed = if s.op == OP_FSYNC {
            self.complete_fsync(cq, s)
        } else {
            self.inflight_bytes -= s.len as u64;
            if V::ON {
                self.verify_done(cq, s, ok, reread);
            }
            if ok {
                // OP_READ is 0, OP_WRITE 1, OP_TRIM 2: the slot's op
                // indexes the table (fsyncs and re-reads never get here).
                let d = &mut self.dirs[(s.op & 3) as usize];
                d.ops += 1;
                d.bytes += s.len as u64;
                d.lat.record(self.now.saturating_sub(s.due_ns));
                if let Some(h) = d.svc.as_mut() {
                    h.record(self.now.saturating_sub(s.submit_ns));
                }
                None
            } else {
                // A negative result is -errno; a short transfer is errno 0.
                Some(if cq.res < 0 { -cq.res } else { 0 })
            }
        };
        if let Some(errno) = failed {
            self.failed(&s, errno);
        }
    }

    #[cold]
    fn complete_fsync(&mut self, cq: Cqe, s: Slot) -> Option<i32> {
        self.iv_fsyncs += 1;
        if V::ON && cq.res >= 0 {
            self.hooks.fsync_done(s.target);
        }
        (cq.res < 0).then_some(-cq.res)
    }

    /// --verify: a write's or read's completion for the hooks, and the
    /// --verify-after re-read of a completed write.
    fn verify_done(&mut self, cq: Cqe, s: Slot, ok: bool, reread: bool) {
        if s.op == OP_WRITE {
            self.hooks.write_done(s.target, s.offset, s.len, ok, reread);
        } else if self.finish_read(&s, &cq, false) {
            self.stop_workload();
        }
        if reread {
            self.slots[cq.slot as usize].op = OP_READ_AFTER;
            self.batch.push(Sqe {
                slot: cq.slot,
                op: OpKind::Read,
                file: s.target,
                offset: s.offset,
                len: s.len,
                buf: self.pool.ptr(cq.slot as usize),
                ioprio: 0,
            });
        }
    }

    fn complete_read_after(&mut self, cq: Cqe, s: Slot, ok: bool) {
        self.free.push(cq.slot);
        self.inflight -= 1;
        if self.finish_read(&s, &cq, true) {
            self.stop_workload();
        }
        if !ok {
            self.failed_record(&s, if cq.res < 0 { -cq.res } else { 0 });
        }
    }

    fn stop_workload(&mut self) {
        self.stopping = true;
        self.port.stop.store(true, Ordering::Relaxed);
    }

    /// A verified read (or `--verify-after` re-read) completed: check its
    /// data when it succeeded, release its blocks either way. True when
    /// the workload should stop (`--max-errors`).
    fn finish_read(&mut self, s: &Slot, cq: &Cqe, after: bool) -> bool {
        if cq.res != s.len as i32 {
            self.hooks.unlock(s.target, s.offset, s.len);
            return false;
        }
        let data = &self.pool.slot_mut(cq.slot as usize)[..s.len as usize];
        let path = &self.c.target_paths[s.target as usize];
        self.hooks
            .check_read(data, (s.target, s.offset, s.len), path, after, self.now)
    }

    #[cold]
    fn failed(&mut self, s: &Slot, errno: i32) {
        if let Some(full) = &self.c.fill {
            // A short write (errno 0) is the file system filling mid-write.
            if s.op == OP_WRITE && matches!(errno, 0 | libc::ENOSPC | libc::EDQUOT) {
                // The natural end of a fill: this worker stops issuing;
                // the others stop at their own ENOSPC or budget.
                full.fetch_add(1, Ordering::Relaxed);
                self.stopping = true;
                return;
            }
        }
        self.failed_record(s, errno);
        if self.c.on_error == OnError::Stop {
            self.stop_workload();
        }
    }

    #[cold]
    fn failed_record(&mut self, s: &Slot, errno: i32) {
        self.iv_errors += 1;
        let (now, worker) = (self.now, self.port.worker());
        let paths = &self.c.target_paths;
        self.errors.add(errno, || IoErrorRec {
            target: paths.get(s.target as usize).cloned().unwrap_or_default(),
            offset: s.offset,
            len: s.len,
            op: match s.op {
                OP_READ | OP_READ_AFTER => ErrOp::Read,
                OP_WRITE => ErrOp::Write,
                OP_TRIM => ErrOp::Trim,
                _ => ErrOp::Fsync,
            },
            errno,
            time_ns: now,
            worker,
        });
    }

    /// Send the snapshot of every interval that ended by now, then
    /// re-anchor the worker's clock (once per interval, off the per-I/O
    /// path).
    #[cold]
    fn end_intervals(&mut self) {
        while self.now >= self.next_b {
            let end = self.next_b;
            self.send_snapshot(end);
            self.next_b = self.tl.end(self.iv_idx);
        }
        self.clock.resync();
    }

    /// Fold this interval's figures into a snapshot and send it.
    fn send_snapshot(&mut self, end_ns: u64) {
        let svc = self.c.rate_period_ns.is_some();
        let mut ops = OpStats::default();
        ops.set(
            Op::Read,
            std::mem::replace(&mut self.dirs[0], DirStats::new(svc)),
        );
        ops.set(
            Op::Write,
            std::mem::replace(&mut self.dirs[1], DirStats::new(svc)),
        );
        if self.trims {
            ops.set(
                Op::Trim,
                std::mem::replace(&mut self.dirs[2], DirStats::new(svc)),
            );
        }
        let mut snap = Box::new(Snapshot::new(self.iv_idx, ops));
        snap.end_ns = end_ns;
        snap.errors = std::mem::take(&mut self.iv_errors);
        snap.fsyncs = std::mem::take(&mut self.iv_fsyncs);
        self.port.interval(snap);
        self.iv_idx += 1;
    }

    /// Wait for every outstanding I/O (after a fatal engine error the
    /// loop leaves some in flight). True when none is left.
    fn drain(&mut self) -> bool {
        let give_up = Instant::now() + DRAIN_LIMIT;
        while self.inflight > 0 && Instant::now() < give_up {
            self.cqes.clear();
            match self
                .eng
                .submit_and_reap(self.inflight, Some(100_000_000), &mut self.cqes)
            {
                Ok(()) => self.inflight -= (self.cqes.len() as u32).min(self.inflight),
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(_) => return false,
            }
        }
        self.inflight == 0
    }

    /// Send the last (partial) snapshot and the worker's end; drain the
    /// engine and drop it before the buffers it may write into.
    fn finish(mut self) {
        let drained = self.inflight == 0 || self.drain();
        // A worker stopped before its workload's start has no interval.
        if self.now >= self.tl.start(self.iv_idx) {
            self.send_snapshot(self.now);
        }
        // The worker's end: its last completion, or the end of its
        // schedule with --rate (the idle tail is part of a paced run, so
        // a rate over the measured time stays the rate asked for).
        let end = self.now;
        let Worker {
            eng,
            pool,
            hooks,
            port,
            gaps,
            errors,
            fatal,
            ..
        } = self;
        drop(eng);
        if drained {
            drop(pool);
        } else {
            // The kernel may still write into these buffers: never unmap
            // them (a bounded leak on an already failed run).
            std::mem::forget(pool);
        }
        port.done(WorkerEnd {
            errors,
            gaps,
            end_ns: end,
            fatal,
            extra: hooks
                .into_raw()
                .map(|v| Box::new(v) as Box<dyn std::any::Any + Send>),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::UringEngine;
    use crate::gen::{GenConfig, Region};
    use crate::verify::NoVerify;
    use iolab_core::Window;
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    /// An io_uring engine that fails once, fatally, with I/O really in
    /// flight (submitted to the kernel, not yet handed back), and on its
    /// drop records how much was still outstanding and whether the
    /// buffer pool was still mapped.
    struct FaultEngine {
        inner: UringEngine,
        queued: u64,
        delivered: u64,
        fail_at: u64,
        failed: bool,
        /// Completions reaped while failing, handed out later.
        stash: Vec<Cqe>,
        pool: (usize, usize),
        log: Arc<Mutex<Vec<(u64, bool)>>>,
    }

    impl Engine for FaultEngine {
        const CAPS: crate::engines::EngineCaps = UringEngine::CAPS;
        fn queue(&mut self, sqe: &Sqe) -> std::io::Result<()> {
            self.inner.queue(sqe)?;
            self.queued += 1;
            Ok(())
        }
        fn submit_and_reap(
            &mut self,
            wait: u32,
            timeout_ns: Option<u64>,
            out: &mut Vec<Cqe>,
        ) -> std::io::Result<()> {
            let outstanding = self.queued - self.delivered;
            if !self.failed && self.queued >= self.fail_at && outstanding > 1 {
                self.failed = true;
                // Submit (no wait) so the I/O is in the kernel's hands.
                self.inner
                    .submit_and_reap(0, Some(1_000), &mut self.stash)?;
                return Err(std::io::Error::from_raw_os_error(libc::EBADFD));
            }
            let n = self.stash.len();
            out.append(&mut self.stash);
            self.inner
                .submit_and_reap(wait.saturating_sub(n as u32), timeout_ns, out)?;
            self.delivered += out.len() as u64;
            Ok(())
        }
    }

    impl Drop for FaultEngine {
        fn drop(&mut self) {
            // SAFETY: msync only inspects the range; ENOMEM means the
            // pool's mapping is gone.
            let mapped = unsafe {
                libc::msync(
                    self.pool.0 as *mut libc::c_void,
                    self.pool.1,
                    libc::MS_ASYNC,
                ) == 0
            };
            // Queued and not handed back to the worker: not drained.
            let outstanding = self.queued - self.delivered;
            self.log.lock().unwrap().push((outstanding, mapped));
        }
    }

    /// A qd-deep uniform 4 KiB random-read worker over 1 MiB of `path`.
    fn test_ctx(path: String, qd: u32) -> WorkerCtx {
        let cfg = GenConfig {
            read_pct: 100,
            random_pct: 100,
            ..GenConfig::default()
        };
        let region = Region {
            target: 0,
            start: 0,
            len: 1 << 20,
            hit_len: 0,
            stream_start: 0,
        };
        WorkerCtx {
            clock: None,
            qd,
            batch_complete: 1,
            gen: IoGen::new(&cfg, vec![region], 1),
            data: DataGen::new(iolab_spec::DataPattern::Random, 0),
            base: Vec::new(),
            target_paths: vec![path],
            budget_ops: None,
            budget_bytes: None,
            rate_period_ns: None,
            rate_phase_ns: 0.0,
            poisson: None,
            think_ns: 0,
            think_blocks: 1,
            flow: None,
            fsync_every: 0,
            sync_kind: OpKind::Fsync,
            end_fsync: false,
            on_error: OnError::Continue,
            fill: None,
            verify: None,
        }
    }

    #[test]
    fn poisson_gaps_are_exponential_with_the_mean_asked_for() {
        let mut rng = fastrand::Rng::with_seed(7);
        let n = 200_000;
        let gaps: Vec<f64> = (0..n).map(|_| exp_gap(&mut rng, 500.0)).collect();
        let mean = gaps.iter().sum::<f64>() / n as f64;
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / n as f64;
        assert!((mean - 500.0).abs() < 5.0, "mean {mean}");
        // An exponential's coefficient of variation is 1.
        let cv = var.sqrt() / mean;
        assert!((cv - 1.0).abs() < 0.02, "cv {cv}");
        assert!(gaps.iter().all(|g| g.is_finite() && *g >= 0.0));
        // P(gap > mean) = 1/e.
        let over = gaps.iter().filter(|g| **g > 500.0).count() as f64 / n as f64;
        assert!((over - (-1.0f64).exp()).abs() < 0.01, "{over}");
    }

    #[test]
    fn a_fatal_engine_error_with_io_in_flight_drains_before_the_buffers_go() {
        if !crate::io_uring_available() {
            eprintln!("SKIP a_fatal_engine_error_with_io_in_flight_drains_before_the_buffers_go: no io_uring");
            return;
        }
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(&vec![7u8; 1 << 20]).unwrap();
        f.flush().unwrap();
        let fd = std::os::unix::io::AsRawFd::as_raw_fd(f.as_file());
        let qd = 8u32;
        let pool = BufferPool::new(qd as usize, 4096).unwrap();
        let (inner, _) = UringEngine::new(qd * 2, vec![fd], &pool.iovecs()).unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let eng = FaultEngine {
            inner,
            queued: 0,
            delivered: 0,
            fail_at: 64,
            failed: false,
            stash: Vec::new(),
            pool: (pool.ptr(0) as usize, qd as usize * 4096),
            log: log.clone(),
        };
        let ctx = test_ctx(f.path().display().to_string(), qd);
        let window = Window {
            timeline: Timeline {
                warmup_ns: 0,
                interval_ns: 1_000_000_000,
            },
            start_ns: 0,
            end_ns: Some(5_000_000_000),
        };
        let (port, rx) = Port::detached(window);
        run(ctx, eng, pool, NoVerify, port, Instant::now());
        let (_, end) = rx.end();
        let end = end.expect("the worker reported its end");
        assert!(
            end.fatal
                .as_deref()
                .is_some_and(|f| f.contains("waiting for completions")),
            "{:?}",
            end.fatal
        );
        // The engine went first, with nothing outstanding, while the pool
        // was still mapped (the old order unmapped the pool first, with
        // the failed batch still in flight).
        assert_eq!(*log.lock().unwrap(), vec![(0, true)]);
    }
}
