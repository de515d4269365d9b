//! vdbench's file-system definitions (`fsd`) and workloads (`fwd`) as
//! iolab's file-system job keys (docs/vdbench-fs.md, docs/filesystem.md).
//!
//! One iolab workload per `fsd` a run definition's `fwd`s use: the fsd's
//! anchor tree is its fileset (`dir`, `depth`, `width`, `files` counted
//! in all, `sizes`), and each `fwd` on it is a named flow of that
//! workload with the fwd's threads and its share of `fwdrate`, so the
//! fwds share one fileset as vdbench's workload groups share an anchor
//! (two iolab workloads on one anchor would each lay it out). A flow's
//! steps are the fwd's operation as vdbench does it on one file:
//! `open,read:whole:XFER,close` for a sequential read, `open,read:rand:
//! XFER:xN,close` for random reads (N transfers, vdbench's `stopafter`,
//! by default the file's size), `create,write:whole:XFER,close` for a
//! create, `delete`, `mkdir`, ... What iolab's file workloads cannot do
//! is refused with the keyword, the definition and the place.

use super::super::{DefKind, VdbDef, VdbFile, VdbParam};
use super::general::unsupported;
use super::{num, select, Notes};
use crate::frontend::LoadOptions;
use crate::resolve::JobError;
use toml::Value;

/// The file-system loops of a run definition: the keywords that make
/// them (the `for` name or the plain one, as vdbench's `checkForLoop`)
/// and their loop's name.
const FS_LOOPS: &[(&str, &str)] = &[
    ("fordepth", "fordepth"),
    ("depth", "fordepth"),
    ("forwidth", "forwidth"),
    ("width", "forwidth"),
    ("forfiles", "forfiles"),
    ("files", "forfiles"),
    ("forsizes", "forsizes"),
    ("sizes", "forsizes"),
    ("fortotalsize", "fortotalsize"),
    ("totalsize", "fortotalsize"),
    ("forwss", "forwss"),
    ("wss", "forwss"),
    ("foroperations", "foroperations"),
];

/// A range list expands to at most this many values.
const MAX_RANGE: usize = 4096;

/// iolab's bound of a flow step's repeat count (`xN`).
const MAX_REPEAT: u64 = 1_000_000;

/// One file-system workload of a run: its keys, its fsd and the fwds
/// that run on it (its flows, in order).
pub struct FsWorkload<'f> {
    pub keys: toml::Table,
    pub fsd: &'f VdbDef,
    pub fwds: Vec<&'f VdbDef>,
}

/// The iolab job keys (a TOML table, as an iolab job file's
/// `[[run.workload]]` would say) of one `fwd` as run by a run definition
/// (its fsd's fileset with the fwd as its one flow): see [`workloads`],
/// which a run with several fwds on one fsd needs. A fwd on several fsds
/// is refused here.
pub fn fwd_workload(
    file: &VdbFile,
    rd: &VdbDef,
    fwd: &VdbDef,
    point: &[(String, String)],
) -> Result<toml::Table, JobError> {
    let mut notes = Notes::default();
    let mut w = workloads(file, rd, &[fwd], point, &LoadOptions::default(), &mut notes)?;
    if w.len() != 1 {
        return Err(JobError(format!(
            "{}: fwd={} runs on {} fsds; map the run with map::map",
            fwd.place(),
            fwd.name,
            w.len()
        )));
    }
    Ok(w.remove(0).keys)
}

/// The run keys of a file-system run definition: `format` (vdbench's
/// `format=no|yes|restart|once`; `elapsed`, `interval` and `warmup` are
/// the run's clock, read with the raw runs'), as a TOML table.
/// `format=only`, `clean`, `directories`, `limited` and `complete` are
/// refused.
pub fn fs_run_keys(rd: &VdbDef) -> Result<toml::Table, JobError> {
    let mut t = toml::Table::new();
    if let Some(p) = rd.get("format") {
        t.insert("format".into(), Value::String(format_of(rd, p)?.into()));
    }
    Ok(t)
}

/// `format=` as iolab's `format`.
fn format_of(rd: &VdbDef, p: &VdbParam) -> Result<&'static str, JobError> {
    let mut out = "no";
    for v in &p.values {
        let v = v.trim().to_ascii_lowercase();
        let why = match v.as_str() {
            "restart" => {
                out = "restart";
                continue;
            }
            // vdbench formats once before the first run of the loops;
            // restart keeps what is made and makes what is missing.
            "once" => {
                out = "restart";
                continue;
            }
            "only" => "iolab creates the files before each run and then runs it; for the files alone give format=yes and a short elapsed=",
            "clean" => "iolab removes a fileset after its run with cleanup (--cleanup), not before one",
            "limited" | "complete" => "iolab creates every file of the layout whole",
            _ if !v.is_empty() && "directories".starts_with(&v) && v.len() > 1 => {
                "iolab creates the directories and the files together"
            }
            _ if !v.is_empty() && "yes".starts_with(&v) => {
                out = "yes";
                continue;
            }
            _ if !v.is_empty() && "no".starts_with(&v) => continue,
            _ => "format= is yes, no, restart or once",
        };
        return Err(JobError(format!(
            "{}: rd={}: format={v}: {why}",
            p.place(),
            rd.name
        )));
    }
    Ok(out)
}

