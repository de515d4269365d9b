//! Each study's workloads, from its defaults and the overrides given.
//! Every error is one line naming the flag.

use super::{Args, Scratch};
use crate::plan::PlanArgs;
use iolab_jobfile::{Values, WorkloadOptions};
use iolab_report::study::{short_size, Kind, P99Bound, Study, CORNERS, NAMES};
use iolab_report::study::{streams_name, SEQ_READ, SEQ_WRITE};
use iolab_spec::parse_size;
use std::collections::BTreeMap;

/// A study ready to plan: its workloads in run order, the plan arguments
/// and any scratch files.
pub struct Planned {
    pub study: Study,
    pub workloads: Vec<WorkloadOptions>,
    /// Runs of several workloads at once (iozone's `-t N`); when there
    /// are any, they are the plan instead of `workloads`.
    pub groups: Vec<iolab_jobfile::RunOptions>,
    pub plan_args: PlanArgs,
    pub scratch: Scratch,
}

impl Planned {
    /// The plan of the study's runs.
    pub fn build(&self) -> Result<crate::Plan, crate::PlanError> {
        if self.groups.is_empty() {
            crate::build_workloads(&self.workloads, &self.plan_args)
        } else {
            crate::build(&self.groups, &self.plan_args)
        }
    }
}

const BS_LADDER: &str = "16k,32k,64k,128k,256k,512k,1m,2m";
const QD_LADDER: &str = "1,2,4,8,16,32,64,128,256";
/// corners: the hit area is 1 GiB (vdbench's example: 1 GiB of a 100 GiB
/// LUN), at most this fraction of the target.
const HIT_AREA: u64 = 1 << 30;
const HIT_AREA_DIV: u64 = 8;

/// Which studies each study-specific flag applies to.
fn check_applies(a: &Args, name: &str) -> Result<(), String> {
    let flags: [(&str, bool, &[&str]); 13] = [
        ("sizes", a.sizes.is_some(), &["bs-ladder", "iozone"]),
        ("records", a.records.is_some(), &["iozone"]),
        ("tests", a.tests.is_some(), &["iozone"]),
        ("bs", a.bs.is_some(), &["qd-ladder", "corners", "streams"]),
        (
            "qd",
            a.qd.is_some(),
            &["bs-ladder", "qd-ladder", "corners", "streams"],
        ),
        ("rw", a.rw.is_some(), &["bs-ladder", "qd-ladder", "streams"]),
        ("p99-bound", a.p99_bound.is_some(), &["qd-ladder"]),
        ("flat-pct", a.flat_pct.is_some(), &["bs-ladder"]),
        ("hit-area", a.hit_area.is_some(), &["corners"]),
        ("streams", a.streams.is_some(), &["streams"]),
        ("over", a.over.is_some(), &["streams"]),
        (
            "duration",
            a.duration.is_some(),
            &["bs-ladder", "qd-ladder", "corners", "streams"],
        ),
        (
            "size",
            a.size.is_some(),
            &["bs-ladder", "qd-ladder", "corners", "streams"],
        ),
    ];
    for (flag, given, studies) in flags {
        if given && !studies.contains(&name) {
            let why = match (name, flag) {
                ("iozone", "duration") => {
                    "; iozone's runs end when the file has been written or read once".to_string()
                }
                ("iozone", "size") => "; iozone sizes its files with --sizes".to_string(),
                _ => String::new(),
            };
            return Err(format!(
                "--{flag} does not apply to the {name} study (only to {}){why}",
                studies.join(", ")
            ));
        }
    }
    if a.warmup.is_some() && name == "iozone" {
        return Err("--warmup does not apply to the iozone study: its runs end when the file has been written or read once".into());
    }
    Ok(())
}

/// A single value, exactly as given (no splitting on commas: the flag's
/// own parser rejects a list).
fn one(flag: &str, v: &str) -> Result<Values, String> {
    if v.contains(',') && !(flag == "bs" && v.contains(':')) {
        return Err(format!(
            "--{flag} takes one value in this study, not a list ('{v}')"
        ));
    }
    Ok(Values(vec![v.trim().to_string()]))
}

