//! Job files and the resolution of options into a validated spec.

use crate::options::{Values, WorkloadOptions};
use crate::runs::{runs_of, RunOptions, RunTable};
use iolab_spec::*;
use serde::Deserialize;
use std::path::Path;

/// A problem with a job file or with options; one line, what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct JobError(pub String);

impl From<SpecError> for JobError {
    fn from(e: SpecError) -> Self {
        JobError(e.0)
    }
}

/// A native job file: `[global]` defaults and either `[[workload]]`
/// entries run in order (each a run of one workload) or `[[run]]` tables,
/// run in order, each holding `[[run.workload]]` tables that run together
/// (crate::runs). A file with only `[global]` is one workload.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobFile {
    #[serde(default)]
    pub global: WorkloadOptions,
    #[serde(default)]
    pub workload: Vec<WorkloadOptions>,
    #[serde(default)]
    pub run: Vec<RunTable>,
    /// The top-level `hosts` key: one host a string, as a host file's line
    /// (`"root@h1:22 /dev/sdb"`); read by [`hosts`](Self::hosts).
    #[serde(default)]
    pub hosts: Vec<String>,
    /// The file's text, for the line of a key in messages.
    #[serde(skip)]
    pub text: Option<String>,
}

impl JobFile {
    /// The runs of the file, in order: each `[[run]]`, or each
    /// `[[workload]]` as a run of one workload (`[global]` alone is one).
    /// A file with both kinds of table is refused: their order cannot be
    /// told apart once parsed, and the file means one or the other.
    pub fn runs(&self) -> Result<Vec<RunOptions>, JobError> {
        let text = self.text.as_deref();
        if self.run.is_empty() {
            return Ok(self
                .workloads()
                .into_iter()
                .enumerate()
                .map(|(i, w)| RunOptions::single(i, w))
                .collect());
        }
        if !self.workload.is_empty() {
            let at = text
                .and_then(|t| {
                    t.lines()
                        .position(|l| l.trim().replace(' ', "").starts_with("[[workload]]"))
                })
                .map(|n| format!("line {}: ", n + 1))
                .unwrap_or_default();
            return Err(JobError(format!(
                "{at}the file has both [[workload]] and [[run]] tables; put each [[workload]] in a [[run]] of its own ([[run]] then [[run.workload]]), or use only [[workload]]"
            )));
        }
        runs_of(&self.global, &self.run, text)
    }

    /// The hosts of the top-level `hosts` key (docs/jobfile.md "Several
    /// hosts"): each string a host file's line, `[USER@]HOST[:PORT]
    /// [PATH...]`; a host named twice is refused.
    pub fn hosts(&self) -> Result<Vec<iolab_spec::HostSpec>, JobError> {
        let at = self
            .text
            .as_deref()
            .and_then(|t| {
                t.lines()
                    .take_while(|l| !l.trim_start().starts_with('['))
                    .position(|l| l.trim_start().starts_with("hosts") && l.contains('='))
            })
            .map(|n| format!("line {}: ", n + 1))
            .unwrap_or_default();
        let mut hosts = Vec::new();
        for (i, line) in self.hosts.iter().enumerate() {
            let bad = |e: String| JobError(format!("{at}hosts[{i}] '{line}': {e}"));
            if line.contains(['\n', '#']) {
                return Err(bad("one host a string, without '#' or a line break".into()));
            }
            let mut listed = iolab_spec::hosts::parse_hosts_file(line)
                .map_err(|e| bad(e.strip_prefix("line 1: ").unwrap_or(&e).to_string()))?;
            let Some(h) = listed.pop() else {
                return Err(bad("give a host: \"[USER@]HOST[:PORT] [PATH...]\"".into()));
            };
            iolab_spec::hosts::add_host(&mut hosts, h).map_err(bad)?;
        }
        Ok(hosts)
    }

    /// The workloads with the global defaults applied: of a file of
    /// `[[workload]]` tables, each; of a file of `[[run]]` tables, every
    /// workload of every run in order, with its run's defaults (not the
    /// run's name and shared rate). A flat view for checks and fuzzing:
    /// the planner takes [`runs`](Self::runs).
    pub fn workloads(&self) -> Vec<WorkloadOptions> {
        if !self.run.is_empty() {
            return self
                .run
                .iter()
                .flat_map(|r| {
                    let mut base = self.global.overlay(&r.opts);
                    base.name = None;
                    base.rate = None;
                    r.workload.iter().map(move |w| base.overlay(w))
                })
                .collect();
        }
        if self.workload.is_empty() {
            vec![self.global.clone()]
        } else {
            self.workload
                .iter()
                .map(|w| self.global.overlay(w))
                .collect()
        }
    }
}

/// Parse the text of a job file; `origin` names it in errors. The pure
/// step of [`load_job_file`], also what the fuzz targets exercise.
pub fn parse_job_text(text: &str, origin: &str) -> Result<JobFile, JobError> {
    let mut job = parse_toml(text, origin)?;
    job.text = Some(text.to_string());
    Ok(job)
}

