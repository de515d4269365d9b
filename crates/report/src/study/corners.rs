//! corners: vdbench's eight corners ({read, write} x {sequential, random}
//! x {cached, non-cached}), O_DSYNC writes and the OLTP mixes, as IOPS.

use super::{cell, fig, groups, mean_of, SpreadNote};
use crate::model::{Chart, RunResult, Series, StudyResult, Table};
use serde_json::Value;

/// One workload of the corners study. "Cached" I/O goes to the hit area
/// (vdbench `hitarea` with `rhpct`/`whpct` 100); non-cached I/O to the
/// rest of the target (`rhpct`/`whpct` 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Corner {
    pub name: &'static str,
    pub what: &'static str,
    /// Share of I/Os that are reads (vdbench `rdpct`).
    pub read_pct: u32,
    pub random: bool,
    /// Share of reads and of writes sent to the hit area.
    pub read_hit_pct: u32,
    pub write_hit_pct: u32,
    /// O_DSYNC: every write durable on completion.
    pub dsync: bool,
}

const fn corner(
    name: &'static str,
    what: &'static str,
    read_pct: u32,
    random: bool,
    hit: (u32, u32),
    dsync: bool,
) -> Corner {
    Corner {
        name,
        what,
        read_pct,
        random,
        read_hit_pct: hit.0,
        write_hit_pct: hit.1,
        dsync,
    }
}

/// The corners in the order they run and are shown.
pub const CORNERS: [Corner; 12] = [
    corner(
        "seq-read-cached",
        "sequential read, hit area",
        100,
        false,
        (100, 0),
        false,
    ),
    corner(
        "seq-read",
        "sequential read, not cached",
        100,
        false,
        (0, 0),
        false,
    ),
    corner(
        "rand-read-cached",
        "random read, hit area",
        100,
        true,
        (100, 0),
        false,
    ),
    corner(
        "rand-read",
        "random read, not cached",
        100,
        true,
        (0, 0),
        false,
    ),
    corner(
        "seq-write-cached",
        "sequential write, hit area",
        0,
        false,
        (0, 100),
        false,
    ),
    corner(
        "seq-write",
        "sequential write, not cached",
        0,
        false,
        (0, 0),
        false,
    ),
    corner(
        "rand-write-cached",
        "random write, hit area",
        0,
        true,
        (0, 100),
        false,
    ),
    corner(
        "rand-write",
        "random write, not cached",
        0,
        true,
        (0, 0),
        false,
    ),
    corner(
        "seq-write-dsync",
        "sequential write, O_DSYNC",
        0,
        false,
        (0, 0),
        true,
    ),
    corner(
        "rand-write-dsync",
        "random write, O_DSYNC",
        0,
        true,
        (0, 0),
        true,
    ),
    corner(
        "oltp-75",
        "OLTP mix, 75 % reads, 5 % of writes to the hit area",
        75,
        true,
        (0, 5),
        false,
    ),
    corner(
        "oltp-25",
        "OLTP mix, 25 % reads, 5 % of writes to the hit area",
        25,
        true,
        (0, 5),
        false,
    ),
];

