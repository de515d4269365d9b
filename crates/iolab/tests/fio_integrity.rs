//! fio's integrity options end to end: a data pattern written and then
//! changed behind iolab's back is found with its offset (`data =
//! pattern:`, fio `verify_pattern`); a fill on a small file system of the
//! test's own ends at ENOSPC with its results kept and exit 0 (`fill`,
//! fio `fill_device`); `atomic` is refused with one line on a target
//! without atomic writes and runs where the target has them.

mod common;

use common::*;
use iolab_testutil::{require, require_root, require_tool, LoopDevice, MountedFs, TmpfsMount};
use std::os::unix::fs::FileExt;

#[test]
fn a_byte_changed_under_a_pattern_is_found_at_its_offset() {
    let d = tempfile::tempdir().unwrap();
    let common = ["--bs", "64k", "--data", "pattern:0xaa555aa5", "--verify"];
    let (o, _) = run_json(
        &[
            &[
                "-t",
                "p.dat",
                "--size",
                "1m",
                "--rw",
                "write",
                "--io-size",
                "1m",
            ],
            &common[..],
        ]
        .concat(),
        d.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let p = d.path().join("p.dat");
    let mut b = [0u8; 8];
    std::fs::File::open(&p)
        .unwrap()
        .read_exact_at(&mut b, 4096)
        .unwrap();
    assert_eq!(b, [0xaa, 0x55, 0x5a, 0xa5, 0xaa, 0x55, 0x5a, 0xa5]);
    // Behind iolab's back: one byte at 300000.
    let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
    f.write_all_at(&[0x00], 300_000).unwrap();
    f.sync_all().unwrap();
    let (_, v) = run_json(
        &[
            &["-t", "p.dat", "--rw", "read", "--io-size", "1m"],
            &common[..],
        ]
        .concat(),
        d.path(),
    );
    assert_eq!(u(&v, "runs/0/verify/blocks_checked"), 16);
    let fs = ptr(&v, "runs/0/verify/findings").as_array().unwrap();
    assert_eq!(fs.len(), 1, "{fs:?}");
    assert_eq!(fs[0]["class"], "corrupt");
    assert_eq!(fs[0]["offset"], 262144);
    assert_eq!(
        fs[0]["offset"].as_u64().unwrap() + fs[0]["first_bad_byte"].as_u64().unwrap(),
        300_000
    );
}

#[test]
fn a_fill_ends_at_enospc_with_its_results_kept() {
    require_root!();
    let m = match TmpfsMount::new("8m") {
        Ok(m) => m,
        Err(e) => return iolab_testutil::skip_or_fail(module_path!(), &e),
    };
    // A sparse file larger than the file system: the writes meet ENOSPC.
    let p = m.path().join("big.dat");
    std::fs::File::create(&p)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    let ps = p.to_str().unwrap();
    // The result document goes elsewhere: the file system will be full.
    let out = tempfile::tempdir().unwrap();
    let (o, v) = run_json(
        &[
            "-t",
            ps,
            "--destroy-data-on",
            ps,
            "--rw",
            "write",
            "--bs",
            "64k",
            "--qd",
            "4",
            "--fill",
        ],
        out.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(u(&v, "runs/0/errors_total"), 0);
    assert_eq!(ptr(&v, "runs/0/complete"), true);
    let written = u(&v, "runs/0/summary/write/bytes");
    assert!((7 << 20..=8 << 20).contains(&written), "{written}");
    let notes = ptr(&v, "runs/0/notes").to_string();
    assert!(notes.contains("ENOSPC"), "{notes}");
}

#[test]
fn a_fio_fill_job_creates_the_file_at_the_free_space() {
    require_root!();
    let m = match TmpfsMount::new("8m") {
        Ok(m) => m,
        Err(e) => return iolab_testutil::skip_or_fail(module_path!(), &e),
    };
    let job = m.path().join("fill.fio");
    std::fs::write(
        &job,
        "[w]\nfilename=fill.dat\nrw=write\nbs=64k\nfill_device=1\n",
    )
    .unwrap();
    let (o, v) = run_json(&[job.to_str().unwrap()], m.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(u(&v, "runs/0/errors_total"), 0);
    let size = std::fs::metadata(m.path().join("fill.dat")).unwrap().len();
    assert!((7 << 20..=8 << 20).contains(&size), "{size}");
    assert_eq!(u(&v, "runs/0/summary/write/bytes"), size);
}

#[test]
fn atomic_is_refused_on_a_target_without_atomic_writes() {
    require_root!();
    let dev = match LoopDevice::new(16 << 20, true) {
        Ok(d) => d,
        Err(e) => return iolab_testutil::skip_or_fail(module_path!(), &e),
    };
    let limit = std::fs::read_to_string(format!(
        "/sys/block/{}/queue/atomic_write_unit_max_bytes",
        dev.name()
    ))
    .unwrap_or_default();
    require!(
        limit.trim() == "0" || limit.is_empty(),
        "this kernel's loop devices take atomic writes"
    );
    let before = iolab_testutil::diskstats(&dev.name()).map(|d| d.2);
    let o = iolab()
        .args([
            "run",
            "-t",
            dev.path_str(),
            "--destroy-data-on",
            dev.path_str(),
        ])
        .args([
            "--rw",
            "randwrite",
            "--bs",
            "4k",
            "--direct",
            "--atomic",
            "--duration",
            "1",
        ])
        .output()
        .unwrap();
    let e = stderr(&o);
    assert!(!o.status.success());
    assert_eq!(e.lines().filter(|l| l.contains("atomic")).count(), 1, "{e}");
    assert!(e.contains("cannot take atomic writes of 4096 bytes"), "{e}");
    let after = iolab_testutil::diskstats(&dev.name()).map(|d| d.2);
    assert_eq!(before, after, "atomic was refused after I/O");
}

#[test]
fn atomic_writes_run_on_xfs_where_statx_allows_them() {
    require_root!();
    require_tool!("mkfs.xfs");
    let m = match MountedFs::new("xfs", 512 << 20) {
        Ok(m) => m,
        Err(e) => return iolab_testutil::skip_or_fail(module_path!(), &e),
    };
    let p = m.path().join("a.dat");
    std::fs::File::create(&p)
        .unwrap()
        .set_len(16 << 20)
        .unwrap();
    require!(
        iolab_target::atomic_write_unit(&p).is_some_and(|(lo, hi)| lo <= 4096 && hi >= 4096),
        "xfs on a loop device takes no 4 KiB atomic writes on this kernel"
    );
    let ps = p.to_str().unwrap();
    for engine in ["io_uring", "psync"] {
        let (o, v) = run_json(
            &[
                "-t",
                ps,
                "--destroy-data-on",
                ps,
                "--rw",
                "randwrite",
                "--bs",
                "4k",
                "--direct",
                "--atomic",
                "--duration",
                "1",
                "--engine",
                engine,
            ],
            m.path(),
        );
        assert!(o.status.success(), "{engine}: {}", stderr(&o));
        assert_eq!(u(&v, "runs/0/errors_total"), 0, "{engine}");
        assert!(u(&v, "runs/0/summary/write/ops") > 0, "{engine}");
    }
}
