//! The run core with a driver that is not a block workload: each worker
//! "stats" a file every millisecond. Shows the core knows nothing about
//! blocks, and checks its clock, staggered starts, per-workload ends and
//! the whole run's exact merge without any device.

use iolab_core::*;
use iolab_raw::{DirStats, Op, OpStats, WorkloadRaw};
use iolab_spec::{RunSpec, WorkloadSpec};
use std::any::Any;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

struct Fake {
    spec: WorkloadSpec,
    jobs: u32,
    /// One "stat" hangs this long at this time (ns since t0).
    hang: Option<(u64, u64)>,
}

struct Stat {
    hang: Option<(u64, u64)>,
}

impl Task for Stat {
    fn run(self: Box<Self>, mut port: Port) {
        port.ready(Ok(Setup::default()));
        let Some(t0) = port.wait_gate() else { return };
        port.wait_start(t0);
        let now = || t0.elapsed().as_nanos() as u64;
        let tl = port.window.timeline;
        let end = port.window.end_ns.unwrap_or(u64::MAX);
        let mut k = port.window.first_interval();
        let mut d = DirStats::new(false);
        let mut gaps = GapTracker::new();
        let send = |port: &Port, k: u32, d: &mut DirStats, end_ns: u64| {
            let mut ops = OpStats::default();
            ops.set(Op::Stat, std::mem::replace(d, DirStats::new(false)));
            let mut s = Box::new(Snapshot::new(k, ops));
            s.end_ns = end_ns;
            port.interval(s);
        };
        let mut t = now();
        let mut hang = self.hang;
        while t < end && !port.stop.load(Ordering::Relaxed) {
            gaps.busy(t);
            match hang {
                Some((at, len)) if t >= at => {
                    std::thread::sleep(Duration::from_nanos(len));
                    hang = None;
                }
                _ => std::thread::sleep(Duration::from_millis(1)),
            }
            let done = now();
            gaps.completed(done, tl.warmup_ns);
            d.ops += 1;
            d.lat.record(done - t);
            t = done;
            while t >= tl.end(k) {
                send(&port, k, &mut d, tl.end(k));
                k += 1;
            }
        }
        send(&port, k, &mut d, t);
        port.done(WorkerEnd {
            errors: ErrorTally::default(),
            gaps,
            end_ns: t,
            fatal: None,
            extra: None,
        });
    }
}

impl Driver for Fake {
    type Error = CoreError;
    fn caps(&self) -> Caps {
        Caps {
            ops: vec![Op::Stat],
            svc: false,
            moves_data: false,
        }
    }
    fn check(&mut self, _: &mut Vec<String>) -> Result<(), CoreError> {
        Ok(())
    }
    fn prepare(&mut self, _: &mut dyn Observer, _: &AtomicBool) -> Option<String> {
        None
    }
    fn describe(&self) -> WorkloadRaw {
        let mut r = iolab_raw::RunRaw::single(skeleton(&self.spec));
        r.workloads.remove(0)
    }
    fn tasks(&mut self, _: Window) -> Result<Vec<Box<dyn Task>>, CoreError> {
        Ok((0..self.jobs)
            .map(|_| Box::new(Stat { hang: self.hang }) as Box<dyn Task>)
            .collect())
    }
    fn finish(
        &mut self,
        _: &mut WorkloadRaw,
        _: Vec<Box<dyn Any + Send>>,
        _: &[(u64, u64)],
        _: &mut dyn Observer,
    ) {
    }
}

fn skeleton(spec: &WorkloadSpec) -> WorkloadRaw {
    WorkloadRaw {
        spec: spec.clone(),
        start_ns: 0,
        end_ns: 0,
        effective: Default::default(),
        targets: vec![],
        started_at: SystemTime::now(),
        warmup_ns: 0,
        measured_ns: 0,
        intervals: vec![],
        ops: OpStats::default(),
        fsyncs: 0,
        cpu: Default::default(),
        errors: vec![],
        errno_counts: vec![],
        errors_total: 0,
        stalls: Default::default(),
        complete: false,
        incomplete_reason: None,
        notes: vec![],
        verify: None,
        fs: None,
        steady: None,
        ended_by: None,
    }
}

#[test]
fn staggered_workloads_of_another_kind_merge_exactly() {
    let mut a = WorkloadSpec::example("a", "/dev/null", "read");
    a.duration_s = Some(0.3);
    let mut b = WorkloadSpec::example("b", "/dev/null", "read");
    b.duration_s = Some(0.2);
    b.start_delay_s = 0.2;
    let mut spec = RunSpec::single(a.clone());
    spec.interval_s = 0.1;
    spec.workloads = vec![a.clone(), b.clone()];
    let drivers: Vec<Box<dyn Driver<Error = CoreError>>> = vec![
        Box::new(Fake {
            spec: a,
            jobs: 2,
            hang: None,
        }),
        Box::new(Fake {
            spec: b,
            jobs: 1,
            hang: None,
        }),
    ];
    let t = Instant::now();
    let r = run(
        &spec,
        drivers,
        &mut Quiet,
        Arc::new(AtomicBool::new(false)),
        Arc::new(EventLog::new()),
    )
    .unwrap();
    assert!(t.elapsed() < Duration::from_secs(2));
    let (wa, wb) = (&r.workloads[0], &r.workloads[1]);
    assert!(
        wa.end_ns >= 300_000_000 && wa.end_ns < 350_000_000,
        "{}",
        wa.end_ns
    );
    assert!(
        (wb.start_ns as i64 - 200_000_000).abs() < 10_000_000,
        "{}",
        wb.start_ns
    );
    assert!(
        wb.end_ns >= 400_000_000 && wb.end_ns < 450_000_000,
        "{}",
        wb.end_ns
    );
    assert!(wb.intervals.iter().all(|iv| iv.index >= 2));
    let stat = |o: &OpStats| o.get(Op::Stat).map_or(0, |d| d.ops);
    assert_eq!(stat(&r.ops), stat(&wa.ops) + stat(&wb.ops));
    assert!(stat(&wa.ops) > 300 && stat(&wb.ops) > 100);
    for iv in &r.intervals {
        let mut want = iolab_raw::IntervalRaw::empty(iv.index, 0, 0, false);
        for w in &r.workloads {
            if let Some(x) = w.intervals.iter().find(|x| x.index == iv.index) {
                want.merge(x);
            }
        }
        assert_eq!(iv.ops, want.ops, "interval {}", iv.index);
    }
    assert!(r.complete, "{:?}", r.incomplete_reason);
}

