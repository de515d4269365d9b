//! Response-time curves (`--curve`, vdbench `iorate=curve`) and pauses
//! after runs, end to end on the null engine: the maximum run, then a run
//! per percentage at that share of the IOPS the maximum measured, the
//! document's record of each, `stop_curve`, the report's chart.

mod common;
use common::*;
use serde_json::Value;
use std::time::{Duration, Instant};

const BASE: [&str; 10] = [
    "--engine",
    "null",
    "--target",
    "nt",
    "--no-prefill",
    "--size",
    "8m",
    "--rw",
    "randread",
    "--name",
];

fn runs(doc: &Value) -> &Vec<Value> {
    doc["runs"].as_array().unwrap()
}

#[test]
fn curve_points_run_at_their_share_of_the_maximum() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = BASE.to_vec();
    // Each worker rests 200 µs after every I/O: a maximum of a few
    // thousand IOPS, which a busy machine still schedules evenly.
    args.extend([
        "db",
        "--curve",
        "10,50",
        "--duration",
        "500ms",
        "--think",
        "200us",
    ]);
    let (out, doc) = run_json(&args, dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let runs = runs(&doc);
    let names: Vec<&str> = runs.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["db (max)", "db (10%)", "db (50%)"]);
    assert_eq!(doc["complete"], true);
    let max = &runs[0];
    assert_eq!(max["curve"]["role"], "max");
    assert_eq!(max["curve"]["max_run"], "db (max)");
    assert!(max["curve"].get("rate_iops").is_none());
    assert!(
        max["spec"]["rate_iops"].is_null(),
        "the maximum is unthrottled"
    );
    let max_iops = f(max, "summary.total.iops");
    assert!(max_iops > 0.0);
    for (r, pct) in runs[1..].iter().zip([10.0, 50.0]) {
        let c = &r["curve"];
        assert_eq!(c["role"], "pct");
        assert_eq!(c["name"], "db");
        assert_eq!(c["max_run"], "db (max)");
        assert_eq!(u(c, "max_point"), u(max, "point"));
        assert_eq!(f(c, "pct"), pct);
        assert!((f(c, "max_iops") - max_iops).abs() < 1e-6 * max_iops);
        let rate = f(c, "rate_iops");
        // vdbench's rounding: up to the next 100 (10 below 1000).
        let want = max_iops * pct / 100.0;
        assert!(rate >= want && rate < want + 100.0, "rate {rate}, {want}");
        assert_eq!(f(r, "spec.rate_iops"), rate, "the run ran at it");
        // Loosely: near the rate, and below the maximum (CI is busy).
        let got = f(r, "summary.total.iops");
        assert!(got > 0.5 * rate && got < 1.1 * rate, "{got} at {rate}");
        assert!(got < max_iops, "{got} of {max_iops}");
    }
    let text = stdout(&out);
    assert!(text.contains("[run 2/3] rate "), "{text}");
    assert!(text.contains("10% of"), "{text}");
    // The report draws the curve.
    let page = report_html(dir.path(), "r.html");
    assert!(page.contains("Response-time curve: db"), "no curve chart");
}

#[test]
fn stop_curve_ends_the_curve_after_the_point_that_crossed_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = BASE.to_vec();
    // Any response time is above 1 ns: the first point ends the curve.
    args.extend([
        "db",
        "--curve",
        "10,50,90",
        "--stop-curve",
        "1ns",
        "--duration",
        "300ms",
    ]);
    let (out, doc) = run_json(&args, dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let names: Vec<&str> = runs(&doc)
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["db (max)", "db (10%)"],
        "the crossing point is kept"
    );
    assert_eq!(doc["complete"], true, "a curve ended early is complete");
    let text = stdout(&out);
    assert_eq!(text.matches("above stop_curve").count(), 1, "{text}");
    assert!(f(&runs(&doc)[1], "curve.stop_ms") > 0.0);
}

#[test]
fn a_point_under_ten_ios_per_second_ends_the_curve() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = BASE.to_vec();
    // A maximum of some thousands of IOPS (200 µs rest after each I/O):
    // 0.001% of it is under 1 I/O per second, vdbench's rate 0.
    args.extend([
        "db",
        "--curve",
        "0.001,50",
        "--duration",
        "300ms",
        "--think",
        "200us",
    ]);
    let (out, doc) = run_json(&args, dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let names: Vec<&str> = runs(&doc)
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["db (max)"], "vdbench ends the curve at that point");
    assert_eq!(doc["complete"], true);
    let err = stderr(&out);
    assert_eq!(err.matches("under 10 I/Os per second").count(), 1, "{err}");
    assert!(err.contains("db (0.001%)"), "{err}");
}

