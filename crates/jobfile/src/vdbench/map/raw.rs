//! vdbench's raw workloads: each `wd` of a run definition on each of its
//! `sd`s becomes one iolab workload (docs/vdbench.md "Raw workloads"):
//! the LUN and its region, the queue depth from the `sd`'s `threads`,
//! the hit area, open flags, the mix (`rdpct`, `seekpct`, `rhpct`,
//! `whpct`, `xfersize`) and the workload's share of the run's rate.

use super::super::{DefKind, VdbDef, VdbFile, VdbParam};
use super::general::{self, General, JOURNAL_DIR};
use super::{loops, num, select, Notes};
use crate::frontend::LoadOptions;
use crate::resolve::JobError;
use iolab_spec::JobOrigin;
use toml::Value;

/// What a run of raw workloads needs to build them.
pub struct Ctx<'a> {
    pub file: &'a VdbFile,
    pub rd: &'a VdbDef,
    /// The values of the run's loops at this point, by loop name.
    pub point: &'a [(String, String)],
    pub general: &'a General,
    pub lo: &'a LoadOptions,
    /// The run has a rate (`iorate=N`): skews share it.
    pub rated: bool,
    /// The run is a curve (`iorate=curve`): its later points have a rate,
    /// which the skews given share.
    pub curve: bool,
    /// The file's hosts (`hd=`): an sd's luns and a wd's `host=` name
    /// them.
    pub hosts: &'a [iolab_spec::HostSpec],
}

/// One workload built, and whether it ends by itself (`seekpct=eof`).
pub struct Built {
    pub keys: toml::Table,
    pub origin: JobOrigin,
    pub eof: bool,
}

/// `sd` keys the mapper reads.
const SD_KEYS: &[&str] = &[
    "lun",
    "size",
    "offset",
    "range",
    "threads",
    "hitarea",
    "openflags",
    "align",
    "journal",
    "host",
];
const SD_UNSUPPORTED: &[(&str, &str)] = &[
    (
        "count",
        "iolab does not replicate storage definitions; write one sd per LUN",
    ),
    (
        "dedupratio",
        "iolab's dedupe is a general setting: write dedupratio= outside the sd",
    ),
    (
        "dedupunit",
        "iolab's dedupe is a general setting: write dedupunit= outside the sd",
    ),
    ("dedupsets", "iolab's dedupe has one set of repeated blocks"),
    ("resetbus", "iolab does not reset devices"),
    ("resetlun", "iolab does not reset devices"),
    ("replay", "iolab does not replay I/O traces"),
    ("streams", "iolab's sequential streams are one per worker"),
];
/// `sd` keys accepted and ignored, with why.
const SD_IGNORED: &[(&str, &str)] = &[
    ("kstat", "Solaris kstat; iolab reads /proc/diskstats"),
    ("instance", "Solaris kstat; iolab reads /proc/diskstats"),
];
const WD_KEYS: &[&str] = &[
    "sd",
    "xfersize",
    "rdpct",
    "readpct",
    "writepct",
    "wrpct",
    "seekpct",
    "rhpct",
    "whpct",
    "skew",
    "iorate",
    "range",
    "openflags",
    "host",
];
const WD_UNSUPPORTED: &[(&str, &str)] = &[
    (
        "stride",
        "iolab's random offsets are uniform over the region (distribution= has others)",
    ),
    (
        "hotband",
        "iolab has no hot band; its distribution=hotspot:IO/SPACE is the nearest",
    ),
    (
        "priority",
        "iolab runs every workload at once; give the rates instead",
    ),
    ("streams", "iolab's sequential streams are one per worker"),
    (
        "threads",
        "vdbench takes threads= on a wd only with concatenatesds=yes, which iolab does not do",
    ),
    ("user", "iolab runs no user classes"),
];