#[test]
fn a_stall_after_another_workload_ended_is_the_runs_stall() {
    // "hang" stalls 150 ms at 100 ms; "brief" ended at 50 ms: its silence
    // afterwards must not hide the stall. Events are timed on the clock.
    let mut hang = WorkloadSpec::example("hang", "/dev/null", "read");
    hang.duration_s = Some(0.4);
    hang.stall_threshold_s = 0.1;
    let mut brief = WorkloadSpec::example("brief", "/dev/null", "read");
    brief.duration_s = Some(0.05);
    brief.stall_threshold_s = 0.1;
    let mut spec = RunSpec::single(hang.clone());
    spec.interval_s = 0.1;
    spec.workloads = vec![hang.clone(), brief.clone()];
    let drivers: Vec<Box<dyn Driver<Error = CoreError>>> = vec![
        Box::new(Fake {
            spec: hang,
            jobs: 1,
            hang: Some((100_000_000, 150_000_000)),
        }),
        Box::new(Fake {
            spec: brief,
            jobs: 1,
            hang: None,
        }),
    ];
    let log = Arc::new(EventLog::new());
    let l2 = log.clone();
    let marker = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(120));
        l2.push("cable pulled", "mark");
    });
    let r = run(
        &spec,
        drivers,
        &mut Quiet,
        Arc::new(AtomicBool::new(false)),
        log,
    )
    .unwrap();
    marker.join().unwrap();
    let ev = &r.stalls.events;
    assert_eq!(ev.len(), 1, "{:?}", r.stalls);
    assert!(
        ev[0].start_ns >= 100_000_000 && ev[0].start_ns < 130_000_000,
        "{:?}",
        ev[0]
    );
    assert!(
        ev[0].len() >= 150_000_000 && ev[0].len() < 200_000_000,
        "{:?}",
        ev[0]
    );
    assert!(r.stalls.exact);
    assert_eq!(r.events.len(), 1);
    assert!(
        (100_000_000..200_000_000).contains(&r.events[0].time_ns),
        "{:?}",
        r.events
    );
}

/// A sampler sees every interval the run shows, with a staggered
/// workload and a warm-up, at the interval's index and bounds.
#[test]
fn samplers_tick_with_the_workloads_intervals() {
    #[derive(Default)]
    struct Rec(Vec<Tick>, usize);
    impl Sampler for Rec {
        fn start(&mut self) {
            self.1 += 1;
        }
        fn sample(&mut self, t: &Tick) {
            self.0.push(*t);
        }
    }
    let mut a = WorkloadSpec::example("a", "/dev/null", "read");
    a.duration_s = Some(0.25);
    a.start_delay_s = 0.1;
    let mut spec = RunSpec::single(a.clone());
    spec.interval_s = 0.1;
    spec.warmup_s = 0.05;
    spec.duration_s = None;
    let drivers: Vec<Box<dyn Driver<Error = CoreError>>> = vec![Box::new(Fake {
        spec: a,
        jobs: 1,
        hang: None,
    })];
    let mut rec = Rec::default();
    let r = run_with(
        &spec,
        drivers,
        &mut Quiet,
        Arc::new(AtomicBool::new(false)),
        Arc::new(EventLog::new()),
        &mut [&mut rec],
    )
    .unwrap();
    assert_eq!(rec.1, 1);
    let ticks: Vec<(u32, u64, bool)> = rec
        .0
        .iter()
        .map(|t| (t.index, t.end_ns, t.warmup))
        .collect();
    let ivs: Vec<(u32, u64, bool)> = r
        .intervals
        .iter()
        .map(|iv| (iv.index, iv.end_ns, iv.warmup))
        .collect();
    // The same intervals; the stored last one ends where the workload
    // did, the one shown live where the core closed it.
    assert_eq!(ticks.len(), ivs.len(), "{ticks:?} {ivs:?}");
    for (t, iv) in ticks.iter().zip(&ivs) {
        assert_eq!((t.0, t.2), (iv.0, iv.2));
        assert!(t.1.abs_diff(iv.1) < 10_000_000, "{ticks:?} {ivs:?}");
    }
    assert!(ticks[0].2 && !ticks[1].2, "{ticks:?}");
}