/// The `for*` loops a file-system run definition adds (`foroperations`,
/// `fordepth`, `forwidth`, `forfiles`, `forsizes`, `fortotalsize`,
/// `forwss`, the plain `depth=(1,2)` ... too, and a list of rates
/// `fwdrate=(100,200)` as `forfwdrate`), as (keyword, values), in the
/// order written; ranges (`(1-4,1)`, `(1k-8k,d)`) expanded.
pub fn fs_loops(rd: &VdbDef) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for p in &rd.params {
        let name = match FS_LOOPS.iter().find(|(k, _)| *k == p.key) {
            Some((_, l)) => *l,
            None if p.key == "fwdrate" && p.values.len() > 1 => "forfwdrate",
            None => continue,
        };
        let values = expand_ranges(&p.values).unwrap_or_else(|_| p.values.clone());
        out.retain(|(n, _)| n != name);
        out.push((name.to_string(), values));
    }
    out
}

/// vdbench's ranges in a list: `a-b,step` counts from a to b by step,
/// `a-b,d` doubles (or halves) from a to b; other values as written.
pub fn expand_ranges(values: &[String]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < values.len() {
        let v = values[i].trim();
        let Some((a, b)) = v.split_once('-').filter(|(a, _)| !a.is_empty()) else {
            out.push(v.to_string());
            i += 1;
            continue;
        };
        let step = values.get(i + 1).map(|s| s.trim()).unwrap_or("");
        let (lo, hi) = (num::size(a)?, num::size(b)?);
        let (mut x, mut n) = (lo, 0usize);
        while n <= MAX_RANGE {
            out.push(if a.ends_with(char::is_alphabetic) {
                num::iolab_size(x)
            } else {
                x.to_string()
            });
            n += 1;
            let next = if step == "d" {
                if lo <= hi {
                    x.saturating_mul(2)
                } else {
                    x / 2
                }
            } else {
                let s = num::size(step).ok().filter(|s| *s > 0).ok_or_else(|| {
                    format!(
                        "the range {v} needs a step after it, a number or d (doubling): ({v},1)"
                    )
                })?;
                if lo <= hi {
                    x.saturating_add(s)
                } else {
                    x.saturating_sub(s)
                }
            };
            let past = if lo <= hi {
                next > hi || next == x
            } else {
                next < hi || next == x
            };
            if past {
                break;
            }
            x = next;
        }
        if out.len() > MAX_RANGE {
            return Err(format!("the range {v} makes more than {MAX_RANGE} values"));
        }
        i += 2;
    }
    Ok(out)
}

/// The value of loop `name` at this point.
fn at<'p>(point: &'p [(String, String)], name: &str) -> Option<&'p str> {
    point
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// `rd` keywords a file-system run reads (besides the loops).
const RD_FS_KEYS: &[&str] = &[
    "fwd",
    "fwdrate",
    "format",
    "elapsed",
    "interval",
    "warmup",
    "pause",
    "operations",
    "openflags",
    "xfersize",
    "forxfersize",
    "threads",
    "forthreads",
    "rdpct",
    "forrdpct",
];

/// `rd` keywords of raw runs, or that iolab cannot honour, with why.
const RD_FS_UNSUPPORTED: &[(&str, &str)] = &[
    ("maxdata", "iolab ends a run by time or by --ops/--io-size"),
    ("maxdataread", "iolab ends a run by time or by --ops/--io-size"),
    ("maxdatawritten", "iolab ends a run by time or by --ops/--io-size"),
    ("startcmd", "iolab runs no commands around a run"),
    ("endcmd", "iolab runs no commands around a run"),
    ("mount", "iolab does not mount file systems"),
    ("replay", "iolab does not replay I/O traces"),
    ("distribution", "a file-system run's operations follow each other (fwdrate spaces them evenly)"),
    ("fsd", "the fwds name their fsds; iolab does not narrow them on the rd: remove fsd= from the rd"),
    ("fortotalsize", "iolab's fileset has a fixed number of files: give files= instead of totalsize="),
    ("forwss", "iolab's operations use every file of the fileset: give fewer files= instead of a working set"),
];

