//! The comparison as model tables: one per figure, then the unmatched
//! entries. Cells keep full-precision numbers (rounded only by the
//! renderings), except the change in percent (see below).

use super::{CompareResult, Difference, FIGURES};
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

/// One table per figure: the mean per document (with sd and n when there
/// are repetitions), the change in percent and the verdict against the
/// baseline; then the unmatched entries.
pub(super) fn tables(res: &CompareResult) -> Vec<Table> {
    let nd = res.documents.len();
    let base = res
        .documents
        .first()
        .map(|d| d.label.as_str())
        .unwrap_or("");
    let repeats: Vec<bool> = (0..nd).map(|d| has_repeats(res, d)).collect();
    let mut out = Vec::new();
    for f in FIGURES {
        let mut columns = vec!["workload".to_string()];
        let unit = f.unit();
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
        let rows = res
            .rows
            .iter()
            .flat_map(|r| r.with_workloads())
            .map(|r| {
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
                                // Rounded to 0.01 %: float noise would
                                // otherwise show 10 % as 9.99.
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
            })
            .collect();
        out.push(Table {
            title: format!(
                "{} ({} is better)",
                f.title(),
                if f.higher_is_better() {
                    "higher"
                } else {
                    "lower"
                }
            ),
            columns,
            rows,
        });
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
