//! Creating a fileset on disk (directories, then files filled with
//! incompressible data by a few threads, progress through a callback);
//! removing it is `remove.rs`.
//!
//! `format` follows vdbench's `format=yes|no|restart`:
//! - `yes`: every file of the layout that exists is deleted and made
//!   again at its size (fresh data); files the layout does not create up
//!   front (filebench prealloc) are deleted;
//! - `no` (the default): what exists is used as it is, whatever its size;
//!   what is missing is created;
//! - `restart`: like `no`, but a file whose size differs from the layout's
//!   (short after an interrupted creation, or appended to by a run) is
//!   extended with fresh data or truncated to its size.
//!
//! A file existing with the right size is kept under `no` and `restart`.
//! An existing name that is not a regular file (a directory, a symbolic
//! link, a fifo) is never replaced: creation stops with its path. On an
//! error (ENOSPC, EDQUOT, EACCES...) the threads stop after their current
//! write, nothing made so far is removed (a partly written file stays
//! short, for `restart` to finish), and the error carries the path, the
//! errno and what was created. Computation never prints.

use crate::anchor::{
    is_kind, lstatat, openat, unlinkat, Anchor, AnchorState, DirCache, FsError, Marker,
};
use crate::capacity::{check_capacity, Needs};
use crate::key::{legacy_hash, Fit};
use crate::layout::Layout;
use crate::spec::FilesetSpec;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

pub use iolab_spec::fileset::Format;

/// Creation's progress, handed to the callback about ten times a second
/// (and once at the end) from the thread that called [`create`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Progress {
    /// Files of the layout looked at (made, kept, resized or skipped as
    /// not made up front), of all of them.
    pub files_done: u64,
    pub files_total: u64,
    /// Bytes of the files made up front that are in place: written by
    /// this creation or found there, of all of them.
    pub bytes_done: u64,
    pub bytes_total: u64,
    /// Bytes this creation wrote (the rate's figure).
    pub bytes_written: u64,
}

/// Fills a piece of a file: (file number, offset, bytes to fill).
pub type FillFn<'a> = dyn Fn(u64, u64, &mut [u8]) + Sync + 'a;

/// Told, for each file of the layout once creation is done with it, the
/// size of the regular file at its path (`None`: no file there, one not
/// made up front): (file number, size).
pub type SeenFn<'a> = dyn Fn(u64, Option<u64>) + Sync + 'a;

/// How to create.
#[derive(Clone, Copy)]
pub struct CreateOptions<'a> {
    pub format: Format,
    /// Filling threads (at least 1).
    pub threads: usize,
    /// Check free space and inodes first (always, except in tests that
    /// need to run a file system full on purpose).
    pub check_capacity: bool,
    pub progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
    /// Fills `buf` with the bytes file `i` gets at offset `off`, instead
    /// of fresh random bytes (`--verify` stamps the files it creates:
    /// `FileVerify::fill` in the engine). Called from the filling threads,
    /// a file's pieces in order from its first byte written.
    pub fill: Option<&'a FillFn<'a>>,
    /// Set by the caller to stop creation early (Ctrl-C): the threads
    /// stop after their current file and creation fails with EINTR.
    pub stop: Option<&'a AtomicBool>,
    /// Each file's state as creation leaves it, from the filling threads
    /// (every file of the layout when creation succeeds), so a caller
    /// that keeps the files' states needs no walk of its own.
    pub seen: Option<&'a SeenFn<'a>>,
    /// Hashes beside [`legacy_hash`] of the spec and `seed` that a marker
    /// written before layout keys may hold for this tree (see
    /// [`Marker::fit`]).
    pub legacy: &'a [String],
}

impl Default for CreateOptions<'_> {
    fn default() -> Self {
        CreateOptions {
            format: Format::No,
            threads: 4,
            check_capacity: true,
            progress: None,
            fill: None,
            stop: None,
            seen: None,
            legacy: &[],
        }
    }
}

