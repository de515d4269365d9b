//! The worker loop: one thread, one engine, `qd` slots.
//!
//! Per I/O it does only this: draw the next I/O from the generator, stamp
//! write buffers, queue it, and on completion record its latency and count
//! it. Clock reads are per batch (one after each reap), not per I/O, and
//! read the TSC where that is safe ([`crate::clock`]); the only allocation
//! is per interval (the snapshot sent to the collector).

use crate::buffers::BufferPool;
use crate::clock::{TscRate, WorkerClock};
use crate::data::{BufState, DataGen};
use crate::engines::{Cqe, Engine, OpKind, Sqe};
use crate::gen::{Dir, IoGen};
use crate::verify::{Hooks, WorkerVerify};
use iolab_raw::{ErrOp, Gap, IoErrorRec, Op, OpStats, VerifyRaw};
use iolab_spec::OnError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Gaps at least this long are kept for the cross-worker stall analysis.
pub const GAP_RECORD_NS: u64 = 10_000_000;
/// Individually recorded errors per worker; the rest are only counted.
pub const MAX_ERROR_RECORDS: usize = 1000;

/// Interval boundaries: during warm-up every `interval` and at its end,
/// then every `interval` after it, so no interval straddles the warm-up.
#[derive(Debug, Clone, Copy)]
pub struct Timeline {
    pub warmup_ns: u64,
    pub interval_ns: u64,
}

impl Timeline {
    fn warm_intervals(&self) -> u64 {
        self.warmup_ns.div_ceil(self.interval_ns)
    }
    /// End of interval `k` (nanoseconds since start).
    pub fn end(&self, k: u32) -> u64 {
        let k = k as u64;
        let nw = self.warm_intervals();
        if k < nw {
            ((k + 1) * self.interval_ns).min(self.warmup_ns)
        } else {
            self.warmup_ns + (k - nw + 1) * self.interval_ns
        }
    }
    pub fn start(&self, k: u32) -> u64 {
        if k == 0 {
            0
        } else {
            self.end(k - 1)
        }
    }
    pub fn is_warmup(&self, k: u32) -> bool {
        (k as u64) < self.warm_intervals()
    }
}

/// What a worker sends the collector.
pub enum WorkerMsg {
    Interval { worker: u32, snap: Box<Snapshot> },
    Done { worker: u32, fin: Box<WorkerFinal> },
}

/// One worker's figures for one interval.
pub struct Snapshot {
    pub index: u32,
    pub end_ns: u64,
    pub ops: OpStats,
    pub errors: u64,
    pub fsyncs: u64,
}

impl Snapshot {
    fn new(index: u32, svc: bool) -> Self {
        Snapshot {
            index,
            end_ns: 0,
            ops: OpStats::rw(svc),
            errors: 0,
            fsyncs: 0,
        }
    }
}

pub struct WorkerFinal {
    pub errors: Vec<IoErrorRec>,
    pub errno_counts: Vec<(i32, u64)>,
    pub errors_total: u64,
    pub gaps: Vec<Gap>,
    pub longest_gap: Option<Gap>,
    pub end_ns: u64,
    pub fatal: Option<String>,
    pub verify: Option<VerifyRaw>,
}

const OP_READ: u8 = 0;
const OP_WRITE: u8 = 1;
const OP_FSYNC: u8 = 2;
/// The re-read of a completed write (`--verify-after`): checked, not
/// counted as workload I/O.
const OP_READ_AFTER: u8 = 3;

#[derive(Clone, Copy, Default)]
struct Slot {
    op: u8,
    target: u32,
    len: u32,
    offset: u64,
    submit_ns: u64,
    due_ns: u64,
}

pub struct WorkerCtx {
    pub index: u32,
    pub t0: Instant,
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
    /// Global target index of each of this worker's targets (for error
    /// records) and their paths.
    pub target_paths: Vec<String>,
    pub timeline: Timeline,
    /// Stop issuing at this time (ns since start).
    pub end_ns: Option<u64>,
    /// This worker's share of `--ops` / `--io-size` (after warm-up).
    pub budget_ops: Option<u64>,
    pub budget_bytes: Option<u64>,
    /// Nanoseconds between this worker's scheduled I/Os with `--rate`.
    pub rate_period_ns: Option<f64>,
    pub rate_phase_ns: f64,
    pub fsync_every: u64,
    pub on_error: OnError,
    /// Ctrl-C, or another worker stopping the run on an error.
    pub stop: Arc<AtomicBool>,
    pub tx: Sender<WorkerMsg>,
    /// `--verify`: lock, stamp and check every I/O (the runner hands it
    /// to [`run`] as its hooks).
    pub verify: Option<WorkerVerify>,
}

