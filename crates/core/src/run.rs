//! The run core's main line: check and prepare every workload, start
//! every worker on a thread of its own behind one gate, start the clock,
//! collect snapshots into each workload's intervals and the whole run's,
//! take events at interval boundaries, tick the samplers when intervals
//! close, and assemble the raw results.

use crate::collect::{interval_cpu, Collector};
use crate::driver::Driver;
use crate::exitall::Exits;
use crate::port::{Gate, Msg, Port, Setup, Window, WorkerEnd};
use crate::stalls::{analyse, Span};
use crate::steady::SteadyJudge;
use crate::timeline::Timeline;
use crate::{cpu::process_cpu, EventLog, Observer, Sampler, Tick};
use iolab_raw::*;
use iolab_spec::{RunSpec, WorkloadSpec};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

/// A failure of the core itself before the first I/O (a thread that
/// could not start, a worker whose set-up failed): one line.
#[derive(Debug, Clone, PartialEq)]
pub struct CoreError(pub String);

impl std::fmt::Display for CoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The run's timeline from its spec (`interval_s` floored at the timer's
/// minimum).
pub fn timeline(spec: &RunSpec) -> Timeline {
    Timeline {
        warmup_ns: (spec.warmup_s * 1e9) as u64,
        interval_ns: ((spec.interval_s * 1e9) as u64)
            .max((iolab_spec::MIN_INTERVAL_S * 1e9) as u64),
    }
}

/// When workload `w` runs on the run's clock: from its `start_delay` to
/// its own duration (counted from when its measured time starts, after
/// the run's warm-up) or the run's, whichever comes first.
pub fn window(spec: &RunSpec, w: &WorkloadSpec) -> Window {
    let tl = timeline(spec);
    let start_ns = (w.start_delay_s.max(0.0) * 1e9) as u64;
    let own = w
        .duration_s
        .map(|d| start_ns.max(tl.warmup_ns) + (d * 1e9) as u64);
    let run = spec.duration_s.map(|d| tl.warmup_ns + (d * 1e9) as u64);
    let end_ns = match (own, run) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    Window {
        timeline: tl,
        start_ns,
        end_ns,
    }
}

/// A run with no workloads looks at the stop flag and the event log at
/// least this often (nanoseconds): the delay before a mark shows.
const IDLE_SLICE_NS: u64 = 20_000_000;

type Drivers<'a, E> = Vec<Box<dyn Driver<Error = E> + 'a>>;

/// Run `drivers` (the workloads of `spec`, in its order) together and
/// return what they measured. With no driver, the run is just its clock:
/// intervals and events until `stop` or the run's duration.
pub fn run<'a, E: From<CoreError>>(
    spec: &RunSpec,
    drivers: Drivers<'a, E>,
    obs: &mut dyn Observer,
    stop: Arc<AtomicBool>,
    events: Arc<EventLog>,
) -> Result<RunRaw, E> {
    run_with(spec, drivers, obs, stop, events, &mut [])
}

