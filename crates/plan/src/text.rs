//! A plan as text: its one-line description and the `--dry-run` table
//! (a line per run, and a line per workload of a run of several). Text
//! only; the binary prints it.

use crate::plan::{Plan, PlannedRun};

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
    let curves = plan
        .runs
        .iter()
        .filter(|r| r.curve.as_ref().is_some_and(|c| c.pct.is_none()) && r.repeat == 1)
        .count();
    if curves > 0 {
        s.push_str(&format!(
            ", {curves} response-time curve{} (a run at the maximum rate, then at percentages of it)",
            if curves == 1 { "" } else { "s" }
        ));
    }
    let pauses: f64 = plan.runs.iter().map(|r| r.pause_after_s).sum();
    if i.pause_s > 0.0 {
        s.push_str(&format!(", {} pause between runs", human_secs(i.pause_s)));
    } else if pauses > 0.0 {
        s.push_str(&format!(
            ", pauses after runs ({} in all)",
            human_secs(pauses)
        ));
    }
    s.push_str(&format!(
        "; estimated {}{}",
        human_secs(i.estimated_s),
        if plan.estimate_partial {
            " plus runs that end on bytes or a count of operations"
        } else {
            ""
        }
    ));
    s
}

/// `--dry-run`: the plan, a line per run; a run of several workloads
/// adds a line per workload below it.
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
    let ends: Vec<String> = plan.runs.iter().map(end_text).collect();
    let time_w = ends.iter().map(String::len).max().unwrap_or(0).max(9);
    out.push_str(&format!(
        "{:>5} {:>5} {:>3}  {:<name_w$}  {:<par_w$}  {:>18}  {:>time_w$}  workload\n",
        "run", "point", "rep", "name", "params", "seed", "time"
    ));
    for ((n, r), t) in plan.runs.iter().enumerate().zip(ends) {
        let first = &r.spec.workloads[0];
        let mut what = if r.is_concurrent() {
            run_line(r)
        } else {
            heading(first)
        };
        what.push_str(&notes(r, plan.info.pause_s));
        out.push_str(&format!(
            "{:>5} {:>5} {:>3}  {:<name_w$}  {:<par_w$}  {:>#18x}  {:>time_w$}  {}\n",
            n + 1,
            r.point + 1,
            r.repeat,
            r.spec.name,
            r.params_text(),
            first.seed,
            t,
            what
        ));
        if r.is_concurrent() {
            for (i, w) in r.spec.workloads.iter().enumerate() {
                out.push_str(&workload_line(r, i, w));
                fs_lines(&mut out, w, 17);
            }
        } else {
            fs_lines(&mut out, first, 7);
        }
    }
    out
}

/// The run line's time: its length, or how it ends when that is not on
/// time: its workload's bytes (`after 4 MiB`), operations (`after 10,000
/// operations`, a block workload's `after 400 I/Os`) or filling its
/// target (`when full`); `per workload` for workloads that end each their
/// own way (each workload's line says how).
fn end_text(r: &PlannedRun) -> String {
    if let Some(s) = r.planned_s() {
        return human_secs(s);
    }
    let ends: Vec<String> = (r.spec.workloads.iter())
        .map(|w| match w.duration_s {
            Some(d) => human_secs(d),
            None => count_end(w).unwrap_or_else(|| "when full".into()),
        })
        .collect();
    match ends.split_first() {
        Some((first, rest)) if rest.iter().all(|e| e == first) => first.clone(),
        _ => "per workload".into(),
    }
}

/// `after 4 MiB`, `after 10,000 operations` (a file-system workload's),
/// `after 400 I/Os`: a workload's end by bytes or count, None for one that
/// ends on time or when its target is full.
fn count_end(w: &iolab_spec::WorkloadSpec) -> Option<String> {
    let what = if w.fs.is_some() { "operations" } else { "I/Os" };
    match (w.duration_s, w.io_size, w.ops) {
        (Some(_), _, _) => None,
        (None, Some(b), _) => Some(format!("after {}", iolab_spec::format_bytes(b))),
        (None, None, Some(o)) => Some(format!("after {} {what}", iolab_spec::thousands(o))),
        _ => None,
    }
}

/// What the run's line adds: its rate in a curve, its pause after it
/// when that is not the plan's one pause between runs.
fn notes(r: &PlannedRun, plan_pause_s: f64) -> String {
    let mut s = String::new();
    if let Some(c) = &r.curve {
        match c.pct {
            None => s.push_str("; at the maximum rate"),
            Some(_) => s.push_str(&format!(
                "; rate {} of the IOPS {} measures",
                c.label(),
                c.max_name
            )),
        }
        if let Some(ms) = c.stop_ms.filter(|_| c.pct.is_some()) {
            s.push_str(&format!(" (curve ends above {ms} ms)"));
        }
    }
    if r.pause_after_s > 0.0 && r.pause_after_s != plan_pause_s {
        s.push_str(&format!(
            "; then a pause of {}",
            human_secs(r.pause_after_s)
        ));
    }
    s
}

/// The heading of a workload: a block workload's, or a file-system one's.
fn heading(w: &iolab_spec::WorkloadSpec) -> String {
    w.fs_heading()
        .unwrap_or_else(|| iolab_report::terminal::run_heading(w))
}

/// A file-system workload's filesets and flows, a line each, indented.
fn fs_lines(out: &mut String, w: &iolab_spec::WorkloadSpec, indent: usize) {
    if let Some(fs) = &w.fs {
        for line in fs.describe() {
            out.push_str(&format!("{:indent$}{line}\n", ""));
        }
    }
}

/// `3 workloads together, rate 5000/s shared` (the seed column shows the
/// first workload's; each workload line shows its own).
fn run_line(r: &PlannedRun) -> String {
    let mut s = format!("{} workloads together", r.spec.workloads.len());
    if let Some(rate) = r.spec.rate_iops {
        s.push_str(&format!(", rate {rate}/s shared"));
    }
    if r.spec.warmup_s > 0.0 {
        s.push_str(&format!(", warm-up {}", human_secs(r.spec.warmup_s)));
    }
    s
}

/// `      - backup: read 1 MiB ... on /dev/sdc; seed 0x101ac, starts +5 s,
/// ends after 10 s, rate 250/s (skew 25%)`
fn workload_line(r: &PlannedRun, i: usize, w: &iolab_spec::WorkloadSpec) -> String {
    let mut notes = vec![format!("seed {:#x}", w.seed)];
    if w.start_delay_s > 0.0 {
        notes.push(format!("starts +{}", human_secs(w.start_delay_s)));
    }
    let end = match w.duration_s {
        Some(d) if Some(d) != r.spec.duration_s => Some(format!("after {}", human_secs(d))),
        Some(_) => None,
        None if w.fill && w.io_size.is_none() && w.ops.is_none() => Some("when full".into()),
        None => count_end(w),
    };
    if let Some(end) = end {
        notes.push(format!("ends {end}"));
    }
    if let Some(Some(rate)) = r.spec.workload_rates().get(i) {
        let mut t = format!("rate {rate:.0}/s");
        if let Some(k) = w.skew_pct {
            t.push_str(&format!(" (skew {k}%)"));
        }
        notes.push(t);
    }
    format!("{:>15}- {}; {}\n", "", heading(w), notes.join(", "))
}
