//! Before/after comparison of result documents (`iolab compare`): runs are
//! matched across documents by the parameters that define their workload,
//! and each figure is shown side by side with its change in percent and
//! whether that change is beyond the run-to-run spread.
//!
//! Matching (docs/compare.md). A document is first cut into *entries*: a
//! point of a plan (all its repetitions), or a run on its own when it has
//! no point. An entry's *key* is what defines its workload:
//! `read-pct random-pct bs qd jobs engine direct sync fsync-every
//! distribution hit-area read-hit-pct write-hit-pct data dedupe rate
//! verify`, plus any other parameter the document swept (`size`,
//! `duration`, ...). Target path, size, seed, duration and timestamps are
//! not in the key: a before/after pair often runs on another LUN or a
//! re-created file, for another length of time. The workload's name is not
//! in the key either, so renaming it does not break matching; it only
//! tells apart entries of one document whose keys are equal (then by name,
//! then in order). `--ignore PARAM` leaves parameters out of the key, to
//! compare, say, psync against io_uring (`--ignore engine`).
//!
//! The first document is the baseline. A row is a baseline entry with its
//! counterpart in each other document; entries left without one are listed
//! with the nearest entry of the baseline and how their keys differ.
//!
//! Pure computation: [`compare`] builds a [`CompareResult`] (tables and
//! charts of the model included); [`render`] turns it into text, Markdown,
//! CSV or HTML.

mod charts;
mod hosts;
mod key;
pub mod ops;
pub mod render;
pub mod stats;
mod tables;

use crate::model::{Chart, ResultDoc, RunResult, Spread, Table};
use crate::points::spread;
pub use charts::{Ranges, MAX_CHART_GROUPS};
pub use key::{run_key, FS_KEYS, KEY_PARAMS};
use serde::{Deserialize, Serialize};
pub use stats::{test_change, TestKind, TestResult, ALPHA};
use std::collections::BTreeMap;
pub use tables::differs_text;

/// The figures compared, in table order.
pub const FIGURES: [Figure; 5] = [
    Figure::Iops,
    Figure::Mbps,
    Figure::LatMeanUs,
    Figure::LatP99Us,
    Figure::CpuUsPerIo,
];

/// One compared figure of a run (of both directions together).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Figure {
    Iops,
    Mbps,
    LatMeanUs,
    LatP99Us,
    CpuUsPerIo,
}

impl Figure {
    pub fn title(self) -> &'static str {
        match self {
            Figure::Iops => "IOPS",
            Figure::Mbps => "MB/s",
            Figure::LatMeanUs => "mean latency, us",
            Figure::LatP99Us => "p99 latency, us",
            Figure::CpuUsPerIo => "CPU us per I/O",
        }
    }

    /// The unit of the figure's values, for column heads.
    pub fn unit(self) -> &'static str {
        match self {
            Figure::Iops => "IOPS",
            Figure::Mbps => "MB/s",
            Figure::LatMeanUs | Figure::LatP99Us | Figure::CpuUsPerIo => "us",
        }
    }

    /// Throughput is better higher; latency and CPU cost better lower.
    pub fn higher_is_better(self) -> bool {
        matches!(self, Figure::Iops | Figure::Mbps)
    }

    pub fn of_run(self, r: &RunResult) -> f64 {
        self.of_summary(&r.summary)
    }

    pub fn of_summary(self, s: &crate::model::Summary) -> f64 {
        let t = &s.total;
        match self {
            Figure::Iops => t.iops,
            Figure::Mbps => t.mbps,
            Figure::LatMeanUs => t.lat_us.mean,
            Figure::LatP99Us => t.lat_us.p99,
            Figure::CpuUsPerIo => s.cpu.usec_per_io,
        }
    }
}

/// The five figures of an entry over its runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    pub iops: Spread,
    pub mbps: Spread,
    pub lat_mean_us: Spread,
    pub lat_p99_us: Spread,
    pub cpu_us_per_io: Spread,
}

impl Figures {
    pub fn get(&self, f: Figure) -> &Spread {
        match f {
            Figure::Iops => &self.iops,
            Figure::Mbps => &self.mbps,
            Figure::LatMeanUs => &self.lat_mean_us,
            Figure::LatP99Us => &self.lat_p99_us,
            Figure::CpuUsPerIo => &self.cpu_us_per_io,
        }
    }

    /// Spreads over the runs that measured something (a run interrupted
    /// before its measured time began has no figures).
    pub fn of_runs(runs: &[&RunResult]) -> Figures {
        let sums: Vec<(f64, &crate::model::Summary)> =
            runs.iter().map(|r| (r.measured_s, &r.summary)).collect();
        Figures::of_summaries(&sums)
    }

