//! Samplers: what the run core samples beside the workloads on the run's
//! clock (block devices' statistics in the binary, later hosts' or
//! processes' counters). The core owns when they sample: at time 0 and
//! whenever it closes an interval, on its collector thread, never on an
//! I/O path; so a sampler's intervals line up with the workloads' by
//! index and end.

use iolab_spec::RunSpec;

/// One interval the core closed, on the run's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tick {
    pub index: u32,
    /// Nanoseconds since t0: where the interval starts and ends (the last
    /// interval of a run may end early, where the run did).
    pub start_ns: u64,
    pub end_ns: u64,
    /// The interval is part of the run's warm-up.
    pub warmup: bool,
}

/// Samples something beside a run, ticked by the run core.
pub trait Sampler {
    /// The run passed its checks (beside [`crate::Observer::started`],
    /// before prefill and set-up): `run` is the run as it will run.
    fn prepare(&mut self, _run: &RunSpec) {}
    /// Time 0 of the run's clock: the first sample.
    fn start(&mut self);
    /// The core closed interval `tick.index`: a sample, right before the
    /// observers see the interval.
    fn sample(&mut self, tick: &Tick);
    /// The run's clock stopped `end_ns` after t0 (after the last sample).
    fn finish(&mut self, _end_ns: u64) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{run_with, CoreError, Driver, EventLog, Observer};
    use iolab_raw::IntervalRaw;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    /// What a sampler saw, in order: "start", each tick, "finish".
    #[derive(Default)]
    struct Rec {
        prepared: usize,
        started: usize,
        ticks: Vec<Tick>,
        finished: Option<u64>,
    }
    impl Sampler for Rec {
        fn prepare(&mut self, _run: &RunSpec) {
            self.prepared += 1;
        }
        fn start(&mut self) {
            self.started += 1;
        }
        fn sample(&mut self, t: &Tick) {
            assert!(self.finished.is_none());
            self.ticks.push(*t);
        }
        fn finish(&mut self, end_ns: u64) {
            self.finished = Some(end_ns);
        }
    }

    #[derive(Default)]
    struct Seen(Vec<(u32, u64, u64)>);
    impl Observer for Seen {
        fn interval(&mut self, _: &RunSpec, t: &IntervalRaw, _: &[Option<IntervalRaw>]) {
            self.0.push((t.index, t.start_ns, t.end_ns));
        }
    }

    #[test]
    fn a_run_without_workloads_ticks_its_samplers_on_every_interval() {
        let mut spec = RunSpec::single(iolab_spec::WorkloadSpec::example("w", "/x", "read"));
        spec.workloads.clear();
        spec.interval_s = 0.05;
        spec.warmup_s = 0.0;
        spec.duration_s = Some(0.2);
        let (mut a, mut b) = (Rec::default(), Rec::default());
        let mut seen = Seen::default();
        let drivers: Vec<Box<dyn Driver<Error = CoreError>>> = Vec::new();
        let r = run_with(
            &spec,
            drivers,
            &mut seen,
            Arc::new(AtomicBool::new(false)),
            Arc::new(EventLog::new()),
            &mut [&mut a, &mut b],
        )
        .unwrap();
        for s in [&a, &b] {
            assert_eq!((s.prepared, s.started), (1, 1));
            // One sample per interval the observer saw, the same interval.
            let got: Vec<(u32, u64, u64)> = s
                .ticks
                .iter()
                .map(|t| (t.index, t.start_ns, t.end_ns))
                .collect();
            assert_eq!(got, seen.0);
            let last = s.ticks.last().unwrap().end_ns;
            assert!(s.finished.unwrap() >= last);
        }
        assert_eq!(a.ticks.len(), 4, "{:?}", a.ticks);
        assert_eq!(r.intervals.len(), 4);
        for (t, iv) in a.ticks.iter().zip(&r.intervals) {
            assert_eq!((t.index, t.end_ns), (iv.index, iv.end_ns));
        }
        for w in a.ticks.windows(2) {
            assert_eq!(w[0].end_ns, w[1].start_ns, "intervals tile");
        }
    }

    /// Records when each event reached the observer.
    struct Events(std::time::Instant, Vec<(String, std::time::Duration)>);
    impl Observer for Events {
        fn event(&mut self, ev: &iolab_raw::EventRaw) {
            self.1.push((ev.label.clone(), self.0.elapsed()));
        }
    }

    #[test]
    fn a_run_without_workloads_shows_events_as_they_come() {
        let mut spec = RunSpec::single(iolab_spec::WorkloadSpec::example("w", "/x", "read"));
        spec.workloads.clear();
        spec.interval_s = 1.0;
        spec.duration_s = Some(0.4);
        let log = Arc::new(EventLog::new());
        let l2 = log.clone();
        let t0 = std::time::Instant::now();
        let pusher = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(150));
            l2.push("pulled a cable", "mark");
            t0.elapsed()
        });
        let mut seen = Events(t0, Vec::new());
        let drivers: Vec<Box<dyn Driver<Error = CoreError>>> = Vec::new();
        let r = run_with(
            &spec,
            drivers,
            &mut seen,
            Arc::new(AtomicBool::new(false)),
            log,
            &mut [],
        )
        .unwrap();
        let pushed = pusher.join().unwrap();
        assert_eq!(r.events.len(), 1);
        assert_eq!(seen.1.len(), 1);
        // Shown within the idle slice, long before the interval's end.
        let late = seen.1[0].1.saturating_sub(pushed);
        assert!(late < std::time::Duration::from_millis(60), "{late:?}");
    }
}
