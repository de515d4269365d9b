//! Named studies (docs/studies.md): from a document's runs to the study's
//! tables, charts, figures and conclusions. Pure computation, redone after
//! every run, so a study cut short still holds the table of what ran.
//!
//! A study's runs are told apart by their workload name (their role:
//! `seq-read`, `rand-write-cached`, `rewrite`, ...) and by the resolved
//! parameter the study varies (block size, outstanding I/Os, streams and
//! targets, file size), read from each run's spec. That works whether or
//! not the plan was a sweep, and repetitions of a point are averaged.

mod corners;
mod iozone;
pub mod iozone_text;
mod ladders;
mod streams;

use crate::model::{ResultDoc, RunResult, StudyResult, Table};
use crate::points::{spread, LARGE_CV_PCT};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write;

pub use corners::{Corner, CORNERS};
pub use iozone::{selected as iozone_selected, IozoneTest, IOZONE_TESTS};
pub use ladders::{flatten_index, knee_index};

/// The studies `iolab study NAME` knows, in the order the docs list them.
pub const NAMES: [&str; 5] = ["bs-ladder", "qd-ladder", "corners", "streams", "iozone"];

/// Workload names of the bs-ladder's two directions.
pub const SEQ_READ: &str = "seq-read";
pub const SEQ_WRITE: &str = "seq-write";
/// Workload name of the streams study's runs: `streams-N/M`.
pub const STREAMS: &str = "streams";

/// The name of a streams run: `streams-16/4` (16 streams over 4 targets),
/// so that `iolab compare` pairs the points of two streams studies by name.
pub fn streams_name(n: u32, m: u32) -> String {
    format!("{STREAMS}-{n}/{m}")
}

/// The name of an iozone run: the test, the file size and the record
/// size, `rewrite-32g/128k` (so `iolab compare` pairs the cells of two
/// matrices by name).
pub fn iozone_name(test: &str, file: u64, record: u64) -> String {
    format!("{test}-{}/{}", short_size(file), short_size(record))
}

/// The iozone test of a run's name (`random-read-4m/64k` -> `random-read`).
pub(crate) fn iozone_test(name: &str) -> Option<usize> {
    let (test, _) = name.rsplit_once('-')?;
    IOZONE_TESTS.iter().position(|t| t.name == test)
}

/// The qd-ladder's latency bound: a factor of the p99 at the smallest
/// queue depth (QD 1), or an absolute time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum P99Bound {
    Factor(f64),
    Micros(f64),
}

impl P99Bound {
    /// `2x`, `1.5x`, `5ms`, `800us`. Errors are one line naming the flag.
    pub fn parse(s: &str) -> Result<P99Bound, String> {
        let t = s.trim();
        if let Some(f) = t.strip_suffix(['x', 'X']) {
            return match f.trim().parse::<f64>() {
                Ok(v) if v.is_finite() && v >= 1.0 => Ok(P99Bound::Factor(v)),
                _ => Err(format!(
                    "--p99-bound {s}: a factor must be a number of at least 1 followed by x, e.g. 2x"
                )),
            };
        }
        match iolab_spec::parse_duration(t) {
            Ok(d) if d.as_secs_f64() > 0.0 => Ok(P99Bound::Micros(d.as_secs_f64() * 1e6)),
            _ => Err(format!(
                "--p99-bound {s}: give a factor of the QD 1 p99 (2x) or a time (5ms, 800us)"
            )),
        }
    }

    pub fn text(&self) -> String {
        match self {
            P99Bound::Factor(f) => format!("{}x", trim_num(*f)),
            P99Bound::Micros(us) => format!("{} us", trim_num(*us)),
        }
    }
}

/// Which study, with the settings its computation needs.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// Flattening: a step to the next block size adding less than
    /// `flat_pct` percent of MB/s.
    BsLadder {
        flat_pct: f64,
    },
    QdLadder {
        bound: P99Bound,
    },
    Corners,
    Streams,
    Iozone,
}