fn parse_toml(text: &str, origin: &str) -> Result<JobFile, JobError> {
    toml::from_str::<JobFile>(text).map_err(|e| {
        let mut msg = e.message().replace('\n', " ");
        let mut at = String::new();
        if let Some(s) = e.span() {
            let start = s.start.min(text.len());
            at = format!(" line {}:", text[..start].matches('\n').count() + 1);
            // The key whose value is wrong, from the line the span starts
            // on, or the nearest above it for an item of a multi-line
            // array (toml's message names the type, not the key).
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            let upto = &text[..line_start
                + text[line_start..]
                    .find('\n')
                    .unwrap_or(text.len() - line_start)];
            let line = upto
                .lines()
                .rev()
                .take_while(|l| !l.trim_start().starts_with('['))
                .find(|l| l.contains('='))
                .unwrap_or("");
            if let Some((key, _)) = line.split_once('=') {
                let key = key.trim().trim_matches(['"', '\'']);
                if !key.is_empty()
                    && !key.contains(['[', ' '])
                    && !msg.contains(&format!("`{key}`"))
                {
                    msg = format!("key {key}: {msg}");
                }
            }
        }
        if msg.starts_with("unknown field `hosts`") {
            msg = "hosts is a key of the whole file: write it at the top, before the first table (hosts = [\"h1\", \"h2 /dev/sdb\"])".into();
        } else if msg.starts_with("key hosts:") {
            msg.push_str(": write hosts = [\"h1\", \"h2 /dev/sdb\"], one host a string");
        } else if msg.contains("expected a sequence") && text.contains("[workload]") {
            msg.push_str(": write [[workload]] (double brackets) for each workload");
        } else if msg.contains("expected a sequence") && text.contains("[run") {
            msg.push_str(": write [[run]] and [[run.workload]] (double brackets) for each run and each of its workloads");
        }
        JobError(format!(
            "job file {origin}:{at} {msg}; see docs/jobfile.md for the keys"
        ))
    })
}

/// The job-file keys of the parameter `--flag`: its name and its fio and
/// vdbench aliases (from its definition in `iolab_spec::params`). A flag
/// that is not a parameter is its own key.
pub fn keys_of(flag: &str) -> Vec<String> {
    match iolab_spec::params::find(flag) {
        Some(p) => std::iter::once(p.name)
            .chain(p.aliases.iter().copied())
            .map(str::to_string)
            .collect(),
        None => vec![flag.trim_start_matches('-').replace('-', "_")],
    }
}

/// The line (from 1) where a job file sets the parameter `--flag`: in its
/// `index`-th `[[workload]]` table (from 0), else in `[global]`. For
/// messages about values that are valid TOML but wrong for the key.
pub fn key_line(text: &str, flag: &str, index: usize) -> Option<usize> {
    let keys = keys_of(flag);
    let (mut global, mut workload) = (None, None);
    // -1: before any table (top-level keys are refused by the parser).
    let mut section: i64 = -2;
    let mut workloads = 0i64;
    for (n, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.starts_with("[[") {
            section = if l
                .trim_start_matches("[[")
                .trim_start()
                .starts_with("workload")
            {
                workloads += 1;
                workloads - 1
            } else {
                -2
            };
            continue;
        }
        if l.starts_with('[') {
            section = if l.trim_start_matches('[').trim().starts_with("global") {
                -1
            } else {
                -2
            };
            continue;
        }
        let Some((k, _)) = l.split_once('=') else {
            continue;
        };
        let k = k.trim().trim_matches(['"', '\'']);
        if !keys.iter().any(|key| key == k) {
            continue;
        }
        if section == -1 && global.is_none() {
            global = Some(n + 1);
        } else if section == index as i64 && workload.is_none() {
            workload = Some(n + 1);
        }
    }
    workload.or(global)
}

pub fn load_job_file(path: &Path) -> Result<JobFile, JobError> {
    let text = read_job_text(path)?;
    parse_job_text(&text, &path.display().to_string())
}

/// A job file's text, any format. Bounded: `/dev/zero` or a FIFO as the
/// job file is refused at once.
pub fn read_job_text(path: &Path) -> Result<String, JobError> {
    iolab_target::read_text_bounded(path, iolab_target::TEXT_LIMIT).map_err(|e| {
        use iolab_target::InputError as E;
        JobError(match e {
            E::NotFound { path } => format!(
                "cannot read job file {}: it does not exist; check the path",
                path.display()
            ),
            E::Io { path, source } => format!(
                "cannot read job file {}: {source}; check the path",
                path.display()
            ),
            e => format!("cannot read job file: {e}; give an iolab (TOML) or fio job file (docs/jobfile.md, docs/fio.md)"),
        })
    })
}

pub(crate) fn text(v: &Option<Values>) -> Option<&str> {
    v.as_ref().map(Values::one)
}

pub(crate) fn size(v: &Option<Values>, flag: &str) -> Result<Option<u64>, JobError> {
    text(v)
        .map(|s| parse_size(s).map_err(|e| JobError(format!("--{flag}: {e}"))))
        .transpose()
}

/// A size that may be negative (`hole = "-8k"`): a leading `-` negates it.
fn signed_size(v: &Option<Values>, flag: &str) -> Result<i64, JobError> {
    let Some(t) = text(v) else { return Ok(0) };
    let (neg, body) = match t.trim().strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let n = parse_size(body).map_err(|e| JobError(format!("--{flag}: {e}")))?;
    let n = i64::try_from(n).map_err(|_| JobError(format!("--{flag} {t} is too large")))?;
    Ok(if neg { -n } else { n })
}

pub(crate) fn secs(v: &Option<String>, flag: &str) -> Result<Option<f64>, JobError> {
    v.as_deref()
        .map(|s| {
            parse_duration(s)
                .map(|d| d.as_secs_f64())
                .map_err(|e| JobError(format!("--{flag}: {e}")))
        })
        .transpose()
}

