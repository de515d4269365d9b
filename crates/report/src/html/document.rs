//! What `iolab report` writes for a result document: where and how it ran,
//! a study's conclusions, tables and charts, a sweep's curves and points
//! (and its response-time curves),
//! the runs table, then each run in detail.

use super::charts::{
    curve_charts, device_charts, percentile_chart, runs_bar_charts, sweep_charts, time_charts,
};
use super::Page;
use crate::model::{ResultDoc, RunResult, Table, VerifyResult};
use crate::tables::{
    axis_names, document_title, fmt_num, num, params_text, points_table, runs_table,
};
use serde_json::{json, Value};

/// Above this many runs, each run's section starts collapsed.
const OPEN_RUNS_MAX: usize = 1;

/// The whole report of a result document, as one HTML string.
pub fn document_report(doc: &ResultDoc) -> String {
    let mut p = Page::new(&document_title(doc));
    header(&mut p, doc);
    if let Some(st) = &doc.study {
        p.heading(
            2,
            &format!(
                "Study: {}",
                if st.title.is_empty() {
                    &st.name
                } else {
                    &st.title
                }
            ),
        );
        if !st.conclusions.is_empty() {
            p.list(&st.conclusions);
        }
        for t in &st.tables {
            p.table(t);
        }
        for c in &st.charts {
            p.chart(c);
        }
        if !st.settings.is_empty() {
            let kv: Vec<(String, String)> = st
                .settings
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            p.key_values("Study settings", &kv);
        }
    }
    if let Some(plan) = &doc.plan {
        p.heading(2, "Sweep");
        p.paragraph(&plan_summary(doc, plan));
        for (c, ex) in sweep_charts(doc).into_iter().chain(curve_charts(doc)) {
            p.chart_with(&c, &ex);
        }
        if let Some(t) = points_table(doc) {
            p.table(&t);
        }
    }
    p.heading(2, "Runs");
    if doc.runs.is_empty() {
        p.paragraph("The document holds no runs.");
    } else {
        let mut t = runs_table(doc);
        t.title.clear(); // the heading says it
        p.table(&t);
        for (c, ex) in runs_bar_charts(doc) {
            p.chart_with(&c, &ex);
        }
    }
    if let Some(v) = &doc.verify {
        p.heading(2, "Data validation");
        verify_section(&mut p, v);
    }
    if !doc.runs.is_empty() {
        p.heading(2, "Each run");
        let axes = axis_names(doc);
        for (i, r) in doc.runs.iter().enumerate() {
            run_section(&mut p, doc, i, r, &axes);
        }
    }
    p.finish()
}

fn header(p: &mut Page, doc: &ResultDoc) {
    if !doc.command.is_empty() {
        p.code(&doc.command.join(" "));
    }
    if !doc.complete {
        let why: Vec<String> = doc
            .runs
            .iter()
            .filter_map(|r| {
                r.incomplete_reason
                    .as_ref()
                    .map(|w| format!("{}: {w}", r.name))
            })
            .collect();
        let mut text = "This document is incomplete: iolab was still running, was stopped, or a run did not finish".to_string();
        if let Some(plan) = &doc.plan {
            text.push_str(&format!(
                " ({} of {} planned runs are in it)",
                doc.runs.len(),
                plan.runs_planned
            ));
        }
        if !why.is_empty() {
            text.push_str(&format!(". {}", why.join("; ")));
        }
        text.push('.');
        p.warning(&text);
    }
    p.key_values(
        "Document",
        &[
            ("tool".into(), format!("{} {}", doc.tool, doc.tool_version)),
            ("started".into(), doc.started_at.clone()),
            (
                "finished".into(),
                doc.finished_at
                    .clone()
                    .unwrap_or_else(|| "never (still running, or killed)".into()),
            ),
            (
                "complete".into(),
                (if doc.complete { "yes" } else { "no" }).into(),
            ),
            ("runs".into(), doc.runs.len().to_string()),
        ],
    );
    p.host(&doc.host);
}

fn plan_summary(doc: &ResultDoc, plan: &crate::model::PlanInfo) -> String {
    let axes: Vec<String> = plan
        .axes
        .iter()
        .map(|a| format!("{} = {}", a.name, a.values.join(", ")))
        .collect();
    let mut s = if axes.is_empty() {
        "No parameter swept".to_string()
    } else {
        format!("Swept (outermost first): {}", axes.join("; "))
    };
    s.push_str(&format!(
        ". {} point{}, {} run{} each, {} runs planned, {} in this document; pause {} s between runs; estimated {} s.",
        plan.points,
        if plan.points == 1 { "" } else { "s" },
        plan.repeat,
        if plan.repeat == 1 { "" } else { "s" },
        plan.runs_planned,
        doc.runs.len(),
        fmt_num(plan.pause_s),
        fmt_num(plan.estimated_s)
    ));
    if doc.points.iter().any(|p| p.spread_large) {
        s.push_str(" Points marked \"large\" have a coefficient of variation of IOPS above 10 %.");
    }
    s
}

