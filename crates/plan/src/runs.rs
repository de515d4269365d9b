//! One run's options expanded into the points of its sweep, and each
//! point resolved into a `RunSpec`.
//!
//! A plain workload (`RunOptions::single`) expands exactly as before runs
//! existed: its options merged, then every list. A run of several
//! workloads expands in two steps, so a list is swept where it is written:
//! first the run's own options (`[global]` < `[[run]]` < flags: one axis
//! each, shared by all its workloads), then each workload's own lists
//! (named `WORKLOAD.PARAM`), workload after workload; the last list varies
//! fastest. A list given as a flag with a job file is one axis of the run,
//! and fixes that key in every workload to the point's value.

use iolab_jobfile::{has_own_end, resolve_run, resolve_run_keys, RunOptions, WorkloadOptions};
use iolab_spec::{RunSpec, TargetSpec, WorkloadSpec};
use std::collections::HashMap;

/// A run with no duration whose workloads do not all end by themselves
/// runs this long, a workload's own default (docs/jobfile.md).
const DEFAULT_RUN_S: f64 = 10.0;

/// One point of a run's sweep: every workload's options with one value
/// each, and the swept parameters' values.
pub(crate) struct Point {
    /// The run's own options (a run of several workloads).
    run: Option<WorkloadOptions>,
    workloads: Vec<WorkloadOptions>,
    pub params: Vec<(String, String)>,
}

/// Workloads' options so far in a point, and its parameters.
type Combo = (Vec<WorkloadOptions>, Vec<(String, String)>);

/// The options of a plain workload, merged.
fn merged_single(r: &RunOptions) -> WorkloadOptions {
    let w = r.workloads.first().cloned().unwrap_or_default();
    r.run.overlay(&w).overlay(&r.overrides)
}

/// The run's options of a run of several: its keys and the defaults of
/// its workloads, flags on top.
fn run_level(r: &RunOptions) -> WorkloadOptions {
    r.run.overlay(&r.overrides)
}

/// The name of the run's `j`-th workload as given, or `RUN-N`.
pub(crate) fn workload_name(r: &RunOptions, j: usize) -> String {
    r.workloads[j]
        .name
        .clone()
        .unwrap_or_else(|| format!("{}-{}", r.name(), j + 1))
}

/// The flags as they apply to each workload of a run of several: the run
/// is named by `--name` and shares `--rate`; every other flag overrides
/// the key in every workload.
fn for_workloads(flags: &WorkloadOptions) -> WorkloadOptions {
    let mut f = flags.clone();
    f.name = None;
    f.rate = None;
    f
}

/// The lists of the `j`-th workload's own options that no flag fixes.
fn own_axes(r: &RunOptions, j: usize) -> Vec<(String, Vec<String>)> {
    let flags = for_workloads(&r.overrides);
    let flagged: Vec<String> = flags.axes().into_iter().map(|(n, _)| n).collect();
    r.workloads[j]
        .overlay(&flags)
        .axes()
        .into_iter()
        .filter(|(n, _)| !flagged.contains(n))
        .collect()
}

/// A run of several workloads has one clock: `warmup` and `interval`
/// are the run's, never a workload's own; so are `curve` and `stop_curve`
/// (the curve's rates are the run's).
pub(crate) fn check(r: &RunOptions) -> Result<(), (String, Option<usize>)> {
    if r.single {
        return Ok(());
    }
    for (j, w) in r.workloads.iter().enumerate() {
        let clock = "its workloads share one clock";
        let rates = "a curve sets the rate its workloads share";
        let (key, why) = if w.warmup.is_some() {
            ("warmup", clock)
        } else if w.interval.is_some() {
            ("interval", clock)
        } else if w.curve.is_some() {
            ("curve", rates)
        } else if w.stop_curve.is_some() {
            ("stop-curve", rates)
        } else {
            continue;
        };
        return Err((
            format!("--{key} is the run's ({why}), not a workload's; give it to the run"),
            Some(j),
        ));
    }
    Ok(())
}

/// The swept parameters of a run, in expansion order.
pub(crate) fn axes(r: &RunOptions) -> Vec<(String, Vec<String>)> {
    if r.single {
        return merged_single(r).axes();
    }
    let mut out = run_level(r).axes();
    for j in 0..r.workloads.len() {
        let name = workload_name(r, j);
        out.extend(
            own_axes(r, j)
                .into_iter()
                .map(|(p, v)| (format!("{name}.{p}"), v)),
        );
    }
    out
}

