//! The anchor directory and its marker: the safety rules every write,
//! rewrite and delete of a fileset goes through.
//!
//! Decision (issue 16 item 1): iolab writes the marker file [`MARKER`]
//! (`.iolab-fileset`, a small JSON of tool, version, the layout key of the
//! tree it holds and its hash, see [`crate::key`]) into
//! every anchor it creates or adopts, and then:
//! - an anchor that does not exist is created; its parent must exist
//!   (iolab never creates a chain of directories from a typo);
//! - an existing empty directory is adopted: the marker is written;
//! - an existing directory holding the marker is used;
//! - a non-empty directory without the marker is **refused**, untouched.
//!   Adding files beside foreign data was the other option the issue
//!   allows; refusing is simpler to reason about and never mixes a user's
//!   files with iolab's, so removing a fileset can never meet a name it
//!   did not make.
//!
//! Inside a marked anchor every operation is relative to a directory
//! descriptor of the anchor (`openat`, `mkdirat`, `unlinkat`,
//! `fstatat`) and opens each path component with `O_NOFOLLOW`, so a
//! symbolic link planted in the tree is never followed out of it. The
//! anchor itself may be a symbolic link: the user named it.

use crate::key::{Fit, LayoutKey};
use crate::spec::Format;
use std::ffi::{CString, OsStr};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The marker file's name in the anchor.
pub const MARKER: &str = ".iolab-fileset";

/// A file-system error: the path, what iolab was doing, and the errno.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}: {what}", path.display())]
pub struct FsError {
    pub path: PathBuf,
    pub what: String,
    /// The errno when the system refused (ENOSPC, EACCES, ...).
    pub errno: Option<i32>,
}

impl FsError {
    pub(crate) fn os(path: &Path, op: &str, e: &io::Error) -> FsError {
        FsError {
            path: path.to_path_buf(),
            what: format!("{op}: {e}"),
            errno: e.raw_os_error(),
        }
    }
    pub(crate) fn refuse(path: &Path, what: impl Into<String>) -> FsError {
        FsError {
            path: path.to_path_buf(),
            what: what.into(),
            errno: None,
        }
    }
}

/// How `Anchor::prepare` found the anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnchorState {
    /// It did not exist; iolab made it.
    Created,
    /// It was an empty directory; iolab wrote its marker.
    Adopted,
    /// It already held iolab's marker.
    Marked,
}

/// The marker's contents.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Marker {
    pub tool: String,
    pub version: String,
    /// The hash of `layout` ([`LayoutKey::hash`]); [`EMPTY`] after a
    /// clean-up, [`RESHAPING`] while a run reshapes the tree; the hash of
    /// the spec and seed in a marker of an iolab before layout keys.
    pub spec_hash: String,
    /// What determines the paths and sizes of the tree the anchor holds;
    /// absent when `spec_hash` is not a layout's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<LayoutKey>,
}

/// `spec_hash` of an anchor whose fileset was removed (`cleanup`).
pub const EMPTY: &str = "empty";
/// `spec_hash` while a run reshapes the tree (`format=restart` or `yes`
/// over another layout); replaced by the new layout's when it is done.
pub const RESHAPING: &str = "reshaping";

impl Marker {
    fn new(spec_hash: String, layout: Option<LayoutKey>) -> Marker {
        Marker {
            tool: "iolab".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            spec_hash,
            layout,
        }
    }

    /// The marker of a tree laid out by `key`.
    pub fn of(key: &LayoutKey) -> Marker {
        Marker::new(key.hash(), Some(key.clone()))
    }

    /// The marker of an anchor holding none of iolab's files.
    pub fn empty() -> Marker {
        Marker::new(EMPTY.into(), None)
    }

    /// The marker of a tree being reshaped.
    pub fn reshaping() -> Marker {
        Marker::new(RESHAPING.into(), None)
    }

