//! A fio job's files onto iolab's targets, and how much it does: fio's
//! `filename` (`:` lists), `filename_format`, `directory` (`:` lists,
//! clone i in directory i mod D), `nrfiles`, `filesize`, `size`,
//! `offset`, `offset_increment`, `io_size`, `number_ios`, `loops`,
//! `runtime`/`time_based`; `invalidate`, `unlink`, `overwrite`. And the
//! file-system engines (`filecreate`, `filestat`, `filedelete`,
//! `dircreate`, `dirstat`, `dirdelete`) onto the file-system driver.

use super::job::{Dirs, Keys};
use super::{val, Job, Notes};
use crate::resolve::JobError;

/// At most this many targets from one job (files x clones).
const MAX_TARGETS: u64 = 65_536;

/// fio's `$jobname.$jobnum.$filenum` with the job's values.
fn file_name(fmt: &str, job: &str, jobnum: u64, filenum: u64) -> String {
    fmt.replace("$jobname", job)
        .replace("$jobnum", &jobnum.to_string())
        .replace("$filenum", &filenum.to_string())
}

fn join(dir: Option<&str>, f: &str) -> String {
    match dir {
        Some(d) if !f.starts_with('/') => format!("{}/{f}", d.trim_end_matches('/')),
        _ => f.to_string(),
    }
}

/// Each clone's files, in fio's order.
fn clone_files(
    job: &Job,
    jobs: u64,
    nr: u64,
    notes: &mut Notes,
) -> Result<Vec<Vec<String>>, JobError> {
    let dirs = job
        .val("directory")
        .map(val::colon_list)
        .unwrap_or_default();
    let fmt = job
        .val("filename_format")
        .unwrap_or("$jobname.$jobnum.$filenum");
    if fmt.contains("$clientuid") {
        job.unsupported(
            "filename_format",
            "$clientuid exists only in fio's client/server mode",
            notes,
        )?;
    }
    let listed = job.val("filename").map(val::colon_list);
    let mut out = Vec::new();
    for c in 0..jobs {
        let dir = (!dirs.is_empty()).then(|| dirs[(c as usize) % dirs.len()].as_str());
        let files: Vec<String> = match &listed {
            Some(l) => l.iter().map(|f| join(dir, f)).collect(),
            None => (0..nr)
                .map(|f| join(dir, &file_name(fmt, &job.fio.name, c, f)))
                .collect(),
        };
        out.push(files);
    }
    Ok(out)
}

/// The targets of a block job: shared files once; each clone's own
/// interleaved so that iolab's worker i (which takes targets i, i+N, ...
/// of N workers) drives clone i's files.
fn targets(per_clone: &[Vec<String>]) -> Vec<String> {
    if per_clone.iter().all(|f| f == &per_clone[0]) {
        return per_clone[0].clone();
    }
    let most = per_clone.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = Vec::new();
    for f in 0..most {
        for c in per_clone {
            if let Some(t) = c.get(f) {
                out.push(t.clone());
            }
        }
    }
    out
}

/// A size that fio also takes as a percentage of the target.
fn size_or_pct(job: &Job, key: &str, notes: &mut Notes) -> Result<Option<u64>, JobError> {
    match job.val(key) {
        Some(v) if v.ends_with('%') => {
            job.unsupported(key, "iolab takes sizes and offsets in bytes, not percentages of the target (it reads no target while planning)", notes)?;
            Ok(None)
        }
        _ => job.size(key),
    }
}

