//! End-to-end runs of the block driver's fio-shaped keys on loop devices
//! of the tests' own: trims (discards) counted by the device as iolab
//! counts them, per-direction block sizes seen in the device's mean
//! request sizes, and `hole` and `offset_increment` checked by where the
//! written data landed. Root only; they skip with a reason elsewhere.

mod common;
use common::*;
use iolab_testutil::{diskstats, require_io_uring, require_root, LoopDevice};
use std::process::Command;

/// (discards completed, sectors discarded) of a device (/proc/diskstats
/// fields 15 and 17, counting from 1 with major, minor and name first).
fn discards(name: &str) -> (u64, u64) {
    let text = std::fs::read_to_string("/proc/diskstats").unwrap();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() > 17 && f[2] == name {
            return (f[14].parse().unwrap(), f[16].parse().unwrap());
        }
    }
    panic!("{name} has no discard fields in /proc/diskstats");
}

fn fresh_loop(size: u64) -> LoopDevice {
    let dev = LoopDevice::new(size, true).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300)); // udev probing
    dev
}

#[test]
fn trims_are_counted_by_the_device_as_iolab_counts_them() {
    require_root!();
    require_io_uring!();
    let dev = fresh_loop(64 << 20);
    let d = tempfile::tempdir().unwrap();
    for (rw, engine) in [("randtrim", "io_uring"), ("trimwrite", "psync")] {
        let before = (discards(&dev.name()), diskstats(&dev.name()).unwrap());
        let (out, doc) = run_json(
            &[
                "--target",
                dev.path_str(),
                "--destroy-data-on",
                dev.path_str(),
                "--rw",
                rw,
                "--bs-trim",
                "8k",
                "--engine",
                engine,
                "--ops",
                "2000",
            ],
            d.path(),
        );
        let after = (discards(&dev.name()), diskstats(&dev.name()).unwrap());
        assert!(out.status.success(), "{rw}: {}", stderr(&out));
        let w = &ptr(&doc, "runs")[0]["workloads"][0];
        let trims = u(w, "summary/trim/ops");
        let trimmed = u(w, "summary/trim/bytes");
        let (ios, sectors) = (after.0 .0 - before.0 .0, after.0 .1 - before.0 .1);
        // One discard at a time (trims are synchronous), so none merge.
        assert_eq!(ios, trims, "{rw}: device saw {ios} discards, iolab {trims}");
        let off = (sectors * 512).abs_diff(trimmed) as f64;
        assert!(
            off <= trimmed as f64 * 0.02,
            "{rw}: {sectors} sectors vs {trimmed} bytes"
        );
        assert!(
            !ptr(w, "latency_histograms/trim/buckets")
                .as_array()
                .unwrap()
                .is_empty(),
            "{rw}: no trim latency histogram"
        );
        if rw == "trimwrite" {
            // Each trimmed block is written back, 8k at a time; the total
            // counts both, its bytes only the data written.
            assert_eq!((trims, u(w, "summary/write/ops")), (1000, 1000));
            let writes = after.1 .2 - before.1 .2;
            let written = (after.1 .3 - before.1 .3) * 512;
            assert!(writes.abs_diff(1000) <= 20, "device saw {writes} writes");
            assert!(written.abs_diff(1000 * 8192) <= 1000 * 8192 / 50);
            assert_eq!(u(w, "summary/total/ops"), 2000);
            assert_eq!(u(w, "summary/total/bytes"), 1000 * 8192);
        } else {
            assert_eq!((trims, trimmed), (2000, 2000 * 8192));
            assert_eq!(u(w, "summary/total/bytes"), 0);
        }
        assert!(
            ptr(w, "intervals")[0]["trim"]["ops"].as_u64().unwrap() > 0,
            "{rw}: no trims in the first interval"
        );
    }
}

#[test]
fn trims_need_destroy_data_on_and_a_device_that_discards() {
    require_root!();
    require_io_uring!();
    let dev = fresh_loop(16 << 20);
    let mk = Command::new("mkfs.ext4")
        .args(["-q", "-F", dev.path_str()])
        .status();
    if mk.is_ok_and(|s| s.success()) {
        let o = iolab()
            .args([
                "run",
                "--target",
                dev.path_str(),
                "--rw",
                "randtrim",
                "--ops",
                "10",
            ])
            .output()
            .unwrap();
        assert_bad_input(&o, &format!("--destroy-data-on {}", dev.path_str()));
    } else {
        println!("SKIP the file-system half: mkfs.ext4 did not run (apt-get install e2fsprogs)");
    }
    let q = format!("/sys/block/{}/queue/discard_max_bytes", dev.name());
    if std::fs::write(&q, "0").is_err() || std::fs::read_to_string(&q).unwrap().trim() != "0" {
        println!("SKIP the no-discard half: {q} cannot be set to 0 here");
        return;
    }
    let before = discards(&dev.name());
    let o = iolab()
        .args([
            "run",
            "--target",
            dev.path_str(),
            "--destroy-data-on",
            dev.path_str(),
            "--rw",
            "trim",
            "--ops",
            "10",
        ])
        .output()
        .unwrap();
    assert_bad_input(&o, "does not support discard");
    assert_eq!(discards(&dev.name()), before);
}

