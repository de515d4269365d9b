//! `iolab compare`: matching by parameters, the change and its
//! significance, unmatched runs listed, the text, Markdown and CSV tables
//! against goldens, the HTML report, real documents end to end, bad input.
//!
//! Documents with fixed figures are built from a real one (a null-engine
//! run made once per test process) whose runs are copied and given the
//! parameters and figures each test needs. After an intended change of the
//! output, regenerate the goldens and review the diff:
//!
//!     UPDATE_GOLDEN=1 cargo test -p iolab --test compare

mod common;
use common::*;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::OnceLock;

/// A real single-run document to copy runs from.
fn template() -> &'static Value {
    static T: OnceLock<Value> = OnceLock::new();
    T.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let (out, doc) = run_json(
            &[
                "--engine",
                "null",
                "--target",
                "t.dat",
                "--no-prefill",
                "--size",
                "1m",
                "--rw",
                "randread",
                "--bs",
                "8k",
                "--qd",
                "4",
                "--duration",
                "30ms",
            ],
            dir.path(),
        );
        assert!(out.status.success(), "{}", stderr(&out));
        doc
    })
}

/// One entry of a built document: a workload name, its swept values (also
/// applied to the run's spec) and per run the figures
/// [IOPS, MB/s, mean latency us, p99 latency us, CPU us per I/O].
struct Pt {
    name: &'static str,
    params: Vec<(&'static str, &'static str)>,
    runs: Vec<[f64; 5]>,
}

/// Runs with IOPS as given and the other figures following from them:
/// MB/s from the block size, mean latency from Little's law at `qd`, p99
/// 2.5 x the mean, CPU per I/O as given.
fn runs(iops: &[f64], bs: f64, qd: f64, cpu: &[f64]) -> Vec<[f64; 5]> {
    iops.iter()
        .zip(cpu)
        .map(|(&i, &c)| {
            let mean = qd * 1e6 / i;
            [i, i * bs / 1e6, mean, 2.5 * mean, c]
        })
        .collect()
}

fn size(v: &str) -> u64 {
    let (n, m) = match v.chars().last() {
        Some('k') => (&v[..v.len() - 1], 1024),
        Some('m') => (&v[..v.len() - 1], 1024 * 1024),
        _ => (v, 1),
    };
    n.parse::<u64>().unwrap() * m
}

/// Give a run the parameter `k = v` in its spec (and effective settings).
fn apply(run: &mut Value, k: &str, v: &str) {
    match k {
        "bs" => run["spec"]["bs"] = json!([{"bytes": size(v), "weight": 1}]),
        "qd" | "jobs" => {
            let n: u64 = v.parse().unwrap();
            run["spec"][k] = json!(n);
            run["effective"][k] = json!(n);
        }
        "rw" => {
            let (r, rnd) = match v {
                "read" => (100, 0),
                "randread" => (100, 100),
                "write" => (0, 0),
                "randwrite" => (0, 100),
                "randrw" => (75, 100),
                other => panic!("rw {other}"),
            };
            run["spec"]["rw"] = json!(v);
            run["spec"]["read_pct"] = json!(r);
            run["spec"]["random_pct"] = json!(rnd);
        }
        "engine" => {
            run["spec"]["engine"] = json!(v);
            run["effective"]["engine"] = json!(v);
        }
        "target" => run["spec"]["targets"][0]["path"] = json!(v),
        "seed" => run["spec"]["seed"] = json!(v.parse::<u64>().unwrap()),
        "duration" => run["spec"]["duration_s"] = json!(v.parse::<f64>().unwrap()),
        other => panic!("apply {other}"),
    }
}

