//! The text forms of a file-system workload: `--mix` (a weighted mix of
//! operations), `--flow` (flows of ordered steps), `--file-select`,
//! `--file-size` and `--format`. Each parser says in one line what to
//! change; every list is bounded ([`MAX_STEPS`], [`MAX_TEXT`]). The
//! `--filesets` text (several named filesets): [`parse_filesets`].
//!
//! A step (of a flow) or an entry (of a mix) is an operation name and
//! modifiers, separated by `:`:
//!
//! ```text
//! STEP  := OP [ "@" FILESET ] { ":" MOD }  read:whole:1m   open@logs
//! MOD   := whole | rand | seq | SIZE | xN | direct | dsync | @FILESET
//! ENTRY := STEP ":" WEIGHT               read:60   append:rand:16k:5
//! MIX   := ENTRY { "," ENTRY }
//! FLOWS := FLOW { "|" FLOW }
//! FLOW  := [ NAME "(" OPTS ")" ":" ] STEP { "," STEP }
//! OPTS  := N | threads=N | rate=OPS | think=TIME   (separated by spaces)
//! ```
//!
//! `OP` is one of the 18 operation names ([`Op::name`]) or a filebench or
//! vdbench name ([`op_alias`]). `whole`: the whole file (read, write,
//! rewrite); `rand`/`seq`: random or sequential transfers (append: a
//! random size up to SIZE); `SIZE` (`16k`, a plain number is bytes): the
//! transfer or append size, else the workload's `bs`; `xN`: the step runs
//! N times per pass (filebench `iters`; flows only); `direct`/`dsync`:
//! O_DIRECT/O_DSYNC on the open of the step's file (a flow step on the
//! current file gives them to the open or create before it); `@FILESET`: a
//! fileset by index (`@1`) or name (`@logfiles`), else the first (or, for
//! a step on the current file, the one it was opened in). A flow without
//! a head gets the workload's `jobs` threads.

use crate::fileset::{FileSize, Format};
use crate::fs::{FileSelect, Flow, MixEntry, Step, MAX_STEPS};
use crate::op::Op;
use crate::units::{parse_duration, parse_size};
use crate::SpecError;

mod filesets;
pub use filesets::{filesets_text, parse_filesets, valid_name as valid_fileset_name, FilesetDecl};

/// Longest `--mix` or `--flow` text accepted.
pub const MAX_TEXT: usize = 64 * 1024;
/// Most iterations of one step (`xN`).
pub const MAX_ITERS: u32 = 1_000_000;
/// Largest transfer or append size of a step.
pub const MAX_XFER: u64 = 1 << 30;
/// Longest think time of a flow (an hour).
pub const MAX_THINK_US: u64 = 3_600_000_000;

fn err<T>(s: String) -> Result<T, SpecError> {
    Err(SpecError(s))
}

/// A filebench or vdbench operation name: the operation and whether it
/// implies `whole` or `rand`.
pub fn op_alias(name: &str) -> Option<(Op, bool, bool)> {
    if let Some(op) = Op::from_name(name).filter(|o| Op::FS.contains(o)) {
        return Some((op, false, false));
    }
    Some(match name {
        // filebench flowops
        "createfile" => (Op::Create, false, false),
        "deletefile" => (Op::Delete, false, false),
        "statfile" => (Op::Stat, false, false),
        "openfile" => (Op::Open, false, false),
        "closefile" => (Op::Close, false, false),
        "readwholefile" => (Op::Read, true, false),
        "writewholefile" => (Op::Write, true, false),
        "appendfile" => (Op::Append, false, false),
        "appendfilerand" => (Op::Append, false, true),
        "fsyncset" => (Op::Fsync, false, false),
        "aiowrite" => (Op::Write, false, false),
        "makedir" => (Op::Mkdir, false, false),
        "removedir" => (Op::Rmdir, false, false),
        "listdir" => (Op::Readdir, false, false),
        // vdbench operations and common names
        "move" => (Op::Rename, false, false),
        "unlink" => (Op::Delete, false, false),
        _ => return None,
    })
}