/// Check a definition's keywords: mapped, unsupported, or not known.
fn check_keys(
    def: &VdbDef,
    known: &[&str],
    unsupported: &[(&str, &str)],
    lo: &LoadOptions,
    notes: &mut Notes,
) -> Result<(), JobError> {
    for p in &def.params {
        if known.contains(&p.key.as_str()) {
            continue;
        }
        if let Some((_, why)) = SD_IGNORED
            .iter()
            .find(|(k, _)| *k == p.key && def.kind == DefKind::Storage)
        {
            notes.ignore(&p.key, why);
            continue;
        }
        let what = format!("{}= on {}={}", p.key, def.kind.keyword(), def.name);
        match unsupported.iter().find(|(k, _)| *k == p.key) {
            Some((_, why)) => general::unsupported(p, &what, why, lo, notes)?,
            None => {
                return Err(JobError(format!(
                    "{}: {what} is not a keyword iolab's vdbench front end maps",
                    p.place()
                )))
            }
        }
    }
    Ok(())
}

fn bad(p: &VdbParam, what: &str, msg: &str) -> JobError {
    let v = if p.values.len() == 1 {
        p.values[0].clone()
    } else {
        format!("({})", p.values.join(","))
    };
    JobError(format!("{}: {}={v} ({what}): {msg}", p.place(), p.key))
}

/// `wd=wd1`, for messages.
fn id(def: &VdbDef) -> String {
    format!("{}={}", def.kind.keyword(), def.name)
}

fn first(p: &VdbParam) -> &str {
    p.values.first().map(|s| s.trim()).unwrap_or("")
}

impl Ctx<'_> {
    /// The value of loop `name` at this point, as a parameter placed
    /// where the loop was written.
    fn looped(&self, name: &str) -> Option<VdbParam> {
        let (_, v) = self.point.iter().find(|(n, _)| n == name)?;
        let from = self
            .rd
            .params
            .iter()
            .rev()
            .find(|p| loops::raw_loop(&p.key) == Some(name));
        Some(VdbParam {
            key: from
                .map(|p| p.key.clone())
                .unwrap_or_else(|| name.to_string()),
            values: vec![v.clone()],
            file: from.map(|p| p.file.clone()).unwrap_or_default(),
            line: from.map(|p| p.line).unwrap_or(0),
        })
    }

    /// A workload key: the run's loop, else the wd's, else the sd's.
    fn pick(&self, name: &str, wd: &VdbDef, sd: &VdbDef, key: &str) -> Option<VdbParam> {
        self.looped(name)
            .or_else(|| wd.get(key).cloned())
            .or_else(|| sd.get(key).cloned())
    }

    /// `threads`: the run's loop, else the sd's, else vdbench's 8.
    fn threads(&self, sd: &VdbDef) -> Result<u64, JobError> {
        match self
            .looped("forthreads")
            .or_else(|| sd.get("threads").cloned())
        {
            None => Ok(8),
            Some(p) => match num::whole(first(&p)) {
                Ok(n) if (1..=4096).contains(&n) => Ok(n),
                _ => Err(bad(&p, &id(sd), "threads is 1 to 4096 outstanding I/Os")),
            },
        }
    }
}

/// The workloads of one run of raw workloads.
pub fn workloads(ctx: &Ctx, notes: &mut Notes) -> Result<Vec<Built>, JobError> {
    let rd = ctx.rd;
    let Some(wd_list) = rd.get("wd") else {
        return Err(JobError(format!(
            "{}: rd={} names no workload; add wd=(...) (or fwd= for file systems)",
            rd.place(),
            rd.name
        )));
    };
    let wds = select(ctx.file, DefKind::Workload, wd_list, &rd.name)?;
    let mut pairs: Vec<(&VdbDef, Vec<&VdbDef>)> = Vec::new();
    for wd in &wds {
        check_keys(wd, WD_KEYS, WD_UNSUPPORTED, ctx.lo, notes)?;
        let list = rd.get("sd").or_else(|| wd.get("sd")).ok_or_else(|| {
            JobError(format!(
                "{}: wd={} names no storage; add sd=(...)",
                wd.place(),
                wd.name
            ))
        })?;
        let sds = select(ctx.file, DefKind::Storage, list, &wd.name)?;
        for sd in &sds {
            check_keys(sd, SD_KEYS, SD_UNSUPPORTED, ctx.lo, notes)?;
        }
        pairs.push((wd, sds));
    }
    let skews = skews(ctx, &pairs, notes)?;
    // A curve's later points have a rate: the skews given share it (the
    // planner drops them for its maximum run).
    let emit = ctx.rated || (ctx.curve && pairs.iter().any(|(w, _)| w.get("skew").is_some()));
    let mut out = Vec::new();
    let mut made: Vec<(&VdbDef, &VdbDef)> = Vec::new();
    for (i, (wd, sds)) in pairs.iter().enumerate() {
        for sd in sds {
            made.push((wd, sd));
            let qd = queue_share(ctx, &pairs, wd, sd, notes)?;
            let mut b = workload(ctx, wd, sd, notes)?;
            b.keys.insert("jobs".into(), Value::Integer(1));
            b.keys.insert("qd".into(), Value::Integer(qd as i64));
            share(wd, sds.len(), skews[i], emit, &mut b.keys)?;
            out.push(b);
        }
    }
    validated_alone(ctx, &made, &out)?;
    never_reads(ctx, &out, notes);
    // One workload takes the whole rate: no share to write.
    if let [one] = out.as_mut_slice() {
        one.keys.remove("skew");
    }
    Ok(out)
}

