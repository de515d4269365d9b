//! The result document, version 2. Every field is described in
//! docs/results.md; change both together, and bump `SCHEMA_VERSION` on any
//! change that is not a pure addition. Version 2 (issue 15) adds
//! `runs[].workloads[]` (each workload of a run that ran several at once)
//! and `runs[].events[]` (marks), and makes `spec` and `effective` optional
//! (a monitor run has no workload); documents of version 1 still load
//! ([`crate::json::parse_document`] upgrades them).

use iolab_spec::WorkloadSpec;
use iolab_stats::LatSummary;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const SCHEMA_VERSION: u32 = 2;

/// The oldest schema version this iolab still reads (and upgrades).
pub const SCHEMA_VERSION_MIN: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ResultDoc {
    pub schema_version: u32,
    pub tool: String,
    pub tool_version: String,
    pub host: Host,
    pub started_at: String,
    pub finished_at: Option<String>,
    /// The command line that produced the document.
    pub command: Vec<String>,
    /// False while runs are still being appended, or when the last run was
    /// interrupted or failed part-way.
    pub complete: bool,
    pub runs: Vec<RunResult>,
    /// Data validation over the whole document: the sum of the runs'
    /// `verify` (`iolab run --verify`), or what `iolab verify` found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyResult>,
    /// The plan of a sweep or study: the swept parameters and their values,
    /// repetitions, pause. Absent for a single run without lists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<PlanInfo>,
    /// One entry per point of the plan (a combination of the swept values),
    /// summarising its repetitions. Recomputed after every run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub points: Vec<PointSummary>,
    /// A named study's tables, charts and conclusions (`iolab study`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub study: Option<StudyResult>,
}

/// One swept parameter: its name as a flag without dashes (`bs`, `qd`) and
/// its values as given.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Axis {
    pub name: String,
    pub values: Vec<String>,
}

/// What `iolab run` with lists (or `iolab study`) planned.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PlanInfo {
    /// Swept parameters, outermost first: the last one varies fastest.
    pub axes: Vec<Axis>,
    /// Number of points (workloads x combinations of the axes).
    pub points: u32,
    /// Runs per point.
    pub repeat: u32,
    /// Pause between runs, seconds.
    pub pause_s: f64,
    /// points x repeat.
    pub runs_planned: u32,
    /// Estimated wall time of the whole plan (runs, warm-ups and pauses;
    /// prefill not included), seconds.
    pub estimated_s: f64,
}

/// Mean, standard deviation (sample, n-1), min, max and coefficient of
/// variation (sd / mean, percent) of one figure over a point's repetitions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub n: u32,
    pub mean: f64,
    pub sd: f64,
    pub min: f64,
    pub max: f64,
    pub cv_pct: f64,
}

/// A point of the plan and the figures of its finished runs.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PointSummary {
    pub index: u32,
    /// The workload's name (the name runs of this point share).
    pub name: String,
    /// The swept parameters' values at this point.
    pub params: std::collections::BTreeMap<String, String>,
    /// Indexes into `runs[]` of this point's finished runs.
    pub runs: Vec<u32>,
    pub iops: Spread,
    pub mbps: Spread,
    pub lat_mean_us: Spread,
    pub lat_p99_us: Spread,
    /// The spread is large: coefficient of variation of IOPS above 10 %.
    pub spread_large: bool,
}

/// The outcome of `iolab study NAME`: tables, charts and conclusions
/// computed from the runs (docs/studies.md).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct StudyResult {
    pub name: String,
    pub title: String,
    /// Settings of the study after overrides (`duration`, `sizes`, ...).
    pub settings: std::collections::BTreeMap<String, String>,
    pub tables: Vec<Table>,
    pub charts: Vec<Chart>,
    /// Named figures, e.g. `flatten_bs_read` (bytes) or `knee_qd`.
    pub figures: std::collections::BTreeMap<String, f64>,
    /// One sentence each: where the curve flattens, the knee, ...
    pub conclusions: Vec<String>,
}

/// A table: column titles and rows of cells (numbers or text).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Table {
    pub title: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<serde_json::Value>>,
}