pub(crate) fn secs_v(v: &Option<Values>, flag: &str) -> Result<Option<f64>, JobError> {
    secs(&text(v).map(str::to_string), flag)
}

/// A number: `what` says which kind, for the message.
pub(crate) fn num<T: std::str::FromStr>(
    v: &Option<Values>,
    flag: &str,
    what: &str,
) -> Result<Option<T>, JobError> {
    text(v)
        .map(|s| {
            s.trim().parse::<T>().map_err(|_| {
                JobError(format!(
                    "--{flag}: '{s}' is not {what}; give e.g. --{flag} 4"
                ))
            })
        })
        .transpose()
}

/// A whole number in `range` (the bounds live in `iolab_spec`): negative,
/// overflowing and fractional text each get their own message naming the
/// flag and the allowed range.
pub(crate) fn int<T: TryFrom<i128>>(
    v: &Option<Values>,
    flag: &str,
    range: (u64, u64),
) -> Result<Option<T>, JobError> {
    let Some(s) = text(v) else {
        return Ok(None);
    };
    let t = s.trim();
    let n: i128 = match t.parse::<i128>() {
        Ok(n) => n,
        Err(_) => {
            let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
            if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
                // Too many digits even for i128: far beyond any bound.
                if t.starts_with('-') {
                    i128::MIN
                } else {
                    i128::MAX
                }
            } else {
                let what = if t.parse::<f64>().is_ok() {
                    "not a whole number"
                } else {
                    "not a number"
                };
                let (min, max) = range;
                let give = if max == u64::MAX {
                    format!("{min} or more")
                } else {
                    format!("{min} to {max}")
                };
                return Err(JobError(format!(
                    "--{flag}: '{s}' is {what}; give a whole number, {give}"
                )));
            }
        }
    };
    if let Err(e) = check_range(flag, n, range) {
        // Say the text as given, not i128's saturated stand-in.
        return Err(JobError(e.0.replacen(&n.to_string(), t, 1)));
    }
    T::try_from(n)
        .map(Some)
        .map_err(|_| JobError(format!("--{flag} {t} is too large")))
}

fn boolean(v: &Option<Values>, flag: &str) -> Result<Option<bool>, JobError> {
    text(v)
        .map(|s| match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "1" | "on" => Ok(true),
            "false" | "no" | "0" | "off" => Ok(false),
            _ => Err(JobError(format!("--{flag}: '{s}' is not true or false"))),
        })
        .transpose()
}

/// Whether resolving may look at the targets (`stat`); off for `iolab run
/// --parse-only`, which touches no target.
static PROBE_TARGETS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Resolve without looking at any target from now on (`--parse-only`): a
/// target under /dev/ is taken for a block device (O_DIRECT by default),
/// any other for a file.
pub fn without_target_probes() {
    PROBE_TARGETS.store(false, std::sync::atomic::Ordering::Relaxed);
}

fn is_block_device(p: &str) -> bool {
    use std::os::unix::fs::FileTypeExt;
    if !PROBE_TARGETS.load(std::sync::atomic::Ordering::Relaxed) {
        return p.starts_with("/dev/");
    }
    std::fs::metadata(p)
        .map(|m| m.file_type().is_block_device())
        .unwrap_or(false)
}

/// Default seed: fixed, so two runs of the same job do the same I/O.
pub const DEFAULT_SEED: u64 = 0x10_1ab;

/// Resolve options (already merged) into a validated spec. `index` is the
/// workload's position in its job, used for its default name and seed.
pub fn resolve(o: &WorkloadOptions, index: usize) -> Result<WorkloadSpec, JobError> {
    resolve_run(o, index, index)
}

