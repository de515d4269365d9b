//! The engine's entry points: [`run`] runs every workload of a
//! [`RunSpec`] together on the run core ([`iolab_core`]) with the block
//! driver ([`crate::block`]). A run of one workload is
//! [`RunSpec::single`].

use crate::block::BlockDriver;
use crate::flow::{flows_of, FlowShared};
use crate::fs::FsDriver;
use iolab_core::{CoreError, Driver, EventLog, Sampler};
use iolab_raw::*;
use iolab_spec::{RunSpec, WorkloadSpec};
use iolab_target::TargetError;
use std::collections::BTreeMap;
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
    run_with(spec, obs, stop, events, &mut [])
}

/// [`run`] with `samplers` (device statistics, ...) ticked by the run
/// core on the run's clock: at t0 and whenever an interval closes, so
/// their intervals line up with the workloads' (see
/// [`iolab_core::Sampler`]).
pub fn run_with(
    spec: &RunSpec,
    obs: &mut dyn iolab_core::Observer,
    stop: Arc<AtomicBool>,
    events: Arc<EventLog>,
    samplers: &mut [&mut dyn Sampler],
) -> Result<RunRaw, RunError> {
    if spec.workloads.is_empty() {
        check_clock(spec)?;
    } else {
        spec.validate()?;
    }
    run_checked(spec, obs, stop, events, samplers)
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

/// The driver of a workload: the file-system driver when it names
/// filesets, the block driver otherwise.
fn driver<'a>(
    w: &WorkloadSpec,
    rate: Option<f64>,
    flows: &BTreeMap<u32, Arc<FlowShared>>,
) -> Box<dyn Driver<Error = RunError> + 'a> {
    if w.fs.is_some() {
        Box::new(FsDriver::new(w, rate))
    } else {
        let flow = w.flow_ctl.and_then(|f| flows.get(&f.id).cloned());
        Box::new(BlockDriver::new(w, rate).with_flow(flow))
    }
}

fn run_checked(
    spec: &RunSpec,
    obs: &mut dyn iolab_core::Observer,
    stop: Arc<AtomicBool>,
    events: Arc<EventLog>,
    samplers: &mut [&mut dyn Sampler],
) -> Result<RunRaw, RunError> {
    let flows = flows_of(spec);
    let drivers: Vec<Box<dyn Driver<Error = RunError>>> = spec
        .workloads
        .iter()
        .zip(spec.workload_rates())
        .map(|(w, r)| driver(w, r, &flows))
        .collect();
    iolab_core::run_with(spec, drivers, obs, stop, events, samplers)
}
