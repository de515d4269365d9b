//! vdbench's file-system definitions (`fsd`) and workloads (`fwd`) as
//! iolab's file-system job keys (docs/vdbench.md, docs/filesystem.md).

use super::super::{VdbDef, VdbFile};
use crate::resolve::JobError;

/// The iolab job keys (a TOML table, as an iolab job file's
/// `[[run.workload]]` would say) of one `fwd` as run by a run definition:
/// `rd` params override the fwd's where vdbench lets them (`xfersize`,
/// `rdpct`, `threads`, `operation` ...); `point` holds the values of the
/// run's `for*` loops at this point (`("forxfersize", "512k")`, ...,
/// keyed by the loop's keyword), which override both.
pub fn fwd_workload(
    _file: &VdbFile,
    rd: &VdbDef,
    fwd: &VdbDef,
    _point: &[(String, String)],
) -> Result<toml::Table, JobError> {
    Err(JobError(format!(
        "{}: fwd={} is not mapped by this build yet (rd={})",
        fwd.place(),
        fwd.name,
        rd.name
    )))
}

/// The run keys of a file-system run definition (`fwdrate`, `format`,
/// `elapsed`, `interval`, `warmup`), as a TOML table.
pub fn fs_run_keys(_rd: &VdbDef) -> Result<toml::Table, JobError> {
    Ok(toml::Table::new())
}

/// The `for*` loops a file-system run definition adds (`foroperations`,
/// `fordepth`, `forwidth`, `forfiles`, `forsizes`, `fortotal`), as
/// (keyword, values), in the order written.
pub fn fs_loops(_rd: &VdbDef) -> Vec<(String, Vec<String>)> {
    Vec::new()
}
