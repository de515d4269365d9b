//! vdbench's `iorate=curve`: a run at the maximum rate, then the same run
//! at each listed percentage of the I/O rate it measured, and
//! `stopcurve=` ending the curve early once the mean response time passes
//! a limit. The planner expands a run with a [`CurveSpec`] into those
//! runs; the executor sets each later run's rate from the first run's
//! result when it starts it.

use serde::{Deserialize, Serialize};

/// vdbench's default curve (`curve=(10,50,70,80,90,100)`).
pub const DEFAULT_CURVE: [f64; 6] = [10.0, 50.0, 70.0, 80.0, 90.0, 100.0];

/// A run's curve: percentages of its measured maximum rate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurveSpec {
    /// Percentages of the maximum, in the order they run (each > 0).
    pub pcts: Vec<f64>,
    /// vdbench `stopcurve=`: once a point's mean response time is above
    /// this many milliseconds, the points after it are not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_ms: Option<f64>,
}

impl Default for CurveSpec {
    fn default() -> Self {
        CurveSpec {
            pcts: DEFAULT_CURVE.to_vec(),
            stop_ms: None,
        }
    }
}
