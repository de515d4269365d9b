//! vdbench's layout against hand-built interval and run records: every
//! figure is recomputed here from the counts put in, and the columns
//! line up under their headers.

use super::*;
use crate::model::{Cpu, DirResult, Interval};

const TOD: &str = "12:34:56.789";

/// `ops` operations of `size` bytes over `secs`, mean/max/sd in us.
fn dir(ops: u64, size: u64, secs: f64, mean: f64, max: f64, sd: f64) -> DirResult {
    let mut d = DirResult {
        ops,
        bytes: ops * size,
        iops: ops as f64 / secs,
        mbps: (ops * size) as f64 / secs / 1e6,
        mibps: (ops * size) as f64 / secs / 1048576.0,
        ..Default::default()
    };
    d.lat_us.mean = mean;
    d.lat_us.max = max;
    d.lat_us.min = mean / 2.0;
    d.lat_us.stddev = sd;
    d
}

fn interval(index: u32, warmup: bool, read: DirResult, write: DirResult) -> Interval {
    let total = merge_dir(&read, &write);
    Interval {
        index,
        start_s: index as f64 * 2.0,
        end_s: index as f64 * 2.0 + 2.0,
        warmup,
        read,
        write,
        trim: None,
        total,
        errors: 0,
        cpu: Some(Cpu {
            user_pct: 30.0,
            sys_pct: 50.0,
            usec_per_io: 0.0,
        }),
        workers_late: 0,
        all: None,
        ops: Default::default(),
    }
}

fn nums(line: &str) -> Vec<f64> {
    line.split_whitespace()
        .skip(2)
        .map(|t| t.parse().unwrap_or_else(|_| panic!("{t} in {line}")))
        .collect()
}

/// The byte offsets where each whitespace-separated token ends.
fn ends(line: &str) -> Vec<usize> {
    let b = line.as_bytes();
    (0..b.len())
        .filter(|&i| b[i] != b' ' && (i + 1 == b.len() || b[i + 1] == b' '))
        .map(|i| i + 1)
        .collect()
}

#[test]
fn a_raw_line_has_vdbench_figures() {
    // 2 s: 3000 reads of 8 KiB (0.2 ms), 1000 writes of 4 KiB (1 ms).
    let iv = interval(
        0,
        false,
        dir(3000, 8192, 2.0, 200.0, 5000.0, 50.0),
        dir(1000, 4096, 2.0, 1000.0, 9000.0, 300.0),
    );
    let line = raw_line(TOD, &label(&iv), &Figures::of_interval(&iv), 4);
    assert!(line.starts_with("12:34:56.789         1 "), "{line}");
    let v = nums(&line);
    let bytes: f64 = 3000.0 * 8192.0 + 1000.0 * 4096.0;
    let mean: f64 = (3000.0 * 0.2 + 1000.0 * 1.0) / 4000.0;
    let ss = 2999.0 * 0.05f64.powi(2)
        + 3000.0 * (0.2 - mean).powi(2)
        + 999.0 * 0.3f64.powi(2)
        + 1000.0 * (1.0 - mean).powi(2);
    let want = [
        2000.0,                   // i/o rate
        bytes / 2.0 / 1048576.0,  // MB/sec
        (bytes / 4000.0).floor(), // bytes/io
        75.0,                     // read pct
        mean,                     // resp time, ms
        0.2,                      // read resp
        1.0,                      // write resp
        9.0,                      // resp max
        (ss / 3999.0).sqrt(),     // resp stddev
        2000.0 * mean / 1000.0,   // queue depth (Little's law)
        (30.0 + 50.0) / 4.0,      // cpu% sys+u of 4 CPUs
        50.0 / 4.0,               // cpu% sys
    ];
    let prec = [
        0.01, 0.01, 1.0, 0.01, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 0.1, 0.1, 0.1,
    ];
    assert_eq!(v.len(), want.len(), "{line}");
    for (i, ((g, w), p)) in v.iter().zip(want).zip(prec).enumerate() {
        assert!(
            (g - w).abs() <= p / 2.0 + 1e-9,
            "column {i}: {g} vs {w}: {line}"
        );
    }
    // Every figure ends where its header's title ends.
    let h = raw_header("Nov 25, 2026");
    assert!(h[0].is_empty() && h[1].starts_with("Nov 25, 2026  interval"));
    assert_eq!(ends(&h[2]), ends(&line)[2..].to_vec(), "\n{}\n{line}", h[2]);
    assert_eq!(ends(&h[1]).last(), ends(&line).last());
}

