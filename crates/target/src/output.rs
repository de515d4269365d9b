//! Output paths: the one check every file iolab writes as an output goes
//! through (result documents, HTML/Markdown/CSV reports, comparisons,
//! doctor reports, findings logs, journal directories), and the writer that
//! applies the same check again at the moment of writing.
//!
//! An output is written only to
//! - a new file in an existing directory this process may write;
//! - an empty regular file (one made by `mktemp` or `touch`: no data lost);
//! - a regular file that already holds an iolab output of the same kind,
//!   recognised by its content: the result, doctor and comparison JSON
//!   documents by their `schema_version` and `tool: "iolab"` fields, HTML
//!   reports by `<meta name="generator" content="iolab ...">`, Markdown
//!   reports and findings logs by the first line iolab gives them
//!   ([`MARKDOWN_MARKER`], [`FINDINGS_LOG_MARKER`]); or by the extended
//!   attribute `user.iolab.output` iolab sets on every output file it
//!   writes: the kind, length and FNV-1a hash of the bytes written, so it
//!   vouches only for exactly those bytes (a file rewritten in place by
//!   something else keeps the attribute but no longer matches it). CSV and
//!   fio's formats (JSON, text, logs) have no room for a marker, so such a
//!   file is recognised by the attribute alone: on a file system without
//!   user xattrs, replacing one needs `--force`;
//! - a stream the user named: a pipe (FIFO), `/dev/null`, `/dev/zero`,
//!   `/dev/full`, a terminal, or standard output or error
//!   (`/dev/stdout`, `/dev/stderr`, `/dev/fd/1`, `/proc/self/fd/2`, ...),
//!   which are written through the process's own descriptor.
//!
//! Never to a block device, never to another character device (a SCSI
//! generic node takes what is written to it as commands), never over a
//! regular file iolab did not write unless the user passed `--force`, and
//! never over a target or an input of the same command (compared by device
//! and inode, so no spelling or link gets past it), not even with `--force`.
//!
//! A regular file is replaced atomically: a temporary file in the same
//! directory is written through a `BufWriter`, synced, given the old file's
//! mode and owner and renamed over it, so a crash leaves the old document or
//! the new one. A symbolic link stays a link (the file it points to is
//! replaced); a FIFO stays a FIFO.

use crate::prepare::{is_missing, what_is};
use crate::sys::{self, XATTR_OUTPUT};
use std::ffi::OsString;
use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, BufWriter, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// First line of a Markdown report written to a file (an HTML comment, so
/// it does not show when the Markdown is rendered).
pub const MARKDOWN_MARKER: &str =
    "<!-- written by iolab; iolab replaces this file only while this line is first -->\n";
/// First line of a findings log iolab created; iolab appends only to a
/// findings log that starts with it.
pub const FINDINGS_LOG_MARKER: &str =
    "# iolab findings log: data validation findings, appended by each iolab run or verify that names this file\n";

/// How many bytes of an existing file are read to recognise it.
const HEAD: usize = 64 * 1024;

/// What an output holds, to recognise an earlier output of the same kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputKind {
    /// A result document (`run`, `study`, `verify --json`).
    ResultJson,
    /// `compare --json`.
    CompareJson,
    /// `doctor --json`.
    DoctorJson,
    /// An HTML report (`report`, `compare --html`).
    Html,
    /// `report --format md`.
    Markdown,
    /// `report --format csv`.
    Csv,
    /// The findings log of `run --verify` and `verify`.
    FindingsLog,
    /// fio's JSON (`run --fio-json`, `fio --output`): fio's own layout has
    /// no room for a marker, so it is recognised by the attribute alone.
    FioJson,
    /// fio's text output (`fio --output` with the normal format).
    FioText,
    /// A fio log file (`write_bw_log`, ...), recognised by the attribute.
    FioLog,
}

