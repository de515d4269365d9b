//! fio options to iolab's job keys: one workload per job section, one run
//! per stonewall group. See the module documentation of [`crate::fio`].

use super::FioFile;
use crate::frontend::{LoadOptions, Loaded};
use crate::resolve::JobError;

/// The runs of a parsed fio file and the notes to print before them.
pub fn map(_file: &FioFile, _lo: &LoadOptions) -> Result<Loaded, JobError> {
    Err(JobError("fio job files are not mapped yet".into()))
}
