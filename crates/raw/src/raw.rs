//! What a run measured, before any formatting: histograms, counters,
//! errors, gaps. The report crate turns this into the result document.

use crate::ops::OpStats;
use iolab_spec::WorkloadSpec;
use iolab_stats::LatHist;
use serde::{Deserialize, Serialize};
use std::time::SystemTime;

/// A small closed set of names (formerly `&'static str` fields): an enum
/// that serialises as its name, converts into a `String` and compares
/// with a `&str`, so readers keep writing `x.kind.into()` and
/// `x.kind == "file"`.
macro_rules! name_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident => $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            $($(#[$vm])* #[serde(rename = $s)] $v),+
        }
        impl $name {
            pub fn as_str(self) -> &'static str {
                match self { $($name::$v => $s),+ }
            }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
        impl From<$name> for String {
            fn from(v: $name) -> String {
                v.as_str().to_string()
            }
        }
        impl PartialEq<&str> for $name {
            fn eq(&self, o: &&str) -> bool {
                self.as_str() == *o
            }
        }
    };
}

name_enum!(
    /// What kind of target a run used.
    TargetKind {
        BlockDevice => "block_device",
        File => "file",
    }
);

name_enum!(
    /// The operation an error record is about.
    ErrOp {
        Read => "read",
        Write => "write",
        Fsync => "fsync",
        Prefill => "prefill",
        Open => "open",
        Close => "close",
        Create => "create",
        Delete => "delete",
        Stat => "stat",
        Append => "append",
        Mkdir => "mkdir",
        Rmdir => "rmdir",
        Readdir => "readdir",
        Rename => "rename",
        Rewrite => "rewrite",
        Fdatasync => "fdatasync",
        Getattr => "getattr",
        Setattr => "setattr",
        Access => "access",
        /// Creating a fileset before the run.
        Fileset => "fileset",
        /// A discard (block workloads, `rw = trim`...).
        Trim => "trim",
    }
);

impl ErrOp {
    /// The operation moves data at an offset (its record's `offset` and
    /// `len` say where); the others (open, stat, fsync, ...) have none
    /// and their records carry 0 and 0.
    pub fn has_range(self) -> bool {
        op_has_range(self.as_str())
    }
}

/// [`ErrOp::has_range`] of an error record's `op` as the result document
/// names it.
pub fn op_has_range(op: &str) -> bool {
    matches!(
        op,
        "read" | "write" | "append" | "rewrite" | "prefill" | "trim"
    )
}

impl From<crate::ops::Op> for ErrOp {
    fn from(o: crate::ops::Op) -> ErrOp {
        use crate::ops::Op;
        match o {
            Op::Read => ErrOp::Read,
            Op::Write => ErrOp::Write,
            Op::Fsync => ErrOp::Fsync,
            Op::Open => ErrOp::Open,
            Op::Close => ErrOp::Close,
            Op::Create => ErrOp::Create,
            Op::Delete => ErrOp::Delete,
            Op::Stat => ErrOp::Stat,
            Op::Append => ErrOp::Append,
            Op::Mkdir => ErrOp::Mkdir,
            Op::Rmdir => ErrOp::Rmdir,
            Op::Readdir => ErrOp::Readdir,
            Op::Rename => ErrOp::Rename,
            Op::Rewrite => ErrOp::Rewrite,
            Op::Fdatasync => ErrOp::Fdatasync,
            Op::Getattr => ErrOp::Getattr,
            Op::Setattr => ErrOp::Setattr,
            Op::Access => ErrOp::Access,
            Op::Trim => ErrOp::Trim,
        }
    }
}

name_enum!(
    /// The clock the workers read.
    ClockKind {
        Tsc => "tsc",
        ClockGettime => "clock_gettime",
    }
);

#[allow(clippy::derivable_impls)] // the macro fixes the derives
impl Default for ClockKind {
    fn default() -> Self {
        ClockKind::ClockGettime
    }
}

