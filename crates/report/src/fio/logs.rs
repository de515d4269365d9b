//! fio's log files (`write_bw_log`, `write_lat_log`, `write_iops_log`)
//! from iolab's intervals. fio averages its per-I/O samples over
//! `log_avg_msec` windows; iolab's intervals are those windows (the run's
//! interval is `log_avg_msec` when a fio job sets it), so each line is one
//! interval's figure: `time (ms), value, direction, 0, [0,] prio 0` as fio
//! 3.x writes averaged samples (block size 0; the offset column with
//! `log_offset=1`). Values: bandwidth in KiB/s, IOPS per second, latency
//! mean in ns (`log_max_value=1`: the interval's largest; `2`: mean and
//! largest). Time is the end of the interval, from the workload's start.
//!
//! File names are fio's: `PREFIX_bw.N.log`, `PREFIX_lat.N.log`,
//! `PREFIX_slat.N.log`, `PREFIX_clat.N.log`, `PREFIX_iops.N.log`, where N
//! is fio's job number (1-based, counting every clone of every job in
//! order). iolab measures a workload's workers together, so it writes one
//! file per workload, numbered by its first clone, holding the whole
//! workload (a tool that adds the clones' logs gets the same total). The
//! `slat` file is empty: iolab does not time submission apart, as fio's
//! is for its synchronous engines. `per_job_logs=0` drops the number.

use super::options::{LogOptions, Reporting};
use super::FioLog;
use crate::model::{DirResult, ResultDoc, WorkloadResult};
use std::fmt::Write;

#[derive(Clone, Copy)]
enum Kind {
    Bw,
    Iops,
    Lat,
    Empty,
}

/// The value of `kind` for one direction of one interval; `None` when the
/// direction had no I/O there (fio writes no line then).
fn value(kind: Kind, d: &DirResult, secs: f64, max: u8) -> Option<String> {
    if d.ops == 0 || secs <= 0.0 {
        return None;
    }
    let r = |x: f64| (x + 0.5).floor().max(0.0) as u64;
    Some(match kind {
        Kind::Bw => r(d.bytes as f64 / secs / 1024.0).to_string(),
        Kind::Iops => r(d.ops as f64 / secs).to_string(),
        Kind::Lat => {
            let mean = r(d.lat_us.mean * 1000.0);
            let top = r(d.lat_us.max * 1000.0);
            match max {
                1 => top.to_string(),
                2 => format!("{mean}, {top}"),
                _ => mean.to_string(),
            }
        }
        Kind::Empty => return None,
    })
}

fn log_text(w: &WorkloadResult, kind: Kind, lo: &LogOptions) -> String {
    let mut out = String::new();
    let tail = if lo.offset { ", 0, 0, 0" } else { ", 0, 0" };
    for iv in w.intervals.iter().filter(|i| !i.warmup) {
        let secs = iv.end_s - iv.start_s;
        let t = ((iv.end_s - w.start_s) * 1000.0).round().max(0.0) as u64;
        let dirs: [(&DirResult, u8); 2] = [(&iv.read, 0), (&iv.write, 1)];
        for (d, ddir) in dirs {
            if let Some(v) = value(kind, d, secs, lo.max_value) {
                // time, value, direction, then block size and prio (and
                // the offset between them with log_offset).
                let _ = writeln!(out, "{t}, {v}, {ddir}{tail}");
            }
        }
    }
    out
}

fn name(prefix: &str, kind: &str, job: u64, per_job: bool) -> String {
    if per_job {
        format!("{prefix}_{kind}.{job}.log")
    } else {
        format!("{prefix}_{kind}.log")
    }
}

/// The logs of one workload whose first clone is fio job number `job`.
fn workload_logs(w: &WorkloadResult, job: u64, out: &mut Vec<FioLog>) {
    let r = Reporting::of(&w.spec, w.effective.qd.max(1), w.effective.jobs.max(1));
    let lo = &r.logs;
    let mut add = |prefix: &Option<String>, kind: &str, k: Kind| {
        if let Some(p) = prefix {
            let path = name(p, kind, job, lo.per_job);
            let text = log_text(w, k, lo);
            // Without per-job logs every job writes to the one file.
            match out.iter_mut().find(|l| l.path == path) {
                Some(l) => l.text.push_str(&text),
                None => out.push(FioLog { path, text }),
            }
        }
    };
    if !lo.disable_lat {
        add(&lo.lat, "lat", Kind::Lat);
    }
    if !lo.disable_slat {
        add(&lo.lat, "slat", Kind::Empty);
    }
    if !lo.disable_clat {
        add(&lo.lat, "clat", Kind::Lat);
    }
    add(&lo.bw, "bw", Kind::Bw);
    add(&lo.iops, "iops", Kind::Iops);
}

/// Every log the document's fio jobs asked for.
pub fn logs(doc: &ResultDoc) -> Vec<FioLog> {
    let mut out = Vec::new();
    let mut job = 1u64;
    for run in &doc.runs {
        for w in run.workload_views() {
            workload_logs(&w, job, &mut out);
            job += u64::from(w.effective.jobs.max(1));
        }
    }
    out
}

/// The paths [`logs`] writes for the workloads of a plan, in run order,
/// each `(spec, qd, jobs)`: so that they are checked as outputs before the
/// first I/O (crates/iolab). The same names and job numbering as
/// [`workload_logs`].
pub fn log_paths(workloads: &[(&iolab_spec::WorkloadSpec, u32, u32)]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut job = 1u64;
    for &(spec, qd, jobs) in workloads {
        let lo = Reporting::of(spec, qd.max(1), jobs.max(1)).logs;
        let kinds = [
            (&lo.lat, "lat", !lo.disable_lat),
            (&lo.lat, "slat", !lo.disable_slat),
            (&lo.lat, "clat", !lo.disable_clat),
            (&lo.bw, "bw", true),
            (&lo.iops, "iops", true),
        ];
        for (prefix, kind, on) in kinds {
            if let (Some(p), true) = (prefix, on) {
                let path = name(p, kind, job, lo.per_job);
                if !out.contains(&path) {
                    out.push(path);
                }
            }
        }
        job += u64::from(jobs.max(1));
    }
    out
}