/// [`run`] with `samplers` ticked on the run's clock: prepared beside
/// the observers' `started`, started at t0, sampled whenever an interval
/// closes (right before the observers see it), finished when the clock
/// stops.
pub fn run_with<'a, E: From<CoreError>>(
    spec: &RunSpec,
    mut drivers: Drivers<'a, E>,
    obs: &mut dyn Observer,
    stop: Arc<AtomicBool>,
    events: Arc<EventLog>,
    samplers: &mut [&mut dyn Sampler],
) -> Result<RunRaw, E> {
    let started_at = SystemTime::now();
    let mut notes: Vec<String> = Vec::new();
    for i in 0..drivers.len() {
        if let Err(e) = drivers[i].check(&mut notes) {
            drivers[..i].iter_mut().for_each(|d| d.abandon());
            return Err(e);
        }
    }
    dedup(&mut notes);
    // The run as it will really run (fallbacks applied by the drivers).
    let spec = &RunSpec {
        workloads: drivers.iter().map(|d| d.describe().spec).collect(),
        ..spec.clone()
    };
    obs.started(spec);
    samplers.iter_mut().for_each(|s| s.prepare(spec));
    notes.iter().for_each(|n| obs.note(n));
    for i in 0..drivers.len() {
        if let Some(reason) = drivers[i].prepare(obs, &stop) {
            return Ok(not_run(spec, &drivers, started_at, i, reason, notes));
        }
    }
    let mut set = Started::spawn(spec, &mut drivers)?;
    for (wl, setup) in std::mem::take(&mut set.setups) {
        for n in &setup.notes {
            if !notes.contains(n) {
                obs.note(n);
                notes.push(n.clone());
            }
        }
        drivers[wl].setup_done(setup);
    }
    obs.armed(&stop);
    if stop.load(Ordering::Relaxed) {
        // Stopped while every worker waited at the gate (Ctrl-C, or a
        // multi-host controller calling the run off because another host
        // refused it): no worker issues an I/O.
        set.abort();
        return Ok(stopped_before_start(spec, &drivers, started_at, notes));
    }
    let cpu_start = process_cpu();
    let t0 = Instant::now();
    set.gate.open(Some(t0));
    events.start(t0);
    samplers.iter_mut().for_each(|s| s.start());
    obs.clock_started();
    let mut skel = skeleton(spec, &drivers, started_at, &notes);
    obs.measuring(&skel);
    let mut lp = Loop::new(spec, &drivers, &set, cpu_start, t0);
    lp.main(&set, obs, samplers, &stop, &events);
    set.join();
    let cpu_end = lp.cpu_end.unwrap_or_else(process_cpu);
    let now = lp.now();
    lp.finish_intervals(now, obs, samplers, &events);
    let end_ns = lp.now();
    samplers.iter_mut().for_each(|s| s.finish(end_ns));
    let cpu = cpu_end.since(lp.cpu_warm.unwrap_or(cpu_start));
    let interrupted = stop.load(Ordering::Relaxed);
    let mut wls = Vec::new();
    for (w, d) in drivers.iter_mut().enumerate() {
        let raw = lp.workload(w, d.as_mut(), &set, cpu, started_at, interrupted, obs);
        notes.extend(raw.notes.iter().cloned());
        wls.push(raw);
    }
    dedup(&mut notes);
    skel.workloads = wls;
    Ok(lp.whole(skel, spec, cpu, interrupted, notes))
}

fn dedup(v: &mut Vec<String>) {
    let mut seen = std::collections::HashSet::new();
    v.retain(|n| seen.insert(n.clone()));
}

fn empty_run(
    spec: &RunSpec,
    started_at: SystemTime,
    workloads: Vec<WorkloadRaw>,
    notes: &[String],
) -> RunRaw {
    let tl = timeline(spec);
    RunRaw {
        name: spec.name.clone(),
        started_at,
        warmup_ns: tl.warmup_ns,
        interval_ns: tl.interval_ns,
        measured_ns: 0,
        workloads,
        intervals: Vec::new(),
        ops: OpStats::default(),
        fsyncs: 0,
        cpu: CpuTime::default(),
        stalls: StallsRaw::default(),
        events: Vec::new(),
        complete: false,
        incomplete_reason: None,
        notes: notes.to_vec(),
        exit_all: false,
    }
}

fn skeleton<E>(
    spec: &RunSpec,
    drivers: &Drivers<'_, E>,
    at: SystemTime,
    notes: &[String],
) -> RunRaw {
    let wls = drivers
        .iter()
        .map(|d| {
            let mut r = d.describe();
            r.started_at = at;
            r
        })
        .collect();
    empty_run(spec, at, wls, notes)
}

/// Workload `failed` could not be prepared: the run ends before its
/// first I/O.
fn not_run<E>(
    spec: &RunSpec,
    drivers: &Drivers<'_, E>,
    at: SystemTime,
    failed: usize,
    reason: String,
    notes: Vec<String>,
) -> RunRaw {
    let mut r = skeleton(spec, drivers, at, &notes);
    for (i, w) in r.workloads.iter_mut().enumerate() {
        if w.incomplete_reason.is_none() {
            w.incomplete_reason = Some(if i == failed {
                reason.clone()
            } else {
                format!(
                    "not started: workload '{}' could not be prepared",
                    spec.workloads[failed].name
                )
            });
        }
    }
    r.incomplete_reason = Some(reason);
    r
}

/// A run stopped before its clock started: every workload `interrupted`,
/// no figures.
fn stopped_before_start<E>(
    spec: &RunSpec,
    drivers: &Drivers<'_, E>,
    at: SystemTime,
    notes: Vec<String>,
) -> RunRaw {
    let mut r = skeleton(spec, drivers, at, &notes);
    for w in r.workloads.iter_mut() {
        w.incomplete_reason = Some("interrupted".into());
    }
    r.incomplete_reason = Some("interrupted".into());
    r
}

