//! The filesets of a file-system workload before and after its run: the
//! anchors' checks (marker, whether the tree there fits the layout,
//! capacity, whether the run may write there), their creation with
//! progress, the state of every file read back, and at the end the files
//! left and the clean-up. The summary's figures (`FilesetRaw`) are filled
//! here, also when the run stops before its first operation.

use super::dirs::DirCache;
use super::setup::{fs_of, ops_of};
use super::table::{FileTable, DIR, EXISTS, MOVED};
use super::verify::FileVerify;
use super::FsSet;
use iolab_core::{FilesetProgress, Observer};
use iolab_fileset::key::legacy_hashes;
use iolab_fileset::{anchor, Anchor, AnchorState, CreateOptions, Fit, Layout, Marker, Needs};
use iolab_raw::{ErrOp, FilesetRaw, IoErrorRec, Op};
use iolab_spec::fileset::Format;
use iolab_spec::fs::{FsFileset, FsSpec};
use iolab_spec::WorkloadSpec;
use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Layouts, anchors (created or adopted with the marker) and the checks
/// of every fileset, before any I/O: a tree of another layout under
/// `format=no`, the capacity, and an anchor the run would write in but
/// cannot (read-only, permission). On an error the anchors made so far
/// are undone (`made` lists them).
pub(super) fn check_filesets(
    spec: &WorkloadSpec,
    made: &mut Vec<(PathBuf, AnchorState)>,
) -> Result<Vec<Layout>, String> {
    let fs = fs_of(spec);
    let seed = fs.layout_seed_or(spec.seed);
    let mut layouts = Vec::new();
    for f in &fs.filesets {
        let layout = Layout::new(&f.spec, seed).map_err(|e| format!("fileset {}: {e}", f.name))?;
        let a = Anchor::prepare(&f.spec.anchor, &Marker::of(layout.key()))
            .map_err(|e| e.to_string())?;
        if a.state != AnchorState::Marked {
            made.push((a.path.clone(), a.state));
        }
        let fit = a
            .fit(layout.key(), &legacy(spec, f, &layout), f.format)
            .map_err(|e| e.to_string())?;
        let needs = Needs::of(&a, &layout, f.format).map_err(|e| e.to_string())?;
        iolab_fileset::check_capacity(&a, &needs).map_err(|e| e.to_string())?;
        if a.state == AnchorState::Marked {
            if let Some(what) = writes(fs, f, fit, &needs) {
                if let Some(why) = a.cannot_write() {
                    return Err(anchor::write_refusal(&a.path, &why, &what));
                }
            }
        }
        layouts.push(layout);
    }
    Ok(layouts)
}

/// The hashes a marker written before layout keys holds for this tree
/// (`key::legacy_hashes`).
fn legacy(spec: &WorkloadSpec, f: &FsFileset, layout: &Layout) -> Vec<String> {
    let seed = fs_of(spec).layout_seed_or(spec.seed);
    legacy_hashes(&f.spec, layout.key(), seed, spec.seed)
}

/// Why the run writes in an existing anchor, if it does: the workload
/// ([`FsSpec::writes_anyway`]), files or directories to make or bring to
/// their size, or a marker to change.
fn writes(fs: &FsSpec, f: &FsFileset, fit: Fit, needs: &Needs) -> Option<String> {
    fs.writes_anyway(f).or_else(|| {
        if needs.inodes > 0 {
            Some(format!(
                "making {} missing files and directories",
                needs.inodes
            ))
        } else if needs.writes() {
            Some("bringing files to their size, --format restart".into())
        } else if matches!(fit, Fit::Grows | Fit::Empty | Fit::Differs) {
            Some("recording the layout in the marker".into())
        } else {
            None
        }
    })
}

/// Leave the anchors check() made as they were: the marker of an adopted
/// directory goes, a directory iolab made goes (when still empty).
pub(super) fn undo_anchors(made: &[(PathBuf, AnchorState)]) {
    for (p, st) in made {
        let _ = std::fs::remove_file(p.join(iolab_fileset::MARKER));
        if *st == AnchorState::Created {
            let _ = std::fs::remove_dir(p);
        }
    }
}