/// Counts and latencies of one direction (read or write).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DirStats {
    pub ops: u64,
    pub bytes: u64,
    /// Response time: from the I/O's scheduled start (with `--rate`) or its
    /// submission (without) to its completion.
    pub lat: LatHist,
    /// Service time (submission to completion), kept only with `--rate`.
    pub svc: Option<LatHist>,
}

impl DirStats {
    pub fn new(with_svc: bool) -> Self {
        DirStats {
            ops: 0,
            bytes: 0,
            lat: LatHist::new(),
            svc: with_svc.then(LatHist::new),
        }
    }
    pub fn merge(&mut self, o: &DirStats) {
        self.ops += o.ops;
        self.bytes += o.bytes;
        self.lat.merge(&o.lat);
        match (&mut self.svc, &o.svc) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.svc = Some(b.clone()),
            _ => {}
        }
    }
}

/// Process CPU time consumed, microseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuTime {
    pub user_us: u64,
    pub sys_us: u64,
}

impl CpuTime {
    pub fn since(self, earlier: CpuTime) -> CpuTime {
        CpuTime {
            user_us: self.user_us.saturating_sub(earlier.user_us),
            sys_us: self.sys_us.saturating_sub(earlier.sys_us),
        }
    }

    /// CPU of two processes (or hosts) together.
    pub fn merge(&mut self, o: CpuTime) {
        self.user_us += o.user_us;
        self.sys_us += o.sys_us;
    }
}

/// One interval of the time series, all workers merged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntervalRaw {
    pub index: u32,
    /// Start and end, nanoseconds since the run started.
    pub start_ns: u64,
    pub end_ns: u64,
    pub warmup: bool,
    /// Counts and latencies per operation.
    pub ops: OpStats,
    pub errors: u64,
    pub fsyncs: u64,
    /// CPU consumed by the whole process during the interval, when sampled.
    pub cpu: Option<CpuTime>,
    /// Workers that had not reported this interval when it was shown
    /// (blocked in a system call); their figures were merged later.
    pub workers_late: u32,
}

impl IntervalRaw {
    /// An interval with nothing in it yet.
    pub fn empty(index: u32, start_ns: u64, end_ns: u64, warmup: bool) -> IntervalRaw {
        IntervalRaw {
            index,
            start_ns,
            end_ns,
            warmup,
            ops: OpStats::default(),
            errors: 0,
            fsyncs: 0,
            cpu: None,
            workers_late: 0,
        }
    }

    /// Add `o` (the same interval of another worker, workload or host)
    /// into this one: counts and histograms add (exact, associative,
    /// commutative), the span covers both, CPU adds when both have it
    /// (two processes), late workers add.
    pub fn merge(&mut self, o: &IntervalRaw) {
        self.ops.merge(&o.ops);
        self.errors += o.errors;
        self.fsyncs += o.fsyncs;
        self.start_ns = self.start_ns.min(o.start_ns);
        self.end_ns = self.end_ns.max(o.end_ns);
        self.warmup &= o.warmup;
        self.cpu = match (self.cpu, o.cpu) {
            (Some(mut a), Some(b)) => {
                a.merge(b);
                Some(a)
            }
            (a, b) => a.or(b),
        };
        self.workers_late += o.workers_late;
    }
}

/// Merge series of intervals by index (workloads of one run, or the same
/// run on several hosts): interval k of the result is the merge of every
/// series' interval k; the result is in index order.
pub fn merge_by_index<'a>(series: impl IntoIterator<Item = &'a [IntervalRaw]>) -> Vec<IntervalRaw> {
    let mut out: std::collections::BTreeMap<u32, IntervalRaw> = Default::default();
    for s in series {
        for iv in s {
            match out.get_mut(&iv.index) {
                Some(m) => m.merge(iv),
                None => {
                    out.insert(iv.index, iv.clone());
                }
            }
        }
    }
    out.into_values().collect()
}

/// A device error during the run. For a file-system workload `target`
/// is the file's or directory's path and `offset` the offset within the
/// file. `offset` and `len` mean something only for an operation that
/// moves data ([`ErrOp::has_range`]); the others carry 0 and 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IoErrorRec {
    pub target: String,
    pub offset: u64,
    pub len: u32,
    pub op: ErrOp,
    /// errno; 0 for a short transfer.
    pub errno: i32,
    /// Nanoseconds since the run started.
    pub time_ns: u64,
    pub worker: u32,
}