fn run_summary_line(i: usize, r: &RunResult, axes: &[String]) -> String {
    let t = &r.summary.total;
    let params = params_text(&r.params, axes);
    format!(
        "#{} {}{}: {} IOPS, {} MB/s, p99 {} us{}{}",
        i + 1,
        r.name,
        if params.is_empty() {
            String::new()
        } else {
            format!(" ({params})")
        },
        fmt_num(t.iops),
        fmt_num(t.mbps),
        fmt_num(t.lat_us.p99),
        if r.errors_total > 0 {
            format!(", {} errors", r.errors_total)
        } else {
            String::new()
        },
        if r.complete { "" } else { " [incomplete]" }
    )
}

/// A curve's run in words: the maximum, or its point's share and rate.
fn curve_text(c: &crate::model::CurveRecord) -> String {
    let mut s = match (c.pct, c.rate_iops, c.max_iops) {
        (Some(pct), Some(rate), Some(max)) => format!(
            "Curve {}: {} % of the {} IOPS that {} measured; the run's rate was {} IOPS.",
            c.name,
            fmt_num(pct),
            fmt_num(max),
            c.max_run,
            fmt_num(rate)
        ),
        _ => format!(
            "Curve {}: the run at the maximum rate, whose IOPS the curve's points take their percentages of.",
            c.name
        ),
    };
    if let Some(ms) = c.stop_ms {
        s.push_str(&format!(
            " The curve ends once a point's mean response time is above {} ms.",
            fmt_num(ms)
        ));
    }
    s
}

fn figures_table(r: &RunResult) -> Table {
    let columns = crate::tables::FIGURE_COLUMNS;
    let s = &r.summary;
    let mut rows = Vec::new();
    let mut row = |name: &str, d: &crate::model::DirResult| {
        let l = &d.lat_us;
        rows.push(vec![
            json!(name),
            json!(d.ops),
            num(d.iops),
            num(d.mbps),
            num(d.mibps),
            num(l.min),
            num(l.mean),
            num(l.p50),
            num(l.p90),
            num(l.p99),
            num(l.p99_9),
            num(l.p99_99),
            num(l.max),
        ]);
    };
    if r.shows_reads() {
        row("read", &s.read);
    }
    if r.shows_writes() {
        row("write", &s.write);
    }
    row("total", &s.total);
    Table {
        title: format!(
            "Figures over {} s measured{}",
            fmt_num(r.measured_s),
            if r.warmup_s > 0.0 {
                format!(" after {} s warm-up", fmt_num(r.warmup_s))
            } else {
                String::new()
            }
        ),
        columns: columns.iter().map(|c| c.to_string()).collect(),
        rows,
    }
}

