//! A file-system workload: the filesets it works on and the work its
//! threads do there, either a weighted mix of independent operations
//! (vdbench `fwd`s, elbencho) or flows, ordered steps each thread repeats
//! (filebench flowops). A [`crate::WorkloadSpec`] with `fs` set runs on
//! the file-system driver instead of the block driver; its `jobs`, `qd`
//! (operations in flight per thread), `bs` (the mix's transfer size),
//! `direct`, `sync`, end conditions (`duration_s`, `ops`, `io_size`),
//! `rate_iops`, `seed`, `on_error` and `verify` keep their meaning.
//!
//! Parsing of `--mix`/`--flow` strings and the filebench personalities
//! live beside this module (modules `fs_parse` and `personality`).

use crate::fileset::{FilesetSpec, Format};
use crate::op::Op;
use serde::{Deserialize, Serialize};

/// Most filesets one workload names.
pub const MAX_FILESETS: usize = 16;
/// Most steps of a flow, entries of a mix, flows of a workload.
pub const MAX_STEPS: usize = 256;

/// What a file-system workload does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FsSpec {
    /// The filesets, each under its own anchor (a personality with two
    /// filesets puts them at `<dir>/<name>`). Steps name them by index.
    pub filesets: Vec<FsFileset>,
    pub work: FsWork,
    /// How an operation that needs an existing file chooses it.
    #[serde(default)]
    pub select: FileSelect,
    /// The filebench personality this came from, for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub personality: Option<String>,
}

/// One fileset of a workload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FsFileset {
    /// Short name for tables and notes (`bigfileset`, `logfiles`, `fs`).
    pub name: String,
    pub spec: FilesetSpec,
    /// What to do with a fileset that exists (vdbench `format=`).
    #[serde(default)]
    pub format: Format,
    /// Remove the fileset's files after the run (default: kept for the
    /// next run, like vdbench's anchors and filebench's `reuse`).
    #[serde(default)]
    pub cleanup: bool,
}

/// A weighted mix or flows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum FsWork {
    /// Each thread (the workload's `jobs`) draws its next operation by
    /// weight; every operation is self-contained (it opens and closes
    /// what it needs; those opens and closes show in the fileset
    /// counters, not as operations of their own).
    Mix(Vec<MixEntry>),
    /// Flows, each with threads of its own that repeat its steps in order.
    Flows(Vec<Flow>),
}

/// One operation of a mix and its weight.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MixEntry {
    pub step: Step,
    pub weight: u32,
}

/// An ordered sequence of steps that `threads` threads each repeat.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flow {
    pub name: String,
    pub threads: u32,
    pub steps: Vec<Step>,
    /// Most operations per second of the whole flow (all its threads);
    /// `None` is unlimited (filebench `eventlimit`/`rate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_ops: Option<f64>,
    /// Pause after each pass through the steps, microseconds (filebench
    /// `delay`); 0 none.
    #[serde(default)]
    pub think_us: u64,
}

/// One operation as a mix entry or a flow step names it.
///
/// In a flow, each thread has a current file: `create` and `open` make a
/// file current (create picks a file that does not exist, open one that
/// does), and `read`, `write`, `append`, `rewrite`, `fsync`,
/// `fdatasync`, `getattr`, `setattr` and `close` act on it; `stat`,
/// `delete`, `access`, `rename`, `mkdir`, `rmdir` and `readdir` choose
/// their own file or directory (a file not open in that thread).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub op: Op,
    /// Index into [`FsSpec::filesets`].
    #[serde(default)]
    pub fileset: u32,
    /// For read/write/rewrite: the whole file (from its start, in `xfer`
    /// transfers; filebench `readwholefile`/`writewholefile`) or one
    /// transfer of `xfer` bytes.
    #[serde(default)]
    pub whole: bool,
    /// Bytes per transfer (read/write/rewrite); for append the size, or
    /// with `random` the largest size (uniform in 1..=xfer, filebench
    /// `appendfilerand`). 0: the workload's `bs`.
    #[serde(default)]
    pub xfer: u64,
    /// A transfer at a random `xfer`-aligned offset within the file
    /// (else sequential from where the thread's last transfer on the file
    /// ended); for append, a random size.
    #[serde(default)]
    pub random: bool,
    /// Times the step runs each pass (filebench `iters`); at least 1.
    #[serde(default = "one")]
    pub iters: u32,
}

fn one() -> u32 {
    1
}

impl Step {
    /// A plain step: `op` on fileset 0, one transfer of the workload's
    /// `bs`, sequential, once.
    pub fn new(op: Op) -> Step {
        Step {
            op,
            fileset: 0,
            whole: false,
            xfer: 0,
            random: false,
            iters: 1,
        }
    }
}

/// How an operation chooses an existing file (vdbench `fileselect`,
/// fio `file_service_type`). filebench picks files uniformly among those
/// that exist (its gamma applies to directory widths and file sizes, not
/// to the choice), so its personalities use `Uniform`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileSelect {
    /// Files in layout order, each thread from its own starting point.
    Sequential,
    #[default]
    Uniform,
    /// Zipf with this exponent (theta, e.g. 1.1): a few files get most
    /// operations.
    Zipf(f64),
}
