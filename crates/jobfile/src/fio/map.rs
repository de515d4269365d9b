//! fio options to iolab's job keys: one workload per job section, one run
//! per stonewall group. See the module documentation of [`crate::fio`]
//! and docs/fio.md.
//!
//! [`translate`] builds, for each job, a TOML table of iolab keys (what
//! an iolab job file would say) and its [`JobOrigin`]; [`map`]
//! deserialises those tables into [`WorkloadOptions`]. The submodules:
//! [`table`] classifies fio's options (mapped, ignored, unsupported, not
//! fio's at all; [`names`] lists fio's), [`job`] maps one job's I/O
//! options, [`files`] its files and the file-system engines, [`val`]
//! reads fio's values.

mod files;
mod job;
mod names;
mod table;
mod val;

use super::{FioFile, FioJob, FioOpt};
use crate::frontend::{InputFormat, LoadOptions, Loaded};
use crate::options::WorkloadOptions;
use crate::resolve::JobError;
use crate::runs::RunOptions;
use iolab_spec::JobOrigin;
use std::collections::{BTreeMap, BTreeSet};

/// The runs of a parsed fio file and the notes to print before them.
pub fn map(file: &FioFile, lo: &LoadOptions) -> Result<Loaded, JobError> {
    let t = translate(file, lo)?;
    let mut runs = Vec::with_capacity(t.runs.len());
    for (index, r) in t.runs.iter().enumerate() {
        let run = options_of(&r.run, "the run")?;
        let mut workloads = Vec::new();
        let mut origins = Vec::new();
        for (table, origin) in &r.workloads {
            workloads.push(options_of(table, &format!("job [{}]", origin.section))?);
            origins.push(Some(origin.clone()));
        }
        runs.push(RunOptions {
            index,
            single: false,
            run,
            workloads,
            overrides: WorkloadOptions::default(),
            origins,
        });
    }
    Ok(Loaded {
        format: InputFormat::Fio,
        runs,
        notes: t.notes,
    })
}

fn options_of(table: &toml::Table, what: &str) -> Result<WorkloadOptions, JobError> {
    toml::Value::Table(table.clone())
        .try_into()
        .map_err(|e: toml::de::Error| {
            JobError(format!(
                "fio {what} maps onto an iolab key this build does not have: {}",
                e.message().trim()
            ))
        })
}

/// A fio file translated into iolab's keys.
#[derive(Debug, Clone, Default)]
pub struct Translation {
    pub runs: Vec<RunTables>,
    pub notes: Vec<String>,
}

/// One run: its own keys (`warmup`, `interval`) and its workloads' keys.
#[derive(Debug, Clone, Default)]
pub struct RunTables {
    pub run: toml::Table,
    pub workloads: Vec<(toml::Table, JobOrigin)>,
}

impl Translation {
    /// The translation as an iolab job file, with each job's origin and
    /// the notes as comments (the golden text of the corpus tests).
    pub fn to_toml(&self) -> String {
        let mut out = String::new();
        for n in &self.notes {
            out.push_str(&format!("# note: {n}\n"));
        }
        for r in &self.runs {
            out.push_str("\n[[run]]\n");
            out.push_str(&toml::to_string(&r.run).unwrap_or_default());
            for (w, o) in &r.workloads {
                out.push_str(&format!(
                    "\n[[run.workload]]\n# fio [{}] group {}{}\n",
                    o.section,
                    o.group,
                    if o.group_reporting {
                        " group_reporting"
                    } else {
                        ""
                    }
                ));
                out.push_str(&toml::to_string(w).unwrap_or_default());
            }
        }
        out
    }
}

/// Notes printed once before the run.
#[derive(Debug, Default)]
pub(crate) struct Notes {
    lines: Vec<String>,
    /// Options accepted and ignored, with why.
    ignored: BTreeMap<String, &'static str>,
}

impl Notes {
    pub fn once(&mut self, s: impl Into<String>) {
        let s = s.into();
        if !self.lines.contains(&s) {
            self.lines.push(s);
        }
    }

    fn finish(mut self) -> Vec<String> {
        if !self.ignored.is_empty() {
            let list: Vec<String> = self
                .ignored
                .iter()
                .map(|(k, why)| format!("{k} ({why})"))
                .collect();
            self.lines
                .push(format!("accepted and ignored: {}", list.join(", ")));
        }
        self.lines
    }
}

/// A job being mapped: its options (the last of each, by fio's
/// canonical name), its unique name and what the user asked.
pub(crate) struct Job<'a> {
    pub fio: &'a FioJob,
    /// The workload's name: the section's, made unique (`t`, `t-2`).
    pub name: String,
    last: BTreeMap<&'static str, &'a FioOpt>,
    /// fio's `kb_base`.
    pub kb: u64,
    pub lo: &'a LoadOptions,
}

