//! vdbench's general parameters (`compratio`, `dedupratio`/`dedupunit`,
//! `data_errors`, `validate`, `journal`, `messagescan`, ...) and its
//! command-line flags of data validation (`--vdbench-flags "-v -jn"`)
//! as iolab's keys of every workload of every run.

use super::super::{VdbFile, VdbParam};
use super::{num, Notes};
use crate::frontend::LoadOptions;
use crate::resolve::JobError;
use toml::Value;

/// The journal directory `-j`/`journal=yes` keep, relative to where iolab
/// runs (vdbench keeps its journal files in its current directory too);
/// an `sd`'s `journal=DIR` puts it in DIR.
pub const JOURNAL_DIR: &str = "vdbench.journal";

/// What the general parameters and flags give every workload.
#[derive(Debug, Default, Clone)]
pub struct General {
    /// `verify`, `verify_after`, `journal`, `max_errors`, `on_error`.
    pub keys: toml::Table,
    /// `compratio=` (the `compratio` loop overrides it).
    pub compratio: Option<VdbParam>,
    /// `dedupratio=` as iolab's share of writes that repeat, and the
    /// `dedupunit=` every transfer size must equal.
    pub dedupe: Option<(f64, u64, VdbParam)>,
}

/// General parameters iolab accepts and ignores, with why.
const IGNORED: &[(&str, &str)] = &[
    ("histogram", "iolab keeps its own latency histograms"),
    ("report", "iolab's result document holds every workload"),
    ("port", "one host: no slaves to talk to"),
    ("messagescan", "iolab does not scan /var/log/messages"),
];

/// General parameters iolab cannot honour, with why.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("dedupsets", "iolab's dedupe has one set of repeated blocks"),
    ("deduphotsets", "iolab's dedupe has no hot sets"),
    (
        "dedupflipflop",
        "iolab's dedupe does not alternate contents",
    ),
    (
        "loop",
        "iolab runs the file's runs once; repeat the command",
    ),
    ("startcmd", "iolab runs no commands around a run"),
    ("endcmd", "iolab runs no commands around a run"),
    ("monitor", "iolab does not watch a file to end a run"),
    (
        "pattern",
        "iolab's data patterns are its own (data=pattern:...)",
    ),
    ("formatsds", "iolab prefills with prefill=true"),
    (
        "concatenatesds",
        "iolab does not concatenate storage definitions",
    ),
];

/// A general parameter iolab cannot honour: an error, or with
/// `--ignore-unsupported` a note.
pub fn unsupported(
    p: &VdbParam,
    what: &str,
    why: &str,
    lo: &LoadOptions,
    notes: &mut Notes,
) -> Result<(), JobError> {
    let msg = format!("{}: iolab does not support {what}: {why}", p.place());
    if lo.ignore_unsupported {
        notes.once(format!("passed over: {msg}"));
        Ok(())
    } else {
        Err(JobError(format!(
            "{msg}; --ignore-unsupported runs without it"
        )))
    }
}

fn written(p: &VdbParam) -> String {
    if p.values.len() == 1 {
        format!("{}={}", p.key, p.values[0])
    } else {
        format!("{}=({})", p.key, p.values.join(","))
    }
}

fn bad(p: &VdbParam, msg: &str) -> JobError {
    JobError(format!("{}: {}: {msg}", p.place(), written(p)))
}

fn first(p: &VdbParam) -> &str {
    p.values.first().map(|s| s.trim()).unwrap_or("")
}

/// The general parameters and `--vdbench-flags`.
pub fn general(file: &VdbFile, lo: &LoadOptions, notes: &mut Notes) -> Result<General, JobError> {
    let mut g = General::default();
    let mut unit: Option<&VdbParam> = None;
    let mut ratio: Option<&VdbParam> = None;
    for p in &file.general {
        match p.key.as_str() {
            "compratio" => {
                compratio(p)?;
                g.compratio = Some(p.clone());
            }
            "compression" => {
                let mut c = p.clone();
                c.values = vec![pct_to_ratio(first(p)).map_err(|m| bad(p, &m))?];
                g.compratio = Some(c);
            }
            "dedupratio" => ratio = Some(p),
            "dedupunit" => unit = Some(p),
            "data_errors" => {
                let n = num::whole(first(p)).map_err(|_| {
                    bad(p, "iolab takes a number of errors; running a command on an error is not supported")
                })?;
                g.keys
                    .insert("max_errors".into(), Value::Integer(n.min(1 << 40) as i64));
                g.keys
                    .insert("on_error".into(), Value::String("continue".into()));
            }
            "validate" => validate(p, &mut g, lo, notes)?,
            "journal" => journal(p, &mut g, lo, notes)?,
            "create_anchors" => {
                if first(p).to_ascii_lowercase().starts_with('y') {
                    notes.once("create_anchors=yes: iolab creates a missing anchor but not its missing parents (vdbench creates those too); create them first, e.g. mkdir -p PARENT");
                }
            }
            k => match IGNORED.iter().find(|(i, _)| *i == k) {
                Some((_, why)) => notes.ignore(k, why),
                None => match UNSUPPORTED.iter().find(|(u, _)| *u == k) {
                    Some((_, why)) => unsupported(p, &written(p), why, lo, notes)?,
                    None => {
                        return Err(bad(
                            p,
                            "is not a general parameter iolab's vdbench front end maps",
                        ))
                    }
                },
            },
        }
    }
    g.dedupe = dedupe(ratio, unit)?;
    flags(lo, &mut g, notes)?;
    if let Some((_, _, _)) = &g.dedupe {
        let checks = ["verify", "verify_after", "journal"]
            .iter()
            .any(|k| g.keys.contains_key(*k));
        if let (true, Some(r)) = (checks, ratio) {
            return Err(bad(
                r,
                "iolab cannot validate deduplicated data (every verified sector carries a unique stamp); drop dedupratio= or the validation (validate=, journal=, -v, -j)",
            ));
        }
    }
    Ok(g)
}

