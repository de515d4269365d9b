//! fio's job-file syntax: sections, `[global]`, `include`, comments,
//! variables. See the module documentation of [`crate::fio`].

use super::FioFile;
use crate::resolve::JobError;

/// Whether `text` is INI in fio's style (see [`crate::frontend::detect`]).
pub fn looks_like_fio(_text: &str) -> bool {
    false
}

/// Parse job files in order (`(origin, text)`), with `vars` filling
/// `${NAME}` before the environment.
pub fn parse_files(
    _files: &[(String, String)],
    _vars: &[(String, String)],
) -> Result<FioFile, JobError> {
    Err(JobError("fio job files are not read yet".into()))
}
