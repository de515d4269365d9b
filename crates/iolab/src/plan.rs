//! Plans: workloads whose parameters take lists, expanded into runs.
//!
//! The runs are the cartesian product of the lists, workload by workload,
//! in the order of `WorkloadOptions::expand` (the last swept parameter
//! varies fastest); each point runs `--repeat` times in a row. Every run
//! gets its own seed: the base seed plus its position in the plan.

use iolab_jobfile::{resolve_run, WorkloadOptions};
use iolab_report::{Axis, PlanInfo};
use iolab_spec::WorkloadSpec;
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

    /// Pause between runs, e.g. 10s (vdbench pause=)
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
    pub spec: WorkloadSpec,
    /// Index of its point in the plan.
    pub point: u32,
    /// Repetition, from 1.
    pub repeat: u32,
    /// The swept parameters' values, in expansion order.
    pub params: Vec<(String, String)>,
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

    /// Planned wall time: warm-up plus duration (0 when the run ends by
    /// bytes or I/O count: unknown in advance).
    pub fn estimated_s(&self) -> f64 {
        self.spec.warmup_s + self.spec.duration_s.unwrap_or(0.0)
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
    /// A plan worth describing in the document: lists or repetitions.
    pub fn is_sweep(&self) -> bool {
        !self.info.axes.is_empty() || self.info.repeat > 1
    }
}