/// Refuse the run definition's keywords a file-system run cannot use.
fn check_rd(rd: &VdbDef, lo: &LoadOptions, notes: &mut Notes) -> Result<(), JobError> {
    for p in &rd.params {
        let k = p.key.as_str();
        let unsupported_entry = RD_FS_UNSUPPORTED
            .iter()
            .find(|(u, _)| *u == k || u.strip_prefix("for") == Some(k));
        let is_loop = FS_LOOPS.iter().any(|(l, _)| *l == k);
        if RD_FS_KEYS.contains(&k) || (is_loop && unsupported_entry.is_none()) {
            continue;
        }
        let what = format!("{k}= on rd={}", rd.name);
        let Some((_, why)) = unsupported_entry else {
            return Err(JobError(format!(
                "{}: {what}: a run of fwd= workloads takes fwdrate, format, elapsed, interval, warmup, pause, operations, openflags, xfersize, threads, rdpct and the file-system loops; {k}= is for raw (sd/wd) runs: remove it",
                p.place()
            )));
        };
        unsupported(p, &what, why, lo, notes)?;
    }
    if let Some(p) = rd.get("fwdrate") {
        let first = p.values.first().map(|v| v.trim().to_ascii_lowercase());
        if first.as_deref() == Some("curve") {
            return Err(JobError(format!(
                "{}: rd={}: fwdrate=curve: iolab runs vdbench's curve for raw runs (iorate=curve); give the rates as a list, fwdrate=(100,200,400)",
                p.place(),
                rd.name
            )));
        }
    }
    Ok(())
}

/// The file-system workloads of run definition `rd` at one point of its
/// loops: one per fsd its `fwds` use, in the order first used, each fwd
/// a flow of it (a fwd on several fsds splits its threads among them, as
/// vdbench).
pub fn workloads<'f>(
    file: &'f VdbFile,
    rd: &VdbDef,
    fwds: &[&'f VdbDef],
    point: &[(String, String)],
    lo: &LoadOptions,
    notes: &mut Notes,
) -> Result<Vec<FsWorkload<'f>>, JobError> {
    check_rd(rd, lo, notes)?;
    // vdbench's `fwd=format` only tunes its format run.
    let fwds: Vec<&'f VdbDef> = fwds
        .iter()
        .copied()
        .filter(|f| f.name != "format")
        .collect();
    if fwds.is_empty() {
        return Err(JobError(format!(
            "{}: rd={}: fwd=format only sets how vdbench formats; name the fwds to run",
            rd.place(),
            rd.name
        )));
    }
    if file.of(DefKind::FsWorkload).any(|f| f.name == "format") {
        notes.once("fwd=format sets the threads and transfer size of vdbench's format run; iolab makes the files with its own threads");
    }
    let fwds = fwds.as_slice();
    let ops = operations(rd, point)?;
    let mut groups: Vec<FsWorkload<'f>> = Vec::new();
    let mut flows: Vec<Vec<FlowOf>> = Vec::new();
    let shares = rate_shares(rd, fwds, point, ops.len())?;
    for (fwd, share) in fwds.iter().zip(shares) {
        let Some(list) = fwd.get("fsd") else {
            return Err(JobError(format!(
                "{}: fwd={} names no fsd=; add fsd=NAME (the file-system definition it works on)",
                fwd.place(),
                fwd.name
            )));
        };
        let fsds = select(
            file,
            DefKind::FileSystem,
            list,
            &format!("fwd={}", fwd.name),
        )?;
        for fsd in &fsds {
            let i = match groups.iter().position(|g| std::ptr::eq(g.fsd, *fsd)) {
                Some(i) => i,
                None => {
                    groups.push(FsWorkload {
                        keys: toml::Table::new(),
                        fsd,
                        fwds: Vec::new(),
                    });
                    flows.push(Vec::new());
                    groups.len() - 1
                }
            };
            groups[i].fwds.push(fwd);
            let ctx = FwdCtx {
                rd,
                fwd,
                fsd,
                point,
                n_fsds: fsds.len(),
                share: share.map(|r| r / fsds.len() as f64),
            };
            flows[i].extend(fwd_flows(&ctx, &ops, notes)?);
        }
    }
    for (g, f) in groups.iter_mut().zip(flows) {
        finish(g, &f, rd, point, lo, notes)?;
    }
    distinct_anchors(rd, &groups)?;
    Ok(groups)
}

/// A workload's keys: its fsd's fileset, its flows and what they share.
fn finish(
    g: &mut FsWorkload,
    f: &[FlowOf],
    rd: &VdbDef,
    point: &[(String, String)],
    lo: &LoadOptions,
    notes: &mut Notes,
) -> Result<(), JobError> {
    g.keys = fsd_keys(g.fsd, rd, point, lo, notes)?;
    same_for_all(f, "fileselect", |x| x.select.clone(), rd, g.fsd)?;
    same_for_all(f, "openflags", |x| x.flags, rd, g.fsd)?;
    apply_flags(&mut g.keys, &f[0].flags, g.fsd);
    g.keys
        .insert("file_select".into(), Value::String(f[0].select.clone()));
    let text: Vec<String> = f.iter().map(|x| x.text.clone()).collect();
    g.keys
        .insert("flow".into(), Value::String(text.join(" | ")));
    let names: Vec<&str> = g.fwds.iter().map(|d| d.name.as_str()).collect();
    g.keys.insert(
        "name".into(),
        Value::String(format!("{}/{}", names.join("+"), g.fsd.name)),
    );
    Ok(())
}