#[test]
fn a_rated_line_counts_response_time_and_queue_depth_from_issue() {
    // 1000 reads/s at a rate: 2 ms from the scheduled start, 0.1 ms from
    // issue (service time). vdbench's resp and queue depth are from issue.
    let mut read = dir(2000, 4096, 2.0, 2000.0, 8000.0, 400.0);
    let mut svc = read.lat_us;
    (svc.mean, svc.max, svc.stddev) = (100.0, 300.0, 20.0);
    read.svc_lat_us = Some(svc);
    let iv = interval(1, false, read, dir(0, 0, 2.0, 0.0, 0.0, 0.0));
    for f in [Figures::of_interval(&iv), {
        let mut r = crate::build_run(&crate::testraw::run_of("r", Vec::new(), 1));
        r.summary.read = iv.read.clone();
        r.summary.total = iv.read.clone();
        Figures::of_run(&r)
    }] {
        let v = nums(&raw_line(TOD, "2", &f, 2));
        // resp time, read resp, resp max, resp stddev (ms), queue depth.
        assert_eq!((v[4], v[5], v[7], v[8]), (0.1, 0.1, 0.3, 0.02), "{v:?}");
        assert_eq!(v[9], 0.1, "1000/s x 0.1 ms: {v:?}");
    }
}

#[test]
fn a_raw_line_without_a_cpu_sample_says_so() {
    let mut iv = interval(
        4,
        false,
        dir(10, 512, 2.0, 100.0, 100.0, 0.0),
        dir(0, 0, 2.0, 0.0, 0.0, 0.0),
    );
    iv.cpu = None;
    let line = raw_line(TOD, &label(&iv), &Figures::of_interval(&iv), 2);
    assert!(line.ends_with("  n/a   n/a"), "{line}");
    assert!(line.contains("         5 "), "{line}");
    let f: Vec<&str> = line.split_whitespace().collect();
    assert_eq!((f[2], f[4], f[5]), ("5.00", "512", "100.00"), "{line}");
}

#[test]
fn fit_drops_decimals_as_vdbench_does() {
    assert_eq!(fit(1.5, 6, 3), " 1.500");
    assert_eq!(fit(123.4567, 6, 3), "123.45");
    assert_eq!(fit(12345.678, 6, 1), " 12345");
    assert_eq!(fit(1234567.0, 6, 1), "1234567");
    assert_eq!(fit(65536.0, 7, 0), "  65536");
}

#[test]
fn the_average_label_skips_the_warm_up() {
    let d = || dir(1, 1, 1.0, 1.0, 1.0, 0.0);
    let ivs: Vec<Interval> = (0..6).map(|i| interval(i, i < 2, d(), d())).collect();
    assert_eq!(avg_label(&ivs).as_deref(), Some("avg_3-6"));
    let none: Vec<Interval> = (0..2).map(|i| interval(i, true, d(), d())).collect();
    assert_eq!(avg_label(&none), None);
    let all: Vec<Interval> = (0..3).map(|i| interval(i, false, d(), d())).collect();
    assert_eq!(avg_label(&all).as_deref(), Some("avg_1-3"));
}

/// A file-system interval over 2 s: 100 reads and 40 writes of 64 KiB,
/// 10 appends of 8 KiB, and metadata operations.
fn fs_interval() -> Interval {
    let k64 = 65536;
    let mut iv = interval(
        6,
        false,
        dir(100, k64, 2.0, 300.0, 900.0, 10.0),
        dir(40, k64, 2.0, 800.0, 2000.0, 10.0),
    );
    let meta = [
        ("append", dir(10, 8192, 2.0, 500.0, 600.0, 1.0)),
        ("create", dir(6, 0, 2.0, 40.0, 90.0, 1.0)),
        ("open", dir(20, 0, 2.0, 10.0, 20.0, 1.0)),
        ("close", dir(26, 0, 2.0, 2.0, 4.0, 1.0)),
        ("delete", dir(4, 0, 2.0, 30.0, 31.0, 1.0)),
        ("stat", dir(8, 0, 2.0, 3.0, 5.0, 1.0)),
    ];
    let mut all = iv.total.clone();
    for (n, d) in meta {
        all = merge_dir(&all, &d);
        iv.ops.insert(n.to_string(), d);
    }
    iv.all = Some(all);
    iv
}

