//! One WML thread's flowops as an iolab flow (docs/filebench.md), by
//! the rules of the built-in personalities (crates/spec/src/personality.rs):
//! composite flowops are expanded inline; each flowop becomes a step
//! (`createfile` -> `create@SET`, `readwholefile` -> `read:whole`, ...);
//! a file filebench keeps open on a descriptor is opened and closed by
//! the flow (a flowop naming its file directly is wrapped in
//! `open@SET ... close`, `xN` transfers per open); with iolab's one open
//! file per thread, a descriptor no later flowop uses is closed early
//! and an open is put off to its first use; `delay` is think time;
//! `eventlimit`, `opslimit`, `iopslimit` and `bwlimit` with `eventgen
//! rate` are the flow's rate; `finishoncount`/`finishonbytes` the
//! workload's end; `hog`, semaphores, `block`/`wakeup` and `aiowait` are
//! dropped.

use super::values::{Scope, Val};
use super::{at, Attr, Composite, Flowop, MAX_DEPTH};
use crate::resolve::JobError;
use iolab_spec::fs::{Flow, Step, MAX_STEPS};
use iolab_spec::fs_parse::MAX_ITERS;
use iolab_spec::op::Op;
use std::collections::{BTreeMap, BTreeSet};

/// Most flowops of one thread after composites are expanded.
const MAX_FOPS: usize = 4096;
/// Transfers per open where a random `read`/`write` names its file
/// directly (filebench keeps that file open for ever): oltp's `x100`.
pub const RANDOM_PER_OPEN: u32 = 100;
/// filebench's `bwlimit`: one event per MiB.
const MIB: f64 = 1048576.0;

/// A fileset as flows see it.
pub struct SetInfo {
    pub name: String,
    /// Its files' (mean) size.
    pub size: u64,
}

/// What a thread's flowops refer to.
pub struct Ctx<'a> {
    pub sets: &'a [SetInfo],
    pub composites: &'a BTreeMap<String, &'a Composite>,
    /// `eventgen rate`, events per second (`None` or 0: no events).
    pub events: Option<f64>,
}

/// How a run ends because of a flow's `finishon*`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum End {
    Ops(u64),
    Bytes(u64),
}

