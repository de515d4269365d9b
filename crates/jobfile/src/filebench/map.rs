//! A parsed WML file onto iolab's job keys: one file-system workload
//! per file (docs/filebench.md). Its filesets (`define fileset`, and
//! `define file` as a fileset of one file) go to the `filesets` key under
//! `dir`, the filesets' common path; each thread definition is a flow
//! named after its process (`process.thread` where a process has
//! several) with process instances x thread instances threads
//! ([`super::flows`]); `run N` / `psrun` give the duration and interval
//! (filebench's 60 s without one), `finishoncount`/`finishonbytes` the
//! `ops`/`io_size` end; `dsync` and `directio` become the workload's
//! `sync`/`direct` when every flowop they can affect agrees.

use super::flows::{thread_flow, Ctx, End, FlowOut, SetInfo};
use super::values::{Scope, Val};
use super::{at, Attr, Composite, FilesetDef, WmlFile};
use crate::frontend::tables::options_of;
use crate::frontend::{InputFormat, LoadOptions, Loaded};
use crate::options::WorkloadOptions;
use crate::resolve::JobError;
use crate::runs::RunOptions;
use iolab_spec::fileset::MAX_FILES;
use iolab_spec::fs_parse::{flow_text, size_text};
use iolab_spec::JobOrigin;
use std::collections::BTreeMap;

/// filebench's `run` without a time, and the time without a `run`.
pub const RUN_DEFAULT_S: u64 = 60;
/// filebench's `psrun` period without one.
pub const PSRUN_PERIOD_S: i64 = 10;
/// Most filesets of one file (iolab's `filesets` limit).
const MAX_FILESETS: usize = iolab_spec::fs::MAX_FILESETS;
/// Most threads of one flow (iolab's thread limit).
const MAX_FLOW_THREADS: u64 = 4096;

/// A WML file as iolab's keys: the run's keys, the workload's, its
/// origin and the notes.
#[derive(Debug, Clone, Default)]
pub struct Translation {
    pub run: toml::Table,
    pub workload: toml::Table,
    pub origin: JobOrigin,
    pub notes: Vec<String>,
}

impl Translation {
    /// As an iolab job file with the origin and notes as comments (the
    /// golden text of the corpus tests).
    pub fn to_toml(&self) -> String {
        let mut out = String::new();
        for n in &self.notes {
            out.push_str(&format!("# note: {n}\n"));
        }
        out.push_str("\n[[run]]\n");
        out.push_str(&toml::to_string(&self.run).unwrap_or_default());
        out.push_str(&format!(
            "\n[[run.workload]]\n# filebench processes {}\n",
            self.origin.section
        ));
        for (k, v) in &self.origin.options {
            out.push_str(&format!("# {k} = {v}\n"));
        }
        out.push_str(&toml::to_string(&self.workload).unwrap_or_default());
        out
    }
}

/// The run of a parsed WML file and the notes to print before it.
pub fn map(w: &WmlFile, lo: &LoadOptions) -> Result<Loaded, JobError> {
    let t = translate(w, lo)?;
    let what = format!("{}:", w.file);
    let of = |table: &toml::Table| options_of(table, &what);
    let run = RunOptions {
        index: 0,
        single: false,
        run: of(&t.run)?,
        workloads: vec![of(&t.workload)?],
        overrides: WorkloadOptions::default(),
        origins: vec![Some(t.origin.clone())],
        ..Default::default()
    };
    Ok(Loaded {
        format: InputFormat::Filebench,
        runs: vec![run],
        notes: t.notes,
        hosts: Vec::new(),
    })
}

/// A fileset's keys.
struct SetOut {
    name: String,
    path: String,
    text: String,
}

