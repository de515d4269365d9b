//! The result document while a run is in progress, so a killed process
//! (SIGKILL, a host that hangs in a failure test, a power cut of the
//! machine running iolab) leaves what it measured.
//!
//! When a run's clock starts, and then at the first interval boundary
//! that would otherwise leave more than 10 s (run time) since the last
//! update, or at every boundary when intervals are longer than that, the
//! document is written with a provisional record of the run: marked
//! `complete: false` with an `incomplete_reason` that starts with
//! "in progress", its intervals so far, and a summary with latency
//! percentiles from the intervals' merged histograms. The final save
//! after the run replaces it with the real record. docs/results.md
//! describes such a document. Documents so large that a write takes more
//! than 0.5 s (day-long runs) are updated less often, so keeping them
//! never takes more than 5 % of the time (`WRITE_SPACING`).
//!
//! Everything here runs once per interval on the collector thread (never
//! per I/O, never on a worker); the write itself (serialising, fsync,
//! rename) happens on a writer thread of its own, so a slow file system
//! under the document delays neither the workers nor the interval lines.
//! Only regular files get updates: a FIFO, `/dev/stdout` or `/dev/null`
//! receives one document, the final one.

use iolab_engine::{CpuTime, EventRaw, IntervalRaw, OpStats, RunRaw, StallsRaw};
use iolab_report::model::{Interval, ResultDoc, RunResult};
use iolab_report::{build_run, save_document};
use iolab_target::OutputPath;
use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// The longest run time between two updates, unless an interval is longer.
const SAVE_EVERY_S: f64 = 10.0;

/// Updates are spaced to at least this many times the last write's
/// duration, so keeping the document takes at most 5 % of the writer
/// thread's time and of the output's bandwidth: only documents of very
/// long runs (a day of 1 s intervals is 150 MB, a second to write) get
/// updates further apart than the period.
const WRITE_SPACING: u64 = 20;

/// Hidden, for tests only: the update period in seconds instead of 10
/// (a test cannot wait 30 s for the figures of the check).
const SAVE_EVERY_ENV: &str = "IOLAB_SAVE_EVERY";

/// The tags a sweep's run carries: point, repeat and swept values.
pub type SweepTags = (u32, u32, BTreeMap<String, String>);

/// Keeps the current run's provisional record and hands it to the writer.
pub struct LiveDoc {
    every_ns: u64,
    writer: Writer,
    tags: Option<SweepTags>,
    /// The run's place in a response-time curve, if any.
    curve: Option<iolab_report::CurveRecord>,
    /// The run as known at clock start; None between runs.
    skeleton: Option<RunRaw>,
    interval_ns: u64,
    /// The whole run so far, then each workload's, in the run's order.
    whole: Tally,
    workloads: Vec<Tally>,
    events: Vec<EventRaw>,
    /// End of the last measured (not warm-up) interval, ns of run time.
    measured_end_ns: u64,
    /// Run time of the last update.
    saved_ns: u64,
}

impl LiveDoc {
    /// A live document for `--json PATH`, or None without one. The caller
    /// gives no path for a stream (a FIFO, `/dev/stdout`, `/dev/null`):
    /// it gets only the final document. Err: a bad `IOLAB_SAVE_EVERY`.
    pub fn new(path: Option<&OutputPath>) -> Result<Option<LiveDoc>, String> {
        let every_s = match std::env::var(SAVE_EVERY_ENV) {
            Ok(v) => match v.trim().parse::<f64>() {
                Ok(s) if s.is_finite() && s > 0.0 && s <= 86400.0 => s,
                _ => {
                    return Err(format!(
                        "{SAVE_EVERY_ENV}={v:?} is not a number of seconds between 0 and 86400; unset it or give e.g. 1"
                    ))
                }
            },
            Err(_) => SAVE_EVERY_S,
        };
        let Some(path) = path else { return Ok(None) };
        Ok(Some(LiveDoc {
            every_ns: (every_s * 1e9) as u64,
            writer: Writer::start(path.clone()),
            tags: None,
            curve: None,
            skeleton: None,
            interval_ns: 0,
            whole: Tally::default(),
            workloads: Vec::new(),
            events: Vec::new(),
            measured_end_ns: 0,
            saved_ns: 0,
        }))
    }

    /// A run is about to start: `doc` holds the runs before it.
    pub fn begin(
        &mut self,
        doc: &ResultDoc,
        tags: Option<SweepTags>,
        curve: Option<iolab_report::CurveRecord>,
    ) {
        self.skeleton = None;
        self.tags = tags;
        self.curve = curve;
        let mut base = doc.clone();
        base.complete = false;
        self.writer.begin(base);
    }