/// A thread mapped.
#[derive(Debug)]
pub struct FlowOut {
    pub flow: Flow,
    /// The flowop each step came from.
    pub names: Vec<String>,
    /// Per step: `Some(dsync)` for writes and appends.
    pub dsync: Vec<Option<bool>>,
    /// Per step: `Some(directio)` for reads, writes and appends.
    pub direct: Vec<Option<bool>>,
    /// Per step: whether filebench counts it as an operation (not an
    /// open or close the flow added).
    pub counted: Vec<bool>,
    /// How many times the pass filebench runs repeats the flow's steps
    /// (1 unless [`fold`] folded it).
    pub fold: u32,
    pub end: Option<End>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Limit {
    Events,
    Ops,
    Iops,
    Bytes,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Open(Op),
    Close,
    /// A transfer, append or fsync on an open file.
    Data {
        op: Op,
        whole: bool,
        random: bool,
    },
    /// An operation that picks its own file or directory.
    Own(Op),
    Delay,
    Limit(Limit),
    FinishCount,
    FinishBytes,
    Dropped,
}

/// A flowop with its values resolved.
#[derive(Debug, Clone)]
struct Fop {
    kind: Kind,
    ty: String,
    name: String,
    line: usize,
    set: Option<u32>,
    fd: Option<u64>,
    iosize: Option<u64>,
    random: bool,
    iters: u32,
    dsync: bool,
    direct: bool,
    value: Option<u64>,
    target: Option<String>,
}

fn kind_of(ty: &str) -> Option<Kind> {
    let data = |op, whole, random| Kind::Data { op, whole, random };
    Some(match ty {
        "createfile" => Kind::Open(Op::Create),
        "openfile" => Kind::Open(Op::Open),
        "closefile" => Kind::Close,
        "read" => data(Op::Read, false, false),
        "write" | "aiowrite" => data(Op::Write, false, false),
        "readwholefile" => data(Op::Read, true, false),
        "writewholefile" => data(Op::Write, true, false),
        "appendfile" => data(Op::Append, false, false),
        "appendfilerand" => data(Op::Append, false, true),
        "fsync" | "fsyncset" => data(Op::Fsync, false, false),
        "statfile" => Kind::Own(Op::Stat),
        "deletefile" => Kind::Own(Op::Delete),
        "makedir" => Kind::Own(Op::Mkdir),
        "removedir" => Kind::Own(Op::Rmdir),
        "listdir" => Kind::Own(Op::Readdir),
        "delay" => Kind::Delay,
        "eventlimit" => Kind::Limit(Limit::Events),
        "opslimit" => Kind::Limit(Limit::Ops),
        "iopslimit" => Kind::Limit(Limit::Iops),
        "bwlimit" => Kind::Limit(Limit::Bytes),
        "finishoncount" => Kind::FinishCount,
        "finishonbytes" => Kind::FinishBytes,
        "hog" | "semblock" | "sempost" | "block" | "wakeup" | "aiowait" | "print" => Kind::Dropped,
        _ => return None,
    })
}

/// filebench's flowop attributes.
const FLOWOP_ATTRS: &[&str] = &[
    "name",
    "filename",
    "filesetname",
    "fd",
    "srcfd",
    "iosize",
    "random",
    "iters",
    "dsync",
    "directio",
    "opennext",
    "workingset",
    "indexed",
    "target",
    "value",
    "blocking",
    "highwater",
    "noreadahead",
];

/// The flowops of a thread (after composites) as resolved flowops.
fn expand(
    scope: &mut Scope,
    ctx: &Ctx,
    list: &[Flowop],
    depth: usize,
    out: &mut Vec<Fop>,
) -> Result<(), JobError> {
    for f in list {
        if let Some(c) = ctx.composites.get(&f.kind) {
            if depth >= MAX_DEPTH {
                return Err(at(
                    scope.file,
                    f.line,
                    format!(
                        "composite flowops nest deeper than {MAX_DEPTH} at {}",
                        f.kind
                    ),
                ));
            }
            let (frame, iters) = call_frame(scope, c, f)?;
            scope.push(frame);
            let mut body = Vec::new();
            let r = expand(scope, ctx, &c.flowops, depth + 1, &mut body);
            scope.pop();
            r?;
            if body.len() == 1 {
                let n = u64::from(body[0].iters) * u64::from(iters);
                if n > u64::from(MAX_ITERS) {
                    return Err(at(
                        scope.file,
                        f.line,
                        format!(
                            "{} iters={iters} repeats {} {} times, more than {MAX_ITERS}; lower an iters",
                            f.kind, body[0].name, n
                        ),
                    ));
                }
                body[0].iters = n as u32;
                out.append(&mut body);
            } else {
                for _ in 0..iters {
                    if out.len() + body.len() > MAX_FOPS {
                        return Err(at(
                            scope.file,
                            f.line,
                            format!(
                                "{} expands to more than {MAX_FOPS} flowops; lower its iters",
                                f.kind
                            ),
                        ));
                    }
                    out.extend(body.iter().cloned());
                }
            }
        } else {
            out.push(resolve(scope, ctx, f)?);
        }
        if out.len() > MAX_FOPS {
            return Err(at(
                scope.file,
                f.line,
                format!("more than {MAX_FOPS} flowops in one thread"),
            ));
        }
    }
    Ok(())
}

/// A composite's parameters as its call gives them, and its `iters`.
fn call_frame(
    scope: &Scope,
    c: &Composite,
    call: &Flowop,
) -> Result<(BTreeMap<String, Option<Val>>, u32), JobError> {
    let mut frame = BTreeMap::new();
    for a in c.attrs.iter().filter(|a| a.name.starts_with('$')) {
        frame.insert(a.name[1..].to_string(), scope.attr_val(a)?);
    }
    let mut iters = 1;
    for a in &call.attrs {
        match a.name.as_str() {
            "name" => {}
            "iters" => iters = count(scope, a)?,
            p if p.starts_with('$') => {
                frame.insert(p[1..].to_string(), scope.attr_val(a)?);
            }
            other => {
                return Err(at(
                    scope.file,
                    a.line,
                    format!(
                        "{other}: a composite flowop ({}) takes name, iters and its $parameters",
                        call.kind
                    ),
                ))
            }
        }
    }
    Ok((frame, iters))
}

fn count(scope: &Scope, a: &Attr) -> Result<u32, JobError> {
    let n = scope.int(a)?;
    if !(1..=u64::from(MAX_ITERS)).contains(&n) {
        return Err(scope.bad(a, &format!("{n} is not from 1 to {MAX_ITERS}")));
    }
    Ok(n as u32)
}

fn resolve(scope: &Scope, ctx: &Ctx, f: &Flowop) -> Result<Fop, JobError> {
    let kind = kind_of(&f.kind).ok_or_else(|| {
        at(
            scope.file,
            f.line,
            format!(
                "'{}' is not a filebench flowop iolab knows (nor a composite defined before it)",
                f.kind
            ),
        )
    })?;
    let mut o = Fop {
        kind,
        ty: f.kind.clone(),
        name: f.kind.clone(),
        line: f.line,
        set: None,
        fd: None,
        iosize: None,
        random: false,
        iters: 1,
        dsync: false,
        direct: false,
        value: None,
        target: None,
    };
    for a in &f.attrs {
        match a.name.as_str() {
            "name" => o.name = scope.text(a)?,
            "filename" | "filesetname" => {
                let n = scope.text(a)?;
                let i = ctx.sets.iter().position(|s| s.name == n).ok_or_else(|| {
                    scope.bad(
                        a,
                        &format!(
                            "no fileset or file is named '{n}' (define it before the process)"
                        ),
                    )
                })?;
                o.set = Some(i as u32);
            }
            "fd" => o.fd = Some(scope.int(a)?),
            "iosize" => o.iosize = Some(scope.int(a)?),
            "random" => o.random = scope.boolean(a)?,
            "iters" => o.iters = count(scope, a)?,
            "dsync" => o.dsync = scope.boolean(a)?,
            "directio" => o.direct = scope.boolean(a)?,
            "value" => o.value = Some(scope.int(a)?),
            "target" => o.target = Some(scope.text(a)?),
            "workingset" => {
                if scope.int(a)? != 0 {
                    scope.note("workingset: iolab's transfers range over the whole file");
                }
            }
            "indexed" => scope
                .note("indexed: iolab picks files at random among those in the state a step needs (filebench without indexed picks them in rotation)"),
            "srcfd" | "opennext" | "blocking" | "highwater" | "noreadahead" => {
                scope.attr_val(a)?;
            }
            other => {
                return Err(at(
                    scope.file,
                    a.line,
                    format!(
                        "'{other}' is not an attribute of flowop {} (filebench's: {})",
                        f.kind,
                        FLOWOP_ATTRS.join(", ")
                    ),
                ))
            }
        }
    }
    Ok(o)
}

/// Which descriptor a flowop works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Fd(u64),
    /// A flowop that named its file itself.
    Implicit,
}

