//! A [`VdbFile`] into iolab's runs (docs/vdbench.md): one run per run
//! definition and point of its `for*` loops, in vdbench's order
//! ([`loops`]); raw workloads from `sd`/`wd` ([`raw`]), file-system
//! workloads from `fsd`/`fwd` ([`fs`]); the general parameters and
//! `--vdbench-flags` ([`general`]); values ([`num`]).
//!
//! [`translate`] builds, per run, a TOML table of iolab's run keys and
//! one per workload (what an iolab job file would say) with its
//! [`JobOrigin`]; [`map`] deserialises them into [`RunOptions`], as the
//! fio front end does.

pub mod fs;
mod general;
mod hosts;
mod loops;
mod num;
mod raw;

use super::{DefKind, VdbDef, VdbFile, VdbParam};
use crate::frontend::tables::{runs_of, unique};
pub use crate::frontend::tables::{Notes, RunTables, Translation};
use crate::frontend::{InputFormat, LoadOptions, Loaded};
use crate::resolve::JobError;
use iolab_spec::{CurveSpec, JobOrigin};
use std::collections::BTreeSet;
use toml::Value;

pub use loops::MAX_RUNS;

/// The runs of a parameter file and the notes to print before them.
pub fn map(file: &VdbFile, lo: &LoadOptions) -> Result<Loaded, JobError> {
    let t = translate(file, lo)?;
    let runs = runs_of(
        &t,
        |r| format!("vdbench run {}", r.name),
        |o| format!("vdbench {}", o.section),
    )?;
    Ok(Loaded {
        format: InputFormat::Vdbench,
        runs,
        notes: t.notes,
        hosts: t.hosts,
    })
}

/// Whether `name` matches vdbench's wildcard `pat` (`*` is any text).
fn wildcard(pat: &str, name: &str) -> bool {
    match pat.split_once('*') {
        None => pat == name,
        Some((head, tail)) => {
            let Some(rest) = name.strip_prefix(head) else {
                return false;
            };
            (0..=rest.len())
                .filter(|&i| rest.is_char_boundary(i))
                .any(|i| wildcard(tail, &rest[i..]))
        }
    }
}

/// The definitions of `kind` a list such as `wd=(wd1,wd*)` names, in the
/// list's order, each once; a name that matches none is refused.
pub(crate) fn select<'f>(
    file: &'f VdbFile,
    kind: DefKind,
    list: &VdbParam,
    user: &str,
) -> Result<Vec<&'f VdbDef>, JobError> {
    let mut out: Vec<&VdbDef> = Vec::new();
    for pat in &list.values {
        let pat = pat.trim();
        let found: Vec<&VdbDef> = file
            .of(kind)
            .filter(|d| d.name != "default" && wildcard(pat, &d.name))
            .collect();
        if found.is_empty() {
            let names: Vec<&str> = file.of(kind).map(|d| d.name.as_str()).collect();
            return Err(JobError(format!(
                "{}: {user}: {}={pat} names no {} definition (there are: {})",
                list.place(),
                list.key,
                kind.keyword(),
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )));
        }
        for d in found {
            if !out.iter().any(|o| std::ptr::eq(*o, d)) {
                out.push(d);
            }
        }
    }
    Ok(out)
}

