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

mod coupling;
mod files;
mod integrity;
mod job;
mod names;
mod table;
pub(crate) mod val;

use super::{FioFile, FioJob, FioOpt};
pub(crate) use crate::frontend::tables::Notes;
use crate::frontend::tables::{runs_of, unique};
pub use crate::frontend::tables::{RunTables, Translation};
use crate::frontend::{InputFormat, LoadOptions, Loaded};
use crate::resolve::JobError;
use iolab_spec::JobOrigin;
use std::collections::{BTreeMap, BTreeSet};

/// The runs of a parsed fio file and the notes to print before them.
pub fn map(file: &FioFile, lo: &LoadOptions) -> Result<Loaded, JobError> {
    let t = translate(file, lo)?;
    let runs = runs_of(
        &t,
        |_| "fio the run".to_string(),
        |o| format!("fio job [{}]", o.section),
    )?;
    Ok(Loaded {
        format: InputFormat::Fio,
        runs,
        notes: t.notes,
        hosts: Vec::new(),
    })
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
                "{}: {}: {msg} (job [{}])",
                o.place(),
                written(o),
                self.fio.name
            )),
            None => JobError(format!(
                "{}: job [{}]: {msg}",
                place(&self.fio.file, self.fio.line),
                self.fio.name
            )),
        }
    }

    /// The `kb_base` that reads option `key`'s sizes: fio reads each
    /// section's options with the base in force there, so a job's own
    /// `kb_base` does not change the sizes of the `[global]` options it
    /// inherits (they come first in its options; its own follow its header).
    pub fn kb_of(&self, key: &str) -> u64 {
        let own = |o: &FioOpt| o.file == self.fio.file && o.line > self.fio.line;
        let Some(opt) = self.opt(key) else {
            return self.kb;
        };
        if own(opt) {
            return self.kb;
        }
        let global_kb = self
            .fio
            .options
            .iter()
            .rev()
            .filter(|o| !own(o) && table::canonical(&o.key) == "kb_base")
            .find_map(|o| o.value.as_deref());
        match global_kb.map(str::trim) {
            Some("1000") => 1000,
            _ => 1024,
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
            .map(|v| val::size(v, self.kb_of(key)).map_err(|m| self.bad(key, &m)))
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
        let at = self
            .opt(key)
            .map(|o| (o.place(), written(o)))
            .unwrap_or_else(|| (place(&self.fio.file, self.fio.line), key.to_string()));
        let msg = format!(
            "{}: iolab does not support {}: {why} (job [{}])",
            at.0, at.1, self.fio.name
        );
        if self.lo.ignore_unsupported {
            notes.once(format!("passed over: {msg}"));
            Ok(())
        } else {
            Err(JobError(format!(
                "{msg}; --ignore-unsupported runs without it"
            )))
        }
    }
}

