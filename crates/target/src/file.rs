//! Regular-file targets: create a missing file, decide whether iolab owns an
//! existing one, extend it, and keep the prefill record.
//!
//! Ownership lives in the file itself, as the extended attribute
//! `user.iolab.owner`, so it survives between runs and a file iolab did not
//! create is never overwritten, extended or deleted unless the user named
//! it with `--destroy-data-on`. On file systems without user xattrs a file
//! iolab creates is owned for the run that created it only.

use crate::prepare::{canonical, invalid, map_io, named_in};
use crate::sys::{self, OWNER_VALUE, XATTR_OWNER, XATTR_PREFILLED};
use crate::{geometry, Kind, PrepareOptions, Refusal, Space, TargetError, TargetInfo};
use std::fs::{self, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

/// Create the missing file `path` with `size` bytes (sparse) and mark it as
/// iolab's.
pub fn create(path: &Path, size: u64, opts: &PrepareOptions) -> Result<TargetInfo, TargetError> {
    check_create(path, size)?;
    let f = match OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .custom_flags(libc::O_CLOEXEC)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return appeared(path, opts),
        Err(e) => return Err(map_io(path, e, "create")),
    };
    if let Err(e) = f.set_len(size) {
        drop(f);
        let _ = fs::remove_file(path);
        return Err(set_len_error(path, size, e));
    }
    // Without xattr support the file is still ours for this run (`created`).
    let _ = sys::fset_xattr(&f, XATTR_OWNER, OWNER_VALUE);
    let meta = f.metadata().map_err(|e| map_io(path, e, "access"))?;
    let g = geometry::of_file(path, meta.dev());
    Ok(TargetInfo {
        path: path.to_path_buf(),
        canonical: canonical(path),
        kind: Kind::File,
        size,
        logical_block_size: g.logical,
        physical_block_size: g.physical,
        dio_mem_align: g.dio_mem_align,
        dio_offset_align: g.dio_offset_align,
        created: true,
        owned: true,
        prefilled_bytes: 0,
        rdev: None,
    })
}

/// The directory a new file at `path` goes in.
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// What creating `path` at `size` bytes needs: a directory that exists and
/// may be written, and that much free space on its file system.
pub fn check_create(path: &Path, size: u64) -> Result<Space, TargetError> {
    // The same rule as for a new output file: an existing, writable
    // directory (said before trying, rather than as a bare errno).
    if let Some(problem) = crate::output::dir_problem(path) {
        return Err(invalid(path, &format!("cannot create it: {problem}")));
    }
    let dir = parent_dir(path);
    check_free_space(path, dir, size, 0)
}

/// Refuse a file of `size` bytes at `path` (of which `allocated` bytes are
/// already on disk) when the file system at `on` has less free space:
/// found now, rather than as ENOSPC in the middle of the prefill or run.
/// The space it takes, for a plan to add up.
fn check_free_space(
    path: &Path,
    on: &Path,
    size: u64,
    allocated: u64,
) -> Result<Space, TargetError> {
    let need = size.saturating_sub(allocated);
    let free = sys::free_bytes(on).map_err(|e| map_io(path, e, "access"))?;
    if let Some(free) = free.filter(|&free| need > free) {
        return Err(TargetError::NoSpace {
            path: path.to_path_buf(),
            size,
            free,
            fs: file_system_name(on),
            others: 0,
        });
    }
    let fs_dev = fs::metadata(on).map(|m| m.dev()).unwrap_or(0);
    Ok(Space {
        fs_dev,
        bytes: need,
        free,
        on: on.to_path_buf(),
    })
}

/// "tmpfs at /mnt/x": the mount point holding `p` (the highest ancestor on
/// the same device) and its type from /proc/self/mounts.
pub fn file_system_name(p: &Path) -> String {
    let start = canonical(p);
    let Ok(dev) = fs::metadata(&start).map(|m| m.dev()) else {
        return format!("the one holding {}", p.display());
    };
    let mut mount = start.as_path();
    while let Some(up) = mount.parent() {
        match fs::metadata(up) {
            Ok(m) if m.dev() == dev => mount = up,
            _ => break,
        }
    }
    let fstype = fs::read_to_string("/proc/self/mounts").ok().and_then(|t| {
        // The last mount on that point is the one in use.
        t.lines().rev().find_map(|l| {
            let mut f = l.split_whitespace();
            let (_, at, ty) = (f.next()?, f.next()?, f.next()?);
            (at.replace("\\040", " ") == mount.to_string_lossy()).then(|| ty.to_string())
        })
    });
    match fstype {
        Some(t) => format!("{t} at {}", mount.display()),
        None => format!("mounted at {}", mount.display()),
    }
}

