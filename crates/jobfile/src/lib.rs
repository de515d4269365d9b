//! Front ends: where workloads come from.
//!
//! [`WorkloadOptions`] is the single definition of every workload
//! parameter: each field is both a command-line flag (`--read-pct`) and a
//! job-file key (`read_pct`). A job file holds a `[global]` table and any
//! number of `[[workload]]` tables, run in order; command-line flags
//! override both. [`resolve`] turns merged options into a validated
//! [`iolab_spec::WorkloadSpec`].

pub mod defaults;
mod options;
mod resolve;

pub use options::{Expansion, Values, WorkloadOptions};
pub use resolve::{
    key_line, keys_of, load_job_file, parse_job_text, resolve, resolve_run, JobError, JobFile,
};