/// A time with I/O outstanding and no completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gap {
    pub start_ns: u64,
    pub end_ns: u64,
}

impl Gap {
    /// The gap's length; 0 for an empty or reversed gap.
    pub fn len(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }
    pub fn is_empty(&self) -> bool {
        self.end_ns <= self.start_ns
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StallsRaw {
    /// The longest time no worker completed an I/O while I/O was
    /// outstanding.
    pub longest: Option<Gap>,
    /// False when several workers ran and no common gap of at least
    /// `GAP_RECORD_NS` was found: `longest` is then an upper bound (the
    /// shortest of the workers' longest gaps).
    pub exact: bool,
    /// Gaps of at least the stall threshold, in time order.
    pub events: Vec<Gap>,
    /// Indexes of measured intervals with no completion at all.
    pub zero_intervals: Vec<u32>,
}

/// A target as the run used it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetRaw {
    pub path: String,
    pub kind: TargetKind,
    pub size: u64,
    pub region_start: u64,
    pub region_len: u64,
    pub logical_block_size: u32,
    pub created: bool,
    pub prefilled_bytes: u64,
    pub prefill_secs: f64,
    /// (ops, bytes) this target received over the measured time, when each
    /// worker drove this target only (jobs >= targets); else `None`.
    pub measured: Option<(u64, u64)>,
}

/// The settings that really took effect (pain point: "why is it slower
/// than dd?" starts with what actually ran).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Effective {
    pub engine: String,
    pub registered_buffers: bool,
    pub registered_files: bool,
    pub ring_flags: String,
    /// The clock the workers read: "tsc" or "clock_gettime".
    pub clock: ClockKind,
    pub direct: bool,
    pub qd: u32,
    pub jobs: u32,
}

/// Everything one workload of a run measured. (The name `RawRun` is kept
/// as an alias while callers move to [`RunRaw`], the whole run.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkloadRaw {
    pub spec: WorkloadSpec,
    /// When the workload issued its first and completed its last I/O,
    /// nanoseconds since the run started (`start_delay` shows here).
    pub start_ns: u64,
    pub end_ns: u64,
    pub effective: Effective,
    pub targets: Vec<TargetRaw>,
    pub started_at: SystemTime,
    pub warmup_ns: u64,
    /// Measured time: from the end of warm-up to the last completion.
    pub measured_ns: u64,
    pub intervals: Vec<IntervalRaw>,
    /// Counts and latencies per operation over the measured time.
    pub ops: OpStats,
    pub fsyncs: u64,
    pub cpu: CpuTime,
    pub errors: Vec<IoErrorRec>,
    /// (errno, count) of every error, including those past the record cap.
    pub errno_counts: Vec<(i32, u64)>,
    pub errors_total: u64,
    pub stalls: StallsRaw,
    pub complete: bool,
    pub incomplete_reason: Option<String>,
    pub notes: Vec<String>,
    pub verify: Option<VerifyRunRaw>,
    /// What only a file-system workload has: fileset counters, errors
    /// per operation, the filesets as found and made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fs: Option<FsRaw>,
    /// The steady-state check (`WorkloadSpec.steady`), judged by the run
    /// core; `None` without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady: Option<SteadyRaw>,
    /// Why the run core ended this workload before its own end: another
    /// workload's `exitall` (fio); `None` when it ended on its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_by: Option<String>,
}

/// What the run core's steady-state check saw (fio `ss`): one sample a
/// second (whole intervals summed to about a second, or one interval when
/// the run's interval is longer), judged over the last window.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SteadyRaw {
    /// The criterion held over a full window; the workload ended there.
    pub reached: bool,
    /// When it was reached: nanoseconds after the workload's measured
    /// start (after warm-up and its start delay).
    pub reached_at_ns: Option<u64>,
    /// The last judged value (deviation or slope per second, percent of
    /// the window's mean when the limit is a percentage); `None` when no
    /// full window was ever sampled.
    pub value: Option<f64>,
    /// The last window's samples, oldest first: I/Os and bytes per second.
    pub samples_iops: Vec<f64>,
    pub samples_bw: Vec<f64>,
    /// The same samples' mean latency, nanoseconds.
    #[serde(default)]
    pub samples_lat_ns: Vec<f64>,
    /// Seconds each sample spans (1, or the interval when it is longer).
    pub sample_s: f64,
}

