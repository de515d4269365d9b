//! CPU per operation of a file-system thread, by sampling: filebench 1.4
//! reported each flowop's CPU (`us/op-cpu`) from the thread's virtual
//! time read around every flowop; iolab reads the thread's CPU clock
//! (`CLOCK_THREAD_CPUTIME_ID`, user + system) before and after about one
//! operation in [`MEAN_GAP`] and keeps, per operation kind, how many were
//! measured and their CPU ([`OpCpuRaw`]); the report divides the
//! workload's CPU among the operations in those proportions
//! (docs/results.md, `cpu_us_per_op`).
//!
//! Why sampled, and how often: the clock is a system call, not a vDSO
//! read (0.5 µs of CPU per read on the 2-vCPU VM this was written on),
//! so reading it around every operation would cost a stat a third of its
//! own CPU. A sample takes three reads (one lets a due preemption happen
//! before it, see below) and three of the wall clock, about 2 µs with
//! what measuring costs the operation; every [`MEAN_GAP`] (256)
//! operations that is 8 ns per operation there. The gap between sampled
//! operations is drawn at random from [`GAP`] (257 consecutive values),
//! never a fixed stride, which would alias with a flow's period (a
//! 32-step flow sampled every 32 operations would always measure the
//! same step).
//!
//! Honest figures: a sample is only taken when the thread runs one
//! operation at a time on system calls (`qd` 1 on the synchronous
//! backend, [`Backend::runs_inline`]); with operations overlapping on a
//! thread, its CPU around one holds the others', and with io_uring part
//! of the work runs in the kernel's workers, so the sampler is off and
//! the report says the split is by latency instead.
//!
//! Preemption: reading the thread's clock brings its runtime up to date
//! in the scheduler, which preempts it there and then when its slice is
//! used up, instead of at the next tick. With more threads than CPUs a
//! read at a sample's start thus moved preemptions into the samples (a
//! tenth of them held one, against one operation in a thousand: with 8
//! threads on 2 vCPUs a stat sampled 9 µs where the process spent 2.8
//! per stat). So a first read comes before the one that starts the
//! sample: a due preemption happens at its return, and when it did (the
//! read took long on the wall clock) the operation is not measured, as
//! it would start with caches others used; the next one tries again
//! (that stat then samples 2.8 to 3.0 µs against 2.15 to 2.3). A
//! preemption the last read causes happens after it.
//!
//! The reads stay out of every operation's latency: the sampled
//! operation's start time is taken after its first reads, and the time
//! read again after the last (so the next operation does not start
//! before it). The CPU between two back-to-back reads (the clock's own
//! cost, measured once per thread) is taken out of each sample. What
//! stays biased: a measured operation still runs slower than the others
//! (most likely the clock's system calls disturb the caches it uses; a
//! stat by 10 to 25 % on that VM with one thread, 30 % with 8, see
//! docs/results.md). Only the measured time is sampled (not warm-up), and
//! only operations that succeeded count, as in `ops`.
//!
//! Hot path: two predictable branches per operation (is this start
//! sampled, does this end close a sample), no allocation, no lock; the
//! figures are a fixed array indexed by [`Op`], handed over at the
//! thread's end.

use super::backend::Backend;
use super::exec::Exec;
use iolab_raw::OpCpuRaw;
use iolab_spec::Op;
use std::ops::RangeInclusive;

/// One operation in this many is measured, on average.
pub(super) const MEAN_GAP: u32 = 256;

/// Operations from one sampled operation to the next, drawn uniformly
/// (128 to 384: its mean is [`MEAN_GAP`]).
pub(super) const GAP: RangeInclusive<u32> = MEAN_GAP / 2..=MEAN_GAP * 3 / 2;

/// No sample under way.
const NO_SLOT: u32 = u32::MAX;

/// Back-to-back reads whose median is the clock's own cost.
const CALIBRATION_READS: usize = 31;

/// A read of the thread's clock that took this long on the wall clock
/// (it takes about 1 µs) gave the CPU to another thread.
const PREEMPTED_NS: u64 = 10_000;

