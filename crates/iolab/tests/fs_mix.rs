//! Issue 16, "How it is checked", on ext4 and xfs (loop devices of the
//! test's own): a weighted mix lands within 2 percentage points of each
//! weight over `--ops 10000`; the fileset counters (files and directories
//! created and deleted) equal what `find` counts in the tree before and
//! after; per-operation byte counts agree with the device's within the
//! file system's overhead (O_DIRECT transfers, then `sync -f`).

mod common;
mod fs_support;

use common::*;
use fs_support::*;

/// The fileset every test here makes: 64 files of 256 KiB, depth 1,
/// width 4 (16 files per directory).
const SHAPE: [&str; 8] = [
    "--files",
    "64",
    "--file-size",
    "256k",
    "--depth",
    "1",
    "--width",
    "4",
];

fn args<'a>(dir: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["--dir", dir];
    a.extend_from_slice(&SHAPE);
    a.extend_from_slice(rest);
    a
}

fn weighted_mix(kind: &str) {
    let Some(fs) = mount(kind) else { return };
    let out = scratch();
    let dir = fs.path().join("mix");
    let mix = [
        ("read", 60.0),
        ("write", 20.0),
        ("stat", 10.0),
        ("create", 5.0),
        ("delete", 5.0),
    ];
    let text = "read:60,write:20,stat:10,create:5,delete:5";
    let (o, doc) = run_json(
        &args(
            s(&dir),
            &["--mix", text, "--ops", "10000", "--bs", "4k", "--jobs", "2"],
        ),
        out.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{kind}: {}", stderr(&o));
    let all = all_ops(&doc);
    let total: u64 = all.iter().map(|(_, n)| n).sum();
    assert!(
        (10_000..10_100).contains(&total),
        "{kind}: {total} operations: {all:?}"
    );
    for (op, w) in mix {
        let pct = 100.0 * ops(&doc, op) as f64 / total as f64;
        assert!(
            (pct - w).abs() <= 2.0,
            "{kind}: {op} is {pct:.2} % of {total}, weight {w} %: {all:?}"
        );
    }
    for (op, n) in &all {
        assert!(
            *n == 0 || mix.iter().any(|(m, _)| m == op),
            "{kind}: {op} ran {n} times, not in the mix"
        );
    }
}

fn counters_match_find(kind: &str) {
    let Some(fs) = mount(kind) else { return };
    let out = scratch();
    let dir = fs.path().join("meta");
    // First run: makes the fileset (not counted: before the measured time).
    let (o, _) = run_json(
        &args(s(&dir), &["--mix", "stat:100", "--ops", "100"]),
        out.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{kind}: {}", stderr(&o));
    let before = find_counts(&dir);
    assert_eq!(before.0, 64, "{kind}: the fileset's files");
    let mix = "create:30,delete:20,mkdir:25,rmdir:15,stat:10";
    let (o, doc) = run_json(
        &args(s(&dir), &["--mix", mix, "--ops", "3000", "--jobs", "2"]),
        out.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{kind}: {}", stderr(&o));
    let after = find_counts(&dir);
    let c = |k| fileset(&doc, k) as i64;
    let (fc, fd, dc, dd) = (
        c("files_created"),
        c("files_deleted"),
        c("dirs_created"),
        c("dirs_deleted"),
    );
    eprintln!("{kind}: find {before:?} -> {after:?}; files +{fc} -{fd}, dirs +{dc} -{dd}");
    assert!(
        fc > 0 && fd > 0 && dc > 0 && dd > 0,
        "{kind}: every counter moved"
    );
    assert_eq!(after.0 as i64 - before.0 as i64, fc - fd, "{kind}: files");
    assert_eq!(
        after.1 as i64 - before.1 as i64,
        dc - dd,
        "{kind}: directories"
    );
    // The counters count what the operations did: a create that made a
    // file is one `create` that succeeded.
    assert!(fc <= ops(&doc, "create") as i64 && dc <= ops(&doc, "mkdir") as i64);
}

/// Bytes the device moved beyond what the operations moved, as a
/// fraction of the latter; printed for docs/filesystem.md.
fn bytes_match_device(kind: &str) {
    let Some(fs) = mount(kind) else { return };
    let out = scratch();
    let dir = fs.path().join("bytes");
    let (o, _) = run_json(
        &args(s(&dir), &["--mix", "stat:100", "--ops", "10"]),
        out.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{kind}: {}", stderr(&o));
    sync_fs(fs.path());
    for (op, dir_i) in [("write", 1usize), ("read", 0usize)] {
        let mix = format!("{op}:rand:64k:100");
        let before = dev_bytes(&fs);
        let (o, doc) = run_json(
            &args(
                s(&dir),
                &["--mix", &mix, "--direct", "--duration", "1s", "--jobs", "2"],
            ),
            out.path(),
        );
        assert_eq!(o.status.code(), Some(0), "{kind} {op}: {}", stderr(&o));
        sync_fs(fs.path());
        let after = dev_bytes(&fs);
        let dev = [after.0 - before.0, after.1 - before.1][dir_i];
        let other = [after.0 - before.0, after.1 - before.1][1 - dir_i];
        let mine = op_u(&doc, op, "bytes");
        assert!(
            mine >= 64 << 20,
            "{kind} {op}: only {mine} bytes in a second"
        );
        assert_eq!(
            mine,
            ops(&doc, op) * 65536,
            "{kind} {op}: 64 KiB per operation"
        );
        let over = dev as f64 / mine as f64 - 1.0;
        eprintln!(
            "{kind} {op}: operations {mine} bytes, device {dev} bytes ({:+.3} %), other direction {other} bytes",
            100.0 * over
        );
        // The device moved every byte, plus at most the file system's
        // own: metadata (times, journal, log) of a few MiB at most.
        assert!(
            dev >= mine,
            "{kind} {op}: the device moved less than the operations"
        );
        assert!(
            dev - mine <= (4 << 20) + mine / 100,
            "{kind} {op}: {dev} on the device for {mine}"
        );
    }
}

on_both!(a_weighted_mix_lands_within_2_points, super::weighted_mix);
on_both!(
    fileset_counters_equal_what_find_counts,
    super::counters_match_find
);
on_both!(byte_counts_agree_with_the_device, super::bytes_match_device);
