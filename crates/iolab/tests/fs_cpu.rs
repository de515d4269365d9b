//! CPU per operation of file-system workloads, on ext4 and xfs (loop
//! devices of the test's own): a one-second mix of stat and whole-file
//! reads of 64 KiB files gives every operation a `cpu_us_per_op`, the
//! figures times their counts add up to the workload's CPU, and a
//! whole-file read costs more than a stat; sampled on system calls (qd 1),
//! split by latency on io_uring (qd 4).

mod common;
mod fs_support;

use common::*;
use fs_support::*;
use serde_json::Value;

const MIX: &str = "stat:50,read:whole:50";

/// Run the mix for a second with `extra` arguments; the document's
/// first workload.
fn run_mix(kind: &str, name: &str, extra: &[&str]) -> Option<Value> {
    let fs = mount(kind)?;
    let out = scratch();
    let dir = fs.path().join(name);
    let mut args = vec![
        "--dir",
        s(&dir),
        "--files",
        "256",
        "--file-size",
        "64k",
        "--mix",
        MIX,
        "--duration",
        "1s",
    ];
    args.extend_from_slice(extra);
    let (o, doc) = run_json(&args, out.path());
    assert_eq!(o.status.code(), Some(0), "{kind}: {}", stderr(&o));
    Some(wl(&doc).clone())
}

/// Every operation's `cpu_us_per_op` times its count adds up to the
/// workload's CPU (io_summary's CPU per operation times its count)
/// within 1 %; the (name, cpu_us_per_op) of each.
fn check_sum(kind: &str, w: &Value) -> Vec<(String, f64)> {
    let io = &w["io_summary"];
    let workload_us = io["cpu_us_per_op"].as_f64().unwrap() * io["ops"].as_f64().unwrap();
    assert!(workload_us > 0.0, "{kind}: no CPU measured: {io}");
    let ops = w["operations"].as_object().unwrap();
    assert_eq!(ops.len(), 2, "{kind}: {ops:?}");
    let mut got = Vec::new();
    let mut sum = 0.0;
    for (name, o) in ops {
        let n = o["ops"].as_f64().unwrap();
        assert!(n > 1000.0, "{kind}: {name} ran {n} times");
        let cpu = o["cpu_us_per_op"]
            .as_f64()
            .unwrap_or_else(|| panic!("{kind}: {name} has no cpu_us_per_op: {o}"));
        assert!(cpu > 0.0, "{kind}: {name}: {cpu}");
        sum += cpu * n;
        got.push((name.clone(), cpu));
    }
    assert!(
        (sum - workload_us).abs() <= workload_us * 0.01,
        "{kind}: per-operation CPU adds up to {sum} us, the workload's is {workload_us} us"
    );
    got
}

fn cpu_of(got: &[(String, f64)], name: &str) -> f64 {
    got.iter().find(|(n, _)| n == name).unwrap().1
}

/// qd 1, system calls: sampled about one operation in 256; a whole-file
/// 64 KiB read (open, 16 reads of 4 KiB, close) costs its thread more
/// than a stat.
fn sampled(kind: &str) {
    let Some(w) = run_mix(kind, "cpu1", &[]) else {
        return;
    };
    assert_eq!(w["cpu_basis"], "sampled", "{kind}: {}", w["backend"]);
    let got = check_sum(kind, &w);
    for (name, o) in w["operations"].as_object().unwrap() {
        let n = o["ops"].as_u64().unwrap();
        let k = o["cpu_samples"].as_u64().unwrap();
        assert!(
            k >= 8 && k >= n / 512 && k <= n / 128,
            "{kind}: {name}: {k} samples of {n} operations (about 1 in 256 expected)"
        );
        assert!(o["cpu_us_sampled"].as_f64().unwrap() > 0.0, "{kind}: {o}");
    }
    let (read, stat) = (cpu_of(&got, "read"), cpu_of(&got, "stat"));
    assert!(
        read > stat,
        "{kind}: a whole-file 64 KiB read ({read} us) should cost more CPU than a stat ({stat} us)"
    );
    let op = |n: &str| w["operations"][n]["cpu_us_sampled"].as_f64().unwrap();
    assert!(
        op("read") > op("stat"),
        "{kind}: sampled {}",
        w["operations"]
    );
}

/// qd 4, io_uring: operations overlap, so the CPU is split by latency
/// (and says so); no samples.
fn by_latency(kind: &str) {
    let Some(w) = run_mix(kind, "cpu4", &["--qd", "4"]) else {
        return;
    };
    iolab_testutil::require!(
        w["backend"] == "io_uring",
        format!("{kind}: io_uring unavailable ({})", w["backend_reason"])
    );
    assert_eq!(w["cpu_basis"], "latency");
    check_sum(kind, &w);
    for o in w["operations"].as_object().unwrap().values() {
        assert!(o.get("cpu_samples").is_none() && o.get("cpu_us_sampled").is_none());
    }
    // Split by latency: a whole 64 KiB read (16 transfers) takes longer
    // than a stat, so it gets more of the CPU.
    let cpu = |n: &str| w["operations"][n]["cpu_us_per_op"].as_f64().unwrap();
    assert!(
        cpu("read") > cpu("stat"),
        "{kind}: read {} stat {} us/op",
        cpu("read"),
        cpu("stat")
    );
}

on_both!(cpu_per_operation_sampled, super::sampled);
on_both!(cpu_per_operation_by_latency, super::by_latency);