    /// Spreads over (measured seconds, summary) pairs: runs, or one
    /// workload of each run.
    pub fn of_summaries(sums: &[(f64, &crate::model::Summary)]) -> Figures {
        let measured: Vec<&crate::model::Summary> = sums
            .iter()
            .filter(|(secs, _)| *secs > 0.0)
            .map(|(_, s)| *s)
            .collect();
        let s = |f: Figure| spread(&measured.iter().map(|r| f.of_summary(r)).collect::<Vec<_>>());
        Figures {
            iops: s(Figure::Iops),
            mbps: s(Figure::Mbps),
            lat_mean_us: s(Figure::LatMeanUs),
            lat_p99_us: s(Figure::LatP99Us),
            cpu_us_per_io: s(Figure::CpuUsPerIo),
        }
    }
}

/// A compared document.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct DocInfo {
    /// Short name in tables: the file name without `.json`.
    pub label: String,
    pub path: String,
    pub started_at: String,
    pub hostname: String,
    pub command: Vec<String>,
    pub complete: bool,
    pub runs: u32,
    pub entries: u32,
    /// Runs per point (`--repeat`), when the document has a plan.
    pub repeat: Option<u32>,
}

/// A point of a plan, or a run without one, in one document.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Entry {
    /// Index of its document.
    pub doc: usize,
    /// `name` and the swept values: `read-1 bs=64k qd=4`.
    pub label: String,
    pub name: String,
    /// The swept parameters' values.
    pub params: BTreeMap<String, String>,
    /// What matching compares (see the module documentation).
    pub key: BTreeMap<String, String>,
    /// Indexes into the document's `runs[]`.
    pub runs: Vec<u32>,
    /// Runs that did not complete (their figures cover less time).
    pub incomplete_runs: u32,
    pub figures: Figures,
}

/// How a figure changed from the baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Beyond the run-to-run spread, in the good direction.
    Better,
    /// Beyond the run-to-run spread, in the bad direction.
    Worse,
    /// Within the run-to-run spread.
    NotSignificant,
    /// One run on each side: the spread is unknown.
    SpreadUnknown,
    /// A side has no measured run.
    NoData,
}

impl Verdict {
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Better => "better",
            Verdict::Worse => "worse",
            Verdict::NotSignificant => "not significant",
            Verdict::SpreadUnknown => "n=1, spread unknown",
            Verdict::NoData => "no data",
        }
    }
}

/// One figure of one row in one document against the baseline.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Change {
    /// Index of the document compared with the baseline.
    pub doc: usize,
    pub figure: Figure,
    /// (mean - baseline mean) / baseline mean, percent; absent when the
    /// baseline's mean is 0 or either side has no data.
    pub change_pct: Option<f64>,
    pub test: TestResult,
    pub verdict: Verdict,
}

impl Change {
    /// The verdict as shown: `better (p 0.004)`, `not significant (p 0.41)`.
    pub fn verdict_text(&self) -> String {
        match (self.verdict, self.test.p) {
            (Verdict::Better | Verdict::Worse | Verdict::NotSignificant, Some(p)) => {
                format!("{} (p {})", self.verdict.text(), p_text(p))
            }
            (v, _) => v.text().to_string(),
        }
    }
}

/// A p-value for reading: `<0.001`, `0.004`, `0.052`, `0.41` (three
/// decimals below 0.1, so a value near 0.05 shows its side).
pub fn p_text(p: f64) -> String {
    if p < 0.001 {
        "<0.001".into()
    } else if p < 0.1 {
        format!("{p:.3}")
    } else {
        format!("{p:.2}")
    }
}

/// Judge one figure: percent change and verdict.
pub fn judge(figure: Figure, doc: usize, base: &Spread, other: &Spread) -> Change {
    let test = test_change(base, other);
    let no_data = base.n == 0 || other.n == 0;
    let change_pct = if no_data || base.mean == 0.0 {
        None
    } else {
        Some((other.mean - base.mean) / base.mean.abs() * 100.0)
    };
    let verdict = if no_data {
        Verdict::NoData
    } else if test.kind == TestKind::None {
        Verdict::SpreadUnknown
    } else if !test.significant() || other.mean == base.mean {
        Verdict::NotSignificant
    } else if (other.mean > base.mean) == figure.higher_is_better() {
        Verdict::Better
    } else {
        Verdict::Worse
    };
    Change {
        doc,
        figure,
        change_pct,
        test,
        verdict,
    }
}