/// Whether the workload validates its data (`validate=`, `-v`, a
/// journal).
fn validates(ctx: &Ctx, b: &Built) -> bool {
    ["verify", "verify_after", "journal"]
        .iter()
        .any(|k| ctx.general.keys.contains_key(*k) || b.keys.contains_key(*k))
}

fn writes(b: &Built) -> bool {
    b.keys.get("read_pct").and_then(Value::as_str) != Some("100")
}

/// vdbench keeps one map of written blocks per sd; iolab one per
/// workload. Two workloads of a run on one LUN, one validating and the
/// other writing, would each see the other's writes as stale: refused
/// here with the file's names (the planner refuses it too).
fn validated_alone(ctx: &Ctx, made: &[(&VdbDef, &VdbDef)], out: &[Built]) -> Result<(), JobError> {
    let target = |b: &Built| match b.keys.get("target") {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Array(a)) => Some(
            a.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(","),
        ),
        _ => None,
    };
    for (i, a) in out.iter().enumerate() {
        if !validates(ctx, a) {
            continue;
        }
        let Some(j) =
            (0..out.len()).find(|&j| j != i && writes(&out[j]) && target(&out[j]) == target(a))
        else {
            continue;
        };
        let ((wa, sa), (wb, sb)) = (made[i], made[j]);
        let at = sa
            .get("lun")
            .map(VdbParam::place)
            .unwrap_or_else(|| sa.place());
        return Err(JobError(format!(
            "{at}: rd={}: wd={} on sd={} and wd={} on sd={} both use lun={} with data validation: vdbench keeps one map of written blocks per sd, iolab one per workload, so each would see the other's writes as stale; validate with one wd per lun (e.g. rd=...,wd={}), or drop validate=/-v/-j",
            ctx.rd.name,
            wa.name,
            sa.name,
            wb.name,
            sb.name,
            target(a).unwrap_or_default(),
            wa.name
        )));
    }
    Ok(())
}

/// A validating run that never reads checks nothing while it runs.
fn never_reads(ctx: &Ctx, out: &[Built], notes: &mut Notes) {
    if out.iter().any(|b| validates(ctx, b))
        && out
            .iter()
            .all(|b| b.keys.get("read_pct").and_then(Value::as_str) == Some("0"))
    {
        notes.once(format!(
            "rd={}: data validation with rdpct=0 reads nothing back, so nothing is validated during the run; check what it wrote afterwards with `iolab verify --target LUN` (against the journal with -j) or a second run that reads it (rdpct=100 with the same validation)",
            ctx.rd.name
        ));
    }
}

/// The queue depth of workload (wd, sd): the sd's `threads` (its
/// outstanding I/Os under vdbench) split over the run's workloads on it,
/// the first ones taking the remainder.
fn queue_share(
    ctx: &Ctx,
    pairs: &[(&VdbDef, Vec<&VdbDef>)],
    wd: &VdbDef,
    sd: &VdbDef,
    notes: &mut Notes,
) -> Result<u64, JobError> {
    let threads = ctx.threads(sd)?;
    let users: Vec<&str> = pairs
        .iter()
        .filter(|(_, sds)| sds.iter().any(|s| s.name == sd.name))
        .map(|(w, _)| w.name.as_str())
        .collect();
    let n = users.len().max(1) as u64;
    let me = users.iter().position(|w| *w == wd.name).unwrap_or(0) as u64;
    let q = threads / n + u64::from(me < threads % n);
    if q == 0 {
        notes.once(format!(
            "sd={}: threads={threads} is fewer than the {n} workloads on it; each gets one outstanding I/O",
            sd.name
        ));
        return Ok(1);
    }
    Ok(q)
}