/// `key=value` as written, or `key` for a bare option.
fn written(o: &FioOpt) -> String {
    match &o.value {
        Some(v) => format!("{}={v}", o.key),
        None => o.key.clone(),
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
                notes.ignore(&o.key, why);
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

/// The jobs `--section` keeps (all without it).
fn selected<'f>(file: &'f FioFile, lo: &LoadOptions) -> Result<Vec<&'f FioJob>, JobError> {
    for s in &lo.sections {
        if !file.jobs.iter().any(|j| &j.name == s) {
            let names: Vec<&str> = file.jobs.iter().map(|j| j.name.as_str()).collect();
            return Err(JobError(format!(
                "--section {s}: the job file has no such section; its sections are {}",
                names.join(", ")
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
    Ok(jobs)
}

/// The job's own `kb_base` (1024 unless given).
fn job_kb(fj: &FioJob, last: &BTreeMap<&'static str, &FioOpt>) -> Result<u64, JobError> {
    match last.get("kb_base").and_then(|o| o.value.as_deref()) {
        None => Ok(1024),
        Some(v) if v.trim() == "1024" => Ok(1024),
        Some(v) if v.trim() == "1000" => Ok(1000),
        Some(_) => {
            let o = last["kb_base"];
            Err(JobError(format!(
                "{}: kb_base={}: fio takes 1024 or 1000 (job [{}])",
                o.place(),
                o.value.as_deref().unwrap_or(""),
                fj.name
            )))
        }
    }
}

/// Where the workload came from: fio's section as written.
fn origin_of(job: &Job, group: u32) -> Result<JobOrigin, JobError> {
    let fj = job.fio;
    Ok(JobOrigin {
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
    })
}

/// Translate a parsed fio file into iolab's keys, run by run.
pub fn translate(file: &FioFile, lo: &LoadOptions) -> Result<Translation, JobError> {
    let mut notes = Notes::default();
    let jobs = selected(file, lo)?;
    let mut used = BTreeSet::new();
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Translation::default();
    let mut run = RunTables::default();
    let (mut group, mut in_group) = (0u32, 0usize);
    let (mut warmup, mut interval): (Option<u64>, Option<u64>) = (None, None);
    for fj in jobs {
        let last = check_options(fj, lo, &mut notes)?;
        let name = unique_name(fj, &last, &mut used);
        let kb = job_kb(fj, &last)?;
        let job = Job {
            fio: fj,
            name,
            last,
            kb,
            lo,
        };
        // (Each job file after the first starts with a stonewall: the
        // parser writes it into that file's first job.)
        let stonewall = job.flag("stonewall")?.unwrap_or(false);
        let new_group = job.flag("new_group")?.unwrap_or(false);
        if (stonewall || new_group) && in_group > 0 {
            group += 1;
            in_group = 0;
        }
        in_group += 1;
        let waits = wait_for(&job, &seen, &mut notes)?;
        seen.push(fj.name.as_str());
        if (stonewall || waits) && !run.workloads.is_empty() {
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
        let origin = origin_of(&job, group)?;
        run.workloads.push((m.keys, origin));
    }
    close_run(&mut run, &mut warmup, &mut interval, &mut notes);
    out.runs.push(run);
    coupling::exitall_everywhere(&mut out.runs);
    for v in &file.unused_vars {
        notes.once(format!("{v} was given but no job uses ${{{v}}}"));
    }
    out.notes = notes.finish();
    Ok(out)
}

/// `wait_for=NAME`: the job starts when the job NAME has ended. iolab
/// starts it with the next run, after every job before it (as
/// `stonewall` does, without starting a new reporting group).
fn wait_for(job: &Job, seen: &[&str], notes: &mut Notes) -> Result<bool, JobError> {
    let Some(name) = job.val("wait_for") else {
        return Ok(false);
    };
    if !seen.contains(&name) {
        return Err(job.bad(
            "wait_for",
            "names no job section before this one (fio waits only for an earlier job)",
        ));
    }
    notes.once("wait_for=JOB: iolab starts the job in a run of its own, after all the jobs before it (as stonewall), not only after JOB");
    Ok(true)
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
    unique(&base, used, |b, n| format!("{b}-{n}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(name: &str, opts: &[(&str, Option<&str>)]) -> FioJob {
        FioJob {
            name: name.into(),
            options: opts
                .iter()
                .enumerate()
                .map(|(i, (k, v))| FioOpt {
                    key: k.to_string(),
                    value: v.map(str::to_string),
                    file: "t.fio".into(),
                    line: i + 2,
                })
                .collect(),
            file: "t.fio".into(),
            line: 1,
        }
    }

    fn file(jobs: Vec<FioJob>) -> FioFile {
        FioFile {
            jobs,
            unused_vars: vec!["X".into()],
        }
    }

    const F: (&str, Option<&str>) = ("filename", Some("/tmp/iolab-fio-unit"));

    #[test]
    fn groups_number_as_fio_and_origins_keep_the_options() {
        let f = file(vec![
            job("a", &[F, ("new_group", None), ("group_reporting", None)]),
            job("a", &[F]),
            job("b", &[F, ("new_group", None)]),
            job("c", &[F, ("stonewall", Some("1"))]),
            job("d", &[F, ("wait_for_previous", None), ("new_group", None)]),
        ]);
        let t = translate(&f, &LoadOptions::default()).unwrap();
        let groups: Vec<Vec<(u32, String)>> = t
            .runs
            .iter()
            .map(|r| {
                r.workloads
                    .iter()
                    .map(|(w, o)| (o.group, w["name"].as_str().unwrap().to_string()))
                    .collect()
            })
            .collect();
        // new_group on the first job starts no group (fio counts a group
        // only after a job); a stonewall and new_group together, one.
        assert_eq!(
            groups,
            vec![
                vec![(0, "a".into()), (0, "a-2".into()), (1, "b".into())],
                vec![(2, "c".into())],
                vec![(3, "d".into())],
            ]
        );
        let o = &t.runs[0].workloads[0].1;
        assert!(o.group_reporting && o.format == "fio" && o.section == "a");
        assert_eq!(o.option("new_group"), Some(""));
        assert_eq!(o.file.as_deref(), Some("t.fio"));
        assert!(t.notes.iter().any(|n| n.contains("${X}")), "{:?}", t.notes);
    }

    #[test]
    fn sections_readonly_and_ignore_unsupported() {
        let f = file(vec![
            job("r", &[F, ("rw", Some("read"))]),
            job(
                "w",
                &[F, ("rw", Some("randwrite")), ("trim_percentage", Some("5"))],
            ),
        ]);
        let lo = LoadOptions {
            sections: vec!["r".into()],
            readonly: true,
            ..Default::default()
        };
        let t = translate(&f, &lo).unwrap();
        assert_eq!(t.runs[0].workloads.len(), 1);
        let lo = LoadOptions {
            readonly: true,
            ignore_unsupported: true,
            ..Default::default()
        };
        let e = translate(&f, &lo).unwrap_err().0;
        assert!(e.contains("t.fio:3") && e.contains("--readonly"), "{e}");
        let e = translate(&f, &LoadOptions::default()).unwrap_err().0;
        assert!(
            e.contains("t.fio:4") && e.contains("trim_percentage"),
            "{e}"
        );
        let lo = LoadOptions {
            ignore_unsupported: true,
            ..Default::default()
        };
        let t = translate(&f, &lo).unwrap();
        assert!(t
            .notes
            .iter()
            .any(|n| n.contains("passed over") && n.contains("trim_percentage")));
    }

    #[test]
    fn a_device_gets_no_permission_to_destroy() {
        let f = file(vec![job(
            "dev",
            &[
                ("filename", Some("/dev/sdb")),
                ("rw", Some("write")),
                ("allow_mounted_write", None),
            ],
        )]);
        let t = translate(&f, &LoadOptions::default()).unwrap();
        let w = &t.runs[0].workloads[0].0;
        assert!(!w.contains_key("destroy_data_on"));
        assert_eq!(w["allow_mounted_write"].as_bool(), Some(true));
        let l = map(&f, &LoadOptions::default()).unwrap();
        assert!(l.runs[0].workloads[0].destroy_data_on.is_empty());
    }

    #[test]
    fn huge_values_are_refused_or_saturate_never_panic() {
        let huge: &[(&str, Option<&str>)] = &[
            F,
            ("rw", Some("randrw")),
            ("numjobs", Some("4096")),
            ("nrfiles", Some("16")),
            ("size", Some("16383p")),
            ("offset", Some("16383p")),
            ("offset_increment", Some("16383p")),
            ("io_size", Some("16383p")),
            ("loops", Some("18446744073709551615")),
            ("number_ios", Some("18446744073709551615")),
            ("log_avg_msec", Some("18446744073709551615")),
            ("rate", Some("16383p,1")),
            ("rate_iops", Some("18446744073709551615")),
            ("bssplit", Some("1/1:16383p/99")),
            ("thinktime", Some("18446744073709551615")),
            ("ramp_time", Some("10000000d")),
        ];
        for n in 1..=huge.len() {
            let f = file(vec![job("h", &huge[..n])]);
            // Either a plan or one line; never a panic.
            if let Err(e) = translate(&f, &LoadOptions::default()) {
                assert!(!e.0.contains('\n'), "{e}");
            }
        }
    }
}