/// The fsds of a run lay out trees of their own: two on one anchor (or
/// one inside the other's) would lay out one tree twice at once, each
/// with its shape. vdbench keeps one tree per anchor; refused here.
fn distinct_anchors(rd: &VdbDef, groups: &[FsWorkload]) -> Result<(), JobError> {
    let anchor = |g: &FsWorkload| -> Option<(String, String)> {
        let p = g.fsd.get("anchor")?;
        let a = p.values.first()?.trim().trim_end_matches('/').to_string();
        Some((a, p.place()))
    };
    for (i, a) in groups.iter().enumerate() {
        for b in &groups[i + 1..] {
            let (Some((da, pa)), Some((db, pb))) = (anchor(a), anchor(b)) else {
                continue;
            };
            let inside = |x: &str, y: &str| x.starts_with(&format!("{y}/"));
            let how = if da == db {
                "the same anchor as"
            } else if inside(&db, &da) || inside(&da, &db) {
                "an anchor nested with"
            } else {
                continue;
            };
            return Err(JobError(format!(
                "{pb}: fsd={}: anchor={db} is {how} fsd={} ({pa}: anchor={da}), and rd={} uses both: each fsd lays out a file tree of its own; give each fsd its own directory, neither inside the other",
                b.fsd.name, a.fsd.name, rd.name
            )));
        }
    }
    Ok(())
}

/// One flow made from a fwd: its text and what must agree across the
/// flows of one workload.
struct FlowOf {
    text: String,
    /// iolab's `file_select`.
    select: String,
    /// (direct, dsync).
    flags: (bool, bool),
    fwd: String,
}

/// What one fwd on one fsd is run with.
struct FwdCtx<'a> {
    rd: &'a VdbDef,
    fwd: &'a VdbDef,
    fsd: &'a VdbDef,
    point: &'a [(String, String)],
    /// How many fsds the fwd works on (its threads are split among them).
    n_fsds: usize,
    /// Its operations per second on this fsd (`None`: as fast as it goes).
    share: Option<f64>,
}

/// Refuse flows of one workload that differ in `what`.
fn same_for_all<T: PartialEq>(
    flows: &[FlowOf],
    what: &str,
    get: impl Fn(&FlowOf) -> T,
    rd: &VdbDef,
    fsd: &VdbDef,
) -> Result<(), JobError> {
    if let Some(other) = flows.iter().find(|f| get(f) != get(&flows[0])) {
        return Err(JobError(format!(
            "{}: rd={}: fwd={} and fwd={} work on fsd={} with different {what}=; iolab runs one fileset's flows with one {what}: give them the same",
            rd.place(),
            rd.name,
            flows[0].fwd,
            other.fwd,
            fsd.name
        )));
    }
    Ok(())
}

/// `direct` and `sync` from the openflags found.
fn apply_flags(keys: &mut toml::Table, flags: &(bool, bool), _fsd: &VdbDef) {
    if flags.0 {
        keys.insert("direct".into(), Value::Boolean(true));
    }
    if flags.1 {
        keys.insert("sync".into(), Value::String("dsync".into()));
    }
}

/// The operations the fwds run at this point: the `foroperations` loop's,
/// else the rd's `operations=` list (each fwd runs each, its threads
/// split), else none (each fwd its own `operation=`).
fn operations(rd: &VdbDef, point: &[(String, String)]) -> Result<Vec<String>, JobError> {
    if let Some(op) = at(point, "foroperations") {
        return Ok(vec![op.to_ascii_lowercase()]);
    }
    Ok(rd
        .get("operations")
        .map(|p| {
            p.values
                .iter()
                .map(|v| v.trim().to_ascii_lowercase())
                .collect()
        })
        .unwrap_or_default())
}

/// Each fwd's share of `fwdrate` (operations per second): its `skew=`
/// percentage, the rest shared evenly by the fwds without one; `None`
/// for `fwdrate=max` (or none given).
fn rate_shares(
    rd: &VdbDef,
    fwds: &[&VdbDef],
    point: &[(String, String)],
    n_ops: usize,
) -> Result<Vec<Option<f64>>, JobError> {
    let p = rd.get("fwdrate");
    let text = match at(point, "forfwdrate") {
        Some(v) => Some(v.to_string()),
        None => p.and_then(|p| p.values.first().cloned()),
    };
    let bad = |m: String| {
        JobError(format!(
            "{}: rd={}: fwdrate=: {m}",
            p.map_or(rd.place(), VdbParam::place),
            rd.name
        ))
    };
    let total = match text.as_deref().map(|t| t.trim().to_ascii_lowercase()) {
        None => return Ok(vec![None; fwds.len()]),
        Some(t) if t == "max" => return Ok(vec![None; fwds.len()]),
        Some(t) => num::number(&t)
            .ok()
            .filter(|r| *r > 0.0)
            .ok_or_else(|| bad(format!("'{t}' is not max or operations per second above 0")))?,
    };
    let mut skews = Vec::new();
    // One fwd takes the whole rate, whatever its skew says.
    for f in fwds.iter().filter(|_| fwds.len() > 1) {
        let s = match f.get("skew") {
            Some(s) => Some(
                num::pct(s.values.first().map_or("", String::as_str))
                    .map_err(|m| JobError(format!("{}: fwd={}: skew=: {m}", s.place(), f.name)))?,
            ),
            None => None,
        };
        skews.push(s);
    }
    let given: f64 = skews.iter().flatten().sum();
    let rest = skews.iter().filter(|s| s.is_none()).count();
    if given > 100.0 + 1e-9 || (rest == 0 && (given - 100.0).abs() > 1e-6 && !skews.is_empty()) {
        return Err(bad(format!(
            "the fwds' skew= add up to {}%, not 100%",
            num::fmt_num(given)
        )));
    }
    let even = if rest > 0 {
        (100.0 - given) / rest as f64
    } else {
        0.0
    };
    if skews.is_empty() {
        return Ok(vec![Some(total / n_ops.max(1) as f64); fwds.len()]);
    }
    Ok(skews
        .iter()
        .map(|s| Some(total * s.unwrap_or(even) / 100.0 / n_ops.max(1) as f64))
        .collect())
}

