//! End-to-end runs on block devices (loop devices, zram, a loop device over
//! a fault-injecting FUSE file) and small file systems: the device's own
//! counters agree with iolab's, refusals leave devices untouched, and
//! device errors and stalls are reported with offsets and times. These need
//! root; they skip with a printed reason elsewhere and fail under CI.

mod common;
use common::*;
use iolab_testutil::{
    diskstats, require_fuse, require_io_uring, require_root, require_tool, require_zram,
    LoopDevice, MountedFs, TmpfsMount, Zram,
};
use std::process::Command;

fn sha(path: &std::path::Path) -> Vec<u8> {
    // A cheap digest: the full content hashed with the std hasher in chunks.
    use std::hash::{Hash, Hasher};
    let data = std::fs::read(path).unwrap();
    data.chunks(1 << 16)
        .flat_map(|c| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            c.hash(&mut h);
            h.finish().to_le_bytes()
        })
        .collect()
}

#[test]
fn o_direct_counts_match_the_devices_diskstats() {
    require_root!();
    let dev = LoopDevice::new(256 << 20, true).unwrap();
    let d = tempfile::tempdir().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300)); // udev probing
    for (rw, ops) in [("randread", 20_000u64), ("randwrite", 10_000)] {
        let before = diskstats(&dev.name()).unwrap();
        let (out, doc) = run_json(
            &[
                "--target",
                dev.path_str(),
                "--rw",
                rw,
                "--bs",
                "4k",
                "--qd",
                "16",
                "--ops",
                &ops.to_string(),
            ],
            d.path(),
        );
        let after = diskstats(&dev.name()).unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let r = &ptr(&doc, "runs")[0];
        assert_eq!(
            ptr(r, "spec/direct"),
            true,
            "O_DIRECT is the default for block devices"
        );
        let (ios, sectors) = if rw == "randread" {
            (after.0 - before.0, after.1 - before.1)
        } else {
            (after.2 - before.2, after.3 - before.3)
        };
        let mine = u(r, "summary/total/ops");
        let bytes = u(r, "summary/total/bytes");
        assert_eq!(mine, ops);
        let within = |a: u64, b: u64| (a as f64 - b as f64).abs() <= b as f64 * 0.01;
        assert!(
            within(ios, mine),
            "{rw}: device saw {ios} I/Os, iolab {mine}"
        );
        assert!(
            within(sectors * 512, bytes),
            "{rw}: device saw {} bytes, iolab {bytes}",
            sectors * 512
        );
        // The run's own device statistics: the loop device was found under
        // the target and its counts over the run agree with iolab's and
        // with /proc/diskstats read independently around the run.
        let name = dev.name();
        let row = ptr(r, "devices/summary")
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["device"] == name.as_str())
            .unwrap_or_else(|| panic!("{name} not sampled: {}", ptr(r, "devices")));
        let key = if rw == "randread" { "reads" } else { "writes" };
        let seen = u(row, &format!("counts/{key}"));
        assert!(
            within(seen, mine),
            "{rw}: run's device row {seen}, iolab {mine}"
        );
        assert!(
            within(seen, ios),
            "{rw}: run's device row {seen}, diskstats {ios}"
        );
        let rate = f(row, if rw == "randread" { "r_s" } else { "w_s" });
        let iops = f(r, "summary/total/iops");
        assert!(
            (rate - iops).abs() <= iops * 0.1,
            "{rw}: device {rate:.0}/s, iolab {iops:.0}/s"
        );
        assert_eq!(
            ptr(r, "devices/intervals").as_array().unwrap().len(),
            ptr(r, "intervals").as_array().unwrap().len()
        );
    }
}

