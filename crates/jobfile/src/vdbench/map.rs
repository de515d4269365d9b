//! A [`VdbFile`] into iolab's runs (docs/vdbench.md): one run per run
//! definition and point of its `for*` loops, in vdbench's order; raw
//! workloads from `sd`/`wd`, file-system workloads from `fsd`/`fwd`
//! ([`fs`]).

pub mod fs;

use super::VdbFile;
use crate::frontend::{LoadOptions, Loaded};
use crate::resolve::JobError;

/// The runs of a parameter file and the notes to print before them.
pub fn map(_file: &VdbFile, _lo: &LoadOptions) -> Result<Loaded, JobError> {
    Err(JobError(
        "vdbench parameter files are not mapped by this build yet".into(),
    ))
}
