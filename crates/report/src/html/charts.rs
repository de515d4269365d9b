//! The charts of a result document, as model [`Chart`]s plus
//! [`ChartExtras`]: sweep curves from the points of a plan, response-time
//! curves (`curve`, vdbench `iorate=curve`), and per run
//! throughput, IOPS and latency over time, the latency percentile curve and
//! device utilisation over time.

use super::svg::{Band, BandKind, ChartExtras};
use crate::model::{Chart, HistogramData, Mark, ResultDoc, RunResult, Series};
use crate::tables::axis_names;
use iolab_spec::{parse_duration, parse_size};

/// A swept value as a number: a size (`16k`), a plain number, or a
/// duration in seconds (`500ms`). `None` for words (`randread`).
pub fn axis_number(v: &str) -> Option<f64> {
    if let Ok(n) = v.trim().parse::<f64>() {
        return Some(n);
    }
    if let Ok(b) = parse_size(v) {
        return Some(b as f64);
    }
    parse_duration(v).ok().map(|d| d.as_secs_f64())
}

/// What a swept parameter is called on an axis.
pub fn axis_title(name: &str) -> String {
    match name {
        "bs" => "block size (bs)".into(),
        "qd" => "outstanding I/Os per job (qd)".into(),
        "batch_complete" | "batch-complete" => "completions per refill (batch-complete)".into(),
        "jobs" => "jobs".into(),
        "rw" => "access pattern (rw)".into(),
        "read_pct" | "read-pct" => "reads, % (read-pct)".into(),
        other => other.to_string(),
    }
}

/// The swept parameter on the x axis: the fastest-varying one whose values
/// are all numbers, else the fastest-varying one; only parameters with more
/// than one value count.
fn x_axis(doc: &ResultDoc) -> Option<(String, Vec<String>)> {
    let plan = doc.plan.as_ref()?;
    let swept: Vec<&crate::model::Axis> = plan.axes.iter().filter(|a| a.values.len() > 1).collect();
    let numeric = swept
        .iter()
        .rev()
        .find(|a| a.values.iter().all(|v| axis_number(v).is_some()));
    let a = numeric.or(swept.last())?;
    Some((a.name.clone(), a.values.clone()))
}

