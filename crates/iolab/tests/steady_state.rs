//! Steady state (fio `ss`): a workload whose IOPS is level ends as soon
//! as a full window of one-second samples agrees, the run goes on for
//! the others, and the result document and terminal summary say whether
//! and when it was reached; a criterion that cannot hold runs the
//! workload to its end, complete, "not reached".

mod common;
use common::*;

/// A rate-limited null-engine workload: its IOPS is the rate, level.
fn steady_args<'a>(target: &'a str, criterion: &'a str, dur: &'a str) -> Vec<&'a str> {
    vec![
        "--target",
        target,
        "--size",
        "8m",
        "--engine",
        "null",
        "--rw",
        "randread",
        "--rate",
        "2000",
        "--duration",
        dur,
        "--steady",
        criterion,
        "--steady-duration",
        "2s",
    ]
}

#[test]
fn a_level_rate_reaches_steady_state_and_ends_early() {
    let d = tempfile::tempdir().unwrap();
    let t0 = std::time::Instant::now();
    let (out, doc) = run_json(&steady_args("s.dat", "iops:5%", "8s"), d.path());
    let wall = t0.elapsed().as_secs_f64();
    assert!(out.status.success(), "{}", stderr(&out));
    let w = ptr(&doc, "runs.0.workloads.0");
    let st = ptr(w, "steady_state");
    assert_eq!(st["reached"], true, "{st}");
    assert_eq!(st["criterion"], "iops");
    let at = f(st, "reached_at_s");
    // Two one-second samples, judged at the end of the second (a loaded
    // CI may slip a sample).
    assert!((1.9..4.5).contains(&at), "reached at {at} s");
    assert!(f(w, "measured_s") < 5.0, "ran on: {}", f(w, "measured_s"));
    assert!(wall < 7.0, "the run took {wall} s of its 8 s");
    assert_eq!(w["complete"], true, "{}", w["incomplete_reason"]);
    let samples = st["samples_iops"].as_array().unwrap();
    assert_eq!(samples.len(), 2);
    for s in samples {
        let v = s.as_f64().unwrap();
        assert!((1800.0..2200.0).contains(&v), "sample {v}");
    }
    assert!(f(st, "value") < 5.0);
    assert!((f(st, "iops_mean") - 2000.0).abs() < 200.0);
    assert!(f(st, "bw_mean") > 0.0);
}

#[test]
fn an_impossible_criterion_runs_to_the_end_and_says_not_reached() {
    let d = tempfile::tempdir().unwrap();
    // No sample differs from the mean by less than nothing: fio's check
    // is strict, so `iops:0%` never holds.
    let out = iolab()
        .arg("run")
        .args(steady_args("s.dat", "iops:0%", "3s"))
        .arg("--json")
        .arg("r.json")
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("r.json")).unwrap()).unwrap();
    let w = ptr(&doc, "runs.0.workloads.0");
    let st = ptr(w, "steady_state");
    assert_eq!(st["reached"], false, "{st}");
    assert!(st.get("reached_at_s").is_none());
    assert_eq!(w["complete"], true, "not reached is still complete");
    assert!(
        f(w, "measured_s") > 2.5,
        "ended early: {}",
        f(w, "measured_s")
    );
    let text = stdout(&out);
    assert!(text.contains("steady state not reached"), "{text}");
}

#[test]
fn a_levelled_workload_ends_while_the_other_goes_on() {
    let d = tempfile::tempdir().unwrap();
    let job = d.path().join("two.toml");
    std::fs::write(
        &job,
        r#"
[global]
engine = "null"
size = "8m"
rw = "randread"
duration = "4s"

[[run]]
name = "two"

[[run.workload]]
name = "levels"
target = "a.dat"
rate = 1000
steady = "iops_slope:2%"
steady_duration = "2s"

[[run.workload]]
name = "runs-on"
target = "b.dat"
rate = 1000
"#,
    )
    .unwrap();
    let (out, doc) = run_json(&[job.to_str().unwrap()], d.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let a = ptr(&doc, "runs.0.workloads.0");
    let b = ptr(&doc, "runs.0.workloads.1");
    assert_eq!(a["steady_state"]["reached"], true, "{}", a["steady_state"]);
    assert!(b.get("steady_state").is_none());
    assert!(
        f(a, "end_s") + 0.5 < f(b, "end_s"),
        "a {} b {}",
        a["end_s"],
        b["end_s"]
    );
    assert!(f(b, "measured_s") > 3.5);
    assert_eq!(doc["runs"][0]["complete"], true);
}

#[test]
fn bad_steady_criteria_are_one_line() {
    let d = tempfile::tempdir().unwrap();
    for (args, needle) in [
        (vec!["--steady", "iops:5%"], "--steady-duration"),
        (
            vec!["--steady", "clat:5%", "--steady-duration", "2s"],
            "not a criterion",
        ),
        (
            vec!["--steady", "iops:x", "--steady-duration", "2s"],
            "not a limit",
        ),
        (
            vec!["--steady", "iops:5%", "--steady-duration", "1s"],
            "--steady-duration",
        ),
    ] {
        let out = iolab()
            .args([
                "run", "--target", "x.dat", "--size", "1m", "--engine", "null",
            ])
            .args(&args)
            .current_dir(d.path())
            .output()
            .unwrap();
        assert_bad_input(&out, needle);
    }
}

#[test]
fn a_window_alone_judges_fios_default_criterion() {
    let d = tempfile::tempdir().unwrap();
    let out = iolab()
        .args([
            "run", "--target", "x.dat", "--size", "1m", "--engine", "null",
        ])
        .args(["--steady-duration", "5s", "--dry-run"])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("until steady (iops_slope:0.01% over 5 s)"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_level_latency_reaches_lat_steady_state() {
    let d = tempfile::tempdir().unwrap();
    // A rate-limited null workload: its mean latency per second is a
    // few microseconds, level within a wide limit (CI is noisy).
    let (out, doc) = run_json(&steady_args("s.dat", "lat:60%", "8s"), d.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let w = ptr(&doc, "runs.0.workloads.0");
    let st = ptr(w, "steady_state");
    assert_eq!(st["criterion"], "lat");
    assert_eq!(st["reached"], true, "{st}");
    assert!(f(w, "measured_s") < 7.0, "ran on: {}", f(w, "measured_s"));
    let lats = st["samples_lat_ns"].as_array().unwrap();
    assert!(lats.len() >= 2, "{st}");
    assert!(lats.iter().all(|v| v.as_f64().unwrap() > 0.0), "{st}");
    assert!(f(st, "lat_mean_ns") > 0.0);
    assert!(f(st, "value") < 60.0);
}
