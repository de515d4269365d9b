//! A run killed with SIGKILL keeps what it measured: the result document is
//! written when the run starts and kept up to date while it runs, marked
//! incomplete ("in progress"), and `report` and `compare` read it. A
//! stream (`--json /dev/stdout`) gets only the final document.
//!
//! The update period is 10 s; these tests shorten it with the hidden
//! `IOLAB_SAVE_EVERY` (seconds) so they take seconds, not minutes.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `iolab run`, killed with SIGKILL when dropped (a failing test
/// leaves no process behind).
struct Running(Child);

impl Running {
    fn start(args: &[&str], dir: &Path, save_every: &str) -> Running {
        let child = Command::new(assert_cmd::cargo::cargo_bin("iolab"))
            .arg("run")
            .args(args)
            .arg("-q")
            .env("IOLAB_SAVE_EVERY", save_every)
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        Running(child)
    }

    fn kill9(&mut self) {
        // SAFETY: signalling our own child, which has not been waited for.
        unsafe { libc::kill(self.0.id() as i32, libc::SIGKILL) };
        let st = self.0.wait().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(st.signal(), Some(libc::SIGKILL), "{st:?}");
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The document at `path` once `ready` holds for it, polling; None after
/// `limit`. A document that does not parse fails the test: every state of
/// the file must be a whole document.
fn wait_for(path: &Path, limit: Duration, ready: impl Fn(&Value) -> bool) -> Option<Value> {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if let Ok(text) = std::fs::read_to_string(path) {
            let doc: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{} does not parse ({e}):\n{text}", path.display()));
            if ready(&doc) {
                return Some(doc);
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

/// Run time covered by a run's intervals, seconds.
fn covered_s(run: &Value) -> f64 {
    ptr(run, "intervals")
        .as_array()
        .unwrap()
        .last()
        .map(|iv| f(iv, "end_s"))
        .unwrap_or(0.0)
}

/// A provisional run record: in progress, intervals in order from 0
/// without a gap, summary and percentiles consistent with them.
fn assert_in_progress(r: &Value) {
    assert_eq!(r["complete"], false);
    let why = r["incomplete_reason"].as_str().unwrap();
    assert!(why.starts_with("in progress"), "{why}");
    assert_eq!(r["stalls"]["provisional"], true);
    let ivs = ptr(r, "intervals").as_array().unwrap();
    for (i, iv) in ivs.iter().enumerate() {
        assert_eq!(u(iv, "index"), i as u64);
    }
    let sum: u64 = ivs
        .iter()
        .filter(|iv| iv["warmup"] == false)
        .map(|iv| u(iv, "total/ops"))
        .sum();
    assert_eq!(u(r, "summary/total/ops"), sum);
    if sum > 0 {
        let l = |k: &str| f(r, &format!("summary/total/lat_us/{k}"));
        let seq = [l("min"), l("p50"), l("p99"), l("max")];
        assert!(
            seq[0] > 0.0 && seq.windows(2).all(|w| w[0] <= w[1]),
            "{seq:?}"
        );
        assert!((f(r, "measured_s") - covered_s(r)).abs() < 0.05);
        assert!(f(r, "summary/total/iops") > 0.0);
    }
}

#[test]
fn a_sigkilled_run_keeps_its_document_up_to_its_last_update() {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("r.json");
    let target = d.path().join("f.dat");
    let mut run = Running::start(
        &[
            "--target",
            target.to_str().unwrap(),
            "--size",
            "64m",
            "--rw",
            "randwrite",
            "--bs",
            "4k",
            "--no-prefill",
            "--duration",
            "60s",
            "--interval",
            "200ms",
            "--json",
            json.to_str().unwrap(),
        ],
        d.path(),
        "1",
    );
    // Written when the run starts, with the run listed as in progress.
    let first = wait_for(&json, Duration::from_secs(20), |_| true)
        .expect("no result document 20 s after the start of a 60 s run");
    let started = Instant::now();
    assert_eq!(first["complete"], false);
    assert!(first["finished_at"].is_null());
    assert_eq!(first["runs"].as_array().unwrap().len(), 1);
    assert_in_progress(&first["runs"][0]);
    assert!(covered_s(&first["runs"][0]) < 1.0);
    // Kept up to date: the update at 2 s of run time arrives.
    let doc = wait_for(&json, Duration::from_secs(20), |doc| {
        covered_s(&doc["runs"][0]) >= 2.0 - 1e-9
    })
    .expect("the document never held 2 s of the run");
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "the 2 s update came {:?} after the first document",
        started.elapsed()
    );
    assert_in_progress(&doc["runs"][0]);
    std::thread::sleep(Duration::from_millis(2500).saturating_sub(started.elapsed()));
    run.kill9();
    // What SIGKILL left: a whole document, incomplete, with at least the
    // first 2 s.
    let text = std::fs::read_to_string(&json).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["complete"], false);
    assert!(doc["finished_at"].is_null());
    let r = &doc["runs"][0];
    assert_in_progress(r);
    let secs = covered_s(r);
    assert!((2.0 - 1e-9..10.0).contains(&secs), "{secs} s covered");
    assert!(u(r, "summary/write/ops") > 0);
    assert_eq!(r["spec"]["duration_s"], 60.0);
    assert_eq!(r["targets"][0]["path"], target.to_str().unwrap());
    let notes = r["notes"].to_string();
    assert!(notes.contains("provisional record"), "{notes}");

    // `report` renders it, saying what it is.
    let html = d.path().join("r.html");
    let out = iolab()
        .args([
            "report",
            json.to_str().unwrap(),
            "-o",
            html.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("in progress: last updated"), "no reason");
    assert!(page.contains("not known (gaps are analysed when a run ends)"));
    let out = iolab()
        .args(["report", json.to_str().unwrap(), "--format", "md"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let md = stdout(&out);
    assert!(md.contains("INCOMPLETE") && md.contains("killed"), "{md}");
    // `compare` reads it and says the run did not complete.
    let out = iolab()
        .args(["compare", json.to_str().unwrap(), json.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("did not complete"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_sweep_killed_in_its_second_run_keeps_the_first_whole() {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("r.json");
    let mut run = Running::start(
        &[
            "--target",
            "f.dat",
            "--size",
            "16m",
            "--rw",
            "randread",
            "--duration",
            "1500ms,60s",
            "--interval",
            "100ms",
            "--json",
            json.to_str().unwrap(),
        ],
        d.path(),
        "0.5",
    );
    let doc = wait_for(&json, Duration::from_secs(40), |doc| {
        doc["runs"].as_array().is_some_and(|r| r.len() == 2) && covered_s(&doc["runs"][1]) >= 1.0
    })
    .expect("the document never held 1 s of the second run");
    run.kill9();
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(covered_s(&after["runs"][1]) >= covered_s(&doc["runs"][1]));
    assert_eq!(after["complete"], false);
    assert!(after["plan"].is_object());
    let first = &after["runs"][0];
    assert_eq!(first["complete"], true, "{}", first["incomplete_reason"]);
    assert!(first["stalls"].get("provisional").is_none());
    assert_eq!(first["params"]["duration"], "1500ms");
    let second = &after["runs"][1];
    assert_in_progress(second);
    assert_eq!(u(second, "point"), 1);
    assert_eq!(second["params"]["duration"], "60s");
}

#[test]
fn a_streamed_document_is_written_once_not_at_every_update() {
    let d = tempfile::tempdir().unwrap();
    let out = iolab()
        .args([
            "run",
            "--target",
            "f.dat",
            "--size",
            "8m",
            "--duration",
            "1s",
            "--interval",
            "100ms",
            "-q",
            "--json",
            "/dev/stdout",
        ])
        .env("IOLAB_SAVE_EVERY", "0.2")
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.matches("\"schema_version\"").count(), 1, "{text}");
    assert!(!text.contains("in progress"), "{text}");
}

#[test]
fn a_bad_update_period_is_refused_before_the_run() {
    let d = tempfile::tempdir().unwrap();
    let out = iolab()
        .args([
            "run",
            "--target",
            "f.dat",
            "--size",
            "1m",
            "--duration",
            "1s",
            "-q",
            "--json",
            "r.json",
        ])
        .env("IOLAB_SAVE_EVERY", "soon")
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_bad_input(&out, "IOLAB_SAVE_EVERY");
    assert!(!d.path().join("f.dat").exists());
}
