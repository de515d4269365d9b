//! Block-device targets: size and geometry from the kernel, and the write
//! checks of `safety`: a device with data is written only when the user
//! named it with `--destroy-data-on`, and a device in use (mounted, held,
//! active swap) only when `--allow-mounted-write` is given as well.
//! Preparing a device only reads it.

use crate::prepare::{canonical, invalid, map_io, named_in};
use crate::{geometry, safety, sys, Kind, PrepareOptions, TargetError, TargetInfo};
use std::fs::{Metadata, OpenOptions};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

pub fn prepare(
    path: &Path,
    meta: &Metadata,
    opts: &PrepareOptions,
) -> Result<TargetInfo, TargetError> {
    let canonical = canonical(path);
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| map_io(path, e, "read"))?;
    let actual = sys::block_size_bytes(&f).map_err(|e| map_io(path, e, "read"))?;
    let size = match opts.size {
        Some(s) if s > actual => {
            return Err(TargetError::TooSmall {
                path: path.to_path_buf(),
                size: s,
                actual,
            })
        }
        Some(s) => s,
        None if actual == 0 => {
            return Err(invalid(
                path,
                "the device has no media (0 bytes; an unattached loop device?); name a device with data space",
            ))
        }
        None => actual,
    };
    if opts.write {
        let found = safety::check(path).map_err(|e| map_io(path, e, "read"))?;
        let named = named_in(&canonical, &opts.destroy_data_on);
        if !found.in_use.is_empty() && !opts.allow_mounted_write {
            return Err(TargetError::InUse {
                path: path.to_path_buf(),
                reasons: found.all(),
            });
        }
        let reasons = found.all();
        if !reasons.is_empty() && !named {
            return Err(TargetError::Refused {
                path: path.to_path_buf(),
                reasons,
            });
        }
    }
    let g = geometry::of_device(path, &f);
    Ok(TargetInfo {
        path: path.to_path_buf(),
        canonical,
        kind: Kind::BlockDevice,
        size,
        logical_block_size: g.logical,
        physical_block_size: g.physical,
        dio_mem_align: g.dio_mem_align,
        dio_offset_align: g.dio_offset_align,
        created: false,
        owned: false,
        prefilled_bytes: 0,
        rdev: Some(sys::split_dev(meta.rdev())),
    })
}
