//! The worker's side of the run core: what a driver's task uses on its
//! thread. It reports set-up, waits at the start gate, waits for its
//! workload's start, sends one snapshot per interval and its end. The
//! per-I/O loop touches none of this except through [`GapTracker`] and
//! [`ErrorTally`] (a few instructions, no allocation); snapshots go out
//! once per interval.

use crate::timeline::Timeline;
use iolab_raw::{Gap, IoErrorRec, OpStats};
use std::any::Any;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Gaps at least this long are kept for the cross-worker stall analysis.
pub const GAP_RECORD_NS: u64 = 10_000_000;
/// Individually recorded errors per worker; the rest are only counted.
pub const MAX_ERROR_RECORDS: usize = 1000;

/// One worker's figures for one interval.
pub struct Snapshot {
    pub index: u32,
    /// The interval's end, or earlier for a worker's last, partial one.
    pub end_ns: u64,
    pub ops: OpStats,
    pub errors: u64,
    pub fsyncs: u64,
}

impl Snapshot {
    pub fn new(index: u32, ops: OpStats) -> Self {
        Snapshot {
            index,
            end_ns: 0,
            ops,
            errors: 0,
            fsyncs: 0,
        }
    }
}

/// A worker's errors: the first [`MAX_ERROR_RECORDS`] in full, all of
/// them counted by errno.
pub struct ErrorTally {
    pub records: Vec<IoErrorRec>,
    counts: [u64; 256],
    pub total: u64,
}

impl Default for ErrorTally {
    fn default() -> Self {
        ErrorTally {
            records: Vec::new(),
            counts: [0; 256],
            total: 0,
        }
    }
}

impl ErrorTally {
    /// Count an error with `errno` (0: a short transfer); `rec` makes its
    /// record, called only while there is room for one.
    #[cold]
    pub fn add(&mut self, errno: i32, rec: impl FnOnce() -> IoErrorRec) {
        self.total += 1;
        self.counts[(errno.max(0) as usize).min(255)] += 1;
        if self.records.len() < MAX_ERROR_RECORDS {
            self.records.push(rec());
        }
    }

    /// (errno, count) of every errno seen, ascending.
    pub fn counts(&self) -> Vec<(i32, u64)> {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(e, &n)| (e as i32, n))
            .collect()
    }
}

/// Times a worker had I/O outstanding and no completion. The worker
/// calls [`GapTracker::busy`] when it issues with nothing in flight and
/// [`GapTracker::completed`] after each reap that returned completions.
#[derive(Default)]
pub struct GapTracker {
    busy_start: u64,
    last_completion: u64,
    /// When the worker first had I/O outstanding (`u64::MAX`: never).
    first_ns: u64,
    pub longest: Option<Gap>,
    pub gaps: Vec<Gap>,
}

impl GapTracker {
    pub fn new() -> Self {
        GapTracker {
            first_ns: u64::MAX,
            ..Default::default()
        }
    }

    /// I/O was issued with none in flight.
    #[inline(always)]
    pub fn busy(&mut self, now: u64) {
        self.busy_start = now;
        self.first_ns = self.first_ns.min(now);
    }

    /// Completions were reaped at `now`; gaps ending in warm-up do not
    /// count.
    #[inline]
    pub fn completed(&mut self, now: u64, warmup_ns: u64) {
        let gap = Gap {
            start_ns: self.last_completion.max(self.busy_start),
            end_ns: now,
        };
        if now >= warmup_ns {
            if self.longest.is_none_or(|g| gap.len() > g.len()) {
                self.longest = Some(gap);
            }
            if gap.len() >= GAP_RECORD_NS {
                self.gaps.push(gap);
            }
        }
        self.last_completion = now;
    }

    /// The last completion, if any.
    pub fn last_ns(&self) -> Option<u64> {
        (self.first_ns != u64::MAX).then_some(self.last_completion)
    }

    /// When the first I/O was issued, if any was.
    pub fn first_ns(&self) -> Option<u64> {
        (self.first_ns != u64::MAX).then_some(self.first_ns)
    }
}

/// What a worker hands back when it ends.
pub struct WorkerEnd {
    pub errors: ErrorTally,
    pub gaps: GapTracker,
    /// Its last completion (or when it gave up), ns since t0.
    pub end_ns: u64,
    /// An engine error that ended the worker early.
    pub fatal: Option<String>,
    /// Driver-specific results (the block driver's verification).
    pub extra: Option<Box<dyn Any + Send>>,
}

/// What a worker reported after set-up on its thread, before the gate.
#[derive(Default)]
pub struct Setup {
    /// Notes for the run (fallbacks), shown once each.
    pub notes: Vec<String>,
    /// Driver-specific (the ring flags that took), handed to
    /// [`crate::Driver::setup_done`].
    pub info: Option<Box<dyn Any + Send>>,
}