/// What creation did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CreateReport {
    pub anchor: Option<AnchorState>,
    pub dirs_created: u64,
    pub files_created: u64,
    /// Existing files used as they were.
    pub files_kept: u64,
    /// Existing files extended or truncated to their size (`restart`).
    pub files_resized: u64,
    /// Files deleted (`yes`: before being made again, or not preallocated).
    pub files_deleted: u64,
    pub bytes_written: u64,
    /// How the tree the anchor held fits the layout (`Empty` for an anchor
    /// just made or adopted): another layout is refused under `format=no`.
    pub fit: Option<Fit>,
}

/// Creation stopped: the error and what had been done by then.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{error} ({} directories and {} files created, {} written before stopping)", report.dirs_created, report.files_created, iolab_spec::format_bytes(report.bytes_written))]
pub struct CreateError {
    pub error: FsError,
    pub report: CreateReport,
}

#[derive(Default)]
struct Counters {
    files_done: AtomicU64,
    created: AtomicU64,
    kept: AtomicU64,
    resized: AtomicU64,
    deleted: AtomicU64,
    bytes: AtomicU64,
    /// Bytes of made-up-front files found in place (kept, or the part of
    /// a resized file that stays).
    in_place: AtomicU64,
}

/// Creates (or completes) `layout` under `spec.anchor`: prepares the
/// anchor, refuses a tree of another layout under `format=no`, checks
/// capacity, makes the directories, fills the files. The marker is
/// written only when it changes: a tree already marked with this layout
/// (or a larger one it is part of) is used without a write of iolab's.
pub fn create(
    spec: &FilesetSpec,
    seed: u64,
    layout: &Layout,
    opts: &CreateOptions,
) -> Result<CreateReport, CreateError> {
    let mut report = CreateReport::default();
    let fail = |error: FsError, report: CreateReport| CreateError { error, report };
    let key = layout.key();
    let anchor = Anchor::prepare(&spec.anchor, &Marker::of(key)).map_err(|e| fail(e, report))?;
    report.anchor = Some(anchor.state);
    let mut legacy = vec![legacy_hash(spec, seed)];
    legacy.extend_from_slice(opts.legacy);
    let fit = anchor
        .fit(key, &legacy, opts.format)
        .map_err(|e| fail(e, report))?;
    report.fit = Some(fit);
    if opts.check_capacity {
        let needs = Needs::of(&anchor, layout, opts.format).map_err(|e| fail(e, report))?;
        if let Err(e) = check_capacity(&anchor, &needs) {
            undo_prepare(&anchor);
            return Err(fail(e, report));
        }
    }
    // A reshape is marked as such until it is done: an interrupted one
    // leaves a marker that no layout fits, so `format=no` refuses the
    // half-reshaped tree rather than use it.
    let before = match (anchor.state, fit) {
        (AnchorState::Marked, Fit::Differs) => Some(Marker::reshaping()),
        (AnchorState::Marked, f) if !f.keeps_marker() => Some(Marker::of(key)),
        _ => None,
    };
    if let Some(m) = before {
        anchor.write_marker(&m).map_err(|e| fail(e, report))?;
    }
    make_dirs(&anchor, layout, &mut report).map_err(|e| fail(e, report))?;
    let c = Counters::default();
    let result = fill_files(&anchor, layout, opts, &c);
    report.files_created = c.created.load(Relaxed);
    report.files_kept = c.kept.load(Relaxed);
    report.files_resized = c.resized.load(Relaxed);
    report.files_deleted = c.deleted.load(Relaxed);
    report.bytes_written = c.bytes.load(Relaxed);
    result.map_err(|e| fail(e, report))?;
    if fit == Fit::Differs {
        anchor
            .write_marker(&Marker::of(key))
            .map_err(|e| fail(e, report))?;
    }
    // SAFETY: syncfs on the anchor's open descriptor.
    if unsafe { libc::syncfs(anchor.raw()) } != 0 {
        let e = io::Error::last_os_error();
        return Err(fail(FsError::os(&anchor.path, "syncfs", &e), report));
    }
    Ok(report)
}

/// A refused creation leaves the anchor as it found it: the marker of an
/// adopted directory is removed, a directory iolab made is removed again.
fn undo_prepare(anchor: &Anchor) {
    if anchor.state == AnchorState::Marked {
        return;
    }
    let _ = unlinkat(anchor.raw(), std::ffi::OsStr::new(crate::MARKER), 0);
    if anchor.state == AnchorState::Created {
        let _ = std::fs::remove_dir(&anchor.path);
    }
}