/// A chart to draw: `line` (x values in order) or `bar` (categories).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Chart {
    pub kind: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// Draw the x axis on a log-2 scale (block sizes, queue depths).
    #[serde(default)]
    pub log_x: bool,
    /// x labels (categories or values as text) and, for line charts, their
    /// numeric positions.
    pub x: Vec<String>,
    #[serde(default)]
    pub x_values: Vec<f64>,
    pub series: Vec<Series>,
    /// Marked x positions with a label (the knee, where the curve flattens).
    #[serde(default)]
    pub marks: Vec<Mark>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Series {
    pub name: String,
    /// One value per x; null where there is none.
    pub values: Vec<Option<f64>>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Mark {
    pub x: String,
    pub label: String,
}

/// A run's place in a response-time curve: the run at the maximum rate,
/// or a run at a percentage of the total IOPS that run measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CurveRecord {
    /// The curve's name: its run's name without the `(max)`/`(N%)` suffix.
    pub name: String,
    /// `"max"` (the maximum run) or `"pct"` (a point of the curve).
    pub role: String,
    /// The point's percentage of the maximum; absent for the maximum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pct: Option<f64>,
    /// The rate the point ran at (the run's, shared by its workloads),
    /// I/Os per second; absent for the maximum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_iops: Option<f64>,
    /// The name of the curve's maximum run.
    pub max_run: String,
    /// The plan point of the curve's maximum run (`runs[].point`): the
    /// same for every run of one curve.
    pub max_point: u32,
    /// The total IOPS the maximum measured (the mean over its repeats),
    /// which `pct` is a percentage of; absent for the maximum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_iops: Option<f64>,
    /// `stop_curve`, milliseconds of mean response time from issue (the
    /// service time at a point, as vdbench's); absent without.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_ms: Option<f64>,
}

/// Data validation results (docs/validation.md).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct VerifyResult {
    /// Block size of the generation map, bytes.
    pub block_size: u64,
    /// Identity stamped into every sector (hex): the run's, or the journal's.
    pub series: String,
    pub journal: Option<String>,
    /// The journal existed before (this run carried on from it).
    pub journal_resumed: bool,
    /// The journal was synced before each batch of writes was issued.
    pub journal_sync: bool,
    pub journal_syncs: u64,
    /// Time spent in those syncs (the journal's cost), milliseconds.
    pub journal_sync_ms: f64,
    /// `iolab verify` on a journal left open by a crash.
    pub journal_crashed: bool,
    pub blocks_prefilled: u64,
    /// Blocks whose content was checked.
    pub blocks_checked: u64,
    /// Blocks read that were never written in this run or its journal.
    pub blocks_unwritten: u64,
    /// After a crash, blocks whose last write was not promised durable and
    /// that held an earlier stamp (accepted).
    pub blocks_old_accepted: u64,
    /// Re-reads of completed writes (`--verify-after`).
    pub reads_after: u64,
    pub findings_total: u64,
    /// Reads that met a place already reported (same target, generation
    /// and bad range): counted here, not as findings.
    #[serde(default)]
    pub findings_repeated: u64,
    /// Findings by class, every class listed.
    pub by_class: std::collections::BTreeMap<String, u64>,
    /// The first 1000 findings.
    pub findings: Vec<iolab_verify::Finding>,
    pub max_errors: u64,
    pub stopped_on_max_errors: bool,
    /// Read errors met by `iolab verify`.
    #[serde(default)]
    pub read_errors: Vec<iolab_verify::ReadError>,
    /// Bytes read by `iolab verify`.
    #[serde(default)]
    pub bytes_scanned: u64,
}

