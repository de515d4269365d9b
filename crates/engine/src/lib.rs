//! The workload engine: the block driver on the run core.
//!
//! [`run`] takes a [`iolab_spec::RunSpec`] (workloads that run together),
//! runs it on [`iolab_core`] with one driver per workload (the block
//! driver, [`block`], or the file-system driver, [`fs`]) and returns a [`RunRaw`]: histograms, counters, errors and
//! gaps, not text. Engines
//! follow fio's queue/submit/reap model (see [`engines`]) and say what
//! they do through [`engines::EngineCaps`].

mod affinity;
mod block;
mod buffers;
pub mod clock;
pub mod data;
pub mod engines;
mod flow;
pub mod fs;
pub mod gen;
mod numa;
mod precheck;
mod prepare;
mod regions;
mod runner;
mod verify;
mod verify_setup;
mod worker;

pub use iolab_core::{EventLog, Timeline, GAP_RECORD_NS};
pub use iolab_raw::*;
pub use iolab_target::TargetError;
pub use precheck::{check_workload, PlanCheck};
pub use runner::{io_uring_available, run, run_with, RunError};
