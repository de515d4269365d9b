//! Issue 18, "How it is checked": the same personality from a filebench
//! WML file and from iolab's built-in `--personality` gives the same plan.
//!
//! Each of the six personalities has a WML file of our own in
//! tests/filebench/personalities/NAME.f (filebench 1.5's default values,
//! our own wording); loaded through [`iolab_jobfile::frontend::load`]
//! with `dir=DIR` it must resolve to the workload `--personality NAME
//! --dir DIR` resolves to: the same filesets (names, anchors, shapes),
//! the same flows (names, threads, steps, rates, think times), the same
//! file choice, O_DSYNC, threads and duration. `NAME=VALUE` overrides
//! must land where the personality's flags do.
//!
//! An extra: where filebench's own workloads are on this machine
//! (`IOLAB_FILEBENCH_WORKLOADS`, else /work/peers/filebench/workloads),
//! their six personality files are compared the same way. Without them
//! that part prints `SKIP` with the reason and passes, also under
//! `CI=true`: it is not part of what the suite must have, only a
//! second look when filebench's source is at hand. When the files are
//! there a difference fails like any other.

use iolab_jobfile::frontend::{load, LoadOptions};
use iolab_jobfile::{parse_job_text, resolve};
use iolab_spec::personality::NAMES;
use iolab_spec::WorkloadSpec;
use std::path::{Path, PathBuf};

const DIR: &str = "/mnt/iolab-fb-equal";

fn ours(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/filebench/personalities")
        .join(format!("{name}.f"))
}

/// The single workload a WML file plans, resolved as `iolab run` does
/// for a run of one workload (the run's keys under the workload's).
fn from_wml(path: &Path, vars: &[(&str, &str)]) -> Result<WorkloadSpec, String> {
    let mut lo = LoadOptions {
        vars: vec![("dir".into(), DIR.into())],
        ..Default::default()
    };
    lo.vars
        .extend(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let loaded = load(path, &lo).map_err(|e| e.0)?;
    if loaded.runs.len() != 1 || loaded.runs[0].workloads.len() != 1 {
        return Err(format!(
            "{} runs of {:?} workloads, not one of one",
            loaded.runs.len(),
            loaded
                .runs
                .iter()
                .map(|r| r.workloads.len())
                .collect::<Vec<_>>()
        ));
    }
    let r = &loaded.runs[0];
    let o = r.run.overlay(&r.workloads[0]).overlay(&r.overrides);
    let points = o.expand();
    if points.len() != 1 {
        return Err(format!("{} points, not one", points.len()));
    }
    resolve(&points[0].0, 0).map_err(|e| e.0)
}

/// `--personality NAME --dir DIR` with `flags` (job keys).
fn builtin(name: &str, keys: &str) -> WorkloadSpec {
    let text = format!("[global]\ndir = '{DIR}'\npersonality = '{name}'\n{keys}");
    let j = parse_job_text(&text, "t.toml").unwrap();
    resolve(&j.workloads()[0], 0).unwrap()
}

/// What differs between the two plans, one line each.
fn differences(wml: &WorkloadSpec, own: &WorkloadSpec) -> Vec<String> {
    let mut d = Vec::new();
    let (Some(a), Some(b)) = (&wml.fs, &own.fs) else {
        return vec!["the WML file planned no file-system workload".into()];
    };
    let sets = |f: &iolab_spec::fs::FsSpec| {
        f.filesets
            .iter()
            .map(|s| format!("{s:?}"))
            .collect::<Vec<_>>()
    };
    if sets(a) != sets(b) {
        d.push(format!(
            "filesets:\n  wml:         {:?}\n  personality: {:?}",
            sets(a),
            sets(b)
        ));
    }
    let names = |f: &iolab_spec::fs::FsSpec| -> Vec<String> {
        f.filesets.iter().map(|s| s.name.clone()).collect()
    };
    if a.work != b.work {
        d.push(format!(
            "work:\n  wml:         {}\n  personality: {}",
            describe(a, &names(a)),
            describe(b, &names(b))
        ));
    }
    if a.select != b.select {
        d.push(format!("file choice: {:?} vs {:?}", a.select, b.select));
    }
    for (what, x, y) in [
        ("sync", format!("{:?}", wml.sync), format!("{:?}", own.sync)),
        ("direct", wml.direct.to_string(), own.direct.to_string()),
        (
            "threads",
            threads(wml).to_string(),
            threads(own).to_string(),
        ),
        (
            "duration",
            format!("{:?}", wml.duration_s),
            format!("{:?}", own.duration_s),
        ),
        ("ops", format!("{:?}", wml.ops), format!("{:?}", own.ops)),
        ("qd", wml.qd.to_string(), own.qd.to_string()),
    ] {
        if x != y {
            d.push(format!("{what}: {x} from the WML file, {y} built in"));
        }
    }
    d
}

/// The workload's threads: its flows' together (a personality's `jobs`
/// is its main flow's threads, which the flows already hold), or a mix's
/// `jobs`.
fn threads(w: &WorkloadSpec) -> u64 {
    match w.fs.as_ref().map(|f| &f.work) {
        Some(iolab_spec::fs::FsWork::Flows(f)) => f.iter().map(|f| u64::from(f.threads)).sum(),
        _ => u64::from(w.jobs),
    }
}

/// The flows or mix in iolab's step syntax (readable differences).
fn describe(f: &iolab_spec::fs::FsSpec, names: &[String]) -> String {
    use iolab_spec::fs::FsWork;
    use iolab_spec::fs_parse::{flow_text, mix_text};
    let n: Vec<&str> = names.iter().map(String::as_str).collect();
    match &f.work {
        FsWork::Mix(m) => mix_text(m, &n),
        FsWork::Flows(fl) => fl
            .iter()
            .map(|x| flow_text(x, &n))
            .collect::<Vec<_>>()
            .join(" | "),
    }
}

fn check(path: &Path, name: &str, vars: &[(&str, &str)], keys: &str) -> Result<(), String> {
    let wml = from_wml(path, vars).map_err(|e| format!("{name}: {}: {e}", path.display()))?;
    let d = differences(&wml, &builtin(name, keys));
    if d.is_empty() {
        Ok(())
    } else {
        Err(format!("{name} ({}):\n{}", path.display(), d.join("\n")))
    }
}

#[test]
fn our_wml_personalities_plan_as_the_builtin_ones() {
    let errs: Vec<String> = NAMES
        .iter()
        .filter_map(|n| check(&ours(n), n, &[], "").err())
        .collect();
    assert!(errs.is_empty(), "\n{}", errs.join("\n\n"));
}

/// A personality, `NAME=VALUE`s for its WML file, the same as job keys.
type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str);