/// Translate a parsed parameter file into iolab's keys, run by run.
pub fn translate(file: &VdbFile, lo: &LoadOptions) -> Result<Translation, JobError> {
    if let Some(rg) = file.of(DefKind::Replication).next() {
        return Err(JobError(format!(
            "{}: rg={}: iolab does not replicate storage definitions; drop rg= and write the sds out",
            rg.place(),
            rg.name
        )));
    }
    let mut notes = Notes::default();
    let g = general::general(file, lo, &mut notes)?;
    let mut out = Translation {
        hosts: hosts::hosts(file, &mut notes)?,
        ..Default::default()
    };
    let mut names = BTreeSet::new();
    let rds: Vec<&VdbDef> = file
        .of(DefKind::Run)
        .filter(|d| d.name != "default")
        .collect();
    if rds.is_empty() {
        return Err(JobError(format!(
            "{}the parameter file has no run definition (rd=); add one, e.g. rd=rd1,wd=wd1,iorate=max,elapsed=30",
            file_name(file)
        )));
    }
    for rd in rds {
        let is_fs = rd.get("fwd").is_some() || rd.get("fsd").is_some();
        let fs_loops = if is_fs { fs::fs_loops(rd) } else { Vec::new() };
        let l = loops::loops(rd, fs_loops)?;
        loops::check_count(rd, &l, out.runs.len())?;
        let rk = run_keys(rd, &g, is_fs, lo, &mut notes)?;
        for point in loops::points(&l) {
            let at = At {
                file,
                rd,
                point: &point,
                hosts: &out.hosts,
            };
            let mut r = run_at(&at, &g, &rk, is_fs, lo, &mut notes)?;
            r.name = unique(&loops::run_name(&rd.name, &point), &mut names, |b, n| {
                format!("{b} ({n})")
            });
            r.run.insert("name".into(), Value::String(r.name.clone()));
            out.runs.push(r);
        }
    }
    if !out.hosts.is_empty() && out.runs.iter().any(|r| r.run.contains_key("rate")) {
        notes.once("vdbench spreads an rd's iorate= over its hosts; iolab gives each host the whole rate: divide iorate= by the number of hosts for vdbench's total");
    }
    for v in &file.unused_vars {
        notes.once(format!("{v} was given but the parameter file uses no ${v}"));
    }
    out.notes = notes.finish();
    Ok(out)
}

/// `FILE: ` for messages, from the first definition or parameter.
fn file_name(file: &VdbFile) -> String {
    file.defs
        .first()
        .map(|d| d.file.clone())
        .or_else(|| file.general.first().map(|p| p.file.clone()))
        .filter(|f| !f.is_empty())
        .map(|f| format!("{f}: "))
        .unwrap_or_default()
}

/// A run definition's own keys, the same at every point of its loops.
struct RunKeys {
    table: toml::Table,
    elapsed_s: f64,
    /// `iorate=N` (a list is the `foriorate` loop).
    rate: Option<f64>,
    curve: Option<CurveSpec>,
    pause_s: Option<f64>,
    /// vdbench's `distribution=`: exponential (poisson) unless told.
    poisson: bool,
}

/// `rd` keywords the mapper reads (besides the loops).
const RD_KEYS: &[&str] = &[
    "wd",
    "sd",
    "iorate",
    "curve",
    "stopcurve",
    "elapsed",
    "interval",
    "warmup",
    "pause",
    "openflags",
    "distribution",
];
const RD_UNSUPPORTED: &[(&str, &str)] = &[
    (
        "maxdata",
        "iolab ends a run by time; give io_size with --io-size instead",
    ),
    ("startcmd", "iolab runs no commands around a run"),
    ("endcmd", "iolab runs no commands around a run"),
    ("replay", "iolab does not replay I/O traces"),
    ("mount", "iolab does not mount file systems"),
];

fn secs_of(p: &VdbParam, rd: &VdbDef) -> Result<f64, JobError> {
    num::secs(p.values.first().map(String::as_str).unwrap_or(""))
        .map_err(|m| JobError(format!("{}: rd={}: {}=: {m}", p.place(), rd.name, p.key)))
}

