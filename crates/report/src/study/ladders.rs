//! bs-ladder (where sequential MB/s flattens) and qd-ladder (the knee of
//! IOPS against latency).

use super::{bs_of, cell, fig, groups, mean_of, opt_cell, short_size, trim_num, P99Bound};
use super::{SpreadNote, SEQ_READ, SEQ_WRITE};
use crate::model::{Chart, Mark, RunResult, Series, StudyResult, Table};
use serde_json::Value;

/// Where a rising curve flattens: the smallest index after which every
/// step to the next point adds less than `flat_pct` percent. `None` when
/// the last step still adds that much (or there are fewer than two
/// points): the curve has not flattened within the ladder.
pub fn flatten_index(ys: &[f64], flat_pct: f64) -> Option<usize> {
    if ys.len() < 2 {
        return None;
    }
    let rises = |j: usize| ys[j] >= ys[j - 1] * (1.0 + flat_pct / 100.0);
    let last_rise = (1..ys.len()).rev().find(|&j| rises(j));
    match last_rise {
        None => Some(0),
        Some(j) if j == ys.len() - 1 => None,
        Some(j) => Some(j),
    }
}

/// The knee: of the points whose p99 is within `bound_us`, the one with
/// the most IOPS (the earlier one on a tie). `None` when no point is.
pub fn knee_index(iops: &[f64], p99_us: &[f64], bound_us: f64) -> Option<usize> {
    let mut best: Option<usize> = None;
    for i in 0..iops.len().min(p99_us.len()) {
        if p99_us[i] <= bound_us && best.is_none_or(|b| iops[i] > iops[b]) {
            best = Some(i);
        }
    }
    best
}

fn gain_pct(prev: Option<f64>, cur: Option<f64>) -> Option<f64> {
    match (prev, cur) {
        (Some(p), Some(c)) if p > 0.0 => Some(100.0 * (c / p - 1.0)),
        _ => None,
    }
}

pub(super) fn bs_ladder(runs: &[RunResult], flat_pct: f64, r: &mut StudyResult) -> Vec<SpreadNote> {
    let mut notes = Vec::new();
    let dirs = [(SEQ_READ, "read"), (SEQ_WRITE, "write")];
    let mut sizes: Vec<u64> = Vec::new();
    // Per direction: (bs, mean MB/s).
    let mut per_dir: Vec<Vec<(u64, f64)>> = Vec::new();
    for (name, _) in dirs {
        let g = groups(runs, |r| (r.name == name).then(|| bs_of(r)));
        let mut pts = Vec::new();
        for (bs, rs) in g {
            let (m, n, cv) = mean_of(&rs, |r| r.summary.total.mbps);
            notes.push((format!("{name} {}", short_size(bs)), n, cv));
            pts.push((bs, m));
            if !sizes.contains(&bs) {
                sizes.push(bs);
            }
        }
        pts.sort_by_key(|p| p.0);
        per_dir.push(pts);
    }
    sizes.sort_unstable();
    let at = |d: usize, bs: u64| per_dir[d].iter().find(|p| p.0 == bs).map(|p| p.1);
    let mut table = Table {
        title: "Sequential MB/s by block size (gain: over the next smaller size)".into(),
        columns: vec![
            "block size".into(),
            "read MB/s".into(),
            "read gain %".into(),
            "write MB/s".into(),
            "write gain %".into(),
        ],
        rows: Vec::new(),
    };
    for (i, &bs) in sizes.iter().enumerate() {
        let mut row = vec![Value::from(short_size(bs))];
        for d in 0..2 {
            let cur = at(d, bs);
            let prev = i.checked_sub(1).and_then(|p| at(d, sizes[p]));
            row.push(opt_cell(cur, 1));
            row.push(opt_cell(gain_pct(prev, cur), 1));
        }
        table.rows.push(row);
    }
    let mut chart = Chart {
        kind: "line".into(),
        title: "Sequential MB/s by block size".into(),
        x_label: "block size".into(),
        y_label: "MB/s".into(),
        log_x: true,
        x: sizes.iter().map(|&b| short_size(b)).collect(),
        x_values: sizes.iter().map(|&b| b as f64).collect(),
        ..Default::default()
    };
    for (d, (_, word)) in dirs.iter().enumerate() {
        let pts = &per_dir[d];
        if pts.is_empty() {
            continue;
        }
        chart.series.push(Series {
            name: word.to_string(),
            values: sizes.iter().map(|&b| at(d, b)).collect(),
        });
        let ys: Vec<f64> = pts.iter().map(|p| p.1).collect();
        let (peak_bs, peak) =
            pts.iter()
                .copied()
                .fold((0, f64::MIN), |a, p| if p.1 > a.1 { p } else { a });
        r.figures.insert(format!("peak_mbps_{word}"), peak);
        r.figures.insert(format!("peak_bs_{word}"), peak_bs as f64);
        let what = format!("Sequential {word}");
        match flatten_index(&ys, flat_pct) {
            Some(i) => {
                let bs = pts[i].0;
                r.figures.insert(format!("flatten_bs_{word}"), bs as f64);
                chart.marks.push(Mark {
                    x: short_size(bs),
                    label: format!("{word} flattens"),
                });
                let beyond = if i + 1 < pts.len() {
                    format!(
                        "each larger size adds less than {} % (peak {} MB/s at {})",
                        trim_num(flat_pct),
                        fig(peak),
                        short_size(peak_bs)
                    )
                } else {
                    "no larger size was run".into()
                };
                r.conclusions.push(format!(
                    "{what} flattens at {}: {} MB/s; {beyond}.",
                    short_size(bs),
                    fig(pts[i].1)
                ));
            }
            None if pts.len() < 2 => r.conclusions.push(format!(
                "{what}: {} MB/s at {}; one size is not a curve.",
                fig(pts[0].1),
                short_size(pts[0].0)
            )),
            None => {
                let n = pts.len();
                r.conclusions.push(format!(
                    "{what} is still rising at {} ({} MB/s, +{:.0} % over {}): larger blocks may help.",
                    short_size(pts[n - 1].0),
                    fig(pts[n - 1].1),
                    gain_pct(Some(pts[n - 2].1), Some(pts[n - 1].1)).unwrap_or(0.0),
                    short_size(pts[n - 2].0)
                ));
            }
        }
    }
    r.tables.push(table);
    r.charts.push(chart);
    notes
}