fn make_dirs(anchor: &Anchor, layout: &Layout, report: &mut CreateReport) -> Result<(), FsError> {
    let mut cache = DirCache::new(anchor);
    for d in 0..layout.dirs() {
        let rel = layout.dir_path(d);
        let full = anchor.path.join(&rel);
        let (dir, name) = cache
            .parent(&rel)
            .map_err(|e| FsError::os(&full, "opening the parent", &e))?;
        let made = crate::anchor::mkdirat(dir, name).map_err(|e| match lstatat(dir, name) {
            Ok(Some(st)) if is_kind(&st, libc::S_IFLNK) => FsError {
                errno: e.raw_os_error(),
                ..FsError::refuse(&full, "is a symbolic link where the fileset has a directory; iolab does not follow links inside an anchor: remove it or name another anchor")
            },
            _ => FsError::os(&full, "mkdir", &e),
        })?;
        if made {
            report.dirs_created += 1;
        }
    }
    Ok(())
}

/// Files handed to a thread at a time (consecutive, so mostly one leaf).
const CHUNK: u64 = 64;

fn fill_files(
    anchor: &Anchor,
    layout: &Layout,
    opts: &CreateOptions,
    c: &Counters,
) -> Result<(), FsError> {
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let first_err: Mutex<Option<FsError>> = Mutex::new(None);
    let threads = opts.threads.clamp(1, 64);
    // Threads finished, and the wake-up of the progress loop when the last
    // one is (so creation ends when its work does, not at the next tick).
    let finished = (Mutex::new(0usize), Condvar::new());
    let totals = (layout.files(), layout.prealloc_bytes());
    std::thread::scope(|s| {
        for t in 0..threads {
            let (next, stop, first_err, finished) = (&next, &stop, &first_err, &finished);
            s.spawn(move || {
                let mut w = Worker::new(anchor, layout, opts, c, seed_for(t));
                'outer: while !stop.load(Relaxed) {
                    let start = next.fetch_add(CHUNK, Relaxed);
                    for i in start..(start + CHUNK).min(layout.files()) {
                        if stop.load(Relaxed) || opts.stop.is_some_and(|s| s.load(Relaxed)) {
                            break 'outer;
                        }
                        if let Err(e) = w.file(i) {
                            stop.store(true, Relaxed);
                            first_err
                                .lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .get_or_insert(e);
                            break 'outer;
                        }
                        c.files_done.fetch_add(1, Relaxed);
                    }
                    if start + CHUNK >= layout.files() {
                        break;
                    }
                }
                *finished.0.lock().unwrap_or_else(|p| p.into_inner()) += 1;
                finished.1.notify_all();
            });
        }
        let mut done = finished.0.lock().unwrap_or_else(|p| p.into_inner());
        while *done < threads {
            report_progress(opts, c, totals);
            done = finished
                .1
                .wait_timeout(done, Duration::from_millis(100))
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    });
    report_progress(opts, c, totals);
    match first_err.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(e) => Err(e),
        None if opts.stop.is_some_and(|s| s.load(Relaxed)) => Err(FsError {
            path: anchor.path.clone(),
            what: "creation interrupted".into(),
            errno: Some(libc::EINTR),
        }),
        None => Ok(()),
    }
}

/// Fresh data on every creation: the thread-local generator is seeded
/// from the OS, so `format=yes` never writes the bytes it deleted.
fn seed_for(t: usize) -> u64 {
    fastrand::u64(..) ^ t as u64
}

fn report_progress(opts: &CreateOptions, c: &Counters, (files, bytes): (u64, u64)) {
    if let Some(cb) = opts.progress {
        let written = c.bytes.load(Relaxed);
        cb(&Progress {
            files_done: c.files_done.load(Relaxed),
            files_total: files,
            bytes_done: written.saturating_add(c.in_place.load(Relaxed)),
            bytes_total: bytes,
            bytes_written: written,
        });
    }
}

