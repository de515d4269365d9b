//! The resolved workload: every parameter of one run, validated.

pub use crate::dist::{parse_distribution, Distribution, Zone};
use crate::units::{parse_size, UnitError};
use serde::{Deserialize, Serialize};

/// A problem with a workload's parameters, phrased as what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SpecError(pub String);

impl From<UnitError> for SpecError {
    fn from(e: UnitError) -> Self {
        SpecError(e.to_string())
    }
}

/// One target of a workload and the region of it that I/O goes to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetSpec {
    pub path: String,
    /// Start of the region in bytes.
    pub offset: u64,
    /// Length of the region in bytes; `None` runs to the end of the target.
    pub range: Option<u64>,
    /// Size to create a missing file at (or extend an owned one to).
    pub size: Option<u64>,
}

/// One entry of a block-size mix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BsWeight {
    pub bytes: u64,
    pub weight: u32,
}

/// Trims (discards) in a workload: fio's `rw=trim`, `randtrim`
/// (`Only`), `trimwrite`, `randtrimwrite` (`ThenWrite`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrimMode {
    /// Reads and writes only.
    #[default]
    None,
    /// Every I/O is a trim.
    Only,
    /// Each block is trimmed, then the same block (offset and length)
    /// is written: the trim and its write alternate.
    ThenWrite,
}

impl TrimMode {
    pub fn is_none(&self) -> bool {
        *self == TrimMode::None
    }
}

/// What written blocks contain.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DataPattern {
    /// Incompressible and unique per block (the default).
    Random,
    /// All zeros: measures a compressing file system's compressor, not its disks.
    Zero,
    /// Compressible to about `ratio`:1 (ratio >= 1).
    Compress { ratio: f64 },
    /// A fixed pattern repeated by offset (`pattern:0x...`); with
    /// `verify`, reads are checked against it.
    Pattern { bytes: crate::PatternBytes },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    IoUring,
    Psync,
    Null,
    /// fio's `falloc`: each write is fallocate(mode 0), each read
    /// fallocate(KEEP_SIZE), each trim a punched hole; no data moves.
    Falloc,
    /// fio's `ftruncate`: each write truncates the file to its offset.
    Ftruncate,
    /// fio's `page_fault`: reads and writes copy to and from anonymous
    /// memory of the region's size, faulting its pages in; no file I/O.
    PageFault,
}

impl EngineKind {
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::IoUring => "io_uring",
            EngineKind::Psync => "psync",
            EngineKind::Null => "null",
            EngineKind::Falloc => "falloc",
            EngineKind::Ftruncate => "ftruncate",
            EngineKind::PageFault => "page_fault",
        }
    }

    /// One I/O at a time per worker, done in the call (qd must be 1).
    pub fn synchronous(self) -> bool {
        !matches!(self, EngineKind::IoUring | EngineKind::Null)
    }

    /// Its I/O carries no data a later read could check.
    pub fn moves_no_data(self) -> bool {
        matches!(
            self,
            EngineKind::Null | EngineKind::Falloc | EngineKind::Ftruncate | EngineKind::PageFault
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncMode {
    None,
    /// O_DSYNC: every write is durable when it completes.
    Dsync,
}

/// Writing targets end to end before the workload, so reads never hit
/// never-written (thin or copy-on-write) space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Prefill {
    /// Files iolab owns that were not yet written end to end (the default).
    Auto,
    /// Every target, block devices included (`--prefill`; a write, so the
    /// safety checks apply).
    Always,
    /// None (`--no-prefill`).
    Never,
}

/// The clock the workers read for every timestamp (`--clock`, fio
/// `clocksource`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockSource {
    /// The CPU's time-stamp counter where the kernel keeps
    /// CLOCK_MONOTONIC on it, else `clock_gettime`.
    #[default]
    Auto,
    /// The time-stamp counter; refused where the kernel does not use it.
    Tsc,
    /// `clock_gettime(CLOCK_MONOTONIC)`.
    ClockGettime,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnError {
    Stop,
    Continue,
}

/// How `rate` spaces a worker's I/Os (fio `rate_process`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arrival {
    /// Evenly, one every 1/rate.
    #[default]
    Fixed,
    /// Exponentially distributed gaps with the same mean (a Poisson
    /// process).
    Poisson,
}