/// One thread's sampler.
pub(super) struct CpuSampler {
    /// The thread runs one operation at a time on system calls.
    on: bool,
    /// Operations to start before the next sampled one (a gap of `g`
    /// leaves `g - 1` unmeasured between two measured).
    left: u32,
    /// The slot whose operation is being measured ([`NO_SLOT`]: none).
    slot: u32,
    /// The thread's CPU clock at that operation's start, ns.
    t0: u64,
    /// The CPU two back-to-back reads of the clock count, ns.
    overhead_ns: u64,
    rng: fastrand::Rng,
    /// Per operation (index `Op as usize`): samples and their CPU, ns
    /// (signed: a sample shorter than the clock's cost counts negative,
    /// so the sum of many stays unbiased).
    acc: [(u64, i64); Op::ALL.len()],
}

impl CpuSampler {
    /// A sampler for a thread that runs one operation at a time on system
    /// calls (`on`), or one that samples nothing.
    pub(super) fn new(on: bool, seed: u64) -> CpuSampler {
        let mut rng = fastrand::Rng::with_seed(seed ^ 0x6370_755f_7361_6d70);
        CpuSampler {
            on,
            left: rng.u32(GAP) - 1,
            slot: NO_SLOT,
            t0: 0,
            overhead_ns: if on { clock_cost_ns() } else { 0 },
            rng,
            acc: [(0, 0); Op::ALL.len()],
        }
    }

    /// Whether the operation about to start is measured (counts the
    /// start down otherwise). Only while `measuring`.
    #[inline(always)]
    fn due(&mut self, measuring: bool) -> bool {
        if !(self.on && measuring) {
            return false;
        }
        if self.left > 0 {
            self.left -= 1;
            return false;
        }
        // A sample whose operation never ended (its start found no file)
        // moves to this one.
        true
    }

    /// The measured operation starts in slot `s`.
    #[inline]
    fn start(&mut self, s: u32) {
        self.slot = s;
        self.t0 = thread_cpu_ns();
    }

    /// The measured operation `op` ended, `ok` or failed (a failed one is
    /// not counted, as it is not in `ops`); draw the next gap.
    #[inline]
    fn end(&mut self, op: Op, ok: bool) {
        let dt = thread_cpu_ns().saturating_sub(self.t0) as i64 - self.overhead_ns as i64;
        if ok {
            let a = &mut self.acc[op as usize];
            a.0 += 1;
            a.1 += dt;
        }
        self.slot = NO_SLOT;
        self.left = self.rng.u32(GAP) - 1;
    }

    /// Whether the thread sampled at all.
    pub(super) fn sampled(&self) -> bool {
        self.on
    }

    /// The operations sampled, with their figures (a negative sum, all
    /// noise, as 0).
    pub(super) fn out(&self) -> Vec<(Op, OpCpuRaw)> {
        Op::ALL
            .into_iter()
            .map(|o| (o, self.acc[o as usize]))
            .filter(|(_, (n, _))| *n > 0)
            .map(|(o, (n, ns))| {
                let raw = OpCpuRaw {
                    samples: n,
                    cpu_ns: ns.max(0) as u64,
                };
                (o, raw)
            })
            .collect()
    }
}

impl<B: Backend> Exec<B> {
    /// Slot `s`'s operation, scheduled at `due`, is about to start: when
    /// it is the sampled one, read the thread's CPU and then the time
    /// (the read stays out of its latency). The `due` to start it with.
    #[inline(always)]
    pub(super) fn cpu_begin(&mut self, s: u32, due: u64) -> u64 {
        if !self.cpu.due(self.measuring) {
            return due;
        }
        self.cpu_begin_sampled(s, due)
    }

    #[cold]
    #[inline(never)]
    fn cpu_begin_sampled(&mut self, s: u32, due: u64) -> u64 {
        // A first read, not used: reading the clock brings the thread's
        // runtime up to date, which makes a due preemption happen at the
        // read's return. Taken here, the switch and the cold caches after
        // it stay out of the sample; when it happened (the read took long
        // on the wall clock), this operation is not measured and the next
        // one tries again.
        let before = self.clock.now();
        thread_cpu_ns();
        if self.clock.now().saturating_sub(before) < PREEMPTED_NS {
            self.cpu.start(s);
        }
        self.now = self.clock.now();
        match self.plan.rate_period_ns {
            // On a schedule the latency counts from the scheduled time.
            Some(_) => due,
            None => self.now,
        }
    }

