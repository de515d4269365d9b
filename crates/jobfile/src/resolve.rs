//! Job files and the resolution of options into a validated spec.

use crate::options::{Values, WorkloadOptions};
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

/// A native job file: `[global]` defaults and `[[workload]]` entries run in
/// order. A file with only `[global]` is one workload.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobFile {
    #[serde(default)]
    pub global: WorkloadOptions,
    #[serde(default)]
    pub workload: Vec<WorkloadOptions>,
}

impl JobFile {
    /// The workloads with the global defaults applied.
    pub fn workloads(&self) -> Vec<WorkloadOptions> {
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
    toml::from_str::<JobFile>(text).map_err(|e| {
        let line = e
            .span()
            .map(|s| {
                format!(
                    " line {}:",
                    text[..s.start.min(text.len())].matches('\n').count() + 1
                )
            })
            .unwrap_or_default();
        let mut msg = e.message().replace('\n', " ");
        if msg.contains("expected a sequence") && text.contains("[workload]") {
            msg.push_str(": write [[workload]] (double brackets) for each workload");
        }
        JobError(format!(
            "job file {origin}:{line} {msg}; see docs/jobfile.md for the keys"
        ))
    })
}

pub fn load_job_file(path: &Path) -> Result<JobFile, JobError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        JobError(format!(
            "cannot read job file {}: {e}; check the path",
            path.display()
        ))
    })?;
    parse_job_text(&text, &path.display().to_string())
}

fn text(v: &Option<Values>) -> Option<&str> {
    v.as_ref().map(Values::one)
}

fn size(v: &Option<Values>, flag: &str) -> Result<Option<u64>, JobError> {
    text(v)
        .map(|s| parse_size(s).map_err(|e| JobError(format!("--{flag}: {e}"))))
        .transpose()
}

fn secs(v: &Option<String>, flag: &str) -> Result<Option<f64>, JobError> {
    v.as_deref()
        .map(|s| {
            parse_duration(s)
                .map(|d| d.as_secs_f64())
                .map_err(|e| JobError(format!("--{flag}: {e}")))
        })
        .transpose()
}

fn secs_v(v: &Option<Values>, flag: &str) -> Result<Option<f64>, JobError> {
    secs(&text(v).map(str::to_string), flag)
}

/// A number: `what` says which kind, for the message.
fn num<T: std::str::FromStr>(
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

fn boolean(v: &Option<Values>, flag: &str) -> Result<Option<bool>, JobError> {
    text(v)
        .map(|s| match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "1" | "on" => Ok(true),
            "false" | "no" | "0" | "off" => Ok(false),
            _ => Err(JobError(format!("--{flag}: '{s}' is not true or false"))),
        })
        .transpose()
}

fn is_block_device(p: &str) -> bool {
    use std::os::unix::fs::FileTypeExt;
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
    let rw = text(&o.rw).unwrap_or("read").to_string();
    let (mut read_pct, mut random_pct) = parse_rw(&rw)?;
    if let Some(p) = num(&o.read_pct, "read-pct", "a percentage")? {
        read_pct = p;
    }
    if let Some(p) = num(&o.random_pct, "random-pct", "a percentage")? {
        random_pct = p;
    }
    let bs = parse_bs(text(&o.bs).unwrap_or("4k"))?;
    let min_bs = bs.iter().map(|b| b.bytes).min().unwrap_or(4096);
    let align = size(&o.align, "align")?.unwrap_or(min_bs);
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
    let mut duration_s = secs_v(&o.duration, "duration")?;
    let io_size = size(&o.io_size, "io-size")?;
    let ops = num::<u64>(&o.ops, "ops", "a whole number")?;
    if duration_s.is_none() && io_size.is_none() && ops.is_none() {
        duration_s = Some(10.0);
    }
    let direct = match boolean(&o.direct, "direct")? {
        Some(d) => d && !o.buffered,
        None => {
            !o.buffered && !targets.is_empty() && targets.iter().all(|t| is_block_device(&t.path))
        }
    };
    let sync = match text(&o.sync).unwrap_or("none") {
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
    let seed = o
        .seed
        .unwrap_or(DEFAULT_SEED)
        .wrapping_add(seed_index as u64);
    let spec = WorkloadSpec {
        name: o
            .name
            .clone()
            .unwrap_or_else(|| format!("{rw}-{}", index + 1)),
        targets,
        rw,
        read_pct,
        random_pct,
        bs,
        align,
        jobs: num(&o.jobs, "jobs", "a whole number")?.unwrap_or(1),
        qd: num(&o.qd, "qd", "a whole number")?.unwrap_or(1),
        batch_complete: num(&o.batch_complete, "batch-complete", "a whole number")?.unwrap_or(1),
        distribution: parse_distribution(text(&o.distribution).unwrap_or("uniform"))?,
        duration_s,
        io_size,
        ops,
        warmup_s: secs_v(&o.warmup, "warmup")?.unwrap_or(0.0),
        interval_s: secs(&o.interval, "interval")?.unwrap_or(1.0),
        rate_iops: num(&o.rate, "rate", "a number of I/Os per second")?,
        direct,
        sync,
        fsync_every: num(&o.fsync_every, "fsync-every", "a whole number")?.unwrap_or(0),
        data: parse_data(text(&o.data).unwrap_or("random"))?,
        dedupe_pct: num(&o.dedupe, "dedupe", "a percentage")?.unwrap_or(0),
        engine: parse_engine(text(&o.engine).unwrap_or("io_uring"))?,
        cpus: match &o.cpus {
            Some(c) => parse_cpu_list(c)?,
            None => Vec::new(),
        },
        clock,
        seed,
        hit_area: size(&o.hit_area, "hit-area")?.unwrap_or(0),
        read_hit_pct: num(&o.read_hit_pct, "read-hit-pct", "a percentage")?.unwrap_or(0),
        write_hit_pct: num(&o.write_hit_pct, "write-hit-pct", "a percentage")?.unwrap_or(0),
        on_error,
        prefill,
        destroy_data_on: o.destroy_data_on.clone(),
        stall_threshold_s: secs(&o.stall_threshold, "stall-threshold")?.unwrap_or(1.0),
        verify: o.verify.unwrap_or(false) || o.verify_after.unwrap_or(false) || o.journal.is_some(),
        verify_after: o.verify_after.unwrap_or(false),
        journal: o.journal.clone(),
        max_errors: o.max_errors.unwrap_or(50),
    };
    spec.validate()?;
    Ok(spec)
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

    #[test]
    fn single_bracket_workload_gets_a_hint() {
        let e = parse_job_text("[workload]\nrw='read'\n", "t.toml").unwrap_err();
        assert!(e.0.contains("[[workload]]"), "{e}");
    }
}
