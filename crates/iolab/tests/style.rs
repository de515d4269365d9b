//! `iolab run --style vdbench|filebench` through the binary: a short block
//! workload on a file and a small file-system mix / personality in a
//! temporary directory; every printed figure is checked against the same
//! run's result document (computed there from counts, bytes and
//! seconds), and a bad `--style` is one line, exit 2.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;

const MIB: f64 = 1048576.0;

/// `iolab run ARGS --json DIR/r.json` in DIR, printing its lines.
fn run(dir: &Path, args: &[&str]) -> (String, Value) {
    let json = dir.join("r.json");
    let out = iolab()
        .arg("run")
        .args(args)
        .arg("--json")
        .arg(&json)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&json).unwrap();
    (stdout(&out), serde_json::from_str(&text).unwrap())
}

/// vdbench's data lines: (label, figures after it as printed), for
/// lines that start with a time of day and a label.
fn vdb_lines(out: &str) -> Vec<(String, Vec<String>)> {
    out.lines()
        .filter_map(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            let tod = t.first()?;
            let is_tod = tod.len() == 12 && tod.as_bytes()[2] == b':' && tod.as_bytes()[8] == b'.';
            let label = t.get(1)?;
            let is_label = label.starts_with("avg_") || label.parse::<u32>().is_ok();
            let nums = t[2..].iter().all(|x| x.parse::<f64>().is_ok());
            (is_tod && is_label && nums).then(|| {
                (
                    label.to_string(),
                    t[2..].iter().map(|x| x.to_string()).collect(),
                )
            })
        })
        .collect()
}

/// `printed` is `want` with `dec` decimals, rounded; or, where vdbench's
/// `%F` had no room for them, with fewer, truncated.
fn near(printed: &str, want: f64, dec: usize, what: &str) {
    let got: f64 = printed.parse().unwrap();
    let shown = printed.split_once('.').map_or(0, |(_, d)| d.len());
    let unit = 10f64.powi(-(shown as i32));
    let tol = if shown == dec { unit / 2.0 } else { unit };
    assert!(
        (got - want).abs() <= tol + want.abs() * 1e-12 + 1e-9,
        "{what}: printed {printed}, document {want}"
    );
}

/// A figure given as a number (filebench's, C's `%.Nf`: rounded).
fn near_f(got: f64, want: f64, dec: usize, what: &str) {
    near(&format!("{got:.dec$}"), want, dec, what)
}

fn lat(d: &Value, k: &str) -> f64 {
    f(d, &format!("lat_us/{k}")) / 1000.0
}

/// A raw line's figures from the document's read and write over `secs`.
fn check_raw(
    label: &str,
    v: &[String],
    read: &Value,
    write: &Value,
    secs: f64,
    cpu: Option<&Value>,
    cpus: f64,
) {
    let (ro, wo) = (u(read, "ops") as f64, u(write, "ops") as f64);
    let n = ro + wo;
    let bytes = (u(read, "bytes") + u(write, "bytes")) as f64;
    let mean = (ro * lat(read, "mean") + wo * lat(write, "mean")) / n;
    let w = |i: usize, want: f64, dec: usize, what: &str| {
        near(&v[i], want, dec, &format!("{label} {what}"))
    };
    w(0, n / secs, 2, "i/o rate");
    w(1, bytes / secs / MIB, 2, "MB/sec");
    w(2, (bytes / n).floor(), 0, "bytes/io");
    w(3, ro * 100.0 / n, 2, "read pct");
    w(4, mean, 3, "resp time");
    w(5, lat(read, "mean"), 3, "read resp");
    w(6, lat(write, "mean"), 3, "write resp");
    w(7, lat(read, "max").max(lat(write, "max")), 3, "resp max");
    w(9, n / secs * mean / 1000.0, 1, "queue depth");
    if let Some(c) = cpu {
        let (us, sy) = (f(c, "user_pct"), f(c, "sys_pct"));
        w(10, (us + sy) / cpus, 1, "cpu% sys+u");
        w(11, sy / cpus, 1, "cpu% sys");
    }
    assert_eq!(v.len(), 12, "{label}: {v:?}");
}