#[inline]
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

/// Run the worker to the end; all results go through `ctx.tx`.
///
/// `V` is [`crate::verify::NoVerify`] without `--verify`: its hooks are
/// empty and `V::ON` is false, so the plain loop compiles without them.
pub fn run<E: Engine, V: Hooks>(mut c: WorkerCtx, mut eng: E, mut pool: BufferPool, mut hooks: V) {
    // SAFETY: prctl(PR_SET_TIMERSLACK) only changes this thread's timer
    // slack (1 ns), so rate-limited sleeps wake on time.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1u64, 0, 0, 0);
    }
    let rate_mode = c.rate_period_ns.is_some();
    let qd = c.qd as usize;
    let mut slots = vec![Slot::default(); qd];
    let mut bufst = vec![BufState::default(); qd];
    let mut free: Vec<u32> = (0..qd as u32).rev().collect();
    let mut cqes: Vec<Cqe> = Vec::with_capacity(qd * 2 + 8);
    let tl = c.timeline;
    let mut iv_idx: u32 = 0;
    let mut snap = Box::new(Snapshot::new(0, rate_mode));
    let mut next_b = tl.end(0);
    let mut inflight: u32 = 0;
    let mut inflight_bytes: u64 = 0;
    let mut measuring = tl.warmup_ns == 0;
    let mut stopping = false;
    let mut write_seq: u64 = 0;
    let mut writes_since_fsync: u64 = 0;
    let mut fsync_due = false;
    // Targets written since the last sync, one bit each (targets from 63
    // on share bit 63); every one of them gets its own fsync.
    let ntargets = c.target_paths.len().max(1) as u32;
    let mut dirty: u64 = 0;
    let mut fsync_cursor: u32 = 0;
    let mut next_due = c.rate_phase_ns;
    let mut busy_start: u64 = 0;
    let mut last_completion: u64 = 0;
    let mut longest_gap: Option<Gap> = None;
    let mut gaps: Vec<Gap> = Vec::new();
    let mut errors: Vec<IoErrorRec> = Vec::new();
    let mut errno_counts = [0u64; 256];
    let mut errors_total: u64 = 0;
    let mut fatal: Option<String> = None;
    let mut budget_ops = c.budget_ops;
    let mut budget_bytes = c.budget_bytes;
    hooks.start(c.t0);
    let mut clock = WorkerClock::new(c.t0, c.clock);
    // With --verify, I/O planned this pass is queued together after it
    // (so the journal can be synced once before a batch of writes is
    // issued); without, each I/O goes to the engine at once.
    let mut batch: Vec<Sqe> = Vec::with_capacity(qd + 1);
    let batching = V::ON;
    macro_rules! queue {
        ($sqe:expr) => {
            if batching {
                batch.push($sqe);
                None
            } else {
                eng.queue(&$sqe).err()
            }
        };
    }
    let mut batch_writes = false;
    // A planned I/O whose blocks another in-flight I/O holds (--verify).
    let mut held: Option<(crate::gen::IoPlan, u64)> = None;
    let mut now = clock.now();

    'run: loop {
        if !measuring && now >= tl.warmup_ns {
            measuring = true;
            // In-flight warm-up I/O completes in measured time: charge it.
            if let Some(b) = budget_ops.as_mut() {
                *b = b.saturating_sub(inflight as u64);
            }
            if let Some(b) = budget_bytes.as_mut() {
                *b = b.saturating_sub(inflight_bytes);
            }
        }
        if !stopping
            && (c.stop.load(Ordering::Relaxed)
                || c.end_ns.is_some_and(|e| now >= e)
                || budget_ops == Some(0)
                || budget_bytes == Some(0))
        {
            stopping = true;
        }

        // Issue.
        // A due fsync is issued even when stopping, so every N writes are
        // followed by a sync.
        while (!stopping || fsync_due) && !free.is_empty() {
            if fsync_due {
                if inflight > 0 {
                    break;
                }
                let Some(target) =
                    (fsync_cursor..ntargets).find(|&t| dirty & (1 << t.min(63)) != 0)
                else {
                    fsync_due = false;
                    writes_since_fsync = 0;
                    dirty = 0;
                    fsync_cursor = 0;
                    continue;
                };
                fsync_cursor = target + 1;
                let slot = free.pop().unwrap_or(0);
                slots[slot as usize] = Slot {
                    op: OP_FSYNC,
                    target,
                    len: 0,
                    offset: 0,
                    submit_ns: now,
                    due_ns: now,
                };
                if let Some(e) = queue!(Sqe {
                    slot,
                    op: OpKind::Fsync,
                    file: target,
                    offset: 0,
                    len: 0,
                    buf: pool.ptr(slot as usize),
                }) {
                    fatal = Some(format!("queueing fsync: {e}"));
                    break 'run;
                }
                if inflight == 0 {
                    busy_start = now;
                }
                inflight += 1;
                if !(fsync_cursor..ntargets).any(|t| dirty & (1 << t.min(63)) != 0) {
                    // The last one: I/O goes on while it runs.
                    fsync_due = false;
                    writes_since_fsync = 0;
                    dirty = 0;
                    fsync_cursor = 0;
                }
                break;
            }
            if stopping {
                break;
            }
            let (plan, due) = match held.take() {
                Some(h) => h,
                None => {
                    let due = if let Some(p) = c.rate_period_ns {
                        if next_due > now as f64 {
                            break;
                        }
                        let d = next_due as u64;
                        next_due += p;
                        d
                    } else {
                        now
                    };
                    let plan = c.gen.next_io();
                    if measuring {
                        if let Some(b) = budget_ops.as_mut() {
                            if *b == 0 {
                                stopping = true;
                                break;
                            }
                            *b -= 1;
                        }
                        if let Some(b) = budget_bytes.as_mut() {
                            if *b == 0 {
                                stopping = true;
                                break;
                            }
                            *b = b.saturating_sub(plan.len as u64);
                        }
                    }
                    (plan, due)
                }
            };
            if V::ON && !hooks.try_lock(&plan) {
                held = Some((plan, due));
                break;
            }
            let slot = free.pop().unwrap_or(0);
            let op = match plan.dir {
                Dir::Read => {
                    let st = &mut bufst[slot as usize];
                    st.read = st.read.max(plan.len);
                    OpKind::Read
                }
                Dir::Write => {
                    write_seq += 1;
                    let len = plan.len as usize;
                    let (buf, rng) = (pool.slot_mut(slot as usize), c.gen.rng());
                    if V::ON {
                        hooks.stamp(buf, &plan, now);
                    } else {
                        c.data.prepare_write(
                            buf,
                            len,
                            plan.offset,
                            write_seq,
                            rng,
                            &mut bufst[slot as usize],
                            &c.base,
                        );
                    }
                    batch_writes = true;
                    writes_since_fsync += 1;
                    dirty |= 1 << plan.target.min(63);
                    if c.fsync_every > 0 && writes_since_fsync >= c.fsync_every {
                        fsync_due = true;
                    }
                    OpKind::Write
                }
            };
            slots[slot as usize] = Slot {
                op: (op == OpKind::Write) as u8,
                target: plan.target,
                len: plan.len,
                offset: plan.offset,
                submit_ns: now,
                due_ns: due,
            };
            if let Some(e) = queue!(Sqe {
                slot,
                op,
                file: plan.target,
                offset: plan.offset,
                len: plan.len,
                buf: pool.ptr(slot as usize),
            }) {
                fatal = Some(format!("queueing I/O: {e}"));
                break 'run;
            }
            if inflight == 0 {
                busy_start = now;
            }
            inflight += 1;
            inflight_bytes += plan.len as u64;
        }
        if !batch.is_empty() {
            hooks.before_submit(batch_writes);
            batch_writes = false;
            for sqe in batch.iter() {
                if let Err(e) = eng.queue(sqe) {
                    fatal = Some(format!("queueing I/O: {e}"));
                    break 'run;
                }
            }
            batch.clear();
        }

        if inflight == 0 {
            if stopping {
                break;
            }
            if held.is_some() {
                // Another worker's I/O holds the blocks of our next one.
                std::thread::yield_now();
            }
            if rate_mode {
                let target = (next_due as u64).min(next_b);
                sleep_until(c.t0, target);
            }
            now = clock.now();
            if now >= next_b {
                end_intervals(
                    &c,
                    &mut snap,
                    &mut iv_idx,
                    &mut next_b,
                    now,
                    rate_mode,
                    &mut clock,
                );
            }
            continue;
        }

        // Wait for --batch-complete completions (at least one; no more than
        // are in flight), waking at the next interval boundary (and the next
        // scheduled I/O with --rate) regardless.
        let mut wake = next_b;
        if rate_mode && !free.is_empty() && !stopping {
            wake = wake.min(next_due as u64);
        }
        let timeout = Some(wake.saturating_sub(now).max(1000));
        cqes.clear();
        if let Err(e) =
            eng.submit_and_reap(c.batch_complete.min(inflight).max(1), timeout, &mut cqes)
        {
            fatal = Some(format!("waiting for completions: {e}"));
            break;
        }
        now = clock.now();
        if now >= next_b {
            end_intervals(
                &c,
                &mut snap,
                &mut iv_idx,
                &mut next_b,
                now,
                rate_mode,
                &mut clock,
            );
        }
        if cqes.is_empty() {
            continue;
        }
        let since = last_completion.max(busy_start);
        let gap = Gap {
            start_ns: since,
            end_ns: now,
        };
        // Gaps count once measuring starts (a gap ending in warm-up does not).
        if now >= tl.warmup_ns {
            if longest_gap.is_none_or(|g| gap.len() > g.len()) {
                longest_gap = Some(gap);
            }
            if gap.len() >= GAP_RECORD_NS {
                gaps.push(gap);
            }
        }
        last_completion = now;

        for cq in cqes.iter() {
            let s = slots[cq.slot as usize];
            let ok = cq.res == s.len as i32;
            if V::ON && s.op == OP_READ_AFTER {
                free.push(cq.slot);
                inflight -= 1;
                if finish_read(&mut hooks, &mut pool, &c, &s, cq, true, now) {
                    stopping = true;
                    c.stop.store(true, Ordering::Relaxed);
                }
                if !ok {
                    record_error(
                        &c,
                        &mut errors,
                        &mut errno_counts,
                        &mut errors_total,
                        &s,
                        if cq.res < 0 { -cq.res } else { 0 },
                        now,
                    );
                    snap.errors += 1;
                }
                continue;
            }
            // A verified write that completed is re-read in the same slot
            // with --verify-after; its blocks stay locked meanwhile.
            let reread = V::ON && ok && s.op == OP_WRITE && hooks.wants_after();
            if !reread {
                free.push(cq.slot);
                inflight -= 1;
            }
            let failed = if s.op == OP_FSYNC {
                snap.fsyncs += 1;
                if V::ON && cq.res >= 0 {
                    hooks.fsync_done(s.target);
                }
                (cq.res < 0).then_some(-cq.res)
            } else {
                inflight_bytes -= s.len as u64;
                if V::ON {
                    if s.op == OP_WRITE {
                        hooks.write_done(s.target, s.offset, s.len, ok, reread);
                    } else if finish_read(&mut hooks, &mut pool, &c, &s, cq, false, now) {
                        stopping = true;
                        c.stop.store(true, Ordering::Relaxed);
                    }
                }
                if reread {
                    slots[cq.slot as usize].op = OP_READ_AFTER;
                    batch.push(Sqe {
                        slot: cq.slot,
                        op: OpKind::Read,
                        file: s.target,
                        offset: s.offset,
                        len: s.len,
                        buf: pool.ptr(cq.slot as usize),
                    });
                }
                if ok {
                    let op = if s.op == OP_READ { Op::Read } else { Op::Write };
                    // The snapshot is made with both slots (OpStats::rw).
                    let Some(d) = snap.ops.get_mut(op) else {
                        unreachable!("a block snapshot has read and write slots")
                    };
                    d.ops += 1;
                    d.bytes += s.len as u64;
                    d.lat.record(now.saturating_sub(s.due_ns));
                    if let Some(h) = d.svc.as_mut() {
                        h.record(now.saturating_sub(s.submit_ns));
                    }
                    None
                } else {
                    // A negative result is -errno; a short transfer is errno 0.
                    Some(if cq.res < 0 { -cq.res } else { 0 })
                }
            };
            if let Some(errno) = failed {
                record_error(
                    &c,
                    &mut errors,
                    &mut errno_counts,
                    &mut errors_total,
                    &s,
                    errno,
                    now,
                );
                snap.errors += 1;
                if c.on_error == OnError::Stop {
                    stopping = true;
                    c.stop.store(true, Ordering::Relaxed);
                }
            }
        }
    }

    // Drain anything still in flight after a fatal engine error is not
    // possible; otherwise inflight is 0 here.
    snap.end_ns = now;
    let last = std::mem::replace(&mut snap, Box::new(Snapshot::new(0, false)));
    let _ = c.tx.send(WorkerMsg::Interval {
        worker: c.index,
        snap: last,
    });
    let counts = errno_counts
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(e, &n)| (e as i32, n))
        .collect();
    let _ = c.tx.send(WorkerMsg::Done {
        worker: c.index,
        fin: Box::new(WorkerFinal {
            errors,
            errno_counts: counts,
            errors_total,
            gaps,
            longest_gap,
            end_ns: now,
            fatal,
            verify: hooks.into_raw(),
        }),
    });
}