#[test]
fn a_file_system_line_has_vdbench_columns() {
    let iv = fs_interval();
    let cols = fs_op_columns(&[Op::Read, Op::Create, Op::Stat]);
    let names: Vec<&str> = cols.iter().map(|c| c.0).collect();
    assert_eq!(
        names,
        ["mkdir", "rmdir", "create", "open", "close", "delete", "stat"]
    );
    let line = fs_line(TOD, &label(&iv), &Figures::of_interval(&iv), 8, &cols);
    let v = nums(&line);
    let ops = 100 + 40 + 10 + 6 + 20 + 26 + 4 + 8;
    let wbytes = 40.0 * 65536.0 + 10.0 * 8192.0;
    let rbytes = 100.0 * 65536.0;
    let req_resp = (100.0 * 0.3
        + 40.0 * 0.8
        + 10.0 * 0.5
        + 6.0 * 0.04
        + 20.0 * 0.01
        + 26.0 * 0.002
        + 4.0 * 0.03
        + 8.0 * 0.003)
        / ops as f64;
    let want = [
        ops as f64 / 2.0,                    // ReqstdOps rate
        req_resp,                            // ReqstdOps resp, ms
        80.0 / 8.0,                          // cpu% total
        50.0 / 8.0,                          // cpu% sys
        100.0 * 100.0 / 150.0,               // read pct
        50.0,                                // read rate
        0.3,                                 // read resp
        25.0,                                // write rate (writes + appends)
        (40.0 * 0.8 + 10.0 * 0.5) / 50.0,    // write resp
        rbytes / 2.0 / 1048576.0,            // mb/sec read
        wbytes / 2.0 / 1048576.0,            // mb/sec write
        (rbytes + wbytes) / 2.0 / 1048576.0, // mb/sec total
        ((rbytes + wbytes) / 150.0).floor(), // xfer size
        0.0,
        0.0, // mkdir
        0.0,
        0.0, // rmdir
        3.0,
        0.04, // create
        10.0,
        0.01, // open
        13.0,
        0.002, // close
        2.0,
        0.03, // delete
        4.0,
        0.003, // stat
    ];
    let prec = [
        0.1, 0.001, 0.1, 0.01, 0.1, 0.1, 0.001, 0.1, 0.001, 0.01, 0.01, 0.01, 1.0, 0.1, 0.001, 0.1,
        0.001, 0.1, 0.001, 0.1, 0.001, 0.1, 0.001, 0.1, 0.001, 0.1, 0.001,
    ];
    assert_eq!(v.len(), want.len(), "{line}");
    for (i, ((g, w), p)) in v.iter().zip(want).zip(prec).enumerate() {
        // vdbench's %F truncates a decimal it has no room for.
        assert!((g - w).abs() <= p + 1e-9, "column {i}: {g} vs {w}: {line}");
    }
    let h = fs_header("Nov 25, 2026", &cols);
    assert_eq!(ends(&h[2]), ends(&line)[2..].to_vec(), "\n{}\n{line}", h[2]);
    assert_eq!(h[1].len(), h[2].len(), "\n{}\n{}", h[1], h[2]);
    assert_eq!(h[1].len(), line.len());
    assert!(
        h[1].starts_with("Nov 25, 2026 .Interval. .ReqstdOps... ...cpu%...  read ....read.....")
    );
    assert!(h[1].ends_with(" ...delete... ....stat...."), "{}", h[1]);
}