/// Each wd's skew as vdbench computes it: its own, or an even part of
/// what the others leave; `None` for a wd with its own `iorate`.
fn skews(
    ctx: &Ctx,
    pairs: &[(&VdbDef, Vec<&VdbDef>)],
    notes: &mut Notes,
) -> Result<Vec<Option<f64>>, JobError> {
    let mut given = Vec::new();
    for (wd, _) in pairs {
        let skew = wd.get("skew");
        if let (Some(s), Some(_)) = (skew, wd.get("iorate")) {
            return Err(bad(s, &id(wd), "a wd takes iorate= or skew=, not both"));
        }
        given.push(match skew {
            Some(p) => Some(
                num::pct(first(p))
                    .ok()
                    .filter(|s| *s > 0.0)
                    .ok_or_else(|| bad(p, &id(wd), "skew is a percentage above 0"))?,
            ),
            None => None,
        });
    }
    if !ctx.rated && !ctx.curve && given.iter().any(Option::is_some) {
        notes.once("skew= shares a rate: with iorate=max (or curve's first run) iolab runs every workload as fast as it goes");
    }
    let open: Vec<usize> = (0..pairs.len())
        .filter(|&i| given[i].is_none() && pairs[i].0.get("iorate").is_none())
        .collect();
    let total: f64 = given.iter().flatten().sum();
    if total > 100.0001 || (open.is_empty() && given.iter().any(Option::is_some) && total < 99.9999)
    {
        return Err(JobError(format!(
            "{}: rd={}: the skews of its workloads add up to {}; vdbench's add up to 100",
            ctx.rd.place(),
            ctx.rd.name,
            num::fmt_num(total)
        )));
    }
    let rest = if open.is_empty() {
        0.0
    } else {
        (100.0 - total) / open.len() as f64
    };
    Ok((0..pairs.len())
        .map(|i| {
            if open.contains(&i) {
                Some(rest)
            } else {
                given[i]
            }
        })
        .collect())
}

/// The workload's part of the run's rate: its skew (split over its sds)
/// on a run with a rate, or its wd's own `iorate` (split likewise).
fn share(
    wd: &VdbDef,
    n_sd: usize,
    skew: Option<f64>,
    emit: bool,
    keys: &mut toml::Table,
) -> Result<(), JobError> {
    let n = n_sd.max(1) as f64;
    if let Some(p) = wd.get("iorate") {
        let r = num::number(first(p))
            .ok()
            .filter(|r| *r > 0.0)
            .ok_or_else(|| {
                bad(
                    p,
                    &wd.name,
                    "a wd's iorate is one number of I/Os per second",
                )
            })?;
        keys.insert("rate".into(), Value::String(num::fmt_num(r / n)));
        return Ok(());
    }
    if let Some(s) = skew.filter(|_| emit) {
        let v = ((s / n) * 10000.0).round() / 10000.0;
        keys.insert("skew".into(), Value::Float(v));
    }
    Ok(())
}

/// One workload: `wd` on `sd`.
fn workload(ctx: &Ctx, wd: &VdbDef, sd: &VdbDef, notes: &mut Notes) -> Result<Built, JobError> {
    let mut k = toml::Table::new();
    k.insert(
        "name".into(),
        Value::String(format!("{}/{}", wd.name, sd.name)),
    );
    let target = match super::hosts::targets(wd, sd, ctx.hosts)?.as_slice() {
        [one] => Value::String(one.clone()),
        many => Value::Array(many.iter().cloned().map(Value::String).collect()),
    };
    k.insert("target".into(), target);
    let sizes = xfersizes(ctx, wd, sd, &mut k)?;
    let eof = mix(ctx, wd, sd, &mut k, notes)?;
    let region = region(ctx, wd, sd, &mut k, notes)?;
    if eof {
        end_at_eof(wd, sd, region, &mut k)?;
    }
    hits(ctx, wd, sd, (region, &sizes), &mut k)?;
    openflags(ctx, wd, sd, &mut k, notes)?;
    if let Some(p) = sd.get("align") {
        let a = num::size(first(p)).map_err(|m| bad(p, &id(sd), &m))?;
        k.insert("align".into(), Value::String(num::iolab_size(a)));
    }
    data(ctx, &sizes, &mut k)?;
    if let (Some(p), true) = (sd.get("journal"), ctx.general.keys.contains_key("journal")) {
        let dir = first(p).trim_end_matches('/');
        k.insert(
            "journal".into(),
            Value::String(format!("{dir}/{JOURNAL_DIR}")),
        );
    }
    let origin = origin(ctx, wd, sd);
    Ok(Built {
        keys: k,
        origin,
        eof,
    })
}