/// vdbench's `compression=PCT` (the share of the data a compressor
/// keeps) as a ratio: 100 / PCT, three decimals.
pub fn pct_to_ratio(v: &str) -> Result<String, String> {
    let p = num::pct(v)?;
    if p <= 0.0 {
        return Err("compression is a percentage above 0".into());
    }
    Ok(num::fmt_num((100.0 / p * 1000.0).round() / 1000.0))
}

/// `compratio=R`: R at least 1.
pub fn compratio(p: &VdbParam) -> Result<f64, JobError> {
    let r = num::number(first(p)).map_err(|m| bad(p, &m))?;
    if r < 1.0 {
        return Err(bad(p, "a compression ratio is at least 1"));
    }
    Ok(r)
}

fn dedupe(
    ratio: Option<&VdbParam>,
    unit: Option<&VdbParam>,
) -> Result<Option<(f64, u64, VdbParam)>, JobError> {
    let Some(r) = ratio else {
        return match unit {
            Some(u) => Err(bad(u, "dedupunit= needs dedupratio=")),
            None => Ok(None),
        };
    };
    let x = num::number(first(r)).map_err(|m| bad(r, &m))?;
    if x < 1.0 {
        return Err(bad(r, "a dedup ratio is at least 1"));
    }
    let Some(u) = unit else {
        return Err(bad(
            r,
            "vdbench needs dedupunit= with dedupratio= (e.g. dedupunit=8k)",
        ));
    };
    let b = num::size(first(u)).map_err(|m| bad(u, &m))?;
    // A ratio R of written to stored: (R-1)/R of the writes repeat.
    let share = ((x - 1.0) / x * 100.0 * 100.0).round() / 100.0;
    Ok(Some((share, b, u.clone())))
}

fn validate(
    p: &VdbParam,
    g: &mut General,
    lo: &LoadOptions,
    notes: &mut Notes,
) -> Result<(), JobError> {
    for v in &p.values {
        match v.trim().to_ascii_lowercase().as_str() {
            "yes" | "y" => set(g, "verify"),
            "no" | "n" => {}
            "read_after_write" => set(g, "verify_after"),
            "no_preread" => {
                set(g, "verify");
                notes.once("validate=no_preread: iolab never reads a block before writing it; its map knows what was written");
            }
            "time" => {
                set(g, "verify");
                notes.once("validate=time: iolab's stamp holds the run and generation, not the time of the write");
            }
            "reportdedupsets" => {
                notes.ignore("validate=reportdedupsets", "iolab has no dedup sets")
            }
            other => {
                return unsupported(
                    p,
                    &format!("validate={other}"),
                    "iolab takes yes, no, read_after_write, no_preread and time",
                    lo,
                    notes,
                )
            }
        }
    }
    Ok(())
}

fn journal(
    p: &VdbParam,
    g: &mut General,
    lo: &LoadOptions,
    notes: &mut Notes,
) -> Result<(), JobError> {
    for v in &p.values {
        match v.trim().to_ascii_lowercase().as_str() {
            "yes" | "y" => set_journal(g),
            "no" | "n" => {}
            "recover" => {
                set_journal(g);
                notes.once(recover_note());
            }
            "noflush" => {
                set_journal(g);
                notes.once(noflush_note());
            }
            other => {
                return unsupported(
                    p,
                    &format!("journal={other}"),
                    "iolab takes yes, recover and noflush (iolab verify --journal DIR checks a journal alone)",
                    lo,
                    notes,
                )
            }
        }
    }
    Ok(())
}

fn recover_note() -> String {
    format!("-jr / journal=recover: iolab carries on from the journal {JOURNAL_DIR} when it exists; `iolab verify --journal {JOURNAL_DIR}` checks every block it holds first, as vdbench's recovery does")
}

fn noflush_note() -> String {
    "-jn / journal=noflush: iolab's journal is always written synchronously around each write"
        .to_string()
}

fn set(g: &mut General, key: &str) {
    g.keys.insert(key.into(), Value::Boolean(true));
}

fn set_journal(g: &mut General) {
    g.keys
        .insert("journal".into(), Value::String(JOURNAL_DIR.into()));
}

/// vdbench's command-line flags of data validation.
fn flags(lo: &LoadOptions, g: &mut General, notes: &mut Notes) -> Result<(), JobError> {
    for f in &lo.vdbench_flags {
        match f.as_str() {
            "-v" => set(g, "verify"),
            "-vr" => set(g, "verify_after"),
            "-vw" => {
                set(g, "verify");
                notes.once("-vw: iolab never reads a block before writing it; its map knows what was written");
            }
            "-vt" => {
                set(g, "verify");
                notes.once("-vt: iolab's stamp holds the run and generation of each write, not its time");
            }
            "-j" => set_journal(g),
            "-jn" => {
                set_journal(g);
                notes.once(noflush_note());
            }
            "-jr" => {
                set_journal(g);
                notes.once(recover_note());
            }
            "-jro" => {
                return Err(JobError(format!(
                    "--vdbench-flags -jro: recovering a journal without running is `iolab verify --journal {JOURNAL_DIR}`; run that instead"
                )))
            }
            other => {
                return Err(JobError(format!(
                    "--vdbench-flags {other}: iolab takes vdbench's data-validation flags -v, -vr, -vw, -vt, -j, -jn and -jr; give other settings as iolab flags (e.g. --duration for -e, --dry-run for -s)"
                )))
            }
        }
    }
    Ok(())
}
