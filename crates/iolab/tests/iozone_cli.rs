//! `iolab iozone`: iozone's command line runs exactly the selected tests
//! of the iozone study and prints iozone's layout. Small files (a few
//! MiB) in a temporary directory, and on ext4 on a loop device of the
//! test's own (root) where /proc/diskstats shows what reached the
//! device; bad options, iozone's rule that reads need the write test, and
//! a file that exists are refused with one line and exit 2.

mod common;
use common::*;
use iolab_testutil::{diskstats, require_root, require_tool, MountedFs};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

/// Run `iolab iozone ARGS --json DIR/doc.json` in DIR; it must succeed.
fn iozone(args: &[&str], dir: &Path) -> (Output, Value) {
    let json = dir.join("doc.json");
    let out = iolab()
        .arg("iozone")
        .args(args)
        .arg("--json")
        .arg(&json)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "iolab iozone {args:?}: {}\n{}",
        stderr(&out),
        stdout(&out)
    );
    let doc = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    std::fs::remove_file(&json).unwrap();
    (out, doc)
}

fn names(doc: &Value) -> Vec<String> {
    doc["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect()
}

/// The table's heading and its rows, split on whitespace as a script
/// reading iozone's output would.
fn table(text: &str) -> (Vec<String>, Vec<Vec<u64>>) {
    let mut lines = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("kB  reclen"));
    let head = lines
        .next()
        .unwrap_or_else(|| panic!("no table heading in:\n{text}"));
    let rows = lines
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().map(|w| w.parse().unwrap()).collect())
        .collect();
    (head.split_whitespace().map(String::from).collect(), rows)
}

const WRITE_READ: [&str; 4] = ["write", "rewrite", "read", "reread"];

/// The issue's check: -i 0 -i 1 runs write, rewrite, read and reread of
/// one new file and nothing else, and prints iozone's columns.
fn check_write_read(out: &Output, doc: &Value, file: &Path, mib: u64) {
    let want: Vec<String> = WRITE_READ
        .iter()
        .map(|t| format!("{t}-{mib}m/64k"))
        .collect();
    assert_eq!(names(doc), want);
    for (r, rw) in doc["runs"]
        .as_array()
        .unwrap()
        .iter()
        .zip(["write", "write", "read", "read"])
    {
        let spec = &r["spec"];
        assert_eq!(spec["random_pct"], 0, "{}", r["name"]);
        assert_eq!(spec["read_pct"], if rw == "read" { 100 } else { 0 });
        assert_eq!(u(r, "summary.total.bytes"), mib << 20, "{}", r["name"]);
        assert_eq!(u(r, "targets.0.size"), mib << 20);
        assert_eq!(r["targets"][0]["path"], file.to_str().unwrap());
    }
    let text = stdout(out);
    let used = text
        .lines()
        .find(|l| l.contains("Command line used: iolab iozone "))
        .unwrap_or_else(|| panic!("no command line in:\n{text}"));
    assert!(used.contains("-i 0 -i 1 -s"), "{used}");
    assert!(text.contains("Output is in kBytes/sec"), "{text}");
    let (head, rows) = table(&text);
    assert_eq!(head, ["kB", "reclen", "write", "rewrite", "read", "reread"]);
    assert_eq!(rows.len(), 1, "{text}");
    assert_eq!(rows[0][..2], [mib * 1024, 64]);
    // Each figure is the run's own, in kB/s (1024 bytes).
    for (i, r) in doc["runs"].as_array().unwrap().iter().enumerate() {
        let kbs = f(r, "summary.total.mbps") * 1e6 / 1024.0;
        let shown = rows[0][2 + i] as f64;
        assert!(
            (shown - kbs).abs() <= 1.0 + kbs * 1e-6,
            "{i}: {shown} vs {kbs}"
        );
    }
    assert!(text.trim_end().ends_with("iozone test complete."), "{text}");
    assert!(!file.exists(), "the test file is left behind");
}

#[test]
fn write_and_read_tests_only_in_a_directory() {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("f");
    let f = file.to_str().unwrap();
    let (out, doc) = iozone(
        &["-i", "0", "-i", "1", "-s", "8m", "-r", "64k", "-f", f],
        d.path(),
    );
    check_write_read(&out, &doc, &file, 8);
}

#[test]
fn write_and_read_tests_only_on_ext4_by_its_device_counters() {
    require_root!();
    require_tool!("mkfs.ext4");
    let fs = MountedFs::new("ext4", 64 << 20).unwrap();
    let d = tempfile::tempdir().unwrap();
    let file = fs.path().join("iozone.tmp");
    let f = file.to_str().unwrap();
    let dev = fs.dev.name();
    let before = diskstats(&dev).unwrap();
    // O_DIRECT: every record reaches the device.
    let (out, doc) = iozone(
        &["-I", "-i", "0", "-i", "1", "-s", "4m", "-r", "64k", "-f", f],
        d.path(),
    );
    let after = diskstats(&dev).unwrap();
    check_write_read(&out, &doc, &file, 4);
    assert_eq!(doc["runs"][0]["effective"]["direct"], true);
    let read = (after.1 - before.1) * 512;
    let written = (after.3 - before.3) * 512;
    // Read and reread: 8 MiB (and a little metadata); a random read test
    // would add 4 MiB more.
    assert!((8 << 20..9 << 20).contains(&read), "read {read} bytes");
    // Write and rewrite: 8 MiB, and the journal's blocks.
    assert!(
        (8 << 20..11 << 20).contains(&written),
        "wrote {written} bytes"
    );
}