/// The descriptor a transfer or fsync uses: its `fd`, the open file
/// when it names no file, `None` when it opens its own.
fn use_of(f: &Fop) -> Option<Option<Key>> {
    match f.kind {
        Kind::Data { .. } => Some(match (f.fd, f.set) {
            (Some(fd), _) => Some(Key::Fd(fd)),
            (None, None) => None,
            (None, Some(_)) => return None,
        }),
        _ => None,
    }
}

/// Whether a flowop after `i` still works on `key` before it is closed.
fn used_later(fops: &[Fop], i: usize, key: Key) -> bool {
    for f in &fops[i + 1..] {
        match (f.kind, use_of(f)) {
            (_, Some(Some(k))) if k == key => return true,
            (_, Some(None)) => return true,
            (Kind::Close, _) if f.fd.map(Key::Fd) == Some(key) || f.fd.is_none() => return false,
            (Kind::Open(_), _) if f.fd.map(Key::Fd) == Some(key) => return false,
            _ => {}
        }
    }
    false
}

/// The steps being built, with the open file.
struct Build<'s> {
    file: &'s str,
    steps: Vec<(Step, String, Option<bool>, Option<bool>)>,
    current: Option<Key>,
    /// The fileset of the open file, and the flowop that opened it
    /// (whose name a close the flow adds takes).
    cur_set: u32,
    cur_name: String,
    pending: BTreeMap<u64, (Op, u32, String)>,
    fd_set: BTreeMap<u64, u32>,
    /// `dsync` and `directio` of the openfile/createfile of each fd:
    /// filebench opens with them, whatever the flowops on the fd say.
    fd_flags: BTreeMap<u64, (bool, bool)>,
    /// Those of the open file.
    cur_flags: (bool, bool),
    closed_early: BTreeSet<u64>,
    /// Per step: an open or close the flow added that filebench does
    /// not count as an operation (the open of a flowop naming its file,
    /// the close of a file filebench keeps open).
    added: Vec<bool>,
}