/// Every parameter of one workload, resolved and validated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkloadSpec {
    pub name: String,
    pub targets: Vec<TargetSpec>,
    /// The access pattern as given (`read`, `randrw`, ...), for display.
    pub rw: String,
    /// Share of I/Os that are reads, 0-100.
    pub read_pct: u32,
    /// Chance (0-100) that an I/O jumps to a random offset instead of
    /// continuing its stream sequentially (vdbench `seekpct`).
    pub random_pct: u32,
    /// Block size or mix of reads (and of every I/O where `bs_write` or
    /// `bs_trim` is unset).
    pub bs: Vec<BsWeight>,
    /// Block size or mix of writes (fio `bs=,W`); `None`: `bs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bs_write: Option<Vec<BsWeight>>,
    /// Block size or mix of trims (fio `bs=,,T`); `None`: `bs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bs_trim: Option<Vec<BsWeight>>,
    /// Trims in the workload (`rw = trim`, ...).
    #[serde(default, skip_serializing_if = "TrimMode::is_none")]
    pub trim: TrimMode,
    /// Bytes a sequential stream skips after each I/O (fio `rw=write:4k`);
    /// negative, the stream steps back (fio `rw=read:-8k`).
    #[serde(default, skip_serializing_if = "is_zero_i64")]
    pub hole: i64,
    /// A random workload draws a new random offset every N I/Os and
    /// goes on sequentially in between (fio `rw=randread:8`); 0: every I/O.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub random_every: u64,
    /// Worker i's region starts at offset + i x offset_increment (fio
    /// `offset_increment`); 0: every worker shares the region.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub offset_increment: u64,
    /// The I/O priority (Linux ioprio value) of every I/O without one of
    /// `cmdprio`'s (fio `prioclass`/`prio`); 0: the process's.
    #[serde(default, skip_serializing_if = "is_zero_u16")]
    pub ioprio: u16,
    /// Shares of I/Os with their own priority (fio `cmdprio_*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmdprio: Option<crate::prio::CmdPrio>,
    /// Offset alignment in bytes.
    pub align: u64,
    /// Worker threads.
    pub jobs: u32,
    /// Outstanding I/Os per worker.
    pub qd: u32,
    /// A worker waits until this many of its I/Os have completed (or all
    /// of them, when fewer are in flight) before it issues more (fio
    /// `iodepth_batch_complete_min`). 1: refill after every completion.
    #[serde(default = "one")]
    pub batch_complete: u32,
    pub distribution: Distribution,
    /// Measured time after warm-up, seconds; `None` when the run ends on
    /// bytes or ops.
    pub duration_s: Option<f64>,
    /// Total bytes to transfer across all workers (after warm-up).
    pub io_size: Option<u64>,
    /// Total I/Os across all workers (after warm-up).
    pub ops: Option<u64>,
    pub warmup_s: f64,
    pub interval_s: f64,
    /// Requested total I/O rate; `None` is unlimited.
    pub rate_iops: Option<f64>,
    pub direct: bool,
    pub sync: SyncMode,
    /// fsync after every N writes per worker; 0 never.
    pub fsync_every: u64,
    pub data: DataPattern,
    /// Share (0-100) of written blocks that repeat an earlier block's content.
    pub dedupe_pct: u32,
    pub engine: EngineKind,
    /// CPUs the workers are pinned to: worker i on `cpus[i % cpus.len()]`.
    /// Empty: not pinned, the scheduler places them.
    #[serde(default)]
    pub cpus: Vec<u32>,
    /// The clock for timestamps (`--clock`); what was used is
    /// `effective.clock` in the result.
    #[serde(default)]
    pub clock: ClockSource,
    pub seed: u64,
    /// Leading bytes of each target's region that "cached" I/O goes to.
    pub hit_area: u64,
    /// Share of reads that go to the hit area (vdbench `rhpct`).
    pub read_hit_pct: u32,
    /// Share of writes that go to the hit area (vdbench `whpct`).
    pub write_hit_pct: u32,
    pub on_error: OnError,
    /// Whether targets are written end to end once before the workload.
    pub prefill: Prefill,
    /// Paths whose data the user allowed iolab to destroy.
    pub destroy_data_on: Vec<String>,
    /// `--allow-mounted-write`: a device named in `destroy_data_on` may be
    /// written while mounted, held or active swap.
    #[serde(default)]
    pub allow_mounted_write: bool,
    /// A gap with I/O outstanding and no completion at least this long is a
    /// stall event.
    pub stall_threshold_s: f64,
    /// Stamp every written sector and check every read (`--verify`).
    #[serde(default)]
    pub verify: bool,
    /// Re-read every write once it completes (`--verify-after`).
    #[serde(default)]
    pub verify_after: bool,
    /// Journal directory (`--journal DIR`).
    #[serde(default)]
    pub journal: Option<String>,
    /// Stop after this many data validation findings; 0 never.
    #[serde(default)]
    pub max_errors: u64,
    /// Seconds after the run's start that this workload starts (`start_delay`,
    /// fio `startdelay`): dd streams launched 5 s apart.
    #[serde(default)]
    pub start_delay_s: f64,
    /// Share in percent (0-100] of the run's `rate` this workload takes
    /// (vdbench `skew`); `None` takes an even part of what the shares leave.
    #[serde(default)]
    pub skew_pct: Option<f64>,
    /// A file-system workload (filesets and a mix or flows): runs on the
    /// file-system driver; `targets` is then empty. `None`: a block
    /// workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fs: Option<crate::fs::FsSpec>,
    /// End when IOPS or bandwidth has levelled (fio `ss`); `None`: no
    /// steady-state check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady: Option<crate::steady::SteadySpec>,
    /// A block workload's workers pause this long after every
    /// `think_blocks` I/Os (fio `thinktime`); 0: never.
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub think_s: f64,
    /// I/Os between two pauses (fio `thinktime_blocks`), at least 1.
    #[serde(default = "one64", skip_serializing_if = "is_one")]
    pub think_blocks: u64,
    /// How `rate` spaces the I/Os (fio `rate_process`).
    #[serde(default, skip_serializing_if = "is_fixed")]
    pub arrival: Arrival,
    /// fdatasync after every N writes per worker; 0 never.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fdatasync_every: u64,
    /// fsync every written target when the workload ends (fio `end_fsync`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub end_fsync: bool,
    /// Drop the targets' page cache before the first I/O (fio `invalidate`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub invalidate: bool,
    /// Remove the target files this run created when the workload ends
    /// (fio `unlink`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub unlink: bool,
    /// Write until ENOSPC, which ends the workload (fio `fill_device`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub fill: bool,
    /// Writes carry RWF_ATOMIC (fio `atomic`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub atomic: bool,
    /// When this workload ends, end others too (fio `exitall`, scope
    /// `exit_what`); `None`: the others go on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exitall: Option<crate::ExitWhat>,
    /// Token-based flow control with the run's other workloads of the
    /// same flow id (fio `flow`); `None`: not coupled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow_ctl: Option<crate::FlowSpec>,
    /// NUMA placement of the workers (fio `numa_cpu_nodes`,
    /// `numa_mem_policy`); `None`: unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numa: Option<crate::NumaSpec>,
    /// The fio (vdbench, filebench) section this workload came from, for
    /// exporters in that tool's language; `None` for iolab's own jobs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<crate::origin::JobOrigin>,
}