#[test]
fn random_tests_and_the_report_tables() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("f");
    let args = [
        "-R", "-i", "0", "-i", "2", "-+n", "-s", "1m", "-r", "64k", "-r", "128k", "-f",
    ];
    let mut a = args.to_vec();
    a.push(f.to_str().unwrap());
    let (out, doc) = iozone(&a, d.path());
    // -+n: no rewrite; no read test.
    assert_eq!(
        names(&doc),
        [
            "write-1m/64k",
            "random-read-1m/64k",
            "random-write-1m/64k",
            "write-1m/128k",
            "random-read-1m/128k",
            "random-write-1m/128k"
        ]
    );
    let text = stdout(&out);
    let (head, rows) = table(&text);
    assert_eq!(head, ["kB", "reclen", "write", "rewrite", "read", "write"]);
    assert_eq!(rows.len(), 2);
    // The retest's column shows 0, as iozone's does.
    assert!(rows
        .iter()
        .all(|r| r[3] == 0 && r[2] > 0 && r[4] > 0 && r[5] > 0));
    for section in [
        "\"Writer report\"",
        "\"Re-writer report\"",
        "\"Random read report\"",
        "\"Random write report\"",
    ] {
        assert!(text.contains(section), "{section} missing:\n{text}");
    }
    assert!(!text.contains("Reader report"), "{text}");
    assert!(
        text.contains("        \"64\"  \"128\"\n\"1024\"  "),
        "{text}"
    );
}

#[test]
fn throughput_mode_runs_a_file_per_process() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    let (out, doc) = iozone(
        &[
            "-t",
            "2",
            "-i",
            "0",
            "-s",
            "1m",
            "-r",
            "64k",
            "-F",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
        ],
        d.path(),
    );
    assert_eq!(names(&doc), ["write-1m/64k", "rewrite-1m/64k"]);
    for r in doc["runs"].as_array().unwrap() {
        let ws = r["workloads"].as_array().unwrap();
        assert_eq!(ws.len(), 2);
        assert_eq!(ws[0]["targets"][0]["path"], a.to_str().unwrap());
        assert_eq!(ws[1]["targets"][0]["path"], b.to_str().unwrap());
        assert_eq!(u(r, "summary.total.bytes"), 2 << 20);
    }
    let text = stdout(&out);
    assert!(
        text.contains("Children see throughput for  2 initial writers"),
        "{text}"
    );
    assert!(
        text.contains("Children see throughput for  2 rewriters"),
        "{text}"
    );
    assert!(
        text.contains("Min xfer \t\t\t\t\t=    1024.00 kB"),
        "{text}"
    );
    assert!(!a.exists() && !b.exists());
}

#[test]
fn w_keeps_the_last_file() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("kept");
    let (_, doc) = iozone(
        &[
            "-w",
            "-i",
            "0",
            "-s",
            "256k",
            "-r",
            "64k",
            "-f",
            f.to_str().unwrap(),
        ],
        d.path(),
    );
    assert_eq!(names(&doc).len(), 2);
    assert_eq!(std::fs::metadata(&f).unwrap().len(), 256 << 10);
}

fn refused(args: &[&str], dir: &Path, needle: &str) {
    let out = iolab()
        .arg("iozone")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert_bad_input(&out, needle);
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
}

#[test]
fn reads_need_the_write_test_as_iozone_says() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("f");
    refused(
        &["-i", "1", "-s", "1m", "-f", f.to_str().unwrap()],
        d.path(),
        "-i 1 (read/re-read) needs -i 0",
    );
    refused(
        &["-i", "2", "-s", "1m", "-f", f.to_str().unwrap()],
        d.path(),
        "needs -i 0",
    );
    assert!(!f.exists());
}

#[test]
fn an_existing_file_is_never_written() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("theirs");
    std::fs::write(&f, b"someone's data").unwrap();
    refused(
        &["-i", "0", "-s", "1m", "-f", f.to_str().unwrap()],
        d.path(),
        "never writes over",
    );
    assert_eq!(std::fs::read(&f).unwrap(), b"someone's data");
}

#[test]
fn bad_options_are_one_line_and_exit_2() {
    let d = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 8] = [
        (&["-i", "5"], "-i 5 (stride read)"),
        (&["-B"], "-B (mmap files)"),
        (&["-b", "x.xls"], "out of scope"),
        (&["-s", "12q"], "-s 12q"),
        (&["-t", "2", "-a"], "cannot be mixed"),
        (&["-t", "3", "-F", "a", "b"], "one file per process"),
        (&["-+z"], "-+z"),
        (&["--bogus"], "--bogus"),
    ];
    for (args, needle) in cases {
        refused(args, d.path(), needle);
    }
    // Nothing was created in the working directory.
    let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn h_prints_the_options() {
    let out = iolab().args(["iozone", "-h"]).output().unwrap();
    assert!(out.status.success());
    let text = stdout(&out);
    for opt in ["-a ", "-i N", "-t N", "-F F1", "-+n", "--json FILE"] {
        assert!(text.contains(opt), "{opt} missing:\n{text}");
    }
}