/// Translate a parsed WML file.
pub fn translate(w: &WmlFile, lo: &LoadOptions) -> Result<Translation, JobError> {
    let mut scope = Scope::new(w, lo);
    let (sets, infos) = filesets_of(&scope, w)?;
    let composites = composites(&scope, &w.composites)?;
    let events = match &w.eventgen {
        Some((v, line)) => {
            let a = Attr {
                name: "rate".into(),
                value: Some(v.clone()),
                line: *line,
            };
            Some(scope.int(&a)? as f64)
        }
        None => None,
    };
    let ctx = Ctx {
        sets: &infos,
        composites: &composites,
        events,
    };
    let (mut flows, sections) = flows(&mut scope, &ctx, w)?;
    share_events(&scope, &mut flows);
    unused_dir(&scope, w, lo)?;
    if events.is_some_and(|e| e > 0.0) && flows.iter().all(|f| f.flow.rate_ops.is_none()) {
        scope.note("eventgen: no flowop waits on its events (eventlimit, opslimit, iopslimit, bwlimit), so nothing is limited");
    }
    let mut t = Translation::default();
    let dir = sets[0].path.clone();
    let texts: Vec<String> = sets
        .iter()
        .map(|s| {
            if s.path == dir {
                s.text.replace(" path=@", "")
            } else {
                // Checked in `fileset`: no double quote, no control character.
                s.text.replace(" path=@", &format!(" path=\"{}\"", s.path))
            }
        })
        .collect();
    let names: Vec<&str> = infos.iter().map(|s| s.name.as_str()).collect();
    let wl = &mut t.workload;
    wl.insert("name".into(), stem(&w.file).into());
    wl.insert("dir".into(), dir.into());
    wl.insert("filesets".into(), texts.join(" | ").into());
    flags(&scope, &mut flows, wl);
    let flow_texts: Vec<String> = flows.iter().map(|f| flow_text(&f.flow, &names)).collect();
    wl.insert("flow".into(), flow_texts.join(" | ").into());
    run_keys(&scope, w, &flows, &mut t.run, wl)?;
    t.origin = origin_of(w, &flows, &sections);
    t.notes = notes(w, &scope);
    Ok(t)
}

/// The file's filesets, each named once.
fn filesets_of(scope: &Scope, w: &WmlFile) -> Result<(Vec<SetOut>, Vec<SetInfo>), JobError> {
    if w.filesets.is_empty() {
        return Err(JobError(format!(
            "{}: defines no fileset or file; iolab's file workloads need one (define fileset name=...,path=$dir,entries=N)",
            w.file
        )));
    }
    if w.filesets.len() > MAX_FILESETS {
        return Err(at(
            &w.file,
            w.filesets[MAX_FILESETS].line,
            format!("more than {MAX_FILESETS} filesets"),
        ));
    }
    let (mut sets, mut infos) = (Vec::new(), Vec::new());
    for f in &w.filesets {
        let (s, i) = fileset(scope, f)?;
        if sets.iter().any(|o: &SetOut| o.name == s.name) {
            return Err(at(
                &w.file,
                f.line,
                format!("a second fileset named '{}'", s.name),
            ));
        }
        sets.push(s);
        infos.push(i);
    }
    Ok((sets, infos))
}

/// Where the workload came from: the file, its processes, and the
/// flowop of each step (`flowop.N`, steps counted from 1 over the flows in
/// order) for filebench's per-flowop report.
fn origin_of(w: &WmlFile, flows: &[FlowOut], sections: &[String]) -> JobOrigin {
    let options = flows
        .iter()
        .flat_map(|f| f.names.iter())
        .enumerate()
        .map(|(i, n)| (format!("flowop.{}", i + 1), super::one_line(n)))
        .collect();
    JobOrigin {
        format: "filebench".into(),
        file: Some(w.file.clone()),
        section: super::one_line(&sections.join(",")),
        options,
        group: 0,
        group_reporting: false,
    }
}

/// The file's name without directories and `.f`.
fn stem(file: &str) -> String {
    let base = file.rsplit('/').next().unwrap_or(file);
    let s = clean(base.strip_suffix(".f").unwrap_or(base));
    if s.is_empty() {
        "filebench".into()
    } else {
        s
    }
}

/// `s` with every character but letters, digits, `_`, `.` and `-` as `-`.
fn clean(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_.-".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// Composite flowops by name.
fn composites<'a>(
    scope: &Scope,
    list: &'a [Composite],
) -> Result<BTreeMap<String, &'a Composite>, JobError> {
    let mut out = BTreeMap::new();
    for c in list {
        let mut name = None;
        for a in &c.attrs {
            match a.name.as_str() {
                "name" => name = Some(scope.text(a)?),
                n if n.starts_with('$') => {}
                other => {
                    return Err(at(
                        scope.file,
                        a.line,
                        format!(
                            "'{other}' is not an attribute of define flowop (name and $parameters)"
                        ),
                    ))
                }
            }
        }
        let name = name.ok_or_else(|| at(scope.file, c.line, "define flowop needs name="))?;
        if out.insert(name.clone(), c).is_some() {
            return Err(at(
                scope.file,
                c.line,
                format!("a second composite flowop named '{name}'"),
            ));
        }
    }
    Ok(out)
}