/// A baseline entry and its counterparts.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    pub label: String,
    pub key: BTreeMap<String, String>,
    /// Per document, its entry (the baseline's always present).
    pub entries: Vec<Option<Entry>>,
    /// Per other document that has an entry, per figure.
    pub changes: Vec<Change>,
    /// For runs of several workloads: a row per workload of the baseline's
    /// run (label `run/workload`), its counterparts matched by name, else
    /// by position, in the matched runs. Empty for runs of one workload.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workloads: Vec<Row>,
    /// For runs on several hosts: a row per host of the baseline's run
    /// (label `row on HOST`), its counterparts the same host (by name) in
    /// the matched runs; a host on one side only is in `notes`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<Row>,
    /// For a file-system workload: a row per operation of the baseline's
    /// (label `row operation`), matched by operation name; changes of
    /// ops/s, MB/s, mean and p99 latency ([`ops::OP_FIGURES`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub operations: Vec<Row>,
    /// For a file-system workload: per document, the fileset counters of
    /// the entry's first run (`null` where it has none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fileset: Vec<Option<crate::model::FilesetCounts>>,
}

impl Row {
    /// This row, then its workload rows, then its host rows.
    pub fn with_workloads(&self) -> impl Iterator<Item = &Row> {
        std::iter::once(self)
            .chain(self.workloads.iter())
            .chain(self.hosts.iter())
    }

    /// The rows with fs figures: this row and its workload rows that
    /// have operation rows or fileset counters.
    pub fn fs_rows(&self) -> impl Iterator<Item = &Row> {
        self.with_workloads()
            .filter(|r| !r.operations.is_empty() || !r.fileset.is_empty())
    }

    pub fn change(&self, doc: usize, f: Figure) -> Option<&Change> {
        self.changes.iter().find(|c| c.doc == doc && c.figure == f)
    }
}

/// A key parameter that differs, as `param: this -> that`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Difference {
    pub param: String,
    /// Value in the unmatched entry (`-` when it has none).
    pub this: String,
    /// Value in the nearest entry.
    pub nearest: String,
}

/// An entry that found no counterpart.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Unmatched {
    pub entry: Entry,
    /// The closest entry of the document it was compared with (the
    /// baseline; for the baseline, the next document): fewest differing
    /// key parameters.
    pub nearest: Option<String>,
    pub nearest_doc: Option<usize>,
    pub differs: Vec<Difference>,
}

/// What `iolab compare` found: the documents, the matched rows with their
/// changes, what did not match, and the same as model tables and charts.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CompareResult {
    pub documents: Vec<DocInfo>,
    /// Key parameters left out with `--ignore`.
    pub ignored: Vec<String>,
    /// Significance level of the tests (0.05: 95 %).
    pub alpha: f64,
    pub rows: Vec<Row>,
    pub unmatched: Vec<Unmatched>,
    /// Incomplete runs, entries without measured runs, ...
    pub notes: Vec<String>,
    /// One table per figure, then the unmatched entries.
    pub tables: Vec<Table>,
    /// Line charts against the swept parameter (sweeps) and grouped bars
    /// (other entries), one per figure and kind.
    pub charts: Vec<Chart>,
    /// Per chart, per series, per x: the min and max over the repetitions
    /// (absent for single runs), for error bars.
    pub chart_ranges: Vec<Ranges>,
}

/// `name bs=16k qd=4`: the swept values in the plan's order.
fn entry_label(name: &str, params: &BTreeMap<String, String>, axes: &[String]) -> String {
    let mut l = name.to_string();
    for a in axes {
        if let Some(v) = params.get(a) {
            l.push_str(&format!(" {a}={v}"));
        }
    }
    for (k, v) in params {
        if !axes.contains(k) {
            l.push_str(&format!(" {k}={v}"));
        }
    }
    l
}

fn doc_axes(doc: &ResultDoc) -> Vec<String> {
    doc.plan
        .as_ref()
        .map(|p| p.axes.iter().map(|a| a.name.clone()).collect())
        .unwrap_or_default()
}

/// Cut a document into entries: one per point (its runs in order), one per
/// run without a point, in the order of their first run.
pub fn entries(doc: &ResultDoc, index: usize, ignore: &[String]) -> Vec<Entry> {
    let axes = doc_axes(doc);
    let mut groups: Vec<(Option<u32>, Vec<u32>)> = Vec::new();
    for (i, r) in doc.runs.iter().enumerate() {
        match r.point {
            Some(p) => match groups.iter_mut().find(|(q, _)| *q == Some(p)) {
                Some((_, v)) => v.push(i as u32),
                None => groups.push((Some(p), vec![i as u32])),
            },
            None => groups.push((None, vec![i as u32])),
        }
    }
    groups
        .into_iter()
        .map(|(_, idx)| {
            let runs: Vec<&RunResult> = idx.iter().map(|&i| &doc.runs[i as usize]).collect();
            let first = runs[0];
            Entry {
                doc: index,
                label: entry_label(&first.name, &first.params, &axes),
                name: first.name.clone(),
                params: first.params.clone(),
                key: run_key(first, ignore),
                incomplete_runs: runs.iter().filter(|r| !r.complete).count() as u32,
                figures: Figures::of_runs(&runs),
                runs: idx,
            }
        })
        .collect()
}

