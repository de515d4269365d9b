//! Plans: runs whose parameters take lists, expanded into the runs of a
//! sweep.
//!
//! The runs are the cartesian product of the lists, run by run, in the
//! order of `WorkloadOptions::expand` (the last swept parameter varies
//! fastest; a run's own lists before its workloads', crate::runs); each
//! point runs `--repeat` times in a row. Every workload of every run gets
//! its own seed: the base seed plus its position in the plan.

use crate::{curve, runs};
use iolab_jobfile::{RunOptions, WorkloadOptions};
use iolab_report::{Axis, PlanInfo};
use iolab_spec::RunSpec;
use std::collections::BTreeMap;

/// Plans above either limit need `--yes`.
pub const CONFIRM_RUNS: u128 = 1000;
pub const CONFIRM_SECS: f64 = 24.0 * 3600.0;
/// Plans above this many runs are refused outright.
pub const MAX_RUNS: u128 = 100_000;

#[derive(clap::Args, Debug, Clone)]
pub struct PlanArgs {
    /// Run every point N times in a row; figures are summarised as mean, standard deviation, min, max and coefficient of variation
    #[arg(long, value_name = "N", default_value_t = 1, help_heading = "Plan")]
    pub repeat: u32,

    /// Pause between runs, e.g. 10s (vdbench pause=); replaces the runs' own pauses
    #[arg(long, value_name = "TIME", help_heading = "Plan")]
    pub pause: Option<String>,

    /// Print the plan (every run, its parameters, seed and estimated time) and exit without I/O
    #[arg(long, help_heading = "Plan")]
    pub dry_run: bool,

    /// Run a plan even when it has more than 1000 runs or would take more than 24 hours
    #[arg(long, help_heading = "Plan")]
    pub yes: bool,
}

impl Default for PlanArgs {
    fn default() -> Self {
        PlanArgs {
            repeat: 1,
            pause: None,
            dry_run: false,
            yes: false,
        }
    }
}

/// One run of a plan.
#[derive(Debug, Clone)]
pub struct PlannedRun {
    /// The workloads that run together (one for a plain workload or a
    /// study's run: `RunSpec::single`).
    pub spec: RunSpec,
    /// Index of its point in the plan.
    pub point: u32,
    /// Repetition, from 1.
    pub repeat: u32,
    /// The swept parameters' values, in expansion order. A list given for
    /// one workload of a run of several is named `WORKLOAD.PARAM`.
    pub params: Vec<(String, String)>,
    /// Its place in a curve (vdbench `iorate=curve`): the maximum run or a
    /// percentage of it, whose rate the executor sets.
    pub curve: Option<crate::curve::CurvePoint>,
    /// The pause after this run before the next one starts, seconds: the
    /// plan's `--pause`, else the run's own (vdbench `pause=`, a
    /// `[[run]]`'s `pause`), else 0. None after the plan's last run.
    pub pause_after_s: f64,
}

impl PlannedRun {
    pub fn params_map(&self) -> BTreeMap<String, String> {
        self.params.iter().cloned().collect()
    }

