//! What the front ends (fio, vdbench, filebench) share once they have
//! translated a file into iolab's job keys: the translation as tables
//! ([`Translation`], [`RunTables`], printed by [`Translation::to_toml`]
//! as the golden text of the corpus tests), the tables deserialised into
//! [`RunOptions`] ([`runs_of`], [`options_of`]), the notes printed before
//! the runs ([`Notes`]) and unique names ([`unique`]).

use crate::options::WorkloadOptions;
use crate::resolve::JobError;
use crate::runs::RunOptions;
use iolab_spec::{CurveSpec, JobOrigin};
use std::collections::{BTreeMap, BTreeSet};

/// A file translated into iolab's keys, run by run.
#[derive(Debug, Clone, Default)]
pub struct Translation {
    pub runs: Vec<RunTables>,
    pub notes: Vec<String>,
    /// The hosts the file names (vdbench's `hd=`): shown as comments.
    pub hosts: Vec<iolab_spec::HostSpec>,
}

/// One run: its name (a front end that names runs), its own keys, its
/// pause and curve, and its workloads' keys with their origins.
#[derive(Debug, Clone, Default)]
pub struct RunTables {
    pub name: String,
    pub run: toml::Table,
    pub pause_s: Option<f64>,
    pub curve: Option<CurveSpec>,
    pub workloads: Vec<(toml::Table, JobOrigin)>,
}

/// A number as the golden text shows it: `10`, `12.5`.
fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        let t = format!("{v:.6}");
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A workload's origin as a comment line: `# fio [job] group 0` or
/// `# vdbench rd1/wd1/sd1`.
fn origin_comment(o: &JobOrigin) -> String {
    if o.format == "fio" {
        format!(
            "# fio [{}] group {}{}",
            o.section,
            o.group,
            if o.group_reporting {
                " group_reporting"
            } else {
                ""
            }
        )
    } else {
        format!("# {} {}", o.format, o.section)
    }
}

impl Translation {
    /// The translation as an iolab job file, with each run's pause and
    /// curve, each workload's origin and the notes as comments (the
    /// golden text of the corpus tests).
    pub fn to_toml(&self) -> String {
        let mut out = String::new();
        for n in &self.notes {
            out.push_str(&format!("# note: {n}\n"));
        }
        if !self.hosts.is_empty() {
            out.push_str(&format!("# {}\n", crate::hosts::describe(&self.hosts, &[])));
        }
        for r in &self.runs {
            out.push_str("\n[[run]]\n");
            if let Some(p) = r.pause_s {
                out.push_str(&format!("# pause {}s\n", fmt_num(p)));
            }
            if let Some(c) = &r.curve {
                let pcts: Vec<String> = c.pcts.iter().map(|p| fmt_num(*p)).collect();
                out.push_str(&format!("# curve {}", pcts.join(",")));
                if let Some(s) = c.stop_ms {
                    out.push_str(&format!(" stop {}ms", fmt_num(s)));
                }
                out.push('\n');
            }
            out.push_str(&toml::to_string(&r.run).unwrap_or_default());
            for (w, o) in &r.workloads {
                out.push_str(&format!("\n[[run.workload]]\n{}\n", origin_comment(o)));
                out.push_str(&toml::to_string(w).unwrap_or_default());
            }
        }
        out
    }
}

/// A table of iolab keys as options; `what` says where it came from
/// (`fio job [x]`, `vdbench run rd1`, `t.f:`).
pub fn options_of(table: &toml::Table, what: &str) -> Result<WorkloadOptions, JobError> {
    toml::Value::Table(table.clone())
        .try_into()
        .map_err(|e: toml::de::Error| {
            JobError(format!(
                "{what} maps onto an iolab key this build does not have: {}",
                e.message().trim()
            ))
        })
}

/// The runs of a translation; `run_what` and `workload_what` say where a
/// run's and a workload's keys came from, for [`options_of`].
pub fn runs_of(
    t: &Translation,
    run_what: impl Fn(&RunTables) -> String,
    workload_what: impl Fn(&JobOrigin) -> String,
) -> Result<Vec<RunOptions>, JobError> {
    let mut runs = Vec::with_capacity(t.runs.len());
    for (index, r) in t.runs.iter().enumerate() {
        let run = options_of(&r.run, &run_what(r))?;
        let mut workloads = Vec::new();
        let mut origins = Vec::new();
        for (table, origin) in &r.workloads {
            workloads.push(options_of(table, &workload_what(origin))?);
            origins.push(Some(origin.clone()));
        }
        runs.push(RunOptions {
            index,
            single: false,
            run,
            workloads,
            overrides: WorkloadOptions::default(),
            origins,
            pause_s: r.pause_s,
            curve: r.curve.clone(),
        });
    }
    Ok(runs)
}

/// Notes printed once before the runs.
#[derive(Debug, Default)]
pub struct Notes {
    lines: Vec<String>,
    /// Options accepted and ignored, with why.
    ignored: BTreeMap<String, String>,
}

impl Notes {
    /// A note, once however often it is given.
    pub fn once(&mut self, s: impl Into<String>) {
        let s = s.into();
        if !self.lines.contains(&s) {
            self.lines.push(s);
        }
    }

    /// An option accepted and ignored, and why (listed in one note).
    pub fn ignore(&mut self, key: &str, why: &str) {
        self.ignored.insert(key.to_string(), why.to_string());
    }

    /// The notes, the options ignored last in one line.
    pub fn finish(mut self) -> Vec<String> {
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

/// `base` if no name in `used` is, else the first of `again(base, 2)`,
/// `again(base, 3)`, ... that is not; the name returned is added to `used`.
pub fn unique(
    base: &str,
    used: &mut BTreeSet<String>,
    again: impl Fn(&str, u32) -> String,
) -> String {
    let mut n = 1;
    loop {
        let c = if n == 1 {
            base.to_string()
        } else {
            again(base, n)
        };
        if used.insert(c.clone()) {
            return c;
        }
        n += 1;
    }
}
