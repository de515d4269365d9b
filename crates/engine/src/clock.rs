//! The workers' clock: nanoseconds since the run's start (`t0`), read once
//! per completion pass.
//!
//! Why not just `Instant`: on the project's VMs the vDSO's
//! `clock_gettime(CLOCK_MONOTONIC)` costs 23-24 ns where `rdtsc` costs
//! about 10 ns, and with the null engine at QD 1 that difference is a
//! quarter of iolab's whole cost per I/O. fio reads the TSC for the same
//! reason (its default `clocksource=cpu`).
//!
//! When the TSC is used: only on x86_64 and only when the kernel itself
//! keeps CLOCK_MONOTONIC on it (`current_clocksource` is `tsc`). The
//! kernel checks at boot that the TSC is invariant and synchronised across
//! CPUs and watches it afterwards, switching to another clocksource if it
//! misbehaves, so reading it directly is exactly as trustworthy as
//! `clock_gettime`, which reads the same counter. Anywhere else (another
//! clocksource such as `kvm-clock` or `hpet`, another architecture,
//! `--clock clock_gettime`) the clock is `Instant`.
//!
//! Conversion: ticks are turned into nanoseconds with a rate in 32.32
//! fixed point, first measured once per process against CLOCK_MONOTONIC
//! over [`CALIBRATION`], then refined by each worker at every interval
//! boundary ([`WorkerClock::resync`]), where the worker also re-anchors to
//! CLOCK_MONOTONIC. The rate is then taken over everything since the
//! worker started, so after the first interval its error is about the
//! jitter of two clock reads over the run so far (well under 1 ppm), and
//! the TSC time never strays from `t0.elapsed()` by more than that error
//! times one interval. Before the first interval boundary the process-wide
//! rate is used; its error is bounded by two clock reads over 10 ms (about
//! 10 ppm: 10 µs over a 1 s interval, a negligible fraction of any latency
//! it measures).

use iolab_spec::ClockSource;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long the process-wide TSC rate is measured against CLOCK_MONOTONIC.
const CALIBRATION: Duration = Duration::from_millis(10);
/// A worker refines its rate only over at least this much time.
const MIN_REFINE_NS: u64 = 100_000_000;

/// The process-wide TSC rate: nanoseconds per tick in 32.32 fixed point.
#[derive(Debug, Clone, Copy)]
pub struct TscRate {
    mult: u64,
}

/// Why the TSC cannot be used here, or its rate.
pub fn tsc_rate() -> Result<TscRate, String> {
    static RATE: OnceLock<Result<TscRate, String>> = OnceLock::new();
    RATE.get_or_init(calibrate).clone()
}

/// Resolve `--clock` into the rate the workers use (`None`: `Instant`).
/// Err only for `--clock tsc` where the TSC cannot be trusted.
pub fn resolve(choice: ClockSource) -> Result<Option<TscRate>, String> {
    match choice {
        ClockSource::ClockGettime => Ok(None),
        ClockSource::Auto => Ok(tsc_rate().ok()),
        ClockSource::Tsc => tsc_rate().map(Some),
    }
}

/// The name a run's result document gives its clock.
pub fn name(rate: &Option<TscRate>) -> iolab_raw::ClockKind {
    match rate {
        Some(_) => iolab_raw::ClockKind::Tsc,
        None => iolab_raw::ClockKind::ClockGettime,
    }
}

fn calibrate() -> Result<TscRate, String> {
    if !cfg!(target_arch = "x86_64") {
        return Err("the TSC clock is only read on x86_64".into());
    }
    let path = "/sys/devices/system/clocksource/clocksource0/current_clocksource";
    let cs = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {path} ({e}), so the TSC's reliability is unknown"))?;
    let cs = cs.trim();
    if cs != "tsc" {
        return Err(format!(
            "the kernel's clocksource is {cs}, not tsc, so the TSC may not be synchronised across CPUs"
        ));
    }
    let (t0, i0) = pair();
    let mut pair1 = pair();
    while pair1.1.duration_since(i0) < CALIBRATION {
        std::thread::sleep(Duration::from_millis(1));
        pair1 = pair();
    }
    let ns = pair1.1.duration_since(i0).as_nanos() as u64;
    let ticks = pair1.0.wrapping_sub(t0);
    rate_of(ns, ticks).ok_or_else(|| "the TSC did not advance during calibration".into())
}

/// ns/tick in 32.32 fixed point; None for a rate no real TSC has
/// (below 10 MHz or above 100 GHz).
fn rate_of(ns: u64, ticks: u64) -> Option<TscRate> {
    if ticks == 0 || ticks > ns.saturating_mul(100) || ticks < ns / 100 {
        return None;
    }
    let mult = ((ns as u128) << 32) / ticks as u128;
    Some(TscRate { mult: mult as u64 })
}

/// A TSC read and the CLOCK_MONOTONIC time next to it.
fn pair() -> (u64, Instant) {
    // Read the TSC between two Instants and pair it with their midpoint:
    // halves the error of the pair.
    let a = Instant::now();
    let t = rdtsc();
    let b = Instant::now();
    (t, a + b.duration_since(a) / 2)
}

#[inline(always)]
fn rdtsc() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: rdtsc has no memory effects; it is only reached on
        // x86_64, where every CPU that runs this binary has it.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        0
    }
}

#[inline(always)]
fn scale(ticks: u64, mult: u64) -> u64 {
    ((ticks as u128 * mult as u128) >> 32) as u64
}

/// One worker's clock. `now` is nanoseconds since `t0`.
pub struct WorkerClock {
    t0: Instant,
    tsc: Option<Tsc>,
}