impl Kind {
    pub fn name(&self) -> &'static str {
        match self {
            Kind::BsLadder { .. } => "bs-ladder",
            Kind::QdLadder { .. } => "qd-ladder",
            Kind::Corners => "corners",
            Kind::Streams => "streams",
            Kind::Iozone => "iozone",
        }
    }

    pub fn title(&self) -> &'static str {
        match self {
            Kind::BsLadder { .. } => "Sequential throughput by block size",
            Kind::QdLadder { .. } => "Random IOPS and latency by outstanding I/Os",
            Kind::Corners => "The corners: read and write, sequential and random, cached and not",
            Kind::Streams => "Concurrent sequential streams over targets",
            Kind::Iozone => "iozone matrix: record size by file size",
        }
    }
}

/// A study as planned: what it is and its settings after overrides
/// (stored in the document as they were given).
#[derive(Debug, Clone, PartialEq)]
pub struct Study {
    pub kind: Kind,
    pub settings: BTreeMap<String, String>,
}

/// The study's result from the document's finished runs.
pub fn compute(study: &Study, doc: &ResultDoc) -> StudyResult {
    let mut r = StudyResult {
        name: study.kind.name().into(),
        title: study.kind.title().into(),
        settings: study.settings.clone(),
        ..Default::default()
    };
    let runs = &doc.runs;
    let spreads = match &study.kind {
        Kind::BsLadder { flat_pct } => ladders::bs_ladder(runs, *flat_pct, &mut r),
        Kind::QdLadder { bound } => ladders::qd_ladder(runs, *bound, &mut r),
        Kind::Corners => corners::corners(runs, &mut r),
        Kind::Streams => streams::streams(runs, &mut r),
        Kind::Iozone => iozone::iozone(runs, &mut r),
    };
    if doc.runs.is_empty() {
        r.conclusions.push("No run has finished yet.".into());
    }
    let large: Vec<String> = spreads
        .iter()
        .filter(|(_, n, cv)| *n > 1 && *cv > LARGE_CV_PCT)
        .map(|(label, _, cv)| format!("{label} (CV {cv:.0} %)"))
        .collect();
    if !large.is_empty() {
        r.conclusions.push(format!(
            "The spread over repetitions is large (CV above {LARGE_CV_PCT:.0} %) at {}: treat those figures with care.",
            large.join(", ")
        ));
    }
    r
}

/// A point's label, its number of runs and the CV of its main figure:
/// what the large-spread note needs.
pub(crate) type SpreadNote = (String, u32, f64);

/// Runs grouped by a key, in order of first appearance. Runs that measured
/// nothing (failed before their first I/O) are left out.
pub(crate) fn groups<K: PartialEq + Clone>(
    runs: &[RunResult],
    key: impl Fn(&RunResult) -> Option<K>,
) -> Vec<(K, Vec<&RunResult>)> {
    let mut out: Vec<(K, Vec<&RunResult>)> = Vec::new();
    for r in runs.iter().filter(|r| r.measured_s > 0.0) {
        let Some(k) = key(r) else { continue };
        match out.iter_mut().find(|(q, _)| *q == k) {
            Some((_, v)) => v.push(r),
            None => out.push((k, vec![r])),
        }
    }
    out
}

/// Mean of a figure over a point's runs, with its run count and CV.
pub(crate) fn mean_of(runs: &[&RunResult], f: impl Fn(&RunResult) -> f64) -> (f64, u32, f64) {
    let s = spread(&runs.iter().map(|r| f(r)).collect::<Vec<_>>());
    (s.mean, s.n, s.cv_pct)
}

/// The first block size of a run (studies use one size per run).
pub(crate) fn bs_of(r: &RunResult) -> u64 {
    r.spec
        .as_ref()
        .and_then(|s| s.bs.first())
        .map(|b| b.bytes)
        .unwrap_or(0)
}

/// A size as the flags take it: `16k`, `1m`, `2g`, or bytes.
pub fn short_size(b: u64) -> String {
    const UNITS: [(u64, &str); 4] = [
        (1 << 40, "t"),
        (1 << 30, "g"),
        (1 << 20, "m"),
        (1 << 10, "k"),
    ];
    for (u, s) in UNITS {
        if b >= u && b.is_multiple_of(u) {
            return format!("{}{s}", b / u);
        }
    }
    b.to_string()
}