/// A verified read (or `--verify-after` re-read) completed: check its data
/// when it succeeded, release its blocks either way. True when the run
/// should stop (`--max-errors`).
#[inline]
fn finish_read<V: Hooks>(
    hooks: &mut V,
    pool: &mut BufferPool,
    c: &WorkerCtx,
    s: &Slot,
    cq: &Cqe,
    after: bool,
    now: u64,
) -> bool {
    if cq.res != s.len as i32 {
        hooks.unlock(s.target, s.offset, s.len);
        return false;
    }
    let data = &pool.slot_mut(cq.slot as usize)[..s.len as usize];
    let path = &c.target_paths[s.target as usize];
    hooks.check_read(data, (s.target, s.offset, s.len), path, after, now)
}

/// Send the snapshot of every interval that ended by `now`, then re-anchor
/// the worker's clock (once per interval, off the per-I/O path).
#[cold]
fn end_intervals(
    c: &WorkerCtx,
    snap: &mut Box<Snapshot>,
    iv_idx: &mut u32,
    next_b: &mut u64,
    now: u64,
    svc: bool,
    clock: &mut WorkerClock,
) {
    while now >= *next_b {
        snap.end_ns = *next_b;
        send_snapshot(c, snap, iv_idx, svc);
        *next_b = c.timeline.end(*iv_idx);
    }
    clock.resync();
}

