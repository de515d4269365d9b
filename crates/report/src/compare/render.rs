//! A comparison as text for the terminal, as Markdown, CSV or a
//! self-contained HTML report. Functions return strings; the binary decides
//! where they go.

use super::{differs_text, CompareResult, Figure, Verdict, FIGURES};
use crate::html::{ChartExtras, Page};
use crate::tables::{csv_quote, fmt_num, table_csv, table_markdown};
use std::fmt::Write;

/// `before.json (host h, 2025-01-01T10:00:00Z, 16 runs: 8 points x 2)`.
fn doc_line(res: &CompareResult, d: usize) -> String {
    let doc = &res.documents[d];
    let mut s = format!(
        "{}, host {}, started {}, {} run{}",
        doc.path,
        doc.hostname,
        doc.started_at,
        doc.runs,
        if doc.runs == 1 { "" } else { "s" }
    );
    if let Some(r) = doc.repeat.filter(|r| *r > 1) {
        let _ = write!(s, " ({} points x {r})", doc.entries);
    }
    if !doc.complete {
        s.push_str(", INCOMPLETE");
    }
    s
}

/// What was matched, and how significance is judged.
fn rule_line(res: &CompareResult) -> String {
    let mut s = format!(
        "{} workload{} matched by their parameters, {} not matched",
        res.rows.len(),
        if res.rows.len() == 1 { "" } else { "s" },
        res.unmatched.len()
    );
    if !res.ignored.is_empty() {
        let _ = write!(s, " (ignoring {})", res.ignored.join(", "));
    }
    let _ = write!(
        s,
        ". A change is significant when a two-sided test at {:.0} % puts it beyond the run-to-run spread: Welch's t-test with repetitions on both sides, a prediction interval with one run on a side.",
        100.0 * (1.0 - res.alpha)
    );
    s
}

/// `1234 ± 56`, or `1234` for one run, `-` for none.
fn value_cell(s: Option<&crate::model::Spread>) -> String {
    match s {
        Some(s) if s.n > 1 => format!("{} ± {}", fmt_num(s.mean), fmt_num(s.sd)),
        Some(s) if s.n == 1 => fmt_num(s.mean),
        _ => "-".into(),
    }
}

fn pct_cell(p: Option<f64>) -> String {
    match p {
        // No sign on a change that rounds to nothing.
        Some(p) if p.is_finite() && (p * 10.0).round() == 0.0 => "0.0 %".into(),
        Some(p) if p.is_finite() => format!("{p:+.1} %"),
        _ => "-".into(),
    }
}

/// Columns padded to their widest cell; the first left-aligned, values and
/// changes right-aligned, verdicts left-aligned.
fn align(rows: &[Vec<String>], right: &[bool]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let w: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|x| x.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut s = String::new();
    for r in rows {
        let mut line = String::new();
        for (c, x) in r.iter().enumerate() {
            if c > 0 {
                line.push_str("  ");
            }
            let pad = w[c].saturating_sub(x.chars().count());
            if right.get(c).copied().unwrap_or(false) {
                line.push_str(&" ".repeat(pad));
                line.push_str(x);
            } else {
                line.push_str(x);
                if c + 1 < r.len() {
                    line.push_str(&" ".repeat(pad));
                }
            }
        }
        let _ = writeln!(s, "{}", line.trim_end());
    }
    s
}

/// One table per figure: each document's mean (± sd with repetitions),
/// then per other document the change and its verdict.
fn figure_text(res: &CompareResult, f: Figure) -> String {
    let rows: Vec<&super::Row> = res.rows.iter().flat_map(|r| r.with_workloads()).collect();
    figure_rows_text(res, f, (f.title(), f.unit()), &rows)
}