/// Pair entries with equal keys: by name first, then in order. Returns,
/// per entry of `other`, the index of its partner in `base`.
fn pair(base: &[Entry], other: &[Entry]) -> Vec<Option<usize>> {
    let mut taken = vec![false; base.len()];
    let mut out = vec![None; other.len()];
    for by_name in [true, false] {
        for (oi, o) in other.iter().enumerate() {
            if out[oi].is_some() {
                continue;
            }
            let hit = base
                .iter()
                .enumerate()
                .position(|(bi, b)| !taken[bi] && b.key == o.key && (!by_name || b.name == o.name));
            if let Some(bi) = hit {
                taken[bi] = true;
                out[oi] = Some(bi);
            }
        }
    }
    out
}

/// The key parameters that differ between two entries.
fn differences(this: &Entry, that: &Entry) -> Vec<Difference> {
    let mut names: Vec<&String> = this.key.keys().chain(that.key.keys()).collect();
    names.sort_by_key(|n| {
        (
            KEY_PARAMS.iter().position(|k| k == n).unwrap_or(usize::MAX),
            n.to_string(),
        )
    });
    names.dedup();
    names
        .into_iter()
        .filter(|n| this.key.get(*n) != that.key.get(*n))
        .map(|n| Difference {
            param: n.clone(),
            this: this.key.get(n).cloned().unwrap_or_else(|| "-".into()),
            nearest: that.key.get(n).cloned().unwrap_or_else(|| "-".into()),
        })
        .collect()
}

fn unmatched(entry: &Entry, candidates: &[Entry]) -> Unmatched {
    let nearest = candidates
        .iter()
        .map(|c| (differences(entry, c), c))
        .min_by_key(|(d, _)| d.len());
    Unmatched {
        entry: entry.clone(),
        nearest: nearest.as_ref().map(|(_, c)| c.label.clone()),
        nearest_doc: nearest.as_ref().map(|(_, c)| c.doc),
        differs: nearest.map(|(d, _)| d).unwrap_or_default(),
    }
}

/// Pair workload names: per baseline workload, the index of its
/// counterpart in `other`, by name first, then by position among those
/// left.
fn pair_workloads(base: &[String], other: &[String]) -> Vec<Option<usize>> {
    use std::collections::{HashMap, HashSet, VecDeque};
    // Names to their unpaired positions in `other` (a damaged document may
    // repeat a name): one pass each way, no search per workload.
    let mut by_name: HashMap<&str, VecDeque<usize>> = HashMap::new();
    for (i, o) in other.iter().enumerate() {
        by_name.entry(o.as_str()).or_default().push_back(i);
    }
    let base_set: HashSet<&str> = base.iter().map(String::as_str).collect();
    let mut taken = vec![false; other.len()];
    let mut out: Vec<Option<usize>> = base
        .iter()
        .map(|b| {
            let i = by_name.get_mut(b.as_str())?.pop_front()?;
            taken[i] = true;
            Some(i)
        })
        .collect();
    for (bi, slot) in out.iter_mut().enumerate() {
        if slot.is_none()
            && bi < other.len()
            && !taken[bi]
            && !base_set.contains(other[bi].as_str())
        {
            taken[bi] = true;
            *slot = Some(bi);
        }
    }
    out
}