fn size_list(flag: &str, s: &str) -> Result<Vec<u64>, String> {
    let mut out = Vec::new();
    for item in s.split(',') {
        let v = parse_size(item.trim()).map_err(|e| format!("--{flag}: {e}"))?;
        if v == 0 {
            return Err(format!("--{flag}: sizes must be above 0"));
        }
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out.sort_unstable();
    Ok(out)
}

fn count_list(flag: &str, s: &str, max: u32) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    for item in s.split(',') {
        match item.trim().parse::<u32>() {
            Ok(v) if (1..=max).contains(&v) => {
                if !out.contains(&v) {
                    out.push(v);
                }
            }
            _ => {
                return Err(format!(
                    "--{flag}: '{}' is not a whole number from 1 to {max}; give e.g. --{flag} {}",
                    item.trim(),
                    if flag == "qd" { "1,4,16" } else { "4,8,16" }
                ))
            }
        }
    }
    out.sort_unstable();
    Ok(out)
}

fn list_text<T: ToString>(v: &[T]) -> String {
    v.iter().map(T::to_string).collect::<Vec<_>>().join(",")
}

fn sizes_text(v: &[u64]) -> String {
    v.iter()
        .map(|&b| short_size(b))
        .collect::<Vec<_>>()
        .join(",")
}

/// Options every run of the study shares.
fn base(a: &Args, targets: Vec<String>, duration: &str, warmup: &str) -> WorkloadOptions {
    WorkloadOptions {
        target: targets,
        size: a.size.as_ref().map(|s| Values(vec![s.clone()])),
        duration: Some(Values(vec![a.duration.clone().unwrap_or(duration.into())])),
        warmup: Some(Values(vec![a.warmup.clone().unwrap_or(warmup.into())])),
        destroy_data_on: a.destroy_data_on.clone(),
        allow_mounted_write: a.allow_mounted_write.then_some(true),
        prefill: a.prefill.then_some(true),
        no_prefill: a.no_prefill,
        direct: a.direct.then(|| true.into()),
        buffered: a.buffered,
        engine: a.engine.as_ref().map(|e| Values(vec![e.clone()])),
        ..Default::default()
    }
}

fn settings_base(a: &Args, duration: &str, warmup: &str) -> BTreeMap<String, String> {
    let mut s = BTreeMap::new();
    s.insert("targets".into(), a.target.join(" "));
    s.insert(
        "duration".into(),
        a.duration.clone().unwrap_or(duration.into()),
    );
    s.insert("warmup".into(), a.warmup.clone().unwrap_or(warmup.into()));
    s.insert("repeat".into(), a.plan.repeat.to_string());
    if let Some(sz) = &a.size {
        s.insert("size".into(), sz.clone());
    }
    let io = if a.direct {
        "direct"
    } else if a.buffered {
        "buffered"
    } else {
        "default (direct on block devices, buffered on files)"
    };
    s.insert("io".into(), io.into());
    if let Some(e) = &a.engine {
        s.insert("engine".into(), e.clone());
    }
    s
}

pub fn plan(a: &Args) -> Result<Planned, String> {
    let Some(name) = a.name.as_deref().map(str::trim) else {
        return Err(format!(
            "give the study to run: iolab study NAME --target PATH, with NAME one of {} (docs/studies.md)",
            NAMES.join(", ")
        ));
    };
    if !NAMES.contains(&name) {
        return Err(format!(
            "'{name}' is not a study; the studies are {} (docs/studies.md)",
            NAMES.join(", ")
        ));
    }
    check_applies(a, name)?;
    if a.target.is_empty() {
        return Err(format!(
            "the {name} study needs --target PATH (a file or block device{})",
            if name == "iozone" {
                "; for iozone a directory"
            } else {
                ""
            }
        ));
    }
    match name {
        "bs-ladder" => bs_ladder(a),
        "qd-ladder" => qd_ladder(a),
        "corners" => corners(a),
        "streams" => streams(a),
        _ => super::iozone::plan(&super::iozone::from_args(a)?),
    }
}

