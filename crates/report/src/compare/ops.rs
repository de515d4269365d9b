//! File-system workloads in a comparison: each operation of the
//! baseline's workload matched by name with the same operation in the
//! other documents (ops/s, MB/s, mean and p99 latency, CPU per
//! operation, with the usual verdicts), and the fileset counters side by
//! side.

use super::{judge, CompareResult, Entry, Figure, Figures, Row};
use crate::model::{Chart, Series};
use crate::model::{FilesetCounts, OpResult, WorkloadResult};
use crate::points::spread;

/// The figures compared per operation.
pub const OP_FIGURES: [Figure; 5] = [
    Figure::Iops,
    Figure::Mbps,
    Figure::LatMeanUs,
    Figure::LatP99Us,
    Figure::CpuUsPerIo,
];

/// A table's title for a figure of the operations.
pub fn op_title(f: Figure) -> &'static str {
    match f {
        Figure::Iops => "ops/s by operation",
        Figure::Mbps => "MB/s by operation",
        Figure::LatMeanUs => "mean latency by operation, us",
        Figure::LatP99Us => "p99 latency by operation, us",
        Figure::CpuUsPerIo => "CPU us per operation",
    }
}

/// The unit of a figure of the operations, for column heads.
pub fn op_unit(f: Figure) -> &'static str {
    match f {
        Figure::Iops => "ops/s",
        _ => f.unit(),
    }
}

/// The operation rows a figure's table shows: MB/s only of the
/// operations that move data (the others have none), CPU only of those
/// with a figure in some document (documents from before CPU per
/// operation, or too few samples, have none).
pub fn rows_for<'a>(f: Figure, rows: &[&'a Row]) -> Vec<&'a Row> {
    let moves = |r: &Row| {
        let name = r.entries.iter().flatten().next().map(|e| e.name.as_str());
        name.and_then(iolab_spec::Op::from_name)
            .is_none_or(|o| o.moves_data())
    };
    let has_cpu = |r: &Row| {
        r.entries
            .iter()
            .flatten()
            .any(|e| e.figures.cpu_us_per_io.n > 0)
    };
    rows.iter()
        .copied()
        .filter(|r| f != Figure::Mbps || moves(r))
        .filter(|r| f != Figure::CpuUsPerIo || has_cpu(r))
        .collect()
}

/// The tables of the operations: each figure of [`OP_FIGURES`] with the
/// rows it shows ([`rows_for`]), less the CPU table when no operation has
/// a CPU figure (nothing to compare).
pub fn op_tables<'a>(rows: &[&'a Row]) -> Vec<(Figure, Vec<&'a Row>)> {
    if rows.is_empty() {
        return Vec::new();
    }
    OP_FIGURES
        .into_iter()
        .map(|f| (f, rows_for(f, rows)))
        .filter(|(f, r)| *f != Figure::CpuUsPerIo || !r.is_empty())
        .collect()
}

/// Spreads of one operation's figures over the workloads (repetitions)
/// that measured it.
fn op_figures(ops: &[&OpResult]) -> Figures {
    let s = |f: fn(&OpResult) -> f64| spread(&ops.iter().map(|o| f(o)).collect::<Vec<_>>());
    Figures {
        iops: s(|o| o.figures.iops),
        mbps: s(|o| o.figures.mbps),
        lat_mean_us: s(|o| o.figures.lat_us.mean),
        lat_p99_us: s(|o| o.figures.lat_us.p99),
        cpu_us_per_io: spread(
            &ops.iter()
                .filter_map(|o| o.cpu_us_per_op)
                .collect::<Vec<_>>(),
        ),
    }
}

/// Per document, its entry of operation `op`: the workloads of its runs
/// (those measured) that issued it.
fn op_entry(doc: usize, label: &str, op: &str, ws: &[&WorkloadResult]) -> Option<Entry> {
    let ops: Vec<&OpResult> = ws
        .iter()
        .filter(|w| w.measured_s > 0.0)
        .filter_map(|w| w.operations.get(op))
        .collect();
    (!ops.is_empty()).then(|| Entry {
        doc,
        label: format!("{label} {op}"),
        name: op.to_string(),
        figures: op_figures(&ops),
        ..Default::default()
    })
}