    /// Slot `s`'s operation `op` ended (`ok`, or failed): when it was the
    /// sampled one, read the thread's CPU, then the time again (the next
    /// operation starts after the read).
    #[inline(always)]
    pub(super) fn cpu_end(&mut self, s: u32, op: Op, ok: bool) {
        if self.cpu.slot == s {
            self.cpu_end_sampled(op, ok);
        }
    }

    #[cold]
    #[inline(never)]
    fn cpu_end_sampled(&mut self, op: Op, ok: bool) {
        self.cpu.end(op, ok);
        self.now = self.clock.now();
    }
}

/// The calling thread's CPU time (user + system), ns.
#[inline]
fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes only the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The CPU two back-to-back reads of the thread's clock count between
/// them (half of each read's system call): the median of
/// [`CALIBRATION_READS`] pairs, so an interrupt in one does not count.
fn clock_cost_ns() -> u64 {
    let mut d = [0u64; CALIBRATION_READS];
    for x in d.iter_mut() {
        let a = thread_cpu_ns();
        *x = thread_cpu_ns().saturating_sub(a);
    }
    d.sort_unstable();
    d[CALIBRATION_READS / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spin for about `ns` of CPU.
    fn burn(ns: u64) {
        let t = thread_cpu_ns();
        while thread_cpu_ns() - t < ns {
            std::hint::spin_loop();
        }
    }

    #[test]
    fn an_off_sampler_samples_nothing() {
        let mut c = CpuSampler::new(false, 1);
        for _ in 0..10_000 {
            assert!(!c.due(true));
        }
        assert!(c.out().is_empty() && !c.sampled());
    }

    #[test]
    fn gaps_are_random_with_the_documented_mean_and_no_fixed_stride() {
        let mut c = CpuSampler::new(true, 7);
        let (mut gaps, mut since) = (Vec::new(), 0u32);
        for _ in 0..1_000_000u32 {
            // Warm-up is not sampled and does not count down.
            assert!(!c.due(false));
            if c.due(true) {
                gaps.push(since);
                since = 0;
                c.start(0);
                c.end(Op::Stat, true);
            } else {
                since += 1;
            }
        }
        let mean =
            gaps.iter().skip(1).map(|&g| g as f64 + 1.0).sum::<f64>() / (gaps.len() - 1) as f64;
        assert!((mean - MEAN_GAP as f64).abs() < 5.0, "mean gap {mean}");
        assert!(gaps.iter().skip(1).all(|g| GAP.contains(&(g + 1))));
        assert!(gaps.windows(2).any(|w| w[0] != w[1]));
    }

    /// A 32-step flow: every step gets samples (a stride of 32 would
    /// sample one step only).
    #[test]
    fn every_step_of_a_flow_is_sampled() {
        let mut c = CpuSampler::new(true, 3);
        let mut hits = [0u32; 32];
        for i in 0..1_000_000usize {
            if c.due(true) {
                hits[i % 32] += 1;
                c.start(0);
                c.end(Op::Stat, true);
            }
        }
        let (lo, hi) = (hits.iter().min().unwrap(), hits.iter().max().unwrap());
        assert!(*lo > 0 && *hi < lo * 2, "{hits:?}");
    }

    /// Samples measure what runs between start and end, the clock's own
    /// cost taken out; a failed operation is not counted.
    #[test]
    fn samples_measure_the_operation() {
        let mut c = CpuSampler::new(true, 5);
        for _ in 0..20 {
            c.start(0);
            burn(200_000);
            c.end(Op::Read, true);
            c.start(0);
            c.end(Op::Stat, true);
            c.start(0);
            burn(50_000);
            c.end(Op::Delete, false);
        }
        let out = c.out();
        let get = |op| out.iter().find(|(o, _)| *o == op).map(|(_, r)| *r);
        let read = get(Op::Read).unwrap();
        assert_eq!(read.samples, 20);
        let mean = read.cpu_ns as f64 / 20.0;
        assert!((200_000.0..260_000.0).contains(&mean), "{mean}");
        // Nothing between the reads: the clock's cost only, taken out.
        let stat = get(Op::Stat).map_or(0.0, |r| r.cpu_ns as f64 / r.samples as f64);
        assert!(stat < 20_000.0, "{stat}");
        assert!(get(Op::Delete).is_none());
    }
}