/// The fileset keys of an fsd (the loops at this point override its
/// depth, width, files and sizes).
fn fsd_keys(
    fsd: &VdbDef,
    rd: &VdbDef,
    point: &[(String, String)],
    lo: &LoadOptions,
    notes: &mut Notes,
) -> Result<toml::Table, JobError> {
    check_fsd(fsd, lo, notes)?;
    let mut t = toml::Table::new();
    let Some(anchor) = fsd.get("anchor").and_then(|p| p.values.first()) else {
        return Err(JobError(format!(
            "{}: fsd={} has no anchor=; add anchor=DIR (the directory its files go under)",
            fsd.place(),
            fsd.name
        )));
    };
    t.insert("dir".into(), Value::String(anchor.clone()));
    let whole = |key: &str, loop_name: &str, default: u64| -> Result<u64, JobError> {
        let (text, place) = match (at(point, loop_name), fsd.get(key)) {
            (Some(v), _) => (v.to_string(), rd.place()),
            (None, Some(p)) => (p.values.first().cloned().unwrap_or_default(), p.place()),
            (None, None) => return Ok(default),
        };
        num::whole(&text).map_err(|m| JobError(format!("{place}: fsd={}: {key}=: {m}", fsd.name)))
    };
    let depth = whole("depth", "fordepth", 1)?;
    let width = whole("width", "forwidth", 1)?;
    let per_leaf = whole("files", "forfiles", 10)?;
    let leaves = u32::try_from(depth).ok().and_then(|d| width.checked_pow(d));
    let files = leaves
        .and_then(|l| l.checked_mul(per_leaf))
        .filter(|f| *f <= 1 << 40);
    let Some(files) = files else {
        return Err(JobError(format!(
            "{}: fsd={}: depth={depth}, width={width}, files={per_leaf} make more files than iolab lays out; make the tree smaller",
            fsd.place(),
            fsd.name
        )));
    };
    t.insert("depth".into(), Value::Integer(depth as i64));
    t.insert("width".into(), Value::Integer(width as i64));
    t.insert("files".into(), Value::Integer(files as i64));
    t.insert(
        "sizes".into(),
        Value::String(sizes_of(fsd, point, notes)?.0),
    );
    // `format` is the run's (fs_run_keys): a default of its workloads.
    fs_run_keys(rd)?;
    if rd
        .get("format")
        .is_some_and(|p| p.values.iter().any(|v| v.eq_ignore_ascii_case("once")))
    {
        notes.once(format!("rd={}: format=once runs as format=restart: iolab makes what is missing before each run and keeps what is there", rd.name));
    }
    Ok(t)
}

/// The fsd's `sizes` as iolab's (`32k:50,64k:50`, or one size) and their
/// mean in bytes.
fn sizes_of(
    fsd: &VdbDef,
    point: &[(String, String)],
    notes: &mut Notes,
) -> Result<(String, u64), JobError> {
    let (values, place) = match (at(point, "forsizes"), fsd.get("sizes")) {
        (Some(v), _) => (vec![v.to_string()], fsd.place()),
        (None, Some(p)) => (p.values.clone(), p.place()),
        (None, None) => (vec!["4k".to_string()], fsd.place()),
    };
    let bad = |m: String| {
        JobError(format!(
            "{place}: fsd={}: sizes=({}): {m}",
            fsd.name,
            values.join(",")
        ))
    };
    let size = |v: &str| {
        num::size(v)
            .ok()
            .filter(|s| *s > 0)
            .ok_or_else(|| bad(format!("'{v}' is not a file size above 0")))
    };
    if values.len() == 1 {
        let s = size(&values[0])?;
        return Ok((num::iolab_size(s), s));
    }
    if values.len() % 2 != 0 {
        return Err(bad(
            "a list of sizes is pairs of size and percentage, (32k,50,64k,50)".into(),
        ));
    }
    if values.len() == 2 && num::number(&values[1]).is_ok_and(|p| p == 0.0) {
        let s = size(&values[0])?;
        notes.once(format!("fsd={}: sizes=({},0): vdbench draws file sizes around this average; iolab makes every file {}", fsd.name, values[0], num::iolab_size(s)));
        return Ok((num::iolab_size(s), s));
    }
    let mut parts = Vec::new();
    let (mut sum, mut weighted) = (0.0, 0.0);
    for pair in values.chunks(2) {
        let s = size(&pair[0])?;
        let w = num::pct(&pair[1]).map_err(bad)?;
        if w <= 0.0 || w.fract() != 0.0 {
            return Err(bad(format!(
                "the percentage of {} must be a whole number above 0",
                pair[0]
            )));
        }
        sum += w;
        weighted += s as f64 * w;
        parts.push(format!("{}:{}", num::iolab_size(s), num::fmt_num(w)));
    }
    if (sum - 100.0).abs() > 1e-6 {
        return Err(bad(format!(
            "the percentages add up to {}, not 100",
            num::fmt_num(sum)
        )));
    }
    Ok((parts.join(","), (weighted / sum) as u64))
}

