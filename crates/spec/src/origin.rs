//! Where a workload came from when it was not written in iolab's own
//! job-file format: the section of a fio job file (later vdbench and
//! filebench files) as the user wrote it. Not a parameter: nothing runs
//! differently because of it. Exporters that speak the source tool's
//! language read it (fio's JSON `job options`, `groupid`,
//! `percentile_list`, `write_*_log`).

use serde::{Deserialize, Serialize};

/// The source of one workload.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct JobOrigin {
    /// `fio` (later `vdbench`, `filebench`).
    pub format: String,
    /// The job file (the first of them for `iolab fio a.fio b.fio`);
    /// `None` for a command line (`iolab fio --name=x ...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The section (fio job name) as written.
    pub section: String,
    /// The section's options after `[global]` was applied and variables
    /// were filled, in the order written: fio's `job options`.
    pub options: Vec<(String, String)>,
    /// fio's group id: jobs of one group are reported together when
    /// `group_reporting` is set; `stonewall` and `new_group` start a group.
    #[serde(default)]
    pub group: u32,
    /// fio's `group_reporting` was set for this job.
    #[serde(default)]
    pub group_reporting: bool,
}

impl JobOrigin {
    /// The value of option `key` as written (the last one wins, as in fio).
    pub fn option(&self, key: &str) -> Option<&str> {
        self.options
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}
