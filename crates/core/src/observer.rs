//! What a front end sees while a run is in progress. The run core calls
//! these from its collector thread, never from a worker, so an observer
//! may print, allocate and write files.

use iolab_raw::{EventRaw, IntervalRaw, RunRaw};
use iolab_spec::RunSpec;

/// Receives progress while a run (its workloads together) is in progress.
pub trait Observer {
    /// The targets passed their checks and the run begins (prefill first,
    /// if any).
    fn started(&mut self, _run: &RunSpec) {}
    /// The run clock started (after prefill and set-up): time 0 of the
    /// intervals and of every workload's `start_delay`.
    fn clock_started(&mut self) {}
    /// Every worker is set up and waiting at the gate: the clock starts
    /// when this returns. A multi-host agent tells the controller it is
    /// ready here and waits for the start instant they agreed on (or for
    /// `stop`, when the run then ends at once).
    fn armed(&mut self, _stop: &std::sync::atomic::AtomicBool) {}
    /// Right after [`Observer::clock_started`]: the run as known before
    /// its first I/O (each workload's spec, settings that took effect,
    /// targets, notes) with no figures yet, `complete` false. A front end
    /// that keeps a provisional record while the run is in progress builds
    /// on it.
    fn measuring(&mut self, _run: &RunRaw) {}
    /// A note about the run (fallbacks, prefill, ...).
    fn note(&mut self, _msg: &str) {}
    /// Interval `total.index` finished: the whole run's figures and each
    /// workload's, in the run's order; `None` for a workload that had not
    /// started yet or had already ended in that interval.
    fn interval(
        &mut self,
        _run: &RunSpec,
        _total: &IntervalRaw,
        _workloads: &[Option<IntervalRaw>],
    ) {
    }
    /// An event was marked (`iolab mark`, SIGUSR1), timed on the run's clock.
    fn event(&mut self, _ev: &EventRaw) {}
    /// Prefill progress: bytes done of total for one target.
    fn prefill(&mut self, _path: &str, _done: u64, _total: u64) {}
    /// A fileset's creation before the run (anchor `anchor`), about ten
    /// times a second, and once more with `finished` when it ended.
    fn fileset_progress(&mut self, _anchor: &str, _p: &FilesetProgress) {}
}

/// How far a fileset's creation got (files looked at and bytes in place,
/// of the layout's), for [`Observer::fileset_progress`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FilesetProgress {
    pub files_done: u64,
    pub files_total: u64,
    /// Bytes of the files made before the run that are in place (written
    /// now or found there), of all of them.
    pub bytes_done: u64,
    pub bytes_total: u64,
    /// Bytes this creation wrote, and the seconds since it began.
    pub bytes_written: u64,
    pub elapsed_s: f64,
    /// Creation ended (done, failed or interrupted): the last call.
    pub finished: bool,
}

/// An observer that ignores everything.
pub struct Quiet;
impl Observer for Quiet {}