#[test]
fn counters_are_vdbench_s_miscellaneous_statistics() {
    let c = FilesetCounts {
        files_created: 64,
        dirs_created: 4,
        closes: 1_234_567,
        ..Default::default()
    };
    let lines = counters(TOD, &c, 10.0);
    assert_eq!(lines[1], format!("{TOD} Miscellaneous statistics:"));
    let row = |what: &str| lines.iter().find(|l| l.contains(what)).unwrap().clone();
    let files = row("Files created:");
    assert!(files.starts_with(&format!("{TOD} FILE_CREATES        Files created:")));
    let f: Vec<&str> = files.split_whitespace().collect();
    assert_eq!(f[f.len() - 2..], ["64", "6/sec"]);
    let closes: Vec<String> = row("Close requests")
        .split_whitespace()
        .map(String::from)
        .collect();
    assert_eq!(closes[closes.len() - 2..], ["1,234,567", "123,456/sec"]);
    // Counters that stayed zero are not listed.
    assert!(!lines.iter().any(|l| l.contains("Files deleted")));
    let zero = counters(TOD, &FilesetCounts::default(), 10.0);
    assert_eq!(
        zero,
        [format!(
            "{TOD} Miscellaneous statistics: All counters are zero"
        )]
    );
    assert_eq!(iolab_spec::thousands(999), "999");
    assert_eq!(iolab_spec::thousands(1000), "1,000");
}

#[test]
fn the_printer_repeats_the_header_every_30_intervals() {
    let mut spec = RunSpec::single(iolab_spec::WorkloadSpec::example(
        "wd1", "/tmp/x", "randread",
    ));
    spec.name = "rd1".into();
    spec.duration_s = Some(62.0);
    spec.warmup_s = 0.0;
    let now = LocalTime::default();
    let mut p = Printer::new(1);
    let start = p.started(&spec, &now);
    assert!(
        start[1].ends_with("Starting RD=rd1; I/O rate: Uncontrolled MAX; elapsed=62;"),
        "{start:?}"
    );
    let d = || dir(100, 4096, 2.0, 100.0, 200.0, 5.0);
    let mut headers = Vec::new();
    for i in 0..62 {
        let out = p.interval(&interval(i, false, d(), d()), &now);
        if out.len() > 1 {
            headers.push(i + 1);
            assert_eq!(out.len(), 4);
        }
    }
    assert_eq!(headers, [1, 31, 61]);
}

#[test]
fn the_printer_ends_a_file_system_run_with_its_average_and_counters() {
    use iolab_raw::RunRaw;
    let run = crate::build_run(&RunRaw::single(crate::testraw::fs_workload("fs")));
    let spec = RunSpec::single(run.workloads[0].spec.clone());
    let now = LocalTime::default();
    let mut p = Printer::new(2);
    let start = p.started(&spec, &now);
    assert!(start[1].contains("Starting RD=") && start[1].ends_with("fwdrate=max. "));
    let ivs: Vec<String> = run
        .intervals
        .iter()
        .flat_map(|iv| p.interval(iv, &now))
        .collect();
    // The flow's stat shows in a column of its own.
    assert!(ivs[1].ends_with(" ...delete... ....stat...."), "{ivs:?}");
    let end = p.finished(&run, &now);
    let avg = &end[0];
    let f: Vec<&str> = avg.split_whitespace().collect();
    assert_eq!(f[1], "avg_1-1");
    // Every operation put in (testraw): 10997 over the measured second.
    let secs = run.measured_s;
    let all = 1000 + 1000 + 3000 + 2000 + 1000 + 1000 + 1000 + 997;
    assert_eq!(f[2], fit(all as f64 / secs, 6, 1).trim());
    // Writes and appends are vdbench's writes: 2000 over the second.
    assert_eq!(f[9], fit(2000.0 / secs, 6, 1).trim(), "{avg}");
    // Opens and closes are the flow's timed steps.
    let open = f.len() - 8;
    assert_eq!(f[open], fit(2000.0 / secs, 5, 1).trim(), "{avg}");
    assert_eq!(f[open + 2], fit(3000.0 / secs, 5, 1).trim(), "{avg}");
    let created = end.iter().find(|l| l.contains("Files created:")).unwrap();
    assert!(created.contains(" 1,000 "), "{created}");
    assert!(end
        .iter()
        .any(|l| l.contains("Close requests:") && l.contains("3,000")));
}