impl VerifyResult {
    /// Add another run's results (for the document total).
    pub fn add(&mut self, o: &VerifyResult) {
        self.block_size = o.block_size;
        self.series = o.series.clone();
        self.journal = o.journal.clone();
        self.journal_resumed |= o.journal_resumed;
        self.journal_sync |= o.journal_sync;
        self.journal_syncs += o.journal_syncs;
        self.journal_sync_ms += o.journal_sync_ms;
        self.blocks_prefilled += o.blocks_prefilled;
        self.blocks_checked += o.blocks_checked;
        self.blocks_unwritten += o.blocks_unwritten;
        self.blocks_old_accepted += o.blocks_old_accepted;
        self.reads_after += o.reads_after;
        self.findings_total += o.findings_total;
        self.findings_repeated += o.findings_repeated;
        for (k, v) in &o.by_class {
            *self.by_class.entry(k.clone()).or_default() += v;
        }
        for f in &o.findings {
            if self.findings.len() < iolab_verify::scan::MAX_FINDING_RECORDS {
                self.findings.push(f.clone());
            }
        }
        self.max_errors = o.max_errors;
        self.stopped_on_max_errors |= o.stopped_on_max_errors;
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Host {
    pub hostname: String,
    pub kernel: String,
    pub os: String,
    pub cpus: u32,
    pub memory_bytes: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunResult {
    pub name: String,
    /// The first workload's parameters: the whole run's in a run of one
    /// workload (what readers of version 1 read). Absent in a run with no
    /// workload (`iolab monitor`); each workload's are in `workloads[]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<WorkloadSpec>,
    /// The first workload's settings that took effect; absent without a
    /// workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective: Option<Effective>,
    /// Every workload's targets, in workload order.
    pub targets: Vec<TargetResult>,
    pub started_at: String,
    pub complete: bool,
    pub incomplete_reason: Option<String>,
    pub warmup_s: f64,
    pub measured_s: f64,
    pub summary: Summary,
    pub intervals: Vec<Interval>,
    pub stalls: Stalls,
    pub errors: Vec<IoError>,
    pub error_counts: Vec<ErrorCount>,
    pub errors_total: u64,
    pub latency_histograms: Histograms,
    pub notes: Vec<String>,
    /// Data validation (`--verify`); absent without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyResult>,
    /// The block devices under the targets, sampled every interval as
    /// `iostat -x` computes it (docs/doctor.md).
    #[serde(default)]
    pub devices: Option<DeviceStats>,
    /// Advice that applies to this run's targets, each citing its reason.
    #[serde(default)]
    pub advice: Vec<iolab_devices::Finding>,
    /// The point of the plan this run belongs to (`points[]` index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<u32>,
    /// Repetition of its point, from 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<u32>,
    /// The swept parameters' values for this run.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub params: std::collections::BTreeMap<String, String>,
    /// Its place in a response-time curve (`curve`, vdbench
    /// `iorate=curve`); absent for a run of no curve.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curve: Option<CurveRecord>,
    /// Each workload of the run, in the run's (the job file's) order; the
    /// run's `summary`, `intervals`, `latency_histograms`, `stalls`,
    /// errors and `verify` are the whole (every workload together). Empty
    /// in a run with no workload (`iolab monitor`).
    #[serde(default)]
    pub workloads: Vec<WorkloadResult>,
    /// Events marked during the run (`iolab mark`, SIGUSR1), in time order.
    #[serde(default)]
    pub events: Vec<Event>,
    /// A run on several hosts (docs/multi-host.md): each host's own
    /// record, in the order the hosts were named. The run's `summary`,
    /// `intervals`, `latency_histograms`, errors and `workloads` are then
    /// every host's together (histograms merged exactly). Absent for a run
    /// on this host alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<HostRun>,
    /// A multi-host run: how far apart the hosts' clocks started, in
    /// microseconds on the controller's clock (the latest start minus the
    /// earliest, each host's start taken back through its measured clock
    /// offset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_skew_us: Option<f64>,
}

/// One host of a multi-host run: its record as a run on it alone would
/// have it (summary, intervals, workloads, device statistics, errors),
/// with who and where it is and how its clock compared.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HostRun {
    /// The host as the user named it.
    pub host: String,
    /// The machine the agent ran on.
    pub host_info: Host,
    /// The host's clock against the controller's.
    pub clock: HostClock,
    /// The host stopped answering during the run: what was measured up to
    /// then is kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost: Option<HostLoss>,
    #[serde(flatten)]
    pub run: RunResult,
}

/// A host's clock against the controller's, from the probe of least
/// round-trip delay before the run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct HostClock {
    /// The host's clock minus the controller's, microseconds.
    pub offset_us: f64,
    /// The probe's round trip: the offset is known within half of it.
    pub rtt_us: f64,
    /// When the host's run clock started, relative to the instant the
    /// controller asked for, on the controller's clock (microseconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_us: Option<f64>,
}

/// A host lost during a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostLoss {
    /// Seconds on the run's clock.
    pub at_s: f64,
    /// When, RFC 3339.
    pub at: String,
    /// Why ("no message for 10 s", "the channel closed: ...").
    pub reason: String,
}