/// Every thread definition as a flow, and the process names.
fn flows(
    scope: &mut Scope,
    ctx: &Ctx,
    w: &WmlFile,
) -> Result<(Vec<FlowOut>, Vec<String>), JobError> {
    let mut out: Vec<FlowOut> = Vec::new();
    let mut sections = Vec::new();
    if w.processes.is_empty() {
        return Err(JobError(format!(
            "{}: defines no process; nothing would run (define process name=...{{ thread ... }})",
            w.file
        )));
    }
    for p in &w.processes {
        let (mut pname, mut pinst) = (None, 1);
        for a in &p.attrs {
            match a.name.as_str() {
                "name" => pname = Some(scope.text(a)?),
                "instances" => pinst = scope.int(a)?,
                "nice" => scope.note("nice: iolab runs every thread at the same priority"),
                other => {
                    return Err(at(
                        scope.file,
                        a.line,
                        format!(
                        "'{other}' is not an attribute of define process (name, instances, nice)"
                    ),
                    ))
                }
            }
        }
        let pname = pname.ok_or_else(|| at(scope.file, p.line, "define process needs name="))?;
        sections.push(pname.clone());
        for t in &p.threads {
            let (mut tname, mut tinst) = (None, 1);
            for a in &t.attrs {
                match a.name.as_str() {
                    "name" => tname = Some(scope.text(a)?),
                    "instances" => tinst = scope.int(a)?,
                    "memsize" | "useism" => {
                        scope.attr_val(a)?;
                    }
                    "ioprio" => scope.note("ioprio: iolab runs every thread at the same I/O priority"),
                    other => return Err(at(scope.file, a.line, format!("'{other}' is not an attribute of thread (name, memsize, instances, useism, ioprio)"))),
                }
            }
            let tname = tname.ok_or_else(|| at(scope.file, t.line, "thread needs name="))?;
            let threads = pinst.saturating_mul(tinst);
            if !(1..=MAX_FLOW_THREADS).contains(&threads) {
                return Err(at(scope.file, t.line, format!("thread {tname}: {pinst} process instances x {tinst} thread instances is not from 1 to {MAX_FLOW_THREADS} threads")));
            }
            let name = if p.threads.len() == 1 {
                pname.clone()
            } else {
                format!("{pname}.{tname}")
            };
            let name = clean(&name);
            if out.iter().any(|f| f.flow.name == name) {
                return Err(at(scope.file, t.line, format!("a second thread flow named {name}; give processes and threads their own names")));
            }
            let before: u64 = out.iter().map(|f| u64::from(f.flow.threads)).sum();
            if before + threads > iolab_spec::fs::MAX_FLOW_THREADS {
                return Err(at(scope.file, t.line, format!("thread {tname}: the threads of all processes come to more than {}; lower instances", iolab_spec::fs::MAX_FLOW_THREADS)));
            }
            out.push(thread_flow(scope, ctx, &t.flowops, &name, threads as u32)?);
        }
    }
    Ok((out, sections))
}

/// filebench's events come from one queue all waiting threads take from:
/// flows that wait on them share `eventgen rate` by their threads.
fn share_events(scope: &Scope, flows: &mut [FlowOut]) {
    let waiting: Vec<&mut FlowOut> = flows
        .iter_mut()
        .filter(|f| f.flow.rate_ops.is_some())
        .collect();
    if waiting.len() < 2 {
        return;
    }
    let total: f64 = waiting.iter().map(|f| f64::from(f.flow.threads)).sum();
    for f in waiting {
        let share = f64::from(f.flow.threads) / total;
        f.flow.rate_ops = f.flow.rate_ops.map(|r| r * share);
    }
    scope.note("eventgen: filebench's events are one queue for all threads, so the flows that wait on them share its rate by their threads");
}