/// Allowed range of `--jobs`.
pub const JOBS_RANGE: (u64, u64) = (1, 4096);
/// Allowed range of `--qd`.
pub const QD_RANGE: (u64, u64) = (1, 4096);
/// Allowed range of `--batch-complete`.
pub const BATCH_COMPLETE_RANGE: (u64, u64) = (1, 4096);
/// Allowed range of every percentage.
pub const PCT_RANGE: (u64, u64) = (0, 100);
/// The shortest `--interval`: the engine's interval timer does not go
/// below 1 ms.
pub const MIN_INTERVAL_S: f64 = 0.001;

/// `value` of `--flag` against its allowed range `(min, max)`: the one
/// message for a whole number out of range, used by the parser (which also
/// sees negative and overflowing text) and by `validate`.
pub fn check_range(flag: &str, value: i128, (min, max): (u64, u64)) -> Result<(), SpecError> {
    let give = if max == u64::MAX {
        format!("give {min} or more")
    } else {
        format!("give {min} to {max}")
    };
    if value < min as i128 {
        return Err(SpecError(format!(
            "--{flag} {value} is below the minimum {min}; {give}"
        )));
    }
    if value > max as i128 {
        return Err(SpecError(format!(
            "--{flag} {value} is too large (max {max}); {give}"
        )));
    }
    Ok(())
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn one() -> u32 {
    1
}

fn one64() -> u64 {
    1
}

// The keys of issue 17 are left out of a document at their defaults, so
// a workload that does not use them records what it always did.
fn is_zero_f64(v: &f64) -> bool {
    *v == 0.0
}
fn is_one(v: &u64) -> bool {
    *v == 1
}
fn is_zero(v: &u64) -> bool {
    *v == 0
}
fn is_zero_u16(v: &u16) -> bool {
    *v == 0
}
fn is_zero_i64(v: &i64) -> bool {
    *v == 0
}
fn is_false(v: &bool) -> bool {
    !*v
}
fn is_fixed(v: &Arrival) -> bool {
    *v == Arrival::Fixed
}

/// The longest `think` (an hour).
pub const MAX_THINK_S: f64 = 3600.0;

impl WorkloadSpec {
    /// The checks of the trims, per-direction block sizes, holes and
    /// per-worker regions.
    fn validate_blockx(&self) -> Result<(), SpecError> {
        let e = |s: String| Err(SpecError(s));
        if self.trims() && self.read_pct != 0 {
            return e(format!(
                "--rw {} issues no reads, but --read-pct is {}; drop --read-pct (or use a read or mixed --rw)",
                self.rw, self.read_pct
            ));
        }
        if self.trim == TrimMode::ThenWrite && self.bs_write.is_some() {
            return e(format!("--bs-write has no effect with --rw {}: each write covers the block its trim did; give --bs-trim (or --bs) only", self.rw));
        }
        if !self.trims() && rw_trim(&self.rw) != TrimMode::None {
            return e(format!("--rw {} needs the trim mode it names", self.rw));
        }
        if self.hole.unsigned_abs() > (1 << 40) {
            return e(format!(
                "--hole {} is over 1 TiB; give a smaller hole",
                self.hole
            ));
        }
        if self.offset_increment > 0 && self.hit_area > 0 {
            return e("--offset-increment gives each worker its own region, --hit-area shares one hit area: give one of them".into());
        }
        Ok(())
    }

    /// A minimal valid workload: `rw` ("read", "randread", "write", ...)
    /// in 4 KiB blocks on one target, QD 1, one job, 1 s, O_DIRECT, seed 1;
    /// every other parameter at its default. For tests and examples that
    /// need a spec without going through a job file.
    pub fn example(name: &str, target: &str, rw: &str) -> WorkloadSpec {
        let (read_pct, random_pct) = parse_rw(rw).unwrap_or((100, 0));
        WorkloadSpec {
            name: name.into(),
            targets: vec![TargetSpec {
                path: target.into(),
                offset: 0,
                range: None,
                size: None,
            }],
            rw: rw.into(),
            read_pct,
            random_pct,
            bs: vec![BsWeight {
                bytes: 4096,
                weight: 1,
            }],
            bs_write: None,
            bs_trim: None,
            trim: rw_trim(rw),
            hole: 0,
            random_every: 0,
            offset_increment: 0,
            ioprio: 0,
            cmdprio: None,
            align: 4096,
            jobs: 1,
            qd: 1,
            batch_complete: 1,
            distribution: Distribution::Uniform,
            duration_s: Some(1.0),
            io_size: None,
            ops: None,
            warmup_s: 0.0,
            interval_s: 1.0,
            rate_iops: None,
            direct: true,
            sync: SyncMode::None,
            fsync_every: 0,
            data: DataPattern::Random,
            dedupe_pct: 0,
            engine: EngineKind::IoUring,
            cpus: vec![],
            clock: ClockSource::Auto,
            seed: 1,
            hit_area: 0,
            read_hit_pct: 0,
            write_hit_pct: 0,
            on_error: OnError::Stop,
            prefill: Prefill::Auto,
            destroy_data_on: vec![],
            allow_mounted_write: false,
            stall_threshold_s: 1.0,
            verify: false,
            verify_after: false,
            journal: None,
            max_errors: 0,
            start_delay_s: 0.0,
            skew_pct: None,
            fs: None,
            steady: None,
            think_s: 0.0,
            think_blocks: 1,
            arrival: Arrival::Fixed,
            fdatasync_every: 0,
            end_fsync: false,
            invalidate: false,
            unlink: false,
            fill: false,
            atomic: false,
            exitall: None,
            flow_ctl: None,
            numa: None,
            origin: None,
        }
    }

    /// Block size of the generation map with `--verify`: the largest
    /// size dividing every block size, the alignment and the offsets.
    pub fn verify_block_size(&self) -> u64 {
        let mut g = self.all_bs().map(|b| b.bytes).fold(self.align, gcd);
        for t in &self.targets {
            g = gcd(g, t.offset);
        }
        g
    }

    /// The block sizes (or mixes) of the directions the workload issues:
    /// reads `bs`, writes `bs_write`, trims `bs_trim` (each `bs` when unset).
    pub fn used_bs(&self) -> impl Iterator<Item = &BsWeight> + '_ {
        let reads = self.reads().then_some(&self.bs);
        // trimwrite's writes cover the blocks their trims did.
        let wbs = match self.trim {
            TrimMode::ThenWrite => &self.bs_trim,
            _ => &self.bs_write,
        };
        let writes = self.data_writes().then(|| wbs.as_ref().unwrap_or(&self.bs));
        let trims = self
            .trims()
            .then(|| self.bs_trim.as_ref().unwrap_or(&self.bs));
        reads.into_iter().chain(writes).chain(trims).flatten()
    }
    /// Every block size given (used by a direction or not), for checks
    /// that must hold whatever runs.
    pub fn all_bs(&self) -> impl Iterator<Item = &BsWeight> + '_ {
        let w = self.bs_write.iter().flatten();
        self.bs.iter().chain(w).chain(self.bs_trim.iter().flatten())
    }
    pub fn min_bs(&self) -> u64 {
        self.used_bs().map(|b| b.bytes).min().unwrap_or(0)
    }
    pub fn max_bs(&self) -> u64 {
        self.used_bs().map(|b| b.bytes).max().unwrap_or(0)
    }
    /// True when any I/O of the workload (not counting prefill) changes
    /// the target: a write or a trim (a discard destroys data as a write
    /// does, so every safety check of writes applies).
    pub fn writes(&self) -> bool {
        self.read_pct < 100
    }
    /// True when the workload writes data (not only trims).
    pub fn data_writes(&self) -> bool {
        self.read_pct < 100 && self.trim != TrimMode::Only
    }
    /// True when the workload trims.
    pub fn trims(&self) -> bool {
        self.trim != TrimMode::None
    }
    pub fn reads(&self) -> bool {
        self.read_pct > 0
    }
    pub fn prefill_always(&self) -> bool {
        self.prefill == Prefill::Always
    }

    /// Check what can be checked without looking at the targets.
    pub fn validate(&self) -> Result<(), SpecError> {
        let e = |s: String| Err(SpecError(s));
        if self.targets.is_empty() && self.fs.is_none() {
            return e("no target: give --target PATH (a file or a block device)".into());
        }
        if let Some(fs) = &self.fs {
            if !self.targets.is_empty() {
                return e("a workload runs on targets (--target) or on files under --dir, not both; give one".into());
            }
            fs.validate()?;
            if self.io_size.is_some() && !fs.moves_data() {
                return e("--io-size ends a workload on bytes moved, but no operation of this one moves any (no read, write, append or rewrite, or only empty files); give --duration or --ops instead".into());
            }
        }
        if !(0.0..=MAX_THINK_S).contains(&self.think_s) {
            return e("--think must be from 0 to an hour, e.g. --think 100us".into());
        }
        check_range("think-blocks", self.think_blocks.into(), (1, u64::MAX))?;
        check_range("read-pct", self.read_pct.into(), PCT_RANGE)?;
        check_range("random-pct", self.random_pct.into(), PCT_RANGE)?;
        check_range("read-hit-pct", self.read_hit_pct.into(), PCT_RANGE)?;
        check_range("write-hit-pct", self.write_hit_pct.into(), PCT_RANGE)?;
        check_range("dedupe", self.dedupe_pct.into(), PCT_RANGE)?;
        if self.hit_area == 0 && (self.read_hit_pct > 0 || self.write_hit_pct > 0) {
            let (flag, pct) = if self.read_hit_pct > 0 {
                ("read-hit-pct", self.read_hit_pct)
            } else {
                ("write-hit-pct", self.write_hit_pct)
            };
            return e(format!(
                "--{flag} {pct} sends I/O to the hit area, but there is none; give --hit-area SIZE (vdbench hitarea) or drop --{flag}"
            ));
        }
        for (flag, bs) in [
            ("bs", Some(&self.bs)),
            ("bs-write", self.bs_write.as_ref()),
            ("bs-trim", self.bs_trim.as_ref()),
        ] {
            let Some(bs) = bs else { continue };
            if bs.is_empty() || bs.iter().any(|b| b.bytes == 0) {
                return e(format!(
                    "--{flag} must be at least 1 byte, e.g. --{flag} 4k"
                ));
            }
            if bs.iter().all(|b| b.weight == 0) {
                return e(format!(
                    "--{flag} weights are all 0; give at least one weight above 0"
                ));
            }
            if bs.iter().any(|b| b.bytes > (1 << 30)) {
                return e(format!(
                    "--{flag} over 1 GiB is not supported; use a smaller block size"
                ));
            }
        }
        if self.hit_area > 0 && self.hit_area < self.max_bs() {
            return e(format!(
                "--hit-area {} is smaller than the block size {}, so no I/O fits in it; give a larger --hit-area or a smaller --bs",
                self.hit_area,
                self.max_bs()
            ));
        }
        if self.align == 0 {
            return e("--align must be at least 1 byte".into());
        }
        check_range("jobs", self.jobs.into(), JOBS_RANGE)?;
        check_range("qd", self.qd.into(), QD_RANGE)?;
        check_range(
            "batch-complete",
            self.batch_complete.into(),
            BATCH_COMPLETE_RANGE,
        )?;
        if let Some(r) = self.rate_iops {
            if !(r > 0.0 && r.is_finite()) {
                return e("--rate must be a finite number above 0 I/Os per second (omit it for unlimited)".into());
            }
        }
        self.distribution.validate()?;
        self.validate_blockx()?;
        if self.verify {
            if self.engine.moves_no_data() {
                return e(format!("--verify needs a real engine: the {} engine moves no data; use --engine io_uring or psync", self.engine.name()));
            }
            if self.dedupe_pct > 0 {
                return e("--dedupe cannot be combined with --verify (every verified sector carries a unique stamp); drop one".into());
            }
            if self.trims() {
                return e(format!("--verify cannot check a workload that trims (rw {}): a trimmed block reads back as zeros or as its old data, depending on the device; verify a write workload, or trim without --verify", self.rw));
            }
            let mut sizes: Vec<u64> = self.all_bs().map(|b| b.bytes).collect();
            sizes.push(self.align);
            sizes.extend(self.targets.iter().map(|t| t.offset));
            let g = sizes.iter().copied().filter(|&v| v > 0).fold(0, gcd);
            if g % 512 != 0 {
                return e(format!("--verify stamps 512-byte sectors: block sizes, --align and --offset must be multiples of 512 (they share only {g} bytes)"));
            }
        }
        if let DataPattern::Compress { ratio } = self.data {
            if !(ratio >= 1.0 && ratio.is_finite()) {
                return e(format!(
                    "compress:{ratio} is not usable; give a ratio of 1 or more, e.g. compress:2"
                ));
            }
        }
        if self.duration_s.is_none() && self.io_size.is_none() && self.ops.is_none() && !self.fill {
            return e("the workload has no end; give --duration, --io-size or --ops".into());
        }
        if self.atomic && self.writes() && !self.direct {
            return e("--atomic needs --direct: RWF_ATOMIC is for O_DIRECT writes".into());
        }
        if self.duration_s == Some(0.0) || self.io_size == Some(0) || self.ops == Some(0) {
            return e("--duration, --io-size and --ops must be above 0".into());
        }
        if let Some(d) = self.duration_s.filter(|&d| d > 0.0 && d < MIN_INTERVAL_S) {
            return e(format!(
                "--duration {} is shorter than 1ms, the shortest run iolab times; give 1ms or more, or --ops N for a fixed number of I/Os",
                crate::units::format_duration_exact(d)
            ));
        }
        if self.interval_s.is_nan() || self.interval_s < MIN_INTERVAL_S {
            return e(format!(
                "--interval {} is below the minimum of 1ms (the engine's interval timer); give 1ms or more, e.g. --interval 1s",
                crate::units::format_duration_exact(self.interval_s)
            ));
        }
        if self.stall_threshold_s.is_nan() || self.stall_threshold_s <= 0.0 {
            return e("--stall-threshold must be above 0, e.g. --stall-threshold 1s".into());
        }
        if !(self.start_delay_s >= 0.0 && self.start_delay_s.is_finite()) {
            return e("start_delay must be 0 or more, e.g. start_delay = \"5s\"".into());
        }
        if let Some(k) = self.skew_pct {
            if !(k > 0.0 && k <= 100.0) {
                return e(format!(
                    "skew {k} is not a share of the run's rate; give a percentage above 0 and at most 100, e.g. skew = 25"
                ));
            }
        }
        if self.cmdprio.is_some() && self.engine != EngineKind::IoUring {
            return e(format!("--cmdprio-pct and --cmdprio-bssplit set priorities per I/O, which only --engine io_uring carries (fio's io_uring/libaio options), not --engine {}", self.engine.name()));
        }
        if self.engine == EngineKind::Ftruncate && (self.read_pct > 0 || self.trims()) {
            return e(format!("--engine ftruncate only writes (each write truncates the file to its offset), not --rw {}; give --rw write or randwrite", self.rw));
        }
        if self.engine.synchronous() && self.qd > 1 {
            return e(format!(
                "--engine {} has one outstanding I/O per worker, not --qd {}; use --jobs {} for that concurrency or --engine io_uring",
                self.engine.name(),
                self.qd,
                self.qd * self.jobs
            ));
        }
        for t in &self.targets {
            if let Some(r) = t.range {
                if r < self.max_bs() {
                    return e(format!(
                        "--range {r} of {} is smaller than the block size {}; give a larger range or a smaller --bs",
                        t.path,
                        self.max_bs()
                    ));
                }
            }
            if let Some(s) = t.size {
                if s < self.max_bs() + t.offset {
                    return e(format!(
                        "--size {s} of {} is smaller than the block size {}; give a larger --size or a smaller --bs",
                        t.path,
                        self.max_bs()
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Parse `--rw` into (read_pct, random_pct); the trim modes have no
/// reads ([`rw_trim`] says which trims).
pub fn parse_rw(s: &str) -> Result<(u32, u32), SpecError> {
    Ok(match s.trim() {
        "read" => (100, 0),
        "write" | "trim" | "trimwrite" => (0, 0),
        "randread" => (100, 100),
        "randwrite" | "randtrim" | "randtrimwrite" => (0, 100),
        "rw" | "readwrite" => (50, 0),
        "randrw" => (50, 100),
        other => {
            return Err(SpecError(format!(
                "--rw {other} is not known; use read, write, randread, randwrite, rw, randrw, trim, randtrim, trimwrite or randtrimwrite"
            )))
        }
    })
}

/// The trims of `--rw` (`trim`, `randtrim`: only trims; `trimwrite`,
/// `randtrimwrite`: a trim then a write of each block).
pub fn rw_trim(s: &str) -> TrimMode {
    match s.trim() {
        "trim" | "randtrim" => TrimMode::Only,
        "trimwrite" | "randtrimwrite" => TrimMode::ThenWrite,
        _ => TrimMode::None,
    }
}

/// Parse `--bs`: one size (`4k`) or a weighted mix (`4k:60,8k:30,64k:10`).
pub fn parse_bs(s: &str) -> Result<Vec<BsWeight>, SpecError> {
    let bad = || {
        SpecError(format!(
            "--bs {s} is not a block size or mix; write e.g. 4k or 4k:60,8k:30,64k:10"
        ))
    };
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let weighted = parts.iter().filter(|p| p.contains(':')).count();
    if weighted > 0 && weighted < parts.len() {
        return Err(SpecError(format!(
            "--bs {s} gives weights to some sizes but not to others; write a mix with a weight for every size (e.g. 4k:60,8k:40) or a sweep without weights (e.g. 4k,8k)"
        )));
    }
    let mut out = Vec::new();
    for part in parts {
        if part.is_empty() {
            return Err(bad());
        }
        let (size, weight) = match part.split_once(':') {
            Some((a, w)) => (a, w.trim().parse::<u32>().map_err(|_| bad())?),
            None => (part, 1),
        };
        out.push(BsWeight {
            bytes: parse_size(size).map_err(|_| bad())?,
            weight,
        });
    }
    if out.len() > 1 && !s.contains(':') {
        return Err(SpecError(format!(
            "--bs {s}: a mix needs a weight for each size, e.g. 4k:60,8k:40"
        )));
    }
    Ok(out)
}

/// Parse `--data`: `random`, `zero`, `compress:RATIO`, `pattern:0xHEX`
/// or `pattern:"string"`.
pub fn parse_data(s: &str) -> Result<DataPattern, SpecError> {
    if let Some(p) = s.trim().strip_prefix("pattern:") {
        return crate::parse_pattern(p)
            .map(|bytes| DataPattern::Pattern { bytes })
            .map_err(|e| SpecError(format!("--data {s}: {e}")));
    }
    let bad = || {
        SpecError(format!(
            "--data {s} is not known; use random, zero, compress:RATIO (e.g. compress:2) or pattern:0xHEX"
        ))
    };
    match s.trim() {
        "random" => Ok(DataPattern::Random),
        "zero" | "zeros" => Ok(DataPattern::Zero),
        other => match other.strip_prefix("compress:") {
            Some(r) => Ok(DataPattern::Compress {
                ratio: r.parse().map_err(|_| bad())?,
            }),
            None => Err(bad()),
        },
    }
}

pub fn parse_engine(s: &str) -> Result<EngineKind, SpecError> {
    match s.trim() {
        "io_uring" | "iouring" | "uring" => Ok(EngineKind::IoUring),
        "psync" | "sync" => Ok(EngineKind::Psync),
        "null" => Ok(EngineKind::Null),
        "falloc" => Ok(EngineKind::Falloc),
        "ftruncate" => Ok(EngineKind::Ftruncate),
        "page_fault" => Ok(EngineKind::PageFault),
        other => Err(SpecError(format!(
            "--engine {other} is not known; use io_uring, psync, null, falloc, ftruncate or page_fault"
        ))),
    }
}

/// Largest CPU number `--cpus` accepts (the size of a `cpu_set_t`).
pub const MAX_CPU: u32 = 1023;

/// A CPU list as the kernel writes them (`0-3,8,10-11`): the CPUs in the
/// order given, without repeats.
pub fn parse_cpu_list(s: &str) -> Result<Vec<u32>, SpecError> {
    let bad = |why: &str| {
        SpecError(format!(
            "--cpus {s}: {why}; give CPU numbers and ranges such as 2 or 0-3,8"
        ))
    };
    let num = |t: &str| -> Result<u32, SpecError> {
        match t.trim().parse::<u32>() {
            Ok(n) if n <= MAX_CPU => Ok(n),
            Ok(_) => Err(bad(&format!("CPU numbers go up to {MAX_CPU}"))),
            Err(_) => Err(bad(&format!("'{}' is not a CPU number", t.trim()))),
        }
    };
    let mut out: Vec<u32> = Vec::new();
    // Which CPUs are in `out` already: a search of `out` per CPU made a
    // long list of repeated ranges quadratic (seconds for 14 KB).
    let mut seen = [false; MAX_CPU as usize + 1];
    for part in s.split(',') {
        let part = part.trim();
        if part.is_empty() {
            return Err(bad("empty entry"));
        }
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (num(a)?, num(b)?),
            None => (num(part)?, num(part)?),
        };
        if lo > hi {
            return Err(bad(&format!("range {part} runs backwards")));
        }
        for c in lo..=hi {
            if !seen[c as usize] {
                seen[c as usize] = true;
                out.push(c);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rw_modes() {
        assert_eq!(parse_rw("randrw").unwrap(), (50, 100));
        assert_eq!(parse_rw("write").unwrap(), (0, 0));
        assert_eq!(parse_rw("randtrim").unwrap(), (0, 100));
        assert_eq!(rw_trim("trimwrite"), TrimMode::ThenWrite);
        assert_eq!(rw_trim("randrw"), TrimMode::None);
        assert!(parse_rw("discard").is_err());
    }

    #[test]
    fn bs_mix() {
        let m = parse_bs("4k:60,8k:30,64k:10").unwrap();
        assert_eq!(m.len(), 3);
        assert_eq!(
            m[2],
            BsWeight {
                bytes: 65536,
                weight: 10
            }
        );
        assert_eq!(
            parse_bs("1m").unwrap(),
            vec![BsWeight {
                bytes: 1 << 20,
                weight: 1
            }]
        );
        assert!(parse_bs("4k,8k").is_err());
        assert!(parse_bs("4k:60,8k:x").is_err());
        assert!(parse_bs("4k:x").is_err());
        assert!(parse_bs("").is_err());
    }

    #[test]
    fn bs_mix_with_a_missing_weight_says_how_to_write_a_mix_or_a_sweep() {
        for s in ["4k:60,8k", "4k,8k:40", "4k:60, 8k:30, 16k"] {
            let e = parse_bs(s).unwrap_err().0;
            assert!(
                e.contains("4k:60,8k:40") && e.contains("4k,8k") && e.contains("--bs"),
                "{e}"
            );
        }
    }

    #[test]
    fn interval_below_the_engines_minimum_is_refused_naming_it() {
        let mut s = base();
        s.interval_s = 1e-6;
        let e = s.validate().unwrap_err().0;
        assert!(
            e.contains("--interval 1us") && e.contains("minimum of 1ms"),
            "{e}"
        );
        s.interval_s = MIN_INTERVAL_S;
        assert!(s.validate().is_ok());
        s.duration_s = Some(1e-6);
        let e = s.validate().unwrap_err().0;
        assert!(e.contains("--duration 1us is shorter than 1ms"), "{e}");
    }

    #[test]
    fn out_of_range_numbers_name_the_flag_and_the_range() {
        let e = check_range("qd", -3, QD_RANGE).unwrap_err().0;
        assert_eq!(e, "--qd -3 is below the minimum 1; give 1 to 4096");
        let e = check_range("qd", 5000, QD_RANGE).unwrap_err().0;
        assert_eq!(e, "--qd 5000 is too large (max 4096); give 1 to 4096");
        let e = check_range("ops", 0, (1, u64::MAX)).unwrap_err().0;
        assert!(e.ends_with("give 1 or more"), "{e}");
        assert!(check_range("read-pct", 100, PCT_RANGE).is_ok());
    }

    #[test]
    fn distributions() {
        assert_eq!(
            parse_distribution("zipf:1.2").unwrap(),
            Distribution::Zipf {
                theta: 1.2,
                center: None
            }
        );
        assert_eq!(
            parse_distribution("hotspot:90/10").unwrap(),
            Distribution::Hotspot {
                io_pct: 90.0,
                space_pct: 10.0
            }
        );
        assert!(parse_distribution("pareto:1").is_err());
    }

    #[test]
    fn cpu_lists_parse_like_the_kernels() {
        assert_eq!(parse_cpu_list("2").unwrap(), vec![2]);
        assert_eq!(parse_cpu_list("0-3,8").unwrap(), vec![0, 1, 2, 3, 8]);
        assert_eq!(parse_cpu_list("3,1, 1-2").unwrap(), vec![3, 1, 2]);
        for bad in ["", "1,", "a", "3-1", "1-", "2048", "-1"] {
            assert!(parse_cpu_list(bad).is_err(), "{bad:?} was accepted");
        }
    }

    /// Found by reading for the fuzz pass: `0-1023` repeated 2000 times
    /// (a 14 KB `cpus` value in a job file) took 18 s in a debug build,
    /// each CPU searched for in the list built so far.
    #[test]
    fn a_long_cpu_list_of_repeated_ranges_parses_in_linear_time() {
        let s = "0-1023,".repeat(2000) + "5";
        let t = std::time::Instant::now();
        let v = parse_cpu_list(&s).unwrap();
        assert_eq!(v.len(), 1024);
        assert_eq!(v[..3], [0, 1, 2]);
        assert!(t.elapsed().as_secs_f64() < 1.0, "took {:?}", t.elapsed());
    }

    fn base() -> WorkloadSpec {
        WorkloadSpec::example("t", "/x", "randread")
    }

    #[test]
    fn validation_catches_impossible_parameters() {
        assert!(base().validate().is_ok());
        type Mutation = Box<dyn Fn(&mut WorkloadSpec)>;
        let cases: Vec<(Mutation, &str)> = vec![
            (Box::new(|s| s.read_pct = 101), "read-pct"),
            (Box::new(|s| s.qd = 0), "--qd"),
            (Box::new(|s| s.batch_complete = 0), "--batch-complete"),
            (Box::new(|s| s.targets.clear()), "no target"),
            (
                Box::new(|s| {
                    s.distribution = Distribution::Zipf {
                        theta: 1.0,
                        center: None,
                    }
                }),
                "zipf",
            ),
            (
                Box::new(|s| s.targets[0].size = Some(512)),
                "smaller than the block size",
            ),
            (
                Box::new(|s| {
                    s.engine = EngineKind::Psync;
                    s.qd = 8
                }),
                "psync",
            ),
            (Box::new(|s| s.duration_s = None), "no end"),
            (
                Box::new(|s| s.read_hit_pct = 50),
                "--read-hit-pct 50 sends I/O to the hit area, but there is none",
            ),
            (
                Box::new(|s| s.hit_area = 512),
                "--hit-area 512 is smaller than the block size 4096",
            ),
        ];
        for (f, needle) in cases {
            let mut s = base();
            f(&mut s);
            let err = s.validate().unwrap_err().0;
            assert!(err.contains(needle), "{err:?} lacks {needle:?}");
            assert!(!err.contains('\n'));
        }
    }
}
