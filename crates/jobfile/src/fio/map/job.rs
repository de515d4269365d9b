//! One fio job's I/O options onto iolab's keys: the engine, `rw` and its
//! mix, block sizes, queue depth, synchronisation, data, verification,
//! pacing (rate, think time), steady state, pinning and how the job ends.
//! Files and the file-system engines are in [`super::files`].

use super::{files, val, Job, Mapped, Notes};
use crate::resolve::JobError;
use toml::Value;

/// The keys of one workload, built up.
#[derive(Default)]
pub(crate) struct Keys(pub toml::Table);

impl Keys {
    pub fn s(&mut self, k: &str, v: impl Into<String>) {
        self.0.insert(k.into(), Value::String(v.into()));
    }
    pub fn n(&mut self, k: &str, v: u64) {
        self.0
            .insert(k.into(), Value::Integer(v.min(i64::MAX as u64) as i64));
    }
    pub fn b(&mut self, k: &str, v: bool) {
        self.0.insert(k.into(), Value::Boolean(v));
    }
}

/// Where a job's I/O goes: a block engine of iolab's, or the file-system
/// driver doing one operation per file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Engine {
    Block(&'static str),
    Fs(&'static str),
}

fn engine(job: &Job, notes: &mut Notes) -> Result<Engine, JobError> {
    let Some(v) = job.val("ioengine") else {
        return Ok(Engine::Block("psync"));
    };
    let e = v.to_ascii_lowercase();
    let (engine, ours) = match e.as_str() {
        "io_uring" | "libaio" | "posixaio" => (Engine::Block("io_uring"), "io_uring engine"),
        "psync" | "sync" | "pvsync" | "pvsync2" | "vsync" => (Engine::Block("psync"), "psync"),
        "null" => (Engine::Block("null"), "null engine (no I/O)"),
        "cpp_null" => (
            Engine::Block("null"),
            "null engine (no I/O; fio's null built as C++)",
        ),
        "falloc" => (Engine::Block("falloc"), "falloc engine"),
        "ftruncate" => (Engine::Block("ftruncate"), "ftruncate engine"),
        "page_fault" => (Engine::Block("page_fault"), "page_fault engine"),
        "filecreate" => (Engine::Fs("create"), "file-system driver: create"),
        "filestat" => (Engine::Fs("stat"), "file-system driver: stat"),
        "filedelete" => (Engine::Fs("delete"), "file-system driver: delete"),
        "dircreate" => (Engine::Fs("mkdir"), "file-system driver: mkdir"),
        "dirstat" => (Engine::Fs("stat"), "file-system driver: stat"),
        "dirdelete" => (Engine::Fs("rmdir"), "file-system driver: rmdir"),
        _ => {
            job.unsupported(
                "ioengine",
                "iolab runs io_uring, libaio, posixaio (on io_uring), psync, sync, pvsync, pvsync2 (on psync), null, cpp_null (on null), falloc, ftruncate, page_fault and the file/dir create, stat and delete engines",
                notes,
            )?;
            return Ok(Engine::Block("psync"));
        }
    };
    if !matches!(
        e.as_str(),
        "io_uring" | "psync" | "null" | "falloc" | "ftruncate" | "page_fault"
    ) {
        notes.once(format!("ioengine={e} runs on iolab's {ours}"));
    }
    Ok(engine)
}

/// The directions a job's `rw` does.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Dirs {
    pub read: bool,
    pub write: bool,
    pub trim: bool,
    pub random: bool,
    pub mixed: bool,
}