impl RunResult {
    /// Every workload's parameters: `workloads[]`, or `spec` alone in a
    /// record without it.
    pub fn specs(&self) -> Vec<&WorkloadSpec> {
        if self.workloads.is_empty() {
            self.spec.iter().collect()
        } else {
            self.workloads.iter().map(|w| &w.spec).collect()
        }
    }

    /// Whether tables show a read row: reads happened or were asked for.
    pub fn shows_reads(&self) -> bool {
        self.summary.read.ops > 0 || self.specs().iter().any(|s| s.read_pct > 0)
    }

    /// Whether tables show a write row.
    pub fn shows_writes(&self) -> bool {
        self.summary.write.ops > 0 || self.specs().iter().any(|s| s.data_writes())
    }

    /// The run's workloads as a reader compares and draws them: `workloads[]`,
    /// or, for a record without it (built by hand, or a version-1 record
    /// not upgraded), the run itself as its one workload.
    pub fn workload_views(&self) -> Vec<WorkloadResult> {
        if !self.workloads.is_empty() || self.spec.is_none() {
            return self.workloads.clone();
        }
        vec![WorkloadResult::from_run(self)]
    }
}

/// One workload of a run: its parameters, when it was active, and figures
/// of the same shape as the run's, over its own measured time.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WorkloadResult {
    pub name: String,
    pub spec: WorkloadSpec,
    /// When it issued its first and completed its last I/O, seconds since
    /// the run started (its `start_delay` shows in `start_s`).
    pub start_s: f64,
    pub end_s: f64,
    pub effective: Effective,
    pub targets: Vec<TargetResult>,
    pub complete: bool,
    pub incomplete_reason: Option<String>,
    /// Why the run ended this workload before its own end: another
    /// workload's `exitall` (fio). Absent when it ended on its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_by: Option<String>,
    /// The workload's measured time: from the later of the run's warm-up
    /// end and its start, to its last completion. Rates divide by it.
    pub measured_s: f64,
    pub summary: Summary,
    /// Intervals of the run's clock (same `index`, `start_s`, `end_s` as
    /// the run's) in which the workload was active.
    pub intervals: Vec<Interval>,
    pub stalls: Stalls,
    pub errors: Vec<IoError>,
    pub error_counts: Vec<ErrorCount>,
    pub errors_total: u64,
    pub latency_histograms: Histograms,
    pub notes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyResult>,
    /// File-system workloads: each operation issued, by name (`read`,
    /// `create`, `stat`, ...), over `measured_s`. Absent for block
    /// workloads.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub operations: BTreeMap<String, OpResult>,
    /// File-system workloads: vdbench's fileset counters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fileset: Option<FilesetCounts>,
    /// File-system workloads: each fileset as the run found and left it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filesets: Vec<FilesetResult>,
    /// File-system workloads: filebench's IO Summary, every operation
    /// together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_summary: Option<IoSummary>,
    /// File-system workloads: operations run by system calls because this
    /// kernel's io_uring has no opcode for them (every operation when
    /// io_uring was unavailable; none when system calls were chosen).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sync_ops: Vec<String>,
    /// File-system workloads: the backend the threads used, `io_uring` or
    /// `sync` (system calls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<String>,
    /// File-system workloads: why system calls rather than io_uring
    /// (`--qd 1`, `--engine psync`, io_uring unavailable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_reason: Option<String>,
    /// File-system workloads: how the workload's CPU was divided among
    /// its operations (`operations.<op>.cpu_us_per_op`): `sampled` (the
    /// threads measured the CPU of sampled operations) or `latency` (in
    /// proportion to each operation's time in flight, where operations
    /// overlap on a thread). Absent in documents written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_basis: Option<CpuBasis>,
    /// The steady-state check (fio `ss`), when the workload has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<SteadyState>,
}

