//! vdbench's parameter-file syntax into a [`VdbFile`] (docs/vdbench.md).

use super::VdbFile;
use crate::resolve::JobError;

/// Whether `text` is a vdbench parameter file.
pub fn looks_like_vdbench(_text: &str) -> bool {
    false
}

/// Read a parameter file's text; `vars` are the command line's
/// `NAME=VALUE` pairs (they fill `$NAME` and `!NAME`).
pub fn parse(origin: &str, _text: &str, _vars: &[(String, String)]) -> Result<VdbFile, JobError> {
    Err(JobError(format!(
        "{origin}: vdbench parameter files are not read by this build yet"
    )))
}