fn rw(job: &Job, k: &mut Keys) -> Result<Dirs, JobError> {
    let text = job.val("rw").unwrap_or("read").to_ascii_lowercase();
    let (mode, suffix) = match text.split_once(':') {
        Some((m, s)) => (m.trim().to_string(), Some(s.trim().to_string())),
        None => (text.trim().to_string(), None),
    };
    let (read, write, trim, random) = match mode.as_str() {
        "read" => (true, false, false, false),
        "write" => (false, true, false, false),
        "trim" => (false, false, true, false),
        "randread" => (true, false, false, true),
        "randwrite" => (false, true, false, true),
        "randtrim" => (false, false, true, true),
        "rw" | "readwrite" => (true, true, false, false),
        "randrw" => (true, true, false, true),
        "trimwrite" => (false, true, true, false),
        "randtrimwrite" => (false, true, true, true),
        _ => return Err(job.bad("rw", "fio's rw is read, write, trim, randread, randwrite, randtrim, rw, randrw, trimwrite or randtrimwrite")),
    };
    let iolab = if mode == "readwrite" { "rw" } else { &mode };
    k.s("rw", iolab);
    let dirs = Dirs {
        read,
        write,
        trim,
        random,
        mixed: read && write,
    };
    if job.lo.readonly && (write || trim) {
        return Err(JobError(format!(
            "{}: --readonly: job [{}] writes (rw={text}); drop --readonly to run it",
            job.opt("rw").map(|o| o.place()).unwrap_or_default(),
            job.fio.name
        )));
    }
    if let Some(s) = suffix.filter(|s| !s.is_empty()) {
        if let Some(back) = s.strip_prefix('-').filter(|_| !random) {
            // fio's backwards stream: moves by bs + hole after each I/O.
            let hole = val::size(back, job.kb_of("rw")).map_err(|m| job.bad("rw", &m))?;
            k.s("hole", format!("-{}", val::fmt_size(hole)));
        } else if random {
            let n = val::uint(&s).map_err(|m| job.bad("rw", &m))?;
            k.n("random_every", n);
        } else {
            let hole = val::size(&s, job.kb_of("rw")).map_err(|m| job.bad("rw", &m))?;
            k.s("hole", val::fmt_size(hole));
        }
    }
    if dirs.mixed {
        read_mix(job, k)?;
    }
    Ok(dirs)
}

/// I/O priorities: fio's `prioclass`/`prio` and its io_uring/libaio
/// engines' `cmdprio_*` pass to iolab's keys as written (the resolver
/// checks them; iolab runs libaio jobs on io_uring, which carries them).
fn prio(job: &Job, k: &mut Keys) {
    for (fio, ours) in [
        ("prioclass", "prio_class"),
        ("prio", "prio"),
        ("cmdprio_percentage", "cmdprio_pct"),
        ("cmdprio_class", "cmdprio_class"),
        ("cmdprio", "cmdprio"),
        ("cmdprio_bssplit", "cmdprio_bssplit"),
    ] {
        if let Some(v) = job.val(fio) {
            k.s(ours, v.to_string());
        }
    }
}

/// `rwmixread`/`rwmixwrite`: the one written last wins (fio).
fn read_mix(job: &Job, k: &mut Keys) -> Result<(), JobError> {
    let pct = |key: &str| -> Result<u64, JobError> {
        val::percent(job.val(key).unwrap_or("")).map_err(|m| job.bad(key, &m))
    };
    let read = match later(job, "rwmixread", "rwmixwrite") {
        None => return Ok(()),
        Some("rwmixwrite") => 100 - pct("rwmixwrite")?,
        Some(_) => pct("rwmixread")?,
    };
    k.n("read_pct", read);
    Ok(())
}

/// Which of two options was written last (`None`: neither).
fn later<'k>(job: &Job, a: &'k str, b: &'k str) -> Option<&'k str> {
    let pos = |key: &str| {
        job.opt(key)
            .and_then(|o| job.fio.options.iter().rposition(|x| std::ptr::eq(x, o)))
    };
    match (pos(a), pos(b)) {
        (None, None) => None,
        (Some(x), Some(y)) if y > x => Some(b),
        (None, Some(_)) => Some(b),
        _ => Some(a),
    }
}

/// Block sizes of one direction: `(size, weight)`.
type Sizes = Vec<(u64, u64)>;

