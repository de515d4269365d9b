//! Sweeps: lists expand into the cartesian product in the stated order,
//! every run with its own seed, repetitions summarised, each run appended
//! to the document as it finishes.

mod common;
use common::*;
use serde_json::Value;
use std::time::{Duration, Instant};

fn params(run: &Value) -> String {
    let p = run["params"].as_object().cloned().unwrap_or_default();
    let mut keys: Vec<&String> = p.keys().collect();
    keys.sort();
    keys.iter()
        .map(|k| format!("{k}={}", p[*k].as_str().unwrap()))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn a_sweep_runs_the_product_in_order_and_summarises_repeats() {
    let dir = tempfile::tempdir().unwrap();
    let (out, doc) = run_json(
        &[
            "--engine",
            "null",
            "--target",
            "nt",
            "--no-prefill",
            "--size",
            "16m",
            "--rw",
            "read,write",
            "--bs",
            "4k,64k",
            "--qd",
            "1,4",
            "--duration",
            "60ms",
            "--repeat",
            "2",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 16);
    assert_eq!(u(&doc, "plan.runs_planned"), 16);
    assert_eq!(u(&doc, "plan.points"), 8);
    assert_eq!(u(&doc, "plan.repeat"), 2);
    let axes: Vec<&str> = doc["plan"]["axes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(axes, ["rw", "bs", "qd"]);
    // The stated order: rw outermost, qd fastest, repetitions adjacent.
    let want = [
        ("read", 4096, 1),
        ("read", 4096, 4),
        ("read", 65536, 1),
        ("read", 65536, 4),
        ("write", 4096, 1),
        ("write", 4096, 4),
        ("write", 65536, 1),
        ("write", 65536, 4),
    ];
    for (i, r) in runs.iter().enumerate() {
        let (rw, bs, qd) = want[i / 2];
        assert_eq!(r["spec"]["rw"], rw, "run {i}");
        assert_eq!(r["spec"]["bs"][0]["bytes"], bs, "run {i}");
        assert_eq!(r["spec"]["qd"], qd, "run {i}");
        assert_eq!(u(r, "point"), (i / 2) as u64);
        assert_eq!(u(r, "repeat"), (i % 2 + 1) as u64);
        let bs_text = if bs == 4096 { "4k" } else { "64k" };
        assert_eq!(params(r), format!("bs={bs_text} qd={qd} rw={rw}"));
    }
    let mut seeds: Vec<u64> = runs.iter().map(|r| u(r, "spec.seed")).collect();
    seeds.sort();
    seeds.dedup();
    assert_eq!(seeds.len(), 16, "each run has its own seed");
    // Each point's spread is over its two runs, computed here again.
    let points = doc["points"].as_array().unwrap();
    assert_eq!(points.len(), 8);
    for p in points {
        let idx: Vec<usize> = p["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as usize)
            .collect();
        assert_eq!(idx.len(), 2);
        let v: Vec<f64> = idx
            .iter()
            .map(|&i| f(&runs[i], "summary.total.iops"))
            .collect();
        let mean = (v[0] + v[1]) / 2.0;
        let sd = ((v[0] - mean).powi(2) + (v[1] - mean).powi(2)).sqrt(); // n-1 = 1
        assert!((f(p, "iops.mean") - mean).abs() <= 1e-6 * mean, "{p}");
        assert!((f(p, "iops.sd") - sd).abs() <= 1e-6 * mean.max(1.0), "{p}");
        assert_eq!(f(p, "iops.min"), v[0].min(v[1]));
        assert_eq!(f(p, "iops.max"), v[0].max(v[1]));
        assert!(mean > 0.0);
    }
    // The terminal shows the repetitions' summary.
    assert!(stdout(&out).contains("CV %"), "{}", stdout(&out));
}

#[test]
fn dry_run_prints_every_run_and_does_no_io() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("f");
    let out = iolab()
        .args(["run", "--target"])
        .arg(&target)
        .args([
            "--size",
            "8m",
            "--bs",
            "16k,32k,64k",
            "--qd",
            "1,8",
            "--duration",
            "2s",
            "--warmup",
            "1s",
            "--pause",
            "5s",
            "--dry-run",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    // 6 runs of 3 s and 5 pauses of 5 s: 43 s.
    assert!(text.contains("6 runs (6 points x 1 repeat)"), "{text}");
    assert!(text.contains("estimated 43 s"), "{text}");
    let lines: Vec<&str> = text.lines().filter(|l| l.contains("bs=")).collect();
    assert_eq!(lines.len(), 6, "{text}");
    assert!(lines[0].contains("bs=16k qd=1") && lines[1].contains("bs=16k qd=8"));
    assert!(lines[5].contains("bs=64k qd=8"));
    assert!(!target.exists(), "a dry run created the target");
}

#[test]
fn job_file_arrays_sweep_too() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("j.toml");
    std::fs::write(
        &job,
        "[global]\nengine = 'null'\ntarget = 'nt'\nprefill = false\nsize = '8m'\nduration = '40ms'\n\
         [[workload]]\nname = 'a'\nqd = [1, 2]\nbs = ['4k:60,8k:40', '8k']\n\
         [[workload]]\nname = 'b'\nrw = 'randread,randwrite'\n",
    )
    .unwrap();
    let (out, doc) = run_json(&[job.to_str().unwrap()], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 6);
    assert_eq!(runs[0]["name"], "a");
    assert_eq!(runs[0]["spec"]["bs"].as_array().unwrap().len(), 2, "a mix");
    assert_eq!(runs[3]["params"]["bs"], "8k");
    assert_eq!(runs[4]["name"], "b");
    assert_eq!(runs[5]["spec"]["rw"], "randwrite");
    assert_eq!(u(&runs[5], "point"), 5);
}

#[test]
fn a_killed_sweep_keeps_its_finished_runs() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args([
            "run",
            "--engine",
            "null",
            "--target",
            "nt",
            "--no-prefill",
            "--size",
            "8m",
            "--qd",
            "1,2,3,4,5,6,7,8",
            "--duration",
            "150ms",
            "-q",
            "--json",
        ])
        .arg(&json)
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let mut seen = 0;
    while t0.elapsed() < Duration::from_secs(30) {
        if let Ok(text) = std::fs::read_to_string(&json) {
            if let Ok(d) = serde_json::from_str::<Value>(&text) {
                seen = d["runs"].as_array().map(|a| a.len()).unwrap_or(0);
                if seen >= 3 {
                    break;
                }
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap(); // SIGKILL: no chance to tidy up
    child.wait().unwrap();
    assert!(seen >= 3, "the document never held 3 runs");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let runs = doc["runs"].as_array().unwrap();
    assert!(runs.len() >= 3 && runs.len() <= 8, "{} runs", runs.len());
    assert_eq!(doc["complete"], false);
    assert_eq!(u(&doc, "plan.runs_planned"), 8);
    // Every run is finished, except that the last may be the one that was
    // in progress at the last update (docs/results.md).
    let finished = runs.iter().filter(|r| r["complete"] == true).count();
    for (i, r) in runs.iter().enumerate() {
        if i < finished {
            assert_eq!(r["complete"], true, "run {i}");
        } else {
            assert_eq!(i + 1, runs.len(), "only the last run is in progress");
            let why = r["incomplete_reason"].as_str().unwrap();
            assert!(why.starts_with("in progress"), "run {i}: {why}");
        }
        assert_eq!(u(r, "spec.qd"), i as u64 + 1);
    }
    assert!(finished >= 2);
    assert_eq!(doc["points"].as_array().unwrap().len(), finished);
}

#[test]
fn pause_separates_runs() {
    let dir = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
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
            "20ms",
            "--repeat",
            "3",
            "--pause",
            "300ms",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(doc["runs"].as_array().unwrap().len(), 3);
    assert!((f(&doc, "plan.pause_s") - 0.3).abs() < 1e-9);
    assert!(
        t0.elapsed() >= Duration::from_millis(600),
        "two pauses of 300 ms"
    );
}

#[test]
fn bad_sweeps_are_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let base = ["run", "--engine", "null", "--target", "nt", "--size", "8m"];
    let o = iolab()
        .args(base)
        .args(["--bs", "4k,8k,16k,32k,64k,128k,256k,512k,1m,2m"])
        .args([
            "--qd",
            "1,2,4,8,16,32,64,128,256,512",
            "--jobs",
            "1,2,3,4,5,6,7,8,9,10,11",
        ])
        .args(["--duration", "10s"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_bad_input(&o, "1100 runs");
    assert!(
        stderr(&o).contains("--yes") && stderr(&o).contains("h "),
        "{}",
        stderr(&o)
    );
    let run = |extra: &[&str]| {
        iolab()
            .args(base)
            .args(extra)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let o = run(&["--qd", "1,,2"]);
    assert_bad_input(&o, "empty value");
    let o = run(&["--qd", "1,x"]);
    assert_bad_input(&o, "qd=x");
    let o = run(&["--repeat", "0"]);
    assert_bad_input(&o, "--repeat");
    let o = run(&["--pause", "soon"]);
    assert_bad_input(&o, "--pause");
    let job = dir.path().join("j.toml");
    std::fs::write(&job, "[global]\ntarget = 'nt'\nqd = []\n").unwrap();
    let o = iolab().arg("run").arg(&job).output().unwrap();
    assert_bad_input(&o, "at least one value");
}

#[test]
fn a_sweep_ends_with_its_summary_table() {
    // One run per point (no --repeat): the summary table still ends the
    // output, one row per point, its columns with their units.
    let dir = tempfile::tempdir().unwrap();
    let (out, doc) = run_json(
        &[
            "--engine",
            "null",
            "--target",
            "nt",
            "--no-prefill",
            "--size",
            "16m",
            "--qd",
            "1,4,16",
            "--duration",
            "50ms",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(doc["points"].as_array().unwrap().len(), 3);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let head = lines
        .iter()
        .rposition(|l| l.starts_with("point "))
        .unwrap_or_else(|| panic!("no summary table at the end:\n{text}"));
    let cols: Vec<&str> = lines[head]
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(
        cols,
        ["point", "IOPS", "MB/s", "mean us", "p99 us"],
        "{text}"
    );
    let rows = &lines[head + 1..];
    assert_eq!(rows.len(), 3, "{text}");
    for (row, qd) in rows.iter().zip(["qd=1", "qd=4", "qd=16"]) {
        assert!(row.contains(qd), "{row}");
        assert_eq!(row.split_whitespace().count(), 6, "{row}");
    }
}