/// For a sweep: IOPS, MB/s and p99 latency against the swept parameter, one
/// line per combination of the other swept parameters (and per workload
/// name when there are several), each point the mean over its repetitions
/// with a min-max bar when there were several.
pub fn sweep_charts(doc: &ResultDoc) -> Vec<(Chart, ChartExtras)> {
    let Some((xname, xvals)) = x_axis(doc) else {
        return Vec::new();
    };
    if doc.points.is_empty() {
        return Vec::new();
    }
    let axes = axis_names(doc);
    let others: Vec<&String> = axes.iter().filter(|a| **a != xname).collect();
    // The workload name tells lines apart only when it is not implied by
    // the swept values (`--rw read,write` names runs read-1 and write-1):
    // when two points with the same values have different names.
    let name_matters = doc.points.iter().any(|a| {
        doc.points
            .iter()
            .any(|b| a.params == b.params && a.name != b.name)
    });
    let numbers: Option<Vec<f64>> = xvals.iter().map(|v| axis_number(v)).collect();
    // x in numeric order when the values are numbers, else as given.
    let mut order: Vec<usize> = (0..xvals.len()).collect();
    if let Some(n) = &numbers {
        order.sort_by(|a, b| n[*a].total_cmp(&n[*b]));
    }
    let x: Vec<String> = order.iter().map(|&i| xvals[i].clone()).collect();
    let x_values: Vec<f64> = numbers
        .as_ref()
        .map(|n| order.iter().map(|&i| n[i]).collect())
        .unwrap_or_default();
    let log_x = match &numbers {
        Some(n) => {
            let mn = n.iter().copied().fold(f64::INFINITY, f64::min);
            let mx = n.iter().copied().fold(0.0, f64::max);
            mn > 0.0 && mx / mn >= 8.0
        }
        None => false,
    };

    // Series keys in order of first appearance.
    let key = |p: &crate::model::PointSummary| -> String {
        let mut parts: Vec<String> = Vec::new();
        if name_matters {
            parts.push(p.name.clone());
        }
        for a in &others {
            if let Some(v) = p.params.get(*a) {
                parts.push(format!("{a}={v}"));
            }
        }
        parts.join(" ")
    };
    let mut keys: Vec<String> = Vec::new();
    for p in &doc.points {
        let k = key(p);
        if !keys.contains(&k) {
            keys.push(k);
        }
    }

    type Pick = fn(&crate::model::PointSummary) -> &crate::model::Spread;
    let metrics: [(&str, &str, Pick); 3] = [
        ("IOPS", "IOPS", |p| &p.iops),
        ("MB/s", "MB/s", |p| &p.mbps),
        ("p99 latency", "p99 latency, us", |p| &p.lat_p99_us),
    ];
    let mut out = Vec::new();
    for (title, ylabel, pick) in metrics {
        let mut series = Vec::new();
        let mut errors = Vec::new();
        for k in &keys {
            let mut values = vec![None; x.len()];
            let mut err = vec![None; x.len()];
            for p in doc.points.iter().filter(|p| key(p) == *k) {
                let Some(xi) = p
                    .params
                    .get(&xname)
                    .and_then(|v| x.iter().position(|l| l == v))
                else {
                    continue;
                };
                let s = pick(p);
                if s.n == 0 {
                    continue;
                }
                values[xi] = Some(s.mean);
                if s.n > 1 {
                    err[xi] = Some((s.min, s.max));
                }
            }
            series.push(Series {
                name: if k.is_empty() {
                    String::new()
                } else {
                    k.clone()
                },
                values,
            });
            errors.push(err);
        }
        let repeats = errors.iter().flatten().any(|e| e.is_some());
        out.push((
            Chart {
                kind: "line".into(),
                title: format!(
                    "{title} by {xname}{}",
                    if repeats {
                        " (mean; bars: min to max)"
                    } else {
                        ""
                    }
                ),
                x_label: axis_title(&xname),
                y_label: ylabel.into(),
                log_x,
                x: x.clone(),
                x_values: x_values.clone(),
                series,
                marks: Vec::new(),
            },
            ChartExtras {
                errors,
                ..Default::default()
            },
        ));
    }
    out
}

/// One chart per response-time curve (runs with `curve`, grouped by their
/// maximum's point): the mean response time against the IOPS achieved,
/// a point per run of the curve (the maximum's too), in IOPS order. A
/// curve of fewer than two runs that measured something draws nothing.
pub fn curve_charts(doc: &ResultDoc) -> Vec<(Chart, ChartExtras)> {
    let mut curves: Vec<(u32, Vec<&RunResult>)> = Vec::new();
    for r in &doc.runs {
        let Some(c) = &r.curve else { continue };
        if r.summary.total.ops == 0 {
            continue;
        }
        match curves.iter_mut().find(|(p, _)| *p == c.max_point) {
            Some((_, v)) => v.push(r),
            None => curves.push((c.max_point, vec![r])),
        }
    }
    let mut out = Vec::new();
    for (_, mut runs) in curves.into_iter().filter(|(_, v)| v.len() > 1) {
        runs.sort_by(|a, b| a.summary.total.iops.total_cmp(&b.summary.total.iops));
        let name = runs[0]
            .curve
            .as_ref()
            .map(|c| c.name.clone())
            .unwrap_or_default();
        let label = |r: &RunResult| {
            let c = r.curve.as_ref();
            match c.and_then(|c| c.pct) {
                Some(p) => format!("{}%", iolab_spec::curve::pct_text(p)),
                None => "max".into(),
            }
        };
        let chart = Chart {
            kind: "line".into(),
            title: format!("Response-time curve: {name}"),
            x_label: "IOPS achieved".into(),
            y_label: "mean response time, ms".into(),
            log_x: false,
            x: runs.iter().map(|r| label(r)).collect(),
            x_values: runs.iter().map(|r| r.summary.total.iops).collect(),
            series: vec![Series {
                name: "mean response time".into(),
                values: runs
                    .iter()
                    .map(|r| Some(r.summary.total.lat_us.mean / 1e3))
                    .collect(),
            }],
            marks: Vec::new(),
        };
        // Round IOPS on the x axis: the points are wherever they landed.
        let ex = ChartExtras {
            nice_x: true,
            ..Default::default()
        };
        out.push((chart, ex));
    }
    out
}

