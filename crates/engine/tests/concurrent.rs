//! Several workloads in one run, end to end on loop devices this test
//! creates: counts against the kernel's /proc/diskstats, staggered
//! starts, per-workload ends and skew shares of a run rate; and a run
//! with no workload (the monitor's clock and events).

use iolab_core::{EventLog, Observer};
use iolab_engine::{run, IntervalRaw, RunRaw};
use iolab_spec::{RunSpec, WorkloadSpec};
use iolab_testutil::{diskstats, require_root, LoopDevice};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

const MIB: u64 = 1 << 20;

#[derive(Default)]
struct Rec {
    clock_started: Option<Instant>,
    intervals: Vec<(IntervalRaw, Vec<Option<IntervalRaw>>)>,
    events: Vec<String>,
}

impl Observer for Rec {
    fn clock_started(&mut self) {
        self.clock_started = Some(Instant::now());
    }
    fn interval(&mut self, _: &RunSpec, total: &IntervalRaw, w: &[Option<IntervalRaw>]) {
        self.intervals.push((total.clone(), w.to_vec()));
    }
    fn event(&mut self, ev: &iolab_raw::EventRaw) {
        self.events.push(ev.label.clone());
    }
}

fn workload(name: &str, dev: &LoopDevice, rw: &str, duration: f64) -> WorkloadSpec {
    let mut w = WorkloadSpec::example(name, dev.path_str(), rw);
    w.duration_s = Some(duration);
    w.qd = 4;
    w.interval_s = 0.5;
    w.destroy_data_on = vec![dev.path_str().to_string()];
    w
}

fn run_of(workloads: Vec<WorkloadSpec>) -> RunSpec {
    let mut r = RunSpec::single(workloads[0].clone());
    r.name = "together".into();
    r.workloads = workloads;
    r
}

fn go(spec: &RunSpec, obs: &mut Rec) -> RunRaw {
    run(
        spec,
        obs,
        Arc::new(AtomicBool::new(false)),
        Arc::new(EventLog::new()),
    )
    .unwrap_or_else(|e| panic!("run failed: {e}"))
}

fn devices(n: usize) -> Vec<LoopDevice> {
    let d: Vec<LoopDevice> = (0..n)
        .map(|_| LoopDevice::new(64 * MIB, false).expect("losetup"))
        .collect();
    // Let udev's probes of the new devices finish before counting.
    let _ = std::process::Command::new("udevadm").arg("settle").status();
    std::thread::sleep(Duration::from_millis(200));
    d
}

fn within(got: u64, want: u64, pct: f64) -> bool {
    (got as f64 - want as f64).abs() <= want as f64 * pct / 100.0
}

#[test]
fn two_workloads_on_two_devices_match_the_kernels_counts() {
    require_root!();
    let devs = devices(2);
    let spec = run_of(vec![
        workload("reads", &devs[0], "randread", 1.0),
        workload("writes", &devs[1], "randwrite", 1.0),
    ]);
    let before: Vec<_> = devs.iter().map(|d| diskstats(&d.name()).unwrap()).collect();
    let r = go(&spec, &mut Rec::default());
    let after: Vec<_> = devs.iter().map(|d| diskstats(&d.name()).unwrap()).collect();
    assert!(r.complete, "{:?}", r.incomplete_reason);
    let (rd, wr) = (&r.workloads[0], &r.workloads[1]);
    let (rops, rbytes) = (rd.ops.read().ops, rd.ops.read().bytes);
    let (wops, wbytes) = (wr.ops.write().ops, wr.ops.write().bytes);
    assert!(rops > 1000 && wops > 1000, "too few I/Os: {rops} {wops}");
    assert_eq!((rd.ops.write().ops, wr.ops.read().ops), (0, 0));
    let dr = (after[0].0 - before[0].0, (after[0].1 - before[0].1) * 512);
    let dw = (after[1].2 - before[1].2, (after[1].3 - before[1].3) * 512);
    assert!(
        within(rops, dr.0, 1.0) && within(rbytes, dr.1, 1.0),
        "reads {rops}/{rbytes} vs diskstats {dr:?}"
    );
    assert!(
        within(wops, dw.0, 1.0) && within(wbytes, dw.1, 1.0),
        "writes {wops}/{wbytes} vs diskstats {dw:?}"
    );
    eprintln!("reads: iolab {rops} ops {rbytes} B, diskstats {dr:?}; writes: iolab {wops} ops {wbytes} B, diskstats {dw:?}");
    // The whole is the sum of the workloads, interval by interval too.
    assert_eq!(r.ops.read().ops, rops);
    assert_eq!(r.ops.write().ops, wops);
    assert_eq!(r.ops.total_bytes(), rbytes + wbytes);
    for iv in &r.intervals {
        let sum: u64 = r
            .workloads
            .iter()
            .flat_map(|w| w.intervals.iter().filter(|x| x.index == iv.index))
            .map(|x| x.ops.total_ops())
            .sum();
        assert_eq!(iv.ops.total_ops(), sum, "interval {}", iv.index);
    }
    let iv_sum: u64 = r
        .intervals
        .iter()
        .filter(|iv| !iv.warmup)
        .map(|iv| iv.ops.total_ops())
        .sum();
    assert_eq!(iv_sum, rops + wops);
}