/// Targets, region and amount of a block job.
pub(crate) fn block_files(
    job: &Job,
    d: &Dirs,
    jobs: u64,
    k: &mut Keys,
    notes: &mut Notes,
) -> Result<(), JobError> {
    let nr = job.uint("nrfiles")?.unwrap_or(1).max(1);
    if nr.saturating_mul(jobs) > MAX_TARGETS {
        return Err(job.bad(
            "nrfiles",
            &format!("iolab takes at most {MAX_TARGETS} files of a job (nrfiles x numjobs)"),
        ));
    }
    let per_clone = clone_files(job, jobs, nr, notes)?;
    let nfiles = per_clone[0].len().max(1) as u64;
    let t = targets(&per_clone);
    k.0.insert(
        "target".into(),
        toml::Value::Array(t.into_iter().map(toml::Value::String).collect()),
    );
    let size = size_or_pct(job, "size", notes)?;
    let offset = size_or_pct(job, "offset", notes)?.unwrap_or(0);
    let inc = job.size("offset_increment")?.unwrap_or(0);
    let filesize = match job.val("filesize") {
        None => None,
        Some(v) => {
            let (lo, hi) = val::range(v);
            if hi.is_some() {
                notes.once("filesize as a range: iolab makes every file the largest size");
            }
            let s = hi.unwrap_or(lo);
            Some(val::size(&s, job.kb_of("filesize")).map_err(|m| job.bad("filesize", &m))?)
        }
    };
    // The region of each file: filesize, else the job's size over its files.
    let region = filesize.or(size.map(|s| s / nfiles));
    if let Some(r) = region {
        let end = offset
            .saturating_add(inc.saturating_mul(jobs - 1))
            .saturating_add(r);
        if job.lo.readonly {
            // fio --readonly refuses to create or extend a file
            // ("refusing extend of file due to read-only"): `range`
            // bounds the region without making anything.
            if inc == 0 {
                k.s("range", val::fmt_size(r));
            }
        } else {
            k.s("size", val::fmt_size(end));
        }
    }
    if offset > 0 {
        k.s("offset", val::fmt_size(offset));
    }
    if inc > 0 {
        k.s("offset_increment", val::fmt_size(inc));
        if let Some(r) = region {
            k.s("range", val::fmt_size(r));
        }
    }
    // Each clone moves its size, but never more than its files hold
    // (fio: size=1m over nrfiles=2 of filesize=128k reads 256 KiB).
    let files_hold = filesize.map(|f| f.saturating_mul(nfiles));
    let per_clone_amount = match (size, files_hold) {
        (Some(s), Some(h)) => Some(s.min(h)),
        (s, h) => s.or(h).or(region.map(|r| r.saturating_mul(nfiles))),
    };
    amount(job, jobs, per_clone_amount, k, notes)?;
    file_options(job, d, k, notes)
}

/// How the job ends: fio's size (or io_size) per clone, times loops,
/// for every clone; `runtime` ends it early, or alone with `time_based`.
fn amount(
    job: &Job,
    jobs: u64,
    size: Option<u64>,
    k: &mut Keys,
    notes: &mut Notes,
) -> Result<(), JobError> {
    let runtime = job.time("runtime", 1_000_000)?.filter(|us| *us > 0);
    let time_based = job.flag("time_based")?.unwrap_or(false);
    if let Some(us) = runtime {
        k.s("duration", val::fmt_us(us));
    }
    if time_based && runtime.is_some() {
        return Ok(());
    }
    if time_based {
        // fio logs "time_based requires a runtime/timeout setting" and
        // clears time_based (init.c fixup_options): the job ends on size.
        notes.once(format!(
            "job [{}]: time_based without runtime is dropped, as fio drops it; the job ends on its size",
            job.fio.name
        ));
    }
    let loops = job.uint("loops")?.unwrap_or(1).max(1);
    let per_clone = job.size("io_size")?.or(size);
    if let Some(b) = per_clone {
        let total = b.saturating_mul(loops).saturating_mul(jobs);
        k.s("io_size", val::fmt_size(total));
    }
    if let Some(n) = job.uint("number_ios")?.filter(|n| *n > 0) {
        k.n("ops", n.saturating_mul(loops).saturating_mul(jobs));
    }
    let fill = job.flag("fill_device")? == Some(true);
    if per_clone.is_none() && runtime.is_none() && job.opt("number_ios").is_none() && !fill {
        notes.once(format!(
            "job [{}] gives no size, io_size or runtime: fio goes through the whole target once, iolab runs it for 10s",
            job.fio.name
        ));
    }
    Ok(())
}

