//! filebench workload files in WML (docs/filebench.md): variables,
//! filesets, processes, threads and their flowops, mapped onto iolab's
//! file-system workloads.

use crate::frontend::{LoadOptions, Loaded};
use crate::resolve::JobError;

/// Whether `text` is a filebench WML file: see
/// [`crate::frontend::detect`].
pub fn looks_like_filebench(_text: &str) -> bool {
    false
}

/// Load a WML file's text (`origin` is its path).
pub fn load(origin: &str, _text: &str, _lo: &LoadOptions) -> Result<Loaded, JobError> {
    Err(JobError(format!(
        "{origin}: filebench workload files are not read by this build yet"
    )))
}
