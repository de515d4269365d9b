//! `iolab doctor` against the fixture trees of iolab-devices (the same
//! golden files as its library tests) and `iolab qdepth`'s arithmetic, run
//! through the real binary; bad input is one line and exit code 2.

mod common;
use common::*;
use std::path::{Path, PathBuf};

fn devices_tests() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../devices/tests")
}

#[test]
fn doctor_on_a_fixture_tree_matches_the_golden_text_and_json() {
    let fixtures = devices_tests().join("fixtures").canonicalize().unwrap();
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("doctor.json");
    let o = iolab()
        .args(["doctor", "/oradata/redo01.log", "--sysroot"])
        .arg(fixtures.join("fc-multipath"))
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let base = fixtures.to_str().unwrap();
    let golden = |ext: &str| {
        std::fs::read_to_string(devices_tests().join(format!("golden/fc-multipath.{ext}"))).unwrap()
    };
    assert_eq!(stdout(&o).replace(base, "<fixtures>"), golden("txt"));
    let got = std::fs::read_to_string(&json)
        .unwrap()
        .replace(base, "<fixtures>");
    assert_eq!(got, golden("json"));
    let v: serde_json::Value = serde_json::from_str(&got).unwrap();
    assert_eq!(v["schema_version"], 1);
}

#[test]
fn doctor_partition_at_34_in_the_json_document() {
    let fixtures = devices_tests().join("fixtures");
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("d.json");
    let o = iolab()
        .arg("doctor")
        .arg("--sysroot")
        .arg(fixtures.join("misaligned"))
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(u(&v, "devices.0.partitions.0.start_sector"), 34);
    assert_eq!(ptr(&v, "findings.0.code"), "partition-misaligned");
    assert_eq!(ptr(&v, "findings.0.device"), "sda1");
}

#[test]
fn doctor_bad_input() {
    let o = iolab()
        .args(["doctor", "--sysroot", "/no/such/root"])
        .output()
        .unwrap();
    assert_bad_input(&o, "--sysroot /no/such/root");
    let fixtures = devices_tests().join("fixtures/nvme");
    let o = iolab()
        .arg("doctor")
        .arg("--sysroot")
        .arg(&fixtures)
        .args(["--json", "/no/such/dir/d.json"])
        .output()
        .unwrap();
    assert_bad_input(&o, "--json /no/such/dir/d.json");
    let o = iolab().args(["doctor", "--frobnicate"]).output().unwrap();
    assert_bad_input(&o, "--frobnicate");
}

#[test]
fn doctor_names_a_missing_target_in_a_note() {
    let fixtures = devices_tests().join("fixtures/nvme");
    let o = iolab()
        .args(["doctor", "/srv/db/x", "relative/path"])
        .arg("--sysroot")
        .arg(&fixtures)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("note: relative/path: not an absolute path"),
        "{}",
        stdout(&o)
    );
}

fn qdepth(args: &[&str]) -> (String, std::process::Output) {
    let o = iolab().arg("qdepth").args(args).output().unwrap();
    (stdout(&o), o)
}

#[test]
fn qdepth_formula_cases() {
    let (out, o) = qdepth(&["--port-queue", "2048", "--luns", "1", "--hosts", "1"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(out.starts_with("per-LUN queue depth: 2048\n"), "{out}");
    assert!(
        out.contains("floor(2048 / (1 hosts x 1 LUNs)) = floor(2048 / 1) = 2048"),
        "{out}"
    );

    let (out, _) = qdepth(&[
        "--port-queue",
        "2048",
        "--luns",
        "4",
        "--hosts",
        "2",
        "--cluster",
    ]);
    assert!(out.starts_with("per-LUN queue depth: 128\n"), "{out}");
    assert!(out.contains("floor(256 / 2) = 128"), "{out}");
    assert!(
        out.contains("echo 128 > /sys/block/sdX/device/queue_depth"),
        "{out}"
    );
    assert!(out.contains("ATTR{device/queue_depth}=\"128\""), "{out}");
    assert!(out.contains("sd_max_throttle=128"), "{out}");

    // 2048 / 15 = 136.5: rounded down, never up.
    let (out, _) = qdepth(&["--luns", "5", "--hosts", "3"]);
    assert!(out.starts_with("per-LUN queue depth: 136\n"), "{out}");
    // 2048 / 21 = 97.5 -> 97, halved 48.5 -> 48.
    let (out, _) = qdepth(&["--luns", "7", "--hosts", "3", "--cluster"]);
    assert!(out.starts_with("per-LUN queue depth: 48\n"), "{out}");
    let (out, _) = qdepth(&["--luns", "64", "--hosts", "64"]);
    assert!(out.contains("not even one command per LUN"), "{out}");
}

#[test]
fn qdepth_bad_input() {
    let (_, o) = qdepth(&["--luns", "0", "--hosts", "2"]);
    assert_bad_input(&o, "--luns");
    let (_, o) = qdepth(&["--luns", "4"]);
    assert_bad_input(&o, "--hosts");
    let (_, o) = qdepth(&["--luns", "four", "--hosts", "2"]);
    assert_bad_input(&o, "four");
}