pub type RawRun = WorkloadRaw;

/// vdbench's file-system counters over the measured time (after
/// warm-up), for the whole workload. Opens and closes done inside a mix
/// operation count here too.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FilesetCounters {
    pub files_created: u64,
    pub dirs_created: u64,
    pub files_deleted: u64,
    pub dirs_deleted: u64,
    pub opens_read: u64,
    pub opens_write: u64,
    pub closes: u64,
}

impl FilesetCounters {
    pub fn merge(&mut self, o: &FilesetCounters) {
        self.files_created += o.files_created;
        self.dirs_created += o.dirs_created;
        self.files_deleted += o.files_deleted;
        self.dirs_deleted += o.dirs_deleted;
        self.opens_read += o.opens_read;
        self.opens_write += o.opens_write;
        self.closes += o.closes;
    }
}

/// One fileset of a file-system workload as the run found and left it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FilesetRaw {
    pub name: String,
    /// The anchor directory (absolute).
    pub anchor: String,
    /// Files and directories of the layout, and the bytes of all its files.
    pub files: u64,
    pub dirs: u64,
    pub bytes: u64,
    /// Bytes of the files made before the run (filebench's prealloc: all
    /// of them at 100 %).
    #[serde(default)]
    pub bytes_prealloc: u64,
    /// What creation before the run did: files and directories made,
    /// existing files brought to their size (`format=restart`), bytes
    /// written, seconds it took (checking what is there included).
    pub files_made: u64,
    pub dirs_made: u64,
    #[serde(default)]
    pub files_resized: u64,
    pub bytes_written: u64,
    pub create_secs: f64,
    /// Files of the layout existing at the run's end (as iolab tracked
    /// them, or as found when the run stopped before its first
    /// operation); `None` when not known (the anchor could not be read).
    pub files_at_end: Option<u64>,
    /// Whether the files were removed after the run (`cleanup`).
    pub removed: bool,
}

/// A file-system workload's own results.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FsRaw {
    pub counters: FilesetCounters,
    /// (errno, count) per operation, over the whole run; errno 0 is a
    /// short transfer (a file shorter than expected).
    pub op_errors: std::collections::BTreeMap<crate::ops::Op, Vec<(i32, u64)>>,
    pub filesets: Vec<FilesetRaw>,
    /// Operations run by system calls because this kernel's io_uring has
    /// no opcode for them, or every operation when io_uring is
    /// unavailable; empty when system calls were chosen (`backend_reason`).
    pub sync_ops: Vec<crate::ops::Op>,
    /// The backend the threads used: `io_uring` or `sync` (system calls).
    #[serde(default)]
    pub backend: String,
    /// Why system calls rather than io_uring (`--qd 1`, `--engine
    /// psync`, io_uring unavailable); None with io_uring.
    #[serde(default)]
    pub backend_reason: Option<String>,
    /// The threads measured the CPU of sampled operations
    /// (`op_cpu`): one operation in flight per thread on system calls.
    /// False when operations overlap on a thread (io_uring, or `qd` > 1):
    /// a thread's CPU around one operation then holds the others' too.
    #[serde(default)]
    pub cpu_sampled: bool,
    /// Thread CPU of the sampled operations, per operation, measured
    /// time only (`cpu_sampled`; engine `fs/cpu_sample.rs`).
    #[serde(default)]
    pub op_cpu: std::collections::BTreeMap<crate::ops::Op, OpCpuRaw>,
}

/// The thread CPU of one operation's sampled executions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpCpuRaw {
    /// Operations measured.
    pub samples: u64,
    /// Their thread CPU (user + system) together, nanoseconds, the CPU
    /// clock's own cost taken out.
    pub cpu_ns: u64,
}