/// Resolve one run of a plan: `index` is its workload's position (for the
/// default name), `seed_index` its position in the plan (every run of a
/// plan gets its own seed). Lists must be expanded first.
pub fn resolve_run(
    o: &WorkloadOptions,
    index: usize,
    seed_index: usize,
) -> Result<WorkloadSpec, JobError> {
    if let Some((name, _)) = o.axes().first() {
        return Err(JobError(format!(
            "--{name} has a list of values here; lists are expanded into runs before they are resolved"
        )));
    }
    if let Some(flag) = o.list_where_one_value_goes() {
        return Err(JobError(format!(
            "--{flag} takes one value, not a list: it is not a sweep parameter (docs/jobfile.md)"
        )));
    }
    let rw = text(&o.rw).unwrap_or("read").to_string();
    let (mut read_pct, mut random_pct) = parse_rw(&rw)?;
    if let Some(p) = int(&o.read_pct, "read-pct", PCT_RANGE)? {
        read_pct = p;
    }
    if let Some(p) = int(&o.random_pct, "random-pct", PCT_RANGE)? {
        random_pct = p;
    }
    let bs = parse_bs(text(&o.bs).unwrap_or("4k"))?;
    // Until the directions are known (below): then the smallest block
    // size of those the workload issues.
    let align_given = size(&o.align, "align")?;
    let align = align_given.unwrap_or(4096);
    let offset = size(&o.offset, "offset")?.unwrap_or(0);
    let range = size(&o.range, "range")?;
    let tsize = size(&o.size, "size")?;
    let targets = o
        .target
        .iter()
        .map(|p| TargetSpec {
            path: p.clone(),
            offset,
            range,
            size: tsize,
        })
        .collect::<Vec<_>>();
    let jobs = int(&o.jobs, "jobs", JOBS_RANGE)?.unwrap_or(1);
    let fs = crate::fs::resolve_fs(o, jobs)?;
    let mut duration_s = secs_v(&o.duration, "duration")?;
    let io_size = size(&o.io_size, "io-size")?;
    let ops = int::<u64>(&o.ops, "ops", (1, u64::MAX))?;
    // `fill` ends at ENOSPC or after one pass (set when the targets' sizes
    // are known), not at a default duration.
    let fill = o.fill.unwrap_or(false);
    if duration_s.is_none() && io_size.is_none() && ops.is_none() && !fill {
        // A personality runs as long as filebench's (`run 60`).
        let personality = fs.as_ref().is_some_and(|f| f.fs.personality.is_some());
        duration_s = Some(if personality {
            iolab_spec::personality::DURATION_S
        } else {
            10.0
        });
    }
    let direct = match boolean(&o.direct, "direct")? {
        Some(d) => d && !o.buffered,
        None => {
            !o.buffered && !targets.is_empty() && targets.iter().all(|t| is_block_device(&t.path))
        }
    };
    let default_sync = if fs.as_ref().is_some_and(|f| f.dsync) {
        "dsync"
    } else {
        "none"
    };
    let sync = match text(&o.sync).unwrap_or(default_sync) {
        "none" => SyncMode::None,
        "dsync" | "o_dsync" => SyncMode::Dsync,
        other => {
            return Err(JobError(format!(
                "--sync {other} is not known; use none or dsync"
            )))
        }
    };
    let on_error = match o.on_error.as_deref().unwrap_or("stop") {
        "stop" => OnError::Stop,
        "continue" => OnError::Continue,
        other => {
            return Err(JobError(format!(
                "--on-error {other} is not known; use stop or continue"
            )))
        }
    };
    let clock = match o.clock.as_deref().unwrap_or("auto") {
        "auto" => ClockSource::Auto,
        "tsc" | "cpu" => ClockSource::Tsc,
        "clock_gettime" | "clock-gettime" => ClockSource::ClockGettime,
        other => {
            return Err(JobError(format!(
                "--clock {other} is not known; use auto, tsc or clock_gettime"
            )))
        }
    };
    let prefill = if o.no_prefill {
        Prefill::Never
    } else {
        match o.prefill {
            Some(true) => Prefill::Always,
            Some(false) => Prefill::Never,
            None => Prefill::Auto,
        }
    };
    // A file-system workload's flows take `think` themselves.
    let fs_think = fs.is_some();
    let base_seed = o.seed.unwrap_or(DEFAULT_SEED);
    let seed = base_seed.wrapping_add(seed_index as u64);
    let spec = WorkloadSpec {
        bs_write: None,
        bs_trim: None,
        trim: TrimMode::None,
        hole: 0,
        random_every: 0,
        offset_increment: 0,
        ioprio: 0,
        cmdprio: None,
        name: o.name.clone().unwrap_or_else(|| match &fs {
            Some(f) => format!("{}-{}", f.kind, index + 1),
            None => format!("{rw}-{}", index + 1),
        }),
        targets,
        rw,
        read_pct,
        random_pct,
        bs,
        align,
        jobs,
        qd: int(&o.qd, "qd", QD_RANGE)?.unwrap_or(1),
        batch_complete: int(&o.batch_complete, "batch-complete", BATCH_COMPLETE_RANGE)?
            .unwrap_or(1),
        distribution: parse_distribution(text(&o.distribution).unwrap_or("uniform"))?,
        duration_s,
        io_size,
        ops,
        warmup_s: secs_v(&o.warmup, "warmup")?.unwrap_or(0.0),
        interval_s: secs(&o.interval, "interval")?.unwrap_or(1.0),
        rate_iops: num(&o.rate, "rate", "a number of I/Os per second")?,
        direct,
        sync,
        fsync_every: int(&o.fsync_every, "fsync-every", (0, u64::MAX))?.unwrap_or(0),
        data: parse_data(text(&o.data).unwrap_or("random"))?,
        dedupe_pct: int(&o.dedupe, "dedupe", PCT_RANGE)?.unwrap_or(0),
        engine: parse_engine(text(&o.engine).unwrap_or("io_uring"))?,
        cpus: match &o.cpus {
            Some(c) => parse_cpu_list(c)?,
            None => Vec::new(),
        },
        clock,
        seed,
        hit_area: size(&o.hit_area, "hit-area")?.unwrap_or(0),
        read_hit_pct: int(&o.read_hit_pct, "read-hit-pct", PCT_RANGE)?.unwrap_or(0),
        write_hit_pct: int(&o.write_hit_pct, "write-hit-pct", PCT_RANGE)?.unwrap_or(0),
        on_error,
        prefill,
        destroy_data_on: o.destroy_data_on.clone(),
        allow_mounted_write: o.allow_mounted_write.unwrap_or(false),
        stall_threshold_s: secs(&o.stall_threshold, "stall-threshold")?.unwrap_or(1.0),
        verify: o.verify.unwrap_or(false) || o.verify_after.unwrap_or(false) || o.journal.is_some(),
        verify_after: o.verify_after.unwrap_or(false),
        journal: o.journal.clone(),
        max_errors: o.max_errors.unwrap_or(50),
        start_delay_s: secs_v(&o.start_delay, "start-delay")?.unwrap_or(0.0),
        skew_pct: num(&o.skew, "skew", "a percentage")?,
        fs: fs.map(|f| iolab_spec::fs::FsSpec {
            layout_seed: Some(base_seed),
            ..f.fs
        }),
        // A window alone judges fio's default criterion.
        steady: match (text(&o.steady), o.steady_duration.is_some()) {
            (None, false) => None,
            (c, _) => Some(iolab_spec::steady::parse_steady(
                c.unwrap_or(iolab_spec::steady::FIO_DEFAULT_CRITERION),
                secs_v(&o.steady_duration, "steady-duration")?,
                secs_v(&o.steady_ramp, "steady-ramp")?.unwrap_or(0.0),
            )?),
        },
        think_s: if fs_think {
            0.0
        } else {
            secs_v(&o.think, "think")?.unwrap_or(0.0)
        },
        think_blocks: int(&o.think_blocks, "think-blocks", (1, u64::MAX))?.unwrap_or(1),
        arrival: match text(&o.arrival).unwrap_or("fixed") {
            "fixed" | "linear" => Arrival::Fixed,
            "poisson" => Arrival::Poisson,
            other => {
                return Err(JobError(format!(
                    "--arrival {other} is not known; use fixed or poisson"
                )))
            }
        },
        fdatasync_every: int(&o.fdatasync_every, "fdatasync-every", (0, u64::MAX))?.unwrap_or(0),
        end_fsync: o.end_fsync.unwrap_or(false),
        invalidate: o.invalidate.unwrap_or(false),
        unlink: o.unlink.unwrap_or(false),
        fill: o.fill.unwrap_or(false),
        atomic: o.atomic.unwrap_or(false),
        exitall: None,
        flow_ctl: None,
        numa: numa(o)?,
        origin: None,
    };
    let mut spec = spec;
    resolve_blockx(o, &mut spec)?;
    resolve_coupling(o, &mut spec)?;
    if align_given.is_none() {
        spec.align = spec.min_bs().max(1);
    }
    spec.validate()?;
    Ok(spec)
}

