//! `iolab study NAME`: every study on a file and on zram with tiny
//! durations. Each produces its table with the expected rows and columns
//! and sane values; bad names and overrides are one line and exit 2. The
//! zram and mounted cases need root: they skip with a printed reason
//! elsewhere and fail under CI.

mod common;
use common::*;
use iolab_testutil::{require_tool, require_zram, Zram};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// Run `iolab study NAME ARGS --json ... -q` in DIR; it must succeed.
fn study(name: &str, args: &[&str], dir: &Path) -> Value {
    let mut a = vec![name];
    a.extend_from_slice(args);
    let (out, doc) = cmd_json("study", &a, dir);
    assert!(
        out.status.success(),
        "study {name} failed: {}\n{}",
        stderr(&out),
        stdout(&out)
    );
    assert_eq!(doc["study"]["name"], name);
    assert!(doc["complete"].as_bool().unwrap(), "{name}: incomplete");
    // The table and conclusions are printed at the end.
    let text = stdout(&out);
    let title = doc["study"]["tables"][0]["title"].as_str().unwrap();
    assert!(text.contains(title), "{name}: no table printed:\n{text}");
    doc
}

/// The study's first table, checked to have exactly these columns.
fn table<'a>(doc: &'a Value, columns: &[&str]) -> &'a Vec<Value> {
    let t = &doc["study"]["tables"][0];
    let cols: Vec<&str> = t["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(cols, columns);
    t["rows"].as_array().unwrap()
}

fn col(row: &Value, i: usize) -> f64 {
    row[i]
        .as_f64()
        .unwrap_or_else(|| panic!("cell {i} of {row} is not a number"))
}

fn first_col(rows: &[Value]) -> Vec<String> {
    rows.iter()
        .map(|r| match &r[0] {
            Value::String(s) => s.clone(),
            v => v.to_string(),
        })
        .collect()
}

const BS_COLUMNS: [&str; 5] = [
    "block size",
    "read MB/s",
    "read gain %",
    "write MB/s",
    "write gain %",
];

#[test]
fn bs_ladder_on_a_file() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("f");
    let doc = study(
        "bs-ladder",
        &[
            "--target",
            f.to_str().unwrap(),
            "--size",
            "32m",
            "--sizes",
            "16k,64k,256k",
            "--duration",
            "120ms",
        ],
        d.path(),
    );
    let rows = table(&doc, &BS_COLUMNS);
    assert_eq!(first_col(rows), ["16k", "64k", "256k"]);
    for r in rows {
        assert!(col(r, 1) > 1.0 && col(r, 3) > 1.0, "{r}");
    }
    assert_eq!(doc["runs"].as_array().unwrap().len(), 6);
    assert_eq!(doc["study"]["settings"]["sizes"], "16k,64k,256k");
    assert_eq!(
        doc["study"]["charts"][0]["series"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // Each direction either flattens or is still rising: said either way.
    let c = doc["study"]["conclusions"].as_array().unwrap();
    assert!(c.len() >= 2, "{c:?}");
}

#[test]
fn bs_ladder_on_zram_rises_from_16k_to_256k() {
    require_zram!();
    let z = Zram::new(128 << 20).unwrap();
    let d = tempfile::tempdir().unwrap();
    // Reads only: zram's writes of random data are bound by compression,
    // whatever the block size, so their curve is flat from 16k.
    let doc = study(
        "bs-ladder",
        &[
            "--target",
            z.path_str(),
            "--rw",
            "read",
            "--sizes",
            "16k,32k,64k,128k,256k",
            "--duration",
            "120ms",
        ],
        d.path(),
    );
    let rows = table(&doc, &BS_COLUMNS);
    assert_eq!(first_col(rows), ["16k", "32k", "64k", "128k", "256k"]);
    let (first, last) = (&rows[0], &rows[4]);
    assert!(col(last, 1) > col(first, 1), "read: {first} vs {last}");
    assert!(rows.iter().all(|r| r[3].is_null()), "{rows:?}");
    assert_eq!(doc["runs"][0]["effective"]["direct"], true);
    assert_eq!(doc["runs"].as_array().unwrap().len(), 5);
}

const QD_COLUMNS: [&str; 6] = [
    "QD",
    "IOPS",
    "MB/s",
    "mean latency us",
    "p99 latency us",
    "p99 within bound",
];

/// QD 1, 8 and 32: IOPS at QD 8 above QD 1, the knee among them.
fn check_qd_ladder(doc: &Value) {
    let rows = table(doc, &QD_COLUMNS);
    assert_eq!(first_col(rows), ["1", "8", "32"]);
    assert!(col(&rows[1], 1) > col(&rows[0], 1), "{rows:?}");
    for r in rows {
        assert!(col(r, 2) > 0.0 && col(r, 3) > 0.0 && col(r, 4) > 0.0, "{r}");
    }
    let fig = &doc["study"]["figures"];
    let knee = fig["knee_qd"].as_f64().expect("a knee");
    assert!([1.0, 8.0, 32.0].contains(&knee));
    assert!(fig["knee_p99_us"].as_f64().unwrap() <= fig["p99_bound_us"].as_f64().unwrap());
    assert_eq!(rows.iter().filter(|r| r[5] == "yes: knee").count(), 1);
}

#[test]
fn qd_ladder_on_a_file() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("f");
    // O_DIRECT, so the reads go to the disk under the file, which serves
    // several at once (buffered reads of cached pages complete inline and
    // depend on the CPU alone).
    let doc = study(
        "qd-ladder",
        &[
            "--direct",
            "--target",
            f.to_str().unwrap(),
            "--size",
            "32m",
            "--qd",
            "1,8,32",
            "--duration",
            "150ms",
            "--warmup",
            "0s",
        ],
        d.path(),
    );
    check_qd_ladder(&doc);
}

