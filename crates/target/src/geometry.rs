//! Block geometry and O_DIRECT alignment of a target.
//!
//! For a block device the kernel answers directly (BLKSSZGET, BLKPBSZGET).
//! For a file, the sizes that matter are those of the device under the file
//! system, found through /sys/dev/block/MAJ:MIN of the file's st_dev (its
//! parent disk's `queue/` for a partition). File systems on no single block
//! device (tmpfs, btrfs, NFS) fall back to statx's O_DIRECT offset
//! alignment, else 512. Both kinds report statx(STATX_DIOALIGN) as is.

use crate::safety::sysfs_dir;
use crate::sys;
use std::fs::{self, File};
use std::path::{Path, PathBuf};

/// Block sizes and O_DIRECT alignment, as in `TargetInfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    pub logical: u32,
    pub physical: u32,
    pub dio_mem_align: u32,
    pub dio_offset_align: u32,
}

/// Geometry of the block device at `path`, open as `f`.
pub fn of_device(path: &Path, f: &File) -> Geometry {
    let (dio_mem_align, dio_offset_align) = sys::dio_align(path);
    let logical = sys::block_logical(f).unwrap_or(512);
    let physical = sys::block_physical(f).unwrap_or(logical);
    Geometry {
        logical,
        physical,
        dio_mem_align,
        dio_offset_align,
    }
}

/// Geometry of the regular file at `path` on the file system of device
/// number `st_dev`.
pub fn of_file(path: &Path, st_dev: u64) -> Geometry {
    let (dio_mem_align, dio_offset_align) = sys::dio_align(path);
    let fallback = if dio_offset_align > 0 {
        dio_offset_align
    } else {
        512
    };
    let (logical, physical) = match queue_dir(sys::split_dev(st_dev)) {
        Some(q) => {
            let l = read_u32(&q.join("logical_block_size")).unwrap_or(fallback);
            (l, read_u32(&q.join("physical_block_size")).unwrap_or(l))
        }
        None => (fallback, fallback),
    };
    Geometry {
        logical,
        physical,
        dio_mem_align,
        dio_offset_align,
    }
}

/// The `queue/` sysfs directory of the disk holding device `devno`: its own
/// for a whole disk, its parent's for a partition.
fn queue_dir(devno: (u32, u32)) -> Option<PathBuf> {
    let dir = fs::canonicalize(sysfs_dir(devno)).ok()?;
    let own = dir.join("queue");
    if own.is_dir() {
        return Some(own);
    }
    if dir.join("partition").is_file() {
        let parent = dir.parent()?.join("queue");
        if parent.is_dir() {
            return Some(parent);
        }
    }
    None
}

fn read_u32(p: &Path) -> Option<u32> {
    fs::read_to_string(p)
        .ok()?
        .trim()
        .parse()
        .ok()
        .filter(|&v| v > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn file_geometry_is_sane() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        File::create(&p).unwrap();
        let g = of_file(&p, fs::metadata(&p).unwrap().dev());
        assert!(g.logical.is_power_of_two() && g.logical >= 512, "{g:?}");
        assert!(g.physical >= g.logical, "{g:?}");
        assert!(g.dio_offset_align == 0 || g.dio_offset_align.is_power_of_two());
    }

    #[test]
    fn unknown_device_number_falls_back() {
        // Device 0:0 has no sysfs entry.
        assert_eq!(queue_dir((0, 0)), None);
    }
}
