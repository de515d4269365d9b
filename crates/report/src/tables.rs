//! The tables of a result document (a study's tables, the points of a
//! sweep, one row per run) and their Markdown and CSV renderings. Pure
//! functions returning strings: `iolab report --format md|csv` prints them,
//! the HTML report draws the same tables.
//!
//! Cells keep full-precision numbers (`serde_json::Value`); only the
//! renderings round them, Markdown and HTML for reading ([`fmt_num`]), CSV
//! to three decimals for spreadsheets ([`csv_num`]).

use crate::model::{PointSummary, ResultDoc, RunResult, Spread, Table};
use iolab_spec::{format_bytes, WorkloadSpec};
use serde_json::{json, Value};
use std::fmt::Write;

/// Column heads of a run's figures, one row per direction (the terminal
/// summary and the HTML report): latencies in microseconds (`us`).
pub const FIGURE_COLUMNS: [&str; 13] = [
    "",
    "ops",
    "IOPS",
    "MB/s",
    "MiB/s",
    "min us",
    "mean us",
    "p50 us",
    "p90 us",
    "p99 us",
    "p99.9 us",
    "p99.99 us",
    "max us",
];

/// Column heads of the devices under a run's targets, as `iostat -x` names
/// them, with the units iostat leaves to its manual.
pub const DEVICE_COLUMNS: [&str; 11] = [
    "device",
    "r/s",
    "w/s",
    "rkB/s",
    "wkB/s",
    "rareq-sz kB",
    "wareq-sz kB",
    "r_await ms",
    "w_await ms",
    "aqu-sz",
    "%util",
];

/// Units a column head may carry (as a word of its own): rates, times,
/// sizes, shares.
const UNITS: [&str; 14] = [
    "IOPS", "MB/s", "MiB/s", "KB/s", "kB/s", "us", "ms", "s", "%", "bytes", "KB", "kB", "us/IO",
    "us/op",
];

/// Columns that hold names, labels, verdicts or plain counts, which have
/// no unit.
const LABELS: [&str; 46] = [
    "",
    "host",
    "hostname",
    "operation",
    "workload",
    "note",
    "#",
    "name",
    "params",
    "rw",
    "bs",
    "qd",
    "QD",
    "jobs",
    "ops",
    "n",
    "errors",
    "complete",
    "point",
    "spread",
    "workload",
    "what",
    "streams",
    "targets",
    "streams/targets",
    "block size",
    "p99 within bound",
    "device",
    "aqu-sz",
    "severity",
    "code",
    "seen",
    "why",
    "fix",
    "target",
    "op",
    "error",
    "path",
    "kind",
    "created",
    "class",
    "summary",
    "document",
    "runs",
    "nearest",
    "differs in",
];

/// Whether a column head says its unit (`p99 us`, `MB/s`, `CV %`, `r/s`,
/// `%util`), or is a name, label or count column that has none. `axes`
/// are a plan's swept parameters, whose columns hold the values as typed
/// (`4k`, `16`). Every table iolab prints or exports passes this (see
/// the test `every_table_column_has_a_unit`).
pub fn column_has_unit(col: &str, axes: &[String]) -> bool {
    if LABELS.contains(&col) || axes.iter().any(|a| a == col) {
        return true;
    }
    // A compare table's document columns: `after n`, `after vs before`.
    if col.ends_with(" n") || col.contains(" vs ") {
        return true;
    }
    col.split_whitespace()
        .any(|w| UNITS.contains(&w) || w.ends_with("/s") || w.starts_with('%'))
}

/// Every table of a document in report order: the study's, the points of a
/// plan, then the runs.
pub fn document_tables(doc: &ResultDoc) -> Vec<Table> {
    let mut t = Vec::new();
    if let Some(s) = &doc.study {
        t.extend(s.tables.iter().cloned());
    }
    if let Some(p) = points_table(doc) {
        t.push(p);
    }
    t.push(runs_table(doc));
    for r in doc.runs.iter().filter(|r| r.workloads.len() > 1) {
        t.push(workloads_table(r));
    }
    for r in doc.runs.iter().filter(|r| !r.hosts.is_empty()) {
        t.push(hosts_table(r));
    }
    for r in &doc.runs {
        for w in r.workloads.iter().filter(|w| w.io_summary.is_some()) {
            let mut ops = crate::fs::tables::op_table(w);
            ops.title = format!("Operations of {}/{}", r.name, w.name);
            t.push(ops);
        }
    }
    t
}

