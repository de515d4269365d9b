//! fio's JSON and log files from iolab's result document, checked against
//! the tools that read fio's output:
//!
//! - fio's own JSON of the same small file job (Debian's fio, `json+`;
//!   `IOLAB_FIO=/path/to/fio` compares with another build):
//!   every key path of fio's output exists in iolab's with the same JSON
//!   type, except the ones listed in `DIFFERS` (docs/fio.md says why);
//!   json+ bins are named as fio names its buckets; the figures are the
//!   document's own (IOPS, I/O counts, percentiles).
//! - fio-plot (PyPI `fio-plot`, in a virtual environment under
//!   target/tmp, made once; scripts/test makes it) reads the JSON and the
//!   log files, draws its graphs (exit 0, a PNG), and the values it read
//!   are the document's.
//!
//! The exporters are called through the library (`iolab_report::fio`) on
//! the document `iolab run --json` wrote.

mod common;
use common::*;
use iolab_report::fio;
use iolab_report::ResultDoc;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Key paths of fio's JSON that iolab's deliberately does not have (or
/// has with another type), with the reason (docs/fio.md).
const DIFFERS: &[(&str, &str)] = &[
    (
        "/global options",
        "iolab lists every option of a job, [global]'s included, in its `job options`",
    ),
    ("/global options/*", "as above"),
];

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Every key path of `v` with its type; the keys of objects keyed by data
/// (`percentile`, `bins`, option names) collapse to `*`, array elements
/// to `[]`.
fn shape(v: &Value, path: &str, out: &mut BTreeMap<String, &'static str>) {
    out.insert(path.to_string(), kind(v));
    match v {
        Value::Object(m) => {
            let by_data = ["percentile", "bins", "job options", "global options"]
                .iter()
                .any(|k| path.ends_with(&format!("/{k}")));
            for (k, x) in m {
                let k = if by_data { "*" } else { k.as_str() };
                shape(x, &format!("{path}/{k}"), out);
            }
        }
        Value::Array(a) => {
            for x in a {
                shape(x, &format!("{path}[]"), out);
            }
        }
        _ => {}
    }
}

fn load(doc: &Value) -> ResultDoc {
    serde_json::from_value(doc.clone()).expect("a result document")
}

/// iolab on `file`: `args` plus a document; returns (document as value,
/// as the model).
fn iolab_run(dir: &Path, args: &[&str]) -> (Value, ResultDoc) {
    let (out, v) = run_json(args, dir);
    assert!(out.status.success(), "iolab: {}", stderr(&out));
    let d = load(&v);
    (v, d)
}

fn ns(us: f64) -> u64 {
    (us * 1000.0).round() as u64
}

/// The document's read and write figures appear unchanged in `job`.
fn assert_figures_are_the_documents(job: &Value, d: &ResultDoc) {
    let w = &d.runs[0].workloads[0];
    for (dir, s) in [("read", &w.summary.read), ("write", &w.summary.write)] {
        let o = &job[dir];
        assert_eq!(o["iops"].as_f64().unwrap(), s.iops, "{dir} iops");
        assert_eq!(o["total_ios"].as_u64().unwrap(), s.ops, "{dir} ios");
        assert_eq!(o["io_bytes"].as_u64().unwrap(), s.bytes, "{dir} bytes");
        if s.ops == 0 {
            continue;
        }
        let p = &o["clat_ns"]["percentile"];
        for (k, want) in [
            ("50.000000", s.lat_us.p50),
            ("90.000000", s.lat_us.p90),
            ("99.000000", s.lat_us.p99),
            ("99.900000", s.lat_us.p99_9),
            ("99.990000", s.lat_us.p99_99),
        ] {
            assert_eq!(p[k].as_u64().unwrap(), ns(want), "{dir} percentile {k}");
        }
        assert_eq!(o["clat_ns"]["max"].as_u64().unwrap(), ns(s.lat_us.max));
    }
}

/// fio's bucket value for a latency (the middle of fio's bucket), as fio
/// names json+ bins: 64 buckets per power of two, exact below 128.
fn fio_bin_name(v: u64) -> u64 {
    fio::lat::fio_bucket_value(fio::lat::fio_bucket(v))
}

#[test]
fn fio_json_has_fios_keys_types_and_the_documents_figures() {
    // IOLAB_FIO names another fio to compare with (fio built from source).
    let fio_bin = std::env::var("IOLAB_FIO").unwrap_or_else(|_| "fio".into());
    if fio_bin == "fio" {
        iolab_testutil::require_tool!("fio");
    }
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job.fio");
    let fio_file = dir.path().join("fio.dat");
    std::fs::write(
        &job,
        format!(
            "[global]\nfilename={}\nsize=8m\nbs=4k\nioengine=psync\ndirect=1\n\n\
             [rr]\nrw=randrw\nrwmixread=70\niodepth=1\nnumjobs=1\nruntime=1\ntime_based\n",
            fio_file.display()
        ),
    )
    .unwrap();
    let fio_json = dir.path().join("fio.json");
    let out = Command::new(&fio_bin)
        .arg("--output-format=json+")
        .arg(format!("--output={}", fio_json.display()))
        .arg(&job)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "fio: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: Value =
        serde_json::from_str(&std::fs::read_to_string(&fio_json).unwrap()).expect("fio's JSON");
    let (_, d) = iolab_run(
        dir.path(),
        &[
            "--target",
            "io.dat",
            "--size",
            "8m",
            "--rw",
            "randrw",
            "--read-pct",
            "70",
            "--bs",
            "4k",
            "--engine",
            "psync",
            "--qd",
            "1",
            "--direct",
            "--duration",
            "1s",
        ],
    );
    let ours: Value = serde_json::from_str(&fio::json_text(&d, true)).unwrap();
    let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
    shape(&theirs, "", &mut a);
    shape(&ours, "", &mut b);
    let mut wrong = Vec::new();
    for (path, t) in &a {
        if DIFFERS.iter().any(|(p, _)| p == path) {
            continue;
        }
        // disk_util lists the devices each tool saw; compare the shape
        // when both saw some.
        if path.starts_with("/disk_util[]") && !b.contains_key("/disk_util[]") {
            continue;
        }
        match b.get(path) {
            Some(u) if u == t => {}
            other => wrong.push(format!("{path}: fio {t}, iolab {other:?}")),
        }
    }
    assert!(
        wrong.is_empty(),
        "iolab's JSON differs from fio's:\n{}",
        wrong.join("\n")
    );
    assert!(ours.get("global options").is_none());
    let j = &ours["jobs"][0];
    assert_figures_are_the_documents(j, &d);
    // The job options fio-plot and other tools read.
    for (k, v) in [
        ("rw", "randrw"),
        ("rwmixread", "70"),
        ("iodepth", "1"),
        ("numjobs", "1"),
        ("bs", "4k"),
    ] {
        assert_eq!(j["job options"][k], v, "job option {k}");
    }
    // json+ bins are named as fio names its buckets: fio's own output
    // and iolab's.
    for (who, v) in [("fio", &theirs), ("iolab", &ours)] {
        let bins = v["jobs"][0]["read"]["clat_ns"]["bins"]
            .as_object()
            .expect("bins");
        assert!(!bins.is_empty());
        let mut n = 0;
        for (k, c) in bins {
            let k: u64 = k.parse().unwrap();
            assert_eq!(fio_bin_name(k), k, "{who} bin {k}");
            n += c.as_u64().unwrap();
        }
        assert_eq!(
            n,
            v["jobs"][0]["read"]["clat_ns"]["N"].as_u64().unwrap(),
            "{who}"
        );
    }
    // Plain json has no bins.
    let plain = fio::json(&d, false);
    assert!(plain["jobs"][0]["read"]["clat_ns"].get("bins").is_none());
}

/// The venv's python with fio-plot installed: `IOLAB_FIO_PLOT_VENV`, else
/// target/tmp/fio-plot-venv, made here when missing (python3 -m venv, pip
/// install fio-plot) in a directory of its own and renamed into place, so
/// tests running at once never see half of one.
fn fio_plot_python() -> Result<PathBuf, String> {
    let venv = std::env::var_os("IOLAB_FIO_PLOT_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("fio-plot-venv"));
    let py = venv.join("bin/python");
    let ready = |py: &Path| {
        Command::new(py)
            .args(["-c", "import fio_plot"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if ready(&py) {
        return Ok(py);
    }
    let tmp = venv.with_extension(format!("new-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&tmp)
        .output()
        .map_err(|e| format!("python3: {e} (apt-get install python3 python3-venv)"))?;
    if !made.status.success() {
        return Err(format!(
            "python3 -m venv failed (apt-get install python3-venv): {}",
            String::from_utf8_lossy(&made.stderr).trim()
        ));
    }
    let pip = Command::new(tmp.join("bin/python"))
        .args(["-m", "pip", "install", "-q", "fio-plot"])
        .output()
        .map_err(|e| e.to_string())?;
    if !pip.status.success() {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(format!(
            "pip install fio-plot failed: {}",
            String::from_utf8_lossy(&pip.stderr).trim()
        ));
    }
    if std::fs::rename(&tmp, &venv).is_err() {
        // Another test process made it first.
        let _ = std::fs::remove_dir_all(&tmp);
    }
    if ready(&py) {
        Ok(py)
    } else {
        Err(format!("{} cannot import fio_plot", py.display()))
    }
}

/// Run fio-plot (`python -m fio_plot ARGS`); its image must exist and be
/// a PNG.
fn fio_plot(py: &Path, args: &[&str], png: &Path) {
    let out = Command::new(py)
        .args(["-m", "fio_plot"])
        .args(args)
        .arg("-o")
        .arg(png)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "fio-plot {args:?}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(png).unwrap_or_else(|e| panic!("no image {}: {e}", png.display()));
    let dec = png::Decoder::new(std::io::Cursor::new(bytes));
    let info = dec.read_info().expect("a PNG").info().clone();
    assert!(
        info.width > 100 && info.height > 100,
        "{}x{}",
        info.width,
        info.height
    );
}

/// What fio-plot's own JSON reader takes from the files in `dir` (rw
/// randread, iodepth 1, numjobs 1): its rows' iops, bw, lat and version.
fn fio_plot_reads(py: &Path, dir: &Path) -> Vec<Value> {
    let script = r#"
import json, sys
from fio_plot.fiolib import defaultsettings, getdata
s = defaultsettings.get_default_settings()
s.update({"input_directory": [sys.argv[1]], "rw": "randread", "iodepth": [1],
          "numjobs": [1], "filter": ["read", "write"], "type": []})
data = getdata.get_json_data(s)
print(json.dumps([{k: r[k] for k in ("iops", "bw", "lat", "iodepth", "numjobs", "fio_version")}
                  for r in data[0]["data"]]))
"#;
    let out = Command::new(py)
        .args(["-c", script])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("fio-plot's rows")
}

#[test]
fn fio_plot_reads_iolabs_json_and_logs() {
    let py = fio_plot_python();
    iolab_testutil::require!(py.is_ok(), py.as_ref().err().cloned().unwrap_or_default());
    let py = py.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (mut v, d) = iolab_run(
        dir.path(),
        &[
            "--target",
            "io.dat",
            "--size",
            "4m",
            "--rw",
            "randread",
            "--bs",
            "4k",
            "--engine",
            "psync",
            "--qd",
            "1",
            "--duration",
            "1s",
            "--interval",
            "250ms",
        ],
    );
    // The JSON as fio-plot finds it: one file per run in a directory.
    let jdir = dir.path().join("json");
    std::fs::create_dir(&jdir).unwrap();
    std::fs::write(jdir.join("randread.json"), fio::json_text(&d, false)).unwrap();
    fio_plot(
        &py,
        &[
            "-i",
            jdir.to_str().unwrap(),
            "-T",
            "iolab",
            "-l",
            "-r",
            "randread",
            "-d",
            "1",
            "-n",
            "1",
        ],
        &dir.path().join("qd.png"),
    );
    fio_plot(
        &py,
        &[
            "-i",
            jdir.to_str().unwrap(),
            "-T",
            "iolab",
            "-H",
            "-r",
            "randread",
            "-d",
            "1",
            "-n",
            "1",
        ],
        &dir.path().join("hist.png"),
    );
    let rows = fio_plot_reads(&py, &jdir);
    assert_eq!(rows.len(), 1, "{rows:?}");
    let s = &d.runs[0].workloads[0].summary.read;
    assert_eq!(rows[0]["iops"].as_f64().unwrap(), s.iops);
    let lat = rows[0]["lat"].as_f64().unwrap();
    assert!(
        (lat - s.lat_us.mean * 1000.0).abs() <= 1e-6 * lat,
        "{lat} vs {}",
        s.lat_us.mean
    );
    assert_eq!(rows[0]["fio_version"], format!("iolab-{}", d.tool_version));

    // The logs of the same run, as a fio job with write_*_log would ask
    // for them (bench-fio's names, which fio-plot's log graphs look for).
    let prefix = "randread-iodepth-1-numjobs-1";
    v["runs"][0]["workloads"][0]["spec"]["origin"] = json!({
        "format": "fio", "section": "randread", "group": 0, "group_reporting": false,
        "options": [["rw", "randread"], ["iodepth", "1"], ["numjobs", "1"], ["bs", "4k"],
                    ["write_bw_log", prefix], ["write_iops_log", prefix],
                    ["write_lat_log", prefix], ["log_avg_msec", "250"]],
    });
    let d = load(&v);
    let ldir = dir.path().join("logs");
    std::fs::create_dir(&ldir).unwrap();
    let logs = fio::logs(&d);
    let names: Vec<&str> = logs.iter().map(|l| l.path.as_str()).collect();
    assert_eq!(
        names,
        [
            "randread-iodepth-1-numjobs-1_lat.1.log",
            "randread-iodepth-1-numjobs-1_slat.1.log",
            "randread-iodepth-1-numjobs-1_clat.1.log",
            "randread-iodepth-1-numjobs-1_bw.1.log",
            "randread-iodepth-1-numjobs-1_iops.1.log",
        ]
    );
    // One line per measured interval: 4 of 250 ms.
    let iops = &logs[4].text;
    let measured = d.runs[0].workloads[0]
        .intervals
        .iter()
        .filter(|i| !i.warmup)
        .count();
    assert_eq!(iops.lines().count(), measured, "{iops}");
    let total: f64 = iops
        .lines()
        .map(|l| l.split(", ").nth(1).unwrap().parse::<f64>().unwrap() * 0.25)
        .sum();
    assert!(
        (total - s.ops as f64).abs() <= s.ops as f64 * 0.05 + 8.0,
        "{total} vs {}",
        s.ops
    );
    for l in &logs {
        std::fs::write(ldir.join(&l.path), &l.text).unwrap();
    }
    // fio-plot draws two kinds of log at a time (with fio's own logs too).
    for (i, kinds) in [["iops", "lat"], ["bw", "clat"]].iter().enumerate() {
        let mut args = vec![
            "-i",
            ldir.to_str().unwrap(),
            "-T",
            "iolab",
            "-g",
            "-r",
            "randread",
        ];
        args.extend(["-d", "1", "-n", "1", "-t", kinds[0], kinds[1]]);
        fio_plot(&py, &args, &dir.path().join(format!("log{i}.png")));
    }
}
