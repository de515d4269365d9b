//! Front ends: where workloads come from.
//!
//! Every workload parameter is defined once, in `iolab_spec::params`;
//! [`WorkloadOptions`] has one field per parameter and is both the
//! command-line flags (`--read-pct`, built in `flags`) and the job-file
//! keys (`read_pct`). A job file holds a `[global]` table and any number of
//! `[[workload]]` tables, run in order; command-line flags override both.
//! [`resolve`] turns merged options into a validated
//! [`iolab_spec::WorkloadSpec`].

pub mod defaults;
pub mod flags;
mod options;
mod resolve;

pub use options::{Expansion, Values, WorkloadOptions};
pub use resolve::{
    key_line, keys_of, load_job_file, parse_job_text, resolve, resolve_run, JobError, JobFile,
};