fn plain(a: &Args) -> PlanArgs {
    a.plan.clone()
}

fn bs_ladder(a: &Args) -> Result<Planned, String> {
    let (dur, warm) = ("30s", "0s");
    let sizes = size_list("sizes", a.sizes.as_deref().unwrap_or(BS_LADDER))?;
    let dirs: Vec<&str> = match a.rw.as_deref().map(str::trim).unwrap_or("read,write") {
        "read,write" | "rw" => vec!["read", "write"],
        "write,read" => vec!["write", "read"],
        "read" => vec!["read"],
        "write" => vec!["write"],
        other => {
            return Err(format!(
                "--rw {other}: the bs-ladder runs read, write or read,write"
            ))
        }
    };
    let flat_pct = match &a.flat_pct {
        Some(s) => match s.trim().trim_end_matches('%').parse::<f64>() {
            Ok(v) if v > 0.0 && v < 1000.0 => v,
            _ => {
                return Err(format!(
                    "--flat-pct {s}: give a percentage above 0, e.g. --flat-pct 10"
                ))
            }
        },
        None => 10.0,
    };
    let qd = one("qd", a.qd.as_deref().unwrap_or("1"))?;
    let b = base(a, a.target.clone(), dur, warm);
    let workloads = dirs
        .iter()
        .map(|d| WorkloadOptions {
            name: Some(if *d == "read" { SEQ_READ } else { SEQ_WRITE }.into()),
            rw: Some(Values(vec![d.to_string()])),
            bs: Some(Values(sizes.iter().map(|&s| short_size(s)).collect())),
            qd: Some(qd.clone()),
            ..b.clone()
        })
        .collect();
    let mut settings = settings_base(a, dur, warm);
    settings.insert("sizes".into(), sizes_text(&sizes));
    settings.insert("rw".into(), dirs.join(","));
    settings.insert("qd".into(), qd.one().into());
    settings.insert("flat_pct".into(), flat_pct.to_string());
    Ok(Planned {
        study: Study {
            kind: Kind::BsLadder { flat_pct },
            settings,
        },
        workloads,
        plan_args: plain(a),
        groups: Vec::new(),
        scratch: Scratch::default(),
    })
}

fn qd_ladder(a: &Args) -> Result<Planned, String> {
    let (dur, warm) = ("30s", "5s");
    let qds = count_list(
        "qd",
        a.qd.as_deref().unwrap_or(QD_LADDER),
        iolab_spec::QD_RANGE.1 as u32,
    )?;
    let rw = a.rw.as_deref().map(str::trim).unwrap_or("randread");
    let name = match rw {
        "randread" => "rand-read",
        "randwrite" => "rand-write",
        "randrw" => "rand-rw",
        other => {
            return Err(format!(
                "--rw {other}: the qd-ladder runs randread, randwrite or randrw"
            ))
        }
    };
    let bound = match &a.p99_bound {
        Some(s) => P99Bound::parse(s)?,
        None => P99Bound::Factor(2.0),
    };
    let bs = one("bs", a.bs.as_deref().unwrap_or("4k"))?;
    let w = WorkloadOptions {
        name: Some(name.into()),
        rw: Some(Values(vec![rw.into()])),
        bs: Some(bs.clone()),
        qd: Some(Values(qds.iter().map(u32::to_string).collect())),
        ..base(a, a.target.clone(), dur, warm)
    };
    let mut settings = settings_base(a, dur, warm);
    settings.insert("qd".into(), list_text(&qds));
    settings.insert("rw".into(), rw.into());
    settings.insert("bs".into(), bs.one().into());
    settings.insert("p99_bound".into(), bound.text());
    Ok(Planned {
        study: Study {
            kind: Kind::QdLadder { bound },
            settings,
        },
        workloads: vec![w],
        plan_args: plain(a),
        groups: Vec::new(),
        scratch: Scratch::default(),
    })
}