#[test]
fn a_runs_pause_follows_it_and_pause_overrides_it() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("j.toml");
    std::fs::write(
        &job,
        "[global]\nengine = 'null'\ntarget = 'nt'\nsize = '8m'\nprefill = false\n\
         [[run]]\nname = 'first'\nduration = '50ms'\npause = '600ms'\n[[run.workload]]\nrw = 'read'\n\
         [[run]]\nname = 'second'\nduration = '50ms'\n[[run.workload]]\nrw = 'write'\n",
    )
    .unwrap();
    let t0 = Instant::now();
    let (out, doc) = run_json(&[job.to_str().unwrap()], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(runs(&doc).len(), 2);
    assert!(
        t0.elapsed() >= Duration::from_millis(600),
        "the run's pause"
    );
    let o = iolab()
        .arg("run")
        .arg(&job)
        .args(["--dry-run", "--pause", "0s"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stdout(&o).contains("pause"), "{}", stdout(&o));
    let o = iolab()
        .arg("run")
        .arg(&job)
        .arg("--dry-run")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        stdout(&o).contains("0.6 s pause between runs"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn bad_curves_are_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    for (extra, needle) in [
        (&["--curve", "10,zero"][..], "not a percentage"),
        (&["--curve", "10", "--rate", "100"][..], "drop the rate"),
        (&["--stop-curve", "5ms"][..], "give the run a curve"),
        (&["--curve", "10", "--stop-curve", "5"][..], "5ms"),
    ] {
        let o = iolab()
            .arg("run")
            .args(BASE)
            .arg("x")
            .args(extra)
            .arg("--dry-run")
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_bad_input(&o, needle);
    }
}

/// A run of several workloads without `skew`: at the maximum each goes as
/// fast as it can; each point shares its rate as the maximum's I/Os were
/// shared (vdbench's observed skew), so a slow workload is not asked for
/// more than it did at the maximum.
#[test]
fn points_of_several_workloads_share_as_the_maximum_did() {
    let dir = tempfile::tempdir().unwrap();
    let (out, doc) = run_json(
        &[
            "--engine",
            "null",
            "--target",
            "nt",
            "--no-prefill",
            "--size",
            "8m",
            "--duration",
            "500ms",
            "--curve",
            "50",
            "--workload",
            "fast",
            "--rw",
            "randread",
            "--think",
            "200us",
            "--workload",
            "slow",
            "--rw",
            "randread",
            "--think",
            "2ms",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let runs = runs(&doc);
    assert_eq!(runs.len(), 2);
    let ops = |r: &Value, j: usize| f(&r["workloads"][j], "summary.total.ops");
    let max = &runs[0];
    assert!(max["workloads"][0]["spec"]["skew_pct"].is_null());
    let slow_share = ops(max, 1) * 100.0 / (ops(max, 0) + ops(max, 1));
    let point = &runs[1];
    let skew = f(&point["workloads"][1], "spec.skew_pct");
    assert!((skew - slow_share).abs() < 1e-6, "{skew} vs {slow_share}");
    assert!(skew < 40.0, "the slow workload did less: {skew}");
    let rate = f(point, "curve.rate_iops");
    let fast = f(&point["workloads"][0], "spec.skew_pct");
    assert!((fast + skew - 100.0).abs() < 1e-6);
    // Each achieves its share, loosely.
    let got = f(&point["workloads"][1], "summary.total.iops");
    assert!(got > 0.5 * rate * skew / 100.0, "{got} of {rate} x {skew}%");
}

/// While a point of a curve runs, the document's provisional record of
/// it already says its place in the curve.
#[test]
fn a_point_in_progress_carries_its_curve() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .arg("run")
        .args(BASE)
        .args(["db", "--curve", "50", "--duration", "400ms", "-q", "--json"])
        .arg(&json)
        .args(["--think", "200us"])
        .env("IOLAB_SAVE_EVERY", "0.05")
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let mut seen = None;
    while t0.elapsed() < Duration::from_secs(30) && seen.is_none() {
        if let Ok(d) = std::fs::read_to_string(&json)
            .map_err(|_| ())
            .and_then(|t| serde_json::from_str::<Value>(&t).map_err(|_| ()))
        {
            seen = runs(&d)
                .iter()
                .find(|r| {
                    r["curve"]["role"] == "pct"
                        && r["incomplete_reason"]
                            .as_str()
                            .is_some_and(|w| w.starts_with("in progress"))
                })
                .cloned();
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    child.wait().unwrap();
    let r = seen.expect("no provisional record of the 50% point");
    assert!(f(&r, "curve.rate_iops") > 0.0);
}
