//! `iolab run --hosts` against a hostile agent (a python3 script speaking
//! the protocol's frames, tests/multi_hostile/fake_agent.py): terminal
//! escapes and over-long text in its notes and host name, a flood of
//! notes and of progress lines, more events than a run may keep, an
//! interval far past the run's end. The controller prints the agent's text cleaned, bounded, drops
//! the host with one line and ends (no hang, no unbounded memory).

mod common;
use common::*;
use iolab_testutil::require;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The fake agent with `mode`, written in `dir`.
fn fake(dir: &Path, mode: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let far = iolab_raw::IntervalRaw::empty(4_000_000_000, 0, 1_000_000_000, false);
    let text = include_str!("multi_hostile/fake_agent.py")
        .replace("@MODE@", mode)
        .replace("@VERSION@", iolab_remote::proto::VERSION)
        .replace("@INTERVAL@", &serde_json::to_string(&far).unwrap());
    let path = dir.join(format!("fake-{mode}"));
    std::fs::write(&path, format!("#!/usr/bin/python3\n{text}")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A run of 5 s on host h1 served by the fake agent in `mode`: its stderr.
fn run_against(mode: &str) -> String {
    let d = tempfile::tempdir().unwrap();
    let agent = fake(d.path(), mode);
    let bin = assert_cmd::cargo::cargo_bin("iolab");
    let mut c = Command::new(bin);
    c.current_dir(d.path()).args([
        "run",
        "--remote-shell",
        "env IOLAB_HOST={host}",
        "--agent-path",
        agent.to_str().unwrap(),
        "--hosts",
        "h1",
        "--target",
        "h1:/nonexistent/data",
        "--duration",
        "5s",
        "--host-timeout",
        "3s",
        "--json",
        "r.json",
    ]);
    let t = std::time::Instant::now();
    let o = c.output().unwrap();
    let err = stderr(&o);
    assert!(
        t.elapsed() < Duration::from_secs(30),
        "{:?}: {err}",
        t.elapsed()
    );
    assert_ne!(o.status.code(), Some(0), "{err}");
    err
}

/// What every hostile run shows: the agent's text cleaned and bounded.
fn check_text(err: &str) {
    assert!(!err.contains('\x1b') && !err.contains('\x07'), "{err:?}");
    assert!(err.contains("on evil?]0;owned? ("), "{err}");
    let long = (err.lines())
        .find(|l| l.contains("wiped"))
        .expect("the long note");
    assert!(
        long.starts_with("iolab: host h1: ?[2J?]52;c;aGk=?wipedxx"),
        "{long}"
    );
    assert!(
        long.ends_with("x...") && long.len() < 2100,
        "{}",
        long.len()
    );
    // 100 notes shown, then one line; the other 50 not.
    assert!(err.contains("iolab: host h1: note 98\n"), "{err}");
    assert!(
        err.contains("iolab: host h1: more notes, not shown"),
        "{err}"
    );
    assert!(
        !err.contains("note 99\n") && !err.contains("note 149"),
        "{err}"
    );
    // Progress lines: cleaned, the first 1,000 shown, then one line.
    assert!(
        err.contains("iolab: host h1: ?[2Jfileset at /evil: 1 of 2 files\n"),
        "{err}"
    );
    assert!(err.contains("iolab: host h1: progress 999\n"), "{err}");
    assert!(
        err.contains("iolab: host h1: more progress lines, not shown"),
        "{err}"
    );
    assert!(!err.contains("progress 1000\n"), "{err}");
}

#[test]
fn a_flood_of_events_drops_the_host_with_one_line() {
    require!(
        Path::new("/usr/bin/python3").exists(),
        "needs /usr/bin/python3"
    );
    let err = run_against("events");
    check_text(&err);
    lost_once(&err, "(a protocol error: more than 100000 events)");
}

/// `err` says host h1 lost once, for `why`.
fn lost_once(err: &str, why: &str) {
    let lost: Vec<&str> = err.lines().filter(|l| l.contains(" lost")).collect();
    assert_eq!(lost.len(), 1, "{err}");
    assert!(lost[0].starts_with("iolab: host h1 lost at "), "{err}");
    assert!(lost[0].ends_with(why), "{err}");
}

#[test]
fn an_interval_far_past_the_runs_end_drops_the_host_at_once() {
    require!(
        Path::new("/usr/bin/python3").exists(),
        "needs /usr/bin/python3"
    );
    // Shown up to it, interval 4,000,000,000 would have the controller
    // count (and keep) every index before it.
    let err = run_against("interval");
    check_text(&err);
    lost_once(
        &err,
        "(a protocol error: interval 4000000000 is beyond the run's end (at most 110))",
    );
}
