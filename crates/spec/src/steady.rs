//! Steady state (fio `ss`, `ss_dur`, `ss_ramp`): a workload ends as soon
//! as its IOPS or bandwidth has levelled, judged over a sliding window of
//! one-second samples, and the result says whether it got there.

use serde::{Deserialize, Serialize};

/// What is sampled once a second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SteadyMetric {
    Iops,
    /// Bytes per second.
    Bw,
}

/// How the window is judged (fio's two criteria).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SteadyCheck {
    /// Every sample lies within `limit` of the window's mean.
    Deviation,
    /// The least-squares slope of the window is within `limit`.
    Slope,
}

/// The criterion and its window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SteadySpec {
    pub metric: SteadyMetric,
    pub check: SteadyCheck,
    /// The limit: a share of the window's mean in percent when `percent`,
    /// else in the metric's own unit (I/Os or bytes per second).
    pub limit: f64,
    pub percent: bool,
    /// The window, seconds (fio `ss_dur`).
    pub duration_s: f64,
    /// Seconds at the start that are not sampled (fio `ss_ramp`).
    pub ramp_s: f64,
}

impl SteadySpec {
    /// fio's name of the criterion: `iops`, `iops_slope`, `bw`, `bw_slope`.
    pub fn criterion(&self) -> &'static str {
        match (self.metric, self.check) {
            (SteadyMetric::Iops, SteadyCheck::Deviation) => "iops",
            (SteadyMetric::Iops, SteadyCheck::Slope) => "iops_slope",
            (SteadyMetric::Bw, SteadyCheck::Deviation) => "bw",
            (SteadyMetric::Bw, SteadyCheck::Slope) => "bw_slope",
        }
    }
}
