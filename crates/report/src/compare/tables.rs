//! The comparison as model tables: one per figure, then the unmatched
//! entries. Cells keep full-precision numbers (rounded only by the
//! renderings), except the change in percent (see below).

use super::ops::{counter_list, op_tables, op_title, op_unit};
use super::{CompareResult, Difference, Figure, Row, FIGURES};
use crate::model::Table;
use crate::tables::num;
use serde_json::{json, Value};

/// Whether any entry of a document has repetitions.
fn has_repeats(res: &CompareResult, doc: usize) -> bool {
    res.rows.iter().any(|r| {
        r.entries
            .get(doc)
            .and_then(|e| e.as_ref())
            .is_some_and(|e| e.figures.iops.n > 1)
    })
}

/// One table of figure `f` over `rows`: the mean per document (with sd
/// and n when there are repetitions), the change in percent and the
/// verdict against the baseline.
fn figure_table(
    res: &CompareResult,
    f: Figure,
    (title, unit): (String, &str),
    rows: &[&Row],
) -> Table {
    let base = res
        .documents
        .first()
        .map(|d| d.label.as_str())
        .unwrap_or("");
    let repeats: Vec<bool> = (0..res.documents.len())
        .map(|d| has_repeats(res, d))
        .collect();
    let mut columns = vec!["workload".to_string()];
    for (d, doc) in res.documents.iter().enumerate() {
        columns.push(format!("{} {unit}", doc.label));
        if repeats[d] {
            columns.push(format!("{} {unit} sd", doc.label));
            columns.push(format!("{} n", doc.label));
        }
        if d > 0 {
            columns.push(format!("{} change %", doc.label));
            columns.push(format!("{} vs {base}", doc.label));
        }
    }
    let rows = rows.iter().map(|r| figure_cells(r, f, &repeats)).collect();
    Table {
        title,
        columns,
        rows,
    }
}

fn figure_cells(r: &Row, f: Figure, repeats: &[bool]) -> Vec<Value> {
    let mut cells: Vec<Value> = vec![json!(r.label)];
    for (d, e) in r.entries.iter().enumerate() {
        let s = e.as_ref().map(|e| e.figures.get(f));
        cells.push(match s {
            Some(s) if s.n > 0 => num(s.mean),
            _ => Value::Null,
        });
        if repeats[d] {
            cells.push(match s {
                Some(s) if s.n > 1 => num(s.sd),
                _ => Value::Null,
            });
            cells.push(s.map_or(Value::Null, |s| json!(s.n)));
        }
        if d > 0 {
            match r.change(d, f) {
                Some(c) => {
                    // Rounded to 0.01 %: float noise would otherwise
                    // show 10 % as 9.99.
                    cells.push(
                        c.change_pct
                            .map_or(Value::Null, |p| num((p * 100.0).round() / 100.0)),
                    );
                    cells.push(json!(c.verdict_text()));
                }
                None => {
                    cells.push(Value::Null);
                    cells.push(json!("not in this document"));
                }
            }
        }
    }
    cells
}

/// `(ops/s by operation (higher is better))`.
fn better_title(title: &str, f: Figure) -> String {
    format!(
        "{title} ({} is better)",
        if f.higher_is_better() {
            "higher"
        } else {
            "lower"
        }
    )
}

/// One table per figure, then, for file-system workloads, one per
/// figure of the operations and the fileset counters; then the
/// unmatched entries.
pub(super) fn tables(res: &CompareResult) -> Vec<Table> {
    let mut out = Vec::new();
    let rows: Vec<&Row> = res.rows.iter().flat_map(|r| r.with_workloads()).collect();
    for f in FIGURES {
        out.push(figure_table(
            res,
            f,
            (better_title(f.title(), f), f.unit()),
            &rows,
        ));
    }
    let op_rows: Vec<&Row> = rows.iter().flat_map(|r| r.operations.iter()).collect();
    for (f, rows) in op_tables(&op_rows) {
        let title = (better_title(op_title(f), f), op_unit(f));
        out.push(figure_table(res, f, title, &rows));
    }
    if let Some(t) = fileset_table(res, &rows) {
        out.push(t);
    }
    if !res.unmatched.is_empty() {
        out.push(Table {
            title: "Not matched".into(),
            columns: ["document", "workload", "runs", "nearest", "differs in"]
                .map(String::from)
                .to_vec(),
            rows: res
                .unmatched
                .iter()
                .map(|u| {
                    vec![
                        json!(res.documents[u.entry.doc].label),
                        json!(u.entry.label),
                        json!(u.entry.runs.len()),
                        json!(match (&u.nearest, u.nearest_doc) {
                            (Some(n), Some(d)) => format!("{n} ({})", res.documents[d].label),
                            _ => String::new(),
                        }),
                        json!(differs_text(&u.differs)),
                    ]
                })
                .collect(),
        });
    }
    out
}

/// `qd: 8 here, 4 there; engine: psync here, io_uring there`.
pub fn differs_text(d: &[Difference]) -> String {
    d.iter()
        .map(|x| format!("{} {} vs {}", x.param, x.this, x.nearest))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The fileset counters of the rows that have them: a row per counter,
/// a column per document, and the change from the baseline in percent.
fn fileset_table(res: &CompareResult, rows: &[&Row]) -> Option<Table> {
    let rows: Vec<&&Row> = rows.iter().filter(|r| !r.fileset.is_empty()).collect();
    if rows.is_empty() {
        return None;
    }
    let mut columns = vec!["workload".to_string(), "what".to_string()];
    for (d, doc) in res.documents.iter().enumerate() {
        columns.push(format!("{} n", doc.label));
        if d > 0 {
            columns.push(format!("{} change %", doc.label));
        }
    }
    let mut out = Vec::new();
    for r in rows {
        let lists: Vec<Option<[(&str, u64); 7]>> = r
            .fileset
            .iter()
            .map(|c| c.as_ref().map(counter_list))
            .collect();
        for k in 0..7 {
            let base = lists.first().copied().flatten().map(|l| l[k].1);
            let name = lists.iter().flatten().next().map_or("", |l| l[k].0);
            let mut cells = vec![json!(r.label), json!(name)];
            for (d, l) in lists.iter().enumerate() {
                let v = l.map(|l| l[k].1);
                cells.push(v.map_or(Value::Null, |v| json!(v)));
                if d > 0 {
                    cells.push(match (base, v) {
                        (Some(b), Some(v)) if b > 0 => {
                            num(((v as f64 - b as f64) / b as f64 * 10000.0).round() / 100.0)
                        }
                        _ => Value::Null,
                    });
                }
            }
            out.push(cells);
        }
    }
    Some(Table {
        title: "Fileset counters (first run of each entry)".into(),
        columns,
        rows: out,
    })
}