fn run_section(p: &mut Page, doc: &ResultDoc, i: usize, r: &RunResult, axes: &[String]) {
    p.begin_section(
        &run_summary_line(i, r, axes),
        doc.runs.len() <= OPEN_RUNS_MAX,
    );
    if let Some(why) = &r.incomplete_reason {
        p.warning(&format!("Incomplete: {why}"));
    }
    if let Some(c) = &r.curve {
        p.paragraph(&curve_text(c));
    }
    p.table(&figures_table(r));
    if r.workloads.len() > 1 {
        p.table(&crate::tables::workloads_table(r));
    }
    super::hosts::hosts_section(p, r);
    crate::fs::tables::html_sections(p, r);
    let c = &r.summary.cpu;
    let mut line = format!(
        "CPU: user {} %, system {} % of one CPU; {} us of CPU per I/O.",
        fmt_num(c.user_pct),
        fmt_num(c.sys_pct),
        fmt_num(c.usec_per_io)
    );
    if let Some(rate) = &r.summary.rate {
        line.push_str(&format!(
            " Rate: requested {} IOPS, achieved {} IOPS.",
            fmt_num(rate.requested_iops),
            fmt_num(rate.achieved_iops)
        ));
    }
    if let Some(svc) = &r.summary.total.svc_lat_us {
        line.push_str(&format!(
            " Service time (submission to completion): mean {} us, p99 {} us; the table shows response time from each I/O's scheduled start.",
            fmt_num(svc.mean),
            fmt_num(svc.p99)
        ));
    }
    p.paragraph(&line);
    p.paragraph(&stall_text(r));
    if !r.events.is_empty() {
        p.heading(4, "Events (dashed lines in the charts over time)");
        let ev: Vec<String> = r
            .events
            .iter()
            .map(|e| format!("{:.3} s, {}: {}", e.time_s, e.source, e.label))
            .collect();
        p.list(&ev);
    }
    for (c, ex) in time_charts(r) {
        p.chart_with(&c, &ex);
    }
    if let Some((c, ex)) = percentile_chart(r) {
        p.chart_with(&c, &ex);
    }
    if let Some(d) = &r.devices {
        if !d.summary.is_empty() {
            p.heading(4, "Devices (iostat -x over the measured time)");
            p.table(&device_table(d));
            for (c, ex) in device_charts(r) {
                p.chart_with(&c, &ex);
            }
        }
        let notes: Vec<String> = d
            .count_notes
            .iter()
            .map(|n| format!("{} ({}): {}", n.device, n.code, n.text))
            .chain(d.notes.iter().cloned())
            .chain(
                d.missing
                    .iter()
                    .map(|m| format!("{m}: not in /proc/diskstats")),
            )
            .collect();
        p.list(&notes);
    }
    if !r.advice.is_empty() {
        p.heading(4, "Advice");
        p.table(&Table {
            title: String::new(),
            columns: ["severity", "code", "device", "seen", "why", "fix"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            rows: r
                .advice
                .iter()
                .map(|a| {
                    vec![
                        json!(a.severity.as_str()),
                        json!(a.code),
                        json!(a.device),
                        json!(a.seen),
                        json!(a.why),
                        json!(a.fix),
                    ]
                })
                .collect(),
        });
    }
    if let Some(v) = &r.verify {
        p.heading(4, "Data validation");
        verify_section(p, v);
    }
    if r.errors_total > 0 {
        p.heading(4, &format!("Errors: {}", r.errors_total));
        let counts: Vec<String> = r
            .error_counts
            .iter()
            .map(|c| format!("{} x {} (errno {})", c.count, c.error, c.errno))
            .collect();
        p.list(&counts);
        p.table(&Table {
            title: format!("The first {}", r.errors.len().min(50)),
            columns: [
                "time s",
                "target",
                "op",
                "offset bytes",
                "length bytes",
                "error",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            rows: r
                .errors
                .iter()
                .take(50)
                .map(|e| {
                    // An open, stat or fsync has no offset: empty cells.
                    let ranged = iolab_raw::op_has_range(&e.op);
                    let at = |v: Value| if ranged { v } else { Value::Null };
                    vec![
                        num(e.time_s),
                        json!(e.target),
                        json!(e.op),
                        at(json!(e.offset)),
                        at(json!(e.len)),
                        json!(crate::errno_name(e.errno)),
                    ]
                })
                .collect(),
        });
    }
    if !r.notes.is_empty() {
        p.heading(4, "Notes");
        p.list(&r.notes);
    }
    p.heading(4, "Parameters");
    let views = r.workload_views();
    if views.is_empty() {
        p.paragraph("No workload: the devices were monitored only.");
    }
    for w in &views {
        let mut kv = Vec::new();
        if let Ok(v) = serde_json::to_value(&w.spec) {
            flatten("", &v, &mut kv);
        }
        let mut eff = Vec::new();
        if let Ok(v) = serde_json::to_value(&w.effective) {
            flatten("", &v, &mut eff);
        }
        if views.len() == 1 {
            p.key_values("Workload as it ran (spec)", &kv);
            p.key_values("Settings that took effect", &eff);
        } else {
            p.key_values(&format!("Workload {} as it ran (spec)", w.name), &kv);
            p.key_values(
                &format!("Workload {}: settings that took effect", w.name),
                &eff,
            );
        }
    }
    p.table(&targets_table(r));
    p.end_section();
}

fn stall_text(r: &RunResult) -> String {
    let st = &r.stalls;
    let mut s = if st.provisional {
        "Longest gap with no completion: not known (gaps are analysed when a run ends)".to_string()
    } else {
        format!(
            "Longest gap with no completion: {}{} ms",
            if st.exact { "" } else { "at most " },
            fmt_num(st.longest_gap_ms)
        )
    };
    if let (Some(a), Some(b)) = (st.longest_gap_start_s, st.longest_gap_end_s) {
        s.push_str(&format!(" (from {a:.3} s to {b:.3} s)"));
    }
    if st.provisional {
        // No stall list before the gap analysis.
    } else if st.events.is_empty() {
        s.push_str(&format!(
            "; no stall of {} ms or more",
            fmt_num(st.threshold_ms)
        ));
    } else {
        let marks = crate::terminal::EventIndex::new(&r.events);
        let ev: Vec<String> = st
            .events
            .iter()
            .map(|e| {
                let after = marks
                    .before(e.start_s)
                    .map(|m| {
                        format!(
                            ", {:.1} s after {} '{}'",
                            e.start_s - m.time_s,
                            m.source,
                            m.label
                        )
                    })
                    .unwrap_or_default();
                format!(
                    "{:.3} s to {:.3} s ({} ms{after})",
                    e.start_s,
                    e.end_s,
                    fmt_num(e.duration_ms)
                )
            })
            .collect();
        s.push_str(&format!("; stalls: {}", ev.join(", ")));
    }
    if st.zero_intervals.is_empty() {
        s.push_str("; every measured interval had completions.");
    } else {
        s.push_str(&format!(
            "; intervals with no completion: {}.",
            st.zero_intervals
                .iter()
                .map(|z| z.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    s.push_str(
        " Shaded red in the charts: stalls and intervals without a completion; grey: warm-up.",
    );
    s
}

fn device_table(d: &crate::model::DeviceStats) -> Table {
    let columns = crate::tables::DEVICE_COLUMNS;
    Table {
        title: String::new(),
        columns: columns.iter().map(|c| c.to_string()).collect(),
        rows: d
            .summary
            .iter()
            .map(|r| {
                let t = &r.stats;
                vec![
                    json!(r.device),
                    num(t.r_s),
                    num(t.w_s),
                    num(t.rkb_s),
                    num(t.wkb_s),
                    num(t.rareq_sz),
                    num(t.wareq_sz),
                    num(t.r_await),
                    num(t.w_await),
                    num(t.aqu_sz),
                    num(t.util_pct),
                ]
            })
            .collect(),
    }
}

fn targets_table(r: &RunResult) -> Table {
    Table {
        title: "Targets".into(),
        columns: [
            "path",
            "kind",
            "size bytes",
            "region start bytes",
            "region length bytes",
            "logical block bytes",
            "created",
            "prefilled bytes",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        rows: r
            .targets
            .iter()
            .map(|t| {
                vec![
                    json!(t.path),
                    json!(t.kind),
                    json!(t.size),
                    json!(t.region_start),
                    json!(t.region_len),
                    json!(t.logical_block_size),
                    json!(t.created),
                    json!(t.prefilled_bytes),
                ]
            })
            .collect(),
    }
}

fn verify_section(p: &mut Page, v: &VerifyResult) {
    p.paragraph(
        crate::terminal::verify_summary(v)
            .lines()
            .next()
            .unwrap_or(""),
    );
    let classes: Vec<(String, String)> = v
        .by_class
        .iter()
        .map(|(k, n)| (k.clone(), n.to_string()))
        .collect();
    if v.findings_total > 0 {
        p.key_values("Findings by class", &classes);
        p.table(&Table {
            title: format!("The first {} findings", v.findings.len().min(50)),
            columns: ["class", "target", "offset bytes", "summary"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            rows: v
                .findings
                .iter()
                .take(50)
                .map(|f| {
                    vec![
                        json!(f.class.name()),
                        json!(f.target),
                        json!(f.offset),
                        json!(f.summary),
                    ]
                })
                .collect(),
        });
    }
}

/// A JSON value as dotted keys and short values: `targets[0].path`,
/// `bs[0].bytes`; arrays of plain values joined with commas.
fn flatten(prefix: &str, v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, x, out);
            }
        }
        Value::Array(a) if a.iter().all(|x| !x.is_object() && !x.is_array()) => {
            let items: Vec<String> = a.iter().map(scalar).collect();
            out.push((prefix.to_string(), items.join(", ")));
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                flatten(&format!("{prefix}[{i}]"), x, out);
            }
        }
        other => out.push((prefix.to_string(), scalar(other))),
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::Null => "none".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flatten_gives_dotted_keys() {
        let v = json!({"a": 1, "b": {"c": "x", "d": [1, 2]}, "e": [{"f": null}]});
        let mut out = Vec::new();
        flatten("", &v, &mut out);
        let want: Vec<(String, String)> = [
            ("a", "1"),
            ("b.c", "x"),
            ("b.d", "1, 2"),
            ("e[0].f", "none"),
        ]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        assert_eq!(out, want);
    }
}