    /// `bs=16k qd=4`, or empty.
    pub fn params_text(&self) -> String {
        self.params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Planned wall time: warm-up plus duration; for a run of several
    /// workloads without a duration of its own, until its last workload
    /// ends. `None` when that is unknown in advance (a workload ends by
    /// bytes or I/O count).
    pub fn planned_s(&self) -> Option<f64> {
        let s = &self.spec;
        let measured = match s.duration_s {
            Some(d) => d,
            None => s
                .workloads
                .iter()
                .map(|w| w.duration_s.map(|d| w.start_delay_s + d))
                .try_fold(0.0f64, |m, d| d.map(|d| m.max(d)))?,
        };
        Some(s.warmup_s + measured)
    }

    /// [`planned_s`](Self::planned_s), 0 when unknown.
    pub fn estimated_s(&self) -> f64 {
        self.planned_s().unwrap_or(0.0)
    }

    /// Whether the run has several workloads that run together.
    pub fn is_concurrent(&self) -> bool {
        self.spec.workloads.len() > 1
    }
}

#[derive(Debug, Clone)]
pub struct Plan {
    pub runs: Vec<PlannedRun>,
    pub info: PlanInfo,
    /// Some runs end by bytes or I/O count, so the estimate leaves them out.
    pub estimate_partial: bool,
}

impl Plan {
    /// A plan worth describing in the document: lists, repetitions or a
    /// curve.
    pub fn is_sweep(&self) -> bool {
        !self.info.axes.is_empty()
            || self.info.repeat > 1
            || self.runs.iter().any(|r| r.curve.is_some())
    }
}

/// Where in the input a planning error is, for its line in a job file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// The run's position (for a file of `[[workload]]` tables, the
    /// workload's), from 0.
    pub run: usize,
    /// The workload's position in a run of several, from 0.
    pub workload: Option<usize>,
    /// The run is a plain workload (`[[workload]]`, `[global]` alone).
    pub single: bool,
}

/// A plan that cannot be made: one line for the user, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanError {
    pub message: String,
    pub at: Option<Location>,
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PlanError {}

impl From<String> for PlanError {
    fn from(message: String) -> Self {
        PlanError { message, at: None }
    }
}

/// Plan workloads that each run alone, in order (a study, or a command
/// line without `--workload`).
pub fn build_workloads(workloads: &[WorkloadOptions], pa: &PlanArgs) -> Result<Plan, PlanError> {
    let runs: Vec<RunOptions> = workloads
        .iter()
        .enumerate()
        .map(|(i, w)| RunOptions::single(i, w.clone()))
        .collect();
    build(&runs, pa)
}

/// `--pause`, in seconds.
fn flag_pause(pa: &PlanArgs) -> Result<Option<f64>, PlanError> {
    match &pa.pause {
        Some(p) => Ok(Some(
            iolab_spec::parse_duration(p)
                .map_err(|e| format!("--pause: {e}"))?
                .as_secs_f64(),
        )),
        None => Ok(None),
    }
}

/// Expand runs into a plan. Errors are one line for the user.
pub fn build(runs: &[RunOptions], pa: &PlanArgs) -> Result<Plan, PlanError> {
    if pa.repeat == 0 {
        return Err(String::from("--repeat 0 runs nothing; give --repeat 1 or more").into());
    }
    let flag_pause = flag_pause(pa)?;
    let runs = &runs
        .iter()
        .map(curve::flag_curve_over_file)
        .collect::<Vec<_>>()[..];
    let several = runs.len() > 1;
    let mut curves = Vec::with_capacity(runs.len());
    for r in runs {
        runs::check(r).map_err(|(e, workload)| located(r, several, &[], e, workload))?;
        curves.push(curve::curve_of(r).map_err(|e| located(r, several, &[], e, None))?);
    }
    let points: u128 = runs.iter().zip(&curves).fold(0, |n, (r, c)| {
        n.saturating_add(runs::count(r).saturating_mul(curve::runs_per_point(c.as_ref())))
    });
    let total = points.saturating_mul(pa.repeat as u128);
    if total > MAX_RUNS {
        return Err(format!(
            "the lists expand to {total} runs, more than iolab plans ({MAX_RUNS}); shorten the lists or split the sweep"
        )
        .into());
    }
    let mut planned = Vec::with_capacity(total as usize);
    let mut axes: Vec<Axis> = Vec::new();
    let mut point = 0u32;
    let mut seed_index = 0usize;
    for (r, c) in runs.iter().zip(&curves) {
        add_axes(&mut axes, r);
        let pause_after_s = flag_pause.or(r.pause_s).unwrap_or(0.0);
        for p in runs::points(r) {
            let mut max: Option<(u32, String)> = None;
            for role in curve::roles(c.as_ref()) {
                for rep in 1..=pa.repeat {
                    let mut spec = runs::resolve(r, &p, &mut seed_index, role.is_some())
                        .map_err(|(e, workload)| located(r, several, &p.params, e, workload))?;
                    let cp = role.map(|pct| {
                        let base = curve::apply(&mut spec, pct);
                        let (max_point, max_name) = max
                            .get_or_insert_with(|| (point, spec.name.clone()))
                            .clone();
                        curve::CurvePoint {
                            base,
                            pct,
                            max_point,
                            max_name,
                            stop_ms: c.as_ref().and_then(|c| c.stop_ms),
                        }
                    });
                    planned.push(PlannedRun {
                        spec,
                        point,
                        repeat: rep,
                        params: p.params.clone(),
                        curve: cp,
                        pause_after_s,
                    });
                }
                point += 1;
            }
        }
    }
    if let Some(last) = planned.last_mut() {
        last.pause_after_s = 0.0;
    }
    let plan = finish(planned, axes, point, pa, flag_pause);
    if !pa.yes && !pa.dry_run && (total > CONFIRM_RUNS || plan.info.estimated_s > CONFIRM_SECS) {
        return Err(format!(
            "the plan has {total} runs and would take about {}; check it with --dry-run, then add --yes to run it",
            crate::text::human_secs(plan.info.estimated_s)
        )
        .into());
    }
    Ok(plan)
}