impl Build<'_> {
    fn push(&mut self, s: Step, name: &str, dsync: Option<bool>, direct: Option<bool>) {
        self.steps.push((s, name.to_string(), dsync, direct));
        self.added.push(false);
    }
    /// Close the open file; `added` when filebench would not close it.
    fn close_as(&mut self, name: &str, added: bool) {
        self.current = None;
        let s = Step {
            fileset: self.cur_set,
            ..Step::new(Op::Close)
        };
        self.push(s, name, None, None);
        if let Some(a) = self.added.last_mut() {
            *a = added;
        }
    }
    fn close(&mut self, name: &str) {
        let implicit = self.current == Some(Key::Implicit);
        self.close_as(name, implicit);
    }
    /// Make room for another open file at flowop `i`.
    fn free(&mut self, fops: &[Fop], i: usize, what: &str) -> Result<(), JobError> {
        if let Some(k) = self.current {
            if used_later(fops, i, k) {
                let f = &fops[i];
                return Err(at(self.file, f.line, format!(
                    "flowop {} ({}) {what} while another file is still in use; iolab's flows keep one file open per thread: reorder the flowops so each file is closed before the next is opened", f.name, f.ty
                )));
            }
            let name = self.cur_name.clone();
            self.close(&name);
            if let Key::Fd(fd) = k {
                self.closed_early.insert(fd);
            }
        }
        Ok(())
    }
    fn open(&mut self, fops: &[Fop], i: usize, fd: u64) -> Result<(), JobError> {
        let Some((op, set, name)) = self.pending.remove(&fd) else {
            return Err(at(self.file, fops[i].line, format!("fd {fd} is not open")));
        };
        self.free(fops, i, &format!("needs fd {fd}"))?;
        self.push(
            Step {
                fileset: set,
                ..Step::new(op)
            },
            &name,
            None,
            None,
        );
        self.current = Some(Key::Fd(fd));
        self.cur_set = set;
        self.cur_name = name;
        self.cur_flags = self.fd_flags.get(&fd).copied().unwrap_or_default();
        Ok(())
    }
}

/// The steps of one thread's resolved flowops.
fn steps<'s>(scope: &'s Scope, fops: &[Fop], ctx: &Ctx) -> Result<Build<'s>, JobError> {
    let mut b = Build {
        file: scope.file,
        steps: Vec::new(),
        current: None,
        cur_set: 0,
        cur_name: String::new(),
        pending: BTreeMap::new(),
        fd_set: BTreeMap::new(),
        fd_flags: BTreeMap::new(),
        cur_flags: (false, false),
        closed_early: BTreeSet::new(),
        added: Vec::new(),
    };
    for (i, f) in fops.iter().enumerate() {
        match f.kind {
            Kind::Open(_) | Kind::Close if f.iters > 1 => {
                return Err(fop_err(scope, f, format!("iters={} on a flowop that opens or closes: iolab's flows hold one file at a time; repeat the open, the transfers and the close together in a composite flowop with iters", f.iters)));
            }
            Kind::Open(op) => open_fop(&mut b, scope, fops, i, op)?,
            Kind::Close => match f.fd {
                Some(fd) if b.closed_early.remove(&fd) => {}
                Some(fd) if b.current == Some(Key::Fd(fd)) => b.close_as(&f.name, false),
                Some(fd) if b.pending.contains_key(&fd) => {
                    b.open(fops, i, fd)?;
                    b.close_as(&f.name, false);
                }
                None if b.current.is_some() => b.close_as(&f.name, false),
                _ => {
                    return Err(fop_err(
                        scope,
                        f,
                        "closes a file no flowop before it opened",
                    ))
                }
            },
            Kind::Data { op, whole, random } => {
                let implicit = data_file(&mut b, scope, fops, i)?;
                data(&mut b, scope, ctx, f, implicit, (op, whole, random))?
            }
            Kind::Own(op) => {
                let set = f
                    .set
                    .or_else(|| f.fd.and_then(|fd| b.fd_set.get(&fd).copied()));
                let set = set.ok_or_else(|| fop_err(scope, f, "needs filesetname="))?;
                let s = Step {
                    fileset: set,
                    iters: f.iters,
                    ..Step::new(op)
                };
                b.push(s, &f.name, None, None);
            }
            _ => {}
        }
    }
    end_of_pass(&mut b, scope);
    Ok(b)
}

/// `file:line: flowop NAME (TYPE): what`.
fn fop_err(scope: &Scope, f: &Fop, what: impl std::fmt::Display) -> JobError {
    at(
        scope.file,
        f.line,
        format!("flowop {} ({}): {what}", f.name, f.ty),
    )
}