/// A document of the given entries. With `axes` (swept parameters and
/// their values) it is a sweep: runs carry their point, repetition and
/// swept values. `spec` is applied to every run but not recorded as swept.
fn build(axes: &[(&str, &[&str])], spec: &[(&str, &str)], pts: &[Pt]) -> Value {
    let t = template();
    let sweep = !axes.is_empty();
    let mut doc = t.clone();
    let mut out_runs = Vec::new();
    let mut repeat = 1;
    for (pi, p) in pts.iter().enumerate() {
        repeat = repeat.max(p.runs.len());
        for (ri, figs) in p.runs.iter().enumerate() {
            let mut r = t["runs"][0].clone();
            r["name"] = json!(p.name);
            for (k, v) in spec.iter().chain(&p.params) {
                apply(&mut r, k, v);
            }
            let o = r.as_object_mut().unwrap();
            if sweep {
                o.insert("point".into(), json!(pi));
                o.insert("repeat".into(), json!(ri + 1));
                let params: serde_json::Map<String, Value> = p
                    .params
                    .iter()
                    .map(|(k, v)| (k.to_string(), json!(v)))
                    .collect();
                o.insert("params".into(), Value::Object(params));
            }
            let tot = &mut r["summary"]["total"];
            tot["iops"] = json!(figs[0]);
            tot["mbps"] = json!(figs[1]);
            tot["lat_us"]["mean"] = json!(figs[2]);
            tot["lat_us"]["p99"] = json!(figs[3]);
            r["summary"]["cpu"]["usec_per_io"] = json!(figs[4]);
            out_runs.push(r);
        }
    }
    let n = out_runs.len();
    doc["runs"] = Value::Array(out_runs);
    doc["started_at"] = json!("2025-03-01T10:00:00.000Z");
    doc["finished_at"] = json!("2025-03-01T10:05:00.000Z");
    doc["host"]["hostname"] = json!("testhost");
    doc["command"] = json!(["iolab", "run", "..."]);
    let o = doc.as_object_mut().unwrap();
    o.remove("points");
    o.remove("plan");
    if sweep {
        o.insert(
            "plan".into(),
            json!({
                "axes": axes.iter().map(|(k, v)| json!({"name": k, "values": v})).collect::<Vec<_>>(),
                "points": pts.len(),
                "repeat": repeat,
                "pause_s": 0.0,
                "runs_planned": n,
                "estimated_s": 0.0,
            }),
        );
    }
    doc
}

fn write(dir: &Path, name: &str, doc: &Value) {
    std::fs::write(dir.join(name), serde_json::to_string_pretty(doc).unwrap()).unwrap();
}