#[derive(Clone, Copy)]
struct Tsc {
    mult: u64,
    /// The worker's first reading: the base of its refined rate.
    base_tsc: u64,
    base_ns: u64,
    /// The last re-anchoring: times are anchor_ns + scaled ticks since.
    anchor_tsc: u64,
    anchor_ns: u64,
}

impl WorkerClock {
    pub fn new(t0: Instant, rate: Option<TscRate>) -> WorkerClock {
        let tsc = rate.map(|r| {
            let (t, i) = pair();
            let ns = i.saturating_duration_since(t0).as_nanos() as u64;
            Tsc {
                mult: r.mult,
                base_tsc: t,
                base_ns: ns,
                anchor_tsc: t,
                anchor_ns: ns,
            }
        });
        WorkerClock { t0, tsc }
    }

    /// Nanoseconds since `t0`.
    #[inline(always)]
    pub fn now(&self) -> u64 {
        match &self.tsc {
            // A read behind the anchor (never expected from a synchronised
            // TSC) gives the anchor, not a time far in the future.
            Some(c) => c.anchor_ns + scale(rdtsc().saturating_sub(c.anchor_tsc), c.mult),
            None => self.t0.elapsed().as_nanos() as u64,
        }
    }

    /// Re-anchor to CLOCK_MONOTONIC and refine the rate over everything
    /// since this worker started; returns the time. Called once per
    /// interval, not per I/O.
    pub fn resync(&mut self) -> u64 {
        let Some(c) = self.tsc.as_mut() else {
            return self.t0.elapsed().as_nanos() as u64;
        };
        let (t, i) = pair();
        // Never step back: a TSC that ran ahead of CLOCK_MONOTONIC is held
        // at its own reading until the monotonic time catches up, so a
        // worker's times (gaps, completions) never go backwards.
        let ahead = c.anchor_ns + scale(t.saturating_sub(c.anchor_tsc), c.mult);
        let ns = (i.saturating_duration_since(self.t0).as_nanos() as u64).max(ahead);
        let span = ns.saturating_sub(c.base_ns);
        if span >= MIN_REFINE_NS {
            if let Some(r) = rate_of(span, t.wrapping_sub(c.base_tsc)) {
                c.mult = r.mult;
            }
        }
        c.anchor_tsc = t;
        c.anchor_ns = ns;
        ns
    }

    /// Whether this clock reads the TSC.
    #[cfg(test)]
    fn is_tsc(&self) -> bool {
        self.tsc.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_of_rejects_impossible_rates() {
        assert!(rate_of(1_000_000, 0).is_none());
        assert!(rate_of(1_000_000, 1_000_000_000).is_none()); // 1 THz
        assert!(rate_of(1_000_000_000, 1_000_000).is_none()); // 1 MHz
        let r = rate_of(1_000_000_000, 2_500_000_000).unwrap(); // 2.5 GHz
        assert_eq!(scale(2_500_000_000, r.mult), 999_999_999);
        assert_eq!(scale(2_500, r.mult), 999);
    }

    #[test]
    fn worker_clock_follows_instant() {
        // On every machine: the clock, whichever it reads, stays within
        // 100 µs of Instant over 300 ms and never runs backwards, across a
        // resync.
        let t0 = Instant::now();
        let rate = resolve(ClockSource::Auto).unwrap();
        let mut c = WorkerClock::new(t0, rate);
        let mut last = c.now();
        let end = Instant::now() + Duration::from_millis(300);
        let mut resynced = false;
        // Bracketed by two Instants, so a preemption between the reads
        // cannot fail the test; 100 µs covers the calibration error.
        let slack = 100_000;
        while Instant::now() < end {
            let before = t0.elapsed().as_nanos() as u64;
            let n = c.now();
            let after = t0.elapsed().as_nanos() as u64;
            assert!(n >= last, "clock went back from {last} to {n}");
            assert!(
                n + slack >= before && n <= after + slack,
                "clock {n} ns outside Instant's {before}..{after} ns"
            );
            last = n;
            if !resynced && t0.elapsed() > Duration::from_millis(150) {
                let before = t0.elapsed().as_nanos() as u64;
                let r = c.resync();
                let after = t0.elapsed().as_nanos() as u64;
                assert!(
                    r >= before && r <= after + slack,
                    "resync {r} outside {before}..{after} (+{slack})"
                );
                // Regression (a reversed stall gap under load panicked in
                // Gap::len): re-anchoring never steps the clock back.
                assert!(r >= last, "resync went back from {last} to {r}");
                assert!(c.now() >= r, "clock went back after the resync");
                last = r;
                resynced = true;
            }
        }
        assert!(resynced);
        if c.is_tsc() {
            println!("worker clock: TSC");
        } else {
            println!("worker clock: clock_gettime ({:?})", tsc_rate().err());
        }
    }

    #[test]
    fn clock_gettime_choice_never_reads_the_tsc() {
        let rate = resolve(ClockSource::ClockGettime).unwrap();
        assert!(WorkerClock::new(Instant::now(), rate).tsc.is_none());
    }

    #[test]
    fn tsc_choice_agrees_with_the_kernel() {
        let cs = std::fs::read_to_string(
            "/sys/devices/system/clocksource/clocksource0/current_clocksource",
        )
        .unwrap_or_default();
        let kernel_tsc = cfg!(target_arch = "x86_64") && cs.trim() == "tsc";
        assert_eq!(
            resolve(ClockSource::Tsc).is_ok(),
            kernel_tsc,
            "clocksource {cs:?}"
        );
    }
}
