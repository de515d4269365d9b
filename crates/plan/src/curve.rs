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

/// `--curve` over another tool's file (a vdbench rd with `iorate=N`, a
/// fio job with `rate_iops`): the curve replaces the file's rates, which
/// its user cannot drop without editing the file. iolab's own job files
/// keep their rates (a curve with one is refused: drop one of them).
pub(crate) fn flag_curve_over_file(r: &RunOptions) -> RunOptions {
    let mut r = r.clone();
    let foreign = r.origins.iter().flatten().any(|o| o.format != "iolab");
    if r.overrides.curve.is_some() && r.overrides.rate.is_none() && foreign {
        r.run.rate = None;
        r.run.arrival = None;
        for w in &mut r.workloads {
            w.rate = None;
            w.arrival = None;
        }
    }
    r
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

#[cfg(test)]
mod tests {
    use crate::{build, build_workloads, dry_run_text, PlanArgs};
    use iolab_jobfile::{RunOptions, WorkloadOptions};

    fn w(curve: Option<&str>) -> WorkloadOptions {
        WorkloadOptions {
            target: vec!["/tmp/iolab-plan-curve".into()],
            duration: Some("2s".into()),
            curve: curve.map(str::to_string),
            ..Default::default()
        }
    }

    fn names(p: &crate::Plan) -> Vec<String> {
        p.runs.iter().map(|r| r.spec.name.clone()).collect()
    }

    #[test]
    fn a_curve_is_its_maximum_then_a_run_per_percentage() {
        let mut o = w(Some("10,50,12.5"));
        o.name = Some("db".into());
        let p = build_workloads(&[o], &PlanArgs::default()).unwrap();
        assert_eq!(
            names(&p),
            ["db (max)", "db (10%)", "db (50%)", "db (12.5%)"]
        );
        // A run of one workload is named by it.
        assert_eq!(p.runs[1].spec.workloads[0].name, "db (10%)");
        let points: Vec<u32> = p.runs.iter().map(|r| r.point).collect();
        assert_eq!(points, [0, 1, 2, 3]);
        for r in &p.runs {
            let c = r.curve.as_ref().unwrap();
            assert_eq!((c.base.as_str(), c.max_point), ("db", 0));
            assert_eq!(c.max_name, "db (max)");
            assert_eq!(r.spec.rate_iops, None, "the executor sets the rate");
        }
        let pcts: Vec<Option<f64>> = p
            .runs
            .iter()
            .map(|r| r.curve.as_ref().unwrap().pct)
            .collect();
        assert_eq!(pcts, [None, Some(10.0), Some(50.0), Some(12.5)]);
        assert_eq!(
            p.runs[2].curve.as_ref().unwrap().rate_from(1000.0),
            Some(500.0)
        );
        // Every run of the curve is counted: 4 runs of 2 s.
        assert_eq!(p.info.runs_planned, 4);
        assert!((p.info.estimated_s - 8.0).abs() < 1e-9);
        assert!(p.is_sweep());
        let text = dry_run_text(&p);
        assert!(text.contains("1 response-time curve"), "{text}");
        assert!(
            text.contains("rate 50% of the IOPS db (max) measures"),
            "{text}"
        );
        // Seeds differ from run to run.
        assert_ne!(
            p.runs[0].spec.workloads[0].seed,
            p.runs[1].spec.workloads[0].seed
        );
    }

    #[test]
    fn default_curve_sweeps_and_repeats() {
        let mut o = w(Some("default"));
        o.qd = Some("1,4".into());
        let pa = PlanArgs {
            repeat: 2,
            ..Default::default()
        };
        let p = build_workloads(&[o], &pa).unwrap();
        // Two points of the sweep, each a curve of 7 points, twice each.
        assert_eq!(p.runs.len(), 2 * 7 * 2);
        assert_eq!(p.info.points, 14);
        let second = &p.runs[14];
        assert_eq!(second.params_text(), "qd=4");
        let c = second.curve.as_ref().unwrap();
        assert_eq!((c.pct, c.max_point), (None, 7));
        // Repeats are adjacent and share their point and curve.
        assert_eq!((p.runs[2].point, p.runs[3].point), (1, 1));
        assert_eq!(p.runs[3].curve.as_ref().unwrap().max_point, 0);
        assert_eq!(p.runs[27].spec.name, "read-1 (100%)");
    }

    #[test]
    fn a_run_of_several_shares_its_point_rates_by_skew() {
        let run = WorkloadOptions {
            curve: Some("50".into()),
            stop_curve: Some("5ms".into()),
            duration: Some("1s".into()),
            ..Default::default()
        };
        let wl = |name: &str, skew: Option<&str>| WorkloadOptions {
            name: Some(name.into()),
            target: vec!["/tmp/iolab-plan-curve".into()],
            skew: skew.map(Into::into),
            ..Default::default()
        };
        let r = RunOptions {
            run,
            workloads: vec![wl("a", Some("75")), wl("b", None)],
            ..Default::default()
        };
        let p = build(std::slice::from_ref(&r), &PlanArgs::default()).unwrap();
        assert_eq!(names(&p), ["run-1 (max)", "run-1 (50%)"]);
        // At the maximum nothing is throttled; the point keeps its shares.
        assert!(p.runs[0]
            .spec
            .workloads
            .iter()
            .all(|w| w.skew_pct.is_none()));
        assert_eq!(p.runs[1].spec.workloads[0].skew_pct, Some(75.0));
        assert_eq!(p.runs[1].curve.as_ref().unwrap().stop_ms, Some(5.0));
        let mut spec = p.runs[1].spec.clone();
        spec.rate_iops = p.runs[1].curve.as_ref().unwrap().rate_from(2000.0);
        assert_eq!(spec.workload_rates(), [Some(750.0), Some(250.0)]);
        // A workload's own curve is refused: the rate is the run's.
        let mut bad = r.clone();
        bad.run.curve = None;
        bad.workloads[1].curve = Some("10".into());
        let e = build(&[bad], &PlanArgs::default()).unwrap_err().message;
        assert!(e.contains("--curve is the run's"), "{e}");
    }

    #[test]
    fn a_front_ends_curve_and_the_keys_over_it() {
        let mut r = RunOptions::single(0, w(None));
        r.curve = Some(iolab_spec::CurveSpec {
            pcts: vec![20.0],
            stop_ms: Some(3.0),
        });
        let p = build(std::slice::from_ref(&r), &PlanArgs::default()).unwrap();
        assert_eq!(p.runs.len(), 2);
        assert_eq!(p.runs[1].curve.as_ref().unwrap().stop_ms, Some(3.0));
        r.overrides.curve = Some("30,60".into());
        r.overrides.stop_curve = Some("1ms".into());
        let p = build(std::slice::from_ref(&r), &PlanArgs::default()).unwrap();
        assert_eq!(p.runs.len(), 3);
        assert_eq!(p.runs[2].curve.as_ref().unwrap().pct, Some(60.0));
        assert_eq!(p.runs[2].curve.as_ref().unwrap().stop_ms, Some(1.0));
    }

    #[test]
    fn the_curve_flag_replaces_the_rates_of_another_tools_file() {
        // A vdbench rd with iorate=500 on two wds, one with its own rate.
        let wl = |name: &str, rate: Option<&str>| WorkloadOptions {
            name: Some(name.into()),
            target: vec!["/tmp/iolab-plan-curve".into()],
            rate: rate.map(Into::into),
            ..Default::default()
        };
        let mut r = RunOptions {
            run: WorkloadOptions {
                rate: Some("500".into()),
                arrival: Some("poisson".into()),
                duration: Some("1s".into()),
                ..Default::default()
            },
            workloads: vec![wl("a", None), wl("b", Some("100"))],
            ..Default::default()
        };
        r.overrides.curve = Some("20".into());
        let e = build(std::slice::from_ref(&r), &PlanArgs::default()).unwrap_err();
        assert!(e.message.contains("drop the rate"), "iolab's own: {e}");
        let origin = iolab_spec::JobOrigin {
            format: "vdbench".into(),
            ..Default::default()
        };
        r.origins = vec![Some(origin.clone()), Some(origin)];
        let p = build(std::slice::from_ref(&r), &PlanArgs::default()).unwrap();
        assert_eq!(names(&p), ["run-1 (max)", "run-1 (20%)"]);
        assert!(p.runs[1]
            .spec
            .workloads
            .iter()
            .all(|w| w.rate_iops.is_none()));
    }

    #[test]
    fn bad_curves_are_one_line() {
        let err = |o: WorkloadOptions| {
            build_workloads(&[o], &PlanArgs::default())
                .unwrap_err()
                .message
        };
        let mut o = w(Some("10,50"));
        o.rate = Some("1000".into());
        let e = err(o);
        assert!(e.contains("drop the rate"), "{e}");
        let mut o = w(None);
        o.stop_curve = Some("5ms".into());
        assert!(err(o).contains("give the run a curve too"));
        let mut o = w(Some("default"));
        o.stop_curve = Some("5".into());
        assert!(err(o).contains("5ms"));
        assert!(err(w(Some("10,x"))).contains("--curve: 'x' is not a percentage"));
    }
}