fn run_keys(
    rd: &VdbDef,
    g: &general::General,
    is_fs: bool,
    lo: &LoadOptions,
    notes: &mut Notes,
) -> Result<RunKeys, JobError> {
    if !is_fs {
        for p in &rd.params {
            if RD_KEYS.contains(&p.key.as_str()) || loops::raw_loop(&p.key).is_some() {
                continue;
            }
            let what = format!("{}= on rd={}", p.key, rd.name);
            match RD_UNSUPPORTED.iter().find(|(k, _)| *k == p.key) {
                Some((_, why)) => general::unsupported(p, &what, why, lo, notes)?,
                None => {
                    return Err(JobError(format!(
                        "{}: {what} is not a keyword iolab's vdbench front end maps",
                        p.place()
                    )))
                }
            }
        }
    }
    let mut t = g.keys.clone();
    let elapsed_s = match rd.get("elapsed") {
        Some(p) => secs_of(p, rd)?,
        None => 30.0,
    };
    if elapsed_s <= 0.0 {
        return Err(JobError(format!(
            "{}: rd={}: elapsed= must be above 0",
            rd.place(),
            rd.name
        )));
    }
    let interval = match rd.get("interval") {
        Some(p) => {
            let i = secs_of(p, rd)?;
            if i <= 0.0 {
                return Err(JobError(format!(
                    "{}: rd={}: interval={}: the reporting interval is a time above 0; give e.g. interval=1 (seconds)",
                    p.place(),
                    rd.name,
                    p.values.first().map(String::as_str).unwrap_or("")
                )));
            }
            i
        }
        None => (elapsed_s / 2.0).floor().clamp(1.0, 60.0),
    };
    t.insert("interval".into(), Value::String(num::fmt_secs(interval)));
    if let Some(p) = rd.get("warmup") {
        t.insert(
            "warmup".into(),
            Value::String(num::fmt_secs(secs_of(p, rd)?)),
        );
    } else {
        notes.once("vdbench leaves the first interval out of its averages when a run has no warmup=; iolab's figures cover the whole elapsed time");
    }
    let pause_s = rd.get("pause").map(|p| secs_of(p, rd)).transpose()?;
    let (rate, curve) = iorate(rd, notes)?;
    let poisson = distribution(rd, lo, notes)?;
    if is_fs {
        for (k, v) in fs::fs_run_keys(rd)? {
            t.insert(k, v);
        }
    }
    Ok(RunKeys {
        table: t,
        elapsed_s,
        rate,
        curve,
        pause_s,
        poisson,
    })
}

/// `iorate=max|curve|N` (a list is a loop), `curve=`, `stopcurve=`.
fn iorate(rd: &VdbDef, notes: &mut Notes) -> Result<(Option<f64>, Option<CurveSpec>), JobError> {
    let bad = |p: &VdbParam, m: &str| {
        JobError(format!(
            "{}: rd={}: {}=({}): {m}",
            p.place(),
            rd.name,
            p.key,
            p.values.join(",")
        ))
    };
    let mut curve = None;
    let mut rate = None;
    if let Some(p) = rd.get("iorate") {
        let first = p.values.first().map(|v| v.trim().to_ascii_lowercase());
        match (first.as_deref(), p.values.len()) {
            (Some("max"), 1) => {}
            (Some("curve"), 1) => curve = Some(CurveSpec::default()),
            (Some(v), 1) => {
                rate = Some(num::number(v).ok().filter(|r| *r > 0.0).ok_or_else(|| {
                    bad(
                        p,
                        "iorate is max, curve, a number of I/Os per second or a list of them",
                    )
                })?)
            }
            _ => {
                for v in &p.values {
                    if !num::number(v).is_ok_and(|r| r > 0.0) {
                        return Err(bad(p, "a list of rates holds numbers of I/Os per second (max and curve stand alone)"));
                    }
                }
            }
        }
    }
    if let Some(c) = curve.as_mut() {
        if let Some(p) = rd.get("curve") {
            // iolab's own limits: percentages above 0 (at most 10000), at
            // most MAX_CURVE_POINTS of them.
            c.pcts = iolab_spec::parse_curve(&p.values.join(","))
                .map_err(|m| JobError(format!("{}: rd={}: curve=: {m}", p.place(), rd.name)))?;
        }
        if let Some(p) = rd.get("stopcurve") {
            let v = p.values.first().map(|v| v.trim()).unwrap_or("");
            c.stop_ms = Some(
                num::number(v)
                    .ok()
                    .filter(|ms| *ms > 0.0 && ms.is_finite())
                    .ok_or_else(|| {
                        bad(
                            p,
                            "stopcurve is a mean response time in milliseconds above 0, e.g. stopcurve=5",
                        )
                    })?,
            );
        }
    } else if rd.get("curve").is_some() || rd.get("stopcurve").is_some() {
        notes.once(format!(
            "rd={}: curve= and stopcurve= act only with iorate=curve",
            rd.name
        ));
    }
    Ok((rate, curve))
}

