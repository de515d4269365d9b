//! fio's job-file syntax: sections, `[global]`, `include`, comments,
//! variables. See the module documentation of [`crate::fio`].
//!
//! What fio does (init.c `__parse_jobs_ini`, parse.c `strip_blank_end`,
//! options.c `fio_option_dup_subs` / `fio_keyword_replace`), and so what
//! this does:
//! - A line whose first non-blank character is `;` or `#` is a comment;
//!   on any other line everything from the first `;`, then from the first
//!   `#`, is cut off (so values cannot hold either character).
//! - `[NAME]` starts a section; a name beginning with `global` is a
//!   global section, whose options apply to every job section after it
//!   (several globals add up, across files too). A job section gets the
//!   globals in force where it starts, then its own options.
//! - The first job section of the second and later files given starts
//!   with a `stonewall` (fio separates job files by one).
//! - `include FILE` inside a section reads FILE's option lines into that
//!   section (FILE relative to the including file's directory unless it
//!   exists as written, as fio does; no sections in it; nestable).
//! - `${NAME}` anywhere in an option line is replaced by the `NAME=VALUE`
//!   argument, else the environment, else nothing. `$pagesize`,
//!   `$mb_memory` and `$ncpus` are replaced by the machine's figures and
//!   then, if the value has `+ - * /`, it is computed as fio has `bc` do
//!   (whole numbers).
//! - Option names are kept as written (fio compares them
//!   case-sensitively); `key` alone is a bare boolean.
//!
//! Bounded: lines of at most [`MAX_LINE`] bytes before and after
//! variables, [`MAX_INCLUDE_DEPTH`] levels and [`MAX_INCLUDES`] includes,
//! [`MAX_TOTAL_BYTES`] of text in all. Every problem is one line naming
//! the file and line.

use super::{values, FioFile, FioJob, FioOpt};
use crate::resolve::JobError;
use std::path::{Path, PathBuf};

/// The longest line read (fio's `OPT_LEN_MAX`).
pub const MAX_LINE: usize = 8192;
/// How deep includes may nest.
pub const MAX_INCLUDE_DEPTH: usize = 16;
/// How many includes one load may read.
pub const MAX_INCLUDES: usize = 256;
/// How much text (job files and includes) one load may read.
pub const MAX_TOTAL_BYTES: u64 = 64 << 20;

/// How many job sections one load may have (fio's `REAL_MAX_JOBS`).
pub const MAX_JOBS: usize = 4096;
/// How many options all jobs may hold together (a global counts once per
/// job after it), so a few lines cannot make a huge plan.
pub const MAX_OPTIONS: usize = 65_536;

/// fio's built-in variables: `$ncpus`, `$mb_memory`, `$pagesize`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Builtins {
    /// CPUs configured (fio `cpus_configured()`).
    pub ncpus: u64,
    /// Physical memory in MiB (fio `os_phys_mem() / 1 MiB`).
    pub mb_memory: u64,
    /// The page size in bytes.
    pub pagesize: u64,
}