/// Each direction's block sizes: `bssplit`, else `bsrange`, else `bs`.
fn block_sizes(job: &Job) -> Result<[Sizes; 3], JobError> {
    let mut out: [Sizes; 3] = [vec![(4096, 1)], vec![(4096, 1)], vec![(4096, 1)]];
    if let Some(v) = job.val("bs") {
        for (d, s) in val::per_dir(v)
            .map_err(|m| job.bad("bs", &m))?
            .iter()
            .enumerate()
        {
            if let Some(s) = s {
                out[d] = vec![(
                    val::size(s, job.kb_of("bs")).map_err(|m| job.bad("bs", &m))?,
                    1,
                )];
            }
        }
    }
    if let Some(v) = job.val("bsrange") {
        for (d, s) in val::per_dir(v)
            .map_err(|m| job.bad("bsrange", &m))?
            .iter()
            .enumerate()
        {
            if let Some(s) = s {
                out[d] = bs_range(job, s)?;
            }
        }
    }
    if let Some(v) = job.val("bssplit") {
        let sets: Vec<&str> = v.split(',').collect();
        if sets.len() > 3 {
            return Err(job.bad("bssplit", "more than three sets (fio: read,write,trim)"));
        }
        for (d, set) in sets.iter().enumerate() {
            if !set.trim().is_empty() {
                out[d] = bs_split(job, set)?;
            }
        }
        // One set applies to every direction (fio).
        if sets.len() == 1 {
            out[1] = out[0].clone();
            out[2] = out[0].clone();
        }
    }
    for s in &out {
        if s.iter().any(|(b, _)| *b == 0) {
            return Err(job.bad("bs", "a block size of 0"));
        }
    }
    Ok(out)
}

/// `bsrange=1k-8k`: fio picks sizes between the two, in multiples of
/// the smaller; iolab's mix takes each multiple with the same weight.
fn bs_range(job: &Job, s: &str) -> Result<Sizes, JobError> {
    let (a, b) = val::range(s);
    let lo = val::size(&a, job.kb_of("bsrange")).map_err(|m| job.bad("bsrange", &m))?;
    let hi = match b {
        Some(b) => val::size(&b, job.kb_of("bsrange")).map_err(|m| job.bad("bsrange", &m))?,
        None => lo,
    };
    if lo == 0 || hi < lo {
        return Err(job.bad("bsrange", "give the smaller size first, e.g. 4k-64k"));
    }
    if hi / lo > 64 {
        return Err(job.bad(
            "bsrange",
            "spans more than 64 multiples of its smallest size; iolab's block-size mix holds at most 64 (use bssplit)",
        ));
    }
    Ok((1..=hi / lo).map(|m| (m * lo, 1)).collect())
}

/// `bssplit=4k/10:64k/50:32k/`: entries `size/percent`; entries without a
/// percentage share what the others leave, evenly (fio's rule).
fn bs_split(job: &Job, set: &str) -> Result<Sizes, JobError> {
    let mut entries: Vec<(u64, Option<u64>)> = Vec::new();
    for e in set.split(':').map(str::trim).filter(|e| !e.is_empty()) {
        let (s, p) = match e.split_once('/') {
            Some((s, p)) => (s, Some(p.trim())),
            None => (e, None),
        };
        let size = val::size(s, job.kb_of("bssplit")).map_err(|m| job.bad("bssplit", &m))?;
        let pct = match p.filter(|p| !p.is_empty()) {
            Some(p) => Some(val::percent(p).map_err(|m| job.bad("bssplit", &m))?),
            None => None,
        };
        entries.push((size, pct));
    }
    if entries.is_empty() || entries.len() > 64 {
        return Err(job.bad("bssplit", "give 1 to 64 entries SIZE/PERCENT"));
    }
    let given: u64 = entries.iter().filter_map(|(_, p)| *p).sum();
    let missing = entries.iter().filter(|(_, p)| p.is_none()).count() as u64;
    if given > 100 {
        return Err(job.bad("bssplit", "the percentages add up to more than 100"));
    }
    let share = if missing == 1 && entries.len() == 1 {
        100
    } else {
        (100 - given).checked_div(missing).unwrap_or(0)
    };
    let out: Sizes = entries
        .into_iter()
        .map(|(s, p)| (s, p.unwrap_or(share)))
        .filter(|(_, w)| *w > 0)
        .collect();
    if out.is_empty() {
        return Err(job.bad("bssplit", "every entry has 0 percent"));
    }
    Ok(out)
}

/// A direction's sizes as iolab writes them: `4k` or `4k:10,64k:90`.
fn fmt_sizes(s: &Sizes) -> String {
    if s.len() == 1 {
        return val::fmt_size(s[0].0);
    }
    let parts: Vec<String> = s
        .iter()
        .map(|(b, w)| format!("{}:{w}", val::fmt_size(*b)))
        .collect();
    parts.join(",")
}