#[test]
fn vdbench_style_prints_a_block_run_s_intervals_and_average() {
    let d = tempfile::tempdir().unwrap();
    let (out, doc) = run(
        d.path(),
        &[
            "--target",
            "f.dat",
            "--size",
            "16m",
            "--rw",
            "randrw",
            "--bs",
            "8k",
            "--qd",
            "4",
            "--duration",
            "2s",
            "--interval",
            "500ms",
            "--style",
            "vdbench",
        ],
    );
    assert!(out.contains("Starting RD="), "{out}");
    assert!(out.contains("1024**2") && out.contains("stddev"), "{out}");
    // iolab's own summary is not printed.
    assert!(!out.contains("IOPS"), "{out}");
    let r = &doc["runs"][0];
    let cpus = f(&doc, "host/cpus");
    let ivs = r["intervals"].as_array().unwrap();
    let lines = vdb_lines(&out);
    assert_eq!(lines.len(), ivs.len() + 1, "{out}");
    let mut compared = 0;
    for ((label, v), iv) in lines.iter().zip(ivs) {
        assert_eq!(label, &(u(iv, "index") + 1).to_string());
        // An interval shown before a late worker reported differs from
        // the document's, which has that worker's figures merged in; the
        // last is shown when the run stops, the document's ends when its
        // last I/O completed.
        if u(iv, "workers_late") > 0 || u(iv, "index") as usize + 1 == ivs.len() {
            continue;
        }
        let secs = f(iv, "end_s") - f(iv, "start_s");
        check_raw(
            label,
            v,
            &iv["read"],
            &iv["write"],
            secs,
            iv.get("cpu"),
            cpus,
        );
        near(
            &v[8],
            f(iv, "total/lat_us/stddev") / 1000.0,
            3,
            "resp stddev",
        );
        compared += 1;
    }
    assert!(compared > 0, "{out}");
    // The average line: every interval measured (no warm-up).
    let (label, v) = lines.last().unwrap();
    assert_eq!(label, &format!("avg_1-{}", ivs.len()));
    let s = &r["summary"];
    check_raw(
        label,
        v,
        &s["read"],
        &s["write"],
        f(r, "measured_s"),
        Some(&s["cpu"]),
        cpus,
    );
    near(
        &v[8],
        f(s, "total/lat_us/stddev") / 1000.0,
        3,
        "avg resp stddev",
    );
}