fn origin(ctx: &Ctx, wd: &VdbDef, sd: &VdbDef) -> JobOrigin {
    let text = |p: &VdbParam| {
        if p.values.len() == 1 {
            p.values[0].clone()
        } else {
            format!("({})", p.values.join(","))
        }
    };
    let mut options: Vec<(String, String)> = Vec::new();
    for def in [sd, wd, ctx.rd] {
        for p in &def.params {
            options.push((p.key.clone(), text(p)));
        }
    }
    for (n, v) in ctx.point {
        options.push((n.clone(), v.clone()));
    }
    JobOrigin {
        format: "vdbench".into(),
        file: Some(ctx.rd.file.clone()).filter(|f| !f.is_empty()),
        section: format!("{}/{}/{}", ctx.rd.name, wd.name, sd.name),
        options,
        group: 0,
        group_reporting: false,
    }
}

/// `xfersize`: one size, `(size,pct,...)` or `(min,max,align)`, as
/// iolab's `bs`; the sizes it may take.
fn xfersizes(
    ctx: &Ctx,
    wd: &VdbDef,
    sd: &VdbDef,
    k: &mut toml::Table,
) -> Result<Vec<u64>, JobError> {
    let Some(p) = ctx.pick("forxfersize", wd, sd, "xfersize") else {
        k.insert("bs".into(), Value::String("4k".into()));
        return Ok(vec![4096]);
    };
    let what = &id(wd);
    let size = |v: &str| -> Result<u64, JobError> {
        let b = num::size(v).map_err(|m| bad(&p, what, &m))?;
        if b == 0 || b % 512 != 0 {
            return Err(bad(&p, what, "a transfer size is a multiple of 512 bytes"));
        }
        Ok(b)
    };
    let vals: Vec<&str> = p.values.iter().map(|v| v.trim()).collect();
    let (bs, sizes) = match vals.len() {
        1 => {
            let b = size(vals[0])?;
            (num::iolab_size(b), vec![b])
        }
        3 => {
            let (lo, hi, al) = (size(vals[0])?, size(vals[1])?, size(vals[2])?);
            if lo >= hi {
                return Err(bad(&p, what, "(min,max,align) needs min below max"));
            }
            let (first, last) = (lo.div_ceil(al), hi / al);
            if last < first || last - first >= 64 {
                return Err(bad(&p, what, "(min,max,align) gives 1 to 64 sizes in iolab's block-size mix; choose a larger align"));
            }
            let sizes: Vec<u64> = (first..=last).map(|m| m * al).collect();
            let mix: Vec<String> = sizes
                .iter()
                .map(|b| format!("{}:1", num::iolab_size(*b)))
                .collect();
            (mix.join(","), sizes)
        }
        n if n % 2 == 0 && n <= 128 => distribution(&p, what, &vals, &size)?,
        _ => {
            return Err(bad(
                &p,
                what,
                "xfersize is a size, (size,pct,size,pct,...) or (min,max,align)",
            ))
        }
    };
    k.insert("bs".into(), Value::String(bs));
    Ok(sizes)
}

type SizeFn<'a> = dyn Fn(&str) -> Result<u64, JobError> + 'a;

