//! `prepare`: classify a path, then hand it to the file or block-device
//! half, and the helpers both halves share (path canonicalization for
//! `--destroy-data-on`, errno-to-`TargetError` mapping).

use crate::{device, file, Checked, PrepareOptions, TargetError, TargetInfo};
use std::fs::{self, FileType, Metadata};
use std::io;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

fn size_zero(path: &Path, opts: &PrepareOptions) -> Result<(), TargetError> {
    if opts.size == Some(0) {
        return Err(invalid(
            path,
            "--size 0 leaves nothing to do I/O on; give a positive --size",
        ));
    }
    Ok(())
}

pub fn prepare(path: &Path, opts: &PrepareOptions) -> Result<TargetInfo, TargetError> {
    size_zero(path, opts)?;
    match fs::metadata(path) {
        Ok(meta) => existing(path, &meta, opts),
        Err(e) if is_missing(&e) => match opts.size {
            Some(size) => file::create(path, size, opts),
            None => Err(TargetError::NotFound {
                path: path.to_path_buf(),
            }),
        },
        Err(e) => Err(map_io(path, e, "access")),
    }
}

/// `prepare`'s checks without creating, extending or writing anything.
pub fn check(path: &Path, opts: &PrepareOptions) -> Result<Checked, TargetError> {
    size_zero(path, opts)?;
    match fs::metadata(path) {
        Ok(meta) => {
            let ft = meta.file_type();
            if ft.is_file() {
                file::check_existing(path, &meta, opts).map(|c| Checked {
                    size: c.size,
                    space: c.space,
                })
            } else if ft.is_block_device() {
                // Preparing a device only reads it.
                device::prepare(path, &meta, opts).map(|i| Checked {
                    size: i.size,
                    space: None,
                })
            } else {
                Err(TargetError::NotFileOrDevice {
                    path: path.to_path_buf(),
                    what: what_is(ft).to_string(),
                })
            }
        }
        Err(e) if is_missing(&e) => match opts.size {
            Some(size) => file::check_create(path, size).map(|space| Checked {
                size,
                space: Some(space),
            }),
            None => Err(TargetError::NotFound {
                path: path.to_path_buf(),
            }),
        },
        Err(e) => Err(map_io(path, e, "access")),
    }
}

/// Prepare a path that exists, by its type.
pub fn existing(
    path: &Path,
    meta: &Metadata,
    opts: &PrepareOptions,
) -> Result<TargetInfo, TargetError> {
    let ft = meta.file_type();
    if ft.is_file() {
        file::existing(path, meta, opts)
    } else if ft.is_block_device() {
        device::prepare(path, meta, opts)
    } else {
        Err(TargetError::NotFileOrDevice {
            path: path.to_path_buf(),
            what: what_is(ft).to_string(),
        })
    }
}

/// "a directory", "a character device", ... for `NotFileOrDevice`.
pub fn what_is(ft: FileType) -> &'static str {
    if ft.is_dir() {
        "a directory"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_fifo() {
        "a named pipe (FIFO)"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_file() {
        "a regular file"
    } else if ft.is_block_device() {
        "a block device"
    } else {
        "an unknown kind of file"
    }
}

/// ENOENT, or ENOTDIR for a path through a non-directory: nothing there.
pub fn is_missing(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ENOTDIR)
}

/// Map an I/O error on `path` while trying to `action` it.
pub fn map_io(path: &Path, e: io::Error, action: &'static str) -> TargetError {
    match e.raw_os_error() {
        Some(libc::EACCES) | Some(libc::EPERM) => TargetError::Permission {
            path: path.to_path_buf(),
            action,
        },
        _ if is_missing(&e) => TargetError::NotFound {
            path: path.to_path_buf(),
        },
        _ => TargetError::Io {
            path: path.to_path_buf(),
            source: e,
        },
    }
}

/// A one-line `Io` error of kind InvalidInput with `msg`.
pub fn invalid(path: &Path, msg: &str) -> TargetError {
    TargetError::Io {
        path: path.to_path_buf(),
        source: io::Error::new(io::ErrorKind::InvalidInput, msg.to_string()),
    }
}

/// `path` with links resolved; the absolute path when that fails.
pub fn canonical(path: &Path) -> PathBuf {
    fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// Whether the user named `canonical` with `--destroy-data-on`, in any
/// spelling that resolves to the same path.
pub fn named_in(canonical_path: &Path, destroy_data_on: &[PathBuf]) -> bool {
    destroy_data_on
        .iter()
        .any(|p| canonical(p) == canonical_path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_io_by_errno() {
        let p = Path::new("/x");
        let e = |n| io::Error::from_raw_os_error(n);
        assert!(matches!(
            map_io(p, e(libc::EACCES), "read"),
            TargetError::Permission { action: "read", .. }
        ));
        assert!(matches!(
            map_io(p, e(libc::EPERM), "read"),
            TargetError::Permission { .. }
        ));
        assert!(matches!(
            map_io(p, e(libc::ENOENT), "read"),
            TargetError::NotFound { .. }
        ));
        assert!(matches!(
            map_io(p, e(libc::ENOTDIR), "read"),
            TargetError::NotFound { .. }
        ));
        assert!(matches!(
            map_io(p, e(libc::EIO), "read"),
            TargetError::Io { .. }
        ));
    }

    #[test]
    fn named_in_matches_other_spellings() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        fs::write(&f, b"x").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&f, &link).unwrap();
        let dotted = dir.path().join(".").join("f");
        let c = canonical(&f);
        assert!(named_in(&c, std::slice::from_ref(&link)));
        assert!(named_in(&c, &[dotted]));
        assert!(!named_in(&c, &[dir.path().join("g")]));
        assert!(!named_in(&c, &[]));
    }

    #[test]
    fn what_is_names_directories() {
        let m = fs::metadata("/").unwrap();
        assert_eq!(what_is(m.file_type()), "a directory");
        let m = fs::metadata("/dev/null").unwrap();
        assert_eq!(what_is(m.file_type()), "a character device");
    }
}