#[test]
fn a_buffered_reread_of_a_small_file_is_noted_as_served_from_cache() {
    require_root!();
    require_tool!("mkfs.ext4");
    let fs = MountedFs::new("ext4", 64 << 20).unwrap();
    let (out, doc) = run_json(
        &[
            "--target",
            "t.dat",
            "--size",
            "8m",
            "--rw",
            "randread",
            "--bs",
            "4k",
            "--duration",
            "1s",
        ],
        fs.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let r = &ptr(&doc, "runs")[0];
    let notes = ptr(r, "devices/count_notes").as_array().unwrap();
    assert!(
        notes.iter().any(|n| n["code"] == "reads-from-cache"),
        "{notes:?}"
    );
    let advice = ptr(r, "advice").as_array().unwrap();
    assert!(
        advice.iter().any(|a| a["code"] == "working-set-in-ram"),
        "{advice:?}"
    );
    assert!(
        stdout(&out).contains("reads-from-cache"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn zram_runs_and_prefill_writes_the_device_when_asked() {
    require_zram!();
    let z = Zram::new(128 << 20).unwrap();
    let d = tempfile::tempdir().unwrap();
    let (out, doc) = run_json(
        &[
            "--target",
            z.path_str(),
            "--prefill",
            "--destroy-data-on",
            z.path_str(),
            "--rw",
            "randread",
            "--bs",
            "4k",
            "--qd",
            "32",
            "--duration",
            "1s",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let r = &ptr(&doc, "runs")[0];
    assert_eq!(u(r, "targets/0/prefilled_bytes"), 128 << 20);
    assert_eq!(ptr(r, "targets/0/kind"), "block_device");
    assert!(u(r, "summary/read/ops") > 1000);
    let used: u64 = std::fs::read_to_string(z.sys().join("mm_stat"))
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(used >= 120 << 20, "zram holds {used} bytes after prefill");
}

#[test]
fn a_device_with_a_file_system_is_refused_and_untouched() {
    require_root!();
    require_tool!("mkfs.ext4");
    let dev = LoopDevice::new(64 << 20, false).unwrap();
    let mk = Command::new("mkfs.ext4")
        .args(["-q", "-F", dev.path_str()])
        .status()
        .unwrap();
    assert!(mk.success());
    let before = sha(&dev.path);
    let d = tempfile::tempdir().unwrap();
    for rw in ["randwrite", "write", "randrw"] {
        let o = iolab()
            .args([
                "run",
                "--target",
                dev.path_str(),
                "--rw",
                rw,
                "--duration",
                "1s",
            ])
            .current_dir(d.path())
            .output()
            .unwrap();
        assert_bad_input(&o, "ext4");
        assert!(stderr(&o).contains(&format!("--destroy-data-on {}", dev.path_str())));
    }
    let o = iolab()
        .args([
            "run",
            "--target",
            dev.path_str(),
            "--rw",
            "read",
            "--prefill",
            "--duration",
            "1s",
        ])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_bad_input(&o, "ext4");
    assert_eq!(sha(&dev.path), before, "a refused device changed");
    // Reading it is allowed and changes nothing.
    let (out, _) = run_json(
        &[
            "--target",
            dev.path_str(),
            "--rw",
            "randread",
            "--ops",
            "2000",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(sha(&dev.path), before);
    // Named, it is written.
    let (out, _) = run_json(
        &[
            "--target",
            dev.path_str(),
            "--rw",
            "randwrite",
            "--ops",
            "2000",
            "--destroy-data-on",
            dev.path_str(),
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_ne!(sha(&dev.path), before);
}

#[test]
fn a_mounted_device_is_refused() {
    require_root!();
    require_tool!("mkfs.ext4");
    let fs = MountedFs::new("ext4", 64 << 20).unwrap();
    let d = tempfile::tempdir().unwrap();
    let o = iolab()
        .args([
            "run",
            "--target",
            fs.dev.path_str(),
            "--rw",
            "write",
            "--duration",
            "1s",
        ])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_bad_input(&o, "mounted on");
}

#[test]
fn enospc_on_a_small_tmpfs_is_counted_with_its_offset() {
    require_root!();
    let t = TmpfsMount::new("16m").unwrap();
    // A sparse 64 MiB file the test made (iolab refuses to create one
    // larger than the free space, so it is named for writing instead).
    let f = t.path().join("big.dat");
    std::fs::File::create(&f)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    let d = tempfile::tempdir().unwrap();
    let (out, doc) = run_json(
        &[
            "--target",
            f.to_str().unwrap(),
            "--destroy-data-on",
            f.to_str().unwrap(),
            "--no-prefill",
            "--rw",
            "write",
            "--bs",
            "1m",
            "--duration",
            "5s",
        ],
        d.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let r = &ptr(&doc, "runs")[0];
    let e = &ptr(r, "errors")[0];
    assert_eq!(e["errno"], 28);
    assert!(e["error"].as_str().unwrap().starts_with("ENOSPC"));
    let off = u(e, "offset");
    assert!((8 << 20..=16 << 20).contains(&off), "offset {off}");
    assert_eq!(off % (1 << 20), 0);
    let written = u(r, "summary/write/ops");
    assert_eq!(written << 20, off, "writes before the error");
    assert_eq!(r["complete"], false);
    assert!(r["incomplete_reason"]
        .as_str()
        .unwrap()
        .contains("--on-error stop"));
    assert!(stdout(&out).contains("ENOSPC"));
    assert!(stderr(&out).contains("ENOSPC"), "{}", stderr(&out));
}

#[test]
fn eio_mid_run_is_counted_and_the_run_goes_on_with_continue() {
    require_root!();
    require_fuse!();
    let (fs, lo) = faultfs_loop(64 << 20);
    let d = tempfile::tempdir().unwrap();
    let dev = lo.path().to_str().unwrap().to_string();
    let bg = run_json_bg(
        &[
            "--target",
            &dev,
            "--rw",
            "randread",
            "--bs",
            "4k",
            "--qd",
            "4",
            "--duration",
            "3s",
            "--on-error",
            "continue",
        ],
        d.path(),
    );
    std::thread::sleep(std::time::Duration::from_millis(1200));
    fs.control("fail-range 0 16m EIO").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(800));
    fs.control("heal").unwrap();
    let (out, doc) = bg.join().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let r = &ptr(&doc, "runs")[0];
    let errs = ptr(r, "errors").as_array().unwrap();
    assert!(!errs.is_empty());
    for e in errs {
        assert_eq!(e["errno"], 5);
        assert!(u(e, "offset") < 16 << 20, "{e}");
        let t = f(e, "time_s");
        assert!((1.0..2.5).contains(&t), "error at {t} s");
    }
    assert_eq!(u(r, "error_counts/0/count"), u(r, "errors_total"));
    assert!(
        u(r, "summary/read/ops") > 100,
        "reads outside the failed range went on"
    );
    assert!(f(r, "measured_s") > 2.9, "continue runs to the end");
}

#[test]
fn a_vanished_device_stops_the_run_and_keeps_the_results() {
    require_root!();
    require_fuse!();
    let (mut fs, lo) = faultfs_loop(64 << 20);
    let d = tempfile::tempdir().unwrap();
    let dev = lo.path().to_str().unwrap().to_string();
    let bg = run_json_bg(
        &[
            "--target",
            &dev,
            "--rw",
            "randread",
            "--bs",
            "4k",
            "--qd",
            "8",
            "--duration",
            "20s",
        ],
        d.path(),
    );
    std::thread::sleep(std::time::Duration::from_millis(1000));
    fs.vanish().unwrap();
    let (out, doc) = bg.join().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let r = &ptr(&doc, "runs")[0];
    assert!(u(r, "summary/read/ops") > 100);
    let e = &ptr(r, "errors")[0];
    assert_eq!(e["errno"], 5, "{e}");
    assert!(f(r, "measured_s") < 10.0);
    assert_eq!(r["complete"], false);
    drop(lo);
}

#[test]
fn a_hung_path_shows_as_a_stall_with_its_start_and_end() {
    require_root!();
    require_fuse!();
    let (fs, lo) = faultfs_loop(64 << 20);
    let pid = fs.daemon_pid().expect("daemon pid") as i32;
    let d = tempfile::tempdir().unwrap();
    let dev = lo.path().to_str().unwrap().to_string();
    let bg = run_json_bg(
        &[
            "--target",
            &dev,
            "--rw",
            "randread",
            "--bs",
            "4k",
            "--qd",
            "4",
            "--duration",
            "4s",
            "--interval",
            "500ms",
            "--stall-threshold",
            "500ms",
        ],
        d.path(),
    );
    std::thread::sleep(std::time::Duration::from_millis(1000));
    // SAFETY: stopping and continuing our own helper daemon.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    std::thread::sleep(std::time::Duration::from_millis(1600));
    unsafe { libc::kill(pid, libc::SIGCONT) };
    let (out, doc) = bg.join().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let r = &ptr(&doc, "runs")[0];
    let gap = f(r, "stalls/longest_gap_ms");
    assert_eq!(ptr(r, "stalls/exact"), true, "two workers share the gap");
    assert!((1400.0..2200.0).contains(&gap), "longest gap {gap} ms");
    let start = f(r, "stalls/longest_gap_start_s");
    assert!((0.9..1.3).contains(&start), "stall began at {start}");
    let ev = ptr(r, "stalls/events").as_array().unwrap();
    assert_eq!(ev.len(), 1, "{ev:?}");
    let zero = ptr(r, "stalls/zero_intervals").as_array().unwrap();
    assert!(zero.len() >= 2, "zero intervals {zero:?}");
    // The I/O that waited shows the stall in its latency.
    assert!(f(r, "summary/read/lat_us/max") > 1_400_000.0);
    assert!(stdout(&out).contains("stall"));
}

#[test]
fn an_error_stop_skips_the_rest_of_the_job_and_says_so() {
    require_root!();
    require_fuse!();
    let (fs, lo) = faultfs_loop(16 << 20);
    fs.control("fail-reads EIO").unwrap();
    let d = tempfile::tempdir().unwrap();
    let job = d.path().join("j.toml");
    std::fs::write(
        &job,
        format!(
            "[global]\ntarget = '{}'\nops = 100\n[[workload]]\nname = 'a'\nrw = 'randread'\n[[workload]]\nname = 'b'\nrw = 'randread'\n",
            lo.path().display()
        ),
    )
    .unwrap();
    let (out, doc) = run_json(&[job.to_str().unwrap()], d.path());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("skipping the remaining 1 workload"),
        "{}",
        stderr(&out)
    );
    assert_eq!(doc["runs"].as_array().unwrap().len(), 1);
    assert_eq!(doc["complete"], false);
}

/// io_uring_enter calls of one `iolab run`, counted by strace from outside.
fn uring_enters(args: &[&str], dir: &std::path::Path) -> u64 {
    let log = dir.join("strace.txt");
    let out = Command::new("strace")
        .args(["-f", "-c", "-e", "trace=io_uring_enter", "-o"])
        .arg(&log)
        .arg(assert_cmd::cargo::cargo_bin("iolab"))
        .arg("run")
        .args(args)
        .arg("-q")
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&log).unwrap();
    // "% time  seconds  usecs/call  calls  [errors]  syscall"
    let line = text
        .lines()
        .find(|l| l.trim_end().ends_with(" io_uring_enter"))
        .unwrap_or_else(|| panic!("no io_uring_enter in strace's summary:\n{text}"));
    line.split_whitespace().nth(3).unwrap().parse().unwrap()
}

#[test]
fn batch_complete_waits_for_that_many_completions_before_refilling() {
    require_root!();
    require_tool!("strace");
    require_io_uring!();
    let dev = LoopDevice::new(128 << 20, true).unwrap();
    let d = tempfile::tempdir().unwrap();
    let ops = 20_000u64;
    let enters = |bc: &str| {
        let ops = ops.to_string();
        let args = [
            "--target",
            dev.path_str(),
            "--rw",
            "randread",
            "--qd",
            "32",
            "--ops",
            &ops,
            "--batch-complete",
            bc,
        ];
        uring_enters(&args, d.path())
    };
    // Waiting for all 32 in flight: one system call per 32 I/Os, plus a few
    // for the last partial batch and interval boundaries.
    let all = enters("32");
    let bound = ops / 32 + 40;
    assert!(
        all <= bound,
        "--batch-complete 32: {all} io_uring_enter calls for {ops} I/Os, expected at most {bound}"
    );
    // Refilling after every completion takes clearly more calls, so the
    // count above shows the option working, not a device that happens to
    // complete 32 at a time.
    let each = enters("1");
    assert!(
        each * 10 >= all * 12,
        "--batch-complete 1: {each} calls, not clearly more than --batch-complete 32's {all}"
    );
}

#[test]
fn the_null_engine_gets_no_device_notes_or_advice() {
    // The null engine does no I/O: "N MiB read never reached vda" or
    // "reads of never-written space" would be about nothing.
    let dir = tempfile::tempdir().unwrap();
    let (out, doc) = run_json(
        &[
            "--engine",
            "null",
            "--target",
            "nt",
            "--no-prefill",
            "--size",
            "16m",
            "--duration",
            "200ms",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let r = &ptr(&doc, "runs")[0];
    assert_eq!(ptr(r, "advice").as_array().map_or(0, Vec::len), 0, "{r}");
    let notes = r["devices"]["count_notes"].as_array().map_or(0, Vec::len);
    assert_eq!(notes, 0, "{}", stdout(&out));
    assert!(!stdout(&out).contains("advice ["), "{}", stdout(&out));
}
