//! How the workloads of one run act on each other (fio's `exitall` /
//! `exit_what` and `flow` / `flow_id` / `flow_sleep`): which others end
//! when a workload ends, and the token-based flow control that keeps
//! workloads sharing a flow id at a ratio of their weights.

use serde::{Deserialize, Serialize};

/// Which workloads end when a workload with `exitall` ends (fio
/// `exit_what`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitWhat {
    /// The run's workloads of the same fio reporting group (every
    /// workload of the run for iolab's own jobs, which have no groups).
    Group,
    /// Every workload of the run (fio's stonewall group); later runs
    /// still run.
    Stonewall,
    /// Every workload of the run, and the later runs do not run.
    All,
}

impl ExitWhat {
    pub fn parse(s: &str) -> Result<ExitWhat, crate::SpecError> {
        match s.trim() {
            "group" => Ok(ExitWhat::Group),
            "stonewall" => Ok(ExitWhat::Stonewall),
            "all" => Ok(ExitWhat::All),
            o => Err(crate::SpecError(format!(
                "--exit-what {o} is not known; use group, stonewall or all"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ExitWhat::Group => "group",
            ExitWhat::Stonewall => "stonewall",
            ExitWhat::All => "all",
        }
    }
}

/// fio's flow control: every worker of the workloads of a run with the
/// same `id` counts its I/Os against the flow's shared count, and a worker
/// whose share of the count is above its share of the flow's total weight
/// sleeps `sleep_us` before it tries again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowSpec {
    pub id: u32,
    /// Each worker's weight (fio `flow`), at least 1.
    pub weight: u32,
    /// Microseconds a worker ahead of its share sleeps (fio `flow_sleep`;
    /// 0 yields the CPU instead).
    pub sleep_us: u64,
}