/// The workload rows of a matched row: only when a run of it has several
/// workloads (a run of one workload is its row already).
fn workload_rows(
    docs: &[(String, String, &ResultDoc)],
    entries: &[Option<Entry>],
    ignore: &[String],
    notes: &mut Vec<String>,
) -> Vec<Row> {
    let views = |e: &Entry| -> Vec<Vec<crate::model::WorkloadResult>> {
        e.runs
            .iter()
            .map(|&i| docs[e.doc].2.runs[i as usize].workload_views())
            .collect()
    };
    let all: Vec<Option<Vec<Vec<crate::model::WorkloadResult>>>> =
        entries.iter().map(|e| e.as_ref().map(views)).collect();
    let names = |v: &Vec<Vec<crate::model::WorkloadResult>>| -> Vec<String> {
        v.first()
            .map(|ws| ws.iter().map(|w| w.name.clone()).collect())
            .unwrap_or_default()
    };
    let several = all
        .iter()
        .flatten()
        .any(|v| v.iter().any(|ws| ws.len() > 1));
    let (Some(Some(base_views)), Some(Some(base_entry))) = (all.first(), entries.first()) else {
        return Vec::new();
    };
    if !several {
        return Vec::new();
    }
    let base_names = names(base_views);
    // Per document, the pairing of its workloads with the baseline's.
    let pairs: Vec<Vec<Option<usize>>> = all
        .iter()
        .map(|v| {
            v.as_ref()
                .map_or_else(Vec::new, |v| pair_workloads(&base_names, &names(v)))
        })
        .collect();
    let mut rows = Vec::new();
    for (wi, wname) in base_names.iter().enumerate() {
        let label = format!("{}/{wname}", base_entry.label);
        let mut wentries: Vec<Option<Entry>> = Vec::new();
        let mut per_doc: Vec<Option<Vec<&crate::model::WorkloadResult>>> = Vec::new();
        for ((e, v), pair) in entries.iter().zip(&all).zip(&pairs) {
            let (Some(e), Some(v)) = (e, v) else {
                wentries.push(None);
                per_doc.push(None);
                continue;
            };
            let Some(oi) = pair.get(wi).copied().flatten() else {
                wentries.push(None);
                per_doc.push(None);
                continue;
            };
            let picked: Vec<&crate::model::WorkloadResult> =
                v.iter().filter_map(|ws| ws.get(oi)).collect();
            per_doc.push(Some(picked.clone()));
            let sums: Vec<(f64, &crate::model::Summary)> =
                picked.iter().map(|w| (w.measured_s, &w.summary)).collect();
            let first = picked[0];
            wentries.push(Some(Entry {
                doc: e.doc,
                label: format!("{}/{}", e.label, first.name),
                name: first.name.clone(),
                params: e.params.clone(),
                key: key::workload_key(&first.spec, &first.effective, ignore),
                runs: e.runs.clone(),
                incomplete_runs: picked.iter().filter(|w| !w.complete).count() as u32,
                figures: Figures::of_summaries(&sums),
            }));
        }
        let b = wentries[0].clone().expect("the baseline's workload");
        let mut changes = Vec::new();
        for (d, e) in wentries.iter().enumerate().skip(1) {
            let Some(e) = e else { continue };
            for f in FIGURES {
                changes.push(judge(f, d, b.figures.get(f), e.figures.get(f)));
            }
            let diff = differences(e, &b);
            if !diff.is_empty() {
                notes.push(format!(
                    "{}: workload {} differs from {} in {}",
                    docs[d].0,
                    e.label,
                    b.label,
                    differs_text(&diff)
                ));
            }
        }
        rows.push(Row {
            operations: ops::op_rows(&label, &per_doc),
            fileset: ops::filesets(&per_doc),
            label,
            key: b.key.clone(),
            entries: wentries,
            changes,
            workloads: Vec::new(),
            hosts: Vec::new(),
        });
    }
    rows
}

/// Per document, the workloads of an entry's runs that ran one workload
/// (a run of several has its operations in its workload rows).
fn single_workloads<'a>(
    docs: &[(String, String, &'a ResultDoc)],
    entries: &[Option<Entry>],
) -> Vec<Option<Vec<&'a crate::model::WorkloadResult>>> {
    entries
        .iter()
        .map(|e| {
            e.as_ref().map(|e| {
                e.runs
                    .iter()
                    .map(|&i| &docs[e.doc].2.runs[i as usize])
                    .filter(|r| r.workloads.len() == 1)
                    .map(|r| &r.workloads[0])
                    .collect()
            })
        })
        .collect()
}

