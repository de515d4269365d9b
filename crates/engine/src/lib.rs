//! The workload engine.
//!
//! [`run_workload`] takes a validated [`iolab_spec::WorkloadSpec`], checks
//! and prepares its targets, runs its workers and returns a [`RawRun`]:
//! histograms, counters, errors and gaps, not text. Engines follow fio's
//! queue/submit/reap model (see [`engines`]).

mod affinity;
mod buffers;
pub mod clock;
pub mod data;
pub mod engines;
pub mod gen;
mod precheck;
mod runner;
mod verify;
mod verify_setup;
mod worker;

pub use iolab_raw::*;
pub use iolab_target::TargetError;
pub use precheck::{check_workload, PlanCheck};
pub use runner::{io_uring_available, run_workload, Observer, Quiet, RunError};
pub use worker::{Timeline, GAP_RECORD_NS};
