//! Named studies (docs/studies.md) planned: each study's arguments and
//! the workloads, plan arguments and scratch files it runs
//! ([`plans::plan`]). Running them and their tables are the binary's and
//! the report crate's.

pub mod iozone;
pub mod iozone_cli;
pub mod plans;

pub use plans::{plan, Planned};

use crate::plan::PlanArgs;
use std::path::PathBuf;

#[derive(clap::Args, Debug, Default)]
pub struct Args {
    /// bs-ladder, qd-ladder, corners, streams or iozone
    #[arg(value_name = "NAME")]
    pub name: Option<String>,

    /// A file or block device (repeat for several: streams spreads over them); for iozone, a directory
    #[arg(
        long = "target",
        short = 't',
        value_name = "PATH",
        help_heading = "Targets"
    )]
    pub target: Vec<String>,

    /// Create a missing file at this size (or use this much of a target)
    #[arg(long, value_name = "SIZE", help_heading = "Targets")]
    pub size: Option<String>,

    /// Writing a target iolab did not create (or a device carrying data) destroys its data: name it here to allow that
    #[arg(long, value_name = "PATH", help_heading = "Targets")]
    pub destroy_data_on: Vec<String>,

    /// Also write a --destroy-data-on device while it is mounted, held or active swap (fio allow_mounted_write); this corrupts whatever uses it
    #[arg(long, help_heading = "Targets")]
    pub allow_mounted_write: bool,

    /// Write every target end to end first, block devices too (default: only files iolab created)
    #[arg(long, help_heading = "Targets", conflicts_with = "no_prefill")]
    pub prefill: bool,

    /// Do not write files end to end before the study
    #[arg(long, help_heading = "Targets")]
    pub no_prefill: bool,

    /// Measured time of every point, e.g. 30s
    #[arg(long, value_name = "TIME", help_heading = "Study")]
    pub duration: Option<String>,

    /// Run this long before measuring each point
    #[arg(long, value_name = "TIME", help_heading = "Study")]
    pub warmup: Option<String>,

    /// O_DIRECT (the default for block devices)
    #[arg(long, help_heading = "Study", conflicts_with = "buffered")]
    pub direct: bool,

    /// Buffered I/O through the page cache (the default for files)
    #[arg(long, help_heading = "Study")]
    pub buffered: bool,

    /// io_uring (default; iozone: psync), psync or null
    #[arg(long, value_name = "ENGINE", help_heading = "Study")]
    pub engine: Option<String>,

    /// bs-ladder: block sizes (default 16k,32k,...,2m); iozone: file sizes (default 2x and 4x RAM)
    #[arg(long, value_name = "LIST", help_heading = "Study")]
    pub sizes: Option<String>,

    /// iozone: record sizes (default 64k,128k,256k,512k)
    #[arg(long, value_name = "LIST", help_heading = "Study")]
    pub records: Option<String>,

    /// iozone: its test numbers, 0 write/rewrite, 1 read/reread, 2 random read/write (default 0,1,2)
    #[arg(long, value_name = "LIST", help_heading = "Study")]
    pub tests: Option<String>,

    /// Block size: qd-ladder (default 4k), corners (8k), streams (1m)
    #[arg(long, value_name = "SIZE", help_heading = "Study")]
    pub bs: Option<String>,

    /// Outstanding I/Os: a list for qd-ladder (default 1,2,4,...,256); one value for bs-ladder (1), corners (32), streams (1 per stream)
    #[arg(long, value_name = "N", help_heading = "Study")]
    pub qd: Option<String>,

    /// bs-ladder: read, write or read,write (default); qd-ladder: randread (default), randwrite or randrw; streams: read (default) or write
    #[arg(long, value_name = "MODE", help_heading = "Study")]
    pub rw: Option<String>,

    /// qd-ladder: the knee's p99 bound, a factor of the QD 1 p99 (default 2x) or a time (5ms)
    #[arg(long, value_name = "BOUND", help_heading = "Study")]
    pub p99_bound: Option<String>,

    /// bs-ladder: the curve has flattened once each larger size adds less than this many percent (default 10)
    #[arg(long, value_name = "PCT", help_heading = "Study")]
    pub flat_pct: Option<String>,

    /// corners: size of the hit area, the "cached" part of the target (default 1g, at most 1/8 of the target)
    #[arg(long, value_name = "SIZE", help_heading = "Study")]
    pub hit_area: Option<String>,

    /// streams: numbers of concurrent streams (default 4,8,16)
    #[arg(long, value_name = "LIST", help_heading = "Study")]
    pub streams: Option<String>,

    /// streams: numbers of targets to spread them over (default 1 up to the number of --target)
    #[arg(long, value_name = "LIST", help_heading = "Study")]
    pub over: Option<String>,

    #[command(flatten)]
    pub plan: PlanArgs,

    /// Write the result document here (default iolab-study-NAME.json); updated after every run
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub json: Option<PathBuf>,

    /// No interval lines, only the summaries and the study's tables
    #[arg(long, short = 'q', help_heading = "Output")]
    pub quiet: bool,

    /// Let --json replace an existing file that iolab did not write (never a block device or a target of the study; see docs/results.md)
    #[arg(long, help_heading = "Output")]
    pub force: bool,
}

/// Files a study makes for itself (iozone's, one per file size): removed
/// once a run of the test `remove_after` (its name less `-FILE/RECORD`)
/// has finished with them, and at the end. Only files a run
/// reports it created are ever removed.
#[derive(Debug, Default)]
pub struct Scratch {
    pub files: Vec<PathBuf>,
    pub remove_after: Option<String>,
    /// Keep the file of the last run (iozone `-w`).
    pub keep_last: bool,
}