/// One filling thread: its directory cache and its buffer of random bytes.
struct Worker<'a> {
    anchor: &'a Anchor,
    layout: &'a Layout,
    format: Format,
    fill: Option<&'a FillFn<'a>>,
    seen: Option<&'a SeenFn<'a>>,
    c: &'a Counters,
    cache: DirCache<'a>,
    buf: Vec<u8>,
    rng: fastrand::Rng,
}

impl<'a> Worker<'a> {
    fn new(
        anchor: &'a Anchor,
        layout: &'a Layout,
        opts: &CreateOptions<'a>,
        c: &'a Counters,
        seed: u64,
    ) -> Self {
        let buf = vec![0u8; 1 << 20];
        let rng = fastrand::Rng::with_seed(seed);
        Worker {
            anchor,
            layout,
            format: opts.format,
            fill: opts.fill,
            seen: opts.seen,
            c,
            cache: DirCache::new(anchor),
            buf,
            rng,
        }
    }

    /// Bring file `i` to its state (kept, resized, made, or deleted and
    /// made again), and say how it is left.
    fn file(&mut self, i: u64) -> Result<(), FsError> {
        let size = self.make(i)?;
        if let Some(seen) = self.seen {
            seen(i, size);
        }
        Ok(())
    }

    /// [`Worker::file`]'s work: the size of the regular file it leaves at
    /// the path, `None` when it leaves none.
    fn make(&mut self, i: u64) -> Result<Option<u64>, FsError> {
        let rel = self.layout.file_path(i);
        let full = self.anchor.path.join(&rel);
        let os = |op: &str, e: io::Error| FsError::os(&full, op, &e);
        let (dir, name) = self
            .cache
            .parent(&rel)
            .map_err(|e| os("opening the parent", e))?;
        let st = lstatat(dir, name).map_err(|e| os("stat", e))?;
        if let Some(st) = &st {
            if !is_kind(st, libc::S_IFREG) {
                return Err(FsError::refuse(
                    &full,
                    "exists and is not a regular file; iolab does not replace it: move it away",
                ));
            }
        }
        let want = self.layout.size(i);
        let pre = self.layout.prealloc(i);
        let (from, flags) = match (st, self.format) {
            (Some(_), Format::Yes) => {
                unlinkat(dir, name, 0).map_err(|e| os("unlink", e))?;
                self.c.deleted.fetch_add(1, Relaxed);
                (None, libc::O_CREAT | libc::O_EXCL)
            }
            (Some(st), Format::Restart) if pre && st.st_size as u64 != want => {
                (Some(st.st_size as u64), 0)
            }
            (Some(st), _) => {
                self.c.kept.fetch_add(1, Relaxed);
                if pre {
                    let have = (st.st_size as u64).min(want);
                    self.c.in_place.fetch_add(have, Relaxed);
                }
                return Ok(Some(st.st_size as u64));
            }
            (None, _) => (None, libc::O_CREAT | libc::O_EXCL),
        };
        if !pre {
            return Ok(None);
        }
        let fd = openat(dir, name, libc::O_WRONLY | flags, 0o644).map_err(|e| os("create", e))?;
        let f = std::fs::File::from(fd);
        let start = match from {
            Some(have) if have > want => {
                f.set_len(want).map_err(|e| os("truncate", e))?;
                want
            }
            Some(have) => have,
            None => 0,
        };
        self.c.in_place.fetch_add(start, Relaxed);
        self.fill(i, &f, start, want).map_err(|e| os("write", e))?;
        let done = if from.is_some() {
            &self.c.resized
        } else {
            &self.c.created
        };
        done.fetch_add(1, Relaxed);
        Ok(Some(want))
    }

    /// Writes fresh random bytes (or what the `fill` hook gives) over
    /// [from, to) of file `i`.
    fn fill(&mut self, i: u64, f: &std::fs::File, from: u64, to: u64) -> io::Result<()> {
        let mut off = from;
        while off < to {
            let n = ((to - off) as usize).min(self.buf.len());
            match self.fill {
                Some(fill) => fill(i, off, &mut self.buf[..n]),
                None => self.rng.fill(&mut self.buf[..n]),
            }
            f.write_all_at(&self.buf[..n], off)?;
            off += n as u64;
            self.c.bytes.fetch_add(n as u64, Relaxed);
        }
        Ok(())
    }
}