/// How many points the run's lists make, saturating.
pub(crate) fn count(r: &RunOptions) -> u128 {
    axes(r)
        .iter()
        .fold(1u128, |n, (_, v)| n.saturating_mul(v.len() as u128))
}

/// Every point of the run, in order. Call only after [`count`] has been
/// checked against the plan's limit.
pub(crate) fn points(r: &RunOptions) -> Vec<Point> {
    if r.single {
        return merged_single(r)
            .expand()
            .into_iter()
            .map(|(o, params)| Point {
                run: None,
                workloads: vec![o],
                params,
            })
            .collect();
    }
    // The flags with each combination of their lists, found by the
    // values the run's point took for them.
    let flagged: Vec<String> = r.overrides.axes().into_iter().map(|(n, _)| n).collect();
    let variants: HashMap<Vec<(String, String)>, WorkloadOptions> = r
        .overrides
        .expand()
        .into_iter()
        .map(|(o, p)| (p, for_workloads(&o)))
        .collect();
    let mut out = Vec::new();
    for (rp, rparams) in run_level(r).expand() {
        let key: Vec<(String, String)> = rparams
            .iter()
            .filter(|(n, _)| flagged.contains(n))
            .cloned()
            .collect();
        let flags = variants.get(&key).cloned().unwrap_or_default();
        // The run's keys are its own, not its workloads' defaults.
        let mut defaults = rp.clone();
        defaults.name = None;
        defaults.rate = None;
        defaults.duration = None;
        let mut combos: Vec<Combo> = vec![(Vec::new(), rparams)];
        for (j, w) in r.workloads.iter().enumerate() {
            let name = workload_name(r, j);
            let own = w.overlay(&flags).expand();
            combos = combos
                .into_iter()
                .flat_map(|(ws, params)| {
                    own.iter()
                        .map(|(o, p)| {
                            let mut ws = ws.clone();
                            ws.push(defaults.overlay(o));
                            let mut params = params.clone();
                            params
                                .extend(p.iter().map(|(k, v)| (format!("{name}.{k}"), v.clone())));
                            (ws, params)
                        })
                        .collect::<Vec<_>>()
                })
                .collect();
        }
        out.extend(combos.into_iter().map(|(workloads, params)| Point {
            run: Some(rp.clone()),
            workloads,
            params,
        }));
    }
    out
}

/// A curve sets its runs' rates itself.
const CURVE_AND_RATE: &str = "a curve runs at the maximum rate, then at percentages of what it measured; drop the rate (or the curve)";

/// Resolve a point into a validated run; `seed_index` counts every
/// workload resolved in the plan so far. An error names the workload it
/// is about (its position in the run), if any. A point of a `curve` has
/// no rate of its own: the executor sets it.
pub(crate) fn resolve(
    r: &RunOptions,
    p: &Point,
    seed_index: &mut usize,
    curve: bool,
) -> Result<RunSpec, (String, Option<usize>)> {
    let Some(rp) = &p.run else {
        let mut spec =
            resolve_run(&p.workloads[0], r.index, *seed_index).map_err(|e| (e.0, None))?;
        if p.workloads[0].name.is_none() {
            spec.name = swept_work_name(&spec.name, r.index, &p.params);
        }
        spec.origin = r.origin(0);
        *seed_index += 1;
        if curve && spec.rate_iops.is_some() {
            return Err((format!("--rate: {CURVE_AND_RATE}"), None));
        }
        // Alone, the workload's rate is its own: there is no run's rate
        // to take a share of (RunSpec::validate's message would ask for a
        // [[run]] rate the command line may already give as --rate).
        if let Some(k) = spec.skew_pct {
            return Err((
                format!(
                    "--skew {k}: a share of a run's rate needs workloads that run together; give them with --workload NAME (or [[run]] and [[run.workload]] tables) and the run a rate, or drop skew"
                ),
                None,
            ));
        }
        let run = RunSpec::single(spec);
        run.validate().map_err(|e| (e.0, None))?;
        return Ok(run);
    };
    let keys = resolve_run_keys(rp).map_err(|e| (e.0, None))?;
    let name = r.name();
    // A workload with no end of its own runs until the run ends.
    let endless = p.workloads.iter().any(|o| !has_own_end(o));
    let duration_s = keys.duration_s.or(endless.then_some(DEFAULT_RUN_S));
    let mut workloads = Vec::with_capacity(p.workloads.len());
    for (j, o) in p.workloads.iter().enumerate() {
        let mut o = o.clone();
        o.name.get_or_insert_with(|| workload_name(r, j));
        let mut spec = resolve_run(&o, j, *seed_index).map_err(|e| (e.0, Some(j)))?;
        spec.origin = r.origin(j);
        *seed_index += 1;
        if !has_own_end(&o) {
            spec.duration_s = duration_s;
        }
        spec.warmup_s = keys.warmup_s;
        spec.interval_s = keys.interval_s;
        spec.validate().map_err(|e| (e.0, Some(j)))?;
        if let Some(d) = duration_s.filter(|&d| spec.start_delay_s >= keys.warmup_s + d) {
            return Err((
                format!(
                    "--start-delay {}: the workload would start after its run has ended (warm-up {} + duration {}); give a shorter start_delay or a longer duration",
                    iolab_spec::format_duration_exact(spec.start_delay_s),
                    iolab_spec::format_duration_exact(keys.warmup_s),
                    iolab_spec::format_duration_exact(d)
                ),
                Some(j),
            ));
        }
        workloads.push(spec);
    }
    shared_verify(&workloads)?;
    if curve {
        no_rate_in_curve(keys.rate_iops, &workloads)?;
    }
    let mut run = RunSpec {
        name,
        duration_s,
        warmup_s: keys.warmup_s,
        interval_s: keys.interval_s,
        // A curve's point is checked as a run with a rate (its workloads'
        // skew shares need one); the executor sets the real one.
        rate_iops: if curve { Some(1.0) } else { keys.rate_iops },
        workloads,
    };
    run.validate().map_err(|e| (e.0, None))?;
    if curve {
        run.rate_iops = None;
    }
    Ok(run)
}