#[test]
fn qd_ladder_on_zram_with_an_absolute_bound() {
    require_zram!();
    let z = Zram::new(64 << 20).unwrap();
    let d = tempfile::tempdir().unwrap();
    let doc = study(
        "qd-ladder",
        &[
            "--target",
            z.path_str(),
            "--qd",
            "1,8,32",
            "--bs",
            "8k",
            "--p99-bound",
            "1s",
            "--duration",
            "150ms",
            "--warmup",
            "0s",
        ],
        d.path(),
    );
    check_qd_ladder(&doc);
    assert_eq!(doc["study"]["figures"]["p99_bound_us"], 1e6);
    assert_eq!(doc["study"]["settings"]["p99_bound"], "1000000 us");
    assert_eq!(doc["runs"][0]["spec"]["bs"][0]["bytes"], 8192);
}

const CORNER_NAMES: [&str; 12] = [
    "seq-read-cached",
    "seq-read",
    "rand-read-cached",
    "rand-read",
    "seq-write-cached",
    "seq-write",
    "rand-write-cached",
    "rand-write",
    "seq-write-dsync",
    "rand-write-dsync",
    "oltp-75",
    "oltp-25",
];

fn check_corners(doc: &Value) -> Vec<f64> {
    let rows = table(
        doc,
        &[
            "workload",
            "what",
            "IOPS",
            "MB/s",
            "mean latency us",
            "p99 latency us",
        ],
    );
    assert_eq!(first_col(rows), CORNER_NAMES);
    let iops: Vec<f64> = rows.iter().map(|r| col(r, 2)).collect();
    assert!(iops.iter().all(|&x| x > 10.0), "{iops:?}");
    let chart = &doc["study"]["charts"][0];
    assert_eq!(chart["kind"], "bar");
    assert_eq!(chart["x"].as_array().unwrap().len(), 12);
    // The hit area is what the cached runs touched: their offsets stay in it.
    let runs = doc["runs"].as_array().unwrap();
    let hit = u(&runs[0], "spec.hit_area");
    assert!(hit > 0);
    for r in runs {
        let name = r["name"].as_str().unwrap();
        let (rh, wh) = (u(r, "spec.read_hit_pct"), u(r, "spec.write_hit_pct"));
        match name {
            "seq-read-cached" | "rand-read-cached" => assert_eq!((rh, wh), (100, 0)),
            "seq-write-cached" | "rand-write-cached" => assert_eq!((rh, wh), (0, 100)),
            "oltp-75" | "oltp-25" => assert_eq!((rh, wh), (0, 5)),
            _ => assert_eq!((rh, wh), (0, 0)),
        }
        assert_eq!(
            r["spec"]["sync"] == "dsync",
            name.ends_with("-dsync"),
            "{name}"
        );
    }
    let rp = |n: &str| {
        runs.iter()
            .find(|r| r["name"] == n)
            .map(|r| u(r, "spec.read_pct"))
            .unwrap()
    };
    assert_eq!(
        (rp("oltp-75"), rp("oltp-25"), rp("seq-read")),
        (75, 25, 100)
    );
    iops
}

