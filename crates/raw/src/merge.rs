//! Merging the raw results of one run measured in several places (the
//! hosts of a multi-host run) into one: counts and histograms add exactly,
//! interval series merge by index, targets and error records are named
//! `LABEL:PATH`, and the stalls of the whole are the gaps no part
//! completed an I/O in. Pure computation on the raw types.

use crate::raw::*;
use std::collections::BTreeMap;

/// A time range, nanoseconds since the run started.
type Span = (u64, u64);

/// `LABEL:PATH`, or `PATH` when the label is empty.
fn named(label: &str, path: &str) -> String {
    if label.is_empty() {
        path.to_string()
    } else {
        format!("{label}:{path}")
    }
}

/// Where two sorted lists of disjoint spans overlap.
fn intersect(a: &[Span], b: &[Span]) -> Vec<Span> {
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        let lo = a[i].0.max(b[j].0);
        let hi = a[i].1.min(b[j].1);
        if lo < hi {
            out.push((lo, hi));
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// The time a part may have been in a gap: inside one of its gaps, or
/// outside `cover` (the part was not running then, so it does not
/// constrain the whole).
fn may_gap(events: &[Gap], cover: Span) -> Vec<Span> {
    let mut v: Vec<Span> = Vec::new();
    if cover.0 > 0 {
        v.push((0, cover.0));
    }
    let mut ev: Vec<Span> = events
        .iter()
        .map(|g| (g.start_ns.max(cover.0), g.end_ns.min(cover.1)))
        .filter(|(a, b)| a < b)
        .collect();
    ev.sort_unstable();
    for s in ev {
        match v.last_mut() {
            Some(l) if s.0 <= l.1 => l.1 = l.1.max(s.1),
            _ => v.push(s),
        }
    }
    match v.last_mut() {
        Some(l) if cover.1 <= l.1 => l.1 = u64::MAX,
        _ => v.push((cover.1, u64::MAX)),
    }
    v
}

/// The stalls of the whole from the parts' stalls and the spans they ran
/// over: a gap of the whole is a time at least one part ran and every
/// part that ran was in a gap of its own; kept when at least
/// `threshold_ns` long. Without a common gap, `longest` is the shortest
/// of the parts' longest gaps, an upper bound (`exact` false).
/// `zero_intervals` is left to the caller (it needs the merged series).
pub fn common_stalls(parts: &[(&StallsRaw, Span)], threshold_ns: u64) -> StallsRaw {
    let mut covered: Vec<Span> = parts.iter().map(|p| p.1).filter(|s| s.0 < s.1).collect();
    covered.sort_unstable();
    let mut union: Vec<Span> = Vec::new();
    for s in covered {
        match union.last_mut() {
            Some(l) if s.0 <= l.1 => l.1 = l.1.max(s.1),
            _ => union.push(s),
        }
    }
    let mut common = union;
    for (st, cover) in parts {
        common = intersect(&common, &may_gap(&st.events, *cover));
    }
    let events: Vec<Gap> = common
        .into_iter()
        .map(|(start_ns, end_ns)| Gap { start_ns, end_ns })
        .filter(|g| g.len() >= threshold_ns.max(1))
        .collect();
    let longest = events.iter().copied().max_by_key(|g| g.len());
    match longest {
        Some(_) => StallsRaw {
            longest,
            exact: parts.iter().all(|p| p.0.exact),
            events,
            zero_intervals: Vec::new(),
        },
        None => {
            let all_exact = parts.iter().all(|p| p.0.exact);
            // Every part's longest gap known: the shortest bounds the
            // whole's. A part with none (it never paused) leaves the
            // whole without a known gap, exact only when no part paused.
            let longests: Option<Vec<Gap>> = parts.iter().map(|p| p.0.longest).collect();
            let (longest, exact) = match longests {
                Some(v) if !v.is_empty() => (
                    v.into_iter().min_by_key(|g| g.len()),
                    parts.len() == 1 && all_exact,
                ),
                _ => (
                    None,
                    all_exact && parts.iter().all(|p| p.0.longest.is_none()),
                ),
            };
            StallsRaw {
                longest,
                exact,
                events,
                zero_intervals: Vec::new(),
            }
        }
    }
}

/// Indexes of measured intervals of `merged` with no completion that at
/// least one part also reported without one.
fn zero_intervals(merged: &[IntervalRaw], parts: &[&StallsRaw]) -> Vec<u32> {
    merged
        .iter()
        .filter(|iv| !iv.warmup && iv.ops.total_ops() == 0)
        .filter(|iv| parts.iter().any(|p| p.zero_intervals.contains(&iv.index)))
        .map(|iv| iv.index)
        .collect()
}

/// The span a workload was active over.
fn workload_span(w: &WorkloadRaw) -> Span {
    (w.start_ns, w.end_ns.max(w.start_ns))
}

/// The span a run was active over: its workloads', cut at its last
/// interval when it did not complete (a host lost part-way).
fn run_span(r: &RunRaw) -> Span {
    let lo = r.workloads.iter().map(|w| w.start_ns).min().unwrap_or(0);
    let mut hi = r.workloads.iter().map(|w| w.end_ns).max().unwrap_or(0);
    if let (false, Some(last)) = (r.complete, r.intervals.last()) {
        hi = hi.min(last.end_ns);
    }
    if r.workloads.is_empty() {
        hi = r.intervals.last().map_or(0, |iv| iv.end_ns);
    }
    (lo, hi.max(lo))
}

/// Counts per errno added, in errno order.
fn add_counts<'a>(lists: impl Iterator<Item = &'a [(i32, u64)]>) -> Vec<(i32, u64)> {
    let mut m: BTreeMap<i32, u64> = BTreeMap::new();
    for l in lists {
        for &(e, n) in l {
            *m.entry(e).or_default() += n;
        }
    }
    m.into_iter().collect()
}

fn merge_fs(parts: &[(&str, &WorkloadRaw)]) -> Option<FsRaw> {
    let mut out: Option<FsRaw> = None;
    for (label, w) in parts {
        let Some(fs) = &w.fs else { continue };
        let o = out.get_or_insert_with(|| FsRaw {
            backend: fs.backend.clone(),
            backend_reason: fs.backend_reason.clone(),
            cpu_sampled: true,
            ..Default::default()
        });
        o.counters.merge(&fs.counters);
        // Sampled only if every part sampled: the document divides the
        // CPU of all of them by one basis.
        o.cpu_sampled &= fs.cpu_sampled;
        for (op, c) in &fs.op_cpu {
            o.op_cpu.entry(*op).or_default().merge(*c);
        }
        for (op, l) in &fs.op_errors {
            let cur = o.op_errors.remove(op).unwrap_or_default();
            let both = add_counts([cur.as_slice(), l.as_slice()].into_iter());
            o.op_errors.insert(*op, both);
        }
        for f in &fs.filesets {
            let mut f = f.clone();
            f.anchor = named(label, &f.anchor);
            o.filesets.push(f);
        }
        for op in &fs.sync_ops {
            if !o.sync_ops.contains(op) {
                o.sync_ops.push(*op);
            }
        }
    }
    out
}

fn merge_verify(parts: &[(&str, &WorkloadRaw)]) -> Option<VerifyRunRaw> {
    let mut out: Option<VerifyRunRaw> = None;
    for (_, w) in parts {
        let Some(v) = &w.verify else { continue };
        match out.as_mut() {
            None => out = Some(v.clone()),
            Some(o) => {
                o.w.merge(v.w.clone());
                o.blocks_prefilled += v.blocks_prefilled;
                o.journal_reset_blocks += v.journal_reset_blocks;
                o.stopped_on_max_errors |= v.stopped_on_max_errors;
            }
        }
    }
    out
}

/// The steady-state check of the whole: reached when every part reached
/// it (at the latest part's time); the samples of the last window added
/// (aligned at their ends), the latency samples averaged.
fn merge_steady(parts: &[(&str, &WorkloadRaw)]) -> Option<SteadyRaw> {
    let all: Vec<&SteadyRaw> = parts
        .iter()
        .filter_map(|(_, w)| w.steady.as_ref())
        .collect();
    let first = *all.first()?;
    let n = all.iter().map(|s| s.samples_iops.len()).min().unwrap_or(0);
    let tail = |v: &[f64]| v[v.len().saturating_sub(n)..].to_vec();
    let sum = |f: fn(&SteadyRaw) -> &Vec<f64>| -> Vec<f64> {
        let mut out = vec![0.0; n];
        for s in &all {
            for (o, x) in out.iter_mut().zip(tail(f(s))) {
                *o += x;
            }
        }
        out
    };
    let lat: Vec<f64> = sum(|s| &s.samples_lat_ns)
        .into_iter()
        .map(|x| x / all.len() as f64)
        .collect();
    Some(SteadyRaw {
        reached: all.len() == parts.len() && all.iter().all(|s| s.reached),
        reached_at_ns: all.iter().map(|s| s.reached_at_ns).max().flatten(),
        value: all.iter().filter_map(|s| s.value).reduce(f64::max),
        samples_iops: sum(|s| &s.samples_iops),
        samples_bw: sum(|s| &s.samples_bw),
        samples_lat_ns: if first.samples_lat_ns.is_empty() {
            Vec::new()
        } else {
            lat
        },
        sample_s: first.sample_s,
    })
}

/// One workload measured in several places (`label` names each: a host),
/// as one: the first part's spec and settings, its requested rate the sum
/// of the parts' (none unless every part has one); targets and error records
/// named `LABEL:PATH`; counts, histograms and CPU added; intervals merged
/// by index; active from the earliest start to the latest end; measured
/// time the longest; complete only when every part completed (the
/// reasons prefixed by their label); notes every part shares as they
/// are, the others prefixed. `parts` must not be empty.
pub fn merge_workloads(parts: &[(&str, &WorkloadRaw)]) -> WorkloadRaw {
    let first = parts[0].1;
    let mut ops = crate::ops::OpStats::default();
    let mut cpu = CpuTime::default();
    let mut targets = Vec::new();
    let mut errors = Vec::new();
    for (label, w) in parts {
        ops.merge(&w.ops);
        cpu.merge(w.cpu);
        targets.extend(w.targets.iter().map(|t| TargetRaw {
            path: named(label, &t.path),
            ..t.clone()
        }));
        errors.extend(w.errors.iter().map(|e| IoErrorRec {
            target: named(label, &e.target),
            ..e.clone()
        }));
    }
    errors.sort_by_key(|e| e.time_ns);
    let intervals = crate::raw::merge_by_index(parts.iter().map(|(_, w)| w.intervals.as_slice()));
    let stall_parts: Vec<(&StallsRaw, Span)> = parts
        .iter()
        .map(|(_, w)| (&w.stalls, workload_span(w)))
        .collect();
    let threshold = (first.spec.stall_threshold_s * 1e9) as u64;
    let mut stalls = common_stalls(&stall_parts, threshold);
    let st: Vec<&StallsRaw> = parts.iter().map(|(_, w)| &w.stalls).collect();
    stalls.zero_intervals = zero_intervals(&intervals, &st);
    let (complete, incomplete_reason) = completion(
        parts
            .iter()
            .map(|(l, w)| (*l, w.complete, w.incomplete_reason.as_deref())),
    );
    WorkloadRaw {
        spec: iolab_spec::WorkloadSpec {
            rate_iops: parts.iter().map(|(_, w)| w.spec.rate_iops).sum(),
            ..first.spec.clone()
        },
        start_ns: parts.iter().map(|(_, w)| w.start_ns).min().unwrap_or(0),
        end_ns: parts.iter().map(|(_, w)| w.end_ns).max().unwrap_or(0),
        effective: first.effective.clone(),
        targets,
        started_at: parts
            .iter()
            .map(|(_, w)| w.started_at)
            .min()
            .unwrap_or(first.started_at),
        warmup_ns: parts.iter().map(|(_, w)| w.warmup_ns).max().unwrap_or(0),
        measured_ns: parts.iter().map(|(_, w)| w.measured_ns).max().unwrap_or(0),
        intervals,
        ops,
        fsyncs: parts.iter().map(|(_, w)| w.fsyncs).sum(),
        cpu,
        errors,
        errno_counts: add_counts(parts.iter().map(|(_, w)| w.errno_counts.as_slice())),
        errors_total: parts.iter().map(|(_, w)| w.errors_total).sum(),
        stalls,
        complete,
        incomplete_reason,
        notes: merge_notes(parts.iter().map(|(l, w)| (*l, w.notes.as_slice()))),
        verify: merge_verify(parts),
        fs: merge_fs(parts),
        steady: merge_steady(parts),
        ended_by: parts.iter().find_map(|(_, w)| w.ended_by.clone()),
    }
}

/// Complete when every part is; the reasons of the others, each
/// prefixed by its part's label, joined by `; `.
pub fn completion<'a>(
    parts: impl Iterator<Item = (&'a str, bool, Option<&'a str>)>,
) -> (bool, Option<String>) {
    let mut complete = true;
    let mut why = Vec::new();
    for (label, c, r) in parts {
        complete &= c;
        if let Some(r) = r {
            why.push(if label.is_empty() {
                r.to_string()
            } else {
                format!("{label}: {r}")
            });
        }
    }
    let why = (!why.is_empty()).then(|| why.join("; "));
    (complete, why)
}