/// [`figure_text`] of `rows` under `title`.
fn figure_rows_text(
    res: &CompareResult,
    f: Figure,
    (title, unit): (&str, &str),
    rows: &[&super::Row],
) -> String {
    let base = &res.documents[0].label;
    let mut head = vec!["workload".to_string(), format!("{base} {unit}")];
    let mut right = vec![false, true];
    for d in res.documents.iter().skip(1) {
        head.push(format!("{} {unit}", d.label));
        head.push("change".into());
        head.push(format!("{} vs {base}", d.label));
        right.extend([true, true, false]);
    }
    let mut lines = vec![head];
    for r in rows {
        let mut cells = vec![r.label.clone()];
        for (d, e) in r.entries.iter().enumerate() {
            cells.push(value_cell(e.as_ref().map(|e| e.figures.get(f))));
            if d > 0 {
                match r.change(d, f) {
                    Some(c) => {
                        cells.push(pct_cell(c.change_pct));
                        cells.push(c.verdict_text());
                    }
                    None => {
                        cells.push("-".into());
                        cells.push("not in this document".into());
                    }
                }
            }
        }
        lines.push(cells);
    }
    format!(
        "{title} ({} is better)\n{}",
        if f.higher_is_better() {
            "higher"
        } else {
            "lower"
        },
        align(&lines, &right)
    )
}

/// The operations of file-system workloads, one table per figure, and
/// the fileset counters; empty without file-system workloads.
fn fs_text(res: &CompareResult) -> String {
    let mut s = String::new();
    let rows: Vec<&super::Row> = res
        .rows
        .iter()
        .flat_map(|r| r.with_workloads())
        .flat_map(|r| r.operations.iter())
        .collect();
    for (f, rows) in super::ops::op_tables(&rows) {
        let _ = writeln!(s);
        let title = (super::ops::op_title(f), super::ops::op_unit(f));
        s.push_str(&figure_rows_text(res, f, title, &rows));
    }
    if let Some(t) = res
        .tables
        .iter()
        .find(|t| t.title.starts_with("Fileset counters"))
    {
        let mut lines = vec![t.columns.clone()];
        lines.extend(
            t.rows
                .iter()
                .map(|r| r.iter().map(crate::tables::cell_text).collect()),
        );
        let right: Vec<bool> = (0..t.columns.len()).map(|c| c > 1).collect();
        let _ = writeln!(s, "\n{}", t.title);
        s.push_str(&align(&lines, &right));
    }
    s
}

/// Per other document and figure: how many rows got better, worse, or
/// stayed within the spread.
fn tally(res: &CompareResult) -> String {
    let mut s = String::new();
    let base = &res.documents[0].label;
    for d in 1..res.documents.len() {
        let _ = writeln!(s, "{} vs {base}:", res.documents[d].label);
        let mut rows = Vec::new();
        for f in FIGURES {
            let mut counts: Vec<String> = Vec::new();
            for v in [
                Verdict::Better,
                Verdict::Worse,
                Verdict::NotSignificant,
                Verdict::SpreadUnknown,
                Verdict::NoData,
            ] {
                let n = res
                    .rows
                    .iter()
                    .filter_map(|r| r.change(d, f))
                    .filter(|c| c.verdict == v)
                    .count();
                if n > 0 {
                    counts.push(match v {
                        Verdict::SpreadUnknown => format!("{n} of one run each (spread unknown)"),
                        _ => format!("{n} {}", v.text()),
                    });
                }
            }
            if counts.is_empty() {
                counts.push("nothing matched".into());
            }
            rows.push(vec![format!("  {}", f.title()), counts.join(", ")]);
        }
        s.push_str(&align(&rows, &[false, false]));
    }
    s
}

/// The unmatched entries, one line each, with the nearest entry and how
/// their parameters differ.
fn unmatched_text(res: &CompareResult) -> String {
    if res.unmatched.is_empty() {
        return "Every workload matched.\n".into();
    }
    let mut s = String::from("Not matched (listed, not compared):\n");
    for u in &res.unmatched {
        let e = &u.entry;
        let _ = write!(
            s,
            "  {}: {} ({} run{})",
            res.documents[e.doc].label,
            e.label,
            e.runs.len(),
            if e.runs.len() == 1 { "" } else { "s" }
        );
        match (&u.nearest, u.nearest_doc) {
            (Some(n), Some(d)) => {
                let _ = writeln!(
                    s,
                    "; nearest in {}: {n}, differs in {}",
                    res.documents[d].label,
                    differs_text(&u.differs)
                );
            }
            _ => {
                let _ = writeln!(s, "; the other documents hold no runs");
            }
        }
    }
    s
}