/// A per-direction block size (`bs-write`, `bs-trim`): `bs`'s syntax,
/// its messages naming the flag given.
fn bs_of(v: &Option<Values>, flag: &str) -> Result<Option<Vec<BsWeight>>, JobError> {
    text(v)
        .map(|t| parse_bs(t).map_err(|e| JobError(e.0.replacen("--bs ", &format!("--{flag} "), 1))))
        .transpose()
}

/// The trims, per-direction block sizes, holes and per-worker regions.
fn resolve_blockx(o: &WorkloadOptions, spec: &mut WorkloadSpec) -> Result<(), JobError> {
    spec.trim = rw_trim(&spec.rw);
    spec.bs_write = bs_of(&o.bs_write, "bs-write")?;
    spec.bs_trim = bs_of(&o.bs_trim, "bs-trim")?;
    spec.hole = signed_size(&o.hole, "hole")?;
    spec.random_every = int::<u64>(&o.random_every, "random-every", (1, u64::MAX))?
        .filter(|&n| n > 1)
        .unwrap_or(0);
    spec.offset_increment = size(&o.offset_increment, "offset-increment")?.unwrap_or(0);
    resolve_prio(o, spec)
}

/// `prio_class`/`prio` (every I/O's priority) and the `cmdprio_*` keys.
fn resolve_prio(o: &WorkloadOptions, spec: &mut WorkloadSpec) -> Result<(), JobError> {
    use iolab_spec::prio;
    let class = o
        .prio_class
        .as_deref()
        .map(prio::parse_class)
        .transpose()
        .map_err(|m| JobError(format!("--prio-class: {m}")))?;
    let level = int::<u16>(&o.prio, "prio", (0, 7))?;
    spec.ioprio = match (class, level) {
        // Class none without a level is no priority at all (0), what an
        // absent --prio-class gives.
        (None, None) | (Some(0), None) => 0,
        // fio: a level alone is best-effort's.
        (c, l) => prio::ioprio(
            c.unwrap_or(2),
            l.unwrap_or(if c == Some(3) { 0 } else { 4 }),
            0,
        ),
    };
    spec.cmdprio = prio::parse_cmdprio(
        o.cmdprio_pct.as_deref(),
        o.cmdprio_class.as_deref(),
        o.cmdprio.as_deref(),
        o.cmdprio_bssplit.as_deref(),
    )
    .map_err(JobError)?;
    Ok(())
}

/// `numa_cpu_nodes` and `numa_mem_policy` (syntax only: whether the
/// nodes exist is the engine's question, when the workload starts).
fn numa(o: &WorkloadOptions) -> Result<Option<iolab_spec::NumaSpec>, JobError> {
    let cpu_nodes = match text(&o.numa_cpu_nodes) {
        Some(t) => iolab_spec::numa::parse_nodes(t, "numa-cpu-nodes").map_err(|e| JobError(e.0))?,
        None => Vec::new(),
    };
    let mem = text(&o.numa_mem_policy)
        .map(iolab_spec::numa::parse_mem_policy)
        .transpose()
        .map_err(|e| JobError(e.0))?;
    Ok((!cpu_nodes.is_empty() || mem.is_some()).then_some(iolab_spec::NumaSpec { cpu_nodes, mem }))
}