#[test]
fn vdbench_style_prints_a_file_system_run_s_columns_and_counters() {
    let d = tempfile::tempdir().unwrap();
    let anchor = d.path().join("fs");
    let (out, doc) = run(
        d.path(),
        &[
            "--dir",
            anchor.to_str().unwrap(),
            "--mix",
            "read:50,write:30,create:10,delete:10",
            "--files",
            "64",
            "--file-size",
            "64k",
            "--duration",
            "2s",
            "--interval",
            "1s",
            "--style",
            "vdbench",
        ],
    );
    assert!(out.contains("fwdrate=max."), "{out}");
    assert!(
        out.contains(".ReqstdOps...") && out.contains("...create..."),
        "{out}"
    );
    let r = &doc["runs"][0];
    let lines = vdb_lines(&out);
    let (label, v) = lines.last().unwrap();
    let ivs = r["intervals"].as_array().unwrap();
    assert_eq!(label, &format!("avg_1-{}", ivs.len()), "{out}");
    // ReqstdOps, cpu (2), read pct, read rate/resp, write rate/resp,
    // mb/sec (3), xfer, six operations' rate/resp: 25 figures.
    assert_eq!(v.len(), 25, "{out}");
    let s = &r["summary"];
    let secs = f(r, "measured_s");
    let op = |n: &str| s["ops"].get(n).cloned().unwrap_or(Value::Null);
    let ops_of = |x: &Value| x.get("ops").and_then(Value::as_u64).unwrap_or(0) as f64;
    near(&v[0], u(s, "total/ops") as f64 / secs, 1, "ReqstdOps rate");
    near(&v[1], lat(&s["total"], "mean"), 3, "ReqstdOps resp");
    let (ro, wo) = (u(s, "read/ops") as f64, u(s, "write/ops") as f64);
    near(&v[4], ro * 100.0 / (ro + wo), 1, "read pct");
    near(&v[5], ro / secs, 1, "read rate");
    near(&v[7], wo / secs, 1, "write rate");
    near(
        &v[9],
        u(s, "read/bytes") as f64 / secs / MIB,
        2,
        "mb/sec read",
    );
    near(
        &v[10],
        u(s, "write/bytes") as f64 / secs / MIB,
        2,
        "mb/sec write",
    );
    // mkdir, rmdir, create, open, close, delete.
    for (i, name) in ["mkdir", "rmdir", "create", "open", "close", "delete"]
        .iter()
        .enumerate()
    {
        let o = op(name);
        near(
            &v[13 + 2 * i],
            ops_of(&o) / secs,
            1,
            &format!("{name} rate"),
        );
        if ops_of(&o) > 0.0 {
            near(&v[14 + 2 * i], lat(&o, "mean"), 3, &format!("{name} resp"));
        }
    }
    assert!(ops_of(&op("create")) > 0.0, "{s}");
    // Every interval line's create rate is the document's.
    for ((label, v), iv) in lines.iter().zip(ivs) {
        assert_eq!(label, &(u(iv, "index") + 1).to_string());
        if u(iv, "workers_late") > 0 || u(iv, "index") as usize + 1 == ivs.len() {
            continue;
        }
        let secs = f(iv, "end_s") - f(iv, "start_s");
        let c = iv["ops"].get("create").map_or(0.0, ops_of);
        near(
            &v[17],
            c / secs,
            1,
            &format!("interval {label} create rate"),
        );
        near(
            &v[0],
            u(iv, "all/ops") as f64 / secs,
            1,
            "interval ReqstdOps",
        );
    }
    // The fileset counters, as vdbench's Miscellaneous statistics.
    let c = &r["workloads"][0]["fileset"];
    for (text, key) in [
        ("Files created:", "files_created"),
        ("Files deleted:", "files_deleted"),
        ("Close requests:", "closes"),
    ] {
        let line = out
            .lines()
            .find(|l| l.contains(text))
            .unwrap_or_else(|| panic!("{text} in {out}"));
        let t: Vec<&str> = line.split_whitespace().collect();
        let n: u64 = t[t.len() - 2].replace(',', "").parse().unwrap();
        assert_eq!(n, u(c, key), "{line}");
    }
}

/// filebench's breakdown line: name, ops, ops/s, mb/s, ms/op, min, max.
fn fb_fields(line: &str) -> (String, u64, [f64; 5]) {
    let t: Vec<&str> = line.split_whitespace().collect();
    let num = |s: &str, unit: &str| -> f64 {
        s.trim_matches(|c| c == '[' || c == ']')
            .strip_suffix(unit)
            .unwrap_or_else(|| panic!("{s} in {line}"))
            .parse()
            .unwrap()
    };
    let ops = t[1].strip_suffix("ops").unwrap().parse().unwrap();
    (
        t[0].to_string(),
        ops,
        [
            num(t[2], "ops/s"),
            num(t[3], "mb/s"),
            num(t[4], "ms/op"),
            num(t[5], "ms"),
            num(t[7], "ms"),
        ],
    )
}