#[test]
fn corners_on_a_file() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("f");
    let doc = study(
        "corners",
        &[
            "--target",
            f.to_str().unwrap(),
            "--size",
            "32m",
            "--qd",
            "4",
            "--duration",
            "100ms",
            "--warmup",
            "0s",
        ],
        d.path(),
    );
    let iops = check_corners(&doc);
    // 32 MiB / 8: a 4 MiB hit area.
    assert_eq!(doc["study"]["settings"]["hit_area"], "4m");
    // O_DSYNC writes to a file on a disk wait for it; plain buffered writes
    // do not (on tmpfs O_DSYNC costs nothing).
    let fs = std::process::Command::new("stat")
        .args(["-f", "-c", "%T"])
        .arg(d.path())
        .output()
        .unwrap();
    if String::from_utf8_lossy(&fs.stdout).trim() != "tmpfs" {
        assert!(iops[9] < iops[7], "dsync {} vs plain {}", iops[9], iops[7]);
    }
}

#[test]
fn corners_on_zram() {
    require_zram!();
    let z = Zram::new(64 << 20).unwrap();
    let d = tempfile::tempdir().unwrap();
    let doc = study(
        "corners",
        &[
            "--target",
            z.path_str(),
            "--destroy-data-on",
            z.path_str(),
            "--hit-area",
            "2m",
            "--qd",
            "4",
            "--duration",
            "100ms",
            "--warmup",
            "0s",
        ],
        d.path(),
    );
    check_corners(&doc);
    assert_eq!(u(&doc["runs"][0], "spec.hit_area"), 2 << 20);
}

const STREAM_COLUMNS: [&str; 6] = [
    "streams/targets",
    "streams",
    "targets",
    "MB/s",
    "per target MB/s",
    "balance %",
];