impl Builtins {
    /// This machine's figures, read as fio reads them.
    pub fn of_this_machine() -> Builtins {
        // SAFETY: sysconf has no preconditions; it only reads.
        let (cpus, pages, page) = unsafe {
            (
                libc::sysconf(libc::_SC_NPROCESSORS_CONF),
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        let pagesize = if page > 0 { page as u64 } else { 4096 };
        Builtins {
            ncpus: cpus.max(1) as u64,
            mb_memory: (pages.max(0) as u64).saturating_mul(pagesize) >> 20,
            pagesize,
        }
    }
}

/// Whether `text` is INI in fio's style (see [`crate::frontend::detect`]):
/// the first line that tells the formats apart decides. TOML tells itself
/// by `[[table]]`, quoted strings, arrays, inline tables and `true`/
/// `false`; fio by bare option names, unquoted words (`rw=randread`,
/// `bs=4k`), `include` and `$` variables. A file with neither (only
/// numbers, or nothing) is iolab's.
pub fn looks_like_fio(text: &str) -> bool {
    let mut seen_section = false;
    for raw in text.lines().take(10_000) {
        let line = strip_comment(raw);
        if line.is_empty() {
            continue;
        }
        if line.starts_with("[[") {
            return false;
        }
        if line.starts_with('[') {
            seen_section = true;
            continue;
        }
        if line.contains("${") || line.contains("$ncpus") || line.contains("$mb_memory") {
            return true;
        }
        let Some((key, value)) = line.split_once('=') else {
            // TOML has no line without `=` outside arrays and strings,
            // which start on a line with `=` that decided already.
            return (seen_section && is_word(line)) || is_include(line);
        };
        let (key, value) = (key.trim(), value.trim());
        if key.starts_with('"') || value.starts_with(['"', '\'', '[', '{']) {
            return false;
        }
        if value == "true" || value == "false" {
            return false;
        }
        if !is_word(key) {
            return false;
        }
        if !value.is_empty() && value.parse::<f64>().is_err() {
            return true;
        }
    }
    false
}

/// An option name as fio has them: letters, digits, `_` (and `-`).
fn is_word(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Parse job files in order (`(origin, text)`), with `vars` filling
/// `${NAME}` before the environment.
pub fn parse_files(
    files: &[(String, String)],
    vars: &[(String, String)],
) -> Result<FioFile, JobError> {
    let env = |name: &str| std::env::var(name).ok();
    let host = Host {
        env: &env,
        builtins: Builtins::of_this_machine(),
        read: &read_include,
    };
    parse_files_with(files, vars, &host)
}

/// What a load reads from outside its text: the environment, fio's
/// built-in variables and included files (fixed in tests and the fuzz
/// target, which must not read the machine's files).
pub struct Host<'a> {
    /// `${NAME}` when no `NAME=VALUE` argument gives it.
    pub env: &'a dyn Fn(&str) -> Option<String>,
    pub builtins: Builtins,
    /// The text of an included file, or why it cannot be read.
    pub read: &'a dyn Fn(&Path) -> Result<String, String>,
}

/// An included file, bounded like a job file.
pub fn read_include(path: &Path) -> Result<String, String> {
    iolab_target::read_text_bounded(path, MAX_TOTAL_BYTES).map_err(|e| e.to_string())
}

/// [`parse_files`] with what it reads from outside given.
pub fn parse_files_with(
    files: &[(String, String)],
    vars: &[(String, String)],
    host: &Host,
) -> Result<FioFile, JobError> {
    let mut r = Reader {
        vars,
        used: vec![false; vars.len()],
        env: host.env,
        read: host.read,
        builtins: host.builtins,
        globals: Vec::new(),
        jobs: Vec::new(),
        includes: 0,
        bytes: 0,
        options: 0,
    };
    for (i, (origin, text)) in files.iter().enumerate() {
        r.count_bytes(text.len(), origin)?;
        let mut at = Section::None;
        let mut src = Source {
            origin,
            text,
            depth: 0,
            stonewall: i > 0,
        };
        r.read(&mut src, &mut at)?;
    }
    if r.jobs.is_empty() {
        let names: Vec<&str> = files.iter().map(|(o, _)| o.as_str()).collect();
        return Err(JobError(format!(
            "{} has no job section (only [global] or nothing); add a [NAME] section with the job's options",
            names.join(", ")
        )));
    }
    let mut unused_vars = Vec::new();
    for (i, (name, _)) in vars.iter().enumerate() {
        let used = vars.iter().zip(&r.used).any(|((n, _), u)| n == name && *u);
        if !used && !r.used[i] && !unused_vars.contains(name) {
            unused_vars.push(name.clone());
        }
    }
    Ok(FioFile {
        jobs: r.jobs,
        unused_vars,
    })
}

/// Where option lines go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    /// Before any section header.
    None,
    Global,
    /// The job at this index of `Reader::jobs`.
    Job(usize),
}

/// One text being read: a job file or an included file.
struct Source<'a> {
    origin: &'a str,
    text: &'a str,
    /// 0 for a job file, 1.. for includes (which hold no sections).
    depth: usize,
    /// The next job section starts with a `stonewall` (a later file).
    stonewall: bool,
}

/// The state of one load.
struct Reader<'a> {
    vars: &'a [(String, String)],
    used: Vec<bool>,
    env: &'a dyn Fn(&str) -> Option<String>,
    read: &'a dyn Fn(&Path) -> Result<String, String>,
    builtins: Builtins,
    globals: Vec<FioOpt>,
    jobs: Vec<FioJob>,
    includes: usize,
    bytes: u64,
    /// Options held by all jobs and globals so far.
    options: usize,
}

/// `file:line: message`.
fn err_at(origin: &str, line: usize, msg: impl std::fmt::Display) -> JobError {
    JobError(format!("{origin}:{line}: {msg}"))
}