/// The swept parameters in plan order, or, without a plan, the union of the
/// runs' `params` keys.
pub fn axis_names(doc: &ResultDoc) -> Vec<String> {
    match &doc.plan {
        Some(p) if !p.axes.is_empty() => p.axes.iter().map(|a| a.name.clone()).collect(),
        _ => {
            let mut v: Vec<String> = Vec::new();
            for r in &doc.runs {
                for k in r.params.keys() {
                    if !v.contains(k) {
                        v.push(k.clone());
                    }
                }
            }
            v
        }
    }
}

/// `bs=16k qd=4`, the swept values of a run in plan order.
pub fn params_text(params: &std::collections::BTreeMap<String, String>, axes: &[String]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for a in axes {
        if let Some(v) = params.get(a) {
            parts.push(format!("{a}={v}"));
        }
    }
    for (k, v) in params {
        if !axes.contains(k) {
            parts.push(format!("{k}={v}"));
        }
    }
    parts.join(" ")
}

/// Block sizes of a run: `4 KiB`, or `4 KiB:3, 64 KiB:1` with weights.
pub fn bs_text(run: &RunResult) -> String {
    let specs = run.specs();
    if specs.len() != 1 {
        // Several workloads (or none): each one's sizes, in order.
        return per_workload_text(run, |s| spec_bs_text(&s.bs));
    }
    spec_bs_text(&specs[0].bs)
}

/// What a workload does, for the `rw` column: its access pattern, or for
/// a file-system workload its personality, `mix` or `flows`.
pub fn rw_text(s: &WorkloadSpec) -> String {
    use iolab_spec::fs::FsWork;
    match &s.fs {
        None => s.rw.clone(),
        Some(fs) => match (&fs.personality, &fs.work) {
            (Some(p), _) => p.clone(),
            (None, FsWork::Mix(_)) => "mix".into(),
            (None, FsWork::Flows(_)) => "flows".into(),
        },
    }
}

/// `f` of each workload joined by " | ", "-" for a run without one.
fn per_workload_text(run: &RunResult, f: impl Fn(&WorkloadSpec) -> String) -> String {
    let specs = run.specs();
    if specs.is_empty() {
        return "-".into();
    }
    specs.iter().map(|s| f(s)).collect::<Vec<_>>().join(" | ")
}

/// A run's value of a numeric workload parameter: the number for one
/// workload (as in version 1), the workloads' values as text for several.
fn per_workload_num(run: &RunResult, f: impl Fn(&WorkloadSpec) -> u32) -> serde_json::Value {
    let specs = run.specs();
    match specs.as_slice() {
        [one] => json!(f(one)),
        _ => json!(per_workload_text(run, |s| f(s).to_string())),
    }
}