/// A `dir=` the file never reads would leave its filesets where the
/// file says (often /tmp): refused, naming what the file uses instead.
fn unused_dir(scope: &Scope, w: &WmlFile, lo: &LoadOptions) -> Result<(), JobError> {
    if !scope.unused_cli().iter().any(|v| v == "dir") {
        return Ok(());
    }
    let given = lo
        .vars
        .iter()
        .rev()
        .find(|(k, _)| k == "dir")
        .map_or(String::new(), |(_, v)| v.clone());
    let f = &w.filesets[0];
    let path = f.attrs.iter().find(|a| a.name == "path");
    let what = match path.and_then(|a| a.value.as_ref()) {
        Some(super::Value::Var(v)) => {
            format!("its filesets' path is ${v}: give {v}={given} instead")
        }
        _ => "its filesets' path is written out: edit path= in the file".to_string(),
    };
    Err(at(
        scope.file,
        path.map_or(f.line, |a| a.line),
        super::one_line(&format!(
            "dir={given} was given but the file uses no $dir, and iolab writes only where it was told; {what}"
        )),
    ))
}

/// `sync` and `direct` when every flowop they can change agrees, else
/// the steps' own `dsync`/`direct` (given to the open of their file).
fn flags(scope: &Scope, flows: &mut [FlowOut], wl: &mut toml::Table) {
    let all = |f: &dyn Fn(&FlowOut) -> Vec<bool>| -> (bool, bool) {
        let v: Vec<bool> = flows.iter().flat_map(f).collect();
        (v.iter().any(|x| *x), !v.is_empty() && v.iter().all(|x| *x))
    };
    let (any, every) = all(&|f: &FlowOut| f.dsync.iter().flatten().copied().collect());
    let (any_d, every_d) = all(&|f: &FlowOut| f.direct.iter().flatten().copied().collect());
    if any {
        scope.note("dsync: filebench opens with O_SYNC, iolab with O_DSYNC (the data and the metadata needed to read it back)");
    }
    if every {
        wl.insert("sync".into(), "dsync".into());
    } else if any {
        for f in flows.iter_mut() {
            for (s, d) in f.flow.steps.iter_mut().zip(&f.dsync) {
                s.dsync = *d == Some(true);
            }
        }
    }
    if every_d {
        wl.insert("direct".into(), true.into());
    } else if any_d {
        for f in flows.iter_mut() {
            for (s, d) in f.flow.steps.iter_mut().zip(&f.direct) {
                s.direct = *d == Some(true);
            }
        }
    }
}

/// Duration, interval and the `finishon*` end.
fn run_keys(
    scope: &Scope,
    w: &WmlFile,
    flows: &[FlowOut],
    run: &mut toml::Table,
    wl: &mut toml::Table,
) -> Result<(), JobError> {
    if w.runs.len() > 1 {
        return Err(at(
            &w.file,
            w.runs[1].line,
            "a second run or psrun: iolab runs a WML file's workload once; keep one",
        ));
    }
    let mut ends = flows.iter().filter_map(|f| f.end);
    let end = ends.next();
    if ends.next().is_some() {
        scope.note("several threads finish on a count; the first such end ends the run");
    }
    match end {
        Some(End::Ops(n)) => {
            wl.insert("ops".into(), (n.min(i64::MAX as u64) as i64).into());
        }
        Some(End::Bytes(n)) => {
            wl.insert("io_size".into(), size_text(n).into());
        }
        None => {}
    }
    let secs = match w.runs.first() {
        Some(r) => {
            let d = match &r.duration {
                Some(v) => scope.int(&Attr {
                    name: "run".into(),
                    value: Some(v.clone()),
                    line: r.line,
                })?,
                None => 0,
            };
            if d as f64 > iolab_spec::units::MAX_DURATION_S {
                return Err(at(
                    &w.file,
                    r.line,
                    format!("run {d}: more than iolab's longest run, 10000000000 s; give a shorter time"),
                ));
            }
            if r.psrun {
                let p = r.period.filter(|p| *p != 0).unwrap_or(PSRUN_PERIOD_S);
                run.insert("interval".into(), format!("{}s", p.unsigned_abs()).into());
                if p < 0 {
                    scope.note("psrun with a negative period: iolab's interval lines are per interval anyway");
                }
            }
            (d > 0).then_some(d)
        }
        None => None,
    };
    match (secs, end) {
        (Some(s), _) => {
            wl.insert("duration".into(), format!("{s}s").into());
        }
        (None, Some(_)) => {
            scope.note("the run ends on the finishoncount/finishonbytes end (no run time given)")
        }
        (None, None) => {
            let why = match w.runs.first() {
                None => "no run line",
                Some(r) if r.psrun => "psrun without a time",
                Some(_) => "run without a time",
            };
            scope.note(format!(
                "{why}: the run lasts filebench's {RUN_DEFAULT_S} s"
            ));
            wl.insert("duration".into(), format!("{RUN_DEFAULT_S}s").into());
        }
    }
    if let Some((mode, _)) = &w.quit_mode {
        if mode != "timeout" {
            scope.note(format!("set mode quit {mode}: iolab ends the workload on its time, operation count or bytes, or when no flow can go on"));
        }
    }
    Ok(())
}