pub(super) fn qd_ladder(
    runs: &[RunResult],
    bound: P99Bound,
    r: &mut StudyResult,
) -> Vec<SpreadNote> {
    let mut notes = Vec::new();
    let mut g = groups(runs, |r| r.spec.as_ref().map(|s| s.qd * s.jobs));
    g.sort_by_key(|(qd, _)| *qd);
    let mut qds = Vec::new();
    let (mut iops, mut mbps, mut mean, mut p99) = (vec![], vec![], vec![], vec![]);
    for (qd, rs) in &g {
        let (m, n, cv) = mean_of(rs, |r| r.summary.total.iops);
        notes.push((format!("QD {qd}"), n, cv));
        qds.push(*qd);
        iops.push(m);
        mbps.push(mean_of(rs, |r| r.summary.total.mbps).0);
        mean.push(mean_of(rs, |r| r.summary.total.lat_us.mean).0);
        p99.push(mean_of(rs, |r| r.summary.total.lat_us.p99).0);
    }
    let what = g
        .first()
        .map(|(_, rs)| {
            let rw = rs[0].spec.as_ref().map_or("-", |s| s.rw.as_str());
            format!("{} {}", rw, short_size(bs_of(rs[0])))
        })
        .unwrap_or_else(|| "random".into());
    let bound_us = match bound {
        P99Bound::Factor(f) => p99.first().map(|b| b * f),
        P99Bound::Micros(us) => Some(us),
    };
    let knee = bound_us.and_then(|b| knee_index(&iops, &p99, b));
    let mut table = Table {
        title: format!("{what}: IOPS and latency by outstanding I/Os"),
        columns: vec![
            "QD".into(),
            "IOPS".into(),
            "MB/s".into(),
            "mean latency us".into(),
            "p99 latency us".into(),
            "p99 within bound".into(),
        ],
        rows: Vec::new(),
    };
    for i in 0..qds.len() {
        let within = match bound_us {
            Some(_) if Some(i) == knee => "yes: knee".to_string(),
            Some(b) if p99[i] <= b => "yes".into(),
            Some(_) => "no".into(),
            None => "-".into(),
        };
        table.rows.push(vec![
            Value::from(qds[i]),
            cell(iops[i], 0),
            cell(mbps[i], 1),
            cell(mean[i], 1),
            cell(p99[i], 1),
            Value::from(within),
        ]);
    }
    let x: Vec<String> = qds.iter().map(u32::to_string).collect();
    let x_values: Vec<f64> = qds.iter().map(|&q| q as f64).collect();
    let marks: Vec<Mark> = knee
        .map(|k| Mark {
            x: qds[k].to_string(),
            label: "knee".into(),
        })
        .into_iter()
        .collect();
    let some = |v: &[f64]| v.iter().map(|&x| Some(x)).collect::<Vec<_>>();
    r.charts.push(Chart {
        kind: "line".into(),
        title: format!("{what}: IOPS by outstanding I/Os"),
        x_label: "outstanding I/Os".into(),
        y_label: "IOPS".into(),
        log_x: true,
        x: x.clone(),
        x_values: x_values.clone(),
        series: vec![Series {
            name: "IOPS".into(),
            values: some(&iops),
        }],
        marks: marks.clone(),
    });
    let mut lat_series = vec![
        Series {
            name: "p99".into(),
            values: some(&p99),
        },
        Series {
            name: "mean".into(),
            values: some(&mean),
        },
    ];
    if let Some(b) = bound_us {
        lat_series.push(Series {
            name: "p99 bound".into(),
            values: vec![Some(b); qds.len()],
        });
    }
    r.charts.push(Chart {
        kind: "line".into(),
        title: format!("{what}: latency by outstanding I/Os"),
        x_label: "outstanding I/Os".into(),
        y_label: "latency us".into(),
        log_x: true,
        x,
        x_values,
        series: lat_series,
        marks,
    });
    r.tables.push(table);
    if qds.is_empty() {
        return notes;
    }
    let bound_text = match bound {
        P99Bound::Factor(f) => format!(
            "{} the QD {} p99 ({} us)",
            P99Bound::Factor(f).text(),
            qds[0],
            fig(bound_us.unwrap_or(0.0))
        ),
        P99Bound::Micros(us) => format!("{} us", fig(us)),
    };
    if let Some(b) = bound_us {
        r.figures.insert("p99_bound_us".into(), b);
    }
    r.figures.insert("base_p99_us".into(), p99[0]);
    let top = (0..qds.len())
        .max_by(|&a, &b| iops[a].total_cmp(&iops[b]))
        .unwrap_or(0);
    r.figures.insert("max_iops".into(), iops[top]);
    r.figures.insert("max_iops_qd".into(), qds[top] as f64);
    match knee {
        Some(k) => {
            r.figures.insert("knee_qd".into(), qds[k] as f64);
            r.figures.insert("knee_iops".into(), iops[k]);
            r.figures.insert("knee_p99_us".into(), p99[k]);
            let rest = if top == k {
                "no depth gave more IOPS".to_string()
            } else {
                format!(
                    "the most IOPS, {} at QD {}, cost a p99 of {} us",
                    fig(iops[top]),
                    qds[top],
                    fig(p99[top])
                )
            };
            r.conclusions.push(format!(
                "The knee is QD {}: {} IOPS with p99 {} us, within {bound_text}; {rest}.",
                qds[k],
                fig(iops[k]),
                fig(p99[k])
            ));
        }
        None => r.conclusions.push(format!(
            "No queue depth kept p99 within {bound_text}: the lowest p99 was {} us.",
            fig(p99.iter().copied().fold(f64::INFINITY, f64::min))
        )),
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::*;
    use super::*;

    #[test]
    fn flattening_is_where_every_later_step_adds_little() {
        // 16k..2m: +45 % up to 256k, then under 10 %.
        let ys = [100.0, 150.0, 220.0, 300.0, 400.0, 420.0, 430.0, 440.0];
        assert_eq!(flatten_index(&ys, 10.0), Some(4));
        // A late jump moves the flattening past it.
        let ys = [100.0, 150.0, 155.0, 160.0, 200.0, 205.0];
        assert_eq!(flatten_index(&ys, 10.0), Some(4));
        // Still rising at the top of the ladder.
        assert_eq!(flatten_index(&[100.0, 200.0, 300.0], 10.0), None);
        // Flat from the start; a fall counts as flat.
        assert_eq!(flatten_index(&[100.0, 101.0, 90.0], 10.0), Some(0));
        assert_eq!(flatten_index(&[100.0], 10.0), None);
        // The threshold is settable.
        assert_eq!(flatten_index(&[100.0, 105.0, 110.0], 3.0), None);
    }

    #[test]
    fn knee_is_the_most_iops_within_the_bound() {
        let iops = [10_000.0, 19_000.0, 35_000.0, 50_000.0, 52_000.0];
        let p99 = [100.0, 110.0, 150.0, 190.0, 400.0];
        assert_eq!(knee_index(&iops, &p99, 200.0), Some(3));
        assert_eq!(knee_index(&iops, &p99, 1000.0), Some(4));
        assert_eq!(knee_index(&iops, &p99, 50.0), None);
        // More depth with fewer IOPS is not a knee.
        assert_eq!(
            knee_index(&[10.0, 30.0, 20.0], &[1.0, 1.0, 1.0], 2.0),
            Some(1)
        );
    }

    fn bs_run(name: &str, bs: u64, mbps: f64) -> RunResult {
        let mut s = spec(name);
        s.bs[0].bytes = bs;
        run(s, mbps * 1e6 / bs as f64, mbps, 100.0)
    }

    #[test]
    fn bs_ladder_table_chart_and_flattening() {
        let sizes: Vec<u64> = (0..8).map(|i| (16u64 << 10) << i).collect();
        let read = [100.0, 150.0, 220.0, 300.0, 400.0, 420.0, 430.0, 440.0];
        let write = [50.0, 100.0, 200.0, 400.0, 800.0, 1600.0, 3200.0, 6400.0];
        let mut runs = Vec::new();
        for (i, &bs) in sizes.iter().enumerate() {
            runs.push(bs_run(SEQ_READ, bs, read[i]));
        }
        for (i, &bs) in sizes.iter().enumerate() {
            runs.push(bs_run(SEQ_WRITE, bs, write[i]));
            // A repetition averages in.
            runs.push(bs_run(SEQ_WRITE, bs, write[i]));
        }
        let st = Study {
            kind: Kind::BsLadder { flat_pct: 10.0 },
            settings: Default::default(),
        };
        let r = compute(&st, &doc(runs));
        let t = &r.tables[0];
        assert_units(&r.tables);
        assert_eq!(t.columns.len(), 5);
        assert_eq!(t.rows.len(), 8);
        assert_eq!(t.rows[0][0], "16k");
        assert_eq!(t.rows[7][0], "2m");
        assert_eq!(t.rows[1][1], 150.0);
        assert_eq!(t.rows[1][2], 50.0);
        assert_eq!(t.rows[0][2], Value::Null);
        assert_eq!(r.figures["flatten_bs_read"], (256 << 10) as f64);
        assert!(!r.figures.contains_key("flatten_bs_write"));
        assert_eq!(r.figures["peak_mbps_write"], 6400.0);
        assert!(r.conclusions[0].starts_with("Sequential read flattens at 256k"));
        assert!(
            r.conclusions[1].contains("still rising at 2m"),
            "{:?}",
            r.conclusions
        );
        let c = &r.charts[0];
        assert_eq!(c.series.len(), 2);
        assert_eq!(c.x.len(), 8);
        assert_eq!(c.marks.len(), 1);
        assert_eq!(c.marks[0].x, "256k");
    }

    fn qd_run(qd: u32, iops: f64, p99: f64) -> RunResult {
        let mut s = spec("rand-read");
        s.rw = "randread".into();
        s.qd = qd;
        run(s, iops, iops * 4096.0 / 1e6, p99)
    }

    #[test]
    fn qd_ladder_knee_with_factor_and_absolute_bounds() {
        let runs = vec![
            qd_run(1, 10_000.0, 100.0),
            qd_run(2, 19_000.0, 120.0),
            qd_run(4, 35_000.0, 180.0),
            qd_run(8, 50_000.0, 300.0),
        ];
        let st = |bound| Study {
            kind: Kind::QdLadder { bound },
            settings: Default::default(),
        };
        let r = compute(&st(P99Bound::Factor(2.0)), &doc(runs.clone()));
        assert_eq!(r.figures["knee_qd"], 4.0);
        assert_eq!(r.figures["p99_bound_us"], 200.0);
        assert_eq!(r.figures["max_iops_qd"], 8.0);
        let t = &r.tables[0];
        assert_units(&r.tables);
        assert_eq!(t.rows.len(), 4);
        assert_eq!(t.rows[2][5], "yes: knee");
        assert_eq!(t.rows[3][5], "no");
        assert!(
            r.conclusions[0].contains("The knee is QD 4"),
            "{:?}",
            r.conclusions
        );
        assert_eq!(r.charts.len(), 2);
        assert_eq!(r.charts[0].marks[0].x, "4");
        let r = compute(&st(P99Bound::Micros(1000.0)), &doc(runs.clone()));
        assert_eq!(r.figures["knee_qd"], 8.0);
        let r = compute(&st(P99Bound::Micros(50.0)), &doc(runs));
        assert!(!r.figures.contains_key("knee_qd"));
        assert!(r.conclusions[0].starts_with("No queue depth"));
    }
}
