//! The entries of fio's `jobs[]`: one per iolab workload (all its workers
//! together, as fio's `group_reporting` shows a job's clones), and one per
//! fio group for the workloads of a run whose fio job set
//! `group_reporting`. Merging is exact for counts, bytes and latencies
//! (histogram buckets add); rates of a merged entry are over its longest
//! runtime, as fio's are.

use super::lat::hist;
use super::options::Reporting;
use crate::model::{DirResult, HistogramData, ResultDoc, RunResult, SteadyState, WorkloadResult};
use iolab_stats::LatHist;

/// One direction of an entry.
#[derive(Debug, Clone, Default)]
pub struct Dir {
    pub ops: u64,
    pub bytes: u64,
    /// Measured time, seconds (the longest of a merged entry's).
    pub secs: f64,
    /// I/Os per second: the document's own for a single workload.
    pub iops: f64,
    pub hist: LatHist,
    /// Per measured interval: KiB/s and I/Os per second.
    pub bw_samples: Vec<f64>,
    pub iops_samples: Vec<f64>,
}

impl Dir {
    /// Bytes per second (fio's `bw_bytes`), rounded down as fio's.
    pub fn bw_bytes(&self) -> u64 {
        if self.secs > 0.0 {
            (self.bytes as f64 / self.secs) as u64
        } else {
            0
        }
    }

    /// fio's `runtime` (ms): 0 for a direction without I/O.
    pub fn runtime_ms(&self) -> u64 {
        if self.ops == 0 {
            0
        } else {
            (self.secs * 1000.0).round().max(1.0) as u64
        }
    }
}

/// One entry of `jobs[]`.
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: String,
    pub groupid: u32,
    /// Index of the run in the document.
    pub run: usize,
    pub read: Dir,
    pub write: Dir,
    pub trim: Dir,
    pub fsyncs: u64,
    /// Latencies of fsync/fdatasync operations (file-system workloads).
    pub sync_lat: Option<(u64, iolab_stats::LatSummary)>,
    /// Process CPU, percent of the job runtime (fio's per-clone share).
    pub usr_cpu: f64,
    pub sys_cpu: f64,
    /// fio's `job_runtime`: every worker's measured time added, ms.
    pub job_runtime_ms: u64,
    /// Queue depth per worker, weighted by I/Os over merged workloads.
    pub qd: u32,
    /// When the (first) workload started, ms since the epoch.
    pub start_ms: u64,
    pub errors: u64,
    pub first_errno: i32,
    pub steady: Option<SteadyState>,
    pub reporting: Reporting,
}

fn hist_or_empty(h: Option<&HistogramData>) -> LatHist {
    h.map(hist).unwrap_or_default()
}

fn dir_of(d: Option<&DirResult>, h: Option<&HistogramData>, secs: f64) -> Dir {
    let d = d.cloned().unwrap_or_default();
    Dir {
        ops: d.ops,
        bytes: d.bytes,
        secs,
        iops: d.iops,
        hist: hist_or_empty(h),
        ..Default::default()
    }
}

/// Fold `o` into `d` (same direction of another workload of the group).
fn merge_dir(d: &mut Dir, o: &Dir) {
    d.ops += o.ops;
    d.bytes += o.bytes;
    d.secs = d.secs.max(o.secs);
    d.iops = if d.secs > 0.0 {
        d.ops as f64 / d.secs
    } else {
        0.0
    };
    d.hist.merge(&o.hist);
}

/// The run's start as ms since the epoch.
fn run_start_ms(r: &RunResult) -> u64 {
    humantime::parse_rfc3339_weak(&r.started_at)
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis() as u64)
}

/// Interval samples of `ws` for one direction: the workloads' figures of
/// each measured interval of the run's clock added up.
fn samples(
    ws: &[&WorkloadResult],
    pick: fn(&crate::model::Interval) -> &DirResult,
) -> (Vec<f64>, Vec<f64>) {
    let mut by_index: std::collections::BTreeMap<u32, (f64, u64, u64)> = Default::default();
    for w in ws {
        for iv in w.intervals.iter().filter(|i| !i.warmup) {
            let e = by_index
                .entry(iv.index)
                .or_insert((iv.end_s - iv.start_s, 0, 0));
            let d = pick(iv);
            e.1 += d.ops;
            e.2 += d.bytes;
        }
    }
    let mut bw = Vec::new();
    let mut iops = Vec::new();
    for (secs, ops, bytes) in by_index.into_values() {
        if secs > 0.0 {
            bw.push(bytes as f64 / secs / 1024.0);
            iops.push(ops as f64 / secs);
        }
    }
    (bw, iops)
}