    /// The run's clock started: write the document with the run listed as
    /// in progress.
    pub fn measuring(&mut self, run: &RunRaw) {
        self.interval_ns = run.interval_ns.max(1_000_000);
        self.whole = Tally::new(run.ops.has_svc());
        self.workloads = run
            .workloads
            .iter()
            .map(|w| Tally::new(w.ops.has_svc()))
            .collect();
        self.events.clear();
        self.measured_end_ns = run.warmup_ns;
        self.saved_ns = 0;
        self.skeleton = Some(run.clone());
        self.update(0);
    }

    /// An interval finished: the whole run's (`rec` is its record as the
    /// document holds it) and each workload's (`None` when not running).
    pub fn interval(
        &mut self,
        iv: &IntervalRaw,
        rec: &Interval,
        workloads: &[Option<IntervalRaw>],
        recs: &[Option<Interval>],
    ) {
        if self.skeleton.is_none() {
            return;
        }
        self.whole.add(iv, rec);
        for ((t, w), r) in self.workloads.iter_mut().zip(workloads).zip(recs) {
            if let (Some(w), Some(r)) = (w, r) {
                t.add(w, r);
            }
        }
        if !iv.warmup {
            self.measured_end_ns = self.measured_end_ns.max(iv.end_ns);
        }
        let every_ns = self
            .every_ns
            .max(WRITE_SPACING.saturating_mul(self.writer.last_write_ns()));
        if update_due(iv.end_ns, self.interval_ns, self.saved_ns, every_ns) {
            self.update(iv.end_ns);
        }
    }

    /// An event was marked: it goes into the next update.
    pub fn event(&mut self, ev: &EventRaw) {
        if self.skeleton.is_some() {
            self.events.push(ev.clone());
        }
    }

    /// The run ended (or failed to start): no provisional record may be
    /// written after this, so the caller's final save is the last word.
    pub fn settle(&mut self) {
        self.skeleton = None;
        self.writer.settle();
    }

    fn update(&mut self, now_ns: u64) {
        let Some(sk) = &self.skeleton else { return };
        self.saved_ns = now_ns;
        let reason = format!(
            "in progress: last updated {:.1} s into the run; if iolab is no longer running, it was killed or crashed before the run finished",
            now_ns as f64 / 1e9
        );
        let so_far = SoFar {
            skeleton: sk,
            whole: &self.whole,
            workloads: &self.workloads,
            events: &self.events,
            measured_end_ns: self.measured_end_ns,
        };
        let (_, mut run) = so_far.record(reason, "written while the run was in progress");
        if let Some((point, repeat, params)) = &self.tags {
            run.point = Some(*point);
            run.repeat = Some(*repeat);
            run.params = params.clone();
        }
        run.curve = self.curve.clone();
        self.writer.update(run);
    }
}

/// A run as known before its end: its skeleton (the run core's
/// `measuring`) and what its intervals so far add up to.
struct SoFar<'a> {
    skeleton: &'a RunRaw,
    whole: &'a Tally,
    workloads: &'a [Tally],
    events: &'a [EventRaw],
    measured_end_ns: u64,
}

impl SoFar<'_> {
    /// The provisional raw results and record, incomplete for `reason`,
    /// with a note saying the record is provisional and `why`.
    fn record(&self, reason: String, why: &str) -> (RunRaw, RunResult) {
        let sk = self.skeleton;
        let mut raw = sk.clone();
        let measured_ns = self.measured_end_ns.saturating_sub(sk.warmup_ns);
        raw.ops = self.whole.ops.clone();
        raw.fsyncs = self.whole.fsyncs;
        raw.cpu = self.whole.cpu;
        raw.measured_ns = measured_ns;
        raw.stalls = self.whole.stalls();
        raw.events = self.events.to_vec();
        raw.complete = false;
        raw.incomplete_reason = Some(reason.clone());
        for (w, t) in raw.workloads.iter_mut().zip(self.workloads) {
            w.ops = t.ops.clone();
            w.fsyncs = t.fsyncs;
            w.cpu = t.cpu;
            w.errors_total = t.errors;
            w.measured_ns = t.measured_ns(sk.warmup_ns);
            w.end_ns = t.last_end_ns;
            w.stalls = t.stalls();
            w.complete = false;
            w.incomplete_reason = Some(reason.clone());
            // A file-system workload's operations so far; its fileset
            // counters are known only when it ends (cleared below).
            if w.spec.fs.is_some() && w.fs.is_none() {
                w.fs = Some(Default::default());
            }
        }
        let verify = sk.workloads.iter().any(|w| w.spec.verify);
        raw.notes.push(format!(
            "provisional record, {why}: the summary and latency percentiles cover the intervals up to the last update; stall analysis, error records, per-target figures{} come only when the run ends",
            if verify {
                ", device statistics and data validation results (check the target with iolab verify)"
            } else {
                " and device statistics"
            }
        ));
        let mut run = build_run(&raw);
        run.intervals = self.whole.intervals.clone();
        run.stalls.provisional = true;
        for (w, t) in run.workloads.iter_mut().zip(self.workloads) {
            w.intervals = t.intervals.clone();
            w.stalls.provisional = true;
            if w.io_summary.is_some() {
                w.fileset = None;
            }
        }
        (raw, run)
    }
}