fn spec_bs_text(bs: &[iolab_spec::BsWeight]) -> String {
    if bs.len() == 1 {
        format_bytes(bs[0].bytes)
    } else {
        bs.iter()
            .map(|b| format!("{}:{}", format_bytes(b.bytes), b.weight))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// One row per workload of a run: when it ran, what it was and its main
/// figures over its own measured time.
pub fn workloads_table(run: &RunResult) -> Table {
    let columns = [
        "workload", "start s", "end s", "rw", "bs", "qd", "jobs", "IOPS", "MB/s", "mean us",
        "p99 us", "errors",
    ];
    let rows = run
        .workloads
        .iter()
        .map(|w| {
            let t = &w.summary.total;
            vec![
                json!(w.name),
                num(w.start_s),
                num(w.end_s),
                json!(rw_text(&w.spec)),
                json!(spec_bs_text(&w.spec.bs)),
                json!(w.spec.qd),
                json!(w.spec.jobs),
                num(t.iops),
                num(t.mbps),
                num(t.lat_us.mean),
                num(t.lat_us.p99),
                json!(w.errors_total),
            ]
        })
        .collect();
    Table {
        title: format!("Workloads of {}", run.name),
        columns: columns.iter().map(|c| c.to_string()).collect(),
        rows,
    }
}

/// One row per host of a multi-host run: the machine, its figures over
/// its own measured time, its clock against the controller's (the offset,
/// known within half the probe's round trip, and when its run clock
/// started against the instant asked for) and when it was lost.
pub fn hosts_table(run: &RunResult) -> Table {
    let columns = [
        "host",
        "hostname",
        "IOPS",
        "MB/s",
        "mean us",
        "p99 us",
        "p99.9 us",
        "errors",
        "clock offset us",
        "offset within us",
        "start us",
        "lost at s",
        "complete",
        "note",
    ];
    let rows = run
        .hosts
        .iter()
        .map(|h| {
            let t = &h.run.summary.total;
            vec![
                json!(h.host),
                json!(h.host_info.hostname),
                num(t.iops),
                num(t.mbps),
                num(t.lat_us.mean),
                num(t.lat_us.p99),
                num(t.lat_us.p99_9),
                json!(h.run.errors_total),
                num(h.clock.offset_us),
                num(h.clock.rtt_us / 2.0),
                h.clock.start_us.map_or(Value::Null, num),
                h.lost.as_ref().map_or(Value::Null, |l| num(l.at_s)),
                json!(h.lost.is_none() && h.run.complete),
                json!(match (&h.lost, &h.run.incomplete_reason) {
                    (Some(l), _) => format!("lost: {}", l.reason),
                    (None, Some(r)) => r.clone(),
                    (None, None) => String::new(),
                }),
            ]
        })
        .collect();
    Table {
        title: format!("Hosts of {}", run.name),
        columns: columns.iter().map(|c| c.to_string()).collect(),
        rows,
    }
}

/// The start skew of a multi-host run and how well the clocks were
/// known: `hosts started within 0.21 ms of each other (clock offsets
/// known within ±0.05 ms)`; `None` for a run on one host.
pub fn skew_text(run: &RunResult) -> Option<String> {
    if run.hosts.is_empty() {
        return None;
    }
    let within = run
        .hosts
        .iter()
        .map(|h| h.clock.rtt_us / 2.0)
        .fold(0.0, f64::max);
    let known = format!("clock offsets known within ±{:.2} ms", within / 1e3);
    Some(match run.start_skew_us {
        Some(s) => format!(
            "hosts started within {:.2} ms of each other ({known})",
            s / 1e3
        ),
        None => format!(
            "{} hosts; start skew not measured ({known})",
            run.hosts.len()
        ),
    })
}

/// One row per run: what ran and its main figures.
pub fn runs_table(doc: &ResultDoc) -> Table {
    let axes = axis_names(doc);
    let columns = [
        "#",
        "name",
        "params",
        "rw",
        "bs",
        "qd",
        "jobs",
        "IOPS",
        "MB/s",
        "mean us",
        "p99 us",
        "CPU us/IO",
        "errors",
        "complete",
    ];
    let rows = doc
        .runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let t = &r.summary.total;
            vec![
                json!(i + 1),
                json!(r.name),
                json!(params_text(&r.params, &axes)),
                json!(per_workload_text(r, rw_text)),
                json!(bs_text(r)),
                per_workload_num(r, |s| s.qd),
                per_workload_num(r, |s| s.jobs),
                num(t.iops),
                num(t.mbps),
                num(t.lat_us.mean),
                num(t.lat_us.p99),
                num(r.summary.cpu.usec_per_io),
                json!(r.errors_total),
                json!(r.complete),
            ]
        })
        .collect();
    Table {
        title: "Runs".into(),
        columns: columns.iter().map(|s| s.to_string()).collect(),
        rows,
    }
}