/// The worker threads of a run, set up and waiting at the gate.
struct Started {
    gate: Arc<Gate>,
    rx: mpsc::Receiver<Msg>,
    handles: Vec<JoinHandle<()>>,
    /// Per workload: its workers' count, its stop flag, its window.
    jobs: Vec<u32>,
    stops: Vec<Arc<AtomicBool>>,
    windows: Vec<Window>,
    setups: Vec<(usize, Setup)>,
}

impl Started {
    fn spawn<E: From<CoreError>>(
        spec: &RunSpec,
        drivers: &mut Drivers<'_, E>,
    ) -> Result<Started, E> {
        let (tx, rx) = mpsc::channel::<Msg>();
        let (setup_tx, setup_rx) = mpsc::channel::<(u32, Result<Setup, String>)>();
        let mut s = Started {
            gate: Arc::new(Gate::default()),
            rx,
            handles: Vec::new(),
            jobs: Vec::new(),
            stops: Vec::new(),
            windows: Vec::new(),
            setups: Vec::new(),
        };
        for (wl, d) in drivers.iter_mut().enumerate() {
            let window = window(spec, &spec.workloads[wl]);
            let stop = Arc::new(AtomicBool::new(false));
            let tasks = match d.tasks(window) {
                Ok(t) => t,
                Err(e) => {
                    s.abort();
                    return Err(e);
                }
            };
            s.jobs.push(tasks.len() as u32);
            s.stops.push(stop.clone());
            s.windows.push(window);
            for (i, task) in tasks.into_iter().enumerate() {
                let port = Port {
                    wl: wl as u32,
                    worker: i as u32,
                    tx: tx.clone(),
                    setup_tx: Some(setup_tx.clone()),
                    gate: s.gate.clone(),
                    stop: stop.clone(),
                    window,
                };
                // Workload 0's workers keep the names they always had.
                let name = if wl == 0 {
                    format!("iolab-w{i}")
                } else {
                    format!("iolab-w{wl}.{i}")
                };
                match std::thread::Builder::new()
                    .name(name)
                    .spawn(move || task.run(port))
                {
                    Ok(h) => s.handles.push(h),
                    Err(e) => {
                        s.abort();
                        return Err(CoreError(format!("starting worker thread: {e}")).into());
                    }
                }
            }
        }
        drop(tx);
        drop(setup_tx);
        let mut failed = None;
        // One report per worker, or fewer if a worker died in set-up.
        for (wl, r) in setup_rx.iter().take(s.handles.len()) {
            match r {
                Ok(setup) => s.setups.push((wl as usize, setup)),
                Err(e) => failed = Some(e),
            }
        }
        if let Some(e) = failed {
            s.abort();
            return Err(CoreError(e).into());
        }
        Ok(s)
    }

    fn abort(&mut self) {
        self.gate.open(None);
        self.join();
    }