impl<'a> Job<'a> {
    pub fn opt(&self, key: &str) -> Option<&'a FioOpt> {
        self.last.get(key).copied()
    }

    /// The value as written ("" for a bare option).
    pub fn val(&self, key: &str) -> Option<&'a str> {
        self.opt(key)
            .map(|o| o.value.as_deref().unwrap_or("").trim())
    }

    /// A bad value: one line naming the option, the file and line.
    pub fn bad(&self, key: &str, msg: &str) -> JobError {
        match self.opt(key) {
            Some(o) => JobError(format!(
                "{}: {}={}: {msg} (job [{}])",
                o.place(),
                o.key,
                o.value.as_deref().unwrap_or(""),
                self.fio.name
            )),
            None => JobError(format!(
                "{}: job [{}]: {msg}",
                place(&self.fio.file, self.fio.line),
                self.fio.name
            )),
        }
    }

    pub fn flag(&self, key: &str) -> Result<Option<bool>, JobError> {
        match self.opt(key) {
            None => Ok(None),
            Some(o) => val::boolean(o.value.as_deref())
                .map(Some)
                .map_err(|m| self.bad(key, &m)),
        }
    }

    pub fn size(&self, key: &str) -> Result<Option<u64>, JobError> {
        self.val(key)
            .map(|v| val::size(v, self.kb).map_err(|m| self.bad(key, &m)))
            .transpose()
    }

    pub fn uint(&self, key: &str) -> Result<Option<u64>, JobError> {
        self.val(key)
            .map(|v| val::uint(v).map_err(|m| self.bad(key, &m)))
            .transpose()
    }

    /// A time in µs; a bare number in `default_us` units.
    pub fn time(&self, key: &str, default_us: u64) -> Result<Option<u64>, JobError> {
        self.val(key)
            .map(|v| val::time_us(v, default_us).map_err(|m| self.bad(key, &m)))
            .transpose()
    }

    /// A value iolab cannot honour: an error, or with
    /// `--ignore-unsupported` a note and `Ok`.
    pub fn unsupported(&self, key: &str, why: &str, notes: &mut Notes) -> Result<(), JobError> {
        let e = self.bad(key, &format!("iolab does not support this: {why}"));
        if self.lo.ignore_unsupported {
            notes.once(format!("passed over: {}", e.0));
            Ok(())
        } else {
            Err(JobError(format!(
                "{}; --ignore-unsupported runs without it",
                e.0
            )))
        }
    }
}

fn place(file: &str, line: usize) -> String {
    if line == 0 {
        file.to_string()
    } else {
        format!("{file}:{line}")
    }
}

/// Check every option of a job: fio's and known to iolab, or stop.
fn check_options<'a>(
    job: &'a FioJob,
    lo: &LoadOptions,
    notes: &mut Notes,
) -> Result<BTreeMap<&'static str, &'a FioOpt>, JobError> {
    let mut last = BTreeMap::new();
    for o in &job.options {
        let key = table::canonical(&o.key);
        match table::classify(key) {
            table::Class::Mapped => {
                // Keys of the table are 'static: find the interned one.
                let k = table::MAPPED
                    .iter()
                    .find(|m| **m == key)
                    .copied()
                    .unwrap_or("");
                last.insert(k, o);
            }
            table::Class::Ignored(why) => {
                notes.ignored.insert(o.key.clone(), why);
            }
            table::Class::Unsupported(why) => {
                let msg = format!(
                    "{}: iolab does not support {}: {why} (job [{}])",
                    o.place(),
                    o.key,
                    job.name
                );
                if lo.ignore_unsupported {
                    notes.once(format!("passed over: {msg}"));
                } else {
                    return Err(JobError(format!(
                        "{msg}; --ignore-unsupported runs without it"
                    )));
                }
            }
            table::Class::NotFio => {
                return Err(JobError(format!(
                    "{}: {} is not a fio option (job [{}]); check its spelling",
                    o.place(),
                    o.key,
                    job.name
                )));
            }
        }
    }
    Ok(last)
}

/// One job mapped: its keys, the run keys it asks for, its origin.
pub(crate) struct Mapped {
    pub keys: toml::Table,
    /// `ramp_time` (µs) and `log_avg_msec` (µs): the run's.
    pub warmup_us: Option<u64>,
    pub interval_us: Option<u64>,
}

