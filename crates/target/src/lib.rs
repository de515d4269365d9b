//! Targets: the regular files and block devices iolab does I/O to.
//!
//! This crate answers three questions before any I/O happens: what is this
//! path (file or block device, its size and block geometry, the alignment
//! O_DIRECT needs), may iolab write to it (the safety checks), and how to
//! open it. iolab never writes to a block device that has partitions or
//! carries a signature libblkid (or, without libblkid, iolab's own list)
//! recognises, and never overwrites or deletes a regular file it did not
//! create, unless the user named that path with `--destroy-data-on`. A
//! device that is in use (it or a partition of it mounted, active swap,
//! held by another driver, or exclusively claimed) is not written even when
//! named, unless the user also passes `--allow-mounted-write`.
//!
//! It also owns the same promise for everything else iolab writes or
//! reads: [`output`] is the one check every output path (result documents,
//! reports, findings logs, journal directories) goes through, and [`input`]
//! the one bounded way a given file (job file, result document, journal) is
//! read.

mod blkid;
mod device;
mod file;
mod geometry;
pub mod input;
mod open;
pub mod output;
mod prepare;
mod safety;
mod signature;
mod sys;

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

pub use input::{read_bounded, read_exact_len, read_text_bounded, InputError, TEXT_LIMIT};
pub use output::{
    check_journal_dir, check_output, check_outputs, OutputError, OutputKind, OutputPath,
    OutputRules,
};
/// The /proc parsers behind the safety checks (`/proc/self/mountinfo`,
/// `/proc/swaps`), public for the fuzz targets.
pub use safety::{parse_mountinfo, parse_swaps, unescape};

/// What a target is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    BlockDevice,
}

/// Everything iolab needs to know about a target before opening it.
#[derive(Debug, Clone)]
pub struct TargetInfo {
    /// The path as the user gave it.
    pub path: PathBuf,
    /// The path with links resolved (used to match `--destroy-data-on`).
    pub canonical: PathBuf,
    pub kind: Kind,
    /// Usable size in bytes: the device size, or the file size after
    /// creation or extension.
    pub size: u64,
    /// Logical block size of the device (or of the device under the file
    /// system for files); 512 when unknown.
    pub logical_block_size: u32,
    /// Physical block size; equal to the logical size when unknown.
    pub physical_block_size: u32,
    /// statx STATX_DIOALIGN: required buffer alignment for O_DIRECT, 0 when
    /// the kernel or file system does not say.
    pub dio_mem_align: u32,
    /// statx STATX_DIOALIGN: required offset and length alignment for
    /// O_DIRECT, 0 when unknown (and O_DIRECT may be unsupported).
    pub dio_offset_align: u32,
    /// iolab created this file during this call to `prepare`.
    pub created: bool,
    /// The file carries iolab's ownership mark (created now or by an earlier
    /// run), so iolab may write and delete it.
    pub owned: bool,
    /// Bytes of the file recorded as written once end to end by iolab (the
    /// prefill); 0 when none or unknown.
    pub prefilled_bytes: u64,
    /// Major and minor number of a block device.
    pub rdev: Option<(u32, u32)>,
}

/// What the caller intends to do with a target.
#[derive(Debug, Clone, Default)]
pub struct PrepareOptions {
    /// The workload or its prefill writes to the target.
    pub write: bool,
    /// `--size`: create a missing file at this size, extend a smaller file
    /// iolab owns, or limit the region used on a larger file or device.
    pub size: Option<u64>,
    /// Paths the user named with `--destroy-data-on`.
    pub destroy_data_on: Vec<PathBuf>,
    /// `--allow-mounted-write` (fio's `allow_mounted_write`): a device that
    /// is mounted, held, active swap or claimed may be written when it is
    /// also named in `destroy_data_on`. Without it such a device is never
    /// written.
    pub allow_mounted_write: bool,
}

/// One reason a write to a block device or file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub String);

/// A known on-disk signature found on a device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    /// libblkid's TYPE or PTTYPE, e.g. "ext4", "xfs", "btrfs", "swap",
    /// "gpt", "dos", "LVM2_member", "zfs_member", "linux_raid_member",
    /// "oracleasm", "ceph_bluestore", "VMFS".
    pub name: String,
    /// Byte offset of the magic that identified it.
    pub offset: u64,
}