/// `createfile`/`openfile`: the descriptor is opened now, or at its
/// first use when another file is still in use.
fn open_fop(b: &mut Build, scope: &Scope, fops: &[Fop], i: usize, op: Op) -> Result<(), JobError> {
    let f = &fops[i];
    let set = f
        .set
        .ok_or_else(|| fop_err(scope, f, "needs filesetname="))?;
    let fd = f.fd.unwrap_or(0);
    if b.pending.contains_key(&fd) || b.current == Some(Key::Fd(fd)) {
        return Err(fop_err(
            scope,
            f,
            format!("fd {fd} is opened again before it was closed"),
        ));
    }
    b.closed_early.remove(&fd);
    b.fd_set.insert(fd, set);
    b.fd_flags.insert(fd, (f.dsync, f.direct));
    b.pending.insert(fd, (op, set, f.name.clone()));
    if b.current.is_none() || !used_later(fops, i, b.current.unwrap_or(Key::Implicit)) {
        b.open(fops, i, fd)?;
    }
    Ok(())
}

/// A descriptor left open at the end of the pass (filebench keeps it
/// across passes) is closed, so each pass starts with none open.
fn end_of_pass(b: &mut Build, scope: &Scope) {
    let kept = |name: &str, fd: u64| {
        format!("flowop {name}: fd {fd} stays open across passes in filebench; iolab closes it at the end of each pass")
    };
    if let Some(k) = b.current {
        let name = b.cur_name.clone();
        if let Key::Fd(fd) = k {
            scope.note(kept(&name, fd));
        }
        b.close_as(&name, true);
    }
    let left: Vec<u64> = b.pending.keys().copied().collect();
    for fd in left {
        if let Some((op, set, name)) = b.pending.remove(&fd) {
            scope.note(kept(&name, fd));
            let s = Step {
                fileset: set,
                ..Step::new(op)
            };
            b.push(s, &name, None, None);
            b.cur_set = set;
            b.close_as(&name, true);
        }
    }
}

/// The file a transfer, append or fsync works on: its descriptor's, the
/// open file, or its own (named by `filesetname=` on no open descriptor:
/// webserver's log on fd 2), opened here. Whether it opened its own.
fn data_file(b: &mut Build, scope: &Scope, fops: &[Fop], i: usize) -> Result<bool, JobError> {
    let f = &fops[i];
    let open_fd =
        f.fd.is_some_and(|fd| b.pending.contains_key(&fd) || b.current == Some(Key::Fd(fd)));
    if f.set.is_some() && !open_fd {
        b.free(fops, i, "opens its file")?;
        let set = f.set.unwrap_or(0);
        let s = Step {
            fileset: set,
            ..Step::new(Op::Open)
        };
        b.push(s, &f.name, None, None);
        if let Some(a) = b.added.last_mut() {
            *a = true;
        }
        b.current = Some(Key::Implicit);
        b.cur_set = set;
        b.cur_name = f.name.clone();
        b.cur_flags = (f.dsync, f.direct);
        return Ok(true);
    }
    if let Some(fd) = f.fd {
        if b.pending.contains_key(&fd) {
            b.open(fops, i, fd)?;
        } else if b.current != Some(Key::Fd(fd)) {
            return Err(fop_err(
                scope,
                f,
                format!("uses fd {fd}, which no openfile or createfile before it opened"),
            ));
        }
    } else if b.current.is_none() {
        return Err(fop_err(
            scope,
            f,
            "needs an open file: give filesetname= or open one before it",
        ));
    }
    Ok(false)
}

