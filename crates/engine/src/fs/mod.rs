//! The file-system driver: a workload of files and directories (a
//! [`iolab_spec::WorkloadSpec`] with `fs` set) on the run core. It checks
//! and prepares the filesets (anchor marker, capacity, parallel
//! creation), runs each thread's mix or flow through a [`backend`]
//! (io_uring with several operations in flight, or system calls), and
//! adds the file-system results (`WorkloadRaw::fs`) at the end.

pub mod backend;
pub(crate) mod syscall;
pub mod uring;
pub mod verify;

use crate::runner::RunError;
use iolab_core::{Caps, Driver, Observer, Task, Window};
use iolab_raw::*;
use iolab_spec::WorkloadSpec;
use std::any::Any;
use std::sync::atomic::AtomicBool;

/// One file-system workload of a run.
pub(crate) struct FsDriver {
    spec: WorkloadSpec,
}

impl FsDriver {
    /// The workload `spec` (with `fs` set) at `rate` (its share of the
    /// run's rate).
    pub fn new(spec: &WorkloadSpec, rate: Option<f64>) -> FsDriver {
        let mut spec = spec.clone();
        spec.rate_iops = rate;
        FsDriver { spec }
    }
}

impl Driver for FsDriver {
    type Error = RunError;

    fn caps(&self) -> Caps {
        Caps {
            ops: Op::ALL.to_vec(),
            svc: self.spec.rate_iops.is_some(),
            moves_data: true,
        }
    }

    fn check(&mut self, _notes: &mut Vec<String>) -> Result<(), RunError> {
        Err(RunError::Setup(format!(
            "workload {}: file-system workloads are not built yet",
            self.spec.name
        )))
    }

    fn prepare(&mut self, _obs: &mut dyn Observer, _stop: &AtomicBool) -> Option<String> {
        None
    }

    fn describe(&self) -> WorkloadRaw {
        unimplemented!("FsDriver::describe")
    }

    fn tasks(&mut self, _window: Window) -> Result<Vec<Box<dyn Task>>, RunError> {
        Ok(Vec::new())
    }

    fn finish(
        &mut self,
        _raw: &mut WorkloadRaw,
        _extras: Vec<Box<dyn Any + Send>>,
        _per_worker: &[(u64, u64)],
        _obs: &mut dyn Observer,
    ) {
    }
}