impl OutputKind {
    /// "an iolab result document", for messages.
    pub fn describe(self) -> &'static str {
        match self {
            OutputKind::ResultJson => "an iolab result document",
            OutputKind::CompareJson => "an iolab comparison (JSON)",
            OutputKind::DoctorJson => "an iolab doctor report (JSON)",
            OutputKind::Html => "an iolab HTML report",
            OutputKind::Markdown => "an iolab Markdown report",
            OutputKind::Csv => "an iolab CSV report",
            OutputKind::FindingsLog => "an iolab findings log",
            OutputKind::FioJson => "fio's JSON written by iolab",
            OutputKind::FioText => "fio's text output written by iolab",
            OutputKind::FioLog => "a fio log file written by iolab",
        }
    }

    /// The value of `user.iolab.output` on a file of this kind.
    pub fn tag(self) -> &'static str {
        match self {
            OutputKind::ResultJson => "result-json",
            OutputKind::CompareJson => "compare-json",
            OutputKind::DoctorJson => "doctor-json",
            OutputKind::Html => "html",
            OutputKind::Markdown => "markdown",
            OutputKind::Csv => "csv",
            OutputKind::FindingsLog => "findings-log",
            OutputKind::FioJson => "fio-json",
            OutputKind::FioText => "fio-text",
            OutputKind::FioLog => "fio-log",
        }
    }

    /// The line iolab writes first into a file of this kind, for formats
    /// that carry no mark of their own (not written to streams).
    pub fn marker(self) -> Option<&'static str> {
        match self {
            OutputKind::Markdown => Some(MARKDOWN_MARKER),
            OutputKind::FindingsLog => Some(FINDINGS_LOG_MARKER),
            _ => None,
        }
    }

    /// Whether `head` (the start of a file) is an iolab output of this kind.
    pub fn recognises(self, head: &[u8]) -> bool {
        match self {
            OutputKind::ResultJson => iolab_json_with(head, "host"),
            OutputKind::DoctorJson => iolab_json_with(head, "sysroot"),
            OutputKind::CompareJson => iolab_json_with(head, "documents"),
            OutputKind::Html => {
                let h = &head[..head.len().min(4096)];
                h.windows(GENERATOR.len()).any(|w| w == GENERATOR)
            }
            OutputKind::Markdown => head.starts_with(b"<!-- written by iolab"),
            OutputKind::FindingsLog => head.starts_with(b"# iolab findings log"),
            OutputKind::Csv | OutputKind::FioJson | OutputKind::FioText | OutputKind::FioLog => {
                false
            }
        }
    }
}

const GENERATOR: &[u8] = b"<meta name=\"generator\" content=\"iolab";

/// A refused or failed output: one line naming the flag and the path,
/// what is wrong and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct OutputError(pub String);

/// Who a path is: a node by device and inode, a device node by its device
/// number, or a path that does not exist yet by its directory and name.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ident {
    Node(u64, u64),
    Device(u64),
    New(u64, u64, OsString),
}

fn ident(path: &Path) -> Option<Ident> {
    match fs::metadata(path) {
        Ok(m) => {
            let ft = m.file_type();
            Some(if ft.is_block_device() || ft.is_char_device() {
                Ident::Device(m.rdev())
            } else {
                Ident::Node(m.dev(), m.ino())
            })
        }
        Err(e) if is_missing(&e) => {
            // A dangling link names the path it points to.
            let p = match fs::read_link(path) {
                Ok(t) => parent_of(path).join(t),
                Err(_) => path.to_path_buf(),
            };
            let name = p.file_name()?.to_os_string();
            let d = fs::metadata(parent_of(&p)).ok()?;
            Some(Ident::New(d.dev(), d.ino(), name))
        }
        Err(_) => None,
    }
}

/// The directory a path lives in (`.` for a bare name).
fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// The rules of one command: `--force`, and the paths no output may
/// replace (its targets and inputs).
#[derive(Debug, Clone, Default)]
pub struct OutputRules {
    /// `--force`: a regular file iolab did not write may be replaced.
    pub force: bool,
    protected: Vec<(Ident, String)>,
}

impl OutputRules {
    pub fn new(force: bool) -> OutputRules {
        OutputRules {
            force,
            protected: Vec::new(),
        }
    }

    /// No output may replace `path`, not even with `--force`; `what`
    /// completes "PATH is ...", e.g. "a target of this run".
    pub fn protect(&mut self, path: &Path, what: &str) {
        if let Some(id) = ident(path) {
            self.protected.push((id, what.to_string()));
        }
    }
}

/// What is at an output path now.
#[derive(Debug)]
enum State {
    /// Nothing: a new file.
    New,
    /// A regular file that may be replaced; its metadata (mode, owner).
    File(Metadata),
    /// An iolab output of the same kind.
    Own(Metadata),
    /// A pipe, terminal or /dev/null, opened by path.
    Stream,
    /// Standard output (1) or error (2), written through that descriptor.
    Std(i32),
}

/// An output path that passed the check. Writing checks it again, so
/// whatever appeared there meanwhile is refused too.
#[derive(Debug, Clone)]
pub struct OutputPath {
    flag: String,
    path: PathBuf,
    kind: OutputKind,
    rules: OutputRules,
}

/// Check that an output of `kind` may be written to `path`, before any
/// I/O. `flag` names where the path came from ("--json", "-o").
pub fn check_output(
    flag: &str,
    path: &Path,
    kind: OutputKind,
    rules: &OutputRules,
) -> Result<OutputPath, OutputError> {
    let o = OutputPath {
        flag: flag.to_string(),
        path: path.to_path_buf(),
        kind,
        rules: rules.clone(),
    };
    o.state()?;
    Ok(o)
}