/// `(size,pct,size,pct,...)` as a weighted mix (`4k:25,8k:75`).
fn distribution(
    p: &VdbParam,
    what: &str,
    vals: &[&str],
    size: &SizeFn,
) -> Result<(String, Vec<u64>), JobError> {
    let mut pairs = Vec::new();
    for c in vals.chunks(2) {
        let pct = num::pct(c[1]).map_err(|m| bad(p, what, &m))?;
        pairs.push((size(c[0])?, pct));
    }
    let total: f64 = pairs.iter().map(|(_, w)| w).sum();
    if (total - 100.0).abs() > 0.5 {
        return Err(bad(
            p,
            what,
            &format!("the percentages add up to {}, not 100", num::fmt_num(total)),
        ));
    }
    // Weights are whole numbers in iolab's mix: scale fractions up.
    let scale = [1.0, 10.0, 100.0, 1000.0]
        .into_iter()
        .find(|s| pairs.iter().all(|(_, w)| (w * s).fract().abs() < 1e-9))
        .unwrap_or(1000.0);
    let mix: Vec<String> = pairs
        .iter()
        .filter(|(_, w)| *w > 0.0)
        .map(|(b, w)| format!("{}:{}", num::iolab_size(*b), (w * scale).round() as u64))
        .collect();
    Ok((mix.join(","), pairs.iter().map(|(b, _)| *b).collect()))
}

/// `rdpct` and `seekpct`; whether the workload reads or writes once to
/// the end (`seekpct=eof`).
fn mix(
    ctx: &Ctx,
    wd: &VdbDef,
    sd: &VdbDef,
    k: &mut toml::Table,
    notes: &mut Notes,
) -> Result<bool, JobError> {
    let read = match ctx.looped("forrdpct") {
        Some(p) => Some((
            num::whole_pct(first(&p)).map_err(|m| bad(&p, &id(wd), &m))?,
            p,
        )),
        None => match (
            wd.get("rdpct").or(wd.get("readpct")),
            wd.get("writepct").or(wd.get("wrpct")),
        ) {
            (Some(p), _) => Some((
                num::whole_pct(first(p)).map_err(|m| bad(p, &id(wd), &m))?,
                p.clone(),
            )),
            (None, Some(p)) => Some((
                100.0 - num::whole_pct(first(p)).map_err(|m| bad(p, &id(wd), &m))?,
                p.clone(),
            )),
            (None, None) => None,
        },
    };
    let read_pct = read.as_ref().map(|(r, _)| *r).unwrap_or(100.0);
    k.insert("read_pct".into(), Value::String(num::fmt_num(read_pct)));
    let Some(p) = ctx.pick("forseekpct", wd, sd, "seekpct") else {
        k.insert("random_pct".into(), Value::String("100".into()));
        rw(k, read_pct, 100.0);
        return Ok(false);
    };
    let v = first(&p).to_ascii_lowercase();
    let (random, eof) = if v == "eof" || v == "-1" {
        (0.0, true)
    } else if v == "seqnz" {
        notes.once("seekpct=seqnz: iolab's sequential stream starts at the region's start");
        (0.0, false)
    } else if !v.is_empty() && "sequential".starts_with(&v) {
        (0.0, false)
    } else if !v.is_empty() && "random".starts_with(&v) {
        (100.0, false)
    } else if !v.is_empty() && "poisson".starts_with(&v) {
        general::unsupported(
            &p,
            "seekpct=poisson",
            "iolab's seeks are a share of I/Os (0-100) or sequential",
            ctx.lo,
            notes,
        )?;
        (100.0, false)
    } else {
        (
            num::whole_pct(&v).map_err(|_| {
                bad(
                    &p,
                    &id(wd),
                    "seekpct is a whole percentage 0-100, sequential (seq), random, eof or seqnz",
                )
            })?,
            false,
        )
    };
    k.insert("random_pct".into(), Value::String(num::fmt_num(random)));
    rw(k, read_pct, random);
    Ok(eof)
}

/// iolab's `rw` for the mix (its label in plans and reports;
/// `read_pct` and `random_pct` set the mix itself).
fn rw(k: &mut toml::Table, read_pct: f64, random: f64) {
    let dir = if read_pct >= 100.0 {
        "read"
    } else if read_pct <= 0.0 {
        "write"
    } else {
        "rw"
    };
    let mode = match (random > 0.0, dir) {
        (false, d) => d.to_string(),
        (true, "rw") => "randrw".to_string(),
        (true, d) => format!("rand{d}"),
    };
    k.insert("rw".into(), Value::String(mode));
}

