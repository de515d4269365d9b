//! End-to-end runs of the real binary on regular files: the result
//! document, engine parity, end conditions, rate, warm-up, Ctrl-C, the
//! default job and the refusal to overwrite files iolab did not create.

mod common;
use common::*;

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn randrw_on_a_file_writes_a_full_result_document() {
    let d = tmp();
    let (out, doc) = run_json(
        &[
            "--target",
            "f.dat",
            "--size",
            "32m",
            "--rw",
            "randrw",
            "--bs",
            "4k",
            "--qd",
            "8",
            "--duration",
            "2s",
            "--interval",
            "500ms",
            "--direct",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(u(&doc, "schema_version"), 2);
    for k in ["tool_version", "host/hostname", "host/kernel", "started_at"] {
        assert!(ptr(&doc, k).as_str().is_some_and(|s| !s.is_empty()), "{k}");
    }
    assert!(u(&doc, "host/cpus") >= 1);
    assert!(u(&doc, "host/memory_bytes") > 1 << 20);
    let r = &ptr(&doc, "runs")[0];
    assert_eq!(ptr(r, "spec/read_pct"), 50);
    let (rops, wops) = (u(r, "summary/read/ops"), u(r, "summary/write/ops"));
    assert!(rops > 100 && wops > 100, "{rops} {wops}");
    assert_eq!(u(r, "summary/total/ops"), rops + wops);
    assert_eq!(u(r, "summary/read/bytes"), rops * 4096);
    // A run of one workload: its one workload entry is the whole.
    let w = &ptr(r, "workloads")[0];
    assert_eq!(ptr(w, "spec"), ptr(r, "spec"));
    assert_eq!(u(w, "summary/total/ops"), rops + wops);
    // It started with the run (its first I/O, within half an interval)
    // and ended with it.
    let (start, end) = (f(w, "start_s"), f(w, "end_s"));
    assert!((0.0..0.25).contains(&start), "{start}");
    assert!((end - f(r, "measured_s")).abs() < 0.01, "{end}");
    assert!(ptr(r, "events").as_array().unwrap().is_empty());
    let secs = f(r, "measured_s");
    assert!((1.9..2.6).contains(&secs), "{secs}");
    let iops = f(r, "summary/total/iops");
    assert!((iops - (rops + wops) as f64 / secs).abs() / iops < 1e-6);
    let mbps = f(r, "summary/total/mbps");
    assert!((mbps - iops * 4096.0 / 1e6).abs() / mbps < 1e-6);
    for dir in ["read", "write", "total"] {
        let l = |k: &str| f(r, &format!("summary/{dir}/lat_us/{k}"));
        let seq = [
            l("min"),
            l("p50"),
            l("p90"),
            l("p99"),
            l("p99_9"),
            l("p99_99"),
            l("max"),
        ];
        assert!(seq.windows(2).all(|w| w[0] <= w[1]), "{dir}: {seq:?}");
        assert!(l("min") <= l("mean") && l("mean") <= l("max"));
        assert!(l("min") > 0.0);
    }
    assert!(f(r, "summary/cpu/usec_per_io") > 0.0);
    assert!(f(r, "summary/cpu/user_pct") + f(r, "summary/cpu/sys_pct") > 0.0);
    // Summary and time series come from the same snapshots.
    let ivs = ptr(r, "intervals").as_array().unwrap();
    assert!((4..=6).contains(&ivs.len()), "{} intervals", ivs.len());
    let sum: u64 = ivs.iter().map(|iv| u(iv, "total/ops")).sum();
    assert_eq!(sum, rops + wops);
    assert!(ptr(r, "stalls/longest_gap_ms").as_f64().unwrap() > 0.0);
    assert!(ptr(r, "stalls/zero_intervals")
        .as_array()
        .unwrap()
        .is_empty());
    assert!(ptr(r, "errors").as_array().unwrap().is_empty());
    assert_eq!(ptr(r, "complete"), true);
    assert_eq!(ptr(&doc, "complete"), true);
}

#[test]
fn null_psync_and_io_uring_do_the_same_io() {
    iolab_testutil::require_io_uring!();
    let d = tmp();
    let mut counts = Vec::new();
    for engine in ["null", "psync", "io_uring"] {
        let qd = if engine == "psync" { "1" } else { "16" };
        let (out, doc) = run_json(
            &[
                "--target",
                "f.dat",
                "--size",
                "16m",
                "--rw",
                "randrw",
                "--read-pct",
                "70",
                "--bs",
                "4k:50,8k:30,64k:20",
                "--ops",
                "20000",
                "--jobs",
                "2",
                "--qd",
                qd,
                "--engine",
                engine,
            ],
            d.path(),
        );
        assert!(out.status.success(), "{engine}: {}", stderr(&out));
        let r = &ptr(&doc, "runs")[0];
        assert_eq!(ptr(r, "effective/engine"), engine);
        counts.push((
            u(r, "summary/read/ops"),
            u(r, "summary/write/ops"),
            u(r, "summary/read/bytes"),
            u(r, "summary/write/bytes"),
        ));
    }
    assert_eq!(counts[0].0 + counts[0].1, 20000);
    assert!(counts.iter().all(|c| *c == counts[0]), "{counts:?}");
    // 70 % reads, within sampling error.
    let share = counts[0].0 as f64 / 20000.0;
    assert!((share - 0.7).abs() < 0.02, "{share}");
}

#[test]
fn io_size_ends_the_run_and_warmup_is_excluded() {
    let d = tmp();
    let (out, doc) = run_json(
        &[
            "--target",
            "f.dat",
            "--size",
            "8m",
            "--rw",
            "write",
            "--bs",
            "64k",
            "--io-size",
            "32m",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let r = &ptr(&doc, "runs")[0];
    assert_eq!(u(r, "summary/write/bytes"), 32 << 20);
    assert_eq!(u(r, "summary/write/ops"), 512);

    let (out, doc) = run_json(
        &[
            "--target",
            "f.dat",
            "--rw",
            "randread",
            "--duration",
            "1s",
            "--warmup",
            "1s",
            "--interval",
            "250ms",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let r = &ptr(&doc, "runs")[0];
    let ivs = ptr(r, "intervals").as_array().unwrap();
    let warm: Vec<_> = ivs.iter().filter(|iv| iv["warmup"] == true).collect();
    assert_eq!(warm.len(), 4);
    assert!(warm
        .iter()
        .all(|iv| iv["end_s"].as_f64().unwrap() <= 1.0 + 1e-9));
    let measured: u64 = ivs
        .iter()
        .filter(|iv| iv["warmup"] == false)
        .map(|iv| u(iv, "total/ops"))
        .sum();
    let warm_ops: u64 = warm.iter().map(|iv| u(iv, "total/ops")).sum();
    assert!(warm_ops > 0);
    assert_eq!(u(r, "summary/total/ops"), measured);
    assert!((f(r, "warmup_s") - 1.0).abs() < 1e-9);
}

#[test]
fn rate_is_held_and_latency_reported_twice() {
    let d = tmp();
    let (out, doc) = run_json(
        &[
            "--target",
            "f.dat",
            "--size",
            "8m",
            "--rw",
            "randread",
            "--rate",
            "2000",
            "--qd",
            "4",
            "--duration",
            "2s",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let r = &ptr(&doc, "runs")[0];
    let achieved = f(r, "summary/rate/achieved_iops");
    assert_eq!(f(r, "summary/rate/requested_iops"), 2000.0);
    assert!((achieved - 2000.0).abs() < 100.0, "{achieved}");
    let resp = f(r, "summary/total/lat_us/mean");
    let svc = f(r, "summary/total/svc_lat_us/mean");
    assert!(resp >= svc, "response {resp} < service {svc}");
    assert!(stdout(&out).contains("requested 2000 IOPS"));
}

#[test]
fn a_mixed_workload_writes_its_data_pattern_not_what_it_read() {
    iolab_testutil::require_io_uring!();
    // Regression: reads and writes share buffer slots, and a write from a
    // slot a read had used carried the read's data. Lay the file out with
    // random data, then run a 50/50 mix with --data zero: every 4 KiB
    // block must afterwards be either its old content or zeros.
    let d = tmp();
    let (out, _) = run_json(
        &[
            "--target", "m.dat", "--size", "4m", "--rw", "write", "--bs", "64k", "--ops", "64",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let before = std::fs::read(d.path().join("m.dat")).unwrap();
    for engine in ["io_uring", "psync"] {
        let qd = if engine == "psync" { "1" } else { "8" };
        let (out, doc) = run_json(
            &[
                "--target",
                "m.dat",
                "--rw",
                "randrw",
                "--bs",
                "4k",
                "--qd",
                qd,
                "--engine",
                engine,
                "--data",
                "zero",
                "--ops",
                "3000",
                "--no-prefill",
            ],
            d.path(),
        );
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(u(&ptr(&doc, "runs")[0], "summary/write/ops") > 1000);
    }
    let after = std::fs::read(d.path().join("m.dat")).unwrap();
    let mut zeroed = 0;
    for (i, (a, b)) in after.chunks(4096).zip(before.chunks(4096)).enumerate() {
        if a.iter().all(|&x| x == 0) {
            zeroed += 1;
        } else {
            assert!(a == b, "block {i} holds neither zeros nor its old content");
        }
    }
    assert!(zeroed > 500, "only {zeroed} blocks were written with zeros");
}

/// The kernel keeps CLOCK_MONOTONIC on the TSC (what `--clock auto` and
/// `--clock tsc` require).
fn kernel_clock_is_tsc() -> bool {
    cfg!(target_arch = "x86_64")
        && std::fs::read_to_string(
            "/sys/devices/system/clocksource/clocksource0/current_clocksource",
        )
        .is_ok_and(|s| s.trim() == "tsc")
}

#[test]
fn each_clock_source_keeps_real_time() {
    // A rate-limited run schedules every I/O on the worker's clock: with
    // either clock, 2 s at 5000 IOPS are 10000 I/Os that take 2 s of the
    // test's own clock, and the document names the clock that was read.
    let d = tmp();
    let tsc = kernel_clock_is_tsc();
    if !tsc {
        iolab_testutil::print_skip(
            module_path!(),
            "(in part) the kernel's clocksource is not tsc; only clock_gettime is run",
        );
    }
    let mut runs = vec![
        ("clock_gettime", "clock_gettime"),
        ("auto", if tsc { "tsc" } else { "clock_gettime" }),
    ];
    if tsc {
        runs.push(("tsc", "tsc"));
    }
    for (choice, used) in runs {
        let t = std::time::Instant::now();
        let (out, doc) = run_json(
            &[
                "--target",
                "c.dat",
                "--size",
                "8m",
                "--no-prefill",
                "--engine",
                "null",
                "--rw",
                "randread",
                "--rate",
                "5000",
                "--qd",
                "4",
                "--duration",
                "2s",
                "--clock",
                choice,
            ],
            d.path(),
        );
        let wall = t.elapsed().as_secs_f64();
        assert!(out.status.success(), "{}", stderr(&out));
        let r = &ptr(&doc, "runs")[0];
        assert_eq!(ptr(r, "effective/clock"), used, "--clock {choice}");
        let ops = u(r, "summary/total/ops") as f64;
        assert!(
            (ops - 10_000.0).abs() < 200.0,
            "--clock {choice}: {ops} I/Os"
        );
        let measured = f(r, "measured_s");
        assert!(
            (measured - 2.0).abs() < 0.02,
            "--clock {choice}: measured {measured} s"
        );
        assert!(
            (2.0..4.0).contains(&wall),
            "--clock {choice}: the run took {wall} s"
        );
    }
    if !tsc {
        let out = iolab()
            .args([
                "run", "--target", "c.dat", "--size", "8m", "--engine", "null",
            ])
            .args(["--duration", "1s", "--clock", "tsc"])
            .current_dir(d.path())
            .output()
            .unwrap();
        assert_bad_input(&out, "--clock tsc");
    }
}

#[test]
fn a_file_iolab_did_not_create_is_never_overwritten() {
    let d = tmp();
    let p = d.path().join("precious.db");
    let content: Vec<u8> = (0..(1 << 20)).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(&p, &content).unwrap();
    let out = iolab()
        .args([
            "run",
            "--target",
            p.to_str().unwrap(),
            "--rw",
            "randwrite",
            "--duration",
            "1s",
        ])
        .output()
        .unwrap();
    assert_bad_input(&out, "--destroy-data-on");
    assert_eq!(std::fs::read(&p).unwrap(), content);
    // Reading it is fine and leaves it alone.
    let (out, _) = run_json(
        &[
            "--target",
            p.to_str().unwrap(),
            "--rw",
            "randread",
            "--ops",
            "1000",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read(&p).unwrap(), content);
    // Named, it may be written.
    let (out, doc) = run_json(
        &[
            "--target",
            p.to_str().unwrap(),
            "--rw",
            "randwrite",
            "--ops",
            "100",
            "--destroy-data-on",
            p.to_str().unwrap(),
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(u(&ptr(&doc, "runs")[0], "summary/write/ops"), 100);
    assert_ne!(std::fs::read(&p).unwrap(), content);
}

#[test]
fn files_iolab_created_are_reused_without_a_second_prefill() {
    let d = tmp();
    let (out, doc) = run_json(
        &[
            "--target",
            "f.dat",
            "--size",
            "8m",
            "--rw",
            "randwrite",
            "--ops",
            "100",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let t = &ptr(&doc, "runs")[0]["targets"][0];
    assert_eq!(t["created"], true);
    assert_eq!(u(t, "prefilled_bytes"), 8 << 20);
    let (out, doc) = run_json(
        &["--target", "f.dat", "--rw", "randwrite", "--ops", "100"],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let t = &ptr(&doc, "runs")[0]["targets"][0];
    assert_eq!(t["created"], false);
    assert_eq!(u(t, "prefilled_bytes"), 0, "prefilled again");
}

#[test]
fn job_file_workloads_run_in_order_and_flags_override() {
    let d = tmp();
    let job = d.path().join("job.toml");
    std::fs::write(
        &job,
        "[global]\ntarget = 'f.dat'\nsize = '8m'\nops = 500\n\n[[workload]]\nname = 'w'\nrw = 'write'\nbs = '64k'\n\n[[workload]]\nname = 'r'\nrw = 'randread'\nqd = 4\n",
    )
    .unwrap();
    let (out, doc) = run_json(&[job.to_str().unwrap(), "--qd", "2"], d.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let runs = ptr(&doc, "runs").as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["name"], "w");
    assert_eq!(runs[1]["name"], "r");
    assert_eq!(u(&runs[0], "summary/write/ops"), 500);
    assert_eq!(u(&runs[1], "summary/read/ops"), 500);
    assert_eq!(u(&runs[1], "spec/qd"), 2);
}

#[test]
fn ctrl_c_keeps_what_was_measured() {
    let d = tmp();
    let (out, doc) = run_interrupted(
        &[
            "--target",
            "f.dat",
            "--size",
            "8m",
            "--rw",
            "randread",
            "--duration",
            "30s",
        ],
        d.path(),
        2500,
    );
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert_eq!(doc["complete"], false);
    let r = &doc["runs"][0];
    assert_eq!(r["complete"], false);
    assert_eq!(r["incomplete_reason"], "interrupted");
    assert!(u(r, "summary/read/ops") > 0);
    assert!(f(r, "measured_s") < 10.0);
}

#[test]
fn default_job_characterises_the_current_directory_and_cleans_up() {
    let d = tmp();
    let out = iolab()
        .args(["run", "--duration", "500ms", "-q"])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("iolab-result.json")).unwrap())
            .unwrap();
    let names: Vec<&str> = doc["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "seq-write-1m",
            "seq-read-1m",
            "rand-read-4k-qd32",
            "rand-write-4k-qd32"
        ]
    );
    for r in doc["runs"].as_array().unwrap() {
        assert!(u(r, "summary/total/ops") > 0, "{}", r["name"]);
    }
    assert_eq!(u(&doc["runs"][2], "spec/qd"), 32);
    let left: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["iolab-result.json"]);
}

/// One worker over two files: every sync point syncs both files it wrote
/// since the last one, not only the last it wrote.
#[test]
fn fsync_every_syncs_every_target_written() {
    let d = tmp();
    let (out, doc) = run_json(
        &[
            "--target",
            "a.dat",
            "--target",
            "b.dat",
            "--size",
            "8m",
            "--rw",
            "randwrite",
            "--ops",
            "1000",
            "--qd",
            "4",
            "--jobs",
            "1",
            "--fsync-every",
            "100",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let r = &ptr(&doc, "runs")[0];
    assert_eq!(u(r, "summary/write/ops"), 1000);
    // 10 sync points x 2 files (writes alternate over both).
    assert_eq!(u(r, "summary/fsyncs"), 20);
}

#[test]
fn fsync_every_and_dsync_are_applied() {
    let d = tmp();
    let (out, doc) = run_json(
        &[
            "--target",
            "f.dat",
            "--size",
            "8m",
            "--rw",
            "randwrite",
            "--ops",
            "1000",
            "--qd",
            "8",
            "--fsync-every",
            "100",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let r = &ptr(&doc, "runs")[0];
    assert_eq!(u(r, "summary/fsyncs"), 10);
    assert_eq!(u(r, "summary/write/ops"), 1000);
    let (out, doc) = run_json(
        &[
            "--target",
            "f.dat",
            "--rw",
            "randwrite",
            "--ops",
            "500",
            "--sync",
            "dsync",
            "--direct",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(ptr(&doc, "runs/0/spec/sync"), "dsync");
    assert!(stdout(&out).contains("O_DSYNC") || ptr(&doc, "runs/0/spec/sync") == "dsync");
}

#[test]
fn without_io_uring_iolab_says_so_and_falls_back_to_psync() {
    let d = tmp();
    let json = d.path().join("r.json");
    let out = iolab()
        .env("IOLAB_NO_IO_URING", "1")
        .args([
            "run", "--target", "f.dat", "--size", "8m", "--rw", "randread", "--qd", "4", "--ops",
            "4000", "-q", "--json",
        ])
        .arg(&json)
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("io_uring is not available"),
        "{}",
        stderr(&out)
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let r = &doc["runs"][0];
    assert_eq!(r["effective"]["engine"], "psync");
    assert_eq!(u(r, "effective/jobs"), 4);
    assert_eq!(u(r, "summary/read/ops"), 4000);
    assert!(r["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n.as_str().unwrap().contains("psync")));
}

#[test]
fn registered_buffers_and_files_are_used_by_io_uring() {
    iolab_testutil::require_io_uring!();
    let d = tmp();
    let (out, doc) = run_json(
        &[
            "--target", "f.dat", "--size", "8m", "--rw", "randread", "--qd", "8", "--ops", "1000",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let e = &doc["runs"][0]["effective"];
    assert_eq!(e["engine"], "io_uring");
    assert_eq!(e["registered_buffers"], true);
    assert_eq!(e["registered_files"], true);
}

#[test]
fn no_interval_is_a_sliver_and_cpu_is_plausible() {
    let d = tmp();
    for extra in [
        &["--qd", "8"][..],
        &["--rate", "2000", "--qd", "4"][..],
        &["--jobs", "2", "--qd", "4"][..],
    ] {
        let mut args = vec![
            "--target",
            "f.dat",
            "--size",
            "16m",
            "--rw",
            "randread",
            "--duration",
            "2s",
            "--interval",
            "500ms",
        ];
        args.extend_from_slice(extra);
        let (out, doc) = run_json(&args, d.path());
        assert!(out.status.success(), "{}", stderr(&out));
        let r = &doc["runs"][0];
        let ivs = r["intervals"].as_array().unwrap();
        for iv in ivs {
            let len = f(iv, "end_s") - f(iv, "start_s");
            assert!(len >= 0.05, "{extra:?}: interval of {len} s: {iv}");
        }
        assert!(
            r["stalls"]["zero_intervals"].as_array().unwrap().is_empty(),
            "{extra:?}"
        );
        let cpu = f(r, "summary/cpu/user_pct") + f(r, "summary/cpu/sys_pct");
        let workers = u(r, "effective/jobs") as f64;
        assert!(
            cpu > 0.0 && cpu <= 100.0 * workers + 60.0,
            "{extra:?}: CPU {cpu}%"
        );
    }
}

#[test]
fn prefill_record_only_counts_a_contiguous_start() {
    let d = tmp();
    let (out, _) = run_json(
        &[
            "--target", "g.dat", "--size", "16m", "--offset", "8m", "--ops", "10",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // The first 8 MiB were never written: a later run over the whole file
    // must prefill it.
    let (out, doc) = run_json(
        &["--target", "g.dat", "--rw", "randread", "--ops", "10"],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(u(&doc["runs"][0], "targets/0/prefilled_bytes"), 16 << 20);
}

#[test]
fn ctrl_c_during_prefill_is_an_interruption_not_an_error() {
    let d = tmp();
    let (out, doc) = run_interrupted(
        &[
            "--target",
            "big.dat",
            "--size",
            "20g",
            "--rw",
            "randread",
            "--duration",
            "1s",
        ],
        d.path(),
        700,
    );
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert_eq!(doc["runs"][0]["incomplete_reason"], "interrupted");
    assert_eq!(u(&doc["runs"][0], "errors_total"), 0);
}

/// The CPUs this test process may run on.
fn allowed_cpus() -> Vec<usize> {
    // SAFETY: plain data, written by the kernel within its size.
    let set = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        assert_eq!(
            libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set),
            0
        );
        set
    };
    (0..1024)
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect()
}

#[test]
fn cpus_pins_each_worker_to_its_cpu_round_robin() {
    let d = tmp();
    let allowed = allowed_cpus();
    // The list in reverse order, so worker 0 gets the highest CPU: a run
    // that ignored the order (or pinned nothing) would show other masks.
    let list: Vec<usize> = allowed.iter().rev().take(2).copied().collect();
    let list_text: Vec<String> = list.iter().map(|c| c.to_string()).collect();
    let list_text = list_text.join(",");
    let json = d.path().join("r.json");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args([
            "run", "--target", "p.dat", "--size", "4m", "--rw", "randread",
        ])
        .args(["--engine", "psync", "--jobs", "3", "--duration", "2s", "-q"])
        .args(["--cpus", &list_text, "--json"])
        .arg(&json)
        .current_dir(d.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Read each worker thread's mask from /proc while the run goes on.
    let mut masks = std::collections::BTreeMap::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while masks.len() < 3 && std::time::Instant::now() < deadline {
        let tasks = std::fs::read_dir(format!("/proc/{}/task", child.id()));
        for t in tasks.into_iter().flatten().flatten() {
            let comm = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
            let status = std::fs::read_to_string(t.path().join("status")).unwrap_or_default();
            let mask = status
                .lines()
                .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
                .map(|m| m.trim().to_string());
            if let (Some(w), Some(m)) = (comm.trim().strip_prefix("iolab-w"), mask) {
                masks.insert(w.parse::<usize>().unwrap(), m);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let expect = |w: usize| list[w % list.len()].to_string();
    assert_eq!(masks.len(), 3, "worker threads seen: {masks:?}");
    for (w, m) in &masks {
        assert_eq!(*m, expect(*w), "worker {w} runs on {m}; masks {masks:?}");
    }
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let cpus: Vec<u64> = doc["runs"][0]["spec"]["cpus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(cpus, list.iter().map(|&c| c as u64).collect::<Vec<_>>());
}