/// What to say about a name that is no operation.
fn unknown_op(flag: &str, name: &str) -> SpecError {
    let hint = match name {
        "copy" => " (vdbench copy has no single operation here: write it as open,read:whole,close,create,write:whole,close)".to_string(),
        "aiowait" | "hog" | "delay" | "semblock" | "sempost" | "eventlimit" | "bwlimit"
        | "iopslimit" | "opslimit" | "finishoncount" | "finishonbytes" => format!(
            " (filebench {name} is not an operation: see docs/filesystem.md for rates, think time and qd)"
        ),
        _ => String::new(),
    };
    SpecError(format!(
        "--{flag}: '{name}' is not an operation{hint}; use one of {}, or a filebench/vdbench name such as createfile, readwholefile, appendfilerand",
        Op::FS.map(Op::name).join(", ")
    ))
}

/// Which fileset `@x` names: an index or a name among `filesets`.
fn fileset_ref(flag: &str, x: &str, filesets: &[&str]) -> Result<u32, SpecError> {
    let i = match x.parse::<u32>() {
        Ok(i) => i as usize,
        Err(_) => match filesets.iter().position(|n| *n == x) {
            Some(i) => i,
            None => {
                return err(format!(
                    "--{flag}: no fileset named '{x}'; the filesets are {}",
                    names(filesets)
                ))
            }
        },
    };
    if i >= filesets.len() {
        return err(format!(
            "--{flag}: fileset @{i} does not exist; there {} {} ({}), numbered from 0",
            if filesets.len() == 1 { "is" } else { "are" },
            filesets.len(),
            names(filesets)
        ));
    }
    Ok(i as u32)
}

