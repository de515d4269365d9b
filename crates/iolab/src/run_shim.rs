//! TEMPORARY SHIM (issue 15): runs one planned [`RunSpec`] through the
//! engine's old single-workload entry point until the run core's
//! `iolab_engine::run(&RunSpec, &mut dyn iolab_core::Observer,
//! Arc<AtomicBool>, Arc<EventLog>) -> Result<RunRaw, RunError>` lands. At
//! merge the integrator replaces the body of [`execute`] with that call and
//! deletes the rest of this file; the run loop calls nothing else.

use iolab_core::{EventLog, Observer};
use iolab_engine::{IntervalRaw, RawRun, RunError, RunRaw};
use iolab_raw::EventRaw;
use iolab_spec::{RunSpec, WorkloadSpec};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Run `spec` (every workload together) and return what it measured.
/// SHIM: only a run of one workload; several are refused with one line.
pub fn execute(
    spec: &RunSpec,
    obs: &mut dyn Observer,
    stop: Arc<AtomicBool>,
    events: Arc<EventLog>,
) -> Result<RunRaw, RunError> {
    let [w] = spec.workloads.as_slice() else {
        return Err(RunError::Setup(format!(
            "run '{}' has {} workloads; running several workloads at once needs the new run core, which this build does not have yet",
            spec.name,
            spec.workloads.len()
        )));
    };
    let mut a = Adapter {
        inner: obs,
        run: spec,
        events: &events,
        seen: Vec::new(),
    };
    let raw = iolab_engine::run_workload(w, &mut a, stop)?;
    a.deliver();
    let mut run = RunRaw::single(fill_span(raw));
    run.events = std::mem::take(&mut a.seen);
    Ok(run)
}

/// The old engine leaves a workload's span at 0..0 (or only its end):
/// a run of one workload starts at 0 and ends with its measured time.
fn fill_span(mut w: RawRun) -> RawRun {
    if w.end_ns == 0 {
        w.end_ns = w.warmup_ns + w.measured_ns;
    }
    w
}

/// The old observer calls, turned into the new ones.
struct Adapter<'a> {
    inner: &'a mut dyn Observer,
    run: &'a RunSpec,
    events: &'a EventLog,
    /// Every event delivered so far, for the run's result.
    seen: Vec<EventRaw>,
}

impl Adapter<'_> {
    /// Hand the events taken from the log to the observer, in time order.
    fn deliver(&mut self) {
        for ev in self.events.take() {
            self.inner.event(&ev);
            self.seen.push(ev);
        }
    }
}

impl iolab_engine::Observer for Adapter<'_> {
    fn started(&mut self, _spec: &WorkloadSpec) {
        self.inner.started(self.run);
    }
    fn clock_started(&mut self) {
        self.events.start(std::time::Instant::now());
        self.inner.clock_started();
    }
    fn measuring(&mut self, run: &RawRun) {
        self.inner.measuring(&RunRaw::single(run.clone()));
    }
    fn note(&mut self, msg: &str) {
        self.inner.note(msg);
    }
    fn interval(&mut self, _spec: &WorkloadSpec, iv: &IntervalRaw) {
        self.deliver();
        self.inner.interval(self.run, iv, &[Some(iv.clone())]);
    }
    fn prefill(&mut self, path: &str, done: u64, total: u64) {
        self.inner.prefill(path, done, total);
    }
}
