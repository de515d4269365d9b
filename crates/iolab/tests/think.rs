//! Think time and Poisson arrivals of block workloads: `think` lowers a
//! QD-1 worker's IOPS to about one I/O per (latency + think) per
//! `think_blocks`; `arrival = "poisson"` keeps `rate`'s mean but spaces
//! the I/Os at random, which shows in how much the per-interval counts
//! vary (about as much as their mean for a Poisson process, almost not at
//! all for a fixed schedule).

mod common;
use common::*;

fn iops(doc: &serde_json::Value) -> f64 {
    f(doc, "runs.0.workloads.0.summary.total.iops")
}

#[test]
fn think_time_paces_a_qd1_worker() {
    let d = tempfile::tempdir().unwrap();
    let base = [
        "--target", "t.dat", "--size", "8m", "--engine", "null", "--rw", "randread",
    ];
    let (out, doc) = run_json(
        &[&base[..], &["--duration", "1s", "--think", "1ms"]].concat(),
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // The null engine's latency is well under a microsecond: one I/O per
    // millisecond at most, fewer when sleeps overshoot on a busy machine.
    let one = iops(&doc);
    // At most one I/O per (latency + think); a busy machine's late
    // wake-ups only lower it.
    let lat_us = f(&doc, "runs.0.workloads.0.summary.total.lat_us.mean");
    let bound = 1e6 / (lat_us + 1000.0);
    assert!(
        one <= bound * 1.01,
        "think 1ms: {one} IOPS over 1/(lat+think) {bound}"
    );
    assert!(
        one >= 0.4 * bound,
        "think 1ms: {one} IOPS, far under {bound}"
    );
    let (out, doc) = run_json(
        &[
            &base[..],
            &["--duration", "1s", "--think", "1ms", "--think-blocks", "4"],
        ]
        .concat(),
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let four = iops(&doc);
    assert!(
        (1600.0..=4040.0).contains(&four),
        "4 blocks per 1ms: {four} IOPS"
    );
    assert!(four > 2.5 * one, "think_blocks 4 {four} vs 1 {one}");
    let (_, doc) = run_json(&[&base[..], &["--duration", "0.3s"]].concat(), d.path());
    assert!(iops(&doc) > 20.0 * one, "without think: {}", iops(&doc));
}

/// (mean, variance / mean) of the I/Os per measured interval, leaving out
/// the first and the last (partial) ones.
fn dispersion(doc: &serde_json::Value) -> (f64, f64) {
    let ivs = ptr(doc, "runs.0.workloads.0.intervals").as_array().unwrap();
    let counts: Vec<f64> = ivs[1..ivs.len() - 1]
        .iter()
        .filter(|iv| iv["warmup"] == false)
        .map(|iv| f(iv, "total.ops"))
        .collect();
    assert!(counts.len() > 40, "{} intervals", counts.len());
    let n = counts.len() as f64;
    let mean = counts.iter().sum::<f64>() / n;
    let var = counts.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var / mean)
}

#[test]
fn poisson_arrivals_keep_the_rate_and_vary_like_a_poisson_process() {
    let d = tempfile::tempdir().unwrap();
    let args = |arrival: &'static str| -> Vec<&'static str> {
        vec![
            "--target",
            "p.dat",
            "--size",
            "8m",
            "--engine",
            "null",
            "--rw",
            "randread",
            "--rate",
            "1000",
            "--duration",
            "3s",
            "--interval",
            "50ms",
            "--arrival",
            arrival,
        ]
    };
    let (out, fixed) = run_json(&args("fixed"), d.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let (out, poisson) = run_json(&args("poisson"), d.path());
    assert!(out.status.success(), "{}", stderr(&out));
    // 3000 arrivals of a Poisson process: the count's standard deviation
    // is under 2% of it.
    for doc in [&fixed, &poisson] {
        let r = iops(doc);
        assert!((r - 1000.0).abs() < 0.06 * 1000.0, "mean rate {r}");
    }
    // 50 I/Os per 50 ms interval. A Poisson count's variance equals its
    // mean (dispersion 1: the gaps' coefficient of variation is 1); a
    // fixed schedule's counts hardly vary. A busy machine's scheduling
    // delays add to both, so the bounds are loose and the gap between
    // the two is what is checked.
    let (m, dp) = dispersion(&poisson);
    let (_, df) = dispersion(&fixed);
    assert!((m - 50.0).abs() < 4.0, "poisson mean per interval {m}");
    assert!((0.5..4.0).contains(&dp), "poisson dispersion {dp}");
    assert!(df < 0.5 && dp > df + 0.4, "fixed {df} vs poisson {dp}");
    // Response times still count from the scheduled start: with a null
    // engine they stay small unless the worker falls behind.
    assert!(f(&poisson, "runs.0.workloads.0.summary.total.lat_us.mean") < 5000.0);
}

#[test]
fn bad_arrival_and_think_blocks_are_one_line() {
    let d = tempfile::tempdir().unwrap();
    for (args, needle) in [
        (vec!["--arrival", "burst"], "--arrival"),
        (
            vec!["--think", "1ms", "--think-blocks", "0"],
            "--think-blocks",
        ),
        (vec!["--think", "2h"], "--think"),
    ] {
        let out = iolab()
            .args([
                "run", "--target", "x.dat", "--size", "1m", "--engine", "null",
            ])
            .args(&args)
            .current_dir(d.path())
            .output()
            .unwrap();
        assert_bad_input(&out, needle);
    }
}

#[test]
fn think_time_on_a_zram_device_gives_one_io_per_latency_plus_think() {
    iolab_testutil::require_zram!();
    let z = iolab_testutil::Zram::new(64 << 20).unwrap();
    let d = tempfile::tempdir().unwrap();
    let (out, doc) = run_json(
        &[
            "--target",
            z.path_str(),
            "--destroy-data-on",
            z.path_str(),
            "--rw",
            "randread",
            "--duration",
            "1s",
            "--think",
            "500us",
            "--engine",
            "psync",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let got = iops(&doc);
    let lat_us = f(&doc, "runs.0.workloads.0.summary.total.lat_us.mean");
    let bound = 1e6 / (lat_us + 500.0);
    assert!(got <= bound * 1.01, "{got} IOPS over 1/(lat+think) {bound}");
    assert!(got >= 0.4 * bound, "{got} IOPS, far under {bound}");
}
