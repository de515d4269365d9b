//! Tests of merging hosts into one run record (synthetic raws).

use super::*;
use crate::testraw::{self, host, host_run};
use iolab_raw::Op;
use iolab_stats::LatHist;

#[test]
fn aggregate_ops_and_bytes_are_the_sum_of_the_hosts() {
    let r = testraw::two_hosts();
    assert_eq!(r.hosts.len(), 2);
    let (a, b) = (&r.hosts[0].run, &r.hosts[1].run);
    assert_eq!(a.summary.total.ops, 300);
    assert_eq!(b.summary.total.ops, 900);
    assert_eq!(
        r.summary.total.ops,
        a.summary.total.ops + b.summary.total.ops
    );
    assert_eq!(
        r.summary.total.bytes,
        a.summary.total.bytes + b.summary.total.bytes
    );
    // Both ran 3 s: the aggregate's rate is the sum of the rates.
    assert_eq!(r.measured_s, 3.0);
    assert!((r.summary.total.iops - (a.summary.total.iops + b.summary.total.iops)).abs() < 1e-9);
    // One workload of the aggregate, on both hosts' targets.
    assert_eq!(r.workloads.len(), 1);
    let paths: Vec<&str> = r.targets.iter().map(|t| t.path.as_str()).collect();
    assert_eq!(paths, ["h1:/dev/sdb", "h2:/dev/sdb"]);
    assert_eq!(r.workloads[0].summary.total.ops, 1200);
    assert!(r.complete && r.incomplete_reason.is_none());
    assert_eq!(r.start_skew_us, Some(210.0));
    assert_eq!(r.hosts[1].host_info.hostname, "h2.lab");
}

#[test]
fn aggregate_percentiles_equal_those_of_one_histogram_of_every_sample() {
    let r = testraw::two_hosts();
    // One histogram fed every sample both hosts recorded.
    let mut all = LatHist::new();
    for (n, lo, hi) in [
        (100u64, 100_000u64, 300_000u64),
        (300, 1_000_000, 5_000_000),
    ] {
        for _ in 0..3 {
            for i in 0..n {
                all.record(lo + (hi - lo) * i / n);
            }
        }
    }
    let want = all.summary_us();
    let got = &r.summary.total.lat_us;
    for (name, g, w) in [
        ("p50", got.p50, want.p50),
        ("p99", got.p99, want.p99),
        ("p99.9", got.p99_9, want.p99_9),
        ("max", got.max, want.max),
        ("mean", got.mean, want.mean),
    ] {
        assert_eq!(g, w, "{name}");
    }
    // Not the mean of the hosts' percentiles: the p50 of 300 slow and
    // 100 fast samples is a slow one.
    let hosts_mean =
        (r.hosts[0].run.summary.total.lat_us.p50 + r.hosts[1].run.summary.total.lat_us.p50) / 2.0;
    assert!(got.p50 > hosts_mean, "{} vs {hosts_mean}", got.p50);
    let count: u64 = r.latency_histograms.read.buckets.iter().map(|b| b.1).sum();
    assert_eq!(count, 1200);
}

#[test]
fn an_interval_series_of_two_hosts_merges_by_index() {
    let r = testraw::two_hosts();
    assert_eq!(r.intervals.len(), 3);
    for (i, iv) in r.intervals.iter().enumerate() {
        assert_eq!(iv.index as usize, i);
        let per_host: u64 = r.hosts.iter().map(|h| h.run.intervals[i].total.ops).sum();
        assert_eq!(iv.total.ops, per_host);
        assert_eq!(iv.total.ops, 400);
        assert_eq!((iv.start_s, iv.end_s), (i as f64, i as f64 + 1.0));
    }
}