/// Without a plan but with several runs: IOPS and MB/s per run as bars.
pub fn runs_bar_charts(doc: &ResultDoc) -> Vec<(Chart, ChartExtras)> {
    if doc.plan.is_some() || doc.runs.len() < 2 {
        return Vec::new();
    }
    let x: Vec<String> = doc.runs.iter().map(|r| r.name.clone()).collect();
    let bar = |title: &str, y: &str, f: fn(&RunResult) -> f64| Chart {
        kind: "bar".into(),
        title: title.into(),
        x_label: "run".into(),
        y_label: y.into(),
        log_x: false,
        x: x.clone(),
        x_values: Vec::new(),
        series: vec![Series {
            name: String::new(),
            values: doc.runs.iter().map(|r| Some(f(r))).collect(),
        }],
        marks: Vec::new(),
    };
    vec![
        (
            bar("IOPS per run", "IOPS", |r| r.summary.total.iops),
            ChartExtras::default(),
        ),
        (
            bar("MB/s per run", "MB/s", |r| r.summary.total.mbps),
            ChartExtras::default(),
        ),
    ]
}

/// Stalls, intervals without a completion and warm-up as shaded ranges.
fn run_bands(run: &RunResult) -> Vec<Band> {
    let mut b = Vec::new();
    for iv in run.intervals.iter().filter(|iv| iv.warmup) {
        b.push(Band {
            from: iv.start_s,
            to: iv.end_s,
            kind: BandKind::Warmup,
        });
    }
    for e in &run.stalls.events {
        b.push(Band {
            from: e.start_s,
            to: e.end_s,
            kind: BandKind::Stall,
        });
    }
    for z in &run.stalls.zero_intervals {
        if let Some(iv) = run.intervals.iter().find(|iv| iv.index == *z) {
            b.push(Band {
                from: iv.start_s,
                to: iv.end_s,
                kind: BandKind::Stall,
            });
        }
    }
    b
}

/// The run's events as marks on a time axis: a labelled vertical line at
/// each event's time, within the charted range.
fn event_marks(run: &RunResult, lo: f64, hi: f64) -> Vec<Mark> {
    run.events
        .iter()
        .filter(|e| e.time_s >= lo && e.time_s <= hi)
        .map(|e| Mark {
            x: format!("{}", e.time_s),
            label: format!("{}: {}", e.source, e.label),
        })
        .collect()
}

/// Throughput (MB/s), IOPS and latency (mean and p99) over time, with
/// stalls and warm-up shaded and events as labelled vertical lines. Reads
/// and writes get their own line when the run did both; a run of several
/// workloads gets a line per workload and one for the total instead.
pub fn time_charts(run: &RunResult) -> Vec<(Chart, ChartExtras)> {
    if run.intervals.is_empty() {
        return Vec::new();
    }
    if run.workloads.len() > 1 {
        return workload_time_charts(run);
    }
    let ivs = &run.intervals;
    let (x, x_values, lo, hi) = time_axis(run);
    let extras = || ChartExtras {
        bands: run_bands(run),
        x_domain: Some((lo, hi)),
        nice_x: true,
        ..Default::default()
    };
    let mixed = run.summary.read.ops > 0 && run.summary.write.ops > 0;
    let total = total_series_name(run);
    let line = |title: &str, y: &str, series: Vec<Series>| Chart {
        kind: "line".into(),
        title: title.into(),
        x_label: "time, s".into(),
        y_label: y.into(),
        log_x: false,
        x: x.clone(),
        x_values: x_values.clone(),
        series,
        marks: event_marks(run, lo, hi),
    };
    let dirs = |f: fn(&crate::model::DirResult) -> f64| -> Vec<Series> {
        let mut v = vec![Series {
            name: total.into(),
            values: ivs.iter().map(|iv| Some(f(&iv.total))).collect(),
        }];
        if mixed {
            v.push(Series {
                name: "read".into(),
                values: ivs.iter().map(|iv| Some(f(&iv.read))).collect(),
            });
            v.push(Series {
                name: "write".into(),
                values: ivs.iter().map(|iv| Some(f(&iv.write))).collect(),
            });
        }
        v
    };
    // Latency of an interval without completions is unknown, not zero.
    let lat = |f: fn(&crate::model::DirResult) -> f64| -> Vec<Option<f64>> {
        ivs.iter()
            .map(|iv| (iv.total.ops > 0).then(|| f(&iv.total)))
            .collect()
    };
    vec![
        (
            line("Throughput over time", "MB/s", dirs(|d| d.mbps)),
            extras(),
        ),
        (line("IOPS over time", "IOPS", dirs(|d| d.iops)), extras()),
        (
            line(
                "Latency over time",
                "latency, us",
                vec![
                    Series {
                        name: "mean".into(),
                        values: lat(|d| d.lat_us.mean),
                    },
                    Series {
                        name: "p99".into(),
                        values: lat(|d| d.lat_us.p99),
                    },
                ],
            ),
            extras(),
        ),
    ]
}