/// Notes of several parts: a note every part has, once as it is; the
/// others prefixed `LABEL: `; in the order first seen.
pub fn merge_notes<'a>(parts: impl Iterator<Item = (&'a str, &'a [String])>) -> Vec<String> {
    let parts: Vec<(&str, &[String])> = parts.collect();
    let mut out: Vec<String> = Vec::new();
    for (label, notes) in &parts {
        for n in notes.iter() {
            let shared = parts.iter().all(|(_, o)| o.contains(n));
            let text = if shared || label.is_empty() {
                n.clone()
            } else {
                format!("{label}: {n}")
            };
            if !out.contains(&text) {
                out.push(text);
            }
        }
    }
    out
}

/// One run measured in several places as one run: workloads of the same
/// name merged with [`merge_workloads`] (in the order first seen), the
/// run's intervals merged by index, counts, histograms and CPU added,
/// events of every part (labels prefixed), the stalls no part completed
/// an I/O in. `parts` must not be empty.
pub fn merge_runs(parts: &[(&str, &RunRaw)]) -> RunRaw {
    let first = parts[0].1;
    let mut names: Vec<&str> = Vec::new();
    for (_, r) in parts {
        for w in &r.workloads {
            if !names.contains(&w.spec.name.as_str()) {
                names.push(&w.spec.name);
            }
        }
    }
    let workloads: Vec<WorkloadRaw> = names
        .iter()
        .map(|n| {
            let same: Vec<(&str, &WorkloadRaw)> = parts
                .iter()
                .flat_map(|(l, r)| r.workloads.iter().map(move |w| (*l, w)))
                .filter(|(_, w)| w.spec.name == *n)
                .collect();
            merge_workloads(&same)
        })
        .collect();
    let mut ops = crate::ops::OpStats::default();
    let mut cpu = CpuTime::default();
    let mut events = Vec::new();
    for (label, r) in parts {
        ops.merge(&r.ops);
        cpu.merge(r.cpu);
        events.extend(r.events.iter().map(|e| EventRaw {
            label: if label.is_empty() {
                e.label.clone()
            } else {
                format!("{label}: {}", e.label)
            },
            ..e.clone()
        }));
    }
    events.sort_by_key(|e| e.time_ns);
    let intervals = crate::raw::merge_by_index(parts.iter().map(|(_, r)| r.intervals.as_slice()));
    let threshold = workloads
        .iter()
        .map(|w| (w.spec.stall_threshold_s * 1e9) as u64)
        .min()
        .unwrap_or(0);
    let stall_parts: Vec<(&StallsRaw, Span)> = parts
        .iter()
        .map(|(_, r)| (&r.stalls, run_span(r)))
        .collect();
    let mut stalls = common_stalls(&stall_parts, threshold);
    let st: Vec<&StallsRaw> = parts.iter().map(|(_, r)| &r.stalls).collect();
    stalls.zero_intervals = zero_intervals(&intervals, &st);
    let (complete, incomplete_reason) = completion(
        parts
            .iter()
            .map(|(l, r)| (*l, r.complete, r.incomplete_reason.as_deref())),
    );
    RunRaw {
        name: first.name.clone(),
        started_at: parts
            .iter()
            .map(|(_, r)| r.started_at)
            .min()
            .unwrap_or(first.started_at),
        warmup_ns: parts.iter().map(|(_, r)| r.warmup_ns).max().unwrap_or(0),
        interval_ns: first.interval_ns,
        measured_ns: parts.iter().map(|(_, r)| r.measured_ns).max().unwrap_or(0),
        workloads,
        intervals,
        ops,
        fsyncs: parts.iter().map(|(_, r)| r.fsyncs).sum(),
        cpu,
        stalls,
        events,
        complete,
        incomplete_reason,
        notes: merge_notes(parts.iter().map(|(l, r)| (*l, r.notes.as_slice()))),
        exit_all: parts.iter().any(|(_, r)| r.exit_all),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(a: u64, b: u64) -> Gap {
        Gap {
            start_ns: a,
            end_ns: b,
        }
    }

    fn stalls(events: Vec<Gap>) -> StallsRaw {
        StallsRaw {
            longest: events.iter().copied().max_by_key(|g| g.len()),
            exact: true,
            events,
            zero_intervals: vec![],
        }
    }

    #[test]
    fn a_common_gap_is_where_every_running_part_paused() {
        // A paused 100-400, B 300-600: no time both paused is 100 long.
        let a = stalls(vec![g(100, 400)]);
        let b = stalls(vec![g(300, 600)]);
        let s = common_stalls(&[(&a, (0, 1000)), (&b, (0, 1000))], 150);
        assert!(s.events.is_empty());
        // An upper bound: the shorter of the two longest gaps.
        assert_eq!((s.longest, s.exact), (Some(g(100, 400)), false));
        let s = common_stalls(&[(&a, (0, 1000)), (&b, (0, 1000))], 50);
        assert_eq!(s.events, [g(300, 400)]);
        assert_eq!((s.longest, s.exact), (Some(g(300, 400)), true));
        // Parts that never paused: no gap, and that is exact.
        let none = stalls(vec![]);
        let s = common_stalls(&[(&none, (0, 1000)), (&none, (0, 1000))], 50);
        assert_eq!((s.longest, s.exact), (None, true));
        // B stopped running at 200 (a lost host): A's gap is the whole's.
        let b = stalls(vec![]);
        let s = common_stalls(&[(&a, (0, 1000)), (&b, (0, 200))], 50);
        assert_eq!(s.events, [g(200, 400)]);
    }

    #[test]
    fn notes_shared_once_and_the_others_prefixed() {
        let a = vec!["same".to_string(), "only a".to_string()];
        let b = vec!["same".to_string()];
        let n = merge_notes([("h1", a.as_slice()), ("h2", b.as_slice())].into_iter());
        assert_eq!(n, ["same", "h1: only a"]);
        let (c, why) = completion([("h1", true, None), ("h2", false, Some("lost"))].into_iter());
        assert_eq!((c, why.as_deref()), (false, Some("h2: lost")));
    }
}
