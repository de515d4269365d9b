//! The executor's side of response-time curves (vdbench `iorate=curve`):
//! what each curve's maximum run measured, the rate each later point of
//! the curve runs at, and which points do not run (the maximum measured
//! nothing, or `stop_curve` was passed). It decides and returns the lines
//! to say; `run::execute` prints them.

use iolab_plan::{CurvePoint, PlannedRun};
use iolab_report::{CurveRecord, RunResult};
use std::collections::HashMap;

/// One curve, by its maximum run's plan point.
#[derive(Default)]
struct Curve {
    /// Total IOPS of each maximum run (repeat) that ran to its end.
    measured: Vec<f64>,
    /// The point whose mean response time passed `stop_curve`: the points
    /// after it do not run.
    stopped_at: Option<u32>,
    /// Its remaining points were said not to run.
    said: bool,
}

impl Curve {
    /// The maximum: the mean of its complete runs' IOPS, if any measured.
    fn max_iops(&self) -> Option<f64> {
        let n = self.measured.len();
        (n > 0).then(|| self.measured.iter().sum::<f64>() / n as f64)
    }
}

/// Every curve of a plan as it runs.
#[derive(Default)]
pub struct Curves {
    curves: HashMap<u32, Curve>,
}

/// What to do with a planned run.
pub enum Start {
    /// Run it (its rate set, if it is a curve's point); its record.
    Run(Option<CurveRecord>),
    /// Do not run it; the line to say, once per curve.
    Skip(Option<String>),
}

impl Curves {
    /// Before `planned` runs: a point's rate from its maximum, or why it
    /// does not run.
    pub fn start(&mut self, planned: &mut PlannedRun) -> Start {
        let Some(cp) = planned.curve.clone() else {
            return Start::Run(None);
        };
        let c = self.curves.entry(cp.max_point).or_default();
        if cp.pct.is_none() {
            return Start::Run(Some(record(&cp, None, None)));
        }
        if c.stopped_at.is_some_and(|p| planned.point > p) {
            return Start::Skip(None);
        }
        let Some(max) = c.max_iops() else {
            let line = (!c.said).then(|| {
                format!(
                    "curve {}: the maximum run ({}) failed or measured no I/O, so the curve's points at a percentage of it do not run",
                    cp.base, cp.max_name
                )
            });
            c.said = true;
            return Start::Skip(line);
        };
        let rate = cp.rate_from(max);
        planned.spec.rate_iops = rate;
        Start::Run(Some(record(&cp, rate, Some(max))))
    }

    /// After `planned` ran as `run`: a maximum's measurement kept; a
    /// point past `stop_curve` ends the curve, and the line saying so.
    pub fn finished(&mut self, planned: &PlannedRun, run: &RunResult) -> Option<String> {
        let cp = planned.curve.as_ref()?;
        let c = self.curves.entry(cp.max_point).or_default();
        let iops = run.summary.total.iops;
        if cp.pct.is_none() {
            if run.complete && iops > 0.0 {
                c.measured.push(iops);
            }
            return None;
        }
        let stop = cp.stop_ms?;
        let mean_ms = run.summary.total.lat_us.mean / 1e3;
        if mean_ms <= stop || c.stopped_at.is_some() || run.summary.total.ops == 0 {
            return None;
        }
        c.stopped_at = Some(planned.point);
        Some(format!(
            "curve {}: {}'s mean response time {mean_ms:.3} ms is above stop_curve {stop} ms; the curve's remaining points do not run",
            cp.base, planned.spec.name
        ))
    }

    /// The sweep line's note for a point: `rate 1234/s (10% of 12340 IOPS
    /// measured by NAME (max))`.
    pub fn note(rec: &CurveRecord) -> Option<String> {
        let (rate, pct, max) = (rec.rate_iops?, rec.pct?, rec.max_iops?);
        Some(format!(
            "rate {rate:.0}/s ({}% of {max:.0} IOPS measured by {})",
            iolab_spec::curve::pct_text(pct),
            rec.max_run
        ))
    }
}

fn record(cp: &CurvePoint, rate: Option<f64>, max_iops: Option<f64>) -> CurveRecord {
    CurveRecord {
        name: cp.base.clone(),
        role: if cp.pct.is_some() { "pct" } else { "max" }.into(),
        pct: cp.pct,
        rate_iops: rate,
        max_run: cp.max_name.clone(),
        max_point: cp.max_point,
        max_iops,
        stop_ms: cp.stop_ms,
    }
}