/// Check several outputs of one command: each as [`check_output`], and no
/// two of them at the same file (streams such as /dev/null may repeat).
pub fn check_outputs(
    list: &[(&str, &Path, OutputKind)],
    rules: &OutputRules,
) -> Result<Vec<OutputPath>, OutputError> {
    let mut out: Vec<OutputPath> = Vec::with_capacity(list.len());
    let mut seen: Vec<(Ident, String)> = Vec::new();
    for (flag, path, kind) in list {
        let o = check_output(flag, path, *kind, rules)?;
        if !matches!(o.state()?, State::Stream | State::Std(_)) {
            if let Some(id) = ident(path) {
                if let Some((_, other)) = seen.iter().find(|(s, _)| *s == id) {
                    return Err(OutputError(format!(
                        "{flag} {} is the same file as {other}: two outputs cannot share a file; give each its own file name",
                        path.display()
                    )));
                }
                seen.push((id, format!("{flag} {}", path.display())));
            }
        }
        out.push(o);
    }
    Ok(out)
}

/// Check that `dir` may be used (and created) as a journal directory: a
/// directory, or a path that does not exist yet below a writable directory;
/// never a block device, a regular file or anything else.
pub fn check_journal_dir(flag: &str, dir: &Path) -> Result<(), OutputError> {
    let err = |what: String| OutputError(format!("{flag} {} {what}", dir.display()));
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(m) => Err(err(format!(
            "is {}, not a directory: a journal is a directory iolab creates and owns{}; give a new or empty directory",
            what_is(m.file_type()),
            if m.file_type().is_block_device() {
                ", and iolab never writes a journal to a block device"
            } else {
                ""
            }
        ))),
        Err(e) if is_missing(&e) => {
            if fs::symlink_metadata(dir).is_ok() {
                return Err(err(
                    "is a symbolic link to a missing path; give the directory's own path or a new name"
                        .into(),
                ));
            }
            // create_dir_all makes the missing levels: the nearest existing
            // one must be a directory this process may write.
            let mut up = parent_of(dir).to_path_buf();
            loop {
                match fs::metadata(&up) {
                    Ok(m) if m.is_dir() => break,
                    Ok(_) => {
                        return Err(err(format!(
                            "cannot be created: {} is not a directory; give a path in a directory",
                            up.display()
                        )))
                    }
                    Err(_) if up.parent().is_some_and(|p| !p.as_os_str().is_empty()) => {
                        up = parent_of(&up).to_path_buf();
                    }
                    Err(_) => break,
                }
            }
            sys::dir_writable(&up).map_err(|e| {
                err(format!(
                    "cannot be created: the directory {} is not writable ({e}); give a path in a writable directory",
                    up.display()
                ))
            })
        }
        Err(e) => Err(err(format!(
            "cannot be looked at ({e}); give a directory you may write"
        ))),
    }
}

/// Why no new file can be made at `path`: its directory is missing, not a
/// directory or not writable by this process. Shared with the creation of
/// target files, so both say it the same way.
pub(crate) fn dir_problem(path: &Path) -> Option<String> {
    let dir = parent_of(path);
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => sys::dir_writable(dir).err().map(|e| {
            format!(
                "the directory {} is not writable ({e}); give a path in a writable directory",
                dir.display()
            )
        }),
        Ok(_) => Some(format!(
            "{} is not a directory; give a path in a directory",
            dir.display()
        )),
        Err(_) => Some(format!(
            "the directory {} does not exist; create it first or give a path in an existing directory",
            dir.display()
        )),
    }
}

/// `/dev/stdout` and its other names: the descriptor to write through.
fn std_stream(path: &Path) -> Option<i32> {
    match path.to_str()? {
        "/dev/stdout" | "/dev/fd/1" | "/proc/self/fd/1" => Some(1),
        "/dev/stderr" | "/dev/fd/2" | "/proc/self/fd/2" => Some(2),
        _ => None,
    }
}

/// A duplicate of standard output (1) or error (2).
fn std_file(fd: i32) -> io::Result<File> {
    let owned = if fd == 1 {
        io::stdout().as_fd().try_clone_to_owned()?
    } else {
        io::stderr().as_fd().try_clone_to_owned()?
    };
    Ok(File::from(owned))
}

/// Character devices an output may stream to: /dev/null, /dev/zero,
/// /dev/full, and terminals (tty, console, pseudo-terminals).
fn streamable(rdev: u64) -> bool {
    let (major, minor) = sys::split_dev(rdev);
    matches!((major, minor), (1, 3) | (1, 5) | (1, 7) | (5, 0) | (5, 1))
        || major == 4
        || (136..=143).contains(&major)
}

/// The start of the regular file `path`, at most `HEAD` bytes; never blocks.
fn read_head(path: &Path) -> io::Result<Vec<u8>> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_CLOEXEC | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    if !f.metadata()?.is_file() {
        return Ok(Vec::new());
    }
    let mut v = Vec::new();
    f.take(HEAD as u64).read_to_end(&mut v)?;
    Ok(v)
}