/// The name of a one-workload run's line of every operation: `all
/// operations` for a file-system workload (a mix of reads, appends,
/// creates and deletes has no direction of its own), `read` or `write`
/// for a block workload that did only that, else `total` (beside its
/// `read` and `write` lines). Named so the tooltip and the legend say
/// what the line is.
fn total_series_name(run: &RunResult) -> &'static str {
    let (reads, writes) = (run.summary.read.ops > 0, run.summary.write.ops > 0);
    if run.workloads.iter().any(|w| w.io_summary.is_some()) {
        "all operations"
    } else if reads && !writes {
        "read"
    } else if writes && !reads {
        "write"
    } else {
        "total"
    }
}

/// The time axis of a run's charts: x labels, x positions (interval
/// midpoints) and the range shown.
fn time_axis(run: &RunResult) -> (Vec<String>, Vec<f64>, f64, f64) {
    let ivs = &run.intervals;
    let x_values: Vec<f64> = ivs.iter().map(|iv| (iv.start_s + iv.end_s) / 2.0).collect();
    let x: Vec<String> = ivs.iter().map(|iv| format!("{:.2} s", iv.end_s)).collect();
    let lo = ivs.first().map_or(0.0, |iv| iv.start_s.min(0.0));
    let hi = ivs
        .iter()
        .map(|iv| iv.end_s)
        .fold(0.0, f64::max)
        .max(lo + 1e-3);
    (x, x_values, lo, hi)
}

/// The charts over time of a run of several workloads: throughput, IOPS
/// and p99 latency, each with a line per workload (null where it was not
/// running) and the total.
fn workload_time_charts(run: &RunResult) -> Vec<(Chart, ChartExtras)> {
    let ivs = &run.intervals;
    let (x, x_values, lo, hi) = time_axis(run);
    let extras = || ChartExtras {
        bands: run_bands(run),
        x_domain: Some((lo, hi)),
        nice_x: true,
        ..Default::default()
    };
    type Pick = fn(&crate::model::Interval) -> Option<f64>;
    let series = |f: Pick| -> Vec<Series> {
        let mut v: Vec<Series> = run
            .workloads
            .iter()
            .map(|w| Series {
                name: w.name.clone(),
                values: ivs
                    .iter()
                    .map(|iv| w.intervals.iter().find(|x| x.index == iv.index).and_then(f))
                    .collect(),
            })
            .collect();
        v.push(Series {
            name: "total".into(),
            values: ivs.iter().map(f).collect(),
        });
        v
    };
    let chart = |title: &str, y: &str, f: Pick| Chart {
        kind: "line".into(),
        title: title.into(),
        x_label: "time, s".into(),
        y_label: y.into(),
        log_x: false,
        x: x.clone(),
        x_values: x_values.clone(),
        series: series(f),
        marks: event_marks(run, lo, hi),
    };
    vec![
        (
            chart("Throughput over time, per workload", "MB/s", |iv| {
                Some(iv.total.mbps)
            }),
            extras(),
        ),
        (
            chart("IOPS over time, per workload", "IOPS", |iv| {
                Some(iv.total.iops)
            }),
            extras(),
        ),
        (
            // Latency of an interval without completions is unknown.
            chart("p99 latency over time, per workload", "latency, us", |iv| {
                (iv.total.ops > 0).then_some(iv.total.lat_us.p99)
            }),
            extras(),
        ),
    ]
}