/// One row per point of a plan, each figure the mean over its repetitions;
/// with repetitions also the standard deviation, min, max and coefficient
/// of variation of IOPS, the sd of MB/s and p99, and whether the spread is
/// large. `None` when the document has no points.
pub fn points_table(doc: &ResultDoc) -> Option<Table> {
    if doc.points.is_empty() {
        return None;
    }
    let axes = axis_names(doc);
    let repeats = doc.points.iter().any(|p| p.iops.n > 1);
    let mut columns: Vec<String> = vec!["point".into(), "name".into()];
    columns.extend(axes.iter().cloned());
    columns.push("n".into());
    let spread_cols = |name: &str| -> Vec<String> {
        if repeats {
            vec![
                name.to_string(),
                format!("{name} sd"),
                format!("{name} min"),
                format!("{name} max"),
                format!("{name} CV %"),
            ]
        } else {
            vec![name.to_string()]
        }
    };
    columns.extend(spread_cols("IOPS"));
    columns.push("MB/s".into());
    if repeats {
        columns.push("MB/s sd".into());
    }
    columns.push("mean us".into());
    columns.push("p99 us".into());
    if repeats {
        columns.push("p99 us sd".into());
        columns.push("spread".into());
    }
    let rows = doc
        .points
        .iter()
        .map(|p| point_row(p, &axes, repeats))
        .collect();
    let title = if repeats {
        "Points (mean over repetitions)"
    } else {
        "Points"
    };
    Some(Table {
        title: title.into(),
        columns,
        rows,
    })
}

fn point_row(p: &PointSummary, axes: &[String], repeats: bool) -> Vec<Value> {
    let mut row = vec![json!(p.index), json!(p.name)];
    for a in axes {
        row.push(p.params.get(a).map_or(Value::Null, |v| json!(v)));
    }
    row.push(json!(p.iops.n));
    let mut spread = |s: &Spread, full: bool| {
        row.push(num_n(s.mean, s.n));
        if repeats {
            row.push(num_n(s.sd, s.n));
            if full {
                row.push(num_n(s.min, s.n));
                row.push(num_n(s.max, s.n));
                row.push(num_n(s.cv_pct, s.n));
            }
        }
    };
    spread(&p.iops, true);
    spread(&p.mbps, false);
    row.push(num_n(p.lat_mean_us.mean, p.lat_mean_us.n));
    row.push(num_n(p.lat_p99_us.mean, p.lat_p99_us.n));
    if repeats {
        row.push(num_n(p.lat_p99_us.sd, p.lat_p99_us.n));
        row.push(json!(if p.spread_large { "large" } else { "" }));
    }
    row
}

/// A finite number as a JSON number, anything else as null.
pub fn num(v: f64) -> Value {
    if v.is_finite() {
        json!(v)
    } else {
        Value::Null
    }
}

/// A figure of a spread over `n` values: null when there were none.
fn num_n(v: f64, n: u32) -> Value {
    if n == 0 {
        Value::Null
    } else {
        num(v)
    }
}

/// A number for reading: whole numbers from 100 up, then 1, 2 or 3
/// significant decimals as the value gets smaller.
pub fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        return String::new();
    }
    let a = v.abs();
    let s = if a >= 100.0 || a == 0.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        // Three significant digits below 1.
        let d = (-a.log10().floor()) as usize + 2;
        format!("{v:.d$}", d = d.min(9))
    };
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

/// A number for CSV: integers as they are, others rounded to three
/// decimals with trailing zeros cut.
pub fn csv_num(v: f64) -> String {
    if !v.is_finite() {
        return String::new();
    }
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return format!("{v:.0}");
    }
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// A cell as text for reading (Markdown, HTML): numbers through
/// [`fmt_num`], booleans as yes/no, null as empty.
pub fn cell_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Bool(b) => (if *b { "yes" } else { "no" }).into(),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, Some(f)) => fmt_num(f),
            _ => n.to_string(),
        },
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn csv_cell(v: &Value) -> String {
    let text = match v {
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, Some(f)) => csv_num(f),
            _ => n.to_string(),
        },
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    csv_quote(&text)
}