    /// How the tree this marker records fits `want`; `legacy` holds the
    /// hashes a marker written before layout keys had for the same tree
    /// (`key::legacy_hash`).
    pub fn fit(&self, want: &LayoutKey, legacy: &[String]) -> Fit {
        match &self.layout {
            Some(have) => crate::key::fit(have, want),
            None if self.spec_hash == EMPTY => Fit::Empty,
            None if legacy.contains(&self.spec_hash) => Fit::Same,
            None => Fit::Differs,
        }
    }

    /// [`Marker::fit`], refusing under `format=no` a tree of another
    /// layout: its files would be used as they are, at other paths or
    /// sizes than the run's layout gives them. `Err` holds the refusal's
    /// words; `by` names who laid the tree out, when known (a run of
    /// the same plan).
    pub fn check(
        &self,
        want: &LayoutKey,
        legacy: &[String],
        format: Format,
        by: Option<&str>,
    ) -> Result<Fit, String> {
        let fit = self.fit(want, legacy);
        if fit == Fit::Differs && format == Format::No {
            let have = match by {
                Some(b) => format!("{}, laid out by {b}", self.describe()),
                None => self.describe(),
            };
            return Err(refusal(&have, want));
        }
        Ok(fit)
    }

    /// What the marker says the tree is, for a refusal.
    pub fn describe(&self) -> String {
        match &self.layout {
            Some(k) => k.describe(),
            None => "one its marker does not describe: written by an older iolab, or by a reshape that did not finish".into(),
        }
    }
}

/// An anchor iolab may write in: it holds the marker, and `fd` is open on it.
#[derive(Debug)]
pub struct Anchor {
    pub path: PathBuf,
    pub state: AnchorState,
    fd: OwnedFd,
}

/// Why the directory open as `dir` cannot be written in, if it cannot:
/// its file system is mounted read-only (statvfs `ST_RDONLY`), or
/// `faccessat(W_OK)` refuses (the errno's text, e.g. "Permission
/// denied"). Cheap, and no write is tried.
pub fn cannot_write(dir: i32) -> Option<String> {
    // SAFETY: statvfs is plain data filled in by the kernel.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: dir is an open descriptor; s is valid for the call.
    if unsafe { libc::fstatvfs(dir, &mut s) } == 0 && s.f_flag & libc::ST_RDONLY != 0 {
        return Some("its file system is mounted read-only".into());
    }
    // SAFETY: a static C string relative to an open directory.
    if unsafe { libc::faccessat(dir, c".".as_ptr(), libc::W_OK, libc::AT_EACCESS) } != 0 {
        return Some(errno_text(&io::Error::last_os_error()));
    }
    None
}

/// The refusal of a directory (an anchor, or the parent of a missing
/// one) a run would write in (`what` it would do) and cannot (`why`, from
/// [`cannot_write`]): one line, what to do.
pub fn write_refusal(dir: &Path, why: &str, what: &str) -> String {
    format!(
        "{}: cannot be written in ({why}) and this run would write there ({what}); make it writable, or run a workload that only reads and stats the files already made",
        dir.display()
    )
}

/// [`cannot_write`] of the directory at `path` (opened to look).
pub fn cannot_write_path(path: &Path) -> Option<String> {
    match open_dir_path(path) {
        Ok(fd) => cannot_write(fd.as_raw_fd()),
        Err(e) => Some(errno_text(&e)),
    }
}

/// "Permission denied", without the " (os error 13)" of `io::Error`.
fn errno_text(e: &io::Error) -> String {
    let t = e.to_string();
    t.split(" (os error").next().unwrap_or(&t).to_string()
}

/// Why a tree of another layout is not used under `format=no`, and what to
/// do (`have`: what the anchor holds, as [`Marker::describe`] says it).
pub fn refusal(have: &str, want: &LayoutKey) -> String {
    format!(
        "holds another fileset ({have}) than this run lays out ({}); with --format no its files would be used as they are: give --format restart (reshape it), --format yes (make it anew) or another --dir",
        want.describe()
    )
}

fn cstr(p: &OsStr) -> io::Result<CString> {
    CString::new(p.as_bytes()).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))
}