fn send_snapshot(c: &WorkerCtx, snap: &mut Box<Snapshot>, iv_idx: &mut u32, svc: bool) {
    let next = Box::new(Snapshot::new(*iv_idx + 1, svc));
    let full = std::mem::replace(snap, next);
    let _ = c.tx.send(WorkerMsg::Interval {
        worker: c.index,
        snap: full,
    });
    *iv_idx += 1;
}

fn record_error(
    c: &WorkerCtx,
    errors: &mut Vec<IoErrorRec>,
    counts: &mut [u64; 256],
    total: &mut u64,
    s: &Slot,
    errno: i32,
    now: u64,
) {
    *total += 1;
    counts[(errno as usize).min(255)] += 1;
    if errors.len() < MAX_ERROR_RECORDS {
        errors.push(IoErrorRec {
            target: c
                .target_paths
                .get(s.target as usize)
                .cloned()
                .unwrap_or_default(),
            offset: s.offset,
            len: s.len,
            op: match s.op {
                OP_READ | OP_READ_AFTER => ErrOp::Read,
                OP_WRITE => ErrOp::Write,
                _ => ErrOp::Fsync,
            },
            errno,
            time_ns: now,
            worker: c.index,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeline_boundaries() {
        let t = Timeline {
            warmup_ns: 2_500,
            interval_ns: 1_000,
        };
        let ends: Vec<u64> = (0..6).map(|k| t.end(k)).collect();
        assert_eq!(ends, vec![1000, 2000, 2500, 3500, 4500, 5500]);
        assert!(t.is_warmup(2) && !t.is_warmup(3));
        let t = Timeline {
            warmup_ns: 0,
            interval_ns: 1_000,
        };
        assert_eq!(t.end(0), 1000);
        assert!(!t.is_warmup(0));
    }
}