impl OutputPath {
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn kind(&self) -> OutputKind {
        self.kind
    }

    /// True when the output goes to a pipe, terminal, /dev/null or
    /// standard output rather than a file.
    pub fn is_stream(&self) -> bool {
        matches!(self.state(), Ok(State::Stream | State::Std(_)))
    }

    fn err(&self, what: impl std::fmt::Display) -> OutputError {
        OutputError(format!("{} {} {what}", self.flag, self.path.display()))
    }

    /// What is at the path now, or why no output may be written there.
    fn state(&self) -> Result<State, OutputError> {
        let st = self.classify()?;
        if matches!(st, State::New | State::File(_) | State::Own(_)) {
            if let Some(id) = ident(&self.path) {
                if let Some((_, what)) = self.rules.protected.iter().find(|(p, _)| *p == id) {
                    return Err(self.err(format_args!(
                        "is {what}: an output never replaces it, not even with --force; give another file name"
                    )));
                }
            }
        }
        if let State::File(m) = &st {
            if m.len() > 0 && !self.rules.force {
                return Err(self.err(format_args!(
                    "already holds {} bytes that are not {}: iolab writes an output only to a new file or over its own earlier output; give a new file name, remove the file, or add --force to replace it",
                    m.len(),
                    self.kind.describe()
                )));
            }
        }
        Ok(st)
    }

    fn classify(&self) -> Result<State, OutputError> {
        let path = &self.path;
        if let Some(fd) = std_stream(path) {
            let m = std_file(fd)
                .and_then(|f| f.metadata())
                .map_err(|e| self.err(format_args!("cannot be used ({e}); give a file name")))?;
            if m.file_type().is_block_device() {
                return Err(self.err(
                    "is redirected to a block device: iolab never writes an output to a block device, not even with --force; give a file name",
                ));
            }
            return Ok(State::Std(fd));
        }
        match fs::symlink_metadata(path) {
            Ok(_) => {}
            Err(e) if is_missing(&e) => {
                self.dir_ok(path)?;
                return Ok(State::New);
            }
            Err(e) => {
                return Err(self.err(format_args!(
                    "cannot be looked at ({e}); give a path you may write"
                )))
            }
        }
        let m =
            match fs::metadata(path) {
                Ok(m) => m,
                Err(e) if is_missing(&e) => return Err(self.err(
                    "is a symbolic link to a missing file; give the file's own path or a new name",
                )),
                Err(e) => {
                    return Err(self.err(format_args!(
                        "cannot be looked at ({e}); give a path you may write"
                    )))
                }
            };
        let ft = m.file_type();
        if ft.is_block_device() {
            return Err(self.err(
                "is a block device: iolab never writes an output to a block device, not even with --force; give a file name",
            ));
        }
        if ft.is_fifo() {
            return Ok(State::Stream);
        }
        if ft.is_char_device() {
            if streamable(m.rdev()) {
                return Ok(State::Stream);
            }
            let (ma, mi) = sys::split_dev(m.rdev());
            return Err(self.err(format_args!(
                "is a character device ({ma}:{mi}) that is not /dev/null, /dev/zero, /dev/full or a terminal: iolab streams outputs only to pipes, terminals and /dev/null; give a file name"
            )));
        }
        if ft.is_dir() {
            return Err(self.err("is a directory; give the name of a file in it"));
        }
        if !ft.is_file() {
            return Err(self.err(format_args!(
                "is {}, not a file, pipe or terminal; give a file name",
                what_is(ft)
            )));
        }
        let real = fs::canonicalize(path).unwrap_or_else(|_| path.clone());
        self.dir_ok(&real)?;
        if m.len() > 0 && self.holds_own(path) {
            return Ok(State::Own(m));
        }
        Ok(State::File(m))
    }

    /// The directory of `path` exists and this process may create files in
    /// it (a new file, and the temporary file a replacement is written to).
    fn dir_ok(&self, path: &Path) -> Result<(), OutputError> {
        match dir_problem(path) {
            Some(p) => Err(self.err(format_args!("cannot be written: {p}"))),
            None => Ok(()),
        }
    }

    /// The regular file at `path` is an iolab output of this kind.
    fn holds_own(&self, path: &Path) -> bool {
        if read_head(path).is_ok_and(|h| self.kind.recognises(&h)) {
            return true;
        }
        let Ok(Some(v)) = sys::get_xattr(path, XATTR_OUTPUT) else {
            return false;
        };
        let v = String::from_utf8_lossy(&v);
        let mut it = v.split(' ');
        let (Some(tag), Some(len), Some(hash)) = (it.next(), it.next(), it.next()) else {
            return false;
        };
        let Ok(len) = len.parse::<u64>() else {
            return false;
        };
        tag == self.kind.tag()
            && len <= crate::input::TEXT_LIMIT
            && crate::input::read_exact_len(path, len)
                .is_ok_and(|b| format!("{:016x}", fnv1a(FNV_INIT, &b)) == hash)
    }

