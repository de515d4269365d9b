//! `iolab run --help` shows the default of every workload flag, taken from
//! the one table the job-file resolver is tested against
//! (`iolab_jobfile::defaults`).

mod common;
use common::*;

/// The help entry of `--flag`: its first line and the continuation lines
/// up to the next flag or heading.
fn entry(help: &str, flag: &str) -> Option<String> {
    let mut lines = help.lines();
    let first = lines.find(|l| {
        let t = l.trim_start();
        t.starts_with(&format!("{flag} "))
            || t.starts_with(&format!("{flag}["))
            || t.contains(&format!(", {flag} "))
    })?;
    let mut e = first.trim().to_string();
    for l in lines {
        let t = l.trim_start();
        if t.is_empty() || t.starts_with('-') || !l.starts_with(' ') {
            break;
        }
        e.push(' ');
        e.push_str(t);
    }
    Some(e)
}

#[test]
fn run_help_shows_defaults() {
    let out = iolab().args(["run", "--help"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let help = stdout(&out);
    let mut checked = 0;
    for id in iolab_jobfile::defaults::ids() {
        let flag = format!("--{}", id.replace('_', "-"));
        let e = entry(&help, &flag).unwrap_or_else(|| panic!("{flag} not in:\n{help}"));
        let want = iolab_jobfile::defaults::help_suffix(id).unwrap();
        assert!(e.contains(&want), "{flag}: {want:?} not in {e:?}");
        // Once: no second, hand-written default beside it.
        assert_eq!(e.matches("default").count(), 1, "{e}");
        checked += 1;
    }
    // The flags the finding named, by value.
    for (flag, v) in [
        ("--bs", "4k"),
        ("--qd", "1"),
        ("--rw", "read"),
        ("--duration", "10s"),
        ("--jobs", "1"),
        ("--engine", "io_uring"),
    ] {
        let e = entry(&help, flag).unwrap();
        assert!(e.contains(&format!("[default: {v}")), "{e}");
    }
    assert!(checked >= 30, "{checked}");
}

#[test]
fn a_shown_default_does_not_override_a_job_file() {
    // The defaults are help text only: a job file's qd = 8 stays 8.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("j.toml"),
        "[global]\nengine = \"null\"\ntarget = \"nt\"\nsize = \"1m\"\nprefill = false\nduration = \"50ms\"\nqd = 8\nbs = \"64k\"\n[[workload]]\nname = \"w\"\n",
    )
    .unwrap();
    let (out, doc) = run_json(&["j.toml"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(u(&doc, "runs.0.spec.qd"), 8);
    assert_eq!(u(&doc, "runs.0.spec.bs.0.bytes"), 65536);
}

#[test]
fn no_flag_states_its_default_twice() {
    for sub in ["run", "verify", "report", "compare", "doctor", "qdepth"] {
        let out = iolab().args([sub, "--help"]).output().unwrap();
        assert!(out.status.success(), "{sub}: {}", stderr(&out));
        let help = stdout(&out);
        let mut entries: Vec<String> = Vec::new();
        for l in help.lines() {
            let t = l.trim_start();
            if t.starts_with('-') {
                entries.push(t.to_string());
            } else if let Some(e) = entries.last_mut() {
                if l.starts_with(' ') && !t.is_empty() {
                    e.push(' ');
                    e.push_str(t);
                }
            }
        }
        for e in &entries {
            let n = e.to_lowercase().matches("default").count();
            assert!(n <= 1, "iolab {sub} --help: {e}");
        }
    }
}

/// The defaults come from the parameter definitions: a parameter defined
/// with one shows it, one defined without shows none.
#[test]
fn run_help_shows_exactly_the_defined_defaults() {
    use iolab_spec::params::{DefaultIs, PARAMS};
    let out = iolab().args(["run", "--help"]).output().unwrap();
    let help = stdout(&out);
    for p in PARAMS {
        let flag = format!("--{}", p.flag);
        let e = entry(&help, &flag).unwrap_or_else(|| panic!("{flag} not in:\n{help}"));
        let shown = e.contains("[default: ");
        assert_eq!(shown, p.default != DefaultIs::Unset, "{flag}: {e}");
    }
    let e = entry(&help, "--start-delay").unwrap();
    assert!(e.contains("[default: 0s]"), "{e}");
}