/// The mean block size of a direction (for bytes/s -> I/Os per second).
fn mean(s: &Sizes) -> f64 {
    let w: u64 = s.iter().map(|(_, w)| w).sum();
    s.iter().map(|(b, w)| *b as f64 * *w as f64).sum::<f64>() / w.max(1) as f64
}

/// `bs`, `bs_write`, `bs_trim`: `bs` is the reads' (the default of the
/// others), or the first direction the job does.
fn set_block_sizes(k: &mut Keys, d: &Dirs, sizes: &[Sizes; 3]) {
    let first = if d.read {
        0
    } else if d.write {
        1
    } else {
        2
    };
    let bs = fmt_sizes(&sizes[first]);
    if d.write && first != 1 && fmt_sizes(&sizes[1]) != bs {
        k.s("bs_write", fmt_sizes(&sizes[1]));
    }
    if d.trim && first != 2 && fmt_sizes(&sizes[2]) != bs {
        k.s("bs_trim", fmt_sizes(&sizes[2]));
    }
    k.s("bs", bs);
}

/// Map one job. See the module documentation.
pub(crate) fn map_job(job: &Job, notes: &mut Notes) -> Result<Mapped, JobError> {
    let mut k = Keys::default();
    k.s("name", job.name.clone());
    let jobs = job.uint("numjobs")?.unwrap_or(1);
    if jobs == 0 || jobs > 4096 {
        return Err(job.bad("numjobs", "iolab runs 1 to 4096 jobs of a section"));
    }
    k.n("jobs", jobs);
    if let Some(v) = job.val("startdelay") {
        if val::range(v).1.is_some() {
            job.unsupported(
                "startdelay",
                "iolab takes one start delay, not a range",
                notes,
            )?;
        } else if let Some(us) = job.time("startdelay", 1_000_000)? {
            k.s("start_delay", val::fmt_us(us));
        }
    }
    let engine = engine(job, notes)?;
    match engine {
        Engine::Fs(op) => files::fs_job(job, op, jobs, &mut k, notes)?,
        Engine::Block(e) => block_job(job, e, jobs, &mut k, notes)?,
    }
    common(job, &mut k, notes)?;
    super::coupling::coupling(job, &mut k)?;
    let interval_us = match job.uint("log_avg_msec")? {
        Some(0) | None => None,
        Some(ms) => Some(ms.saturating_mul(1000)),
    };
    if interval_us.is_none() && logs_asked(job) {
        notes.once("fio logs every I/O without log_avg_msec; iolab's logs have one line per interval (1s unless log_avg_msec)");
    }
    Ok(Mapped {
        keys: k.0,
        warmup_us: job.time("ramp_time", 1_000_000)?.filter(|us| *us > 0),
        interval_us,
    })
}

fn logs_asked(job: &Job) -> bool {
    ["write_bw_log", "write_lat_log", "write_iops_log"]
        .iter()
        .any(|l| job.opt(l).is_some())
}

fn block_job(
    job: &Job,
    engine: &'static str,
    jobs: u64,
    k: &mut Keys,
    notes: &mut Notes,
) -> Result<(), JobError> {
    let d = rw(job, k)?;
    let sizes = block_sizes(job)?;
    set_block_sizes(k, &d, &sizes);
    if let Some(v) = job.val("ba") {
        let first = val::per_dir(v).map_err(|m| job.bad("ba", &m))?;
        if let Some(a) = first.iter().flatten().next() {
            k.s(
                "align",
                val::fmt_size(val::size(a, job.kb_of("ba")).map_err(|m| job.bad("ba", &m))?),
            );
        }
    }
    random(job, &d, k, notes)?;
    prio(job, k);
    k.s("engine", engine);
    let qd = job.uint("iodepth")?.unwrap_or(1).max(1);
    let sync = !matches!(engine, "io_uring" | "null");
    if sync && qd > 1 {
        notes.once(format!(
            "iodepth={qd} with a synchronous engine: fio keeps one I/O in flight per job, so does iolab (qd 1)"
        ));
    }
    k.n("qd", if sync { 1 } else { qd });
    if let Some(b) = job.uint("iodepth_batch_complete_min")?.filter(|b| *b > 0) {
        if !sync {
            k.n("batch_complete", b.min(qd));
        }
    }
    // direct and buffered are one flag seen from two sides: the one
    // written last wins; fio's default is buffered.
    let direct = match later(job, "direct", "buffered") {
        Some("direct") => job.flag("direct")?.unwrap_or(false),
        Some(_) => !job.flag("buffered")?.unwrap_or(false),
        None => false,
    };
    k.b("direct", direct);
    sync_keys(job, k, notes)?;
    data(job, k, notes)?;
    super::integrity::patterns(job, k, notes)?;
    verify(job, &d, k, notes)?;
    super::integrity::options(job, &d, direct, k, notes)?;
    pacing(job, &d, &sizes, jobs, k, notes)?;
    files::block_files(job, &d, jobs, k, notes)
}