fn notes(w: &WmlFile, scope: &Scope) -> Vec<String> {
    let mut n: Vec<String> = w.echoes.clone();
    n.extend(w.accepted.iter().map(|a| format!("accepted: {a}")));
    n.extend(scope.notes.borrow().0.iter().cloned());
    for v in scope.unused_cli() {
        n.push(format!("{v}=... was given but the file uses no ${v}"));
    }
    n
}

/// filebench's fileset attributes.
const FILESET_ATTRS: &str = "name, path, size, filesize, entries, dirwidth, dirgamma, dirdepthrv, prealloc, paralloc, reuse, readonly, writeonly, trusttree, leafdirs, cached";

/// A fileset's attributes as read.
#[derive(Default)]
struct Fset {
    name: Option<String>,
    path: Option<String>,
    /// The line of `path=`.
    path_line: Option<usize>,
    size: (String, u64),
    entries: Option<u64>,
    width: Option<u64>,
    prealloc: u64,
    words: Vec<String>,
    /// The line of `leafdirs`.
    leafdirs: Option<usize>,
}

/// One `define fileset`/`define file` as a `filesets` entry (with
/// `path=@` where the path goes unless it is the workload's `dir`).
fn fileset(scope: &Scope, f: &FilesetDef) -> Result<(SetOut, SetInfo), JobError> {
    let mut o = Fset {
        size: ("0".into(), 0),
        entries: f.single_file.then_some(1),
        ..Default::default()
    };
    for a in &f.attrs {
        fileset_attr(scope, f, a, &mut o)?;
    }
    let name = o
        .name
        .ok_or_else(|| at(scope.file, f.line, "define fileset needs name="))?;
    if !iolab_spec::fs_parse::valid_fileset_name(&name) {
        return Err(at(scope.file, f.line, format!("fileset name '{name}': iolab's fileset names are letters, digits, '_', '.' and '-' (not . or .., at most 255)")));
    }
    let path = o.path.ok_or_else(|| {
        at(
            scope.file,
            f.line,
            format!("fileset {name} needs path= (where its directory goes)"),
        )
    })?;
    let line = o.path_line.unwrap_or(f.line);
    if path.is_empty() {
        return Err(at(
            scope.file,
            line,
            format!("fileset {name}: path is empty; give the directory its fileset goes in"),
        ));
    }
    if path.contains('"') || path.chars().any(char::is_control) {
        return Err(at(scope.file, line, super::one_line(&format!("fileset {name}: path '{path}' has a double quote or a control character, which iolab's filesets key cannot hold; rename the directory"))));
    }
    if let (Some(line), true) = (o.leafdirs, o.prealloc > 0) {
        return Err(at(scope.file, line, format!(
            "fileset {name}: leafdirs with prealloc asks for directories made before the run, which iolab does not make (it makes files); drop prealloc and let makedir make them"
        )));
    }
    let entries = o.entries.ok_or_else(|| {
        at(
            scope.file,
            f.line,
            format!("fileset {name} needs entries=N (or leafdirs=N)"),
        )
    })?;
    if f.single_file {
        scope.note("define file: iolab keeps each such file in a directory of its own, PATH/NAME/ (filebench's is PATH/NAME/00000001/00000001)");
    }
    let mut text = format!("{name}(files={entries}");
    if let Some(w) = o.width {
        text.push_str(&format!(" dir_width={w}"));
    }
    text.push_str(&format!(
        " size={} prealloc={} path=@",
        o.size.0, o.prealloc
    ));
    for w in o.words {
        text.push(' ');
        text.push_str(&w);
    }
    text.push(')');
    let info = SetInfo {
        name: name.clone(),
        size: o.size.1,
    };
    Ok((SetOut { name, path, text }, info))
}