/// The line without its comment (from the first `;`, then the first `#`)
/// and without blanks and control characters at either end.
fn strip_comment(raw: &str) -> &str {
    let s = raw.split(';').next().unwrap_or("");
    let s = s.split('#').next().unwrap_or("");
    s.trim_matches(|c: char| c.is_whitespace() || c.is_control())
}

/// `include FILE` (fio takes any line starting with `include`; iolab
/// wants the word and a blank after it, so an option named `includes`
/// is not an include).
fn is_include(line: &str) -> bool {
    line.strip_prefix("include")
        .is_some_and(|rest| rest.starts_with([' ', '\t']))
}

impl Reader<'_> {
    fn count_options(&mut self, origin: &str, n: usize, more: usize) -> Result<(), JobError> {
        self.options += more;
        if self.options > MAX_OPTIONS {
            return Err(err_at(origin, n, format!(
                "the jobs hold more than {MAX_OPTIONS} options together ([global] options count once per job after them); split the job file"
            )));
        }
        Ok(())
    }

    fn count_bytes(&mut self, n: usize, origin: &str) -> Result<(), JobError> {
        self.bytes += n as u64;
        if self.bytes > MAX_TOTAL_BYTES {
            return Err(JobError(format!(
                "{origin}: the job files and their includes are more than {} MiB of text together; split the job",
                MAX_TOTAL_BYTES >> 20
            )));
        }
        Ok(())
    }

    /// Read every line of `src` into the sections, `at` being the one in
    /// force (updated as headers come).
    fn read(&mut self, src: &mut Source, at: &mut Section) -> Result<(), JobError> {
        for (i, raw) in src.text.split('\n').enumerate() {
            let n = i + 1;
            if raw.len() > MAX_LINE {
                return Err(err_at(
                    src.origin,
                    n,
                    format!(
                        "the line is {} bytes long; fio reads at most {MAX_LINE}",
                        raw.len()
                    ),
                ));
            }
            if raw.contains('\0') {
                return Err(err_at(src.origin, n, "a NUL byte; a fio job file is text"));
            }
            let line = strip_comment(raw);
            if line.is_empty() {
                continue;
            }
            if line.starts_with('[') {
                *at = self.header(src, n, line)?;
            } else if is_include(line) {
                self.include(src, n, line, *at)?;
            } else {
                self.option(src.origin, n, line, *at)?;
            }
        }
        Ok(())
    }

    /// A section header: a new job (with the globals in force) or a
    /// global section.
    fn header(&mut self, src: &mut Source, n: usize, line: &str) -> Result<Section, JobError> {
        if src.depth > 0 {
            return Err(err_at(
                src.origin,
                n,
                format!(
                    "{line} starts a section in an included file; fio allows only options there"
                ),
            ));
        }
        let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) else {
            return Err(err_at(
                src.origin,
                n,
                format!("{line:?} is not a section header; write [NAME] alone on the line"),
            ));
        };
        let name = name.trim();
        if name.is_empty() {
            return Err(err_at(
                src.origin,
                n,
                "an empty section name []; name the job",
            ));
        }
        if name.len() > 255 {
            return Err(err_at(
                src.origin,
                n,
                "a section name longer than fio's 255 characters",
            ));
        }
        if name.starts_with("global") {
            return Ok(Section::Global);
        }
        if self.jobs.len() >= MAX_JOBS {
            return Err(err_at(
                src.origin,
                n,
                format!("more than {MAX_JOBS} job sections (fio's limit too)"),
            ));
        }
        self.count_options(src.origin, n, self.globals.len())?;
        let mut options = self.globals.clone();
        if std::mem::take(&mut src.stonewall) {
            options.push(FioOpt {
                key: "stonewall".into(),
                value: None,
                file: src.origin.to_string(),
                line: n,
            });
        }
        self.jobs.push(FioJob {
            name: name.to_string(),
            options,
            file: src.origin.to_string(),
            line: n,
        });
        Ok(Section::Job(self.jobs.len() - 1))
    }

    /// `include FILE`: its option lines go into the section in force.
    fn include(&mut self, src: &Source, n: usize, line: &str, at: Section) -> Result<(), JobError> {
        if at == Section::None {
            return Err(err_at(
                src.origin,
                n,
                format!("{line:?} is outside of any [section]; put it under [global] or a job"),
            ));
        }
        let name = line["include".len()..].trim();
        if src.depth + 1 > MAX_INCLUDE_DEPTH {
            return Err(err_at(
                src.origin,
                n,
                format!(
                "include {name} nests more than {MAX_INCLUDE_DEPTH} deep (does it include itself?)"
            ),
            ));
        }
        self.includes += 1;
        if self.includes > MAX_INCLUDES {
            return Err(err_at(
                src.origin,
                n,
                format!("more than {MAX_INCLUDES} includes in one job"),
            ));
        }
        let path = include_path(src.origin, name);
        let text = (self.read)(&path)
            .map_err(|e| err_at(src.origin, n, format!("include {name}: {e}")))?;
        let origin = path.display().to_string();
        self.count_bytes(text.len(), &origin)?;
        let mut inner = Source {
            origin: &origin,
            text: &text,
            depth: src.depth + 1,
            stonewall: false,
        };
        let mut inner_at = at;
        self.read(&mut inner, &mut inner_at)
    }

    /// An option line: variables filled, split at the first `=`.
    fn option(&mut self, origin: &str, n: usize, line: &str, at: Section) -> Result<(), JobError> {
        if at == Section::None {
            return Err(err_at(
                origin,
                n,
                format!(
                    "option {line:?} is outside of any [section]; put it under [global] or a job"
                ),
            ));
        }
        let line = self.expand(line).map_err(|e| err_at(origin, n, e))?;
        let (key, value) = match line.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v.trim().to_string())),
            None => (line.trim(), None),
        };
        if key.is_empty() {
            return Err(err_at(
                origin,
                n,
                format!("{line:?} has no option name before ="),
            ));
        }
        self.count_options(origin, n, 1)?;
        let opt = FioOpt {
            key: key.to_string(),
            value,
            file: origin.to_string(),
            line: n,
        };
        match at {
            Section::Global => self.globals.push(opt),
            Section::Job(j) => self.jobs[j].options.push(opt),
            Section::None => unreachable!("refused above"),
        }
        Ok(())
    }

    /// `${NAME}` from the arguments, then the environment, else nothing;
    /// then fio's built-in variables with their arithmetic.
    fn expand(&mut self, line: &str) -> Result<String, String> {
        let mut out = String::with_capacity(line.len());
        let mut rest = line;
        while let Some(at) = rest.find("${") {
            let Some(close) = rest[at..].find('}') else {
                break;
            };
            out.push_str(&rest[..at]);
            let name = &rest[at + 2..at + close];
            out.push_str(&self.lookup(name));
            rest = &rest[at + close + 1..];
            if out.len() > MAX_LINE {
                break;
            }
        }
        out.push_str(rest);
        if out.len() > MAX_LINE {
            return Err(format!(
                "the line is longer than {MAX_LINE} bytes once its variables are filled"
            ));
        }
        self.builtin_vars(out)
    }

    /// The value of `${name}`: the last `NAME=VALUE` argument, else the
    /// environment, else empty (as fio).
    fn lookup(&mut self, name: &str) -> String {
        if let Some(i) = self.vars.iter().rposition(|(k, _)| k == name) {
            self.used[i] = true;
            return self.vars[i].1.clone();
        }
        (self.env)(name).unwrap_or_default()
    }

    /// `$pagesize`, `$mb_memory`, `$ncpus`, and the arithmetic fio has
    /// `bc` do when one was replaced and the value has `+ - * /` (and no
    /// `'`).
    fn builtin_vars(&self, line: String) -> Result<String, String> {
        let b = self.builtins;
        let words = [
            ("$pagesize", b.pagesize),
            ("$mb_memory", b.mb_memory),
            ("$ncpus", b.ncpus),
        ];
        if !words.iter().any(|(w, _)| line.contains(w)) {
            return Ok(line);
        }
        let mut out = line;
        for (w, v) in words {
            out = out.replace(w, &v.to_string());
        }
        let Some((key, value)) = out.split_once('=') else {
            return Ok(out);
        };
        if !value.contains(['+', '-', '*', '/']) || value.contains('\'') {
            return Ok(out);
        }
        let v = values::eval_bc(value).map_err(|e| {
            format!("{key}={value}: fio computes a value with $ncpus, $mb_memory or $pagesize as whole-number arithmetic, and this is not: {e}")
        })?;
        Ok(format!("{key}={v}"))
    }
}

/// Where `include NAME` in the file `origin` reads from: NAME as written
/// if it exists, else relative to `origin`'s directory (as fio).
fn include_path(origin: &str, name: &str) -> PathBuf {
    let p = Path::new(name);
    if p.is_absolute() || p.exists() {
        return p.to_path_buf();
    }
    match Path::new(origin).parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(p),
        _ => p.to_path_buf(),
    }
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