/// The usable size of a target: `--size`, a file's length or a block
/// device's size; `None` when it does not exist yet.
fn target_size(path: &str, size: Option<&str>) -> Result<Option<u64>, String> {
    if let Some(s) = size {
        return parse_size(s).map(Some).map_err(|e| format!("--size: {e}"));
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(Some(m.len())),
        Ok(_) => {
            use std::io::{Seek, SeekFrom};
            // A block device's size: where its end is.
            Ok(std::fs::File::open(path)
                .and_then(|mut f| f.seek(SeekFrom::End(0)))
                .ok())
        }
        Err(_) => Ok(None),
    }
}

fn corners(a: &Args) -> Result<Planned, String> {
    let (dur, warm) = ("30s", "10s");
    let bs_text = a.bs.as_deref().unwrap_or("8k");
    let bs = one("bs", bs_text)?;
    let bs_bytes = iolab_spec::parse_bs(bs_text)
        .map_err(|e| e.0)?
        .iter()
        .map(|b| b.bytes)
        .max()
        .unwrap_or(8192);
    let qd = one("qd", a.qd.as_deref().unwrap_or("32"))?;
    let mut smallest: Option<u64> = None;
    for t in &a.target {
        if let Some(s) = target_size(t, a.size.as_deref())? {
            smallest = Some(smallest.map_or(s, |m: u64| m.min(s)));
        }
    }
    let hit = match &a.hit_area {
        Some(h) => {
            let v = parse_size(h).map_err(|e| format!("--hit-area: {e}"))?;
            if v < bs_bytes || smallest.is_some_and(|s| v >= s) {
                return Err(format!(
                    "--hit-area {h}: the hit area must hold a block ({}) and be smaller than the target{}",
                    short_size(bs_bytes),
                    smallest.map(|s| format!(" ({})", short_size(s))).unwrap_or_default()
                ));
            }
            v
        }
        None => {
            let cap = smallest.map_or(HIT_AREA, |s| (s / HIT_AREA_DIV).min(HIT_AREA));
            let unit = if cap >= 1 << 20 { 1 << 20 } else { bs_bytes };
            let v = cap / unit * unit;
            if v < bs_bytes {
                return Err(format!(
                    "the target is too small for the corners' hit area ({} at most, below one {} block); give a larger --size",
                    short_size(cap),
                    short_size(bs_bytes)
                ));
            }
            v
        }
    };
    let b = WorkloadOptions {
        bs: Some(bs.clone()),
        qd: Some(qd.clone()),
        hit_area: Some(Values(vec![hit.to_string()])),
        ..base(a, a.target.clone(), dur, warm)
    };
    let workloads = CORNERS
        .iter()
        .map(|c| WorkloadOptions {
            name: Some(c.name.into()),
            rw: Some(Values(vec![if c.random { "randrw" } else { "rw" }.into()])),
            read_pct: Some(c.read_pct.into()),
            read_hit_pct: Some(c.read_hit_pct.into()),
            write_hit_pct: Some(c.write_hit_pct.into()),
            sync: c.dsync.then(|| Values(vec!["dsync".into()])),
            ..b.clone()
        })
        .collect();
    let mut settings = settings_base(a, dur, warm);
    settings.insert("bs".into(), bs.one().into());
    settings.insert("qd".into(), qd.one().into());
    settings.insert("hit_area".into(), short_size(hit));
    Ok(Planned {
        study: Study {
            kind: Kind::Corners,
            settings,
        },
        workloads,
        plan_args: plain(a),
        groups: Vec::new(),
        scratch: Scratch::default(),
    })
}