/// Why the filesets are not ready: the reason, what was done, and the
/// error creation stopped on (an error of the run, with its errno).
pub(super) struct NotReady {
    pub reason: String,
    pub raws: Vec<FilesetRaw>,
    pub error: Option<IoErrorRec>,
}

/// Create every fileset (progress through `obs.fileset_progress`, a stop
/// honoured) and read back the state of its files.
pub(super) fn create_all(
    spec: &WorkloadSpec,
    layouts: &[Layout],
    verify: &FileVerify,
    obs: &mut dyn Observer,
    stop: &AtomicBool,
) -> Result<(Vec<FsSet>, Vec<FilesetRaw>), NotReady> {
    let fs = fs_of(spec);
    let mut sets = Vec::new();
    let mut raws = Vec::new();
    let side_dirs = ops_of(fs)
        .iter()
        .any(|o| matches!(o, Op::Mkdir | Op::Rmdir));
    for (f, layout) in fs.filesets.iter().zip(layouts) {
        let mut raw = FilesetRaw {
            name: f.name.clone(),
            anchor: std::path::absolute(&f.spec.anchor)
                .unwrap_or_else(|_| f.spec.anchor.clone())
                .display()
                .to_string(),
            files: layout.files(),
            dirs: layout.dirs(),
            bytes: layout.total_bytes(),
            bytes_prealloc: layout.prealloc_bytes(),
            ..Default::default()
        };
        // The creation's walk fills the table: no walk of our own.
        let table = FileTable::new(layout.files());
        let r = create_one(
            spec,
            sets.len() as u32,
            layout,
            &mut raw,
            verify,
            &table,
            obs,
            stop,
        );
        let opened = match r {
            Ok(()) => {
                open_set(&f.spec.anchor, layout, side_dirs, Some(table)).map_err(|e| (e, None))
            }
            Err(e) => Err(e),
        };
        match opened {
            Ok(set) => {
                raw.files_at_end = Some(set.table.existing());
                raws.push(raw);
                super::sizes::take(&set, spec.verify && f.format == Format::No);
                sets.push(set);
            }
            Err((reason, error)) => {
                // What is there, not a false 0: the files as found now.
                raw.files_at_end = open_set(&f.spec.anchor, layout, false, None)
                    .ok()
                    .map(|s| s.table.existing());
                raws.push(raw);
                return Err(NotReady {
                    reason,
                    raws,
                    error,
                });
            }
        }
    }
    Ok((sets, raws))
}

/// Why creating a fileset stopped, and its error record when the system
/// refused with an errno (ENOSPC, EACCES...).
type Failed = (String, Option<IoErrorRec>);

/// Create fileset number `set` (its files stamped under `--verify`),
/// its progress handed to `obs` from this thread while the creation runs
/// on another, and the state of each file as it leaves it in `table`.
#[allow(clippy::too_many_arguments)]
fn create_one(
    spec: &WorkloadSpec,
    set: u32,
    layout: &Layout,
    raw: &mut FilesetRaw,
    verify: &FileVerify,
    table: &FileTable,
    obs: &mut dyn Observer,
    stop: &AtomicBool,
) -> Result<(), Failed> {
    let fs = fs_of(spec);
    let f = &fs.filesets[set as usize];
    let seed = fs.layout_seed_or(spec.seed);
    let legacy = legacy(spec, f, layout);
    let fill = |i: u64, off: u64, buf: &mut [u8]| verify.fill(set, i, off, buf);
    let seen = |i: u64, size: Option<u64>| match size {
        Some(s) => table.init(i, EXISTS, s),
        None => table.init(i, 0, 0),
    };
    let (tx, rx) = std::sync::mpsc::channel::<iolab_fileset::Progress>();
    let path = raw.anchor.clone();
    let t = Instant::now();
    let mut last = FilesetProgress {
        files_total: layout.files(),
        bytes_total: layout.prealloc_bytes(),
        ..Default::default()
    };
    let r = std::thread::scope(|s| {
        let fill = &fill;
        let seen = &seen;
        let legacy = &legacy;
        let h = s.spawn(move || {
            let cb = move |p: &iolab_fileset::Progress| {
                let _ = tx.send(*p);
            };
            let opts = CreateOptions {
                format: f.format,
                threads: 4,
                check_capacity: true,
                progress: Some(&cb),
                stop: Some(stop),
                fill: verify.on().then_some(fill),
                seen: Some(seen),
                legacy,
            };
            iolab_fileset::create(&f.spec, seed, layout, &opts)
        });
        // Ends when the creating thread is done and drops its sender.
        for p in rx {
            last = progress(&p, t);
            obs.fileset_progress(&path, &last);
        }
        h.join()
    });
    raw.create_secs = t.elapsed().as_secs_f64();
    last.elapsed_s = raw.create_secs;
    last.finished = true;
    obs.fileset_progress(&path, &last);
    let r = r.map_err(|_| ("creating the fileset panicked".to_string(), None))?;
    let rep = match &r {
        Ok(rep) => *rep,
        Err(e) => e.report,
    };
    raw.files_made = rep.files_created;
    raw.dirs_made = rep.dirs_created;
    raw.files_resized = rep.files_resized;
    raw.bytes_written = rep.bytes_written;
    match r {
        Ok(_) => Ok(()),
        Err(e) if e.error.errno == Some(libc::EINTR) => Err(("interrupted".into(), None)),
        Err(e) => Err((
            format!("creating fileset {}: {e}", f.name),
            error_record(&e),
        )),
    }
}