impl OpCpuRaw {
    pub fn merge(&mut self, o: OpCpuRaw) {
        self.samples += o.samples;
        self.cpu_ns += o.cpu_ns;
    }
}

/// An event marked during a run or a monitor (`iolab mark`, SIGUSR1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventRaw {
    /// Nanoseconds since the run started.
    pub time_ns: u64,
    pub label: String,
    /// Where it came from: "mark" (iolab mark), "signal" (SIGUSR1), ...
    pub source: String,
}

/// Everything one run measured: each workload that ran in it, and the
/// whole (every workload merged, on the run's one clock).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRaw {
    pub name: String,
    pub started_at: SystemTime,
    pub warmup_ns: u64,
    pub interval_ns: u64,
    /// From the end of warm-up to the last completion of any workload.
    pub measured_ns: u64,
    /// In the job file's order.
    pub workloads: Vec<WorkloadRaw>,
    /// The whole run, interval by interval: the workloads' intervals of
    /// the same index merged.
    pub intervals: Vec<IntervalRaw>,
    pub ops: OpStats,
    pub fsyncs: u64,
    /// CPU of the whole process over the measured time.
    pub cpu: CpuTime,
    /// Gaps no workload completed an I/O in.
    pub stalls: StallsRaw,
    pub events: Vec<EventRaw>,
    pub complete: bool,
    pub incomplete_reason: Option<String>,
    pub notes: Vec<String>,
    /// A workload with `exitall` and `exit_what = all` ended: the job's
    /// later runs do not run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exit_all: bool,
}

impl RunRaw {
    /// A run of one workload: the whole is that workload.
    pub fn single(w: WorkloadRaw) -> RunRaw {
        RunRaw {
            name: w.spec.name.clone(),
            started_at: w.started_at,
            warmup_ns: w.warmup_ns,
            interval_ns: (w.spec.interval_s * 1e9) as u64,
            measured_ns: w.measured_ns,
            intervals: w.intervals.clone(),
            ops: w.ops.clone(),
            fsyncs: w.fsyncs,
            cpu: w.cpu,
            stalls: w.stalls.clone(),
            events: Vec::new(),
            complete: w.complete,
            incomplete_reason: w.incomplete_reason.clone(),
            notes: w.notes.clone(),
            exit_all: false,
            workloads: vec![w],
        }
    }
}

/// One worker's verification results.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VerifyRaw {
    pub totals: iolab_verify::VerifyTotals,
    /// Re-reads of completed writes (`--verify-after`).
    pub reads_after: u64,
    /// Journal syncs before issuing writes, and the time they took.
    pub journal_syncs: u64,
    pub journal_sync_ns: u64,
}

impl VerifyRaw {
    pub fn merge(&mut self, o: VerifyRaw) {
        self.totals.merge(o.totals);
        self.reads_after += o.reads_after;
        self.journal_syncs += o.journal_syncs;
        self.journal_sync_ns += o.journal_sync_ns;
    }
}

/// What `--verify` found in a run, all workers merged.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VerifyRunRaw {
    /// Block size of the generation map.
    pub block_size: u64,
    /// The series stamped into every sector (run or journal identity).
    pub series: u64,
    pub journal: Option<String>,
    /// The journal existed before this run (it carried on from it).
    pub journal_resumed: bool,
    /// The journal was synced before each batch of writes (the workload
    /// promised durability: O_DSYNC or --fsync-every).
    pub journal_sync: bool,
    /// Blocks left unknown by an abrupt end of the previous run.
    pub journal_reset_blocks: u64,
    /// Blocks stamped by the prefill.
    pub blocks_prefilled: u64,
    pub after: bool,
    pub max_errors: u64,
    pub stopped_on_max_errors: bool,
    pub w: VerifyRaw,
}

#[cfg(test)]
mod tests {
    use super::Gap;

    #[test]
    fn a_reversed_gap_has_length_zero_not_an_overflow() {
        let g = Gap {
            start_ns: 2_000,
            end_ns: 1_000,
        };
        assert_eq!(g.len(), 0);
        assert!(g.is_empty());
    }
}