/// The record of a run that ended without its results (a host lost in a
/// multi-host run): its skeleton, `intervals` (the whole run's and each
/// workload's, in order) and `events` as received, incomplete for
/// `reason`, the note saying `why` it is provisional. The raw results
/// carry the intervals too, for exact merging.
pub(crate) fn record_so_far(
    skeleton: &RunRaw,
    intervals: &[(IntervalRaw, Vec<Option<IntervalRaw>>)],
    events: &[EventRaw],
    reason: String,
    why: &str,
) -> (RunRaw, RunResult) {
    let mut whole = Tally::new(skeleton.ops.has_svc());
    let mut workloads: Vec<Tally> = (skeleton.workloads.iter())
        .map(|w| Tally::new(w.ops.has_svc()))
        .collect();
    let mut measured_end_ns = skeleton.warmup_ns;
    for (iv, ws) in intervals {
        whole.add(iv, &iolab_report::interval_record(iv));
        for (t, w) in workloads.iter_mut().zip(ws) {
            if let Some(w) = w {
                t.add(w, &iolab_report::interval_record(w));
            }
        }
        if !iv.warmup {
            measured_end_ns = measured_end_ns.max(iv.end_ns);
        }
    }
    let so_far = SoFar {
        skeleton,
        whole: &whole,
        workloads: &workloads,
        events,
        measured_end_ns,
    };
    let (mut raw, run) = so_far.record(reason, why);
    raw.intervals = intervals.iter().map(|(iv, _)| iv.clone()).collect();
    for (k, w) in raw.workloads.iter_mut().enumerate() {
        w.intervals = (intervals.iter())
            .filter_map(|(_, ws)| ws.get(k).cloned().flatten())
            .collect();
    }
    (raw, run)
}

/// What the intervals so far add up to, for the whole run or one workload.
#[derive(Default)]
struct Tally {
    intervals: Vec<Interval>,
    ops: OpStats,
    fsyncs: u64,
    cpu: CpuTime,
    errors: u64,
    /// Start of the first and end of the last measured interval it was
    /// active in, ns of run time.
    first_start_ns: Option<u64>,
    last_end_ns: u64,
}

impl Tally {
    fn new(svc: bool) -> Tally {
        Tally {
            ops: OpStats::rw(svc),
            ..Default::default()
        }
    }

    fn add(&mut self, iv: &IntervalRaw, rec: &Interval) {
        self.intervals.push(rec.clone());
        if !iv.warmup {
            self.ops.merge(&iv.ops);
            self.fsyncs += iv.fsyncs;
            if let Some(c) = iv.cpu {
                self.cpu.user_us += c.user_us;
                self.cpu.sys_us += c.sys_us;
            }
            self.first_start_ns.get_or_insert(iv.start_ns);
            self.last_end_ns = self.last_end_ns.max(iv.end_ns);
        }
        self.errors += iv.errors;
    }

    /// Measured time so far: from the later of the warm-up's end and the
    /// first measured interval it was active in, to the last one's end.
    fn measured_ns(&self, warmup_ns: u64) -> u64 {
        let from = self.first_start_ns.unwrap_or(warmup_ns).max(warmup_ns);
        self.last_end_ns.saturating_sub(from)
    }

    /// Only what intervals tell: those with no completion and no error.
    fn stalls(&self) -> StallsRaw {
        StallsRaw {
            zero_intervals: self
                .intervals
                .iter()
                .filter(|r| !r.warmup && ops_of(r) + r.errors == 0 && r.end_s > r.start_s)
                .map(|r| r.index)
                .collect(),
            ..Default::default()
        }
    }
}

/// Operations an interval completed: every operation of a file-system
/// workload (fsync included), reads and writes of a block workload.
fn ops_of(r: &Interval) -> u64 {
    r.all.as_ref().map_or(r.total.ops, |a| a.ops)
}

/// Whether the interval that ended at `end_ns` brings an update: yes when
/// waiting for the next boundary would leave more than `every_ns` since
/// the last update (at `saved_ns`). So updates come at most `every_ns`
/// apart, at the last boundary before that, and at every boundary when
/// intervals are longer than `every_ns`.
fn update_due(end_ns: u64, interval_ns: u64, saved_ns: u64, every_ns: u64) -> bool {
    end_ns + interval_ns > saved_ns + every_ns
}

/// The writer thread: writes the newest provisional record pushed onto the
/// document of the runs before it. Older records still waiting are
/// replaced, so a slow file system never builds a queue.
struct Writer {
    shared: Arc<Shared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    cv: Condvar,
}