/// filebench's variables on the command line land where the
/// personality's overrides do.
#[test]
fn name_value_overrides_match_the_personalitys_flags() {
    let cases: [Case; 4] = [
        (
            "fileserver",
            &[
                ("nfiles", "500"),
                ("nthreads", "4"),
                ("meandirwidth", "10"),
                ("iosize", "64k"),
                ("meanappendsize", "8k"),
            ],
            "files = 500\njobs = 4\ndir_width = 10\nbs = '64k'\nappend_size = '8k'\n",
        ),
        (
            "varmail",
            &[("nfiles", "50"), ("filesize", "16k"), ("nthreads", "4")],
            "files = 50\nfile_size = '16k'\njobs = 4\n",
        ),
        (
            "oltp",
            &[("nshadows", "16"), ("filesize", "1m")],
            "jobs = 16\nfile_size = '1m'\n",
        ),
        (
            "videoserver",
            &[
                ("numactivevids", "4"),
                ("filesize", "512k"),
                ("nthreads", "2"),
            ],
            "files = 4\nfile_size = '512k'\njobs = 2\n",
        ),
    ];
    let errs: Vec<String> = cases
        .iter()
        .filter_map(|(n, vars, keys)| check(&ours(n), n, vars, keys).err())
        .collect();
    assert!(errs.is_empty(), "\n{}", errs.join("\n\n"));
}

/// filebench's own workloads/ directory, if this machine has it.
fn filebench_workloads() -> Result<PathBuf, String> {
    if let Ok(d) = std::env::var("IOLAB_FILEBENCH_WORKLOADS") {
        let p = PathBuf::from(&d);
        return if p.join("fileserver.f").is_file() {
            Ok(p)
        } else {
            Err(format!(
                "IOLAB_FILEBENCH_WORKLOADS={d} holds no fileserver.f"
            ))
        };
    }
    let p = PathBuf::from("/work/peers/filebench/workloads");
    if p.join("fileserver.f").is_file() {
        Ok(p)
    } else {
        Err("filebench's workloads are not here (set IOLAB_FILEBENCH_WORKLOADS to filebench's workloads/ directory)".into())
    }
}

/// The extra (see the module doc): filebench's own six files, when they
/// are on this machine; a SKIP otherwise, even under CI=true.
#[test]
fn filebenchs_own_personality_files_plan_as_the_builtin_ones() {
    let dir = match filebench_workloads() {
        Ok(d) => d,
        Err(why) => {
            eprintln!("SKIP filebenchs_own_personality_files_plan_as_the_builtin_ones: {why} (an optional extra: not a failure under CI=true either)");
            return;
        }
    };
    let errs: Vec<String> = NAMES
        .iter()
        .filter_map(|n| check(&dir.join(format!("{n}.f")), n, &[], "").err())
        .collect();
    assert!(errs.is_empty(), "\n{}", errs.join("\n\n"));
}