/// RFC 4180: quote a field holding a comma, a quote or a line break, and
/// double its quotes. (Ten lines; not worth a dependency.)
pub fn csv_quote(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Markdown table cell: no line breaks; backslashes, `|`, `<` and `>`
/// escaped (a run name must not become a column or HTML where the
/// Markdown is rendered).
fn md_cell(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('<', "\\<")
        .replace('>', "\\>")
        .replace(['\n', '\r'], " ")
}

/// Whether a column holds numbers (then it is right-aligned).
pub fn numeric_column(t: &Table, col: usize) -> bool {
    let mut any = false;
    for r in &t.rows {
        match r.get(col) {
            Some(Value::Number(_)) => any = true,
            Some(Value::Null) | None => {}
            Some(_) => return false,
        }
    }
    any
}

/// One table as GitHub-flavoured Markdown, under a `###` heading.
pub fn table_markdown(t: &Table) -> String {
    let mut s = String::new();
    if !t.title.is_empty() {
        let _ = writeln!(s, "### {}\n", md_cell(&t.title));
    }
    let _ = writeln!(
        s,
        "| {} |",
        t.columns
            .iter()
            .map(|c| md_cell(c))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let align: Vec<&str> = (0..t.columns.len())
        .map(|i| if numeric_column(t, i) { "---:" } else { "---" })
        .collect();
    let _ = writeln!(s, "|{}|", align.join("|"));
    for r in &t.rows {
        let cells: Vec<String> = (0..t.columns.len())
            .map(|i| md_cell(&r.get(i).map(cell_text).unwrap_or_default()))
            .collect();
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
    s
}

/// One table as CSV: a header line, then one line per row.
pub fn table_csv(t: &Table) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}",
        t.columns
            .iter()
            .map(|c| csv_quote(c))
            .collect::<Vec<_>>()
            .join(",")
    );
    for r in &t.rows {
        let cells: Vec<String> = (0..t.columns.len())
            .map(|i| r.get(i).map(csv_cell).unwrap_or_default())
            .collect();
        let _ = writeln!(s, "{}", cells.join(","));
    }
    s
}

/// A short title for a document: the study's, or what ran.
pub fn document_title(doc: &ResultDoc) -> String {
    if let Some(s) = &doc.study {
        if !s.title.is_empty() {
            return s.title.clone();
        }
        return format!("iolab study {}", s.name);
    }
    if let Some(p) = &doc.plan {
        let axes: Vec<&str> = p.axes.iter().map(|a| a.name.as_str()).collect();
        if !axes.is_empty() {
            return format!("iolab sweep over {}", axes.join(", "));
        }
    }
    match doc.runs.len() {
        0 => "iolab result".into(),
        1 => format!("iolab run {}", doc.runs[0].name),
        n => format!("iolab runs ({n})"),
    }
}

/// The document as Markdown: a heading, where and how it ran, a study's
/// conclusions, then every table.
pub fn document_markdown(doc: &ResultDoc) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {}\n", md_cell(&document_title(doc)));
    let _ = writeln!(
        s,
        "- command: `{}`",
        doc.command.join(" ").replace('`', "'")
    );
    let h = &doc.host;
    let _ = writeln!(
        s,
        "- host: {} ({}, kernel {}, {} CPUs, {} memory)",
        md_cell(&h.hostname),
        md_cell(if h.os.is_empty() { "unknown OS" } else { &h.os }),
        md_cell(&h.kernel),
        h.cpus,
        format_bytes(h.memory_bytes)
    );
    let _ = writeln!(
        s,
        "- started {}, finished {}; {}",
        doc.started_at,
        doc.finished_at
            .as_deref()
            .unwrap_or("never (still running or killed)"),
        if doc.complete {
            "complete"
        } else {
            "INCOMPLETE"
        }
    );
    if let Some(st) = &doc.study {
        if !st.conclusions.is_empty() {
            let _ = writeln!(s, "\n## Conclusions\n");
            for c in &st.conclusions {
                let _ = writeln!(s, "- {}", c.replace('\n', " "));
            }
        }
    }
    for t in document_tables(doc) {
        let _ = writeln!(s);
        s.push_str(&table_markdown(&t));
    }
    s
}

