//! streams: N concurrent sequential streams over M targets, labelled N/M
//! as the studies do (16/4), with the total and the per-target balance.

use super::{cell, fig, groups, mean_of, streams_name, SpreadNote};
use crate::model::{Chart, RunResult, Series, StudyResult, Table};
use serde_json::Value;

/// Below this per-stream balance (slowest target against the fastest,
/// percent) a point is called unbalanced.
pub const BALANCED_PCT: f64 = 90.0;

/// Streams on target `t` of `m` when `n` streams go round-robin (stream
/// i drives target i mod m).
pub fn streams_on(n: u32, m: u32, t: u32) -> u32 {
    n / m + u32::from(t < n % m)
}

struct Point {
    n: u32,
    m: u32,
    mbps: f64,
    /// Mean MB/s per target, when every run of the point has it.
    per_target: Option<Vec<f64>>,
    /// Slowest against fastest target, per stream, percent.
    balance: Option<f64>,
}

pub(super) fn streams(runs: &[RunResult], r: &mut StudyResult) -> Vec<SpreadNote> {
    let mut notes = Vec::new();
    let g = groups(runs, |r| {
        let s = r.spec.as_ref()?;
        let (n, m) = (s.jobs, s.targets.len() as u32);
        (r.name == streams_name(n, m)).then_some((n, m))
    });
    let mut pts: Vec<Point> = g
        .iter()
        .map(|((n, m), rs)| {
            let (mbps, k, cv) = mean_of(rs, |r| r.summary.total.mbps);
            notes.push((format!("{n}/{m}"), k, cv));
            let have = rs.iter().all(|r| {
                r.targets.len() == *m as usize && r.targets.iter().all(|t| t.measured.is_some())
            });
            let per_target = have.then(|| {
                (0..*m as usize)
                    .map(|t| {
                        mean_of(rs, |r| {
                            r.targets[t].measured.as_ref().map_or(0.0, |x| x.mbps)
                        })
                        .0
                    })
                    .collect::<Vec<f64>>()
            });
            let balance = per_target.as_ref().and_then(|v| {
                let per_stream: Vec<f64> = v
                    .iter()
                    .enumerate()
                    .map(|(t, x)| x / streams_on(*n, *m, t as u32).max(1) as f64)
                    .collect();
                let hi = per_stream.iter().copied().fold(f64::MIN, f64::max);
                let lo = per_stream.iter().copied().fold(f64::MAX, f64::min);
                (hi > 0.0).then(|| 100.0 * lo / hi)
            });
            Point {
                n: *n,
                m: *m,
                mbps,
                per_target,
                balance,
            }
        })
        .collect();
    pts.sort_by_key(|p| (p.n, p.m));
    let label = |p: &Point| format!("{}/{}", p.n, p.m);
    let mut table = Table {
        title: "Sequential streams over targets: MB/s (streams/targets)".into(),
        columns: vec![
            "streams/targets".into(),
            "streams".into(),
            "targets".into(),
            "MB/s".into(),
            "per target MB/s".into(),
            "balance %".into(),
        ],
        rows: Vec::new(),
    };
    for p in &pts {
        let per = p.per_target.as_ref().map_or("-".to_string(), |v| {
            v.iter()
                .map(|x| format!("{x:.1}"))
                .collect::<Vec<_>>()
                .join(" / ")
        });
        table.rows.push(vec![
            Value::from(label(p)),
            Value::from(p.n),
            Value::from(p.m),
            cell(p.mbps, 1),
            Value::from(per),
            p.balance.map_or(Value::Null, |b| cell(b, 1)),
        ]);
        r.figures.insert(format!("mbps_{}", label(p)), p.mbps);
    }
    r.tables.push(table);
    r.charts.push(Chart {
        kind: "bar".into(),
        title: "Total MB/s by streams/targets".into(),
        x_label: "streams/targets".into(),
        y_label: "MB/s".into(),
        x: pts.iter().map(label).collect(),
        series: vec![Series {
            name: "MB/s".into(),
            values: pts.iter().map(|p| Some(p.mbps)).collect(),
        }],
        ..Default::default()
    });
    let mut ns: Vec<u32> = pts.iter().map(|p| p.n).collect();
    ns.dedup();
    let mut ms: Vec<u32> = pts.iter().map(|p| p.m).collect();
    ms.sort_unstable();
    ms.dedup();
    let at = |n: u32, m: u32| pts.iter().find(|p| p.n == n && p.m == m);
    r.charts.push(Chart {
        kind: "line".into(),
        title: "Total MB/s by streams, one line per number of targets".into(),
        x_label: "streams".into(),
        y_label: "MB/s".into(),
        log_x: true,
        x: ns.iter().map(u32::to_string).collect(),
        x_values: ns.iter().map(|&n| n as f64).collect(),
        series: ms
            .iter()
            .map(|&m| Series {
                name: format!("{m} target{}", if m == 1 { "" } else { "s" }),
                values: ns.iter().map(|&n| at(n, m).map(|p| p.mbps)).collect(),
            })
            .collect(),
        marks: Vec::new(),
    });
    let Some(best) = pts.iter().max_by(|a, b| a.mbps.total_cmp(&b.mbps)) else {
        return notes;
    };
    r.figures.insert("best_mbps".into(), best.mbps);
    r.figures.insert("best_streams".into(), best.n as f64);
    r.figures.insert("best_targets".into(), best.m as f64);
    r.conclusions.push(format!(
        "Most throughput: {} at {} MB/s.",
        label(best),
        fig(best.mbps)
    ));
    // Adding targets: the most streams run over more than one count of
    // targets, fewest against most.
    for &n in ns.iter().rev() {
        let here: Vec<&Point> = pts.iter().filter(|p| p.n == n).collect();
        if let [a, .., b] = here[..] {
            if a.mbps > 0.0 {
                r.conclusions.push(format!(
                    "{n} streams: {} MB/s over {} target{}, {} MB/s over {} ({:.1}x).",
                    fig(a.mbps),
                    a.m,
                    if a.m == 1 { "" } else { "s" },
                    fig(b.mbps),
                    b.m,
                    b.mbps / a.mbps
                ));
            }
            break;
        }
    }
    let balanced: Vec<&Point> = pts
        .iter()
        .filter(|p| p.m > 1 && p.balance.is_some())
        .collect();
    if let Some(worst) = balanced.iter().min_by(|a, b| {
        a.balance
            .unwrap_or(100.0)
            .total_cmp(&b.balance.unwrap_or(100.0))
    }) {
        let w = worst.balance.unwrap_or(100.0);
        r.figures.insert("worst_balance_pct".into(), w);
        if w < BALANCED_PCT {
            r.conclusions.push(format!(
                "Unbalanced at {}: per stream, the slowest target got {w:.0} % of the fastest's throughput; check that target's path (link, HBA port, queue depth).",
                label(worst)
            ));
        } else {
            r.conclusions.push(format!(
                "Targets are balanced: per stream, the slowest target got at least {w:.0} % of the fastest's throughput at every point."
            ));
        }
    } else if pts.iter().any(|p| p.m > 1) {
        r.conclusions.push(
            "Per-target balance needs at least as many streams as targets at a point.".into(),
        );
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::*;
    use super::*;
    use crate::model::TargetIo;
    use iolab_spec::TargetSpec;

    fn streams_run(n: u32, per_target: &[f64]) -> RunResult {
        let mut s = spec(&streams_name(n, per_target.len() as u32));
        s.jobs = n;
        s.targets = (0..per_target.len())
            .map(|i| TargetSpec {
                path: format!("/t/{i}"),
                offset: 0,
                range: None,
                size: None,
            })
            .collect();
        let total: f64 = per_target.iter().sum();
        let mut r = run(s, total, total, 100.0);
        for (t, &x) in r.targets.iter_mut().zip(per_target) {
            t.measured = Some(TargetIo {
                ops: 1,
                bytes: (x * 1e6) as u64,
                iops: 1.0,
                mbps: x,
            });
        }
        r
    }

    #[test]
    fn stream_counts_per_target() {
        assert_eq!(
            (0..3).map(|t| streams_on(16, 3, t)).collect::<Vec<_>>(),
            [6, 5, 5]
        );
        assert_eq!(streams_on(4, 4, 3), 1);
    }

    #[test]
    fn streams_table_labels_totals_and_balance() {
        let runs = vec![
            streams_run(4, &[100.0]),
            streams_run(4, &[100.0, 100.0]),
            streams_run(8, &[150.0]),
            streams_run(8, &[150.0, 150.0]),
            // 16 over 3: 6, 5, 5 streams; per stream 10, 10, 6.
            streams_run(16, &[60.0, 50.0, 30.0]),
        ];
        let st = Study {
            kind: Kind::Streams,
            settings: Default::default(),
        };
        let r = compute(&st, &doc(runs));
        let t = &r.tables[0];
        assert_units(&r.tables);
        let labels: Vec<&str> = t.rows.iter().map(|r| r[0].as_str().unwrap()).collect();
        assert_eq!(labels, ["4/1", "4/2", "8/1", "8/2", "16/3"]);
        assert_eq!(t.rows[3][3], 300.0);
        assert_eq!(t.rows[3][4], "150.0 / 150.0");
        assert_eq!(t.rows[3][5], 100.0);
        assert_eq!(t.rows[4][5], 60.0);
        assert_eq!(t.rows[0][5], 100.0);
        assert_eq!(r.figures["best_mbps"], 300.0);
        let text = r.conclusions.join(" ");
        assert!(text.contains("Most throughput: 8/2 at 300 MB/s"), "{text}");
        assert!(
            text.contains("8 streams: 150 MB/s over 1 target, 300 MB/s over 2 (2.0x)"),
            "{text}"
        );
        assert!(text.contains("Unbalanced at 16/3"), "{text}");
        assert_eq!(r.charts[0].x.len(), 5);
        assert_eq!(r.charts[1].series.len(), 3);
    }

    #[test]
    fn no_per_target_figures_say_so() {
        let mut a = streams_run(2, &[50.0, 50.0]);
        a.targets[0].measured = None;
        let st = Study {
            kind: Kind::Streams,
            settings: Default::default(),
        };
        let r = compute(&st, &doc(vec![a]));
        assert_eq!(r.tables[0].rows[0][4], "-");
        assert_eq!(r.tables[0].rows[0][5], Value::Null);
        assert!(r
            .conclusions
            .join(" ")
            .contains("needs at least as many streams"));
    }
}