/// Add the run's swept parameters to the plan's, each value once.
fn add_axes(axes: &mut Vec<Axis>, r: &RunOptions) {
    for (name, values) in runs::axes(r) {
        match axes.iter_mut().find(|a| a.name == name) {
            Some(a) => {
                for v in values {
                    if !a.values.contains(&v) {
                        a.values.push(v);
                    }
                }
            }
            None => axes.push(Axis { name, values }),
        }
    }
}

/// The plan of the planned runs, with its estimate: every run's time and
/// every pause. Its `pause_s` is `--pause`, else the one pause every run
/// has, else 0 (the runs' own differ).
fn finish(
    planned: Vec<PlannedRun>,
    axes: Vec<Axis>,
    points: u32,
    pa: &PlanArgs,
    flag_pause: Option<f64>,
) -> Plan {
    let estimate_partial = planned.iter().any(|r| r.planned_s().is_none());
    let estimated_s = planned
        .iter()
        .map(|r| r.estimated_s() + r.pause_after_s)
        .sum::<f64>();
    let between = &planned[..planned.len().saturating_sub(1)];
    let same = between
        .first()
        .map(|f| f.pause_after_s)
        .filter(|p| between.iter().all(|r| r.pause_after_s == *p));
    Plan {
        info: PlanInfo {
            axes,
            points,
            repeat: pa.repeat,
            pause_s: flag_pause.or(same).unwrap_or(0.0),
            runs_planned: planned.len() as u32,
            estimated_s,
        },
        runs: planned,
        estimate_partial,
    }
}