/// `seekpct=eof`: once through the region, then the workload ends.
fn end_at_eof(
    wd: &VdbDef,
    sd: &VdbDef,
    region: Option<u64>,
    k: &mut toml::Table,
) -> Result<(), JobError> {
    match region {
        Some(len) => {
            k.insert("io_size".into(), Value::String(num::iolab_size(len)));
        }
        None if k.get("read_pct").and_then(Value::as_str) == Some("0") => {
            k.insert("fill".into(), Value::Boolean(true));
        }
        None => {
            return Err(JobError(format!(
                "{}: wd={} reads with seekpct=eof on sd={}, whose size iolab does not know while planning; give the sd a size= (or rdpct=0 to write to the end)",
                wd.place(),
                wd.name,
                sd.name
            )))
        }
    }
    Ok(())
}

/// `size`, `offset`, the sd's and the wd's `range=(min,max)` (percent of
/// the sd, then of what the sd's range leaves): iolab's `size`, `offset`
/// and `range`, the region's length when known.
fn region(
    ctx: &Ctx,
    wd: &VdbDef,
    sd: &VdbDef,
    k: &mut toml::Table,
    notes: &mut Notes,
) -> Result<Option<u64>, JobError> {
    let size = match sd.get("size") {
        Some(p) => Some(num::size(first(p)).map_err(|m| bad(p, &id(sd), &m))?),
        None => None,
    };
    let offset = match sd.get("offset") {
        Some(p) => num::size(first(p)).map_err(|m| bad(p, &id(sd), &m))?,
        None => 0,
    };
    let mut base = offset;
    let mut len = size;
    for (def, p) in [(sd, sd.get("range")), (wd, wd.get("range"))] {
        let Some(p) = p else { continue };
        let (a, b) = match p.values.as_slice() {
            [a, b] => (
                num::pct(a).map_err(|m| bad(p, &id(def), &m))?,
                num::pct(b).map_err(|m| bad(p, &id(def), &m))?,
            ),
            _ => {
                return Err(bad(
                    p,
                    &def.name,
                    "range is (min,max), percentages of the sd",
                ))
            }
        };
        if a >= b {
            return Err(bad(p, &id(def), "range=(min,max) needs min below max"));
        }
        let Some(l) = len else {
            general::unsupported(p, &format!("range= on {}={} without the sd's size=", def.kind.keyword(), def.name), "iolab places a range in bytes and reads no target while planning; give the sd a size=", ctx.lo, notes)?;
            continue;
        };
        // Round to 4 KiB, which O_DIRECT accepts on every device.
        let from = ((l as f64 * a / 100.0) as u64).div_ceil(4096) * 4096;
        let to = ((l as f64 * b / 100.0) as u64) / 4096 * 4096;
        if to <= from {
            return Err(bad(p, &id(def), "leaves less than 4 KiB of the sd"));
        }
        base += from;
        len = Some(to - from);
    }
    if let Some(l) = len {
        let end = base.saturating_add(l);
        k.insert("size".into(), Value::String(num::iolab_size(end)));
        if base > 0 {
            k.insert("offset".into(), Value::String(num::iolab_size(base)));
            k.insert("range".into(), Value::String(num::iolab_size(l)));
        }
    } else if base > 0 {
        k.insert("offset".into(), Value::String(num::iolab_size(base)));
    }
    Ok(len)
}