/// The error record of the errno creation stopped on (none for a
/// refusal without one, such as a layout name that is not a file).
fn error_record(e: &iolab_fileset::CreateError) -> Option<IoErrorRec> {
    e.error.errno.map(|errno| IoErrorRec {
        target: e.error.path.display().to_string(),
        offset: 0,
        len: 0,
        op: ErrOp::Fileset,
        errno,
        time_ns: 0,
        worker: 0,
    })
}

fn progress(p: &iolab_fileset::Progress, t: Instant) -> FilesetProgress {
    FilesetProgress {
        files_done: p.files_done,
        files_total: p.files_total,
        bytes_done: p.bytes_done,
        bytes_total: p.bytes_total,
        bytes_written: p.bytes_written,
        elapsed_s: t.elapsed().as_secs_f64(),
        finished: false,
    }
}

fn cstr(p: &Path) -> Result<CString, String> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| format!("{}: a path with a NUL byte", p.display()))
}

/// Open the anchor (checking it still holds the marker) and read the
/// state of every file of the layout, unless `known` holds it already
/// (the creation's walk), and of its side directory when the workload
/// makes them.
fn open_set(
    anchor_path: &Path,
    layout: &Layout,
    side_dirs: bool,
    known: Option<FileTable>,
) -> Result<FsSet, String> {
    let c = cstr(anchor_path)?;
    // SAFETY: a valid C string; the descriptor is checked and owned.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        let e = std::io::Error::last_os_error();
        return Err(format!(
            "{}: opening the anchor: {e}",
            anchor_path.display()
        ));
    }
    // SAFETY: just opened, ours.
    let dir = unsafe { OwnedFd::from_raw_fd(fd) };
    anchor::read_marker_at(dir.as_raw_fd(), anchor_path).map_err(|e| e.to_string())?;
    let walked = known.is_some();
    let table = known.unwrap_or_else(|| FileTable::new(layout.files()));
    if !walked || side_dirs {
        walk(&table, layout, dir.as_raw_fd(), !walked, side_dirs);
    }
    Ok(FsSet {
        layout: layout.clone(),
        table,
        dir,
        anchor: anchor_path.to_path_buf(),
    })
}

/// Stat each file of `layout` under the anchor `dir` into `table` when
/// `files`, and its side directory (`NAME.d`) when `side_dirs`.
fn walk(table: &FileTable, layout: &Layout, dir: i32, files: bool, side_dirs: bool) {
    let mut p = Vec::with_capacity(super::exec::PATH_CAP);
    let mut dirs = DirCache::new(layout.leaf_of(layout.files()) + 1, 1);
    for i in 0..layout.files() {
        layout.file_path_into(i, &mut p);
        let leaf = DirCache::key(0, layout.leaf_of(i));
        let (mut bits, size) = match files {
            false => (table.bits(i), table.size(i)),
            true => match lstat(&mut dirs, leaf, dir, &mut p) {
                Some(st) if st.st_mode & libc::S_IFMT == libc::S_IFREG => {
                    (EXISTS, st.st_size as u64)
                }
                _ => (0, 0),
            },
        };
        if side_dirs {
            p.extend_from_slice(b".d");
            if lstat(&mut dirs, leaf, dir, &mut p)
                .is_some_and(|s| s.st_mode & libc::S_IFMT == libc::S_IFDIR)
            {
                bits |= DIR;
            }
        }
        table.init(i, bits, size);
    }
}