/// vdbench's `distribution=` of arrivals: exponential (its default) is
/// iolab's `arrival = "poisson"`, deterministic its `fixed`.
fn distribution(rd: &VdbDef, lo: &LoadOptions, notes: &mut Notes) -> Result<bool, JobError> {
    let Some(p) = rd.get("distribution") else {
        return Ok(true);
    };
    let mut poisson = true;
    for v in &p.values {
        match v.trim().to_ascii_lowercase().as_str() {
            "exponential" | "e" => poisson = true,
            "deterministic" | "d" => poisson = false,
            other => general::unsupported(
                p,
                &format!("distribution={other} on rd={}", rd.name),
                "iolab's arrivals are exponential (poisson) or deterministic (fixed)",
                lo,
                notes,
            )?,
        }
    }
    Ok(poisson)
}

/// A run definition at one point of its loops, and the file's hosts.
struct At<'a> {
    file: &'a VdbFile,
    rd: &'a VdbDef,
    point: &'a [(String, String)],
    hosts: &'a [iolab_spec::HostSpec],
}

/// One run: the run definition at one point of its loops.
fn run_at(
    at: &At,
    g: &general::General,
    rk: &RunKeys,
    is_fs: bool,
    lo: &LoadOptions,
    notes: &mut Notes,
) -> Result<RunTables, JobError> {
    let (file, rd, point) = (at.file, at.rd, at.point);
    let mut t = rk.table.clone();
    let rate = match point.iter().find(|(n, _)| n == "foriorate") {
        Some((_, v)) => num::number(v).ok(),
        None => rk.rate,
    };
    if let Some(r) = rate {
        t.insert("rate".into(), Value::String(num::fmt_num(r)));
        if rk.poisson {
            t.insert("arrival".into(), Value::String("poisson".into()));
        }
    }
    let mut workloads = Vec::new();
    let duration = Value::String(num::fmt_secs(rk.elapsed_s));
    if is_fs {
        let fwds = fs_workloads(file, rd)?;
        for w in fs::workloads(file, rd, &fwds, point, lo, notes)? {
            let origin = fs_origin(rd, &w.fwds, w.fsd, point);
            workloads.push((w.keys, origin));
        }
        t.insert("duration".into(), duration);
    } else {
        let ctx = raw::Ctx {
            file,
            rd,
            point,
            general: g,
            lo,
            rated: rate.is_some(),
            curve: rk.curve.is_some(),
            hosts: at.hosts,
        };
        let built = raw::workloads(&ctx, notes)?;
        // Workloads that end at the end of their LUN (seekpct=eof) end
        // their run; elapsed= still bounds each.
        let all_eof = built.iter().all(|b| b.eof);
        if !all_eof {
            t.insert("duration".into(), duration.clone());
        }
        for mut b in built {
            if all_eof {
                b.keys.insert("duration".into(), duration.clone());
            }
            workloads.push((b.keys, b.origin));
        }
    }
    Ok(RunTables {
        name: String::new(),
        run: t,
        pause_s: rk.pause_s,
        curve: rk.curve.clone(),
        workloads,
    })
}

fn fs_workloads<'f>(file: &'f VdbFile, rd: &VdbDef) -> Result<Vec<&'f VdbDef>, JobError> {
    match rd.get("fwd") {
        Some(list) => select(file, DefKind::FsWorkload, list, &format!("rd={}", rd.name)),
        None => Err(JobError(format!(
            "{}: rd={} names no fwd=; add fwd=(...)",
            rd.place(),
            rd.name
        ))),
    }
}

fn fs_origin(rd: &VdbDef, fwds: &[&VdbDef], fsd: &VdbDef, point: &[(String, String)]) -> JobOrigin {
    let mut options: Vec<(String, String)> = Vec::new();
    for def in std::iter::once(fsd).chain(fwds.iter().copied()).chain([rd]) {
        for p in &def.params {
            let v = if p.values.len() == 1 {
                p.values[0].clone()
            } else {
                format!("({})", p.values.join(","))
            };
            options.push((p.key.clone(), v));
        }
    }
    options.extend(point.iter().cloned());
    JobOrigin {
        format: "vdbench".into(),
        file: Some(rd.file.clone()).filter(|f| !f.is_empty()),
        section: format!(
            "{}/{}/{}",
            rd.name,
            fwds.iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>()
                .join("+"),
            fsd.name
        ),
        options,
        group: 0,
        group_reporting: false,
    }
}

#[cfg(test)]
mod tests;