/// `randrepeat`/`randseed`, `percentage_random`, `random_distribution`,
/// `norandommap`.
fn random(job: &Job, d: &Dirs, k: &mut Keys, notes: &mut Notes) -> Result<(), JobError> {
    if let Some(seed) = job.uint("randseed")? {
        k.n("seed", seed);
    } else if job.flag("randrepeat")? == Some(false) {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|t| t.subsec_nanos() as u64 ^ t.as_secs())
            .unwrap_or(1);
        k.n("seed", seed);
        notes.once(format!(
            "randrepeat=0: job [{}] runs with seed {seed} (give randseed to repeat it)",
            job.fio.name
        ));
    }
    if !d.random {
        return Ok(());
    }
    if let Some(v) = job.val("percentage_random") {
        let first = val::per_dir(v).map_err(|m| job.bad("percentage_random", &m))?;
        if let Some(p) = first.iter().flatten().next() {
            let p = val::percent(p).map_err(|m| job.bad("percentage_random", &m))?;
            k.n("random_pct", p);
        }
    }
    if let Some(v) = job.val("random_distribution") {
        let sets: Vec<&str> = v.split(',').map(str::trim).collect();
        if sets.iter().any(|s| *s != sets[0] && !s.is_empty()) {
            job.unsupported(
                "random_distribution",
                "iolab takes one distribution for every direction",
                notes,
            )?;
        }
        let dist = sets[0].to_ascii_lowercase();
        if dist.starts_with("sequence") {
            job.unsupported(
                "random_distribution",
                "iolab has no sequence distribution",
                notes,
            )?;
        } else if dist == "random" {
            k.s("distribution", "uniform");
        } else if !dist.is_empty() {
            k.s("distribution", dist);
        }
    }
    // fio keeps its random map only for uniform offsets.
    let uniform =
        k.0.get("distribution")
            .and_then(Value::as_str)
            .is_none_or(|d| d == "uniform");
    if job.flag("norandommap")? != Some(true) && uniform {
        notes.once("fio's random map makes a random job touch each block once per pass; iolab draws every random offset afresh, as fio's norandommap does");
    }
    Ok(())
}

/// `sync`, `fsync`, `fdatasync`, `end_fsync`.
fn sync_keys(job: &Job, k: &mut Keys, notes: &mut Notes) -> Result<(), JobError> {
    if let Some(v) = job.val("sync") {
        match v.to_ascii_lowercase().as_str() {
            "0" | "none" | "false" => {}
            "1" | "" | "sync" | "true" => {
                k.s("sync", "dsync");
                notes.once(
                    "sync=1 (O_SYNC) runs as O_DSYNC: every write is durable when it completes",
                );
            }
            "dsync" => k.s("sync", "dsync"),
            _ => return Err(job.bad("sync", "fio's sync is 0, 1, none, sync or dsync")),
        }
    }
    if let Some(n) = job.uint("fsync")?.filter(|n| *n > 0) {
        k.n("fsync_every", n);
    }
    if let Some(n) = job.uint("fdatasync")?.filter(|n| *n > 0) {
        k.n("fdatasync_every", n);
    }
    if job.flag("end_fsync")? == Some(true) {
        k.b("end_fsync", true);
    }
    Ok(())
}