fn streams(a: &Args) -> Result<Planned, String> {
    let (dur, warm) = ("30s", "5s");
    let ns = count_list(
        "streams",
        a.streams.as_deref().unwrap_or("4,8,16"),
        iolab_spec::JOBS_RANGE.1 as u32,
    )?;
    let t = a.target.len() as u32;
    let ms = match &a.over {
        Some(s) => {
            let v = count_list("over", s, u32::MAX)?;
            if let Some(m) = v.iter().find(|&&m| m > t) {
                return Err(format!(
                    "--over {m}: only {t} target{} given; repeat --target for more",
                    if t == 1 { "" } else { "s" }
                ));
            }
            v
        }
        None => (1..=t).collect(),
    };
    let rw = match a.rw.as_deref().map(str::trim).unwrap_or("read") {
        r @ ("read" | "write") => r,
        other => return Err(format!("--rw {other}: streams are read or write")),
    };
    let bs = one("bs", a.bs.as_deref().unwrap_or("1m"))?;
    let qd = one("qd", a.qd.as_deref().unwrap_or("1"))?;
    let mut workloads = Vec::new();
    for &m in &ms {
        // Per-target figures need every stream on one target: N >= M.
        for &n in ns.iter().filter(|&&n| n >= m) {
            workloads.push(WorkloadOptions {
                name: Some(streams_name(n, m)),
                rw: Some(Values(vec![rw.into()])),
                bs: Some(bs.clone()),
                qd: Some(qd.clone()),
                jobs: Some(n.into()),
                ..base(a, a.target[..m as usize].to_vec(), dur, warm)
            });
        }
    }
    if workloads.is_empty() {
        return Err(format!(
            "no point has at least as many streams ({}) as targets ({}); give more --streams",
            list_text(&ns),
            list_text(&ms)
        ));
    }
    let mut settings = settings_base(a, dur, warm);
    settings.insert("streams".into(), list_text(&ns));
    settings.insert("over".into(), list_text(&ms));
    settings.insert("rw".into(), rw.into());
    settings.insert("bs".into(), bs.one().into());
    settings.insert("qd".into(), qd.one().into());
    Ok(Planned {
        study: Study {
            kind: Kind::Streams,
            settings,
        },
        workloads,
        plan_args: plain(a),
        groups: Vec::new(),
        scratch: Scratch::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(name: &str, extra: &[&str]) -> Args {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct T {
            #[command(flatten)]
            a: Args,
        }
        let mut v = vec!["t", name];
        v.extend_from_slice(extra);
        T::try_parse_from(v).unwrap().a
    }

    #[test]
    fn unknown_study_lists_the_known_ones() {
        let e = plan(&args("ladder", &["--target", "/x"])).err().unwrap();
        assert!(
            e.contains("bs-ladder, qd-ladder, corners, streams, iozone"),
            "{e}"
        );
    }

    #[test]
    fn bs_ladder_defaults_and_overrides() {
        let p = plan(&args("bs-ladder", &["--target", "/x", "--size", "64m"])).unwrap();
        assert_eq!(p.workloads.len(), 2);
        assert_eq!(p.workloads[0].bs.as_ref().unwrap().0.len(), 8);
        assert_eq!(p.workloads[1].name.as_deref(), Some(SEQ_WRITE));
        let pl = crate::build_workloads(&p.workloads, &p.plan_args).unwrap();
        assert_eq!(pl.runs.len(), 16);
        assert_eq!(pl.runs[0].spec.workloads[0].duration_s, Some(30.0));
        let p = plan_of(&[
            "--target",
            "/x",
            "--sizes",
            "64k,16k",
            "--rw",
            "read",
            "--duration",
            "1s",
        ]);
        let pl = crate::build_workloads(&p.workloads, &p.plan_args).unwrap();
        let bs: Vec<u64> = pl
            .runs
            .iter()
            .map(|r| r.spec.workloads[0].bs[0].bytes)
            .collect();
        assert_eq!(bs, [16 << 10, 64 << 10]);
        assert!(pl.runs.iter().all(|r| r.spec.workloads[0].read_pct == 100));
    }

    fn plan_of(extra: &[&str]) -> Planned {
        plan(&args("bs-ladder", extra)).unwrap()
    }

    #[test]
    fn bad_overrides_are_one_line_naming_the_flag() {
        let cases: [(&str, &[&str], &str); 9] = [
            (
                "bs-ladder",
                &["--target", "/x", "--sizes", "16q"],
                "--sizes",
            ),
            (
                "bs-ladder",
                &["--target", "/x", "--flat-pct=-3"],
                "--flat-pct",
            ),
            (
                "bs-ladder",
                &["--target", "/x", "--streams", "4"],
                "--streams does not apply",
            ),
            ("qd-ladder", &["--target", "/x", "--qd", "1,0"], "--qd"),
            (
                "qd-ladder",
                &["--target", "/x", "--p99-bound", "soon"],
                "--p99-bound",
            ),
            (
                "qd-ladder",
                &["--target", "/x", "--rw", "read"],
                "--rw read",
            ),
            ("streams", &["--target", "/x", "--over", "2"], "--over 2"),
            (
                "corners",
                &["--target", "/x", "--qd", "1,2"],
                "--qd takes one value",
            ),
            ("qd-ladder", &[], "needs --target"),
        ];
        for (name, extra, needle) in cases {
            let e = plan(&args(name, extra)).err().unwrap();
            assert!(
                e.contains(needle) && !e.contains('\n'),
                "{name} {extra:?}: {e}"
            );
        }
    }

    #[test]
    fn corners_hit_area_fits_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, vec![0u8; 1 << 20]).unwrap();
        let t = f.to_str().unwrap();
        let p = plan(&args("corners", &["--target", t])).unwrap();
        assert_eq!(p.workloads.len(), CORNERS.len());
        // 1 MiB / 8, below a MiB: whole 8k blocks.
        assert_eq!(p.workloads[0].hit_area.as_ref().unwrap().one(), "131072");
        let pl = crate::build_workloads(&p.workloads, &p.plan_args).unwrap();
        let dsync = pl
            .runs
            .iter()
            .filter(|r| r.spec.workloads[0].sync == iolab_spec::SyncMode::Dsync);
        assert_eq!(dsync.count(), 2);
        let oltp = pl.runs.iter().find(|r| r.spec.name == "oltp-75").unwrap();
        let oltp = &oltp.spec.workloads[0];
        assert_eq!(
            (oltp.read_pct, oltp.random_pct, oltp.write_hit_pct),
            (75, 100, 5)
        );
        let e = plan(&args("corners", &["--target", t, "--hit-area", "1m"]))
            .err()
            .unwrap();
        assert!(e.contains("--hit-area"), "{e}");
    }

    #[test]
    fn streams_points_have_at_least_as_many_streams_as_targets() {
        let p = plan(&args(
            "streams",
            &[
                "--target",
                "/a",
                "--target",
                "/b",
                "--target",
                "/c",
                "--streams",
                "2,4",
            ],
        ))
        .unwrap();
        let pl = crate::build_workloads(&p.workloads, &p.plan_args).unwrap();
        let pts: Vec<(u32, usize)> = pl
            .runs
            .iter()
            .map(|r| (r.spec.workloads[0].jobs, r.spec.workloads[0].targets.len()))
            .collect();
        assert_eq!(pts, [(2, 1), (4, 1), (2, 2), (4, 2), (4, 3)]);
    }

    #[test]
    fn iozone_plans_six_tests_per_cell_and_refuses_existing_files() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        let p = plan(&args(
            "iozone",
            &[
                "--target",
                d,
                "--sizes",
                "1m,128k",
                "--records",
                "64k,256k",
                "--repeat",
                "2",
            ],
        ))
        .unwrap();
        // 128k file: 64k only; 1m file: 64k and 256k; six tests; twice.
        assert_eq!(p.workloads.len(), 3 * 6 * 2);
        assert_eq!(p.plan_args.repeat, 1);
        assert!(p.workloads[0].target[0].ends_with("iolab-iozone-128k.tmp"));
        std::fs::write(dir.path().join("iolab-iozone-1m.tmp"), b"mine").unwrap();
        let e = plan(&args("iozone", &["--target", d, "--sizes", "1m"]))
            .err()
            .unwrap();
        assert!(
            e.contains("exists") && e.contains("never writes over"),
            "{e}"
        );
        let e = plan(&args("iozone", &["--target", d, "--duration", "1s"]))
            .err()
            .unwrap();
        assert!(e.contains("--duration does not apply"), "{e}");
        let f = dir.path().join("iolab-iozone-1m.tmp");
        let e = plan(&args("iozone", &["--target", f.to_str().unwrap()]))
            .err()
            .unwrap();
        assert!(e.contains("not a directory"), "{e}");
    }
}