/// One row per operation of the baseline's workload (`per_doc[0]`), in
/// the order it issues them, matched by name in the other documents.
/// Empty for block workloads.
pub(super) fn op_rows(label: &str, per_doc: &[Option<Vec<&WorkloadResult>>]) -> Vec<Row> {
    let Some(Some(base)) = per_doc.first() else {
        return Vec::new();
    };
    let Some(first) = base.first() else {
        return Vec::new();
    };
    let names: Vec<&str> = crate::fs::text::op_order(first)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    names
        .into_iter()
        .map(|op| {
            let entries: Vec<Option<Entry>> = per_doc
                .iter()
                .enumerate()
                .map(|(d, ws)| ws.as_ref().and_then(|ws| op_entry(d, label, op, ws)))
                .collect();
            op_row(label, op, entries)
        })
        .collect()
}

fn op_row(label: &str, op: &str, entries: Vec<Option<Entry>>) -> Row {
    let mut changes = Vec::new();
    if let Some(Some(b)) = entries.first() {
        for (d, e) in entries.iter().enumerate().skip(1) {
            let Some(e) = e else { continue };
            for f in OP_FIGURES {
                changes.push(judge(f, d, b.figures.get(f), e.figures.get(f)));
            }
        }
    }
    Row {
        label: format!("{label} {op}"),
        key: Default::default(),
        entries,
        changes,
        workloads: Vec::new(),
        hosts: Vec::new(),
        operations: Vec::new(),
        fileset: Vec::new(),
    }
}

/// Per document, the fileset counters of its first run's workload.
pub(super) fn filesets(per_doc: &[Option<Vec<&WorkloadResult>>]) -> Vec<Option<FilesetCounts>> {
    let any = per_doc
        .iter()
        .flatten()
        .any(|ws| ws.iter().any(|w| w.fileset.is_some()));
    if !any {
        return Vec::new();
    }
    per_doc
        .iter()
        .map(|ws| {
            ws.as_ref()
                .and_then(|ws| ws.first())
                .and_then(|w| w.fileset)
        })
        .collect()
}

/// The names and values of the counters, in vdbench's order.
pub fn counter_list(c: &FilesetCounts) -> [(&'static str, u64); 7] {
    [
        ("files created", c.files_created),
        ("dirs created", c.dirs_created),
        ("files deleted", c.files_deleted),
        ("dirs deleted", c.dirs_deleted),
        ("opens for read", c.opens_read),
        ("opens for write", c.opens_write),
        ("closes", c.closes),
    ]
}

/// Per row with operations, grouped bars of ops/s by operation, a bar per
/// document (the mean over its runs).
pub(super) fn op_charts(res: &CompareResult) -> Vec<Chart> {
    let rows = res.rows.iter().flat_map(|r| r.with_workloads());
    rows.filter(|r| !r.operations.is_empty())
        .map(|r| Chart {
            kind: "bar".into(),
            title: format!("{}: ops/s by operation", r.label),
            x_label: "operation".into(),
            y_label: "ops/s".into(),
            x: r.operations
                .iter()
                .map(|o| {
                    o.label
                        .strip_prefix(&format!("{} ", r.label))
                        .unwrap_or(&o.label)
                        .to_string()
                })
                .collect(),
            series: res
                .documents
                .iter()
                .enumerate()
                .map(|(d, doc)| Series {
                    name: doc.label.clone(),
                    values: r
                        .operations
                        .iter()
                        .map(|o| {
                            let e = o.entries.get(d)?.as_ref()?;
                            (e.figures.iops.n > 0).then_some(e.figures.iops.mean)
                        })
                        .collect(),
                })
                .collect(),
            ..Default::default()
        })
        .collect()
}