/// fstatat(leaf, name, AT_SYMLINK_NOFOLLOW) of `p` (relative to the
/// anchor `dir`; NUL added and removed), its leaf directory reached with
/// no symbolic link followed (`dirs.rs`); `None` when missing or
/// unreachable.
fn lstat(dirs: &mut DirCache, leaf: u64, dir: i32, p: &mut Vec<u8>) -> Option<libc::stat> {
    p.push(0);
    // SAFETY: stat is plain data.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    let r = dirs.with_leaf(leaf, dir, p, |d, name| {
        // SAFETY: name is NUL-terminated, d a directory descriptor.
        unsafe { libc::fstatat(d, name, &mut st, libc::AT_SYMLINK_NOFOLLOW) }
    });
    p.pop();
    (r == Ok(0)).then_some(st)
}

/// Move the files renames left at their side names (`f17.r`) back to
/// their layout names (renameat2 with RENAME_NOREPLACE), so the tree
/// the run leaves holds the layout's names only (for the next run, the
/// clean-up and `find`).
fn restore_moved(set: &FsSet) {
    let mut p = Vec::with_capacity(super::exec::PATH_CAP);
    let mut dirs = DirCache::new(set.layout.leaf_of(set.table.files()) + 1, 1);
    for i in 0..set.table.files() {
        let bits = set.table.bits(i);
        if bits & MOVED == 0 {
            continue;
        }
        set.layout.file_path_into(i, &mut p);
        let cut = p.iter().rposition(|&b| b == b'/').map_or(0, |c| c + 1);
        let Ok(base) = std::ffi::CString::new(&p[cut..]) else {
            continue;
        };
        p.extend_from_slice(b".r\0");
        let leaf = DirCache::key(0, set.layout.leaf_of(i));
        // SAFETY: both names are NUL-terminated, d a directory descriptor.
        let r = dirs.with_leaf(leaf, set.dir_fd(), &mut p, |d, name| unsafe {
            libc::renameat2(d, name, d, base.as_ptr(), libc::RENAME_NOREPLACE)
        });
        if r == Ok(0) {
            set.table.init(i, bits & !MOVED | EXISTS, set.table.size(i));
        }
    }
}

/// Files left at the end, and the clean-up when asked (the layout's
/// files, the side directories `NAME.d` its mkdirs made, then its
/// directories: iolab_fileset's `remove`).
pub(super) fn end_filesets(
    spec: &WorkloadSpec,
    sets: &[FsSet],
    raws: &mut [FilesetRaw],
    notes: &mut Vec<String>,
) {
    for ((f, set), raw) in fs_of(spec).filesets.iter().zip(sets).zip(raws.iter_mut()) {
        restore_moved(set);
        raw.files_at_end = Some(set.table.existing());
        // A read-only anchor: nothing changed, the last record holds.
        if spec.verify && !f.cleanup && anchor::cannot_write(set.dir_fd()).is_none() {
            if let Err(e) = super::sizes::save(set) {
                notes.push(format!(
                    "fileset {}: recording the files' sizes for the next --verify run: {e}",
                    f.name
                ));
            }
        }
        if !f.cleanup {
            continue;
        }
        match iolab_fileset::remove(&set.anchor, &set.layout) {
            Ok(r) => {
                raw.removed = true;
                notes.push(format!(
                    "removed fileset {}: {} files and {} directories{}",
                    f.name,
                    r.files_removed,
                    r.dirs_removed,
                    if r.left > 0 {
                        format!(" ({} names left: not iolab's)", r.left)
                    } else {
                        String::new()
                    }
                ));
            }
            Err(e) => notes.push(format!("removing fileset {}: {e}", f.name)),
        }
    }
}