/// One attribute of a `define fileset`/`define file`.
fn fileset_attr(scope: &Scope, f: &FilesetDef, a: &Attr, o: &mut Fset) -> Result<(), JobError> {
    match a.name.as_str() {
        "name" => o.name = Some(scope.text(a)?),
        "path" => {
            o.path = Some(scope.text(a)?);
            o.path_line = Some(a.line);
        }
        "size" | "filesize" => o.size = file_size(scope, a)?,
        "entries" if !f.single_file => o.entries = Some(files(scope, a)?),
        "leafdirs" if !f.single_file => {
            o.entries = Some(files(scope, a)?);
            o.leafdirs = Some(a.line);
            scope.note("leafdirs: iolab's fileset has that many entries; makedir makes them directories and removedir removes those");
        }
        "dirwidth" if !f.single_file => {
            let w = scope.int(a)?;
            if !(2..=u64::from(u32::MAX)).contains(&w) {
                return Err(scope.bad(
                    a,
                    &format!(
                        "{w} is not from 2 to {} (each of iolab's directories holds 2 or more entries)",
                        u32::MAX
                    ),
                ));
            }
            o.width = Some(w);
        }
        "prealloc" => {
            o.prealloc = match scope.attr_val(a)? {
                None => 100,
                Some(Val::Text(t)) if t == "true" => 100,
                Some(Val::Text(t)) if t == "false" => 0,
                _ => scope.int(a)?,
            };
            if o.prealloc > 100 {
                return Err(scope.bad(a, &format!("{} is not a percentage", o.prealloc)));
            }
        }
        "reuse" | "readonly" => {
            if scope.boolean(a)? {
                o.words.push(a.name.clone());
            }
        }
        "dirgamma" | "dirdepthrv" if !f.single_file => {
            scope.attr_val(a)?;
            scope.note(format!(
                "{}: iolab uses dirwidth as the exact width of every directory",
                a.name
            ));
        }
        "cached" | "writeonly" | "trusttree" | "paralloc" => {
            scope.attr_val(a)?;
        }
        other => {
            let what = if f.single_file {
                "define file"
            } else {
                "define fileset"
            };
            return Err(at(
                scope.file,
                a.line,
                format!("'{other}' is not an attribute of {what} (filebench's: {FILESET_ATTRS})"),
            ));
        }
    }
    Ok(())
}

/// A count of files, 1 to iolab's most.
fn files(scope: &Scope, a: &Attr) -> Result<u64, JobError> {
    match scope.int(a)? {
        n if (1..=MAX_FILES).contains(&n) => Ok(n),
        n => Err(scope.bad(a, &format!("{n} is not from 1 to {MAX_FILES}"))),
    }
}

/// A fileset's size as the `filesets` key writes it, and its mean.
fn file_size(scope: &Scope, a: &Attr) -> Result<(String, u64), JobError> {
    match scope.attr_val(a)? {
        Some(Val::Cvar(n, attrs)) => {
            let ty = attrs
                .iter()
                .find(|x| x.name == "type")
                .map(|x| scope.text(x))
                .transpose()?;
            let mean = scope.mean(&attrs, a.line)?;
            if ty.as_deref() == Some("cvar-gamma") {
                let shape = attrs
                    .iter()
                    .find(|x| x.name == "parameters")
                    .map(|x| scope.text(x))
                    .transpose()?
                    .and_then(|p| {
                        p.split(';')
                            .find_map(|kv| kv.strip_prefix("gamma:").map(str::to_string))
                    })
                    .and_then(|g| g.parse::<f64>().ok())
                    .unwrap_or(1.5);
                let text = if shape == 1.5 {
                    format!("gamma:{}", size_text(mean))
                } else {
                    format!("gamma:{}:{shape}", size_text(mean))
                };
                return Ok((text, mean));
            }
            scope.note(format!(
                "${n} ({}) as a file size: iolab gives every file its mean, {}",
                ty.unwrap_or_default(),
                size_text(mean)
            ));
            Ok((size_text(mean), mean))
        }
        Some(Val::Randvar(n, attrs)) => {
            let mean = scope.mean(&attrs, a.line)?;
            scope.note(format!(
                "${n} is a random variable; as a file size iolab gives every file its mean, {}",
                size_text(mean)
            ));
            Ok((size_text(mean), mean))
        }
        _ => {
            let n = scope.int(a)?;
            Ok((size_text(n), n))
        }
    }
}