/// fsd keywords iolab cannot honour, with why.
const FSD_UNSUPPORTED: &[(&str, &str)] = &[
    ("totalsize", "iolab's fileset has a fixed number of files: give files= instead"),
    ("wss", "iolab's operations use every file of the fileset: give fewer files= instead of a working set"),
    ("distribution", "iolab puts the files in the lowest directories only (vdbench's distribution=bottom)"),
    ("journal", "iolab keeps a file workload's verify state in memory for the run"),
    ("count", "iolab does not repeat an fsd: write each out"),
    ("mask", "iolab names its files itself"),
    ("cleanup", "vdbench made it obsolete: use format=yes, or iolab's --cleanup"),
    ("host", "iolab runs an fsd on every host of the run (hd=); drop host="),
];

/// Refuse or note the fsd's keywords beyond the tree, sizes and flags.
fn check_fsd(fsd: &VdbDef, lo: &LoadOptions, notes: &mut Notes) -> Result<(), JobError> {
    for p in &fsd.params {
        let k = p.key.as_str();
        if matches!(
            k,
            "anchor" | "depth" | "width" | "files" | "sizes" | "openflags"
        ) {
            continue;
        }
        if k == "distribution" && p.values.iter().all(|v| v.trim() == "bottom") {
            continue;
        }
        if k == "shared" || k == "log" {
            notes.ignore(
                &format!("fsd {k}="),
                if k == "shared" {
                    "one host uses the fsd"
                } else {
                    "iolab keeps no operation log"
                },
            );
            continue;
        }
        let why = FSD_UNSUPPORTED.iter().find(|(u, _)| *u == k).map_or(
            "iolab has no such fileset option (vdbench's dedup is for raw workloads)",
            |e| e.1,
        );
        unsupported(p, &format!("{k}= on fsd={}", fsd.name), why, lo, notes)?;
    }
    Ok(())
}

/// The openflags of the rd, else the fwd, else the fsd, as (direct, dsync).
fn flags_of(ctx: &FwdCtx, notes: &mut Notes) -> Result<(bool, bool), JobError> {
    let Some(p) = ctx
        .rd
        .get("openflags")
        .or_else(|| ctx.fwd.get("openflags"))
        .or_else(|| ctx.fsd.get("openflags"))
    else {
        return Ok((false, false));
    };
    let mut f = (false, false);
    for v in &p.values {
        match v.trim().to_ascii_lowercase().as_str() {
            "o_direct" | "directio" => f.0 = true,
            "o_dsync" => f.1 = true,
            "o_sync" => {
                f.1 = true;
                notes.once("openflags=o_sync runs as O_DSYNC: every write is durable when it completes");
            }
            other => {
                return Err(JobError(format!(
                    "{}: fwd={}: openflags={other}: iolab opens a fileset's files with o_direct (directio), o_dsync or o_sync; remove it",
                    p.place(),
                    ctx.fwd.name
                )))
            }
        }
    }
    Ok(f)
}

/// fwd keywords the mapper reads.
const FWD_KEYS: &[&str] = &[
    "fsd",
    "rdpct",
    "stopafter",
    "operation",
    "fileselect",
    "fileio",
    "xfersize",
    "skew",
    "threads",
    "openflags",
];

