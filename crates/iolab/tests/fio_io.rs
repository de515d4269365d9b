//! End-to-end runs of the fio engines and stream shapes added for fio's
//! examples, on files the tests create: a backwards stream (a negative
//! `hole`, fio's `rw=read:-8k`) checked by where its writes landed.

mod common;
use common::*;

/// Which 4 KiB blocks of the file at `path` hold data.
fn written_blocks(path: &std::path::Path) -> Vec<usize> {
    let data = std::fs::read(path).unwrap();
    (0..data.len() / 4096)
        .filter(|&i| data[i * 4096..(i + 1) * 4096].iter().any(|&b| b != 0))
        .collect()
}

#[test]
fn a_negative_hole_writes_backwards_from_the_end_as_fio_does() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("back");
    std::fs::File::create(&f)
        .unwrap()
        .set_len(64 << 10)
        .unwrap();
    let fs = f.to_str().unwrap();
    let (out, doc) = run_json(
        &[
            "--target",
            fs,
            "--destroy-data-on",
            fs,
            "--rw",
            "write",
            "--bs",
            "4k",
            "--hole=-8k",
            "--ops",
            "5",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(u(&doc, "runs.0.summary.write.ops"), 5);
    // 0, then the end less 8k (block 14) going down: 14, 13, 12, 11.
    assert_eq!(written_blocks(&f), vec![0, 11, 12, 13, 14]);
}

fn blocks_and_size(path: &std::path::Path) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).unwrap();
    (m.blocks() * 512, m.size())
}

fn run_engine(engine: &str, target: &std::path::Path, extra: &[&str]) -> serde_json::Value {
    let d = target.parent().unwrap();
    let mut args = vec![
        "--target",
        target.to_str().unwrap(),
        "--size",
        "1m",
        "--bs",
        "4k",
        "--engine",
        engine,
    ];
    args.extend_from_slice(extra);
    let (out, doc) = run_json(&args, d);
    assert!(out.status.success(), "{engine}: {}", stderr(&out));
    assert_eq!(u(&doc, "runs.0.errors_total"), 0, "{engine}");
    doc
}

#[test]
fn falloc_allocates_on_writes_and_punches_on_trims_as_fio_does() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("falloc");
    // iolab creates the file sparse (no prefill: the engine moves no data).
    run_engine("falloc", &f, &["--rw", "write", "--ops", "64"]);
    let (alloc, size) = blocks_and_size(&f);
    assert_eq!(size, 1 << 20);
    assert!(
        (64 * 4096..=80 * 4096).contains(&alloc),
        "64 writes of 4k allocate 256 KiB, got {alloc}"
    );
    // Trims punch the blocks again, keeping the size.
    let fs = f.to_str().unwrap();
    run_engine(
        "falloc",
        &f,
        &["--rw", "trim", "--ops", "64", "--destroy-data-on", fs],
    );
    let (after, size) = blocks_and_size(&f);
    assert_eq!(size, 1 << 20);
    assert!(after < alloc / 4, "punched: {after} of {alloc}");
}

#[test]
fn ftruncate_sets_the_size_to_each_writes_offset() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("trunc");
    let doc = run_engine("ftruncate", &f, &["--rw", "write", "--ops", "10"]);
    assert_eq!(u(&doc, "runs.0.summary.write.ops"), 10);
    // The last write was at 9 x 4k: the file ends there, with no data.
    assert_eq!(blocks_and_size(&f), (0, 9 * 4096));
}

#[test]
fn page_fault_copies_to_memory_and_leaves_the_file_alone() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("pf");
    let doc = run_engine("page_fault", &f, &["--rw", "randrw", "--ops", "2000"]);
    assert_eq!(u(&doc, "runs.0.summary.total.ops"), 2000);
    assert!(u(&doc, "runs.0.summary.read.ops") > 500);
    assert!(u(&doc, "runs.0.summary.write.ops") > 500);
    assert_eq!(blocks_and_size(&f), (0, 1 << 20));
}

#[test]
fn priorities_run_on_io_uring_and_cmdprio_is_refused_on_psync() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("prio");
    run_engine(
        "psync",
        &f,
        &["--rw", "randread", "--ops", "200", "--prio-class", "idle"],
    );
    let doc = run_engine(
        "io_uring",
        &f,
        &[
            "--rw",
            "randread",
            "--ops",
            "200",
            "--qd",
            "4",
            "--prio-class",
            "be",
            "--prio",
            "6",
            "--cmdprio-pct",
            "20",
            "--cmdprio-class",
            "idle",
        ],
    );
    let spec = ptr(&doc, "runs.0.spec");
    assert_eq!(spec["ioprio"], (2 << 13) | 6);
    assert_eq!(spec["cmdprio"]["read"][0]["prios"][0]["ioprio"], 3 << 13);
    let out = iolab()
        .current_dir(d.path())
        .args(["run", "--target", f.to_str().unwrap(), "--engine", "psync"])
        .args(["--rw", "randread", "--ops", "10", "--cmdprio-pct", "20"])
        .output()
        .unwrap();
    assert_bad_input(&out, "only --engine io_uring");
}