/// `rhpct`, `whpct` and the sd's `hitarea` (vdbench's default 1m),
/// checked against the region's length (when known) and the largest
/// transfer size.
fn hits(
    ctx: &Ctx,
    wd: &VdbDef,
    sd: &VdbDef,
    (region, sizes): (Option<u64>, &[u64]),
    k: &mut toml::Table,
) -> Result<(), JobError> {
    let mut hit: Option<VdbParam> = None;
    for (lp, key, ours) in [
        ("forrhpct", "rhpct", "read_hit_pct"),
        ("forwhpct", "whpct", "write_hit_pct"),
    ] {
        let Some(p) = ctx.looped(lp).or_else(|| wd.get(key).cloned()) else {
            continue;
        };
        let v = num::whole_pct(first(&p)).map_err(|m| bad(&p, &id(wd), &m))?;
        if v > 0.0 {
            k.insert(ours.into(), Value::String(num::fmt_num(v)));
            hit.get_or_insert(p);
        }
    }
    let area = ctx
        .looped("forhitarea")
        .or_else(|| sd.get("hitarea").cloned());
    let bytes = match &area {
        Some(p) => num::size(first(p)).map_err(|m| bad(p, &id(sd), &m))?,
        None => 1 << 20,
    };
    if let (Some(h), Some(a), 0) = (&hit, &area, bytes) {
        return Err(bad(
            h,
            &id(wd),
            &format!(
                "hits need a hit area, and sd={}'s hitarea=0 ({}) leaves none; give the sd a hitarea= (vdbench's default is 1m)",
                sd.name,
                a.place()
            ),
        ));
    }
    if hit.is_none() && area.is_none() {
        return Ok(());
    }
    let at = |msg: String| match &area {
        Some(p) => bad(p, &id(sd), &msg),
        None => JobError(format!("{}: sd={}: {msg}", sd.place(), sd.name)),
    };
    if let Some(len) = region.filter(|&l| bytes > l) {
        return Err(at(format!(
            "the hit area of {} is larger than the sd's region of {}; give a smaller hitarea= or a larger size=",
            num::iolab_size(bytes),
            num::iolab_size(len)
        )));
    }
    let max_bs = sizes.iter().copied().max().unwrap_or(0);
    if bytes > 0 && bytes < max_bs {
        return Err(at(format!(
            "the hit area of {} is smaller than the transfer size {} of wd={}, so no I/O fits in it; give a larger hitarea=",
            num::iolab_size(bytes),
            num::iolab_size(max_bs),
            wd.name
        )));
    }
    k.insert("hit_area".into(), Value::String(num::iolab_size(bytes)));
    Ok(())
}

/// `openflags` of the rd, else the wd, else the sd.
fn openflags(
    ctx: &Ctx,
    wd: &VdbDef,
    sd: &VdbDef,
    k: &mut toml::Table,
    notes: &mut Notes,
) -> Result<(), JobError> {
    let Some(p) = ctx
        .rd
        .get("openflags")
        .or_else(|| wd.get("openflags"))
        .or_else(|| sd.get("openflags"))
    else {
        return Ok(());
    };
    for f in &p.values {
        match f.trim().to_ascii_lowercase().as_str() {
            "o_direct" | "directio" => {
                k.insert("direct".into(), Value::Boolean(true));
            }
            "o_dsync" | "dsync" => {
                k.insert("sync".into(), Value::String("dsync".into()));
            }
            "o_sync" | "sync" => {
                k.insert("sync".into(), Value::String("dsync".into()));
                notes.once(
                    "openflags=o_sync runs as O_DSYNC: every write is durable when it completes",
                );
            }
            "fsync" => {
                k.insert("end_fsync".into(), Value::Boolean(true));
                notes.once(
                    "openflags=fsync: iolab fsyncs each target it wrote when the workload ends",
                );
            }
            other => general::unsupported(
                p,
                &format!("openflags={other}"),
                "iolab takes o_direct (directio), o_dsync, o_sync and fsync",
                ctx.lo,
                notes,
            )?,
        }
    }
    Ok(())
}

/// `compratio` (the run's loop, else the general one) and `dedupratio`.
fn data(ctx: &Ctx, sizes: &[u64], k: &mut toml::Table) -> Result<(), JobError> {
    let comp = ctx
        .looped("forcompratio")
        .or_else(|| ctx.general.compratio.clone());
    if let Some(p) = comp {
        let r = general::compratio(&p)?;
        if r > 1.0 {
            k.insert(
                "data".into(),
                Value::String(format!("compress:{}", num::fmt_num(r))),
            );
        }
    }
    if let Some((share, unit, p)) = &ctx.general.dedupe {
        if sizes.iter().any(|b| b != unit) {
            return Err(bad(
                p,
                "general",
                "iolab dedupes whole blocks: dedupunit= must equal every xfersize of the run",
            ));
        }
        k.insert("dedupe".into(), Value::Integer(share.round() as i64));
    }
    Ok(())
}