/// `iolab compare ARGS` in DIR.
fn compare(dir: &Path, args: &[&str]) -> std::process::Output {
    iolab()
        .arg("compare")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// `iolab compare ARGS --json c.json` in DIR: (output, comparison).
fn compare_json(dir: &Path, args: &[&str]) -> (std::process::Output, Value) {
    let out = iolab()
        .arg("compare")
        .args(args)
        .args(["--json", "c.json"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v = serde_json::from_str(&std::fs::read_to_string(dir.join("c.json")).unwrap()).unwrap();
    (out, v)
}

/// The verdict of a figure in the row labelled `label`, against document 1.
fn verdict(c: &Value, label: &str, figure: &str) -> String {
    let row = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["label"] == label)
        .unwrap_or_else(|| panic!("no row {label}: {}", c["rows"]));
    let ch = row["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["figure"] == figure && x["doc"] == 1)
        .unwrap_or_else(|| panic!("no change of {figure} in {label}"));
    ch["verdict"].as_str().unwrap().to_string()
}

fn unmatched_labels(c: &Value) -> Vec<(u64, String)> {
    c["unmatched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u["entry"]["doc"].as_u64().unwrap(),
                u["entry"]["label"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Before: a block-size x queue-depth sweep, 3 runs per point, with a 1m
/// block size the after document lacks. After: the same minus 1m, plus
/// qd 32. 8k qd 1 got clearly faster, 64k qd 1 clearly slower, 8k qd 8
/// moved inside its large spread, 64k qd 8 stayed.
fn sweep_pair(dir: &Path) {
    let (k8, k64, m1) = (8192.0, 65536.0, 1048576.0);
    let cpu = [4.0, 4.2, 3.8];
    let pt = |bs: &'static str, qd: &'static str, runs| Pt {
        name: "randread-1",
        params: vec![("bs", bs), ("qd", qd)],
        runs,
    };
    let before = build(
        &[("bs", &["8k", "64k", "1m"]), ("qd", &["1", "8"])],
        &[("rw", "randread")],
        &[
            pt("8k", "1", runs(&[9900.0, 10000.0, 10100.0], k8, 1.0, &cpu)),
            pt("8k", "8", runs(&[32000.0, 40000.0, 48000.0], k8, 8.0, &cpu)),
            pt("64k", "1", runs(&[4950.0, 5000.0, 5050.0], k64, 1.0, &cpu)),
            pt(
                "64k",
                "8",
                runs(&[20000.0, 20200.0, 19800.0], k64, 8.0, &cpu),
            ),
            pt("1m", "1", runs(&[600.0, 610.0, 590.0], m1, 1.0, &cpu)),
            pt("1m", "8", runs(&[1500.0, 1510.0, 1490.0], m1, 8.0, &cpu)),
        ],
    );
    let after = build(
        &[("bs", &["8k", "64k"]), ("qd", &["1", "8", "32"])],
        &[("rw", "randread"), ("target", "/dev/sdq"), ("seed", "99")],
        &[
            pt(
                "8k",
                "1",
                runs(&[11900.0, 12000.0, 12100.0], k8, 1.0, &[3.0, 3.1, 2.9]),
            ),
            pt("8k", "8", runs(&[36000.0, 44000.0, 52000.0], k8, 8.0, &cpu)),
            pt(
                "8k",
                "32",
                runs(&[60000.0, 61000.0, 59000.0], k8, 32.0, &cpu),
            ),
            pt("64k", "1", runs(&[3950.0, 4000.0, 4050.0], k64, 1.0, &cpu)),
            pt(
                "64k",
                "8",
                runs(&[20100.0, 19900.0, 20000.0], k64, 8.0, &cpu),
            ),
            pt(
                "64k",
                "32",
                runs(&[21000.0, 21100.0, 20900.0], k64, 32.0, &cpu),
            ),
        ],
    );
    write(dir, "before.json", &before);
    write(dir, "after.json", &after);
}

#[test]
fn a_sweep_pair_compares_point_means_against_the_spread() {
    let dir = tempfile::tempdir().unwrap();
    sweep_pair(dir.path());
    let (out, c) = compare_json(dir.path(), &["before.json", "after.json"]);
    golden("compare-sweep.txt", &stdout(&out));

    assert_eq!(c["rows"].as_array().unwrap().len(), 4);
    // A clear change with a low spread is significant, in the direction
    // that is better for the figure.
    assert_eq!(verdict(&c, "randread-1 bs=8k qd=1", "iops"), "better");
    assert_eq!(
        verdict(&c, "randread-1 bs=8k qd=1", "lat_mean_us"),
        "better"
    );
    assert_eq!(
        verdict(&c, "randread-1 bs=8k qd=1", "cpu_us_per_io"),
        "better"
    );
    assert_eq!(verdict(&c, "randread-1 bs=64k qd=1", "iops"), "worse");
    assert_eq!(verdict(&c, "randread-1 bs=64k qd=1", "mbps"), "worse");
    assert_eq!(verdict(&c, "randread-1 bs=64k qd=1", "lat_p99_us"), "worse");
    // +10 % inside a 20 % run-to-run spread is not.
    assert_eq!(
        verdict(&c, "randread-1 bs=8k qd=8", "iops"),
        "not_significant"
    );
    assert_eq!(
        verdict(&c, "randread-1 bs=64k qd=8", "iops"),
        "not_significant"
    );
    let row = &c["rows"][0];
    let iops = row["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["figure"] == "iops")
        .unwrap();
    assert!((iops["change_pct"].as_f64().unwrap() - 20.0).abs() < 1e-9);
    assert_eq!(iops["test"]["kind"], "welch");

    // Unmatched entries are listed per document, with how they differ.
    assert_eq!(
        unmatched_labels(&c),
        [
            (0, "randread-1 bs=1m qd=1".to_string()),
            (0, "randread-1 bs=1m qd=8".to_string()),
            (1, "randread-1 bs=8k qd=32".to_string()),
            (1, "randread-1 bs=64k qd=32".to_string()),
        ]
    );
    let text = stdout(&out);
    assert!(
        text.contains("after: randread-1 bs=8k qd=32 (3 runs); nearest in before: randread-1 bs=8k qd=1, differs in qd 32 vs 1"),
        "{text}"
    );

    let md = compare(dir.path(), &["before.json", "after.json", "--format", "md"]);
    assert!(md.status.success(), "{}", stderr(&md));
    golden("compare-sweep.md", &stdout(&md));
    let csv = compare(
        dir.path(),
        &["before.json", "after.json", "--format", "csv"],
    );
    assert!(csv.status.success(), "{}", stderr(&csv));
    golden("compare-sweep.csv", &stdout(&csv));
    every_column_has_a_unit(&stdout(&csv));
}

/// Every header line of a CSV export (the line after each block's title)
/// names its unit or is a label column.
fn every_column_has_a_unit(csv: &str) {
    let lines: Vec<&str> = csv.lines().collect();
    let mut heads = 0;
    for (i, l) in lines.iter().enumerate() {
        if i == 0 || lines[i - 1].is_empty() {
            let head = lines[i + 1];
            for c in head.split(',') {
                assert!(
                    iolab_report::tables::column_has_unit(c, &[]),
                    "{l}: column {c:?} has no unit"
                );
            }
            heads += 1;
        }
    }
    assert!(heads >= 5, "{csv}");
}

#[test]
fn single_runs_in_three_documents() {
    let dir = tempfile::tempdir().unwrap();
    let oltp = |iops: f64| Pt {
        name: "oltp",
        params: vec![("rw", "randrw"), ("bs", "8k"), ("qd", "32")],
        runs: runs(&[iops], 8192.0, 32.0, &[6.0]),
    };
    let seq = |name: &'static str, mbps: f64| Pt {
        name,
        params: vec![("rw", "read"), ("bs", "1m"), ("qd", "4")],
        runs: runs(&[mbps * 1e6 / 1048576.0], 1048576.0, 4.0, &[20.0]),
    };
    // Without a plan: the parameters are the runs' specs only.
    write(
        dir.path(),
        "before.json",
        &build(&[], &[], &[oltp(20000.0), seq("seq-read", 400.0)]),
    );
    write(
        dir.path(),
        "tuned.json",
        &build(&[], &[], &[oltp(26000.0), seq("seq-read", 420.0)]),
    );
    // Renamed workload on another target: still the same workload.
    write(
        dir.path(),
        "retuned.json",
        &build(
            &[],
            &[("target", "/mnt/new/file")],
            &[seq("stream", 760.0), oltp(25000.0)],
        ),
    );
    let (out, c) = compare_json(dir.path(), &["before.json", "tuned.json", "retuned.json"]);
    golden("compare-single.txt", &stdout(&out));
    assert_eq!(c["rows"].as_array().unwrap().len(), 2);
    assert!(c["unmatched"].as_array().unwrap().is_empty());
    assert_eq!(verdict(&c, "oltp", "iops"), "spread_unknown");
    let seq_row = &c["rows"][1];
    assert_eq!(seq_row["label"], "seq-read");
    assert_eq!(seq_row["entries"][2]["name"], "stream");
    // Without sweeps the charts are grouped bars, one series per document.
    let charts = c["charts"].as_array().unwrap();
    assert_eq!(charts.len(), 5);
    assert!(charts
        .iter()
        .all(|ch| ch["kind"] == "bar" && ch["series"].as_array().unwrap().len() == 3));
}

#[test]
fn matching_ignores_target_seed_duration_and_name_but_not_qd() {
    let dir = tempfile::tempdir().unwrap();
    let one = |name: &'static str, qd: &'static str| Pt {
        name,
        params: vec![("rw", "randread"), ("bs", "8k"), ("qd", qd)],
        runs: runs(&[1000.0], 8192.0, 4.0, &[5.0]),
    };
    write(
        dir.path(),
        "a.json",
        &build(
            &[],
            &[("target", "/dev/sdb"), ("seed", "1"), ("duration", "60")],
            &[one("x", "4")],
        ),
    );
    write(
        dir.path(),
        "b.json",
        &build(
            &[],
            &[
                ("target", "/srv/pool/f.dat"),
                ("seed", "7"),
                ("duration", "5"),
            ],
            &[one("y", "4")],
        ),
    );
    let (_, c) = compare_json(dir.path(), &["a.json", "b.json"]);
    assert_eq!(c["rows"].as_array().unwrap().len(), 1, "{}", c["unmatched"]);
    assert!(c["unmatched"].as_array().unwrap().is_empty());

    write(dir.path(), "q8.json", &build(&[], &[], &[one("x", "8")]));
    let (out, c) = compare_json(dir.path(), &["a.json", "q8.json"]);
    assert!(c["rows"].as_array().unwrap().is_empty());
    assert_eq!(
        unmatched_labels(&c),
        [(0, "x".to_string()), (1, "x".to_string())]
    );
    let d = &c["unmatched"][1]["differs"];
    assert_eq!(d, &json!([{"param": "qd", "this": "8", "nearest": "4"}]));
    let text = stdout(&out);
    assert!(
        text.contains("q8: x (1 run); nearest in a: x, differs in qd 8 vs 4"),
        "{text}"
    );
    assert!(
        text.contains("0 workloads matched by their parameters, 2 not matched"),
        "{text}"
    );

    // --ignore qd compares them anyway.
    let (_, c) = compare_json(dir.path(), &["a.json", "q8.json", "--ignore", "qd"]);
    assert_eq!(c["rows"].as_array().unwrap().len(), 1);
    assert_eq!(c["ignored"], json!(["qd"]));

    // Two workloads with equal parameters in one document pair by name.
    let two = |first: &'static str, second: &'static str| {
        let mut p1 = one(first, "4");
        p1.runs = runs(&[1000.0], 8192.0, 4.0, &[5.0]);
        let mut p2 = one(second, "4");
        p2.runs = runs(&[3000.0], 8192.0, 4.0, &[5.0]);
        build(&[], &[], &[p1, p2])
    };
    write(dir.path(), "d.json", &two("cold", "warm"));
    write(dir.path(), "e.json", &two("warm", "cold"));
    let (_, c) = compare_json(dir.path(), &["d.json", "e.json"]);
    for r in c["rows"].as_array().unwrap() {
        assert_eq!(r["entries"][0]["name"], r["entries"][1]["name"], "{r}");
    }
}

#[test]
fn one_run_against_repetitions_uses_the_spread_it_has() {
    let dir = tempfile::tempdir().unwrap();
    let p = |runs| Pt {
        name: "r",
        params: vec![("qd", "4")],
        runs,
    };
    let cpu = [5.0, 5.0, 5.0];
    write(
        dir.path(),
        "base.json",
        &build(
            &[("qd", &["4"])],
            &[],
            &[p(runs(&[990.0, 1000.0, 1010.0], 4096.0, 4.0, &cpu))],
        ),
    );
    write(
        dir.path(),
        "near.json",
        &build(&[], &[], &[p(runs(&[1020.0], 4096.0, 4.0, &[5.0]))]),
    );
    write(
        dir.path(),
        "far.json",
        &build(&[], &[], &[p(runs(&[1100.0], 4096.0, 4.0, &[5.0]))]),
    );
    let (out, c) = compare_json(dir.path(), &["base.json", "near.json", "far.json"]);
    let row = &c["rows"][0];
    let ch = |doc: u64| {
        row["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["figure"] == "iops" && x["doc"] == doc)
            .unwrap()
            .clone()
    };
    // 1000 ± 10 over 3 runs: the 95 % prediction interval is about ± 50.
    assert_eq!(ch(1)["verdict"], "not_significant", "{}", stdout(&out));
    assert_eq!(ch(1)["test"]["kind"], "prediction");
    assert_eq!(ch(2)["verdict"], "better");
}

#[test]
fn real_sweeps_compare_end_to_end_with_an_html_report() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = |target: &str, qd: &str| {
        let (out, _) = run_json(
            &[
                "--engine",
                "null",
                "--target",
                target,
                "--no-prefill",
                "--size",
                "4m",
                "--rw",
                "randread,randwrite",
                "--bs",
                "4k",
                "--qd",
                qd,
                "--duration",
                "40ms",
                "--repeat",
                "2",
            ],
            dir.path(),
        );
        assert!(out.status.success(), "{}", stderr(&out));
    };
    sweep("before.dat", "1,4");
    sweep("after.dat", "1,4,16");
    let mut docs: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    docs.sort_by_key(|p| std::fs::metadata(p).unwrap().modified().unwrap());
    assert_eq!(docs.len(), 2);
    let (b, a) = (docs[0].to_str().unwrap(), docs[1].to_str().unwrap());
    let (out, c) = compare_json(dir.path(), &[b, a, "--html", "c.html"]);
    let text = stdout(&out);
    // 2 rw x 2 qd matched; qd 16 of the after document listed.
    assert_eq!(c["rows"].as_array().unwrap().len(), 4, "{text}");
    assert_eq!(c["unmatched"].as_array().unwrap().len(), 2, "{text}");
    for r in c["rows"].as_array().unwrap() {
        for e in r["entries"].as_array().unwrap() {
            assert_eq!(e["figures"]["iops"]["n"], 2, "{r}");
            assert!(e["figures"]["iops"]["mean"].as_f64().unwrap() > 0.0);
        }
        assert_eq!(r["changes"].as_array().unwrap().len(), 5);
    }
    assert!(text.contains("IOPS (higher is better)"), "{text}");
    // Curves against qd, one chart per line of the sweep and figure.
    let charts = c["charts"].as_array().unwrap();
    assert_eq!(charts.len(), 10, "{}", c["charts"]);
    assert!(charts.iter().all(|ch| ch["kind"] == "line"));
    assert_eq!(charts[0]["x"], json!(["1", "4", "16"]));
    let html = std::fs::read_to_string(dir.path().join("c.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert_eq!(html.matches("<svg").count(), 10);
    assert!(!html.contains("NaN"));
    assert!(html.contains("Not matched"));
}

#[test]
fn html_escapes_names_and_draws_bars_for_single_runs() {
    let dir = tempfile::tempdir().unwrap();
    let p = |iops: f64| Pt {
        name: "<b>x</b>",
        params: vec![("qd", "4")],
        runs: runs(&[iops], 4096.0, 4.0, &[5.0]),
    };
    write(dir.path(), "a.json", &build(&[], &[], &[p(1000.0)]));
    write(dir.path(), "b.json", &build(&[], &[], &[p(1500.0)]));
    let out = compare(dir.path(), &["a.json", "b.json", "--html", "r.html"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert!(!html.contains("<b>x</b>"));
    assert!(html.contains("&lt;b&gt;x&lt;/b&gt;"));
    assert_eq!(html.matches("<svg").count(), 5);
}

#[test]
fn incomplete_runs_and_empty_documents_are_noted() {
    let dir = tempfile::tempdir().unwrap();
    let p = |iops: f64| Pt {
        name: "w",
        params: vec![("qd", "4")],
        runs: runs(&[iops], 4096.0, 4.0, &[5.0]),
    };
    let mut cut = build(&[], &[], &[p(900.0)]);
    cut["complete"] = json!(false);
    cut["runs"][0]["complete"] = json!(false);
    cut["runs"][0]["incomplete_reason"] = json!("interrupted");
    let mut empty = build(&[], &[], &[p(1.0)]);
    empty["runs"] = json!([]);
    write(dir.path(), "a.json", &build(&[], &[], &[p(1000.0)]));
    write(dir.path(), "cut.json", &cut);
    write(dir.path(), "empty.json", &empty);
    let (out, c) = compare_json(dir.path(), &["a.json", "cut.json", "empty.json"]);
    let text = stdout(&out);
    assert_eq!(c["rows"].as_array().unwrap().len(), 1, "{text}");
    assert!(c["rows"][0]["entries"][2].is_null());
    assert!(
        text.contains(
            "cut.json, host testhost, started 2025-03-01T10:00:00.000Z, 1 run, INCOMPLETE"
        ),
        "{text}"
    );
    assert!(
        text.contains("note: cut: 1 of the 1 run of w did not complete"),
        "{text}"
    );
    assert!(
        text.contains("note: empty: the document holds no runs"),
        "{text}"
    );
    assert!(text.contains("not in this document"), "{text}");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = build(
        &[],
        &[],
        &[Pt {
            name: "r",
            params: vec![],
            runs: runs(&[1000.0], 4096.0, 1.0, &[5.0]),
        }],
    );
    write(d, "good.json", &good);
    // A version newer than this iolab's.
    let mut v3 = good.clone();
    v3["schema_version"] = json!(3);
    write(d, "v3.json", &v3);
    let text = serde_json::to_string_pretty(&good).unwrap();
    std::fs::write(d.join("cut.json"), &text[..text.len() / 2]).unwrap();
    std::fs::write(
        d.join("other.json"),
        r#"{"fio version": "fio-3.36", "jobs": []}"#,
    )
    .unwrap();

    assert_bad_input(
        &compare(d, &["good.json", "v3.json"]),
        "v3.json has schema version 3",
    );
    assert_bad_input(
        &compare(d, &["cut.json", "good.json"]),
        "cut.json is not an iolab result document",
    );
    assert_bad_input(
        &compare(d, &["good.json", "other.json"]),
        "other.json is not an iolab result document",
    );
    assert_bad_input(
        &compare(d, &["good.json", "missing.json"]),
        "cannot read missing.json",
    );
    assert_bad_input(
        &compare(d, &["good.json"]),
        "compare needs two or more result documents",
    );
    assert_bad_input(
        &compare(d, &[]),
        "compare needs two or more result documents",
    );
    assert_bad_input(
        &compare(d, &["good.json", "good.json", "--ignore", "colour"]),
        "--ignore colour",
    );
    assert_bad_input(
        &compare(d, &["good.json", "good.json", "--format", "pdf"]),
        "--format pdf",
    );
    assert_bad_input(
        &compare(
            d,
            &["good.json", "good.json", "--html", "no/such/dir/r.html"],
        ),
        "--html no/such/dir/r.html",
    );
    // An output never overwrites a document being compared.
    assert_bad_input(
        &compare(d, &["good.json", "v2.json", "--json", "./good.json"]),
        "--json ./good.json is one of the documents compared",
    );
    assert_eq!(std::fs::read_to_string(d.join("good.json")).unwrap(), text);
}

/// A document of schema version 1 (written by iolab before workloads[]
/// and events[], committed in crates/report/tests/data) still reports and
/// compares: against a current document of the same workload it matches
/// as one workload.
#[test]
fn a_version_1_document_still_reports_and_compares() {
    let d = tempfile::tempdir().unwrap();
    let v1 = Path::new(env!("CARGO_MANIFEST_DIR")).join("../report/tests/data/schema1-run.json");
    std::fs::copy(&v1, d.path().join("v1.json")).unwrap();
    let out = iolab()
        .arg("report")
        .arg(d.path().join("v1.json"))
        .args(["--format", "md"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("randrw-1"), "{}", stdout(&out));
    // The same document as version 2: what the upgrade gives, written out.
    let mut v2: Value = serde_json::from_str(&std::fs::read_to_string(&v1).unwrap()).unwrap();
    v2["schema_version"] = json!(2);
    let run = v2["runs"][0].clone();
    let mut w = run.clone();
    w["start_s"] = json!(0.0);
    w["end_s"] = run["measured_s"].clone();
    v2["runs"][0]["workloads"] = json!([w]);
    v2["runs"][0]["events"] = json!([]);
    write(d.path(), "v2.json", &v2);
    let (out, c) = compare_json(d.path(), &["v1.json", "v2.json"]);
    assert!(
        stdout(&out).contains("Every workload matched"),
        "{}",
        stdout(&out)
    );
    assert_eq!(c["rows"].as_array().unwrap().len(), 1);
    assert!(c["rows"][0].get("workloads").is_none(), "{}", c["rows"][0]);
}