#[test]
fn filebench_style_prints_a_personality_s_breakdown_and_summary() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("fb");
    let (out, doc) = run(
        d.path(),
        &[
            "--personality",
            "fileserver",
            "--dir",
            dir.to_str().unwrap(),
            "--files",
            "50",
            "--jobs",
            "2",
            "--duration",
            "2s",
            "--interval",
            "500ms",
            "--style",
            "filebench",
        ],
    );
    let lines: Vec<&str> = out.lines().collect();
    let r = &doc["runs"][0];
    let t = f(r, "warmup_s") + f(r, "measured_s");
    let start = lines
        .iter()
        .position(|l| l.ends_with("Per-Operation Breakdown"))
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(lines[start], format!("{t:.3}: Per-Operation Breakdown"));
    // Nothing per interval: Running, Run took, the breakdown, the summary.
    assert_eq!(start, 2, "{out}");
    let w = &r["workloads"][0];
    let ops = w["operations"].as_object().unwrap();
    let body = &lines[start + 1..lines.len() - 1];
    assert_eq!(body.len(), ops.len(), "{out}");
    let secs = f(r, "measured_s");
    for l in body {
        let (name, n, v) = fb_fields(l);
        let o = &ops[&name];
        assert_eq!(n, u(o, "ops"), "{l}");
        near_f(v[0], n as f64 / secs, 0, &format!("{name} ops/s"));
        near_f(
            v[1],
            u(o, "bytes") as f64 / secs / MIB,
            1,
            &format!("{name} mb/s"),
        );
        near_f(v[2], lat(o, "mean"), 3, &format!("{name} ms/op"));
        near_f(v[3], lat(o, "min"), 3, &format!("{name} min"));
        near_f(v[4], lat(o, "max"), 3, &format!("{name} max"));
    }
    let last = lines.last().unwrap();
    let rest = last
        .strip_prefix(&format!("{t:.3}: IO Summary: "))
        .unwrap_or_else(|| panic!("{last}"));
    let s = &w["io_summary"];
    let x: Vec<&str> = rest.split_whitespace().collect();
    assert_eq!(x[0].parse::<u64>().unwrap(), u(s, "ops"), "{last}");
    assert_eq!(x[1], "ops");
    near(x[2], f(s, "ops_per_s"), 3, "IO Summary ops/s");
    assert_eq!(
        x[4],
        format!(
            "{:.0}/{:.0}",
            f(s, "read_ops_per_s"),
            f(s, "write_ops_per_s")
        ),
        "{last}"
    );
    let mb: f64 = x[6].strip_suffix("mb/s").unwrap().parse().unwrap();
    near_f(mb, f(s, "mbps") * 1e6 / MIB, 1, "IO Summary mb/s");
    let ms: f64 = x[7].strip_suffix("ms/op").unwrap().parse().unwrap();
    near_f(ms, f(s, "lat_mean_us") / 1000.0, 3, "IO Summary ms/op");
}

#[test]
fn filebench_style_shows_a_block_run_s_reads_and_writes() {
    let d = tempfile::tempdir().unwrap();
    let (out, doc) = run(
        d.path(),
        &[
            "--target",
            "f.dat",
            "--size",
            "8m",
            "--rw",
            "randrw",
            "--bs",
            "4k",
            "--duration",
            "1s",
            "--style",
            "filebench",
        ],
    );
    let r = &doc["runs"][0];
    let secs = f(r, "measured_s");
    for dir in ["read", "write"] {
        let l = out
            .lines()
            .find(|l| l.starts_with(&format!("{dir} ")))
            .unwrap_or_else(|| panic!("{out}"));
        let (_, n, v) = fb_fields(l);
        let s = &r["summary"][dir];
        assert_eq!(n, u(s, "ops"), "{l}");
        near_f(
            v[1],
            u(s, "bytes") as f64 / secs / MIB,
            1,
            &format!("{dir} mb/s"),
        );
        near_f(v[2], lat(s, "mean"), 3, &format!("{dir} ms/op"));
    }
    let io = out.lines().find(|l| l.contains("IO Summary:")).unwrap();
    let total = u(r, "summary/read/ops") + u(r, "summary/write/ops");
    assert!(io.contains(&format!("IO Summary: {total:5} ops ")), "{io}");
}

#[test]
fn a_bad_style_is_one_line_and_exit_2() {
    let d = tempfile::tempdir().unwrap();
    let out = iolab()
        .args(["run", "--target", "f.dat", "--size", "1m", "--style", "fio"])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_bad_input(&out, "--style");
    let e = stderr(&out);
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    assert!(e.contains("iolab, vdbench, filebench"), "{e}");
    assert!(!d.path().join("f.dat").exists());
}