pub(super) fn corners(runs: &[RunResult], r: &mut StudyResult) -> Vec<SpreadNote> {
    let mut notes = Vec::new();
    let g = groups(runs, |r| CORNERS.iter().position(|c| c.name == r.name));
    let mut rows: Vec<(usize, f64, f64, f64, f64)> = g
        .iter()
        .map(|(ci, rs)| {
            let (iops, n, cv) = mean_of(rs, |r| r.summary.total.iops);
            notes.push((CORNERS[*ci].name.to_string(), n, cv));
            (
                *ci,
                iops,
                mean_of(rs, |r| r.summary.total.mbps).0,
                mean_of(rs, |r| r.summary.total.lat_us.mean).0,
                mean_of(rs, |r| r.summary.total.lat_us.p99).0,
            )
        })
        .collect();
    rows.sort_by_key(|row| row.0);
    let bs = g
        .first()
        .map(|(_, rs)| super::short_size(super::bs_of(rs[0])))
        .unwrap_or_default();
    let mut table = Table {
        title: format!("Corners: IOPS, {bs} blocks"),
        columns: vec![
            "workload".into(),
            "what".into(),
            "IOPS".into(),
            "MB/s".into(),
            "mean latency us".into(),
            "p99 latency us".into(),
        ],
        rows: Vec::new(),
    };
    for &(ci, iops, mbps, mean, p99) in &rows {
        table.rows.push(vec![
            Value::from(CORNERS[ci].name),
            Value::from(CORNERS[ci].what),
            cell(iops, 0),
            cell(mbps, 1),
            cell(mean, 1),
            cell(p99, 1),
        ]);
        r.figures.insert(format!("iops_{}", CORNERS[ci].name), iops);
    }
    r.tables.push(table);
    r.charts.push(Chart {
        kind: "bar".into(),
        title: format!("Corners: IOPS, {bs} blocks"),
        x_label: "workload".into(),
        y_label: "IOPS".into(),
        x: rows
            .iter()
            .map(|row| CORNERS[row.0].name.to_string())
            .collect(),
        series: vec![Series {
            name: "IOPS".into(),
            values: rows.iter().map(|row| Some(row.1)).collect(),
        }],
        ..Default::default()
    });
    let iops = |name: &str| {
        rows.iter()
            .find(|row| CORNERS[row.0].name == name)
            .map(|row| row.1)
    };
    for (what, base) in [
        ("Sequential reads", "seq-read"),
        ("Random reads", "rand-read"),
        ("Sequential writes", "seq-write"),
        ("Random writes", "rand-write"),
    ] {
        if let (Some(c), Some(n)) = (iops(&format!("{base}-cached")), iops(base)) {
            let ratio = if n > 0.0 {
                format!(" ({:.1}x)", c / n)
            } else {
                String::new()
            };
            r.conclusions.push(format!(
                "{what}: {} IOPS in the hit area, {} elsewhere{ratio}.",
                fig(c),
                fig(n)
            ));
        }
    }
    for (what, base) in [("sequential", "seq-write"), ("random", "rand-write")] {
        if let (Some(d), Some(p)) = (iops(&format!("{base}-dsync")), iops(base)) {
            if p > 0.0 {
                r.conclusions.push(format!(
                    "O_DSYNC {what} writes: {} IOPS, {:.0} % of plain {what} writes.",
                    fig(d),
                    100.0 * d / p
                ));
            }
        }
    }
    if let (Some(a), Some(b)) = (iops("oltp-75"), iops("oltp-25")) {
        r.conclusions.push(format!(
            "OLTP {bs} mix: {} IOPS at 75 % reads, {} at 25 % reads.",
            fig(a),
            fig(b)
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::*;

    #[test]
    fn corners_table_in_order_with_ratios() {
        // Runs in another order than the table, one corner missing.
        let mut runs = Vec::new();
        for (i, c) in CORNERS.iter().enumerate().rev() {
            if c.name == "seq-write" {
                continue;
            }
            let mut s = spec(c.name);
            s.bs[0].bytes = 8192;
            runs.push(run(s, 1000.0 * (i + 1) as f64, 8.0, 50.0));
        }
        let st = Study {
            kind: Kind::Corners,
            settings: Default::default(),
        };
        let r = compute(&st, &doc(runs));
        let t = &r.tables[0];
        assert_units(&r.tables);
        assert_eq!(t.rows.len(), 11);
        assert_eq!(t.columns[2], "IOPS");
        assert_eq!(t.rows[0][0], "seq-read-cached");
        assert_eq!(t.rows[0][2], 1000);
        assert_eq!(t.rows[10][0], "oltp-25");
        assert!(t.title.contains("8k"));
        let c = &r.charts[0];
        assert_eq!((c.kind.as_str(), c.x.len()), ("bar", 11));
        assert_eq!(r.figures["iops_rand-read-cached"], 3000.0);
        let text = r.conclusions.join(" ");
        assert!(
            text.contains("Random reads: 3000 IOPS in the hit area, 4000 elsewhere (0.8x)"),
            "{text}"
        );
        assert!(!text.contains("Sequential writes"), "{text}");
        assert!(
            text.contains("O_DSYNC random writes: 10 000 IOPS, 125 %"),
            "{text}"
        );
        assert!(
            text.contains("11 000 IOPS at 75 % reads, 12 000 at 25 %"),
            "{text}"
        );
    }
}