#[test]
fn streams_over_files_label_n_over_m_with_per_target_figures() {
    let d = tempfile::tempdir().unwrap();
    let t: Vec<String> = (0..3)
        .map(|i| {
            d.path()
                .join(format!("lun{i}"))
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let doc = study(
        "streams",
        &[
            "--target",
            &t[0],
            "--target",
            &t[1],
            "--target",
            &t[2],
            "--size",
            "16m",
            "--streams",
            "2,4",
            "--over",
            "1,3",
            "--bs",
            "256k",
            "--duration",
            "120ms",
            "--warmup",
            "0s",
        ],
        d.path(),
    );
    let rows = table(&doc, &STREAM_COLUMNS);
    assert_eq!(first_col(rows), ["2/1", "4/1", "4/3"]);
    for r in rows {
        assert!(col(r, 3) > 1.0, "{r}");
        let per = r[4].as_str().unwrap();
        assert_eq!(per.split(" / ").count() as f64, col(r, 2), "{r}");
        let b = col(r, 5);
        assert!(b > 0.0 && b <= 100.0, "{r}");
    }
    let names: Vec<&str> = doc["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["streams-2/1", "streams-4/1", "streams-4/3"]);
    // The per-target figures are the run's own bytes, split by target.
    for run in doc["runs"].as_array().unwrap() {
        let targets = run["targets"].as_array().unwrap();
        let sum: u64 = targets.iter().map(|t| u(t, "measured.bytes")).sum();
        assert_eq!(sum, u(run, "summary.total.bytes"));
        assert!(targets.iter().all(|t| u(t, "measured.bytes") > 0));
    }
}

#[test]
fn streams_on_zram() {
    require_zram!();
    let z = Zram::new(64 << 20).unwrap();
    let d = tempfile::tempdir().unwrap();
    let doc = study(
        "streams",
        &[
            "--target",
            z.path_str(),
            "--streams",
            "1,2",
            "--duration",
            "120ms",
            "--warmup",
            "0s",
        ],
        d.path(),
    );
    let rows = table(&doc, &STREAM_COLUMNS);
    assert_eq!(first_col(rows), ["1/1", "2/1"]);
    assert!(rows.iter().all(|r| col(r, 3) > 1.0));
    assert_eq!(doc["runs"][0]["targets"][0]["kind"], "block_device");
}

const IOZONE_COLUMNS: [&str; 8] = [
    "KB",
    "reclen KB",
    "write KB/s",
    "rewrite KB/s",
    "read KB/s",
    "reread KB/s",
    "random read KB/s",
    "random write KB/s",
];

fn check_iozone(doc: &Value, dir: &Path) {
    let rows = table(doc, &IOZONE_COLUMNS);
    let cells: Vec<(f64, f64)> = rows.iter().map(|r| (col(r, 0), col(r, 1))).collect();
    // The 512 KiB file has no room for a 1 MiB record.
    assert_eq!(cells, [(512.0, 64.0), (2048.0, 64.0), (2048.0, 1024.0)]);
    for r in rows {
        for i in 2..8 {
            assert!(col(r, i) > 100.0, "{r}");
        }
    }
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 18);
    let names: Vec<&str> = runs[..6]
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "write-512k/64k",
            "rewrite-512k/64k",
            "read-512k/64k",
            "reread-512k/64k",
            "random-read-512k/64k",
            "random-write-512k/64k"
        ]
    );
    // Each cell starts with the first write of a new file, never prefilled.
    for (i, r) in runs.iter().enumerate() {
        let created = r["targets"][0]["created"].as_bool().unwrap();
        assert_eq!(created, i % 6 == 0, "run {i} {}", r["name"]);
        assert_eq!(u(r, "targets.0.prefilled_bytes"), 0);
        assert_eq!(u(r, "summary.total.bytes"), u(r, "targets.0.size"));
    }
    // Its files are gone afterwards.
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("iolab-iozone"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

const IOZONE_ARGS: [&str; 4] = ["--sizes", "512k,2m", "--records", "64k,1m"];

#[test]
fn iozone_in_a_directory() {
    let d = tempfile::tempdir().unwrap();
    let target = d.path().join("fs");
    std::fs::create_dir(&target).unwrap();
    let mut a = vec!["--target", target.to_str().unwrap()];
    a.extend_from_slice(&IOZONE_ARGS);
    let doc = study("iozone", &a, d.path());
    check_iozone(&doc, &target);
}

/// ext4 on a zram device of its own, mounted on a temporary directory; unmounted on drop.
struct ZramFs {
    dir: tempfile::TempDir,
    _z: Zram,
}

impl ZramFs {
    fn new() -> ZramFs {
        let z = Zram::new(64 << 20).unwrap();
        let mk = std::process::Command::new("mkfs.ext4")
            .args(["-q", "-F", z.path_str()])
            .status()
            .unwrap();
        assert!(mk.success());
        let dir = tempfile::tempdir().unwrap();
        let m = std::process::Command::new("mount")
            .arg(z.path_str())
            .arg(dir.path())
            .status()
            .unwrap();
        assert!(m.success());
        ZramFs { dir, _z: z }
    }
}

impl Drop for ZramFs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.dir.path())
            .status();
    }
}