fn names(filesets: &[&str]) -> String {
    filesets
        .iter()
        .enumerate()
        .map(|(i, n)| format!("@{i} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One step, `OP{:MOD}`; `fileset` is `Some` when `@` named one.
fn parse_step(
    flag: &str,
    text: &str,
    filesets: &[&str],
    iters_ok: bool,
) -> Result<(Step, bool), SpecError> {
    let mut parts = text.split(':').map(str::trim);
    let first = parts.next().unwrap_or("");
    // `open@logs` is `open:@logs`.
    let (name, at) = match first.split_once('@') {
        Some((n, f)) => (n.trim().to_ascii_lowercase(), Some(f.trim())),
        None => (first.to_ascii_lowercase(), None),
    };
    if name.is_empty() {
        return err(format!(
            "--{flag}: an empty step in '{text}'; separate steps with single commas"
        ));
    }
    let (op, whole, random) = op_alias(&name).ok_or_else(|| unknown_op(flag, &name))?;
    let mut step = Step::new(op);
    step.whole = whole;
    step.random = random;
    let mut named = false;
    if let Some(f) = at {
        step.fileset = fileset_ref(flag, f, filesets)?;
        named = true;
    }
    for m in parts {
        let bad = |why: &str| {
            SpecError(format!(
                "--{flag}: '{m}' in step '{text}' {why}; modifiers are whole, rand, seq, a size (16k), xN (iterations), direct, dsync and @FILESET"
            ))
        };
        match m.to_ascii_lowercase().as_str() {
            "whole" => step.whole = true,
            "direct" | "directio" => step.direct = true,
            "dsync" => step.dsync = true,
            "rand" | "random" => step.random = true,
            "seq" | "sequential" => step.random = false,
            l if l.starts_with('@') => {
                step.fileset = fileset_ref(flag, &m[1..], filesets)?;
                named = true;
            }
            l if l.starts_with('x')
                && l.len() > 1
                && l[1..].chars().all(|c| c.is_ascii_digit()) =>
            {
                if !iters_ok {
                    return Err(bad("is an iteration count, which only flows have"));
                }
                step.iters = match l[1..].parse::<u32>() {
                    Ok(n) if (1..=MAX_ITERS).contains(&n) => n,
                    _ => return Err(bad(&format!("is outside x1..x{MAX_ITERS}"))),
                };
            }
            l if l.starts_with(|c: char| c.is_ascii_digit()) => {
                let v = parse_size(l).map_err(|e| bad(&format!("is not a size ({e})")))?;
                if v == 0 || v > MAX_XFER {
                    return Err(bad("is outside 1 byte..1g"));
                }
                step.xfer = v;
            }
            "" => return Err(bad("is empty")),
            _ => return Err(bad("is not known")),
        }
    }
    check_modifiers(flag, text, &step)?;
    Ok((step, named))
}

/// Modifiers that make no sense for the operation.
fn check_modifiers(flag: &str, text: &str, s: &Step) -> Result<(), SpecError> {
    let data = s.op.moves_data();
    if s.whole && !matches!(s.op, Op::Read | Op::Write | Op::Rewrite) {
        return err(format!(
            "--{flag}: step '{text}': whole applies to read, write and rewrite, not {}",
            s.op.name()
        ));
    }
    if (s.random || s.xfer > 0) && !data {
        return err(format!(
            "--{flag}: step '{text}': {} moves no data, so it takes no size, rand or seq",
            s.op.name()
        ));
    }
    if s.whole && s.random {
        return err(format!(
            "--{flag}: step '{text}': whole reads or writes the file from its start; drop rand (or whole)"
        ));
    }
    if (s.direct || s.dsync) && !opens_data(s.op) {
        return err(format!(
            "--{flag}: step '{text}': direct and dsync say how a file is opened for its data; {} opens none (give them to the open, create, read, write, append, rewrite or sync step)",
            s.op.name()
        ));
    }
    Ok(())
}

fn check_text(flag: &str, s: &str) -> Result<(), SpecError> {
    if s.len() > MAX_TEXT {
        return err(format!(
            "--{flag} is {} bytes long, more than {MAX_TEXT}; give fewer steps",
            s.len()
        ));
    }
    if s.trim().is_empty() {
        return err(format!(
            "--{flag} is empty; give e.g. {}",
            if flag == "mix" {
                "read:60,write:20,stat:10,create:5,delete:5"
            } else {
                "create,write:whole,close,open,read:whole,close,delete"
            }
        ));
    }
    Ok(())
}

/// Largest weight of a mix entry (256 of them still add up within a u32).
pub const MAX_WEIGHT: u32 = 1_000_000;

/// `--mix`: `OP{:MOD}:WEIGHT,...`, e.g. `read:60,write:20,stat:10`.
/// `filesets` are the fileset names for `@NAME`.
pub fn parse_mix(s: &str, filesets: &[&str]) -> Result<Vec<MixEntry>, SpecError> {
    check_text("mix", s)?;
    let mut out = Vec::new();
    for item in s.split(',').map(str::trim) {
        if out.len() == MAX_STEPS {
            return err(format!(
                "--mix has more than {MAX_STEPS} entries; give fewer"
            ));
        }
        let (head, w) = item.rsplit_once(':').unwrap_or((item, ""));
        let num = w.trim().strip_prefix(['-', '+']).unwrap_or(w.trim());
        let weight = match w.trim().parse::<u32>() {
            Ok(w) if w <= MAX_WEIGHT => w,
            _ if !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) => {
                return err(format!(
                    "--mix: the weight of '{item}' is out of range; give 1 to {MAX_WEIGHT}"
                ))
            }
            _ if w.contains('@') => return Err(fileset_after_weight(item, head, w, filesets)),
            Err(_) | Ok(_) => {
                return err(format!(
                "--mix: '{item}' has no weight; end each entry with :WEIGHT, e.g. read:60,write:40"
            ))
            }
        };
        let (step, _) = parse_step("mix", head, filesets, false)?;
        out.push(MixEntry { step, weight });
    }
    Ok(out)
}

/// A mix entry `read:1@logs`: `@FILESET` belongs to the step, before the
/// weight (`ENTRY := STEP ":" WEIGHT`); also says when no fileset has
/// that name, naming the ones there are.
fn fileset_after_weight(item: &str, head: &str, w: &str, filesets: &[&str]) -> SpecError {
    let (weight, name) = w.split_once('@').unwrap_or((w, ""));
    let (weight, name) = (weight.trim(), name.trim());
    let (op, mods) = head.split_once(':').unwrap_or((head, ""));
    let sep = if mods.is_empty() { "" } else { ":" };
    let unknown = match fileset_ref("mix", name, filesets) {
        Ok(_) => String::new(),
        Err(_) => format!(
            " (and no fileset is named '{name}': the filesets are {})",
            names(filesets)
        ),
    };
    SpecError(format!(
        "--mix: in '{item}' the fileset follows the weight; @FILESET goes with the operation, before the weight: {op}@{name}{sep}{mods}:{weight}{unknown}"
    ))
}

/// `--flow`: flows separated by `|`, each `[NAME(OPTS):] STEP,...`.
/// A flow without a head is named `flow` (`flow2`, ... after the first)
/// and has `threads` threads.
pub fn parse_flows(s: &str, filesets: &[&str], threads: u32) -> Result<Vec<Flow>, SpecError> {
    check_text("flow", s)?;
    let mut out: Vec<Flow> = Vec::new();
    for (i, text) in s.split('|').map(str::trim).enumerate() {
        if i == MAX_STEPS {
            return err(format!(
                "--flow has more than {MAX_STEPS} flows; give fewer"
            ));
        }
        let default_name = if i == 0 {
            "flow".to_string()
        } else {
            format!("flow{}", i + 1)
        };
        let mut flow = Flow {
            name: default_name,
            threads,
            steps: Vec::new(),
            rate_ops: None,
            think_us: 0,
        };
        let body = match split_head(text)? {
            Some((name, opts, body)) => {
                flow.name = name.to_string();
                parse_head_opts(&mut flow, opts)?;
                body
            }
            None => text,
        };
        if out.iter().any(|f| f.name == flow.name) {
            return err(format!(
                "--flow: two flows are named '{}'; give each its own name",
                flow.name
            ));
        }
        flow.steps = parse_steps(body, filesets)?;
        out.push(flow);
    }
    Ok(out)
}

/// `NAME(OPTS): body` as its parts, or `None` when the flow has no head.
fn split_head(text: &str) -> Result<Option<(&str, &str, &str)>, SpecError> {
    let Some(open) = text.find('(') else {
        return Ok(None);
    };
    let name = text[..open].trim();
    let is_name = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
    if !is_name {
        return Ok(None);
    }
    let bad = || {
        SpecError(format!(
            "--flow: the head of '{text}' is not NAME(OPTIONS): e.g. writer(4 rate=100 think=10ms): create,write:whole,close"
        ))
    };
    let close = text[open..].find(')').ok_or_else(bad)? + open;
    let rest = text[close + 1..].trim_start();
    let body = rest.strip_prefix(':').ok_or_else(bad)?;
    Ok(Some((name, &text[open + 1..close], body)))
}

/// The options of a flow's head: a thread count, `threads=N`,
/// `rate=OPS` (operations per second of the flow), `think=TIME`.
fn parse_head_opts(flow: &mut Flow, opts: &str) -> Result<(), SpecError> {
    for o in opts.split([' ', ',']).filter(|o| !o.is_empty()) {
        let (k, v) = o.split_once('=').unwrap_or(("threads", o));
        let bad = |what: &str| {
            SpecError(format!(
                "--flow: '{o}' in the head of flow '{}' {what}; give threads=N (or N), rate=OPS, think=TIME",
                flow.name
            ))
        };
        match k {
            "threads" => {
                flow.threads = v
                    .parse::<u32>()
                    .ok()
                    .filter(|n| (1..=crate::JOBS_RANGE.1 as u32).contains(n))
                    .ok_or_else(|| bad("is not a thread count from 1 to 4096"))?
            }
            "rate" => {
                let r = v.parse::<f64>().map_err(|_| bad("is not a rate"))?;
                if !(r > 0.0 && r.is_finite()) {
                    return Err(bad("must be above 0 operations per second"));
                }
                flow.rate_ops = Some(r);
            }
            "think" => {
                let d = parse_duration(v).map_err(|e| bad(&format!("is not a time ({e})")))?;
                flow.think_us = think_us(d.as_secs_f64()).map_err(|e| bad(&e.0))?;
            }
            _ => return Err(bad("is not known")),
        }
    }
    Ok(())
}

/// A think time in microseconds, at most [`MAX_THINK_US`].
pub fn think_us(secs: f64) -> Result<u64, SpecError> {
    let us = (secs * 1e6).round();
    if !(0.0..=MAX_THINK_US as f64).contains(&us) {
        return err("is longer than an hour".into());
    }
    Ok(us as u64)
}

/// The steps of one flow. A step on the current file that names no
/// fileset takes the fileset of the open or create before it.
fn parse_steps(body: &str, filesets: &[&str]) -> Result<Vec<Step>, SpecError> {
    let mut steps: Vec<Step> = Vec::new();
    let mut current: Option<u32> = None;
    // The step that opened the current file: a later step's direct or
    // dsync is how that open opens it.
    let mut opened: Option<usize> = None;
    for text in body.split(',').map(str::trim) {
        if steps.len() == MAX_STEPS {
            return err(format!(
                "--flow: a flow has more than {MAX_STEPS} steps; give fewer (use xN to repeat a step)"
            ));
        }
        let (mut step, named) = parse_step("flow", text, filesets, true)?;
        if needs_current(step.op) && !named {
            if let Some(f) = current {
                step.fileset = f;
            }
        }
        match step.op {
            Op::Create | Op::Open => {
                current = Some(step.fileset);
                opened = Some(steps.len());
            }
            Op::Close => (current, opened) = (None, None),
            op if needs_current(op) => {
                if let Some(o) = opened.and_then(|i| steps.get_mut(i)) {
                    o.direct |= step.direct;
                    o.dsync |= step.dsync;
                }
            }
            _ => {}
        }
        steps.push(step);
    }
    Ok(steps)
}

/// Operations whose file is opened for its data (or that act on such an
/// open file): those `direct` and `dsync` apply to.
fn opens_data(op: Op) -> bool {
    matches!(
        op,
        Op::Create
            | Op::Open
            | Op::Read
            | Op::Write
            | Op::Append
            | Op::Rewrite
            | Op::Fsync
            | Op::Fdatasync
    )
}

/// Operations of a flow that act on the thread's current file.
pub fn needs_current(op: Op) -> bool {
    matches!(
        op,
        Op::Read
            | Op::Write
            | Op::Append
            | Op::Rewrite
            | Op::Fsync
            | Op::Fdatasync
            | Op::Getattr
            | Op::Setattr
            | Op::Close
    )
}

/// `--file-select`: `seq` (`sequential`), `random` (`uniform`) or
/// `zipf:THETA`.
pub fn parse_file_select(s: &str) -> Result<FileSelect, SpecError> {
    let bad = || {
        SpecError(format!(
            "--file-select {s} is not known; use seq, random or zipf:THETA (e.g. zipf:1.1)"
        ))
    };
    match s.trim() {
        "seq" | "sequential" => Ok(FileSelect::Sequential),
        "random" | "uniform" => Ok(FileSelect::Uniform),
        t => {
            let theta: f64 = t
                .strip_prefix("zipf:")
                .ok_or_else(bad)?
                .parse()
                .map_err(|_| bad())?;
            if !(theta > 0.0 && theta.is_finite() && theta <= 100.0) {
                return err(format!(
                    "--file-select zipf:{theta}: give a theta above 0 (and at most 100), e.g. zipf:1.1"
                ));
            }
            Ok(FileSelect::Zipf(theta))
        }
    }
}

/// `--file-size`: a size (`64k`) or `gamma:MEAN[:SHAPE]` (filebench's
/// cvar gamma; shape 1.5 unless given).
pub fn parse_file_size(s: &str) -> Result<FileSize, SpecError> {
    let t = s.trim();
    let Some(g) = t.strip_prefix("gamma:") else {
        return parse_size(t).map(FileSize::Fixed).map_err(|e| {
            SpecError(format!(
                "--file-size: {e}; give a size (64k) or gamma:MEAN[:SHAPE] (gamma:128k:1.5)"
            ))
        });
    };
    let (mean, shape) = g.split_once(':').unwrap_or((g, "1.5"));
    let mean = parse_size(mean).map_err(|e| SpecError(format!("--file-size {t}: {e}")))?;
    let shape = shape
        .parse::<f64>()
        .ok()
        .filter(|v| *v > 0.0 && *v <= 1e6 && v.is_finite());
    let Some(shape) = shape else {
        return err(format!(
            "--file-size {t}: the gamma shape must be a number above 0; filebench uses 1.5 (gamma:128k:1.5)"
        ));
    };
    if mean == 0 {
        return err(format!("--file-size {t}: the mean must be above 0"));
    }
    Ok(FileSize::Gamma { mean, shape })
}

/// `--format`: `yes`, `no` or `restart` (vdbench `format=`).
pub fn parse_format(s: &str) -> Result<Format, SpecError> {
    match s.trim() {
        "yes" | "true" => Ok(Format::Yes),
        "no" | "false" => Ok(Format::No),
        "restart" => Ok(Format::Restart),
        other => err(format!(
            "--format {other} is not known; use yes (make every file again), no (use what exists) or restart (also fix file sizes)"
        )),
    }
}

/// A size as a step writes it: `16k`, `1m`, `3g`, or bytes.
pub fn size_text(b: u64) -> String {
    for (unit, n) in [("g", 1u64 << 30), ("m", 1 << 20), ("k", 1 << 10)] {
        if b >= n && b.is_multiple_of(n) {
            return format!("{}{unit}", b / n);
        }
    }
    b.to_string()
}

/// A step in the syntax [`parse_flows`] reads: `read@logs:whole:1m:x4`.
/// `filesets` name the `@` (omitted for the first fileset, and for a
/// step on the current file in `current`'s fileset).
pub fn step_text(s: &Step, filesets: &[&str], current: Option<u32>) -> String {
    let mut t = s.op.name().to_string();
    let implied = if needs_current(s.op) {
        current.unwrap_or(0)
    } else {
        0
    };
    if s.fileset != implied {
        let name = filesets.get(s.fileset as usize).copied();
        match name {
            Some(n) => t.push_str(&format!("@{n}")),
            None => t.push_str(&format!("@{}", s.fileset)),
        }
    }
    if s.whole {
        t.push_str(":whole");
    }
    if s.random {
        t.push_str(":rand");
    }
    if s.xfer > 0 {
        t.push(':');
        t.push_str(&size_text(s.xfer));
    }
    if s.iters != 1 {
        t.push_str(&format!(":x{}", s.iters));
    }
    if s.direct {
        t.push_str(":direct");
    }
    if s.dsync {
        t.push_str(":dsync");
    }
    t
}

/// A mix in the syntax [`parse_mix`] reads.
pub fn mix_text(m: &[MixEntry], filesets: &[&str]) -> String {
    m.iter()
        .map(|e| format!("{}:{}", step_text(&e.step, filesets, None), e.weight))
        .collect::<Vec<_>>()
        .join(",")
}

/// A flow in the syntax [`parse_flows`] reads, with its head.
pub fn flow_text(f: &Flow, filesets: &[&str]) -> String {
    let mut head = format!("{}({}", f.name, f.threads);
    if let Some(r) = f.rate_ops {
        head.push_str(&format!(" rate={r}"));
    }
    if f.think_us > 0 {
        head.push_str(&format!(
            " think={}",
            crate::units::format_us_exact(f.think_us)
        ));
    }
    head.push_str("): ");
    let mut current = None;
    let steps: Vec<String> = f
        .steps
        .iter()
        .map(|s| {
            let t = step_text(s, filesets, current);
            match s.op {
                Op::Create | Op::Open => current = Some(s.fileset),
                Op::Close => current = None,
                _ => {}
            }
            t
        })
        .collect();
    head + &steps.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: &str) -> String {
        assert!(!s.contains('\n'), "{s}");
        s.to_string()
    }

    #[test]
    fn the_issues_mix_parses() {
        let m = parse_mix("read:60,write:20,stat:10,create:5,delete:5", &["fs"]).unwrap();
        let got: Vec<(Op, u32)> = m.iter().map(|e| (e.step.op, e.weight)).collect();
        assert_eq!(
            got,
            [
                (Op::Read, 60),
                (Op::Write, 20),
                (Op::Stat, 10),
                (Op::Create, 5),
                (Op::Delete, 5)
            ]
        );
        let m = parse_mix(
            "read:whole:1m:3, appendfilerand:16k:2,statfile:@b:1",
            &["a", "b"],
        )
        .unwrap();
        assert!(m[0].step.whole && m[0].step.xfer == 1 << 20 && m[0].weight == 3);
        assert_eq!(
            (m[1].step.op, m[1].step.random, m[1].step.xfer),
            (Op::Append, true, 16384)
        );
        assert_eq!((m[2].step.op, m[2].step.fileset), (Op::Stat, 1));
    }

    #[test]
    fn bad_mixes_say_what_to_change() {
        for (s, needle) in [
            ("read:60,write", "'write' has no weight"),
            ("read", "has no weight"),
            (
                "read:99999999999999999999",
                "out of range; give 1 to 1000000",
            ),
            ("read:1000001", "out of range"),
            ("", "is empty"),
            ("raed:60", "'raed' is not an operation"),
            ("copy:5", "vdbench copy"),
            ("read:x3:5", "only flows have"),
            ("stat:4k:5", "moves no data"),
            ("append:whole:5", "whole applies to read"),
            ("read:@2:5", "fileset @2 does not exist"),
            ("read:@logs:5", "no fileset named 'logs'"),
            ("read:0:5", "outside 1 byte"),
            ("read:bogus:5", "'bogus'"),
            ("read:-1", "weight of 'read:-1' is out of range"),
            // Regression: the fileset after the weight said "has no weight".
            (
                "read:1@nosuch",
                "in 'read:1@nosuch' the fileset follows the weight; @FILESET goes with the operation, before the weight: read@nosuch:1 (and no fileset is named 'nosuch': the filesets are @0 fs)",
            ),
            (
                "read:whole:3@fs",
                "before the weight: read@fs:whole:3",
            ),
        ] {
            let e = one(&parse_mix(s, &["fs"]).unwrap_err().0);
            assert!(e.contains(needle) && e.starts_with("--mix"), "{s}: {e}");
        }
        let long = vec!["read:1"; MAX_STEPS + 1].join(",");
        assert!(parse_mix(&long, &["fs"])
            .unwrap_err()
            .0
            .contains("more than 256"));
        assert!(parse_mix(&"x".repeat(MAX_TEXT + 1), &["fs"])
            .unwrap_err()
            .0
            .contains("bytes long"));
    }

    #[test]
    fn the_issues_flow_parses_with_filebench_and_vdbench_names() {
        let f = parse_flows(
            "create,write:whole,close,open,append:rand:16k,close,open,read:whole,close,delete,stat",
            &["fs"],
            8,
        )
        .unwrap();
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].name.as_str(), f[0].threads), ("flow", 8));
        let ops: Vec<&str> = f[0].steps.iter().map(|s| s.op.name()).collect();
        assert_eq!(
            ops,
            [
                "create", "write", "close", "open", "append", "close", "open", "read", "close",
                "delete", "stat"
            ]
        );
        assert!(f[0].steps[1].whole && f[0].steps[4].random && f[0].steps[4].xfer == 16384);
        let g = parse_flows(
            "createfile,writewholefile:1m,closefile,openfile,appendfilerand:16k,closefile,deletefile,statfile,makedir,listdir,removedir,move,fsyncset,getattr,setattr,access",
            &["fs"],
            1,
        )
        .unwrap();
        assert_eq!(g[0].steps[1].op, Op::Write);
        assert!(g[0].steps[1].whole && g[0].steps[4].random);
        assert_eq!(g[0].steps[11].op, Op::Rename);
    }

    #[test]
    fn flow_heads_iterations_and_filesets() {
        let f = parse_flows(
            "reader(4 rate=200 think=10ms): open@1,read:2k:rand:x100,close | logger(threads=1): open@logs,append:16k,close",
            &["data", "logs"],
            9,
        )
        .unwrap();
        assert_eq!(
            (
                f[0].name.as_str(),
                f[0].threads,
                f[0].rate_ops,
                f[0].think_us
            ),
            ("reader", 4, Some(200.0), 10_000)
        );
        assert_eq!(f[0].steps[1].iters, 100);
        assert_eq!(
            f[0].steps[1].fileset, 1,
            "takes the fileset it was opened in"
        );
        assert_eq!((f[1].name.as_str(), f[1].threads), ("logger", 1));
        assert!(f[1].steps.iter().all(|s| s.fileset == 1));
        let two = parse_flows("create,close | open,close", &["fs"], 3).unwrap();
        assert_eq!((two[1].name.as_str(), two[1].threads), ("flow2", 3));
    }

    #[test]
    fn bad_flows_say_what_to_change() {
        for (s, needle) in [
            ("create,,close", "an empty step"),
            ("w(4: create", "is not NAME(OPTIONS)"),
            ("w(4) create", "is not NAME(OPTIONS)"),
            ("w(0): create,close", "thread count"),
            ("w(rate=0): create,close", "above 0"),
            ("w(think=2h): create,close", "longer than an hour"),
            ("w(speed=3): create,close", "is not known"),
            (
                "a(1): create,close | a(2): open,close",
                "two flows are named 'a'",
            ),
            ("open,read:x0,close", "outside x1"),
            ("open,read:x2000000,close", "outside x1"),
            (
                "open,semblock,close",
                "filebench semblock is not an operation",
            ),
        ] {
            let e = one(&parse_flows(s, &["fs"], 1).unwrap_err().0);
            assert!(e.contains(needle) && e.starts_with("--flow"), "{s}: {e}");
        }
    }

    #[test]
    fn direct_and_dsync_go_to_the_open_of_the_steps_file() {
        let f = parse_flows(
            "open,read:4k:direct,close,create@logs,append:16k:dsync,fsync,close,stat",
            &["fs", "logs"],
            1,
        )
        .unwrap();
        let s = &f[0].steps;
        let flags: Vec<(bool, bool)> = s.iter().map(|s| (s.direct, s.dsync)).collect();
        assert_eq!(
            flags,
            [
                (true, false),
                (true, false),
                (false, false),
                (false, true),
                (false, true),
                (false, false),
                (false, false),
                (false, false)
            ]
        );
        let text = flow_text(&f[0], &["fs", "logs"]);
        assert!(
            text.contains("open:direct") && text.contains("append:16k:dsync"),
            "{text}"
        );
        assert_eq!(parse_flows(&text, &["fs", "logs"], 1).unwrap(), f);
        let m = parse_mix("write:64k:direct:dsync:3,read:1", &["fs"]).unwrap();
        assert!(m[0].step.direct && m[0].step.dsync && !m[1].step.direct);
        for bad in ["stat:direct", "open,close:dsync", "delete:dsync"] {
            let e = parse_flows(bad, &["fs"], 1).unwrap_err().0;
            assert!(e.contains("opens none") && !e.contains('\n'), "{bad}: {e}");
        }
    }

    #[test]
    fn file_select_size_and_format() {
        assert_eq!(parse_file_select("seq").unwrap(), FileSelect::Sequential);
        assert_eq!(parse_file_select("random").unwrap(), FileSelect::Uniform);
        assert_eq!(
            parse_file_select("zipf:1.1").unwrap(),
            FileSelect::Zipf(1.1)
        );
        for bad in ["zipf:0", "zipf:x", "skewed", "zipf:inf"] {
            assert!(one(&parse_file_select(bad).unwrap_err().0).contains("--file-select"));
        }
        assert_eq!(parse_file_size("64k").unwrap(), FileSize::Fixed(65536));
        assert_eq!(
            parse_file_size("gamma:128k").unwrap(),
            FileSize::Gamma {
                mean: 131072,
                shape: 1.5
            }
        );
        assert_eq!(
            parse_file_size("gamma:16k:2").unwrap(),
            FileSize::Gamma {
                mean: 16384,
                shape: 2.0
            }
        );
        for bad in ["gamma:0", "gamma:1k:0", "gamma:1k:x", "1q", "gamma:"] {
            assert!(
                one(&parse_file_size(bad).unwrap_err().0).contains("--file-size"),
                "{bad}"
            );
        }
        assert_eq!(parse_format("restart").unwrap(), Format::Restart);
        assert!(parse_format("only").unwrap_err().0.contains("yes"));
    }

    #[test]
    fn rendered_steps_parse_back_to_the_same_workload() {
        let sets = ["data", "logs"];
        for text in [
            "reader(4 rate=200.5 think=10000us): open@logs,read:rand:2k:x100,close,stat@logs,mkdir | w(1): create,write:whole:1m,fsync,close,delete",
            "f(3): open,append:rand:16k,close,open@logs,read:whole:1m,close,rename,readdir",
        ] {
            let flows = parse_flows(text, &sets, 1).unwrap();
            let again: Vec<String> = flows.iter().map(|f| flow_text(f, &sets)).collect();
            assert_eq!(parse_flows(&again.join(" | "), &sets, 1).unwrap(), flows, "{again:?}");
        }
        let m = parse_mix("read:whole:1m:3,stat@logs:2,append:rand:4097:1", &sets).unwrap();
        assert_eq!(parse_mix(&mix_text(&m, &sets), &sets).unwrap(), m);
        assert_eq!(
            mix_text(&m, &sets),
            "read:whole:1m:3,stat@logs:2,append:rand:4097:1"
        );
    }
}
