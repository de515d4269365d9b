//! A file-system workload as model tables and charts, for the HTML
//! report (`iolab report`): the per-operation table, the operations per
//! second by operation (bars), the latency percentiles by operation
//! (bars on a log scale, and a table) and the fileset counters.

use super::text::op_order;
use crate::html::{ChartExtras, Page};
use crate::model::{Chart, RunResult, Series, Table, WorkloadResult};
use crate::tables::{fmt_num, num};
use serde_json::json;
use std::fmt::Write;

/// Column heads of the per-operation table of the report.
pub const OP_TABLE_COLUMNS: [&str; 14] = [
    "operation",
    "ops",
    "ops/s",
    "MB/s",
    "min ms",
    "mean ms",
    "p50 ms",
    "p90 ms",
    "p99 ms",
    "p99.9 ms",
    "p99.99 ms",
    "max ms",
    "errors",
    "CPU us/op",
];

/// One row per operation, in the order the workload issues them.
pub fn op_table(w: &WorkloadResult) -> Table {
    let ms = |us: f64| num(us / 1000.0);
    let rows = op_order(w)
        .into_iter()
        .map(|(name, o)| {
            let (f, l) = (&o.figures, &o.figures.lat_us);
            vec![
                json!(name),
                json!(f.ops),
                num(f.iops),
                num(f.mbps),
                ms(l.min),
                ms(l.mean),
                ms(l.p50),
                ms(l.p90),
                ms(l.p99),
                ms(l.p99_9),
                ms(l.p99_99),
                ms(l.max),
                json!(o.errors_total()),
                o.cpu_us_per_op.map_or(serde_json::Value::Null, num),
            ]
        })
        .collect();
    Table {
        title: format!("Operations of {}", w.name),
        columns: OP_TABLE_COLUMNS.iter().map(|c| c.to_string()).collect(),
        rows,
    }
}

fn bar_chart(title: &str, y_label: &str, x: Vec<String>, series: Vec<Series>) -> Chart {
    Chart {
        kind: "bar".into(),
        title: title.into(),
        x_label: "operation".into(),
        y_label: y_label.into(),
        x,
        series,
        ..Default::default()
    }
}

/// Operations per second, one bar per operation.
pub fn ops_chart(w: &WorkloadResult) -> Chart {
    let ops = op_order(w);
    bar_chart(
        &format!("{}: operations per second", w.name),
        "ops/s",
        ops.iter().map(|(n, _)| n.to_string()).collect(),
        vec![Series {
            name: "ops/s".into(),
            values: ops.iter().map(|(_, o)| Some(o.figures.iops)).collect(),
        }],
    )
}

/// Latency percentiles in microseconds (the log axis labels whole
/// numbers), a line per operation across p50, p90, p99, p99.9, p99.99
/// and max; drawn on a log scale, as metadata operations take
/// microseconds and syncs milliseconds.
pub fn latency_chart(w: &WorkloadResult) -> Chart {
    type Pick = fn(&iolab_stats::LatSummary) -> f64;
    let picks: [(&str, Pick); 6] = [
        ("p50", |l| l.p50),
        ("p90", |l| l.p90),
        ("p99", |l| l.p99),
        ("p99.9", |l| l.p99_9),
        ("p99.99", |l| l.p99_99),
        ("max", |l| l.max),
    ];
    let series = op_order(w)
        .into_iter()
        .map(|(name, o)| Series {
            name: name.to_string(),
            values: picks
                .iter()
                .map(|(_, f)| Some(f(&o.figures.lat_us)).filter(|v| *v > 0.0))
                .collect(),
        })
        .collect();
    Chart {
        kind: "line".into(),
        title: format!("{}: latency percentiles by operation", w.name),
        x_label: "percentile".into(),
        y_label: "latency, us (log scale)".into(),
        x: picks.iter().map(|(n, _)| n.to_string()).collect(),
        series,
        ..Default::default()
    }
}

