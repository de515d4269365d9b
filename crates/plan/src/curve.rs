//! Curves (vdbench `iorate=curve`) in a plan: each point of a run with a
//! curve becomes a run at the maximum rate, then a run per percentage,
//! each its own point of the plan (its repeats adjacent), named
//! `NAME (max)`, `NAME (10%)`, .... The planner cannot know the rates: the
//! executor sets each point's from what the maximum run measured
//! ([`CurvePoint::rate_from`]).

use iolab_jobfile::{resolve_curve, RunOptions};
use iolab_spec::{CurveSpec, RunSpec};

/// What a run is in its curve.
#[derive(Debug, Clone, PartialEq)]
pub struct CurvePoint {
    /// The run's name without the curve's suffix.
    pub base: String,
    /// `None`: the run at the maximum rate; else its percentage of it.
    pub pct: Option<f64>,
    /// The plan point of the curve's maximum run.
    pub max_point: u32,
    /// The name of the curve's maximum run.
    pub max_name: String,
    /// `stop_curve`, in milliseconds of mean response time.
    pub stop_ms: Option<f64>,
}

impl CurvePoint {
    /// The rate of this point when the maximum measured `max_iops`.
    pub fn rate_from(&self, max_iops: f64) -> Option<f64> {
        self.pct.map(|p| iolab_spec::curve::point_rate(max_iops, p))
    }

    /// `max` or `10%`.
    pub fn label(&self) -> String {
        match self.pct {
            None => "max".into(),
            Some(p) => format!("{}%", iolab_spec::curve::pct_text(p)),
        }
    }
}

/// The roles of a run's points in order: one plain run without a curve;
/// with one, the maximum then each percentage.
pub(crate) fn roles(curve: Option<&CurveSpec>) -> Vec<Option<Option<f64>>> {
    match curve {
        None => vec![None],
        Some(c) => std::iter::once(Some(None))
            .chain(c.pcts.iter().map(|&p| Some(Some(p))))
            .collect(),
    }
}

/// The run's curve, from its keys and flags over what a front end gave.
/// The run-level options: a plain workload's merged, a run's own.
pub(crate) fn curve_of(r: &RunOptions) -> Result<Option<CurveSpec>, String> {
    let o = if r.single {
        let w = r.workloads.first().cloned().unwrap_or_default();
        r.run.overlay(&w).overlay(&r.overrides)
    } else {
        r.run.overlay(&r.overrides)
    };
    resolve_curve(&o, r.curve.as_ref()).map_err(|e| e.0)
}

/// How many runs a point of the run makes: 1, or 1 + the percentages.
pub(crate) fn runs_per_point(curve: Option<&CurveSpec>) -> u128 {
    curve.map_or(1, |c| 1 + c.pcts.len() as u128)
}

/// Make `spec` (resolved without a rate) the curve's run of `pct`: named
/// for its role; at the maximum, every workload unthrottled (a share of
/// no rate means nothing, so skew is dropped).
pub(crate) fn apply(spec: &mut RunSpec, pct: Option<f64>) -> String {
    let base = spec.name.clone();
    spec.name = iolab_spec::curve::point_name(&base, pct);
    if spec.workloads.len() == 1 && spec.workloads[0].name == base {
        // A run of one workload is named by it.
        spec.workloads[0].name = spec.name.clone();
    }
    spec.rate_iops = None;
    if pct.is_none() {
        for w in &mut spec.workloads {
            w.skew_pct = None;
        }
    }
    base
}