/// Expand workloads into a plan. Errors are one line for the user.
pub fn build(workloads: &[WorkloadOptions], pa: &PlanArgs) -> Result<Plan, String> {
    if pa.repeat == 0 {
        return Err("--repeat 0 runs nothing; give --repeat 1 or more".into());
    }
    let pause_s = match &pa.pause {
        Some(p) => iolab_spec::parse_duration(p)
            .map_err(|e| format!("--pause: {e}"))?
            .as_secs_f64(),
        None => 0.0,
    };
    let points: u128 = workloads
        .iter()
        .fold(0, |n, w| n.saturating_add(w.expansion_count()));
    let total = points.saturating_mul(pa.repeat as u128);
    if total > MAX_RUNS {
        return Err(format!(
            "the lists expand to {total} runs, more than iolab plans ({MAX_RUNS}); shorten the lists or split the sweep"
        ));
    }
    let mut runs = Vec::with_capacity(total as usize);
    let mut axes: Vec<Axis> = Vec::new();
    let mut point = 0u32;
    for (wi, w) in workloads.iter().enumerate() {
        for (name, values) in w.axes() {
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
        for (opts, params) in w.expand() {
            for rep in 1..=pa.repeat {
                let seed_index = runs.len();
                let spec = resolve_run(&opts, wi, seed_index).map_err(|e| {
                    let mut where_ = Vec::new();
                    if workloads.len() > 1 {
                        where_.push(format!("workload {}", wi + 1));
                    }
                    if !params.is_empty() {
                        let p: Vec<String> =
                            params.iter().map(|(k, v)| format!("{k}={v}")).collect();
                        where_.push(p.join(" "));
                    }
                    if where_.is_empty() {
                        e.0
                    } else {
                        format!("{}: {}", where_.join(", "), e.0)
                    }
                })?;
                runs.push(PlannedRun {
                    spec,
                    point,
                    repeat: rep,
                    params: params.clone(),
                });
            }
            point += 1;
        }
    }
    let estimate_partial = runs.iter().any(|r| r.spec.duration_s.is_none());
    let estimated_s = runs.iter().map(PlannedRun::estimated_s).sum::<f64>()
        + pause_s * runs.len().saturating_sub(1) as f64;
    let plan = Plan {
        info: PlanInfo {
            axes,
            points: point,
            repeat: pa.repeat,
            pause_s,
            runs_planned: runs.len() as u32,
            estimated_s,
        },
        runs,
        estimate_partial,
    };
    if !pa.yes && !pa.dry_run && (total > CONFIRM_RUNS || estimated_s > CONFIRM_SECS) {
        return Err(format!(
            "the plan has {total} runs and would take about {}; check it with --dry-run, then add --yes to run it",
            human_secs(estimated_s)
        ));
    }
    Ok(plan)
}

/// Check the targets of every run of the plan as the runs will
/// (`iolab_engine::PlanCheck`: existence, ownership, the write-safety checks
/// of devices, free space, regions), creating and writing nothing: a plan
/// that would be refused is refused before its first I/O, and `--dry-run`
/// refuses what the real run would.
pub fn check_targets(plan: &Plan) -> Result<(), String> {
    let mut check = iolab_engine::PlanCheck::new();
    let n = plan.runs.len();
    for (i, r) in plan.runs.iter().enumerate() {
        check.check(&r.spec).map_err(|e| {
            if n > 1 {
                let params = r.params_text();
                let what = if params.is_empty() {
                    r.spec.name.clone()
                } else {
                    params
                };
                format!("run {}/{n} ({what}): {e}", i + 1)
            } else {
                e.to_string()
            }
        })?;
    }
    Ok(())
}

/// `msg`, an error of `build` for workloads read from the job file
/// `job`, with the file and line of the key it is about, when the value
/// came from the file (not from a flag on the command line).
pub fn locate_in_job_file(msg: &str, job: &std::path::Path) -> String {
    // "workload 2: --qd ...", as `build` words it for several workloads.
    let index = msg
        .strip_prefix("workload ")
        .and_then(|r| r.split([',', ':']).next())
        .and_then(|n| n.parse::<usize>().ok())
        .map_or(0, |n| n.saturating_sub(1));
    let Some(at) = msg.find("--") else {
        return msg.to_string();
    };
    let flag: String = msg[at + 2..]
        .chars()
        .take_while(|c| c.is_ascii_lowercase() || *c == '-')
        .collect();
    if flag.is_empty() {
        return msg.to_string();
    }
    let on_command_line = std::env::args().any(|a| {
        iolab_jobfile::keys_of(&flag).iter().any(|k| {
            let f = format!("--{}", k.replace('_', "-"));
            a == f || a.starts_with(&format!("{f}="))
        })
    });
    if on_command_line {
        return msg.to_string();
    }
    let Ok(text) = std::fs::read_to_string(job) else {
        return msg.to_string();
    };
    match iolab_jobfile::key_line(&text, &flag, index) {
        Some(line) => format!("job file {}: line {line}: {msg}", job.display()),
        None => msg.to_string(),
    }
}

/// `1 h 02 min`, `3 min 20 s`, `12 s`, `0.4 s`.
pub fn human_secs(s: f64) -> String {
    if s < 10.0 {
        let t = format!("{:.1}", s.max(0.0));
        return format!("{} s", t.trim_end_matches(".0"));
    }
    let s = s.round() as u64;
    if s >= 86400 {
        format!("{} d {:02} h", s / 86400, s % 86400 / 3600)
    } else if s >= 3600 {
        format!("{} h {:02} min", s / 3600, s % 3600 / 60)
    } else if s >= 60 {
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        format!("{s} s")
    }
}

/// The plan's one-line description: runs, points, order, estimate.
pub fn describe(plan: &Plan) -> String {
    let i = &plan.info;
    let mut s = format!(
        "{} run{} ({} point{} x {} repeat{})",
        i.runs_planned,
        if i.runs_planned == 1 { "" } else { "s" },
        i.points,
        if i.points == 1 { "" } else { "s" },
        i.repeat,
        if i.repeat == 1 { "" } else { "s" }
    );
    if !i.axes.is_empty() {
        let names: Vec<&str> = i.axes.iter().map(|a| a.name.as_str()).collect();
        s.push_str(&format!(", sweeping {}", names.join(" then ")));
        if names.len() > 1 {
            s.push_str(&format!(" ({} varies fastest)", names[names.len() - 1]));
        }
    }
    if i.pause_s > 0.0 {
        s.push_str(&format!(", {} pause between runs", human_secs(i.pause_s)));
    }
    s.push_str(&format!(
        "; estimated {}{}",
        human_secs(i.estimated_s),
        if plan.estimate_partial {
            " plus runs that end by size or I/O count"
        } else {
            ""
        }
    ));
    s
}

/// `--dry-run`: the plan, a line per run.
pub fn dry_run_text(plan: &Plan) -> String {
    let mut out = format!("plan: {}\n", describe(plan));
    let name_w = plan
        .runs
        .iter()
        .map(|r| r.spec.name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let par_w = plan
        .runs
        .iter()
        .map(|r| r.params_text().len())
        .max()
        .unwrap_or(0)
        .max(6);
    out.push_str(&format!(
        "{:>5} {:>5} {:>3}  {:<name_w$}  {:<par_w$}  {:>18}  {:>9}  workload\n",
        "run", "point", "rep", "name", "params", "seed", "time"
    ));
    for (n, r) in plan.runs.iter().enumerate() {
        let t = match r.spec.duration_s {
            Some(_) => human_secs(r.estimated_s()),
            None => "by size".into(),
        };
        out.push_str(&format!(
            "{:>5} {:>5} {:>3}  {:<name_w$}  {:<par_w$}  {:>#18x}  {:>9}  {}\n",
            n + 1,
            r.point + 1,
            r.repeat,
            r.spec.name,
            r.params_text(),
            r.spec.seed,
            t,
            iolab_report::terminal::run_heading(&r.spec)
        ));
    }
    out
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
        let p = build(&[w], &PlanArgs::default()).unwrap();
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
        assert_eq!(p.runs[3].spec.bs[0].bytes, 32 << 10);
        assert_eq!(p.runs[3].spec.qd, 2);
        let mut seeds: Vec<u64> = p.runs.iter().map(|r| r.spec.seed).collect();
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
        let p = build(&[opts(&[("qd", "1,8")])], &pa).unwrap();
        let v: Vec<(u32, u32)> = p.runs.iter().map(|r| (r.point, r.repeat)).collect();
        assert_eq!(v, [(0, 1), (0, 2), (0, 3), (1, 1), (1, 2), (1, 3)]);
        assert_ne!(p.runs[0].spec.seed, p.runs[1].spec.seed);
        // 6 runs of 2 s and 5 pauses of 1 s.
        assert!((p.info.estimated_s - 17.0).abs() < 1e-9);
        assert!(p.is_sweep());
    }

    #[test]
    fn several_workloads_number_their_points_on() {
        let a = opts(&[("bs", "4k,8k")]);
        let b = opts(&[("qd", "1,2,4")]);
        let p = build(&[a, b], &PlanArgs::default()).unwrap();
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
        let e = build(std::slice::from_ref(&w), &PlanArgs::default()).unwrap_err();
        assert!(e.contains("1100 runs") && e.contains("--yes"), "{e}");
        let ok = build(
            &[w],
            &PlanArgs {
                yes: true,
                ..Default::default()
            },
        );
        assert_eq!(ok.unwrap().runs.len(), 1100);
        assert!(build(
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
        let e = build(&[w.clone(), w], &pa).unwrap_err();
        assert!(e.contains("more than iolab plans"), "{e}");
    }

    #[test]
    fn a_bad_value_in_a_list_names_its_point() {
        let e = build(&[opts(&[("qd", "1,x")])], &PlanArgs::default()).unwrap_err();
        assert!(e.contains("qd=x") && e.contains("--qd"), "{e}");
    }
}
