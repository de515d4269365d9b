//! Job files in other tools' languages: which format a file is, and
//! loading it into the runs iolab plans (the same [`RunOptions`] an iolab
//! job file gives), with the notes to print before it runs.
//!
//! One entry point, [`load`], for `iolab run FILE` (format recognised by
//! content, or forced with `--input-format`) and `iolab fio` (which builds
//! its job text from fio's command line and calls [`load_text`]).

use crate::resolve::JobError;
use crate::runs::RunOptions;
use std::path::Path;

pub mod tables;

/// The language of a job file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    /// iolab's own TOML (docs/jobfile.md).
    Iolab,
    /// A fio job file (INI; docs/fio.md).
    Fio,
    /// A vdbench parameter file (docs/vdbench.md).
    Vdbench,
    /// A filebench workload file in WML (docs/filebench.md).
    Filebench,
}

impl InputFormat {
    /// The names `--input-format` takes.
    pub const NAMES: &'static [&'static str] = &["iolab", "fio", "vdbench", "filebench"];

    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Iolab => "iolab",
            InputFormat::Fio => "fio",
            InputFormat::Vdbench => "vdbench",
            InputFormat::Filebench => "filebench",
        }
    }

    /// `--input-format NAME` (`toml` is iolab's).
    pub fn from_name(name: &str) -> Result<InputFormat, JobError> {
        match name {
            "iolab" | "toml" => Ok(InputFormat::Iolab),
            "fio" => Ok(InputFormat::Fio),
            "vdbench" => Ok(InputFormat::Vdbench),
            "filebench" | "wml" => Ok(InputFormat::Filebench),
            other => Err(JobError(format!(
                "--input-format {other} is not known; use {}",
                InputFormat::NAMES.join(", ")
            ))),
        }
    }
}

/// How to load a job file: what `iolab run` / `iolab fio` were given
/// besides the file.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// `--input-format`: `None` recognises the format by content.
    pub format: Option<InputFormat>,
    /// `NAME=VALUE` arguments, in order: they fill `${NAME}` before the
    /// environment does.
    pub vars: Vec<(String, String)>,
    /// `--ignore-unsupported`: options iolab cannot honour are listed in
    /// the notes instead of stopping the job.
    pub ignore_unsupported: bool,
    /// fio `--section NAME` (repeatable): only these sections run.
    pub sections: Vec<String>,
    /// fio `--readonly`: a job that writes is refused before any I/O.
    pub readonly: bool,
    /// `--vdbench-flags "-v -jn"`: vdbench's command-line flags of a
    /// parameter file's run, one token each (data validation and journal).
    pub vdbench_flags: Vec<String>,
}

/// A job file loaded: the runs to plan (one per fio stonewall group, its
/// jobs that run's workloads, each with its `origins` entry) and the
/// notes to print once on stdout before the first run (the engine
/// mapping, options accepted and ignored, `NAME=VALUE` pairs no job used,
/// unsupported options passed over with `--ignore-unsupported`).
#[derive(Debug, Clone)]
pub struct Loaded {
    pub format: InputFormat,
    pub runs: Vec<RunOptions>,
    pub notes: Vec<String>,
    /// The hosts the job names (iolab's top-level `hosts`, vdbench's
    /// `hd=`): a multi-host run (docs/multi-host.md); empty for a run on
    /// this host alone. `--hosts` replaces them.
    pub hosts: Vec<iolab_spec::HostSpec>,
}

/// The format of a job file's text, tried in this order: filebench's
/// WML (`set $var`, `define ...`, `run`), vdbench's parameter file
/// (`sd=`, `wd=`, `rd=`, `fsd=`, `fwd=`, `hd=`, its general keys), fio's
/// when its first section header or option line is INI (`[name]` then
/// `key=value` or a bare key), iolab's otherwise (TOML: `[global]` with
/// `key = "value"`, `[[workload]]`, `[[run]]`).
pub fn detect(text: &str) -> InputFormat {
    if crate::filebench::looks_like_filebench(text) {
        InputFormat::Filebench
    } else if crate::vdbench::looks_like_vdbench(text) {
        InputFormat::Vdbench
    } else if crate::fio::looks_like_fio(text) {
        InputFormat::Fio
    } else {
        InputFormat::Iolab
    }
}

/// Load the job file at `path` (format by `lo.format` or by content).
pub fn load(path: &Path, lo: &LoadOptions) -> Result<Loaded, JobError> {
    let text = crate::resolve::read_job_text(path)?;
    let origin = path.display().to_string();
    let format = lo.format.unwrap_or_else(|| detect(&text));
    match format {
        InputFormat::Iolab => {
            if !lo.vars.is_empty() {
                let names: Vec<&str> = lo.vars.iter().map(|(k, _)| k.as_str()).collect();
                return Err(JobError(format!(
                    "{origin} is an iolab job file, which has no variables; drop {}",
                    names.join(", ")
                )));
            }
            let job = crate::resolve::parse_job_text(&text, &origin)?;
            let runs = job
                .runs()
                .map_err(|e| JobError(format!("job file {origin}: {}", e.0)))?;
            let hosts = job
                .hosts()
                .map_err(|e| JobError(format!("job file {origin}: {}", e.0)))?;
            Ok(Loaded {
                format,
                runs,
                notes: Vec::new(),
                hosts,
            })
        }
        InputFormat::Fio => load_text(&[(origin, text)], lo),
        InputFormat::Vdbench => crate::vdbench::load(&origin, &text, lo),
        InputFormat::Filebench => crate::filebench::load(&origin, &text, lo),
    }
}

/// Load fio job text: each `(origin, text)` is one job file (origin is
/// its path, or `command line`), in order, as fio reads several.
pub fn load_text(files: &[(String, String)], lo: &LoadOptions) -> Result<Loaded, JobError> {
    let parsed = crate::fio::parse::parse_files(files, &lo.vars)?;
    crate::fio::map::map(&parsed, lo)
}

/// The `NAME=VALUE` arguments after a job file, in order.
pub fn parse_vars(args: &[String]) -> Result<Vec<(String, String)>, String> {
    args.iter()
        .map(|a| {
            let pair = a.split_once('=').filter(|(n, _)| is_var_name(n));
            match pair {
                Some((n, v)) => Ok((n.to_string(), v.to_string())),
                None if a == "true" || a == "false" => Err(format!(
                    "'{a}' after the job file is not NAME=VALUE; flags that take true or false need '=' (--direct={a}, --prefill={a})"
                )),
                None => Err(format!(
                    "'{a}' after the job file is not NAME=VALUE (a name of letters, digits and '_', then '='); give one job file, then the values of its ${{NAME}} variables"
                )),
            }
        })
        .collect()
}

/// A variable's name as fio's `${NAME}` reads it.
fn is_var_name(n: &str) -> bool {
    n.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}