/// One operation of a file-system workload: the figures of
/// `summary.read` (`iops` is operations per second), its errors by errno
/// name and its share of the workload's CPU.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct OpResult {
    #[serde(flatten)]
    pub figures: DirResult,
    /// Failed operations by errno name (`ENOENT`; `short_transfer` for a
    /// file shorter than expected), warm-up included.
    #[serde(default)]
    pub errors: BTreeMap<String, u64>,
    /// The workload's process CPU (user + system) divided among its
    /// operations, per operation of this kind, microseconds: the whole of
    /// it when the workload issued this one operation; otherwise its
    /// share by `cpu_basis` (count x sampled mean CPU, or count x mean
    /// latency), so these times the operations' counts add up to the
    /// workload's CPU. Absent with fewer than
    /// [`crate::fs::MIN_CPU_SAMPLES`] samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_us_per_op: Option<f64>,
    /// `cpu_basis` `sampled`: the mean thread CPU of the sampled
    /// operations, microseconds, as measured (before iolab's own work
    /// between operations is spread over them). Absent without samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_us_sampled: Option<f64>,
    /// `cpu_basis` `sampled`: how many operations of this kind were
    /// measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_samples: Option<u64>,
}

impl OpResult {
    /// Errors of every errno together.
    pub fn errors_total(&self) -> u64 {
        self.errors.values().sum()
    }
}

/// vdbench's file-system counters over the measured time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FilesetCounts {
    pub files_created: u64,
    pub dirs_created: u64,
    pub files_deleted: u64,
    pub dirs_deleted: u64,
    pub opens_read: u64,
    pub opens_write: u64,
    pub closes: u64,
}

/// A fileset of a file-system workload as the run found and left it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FilesetResult {
    pub name: String,
    /// The anchor directory (absolute).
    pub anchor: String,
    /// Files, directories and bytes of the layout (every file's size).
    pub files: u64,
    pub dirs: u64,
    pub bytes: u64,
    /// Bytes of the files made before the run (`prealloc`; `bytes` at 100).
    #[serde(default)]
    pub bytes_prealloc: u64,
    /// What creation before the run did: files and directories made,
    /// existing files brought to their size, bytes written, and the
    /// seconds it took, checking what was there included.
    pub files_made: u64,
    pub dirs_made: u64,
    #[serde(default)]
    pub files_resized: u64,
    pub bytes_written: u64,
    pub create_s: f64,
    /// Files of the layout existing at the run's end (as found, when the
    /// run stopped before its first operation); absent when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_at_end: Option<u64>,
    /// The files were removed after the run (`cleanup`).
    pub removed: bool,
}

/// filebench's IO Summary: every operation of the workload together
/// (fsync and fdatasync included), over `measured_s`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct IoSummary {
    pub ops: u64,
    pub ops_per_s: f64,
    /// `read` operations per second.
    pub read_ops_per_s: f64,
    /// `write`, `append` and `rewrite` operations per second.
    pub write_ops_per_s: f64,
    /// Bytes of the data operations, 10^6 per second.
    pub mbps: f64,
    /// Mean response time of every operation, microseconds.
    pub lat_mean_us: f64,
    /// Process CPU (user + system) per operation, microseconds.
    pub cpu_us_per_op: f64,
}

impl WorkloadResult {
    /// A run of one workload seen as that workload (version-1 records).
    pub fn from_run(r: &RunResult) -> WorkloadResult {
        WorkloadResult {
            name: r.spec.as_ref().map_or(r.name.clone(), |s| s.name.clone()),
            spec: r.spec.clone().expect("a run with a spec"),
            start_s: 0.0,
            end_s: r.warmup_s + r.measured_s,
            effective: r.effective.clone().unwrap_or_default(),
            targets: r.targets.clone(),
            complete: r.complete,
            incomplete_reason: r.incomplete_reason.clone(),
            ended_by: None,
            measured_s: r.measured_s,
            summary: r.summary.clone(),
            intervals: r.intervals.clone(),
            stalls: r.stalls.clone(),
            errors: r.errors.clone(),
            error_counts: r.error_counts.clone(),
            errors_total: r.errors_total,
            latency_histograms: r.latency_histograms.clone(),
            notes: r.notes.clone(),
            verify: r.verify.clone(),
            operations: BTreeMap::new(),
            fileset: None,
            filesets: Vec::new(),
            io_summary: None,
            sync_ops: Vec::new(),
            backend: None,
            backend_reason: None,
            cpu_basis: None,
            steady_state: None,
        }
    }
}