/// The device's (reads, sectors read, writes, sectors written) over one
/// `iolab run ARGS` in `dir`, with its document.
fn run_counted(
    dev: &LoopDevice,
    args: &[&str],
    dir: &std::path::Path,
) -> ((u64, u64, u64, u64), serde_json::Value) {
    let before = diskstats(&dev.name()).unwrap();
    let (out, doc) = run_json(args, dir);
    let after = diskstats(&dev.name()).unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let d = (
        after.0 - before.0,
        after.1 - before.1,
        after.2 - before.2,
        after.3 - before.3,
    );
    (d, doc)
}

#[test]
fn write_block_sizes_show_in_the_devices_mean_request_sizes() {
    require_root!();
    require_io_uring!();
    let dev = fresh_loop(256 << 20);
    let d = tempfile::tempdir().unwrap();
    let p = dev.path_str();
    let common = ["--target", p, "--destroy-data-on", p, "--qd", "4"];
    let args = [
        "--rw",
        "randrw",
        "--bs",
        "4k",
        "--bs-write",
        "16k",
        "--ops",
        "4000",
    ];
    let (c, doc) = run_counted(&dev, &[&common[..], &args].concat(), d.path());
    let w = &ptr(&doc, "runs")[0]["workloads"][0];
    let (r, w_) = (u(w, "summary/read/ops"), u(w, "summary/write/ops"));
    assert_eq!(r + w_, 4000);
    assert_eq!(u(w, "summary/read/bytes"), r * 4096);
    assert_eq!(u(w, "summary/write/bytes"), w_ * 16384);
    // Only iolab writes to the device: its writes' mean size is bs_write.
    // Its reads are not compared by size: udev's and iolab's own probes
    // of the device (signatures, before and after a writer closes it)
    // read it too, a varying amount.
    let write_mean = c.3 as f64 * 512.0 / c.2 as f64;
    assert!(
        c.2.abs_diff(w_) <= w_ / 50,
        "device saw {} writes, iolab {w_}",
        c.2
    );
    assert!(
        (write_mean - 16384.0).abs() <= 16384.0 * 0.02,
        "writes {write_mean}"
    );
    assert!(c.0 >= r, "device saw {} reads, iolab {r}", c.0);
}

/// Which 4 KiB blocks of `path`'s first `len` bytes hold data.
fn written_blocks(path: &std::path::Path, len: usize) -> Vec<bool> {
    let data = std::fs::read(path).unwrap();
    data[..len]
        .chunks(4096)
        .map(|c| c.iter().any(|&b| b != 0))
        .collect()
}

#[test]
fn a_hole_leaves_every_other_block_unwritten() {
    require_root!();
    require_io_uring!();
    let dev = fresh_loop(16 << 20);
    let d = tempfile::tempdir().unwrap();
    let (out, _) = run_json(
        &[
            "--target",
            dev.path_str(),
            "--destroy-data-on",
            dev.path_str(),
            "--rw",
            "write",
            "--bs",
            "4k",
            "--hole",
            "4k",
            "--ops",
            "500",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let blocks = written_blocks(&dev.path, 2048 * 4096);
    for (i, &b) in blocks.iter().enumerate() {
        assert_eq!(b, i % 2 == 0 && i < 1000, "block {i}");
    }
}

#[test]
fn offset_increment_gives_each_worker_its_own_region() {
    require_root!();
    require_io_uring!();
    let dev = fresh_loop(16 << 20);
    let d = tempfile::tempdir().unwrap();
    let (out, _) = run_json(
        &[
            "--target",
            dev.path_str(),
            "--destroy-data-on",
            dev.path_str(),
            "--rw",
            "write",
            "--jobs",
            "3",
            "--offset",
            "1m",
            "--offset-increment",
            "4m",
            "--range",
            "1m",
            "--io-size",
            "3m",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let blocks = written_blocks(&dev.path, 16 << 20);
    for (i, &b) in blocks.iter().enumerate() {
        let mib = i / 256;
        assert_eq!(b, matches!(mib, 1 | 5 | 9), "block {i} (MiB {mib})");
    }
    // A fourth worker's region (13 MiB + 4 MiB) would pass the end.
    let o = iolab()
        .args([
            "run",
            "--target",
            dev.path_str(),
            "--destroy-data-on",
            dev.path_str(),
            "--rw",
            "write",
            "--jobs",
            "4",
            "--offset",
            "1m",
            "--offset-increment",
            "4m",
            "--range",
            "4m",
            "--ops",
            "10",
        ])
        .output()
        .unwrap();
    assert_bad_input(&o, "worker 3's region");
}

#[test]
fn a_trim_of_a_file_punches_holes_that_read_back_as_zeros() {
    require_io_uring!();
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("t.img");
    let f_ = f.to_str().unwrap();
    let (out, doc) = run_json(
        &[
            "--target", f_, "--size", "8m", "--rw", "trim", "--bs", "64k", "--ops", "16",
        ],
        d.path(),
    );
    if stderr(&out).contains("EOPNOTSUPP") || stderr(&out).contains("not supported") {
        println!("SKIP a_trim_of_a_file_punches_holes: {}", stderr(&out));
        return;
    }
    assert!(out.status.success(), "{}", stderr(&out));
    let w = &ptr(&doc, "runs")[0]["workloads"][0];
    assert_eq!(u(w, "summary/trim/ops"), 16);
    assert_eq!(u(w, "errors_total"), 0);
    // The file was prefilled (iolab created it); the first MiB is now holes.
    let blocks = written_blocks(&f, 8 << 20);
    for (i, &b) in blocks.iter().enumerate() {
        assert_eq!(b, i >= 256, "block {i}");
    }
    assert_eq!(std::fs::metadata(&f).unwrap().len(), 8 << 20);
}