/// A multi-host run's throughput and IOPS over time: a line per host
/// (its own interval of each index; null where it sent none, as after
/// its loss) and the total, with each lost host's loss as a mark.
pub fn host_time_charts(run: &RunResult) -> Vec<(Chart, ChartExtras)> {
    if run.hosts.is_empty() || run.intervals.is_empty() {
        return Vec::new();
    }
    let ivs = &run.intervals;
    let (x, x_values, lo, hi) = time_axis(run);
    let mut marks = event_marks(run, lo, hi);
    for h in &run.hosts {
        if let Some(l) = &h.lost {
            marks.push(Mark {
                x: format!("{}", l.at_s),
                label: format!("{} lost", h.host),
            });
        }
    }
    type Pick = fn(&crate::model::DirResult) -> f64;
    let series = |f: Pick| -> Vec<Series> {
        let mut v: Vec<Series> = run
            .hosts
            .iter()
            .map(|h| {
                // By index: a damaged document may hold many intervals.
                let own: std::collections::HashMap<u32, &crate::model::Interval> =
                    h.run.intervals.iter().map(|x| (x.index, x)).collect();
                Series {
                    name: h.host.clone(),
                    values: ivs
                        .iter()
                        .map(|iv| own.get(&iv.index).map(|x| f(&x.total)))
                        .collect(),
                }
            })
            .collect();
        v.push(Series {
            name: "total".into(),
            values: ivs.iter().map(|iv| Some(f(&iv.total))).collect(),
        });
        v
    };
    let chart = |title: &str, y: &str, f: Pick| {
        let c = Chart {
            kind: "line".into(),
            title: title.into(),
            x_label: "time, s".into(),
            y_label: y.into(),
            log_x: false,
            x: x.clone(),
            x_values: x_values.clone(),
            series: series(f),
            marks: marks.clone(),
        };
        let ex = ChartExtras {
            bands: run_bands(run),
            x_domain: Some((lo, hi)),
            nice_x: true,
            ..Default::default()
        };
        (c, ex)
    };
    vec![
        chart("Throughput over time, per host", "MB/s", |d| d.mbps),
        chart("IOPS over time, per host", "IOPS", |d| d.iops),
    ]
}

/// The values counted in a histogram. Saturating: a damaged or hostile
/// document may hold counts that add up past u64::MAX.
fn bucket_total(h: &HistogramData) -> u64 {
    h.buckets.iter().fold(0u64, |n, b| n.saturating_add(b.1))
}

/// The smallest bucket value (ns) at or above which `pct` percent of the
/// histogram's values lie below or at.
pub fn percentile_ns(h: &HistogramData, pct: f64) -> Option<u64> {
    let total = bucket_total(h);
    if total == 0 {
        return None;
    }
    let mut b = h.buckets.clone();
    b.sort_by_key(|x| x.0);
    let rank = ((pct / 100.0) * total as f64).ceil().max(1.0) as u64;
    let mut cum = 0;
    for (v, c) in b {
        cum = c.saturating_add(cum);
        if cum >= rank {
            return Some(v);
        }
    }
    Some(h.max_ns)
}

