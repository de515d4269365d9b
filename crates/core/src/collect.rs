//! One workload's interval collector: merges its workers' snapshots into
//! intervals and its summary, waits for late workers (blocked in a system
//! call) up to a bound, folds the drain after the last boundary into the
//! interval before, and notes per-interval CPU.

use crate::port::Snapshot;
use crate::timeline::Timeline;
use iolab_raw::{CpuTime, IntervalRaw, OpStats};
use std::collections::BTreeMap;

pub(crate) struct Collector {
    jobs: u32,
    tl: Timeline,
    /// The table an empty interval starts from (the driver's operations).
    proto: OpStats,
    /// The workload's first interval (its `start_delay`).
    first: u32,
    reported: Vec<i64>,
    done: Vec<bool>,
    pending: BTreeMap<u32, IntervalRaw>,
    pub intervals: Vec<IntervalRaw>,
    pub sum: OpStats,
    pub sum_fsyncs: u64,
    /// Measured (ops, bytes) of each worker, summed per snapshot.
    pub per_worker: Vec<(u64, u64)>,
    /// Every interval this workload will have is in `intervals`.
    pub finished: bool,
}

impl Collector {
    pub fn new(jobs: u32, tl: Timeline, proto: OpStats, first: u32) -> Self {
        Collector {
            jobs,
            tl,
            first,
            reported: vec![first as i64 - 1; jobs as usize],
            done: vec![false; jobs as usize],
            pending: BTreeMap::new(),
            intervals: Vec::new(),
            sum: proto.clone(),
            proto,
            sum_fsyncs: 0,
            per_worker: vec![(0, 0); jobs as usize],
            finished: jobs == 0,
        }
    }

    fn empty(&self, k: u32) -> IntervalRaw {
        let mut iv = IntervalRaw::empty(k, self.tl.start(k), self.tl.end(k), self.tl.is_warmup(k));
        iv.ops = self.proto.clone();
        iv
    }

    pub fn add(&mut self, worker: u32, s: Box<Snapshot>) {
        let k = s.index;
        self.reported[worker as usize] = self.reported[worker as usize].max(k as i64);
        if !self.tl.is_warmup(k) {
            self.sum.merge(&s.ops);
            self.sum_fsyncs += s.fsyncs;
            let w = &mut self.per_worker[worker as usize];
            w.0 += s.ops.total_ops();
            w.1 += s.ops.total_bytes();
        }
        // Already shown (a late worker): merge into the stored record.
        if let Some(iv) = self.intervals.iter_mut().find(|iv| iv.index == k) {
            merge_snap(iv, &s);
            iv.end_ns = iv.end_ns.max(s.end_ns.min(self.tl.end(k)));
            return;
        }
        let mut iv = self.pending.remove(&k).unwrap_or_else(|| self.empty(k));
        merge_snap(&mut iv, &s);
        // A final, partial snapshot ends early.
        if s.end_ns < self.tl.end(k) {
            iv.end_ns = if iv.end_ns == self.tl.end(k) {
                s.end_ns
            } else {
                iv.end_ns.max(s.end_ns)
            };
        }
        self.pending.insert(k, iv);
    }

    pub fn done(&mut self, worker: u32) {
        self.done[worker as usize] = true;
    }

    pub fn all_done(&self) -> bool {
        self.done.iter().all(|&d| d)
    }

    fn all_reported(&self, k: u32) -> bool {
        (0..self.jobs as usize).all(|w| self.done[w] || self.reported[w] >= k as i64)
    }

    /// The next interval to finalize.
    fn next(&self) -> u32 {
        self.intervals
            .last()
            .map(|iv| iv.index + 1)
            .unwrap_or(self.first)
    }

    /// Finalize every interval that is complete (or overdue at `now`, or
    /// all of them `at_end`); `cpu` holds the process CPU at each boundary.
    pub fn finalize_ready(
        &mut self,
        now: u64,
        cpu: &BTreeMap<u32, CpuTime>,
        cpu_start: CpuTime,
        at_end: bool,
    ) {
        loop {
            let k = self.next();
            let have = self.pending.contains_key(&k);
            let all_done = self.all_done();
            if all_done && self.pending.range(k..).next().is_none() {
                self.finished = true;
                return;
            }
            // A partial interval (a worker's last) waits until every worker
            // is done, so the drain can be folded into the interval before.
            let partial = self
                .pending
                .get(&k)
                .is_some_and(|iv| iv.end_ns < self.tl.end(k));
            let ready = self.all_reported(k) && (have || all_done) && (!partial || all_done);
            let overdue = now >= self.tl.end(k) + self.tl.interval_ns.max(1_000_000_000);
            if !(ready || overdue || at_end) {
                return;
            }
            if at_end && !have && self.pending.range(k..).next().is_none() {
                self.finished = true;
                return;
            }
            let mut iv = self.pending.remove(&k).unwrap_or_else(|| self.empty(k));
            iv.workers_late = (0..self.jobs as usize)
                .filter(|&w| !self.done[w] && self.reported[w] < k as i64)
                .count() as u32;
            iv.cpu = interval_cpu(cpu, cpu_start, k);
            // The drain after the last boundary is a sliver of an interval:
            // fold it into the interval before, so no line shows a rate
            // computed over a few microseconds.
            if (at_end || all_done)
                && !iv.warmup
                && iv.end_ns.saturating_sub(iv.start_ns) < self.tl.interval_ns / 10
            {
                if let Some(prev) = self.intervals.last_mut().filter(|p| !p.warmup) {
                    merge_counts(prev, &iv);
                    prev.end_ns = iv.end_ns;
                    continue;
                }
            }
            self.intervals.push(iv);
        }
    }

    /// Interval `k` as finalized, if it is.
    pub fn get(&self, k: u32) -> Option<&IntervalRaw> {
        let first = self.intervals.first()?.index;
        self.intervals
            .get(k.checked_sub(first)? as usize)
            .filter(|iv| iv.index == k)
    }

    /// Whether interval `k` can still be finalized for this workload.
    pub fn may_still_have(&self, k: u32) -> bool {
        !self.finished && k >= self.next()
    }
}

/// Process CPU over interval `k` from the CPU marks at the boundaries.
pub(crate) fn interval_cpu(
    cpu: &BTreeMap<u32, CpuTime>,
    cpu_start: CpuTime,
    k: u32,
) -> Option<CpuTime> {
    let before = match k.checked_sub(1) {
        Some(p) => cpu.get(&p).copied(),
        None => Some(cpu_start),
    };
    match (before, cpu.get(&k)) {
        (Some(a), Some(b)) => Some(b.since(a)),
        _ => None,
    }
}

fn merge_counts(iv: &mut IntervalRaw, o: &IntervalRaw) {
    iv.ops.merge(&o.ops);
    iv.errors += o.errors;
    iv.fsyncs += o.fsyncs;
}

fn merge_snap(iv: &mut IntervalRaw, s: &Snapshot) {
    iv.ops.merge(&s.ops);
    iv.errors += s.errors;
    iv.fsyncs += s.fsyncs;
}