fn entry_of(run: &RunResult, ri: usize, ws: &[&WorkloadResult]) -> Entry {
    let w0 = ws[0];
    let dirs = |w: &WorkloadResult| {
        let s = &w.summary;
        let h = &w.latency_histograms;
        [
            dir_of(Some(&s.read), Some(&h.read), w.measured_s),
            dir_of(Some(&s.write), Some(&h.write), w.measured_s),
            dir_of(s.trim.as_ref(), h.trim.as_ref(), w.measured_s),
        ]
    };
    let [mut read, mut write, mut trim] = dirs(w0);
    let (mut usr_us, mut sys_us, mut job_ms) = (0.0, 0.0, 0.0);
    let (mut qd_w, mut ops_all) = (0.0, 0u64);
    let (mut fsyncs, mut errors, mut first_errno) = (0u64, 0u64, 0i32);
    for (i, w) in ws.iter().enumerate() {
        if i > 0 {
            let [r, wr, t] = dirs(w);
            merge_dir(&mut read, &r);
            merge_dir(&mut write, &wr);
            merge_dir(&mut trim, &t);
        }
        let jobs = w.effective.jobs.max(1) as f64;
        let us = w.measured_s * 1e6;
        usr_us += w.summary.cpu.user_pct / 100.0 * us;
        sys_us += w.summary.cpu.sys_pct / 100.0 * us;
        job_ms += jobs * w.measured_s * 1000.0;
        let n = w.summary.total.ops.max(1);
        qd_w += w.effective.qd.max(1) as f64 * n as f64;
        ops_all += n;
        fsyncs += w.summary.fsyncs;
        errors += w.errors_total;
        if first_errno == 0 {
            first_errno = w.error_counts.first().map_or(0, |e| e.errno);
        }
    }
    for (d, pick) in [
        (
            &mut read,
            (|i: &crate::model::Interval| &i.read) as fn(&crate::model::Interval) -> &DirResult,
        ),
        (&mut write, |i: &crate::model::Interval| &i.write),
    ] {
        if d.ops > 0 {
            (d.bw_samples, d.iops_samples) = samples(ws, pick);
        }
    }
    let pct = |x: f64| {
        if job_ms > 0.0 {
            x / (job_ms * 1000.0) * 100.0
        } else {
            0.0
        }
    };
    let sync_lat = ["fsync", "fdatasync"]
        .iter()
        .filter_map(|k| w0.summary.ops.get(*k))
        .find(|d| d.ops > 0)
        .map(|d| (d.ops, d.lat_us));
    let (name, groupid) = match &w0.spec.origin {
        Some(o) if o.format == "fio" => (o.section.clone(), o.group),
        _ => (w0.name.clone(), ri as u32),
    };
    Entry {
        name,
        groupid,
        run: ri,
        read,
        write,
        trim,
        fsyncs: fsyncs.max(sync_lat.map_or(0, |s| s.0)),
        sync_lat,
        usr_cpu: pct(usr_us),
        sys_cpu: pct(sys_us),
        job_runtime_ms: job_ms.round() as u64,
        qd: (qd_w / ops_all.max(1) as f64).round() as u32,
        start_ms: run_start_ms(run) + (w0.start_s * 1000.0).round() as u64,
        errors,
        first_errno,
        steady: w0.steady_state.clone(),
        reporting: Reporting::of(&w0.spec, w0.effective.qd.max(1), w0.effective.jobs.max(1)),
    }
}

/// The fio group a workload is reported with: `Some(group)` when its fio
/// job set `group_reporting`.
fn reported_group(w: &WorkloadResult) -> Option<u32> {
    w.spec
        .origin
        .as_ref()
        .filter(|o| o.format == "fio" && o.group_reporting)
        .map(|o| o.group)
}

/// Every entry of the document, in run order and, within a run, in the
/// order of each entry's first workload.
pub fn entries(doc: &ResultDoc) -> Vec<Entry> {
    let mut out = Vec::new();
    for (ri, run) in doc.runs.iter().enumerate() {
        let views = run.workload_views();
        let mut groups: Vec<Vec<&WorkloadResult>> = Vec::new();
        for w in &views {
            let g = reported_group(w);
            let existing = g.and_then(|g| {
                groups
                    .iter()
                    .position(|ws| reported_group(ws[0]) == Some(g))
            });
            match existing {
                Some(i) => groups[i].push(w),
                None => groups.push(vec![w]),
            }
        }
        out.extend(groups.iter().map(|ws| entry_of(run, ri, ws)));
    }
    out
}