/// The latency percentile curve from the run's histograms: latency (log
/// scale) against the percentile on a "nines" axis (50, 90, 99, 99.9 ...
/// equally spaced), up to the last percentile the sample size supports,
/// plus the maximum.
pub fn percentile_chart(run: &RunResult) -> Option<(Chart, ChartExtras)> {
    let hs = [
        ("read", &run.latency_histograms.read),
        ("write", &run.latency_histograms.write),
    ];
    let counts: Vec<u64> = hs.iter().map(|(_, h)| bucket_total(h)).collect();
    let n_max = *counts.iter().max()?;
    if n_max == 0 {
        return None;
    }
    // nines = -log10(1 - p/100): 0.301 at p50, 1 at p90, 2 at p99.
    let top = (n_max as f64).log10().clamp(1.0, 6.0);
    let mut nines: Vec<f64> = vec![2f64.log10()]; // p50
    let mut k = 4; // then p60 (0.4 nines), in tenths of a nine
    while (k as f64) / 10.0 <= top + 1e-9 {
        nines.push(k as f64 / 10.0);
        k += 1;
    }
    let pct = |n: f64| 100.0 * (1.0 - 10f64.powf(-n));
    // The maximum goes half a nine past the last percentile.
    let xmax = nines.last().copied().unwrap_or(1.0) + 0.5;
    let mut x: Vec<String> = nines
        .iter()
        .map(|n| format!("p{}", crate::tables::fmt_num(pct(*n))))
        .collect();
    x.push("max".into());
    let mut x_values = nines.clone();
    x_values.push(xmax);
    let mut series = Vec::new();
    for ((name, h), n) in hs.iter().zip(&counts) {
        if *n == 0 {
            continue;
        }
        let ntop = (*n as f64).log10();
        let mut values: Vec<Option<f64>> = nines
            .iter()
            .map(|k| {
                if *k > ntop + 1e-9 {
                    None
                } else {
                    percentile_ns(h, pct(*k)).map(|v| v as f64 / 1000.0)
                }
            })
            .collect();
        values.push(Some(h.max_ns as f64 / 1000.0));
        series.push(Series {
            name: name.to_string(),
            values,
        });
    }
    let mut ticks = Vec::new();
    for (n, label) in [
        (std::f64::consts::LOG10_2, "50%"),
        (1.0, "90%"),
        (2.0, "99%"),
        (3.0, "99.9%"),
        (4.0, "99.99%"),
        (5.0, "99.999%"),
        (6.0, "99.9999%"),
    ] {
        if n <= top + 1e-9 {
            ticks.push((n, label.to_string()));
        }
    }
    ticks.push((xmax, "max".into()));
    Some((
        Chart {
            kind: "line".into(),
            title: "Latency percentiles".into(),
            x_label: "percentile".into(),
            y_label: "latency, us (log scale)".into(),
            log_x: false,
            x,
            x_values,
            series,
            marks: Vec::new(),
        },
        ChartExtras {
            log_y: true,
            x_domain: Some((0.2, xmax + 0.15)),
            x_ticks: Some(ticks),
            ..Default::default()
        },
    ))
}