/// The IO Summary and fileset counters as key-value pairs.
fn summary_pairs(w: &WorkloadResult) -> Vec<(String, String)> {
    let mut kv = Vec::new();
    if let Some(s) = &w.io_summary {
        kv.push(("operations".into(), s.ops.to_string()));
        kv.push(("ops/s".into(), fmt_num(s.ops_per_s)));
        kv.push((
            "read / write ops/s".into(),
            format!(
                "{} / {}",
                fmt_num(s.read_ops_per_s),
                fmt_num(s.write_ops_per_s)
            ),
        ));
        kv.push(("MB/s".into(), fmt_num(s.mbps)));
        kv.push(("mean ms/op".into(), fmt_num(s.lat_mean_us / 1000.0)));
        kv.push(("CPU us/op".into(), fmt_num(s.cpu_us_per_op)));
    }
    if let Some(b) = w.cpu_basis {
        let mut v = super::text::cpu_basis_text(b).to_string();
        if let Some(few) = super::text::few_samples(w) {
            write!(v, "; {few}").unwrap();
        }
        kv.push(("CPU by operation".into(), v));
    }
    if let Some(c) = &w.fileset {
        for (k, v) in crate::compare::ops::counter_list(c) {
            kv.push((k.into(), v.to_string()));
        }
    }
    if let Some(b) = super::text::backend_line(w) {
        let (k, v) = b.split_once(": ").unwrap_or((&b, ""));
        kv.push((k.to_string(), v.to_string()));
    }
    for f in &w.filesets {
        let line = super::text::fileset_line(f);
        let (k, v) = line.split_once(": ").unwrap_or((&line, ""));
        kv.push((k.to_string(), v.to_string()));
    }
    kv
}

/// The report's part for each file-system workload of a run: the two
/// charts, the per-operation table, the IO Summary and counters.
pub fn html_sections(p: &mut Page, r: &RunResult) {
    for w in r.workloads.iter().filter(|w| w.io_summary.is_some()) {
        p.heading(4, &format!("File-system workload {}", w.name));
        p.chart(&ops_chart(w));
        let log = ChartExtras {
            log_y: true,
            ..Default::default()
        };
        p.chart_with(&latency_chart(w), &log);
        p.table(&op_table(w));
        p.key_values("IO summary and fileset counters", &summary_pairs(w));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testraw;
    use iolab_raw::RunRaw;

    fn report() -> (RunResult, String) {
        let r = crate::build_run(&RunRaw::single(testraw::fs_workload("fileserver")));
        let doc = crate::model::ResultDoc {
            runs: vec![r.clone()],
            ..Default::default()
        };
        (r, crate::html::document_report(&doc))
    }

    /// The `<svg>` of the chart whose label starts with `title`.
    fn svg<'a>(html: &'a str, title: &str) -> &'a str {
        let at = html
            .find(&format!("aria-label=\"{title}"))
            .unwrap_or_else(|| panic!("no chart {title}"));
        let end = html[at..].find("</svg>").unwrap();
        &html[at..at + end]
    }

    #[test]
    fn the_report_draws_a_bar_per_operation_and_its_percentiles() {
        let (r, html) = report();
        let ops = svg(&html, "fileserver: operations per second");
        assert_eq!(ops.matches("<rect class=\"bar\"").count(), 8, "{ops}");
        let lat = svg(&html, "fileserver: latency percentiles by operation");
        // A line per operation across the percentiles.
        assert_eq!(lat.matches("class=\"series").count(), 8, "{lat}");
        let t = op_table(&r.workloads[0]);
        assert_eq!(t.rows.len(), 8);
        assert_eq!(t.rows[0][0], "create");
        assert_eq!(t.rows[7][12], 3, "stat's ENOENT errors");
        for c in &t.columns {
            assert!(crate::tables::column_has_unit(c, &[]), "{c}");
        }
        assert!(html.contains("opens for write"), "the counters are shown");
    }

    #[test]
    fn a_block_run_has_no_fs_section() {
        let r = crate::build_run(&testraw::two_workloads());
        let doc = crate::model::ResultDoc {
            runs: vec![r],
            ..Default::default()
        };
        let html = crate::html::document_report(&doc);
        assert!(!html.contains("by operation") && !html.contains("File-system workload"));
    }
}