/// Every table of the document as CSV, one block per table: its title on a
/// line of its own, the header and rows, then an empty line. With one table
/// only (no study, no plan) the block is a plain CSV file after its title
/// line.
pub fn document_csv(doc: &ResultDoc) -> String {
    let mut s = String::new();
    for (i, t) in document_tables(doc).iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        let _ = writeln!(s, "{}", csv_quote(&t.title));
        s.push_str(&table_csv(t));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_multi_host_run_gets_a_hosts_table_in_markdown_and_csv() {
        let r = crate::testraw::two_hosts();
        let doc = ResultDoc {
            runs: vec![r.clone()],
            ..Default::default()
        };
        let t = document_tables(&doc);
        let hosts = t.iter().find(|t| t.title == "Hosts of shared").unwrap();
        for c in &hosts.columns {
            assert!(column_has_unit(c, &[]), "column {c:?}");
        }
        // CSV: the block under the table's title; its numbers parse back
        // to each host's figures.
        let csv = document_csv(&doc);
        let block = csv.split("Hosts of shared\n").nth(1).unwrap();
        let mut lines = block.lines();
        let head: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
        for (line, h) in lines.zip(&r.hosts) {
            let cells: Vec<&str> = line.split(',').collect();
            assert_eq!(cells[col("host")], h.host);
            let n = |c: &str| cells[col(c)].parse::<f64>().unwrap();
            let tot = &h.run.summary.total;
            assert!((n("IOPS") - tot.iops).abs() < 1e-3, "{line}");
            assert!((n("p99 us") - tot.lat_us.p99).abs() < 1e-3, "{line}");
            assert_eq!(n("offset within us"), h.clock.rtt_us / 2.0);
        }
        let md = document_markdown(&doc);
        assert!(md.contains("| h2 | h2.lab |"), "{md}");
        // A local run has none.
        let local = ResultDoc {
            runs: vec![crate::build_run(&crate::testraw::host_run(
                1, 5, 1000, 2000,
            ))],
            ..Default::default()
        };
        assert!(!document_tables(&local)
            .iter()
            .any(|t| t.title.starts_with("Hosts")));
    }

    #[test]
    fn numbers_for_reading_and_for_csv() {
        assert_eq!(fmt_num(95801.655), "95802");
        assert_eq!(fmt_num(392.4035), "392");
        assert_eq!(fmt_num(41.731), "41.7");
        assert_eq!(fmt_num(2.9549), "2.95");
        assert_eq!(fmt_num(0.012345), "0.0123");
        assert_eq!(fmt_num(0.0), "0");
        assert_eq!(fmt_num(-0.0001), "-0.000100");
        assert_eq!(fmt_num(f64::NAN), "");
        assert_eq!(csv_num(95801.65504663152), "95801.655");
        assert_eq!(csv_num(4.0), "4");
        assert_eq!(csv_num(2.5), "2.5");
        assert_eq!(csv_num(-0.0001), "0");
    }

    /// A document with a sweep (repeated or not), devices, errors, advice
    /// and data validation findings: every kind of table there is.
    fn rich_doc(repeat: u32) -> ResultDoc {
        use crate::model::*;
        use crate::study::testing::{doc, run, spec};
        let mut runs = Vec::new();
        for (point, qd) in [1u32, 4].into_iter().enumerate() {
            for rep in 1..=repeat {
                let mut sp = spec("randread-1");
                sp.qd = qd;
                let mut r = run(sp, 1000.0 * (qd + rep) as f64, 4.0, 100.0);
                r.point = Some(point as u32);
                r.repeat = Some(rep);
                r.params.insert("qd".into(), qd.to_string());
                runs.push(r);
            }
        }
        let r = &mut runs[0];
        r.devices = Some(DeviceStats {
            summary: vec![iolab_devices::DeviceRow {
                device: "sdb".into(),
                stats: Default::default(),
            }],
            ..Default::default()
        });
        r.advice.push(iolab_devices::Finding {
            code: "c".into(),
            severity: iolab_devices::Severity::Info,
            device: "sdb".into(),
            seen: "seen".into(),
            why: "why.".into(),
            fix: "fix".into(),
        });
        r.errors_total = 1;
        r.errors.push(IoError {
            target: "/t".into(),
            offset: 0,
            len: 4096,
            op: "read".into(),
            errno: 5,
            error: "EIO".into(),
            time_s: 0.5,
            worker: 0,
        });
        let mut d = doc(runs);
        d.plan = Some(PlanInfo {
            axes: vec![Axis {
                name: "qd".into(),
                values: vec!["1".into(), "4".into()],
            }],
            points: 2,
            repeat,
            pause_s: 0.0,
            runs_planned: 2 * repeat,
            estimated_s: 0.0,
        });
        d.points = crate::summarize_points(&d);
        d
    }

    #[test]
    fn fs_workloads_add_their_operation_tables_with_units() {
        let raw = iolab_raw::RunRaw::single(crate::testraw::fs_workload("fsrv"));
        let d = ResultDoc {
            runs: vec![crate::build_run(&raw)],
            ..Default::default()
        };
        let tables = document_tables(&d);
        let ops = tables
            .iter()
            .find(|t| t.title == "Operations of fsrv/fsrv")
            .expect("an operations table");
        assert_eq!(ops.rows.len(), 8);
        for t in &tables {
            for c in &t.columns {
                assert!(column_has_unit(c, &[]), "{}: column {c:?}", t.title);
            }
        }
        assert!(table_markdown(ops).contains("| stat |"));
        let runs = runs_table(&d);
        assert_eq!(
            runs.rows[0][3], "fileserver",
            "the rw column names the personality"
        );
    }

    #[test]
    fn every_table_column_has_a_unit() {
        for repeat in [1, 3] {
            let d = rich_doc(repeat);
            let axes = axis_names(&d);
            let tables = document_tables(&d);
            assert!(tables.len() >= 2);
            for t in &tables {
                for c in &t.columns {
                    assert!(column_has_unit(c, &axes), "{}: column {c:?}", t.title);
                }
            }
            // The HTML report: every column head of every table in it.
            let html = crate::html::document_report(&d);
            let heads: Vec<&str> = html
                .split("<thead>")
                .skip(1)
                .filter_map(|t| t.split_once("</thead>").map(|x| x.0))
                .flat_map(|t| t.split("<th").skip(1))
                .filter_map(|h| h.split_once('>').and_then(|(_, r)| r.split_once("</th>")))
                .map(|(c, _)| c)
                .collect();
            for want in ["p99 us", "rareq-sz kB", "offset bytes", "r_await ms"] {
                assert!(heads.contains(&want), "{want} not in {heads:?}");
            }
            for c in &heads {
                assert!(column_has_unit(c, &axes), "HTML report: column {c:?}");
            }
            // The terminal: the summary of a run and the points table.
            let run_text = crate::terminal::summary(&d.runs[0]);
            let header = run_text.lines().nth(1).unwrap();
            let words: Vec<&str> = header.split_whitespace().collect();
            for p in ["p50", "p90", "p99", "p99.9", "p99.99"] {
                let at = words.iter().position(|w| *w == p).unwrap();
                assert_eq!(words[at + 1], "us", "{header}");
            }
            let points = crate::terminal::points_table(&d);
            let head = points.lines().next().unwrap();
            for c in head.split("  ").map(str::trim).filter(|c| !c.is_empty()) {
                let c = c.trim_end_matches(" mean ± sd");
                assert!(column_has_unit(c, &axes), "points table: column {c:?}");
            }
        }
        assert!(crate::terminal::interval_header().contains("p99 us"));
        // The check itself can fail.
        assert!(!column_has_unit("p99", &[]));
        assert!(!column_has_unit("before", &[]));
        assert!(!column_has_unit("reclen", &[]));
    }

    #[test]
    fn csv_and_markdown_escape_their_separators() {
        assert_eq!(csv_quote("a,b"), "\"a,b\"");
        assert_eq!(csv_quote("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_quote("plain"), "plain");
        let t = Table {
            title: "T|x".into(),
            columns: vec!["a|b".into(), "n".into()],
            rows: vec![
                vec![json!("x|y\nz"), json!(1.5)],
                vec![json!("<w>"), Value::Null],
            ],
        };
        let md = table_markdown(&t);
        assert_eq!(
            md,
            "### T\\|x\n\n| a\\|b | n |\n|---|---:|\n| x\\|y z | 1.50 |\n| \\<w\\> |  |\n"
        );
        assert_eq!(table_csv(&t), "a|b,n\n\"x|y\nz\",1.5\n<w>,\n");
    }
}
