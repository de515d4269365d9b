//! The block workload's durability and cache keys: `fdatasync_every` and
//! `end_fsync` are issued and counted (and reach a loop device as
//! flushes), `invalidate` drops a target's cached pages before the first
//! I/O without writing, and `unlink` removes the files iolab created, and
//! only those.

mod common;
use common::*;
use std::path::Path;

fn fsyncs(doc: &serde_json::Value) -> u64 {
    u(doc, "runs.0.workloads.0.summary.fsyncs")
}

#[test]
fn fdatasync_every_and_end_fsync_are_counted() {
    let d = tempfile::tempdir().unwrap();
    let base = [
        "--target", "w.dat", "--size", "4m", "--engine", "psync", "--rw", "write",
    ];
    let (out, doc) = run_json(
        &[&base[..], &["--ops", "400", "--fdatasync-every", "4"]].concat(),
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(u(&doc, "runs.0.workloads.0.summary.total.ops"), 400);
    assert_eq!(fsyncs(&doc), 100);
    let (out, doc) = run_json(
        &[&base[..], &["--ops", "10", "--end-fsync=true"]].concat(),
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fsyncs(&doc), 1, "one written target, one fsync at the end");
    // Reads only: nothing written, nothing to sync at the end.
    let (out, doc) = run_json(
        &[
            "--target",
            "w.dat",
            "--engine",
            "psync",
            "--ops",
            "10",
            "--end-fsync=true",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fsyncs(&doc), 0);
}

/// Flush requests completed on `name` (/proc/diskstats field 16, after
/// major, minor and name).
fn flushes(name: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/diskstats").ok()?;
    let line = text
        .lines()
        .find(|l| l.split_whitespace().nth(2) == Some(name))?;
    line.split_whitespace().nth(18)?.parse().ok()
}

#[test]
fn fdatasync_on_a_loop_device_reaches_it_as_flushes() {
    iolab_testutil::require_root!();
    let dev = match iolab_testutil::LoopDevice::new(16 << 20, true) {
        Ok(l) => l,
        Err(e) => {
            return iolab_testutil::skip_or_fail(
                "fdatasync_on_a_loop_device_reaches_it_as_flushes",
                &e,
            )
        }
    };
    let name = dev.name();
    let Some(before) = flushes(&name) else {
        return iolab_testutil::skip_or_fail(
            "fdatasync_on_a_loop_device_reaches_it_as_flushes",
            "no flush counts in /proc/diskstats",
        );
    };
    let d = tempfile::tempdir().unwrap();
    let (out, doc) = run_json(
        &[
            "--target",
            dev.path_str(),
            "--destroy-data-on",
            dev.path_str(),
            "--engine",
            "psync",
            "--rw",
            "write",
            "--ops",
            "64",
            "--fdatasync-every",
            "8",
            "--end-fsync=true",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // 8 after every 8 writes; the end's fsync finds nothing left to sync.
    assert_eq!(fsyncs(&doc), 8);
    let after = flushes(&name).unwrap();
    assert!(after >= before + 8, "flushes {before} -> {after}");
}

/// Bytes of `p` in the page cache (util-linux fincore).
fn resident(p: &Path) -> u64 {
    let out = std::process::Command::new("fincore")
        .args(["--bytes", "--noheadings", "--output", "RES"])
        .arg(p)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

#[test]
fn invalidate_drops_the_targets_cached_pages() {
    iolab_testutil::require_tool!("fincore");
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("cached.dat");
    let content: Vec<u8> = (0..(8u32 << 20)).map(|i| (i % 251) as u8).collect();
    std::fs::write(&p, &content).unwrap();
    let path = p.to_str().unwrap();
    // Reads with O_DIRECT add nothing to the cache; only invalidate can
    // take from it.
    for (inv, expect_cached) in [("--invalidate=false", true), ("--invalidate=true", false)] {
        std::fs::File::open(&p).unwrap().sync_all().unwrap();
        let _ = std::fs::read(&p).unwrap();
        let before = resident(&p);
        if before < 4 << 20 {
            return iolab_testutil::skip_or_fail(
                "invalidate_drops_the_targets_cached_pages",
                "the page cache did not keep the file (memory pressure?)",
            );
        }
        let (out, _) = run_json(
            &[
                "--target",
                path,
                "--rw",
                "randread",
                "--direct=true",
                "--engine",
                "psync",
                "--ops",
                "50",
                inv,
            ],
            d.path(),
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let after = resident(&p);
        if expect_cached {
            assert!(after >= before / 2, "invalidate=false: {before} -> {after}");
        } else {
            assert!(after < before / 8, "invalidate=true: {before} -> {after}");
        }
    }
    assert_eq!(std::fs::read(&p).unwrap(), content, "the target changed");
}

#[test]
fn unlink_removes_only_what_iolab_created() {
    let d = tempfile::tempdir().unwrap();
    let (out, doc) = run_json(
        &[
            "--target",
            "mine.dat",
            "--size",
            "1m",
            "--rw",
            "write",
            "--engine",
            "psync",
            "--ops",
            "16",
            "--unlink=true",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        doc["runs"][0]["workloads"][0]["targets"][0]["created"],
        true
    );
    assert!(
        !d.path().join("mine.dat").exists(),
        "iolab's own file was kept"
    );
    let p = d.path().join("theirs.dat");
    std::fs::write(&p, vec![9u8; 1 << 20]).unwrap();
    let (out, doc) = run_json(
        &[
            "--target",
            "theirs.dat",
            "--rw",
            "read",
            "--engine",
            "psync",
            "--ops",
            "16",
            "--unlink=true",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(p.exists(), "a file iolab did not create was removed");
    let notes = doc["runs"][0]["workloads"][0]["notes"].to_string();
    assert!(
        notes.contains("kept") && notes.contains("theirs.dat"),
        "{notes}"
    );
}
