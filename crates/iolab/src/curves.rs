//! The executor's side of response-time curves (vdbench `iorate=curve`):
//! what each curve's maximum run measured, the rate each later point of
//! the curve runs at (shared, in a run of several workloads without
//! `skew`, as the maximum's I/Os were: vdbench keeps the skew an
//! uncontrolled maximum observed), and which points do not run (the
//! maximum measured nothing, a point's rate would be under vdbench's 10
//! I/Os per second, or `stop_curve` was passed: it compares the mean
//! response time from issue, the service time, as vdbench's `stopcurve`
//! does). It decides and returns the lines to say; `run::execute` prints
//! them.

use iolab_plan::{CurvePoint, PlannedRun};
use iolab_report::{CurveRecord, RunResult};
use std::collections::HashMap;

/// One curve, by its maximum run's plan point.
#[derive(Default)]
struct Curve {
    /// Total IOPS of each maximum run (repeat) that ran to its end.
    measured: Vec<f64>,
    /// Of those runs, each workload's share of the I/Os, in percent (a
    /// run of several workloads).
    shares: Vec<Vec<f64>>,
    /// The first point that does not run (the one after the point whose
    /// mean passed `stop_curve`, or the first under 10 I/Os per second):
    /// it and the points after it do not run.
    ends_at: Option<u32>,
    /// Its remaining points were said not to run.
    said: bool,
}

impl Curve {
    /// The maximum: the mean of its complete runs' IOPS, if any measured.
    fn max_iops(&self) -> Option<f64> {
        let n = self.measured.len();
        (n > 0).then(|| self.measured.iter().sum::<f64>() / n as f64)
    }

    /// Each workload's mean share of the maximum's I/Os, if every
    /// workload of `workloads` had some.
    fn shares(&self, workloads: usize) -> Option<Vec<f64>> {
        let n = self.shares.len();
        if n == 0 || self.shares.iter().any(|s| s.len() != workloads) {
            return None;
        }
        let mean: Vec<f64> = (0..workloads)
            .map(|j| self.shares.iter().map(|s| s[j]).sum::<f64>() / n as f64)
            .collect();
        mean.iter().all(|s| *s > 0.0).then_some(mean)
    }
}