/// The comparison for a terminal.
pub fn text(res: &CompareResult) -> String {
    let mut s = String::new();
    if res.documents.is_empty() {
        return s;
    }
    let _ = writeln!(
        s,
        "iolab compare: {} documents, the first is the baseline",
        res.documents.len()
    );
    let rows: Vec<Vec<String>> = (0..res.documents.len())
        .map(|d| vec![format!("  {}", res.documents[d].label), doc_line(res, d)])
        .collect();
    s.push_str(&align(&rows, &[false, false]));
    let _ = writeln!(s, "{}", rule_line(res));
    if !res.rows.is_empty() {
        for f in FIGURES {
            let _ = writeln!(s);
            s.push_str(&figure_text(res, f));
        }
        s.push_str(&fs_text(res));
    }
    let _ = writeln!(s);
    s.push_str(&unmatched_text(res));
    for n in &res.notes {
        let _ = writeln!(s, "note: {n}");
    }
    if !res.rows.is_empty() {
        let _ = writeln!(s);
        s.push_str(&tally(res));
    }
    s
}

/// The comparison as Markdown: the documents, the rule, every table.
pub fn markdown(res: &CompareResult) -> String {
    let mut s = String::from("# iolab compare\n\n");
    for d in 0..res.documents.len() {
        let _ = writeln!(
            s,
            "- {}{}: {}",
            res.documents[d].label,
            if d == 0 { " (baseline)" } else { "" },
            doc_line(res, d)
        );
    }
    let _ = writeln!(s, "\n{}", rule_line(res));
    for t in &res.tables {
        let _ = writeln!(s);
        s.push_str(&table_markdown(t));
    }
    if !res.notes.is_empty() {
        let _ = writeln!(s);
        for n in &res.notes {
            let _ = writeln!(s, "- note: {n}");
        }
    }
    s
}

/// Every table as CSV, one block each: its title on a line of its own, the
/// header and rows, then an empty line (as `iolab report --format csv`).
pub fn csv(res: &CompareResult) -> String {
    let mut s = String::new();
    for (i, t) in res.tables.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        let _ = writeln!(s, "{}", csv_quote(&t.title));
        s.push_str(&table_csv(t));
    }
    s
}

/// The comparison as one self-contained HTML page: the documents, the
/// overlaid curves (or grouped bars), the tables, what did not match.
pub fn html(res: &CompareResult) -> String {
    let labels: Vec<&str> = res.documents.iter().map(|d| d.label.as_str()).collect();
    let mut p = Page::new(&format!("iolab compare: {}", labels.join(" vs ")));
    let docs: Vec<(String, String)> = (0..res.documents.len())
        .map(|d| {
            (
                format!(
                    "{}{}",
                    res.documents[d].label,
                    if d == 0 { " (baseline)" } else { "" }
                ),
                doc_line(res, d),
            )
        })
        .collect();
    p.key_values("Documents", &docs);
    for (d, doc) in res.documents.iter().enumerate() {
        if !doc.command.is_empty() {
            p.paragraph(&format!("{}:", res.documents[d].label));
            p.code(&doc.command.join(" "));
        }
    }
    p.paragraph(&rule_line(res));
    if res.rows.is_empty() {
        p.warning("No workload matched: nothing to compare. The table below lists every workload with the nearest one in the other documents.");
    }
    if !res.charts.is_empty() {
        p.heading(2, "Charts");
        for (i, c) in res.charts.iter().enumerate() {
            let ex = ChartExtras {
                errors: res.chart_ranges.get(i).cloned().unwrap_or_default(),
                ..Default::default()
            };
            p.chart_with(c, &ex);
        }
    }
    if !res.rows.is_empty() {
        p.heading(2, "Figures");
    }
    let unmatched_title = "Not matched";
    for t in &res.tables {
        if t.title == unmatched_title {
            p.heading(2, "Not matched (listed, not compared)");
        }
        p.table(t);
    }
    if res.unmatched.is_empty() {
        p.paragraph("Every workload matched.");
    }
    if !res.notes.is_empty() {
        p.heading(2, "Notes");
        p.list(&res.notes);
    }
    p.finish()
}
