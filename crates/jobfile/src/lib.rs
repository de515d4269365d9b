//! Front ends: where workloads come from.
//!
//! Every workload parameter is defined once, in `iolab_spec::params`;
//! [`WorkloadOptions`] has one field per parameter and is both the
//! command-line flags (`--read-pct`, built in `flags`) and the job-file
//! keys (`read_pct`). A job file holds a `[global]` table and any number of
//! `[[workload]]` tables, run in order, or of `[[run]]` tables whose
//! `[[run.workload]]` tables run together ([`runs`]); command-line flags
//! override all of them. [`resolve`] turns merged options into a validated
//! [`iolab_spec::WorkloadSpec`].
// The options struct is built by a tt-muncher over every parameter.
#![recursion_limit = "512"]

pub mod defaults;
pub mod filebench;
pub mod fio;
pub mod flags;
pub mod frontend;
pub mod fs;
pub mod hosts;
mod options;
mod resolve;
pub mod runs;
pub mod vdbench;

pub use options::{Expansion, Values, WorkloadOptions};
pub use resolve::{
    key_line, keys_of, load_job_file, parse_job_text, read_job_text, resolve, resolve_run,
    without_target_probes, JobError, JobFile,
};
pub use runs::{
    has_own_end, resolve_curve, resolve_run_keys, run_key_line, RunKeys, RunOptions, RunTable,
};