/// Each workload's share of the run's I/Os, in percent.
fn shares_of(run: &RunResult) -> Vec<f64> {
    let total: u64 = run.workloads.iter().map(|w| w.summary.total.ops).sum();
    run.workloads
        .iter()
        .map(|w| w.summary.total.ops as f64 * 100.0 / total.max(1) as f64)
        .collect()
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
        if c.ends_at.is_some_and(|p| planned.point >= p) {
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
        let pct = cp.pct.unwrap_or(100.0);
        if !iolab_spec::curve::point_runs(max, pct) {
            c.ends_at = Some(planned.point);
            return Start::Skip(Some(format!(
                "curve {}: {}'s rate would be under 10 I/Os per second ({:.2}/s, {}% of {max:.2} IOPS measured by {}); it and the curve's remaining points do not run, as vdbench ends a curve there",
                cp.base,
                planned.spec.name,
                max * pct / 100.0,
                iolab_spec::curve::pct_text(pct),
                cp.max_name
            )));
        }
        let rate = cp.rate_from(max);
        planned.spec.rate_iops = rate;
        let ws = &mut planned.spec.workloads;
        if ws.len() > 1 && ws.iter().all(|w| w.skew_pct.is_none()) {
            if let Some(shares) = c.shares(ws.len()) {
                for (w, share) in ws.iter_mut().zip(shares) {
                    w.skew_pct = Some(share);
                }
            }
        }
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
                if run.workloads.len() > 1 {
                    c.shares.push(shares_of(run));
                }
            }
            return None;
        }
        let stop = cp.stop_ms?;
        let mean_ms = from_issue_mean_us(run) / 1e3;
        if mean_ms <= stop || c.ends_at.is_some() || run.summary.total.ops == 0 {
            return None;
        }
        c.ends_at = Some(planned.point + 1);
        Some(format!(
            "curve {}: {}'s mean response time from issue (service time) {mean_ms:.3} ms is above stop_curve {stop} ms; the curve's remaining points do not run",
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

/// A run's mean response time from when each I/O was issued, vdbench's
/// response time: its service time in a run with a rate (every point of
/// a curve), else its response time (then the same thing).
fn from_issue_mean_us(run: &RunResult) -> f64 {
    let t = &run.summary.total;
    t.svc_lat_us.as_ref().map_or(t.lat_us.mean, |s| s.mean)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(curve: &str, stop: Option<&str>) -> iolab_plan::Plan {
        let w = iolab_jobfile::WorkloadOptions {
            name: Some("c".into()),
            target: vec!["/tmp/iolab-curves-test".into()],
            duration: Some("1s".into()),
            curve: Some(curve.into()),
            stop_curve: stop.map(Into::into),
            ..Default::default()
        };
        iolab_plan::build_workloads(&[w], &Default::default()).unwrap()
    }

    /// A finished run with these totals (no workload behind it).
    fn result(complete: bool, iops: f64, mean_us: f64) -> RunResult {
        let raw = iolab_engine::RunRaw {
            name: "r".into(),
            started_at: std::time::SystemTime::now(),
            warmup_ns: 0,
            interval_ns: 1_000_000_000,
            measured_ns: 1_000_000_000,
            workloads: Vec::new(),
            intervals: Vec::new(),
            ops: Default::default(),
            fsyncs: 0,
            cpu: Default::default(),
            stalls: Default::default(),
            events: Vec::new(),
            complete,
            incomplete_reason: None,
            notes: Vec::new(),
            exit_all: false,
        };
        let mut r = iolab_report::build_run(&raw);
        r.summary.total.iops = iops;
        r.summary.total.ops = iops as u64;
        r.summary.total.lat_us.mean = mean_us;
        r
    }

    #[test]
    fn points_take_their_share_of_the_maximums_mean() {
        let mut p = plan("10,50", None);
        let mut c = Curves::default();
        assert!(matches!(c.start(&mut p.runs[0]), Start::Run(Some(r)) if r.role == "max"));
        assert!(c
            .finished(&p.runs[0], &result(true, 20_000.0, 50.0))
            .is_none());
        let Start::Run(Some(rec)) = c.start(&mut p.runs[2]) else {
            panic!("the 50% point runs")
        };
        assert_eq!(rec.rate_iops, Some(10_000.0));
        assert_eq!(p.runs[2].spec.rate_iops, Some(10_000.0));
        assert_eq!(rec.max_iops, Some(20_000.0));
        let note = Curves::note(&rec).unwrap();
        assert!(
            note.contains("50% of 20000 IOPS measured by c (max)"),
            "{note}"
        );
    }

    #[test]
    fn shares_are_the_maximums_when_no_workload_has_a_skew() {
        let c = Curve {
            shares: vec![vec![80.0, 20.0], vec![90.0, 10.0]],
            ..Default::default()
        };
        assert_eq!(c.shares(2), Some(vec![85.0, 15.0]));
        assert_eq!(c.shares(3), None, "another run's shape");
        let c = Curve {
            shares: vec![vec![100.0, 0.0]],
            ..Default::default()
        };
        assert_eq!(c.shares(2), None, "a workload that did nothing");
    }

    #[test]
    fn a_maximum_that_measured_nothing_runs_no_point_and_says_so_once() {
        for max in [result(true, 0.0, 0.0), result(false, 500.0, 50.0)] {
            let mut p = plan("10,50", None);
            let mut c = Curves::default();
            let _ = c.start(&mut p.runs[0]);
            c.finished(&p.runs[0], &max);
            let Start::Skip(Some(line)) = c.start(&mut p.runs[1]) else {
                panic!("the point is skipped with a line")
            };
            assert!(line.contains("c (max)") && !line.contains('\n'), "{line}");
            assert!(matches!(c.start(&mut p.runs[2]), Start::Skip(None)));
            assert_eq!(p.runs[1].spec.rate_iops, None);
        }
    }

    /// `result`, rated: its mean service time `svc_us`.
    fn rated(iops: f64, mean_us: f64, svc_us: f64) -> RunResult {
        let mut r = result(true, iops, mean_us);
        let mut svc = r.summary.total.lat_us;
        svc.mean = svc_us;
        r.summary.total.svc_lat_us = Some(svc);
        r
    }

    #[test]
    fn stop_curve_compares_the_service_time_as_vdbench_does() {
        let mut p = plan("10,50,90", Some("2ms"));
        let mut c = Curves::default();
        let _ = c.start(&mut p.runs[0]);
        c.finished(&p.runs[0], &result(true, 1000.0, 100.0));
        // 5 ms from the scheduled start, 0.1 ms from issue: under 2 ms.
        let _ = c.start(&mut p.runs[1]);
        assert!(c
            .finished(&p.runs[1], &rated(100.0, 5000.0, 100.0))
            .is_none());
        let _ = c.start(&mut p.runs[2]);
        let line = c.finished(&p.runs[2], &rated(500.0, 9000.0, 2500.0));
        assert!(line.unwrap().contains("2.500 ms"));
        assert!(matches!(c.start(&mut p.runs[3]), Start::Skip(None)));
    }

    #[test]
    fn a_point_under_ten_ios_per_second_ends_the_curve_with_a_line() {
        let mut p = plan("10,50,5", None);
        let mut c = Curves::default();
        let _ = c.start(&mut p.runs[0]);
        c.finished(&p.runs[0], &result(true, 5.0, 100.0));
        // 10% of 5 IOPS is 0.5/s: vdbench's rate 0; the 50% after it too.
        let Start::Skip(Some(line)) = c.start(&mut p.runs[1]) else {
            panic!("the 10% point is not run, with a line")
        };
        assert!(
            line.contains("0.50/s") && line.contains("c (10%)"),
            "{line}"
        );
        assert!(!line.contains('\n'), "{line}");
        assert_eq!(p.runs[1].spec.rate_iops, None);
        assert!(matches!(c.start(&mut p.runs[2]), Start::Skip(None)));
        assert!(matches!(c.start(&mut p.runs[3]), Start::Skip(None)));
    }

    #[test]
    fn stop_curve_compares_each_points_mean_in_ms() {
        let mut p = plan("10,50,90", Some("2ms"));
        let mut c = Curves::default();
        let _ = c.start(&mut p.runs[0]);
        c.finished(&p.runs[0], &result(true, 1000.0, 9000.0));
        // The maximum is never compared; 1.5 ms is under 2 ms.
        let _ = c.start(&mut p.runs[1]);
        assert!(c
            .finished(&p.runs[1], &result(true, 100.0, 1500.0))
            .is_none());
        let _ = c.start(&mut p.runs[2]);
        let line = c
            .finished(&p.runs[2], &result(true, 500.0, 2500.0))
            .unwrap();
        assert!(
            line.contains("2.500 ms") && line.contains("c (50%)"),
            "{line}"
        );
        assert!(matches!(c.start(&mut p.runs[3]), Start::Skip(None)));
    }
}