/// Translate a parsed fio file into iolab's keys, run by run.
pub fn translate(file: &FioFile, lo: &LoadOptions) -> Result<Translation, JobError> {
    let mut notes = Notes::default();
    for s in &lo.sections {
        if !file.jobs.iter().any(|j| &j.name == s) {
            return Err(JobError(format!(
                "--section {s}: no job section of that name"
            )));
        }
    }
    let jobs: Vec<&FioJob> = file
        .jobs
        .iter()
        .filter(|j| lo.sections.is_empty() || lo.sections.contains(&j.name))
        .collect();
    if jobs.is_empty() {
        return Err(JobError(
            "the fio job file has no job section; add one, e.g. [job1]".into(),
        ));
    }
    let mut used = BTreeSet::new();
    let mut out = Translation::default();
    let mut run = RunTables::default();
    let (mut group, mut in_group) = (0u32, 0usize);
    let (mut warmup, mut interval): (Option<u64>, Option<u64>) = (None, None);
    let mut prev_file: Option<&str> = None;
    for fj in jobs {
        let last = check_options(fj, lo, &mut notes)?;
        let name = unique_name(fj, &last, &mut used);
        let kb = match last.get("kb_base").and_then(|o| o.value.as_deref()) {
            None => 1024,
            Some(v) if v.trim() == "1024" => 1024,
            Some(v) if v.trim() == "1000" => 1000,
            Some(_) => {
                let o = last["kb_base"];
                return Err(JobError(format!(
                    "{}: kb_base={}: fio takes 1024 or 1000 (job [{}])",
                    o.place(),
                    o.value.as_deref().unwrap_or(""),
                    fj.name
                )));
            }
        };
        let job = Job {
            fio: fj,
            name,
            last,
            kb,
            lo,
        };
        // Each job file after the first starts with a stonewall (fio);
        // `iolab fio`'s command line is no job file: its jobs run with the
        // first file's, as in fio.
        let new_file = prev_file.is_some_and(|p| p != fj.file && p != "command line");
        prev_file = Some(&fj.file);
        let stonewall = job.flag("stonewall")?.unwrap_or(false) || new_file;
        let new_group = job.flag("new_group")?.unwrap_or(false);
        if (stonewall || new_group) && in_group > 0 {
            group += 1;
            in_group = 0;
        }
        in_group += 1;
        if stonewall && !run.workloads.is_empty() {
            close_run(&mut run, &mut warmup, &mut interval, &mut notes);
            out.runs.push(std::mem::take(&mut run));
        }
        let m = job::map_job(&job, &mut notes)?;
        merge_run_key(&mut warmup, m.warmup_us, "ramp_time", true, &mut notes);
        merge_run_key(
            &mut interval,
            m.interval_us,
            "log_avg_msec",
            false,
            &mut notes,
        );
        let origin = JobOrigin {
            format: "fio".into(),
            file: (fj.line != 0).then(|| fj.file.clone()),
            section: fj.name.clone(),
            options: fj
                .options
                .iter()
                .map(|o| (o.key.clone(), o.value.clone().unwrap_or_default()))
                .collect(),
            group,
            group_reporting: job.flag("group_reporting")?.unwrap_or(false),
        };
        run.workloads.push((m.keys, origin));
    }
    close_run(&mut run, &mut warmup, &mut interval, &mut notes);
    out.runs.push(run);
    for v in &file.unused_vars {
        notes.once(format!("{v} was given but no job uses ${{{v}}}"));
    }
    out.notes = notes.finish();
    Ok(out)
}

/// The run's `warmup` and `interval` from its jobs' (one clock per run:
/// the longest ramp, the shortest log average).
fn merge_run_key(
    cur: &mut Option<u64>,
    new: Option<u64>,
    key: &str,
    longest: bool,
    notes: &mut Notes,
) {
    let Some(n) = new else { return };
    match *cur {
        Some(c) if c != n => {
            notes.once(format!(
                "jobs that run together share one clock in iolab: their {key} differ, the {} is used",
                if longest { "longest" } else { "shortest" }
            ));
            *cur = Some(if longest { c.max(n) } else { c.min(n) });
        }
        _ => *cur = Some(n),
    }
}

fn close_run(
    run: &mut RunTables,
    warmup: &mut Option<u64>,
    interval: &mut Option<u64>,
    _notes: &mut Notes,
) {
    if let Some(w) = warmup.take() {
        run.run
            .insert("warmup".into(), toml::Value::String(val::fmt_us(w)));
    }
    if let Some(i) = interval.take() {
        run.run
            .insert("interval".into(), toml::Value::String(val::fmt_us(i)));
    }
}

/// The section's name (or its `name=`), made unique as fio users would:
/// `t`, `t-2`, `t-3` (fio allows repeated names; iolab's are unique).
fn unique_name(
    job: &FioJob,
    last: &BTreeMap<&'static str, &FioOpt>,
    used: &mut BTreeSet<String>,
) -> String {
    let base = last
        .get("name")
        .and_then(|o| o.value.clone())
        .unwrap_or_else(|| job.name.clone());
    let mut n = 1;
    loop {
        let candidate = if n == 1 {
            base.clone()
        } else {
            format!("{base}-{n}")
        };
        if used.insert(candidate.clone()) {
            return candidate;
        }
        n += 1;
    }
}