#[test]
fn a_lost_hosts_shorter_series_still_merges_and_the_run_says_it_was_lost() {
    // h2 answered for two intervals, then went silent.
    let mut lost = host("h2", host_run(2, 300, 1_000_000, 5_000_000));
    lost.raw.complete = false;
    lost.raw.workloads[0].complete = false;
    lost.lost = Some(HostLoss {
        at_s: 2.04,
        at: "2027-01-15T08:00:02.040Z".into(),
        reason: "no message for 10 s".into(),
    });
    let r = merge_hosts(
        vec![host("h1", host_run(3, 100, 100_000, 300_000)), lost],
        None,
    );
    let ops: Vec<u64> = r.intervals.iter().map(|iv| iv.total.ops).collect();
    assert_eq!(ops, [400, 400, 100]);
    assert_eq!(r.summary.total.ops, 300 + 600);
    assert_eq!(r.measured_s, 3.0, "the longest host's");
    assert!(!r.complete);
    assert_eq!(
        r.incomplete_reason.as_deref(),
        Some("host h2 lost at 2.0 s: no message for 10 s")
    );
    let w = &r.workloads[0];
    assert!(!w.complete);
    assert!(w
        .incomplete_reason
        .as_deref()
        .unwrap()
        .starts_with("host h2 lost"));
    assert_eq!(r.hosts[1].lost.as_ref().unwrap().at_s, 2.04);
    assert!(r.hosts[0].lost.is_none());
}

#[test]
fn several_job_sections_per_host_keep_their_aggregate() {
    // fio issue 1881: with more than one job section the "All clients"
    // summary disappears. Here each host runs a reader and a writer.
    let host_pair = |reads: u64, writes: u64| {
        let reader = testraw::workload(
            "reader",
            "randread",
            (0..2)
                .map(|i| (i, testraw::ops(Op::Read, reads, 100_000)))
                .collect(),
        );
        let writer = testraw::workload(
            "writer",
            "write",
            (0..2)
                .map(|i| (i, testraw::ops(Op::Write, writes, 400_000)))
                .collect(),
        );
        testraw::run_of("mixed", vec![reader, writer], 2)
    };
    let r = merge_hosts(
        vec![host("a", host_pair(10, 20)), host("b", host_pair(30, 40))],
        Some(90.0),
    );
    let names: Vec<&str> = r.workloads.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, ["reader", "writer"]);
    assert_eq!(r.workloads[0].summary.read.ops, 2 * (10 + 30));
    assert_eq!(r.workloads[1].summary.write.ops, 2 * (20 + 40));
    assert_eq!(r.summary.read.ops, 80);
    assert_eq!(r.summary.write.ops, 120);
    assert_eq!(r.summary.total.ops, 200);
    for h in &r.hosts {
        assert_eq!(h.run.workloads.len(), 2, "{}", h.host);
    }
    // The terminal's summary of such a run has the aggregate line.
    let text = crate::terminal::summary(&r);
    assert!(
        text.contains("mixed (total of 2 workloads on 2 hosts)"),
        "{text}"
    );
}

#[test]
fn notes_that_differ_are_prefixed_by_host() {
    let mut a = host_run(1, 10, 1000, 2000);
    a.notes = vec!["shared note".into(), "only on a".into()];
    let mut b = host_run(1, 10, 1000, 2000);
    b.notes = vec!["shared note".into()];
    let r = merge_hosts(vec![host("a", a), host("b", b)], None);
    assert_eq!(r.notes, ["shared note", "a: only on a"]);
}

#[test]
fn a_merged_record_round_trips_through_a_document() {
    let r = testraw::two_hosts();
    let doc = crate::ResultDoc {
        runs: vec![r.clone()],
        ..Default::default()
    };
    let text = serde_json::to_string_pretty(&doc).unwrap();
    let back = crate::parse_document(&text, "multi.json").unwrap();
    let b = &back.runs[0];
    assert_eq!(b.hosts.len(), 2);
    assert_eq!(b.start_skew_us, Some(210.0));
    assert_eq!(b.summary.total.ops, r.summary.total.ops);
    assert_eq!(b.summary.total.lat_us.p99, r.summary.total.lat_us.p99);
    for (x, y) in b.hosts.iter().zip(&r.hosts) {
        assert_eq!(x.host, y.host);
        assert_eq!(x.clock, y.clock);
        assert_eq!(x.run.summary.total.ops, y.run.summary.total.ops);
        assert_eq!(
            x.run.summary.total.lat_us.p99_9,
            y.run.summary.total.lat_us.p99_9
        );
        assert_eq!(
            x.run.latency_histograms.read.buckets,
            y.run.latency_histograms.read.buckets
        );
        assert_eq!(x.run.intervals.len(), y.run.intervals.len());
    }
    // The host's fields sit beside its run's (flattened), as documented.
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let h = &v["runs"][0]["hosts"][1];
    assert_eq!(h["host"], "h2");
    assert_eq!(h["clock"]["rtt_us"], 80.0);
    assert!(h["summary"]["total"]["ops"].as_u64() == Some(900));
}