/// An error of one point with where it is: `workload N:` for a plain
/// workload of several (as before runs existed), `run 'NAME', workload
/// 'NAME':` in a run of several, then the point's parameters.
fn located(
    r: &RunOptions,
    several: bool,
    params: &[(String, String)],
    msg: String,
    workload: Option<usize>,
) -> PlanError {
    let mut where_ = Vec::new();
    if r.single {
        if several {
            where_.push(format!("workload {}", r.index + 1));
        }
    } else {
        let mut w = format!("run '{}'", r.name());
        if let Some(wi) = workload.filter(|&wi| wi < r.workloads.len()) {
            w.push_str(&format!(", workload '{}'", runs::workload_name(r, wi)));
        }
        where_.push(w);
    }
    if !params.is_empty() {
        let p: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        where_.push(p.join(" "));
    }
    let message = if where_.is_empty() {
        msg
    } else {
        format!("{}: {msg}", where_.join(", "))
    };
    PlanError {
        message,
        at: Some(Location {
            run: r.index,
            workload: if r.single { None } else { workload },
            single: r.single,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(args: &[(&str, &str)]) -> WorkloadOptions {
        let mut o = WorkloadOptions {
            target: vec!["/tmp/iolab-plan-test".into()],
            duration: Some("2s".into()),
            ..Default::default()
        };
        for (k, v) in args {
            match *k {
                "bs" => o.bs = Some((*v).into()),
                "qd" => o.qd = Some((*v).into()),
                "rw" => o.rw = Some((*v).into()),
                "jobs" => o.jobs = Some((*v).into()),
                _ => unreachable!(),
            }
        }
        o
    }

    #[test]
    fn cartesian_product_in_order_with_a_seed_each() {
        let w = opts(&[("bs", "16k,32k,64k"), ("qd", "1,2"), ("rw", "read,write")]);
        let p = build_workloads(&[w], &PlanArgs::default()).unwrap();
        assert_eq!(p.runs.len(), 12);
        assert_eq!(p.info.points, 12);
        let names: Vec<&str> = p.info.axes.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["rw", "bs", "qd"]);
        let got: Vec<String> = p.runs.iter().map(PlannedRun::params_text).collect();
        assert_eq!(got[0], "rw=read bs=16k qd=1");
        assert_eq!(got[1], "rw=read bs=16k qd=2");
        assert_eq!(got[2], "rw=read bs=32k qd=1");
        assert_eq!(got[6], "rw=write bs=16k qd=1");
        assert_eq!(got[11], "rw=write bs=64k qd=2");
        assert_eq!(p.runs[3].spec.workloads[0].bs[0].bytes, 32 << 10);
        assert_eq!(p.runs[3].spec.workloads[0].qd, 2);
        let mut seeds: Vec<u64> = p.runs.iter().map(|r| r.spec.workloads[0].seed).collect();
        seeds.sort();
        seeds.dedup();
        assert_eq!(seeds.len(), 12, "every run has its own seed");
    }

    #[test]
    fn repeats_are_adjacent_and_share_their_point() {
        let pa = PlanArgs {
            repeat: 3,
            pause: Some("1s".into()),
            ..Default::default()
        };
        let p = build_workloads(&[opts(&[("qd", "1,8")])], &pa).unwrap();
        let v: Vec<(u32, u32)> = p.runs.iter().map(|r| (r.point, r.repeat)).collect();
        assert_eq!(v, [(0, 1), (0, 2), (0, 3), (1, 1), (1, 2), (1, 3)]);
        assert_ne!(
            p.runs[0].spec.workloads[0].seed,
            p.runs[1].spec.workloads[0].seed
        );
        // 6 runs of 2 s and 5 pauses of 1 s.
        assert!((p.info.estimated_s - 17.0).abs() < 1e-9);
        assert!(p.is_sweep());
    }

    #[test]
    fn several_workloads_number_their_points_on() {
        let a = opts(&[("bs", "4k,8k")]);
        let b = opts(&[("qd", "1,2,4")]);
        let p = build_workloads(&[a, b], &PlanArgs::default()).unwrap();
        assert_eq!(p.runs.len(), 5);
        assert_eq!(p.runs[4].point, 4);
        assert_eq!(p.info.axes.len(), 2);
    }

    #[test]
    fn a_mix_is_one_value_and_a_job_file_array_is_a_list() {
        let w = opts(&[("bs", "4k:60,8k:40")]);
        assert_eq!(w.expansion_count(), 1);
        let t: iolab_jobfile::JobFile = toml_like("qd = [1, 2, 4]\nbs = [\"4k:60,8k:40\", \"8k\"]");
        let w = &t.workloads()[0];
        assert_eq!(w.expansion_count(), 6);
    }

    /// Sweeps over file-system parameters: the fileset's size and the mix
    /// vary per run like any other parameter, in expansion order.
    #[test]
    fn file_system_parameters_sweep() {
        use iolab_spec::fileset::Shape;
        use iolab_spec::fs::FsWork;
        let w = WorkloadOptions {
            dir: Some("/tmp/iolab-plan-fs".into()),
            mix: Some(iolab_jobfile::Values::parse_text_semi(
                "read:60,write:40;stat:1",
            )),
            files: Some("100,1000".into()),
            duration: Some("1s".into()),
            ..Default::default()
        };
        let p = build_workloads(&[w], &PlanArgs::default()).unwrap();
        let got: Vec<String> = p.runs.iter().map(PlannedRun::params_text).collect();
        assert_eq!(
            got,
            [
                "mix=read:60,write:40 files=100",
                "mix=read:60,write:40 files=1000",
                "mix=stat:1 files=100",
                "mix=stat:1 files=1000",
            ]
        );
        // Regression: both mixes' runs were named mix-1; the swept mix
        // names them, as a swept rw does.
        let names: Vec<&str> = p.runs.iter().map(|r| r.spec.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "mix[read:60,write:40]-1",
                "mix[read:60,write:40]-1",
                "mix[stat:1]-1",
                "mix[stat:1]-1"
            ]
        );
        assert_eq!(p.runs[0].spec.workloads[0].name, names[0]);
        let fs = |i: usize| p.runs[i].spec.workloads[0].fs.clone().unwrap();
        let Shape::Entries(e) = &fs(1).filesets[0].spec.shape else {
            panic!("filebench's shape by default")
        };
        assert_eq!(e.entries, 1000);
        assert!(matches!(&fs(2).work, FsWork::Mix(m) if m.len() == 1));
        let w = WorkloadOptions {
            dir: Some("/tmp/iolab-plan-fs".into()),
            personality: Some("fileserver,varmail".into()),
            duration: Some("1s".into()),
            ..Default::default()
        };
        let p = build_workloads(&[w], &PlanArgs::default()).unwrap();
        let names: Vec<&str> = p
            .runs
            .iter()
            .map(|r| r.spec.workloads[0].name.as_str())
            .collect();
        assert_eq!(names, ["fileserver-1", "varmail-1"]);
    }

    fn toml_like(body: &str) -> iolab_jobfile::JobFile {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("j.toml");
        std::fs::write(&p, format!("[global]\ntarget = '/x'\n{body}\n")).unwrap();
        iolab_jobfile::load_job_file(&p).unwrap()
    }

    #[test]
    fn absurd_plans_need_yes_and_say_how_big() {
        let w = opts(&[
            ("bs", "4k,8k,16k,32k,64k,128k,256k,512k,1m,2m"),
            ("qd", "1,2,4,8,16,32,64,128,256,512"),
            ("jobs", "1,2,3,4,5,6,7,8,9,10,11"),
        ]);
        let e = build_workloads(std::slice::from_ref(&w), &PlanArgs::default()).unwrap_err();
        let e = e.message;
        assert!(e.contains("1100 runs") && e.contains("--yes"), "{e}");
        let ok = build_workloads(
            &[w],
            &PlanArgs {
                yes: true,
                ..Default::default()
            },
        );
        assert_eq!(ok.unwrap().runs.len(), 1100);
        assert!(build_workloads(
            &[opts(&[])],
            &PlanArgs {
                repeat: 0,
                ..Default::default()
            }
        )
        .is_err());
    }

    /// Found by the fuzz pass: lists whose runs do not fit a u128 made
    /// counting them overflow (a panic in debug builds) instead of the
    /// plan being refused as too big.
    #[test]
    fn a_sweep_of_more_runs_than_a_u128_counts_is_refused() {
        let long = (1..=1000)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",");
        let mut w = opts(&[("qd", &long), ("jobs", &long)]);
        for v in [
            &mut w.read_pct,
            &mut w.random_pct,
            &mut w.dedupe,
            &mut w.rate,
            &mut w.fsync_every,
            &mut w.ops,
            &mut w.batch_complete,
            &mut w.read_hit_pct,
            &mut w.write_hit_pct,
            &mut w.align,
            &mut w.size,
            &mut w.offset,
            &mut w.range,
        ] {
            *v = Some(long.as_str().into());
        }
        assert_eq!(w.expansion_count(), u128::MAX);
        let pa = PlanArgs {
            repeat: 3,
            ..Default::default()
        };
        let e = build_workloads(&[w.clone(), w], &pa).unwrap_err().message;
        assert!(e.contains("more than iolab plans"), "{e}");
    }

    /// A run's own pause follows it; `--pause` replaces every run's; the
    /// last run has none; the estimate counts them.
    #[test]
    fn pauses_after_runs() {
        let mut a = RunOptions::single(0, opts(&[]));
        a.pause_s = Some(5.0);
        let b = RunOptions::single(1, opts(&[("qd", "1,2")]));
        let mut c = RunOptions::single(2, opts(&[]));
        c.pause_s = Some(7.0);
        let runs = [a, b, c];
        let p = build(&runs, &PlanArgs::default()).unwrap();
        let pauses: Vec<f64> = p.runs.iter().map(|r| r.pause_after_s).collect();
        assert_eq!(pauses, [5.0, 0.0, 0.0, 0.0]);
        // 4 runs of 2 s and one pause of 5 s; no one pause for all.
        assert!((p.info.estimated_s - 13.0).abs() < 1e-9);
        assert_eq!(p.info.pause_s, 0.0);
        assert!(crate::describe(&p).contains("pauses after runs (5 s in all)"));
        assert!(crate::dry_run_text(&p).contains("then a pause of 5 s"));
        let pa = PlanArgs {
            pause: Some("1s".into()),
            ..Default::default()
        };
        let p = build(&runs, &pa).unwrap();
        let pauses: Vec<f64> = p.runs.iter().map(|r| r.pause_after_s).collect();
        assert_eq!(pauses, [1.0, 1.0, 1.0, 0.0]);
        assert_eq!(p.info.pause_s, 1.0);
        assert!((p.info.estimated_s - 11.0).abs() < 1e-9);
        // --pause 0s takes every run's pause away.
        let pa = PlanArgs {
            pause: Some("0s".into()),
            ..Default::default()
        };
        let p = build(&runs, &pa).unwrap();
        assert!(p.runs.iter().all(|r| r.pause_after_s == 0.0));
    }

    /// `--duration` and `--warmup` on the command line win over a run's
    /// own keys (a [[run]]'s, or vdbench's elapsed= and warmup=), in a run
    /// of several workloads and in a run of one.
    #[test]
    fn flags_override_a_runs_clock() {
        let run = WorkloadOptions {
            duration: Some("90s".into()),
            warmup: Some("200s".into()),
            ..Default::default()
        };
        let wl = |name: &str| WorkloadOptions {
            name: Some(name.into()),
            target: vec!["/tmp/iolab-plan-test".into()],
            ..Default::default()
        };
        let flags = WorkloadOptions {
            duration: Some("1s".into()),
            warmup: Some("0s".into()),
            ..Default::default()
        };
        let several = RunOptions {
            run: run.clone(),
            workloads: vec![wl("a"), wl("b")],
            overrides: flags.clone(),
            ..Default::default()
        };
        let mut one = RunOptions::single(1, wl("c"));
        one.run = run;
        one.overrides = flags;
        let p = build(&[several, one], &PlanArgs::default()).unwrap();
        let s = &p.runs[0].spec;
        assert_eq!((s.duration_s, s.warmup_s), (Some(1.0), 0.0));
        assert!(s.workloads.iter().all(|w| w.duration_s == Some(1.0)));
        let s = &p.runs[1].spec;
        assert_eq!((s.workloads[0].duration_s, s.warmup_s), (Some(1.0), 0.0));
        assert!((p.info.estimated_s - 2.0).abs() < 1e-9);
    }

    #[test]
    fn a_bad_value_in_a_list_names_its_point() {
        let e = build_workloads(&[opts(&[("qd", "1,x")])], &PlanArgs::default())
            .unwrap_err()
            .message;
        assert!(e.contains("qd=x") && e.contains("--qd"), "{e}");
    }
}