/// `exitall`/`exit_what` and `flow_weight`/`flow_id`/`flow_sleep`.
fn resolve_coupling(o: &WorkloadOptions, spec: &mut WorkloadSpec) -> Result<(), JobError> {
    let what = iolab_spec::ExitWhat::parse(text(&o.exit_what).unwrap_or("group"))
        .map_err(|e| JobError(e.0))?;
    spec.exitall = o.exitall.unwrap_or(false).then_some(what);
    if let Some(w) = o.flow_weight {
        if !(1..=u32::MAX as u64).contains(&w) {
            return Err(JobError(format!(
                "--flow-weight {w} is out of range; give a weight from 1 to {}",
                u32::MAX
            )));
        }
        let id = o.flow_id.unwrap_or(0);
        let id = u32::try_from(id).map_err(|_| {
            JobError(format!(
                "--flow-id {id} is out of range; give 0 to {}",
                u32::MAX
            ))
        })?;
        let sleep = secs_v(&o.flow_sleep, "flow-sleep")?.unwrap_or(0.0);
        if sleep > 1.0 {
            return Err(JobError(format!(
                "--flow-sleep {sleep} s is over a second; give e.g. 1ms"
            )));
        }
        spec.flow_ctl = Some(iolab_spec::FlowSpec {
            id,
            weight: w as u32,
            sleep_us: (sleep * 1e6).round() as u64,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_file_with_global_and_workloads() {
        let j = parse_job_text(
            r#"
[global]
target = "/tmp/x"
size = "64m"
duration = "2s"
qd = 8

[[workload]]
name = "seq-write"
rw = "write"
bs = "1m"

[[workload]]
name = "oltp"
rw = "randrw"
read_pct = 75
bs = 8192
qd = 32
"#,
            "t.toml",
        )
        .unwrap();
        let ws = j.workloads();
        assert_eq!(ws.len(), 2);
        let a = resolve(&ws[0], 0).unwrap();
        let b = resolve(&ws[1], 1).unwrap();
        assert_eq!(a.name, "seq-write");
        assert_eq!(a.bs[0].bytes, 1 << 20);
        assert_eq!(a.qd, 8);
        assert_eq!(a.targets[0].size, Some(64 << 20));
        assert_eq!(b.read_pct, 75);
        assert_eq!(b.random_pct, 100);
        assert_eq!(b.qd, 32);
        assert_eq!(b.bs[0].bytes, 8192);
        assert_eq!(b.duration_s, Some(2.0));
        assert_ne!(a.seed, b.seed);
    }

    #[test]
    fn allow_mounted_write_key_and_default() {
        let j = parse_job_text(
            "[global]\ntarget='/dev/x'\ndestroy_data_on='/dev/x'\nallow_mounted_write=true\n",
            "t",
        )
        .unwrap();
        let s = resolve(&j.workloads()[0], 0).unwrap();
        assert!(s.allow_mounted_write);
        assert_eq!(s.destroy_data_on, vec!["/dev/x".to_string()]);
        let j = parse_job_text("[global]\ntarget='/dev/x'\n", "t").unwrap();
        assert!(!resolve(&j.workloads()[0], 0).unwrap().allow_mounted_write);
    }

    #[test]
    fn vdbench_and_fio_aliases() {
        let j = parse_job_text(
            "[global]\ntarget=['/a','/b']\nrdpct=70\nseekpct=100\niodepth=4\nnumjobs=2\n",
            "t",
        )
        .unwrap();
        let s = resolve(&j.workloads()[0], 0).unwrap();
        assert_eq!(
            (s.read_pct, s.random_pct, s.qd, s.jobs, s.targets.len()),
            (70, 100, 4, 2, 2)
        );
        assert_eq!(
            s.batch_complete, 1,
            "default: refill after every completion"
        );
    }

    #[test]
    fn batch_complete_key_and_its_fio_alias() {
        for text in [
            "[global]\ntarget='/a'\nqd=32\nbatch_complete=8\n",
            "[global]\ntarget='/a'\nqd=32\niodepth_batch_complete_min=8\n",
        ] {
            let j = parse_job_text(text, "t").unwrap();
            assert_eq!(resolve(&j.workloads()[0], 0).unwrap().batch_complete, 8);
        }
        let j = parse_job_text("[global]\ntarget='/a'\nbatch_complete=0\n", "t").unwrap();
        let e = resolve(&j.workloads()[0], 0)
            .and_then(|s| s.validate().map(|_| s).map_err(Into::into))
            .unwrap_err()
            .to_string();
        assert!(e.contains("--batch-complete 0"), "{e}");
    }

    #[test]
    fn unknown_key_is_one_line_with_its_line_number() {
        let e = parse_job_text("[global]\ntarget='/a'\n\nblocksize='4k'\n", "t.toml").unwrap_err();
        assert!(e.0.contains("line 4"), "{e}");
        assert!(e.0.contains("blocksize"), "{e}");
        assert!(!e.0.contains('\n'));
    }

    #[test]
    fn bad_values_name_the_flag() {
        let o = WorkloadOptions {
            target: vec!["/x".into()],
            bs: Some("4q".into()),
            ..Default::default()
        };
        assert!(resolve(&o, 0).unwrap_err().0.contains("--bs"));
        let o = WorkloadOptions {
            target: vec!["/x".into()],
            read_pct: Some(150u32.into()),
            ..Default::default()
        };
        assert!(resolve(&o, 0).unwrap_err().0.contains("read-pct"));
    }

    #[test]
    fn command_line_overrides_job_file() {
        let file = WorkloadOptions {
            qd: Some(4u32.into()),
            direct: Some(true.into()),
            ..Default::default()
        };
        let cli = WorkloadOptions {
            qd: Some(16u32.into()),
            buffered: true,
            ..Default::default()
        };
        let m = file.overlay(&cli);
        assert_eq!(m.qd, Some(16u32.into()));
        assert_eq!(m.direct, Some(false.into()));
    }
}

#[cfg(test)]
mod more_tests {
    use super::*;

    fn job_err(text: &str) -> String {
        let e = parse_job_text(text, "j.toml").unwrap_err().0;
        assert!(!e.contains('\n'), "{e}");
        e
    }

    fn resolve_err(text: &str) -> String {
        let j = parse_job_text(text, "j.toml").unwrap();
        resolve(&j.workloads()[0], 0).unwrap_err().0
    }

    fn resolved(text: &str) -> WorkloadSpec {
        let j = parse_job_text(text, "j.toml").unwrap();
        resolve(&j.workloads()[0], 0).unwrap()
    }

    #[test]
    fn fio_shaped_block_keys_resolve_into_the_spec() {
        let s = resolved(
            "[global]\ntarget = '/a'\nrw = 'randtrimwrite'\nbs_trim = '8k:3,16k:1'\nhole = '4k'\nrandom_every = 8\noffset_increment = '1m'\ndistribution = 'zoned:60/10:40/90'\n",
        );
        assert_eq!(s.trim, TrimMode::ThenWrite);
        assert_eq!((s.read_pct, s.random_pct), (0, 100));
        assert_eq!(s.bs_trim.as_ref().unwrap()[1].bytes, 16384);
        assert_eq!(
            (s.hole, s.random_every, s.offset_increment),
            (4096, 8, 1 << 20)
        );
        // The default alignment is the smallest size the workload issues:
        // its trims' (and the writes after them), not the unused bs.
        assert_eq!(s.align, 8192);
        assert!(s.writes() && s.data_writes() && s.trims() && !s.reads());
        let s = resolved("[global]\ntarget = '/a'\nrw = 'write'\nbs_write = '64k'\n");
        assert_eq!(
            (s.align, s.max_bs(), s.trim),
            (65536, 65536, TrimMode::None)
        );
        // random_every 1 is every I/O, as unset.
        let s = resolved("[global]\ntarget = '/a'\nrw = 'randread'\nrandom_every = 1\n");
        assert_eq!(s.random_every, 0);
    }

    #[test]
    fn fio_shaped_block_keys_refuse_what_cannot_run() {
        for (text, needle) in [
            ("bs_write = '4q'", "--bs-write 4q is not a block size"),
            ("bs_trim = '4k:1,8k'", "--bs-trim 4k:1,8k gives weights"),
            ("rw = 'trim'\nread_pct = 30", "--rw trim issues no reads"),
            (
                "rw = 'randtrim'\nverify = true",
                "--verify cannot check a workload that trims",
            ),
            (
                "rw = 'trimwrite'\nbs_write = '8k'",
                "--bs-write has no effect with --rw trimwrite",
            ),
            (
                "random_every = 0",
                "--random-every 0 is below the minimum 1",
            ),
            ("distribution = 'normal:0'", "normal:0 is not usable"),
        ] {
            let e = resolve_err(&format!("[global]\ntarget = '/a'\n{text}\n"));
            assert!(e.contains(needle), "{text}: {e}");
        }
    }

    #[test]
    fn toml_type_errors_name_the_key_the_line_and_the_type() {
        let e = job_err("[global]\ntarget = '/a'\n\nqd = { x = 1 }\n");
        assert!(e.contains("j.toml: line 4"), "{e}");
        assert!(e.contains("key qd"), "{e}");
        assert!(e.contains("found a table"), "{e}");
        assert!(!e.contains("untagged"), "{e}");
        let e = job_err("[global]\ntarget = 5\n");
        assert!(
            e.contains("line 2") && e.contains("key target") && e.contains("found an integer"),
            "{e}"
        );
        let e = job_err("[global]\ntarget = '/a'\ninterval = true\n");
        assert!(
            e.contains("line 3") && e.contains("key interval") && e.contains("true or false"),
            "{e}"
        );
        let e = job_err("[global]\ntarget = '/a'\nseed = 'x'\n");
        assert!(e.contains("line 3") && e.contains("key seed"), "{e}");
        let e = job_err("[global]\ntarget = '/a'\nqd = [\n  1,\n  { x = 2 },\n]\n");
        assert!(e.contains("line 3") && e.contains("key qd"), "{e}");
        let e = job_err("[[workload]]\ntarget = '/a'\nbs = ['4k', [1]]\n");
        assert!(
            e.contains("line 3") && e.contains("key bs") && e.contains("found an array"),
            "{e}"
        );
    }

    #[test]
    fn negative_numbers_say_the_minimum_not_not_a_whole_number() {
        let e = resolve_err("[global]\ntarget = '/a'\nqd = -3\n");
        assert!(
            e.contains("--qd -3 is below the minimum 1; give 1 to 4096"),
            "{e}"
        );
        let e = resolve_err("[global]\ntarget = '/a'\njobs = -1\n");
        assert!(e.contains("--jobs -1 is below the minimum 1"), "{e}");
        let e = resolve_err("[global]\ntarget = '/a'\nread_pct = -5\n");
        assert!(
            e.contains("--read-pct -5 is below the minimum 0; give 0 to 100"),
            "{e}"
        );
        let e = resolve_err("[global]\ntarget = '/a'\nqd = 2.5\n");
        assert!(e.contains("--qd: '2.5' is not a whole number"), "{e}");
    }

    #[test]
    fn overflowing_numbers_sizes_and_durations_say_too_large() {
        let e = resolve_err(
            "[global]\ntarget = '/a'\nqd = '99999999999999999999999999999999999999999'\n",
        );
        assert!(
            e.contains("--qd 99999999999999999999999999999999999999999 is too large (max 4096)"),
            "{e}"
        );
        let e = resolve_err("[global]\ntarget = '/a'\nops = '99999999999999999999'\n");
        assert!(
            e.contains("--ops") && e.contains("too large (max 18446744073709551615)"),
            "{e}"
        );
        let e = resolve_err("[global]\ntarget = '/a'\nsize = '99999999999999999999'\n");
        assert!(
            e.contains("--size") && e.contains("too large (max 16383p"),
            "{e}"
        );
        let e = resolve_err("[global]\ntarget = '/a'\nduration = '99999999999999999h'\n");
        assert!(
            e.contains("--duration") && e.contains("too long (max"),
            "{e}"
        );
        let e = resolve_err("[global]\ntarget = '/a'\nio_size = '-4k'\n");
        assert!(e.contains("--io-size") && e.contains("negative"), "{e}");
    }

    #[test]
    fn a_bs_mix_with_a_missing_weight_is_refused_not_swept() {
        let v = Values::parse_arg("4k:60,8k").unwrap();
        assert!(!v.is_list(), "{v:?} became a sweep");
        let o = WorkloadOptions {
            target: vec!["/x".into()],
            bs: Some(v),
            ..Default::default()
        };
        let e = resolve(&o, 0).unwrap_err().0;
        assert!(e.contains("4k:60,8k:40") && e.contains("4k,8k"), "{e}");
        let e = resolve_err("[global]\ntarget = '/a'\nbs = '4k:60,8k'\n");
        assert!(e.contains("4k:60,8k:40"), "{e}");
        // A real sweep and a real mix are unchanged.
        assert!(Values::parse_arg("4k,8k").unwrap().is_list());
        assert!(!Values::parse_arg("4k:60,8k:40").unwrap().is_list());
        assert!(Values::parse_arg("zipf:1.2,uniform").unwrap().is_list());
    }

    #[test]
    fn key_line_finds_the_workload_or_global_line() {
        let t = "[global]\nqd = 4\niodepth_batch_complete_min = 2\n[[workload]]\nrw='read'\n[[workload]]\nqd = -3\n";
        assert_eq!(key_line(t, "--qd", 0), Some(2));
        assert_eq!(key_line(t, "--qd", 1), Some(7));
        assert_eq!(key_line(t, "batch-complete", 0), Some(3));
        assert_eq!(key_line(t, "--bs", 0), None);
    }

    #[test]
    fn interval_below_the_minimum_is_refused() {
        let e = resolve_err("[global]\ntarget = '/a'\ninterval = '1us'\n");
        assert!(
            e.contains("--interval 1us is below the minimum of 1ms"),
            "{e}"
        );
    }

    #[test]
    fn start_delay_and_skew_reach_the_spec() {
        let j = parse_job_text(
            "[global]\ntarget='/a'\n[[workload]]\nstart_delay='1.5s'\nskew=25\n[[workload]]\nstartdelay=2\nskew='12.5'\n",
            "t",
        )
        .unwrap();
        let ws = j.workloads();
        let a = resolve(&ws[0], 0).unwrap();
        let b = resolve(&ws[1], 1).unwrap();
        assert_eq!((a.start_delay_s, a.skew_pct), (1.5, Some(25.0)));
        assert_eq!((b.start_delay_s, b.skew_pct), (2.0, Some(12.5)));
        let plain = resolve(
            &parse_job_text("[global]\ntarget='/a'\n", "t")
                .unwrap()
                .workloads()[0],
            0,
        )
        .unwrap();
        assert_eq!((plain.start_delay_s, plain.skew_pct), (0.0, None));
    }

    #[test]
    fn bad_start_delay_and_skew_name_their_flag() {
        let e = resolve_err("[global]\ntarget = '/a'\nstart_delay = '-1s'\n");
        assert!(e.contains("--start-delay"), "{e}");
        let e = resolve_err("[global]\ntarget = '/a'\nskew = 'lots'\n");
        assert!(e.contains("--skew: 'lots' is not a percentage"), "{e}");
        let e = resolve_err("[global]\ntarget = '/a'\nskew = 150\n");
        assert!(e.contains("skew 150") && e.contains("at most 100"), "{e}");
        // skew does not sweep: a list is refused, not silently cut to one.
        let e = resolve_err("[global]\ntarget = '/a'\nskew = [10, 20]\n");
        assert!(e.contains("--skew takes one value"), "{e}");
        // start_delay sweeps.
        let j = parse_job_text("[global]\ntarget='/a'\nstart_delay=['0s','5s']\n", "t").unwrap();
        assert_eq!(j.workloads()[0].expand().len(), 2);
    }

    #[test]
    fn keys_of_reads_the_aliases_from_the_definitions() {
        assert_eq!(keys_of("--qd"), vec!["qd", "iodepth"]);
        assert_eq!(keys_of("start-delay"), vec!["start_delay", "startdelay"]);
        assert_eq!(keys_of("--repeat"), vec!["repeat"]);
        let t = "[global]\nstartdelay = '1s'\n";
        assert_eq!(key_line(t, "--start-delay", 0), Some(2));
    }

    #[test]
    fn single_bracket_workload_gets_a_hint() {
        let e = parse_job_text("[workload]\nrw='read'\n", "t.toml").unwrap_err();
        assert!(e.0.contains("[[workload]]"), "{e}");
    }
}