/// The default name (`KIND-N`: `mix-1`, `flow-1`, `fileserver-1`) of a
/// file-system workload whose mix or flows are swept, with the point's
/// value in it, as a swept `rw` or `personality` names its runs by the
/// value: `--mix "read:1;stat:1"` runs `mix[read:1]-1` and
/// `mix[stat:1]-1`, not `mix-1` twice. Any other name is kept.
fn swept_work_name(name: &str, index: usize, params: &[(String, String)]) -> String {
    let Some(kind) = name.strip_suffix(&format!("-{}", index + 1)) else {
        return name.to_string();
    };
    let values: Vec<&str> = (params.iter())
        .filter(|(k, _)| k == "mix" || k == "flow")
        .map(|(_, v)| v.trim())
        .collect();
    if values.is_empty() {
        return name.to_string();
    }
    format!("{kind}[{}]-{}", values.join(" "), index + 1)
}

/// A curve's run has no rate of its own, nor do its workloads.
fn no_rate_in_curve(
    run_rate: Option<f64>,
    workloads: &[WorkloadSpec],
) -> Result<(), (String, Option<usize>)> {
    if run_rate.is_some() {
        return Err((format!("the run's rate: {CURVE_AND_RATE}"), None));
    }
    match workloads.iter().position(|w| w.rate_iops.is_some()) {
        Some(j) => Err((format!("--rate: {CURVE_AND_RATE}"), Some(j))),
        None => Ok(()),
    }
}

/// Whether two targets' regions (`None`: to the end) overlap.
fn overlaps(a: &TargetSpec, b: &TargetSpec) -> bool {
    let end = |t: &TargetSpec| t.range.map_or(u64::MAX, |r| t.offset.saturating_add(r));
    a.path == b.path && a.offset < end(b) && b.offset < end(a)
}

/// A workload that verifies its stamps (or journals) keeps its own map
/// of what it wrote where: another workload of the same run writing the same
/// region would make each see the other's writes as stale. Refused, with
/// what to do.
fn shared_verify(workloads: &[WorkloadSpec]) -> Result<(), (String, Option<usize>)> {
    for (i, a) in workloads.iter().enumerate() {
        // A pattern's reads are checked against the pattern, whoever
        // wrote the block: no map of generations.
        let pattern = matches!(a.data, iolab_spec::DataPattern::Pattern { .. });
        if !((a.verify && !pattern) || a.journal.is_some()) {
            continue;
        }
        for (j, b) in workloads.iter().enumerate() {
            if i == j || !b.writes() {
                continue;
            }
            let Some(t) = a
                .targets
                .iter()
                .find(|t| b.targets.iter().any(|u| overlaps(t, u)))
            else {
                continue;
            };
            let what = if a.verify { "verifies" } else { "journals" };
            return Err((
                format!(
                    "workload '{}' {what} {} and workload '{}' writes it too in the same run: each workload keeps its own map of what it wrote, so each would see the other's writes as stale; verify with one workload per target (or regions that do not overlap), or turn verify and journal off",
                    a.name, t.path, b.name
                ),
                Some(i),
            ));
        }
    }
    Ok(())
}
