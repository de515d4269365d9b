//! Removing a fileset (`cleanup`): only in a marked anchor, only the
//! names the layout gives and the side directories `NAME.d` its
//! operations make beside a file (`mkdir`), never through a symbolic
//! link. What is not iolab's stays: foreign files, links and what they
//! point to, directories holding them, and the anchor with its marker
//! (which then records an empty tree, so the next run lays out whatever
//! it likes there).

use crate::anchor::{is_kind, lstatat, unlinkat, Anchor, DirCache, FsError, Marker};
use crate::key::{fit, Fit};
use crate::layout::Layout;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// What `remove` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RemoveReport {
    pub files_removed: u64,
    /// The layout's directories and the side directories (`f17.d`).
    pub dirs_removed: u64,
    /// Layout names left in place: not a regular file or directory of
    /// iolab's kind (a symlink, a fifo), or a directory not empty because
    /// it holds something the layout does not name.
    pub left: u64,
}

/// Deletes the layout's files, their side directories `NAME.d` when
/// empty, and then the layout's directories when empty, under `anchor`,
/// which must hold iolab's marker. When the marker records a larger tree
/// that `layout` is part of (a run on fewer files of it), that tree is
/// removed. Foreign files, symbolic links (and what they point to) and
/// directories holding them stay; so do the anchor and its marker, which
/// then says the anchor holds no files of iolab's.
pub fn remove(anchor: &Path, layout: &Layout) -> Result<RemoveReport, FsError> {
    let a = Anchor::open_marked(anchor)?;
    let wide = a
        .marker()?
        .layout
        .filter(|k| fit(k, layout.key()) == Fit::Shrinks)
        .map(|k| Layout::from_key(&k));
    let layout = wide.as_ref().unwrap_or(layout);
    let mut r = RemoveReport::default();
    remove_files(&a, layout, &mut r)?;
    let mut cache = DirCache::new(&a);
    for d in (0..layout.dirs()).rev() {
        let rel = layout.dir_path(d);
        let Some((dir, name)) = reach(&mut cache, &rel, &a.path)? else {
            continue;
        };
        rmdir(dir, name, &a.path.join(&rel), &mut r)?;
    }
    drop(cache);
    a.write_marker(&Marker::empty())?;
    Ok(r)
}

/// The regular files of the layout, each followed by its side directory.
fn remove_files(a: &Anchor, layout: &Layout, r: &mut RemoveReport) -> Result<(), FsError> {
    let mut cache = DirCache::new(a);
    let mut side = Vec::new();
    for i in 0..layout.files() {
        let rel = layout.file_path(i);
        let full = a.path.join(&rel);
        // A parent that is missing, or a symlink (ELOOP/ENOTDIR), is skipped.
        let Some((dir, name)) = reach(&mut cache, &rel, &a.path)? else {
            continue;
        };
        match lstatat(dir, name).map_err(|e| FsError::os(&full, "stat", &e))? {
            Some(st) if is_kind(&st, libc::S_IFREG) => {
                unlinkat(dir, name, 0).map_err(|e| FsError::os(&full, "unlink", &e))?;
                r.files_removed += 1;
            }
            Some(_) => r.left += 1,
            None => {}
        }
        side.clear();
        side.extend_from_slice(name.as_bytes());
        side.extend_from_slice(b".d");
        let side_name = OsStr::from_bytes(&side);
        if lstatat(dir, side_name).is_ok_and(|st| st.is_some()) {
            rmdir(dir, side_name, &full.with_file_name(side_name), r)?;
        }
    }
    Ok(())
}

/// rmdir of `name` in `dir`: counted when removed, left when it is not
/// empty or not a directory (a symbolic link is never followed).
fn rmdir(dir: i32, name: &OsStr, full: &Path, r: &mut RemoveReport) -> Result<(), FsError> {
    match unlinkat(dir, name, libc::AT_REMOVEDIR) {
        Ok(()) => r.dirs_removed += 1,
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {}
        Err(e)
            if matches!(
                e.raw_os_error(),
                Some(libc::ENOTEMPTY | libc::EEXIST | libc::ENOTDIR)
            ) =>
        {
            r.left += 1
        }
        Err(e) => return Err(FsError::os(full, "rmdir", &e)),
    }
    Ok(())
}

/// The parent of `rel` for clean-up: `None` when it is missing or not a
/// real directory (a symbolic link is not followed), an error otherwise.
fn reach<'p>(
    cache: &mut DirCache,
    rel: &'p Path,
    anchor: &Path,
) -> Result<Option<(i32, &'p OsStr)>, FsError> {
    match cache.parent(rel) {
        Ok(p) => Ok(Some(p)),
        Err(e)
            if matches!(
                e.raw_os_error(),
                Some(libc::ENOENT | libc::ELOOP | libc::ENOTDIR)
            ) =>
        {
            Ok(None)
        }
        Err(e) => Err(FsError::os(&anchor.join(rel), "opening the parent", &e)),
    }
}