    fn io_err(&self, e: io::Error) -> OutputError {
        OutputError(format!(
            "cannot write {} {}: {e}",
            self.flag,
            self.path.display()
        ))
    }

    /// Write the whole output (replacing iolab's earlier one), produced by
    /// `body` into a buffered writer.
    pub fn write_with(
        &self,
        body: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), OutputError> {
        match self.state()? {
            State::Std(fd) => self.stream(std_file(fd), body),
            State::Stream => self.stream(self.open_stream(), body),
            State::New => self.replace(None, body),
            State::File(m) | State::Own(m) => self.replace(Some(m), body),
        }
    }

    /// Write `bytes` as the whole output.
    pub fn write_bytes(&self, bytes: &[u8]) -> Result<(), OutputError> {
        self.write_with(&mut |w| w.write_all(bytes))
    }

    /// Append `bytes` to iolab's own output (a findings log); a new,
    /// empty or (with --force) foreign file is started with the kind's
    /// marker line instead.
    pub fn append(&self, bytes: &[u8]) -> Result<(), OutputError> {
        match self.state()? {
            State::Std(fd) => self.stream(std_file(fd), &mut |w| w.write_all(bytes)),
            State::Stream => self.stream(self.open_stream(), &mut |w| w.write_all(bytes)),
            State::Own(_) => {
                // Recognised by its first line, which an append keeps.
                let f = OpenOptions::new()
                    .append(true)
                    .custom_flags(libc::O_CLOEXEC | libc::O_NOCTTY)
                    .open(&self.path)
                    .map_err(|e| self.io_err(e))?;
                self.stream(Ok(f), &mut |w| w.write_all(bytes))
            }
            State::New => self.replace(None, &mut |w| w.write_all(bytes)),
            State::File(m) => self.replace(Some(m), &mut |w| w.write_all(bytes)),
        }
    }

    fn open_stream(&self) -> io::Result<File> {
        OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_CLOEXEC | libc::O_NOCTTY)
            .open(&self.path)
    }

    fn stream(
        &self,
        f: io::Result<File>,
        body: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), OutputError> {
        let f = f.map_err(|e| self.io_err(e))?;
        let mut w = BufWriter::new(f);
        let r = body(&mut w).and_then(|_| w.flush());
        match r {
            // A reader that went away (`| head`) is not an error.
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
            r => r.map_err(|e| self.io_err(e)),
        }
    }

    /// Write a temporary file beside the real one and rename it over it.
    fn replace(
        &self,
        old: Option<Metadata>,
        body: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), OutputError> {
        // A symbolic link stays a link: the file it points to is replaced.
        let real = if old.is_some() {
            fs::canonicalize(&self.path).map_err(|e| self.io_err(e))?
        } else {
            self.path.clone()
        };
        let dir = parent_of(&real).to_path_buf();
        let name = real
            .file_name()
            .ok_or_else(|| self.err("is not a file name; give a file name"))?;
        let tmp = dir.join(format!(
            ".{}.iolab-{}-{}.tmp",
            name.to_string_lossy(),
            std::process::id(),
            next_tmp()
        ));
        let r =
            write_tmp(&tmp, old.as_ref(), self.kind, body).and_then(|_| fs::rename(&tmp, &real));
        if let Err(e) = r {
            let _ = fs::remove_file(&tmp);
            return Err(self.io_err(e));
        }
        // The rename is durable once the directory is synced.
        if let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

fn next_tmp() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

fn write_tmp(
    tmp: &Path,
    old: Option<&Metadata>,
    kind: OutputKind,
    body: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o666)
        .custom_flags(libc::O_CLOEXEC | libc::O_NOFOLLOW)
        .open(tmp)?;
    if let Some(m) = old {
        // The replacement keeps the owner and mode of the file it replaces
        // (chown first: it clears set-id bits).
        let _ = std::os::unix::fs::fchown(&f, Some(m.uid()), Some(m.gid()));
        f.set_permissions(fs::Permissions::from_mode(m.mode() & 0o7777))?;
    }
    let mut w = Hashing {
        inner: BufWriter::new(f),
        len: 0,
        hash: FNV_INIT,
    };
    if let Some(marker) = kind.marker() {
        w.write_all(marker.as_bytes())?;
    }
    body(&mut w)?;
    let (len, hash) = (w.len, w.hash);
    let f = w.inner.into_inner().map_err(|e| e.into_error())?;
    f.sync_all()?;
    // Without user xattrs the content marks it (CSV: not at all).
    let mark = format!("{} {len} {hash:016x}", kind.tag());
    let _ = sys::fset_xattr(&f, XATTR_OUTPUT, mark.as_bytes());
    Ok(())
}