/// What writes contain: `zero_buffers`, `buffer_compress_percentage`,
/// `dedupe_percentage`; `refill_buffers`/`scramble_buffers` are what
/// iolab does anyway.
fn data(job: &Job, k: &mut Keys, notes: &mut Notes) -> Result<(), JobError> {
    for key in ["refill_buffers", "scramble_buffers"] {
        if job.opt(key).is_some() {
            notes.ignore(key, "iolab's writes carry fresh data each time");
        }
    }
    if job.flag("zero_buffers")? == Some(true) {
        k.s("data", "zero");
    }
    if let Some(v) = job.val("buffer_compress_percentage") {
        let p = val::percent(v).map_err(|m| job.bad("buffer_compress_percentage", &m))?;
        match p {
            0 => {}
            100 => k.s("data", "zero"),
            p => {
                let ratio = 100.0 / (100 - p) as f64;
                k.s(
                    "data",
                    format!("compress:{}", (ratio * 100.0).round() / 100.0),
                );
            }
        }
    }
    if let Some(v) = job.val("dedupe_percentage") {
        let p = val::percent(v).map_err(|m| job.bad("dedupe_percentage", &m))?;
        if p > 0 {
            k.n("dedupe", p);
        }
    }
    Ok(())
}

/// fio's checksum names: each runs iolab's stamps.
const CHECKSUMS: &[&str] = &[
    "md5",
    "crc64",
    "crc32c",
    "crc32c-intel",
    "crc32",
    "crc16",
    "crc7",
    "xxhash",
    "sha512",
    "sha256",
    "sha1",
    "sha3-224",
    "sha3-256",
    "sha3-384",
    "sha3-512",
    "meta",
    "pattern",
    "pattern_hdr",
    "1",
];

/// `verify`, `do_verify`, `verify_backlog`: a writing job with verify
/// re-reads each write once it completes (`verify_after`), where fio
/// reads the whole region back after the writes (or every
/// `verify_backlog` blocks); `do_verify=0` writes the stamps only.
fn verify(job: &Job, d: &Dirs, k: &mut Keys, notes: &mut Notes) -> Result<(), JobError> {
    // fio: a verify_pattern without verify is verify=pattern.
    let Some(v) = job
        .val("verify")
        .or(job.val("verify_pattern").map(|_| "pattern"))
    else {
        return Ok(());
    };
    let v = v.to_ascii_lowercase();
    let pattern = job.val("verify_pattern").is_some();
    if matches!(v.as_str(), "0" | "null" | "none" | "") {
        return Ok(());
    }
    if !CHECKSUMS.contains(&v.as_str()) {
        return Err(job.bad(
            "verify",
            "not one of fio's verify methods (md5, crc32c, sha256, ... )",
        ));
    }
    k.b("verify", true);
    if !pattern {
        notes.once("every fio verify method (md5, crc32c, sha256, ...) runs iolab's stamps: each written 512-byte sector carries its offset, generation and checksum");
    }
    let check = job.flag("do_verify")?.unwrap_or(true);
    if d.write && check {
        k.b("verify_after", true);
        notes.once("fio verifies a write job by reading it back after the writes (or every verify_backlog blocks); iolab re-reads each write as soon as it completes (verify_after)");
    } else if !d.write && !pattern {
        notes.once("a read job with verify checks the stamps of blocks written in this run or kept in a journal; fio checks a file written before");
    }
    Ok(())
}