#[test]
fn iozone_on_ext4_on_zram() {
    require_zram!();
    require_tool!("mkfs.ext4");
    let fs = ZramFs::new();
    let d = tempfile::tempdir().unwrap();
    let mut a = vec!["--target", fs.dir.path().to_str().unwrap()];
    a.extend_from_slice(&IOZONE_ARGS);
    a.push("--direct");
    let doc = study("iozone", &a, d.path());
    check_iozone(&doc, fs.dir.path());
    assert_eq!(doc["runs"][0]["effective"]["direct"], true);
}

#[test]
fn iozone_never_writes_over_a_file_it_did_not_create() {
    let d = tempfile::tempdir().unwrap();
    let theirs = d.path().join("iolab-iozone-1m.tmp");
    std::fs::write(&theirs, b"someone's data").unwrap();
    let o = iolab()
        .args(["study", "iozone", "--target"])
        .arg(d.path())
        .args(["--sizes", "1m"])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_bad_input(&o, "never writes over");
    assert_eq!(std::fs::read(&theirs).unwrap(), b"someone's data");
}

#[test]
fn dry_run_prints_the_plan_without_io() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("f");
    let o = iolab()
        .args(["study", "bs-ladder", "--target"])
        .arg(&f)
        .args(["--size", "1g", "--dry-run"])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    // 8 sizes x read and write, 30 s each by default.
    assert!(text.contains("16 runs"), "{text}");
    assert!(text.contains("estimated 8 min 00 s"), "{text}");
    assert!(!f.exists());
}

#[test]
fn bad_names_and_overrides_are_one_line_and_exit_2() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("f");
    let fs = f.to_str().unwrap();
    let cases: [(&[&str], &str); 8] = [
        (
            &["ladder", "--target", fs],
            "bs-ladder, qd-ladder, corners, streams, iozone",
        ),
        (
            &["bs-ladder", "--target", fs, "--sizes", "16k,big"],
            "--sizes",
        ),
        (
            &["qd-ladder", "--target", fs, "--p99-bound", "soon"],
            "--p99-bound",
        ),
        (&["qd-ladder", "--target", fs, "--qd", "0,8"], "--qd"),
        (
            &["corners", "--target", fs, "--records", "64k"],
            "--records does not apply",
        ),
        (&["streams", "--target", fs, "--over", "2"], "--over 2"),
        (
            &["bs-ladder", "--target", fs, "--duration", "soon"],
            "--duration",
        ),
        (&["--target", fs], "give the study to run"),
    ];
    for (args, needle) in cases {
        let o = iolab()
            .arg("study")
            .args(args)
            .current_dir(d.path())
            .output()
            .unwrap();
        assert_bad_input(&o, needle);
    }
    assert!(!f.exists());
}

#[test]
fn an_interrupted_study_keeps_the_table_of_its_finished_runs() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("f");
    let json = d.path().join("s.json");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args(["study", "bs-ladder", "-q", "--rw", "read", "--size", "16m"])
        .args(["--sizes", "16k,32k,64k,128k,256k", "--duration", "400ms"])
        .arg("--target")
        .arg(&f)
        .arg("--json")
        .arg(&json)
        .current_dir(d.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once the first run is in the document, well before the fifth.
    let t0 = std::time::Instant::now();
    while t0.elapsed() < Duration::from_secs(20) {
        let runs = std::fs::read_to_string(&json)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .map_or(0, |d| d["runs"].as_array().map_or(0, Vec::len));
        if runs >= 1 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["complete"], false);
    let runs = doc["runs"].as_array().unwrap().len();
    let rows = table(&doc, &BS_COLUMNS);
    assert!((1..5).contains(&rows.len()), "{rows:?}");
    assert_eq!(rows.len(), runs);
    assert_eq!(rows[0][0], "16k");
    // What finished is printed too.
    assert!(stdout(&out).contains("Sequential MB/s by block size"));
}