/// An event marked during a run or a monitor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Seconds since the run started (the clock of `intervals[]`).
    pub time_s: f64,
    pub label: String,
    /// "mark" (`iolab mark`), "signal" (SIGUSR1), ...
    pub source: String,
}

/// Device statistics of a run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct DeviceStats {
    /// Per target: the devices directly under it (`top`, compared with
    /// iolab's counts) and every device sampled.
    pub targets: Vec<DeviceTarget>,
    /// One entry per interval of `intervals[]` (same `index`).
    pub intervals: Vec<DeviceInterval>,
    /// Over the measured time (after warm-up), per device.
    pub summary: Vec<iolab_devices::DeviceRow>,
    /// What the difference between iolab's counts and the device's means.
    pub count_notes: Vec<iolab_devices::CountNote>,
    /// Devices that were not in /proc/diskstats.
    pub missing: Vec<String>,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct DeviceTarget {
    pub target: String,
    pub top: Vec<String>,
    pub sampled: Vec<String>,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct DeviceInterval {
    pub index: u32,
    pub warmup: bool,
    pub rows: Vec<iolab_devices::DeviceRow>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Effective {
    pub engine: String,
    pub registered_buffers: bool,
    pub registered_files: bool,
    pub ring_flags: String,
    /// The clock every timestamp was read from: "tsc" or "clock_gettime"
    /// (absent in documents from before it was recorded).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub clock: String,
    pub direct: bool,
    pub qd: u32,
    pub jobs: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TargetResult {
    pub path: String,
    pub kind: String,
    pub size: u64,
    pub region_start: u64,
    pub region_len: u64,
    pub logical_block_size: u32,
    pub created: bool,
    pub prefilled_bytes: u64,
    pub prefill_s: f64,
    /// What this target received over the measured time; present when
    /// every worker drove one target only (jobs >= targets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<TargetIo>,
}

/// I/O one target received over the measured time.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TargetIo {
    pub ops: u64,
    pub bytes: u64,
    pub iops: f64,
    /// 10^6 bytes per second.
    pub mbps: f64,
}

/// Figures of one direction, or of both together (`total`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct DirResult {
    pub ops: u64,
    pub bytes: u64,
    pub iops: f64,
    /// 10^6 bytes per second.
    pub mbps: f64,
    /// 2^20 bytes per second.
    pub mibps: f64,
    /// Response time, microseconds.
    pub lat_us: LatSummary,
    /// Service time (submission to completion), only with `--rate`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub svc_lat_us: Option<LatSummary>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Cpu {
    /// Process user CPU time as a percentage of one CPU over the measured time.
    pub user_pct: f64,
    pub sys_pct: f64,
    /// Process CPU time (user + system) per completed I/O, microseconds.
    pub usec_per_io: f64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Rate {
    pub requested_iops: f64,
    pub achieved_iops: f64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Summary {
    pub read: DirResult,
    pub write: DirResult,
    pub total: DirResult,
    pub cpu: Cpu,
    pub fsyncs: u64,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rate: Option<Rate>,
    /// Operations other than read and write (file-system workloads:
    /// `open`, `stat`, ...), by name; absent when there are none (every
    /// block workload).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub ops: std::collections::BTreeMap<String, DirResult>,
    /// Trims (discards; fio `rw=trim`, `randtrim`, `trimwrite`): absent
    /// when the workload issued none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<DirResult>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Interval {
    pub index: u32,
    pub start_s: f64,
    pub end_s: f64,
    pub warmup: bool,
    pub read: DirResult,
    pub write: DirResult,
    /// Trims of the interval: present only when the workload trims.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<DirResult>,
    pub total: DirResult,
    pub errors: u64,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cpu: Option<Cpu>,
    pub workers_late: u32,
    /// Every operation together, fsync included (what a file-system
    /// workload's interval line shows): present only when the interval
    /// holds operations other than read and write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all: Option<DirResult>,
    /// File-system workloads: each operation of the interval other than
    /// read, write and trim (`open`, `create`, `fsync`, ...), by name, as
    /// `summary.ops` has them over the measured time; absent when there
    /// are none (every block workload).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ops: BTreeMap<String, DirResult>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StallEvent {
    pub start_s: f64,
    pub end_s: f64,
    pub duration_ms: f64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Stalls {
    /// Longest time with I/O outstanding and no completion, milliseconds.
    pub longest_gap_ms: f64,
    pub longest_gap_start_s: Option<f64>,
    pub longest_gap_end_s: Option<f64>,
    /// False when `longest_gap_ms` is an upper bound (several workers and
    /// no common gap of 10 ms or more).
    pub exact: bool,
    pub threshold_ms: f64,
    /// Every stall of at least `threshold_ms`: when it began and ended.
    pub events: Vec<StallEvent>,
    /// Indexes of measured intervals in which no I/O completed.
    pub zero_intervals: Vec<u32>,
    /// True in a record written while the run was still in progress (what
    /// a killed run leaves): gaps are analysed only when a run ends, so
    /// `longest_gap_ms` and `events` are not known; `zero_intervals`
    /// covers the intervals up to the last update. Absent (false) in a
    /// finished run's record.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub provisional: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IoError {
    pub target: String,
    pub offset: u64,
    pub len: u32,
    pub op: String,
    pub errno: i32,
    pub error: String,
    pub time_s: f64,
    pub worker: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ErrorCount {
    pub errno: i32,
    pub error: String,
    pub count: u64,
}

/// A latency histogram as stored: non-empty buckets as
/// [highest equivalent value in ns, count], plus exact min, max and sum.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct HistogramData {
    pub unit: String,
    pub significant_digits: u8,
    pub min_ns: u64,
    pub max_ns: u64,
    /// Read from any JSON number: a histogram inside `hosts[]` (whose
    /// fields are flattened) passes through serde's buffer, which has no
    /// 128-bit integers.
    #[serde(deserialize_with = "iolab_stats::u128_any")]
    pub sum_ns: u128,
    pub buckets: Vec<(u64, u64)>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Histograms {
    pub read: HistogramData,
    pub write: HistogramData,
    /// Trims: absent when the workload issued none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<HistogramData>,
}

/// Whether and when a workload with a steady-state criterion (fio `ss`)
/// levelled. `samples_*` are the last window's one-second samples.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SteadyState {
    /// fio's name: `iops`, `iops_slope`, `bw`, `bw_slope`, `lat`,
    /// `lat_slope`.
    pub criterion: String,
    /// The limit as given: percent of the mean when `percent`, else
    /// I/Os or bytes per second, or nanoseconds of latency.
    pub limit: f64,
    pub percent: bool,
    pub duration_s: f64,
    pub ramp_s: f64,
    /// The criterion held over a full window, so the workload ended there.
    pub reached: bool,
    /// Seconds after the workload's start when it was reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reached_at_s: Option<f64>,
    /// The judged value at the end: the largest deviation from the mean
    /// or the slope, in the limit's unit (percent when `percent`).
    pub value: f64,
    /// The window's mean IOPS and bandwidth (bytes per second).
    pub iops_mean: f64,
    pub bw_mean: f64,
    /// The window's mean latency, nanoseconds (0 in documents written
    /// before it was kept).
    #[serde(default)]
    pub lat_mean_ns: f64,
    /// The window's one-second samples, oldest first.
    pub samples_iops: Vec<f64>,
    pub samples_bw: Vec<f64>,
    /// The same samples' mean latency, nanoseconds.
    #[serde(default)]
    pub samples_lat_ns: Vec<f64>,
}

/// How a file-system workload's CPU is divided among its operations
/// (`cpu_basis`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CpuBasis {
    /// By count x the mean thread CPU of sampled operations (one
    /// operation at a time per thread, on system calls).
    Sampled,
    /// By count x mean latency (the operations' time in flight), where
    /// operations overlap on a thread and a thread's CPU around one
    /// holds the others' (io_uring, `qd` > 1).
    Latency,
}