/// `rate`, `rate_iops`, `rate_process`, `thinktime`, `thinktime_blocks`.
/// fio limits each direction of each job; iolab limits the workload's
/// I/Os per second, which keeps the mix: the total that meets every
/// direction's limit.
fn pacing(
    job: &Job,
    d: &Dirs,
    sizes: &[Sizes; 3],
    jobs: u64,
    k: &mut Keys,
    notes: &mut Notes,
) -> Result<(), JobError> {
    let read_share = if d.mixed {
        k.0.get("read_pct")
            .and_then(Value::as_integer)
            .unwrap_or(50) as f64
            / 100.0
    } else if d.read {
        1.0
    } else {
        0.0
    };
    let share = [
        read_share,
        1.0 - read_share,
        if d.trim && !d.write { 1.0 } else { 0.0 },
    ];
    let mut total: Option<f64> = None;
    for key in ["rate", "rate_iops"] {
        let Some(v) = job.val(key) else { continue };
        for (dir, s) in val::per_dir(v)
            .map_err(|m| job.bad(key, &m))?
            .iter()
            .enumerate()
        {
            let Some(s) = s else { continue };
            let n = val::size(s, job.kb_of(key)).map_err(|m| job.bad(key, &m))? as f64;
            if n == 0.0 || share[dir] == 0.0 {
                continue;
            }
            let iops = if key == "rate" {
                n / mean(&sizes[dir])
            } else {
                n
            };
            if key == "rate" {
                notes.once(format!(
                    "rate in bytes/s becomes I/Os per second at the mean block size ({} B)",
                    mean(&sizes[dir]).round()
                ));
            }
            let t = iops / share[dir];
            total = Some(total.map_or(t, |c: f64| c.min(t)));
        }
    }
    if let Some(t) = total {
        let r = (t * jobs as f64 * 1000.0).round() / 1000.0;
        k.0.insert("rate".into(), Value::Float(r));
        if job.val("rate").map(|v| v.contains(',')).unwrap_or(false)
            || job
                .val("rate_iops")
                .map(|v| v.contains(','))
                .unwrap_or(false)
        {
            notes.once("per-direction rates: iolab limits the workload's total I/Os per second, kept at the mix, to meet every direction's limit");
        }
    }
    if let Some(p) = job.val("rate_process") {
        match p.to_ascii_lowercase().as_str() {
            "linear" => {}
            "poisson" => k.s("arrival", "poisson"),
            _ => return Err(job.bad("rate_process", "fio's rate_process is linear or poisson")),
        }
    }
    if let Some(us) = job.time("thinktime", 1)?.filter(|us| *us > 0) {
        k.s("think", val::fmt_us(us));
        if let Some(n) = job.uint("thinktime_blocks")?.filter(|n| *n > 1) {
            k.n("think_blocks", n);
        }
    }
    Ok(())
}

/// Options of every job: steady state, pinning, clock, errors, safety.
fn common(job: &Job, k: &mut Keys, notes: &mut Notes) -> Result<(), JobError> {
    if let Some(v) = job.val("steadystate") {
        k.s("steady", v.to_ascii_lowercase());
        if let Some(us) = job.time("steadystate_duration", 1_000_000)? {
            k.s("steady_duration", val::fmt_us(us));
        }
        if let Some(us) = job.time("steadystate_ramp_time", 1_000_000)? {
            k.s("steady_ramp", val::fmt_us(us));
        }
    }
    if let Some(c) = job.val("cpus_allowed") {
        k.s("cpus", c);
        if job.val("cpus_allowed_policy") == Some("shared") {
            notes.once("cpus_allowed_policy=shared: iolab pins each worker to one CPU of the list in turn (split)");
        }
    }
    if let Some(v) = job.val("numa_cpu_nodes") {
        if iolab_spec::numa::parse_nodes(v, "numa-cpu-nodes").is_err() {
            return Err(job.bad(
                "numa_cpu_nodes",
                "give NUMA nodes and ranges such as 0 or 0-1,3",
            ));
        }
        k.s("numa_cpu_nodes", v);
    }
    if let Some(v) = job.val("numa_mem_policy") {
        if iolab_spec::numa::parse_mem_policy(v).is_err() {
            return Err(job.bad(
                "numa_mem_policy",
                "fio's policies are default, local, prefer:N, bind:NODES and interleave:NODES",
            ));
        }
        k.s("numa_mem_policy", v);
    }
    if let Some(c) = job.val("clocksource") {
        match c {
            "cpu" => k.s("clock", "tsc"),
            "clock_gettime" => k.s("clock", "clock_gettime"),
            _ => notes.once(format!("clocksource={c}: iolab reads its own clock (auto)")),
        }
    }
    if let Some(v) = job.val("continue_on_error") {
        if !matches!(v, "none" | "0" | "false") {
            k.s("on_error", "continue");
        }
    }
    if job.val("ignore_error").is_some_and(|v| !v.is_empty()) {
        k.s("on_error", "continue");
        notes.once("ignore_error: iolab goes on after every error (on_error=continue) and counts each with its errno");
    }
    if job.flag("allow_mounted_write")? == Some(true) {
        k.b("allow_mounted_write", true);
    }
    Ok(())
}