/// The step of a transfer, append or fsync on the open file
/// (`implicit`: one it opened itself, `xN` transfers per open).
fn data(
    b: &mut Build,
    scope: &Scope,
    ctx: &Ctx,
    f: &Fop,
    implicit: bool,
    (op, whole, random): (Op, bool, bool),
) -> Result<(), JobError> {
    let xfer = match (op, f.iosize) {
        (Op::Fsync, _) => 0,
        (_, Some(n)) if (1..=iolab_spec::fs_parse::MAX_XFER).contains(&n) => n,
        (_, Some(n)) => return Err(fop_err(scope, f, format!("iosize {n} is not from 1 to 1g"))),
        (_, None) if whole => {
            scope.note("a whole-file flowop without iosize (filebench reads the file in one transfer) moves 1m per transfer");
            1 << 20
        }
        (_, None) => {
            return Err(fop_err(
                scope,
                f,
                "needs iosize= (filebench stops on a zero iosize too)",
            ))
        }
    };
    let set_size = f
        .set
        .and_then(|s| ctx.sets.get(s as usize))
        .map_or(0, |s| s.size);
    let iters = if implicit && matches!(op, Op::Read | Op::Write) && !whole {
        per_open(f, xfer, set_size)
    } else {
        f.iters
    };
    let step = Step {
        fileset: b.cur_set,
        whole,
        xfer,
        random: random || (f.random && !whole && matches!(op, Op::Read | Op::Write)),
        iters,
        ..Step::new(op)
    };
    let writes = matches!(op, Op::Write | Op::Append);
    let moves = op != Op::Fsync;
    // filebench opens with the opening flowop's dsync and directio; on a
    // file already open they change nothing, here either.
    let (dsync, direct) = b.cur_flags;
    if !implicit && ((f.dsync && !dsync) || (f.direct && !direct)) {
        scope.note(format!(
            "flowop {}: dsync/directio on a file another flowop opened change nothing in filebench (it takes them from the openfile or createfile), nor in iolab",
            f.name
        ));
    }
    b.push(
        step,
        &f.name,
        writes.then_some(dsync),
        moves.then_some(direct),
    );
    Ok(())
}

/// Transfers per open of a `read`/`write` that names its file itself:
/// random ones [`RANDOM_PER_OPEN`] (a multiple of its `iters`),
/// sequential ones the whole file (videoserver's readers).
fn per_open(f: &Fop, xfer: u64, size: u64) -> u32 {
    let it = u64::from(f.iters);
    let n = if f.random {
        u64::from(RANDOM_PER_OPEN)
    } else {
        (size / xfer.max(1)).clamp(1, u64::from(MAX_ITERS))
    };
    (n.div_ceil(it) * it).min(u64::from(MAX_ITERS)) as u32
}

/// One thread definition as a flow named `name` with `threads` threads.
pub fn thread_flow(
    scope: &mut Scope,
    ctx: &Ctx,
    list: &[Flowop],
    name: &str,
    threads: u32,
) -> Result<FlowOut, JobError> {
    let mut fops = Vec::new();
    expand(scope, ctx, list, 0, &mut fops)?;
    let scope: &Scope = scope;
    let b = steps(scope, &fops, ctx)?;
    let mut out = FlowOut {
        flow: Flow {
            name: name.to_string(),
            threads,
            steps: b.steps.iter().map(|s| s.0.clone()).collect(),
            rate_ops: None,
            think_us: 0,
        },
        names: b.steps.iter().map(|s| s.1.clone()).collect(),
        dsync: b.steps.iter().map(|s| s.2).collect(),
        direct: b.steps.iter().map(|s| s.3).collect(),
        counted: b.added.iter().map(|a| !a).collect(),
        fold: 1,
        end: None,
    };
    if out.flow.steps.is_empty() {
        let line = list.first().map_or(0, |f| f.line);
        return Err(at(
            scope.file,
            line,
            format!("thread {name} has no flowop that does I/O or touches a file"),
        ));
    }
    if out.flow.steps.len() > MAX_STEPS {
        fold(scope, &mut out);
    }
    if out.flow.steps.len() > MAX_STEPS {
        let line = list.first().map_or(0, |f| f.line);
        return Err(at(scope.file, line, format!(
            "thread {name} makes {} steps once composite flowops are expanded; iolab's flows take at most {MAX_STEPS} (lower the iters of a composite flowop)",
            out.flow.steps.len()
        )));
    }
    extras(scope, ctx, &fops, &mut out)?;
    Ok(out)
}

/// A pass that is one block of steps repeated (a composite flowop with
/// `iters`, createdelete-swing's `createandclose iters=$nfiles`) becomes
/// that block: the flow repeats its pass anyway, so the operations and
/// their order stay the same.
fn fold(scope: &Scope, out: &mut FlowOut) {
    let n = out.flow.steps.len();
    let same = |i: usize, j: usize| {
        out.flow.steps[i] == out.flow.steps[j]
            && out.names[i] == out.names[j]
            && out.dsync[i] == out.dsync[j]
            && out.direct[i] == out.direct[j]
            && out.counted[i] == out.counted[j]
    };
    let Some(p) = (1..=MAX_STEPS).find(|&p| n.is_multiple_of(p) && (p..n).all(|i| same(i, i % p)))
    else {
        return;
    };
    scope.note(format!(
        "flow {}: its pass repeats {p} steps {} times; the flow runs those {p} steps a pass (the same operations in the same order; think time and event rates are per filebench pass, scaled to the shorter pass)",
        out.flow.name,
        n / p
    ));
    out.fold = (n / p) as u32;
    out.flow.steps.truncate(p);
    out.names.truncate(p);
    out.dsync.truncate(p);
    out.direct.truncate(p);
    out.counted.truncate(p);
}

