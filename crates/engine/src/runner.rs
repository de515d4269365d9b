//! The engine's entry points: [`run`] runs every workload of a
//! [`RunSpec`] together on the run core ([`iolab_core`]) with the block
//! driver ([`crate::block`]); [`run_workload`] is a run of one workload,
//! kept for callers of the one-workload API and its [`Observer`].

use crate::block::BlockDriver;
use iolab_core::{CoreError, Driver, EventLog};
use iolab_raw::*;
use iolab_spec::{RunSpec, WorkloadSpec};
use iolab_target::TargetError;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Why a workload could not start. Each displays as one line that says what
/// to change; the front end exits with code 2.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    Spec(#[from] iolab_spec::SpecError),
    #[error("{0}")]
    Target(#[from] TargetError),
    #[error("{0}")]
    Setup(String),
}

impl From<CoreError> for RunError {
    fn from(e: CoreError) -> Self {
        RunError::Setup(e.0)
    }
}

/// Receives progress while a single workload runs ([`run_workload`]);
/// [`run`] takes the run core's [`iolab_core::Observer`].
pub trait Observer {
    /// The targets passed their checks and the run begins (prefill first,
    /// if any).
    fn started(&mut self, _spec: &WorkloadSpec) {}
    /// The run clock started (after prefill and set-up): time 0 of the
    /// intervals.
    fn clock_started(&mut self) {}
    /// Right after [`Observer::clock_started`]: the run as known before
    /// its first I/O (spec, settings that took effect, targets, start
    /// time, notes) with no figures yet, `complete` false. A front end
    /// that keeps a provisional record of the run while it is in progress
    /// (so a killed process leaves what it measured) builds on it.
    fn measuring(&mut self, _run: &RawRun) {}
    /// A note about the run before it starts (fallbacks, prefill, ...).
    fn note(&mut self, _msg: &str) {}
    /// An interval finished (all workers merged, or some late).
    fn interval(&mut self, _spec: &WorkloadSpec, _iv: &IntervalRaw) {}
    /// Prefill progress: bytes done of total for one target.
    fn prefill(&mut self, _path: &str, _done: u64, _total: u64) {}
}

/// An observer that ignores everything.
pub struct Quiet;
impl Observer for Quiet {}

/// True when this kernel lets the process create an io_uring.
/// `IOLAB_NO_IO_URING=1` makes it answer false, so the fallback can be
/// exercised on kernels that do have io_uring.
pub fn io_uring_available() -> bool {
    if std::env::var_os("IOLAB_NO_IO_URING").is_some_and(|v| v == "1") {
        return false;
    }
    io_uring::IoUring::new(2).is_ok()
}

/// Run every workload of `spec` together: one start gate and one clock
/// (t0) for all; each workload starts `start_delay_s` after t0 and ends
/// on its own duration, `io_size` or `ops`, or at the run's duration,
/// whichever comes first; the run ends when all have. A run with no
/// workload is just its clock: intervals and `events` until `stop` or
/// the run's duration (`iolab monitor`). Errors before the first I/O are
/// `RunError`s; errors during the run are data in the result.
pub fn run(
    spec: &RunSpec,
    obs: &mut dyn iolab_core::Observer,
    stop: Arc<AtomicBool>,
    events: Arc<EventLog>,
) -> Result<RunRaw, RunError> {
    if spec.workloads.is_empty() {
        check_clock(spec)?;
    } else {
        spec.validate()?;
    }
    run_checked(spec, obs, stop, events)
}

/// A run without workloads still needs a clock that makes sense.
fn check_clock(spec: &RunSpec) -> Result<(), RunError> {
    let bad = |s: &str| Err(RunError::Spec(iolab_spec::SpecError(s.to_string())));
    if !(spec.interval_s >= iolab_spec::MIN_INTERVAL_S && spec.interval_s.is_finite()) {
        return bad("the interval must be a finite time of at least 1 ms, e.g. interval = \"1s\"");
    }
    if !(spec.warmup_s >= 0.0 && spec.warmup_s.is_finite()) {
        return bad("the warm-up must be a finite time of at least 0 s");
    }
    if spec.duration_s.is_some_and(|d| !(d > 0.0 && d.is_finite())) {
        return bad("the duration must be above 0, e.g. duration = \"60s\"");
    }
    Ok(())
}

fn run_checked(
    spec: &RunSpec,
    obs: &mut dyn iolab_core::Observer,
    stop: Arc<AtomicBool>,
    events: Arc<EventLog>,
) -> Result<RunRaw, RunError> {
    let drivers: Vec<Box<dyn Driver<Error = RunError>>> = spec
        .workloads
        .iter()
        .zip(spec.workload_rates())
        .map(|(w, r)| Box::new(BlockDriver::new(w, r)) as Box<dyn Driver<Error = RunError>>)
        .collect();
    iolab_core::run(spec, drivers, obs, stop, events)
}

/// Run one workload to its end (or until `stop` is set) and return what
/// it measured: [`run`] of [`RunSpec::single`], its first workload.
pub fn run_workload(
    spec: &WorkloadSpec,
    obs: &mut dyn Observer,
    stop: Arc<AtomicBool>,
) -> Result<RawRun, RunError> {
    spec.validate()?;
    let mut a = Adapter { inner: obs };
    let run = run_checked(
        &RunSpec::single(spec.clone()),
        &mut a,
        stop,
        Arc::new(EventLog::new()),
    )?;
    run.workloads
        .into_iter()
        .next()
        .ok_or_else(|| RunError::Setup("the run returned no workload".into()))
}

/// Shows a one-workload run to a one-workload [`Observer`].
struct Adapter<'a> {
    inner: &'a mut dyn Observer,
}

impl iolab_core::Observer for Adapter<'_> {
    fn started(&mut self, run: &RunSpec) {
        if let Some(w) = run.workloads.first() {
            self.inner.started(w);
        }
    }
    fn clock_started(&mut self) {
        self.inner.clock_started();
    }
    fn measuring(&mut self, run: &RunRaw) {
        if let Some(w) = run.workloads.first() {
            self.inner.measuring(w);
        }
    }
    fn note(&mut self, msg: &str) {
        self.inner.note(msg);
    }
    fn interval(&mut self, run: &RunSpec, total: &IntervalRaw, _w: &[Option<IntervalRaw>]) {
        if let Some(w) = run.workloads.first() {
            self.inner.interval(w, total);
        }
    }
    fn prefill(&mut self, path: &str, done: u64, total: u64) {
        self.inner.prefill(path, done, total);
    }
}