/// When the device first completed an I/O, polling /proc/diskstats.
fn first_io(name: String, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<Option<Instant>> {
    std::thread::spawn(move || {
        let base = diskstats(&name)?;
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            if diskstats(&name)? != base {
                return Some(Instant::now());
            }
            std::thread::sleep(Duration::from_micros(500));
        }
        None
    })
}

#[test]
fn a_delayed_workload_issues_its_first_io_on_time() {
    require_root!();
    let devs = devices(2);
    let mut late = workload("late", &devs[1], "randread", 0.5);
    late.start_delay_s = 1.0;
    let spec = run_of(vec![workload("now", &devs[0], "randread", 1.5), late]);
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = first_io(devs[1].name(), stop.clone());
    let mut rec = Rec::default();
    let r = go(&spec, &mut rec);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let seen = watcher.join().unwrap().expect("the late device saw I/O");
    let t0 = rec.clock_started.unwrap();
    let kernel_ms = seen.duration_since(t0).as_secs_f64() * 1e3;
    let late = &r.workloads[1];
    let said_ms = late.start_ns as f64 / 1e6;
    eprintln!("first I/O of the delayed workload: device {kernel_ms:.2} ms, start_ns {said_ms:.2} ms after t0");
    assert!(
        (kernel_ms - 1000.0).abs() < 20.0,
        "the device saw the first I/O {kernel_ms:.1} ms after t0"
    );
    assert!(
        (said_ms - 1000.0).abs() < 20.0,
        "start_ns says {said_ms:.1} ms"
    );
    assert!(r.workloads[0].start_ns < 20_000_000);
    // It has no interval before its start; the observer said so.
    assert!(
        late.intervals.iter().all(|iv| iv.index >= 2),
        "{:?}",
        late.intervals.iter().map(|i| i.index).collect::<Vec<_>>()
    );
    assert!(rec.intervals[0].1[1].is_none() && rec.intervals[0].1[0].is_some());
    assert!(
        late.end_ns >= 1_450_000_000 && late.end_ns < 1_600_000_000,
        "{}",
        late.end_ns
    );
}

#[test]
fn a_workload_duration_ends_it_while_the_other_runs_on() {
    require_root!();
    let devs = devices(2);
    let spec = run_of(vec![
        workload("short", &devs[0], "randread", 0.5),
        workload("long", &devs[1], "randread", 1.5),
    ]);
    let mut rec = Rec::default();
    let r = go(&spec, &mut rec);
    let (short, long) = (&r.workloads[0], &r.workloads[1]);
    eprintln!(
        "short ended {} ms, long {} ms",
        short.end_ns / 1_000_000,
        long.end_ns / 1_000_000
    );
    assert!(
        short.end_ns >= 500_000_000 && short.end_ns < 600_000_000,
        "short ended at {}",
        short.end_ns
    );
    assert!(
        long.end_ns >= 1_500_000_000 && long.end_ns < 1_600_000_000,
        "long ended at {}",
        long.end_ns
    );
    // The long one ran on alone: intervals after 0.5 s are its own.
    let late: Vec<_> = r
        .intervals
        .iter()
        .filter(|iv| iv.start_ns >= 600_000_000)
        .collect();
    assert!(!late.is_empty());
    for iv in late {
        let mine = long.intervals.iter().find(|x| x.index == iv.index).unwrap();
        assert!(iv.ops.total_ops() > 0);
        assert_eq!(iv.ops.total_ops(), mine.ops.total_ops());
    }
    assert!(short.intervals.iter().all(|iv| iv.index <= 1));
    assert!(rec
        .intervals
        .iter()
        .any(|(_, w)| w[0].is_none() && w[1].is_some()));
    assert!(r.measured_ns >= 1_500_000_000);
}

#[test]
fn skew_shares_of_the_run_rate_hold() {
    require_root!();
    let devs = devices(2);
    let mut a = workload("a", &devs[0], "randread", 1.5);
    a.skew_pct = Some(25.0);
    let b = workload("b", &devs[1], "randread", 1.5);
    let mut spec = run_of(vec![a, b]);
    spec.rate_iops = Some(4000.0);
    let r = go(&spec, &mut Rec::default());
    for (w, want) in r.workloads.iter().zip([1000.0, 3000.0]) {
        let iops = w.ops.total_ops() as f64 / (w.measured_ns as f64 / 1e9);
        eprintln!("{}: {iops:.1} IOPS of {want}", w.spec.name);
        assert!(
            (iops - want).abs() <= want * 0.02,
            "{}: {iops:.0} IOPS, want {want}",
            w.spec.name
        );
    }
}