#[test]
fn no_host_gives_an_incomplete_empty_run() {
    let r = merge_hosts(Vec::new(), None);
    assert!(!r.complete && r.hosts.is_empty());
    assert_eq!(r.summary.total.ops, 0);
}

#[test]
fn the_controllers_interval_lines_come_from_the_hosts_raw_intervals() {
    let a = host_run(3, 100, 100_000, 300_000);
    let b = host_run(2, 300, 1_000_000, 5_000_000);
    // Interval 1: both hosts; the total's line has their sum.
    let (total, lines) = host_interval(
        &[("h1", Some(&a.intervals[1])), ("h2", Some(&b.intervals[1]))],
        false,
    );
    let total = total.unwrap();
    assert_eq!(total.ops.total_ops(), 400);
    assert_eq!(lines.len(), 3);
    let iops = |l: &str| l.split_whitespace().nth(2).unwrap().parse::<f64>().unwrap();
    assert_eq!(
        (iops(&lines[0]), iops(&lines[1]), iops(&lines[2])),
        (100.0, 300.0, 400.0)
    );
    // Interval 2: h2 sent none.
    let (total, lines) = host_interval(&[("h1", Some(&a.intervals[2])), ("h2", None)], false);
    assert_eq!(total.unwrap().ops.total_ops(), 100);
    assert_eq!(lines[1].split_whitespace().nth(2), Some("-"));
    assert_eq!(host_interval(&[("h1", None)], false), (None, Vec::new()));
}

#[test]
fn errors_and_events_name_their_host_and_workloads_of_one_host_stay_whole() {
    let mut a = host_run(2, 10, 1000, 2000);
    let err = iolab_raw::IoErrorRec {
        target: "/dev/sdb".into(),
        offset: 4096,
        len: 4096,
        op: iolab_raw::ErrOp::Read,
        errno: libc::EIO,
        time_ns: 1_500_000_000,
        worker: 0,
    };
    let w = &mut a.workloads[0];
    w.errors = vec![err];
    w.errno_counts = vec![(libc::EIO, 7)];
    w.errors_total = 7;
    a.events.push(iolab_raw::EventRaw {
        time_ns: 1_000_000_000,
        label: "path failover".into(),
        source: "mark".into(),
    });
    // b runs another workload only.
    let mut b = host_run(2, 20, 1000, 2000);
    b.workloads[0].spec.name = "scanner".into();
    b.workloads[0].errno_counts = vec![(libc::EIO, 2)];
    b.workloads[0].errors_total = 2;
    let r = merge_hosts(vec![host("a", a), host("b", b)], None);
    assert_eq!(r.errors_total, 9);
    assert_eq!(r.error_counts[0].count, 9);
    assert_eq!(r.errors[0].target, "a:/dev/sdb");
    assert_eq!(r.events[0].label, "a: path failover");
    let names: Vec<&str> = r.workloads.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, ["reader", "scanner"]);
    assert_eq!(r.workloads[0].summary.total.ops, 20);
    assert_eq!(r.workloads[1].summary.total.ops, 40);
    assert_eq!(r.workloads[1].targets[0].path, "b:/dev/sdb");
    assert_eq!(r.summary.total.ops, 60);
}

#[test]
fn the_requested_rate_is_the_sum_of_the_hosts() {
    // Two hosts asked for 10,000 IOPS each: the whole asked for 20,000.
    let at = |rate: Option<f64>| {
        let mut raw = host_run(3, 100, 100_000, 300_000);
        raw.workloads[0].spec.rate_iops = rate;
        raw
    };
    let r = merge_hosts(
        vec![
            host("h1", at(Some(10_000.0))),
            host("h2", at(Some(10_000.0))),
        ],
        None,
    );
    let rate = r.summary.rate.as_ref().expect("a requested rate");
    assert_eq!(rate.requested_iops, 20_000.0);
    assert_eq!(
        r.workloads[0].summary.rate.as_ref().unwrap().requested_iops,
        20_000.0
    );
    assert_eq!(
        r.hosts[0].run.summary.rate.as_ref().unwrap().requested_iops,
        10_000.0
    );
    // A host with no rate: the whole has none either.
    let r = merge_hosts(
        vec![host("h1", at(Some(10_000.0))), host("h2", at(None))],
        None,
    );
    assert!(r.summary.rate.is_none());
}