/// `invalidate` (fio's default on), `unlink`, `overwrite`, and the
/// options iolab does its own way.
fn file_options(job: &Job, d: &Dirs, k: &mut Keys, notes: &mut Notes) -> Result<(), JobError> {
    k.b("invalidate", job.flag("invalidate")?.unwrap_or(true));
    if job.flag("unlink")? == Some(true) {
        k.b("unlink", true);
    }
    // fio lays a file out (writes it whole) only for a job that reads
    // it or with overwrite=1 (filesetup.c); a write-only job writes a
    // new file once, so iolab's prefill of files it created is off.
    if job.flag("overwrite")? == Some(true) && d.write && !job.lo.readonly {
        k.b("prefill", true);
    } else if !d.read || job.lo.readonly {
        k.b("prefill", false);
    }
    for (key, why) in [
        ("openfiles", "iolab keeps a job's files open"),
        (
            "create_on_open",
            "iolab creates missing files before the run",
        ),
        (
            "fallocate",
            "iolab creates missing files sparse and fills them before reading",
        ),
        (
            "file_service_type",
            "iolab's workers take their files in turn",
        ),
    ] {
        if job.opt(key).is_some() {
            notes.ignore(key, why);
        }
    }
    Ok(())
}

/// A job on `filecreate`/`filestat`/`filedelete`/`dircreate`/`dirstat`/
/// `dirdelete`: fio does the operation once on each of its `nrfiles`
/// files per clone; iolab's file-system driver does a mix of that one
/// operation, once per file, over a fileset of nrfiles x numjobs entries
/// in `DIRECTORY/JOBNAME` (an anchor of its own, as iolab's file-system
/// workloads need one).
pub(crate) fn fs_job(
    job: &Job,
    op: &str,
    jobs: u64,
    k: &mut Keys,
    notes: &mut Notes,
) -> Result<(), JobError> {
    let writes = matches!(op, "create" | "delete" | "mkdir" | "rmdir");
    if job.lo.readonly && writes {
        return Err(JobError(format!(
            "{}: --readonly: job [{}] changes the file system (ioengine={}); drop --readonly to run it",
            job.opt("ioengine").map(|o| o.place()).unwrap_or_default(),
            job.fio.name,
            job.val("ioengine").unwrap_or("")
        )));
    }
    let dirs = job
        .val("directory")
        .map(val::colon_list)
        .unwrap_or_default();
    let base = dirs.first().map(String::as_str).unwrap_or(".");
    let anchor = join(Some(base), &job.name);
    notes.once("fio's file and directory engines run in an anchor directory of their own per job: DIRECTORY/JOBNAME (iolab's file-system workloads own their directory)");
    if job.val("ioengine") == Some("dirstat") {
        notes.once("dirstat: iolab's stat picks entries of its fileset (files)");
    }
    k.s("dir", anchor);
    let nr = job.uint("nrfiles")?.unwrap_or(1).max(1);
    let files = nr.saturating_mul(jobs);
    if files > 10_000_000 {
        return Err(job.bad(
            "nrfiles",
            "iolab takes at most 10000000 files (nrfiles x numjobs)",
        ));
    }
    k.s("mix", format!("{op}:1"));
    k.n("files", files);
    k.n(
        "prealloc",
        if matches!(op, "create" | "mkdir") {
            0
        } else {
            100
        },
    );
    if !matches!(op, "create" | "mkdir") {
        if let Some(v) = job.val("filesize") {
            let s = val::size(&val::range(v).0, job.kb_of("filesize"))
                .map_err(|m| job.bad("filesize", &m))?;
            k.s("file_size", val::fmt_size(s));
        }
    }
    let runtime = job.time("runtime", 1_000_000)?.filter(|us| *us > 0);
    if let Some(us) = runtime {
        k.s("duration", val::fmt_us(us));
    }
    if !(job.flag("time_based")?.unwrap_or(false) && runtime.is_some()) {
        k.n("ops", files);
    }
    if op == "create" && job.flag("unlink")? == Some(true) {
        k.b("cleanup", true);
    }
    for key in [
        "openfiles",
        "create_on_open",
        "fallocate",
        "file_service_type",
        "filename_format",
    ] {
        if job.opt(key).is_some() {
            notes.ignore(
                key,
                "iolab's file-system driver names and opens its files itself",
            );
        }
    }
    Ok(())
}
