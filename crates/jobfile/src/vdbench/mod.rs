//! vdbench parameter files (docs/vdbench.md): raw storage definitions
//! (`sd`, `wd`, `rd`), file-system definitions (`fsd`, `fwd`, `rd`) and
//! their `for*` loops, mapped onto iolab's runs and workloads.

use crate::frontend::{LoadOptions, Loaded};
use crate::resolve::JobError;

/// Whether `text` is a vdbench parameter file: see
/// [`crate::frontend::detect`].
pub fn looks_like_vdbench(_text: &str) -> bool {
    false
}

/// Load a vdbench parameter file's text (`origin` is its path).
pub fn load(origin: &str, _text: &str, _lo: &LoadOptions) -> Result<Loaded, JobError> {
    Err(JobError(format!(
        "{origin}: vdbench parameter files are not read by this build yet"
    )))
}