/// A failed set_len, said in terms of --size.
fn set_len_error(path: &Path, size: u64, e: io::Error) -> TargetError {
    match e.raw_os_error() {
        Some(libc::EACCES) | Some(libc::EPERM) => map_io(path, e, "extend"),
        _ => TargetError::Io {
            path: path.to_path_buf(),
            source: io::Error::new(
                e.kind(),
                format!("cannot make it {size} bytes long ({e}); give a smaller --size"),
            ),
        },
    }
}

/// O_EXCL found something at `path` that `stat` did not: a dangling
/// symbolic link, or a file created meanwhile by someone else.
fn appeared(path: &Path, opts: &PrepareOptions) -> Result<TargetInfo, TargetError> {
    match fs::metadata(path) {
        Ok(meta) => crate::prepare::existing(path, &meta, opts),
        Err(_) => Err(TargetError::NotFileOrDevice {
            path: path.to_path_buf(),
            what: "a symbolic link to a missing file".to_string(),
        }),
    }
}

/// Whether the file at `path` carries iolab's ownership mark.
fn is_owned(path: &Path) -> Result<bool, TargetError> {
    sys::get_xattr(path, XATTR_OWNER)
        .map(|v| v.is_some())
        .map_err(|e| map_io(path, e, "read"))
}

/// The prefill record of an owned file, clamped to its length.
fn prefilled(path: &Path, len: u64) -> u64 {
    sys::get_xattr(path, XATTR_PREFILLED)
        .ok()
        .flatten()
        .and_then(|v| String::from_utf8(v).ok())
        .and_then(|s| s.trim().parse::<u64>().ok())
        .map_or(0, |b| b.min(len))
}

/// What `existing` decided about a file, before changing anything.
pub struct Checked {
    canonical: std::path::PathBuf,
    owned: bool,
    len: u64,
    pub size: u64,
    extend: bool,
    /// The space an extension takes.
    pub space: Option<Space>,
}

/// The checks on an existing regular file: a region to use, ownership
/// before a write or an extension, and free space for an extension.
pub fn check_existing(
    path: &Path,
    meta: &Metadata,
    opts: &PrepareOptions,
) -> Result<Checked, TargetError> {
    let canonical = canonical(path);
    let owned = is_owned(path)?;
    let len = meta.len();
    let size = match opts.size {
        Some(s) => s,
        None if len == 0 => {
            return Err(invalid(
                path,
                "the file is empty (0 bytes); give --size for the region iolab should use",
            ))
        }
        None => len,
    };
    let extend = size > len;
    if !owned && (opts.write || extend) && !named_in(&canonical, &opts.destroy_data_on) {
        let mut reason = "it is a regular file iolab did not create".to_string();
        if extend {
            reason.push_str(&format!(
                ", and --size {size} would extend it beyond its {len} bytes"
            ));
        }
        return Err(TargetError::Refused {
            path: path.to_path_buf(),
            reasons: vec![Refusal(reason)],
        });
    }
    let space = if extend {
        Some(check_free_space(
            path,
            path,
            size,
            meta.blocks().saturating_mul(512),
        )?)
    } else {
        None
    };
    Ok(Checked {
        canonical,
        owned,
        len,
        size,
        extend,
        space,
    })
}

/// Prepare the existing regular file `path`.
pub fn existing(
    path: &Path,
    meta: &Metadata,
    opts: &PrepareOptions,
) -> Result<TargetInfo, TargetError> {
    let Checked {
        canonical,
        owned,
        len,
        size,
        extend,
        ..
    } = check_existing(path, meta, opts)?;
    if extend {
        let f = OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_CLOEXEC)
            .open(path)
            .map_err(|e| map_io(path, e, "extend"))?;
        f.set_len(size).map_err(|e| set_len_error(path, size, e))?;
    }
    let g = geometry::of_file(path, meta.dev());
    Ok(TargetInfo {
        path: path.to_path_buf(),
        canonical,
        kind: Kind::File,
        size,
        logical_block_size: g.logical,
        physical_block_size: g.physical,
        dio_mem_align: g.dio_mem_align,
        dio_offset_align: g.dio_offset_align,
        created: false,
        owned,
        prefilled_bytes: if owned {
            prefilled(path, size.max(len))
        } else {
            0
        },
        rdev: None,
    })
}

/// Record the prefill of an owned file; file systems without user xattrs
/// are ignored (the record is then lost at the end of the run).
pub fn mark_prefilled(info: &TargetInfo, bytes: u64) -> io::Result<()> {
    if info.kind != Kind::File || !info.owned {
        return Ok(());
    }
    match sys::set_xattr(&info.path, XATTR_PREFILLED, bytes.to_string().as_bytes()) {
        Err(e) if sys::is_xattr_unsupported(&e) => Ok(()),
        r => r,
    }
}