/// Errors preparing or opening a target. Each displays as one line that says
/// what is wrong and what to do.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("target {path} does not exist; check the path, or give --size to have iolab create a file there")]
    NotFound { path: PathBuf },
    #[error("no permission to {action} {path}; run as root or choose a target you may {action}")]
    Permission { path: PathBuf, action: &'static str },
    #[error("target {path} is {what}, not a regular file or block device; name a file or a block device")]
    NotFileOrDevice { path: PathBuf, what: String },
    #[error("refusing to write to {path}: {}; if its data may be destroyed, name it with --destroy-data-on {path}", .reasons.iter().map(|r| r.0.as_str()).collect::<Vec<_>>().join("; "))]
    Refused {
        path: PathBuf,
        reasons: Vec<Refusal>,
    },
    #[error("refusing to write to {path}: {}; writing to a device in use corrupts whatever uses it: unmount it (or swapoff it, or stop its holder) first, or, to write to it anyway, give both --destroy-data-on {path} and --allow-mounted-write", .reasons.iter().map(|r| r.0.as_str()).collect::<Vec<_>>().join("; "))]
    InUse {
        path: PathBuf,
        reasons: Vec<Refusal>,
    },
    #[error("{path} does not support O_DIRECT; run without --direct (buffered I/O)")]
    DirectUnsupported { path: PathBuf },
    #[error("--size {size} is larger than {path} ({actual} bytes); give a smaller --size")]
    TooSmall {
        path: PathBuf,
        size: u64,
        actual: u64,
    },
    #[error("--size {size} ({}) for {path}{} is more than the {free} bytes ({}) free on its file system ({fs}); give a smaller --size or free space there", iolab_spec::format_bytes(*.size), others_text(*.others), iolab_spec::format_bytes(*.free))]
    NoSpace {
        path: PathBuf,
        size: u64,
        free: u64,
        /// The file system: its mount point and type.
        fs: String,
        /// Bytes that files created or extended before this one (by other
        /// targets or earlier runs of the plan) take from the same space.
        others: u64,
    },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

fn others_text(others: u64) -> String {
    if others == 0 {
        String::new()
    } else {
        format!(
            ", with the {others} bytes ({}) of the files the plan creates or extends there before it,",
            iolab_spec::format_bytes(others)
        )
    }
}

/// Resolve `path`, create or extend a file if asked, gather its geometry and
/// apply the write-safety checks. Nothing is written to an existing device
/// or to a file iolab does not own.
pub fn prepare(path: &Path, opts: &PrepareOptions) -> Result<TargetInfo, TargetError> {
    prepare::prepare(path, opts)
}

/// What `check` found about a target.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The size `prepare` would give the target.
    pub size: u64,
    /// The space a file to create or extend would take from its file
    /// system; `None` for devices and files used as they are.
    pub space: Option<Space>,
}

/// Space a file iolab would create or extend takes from its file system.
#[derive(Debug, Clone)]
pub struct Space {
    /// st_dev of the file system.
    pub fs_dev: u64,
    /// Bytes to allocate: the size less what the file already holds.
    pub bytes: u64,
    /// Free bytes (statvfs f_bavail * f_frsize); `None` when the file
    /// system does not say.
    pub free: Option<u64>,
    /// A directory or file on that file system, to name it in messages.
    pub on: PathBuf,
}

impl Space {
    /// "tmpfs at /mnt/x": the file system's type and mount point.
    pub fn file_system_name(&self) -> String {
        file::file_system_name(&self.on)
    }
}

/// Every check `prepare` makes (existence, type, ownership, the device
/// write-safety checks, `--size` against the device or the file system's
/// free space), without creating, extending or writing anything: for
/// `--dry-run` and for checking every run of a plan before the first I/O.
pub fn check(path: &Path, opts: &PrepareOptions) -> Result<Checked, TargetError> {
    prepare::check(path, opts)
}

/// Open a prepared target for I/O with the given flags.
pub fn open(
    info: &TargetInfo,
    write: bool,
    direct: bool,
    dsync: bool,
) -> Result<File, TargetError> {
    open::open(info, write, direct, dsync)
}

/// Record that the first `bytes` of an owned file were written end to end.
pub fn mark_prefilled(info: &TargetInfo, bytes: u64) -> io::Result<()> {
    file::mark_prefilled(info, bytes)
}

/// Remove a file iolab created (does nothing for anything else).
pub fn remove_created(info: &TargetInfo) -> io::Result<()> {
    file::remove_created(info)
}

/// Why writing to the block device at `dev` would destroy data: mounted
/// (with where), holders, active swap, exclusive claims (the in-use
/// reasons, first), then partitions and signatures.
pub fn write_refusals(dev: &Path) -> io::Result<Vec<Refusal>> {
    safety::write_refusals(dev)
}

/// The smallest and largest atomic write (RWF_ATOMIC) `path` takes, from
/// statx STATX_WRITE_ATOMIC; `None` when it takes none or the kernel
/// does not say (before Linux 6.11).
pub fn atomic_write_unit(path: &Path) -> Option<(u32, u32)> {
    sys::atomic_write_unit(path)
}

/// Free bytes on the file system that would hold a new file at `path`
/// (its directory's; statvfs), or `None` when unknown.
pub fn free_bytes_near(path: &Path) -> Option<u64> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    sys::free_bytes(dir).ok().flatten()
}

/// Signatures on a device or file of `size` bytes: from libblkid when it
/// loads, else from iolab's hand-kept list.
pub fn detect_signatures(f: &File, size: u64) -> io::Result<Vec<Signature>> {
    signature::detect(f, size).map(|(s, _)| s)
}

/// Signatures from iolab's hand-kept list only (the fallback when libblkid
/// is not available), on the start and, for md 0.90/1.0 and ZFS, the end.
pub fn detect_signatures_hand_list(f: &File, size: u64) -> io::Result<Vec<Signature>> {
    signature::detect_hand_list(f, size)
}

/// Whether the system's libblkid is used for signatures; `Err` says why
/// not (not installed, or disabled with `IOLAB_LIBBLKID=off`).
pub fn libblkid_available() -> Result<(), String> {
    blkid::available()
}