/// `openat(dir, name, flags)`, always with O_NOFOLLOW and O_CLOEXEC.
pub(crate) fn openat(dir: i32, name: &OsStr, flags: i32, mode: u32) -> io::Result<OwnedFd> {
    let c = cstr(name)?;
    // SAFETY: a valid C string and flags; the descriptor returned is ours.
    let fd = unsafe {
        libc::openat(
            dir,
            c.as_ptr(),
            flags | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            mode,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fd was just opened and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `fstatat(dir, name, AT_SYMLINK_NOFOLLOW)`; `None` when it does not exist.
pub(crate) fn lstatat(dir: i32, name: &OsStr) -> io::Result<Option<libc::stat>> {
    let c = cstr(name)?;
    // SAFETY: stat is plain data filled in by the kernel.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointers for the call's duration.
    if unsafe { libc::fstatat(dir, c.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) } != 0 {
        let e = io::Error::last_os_error();
        return if e.raw_os_error() == Some(libc::ENOENT) {
            Ok(None)
        } else {
            Err(e)
        };
    }
    Ok(Some(st))
}

pub(crate) fn is_kind(st: &libc::stat, kind: libc::mode_t) -> bool {
    st.st_mode & libc::S_IFMT == kind
}

/// `mkdirat(dir, name, 0755)`; Ok(false) when a directory already exists.
pub(crate) fn mkdirat(dir: i32, name: &OsStr) -> io::Result<bool> {
    let c = cstr(name)?;
    // SAFETY: a valid C string.
    if unsafe { libc::mkdirat(dir, c.as_ptr(), 0o755) } == 0 {
        return Ok(true);
    }
    let e = io::Error::last_os_error();
    match (e.raw_os_error(), lstatat(dir, name)) {
        (Some(libc::EEXIST), Ok(Some(st))) if is_kind(&st, libc::S_IFDIR) => Ok(false),
        _ => Err(e),
    }
}

/// `unlinkat(dir, name, flags)`.
pub(crate) fn unlinkat(dir: i32, name: &OsStr, flags: i32) -> io::Result<()> {
    let c = cstr(name)?;
    // SAFETY: a valid C string.
    if unsafe { libc::unlinkat(dir, c.as_ptr(), flags) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn open_dir_path(path: &Path) -> io::Result<OwnedFd> {
    let c = cstr(path.as_os_str())?;
    // SAFETY: a valid C string; the anchor itself may be a symlink.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: just opened, ours.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

impl Anchor {
    /// Creates, adopts or opens the anchor by the rules in the module doc;
    /// writes `marker` when it creates or adopts.
    pub fn prepare(path: &Path, marker: &Marker) -> Result<Anchor, FsError> {
        let state = match std::fs::metadata(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let parent = match path.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p,
                    _ => Path::new("."),
                };
                if !parent.is_dir() {
                    return Err(FsError::refuse(path, format!(
                        "its parent {} does not exist; create the parent first or name another anchor",
                        parent.display()
                    )));
                }
                std::fs::create_dir(path)
                    .map_err(|e| FsError::os(path, "creating the anchor", &e))?;
                AnchorState::Created
            }
            Err(e) => return Err(FsError::os(path, "reading the anchor", &e)),
            Ok(m) if !m.is_dir() => {
                return Err(FsError::refuse(
                    path,
                    "is not a directory; name a directory for the fileset's anchor",
                ))
            }
            Ok(_) => Self::classify(path)?,
        };
        let fd = open_dir_path(path).map_err(|e| FsError::os(path, "opening the anchor", &e))?;
        let a = Anchor {
            path: path.to_path_buf(),
            state,
            fd,
        };
        if state != AnchorState::Marked {
            a.write_marker(marker)?;
        }
        Ok(a)
    }

    fn classify(path: &Path) -> Result<AnchorState, FsError> {
        let mut rd =
            std::fs::read_dir(path).map_err(|e| FsError::os(path, "listing the anchor", &e))?;
        let mut marked = false;
        let mut foreign = false;
        for e in rd.by_ref() {
            let e = e.map_err(|e| FsError::os(path, "listing the anchor", &e))?;
            if e.file_name() == MARKER {
                marked = true;
            } else {
                foreign = true;
            }
        }
        if marked {
            read_marker(path)?;
            Ok(AnchorState::Marked)
        } else if foreign {
            Err(FsError::refuse(path, format!(
                "is not empty and has no {MARKER} marker; iolab writes only into directories it created or adopted empty: name a new or empty directory"
            )))
        } else {
            Ok(AnchorState::Adopted)
        }
    }

    /// Opens an anchor that must already hold iolab's marker (for clean-up).
    pub fn open_marked(path: &Path) -> Result<Anchor, FsError> {
        let fd = open_dir_path(path).map_err(|e| FsError::os(path, "opening the anchor", &e))?;
        read_marker_at(fd.as_raw_fd(), path)?;
        Ok(Anchor {
            path: path.to_path_buf(),
            state: AnchorState::Marked,
            fd,
        })
    }

    /// The marker of this anchor, read through its descriptor.
    pub fn marker(&self) -> Result<Marker, FsError> {
        read_marker_at(self.raw(), &self.path)
    }

    /// Writes `m` as the marker (the anchor is iolab's).
    pub fn write_marker(&self, m: &Marker) -> Result<(), FsError> {
        let text = serde_json::to_string(m).unwrap_or_default() + "\n";
        let mp = self.path.join(MARKER);
        let fd = openat(
            self.raw(),
            OsStr::new(MARKER),
            libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC,
            0o644,
        )
        .map_err(|e| FsError::os(&mp, "writing the marker", &e))?;
        use std::io::Write;
        std::fs::File::from(fd)
            .write_all(text.as_bytes())
            .map_err(|e| FsError::os(&mp, "writing the marker", &e))
    }

    /// How the tree in this anchor fits `want` (`Fit::Empty` for an anchor
    /// just made or adopted), by [`Marker::check`].
    pub fn fit(&self, want: &LayoutKey, legacy: &[String], format: Format) -> Result<Fit, FsError> {
        if self.state != AnchorState::Marked {
            return Ok(Fit::Empty);
        }
        (self.marker()?)
            .check(want, legacy, format, None)
            .map_err(|r| FsError::refuse(&self.path, r))
    }

    /// [`cannot_write`] of this anchor.
    pub fn cannot_write(&self) -> Option<String> {
        cannot_write(self.raw())
    }

    pub(crate) fn raw(&self) -> i32 {
        self.fd.as_raw_fd()
    }

    /// Opens directory `rel` (relative) beneath the anchor, one component
    /// at a time with O_NOFOLLOW: a symlink anywhere on the way is ELOOP.
    pub(crate) fn open_dir(&self, rel: &Path) -> io::Result<OwnedFd> {
        let mut cur = openat(
            self.raw(),
            OsStr::new("."),
            libc::O_RDONLY | libc::O_DIRECTORY,
            0,
        )?;
        for c in rel.components() {
            let std::path::Component::Normal(name) = c else {
                return Err(io::Error::from_raw_os_error(libc::EINVAL));
            };
            cur = openat(cur.as_raw_fd(), name, libc::O_RDONLY | libc::O_DIRECTORY, 0)?;
        }
        Ok(cur)
    }
}

/// Reads and checks the marker of `anchor` (opened by path; where the
/// anchor is open already, read through its descriptor with
/// [`read_marker_at`] or [`Anchor::marker`]).
pub fn read_marker(anchor: &Path) -> Result<Marker, FsError> {
    let fd = open_dir_path(anchor).map_err(|e| FsError::os(anchor, "opening the anchor", &e))?;
    read_marker_at(fd.as_raw_fd(), anchor)
}

/// Reads and checks the marker in the open anchor directory `dir` (whose
/// path, for messages, is `anchor`): `openat(dir, MARKER, O_NOFOLLOW)`,
/// so the marker read is the one of the directory iolab holds, not of
/// whatever the path names by now; a regular file of at most 4096 bytes,
/// its size checked on the open file before reading.
pub fn read_marker_at(dir: i32, anchor: &Path) -> Result<Marker, FsError> {
    let mp = anchor.join(MARKER);
    let not_ours = || {
        FsError::refuse(
            &mp,
            "is not iolab's marker file; iolab leaves this tree alone",
        )
    };
    let read = |e: &io::Error| FsError::os(&mp, "reading the marker", e);
    let fd = openat(
        dir,
        OsStr::new(MARKER),
        libc::O_RDONLY | libc::O_NONBLOCK,
        0,
    )
    .map_err(|e| {
        if e.raw_os_error() == Some(libc::ELOOP) {
            not_ours()
        } else {
            read(&e)
        }
    })?;
    let mut f = std::fs::File::from(fd);
    let meta = f.metadata().map_err(|e| read(&e))?;
    if !meta.is_file() || meta.len() > 4096 {
        return Err(not_ours());
    }
    let mut text = String::new();
    use std::io::Read;
    (&mut f)
        .take(4096)
        .read_to_string(&mut text)
        .map_err(|e| read(&e))?;
    match serde_json::from_str::<Marker>(&text) {
        Ok(m) if m.tool == "iolab" => Ok(m),
        _ => Err(FsError::refuse(
            &mp,
            "is not iolab's marker; iolab leaves this tree alone",
        )),
    }
}

/// The last directory opened beneath an anchor, so files of one leaf
/// directory (numbered consecutively) share one walk.
pub(crate) struct DirCache<'a> {
    anchor: &'a Anchor,
    path: Option<PathBuf>,
    fd: Option<OwnedFd>,
}

impl<'a> DirCache<'a> {
    pub(crate) fn new(anchor: &'a Anchor) -> Self {
        DirCache {
            anchor,
            path: None,
            fd: None,
        }
    }

    /// The parent directory's descriptor and the file name of `rel`.
    pub(crate) fn parent<'p>(&mut self, rel: &'p Path) -> io::Result<(i32, &'p OsStr)> {
        let parent = rel.parent().unwrap_or(Path::new(""));
        let name = rel
            .file_name()
            .ok_or_else(|| io::Error::from_raw_os_error(libc::EINVAL))?;
        if self.path.as_deref() != Some(parent) || self.fd.is_none() {
            self.fd = None;
            self.fd = Some(self.anchor.open_dir(parent)?);
            self.path = Some(parent.to_path_buf());
        }
        Ok((self.fd.as_ref().map(|f| f.as_raw_fd()).unwrap_or(-1), name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The marker is read through the anchor's descriptor: after the
    /// marked directory is moved away and an unmarked one put at its
    /// path, the open anchor still reads its own marker (and reading by
    /// path refuses the impostor); a marker that is a symbolic link or
    /// over 4096 bytes is refused.
    #[test]
    fn marker_is_read_through_the_anchor_descriptor() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("a");
        let a = Anchor::prepare(&p, &Marker::empty()).unwrap();
        std::fs::rename(&p, t.path().join("moved")).unwrap();
        std::fs::create_dir(&p).unwrap();
        std::fs::write(p.join(MARKER), b"{}").unwrap();
        assert_eq!(a.marker().unwrap().spec_hash, EMPTY);
        assert!(read_marker(&p).is_err());
        std::fs::remove_file(p.join(MARKER)).unwrap();
        let moved = t.path().join("moved").join(MARKER);
        std::os::unix::fs::symlink(&moved, p.join(MARKER)).unwrap();
        assert!(Anchor::open_marked(&p).is_err(), "symlinked marker");
        std::fs::remove_file(p.join(MARKER)).unwrap();
        std::fs::write(p.join(MARKER), vec![b' '; 5000]).unwrap();
        assert!(Anchor::open_marked(&p).is_err(), "oversized marker");
        assert!(Anchor::open_marked(&t.path().join("moved")).is_ok());
    }
}