/// %util and aqu-sz of each device over time, with the run's bands.
pub fn device_charts(run: &RunResult) -> Vec<(Chart, ChartExtras)> {
    let Some(d) = &run.devices else {
        return Vec::new();
    };
    if d.intervals.is_empty() {
        return Vec::new();
    }
    let mut devices: Vec<String> = Vec::new();
    for iv in &d.intervals {
        for r in &iv.rows {
            if !devices.contains(&r.device) {
                devices.push(r.device.clone());
            }
        }
    }
    if devices.is_empty() {
        return Vec::new();
    }
    let times: Vec<(f64, f64)> = d
        .intervals
        .iter()
        .map(|di| {
            run.intervals
                .iter()
                .find(|iv| iv.index == di.index)
                .map_or((f64::NAN, f64::NAN), |iv| (iv.start_s, iv.end_s))
        })
        .collect();
    let keep: Vec<usize> = (0..times.len())
        .filter(|i| times[*i].0.is_finite())
        .collect();
    if keep.is_empty() {
        return Vec::new();
    }
    let x_values: Vec<f64> = keep
        .iter()
        .map(|&i| (times[i].0 + times[i].1) / 2.0)
        .collect();
    let x: Vec<String> = keep
        .iter()
        .map(|&i| format!("{:.2} s", times[i].1))
        .collect();
    let lo = keep.iter().map(|&i| times[i].0).fold(0.0, f64::min);
    let hi = keep.iter().map(|&i| times[i].1).fold(lo + 1e-3, f64::max);
    let chart =
        |title: &str, y: &str, f: fn(&iolab_devices::IostatRow) -> f64| -> (Chart, ChartExtras) {
            let series = devices
                .iter()
                .map(|dev| Series {
                    name: dev.clone(),
                    values: keep
                        .iter()
                        .map(|&i| {
                            d.intervals[i]
                                .rows
                                .iter()
                                .find(|r| r.device == *dev)
                                .map(|r| f(&r.stats))
                        })
                        .collect(),
                })
                .collect();
            (
                Chart {
                    kind: "line".into(),
                    title: title.into(),
                    x_label: "time, s".into(),
                    y_label: y.into(),
                    log_x: false,
                    x: x.clone(),
                    x_values: x_values.clone(),
                    series,
                    marks: Vec::new(),
                },
                ChartExtras {
                    bands: run_bands(run),
                    x_domain: Some((lo, hi)),
                    nice_x: true,
                    ..Default::default()
                },
            )
        };
    vec![
        chart("Device utilisation over time", "%util", |s| s.util_pct),
        chart(
            "Device queue over time",
            "aqu-sz (requests in flight)",
            |s| s.aqu_sz,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testraw;

    /// Two curves of one document: a chart each, its points in IOPS
    /// order, the mean response time in ms; a run of no curve is left out.
    #[test]
    fn a_chart_per_curve_of_response_time_against_iops() {
        use crate::study::testing::{run, spec};
        let mut doc = crate::model::ResultDoc::new();
        let curve = |max_point: u32, pct: Option<f64>, iops: f64, p99: f64| {
            let mut r = run(spec("w"), iops, 1.0, p99);
            r.curve = Some(crate::model::CurveRecord {
                name: format!("c{max_point}"),
                role: if pct.is_some() { "pct" } else { "max" }.into(),
                pct,
                max_point,
                ..Default::default()
            });
            r
        };
        doc.runs = vec![
            curve(0, None, 1000.0, 400.0),
            curve(0, Some(10.0), 100.0, 200.0),
            curve(0, Some(50.0), 500.0, 3000.0),
            run(spec("plain"), 7.0, 1.0, 1.0),
            curve(3, None, 2000.0, 100.0),
            curve(3, Some(50.0), 1000.0, 100.0),
        ];
        let charts = curve_charts(&doc);
        assert_eq!(charts.len(), 2);
        let (c, _) = &charts[0];
        assert_eq!(c.title, "Response-time curve: c0");
        assert_eq!(c.x_values, [100.0, 500.0, 1000.0]);
        assert_eq!(c.x, ["10%", "50%", "max"]);
        // The helper's mean is half its p99, in µs: 0.1, 1.5 and 0.2 ms.
        assert_eq!(c.series[0].values, [Some(0.1), Some(1.5), Some(0.2)]);
        assert_eq!(charts[1].0.x_values, [1000.0, 2000.0]);
        doc.plan = Some(Default::default());
        let html = crate::html::document_report(&doc);
        assert!(html.contains("Response-time curve: c3"));
        assert!(html.contains("Curve c0: the run at the maximum rate"));
    }

    #[test]
    fn a_run_of_two_workloads_charts_each_and_the_total_with_its_marks() {
        let r = crate::build_run(&testraw::two_workloads());
        let charts = time_charts(&r);
        assert_eq!(charts.len(), 3);
        for (c, _) in &charts {
            let names: Vec<&str> = c.series.iter().map(|s| s.name.as_str()).collect();
            assert_eq!(names, ["reader", "writer", "total"], "{}", c.title);
            assert_eq!(c.marks.len(), 1);
            assert_eq!(c.marks[0].label, "mark: controller A failed");
            assert_eq!(c.marks[0].x.parse::<f64>().unwrap(), 1.5);
        }
        let (iops, _) = &charts[1];
        // The writer ran in interval 1 only: no point before or after.
        assert_eq!(iops.series[1].values, [None, Some(50.0), None]);
        assert_eq!(
            iops.series[2].values,
            [Some(100.0), Some(150.0), Some(100.0)]
        );
        // Drawn: a line per series and the mark's dashed line and label.
        let svg = super::super::svg::render(&charts[0].0, &charts[0].1);
        assert_eq!(svg.matches("class=\"series\"").count(), 3, "{svg}");
        assert!(svg.contains("class=\"mark\""));
        assert!(svg.contains("mark: controller A failed"));
        let html = crate::html::document_report(&crate::ResultDoc {
            runs: vec![r.clone()],
            ..Default::default()
        });
        assert!(html.contains("Workloads of pair"), "no workloads table");
        assert!(
            html.contains("0.4 s after mark &#39;controller A failed&#39;")
                || html.contains("0.4 s after mark 'controller A failed'")
        );
        for c in &crate::tables::workloads_table(&r).columns {
            assert!(crate::tables::column_has_unit(c, &[]), "{c}");
        }
    }

    /// Regression: a mix of appends, reads, creates and deletes drew its
    /// throughput and IOPS with an unnamed line (tooltip " at 0.51 s").
    #[test]
    fn every_line_over_time_has_a_name() {
        let fs = crate::build_run(&iolab_raw::RunRaw::single(testraw::fs_workload("fs")));
        let rd = crate::build_run(&iolab_raw::RunRaw::single(testraw::workload(
            "r",
            "read",
            vec![(0, testraw::ops(iolab_raw::Op::Read, 10, 1000))],
        )));
        for (r, want) in [(&fs, "all operations"), (&rd, "read")] {
            let charts = time_charts(r);
            assert_eq!(charts.len(), 3);
            for (c, ex) in &charts {
                assert!(c.series.iter().all(|s| !s.name.is_empty()), "{}", c.title);
                let svg = super::super::svg::render(c, ex);
                assert!(!svg.contains("<title> at "), "{svg}");
            }
            assert_eq!(charts[0].0.series[0].name, want);
            assert_eq!(charts[1].0.series[0].name, want);
        }
    }

    #[test]
    fn a_monitor_run_charts_its_events_and_reports_without_a_workload() {
        let r = crate::build_run(&testraw::monitor());
        let html = crate::html::document_report(&crate::ResultDoc {
            runs: vec![r],
            ..Default::default()
        });
        assert!(html.contains("No workload: the devices were monitored only."));
        assert!(html.contains("signal: cable pulled"));
    }

    #[test]
    fn axis_values_as_numbers() {
        assert_eq!(axis_number("16k"), Some(16384.0));
        assert_eq!(axis_number("4"), Some(4.0));
        assert_eq!(axis_number("0.5"), Some(0.5));
        assert_eq!(axis_number("500ms"), Some(0.5));
        assert_eq!(axis_number("randread"), None);
    }

    #[test]
    fn percentiles_from_buckets() {
        let h = HistogramData {
            buckets: vec![(3000, 1), (1000, 98), (2000, 1)],
            max_ns: 3100,
            ..Default::default()
        };
        assert_eq!(percentile_ns(&h, 50.0), Some(1000));
        assert_eq!(percentile_ns(&h, 98.0), Some(1000));
        assert_eq!(percentile_ns(&h, 99.0), Some(2000));
        assert_eq!(percentile_ns(&h, 100.0), Some(3000));
        assert_eq!(percentile_ns(&HistogramData::default(), 50.0), None);
    }

    /// Found by the fuzz pass: a result document whose histogram counts
    /// add up past u64::MAX made the HTML report overflow (a panic in
    /// debug builds) summing them.
    #[test]
    fn histogram_counts_past_u64_max_do_not_overflow() {
        let h = HistogramData {
            buckets: vec![(1000, u64::MAX), (2000, u64::MAX)],
            max_ns: 2000,
            ..Default::default()
        };
        assert_eq!(percentile_ns(&h, 50.0), Some(1000));
        assert!(percentile_ns(&h, 100.0).is_some());
        let mut run = crate::study::testing::run(crate::study::testing::spec("r"), 1.0, 1.0, 1.0);
        run.latency_histograms.read = h;
        assert!(percentile_chart(&run).is_some());
    }
}
