//! Terminal output in another tool's layout (`iolab run --style vdbench`,
//! `--style filebench`), so that tool's users read what they are used
//! to: pure functions from the result model (interval records, run
//! records) to lines of text ([`vdbench`], [`filebench`]), and the
//! [`Styled`] printers `iolab run` drives. Nothing here prints.

pub mod filebench;
pub mod vdbench;

use crate::model::{DirResult, Interval, RunResult};
use iolab_spec::{Op, RunSpec};
use std::time::{SystemTime, UNIX_EPOCH};

/// The layout of `iolab run`'s terminal output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Style {
    /// iolab's own interval lines and summaries.
    #[default]
    Iolab,
    /// vdbench's interval lines, average line and file-system counters.
    Vdbench,
    /// filebench's Per-Operation Breakdown and IO Summary.
    Filebench,
}

/// A printer of one style: the lines to print when a run starts, at
/// each interval and when it has ended (in place of iolab's own).
pub trait Styled {
    /// When run `run` starts.
    fn started(&mut self, run: &RunSpec, now: &LocalTime) -> Vec<String>;
    /// At each interval of the run: the whole run's record.
    fn interval(&mut self, iv: &Interval, now: &LocalTime) -> Vec<String>;
    /// When the run has ended, from its record in the result document.
    fn finished(&mut self, run: &RunResult, now: &LocalTime) -> Vec<String>;
}

/// The printer of `style`, or `None` for iolab's own output. `cpus`: the
/// machine's CPUs (vdbench's CPU columns are shares of all of them).
pub fn printer(style: Style, cpus: u32) -> Option<Box<dyn Styled>> {
    match style {
        Style::Iolab => None,
        Style::Vdbench => Some(Box::new(vdbench::Printer::new(cpus))),
        Style::Filebench => Some(Box::new(filebench::Printer)),
    }
}

/// A moment in local time, as the peers print it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LocalTime {
    pub year: i32,
    /// 1..=12.
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub min: u32,
    pub sec: u32,
    pub ms: u32,
}

impl LocalTime {
    /// The clock now, in the local time zone.
    pub fn now() -> LocalTime {
        LocalTime::of(SystemTime::now())
    }

    /// `t` in the local time zone (UTC's fields if the zone is unknown).
    pub fn of(t: SystemTime) -> LocalTime {
        let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
        let secs = d.as_secs() as libc::time_t;
        // SAFETY: localtime_r writes only into `tm`, which outlives the call.
        let mut tm: libc::tm = unsafe { std::mem::zeroed() };
        if unsafe { libc::localtime_r(&secs, &mut tm) }.is_null() {
            return LocalTime::default();
        }
        LocalTime {
            year: tm.tm_year + 1900,
            month: (tm.tm_mon + 1).clamp(1, 12) as u32,
            day: tm.tm_mday as u32,
            hour: tm.tm_hour as u32,
            min: tm.tm_min as u32,
            sec: tm.tm_sec as u32,
            ms: d.subsec_millis(),
        }
    }

    /// `HH:MM:SS.mmm` (vdbench's time of day).
    pub fn tod(&self) -> String {
        format!(
            "{:02}:{:02}:{:02}.{:03}",
            self.hour, self.min, self.sec, self.ms
        )
    }

    /// `Nov 25, 2026` (vdbench's header date).
    pub fn date(&self) -> String {
        const MONTHS: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        let m = MONTHS[(self.month.clamp(1, 12) - 1) as usize];
        format!("{m} {:02}, {}", self.day, self.year)
    }
}

/// Two figures of one kind together (a run's writes and appends): counts
/// and rates add, the mean is weighted by operations, min and max are
/// the extremes and the standard deviation is pooled exactly from both
/// groups' counts, means and deviations. Percentiles are not kept.
pub fn merge_dir(a: &DirResult, b: &DirResult) -> DirResult {
    let (na, nb) = (a.ops as f64, b.ops as f64);
    let n = na + nb;
    let (la, lb) = (&a.lat_us, &b.lat_us);
    let mut out = DirResult {
        ops: a.ops + b.ops,
        bytes: a.bytes + b.bytes,
        iops: a.iops + b.iops,
        mbps: a.mbps + b.mbps,
        mibps: a.mibps + b.mibps,
        ..Default::default()
    };
    if a.ops == 0 || b.ops == 0 {
        out.lat_us = if a.ops == 0 { b.lat_us } else { a.lat_us };
        return out;
    }
    let mean = (la.mean * na + lb.mean * nb) / n;
    // Sum of squares about the common mean, from each group's.
    let ss = |l: &iolab_stats::LatSummary, k: f64| {
        (k - 1.0) * l.stddev * l.stddev + k * (l.mean - mean) * (l.mean - mean)
    };
    out.lat_us.mean = mean;
    out.lat_us.min = la.min.min(lb.min);
    out.lat_us.max = la.max.max(lb.max);
    out.lat_us.stddev = ((ss(la, na) + ss(lb, nb)) / (n - 1.0)).max(0.0).sqrt();
    out
}

/// The operations a run's workloads name (their mixes' and flows'
/// steps), in first-named order; empty for block workloads.
pub fn named_ops(run: &RunSpec) -> Vec<Op> {
    let mut ops = Vec::new();
    for w in &run.workloads {
        for op in w.fs.iter().flat_map(fs_ops) {
            if !ops.contains(&op) {
                ops.push(op);
            }
        }
    }
    ops
}

/// The operations of one file-system workload's steps, in order.
pub fn fs_ops(fs: &iolab_spec::fs::FsSpec) -> Vec<Op> {
    use iolab_spec::fs::FsWork;
    match &fs.work {
        FsWork::Mix(m) => m.iter().map(|e| e.step.op).collect(),
        FsWork::Flows(f) => f
            .iter()
            .flat_map(|f| f.steps.iter().map(|s| s.op))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(vals: &[f64]) -> DirResult {
        let n = vals.len() as f64;
        let mean = vals.iter().sum::<f64>() / n;
        let sd = (vals.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        let mut d = DirResult {
            ops: vals.len() as u64,
            iops: n,
            ..Default::default()
        };
        d.lat_us.mean = mean;
        d.lat_us.stddev = sd;
        d.lat_us.min = vals.iter().cloned().fold(f64::MAX, f64::min);
        d.lat_us.max = vals.iter().cloned().fold(0.0, f64::max);
        d
    }

    #[test]
    fn merging_pools_the_deviation_exactly() {
        let a = [10.0, 20.0, 30.0, 44.0];
        let b = [100.0, 120.0, 90.0];
        let all: Vec<f64> = a.iter().chain(b.iter()).cloned().collect();
        let m = merge_dir(&dir(&a), &dir(&b));
        let want = dir(&all);
        assert_eq!(m.ops, 7);
        assert!((m.lat_us.mean - want.lat_us.mean).abs() < 1e-9);
        assert!((m.lat_us.stddev - want.lat_us.stddev).abs() < 1e-9);
        assert_eq!((m.lat_us.min, m.lat_us.max), (10.0, 120.0));
        let none = merge_dir(&dir(&a), &DirResult::default());
        assert_eq!(none.lat_us.stddev, dir(&a).lat_us.stddev);
    }

    #[test]
    fn local_time_text() {
        let t = LocalTime {
            year: 2026,
            month: 11,
            day: 5,
            hour: 7,
            min: 3,
            sec: 9,
            ms: 42,
        };
        assert_eq!(t.tod(), "07:03:09.042");
        assert_eq!(t.date(), "Nov 05, 2026");
    }
}
