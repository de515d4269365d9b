//! iolab-plan: the planner. Job-file runs, command-line workloads and
//! named studies become a [`Plan`]: every run of a sweep (the cartesian
//! product of the lists, repeats, a seed for every workload) as a
//! validated [`iolab_spec::RunSpec`], with the plan's description for the
//! result document and its estimated time. Computation only: it reads no
//! target and writes nothing; the binary checks the targets, runs the plan
//! and exports the results.
//!
//! - [`build`] plans [`iolab_jobfile::RunOptions`] (a job file's runs,
//!   or the runs of `iolab run ... --workload NAME ...`);
//!   [`build_workloads`] plans workloads that each run alone.
//! - [`study`] plans the named studies.
//! - [`describe`], [`dry_run_text`] and [`human_secs`] say a plan in words.
//! - [`locate_in_job_file`] adds the job file's line to a planning error.

mod curve;
mod locate;
mod plan;
mod runs;
mod space;
pub mod study;
mod text;

pub use curve::CurvePoint;
pub use locate::locate_in_job_file;
pub use plan::{
    build, build_workloads, Location, Plan, PlanArgs, PlanError, PlannedRun, CONFIRM_RUNS,
    CONFIRM_SECS, MAX_RUNS,
};
pub use space::free_space;
pub use text::{describe, dry_run_text, human_secs};