/// Think time, rate limits, ends and the notes for dropped flowops.
fn extras(scope: &Scope, ctx: &Ctx, fops: &[Fop], out: &mut FlowOut) -> Result<(), JobError> {
    let mut think_s = 0.0;
    for f in fops {
        match f.kind {
            Kind::Delay => think_s += f.value.unwrap_or(0) as f64,
            Kind::Limit(l) => {
                let events = ctx.events.filter(|r| *r > 0.0);
                match events {
                    None => scope.note(format!(
                        "{}: without eventgen rate filebench does not limit, nor does iolab",
                        f.ty
                    )),
                    Some(_) if out.flow.rate_ops.is_some() => scope.note(format!(
                        "flow {}: a second limit ({}) is ignored",
                        out.flow.name, f.name
                    )),
                    Some(r) => {
                        // One filebench pass per event is `fold` of the flow's passes.
                        let r = if l == Limit::Events {
                            r * f64::from(out.fold)
                        } else {
                            r
                        };
                        out.flow.rate_ops = rate(l, r, f, &out.names, &out.flow.steps, ctx.sets)
                    }
                }
            }
            Kind::FinishCount | Kind::FinishBytes => {
                let v = f.value.filter(|v| *v > 0).ok_or_else(|| {
                    at(
                        scope.file,
                        f.line,
                        format!("{} needs value=N, N of 1 or more", f.ty),
                    )
                })?;
                let end = if f.kind == Kind::FinishBytes {
                    if let Some(t) = &f.target {
                        scope.note(format!(
                            "{} target={t}: iolab counts the bytes of every flowop",
                            f.name
                        ));
                    }
                    End::Bytes(v)
                } else {
                    finish_count(scope, f, v, out, fops)?
                };
                out.end = Some(match out.end {
                    Some(e) => min_end(e, end),
                    None => end,
                });
            }
            Kind::Dropped => scope.note(format!(
                "{} is dropped: iolab has no {}",
                f.ty,
                match f.ty.as_str() {
                    "hog" => "CPU loop between operations",
                    "aiowait" => "wait of its own (writes go through io_uring with qd in flight)",
                    "print" => "printing from a flow",
                    _ => "semaphores or blocking between threads; each flow runs at its own pace",
                }
            )),
            _ => {}
        }
    }
    if think_s > 0.0 {
        // filebench's delays come once a filebench pass: `fold` of the flow's.
        let line = fops
            .iter()
            .find(|f| f.kind == Kind::Delay)
            .map_or(0, |f| f.line);
        out.flow.think_us = iolab_spec::fs_parse::think_us(think_s / f64::from(out.fold))
            .map_err(|e| at(scope.file, line, format!("delay: {}", e.0)))?;
    }
    Ok(())
}

fn min_end(a: End, b: End) -> End {
    match (a, b) {
        (End::Ops(x), End::Ops(y)) => End::Ops(x.min(y)),
        (End::Bytes(x), End::Bytes(y)) => End::Bytes(x.min(y)),
        (a, _) => a,
    }
}

/// The steps a `target=` names (all when none): the flowop's own
/// operations, not the open and close the flow added around it.
fn targeted<'a>(f: &Fop, names: &'a [String], steps: &'a [Step]) -> Vec<&'a Step> {
    let named: Vec<&Step> = steps
        .iter()
        .zip(names)
        .filter(|(_, n)| f.target.as_ref().is_none_or(|t| t == *n))
        .map(|(s, _)| s)
        .collect();
    let own: Vec<&Step> = named
        .iter()
        .copied()
        .filter(|s| !matches!(s.op, Op::Open | Op::Close))
        .collect();
    if own.is_empty() || f.target.is_none() {
        named
    } else {
        own
    }
}

/// Operations filebench counts for `finishoncount` in one execution of
/// a flowop that makes no step: every flowop that ends with
/// `flowop_endop` and is not an I/O is typed so that it counts too
/// (delay, the limits, `finishon*` themselves, hog, semblock, block,
/// wakeup).
fn counted_extra(f: &Fop) -> u64 {
    let counts = match f.kind {
        Kind::Delay | Kind::Limit(_) | Kind::FinishCount | Kind::FinishBytes => true,
        Kind::Dropped => matches!(f.ty.as_str(), "hog" | "semblock" | "block" | "wakeup"),
        _ => false,
    };
    if counts {
        u64::from(f.iters)
    } else {
        0
    }
}