#[test]
fn a_run_without_workloads_keeps_its_clock_and_events() {
    let mut spec = RunSpec::single(WorkloadSpec::example("m", "/dev/null", "read"));
    spec.workloads.clear();
    spec.name = "monitor".into();
    spec.interval_s = 0.1;
    spec.duration_s = Some(0.35);
    let log = Arc::new(EventLog::new());
    let marker = {
        let log = log.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(150));
            log.push("controller A failed", "mark");
        })
    };
    let mut rec = Rec::default();
    let r = run(&spec, &mut rec, Arc::new(AtomicBool::new(false)), log).unwrap();
    marker.join().unwrap();
    assert!(r.workloads.is_empty());
    let idx: Vec<u32> = r.intervals.iter().map(|iv| iv.index).collect();
    assert_eq!(idx, vec![0, 1, 2, 3], "{:?}", r.intervals);
    assert_eq!(rec.intervals.len(), 4);
    assert!(r.intervals.iter().all(|iv| iv.cpu.is_some()));
    assert_eq!(r.events.len(), 1);
    let t = r.events[0].time_ns;
    assert!((140_000_000..260_000_000).contains(&t), "event at {t}");
    assert_eq!(rec.events, vec!["controller A failed".to_string()]);
    assert!(r.complete);
}

#[test]
fn a_stop_ends_a_run_without_workloads() {
    let mut spec = RunSpec::single(WorkloadSpec::example("m", "/dev/null", "read"));
    spec.workloads.clear();
    spec.interval_s = 0.1;
    let stop = Arc::new(AtomicBool::new(false));
    let s2 = stop.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(250));
        s2.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let started = Instant::now();
    let r = run(&spec, &mut Rec::default(), stop, Arc::new(EventLog::new())).unwrap();
    t.join().unwrap();
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(r.intervals.len() >= 2, "{}", r.intervals.len());
}

/// A 30 s null-engine random read on `path` starting `delay` s into the run.
fn null_30s(path: &std::path::Path, name: &str, delay: f64) -> WorkloadSpec {
    let mut w = WorkloadSpec::example(name, path.to_str().unwrap(), "randread");
    w.engine = iolab_spec::EngineKind::Null;
    w.direct = false;
    w.prefill = iolab_spec::Prefill::Never;
    w.duration_s = Some(30.0);
    w.start_delay_s = delay;
    w
}

#[test]
fn a_stop_interrupts_every_workload_even_one_waiting_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.dat");
    std::fs::write(&path, vec![0u8; 1 << 20]).unwrap();
    let mk = |name: &str, delay: f64| null_30s(&path, name, delay);
    let spec = run_of(vec![mk("now", 0.0), mk("later", 20.0)]);
    let stop = Arc::new(AtomicBool::new(false));
    let s2 = stop.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        s2.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let started = Instant::now();
    let r = run(&spec, &mut Rec::default(), stop, Arc::new(EventLog::new())).unwrap();
    t.join().unwrap();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(2), "the stop took {took:?}");
    assert!(!r.complete);
    for w in &r.workloads {
        assert_eq!(
            w.incomplete_reason.as_deref(),
            Some("interrupted"),
            "{}",
            w.spec.name
        );
    }
    let later = &r.workloads[1];
    assert_eq!(later.ops.total_ops(), 0);
    assert!(
        later.end_ns < 1_000_000_000 && later.start_ns <= later.end_ns,
        "{} {}",
        later.start_ns,
        later.end_ns
    );
    assert!(r.workloads[0].ops.total_ops() > 1000);
}

#[test]
fn the_runs_duration_ends_a_workload_that_has_not_started() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.dat");
    std::fs::write(&path, vec![0u8; 1 << 20]).unwrap();
    // Longer than the run: the run's duration ends it.
    let mk = |name: &str, delay: f64| null_30s(&path, name, delay);
    let mut spec = run_of(vec![mk("now", 0.0), mk("never", 5.0)]);
    spec.duration_s = Some(0.3);
    spec.interval_s = 0.1;
    let started = Instant::now();
    let r = go(&spec, &mut Rec::default());
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(r.complete, "{:?}", r.incomplete_reason);
    assert!(r.workloads[1].intervals.is_empty());
    assert_eq!(r.workloads[1].ops.total_ops(), 0);
    let last = r.intervals.last().unwrap();
    assert!(
        last.end_ns < 400_000_000,
        "{:?}",
        r.intervals
            .iter()
            .map(|i| (i.index, i.end_ns))
            .collect::<Vec<_>>()
    );
}