pub(crate) enum Msg {
    Interval {
        wl: u32,
        worker: u32,
        snap: Box<Snapshot>,
    },
    Done {
        wl: u32,
        worker: u32,
        end: Box<WorkerEnd>,
    },
}

/// Holds workers after set-up until the clock starts (`Some(t0)`) or the
/// run is abandoned (`None`).
#[derive(Default)]
pub(crate) struct Gate {
    state: Mutex<Option<Option<Instant>>>,
    cv: Condvar,
}

impl Gate {
    pub(crate) fn open(&self, v: Option<Instant>) {
        *self.state.lock().unwrap_or_else(|e| e.into_inner()) = Some(v);
        self.cv.notify_all();
    }
    fn wait(&self) -> Option<Instant> {
        let mut g = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(v) = *g {
                return v;
            }
            g = self.cv.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// When a workload runs on the run's clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    pub timeline: Timeline,
    /// Its first I/O is issued this long after t0 (`start_delay`).
    pub start_ns: u64,
    /// It issues nothing after this (its own duration, or the run's).
    pub end_ns: Option<u64>,
}

impl Window {
    /// The interval of the workload's first I/O: its first snapshot.
    pub fn first_interval(&self) -> u32 {
        self.timeline.index_at(self.start_ns)
    }
}

/// A worker's line to the run core (one per task, moved to its thread).
pub struct Port {
    pub(crate) wl: u32,
    pub(crate) worker: u32,
    pub(crate) tx: Sender<Msg>,
    pub(crate) setup_tx: Option<Sender<(u32, Result<Setup, String>)>>,
    pub(crate) gate: Arc<Gate>,
    /// Set when this workload must stop (Ctrl-C, the run's end, or one of
    /// its workers stopping it on an error).
    pub stop: Arc<AtomicBool>,
    pub window: Window,
}

impl Port {
    /// The worker's index within its workload.
    pub fn worker(&self) -> u32 {
        self.worker
    }

    /// Set-up on this thread finished (or failed: the run does not start).
    pub fn ready(&mut self, r: Result<Setup, String>) {
        if let Some(tx) = self.setup_tx.take() {
            let _ = tx.send((self.wl, r));
        }
    }

    /// Wait at the start gate; `Some(t0)` when the clock started, `None`
    /// when the run was abandoned before it.
    pub fn wait_gate(&mut self) -> Option<Instant> {
        self.setup_tx = None;
        self.gate.wait()
    }

    /// After the gate: sleep until the workload's start (`start_delay`),
    /// waking for a stop, or at its end if that comes first (the run
    /// ended before the workload's turn). True when it is time to issue;
    /// false when the workload was stopped or ended first.
    pub fn wait_start(&self, t0: Instant) -> bool {
        let start = self.window.start_ns;
        let until = self.window.end_ns.map_or(start, |e| e.min(start));
        let due = t0 + Duration::from_nanos(until);
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return false;
            }
            let now = Instant::now();
            if now >= due {
                return until == start;
            }
            let left = due - now;
            if left > Duration::from_micros(200) {
                std::thread::sleep(
                    (left - Duration::from_micros(100)).min(Duration::from_millis(50)),
                );
            } else {
                std::hint::spin_loop();
            }
        }
    }

    /// Send one interval's snapshot (once per interval, off the per-I/O
    /// path).
    #[cold]
    pub fn interval(&self, snap: Box<Snapshot>) {
        let _ = self.tx.send(Msg::Interval {
            wl: self.wl,
            worker: self.worker,
            snap,
        });
    }

    /// The worker ended.
    pub fn done(self, end: WorkerEnd) {
        let _ = self.tx.send(Msg::Done {
            wl: self.wl,
            worker: self.worker,
            end: Box::new(end),
        });
    }
}

/// The other end of a [`Port::detached`]: what the worker sent.
pub struct Detached {
    rx: std::sync::mpsc::Receiver<Msg>,
}

impl Detached {
    /// Snapshots received and the worker's end, once it has ended.
    pub fn end(self) -> (Vec<Box<Snapshot>>, Option<Box<WorkerEnd>>) {
        let mut snaps = Vec::new();
        for m in self.rx.try_iter() {
            match m {
                Msg::Interval { snap, .. } => snaps.push(snap),
                Msg::Done { end, .. } => return (snaps, Some(end)),
            }
        }
        (snaps, None)
    }
}

impl Port {
    /// A port for one worker run alone, outside a run (tests, tools):
    /// no gate, its own stop flag, reports kept for [`Detached::end`].
    pub fn detached(window: Window) -> (Port, Detached) {
        let (tx, rx) = std::sync::mpsc::channel();
        let gate = Arc::new(Gate::default());
        gate.open(Some(Instant::now()));
        (
            Port {
                wl: 0,
                worker: 0,
                tx,
                setup_tx: None,
                gate,
                stop: Arc::new(AtomicBool::new(false)),
                window,
            },
            Detached { rx },
        )
    }
}