/// `finishoncount value=N`: filebench ends the run once all threads
/// together did N counted operations (not the opens and closes the flow
/// added), or with `target=`, once a thread did N of the target's; as
/// iolab's count of all the flow's operations.
fn finish_count(
    scope: &Scope,
    f: &Fop,
    n: u64,
    out: &FlowOut,
    fops: &[Fop],
) -> Result<End, JobError> {
    let k = u64::from(out.fold.max(1));
    let steps = &out.flow.steps;
    // Per filebench pass (`k` of the flow's).
    let all: u64 = k * steps.iter().map(|s| u64::from(s.iters)).sum::<u64>();
    let all = all.max(1);
    let ops = match &f.target {
        None => {
            let own: u64 = steps
                .iter()
                .zip(&out.counted)
                .filter(|(_, c)| **c)
                .map(|(s, _)| u64::from(s.iters))
                .sum();
            let counted = (k * own + fops.iter().map(counted_extra).sum::<u64>()).max(1);
            ((u128::from(n) * u128::from(all)).div_ceil(u128::from(counted)))
                .min(u128::from(u64::MAX)) as u64
        }
        Some(t) => {
            let hits: u64 = k * targeted(f, &out.names, steps)
                .iter()
                .map(|s| u64::from(s.iters))
                .sum::<u64>();
            if hits == 0 {
                return Err(at(
                    scope.file,
                    f.line,
                    format!("{}: target={t} names no flowop of this thread", f.ty),
                ));
            }
            // Each thread counts its own target's operations.
            let per = (u128::from(n) * u128::from(all)).div_ceil(u128::from(hits));
            (per * u128::from(out.flow.threads)).min(u128::from(u64::MAX)) as u64
        }
    };
    // filebench looks at the count once a pass, where the flowop stands.
    let ops = ops.div_ceil(all).saturating_mul(all);
    scope.note(format!(
        "{} value={n}{}: the run ends after {ops} operations of all threads (whole passes of {all}; filebench {}, and checks once a pass)",
        f.name,
        f.target.as_ref().map(|t| format!(" target={t}")).unwrap_or_default(),
        if f.target.is_some() {
            "counts the target's operations per thread"
        } else {
            "counts every flowop's operations, delays and limits among them, not the opens and closes iolab adds"
        }
    ));
    Ok(End::Ops(ops))
}

/// A flow's rate for a limit at `events` per second: `eventlimit` one
/// pass per event, `opslimit` one operation, `iopslimit` one transfer,
/// `bwlimit` one MiB (videoserver's readers).
fn rate(
    l: Limit,
    events: f64,
    f: &Fop,
    names: &[String],
    steps: &[Step],
    sets: &[SetInfo],
) -> Option<f64> {
    let ops: u32 = steps.iter().map(|s| s.iters).sum();
    let ops = f64::from(ops);
    let io: Vec<&Step> = targeted(f, names, steps)
        .into_iter()
        .filter(|s| matches!(s.op, Op::Read | Op::Write | Op::Append | Op::Rewrite))
        .collect();
    let transfers = f64::from(io.iter().map(|s| s.iters).sum::<u32>());
    // Bytes a step moves: a whole file (its mean size), a random append
    // half its largest size, else its transfer.
    let moved = |s: &Step| match (s.whole, s.op == Op::Append && s.random) {
        (true, _) => sets.get(s.fileset as usize).map_or(s.xfer, |x| x.size) as f64,
        (_, true) => (s.xfer as f64 + 1.0) / 2.0,
        _ => s.xfer as f64,
    };
    let r = match l {
        Limit::Events => events * ops,
        Limit::Ops => events,
        Limit::Iops if transfers > 0.0 => events * ops / transfers,
        Limit::Bytes if transfers > 0.0 => {
            let xfer = io[0].xfer;
            let plain = |s: &&Step| !(s.whole || (s.op == Op::Append && s.random));
            if io.iter().all(|s| s.xfer == xfer && plain(s)) {
                // videoserver's readers: transfers per second, then the
                // pass's other operations in proportion.
                let per_s = events * MIB / xfer as f64;
                per_s * ops / transfers
            } else {
                let bytes: f64 = io.iter().map(|s| moved(s) * f64::from(s.iters)).sum();
                events * MIB / bytes * ops
            }
        }
        _ => events,
    };
    (r > 0.0 && r.is_finite()).then_some(r)
}