const FNV_INIT: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a, 64 bits: a stable hash for the output mark (the std hasher may
/// change between Rust releases; no crate needed for five lines).
fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// A writer that counts and hashes what goes through it.
struct Hashing<W: Write> {
    inner: W,
    len: u64,
    hash: u64,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.len += n as u64;
        self.hash = fnv1a(self.hash, &buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Whether `head` starts a JSON object written by iolab (`schema_version`
/// and `"tool": "iolab"`) with the top-level key `key`. Only the start of a
/// document is seen, so a cut-off value ends the scan without failing it.
fn iolab_json_with(head: &[u8], key: &str) -> bool {
    let (keys, tool) = json_top(head);
    tool.as_deref() == Some("iolab")
        && keys.iter().any(|k| k == "schema_version")
        && keys.iter().any(|k| k == key)
}

/// The top-level keys of the JSON object at the start of `b`, and the value
/// of its `tool` key when that is a string. A small scanner rather than a
/// parser: it must cope with a document cut off at `HEAD` bytes.
fn json_top(b: &[u8]) -> (Vec<String>, Option<String>) {
    let mut keys = Vec::new();
    let mut tool = None;
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return (keys, tool);
    }
    i += 1;
    loop {
        i = skip_ws(b, i);
        if b.get(i) != Some(&b'"') {
            break;
        }
        let Some((key, next)) = json_string(b, i) else {
            break;
        };
        i = skip_ws(b, next);
        if b.get(i) != Some(&b':') {
            break;
        }
        i = skip_ws(b, i + 1);
        if b.get(i) == Some(&b'"') {
            let Some((v, next)) = json_string(b, i) else {
                keys.push(key);
                break;
            };
            if key == "tool" {
                tool = Some(v);
            }
            i = next;
        } else {
            match skip_value(b, i) {
                Some(next) => i = next,
                None => {
                    keys.push(key);
                    break;
                }
            }
        }
        keys.push(key);
        i = skip_ws(b, i);
        if b.get(i) != Some(&b',') {
            break;
        }
        i += 1;
    }
    (keys, tool)
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// The string starting at `b[i] == '"'` (escapes kept as written) and the
/// index after it.
fn json_string(b: &[u8], i: usize) -> Option<(String, usize)> {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return Some((String::from_utf8_lossy(&b[i + 1..j]).into_owned(), j + 1)),
            _ => j += 1,
        }
    }
    None
}

/// The index after the value starting at `b[i]` (not a string), or None
/// when it runs past the end.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = i;
    while j < b.len() {
        match b[j] {
            b'"' => {
                j = json_string(b, j)?.1;
                if depth == 0 {
                    return Some(j);
                }
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                if depth == 0 {
                    return Some(j);
                }
                depth -= 1;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            b',' if depth == 0 => return Some(j),
            _ => {}
        }
        j += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_testutil::require_root;

    fn rules() -> OutputRules {
        OutputRules::new(false)
    }

    fn check(p: &Path, kind: OutputKind, r: &OutputRules) -> Result<OutputPath, String> {
        check_output("--out", p, kind, r).map_err(|e| e.0)
    }

    const DOC: &str = "{\n  \"schema_version\": 1,\n  \"tool\": \"iolab\",\n  \"tool_version\": \"0.1.0\",\n  \"host\": {\"hostname\": \"h\"},\n  \"runs\": []\n}\n";

    #[test]
    fn a_new_file_is_written_and_then_replaced_as_iolabs_own() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        let o = check(&p, OutputKind::ResultJson, &rules()).unwrap();
        o.write_bytes(DOC.as_bytes()).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), DOC);
        let o = check(&p, OutputKind::ResultJson, &rules()).unwrap();
        o.write_bytes(DOC.replace("0.1.0", "0.2.0").as_bytes())
            .unwrap();
        assert!(fs::read_to_string(&p).unwrap().contains("0.2.0"));
        // No temporary file is left beside it.
        assert_eq!(fs::read_dir(d.path()).unwrap().count(), 1);
        // Another kind does not count as iolab's own.
        let e = check(&p, OutputKind::Html, &rules()).unwrap_err();
        assert!(e.contains("not an iolab HTML report"), "{e}");
    }

    #[test]
    fn a_foreign_file_is_refused_unchanged_and_force_keeps_its_mode() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("data.bin");
        fs::write(&p, b"precious").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();
        let e = check(&p, OutputKind::ResultJson, &rules()).unwrap_err();
        assert!(
            e.starts_with("--out ") && e.contains("8 bytes") && e.contains("--force"),
            "{e}"
        );
        assert_eq!(fs::read(&p).unwrap(), b"precious");
        let o = check(&p, OutputKind::ResultJson, &OutputRules::new(true)).unwrap();
        o.write_bytes(DOC.as_bytes()).unwrap();
        let m = fs::metadata(&p).unwrap();
        assert_eq!(m.mode() & 0o7777, 0o600);
        assert_eq!(fs::read_to_string(&p).unwrap(), DOC);
    }

    #[test]
    fn an_empty_file_may_be_written() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("mktemp");
        File::create(&p).unwrap();
        check(&p, OutputKind::Csv, &rules())
            .unwrap()
            .write_bytes(b"a,b\n")
            .unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"a,b\n");
    }

    #[test]
    fn csv_is_recognised_by_its_mark_only_while_its_bytes_are_iolabs() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.csv");
        check(&p, OutputKind::Csv, &rules())
            .unwrap()
            .write_bytes(b"a,b\n1,2\n")
            .unwrap();
        if sys::get_xattr(&p, XATTR_OUTPUT).unwrap().is_none() {
            iolab_testutil::print_skip(
                module_path!(),
                "the rest needs user xattrs, which the temp file system lacks",
            );
            return;
        }
        check(&p, OutputKind::Csv, &rules()).unwrap();
        // Rewritten in place by someone else: the mark stays, the bytes
        // no longer match it.
        fs::write(&p, b"someone else's\n").unwrap();
        assert!(sys::get_xattr(&p, XATTR_OUTPUT).unwrap().is_some());
        let e = check(&p, OutputKind::Csv, &rules()).unwrap_err();
        assert!(e.contains("not an iolab CSV report"), "{e}");
    }

    #[test]
    fn markers_recognise_markdown_html_and_findings_logs() {
        let d = tempfile::tempdir().unwrap();
        let md = d.path().join("r.md");
        check(&md, OutputKind::Markdown, &rules())
            .unwrap()
            .write_bytes(b"# report\n")
            .unwrap();
        let text = fs::read_to_string(&md).unwrap();
        assert!(text.starts_with(MARKDOWN_MARKER) && text.ends_with("# report\n"));
        let html = d.path().join("r.html");
        fs::write(
            &html,
            "<!DOCTYPE html>\n<html><head>\n<meta name=\"generator\" content=\"iolab 0.1.0\">\n",
        )
        .unwrap();
        check(&html, OutputKind::Html, &rules()).unwrap();
        let log = d.path().join("f.log");
        let o = check(&log, OutputKind::FindingsLog, &rules()).unwrap();
        o.append(b"one\n").unwrap();
        o.append(b"two\n").unwrap();
        assert_eq!(
            fs::read_to_string(&log).unwrap(),
            format!("{FINDINGS_LOG_MARKER}one\ntwo\n")
        );
        // A log iolab did not start is not appended to.
        fs::write(&log, "someone's log\n").unwrap();
        let e = check(&log, OutputKind::FindingsLog, &rules()).unwrap_err();
        assert!(e.contains("not an iolab findings log"), "{e}");
    }

    #[test]
    fn json_kinds_are_told_apart_even_when_cut_off() {
        assert!(OutputKind::ResultJson.recognises(DOC.as_bytes()));
        assert!(!OutputKind::DoctorJson.recognises(DOC.as_bytes()));
        let cut = &DOC.as_bytes()[..DOC.find("\"runs\"").unwrap() + 3];
        assert!(OutputKind::ResultJson.recognises(cut));
        let doctor = br#"{"schema_version":1,"tool":"iolab","tool_version":"x","sysroot":"/","targets":[{"a":"}"}]}"#;
        assert!(OutputKind::DoctorJson.recognises(doctor));
        assert!(!OutputKind::ResultJson.recognises(doctor));
        let other = br#"{"schema_version":1,"tool":"fio","host":{}}"#;
        assert!(!OutputKind::ResultJson.recognises(other));
        let nested = br#"{"x":{"schema_version":1,"tool":"iolab","host":1}}"#;
        assert!(!OutputKind::ResultJson.recognises(nested));
        let escaped = br#"{"a":"q\"uote","schema_version":1,"tool":"iolab","documents":[]}"#;
        assert!(OutputKind::CompareJson.recognises(escaped));
        for junk in [&b""[..], b"{", b"{\"", b"[1,2]", b"\x00\xff", b"{\"tool\":"] {
            assert!(!OutputKind::ResultJson.recognises(junk));
        }
    }

    #[test]
    fn a_missing_or_unwritable_directory_is_refused_up_front() {
        let e = check(
            Path::new("/nonexistent-iolab/r.json"),
            OutputKind::ResultJson,
            &rules(),
        )
        .unwrap_err();
        assert!(e.contains("/nonexistent-iolab does not exist"), "{e}");
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("file");
        fs::write(&f, b"x").unwrap();
        let e = check(&f.join("r.json"), OutputKind::ResultJson, &rules()).unwrap_err();
        assert!(e.contains("is not a directory"), "{e}");
        let e = check(d.path(), OutputKind::ResultJson, &rules()).unwrap_err();
        assert!(e.contains("is a directory"), "{e}");
    }

    #[test]
    fn a_protected_path_is_refused_by_inode_even_with_force() {
        let d = tempfile::tempdir().unwrap();
        let t = d.path().join("target");
        fs::write(&t, DOC).unwrap();
        let hard = d.path().join("hard");
        fs::hard_link(&t, &hard).unwrap();
        let link = d.path().join("link");
        std::os::unix::fs::symlink(&t, &link).unwrap();
        let new_target = d.path().join("later");
        let mut r = OutputRules::new(true);
        r.protect(&t, "a target of this run");
        r.protect(&new_target, "a target of this run");
        for p in [&t, &hard, &link, &d.path().join(".").join("later")] {
            let e = check(p, OutputKind::ResultJson, &r).unwrap_err();
            assert!(
                e.contains("is a target of this run"),
                "{}: {e}",
                p.display()
            );
        }
        check(&d.path().join("other"), OutputKind::ResultJson, &r).unwrap();
    }

    #[test]
    fn two_outputs_may_not_share_a_file_but_may_share_dev_null() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x");
        let e = check_outputs(
            &[
                ("--json", &p, OutputKind::ResultJson),
                (
                    "--findings-log",
                    &d.path().join(".").join("x"),
                    OutputKind::FindingsLog,
                ),
            ],
            &rules(),
        )
        .unwrap_err();
        assert!(e.0.contains("is the same file as --json"), "{e}");
        let null = Path::new("/dev/null");
        check_outputs(
            &[
                ("--json", null, OutputKind::ResultJson),
                ("--findings-log", null, OutputKind::FindingsLog),
            ],
            &rules(),
        )
        .unwrap();
    }

    #[test]
    fn streams_are_written_through_and_a_symlink_stays_a_link() {
        let o = check(Path::new("/dev/null"), OutputKind::ResultJson, &rules()).unwrap();
        assert!(o.is_stream());
        o.write_bytes(DOC.as_bytes()).unwrap();
        assert!(fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device());
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real.json");
        fs::write(&real, DOC).unwrap();
        let link = d.path().join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        check(&link, OutputKind::ResultJson, &rules())
            .unwrap()
            .write_bytes(DOC.replace("0.1.0", "9").as_bytes())
            .unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(fs::read_to_string(&real).unwrap().contains("\"9\""));
        let dangling = d.path().join("dangling");
        std::os::unix::fs::symlink(d.path().join("nowhere"), &dangling).unwrap();
        let e = check(&dangling, OutputKind::ResultJson, &rules()).unwrap_err();
        assert!(e.contains("symbolic link to a missing file"), "{e}");
    }

    fn mknod(p: &Path, kind: libc::mode_t, major: u32, minor: u32) {
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: mknod of a device node in our own temporary directory; no
        // device is opened.
        let r = unsafe { libc::mknod(c.as_ptr(), kind | 0o600, libc::makedev(major, minor)) };
        assert_eq!(r, 0, "mknod: {}", io::Error::last_os_error());
    }

    #[test]
    fn block_devices_and_other_character_devices_are_never_outputs() {
        require_root!();
        let d = tempfile::tempdir().unwrap();
        // Nodes only: refused by type, nothing is ever opened.
        let blk = d.path().join("blk");
        mknod(&blk, libc::S_IFBLK, 7, 250);
        let e = check(&blk, OutputKind::ResultJson, &OutputRules::new(true)).unwrap_err();
        assert!(
            e.contains("is a block device") && e.contains("not even with --force"),
            "{e}"
        );
        let sg = d.path().join("sg");
        mknod(&sg, libc::S_IFCHR, 21, 250);
        let e = check(&sg, OutputKind::ResultJson, &OutputRules::new(true)).unwrap_err();
        assert!(e.contains("character device (21:250)"), "{e}");
        let e = check_journal_dir("--journal", &blk).unwrap_err();
        assert!(e.0.contains("block device"), "{e}");
    }

    #[test]
    fn journal_directories_are_directories() {
        let d = tempfile::tempdir().unwrap();
        check_journal_dir("--journal", d.path()).unwrap();
        check_journal_dir("--journal", &d.path().join("a/b/c")).unwrap();
        let f = d.path().join("f");
        fs::write(&f, b"x").unwrap();
        let e = check_journal_dir("--journal", &f).unwrap_err();
        assert!(e.0.contains("is a regular file, not a directory"), "{e}");
        let e = check_journal_dir("--journal", &f.join("j")).unwrap_err();
        assert!(e.0.contains("is not a directory"), "{e}");
    }

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        assert_eq!(fnv1a(FNV_INIT, b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(FNV_INIT, b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(FNV_INIT, b"foobar"), 0x8594_4171_f739_67e8);
    }
}