/// A number for a table cell, rounded to `decimals` (null when not finite).
pub(crate) fn cell(v: f64, decimals: i32) -> Value {
    if !v.is_finite() {
        return Value::Null;
    }
    let p = 10f64.powi(decimals);
    let x = (v * p).round() / p;
    if decimals <= 0 {
        Value::from(x as i64)
    } else {
        Value::from(x)
    }
}

pub(crate) fn opt_cell(v: Option<f64>, decimals: i32) -> Value {
    v.map_or(Value::Null, |x| cell(x, decimals))
}

/// A number without a trailing `.0`: `2`, `1.5`.
pub(crate) fn trim_num(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `12 345` and `1234` for whole figures (SI: digits grouped from five
/// on), one decimal below 100.
pub(crate) fn fig(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    if v.abs() < 100.0 {
        return format!("{v:.1}");
    }
    let s = format!("{:.0}", v.abs());
    if s.len() <= 4 {
        return format!("{v:.0}");
    }
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(' ');
        }
        out.push(c);
    }
    if v < 0.0 {
        format!("-{out}")
    } else {
        out
    }
}

/// A cell as text for the terminal.
fn cell_text(v: &Value) -> String {
    match v {
        Value::Null => "-".into(),
        Value::String(s) => s.clone(),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) if i.abs() < 10_000 => i.to_string(),
            (Some(i), _) => fig(i as f64),
            (None, Some(f)) if f.abs() >= 100.0 => fig(f),
            (None, Some(f)) => format!("{f:.1}"),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

/// A table as aligned text: numbers right-aligned, text left-aligned.
pub fn table_text(t: &Table) -> String {
    let rows: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|r| r.iter().map(cell_text).collect())
        .collect();
    let numeric: Vec<bool> = (0..t.columns.len())
        .map(|c| {
            t.rows
                .iter()
                .all(|r| !matches!(r.get(c), Some(Value::String(_))))
        })
        .collect();
    let widths: Vec<usize> = (0..t.columns.len())
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .chain([t.columns[c].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| {
        let mut s = String::new();
        for (c, w) in widths.iter().enumerate() {
            let v = cells.get(c).map(String::as_str).unwrap_or("");
            let pad = w.saturating_sub(v.chars().count());
            if c > 0 {
                s.push_str("  ");
            }
            if numeric[c] {
                s.push_str(&" ".repeat(pad));
                s.push_str(v);
            } else {
                s.push_str(v);
                s.push_str(&" ".repeat(pad));
            }
        }
        s.trim_end().to_string()
    };
    let mut out = format!("{}\n", t.title);
    out.push_str(&line(&t.columns));
    out.push('\n');
    for r in &rows {
        out.push_str(&line(r));
        out.push('\n');
    }
    out
}

/// The study for the terminal: title, tables, conclusions.
pub fn study_text(s: &StudyResult) -> String {
    let mut out = format!("study {}: {}\n", s.name, s.title);
    for t in &s.tables {
        out.push('\n');
        out.push_str(&table_text(t));
    }
    if !s.conclusions.is_empty() {
        out.push('\n');
        for c in &s.conclusions {
            let _ = writeln!(out, "- {c}");
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod testing {
    //! Synthetic runs for the studies' unit tests.
    use crate::model::*;
    use iolab_spec::*;

    pub fn spec(name: &str) -> WorkloadSpec {
        WorkloadSpec::example(name, "/t/a", "read")
    }

    /// A finished run of `spec` with these totals.
    pub fn run(spec: WorkloadSpec, iops: f64, mbps: f64, p99_us: f64) -> RunResult {
        let targets = spec
            .targets
            .iter()
            .map(|t| TargetResult {
                path: t.path.clone(),
                kind: "file".into(),
                size: t.size.unwrap_or(1 << 30),
                region_start: 0,
                region_len: t.size.unwrap_or(1 << 30),
                logical_block_size: 512,
                created: false,
                prefilled_bytes: 0,
                prefill_s: 0.0,
                measured: None,
            })
            .collect();
        let mut total = DirResult {
            iops,
            mbps,
            ops: iops as u64,
            bytes: (mbps * 1e6) as u64,
            ..Default::default()
        };
        total.lat_us.p99 = p99_us;
        total.lat_us.mean = p99_us / 2.0;
        RunResult {
            name: spec.name.clone(),
            effective: Some(Effective {
                engine: "io_uring".into(),
                registered_buffers: false,
                registered_files: false,
                ring_flags: String::new(),
                clock: String::new(),
                direct: spec.direct,
                qd: spec.qd,
                jobs: spec.jobs,
            }),
            spec: Some(spec),
            targets,
            started_at: String::new(),
            complete: true,
            incomplete_reason: None,
            warmup_s: 0.0,
            measured_s: 1.0,
            summary: Summary {
                read: total.clone(),
                write: total.clone(),
                total,
                ..Default::default()
            },
            intervals: vec![],
            stalls: Stalls::default(),
            errors: vec![],
            error_counts: vec![],
            errors_total: 0,
            latency_histograms: Histograms::default(),
            notes: vec![],
            verify: None,
            devices: None,
            advice: vec![],
            point: None,
            repeat: None,
            params: Default::default(),
            curve: None,
            workloads: vec![],
            events: vec![],
            hosts: vec![],
            start_skew_us: None,
        }
    }

    /// Every column of a study's tables says its unit or is a label
    /// (see `tables::column_has_unit`).
    pub fn assert_units(tables: &[Table]) {
        assert!(!tables.is_empty());
        for t in tables {
            for c in &t.columns {
                assert!(
                    crate::tables::column_has_unit(c, &[]),
                    "{}: column {c:?} has no unit",
                    t.title
                );
            }
        }
    }

    pub fn doc(runs: Vec<RunResult>) -> ResultDoc {
        let mut d = ResultDoc::new();
        d.runs = runs;
        d
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;

    #[test]
    fn bound_parses_factors_and_times() {
        assert_eq!(P99Bound::parse("2x"), Ok(P99Bound::Factor(2.0)));
        assert_eq!(P99Bound::parse("1.5X"), Ok(P99Bound::Factor(1.5)));
        assert_eq!(P99Bound::parse("5ms"), Ok(P99Bound::Micros(5000.0)));
        assert_eq!(P99Bound::parse("800us"), Ok(P99Bound::Micros(800.0)));
        for bad in ["0.5x", "x", "fast", "0ms", "-2x"] {
            let e = P99Bound::parse(bad).unwrap_err();
            assert!(e.starts_with("--p99-bound") && !e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn sizes_print_as_flags_take_them() {
        assert_eq!(short_size(16 << 10), "16k");
        assert_eq!(short_size(2 << 20), "2m");
        assert_eq!(short_size(3 << 30), "3g");
        assert_eq!(short_size(1536 << 10), "1536k");
        assert_eq!(short_size(1000), "1000");
    }

    #[test]
    fn table_text_aligns_numbers_right_and_text_left() {
        let t = Table {
            title: "T".into(),
            columns: vec!["name".into(), "IOPS".into()],
            rows: vec![
                vec![Value::from("a"), cell(12345.4, 0)],
                vec![Value::from("long name"), Value::Null],
            ],
        };
        let s = table_text(&t);
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines[0], "T");
        assert_eq!(lines[1], "name         IOPS");
        assert_eq!(lines[2], "a          12 345");
        assert_eq!(lines[3], "long name       -");
    }

    #[test]
    fn large_spread_is_noted_with_its_point() {
        let mut s = spec(SEQ_READ);
        s.bs[0].bytes = 16 << 10;
        let runs = vec![run(s.clone(), 10.0, 100.0, 5.0), run(s, 10.0, 150.0, 5.0)];
        let st = Study {
            kind: Kind::BsLadder { flat_pct: 10.0 },
            settings: Default::default(),
        };
        let r = compute(&st, &doc(runs));
        assert!(
            r.conclusions.iter().any(|c| c.contains("seq-read 16k")),
            "{:?}",
            r.conclusions
        );
        let r = compute(&st, &doc(vec![]));
        assert!(r.conclusions[0].contains("No run"));
    }
}