    fn join(&mut self) {
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

/// The collector's state while the run is in progress.
struct Loop {
    tl: Timeline,
    t0: Instant,
    run_end: Option<u64>,
    cols: Vec<Collector>,
    ends: Vec<Vec<Option<Box<WorkerEnd>>>>,
    cpu_start: CpuTime,
    cpu_marks: BTreeMap<u32, CpuTime>,
    cpu_warm: Option<CpuTime>,
    cpu_end: Option<CpuTime>,
    next_mark: u32,
    /// The whole run's intervals as shown live (the stored ones are
    /// rebuilt at the end from the workloads' final intervals).
    shown: Vec<IntervalRaw>,
    events: Vec<EventRaw>,
    spec: RunSpec,
    /// Per workload: its steady-state judge, if it has a criterion.
    steady: Vec<Option<SteadyJudge>>,
    /// fio's `exitall`: which workloads ended which.
    exits: Exits,
}

impl Loop {
    fn new<E>(
        spec: &RunSpec,
        drivers: &Drivers<'_, E>,
        set: &Started,
        cpu_start: CpuTime,
        t0: Instant,
    ) -> Loop {
        let tl = timeline(spec);
        let cols = drivers
            .iter()
            .enumerate()
            .map(|(w, d)| {
                let caps = d.caps();
                Collector::new(
                    set.jobs[w],
                    tl,
                    OpStats::new(&caps.ops, caps.svc),
                    set.windows[w].first_interval(),
                )
            })
            .collect();
        Loop {
            tl,
            t0,
            run_end: spec.duration_s.map(|d| tl.warmup_ns + (d * 1e9) as u64),
            cols,
            ends: set
                .jobs
                .iter()
                .map(|&n| (0..n).map(|_| None).collect())
                .collect(),
            cpu_start,
            cpu_marks: BTreeMap::new(),
            cpu_warm: (tl.warmup_ns == 0).then_some(cpu_start),
            cpu_end: None,
            next_mark: 0,
            shown: Vec::new(),
            events: Vec::new(),
            spec: spec.clone(),
            steady: spec
                .workloads
                .iter()
                .zip(&set.windows)
                .map(|(w, win)| {
                    let start = win.start_ns.max(tl.warmup_ns);
                    w.steady.map(|s| SteadyJudge::new(s, tl, start))
                })
                .collect(),
            exits: Exits::new(&set.jobs),
        }
    }

    /// Judge each workload with a steady-state criterion on the
    /// intervals finalized since; stop a workload once it has levelled
    /// (the others go on).
    fn judge_steady(&mut self, stops: &[Arc<AtomicBool>]) {
        for (w, j) in self.steady.iter_mut().enumerate() {
            if let Some(j) = j {
                if j.feed(&self.cols[w].intervals) {
                    stops[w].store(true, Ordering::Relaxed);
                }
            }
        }
    }

    fn now(&self) -> u64 {
        self.t0.elapsed().as_nanos() as u64
    }

    /// Note the process CPU at every boundary passed; true when one was.
    fn mark(&mut self) -> bool {
        let now = self.now();
        let mut passed = false;
        while now >= self.tl.end(self.next_mark) {
            let c = process_cpu();
            if self.tl.end(self.next_mark) == self.tl.warmup_ns && self.cpu_warm.is_none() {
                self.cpu_warm = Some(c);
            }
            self.cpu_marks.insert(self.next_mark, c);
            self.next_mark += 1;
            passed = true;
        }
        passed
    }

    fn take_events(&mut self, log: &EventLog, obs: &mut dyn Observer) {
        for e in log.take() {
            obs.event(&e);
            self.events.push(e);
        }
    }

    fn main(
        &mut self,
        set: &Started,
        obs: &mut dyn Observer,
        samplers: &mut [&mut dyn Sampler],
        stop: &AtomicBool,
        log: &EventLog,
    ) {
        let workers: u32 = set.jobs.iter().sum();
        loop {
            if stop.load(Ordering::Relaxed) {
                set.stops
                    .iter()
                    .for_each(|s| s.store(true, Ordering::Relaxed));
            }
            if self.mark() {
                self.take_events(log, obs);
            }
            let now = self.now();
            let wait = self.tl.end(self.next_mark).saturating_sub(now);
            if workers == 0 {
                if stop.load(Ordering::Relaxed) || self.run_end.is_some_and(|e| now >= e) {
                    break;
                }
                // Nothing to collect: events show as they come (a
                // monitor's terminal lines), not only at boundaries.
                self.take_events(log, obs);
                let until_end = self.run_end.map_or(u64::MAX, |e| e - now);
                std::thread::sleep(Duration::from_nanos(
                    wait.min(until_end).clamp(100_000, IDLE_SLICE_NS),
                ));
            } else {
                match set
                    .rx
                    .recv_timeout(Duration::from_nanos(wait.clamp(1_000_000, 250_000_000)))
                {
                    Ok(Msg::Interval { wl, worker, snap }) => {
                        self.cols[wl as usize].add(worker, snap)
                    }
                    Ok(Msg::Done { wl, worker, end }) => {
                        self.cols[wl as usize].done(worker);
                        self.ends[wl as usize][worker as usize] = Some(end);
                        self.exits.worker_done(wl as usize, &self.spec, &set.stops);
                        if self.ends.iter().flatten().all(|e| e.is_some()) {
                            self.cpu_end = Some(process_cpu());
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
            }
            if self.mark() {
                self.take_events(log, obs);
            }
            let now = self.now();
            for c in &mut self.cols {
                c.finalize_ready(now, &self.cpu_marks, self.cpu_start, false);
            }
            self.judge_steady(&set.stops);
            self.show(now, false, obs, samplers);
        }
    }

    fn finish_intervals(
        &mut self,
        now: u64,
        obs: &mut dyn Observer,
        samplers: &mut [&mut dyn Sampler],
        log: &EventLog,
    ) {
        self.mark();
        for c in &mut self.cols {
            c.finalize_ready(now, &self.cpu_marks, self.cpu_start, true);
        }
        self.show(now, true, obs, samplers);
        self.take_events(log, obs);
    }

    /// Show every whole-run interval that is complete: each workload has
    /// finalized it, or will never have it (not started yet, ended).
    /// The samplers sample it first, so the observers see both.
    fn show(
        &mut self,
        now: u64,
        at_end: bool,
        obs: &mut dyn Observer,
        samplers: &mut [&mut dyn Sampler],
    ) {
        loop {
            let k = self.shown.len() as u32;
            let mut per = Vec::with_capacity(self.cols.len());
            for c in &self.cols {
                match c.get(k) {
                    Some(iv) => per.push(Some(iv.clone())),
                    None if !at_end && c.may_still_have(k) => return,
                    None => per.push(None),
                }
            }
            let mut total =
                IntervalRaw::empty(k, self.tl.start(k), self.tl.end(k), self.tl.is_warmup(k));
            if per.iter().all(|p| p.is_none()) {
                let last = self
                    .cols
                    .iter()
                    .filter_map(|c| c.intervals.last())
                    .map(|iv| iv.index)
                    .max();
                let all_finished = self.cols.iter().all(|c| c.finished);
                if self.cols.is_empty() && at_end {
                    // A run with no workload: keep the part interval at
                    // the end unless it is a sliver.
                    if now.saturating_sub(total.start_ns) < self.tl.interval_ns / 10 {
                        return;
                    }
                    total.end_ns = now.min(total.end_ns);
                    self.mark();
                    self.cpu_marks.entry(k).or_insert_with(process_cpu);
                } else if (at_end || all_finished) && !self.cols.is_empty() {
                    if last.is_none_or(|l| k > l) {
                        return;
                    }
                } else if now < total.end_ns {
                    return;
                }
            } else {
                total.start_ns = u64::MAX;
                total.end_ns = 0;
                for iv in per.iter().flatten() {
                    total.merge(iv);
                }
                total.warmup = self.tl.is_warmup(k);
            }
            total.cpu = interval_cpu(&self.cpu_marks, self.cpu_start, k);
            let tick = Tick {
                index: k,
                start_ns: total.start_ns,
                end_ns: total.end_ns,
                warmup: total.warmup,
            };
            samplers.iter_mut().for_each(|s| s.sample(&tick));
            obs.interval(&self.spec, &total, &per);
            self.shown.push(total);
            if self.cols.is_empty() && at_end {
                return;
            }
        }
    }
}

impl Loop {
    /// Workload `w`'s raw results: the collector's figures, its workers'
    /// errors and gaps, then what its driver adds.
    #[allow(clippy::too_many_arguments)]
    fn workload<E>(
        &mut self,
        w: usize,
        d: &mut (dyn Driver<Error = E> + '_),
        set: &Started,
        cpu: CpuTime,
        started_at: SystemTime,
        interrupted: bool,
        obs: &mut dyn Observer,
    ) -> WorkloadRaw {
        let mut raw = d.describe();
        let col = &mut self.cols[w];
        let win = set.windows[w];
        let ends: Vec<Box<WorkerEnd>> = self.ends[w].iter_mut().filter_map(|e| e.take()).collect();
        raw.started_at = started_at;
        raw.warmup_ns = self.tl.warmup_ns;
        let last = ends.iter().map(|e| e.end_ns).max();
        // A workload that issued nothing (stopped, or the run ended before
        // its start) starts and ends where it stopped, at most its start.
        raw.start_ns = ends
            .iter()
            .filter_map(|e| e.gaps.first_ns())
            .min()
            .unwrap_or_else(|| win.start_ns.min(last.unwrap_or(win.start_ns)));
        raw.end_ns = last.unwrap_or(raw.start_ns).max(raw.start_ns);
        raw.measured_ns = raw
            .end_ns
            .saturating_sub(self.tl.warmup_ns.max(win.start_ns));
        let steady = self.steady[w].take().map(|mut j| {
            j.feed(&col.intervals);
            j.finish()
        });
        let levelled = steady.as_ref().is_some_and(|s| s.reached);
        raw.steady = steady;
        raw.intervals = std::mem::take(&mut col.intervals);
        raw.ops = std::mem::take(&mut col.sum);
        raw.fsyncs = col.sum_fsyncs;
        raw.cpu = cpu;
        let mut errors: Vec<IoErrorRec> = ends
            .iter()
            .flat_map(|e| e.errors.records.iter().cloned())
            .collect();
        errors.sort_by_key(|e| e.time_ns);
        let mut counts: BTreeMap<i32, u64> = BTreeMap::new();
        for e in &ends {
            for (n, c) in e.errors.counts() {
                *counts.entry(n).or_default() += c;
            }
        }
        raw.errors = errors;
        raw.errno_counts = counts.into_iter().collect();
        raw.errors_total = ends.iter().map(|e| e.errors.total).sum();
        let spans: Vec<Span> = ends.iter().map(|e| Span::of(e)).collect();
        raw.stalls = analyse(
            &spans,
            &raw.intervals,
            raw.spec.stall_threshold_s,
            self.tl.warmup_ns,
        );
        raw.incomplete_reason = ends
            .iter()
            .find_map(|e| e.fatal.as_ref())
            .map(|f| format!("engine error: {f}"))
            .or_else(|| interrupted.then(|| "interrupted".to_string()));
        let mut ends = ends;
        let extras = ends.iter_mut().filter_map(|e| e.extra.take()).collect();
        d.finish(&mut raw, extras, &col.per_worker, obs);
        raw.ended_by = self.exits.ended_by[w].take();
        let exited = raw.ended_by.is_some();
        if raw.incomplete_reason.is_none()
            && !levelled
            && !exited
            && set.stops[w].load(Ordering::Relaxed)
        {
            raw.incomplete_reason =
                Some("stopped on the first I/O error (--on-error stop)".to_string());
        }
        raw.complete = raw.incomplete_reason.is_none();
        // Kept for the whole run's stall analysis.
        self.ends[w] = ends.into_iter().map(Some).collect();
        raw
    }

    /// The whole run: every workload's figures merged on the one clock.
    fn whole(
        &mut self,
        mut r: RunRaw,
        spec: &RunSpec,
        cpu: CpuTime,
        interrupted: bool,
        notes: Vec<String>,
    ) -> RunRaw {
        let merged = merge_by_index(r.workloads.iter().map(|w| w.intervals.as_slice()));
        let mut by_k: BTreeMap<u32, IntervalRaw> =
            merged.into_iter().map(|iv| (iv.index, iv)).collect();
        let from_workloads: std::collections::BTreeSet<u32> = by_k.keys().copied().collect();
        for iv in std::mem::take(&mut self.shown) {
            by_k.entry(iv.index).or_insert(iv);
        }
        for iv in by_k.values_mut() {
            iv.cpu = interval_cpu(&self.cpu_marks, self.cpu_start, iv.index);
        }
        r.intervals = by_k.into_values().collect();
        for w in &r.workloads {
            r.ops.merge(&w.ops);
            r.fsyncs += w.fsyncs;
        }
        let end = r
            .workloads
            .iter()
            .map(|w| w.end_ns)
            .max()
            .unwrap_or_else(|| self.now());
        r.measured_ns = end.saturating_sub(self.tl.warmup_ns);
        r.cpu = cpu;
        let counted: Vec<IntervalRaw> = r
            .intervals
            .iter()
            .filter(|iv| from_workloads.contains(&iv.index))
            .cloned()
            .collect();
        let spans: Vec<Span> = self
            .ends
            .iter()
            .flatten()
            .flatten()
            .map(|e| Span::of(e))
            .collect();
        let threshold = spec
            .workloads
            .iter()
            .map(|w| w.stall_threshold_s)
            .fold(f64::INFINITY, f64::min);
        r.stalls = analyse(
            &spans,
            &counted,
            if threshold.is_finite() {
                threshold
            } else {
                1.0
            },
            self.tl.warmup_ns,
        );
        r.events = std::mem::take(&mut self.events);
        r.incomplete_reason = r
            .workloads
            .iter()
            .find_map(|w| w.incomplete_reason.clone())
            .or_else(|| {
                (interrupted && !r.workloads.is_empty()).then(|| "interrupted".to_string())
            });
        r.complete = r.incomplete_reason.is_none();
        r.notes = notes;
        r.exit_all = self.exits.exit_all;
        r
    }
}
