//! Opening a prepared target for I/O: the flags, what their errors mean, and
//! a check that the path still names what `prepare` looked at.

use crate::prepare::what_is;
use crate::{sys, Kind, TargetError, TargetInfo};
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

/// The open(2) flags beyond the access mode.
pub fn extra_flags(direct: bool, dsync: bool) -> libc::c_int {
    let mut flags = libc::O_CLOEXEC;
    if direct {
        flags |= libc::O_DIRECT;
    }
    if dsync {
        flags |= libc::O_DSYNC;
    }
    flags
}

pub fn open(
    info: &TargetInfo,
    write: bool,
    direct: bool,
    dsync: bool,
) -> Result<File, TargetError> {
    let f = OpenOptions::new()
        .read(true)
        .write(write)
        .custom_flags(extra_flags(direct, dsync))
        .open(&info.path)
        .map_err(|e| map_open_error(&info.path, e, write, direct))?;
    let meta = f.metadata().map_err(|e| TargetError::Io {
        path: info.path.clone(),
        source: e,
    })?;
    let ft = meta.file_type();
    let same = match info.kind {
        Kind::File => ft.is_file(),
        Kind::BlockDevice => {
            ft.is_block_device() && info.rdev.is_none_or(|r| r == sys::split_dev(meta.rdev()))
        }
    };
    if !same {
        return Err(TargetError::Io {
            path: info.path.clone(),
            source: io::Error::other(format!(
                "changed since it was checked (now {}); run iolab again",
                what_is(ft)
            )),
        });
    }
    Ok(f)
}

/// What an open(2) error means for the user: EINVAL with O_DIRECT is a file
/// system or device without direct I/O; EACCES/EPERM is permission.
pub fn map_open_error(path: &Path, e: io::Error, write: bool, direct: bool) -> TargetError {
    match e.raw_os_error() {
        Some(libc::EINVAL) if direct => TargetError::DirectUnsupported {
            path: path.to_path_buf(),
        },
        Some(libc::EACCES) | Some(libc::EPERM) => TargetError::Permission {
            path: path.to_path_buf(),
            action: if write { "write" } else { "read" },
        },
        Some(libc::ENOENT) | Some(libc::ENOTDIR) => TargetError::NotFound {
            path: path.to_path_buf(),
        },
        _ => TargetError::Io {
            path: path.to_path_buf(),
            source: e,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(n: i32) -> io::Error {
        io::Error::from_raw_os_error(n)
    }

    #[test]
    fn einval_with_direct_is_direct_unsupported() {
        let p = Path::new("/t");
        let e = map_open_error(p, err(libc::EINVAL), false, true);
        assert!(matches!(e, TargetError::DirectUnsupported { .. }), "{e}");
        assert_eq!(
            e.to_string(),
            "/t does not support O_DIRECT; run without --direct (buffered I/O)"
        );
        // Without O_DIRECT, EINVAL is just an I/O error.
        assert!(matches!(
            map_open_error(p, err(libc::EINVAL), false, false),
            TargetError::Io { .. }
        ));
    }

    #[test]
    fn eacces_is_permission_with_the_action() {
        let p = Path::new("/t");
        match map_open_error(p, err(libc::EACCES), true, false) {
            TargetError::Permission { action, .. } => assert_eq!(action, "write"),
            e => panic!("{e}"),
        }
        match map_open_error(p, err(libc::EPERM), false, true) {
            TargetError::Permission { action, .. } => assert_eq!(action, "read"),
            e => panic!("{e}"),
        }
        assert!(matches!(
            map_open_error(p, err(libc::ENOENT), false, false),
            TargetError::NotFound { .. }
        ));
    }

    #[test]
    fn flags() {
        assert_eq!(extra_flags(false, false), libc::O_CLOEXEC);
        let f = extra_flags(true, true);
        assert_ne!(f & libc::O_DIRECT, 0);
        assert_eq!(f & libc::O_DSYNC, libc::O_DSYNC);
        assert_eq!(f & (libc::O_CREAT | libc::O_TRUNC), 0);
    }
}