/// The flows of one fwd on one fsd (one per operation of the rd's
/// `operations=`, else one).
fn fwd_flows(ctx: &FwdCtx, ops: &[String], notes: &mut Notes) -> Result<Vec<FlowOf>, JobError> {
    for p in &ctx.fwd.params {
        if !FWD_KEYS.contains(&p.key.as_str()) {
            let why = match p.key.as_str() {
                "host" => "iolab runs an fwd on every host of the run (hd=)",
                "target" => "iolab's operations choose their own files",
                _ => "iolab has no such file-system option",
            };
            return Err(JobError(format!(
                "{}: fwd={}: {}= is not supported: {why}; remove it",
                p.place(),
                ctx.fwd.name,
                p.key
            )));
        }
    }
    if let Some(p) = ctx.fwd.get("operation").filter(|p| p.values.len() > 1) {
        return Err(JobError(format!(
            "{}: fwd={}: operation=({}): a fwd has one operation; give the list as operations= on the rd (or foroperations=)",
            p.place(),
            ctx.fwd.name,
            p.values.join(",")
        )));
    }
    let own = ctx
        .fwd
        .get("operation")
        .and_then(|p| p.values.first())
        .map(|v| v.trim().to_ascii_lowercase());
    let ops: Vec<String> = if ops.is_empty() {
        vec![own.unwrap_or_else(|| "read".into())]
    } else {
        ops.to_vec()
    };
    let select = file_select(ctx)?;
    let flags = flags_of(ctx, notes)?;
    let threads = threads_of(ctx)? / ctx.n_fsds as u64 / ops.len() as u64;
    let mut out = Vec::new();
    for op in &ops {
        let (steps, per_op) = steps(ctx, op, notes)?;
        let mut name = flow_name(&ctx.fwd.name);
        if ops.len() > 1 {
            name = format!("{name}-{op}");
        }
        let mut head = threads.max(1).to_string();
        if let Some(r) = ctx.share {
            let r = (r * per_op * 1000.0).round() / 1000.0;
            head.push_str(&format!(" rate={}", num::fmt_num(r.max(0.001))));
        }
        out.push(FlowOf {
            text: format!("{name}({head}): {steps}"),
            select: select.clone(),
            flags,
            fwd: ctx.fwd.name.clone(),
        });
    }
    Ok(out)
}

/// A fwd's name as a flow's (letters, digits, `_ . -`).
fn flow_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_.-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The fwd's threads, or the `forthreads` loop's (`threads=` on the rd).
fn threads_of(ctx: &FwdCtx) -> Result<u64, JobError> {
    let (text, place) = match (at(ctx.point, "forthreads"), ctx.fwd.get("threads")) {
        (Some(v), _) => (v.to_string(), ctx.rd.place()),
        (None, Some(p)) => (p.values.first().cloned().unwrap_or_default(), p.place()),
        (None, None) => return Ok(1),
    };
    num::whole(&text)
        .ok()
        .filter(|t| (1..=4096).contains(t))
        .ok_or_else(|| {
            JobError(format!(
                "{place}: fwd={}: threads={text}: a thread count from 1 to 4096",
                ctx.fwd.name
            ))
        })
}

/// `fileselect=` as iolab's `file_select` (vdbench's default: sequential).
fn file_select(ctx: &FwdCtx) -> Result<String, JobError> {
    let Some(p) = ctx.fwd.get("fileselect") else {
        return Ok("seq".into());
    };
    let mut out = "seq";
    for v in &p.values {
        let v = v.trim().to_ascii_lowercase();
        if !v.is_empty() && "random".starts_with(&v) {
            out = "random";
        } else if !v.is_empty() && "sequential".starts_with(&v) {
            out = "seq";
        } else {
            return Err(JobError(format!(
                "{}: fwd={}: fileselect={v}: iolab selects files in order (sequential) or uniformly at random (random); {v} has no equivalent",
                p.place(),
                ctx.fwd.name
            )));
        }
    }
    Ok(out.into())
}

/// The transfer size: the `forxfersize` loop's, else the fwd's (one
/// size; vdbench's default 4k).
fn xfer_of(ctx: &FwdCtx) -> Result<u64, JobError> {
    let (values, place) = match (at(ctx.point, "forxfersize"), ctx.fwd.get("xfersize")) {
        (Some(v), _) => (vec![v.to_string()], ctx.rd.place()),
        (None, Some(p)) => (p.values.clone(), p.place()),
        (None, None) => return Ok(4096),
    };
    let bad = |m: &str| {
        JobError(format!(
            "{place}: fwd={}: xfersize=({}): {m}",
            ctx.fwd.name,
            values.join(",")
        ))
    };
    if values.len() != 1 {
        return Err(bad("a distribution of transfer sizes: a flow step of iolab's has one size; give one xfersize (or loop over sizes with forxfersize=)"));
    }
    num::size(&values[0])
        .ok()
        .filter(|s| (1..=1 << 30).contains(s))
        .ok_or_else(|| bad("a transfer size from 1 byte to 1g"))
}

/// How file I/O goes: (random, delete before writing).
fn fileio_of(ctx: &FwdCtx, notes: &mut Notes) -> Result<(bool, bool), JobError> {
    let Some(p) = ctx.fwd.get("fileio") else {
        return Ok((false, false));
    };
    let vals: Vec<String> = p
        .values
        .iter()
        .map(|v| v.trim().to_ascii_lowercase())
        .collect();
    let first = vals.first().map(String::as_str).unwrap_or("");
    let second = vals.get(1).map(String::as_str);
    let pre = |full: &str, v: &str| !v.is_empty() && full.starts_with(v);
    match (first, second) {
        (f, None) if pre("random", f) => Ok((true, false)),
        (f, Some(s)) if pre("random", f) && pre("shared", s) => {
            notes.once(format!("fwd={}: fileio=(random,shared): iolab's threads share a file for reads and rewrites anyway (docs/filesystem.md)", ctx.fwd.name));
            Ok((true, false))
        }
        (f, None) if pre("sequential", f) => Ok((false, false)),
        (f, Some(s)) if pre("sequential", f) && pre("delete", s) => Ok((false, true)),
        _ => Err(JobError(format!(
            "{}: fwd={}: fileio=({}): vdbench's fileio is sequential, random, (random,shared) or (sequential,delete)",
            p.place(),
            ctx.fwd.name,
            vals.join(",")
        ))),
    }
}