#[derive(Default)]
struct State {
    /// The document of the finished runs; taken while a write is under way.
    base: Option<ResultDoc>,
    /// Bumped by `begin` and `settle`: a write started before belongs to
    /// an earlier phase and must not put its document back.
    generation: u64,
    pending: Option<RunResult>,
    busy: bool,
    /// How long the last write took, ns.
    last_write_ns: u64,
    quit: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Writer {
    fn start(path: OutputPath) -> Writer {
        let shared = Arc::new(Shared::default());
        let s = shared.clone();
        let thread = std::thread::Builder::new()
            .name("iolab-save".into())
            .spawn(move || write_loop(&s, &path))
            .ok();
        Writer { shared, thread }
    }

    fn begin(&self, base: ResultDoc) {
        let mut g = self.shared.lock();
        g.generation += 1;
        g.pending = None;
        g.base = Some(base);
    }

    fn update(&self, run: RunResult) {
        self.shared.lock().pending = Some(run);
        self.shared.cv.notify_all();
    }

    fn last_write_ns(&self) -> u64 {
        self.shared.lock().last_write_ns
    }

    /// Drop what waits and wait for a write under way to finish.
    fn settle(&self) {
        let mut g = self.shared.lock();
        g.generation += 1;
        g.pending = None;
        g.base = None;
        while g.busy {
            g = self.shared.cv.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        self.settle();
        self.shared.lock().quit = true;
        self.shared.cv.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn write_loop(sh: &Shared, path: &OutputPath) {
    let mut warned = false;
    let mut g = sh.lock();
    loop {
        while !g.quit && (g.pending.is_none() || g.base.is_none()) {
            g = sh.cv.wait(g).unwrap_or_else(|e| e.into_inner());
        }
        if g.quit {
            return;
        }
        let (Some(run), Some(mut doc)) = (g.pending.take(), g.base.take()) else {
            continue;
        };
        let generation = g.generation;
        g.busy = true;
        drop(g);
        doc.runs.push(run);
        let t = std::time::Instant::now();
        let r = save_document(path, &doc);
        let took = t.elapsed().as_nanos() as u64;
        doc.runs.pop();
        if let Err(e) = r {
            if !warned {
                eprintln!(
                    "iolab: cannot update {} while the run is in progress: {e}; it is written again when the run ends",
                    path.path().display()
                );
                warned = true;
            }
        }
        g = sh.lock();
        if g.generation == generation && g.base.is_none() {
            g.base = Some(doc);
        }
        g.busy = false;
        g.last_write_ns = took;
        sh.cv.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::{update_due, Tally};
    use iolab_report::interval_record;

    #[test]
    fn a_workload_that_starts_late_is_measured_from_its_start() {
        let s = 1_000_000_000;
        let iv = |i: u64, ops: u64| {
            let mut o = iolab_engine::OpStats::rw(false);
            o.get_mut(iolab_engine::Op::Read).unwrap().ops = ops;
            iolab_engine::IntervalRaw {
                index: i as u32,
                start_ns: i * s,
                end_ns: (i + 1) * s,
                warmup: i == 0,
                ops: o,
                errors: 0,
                fsyncs: 0,
                cpu: None,
                workers_late: 0,
            }
        };
        let mut t = Tally::new(false);
        // Warm-up 1 s; the workload's first interval is 2 (a start delay),
        // and interval 3 saw nothing.
        for (i, ops) in [(2, 10), (3, 0), (4, 5)] {
            let raw = iv(i, ops);
            t.add(&raw, &interval_record(&raw));
        }
        assert_eq!(t.measured_ns(s), 3 * s);
        assert_eq!(t.ops.read().ops, 15);
        assert_eq!(t.stalls().zero_intervals, [3]);
        assert_eq!(Tally::new(false).measured_ns(s), 0);
    }

    /// Run times (s) of the updates after the one at 0 s, up to `until`.
    fn updates(interval_s: u64, every_s: u64, until: u64) -> Vec<u64> {
        let s = 1_000_000_000;
        let mut saved = 0;
        let mut out = Vec::new();
        let mut end = interval_s;
        while end <= until {
            if update_due(end * s, interval_s * s, saved * s, every_s * s) {
                saved = end;
                out.push(end);
            }
            end += interval_s;
        }
        out
    }

    #[test]
    fn updates_come_at_most_every_period_and_at_every_longer_interval() {
        assert_eq!(updates(1, 10, 30), [10, 20, 30]);
        assert_eq!(updates(3, 10, 30), [9, 18, 27]);
        assert_eq!(updates(10, 10, 30), [10, 20, 30]);
        assert_eq!(updates(30, 10, 90), [30, 60, 90]);
        assert_eq!(updates(1, 1, 3), [1, 2, 3]);
    }
}
