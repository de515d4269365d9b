//! The comparison as model charts: overlaid curves for sweeps, grouped
//! bars for the other entries.

use super::{doc_axes, entry_label, CompareResult, Entry, Figures, FIGURES};
use crate::html::{axis_number, axis_title};
use crate::model::{Chart, ResultDoc, Series};

/// The swept parameter to draw on x: of the first document whose plan has
/// one, the fastest-varying axis with more than one value, all numeric.
fn x_param(docs: &[(String, String, &ResultDoc)]) -> Option<String> {
    docs.iter().find_map(|(_, _, d)| {
        d.plan.as_ref().and_then(|p| {
            p.axes
                .iter()
                .rev()
                .find(|a| a.values.len() > 1 && a.values.iter().all(|v| axis_number(v).is_some()))
                .map(|a| a.name.clone())
        })
    })
}

/// Per series, per x: the min and max of a point's repetitions.
pub type Ranges = Vec<Vec<Option<(f64, f64)>>>;

/// Up to this many lines in a sweep (combinations of the other swept
/// values), each gets its own charts with one curve per document.
pub const MAX_CHART_GROUPS: usize = 6;

/// A point on a curve: its document, x (number and text), the line it
/// belongs to, and its figures.
struct CurvePoint<'a> {
    doc: usize,
    x: f64,
    x_text: String,
    group: String,
    figures: &'a Figures,
}

/// The x value and line of an entry: its swept values without x.
fn on_curve(
    e: &Entry,
    x: &str,
    docs: &[(String, String, &ResultDoc)],
) -> Option<(f64, String, String)> {
    let v = e.params.get(x)?;
    let n = axis_number(v)?;
    let mut rest = e.params.clone();
    rest.remove(x);
    Some((
        n,
        v.clone(),
        entry_label(&e.name, &rest, &doc_axes(docs[e.doc].2)),
    ))
}

/// The charts: for sweeps, one line chart per figure with the swept
/// parameter on x and one line per document (per combination of the other
/// swept values), unmatched points included so each document's curve is
/// whole; for matched rows off any curve, grouped bars per figure.
pub(super) fn charts(
    res: &CompareResult,
    docs: &[(String, String, &ResultDoc)],
) -> (Vec<Chart>, Vec<Ranges>) {
    let mut charts = Vec::new();
    let mut ranges = Vec::new();
    let nd = res.documents.len();
    let xp = x_param(docs);
    let mut points: Vec<CurvePoint> = Vec::new();
    let mut bars: Vec<usize> = Vec::new();
    for (ri, r) in res.rows.iter().enumerate() {
        // A row's line is the one of its first entry on the curve, so its
        // documents' points land on lines of the same name.
        let hit = xp.as_ref().and_then(|x| {
            r.entries
                .iter()
                .flatten()
                .find_map(|e| on_curve(e, x, docs))
        });
        match hit {
            Some((n, v, group)) => {
                for e in r.entries.iter().flatten() {
                    points.push(CurvePoint {
                        doc: e.doc,
                        x: n,
                        x_text: v.clone(),
                        group: group.clone(),
                        figures: &e.figures,
                    });
                }
            }
            None => bars.push(ri),
        }
    }
    if let Some(x) = &xp {
        for u in &res.unmatched {
            if let Some((n, v, group)) = on_curve(&u.entry, x, docs) {
                points.push(CurvePoint {
                    doc: u.entry.doc,
                    x: n,
                    x_text: v,
                    group,
                    figures: &u.entry.figures,
                });
            }
        }
    }
    if let (Some(x), false) = (&xp, points.is_empty()) {
        let mut xs: Vec<(f64, String)> = Vec::new();
        for p in &points {
            if !xs.iter().any(|(m, _)| *m == p.x) {
                xs.push((p.x, p.x_text.clone()));
            }
        }
        xs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut groups: Vec<&str> = Vec::new();
        for p in &points {
            if !groups.contains(&p.group.as_str()) {
                groups.push(&p.group);
            }
        }
        let (mn, mx) = (xs[0].0, xs[xs.len() - 1].0);
        let log_x = mn > 0.0 && mx / mn >= 8.0;
        // A chart per line of the sweep, so before and after are the only
        // curves on it (colours pair up); with many lines, one chart per
        // figure holds them all.
        let per_group = groups.len() <= MAX_CHART_GROUPS;
        let chart_sets: Vec<Vec<&str>> = if per_group {
            groups.iter().map(|g| vec![*g]).collect()
        } else {
            vec![groups.clone()]
        };
        for f in FIGURES {
            for set in &chart_sets {
                let mut series = Vec::new();
                let mut rg = Vec::new();
                for g in set {
                    for d in 0..nd {
                        let mut values = vec![None; xs.len()];
                        let mut r_ = vec![None; xs.len()];
                        for p in points.iter().filter(|p| p.doc == d && p.group == *g) {
                            let xi = xs.iter().position(|(m, _)| *m == p.x).unwrap_or(0);
                            let s = p.figures.get(f);
                            if s.n > 0 {
                                values[xi] = Some(s.mean);
                            }
                            if s.n > 1 {
                                r_[xi] = Some((s.min, s.max));
                            }
                        }
                        if values.iter().all(Option::is_none) {
                            continue;
                        }
                        let doc = &res.documents[d].label;
                        series.push(Series {
                            name: if set.len() == 1 {
                                doc.clone()
                            } else {
                                format!("{doc}: {g}")
                            },
                            values,
                        });
                        rg.push(r_);
                    }
                }
                let repeats = rg.iter().flatten().any(Option::is_some);
                let mut title = format!("{} by {x}", f.title());
                if set.len() == 1 && groups.len() > 1 {
                    title.push_str(&format!(", {}", set[0]));
                }
                if repeats {
                    title.push_str(" (mean; bars: min to max)");
                }
                charts.push(Chart {
                    kind: "line".into(),
                    title,
                    x_label: axis_title(x),
                    y_label: f.title().into(),
                    log_x,
                    x: xs.iter().map(|(_, v)| v.clone()).collect(),
                    x_values: xs.iter().map(|(n, _)| *n).collect(),
                    series,
                    marks: Vec::new(),
                });
                ranges.push(rg);
            }
        }
    }
    if !bars.is_empty() {
        for f in FIGURES {
            let mut series = Vec::new();
            let mut rg = Vec::new();
            for d in 0..nd {
                let mut values = Vec::new();
                let mut r_ = Vec::new();
                for &ri in &bars {
                    let s = res.rows[ri].entries[d].as_ref().map(|e| e.figures.get(f));
                    values.push(s.filter(|s| s.n > 0).map(|s| s.mean));
                    r_.push(s.filter(|s| s.n > 1).map(|s| (s.min, s.max)));
                }
                series.push(Series {
                    name: res.documents[d].label.clone(),
                    values,
                });
                rg.push(r_);
            }
            let repeats = rg.iter().flatten().any(Option::is_some);
            charts.push(Chart {
                kind: "bar".into(),
                title: format!(
                    "{}{}",
                    f.title(),
                    if repeats {
                        " (mean; bars: min to max)"
                    } else {
                        ""
                    }
                ),
                x_label: "workload".into(),
                y_label: f.title().into(),
                log_x: false,
                x: bars.iter().map(|&ri| res.rows[ri].label.clone()).collect(),
                x_values: Vec::new(),
                series,
                marks: Vec::new(),
            });
            ranges.push(rg);
        }
    }
    (charts, ranges)
}