/// Unlink a file created by `prepare`; a file already gone is fine.
pub fn remove_created(info: &TargetInfo) -> io::Result<()> {
    if info.kind != Kind::File || !info.created {
        return Ok(());
    }
    match fs::remove_file(&info.path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        r => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(write: bool, size: Option<u64>) -> PrepareOptions {
        PrepareOptions {
            write,
            size,
            destroy_data_on: Vec::new(),
            allow_mounted_write: false,
        }
    }

    #[test]
    fn created_then_reopened_is_owned_with_its_prefill() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t");
        let info = crate::prepare(&p, &opts(true, Some(1 << 20))).unwrap();
        assert!(info.created && info.owned);
        if sys::get_xattr(&p, XATTR_OWNER).unwrap().is_none() {
            iolab_testutil::print_skip(
                module_path!(),
                "(the rest) no user xattrs on the temp file system",
            );
            return;
        }
        mark_prefilled(&info, 65536).unwrap();
        let again = crate::prepare(&p, &opts(true, None)).unwrap();
        assert!(!again.created && again.owned);
        assert_eq!(again.prefilled_bytes, 65536);
        assert_eq!(again.size, 1 << 20);
    }

    #[test]
    fn owned_file_may_be_extended_and_keeps_its_prefill() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t");
        let info = crate::prepare(&p, &opts(true, Some(4096))).unwrap();
        if sys::get_xattr(&p, XATTR_OWNER).unwrap().is_none() {
            return;
        }
        mark_prefilled(&info, 4096).unwrap();
        let big = crate::prepare(&p, &opts(false, Some(8192))).unwrap();
        assert_eq!(big.size, 8192);
        assert_eq!(fs::metadata(&p).unwrap().len(), 8192);
        assert_eq!(big.prefilled_bytes, 4096);
        // A smaller --size uses a prefix and never truncates.
        let small = crate::prepare(&p, &opts(true, Some(1024))).unwrap();
        assert_eq!(small.size, 1024);
        assert_eq!(fs::metadata(&p).unwrap().len(), 8192);
    }

    #[test]
    fn garbage_prefill_record_reads_as_zero() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t");
        crate::prepare(&p, &opts(true, Some(4096))).unwrap();
        if sys::set_xattr(&p, XATTR_PREFILLED, b"lots").is_err() {
            return;
        }
        assert_eq!(prefilled(&p, 4096), 0);
        sys::set_xattr(&p, XATTR_PREFILLED, b"999999").unwrap();
        assert_eq!(prefilled(&p, 4096), 4096);
    }

    #[test]
    fn mark_prefilled_ignores_files_iolab_does_not_own() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t");
        fs::write(&p, b"data").unwrap();
        let info = crate::prepare(&p, &opts(false, None)).unwrap();
        assert!(!info.owned);
        mark_prefilled(&info, 4).unwrap();
        assert_eq!(sys::get_xattr(&p, XATTR_PREFILLED).unwrap(), None);
    }

    #[test]
    fn a_size_beyond_the_free_space_is_refused_and_nothing_is_created() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t");
        let free = sys::free_bytes(dir.path()).unwrap();
        iolab_testutil::require!(free.is_some(), "the temp file system reports no size");
        let free = free.unwrap();
        let too_big = free.saturating_add(1 << 30);
        let e = crate::prepare(&p, &opts(true, Some(too_big))).unwrap_err();
        assert!(matches!(e, TargetError::NoSpace { .. }), "{e}");
        let msg = e.to_string();
        assert!(
            msg.contains("--size") && msg.contains("free on its file system"),
            "{msg}"
        );
        assert!(!p.exists(), "the file was left behind");
        assert!(crate::check(&p, &opts(true, Some(too_big))).is_err());
        // check() creates nothing for a size that fits either.
        assert_eq!(
            crate::check(&p, &opts(true, Some(4096))).unwrap().size,
            4096
        );
        assert!(!p.exists(), "check created the file");
    }

    #[test]
    fn a_missing_directory_is_named_not_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("no").join("t");
        for e in [
            crate::prepare(&p, &opts(true, Some(4096))).unwrap_err(),
            crate::check(&p, &opts(true, Some(4096))).unwrap_err(),
        ] {
            let m = e.to_string();
            assert!(
                m.contains("the directory") && m.contains("does not exist"),
                "{m}"
            );
        }
    }

    #[test]
    fn check_does_not_extend_an_owned_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t");
        crate::prepare(&p, &opts(true, Some(4096))).unwrap();
        if sys::get_xattr(&p, XATTR_OWNER).unwrap().is_none() {
            return;
        }
        assert_eq!(
            crate::check(&p, &opts(true, Some(8192))).unwrap().size,
            8192
        );
        assert_eq!(fs::metadata(&p).unwrap().len(), 4096);
    }
}