/// Transfers per file of random I/O: `stopafter=N`, `stopafter=P%` of
/// the mean file, else the mean file's size in transfers (vdbench's
/// default), 1 to iolab's bound.
fn per_file(ctx: &FwdCtx, xfer: u64, notes: &mut Notes) -> Result<u64, JobError> {
    let mean = sizes_of(ctx.fsd, ctx.point, &mut Notes::default())?.1;
    let n = match ctx.fwd.get("stopafter") {
        None => mean / xfer,
        Some(p) => {
            let v = p.values.first().map(|v| v.trim()).unwrap_or("");
            let bad = || {
                JobError(format!("{}: fwd={}: stopafter={v}: a count of transfers or a percentage of the file (50%)", p.place(), ctx.fwd.name))
            };
            match v.strip_suffix('%') {
                Some(pct) => {
                    (mean as f64 * num::pct(pct).map_err(|_| bad())? / 100.0 / xfer as f64) as u64
                }
                None => num::whole(v).map_err(|_| bad())?,
            }
        }
    };
    if n > MAX_REPEAT {
        notes.once(format!("fwd={}: {n} random transfers per file is more than a flow step repeats; iolab does {MAX_REPEAT}", ctx.fwd.name));
    }
    Ok(n.clamp(1, MAX_REPEAT))
}

/// The steps of one operation of a fwd, and how many of iolab's
/// operations a pass of them is per operation vdbench counts in it (its
/// transfers of a read or write, its creates, opens, ...): `fwdrate`
/// paces vdbench's, a flow's rate all its steps.
fn steps(ctx: &FwdCtx, op: &str, notes: &mut Notes) -> Result<(String, f64), JobError> {
    let xfer = xfer_of(ctx)?;
    let x = num::iolab_size(xfer);
    let (random, delete_first) = fileio_of(ctx, notes)?;
    let rdpct = match (at(ctx.point, "forrdpct"), ctx.fwd.get("rdpct")) {
        (Some(v), _) => Some(v.to_string()),
        (None, Some(p)) => p.values.first().cloned(),
        (None, None) => None,
    };
    let bad = |m: &str| {
        JobError(format!(
            "{}: fwd={}: operation={op}: {m}",
            ctx.fwd.place(),
            ctx.fwd.name
        ))
    };
    // Transfers of a whole file, as vdbench counts them.
    let whole = || -> Result<f64, JobError> {
        let mean = sizes_of(ctx.fsd, ctx.point, &mut Notes::default())?.1;
        Ok(mean.div_ceil(xfer).max(1) as f64)
    };
    let rw = |n: u64| (n as f64 + 2.0) / n as f64;
    if let (Some(pct), "read" | "write") = (&rdpct, op) {
        let pct = num::pct(pct).map_err(|m| bad(&format!("rdpct={pct}: {m}")))?;
        if !random {
            return Err(bad("rdpct= with sequential fileio: iolab's flows read or write a file whole; give fileio=random for a read/write mix within files"));
        }
        let n = per_file(ctx, xfer, notes)?;
        let reads = ((n as f64) * pct / 100.0).round() as u64;
        let mut s = vec!["open".to_string()];
        if reads > 0 {
            s.push(format!("read:rand:{x}:x{reads}"));
        }
        if n > reads {
            // rewrite: vdbench's random writes stay inside the file
            // (iolab's write:rand may append a block).
            s.push(format!("rewrite:rand:{x}:x{}", n - reads));
        }
        s.push("close".into());
        return Ok((s.join(","), rw(n)));
    }
    Ok(match op {
        "read" | "write" if random => {
            let n = per_file(ctx, xfer, notes)?;
            let step = if op == "write" { "rewrite" } else { "read" };
            (format!("open,{step}:rand:{x}:x{n},close"), rw(n))
        }
        "write" if delete_first => (
            format!("delete,create,write:whole:{x},close"),
            4.0 / whole()?,
        ),
        "read" | "write" => (format!("open,{op}:whole:{x},close"), 3.0 / whole()?),
        "create" => (format!("create,write:whole:{x},close"), 3.0),
        "delete" => ("delete".into(), 1.0),
        "mkdir" => ("mkdir".into(), 1.0),
        "rmdir" => ("rmdir".into(), 1.0),
        "open" | "close" => ("open,close".into(), 2.0),
        "getattr" => ("stat".into(), 1.0),
        "setattr" => ("open,setattr,close".into(), 3.0),
        "access" => ("access".into(), 1.0),
        "move" => ("rename".into(), 1.0),
        "copy" => return Err(bad("iolab has no copy operation (a read of one file and a create and write of another); use a flow of read and create steps with iolab's own --flow")),
        _ => return Err(bad("vdbench's operations are read, write, create, delete, mkdir, rmdir, open, close, getattr, setattr, access, copy and move")),
    })
}

#[cfg(test)]
#[path = "fs_tests.rs"]
mod tests;