/// Compare documents; the first is the baseline. `labels` name them in
/// tables (one per document); `ignore` leaves key parameters out.
pub fn compare(docs: &[(String, String, &ResultDoc)], ignore: &[String]) -> CompareResult {
    let all: Vec<Vec<Entry>> = docs
        .iter()
        .enumerate()
        .map(|(i, (_, _, d))| entries(d, i, ignore))
        .collect();
    let documents = docs
        .iter()
        .zip(&all)
        .map(|((label, path, d), e)| DocInfo {
            label: label.clone(),
            path: path.clone(),
            started_at: d.started_at.clone(),
            hostname: d.host.hostname.clone(),
            command: d.command.clone(),
            complete: d.complete,
            runs: d.runs.len() as u32,
            entries: e.len() as u32,
            repeat: d.plan.as_ref().map(|p| p.repeat),
        })
        .collect();
    let mut res = CompareResult {
        documents,
        ignored: ignore.to_vec(),
        alpha: ALPHA,
        ..Default::default()
    };
    let Some(base) = all.first() else {
        return res;
    };
    // partner[d][i]: the baseline entry matched by entry i of document d.
    let partners: Vec<Vec<Option<usize>>> = all.iter().map(|e| pair(base, e)).collect();
    let mut rows: Vec<Row> = Vec::new();
    let mut base_matched = vec![false; base.len()];
    for (bi, b) in base.iter().enumerate() {
        let mut row_entries: Vec<Option<Entry>> = vec![Some(b.clone())];
        for (d, p) in partners.iter().enumerate().skip(1) {
            let e = p
                .iter()
                .position(|x| *x == Some(bi))
                .map(|i| all[d][i].clone());
            row_entries.push(e);
        }
        if row_entries.iter().skip(1).all(Option::is_none) {
            continue;
        }
        base_matched[bi] = true;
        let mut changes = Vec::new();
        for (d, e) in row_entries.iter().enumerate().skip(1) {
            let Some(e) = e else { continue };
            for f in FIGURES {
                changes.push(judge(f, d, b.figures.get(f), e.figures.get(f)));
            }
        }
        let workloads = workload_rows(docs, &row_entries, ignore, &mut res.notes);
        let hosts = hosts::host_rows(docs, &row_entries, &mut res.notes);
        let per_doc = single_workloads(docs, &row_entries);
        rows.push(Row {
            hosts,
            label: b.label.clone(),
            key: b.key.clone(),
            operations: ops::op_rows(&b.label, &per_doc),
            fileset: ops::filesets(&per_doc),
            entries: row_entries,
            changes,
            workloads,
        });
    }
    let others: Vec<Entry> = all.iter().skip(1).flatten().cloned().collect();
    for (bi, b) in base.iter().enumerate() {
        if !base_matched[bi] {
            res.unmatched.push(unmatched(b, &others));
        }
    }
    for (d, p) in partners.iter().enumerate().skip(1) {
        for (i, x) in p.iter().enumerate() {
            if x.is_none() {
                res.unmatched.push(unmatched(&all[d][i], base));
            }
        }
    }
    for (d, es) in all.iter().enumerate() {
        for e in es {
            let label = &res.documents[d].label;
            if e.incomplete_runs > 0 {
                res.notes.push(format!(
                    "{label}: {} of the {} run{} of {} did not complete; their figures cover less time",
                    e.incomplete_runs,
                    e.runs.len(),
                    if e.runs.len() == 1 { "" } else { "s" },
                    e.label
                ));
            }
            if e.figures.iops.n == 0 {
                res.notes.push(format!(
                    "{label}: {} has no measured run; it is shown without figures",
                    e.label
                ));
            }
        }
        if docs[d].2.runs.is_empty() {
            res.notes.push(format!(
                "{}: the document holds no runs",
                res.documents[d].label
            ));
        }
    }
    res.rows = rows;
    res.tables = tables::tables(&res);
    let (charts, ranges) = charts::charts(&res, docs);
    res.charts = charts;
    res.chart_ranges = ranges;
    for c in ops::op_charts(&res) {
        res.charts.push(c);
        res.chart_ranges.push(Vec::new());
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testraw;

    fn doc_of(raw: &iolab_raw::RunRaw) -> ResultDoc {
        ResultDoc {
            runs: vec![crate::build_run(raw)],
            ..Default::default()
        }
    }

    #[test]
    fn runs_of_two_workloads_match_and_each_workload_gets_its_deltas() {
        let before = doc_of(&testraw::two_workloads());
        // After: the writer did twice as many writes, and the job file
        // lists it first; it still pairs by name.
        let mut raw = testraw::two_workloads();
        raw.workloads.reverse();
        raw.workloads[0] = testraw::workload(
            "writer",
            "write",
            vec![(1, testraw::ops(iolab_raw::Op::Write, 100, 400_000))],
        );
        let after = doc_of(&raw);
        let docs = [
            ("before".to_string(), "b.json".to_string(), &before),
            ("after".to_string(), "a.json".to_string(), &after),
        ];
        let res = compare(&docs, &[]);
        assert!(res.unmatched.is_empty(), "{:?}", res.unmatched);
        assert_eq!(res.rows.len(), 1);
        let r = &res.rows[0];
        let labels: Vec<&str> = r.workloads.iter().map(|w| w.label.as_str()).collect();
        assert_eq!(labels, ["pair/reader", "pair/writer"]);
        let iops = |row: &Row| row.change(1, Figure::Iops).unwrap().change_pct.unwrap();
        assert!(iops(&r.workloads[0]).abs() < 1e-9);
        assert!((iops(&r.workloads[1]) - 100.0).abs() < 1e-9);
        // The workload rows are in the tables and the text too.
        let t = &res.tables[0];
        assert!(t.rows.iter().any(|row| row[0] == "pair/writer"));
        assert!(render::text(&res).contains("pair/writer"));
    }

    #[test]
    fn fs_workloads_match_per_operation_with_their_counters() {
        let before = doc_of(&iolab_raw::RunRaw::single(testraw::fs_workload("fsrv")));
        let mut w = testraw::fs_workload("fsrv");
        // After: twice the stats, no creates; one more file deleted.
        let mut stat = iolab_raw::OpStats::default();
        testraw::add_op(&mut stat, iolab_raw::Op::Stat, 1994, 0, 3_000, 9_000);
        w.ops.set(
            iolab_raw::Op::Stat,
            stat.get(iolab_raw::Op::Stat).unwrap().clone(),
        );
        w.ops
            .set(iolab_raw::Op::Create, iolab_raw::DirStats::new(false));
        w.fs.as_mut().unwrap().counters.files_deleted += 1;
        let after = doc_of(&iolab_raw::RunRaw::single(w));
        let docs = [
            ("before".to_string(), "b.json".to_string(), &before),
            ("after".to_string(), "a.json".to_string(), &after),
        ];
        let res = compare(&docs, &[]);
        assert_eq!(res.rows.len(), 1, "{:?}", res.unmatched);
        let ops = &res.rows[0].operations;
        let labels: Vec<&str> = ops.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels[0], "fsrv create");
        assert_eq!(labels.len(), 8);
        let stat = ops.iter().find(|r| r.label == "fsrv stat").unwrap();
        let c = stat.change(1, Figure::Iops).unwrap();
        assert!((c.change_pct.unwrap() - 100.0).abs() < 1e-9, "{c:?}");
        // CPU per operation is compared too (split by latency here).
        assert!(stat.change(1, Figure::CpuUsPerIo).is_some());
        // The create of the baseline has no counterpart after.
        let create = &ops[0];
        assert!(create.entries[1].is_none() && create.changes.is_empty());
        let f = &res.rows[0].fileset;
        assert_eq!(f[1].unwrap().files_deleted, f[0].unwrap().files_deleted + 1);
        let titles: Vec<&str> = res.tables.iter().map(|t| t.title.as_str()).collect();
        assert!(
            titles.contains(&"ops/s by operation (higher is better)"),
            "{titles:?}"
        );
        let table = |t: &str| res.tables.iter().find(|x| x.title.starts_with(t)).unwrap();
        assert_eq!(table("ops/s by operation").columns[1], "before ops/s");
        // MB/s only of the operations that move data.
        let mb: Vec<&serde_json::Value> = table("MB/s by operation")
            .rows
            .iter()
            .map(|r| &r[0])
            .collect();
        assert_eq!(mb, ["fsrv write", "fsrv append", "fsrv read"]);
        let chart = res
            .charts
            .iter()
            .find(|c| c.title == "fsrv: ops/s by operation")
            .unwrap();
        assert_eq!(chart.x[0], "create");
        assert_eq!(chart.series[1].values[0], None, "no creates after");
        assert_eq!(chart.series[1].values[7], Some(1994.0), "stat after");
        let text = render::text(&res);
        assert!(
            text.contains("p99 latency by operation, us (lower is better)"),
            "{text}"
        );
        assert!(text.contains("Fileset counters"), "{text}");
        let del = text.lines().find(|l| l.contains("files deleted")).unwrap();
        assert!(
            del.contains("1000") && del.contains("1001") && del.contains("0.1"),
            "{del}"
        );
        // Block workloads get no operation rows.
        let b = doc_of(&testraw::two_workloads());
        let docs = [
            ("x".to_string(), "x.json".to_string(), &b),
            ("y".to_string(), "y.json".to_string(), &b),
        ];
        let res = compare(&docs, &[]);
        assert!(res.rows[0]
            .with_workloads()
            .all(|r| r.operations.is_empty()));
        assert!(!render::text(&res).contains("by operation"));
        assert!(!res.charts.iter().any(|c| c.title.contains("by operation")));
    }

    #[test]
    fn multi_host_documents_compare_in_aggregate_and_per_common_host() {
        use testraw::{host, host_run};
        let before = ResultDoc {
            runs: vec![testraw::two_hosts()],
            ..Default::default()
        };
        // After: h1 twice as fast, h2 gone, h3 new.
        let after_run = crate::merge_hosts(
            vec![
                host("h1", host_run(3, 200, 100_000, 300_000)),
                host("h3", host_run(3, 300, 1_000_000, 5_000_000)),
            ],
            Some(100.0),
        );
        let after = ResultDoc {
            runs: vec![after_run],
            ..Default::default()
        };
        let docs = [
            ("before".to_string(), "b.json".to_string(), &before),
            ("after".to_string(), "a.json".to_string(), &after),
        ];
        let res = compare(&docs, &[]);
        assert_eq!(res.rows.len(), 1, "{:?}", res.unmatched);
        let row = &res.rows[0];
        // The aggregate: 400 -> 500 IOPS.
        let agg = row.change(1, Figure::Iops).unwrap().change_pct.unwrap();
        assert!((agg - 25.0).abs() < 1e-9, "{agg}");
        let labels: Vec<&str> = row.hosts.iter().map(|h| h.label.as_str()).collect();
        assert_eq!(labels, ["shared on h1", "shared on h2"]);
        let h1 = &row.hosts[0];
        let c = h1.change(1, Figure::Iops).unwrap().change_pct.unwrap();
        assert!((c - 100.0).abs() < 1e-9, "{c}");
        let h2 = &row.hosts[1];
        assert!(h2.entries[1].is_none() && h2.changes.is_empty());
        let notes = res.notes.join("\n");
        assert!(
            notes.contains("before: host h2 of shared is not in after"),
            "{notes}"
        );
        assert!(
            notes.contains("after: host h3 of shared is not in before"),
            "{notes}"
        );
        // In the tables and the text.
        assert!(res.tables[0].rows.iter().any(|r| r[0] == "shared on h1"));
        let text = render::text(&res);
        let line = text
            .lines()
            .find(|l| l.starts_with("shared on h1"))
            .unwrap();
        assert!(line.contains("+100.0 %"), "{line}");
        // A local document against a multi-host one: the aggregate only.
        let local = doc_of(&host_run(3, 400, 100_000, 300_000));
        let docs = [
            ("local".to_string(), "l.json".to_string(), &local),
            ("multi".to_string(), "m.json".to_string(), &before),
        ];
        let res = compare(&docs, &[]);
        assert_eq!(res.rows.len(), 1);
        assert!(res.rows[0].hosts.is_empty());
        assert!(res
            .notes
            .iter()
            .any(|n| n.contains("host h1 of shared is not in local")));
    }

    #[test]
    fn workloads_pair_by_name_then_by_position() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            pair_workloads(&s(&["a", "b"]), &s(&["b", "a"])),
            [Some(1), Some(0)]
        );
        assert_eq!(
            pair_workloads(&s(&["a", "b"]), &s(&["x", "y"])),
            [Some(0), Some(1)]
        );
        // "b" is taken by name; "a" does not pair with a name of the base.
        assert_eq!(
            pair_workloads(&s(&["a", "b", "c"]), &s(&["b", "z"])),
            [None, Some(0), None]
        );
    }

    #[test]
    fn a_version_1_document_compares_as_one_workload() {
        let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/schema1-run.json");
        let old = crate::parse_document(&std::fs::read_to_string(p).unwrap(), p).unwrap();
        let mut new = old.clone();
        new.runs[0].workloads.clear();
        new.runs[0].summary.total.iops *= 2.0;
        let docs = [
            ("v1".to_string(), "v1.json".to_string(), &old),
            ("v2".to_string(), "v2.json".to_string(), &new),
        ];
        let res = compare(&docs, &[]);
        assert_eq!(res.rows.len(), 1, "{:?}", res.unmatched);
        assert!(res.rows[0].workloads.is_empty());
        let c = res.rows[0].change(1, Figure::Iops).unwrap();
        assert!((c.change_pct.unwrap() - 100.0).abs() < 1e-6);
    }

    fn s(xs: &[f64]) -> Spread {
        spread(xs)
    }

    #[test]
    fn direction_depends_on_the_figure() {
        let (lo, hi) = (s(&[100.0, 101.0, 99.0]), s(&[150.0, 151.0, 149.0]));
        assert_eq!(judge(Figure::Iops, 1, &lo, &hi).verdict, Verdict::Better);
        assert_eq!(judge(Figure::Mbps, 1, &hi, &lo).verdict, Verdict::Worse);
        assert_eq!(judge(Figure::LatP99Us, 1, &lo, &hi).verdict, Verdict::Worse);
        assert_eq!(
            judge(Figure::LatMeanUs, 1, &hi, &lo).verdict,
            Verdict::Better
        );
        assert_eq!(
            judge(Figure::CpuUsPerIo, 1, &hi, &lo).verdict,
            Verdict::Better
        );
        let c = judge(Figure::Iops, 1, &lo, &hi);
        assert!((c.change_pct.unwrap() - 50.0).abs() < 1e-9);
    }

    #[test]
    fn single_runs_and_missing_data() {
        let c = judge(Figure::Iops, 1, &s(&[100.0]), &s(&[150.0]));
        assert_eq!(c.verdict, Verdict::SpreadUnknown);
        assert_eq!(c.verdict_text(), "n=1, spread unknown");
        assert!((c.change_pct.unwrap() - 50.0).abs() < 1e-9);
        let c = judge(Figure::Iops, 1, &s(&[]), &s(&[150.0]));
        assert_eq!((c.verdict, c.change_pct), (Verdict::NoData, None));
        let c = judge(Figure::CpuUsPerIo, 1, &s(&[0.0]), &s(&[1.0]));
        assert_eq!(c.change_pct, None);
    }

    #[test]
    fn p_values_read_well() {
        assert_eq!(p_text(0.0004), "<0.001");
        assert_eq!(p_text(0.0042), "0.004");
        assert_eq!(p_text(0.0503), "0.050");
        assert_eq!(p_text(0.4149), "0.41");
    }
}
