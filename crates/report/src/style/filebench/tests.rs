//! filebench's layout against run records built from hand-made raw
//! figures (crate::testraw): each printed figure is recomputed here from
//! the counts, bytes and latencies put in.

use super::*;
use crate::testraw;
use iolab_raw::RunRaw;
use iolab_spec::JobOrigin;

fn fs_run() -> RunResult {
    crate::build_run(&RunRaw::single(testraw::fs_workload("fileserver")))
}

/// The fields of a breakdown line: name, ops, ops/s, mb/s, ms/op, min,
/// max.
fn fields(line: &str) -> (String, u64, f64, f64, f64, f64, f64) {
    let t: Vec<&str> = line.split_whitespace().collect();
    let num = |s: &str, unit: &str| -> f64 {
        s.trim_start_matches('[')
            .trim_end_matches(']')
            .strip_suffix(unit)
            .unwrap_or_else(|| panic!("{s} in {line}"))
            .parse()
            .unwrap()
    };
    (
        t[0].to_string(),
        t[1].strip_suffix("ops").unwrap().parse().unwrap(),
        num(t[2], "ops/s"),
        num(t[3], "mb/s"),
        num(t[4], "ms/op"),
        num(t[5], "ms"),
        num(t[7], "ms"),
    )
}

#[test]
fn the_breakdown_lists_each_operation_last_step_first() {
    let r = fs_run();
    let lines = run_lines(&r);
    let t = r.warmup_s + r.measured_s;
    assert_eq!(lines[0], format!("{t:.3}: Run took 1 seconds..."));
    assert_eq!(lines[1], format!("{t:.3}: Per-Operation Breakdown"));
    let names: Vec<String> = lines[2..lines.len() - 1]
        .iter()
        .map(|l| fields(l).0)
        .collect();
    // The flow: create, write, close, open, append, close, open, read,
    // close, delete, stat; filebench lists the last flowop first.
    assert_eq!(
        names,
        ["stat", "delete", "read", "append", "open", "close", "write", "create"]
    );
    // read: 1000 of 128 KiB over the measured second, 50 us .. 650 us.
    let read = lines.iter().find(|l| l.starts_with("read ")).unwrap();
    assert!(
        read.starts_with(&format!("{:<20} 1000ops", "read")),
        "{read}"
    );
    let (_, ops, ops_s, mb_s, ms_op, min, max) = fields(read);
    let secs = r.measured_s;
    assert_eq!(ops, 1000);
    assert!((ops_s - (1000.0 / secs).round()).abs() < 1e-9, "{read}");
    assert!(
        (mb_s - 1000.0 * 131072.0 / 1048576.0 / secs).abs() <= 0.05,
        "{read}"
    );
    // Latencies were spread evenly from 50 us up to 650 us.
    let mean_ms = (0..1000u64)
        .map(|i| 50_000 + 600_000 * i / 1000)
        .sum::<u64>() as f64
        / 1000.0
        / 1e6;
    assert!((ms_op - mean_ms).abs() < 0.0005 + mean_ms * 0.01, "{read}");
    assert!((min - 0.050).abs() < 0.0005, "{read}");
    assert!((max - 0.6494).abs() < 0.01, "{read}");
}

#[test]
fn the_io_summary_counts_every_operation() {
    let r = fs_run();
    let lines = run_lines(&r);
    let last = lines.last().unwrap();
    let t = r.warmup_s + r.measured_s;
    let rest = last
        .strip_prefix(&format!("{t:.3}: IO Summary: "))
        .unwrap_or_else(|| panic!("{last}"));
    let f: Vec<&str> = rest.split_whitespace().collect();
    let secs = r.measured_s;
    let ops = 1000 + 1000 + 3000 + 2000 + 1000 + 1000 + 1000 + 997;
    assert_eq!(f[0].parse::<u64>().unwrap(), ops);
    assert!((f[2].parse::<f64>().unwrap() - ops as f64 / secs).abs() < 0.001);
    // Reads; writes and appends.
    assert_eq!(f[4], format!("{:.0}/{:.0}", 1000.0 / secs, 2000.0 / secs));
    let bytes = 1000.0 * 131072.0 * 2.0 + 1000.0 * 16384.0;
    let mb: f64 = f[6].strip_suffix("mb/s").unwrap().parse().unwrap();
    assert!((mb - bytes / 1048576.0 / secs).abs() <= 0.05, "{last}");
    assert!(f[7].ends_with("ms/op"), "{last}");
}

#[test]
fn flowop_names_come_from_a_filebench_origin() {
    let mut r = fs_run();
    let w = &mut r.workloads[0];
    let opt = |k: &str, v: &str| (k.to_string(), v.to_string());
    w.spec.origin = Some(JobOrigin {
        format: "filebench".into(),
        section: "filereader".into(),
        options: vec![
            opt("flowop.1", "createfile1"),
            opt("flowop.2", "wrtfile1"),
            opt("flowop.3", "closefile1"),
            opt("flowop.6", "closefile2"),
            opt("flowop.8", "readfile1"),
            opt("flowop.stat", "statfile1"),
            opt("flowop.99", "nosuchstep"),
        ],
        ..Default::default()
    });
    let lines = workload_lines(&r.workloads[0], "");
    let names: Vec<&str> = lines.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "statfile1",
            "delete",
            "readfile1",
            "append",
            "open",
            "closefile1+closefile2",
            "wrtfile1",
            "createfile1"
        ]
    );
    // An origin of another format names nothing.
    r.workloads[0].spec.origin.as_mut().unwrap().format = "fio".into();
    assert!(flowop_names(&r.workloads[0].spec).is_empty());
}

#[test]
fn a_block_workload_shows_read_and_write() {
    use iolab_raw::Op;
    let mut o = testraw::ops(Op::Read, 300, 100_000);
    o.merge(&testraw::ops(Op::Write, 100, 300_000));
    let r = crate::build_run(&RunRaw::single(testraw::workload(
        "blk",
        "randrw",
        vec![(0, o)],
    )));
    let lines = run_lines(&r);
    assert_eq!(lines.len(), 5, "{lines:#?}");
    let (n, ops, ..) = fields(&lines[2]);
    assert_eq!((n.as_str(), ops), ("read", 300));
    let (n, ops, _, _, ms, ..) = fields(&lines[3]);
    assert_eq!((n.as_str(), ops), ("write", 100));
    assert!((ms - 0.3).abs() < 0.005, "{}", lines[3]);
    let s = workload_summary(&r.workloads[0]);
    assert_eq!(s.ops, 400);
    assert!((s.ms_per_op - (300.0 * 0.1 + 100.0 * 0.3) / 400.0).abs() < 0.002);
    assert!((s.mb_per_s - 400.0 * 4096.0 / 1048576.0 / r.measured_s).abs() < 1e-9);
}

#[test]
fn line_formats_are_filebench_s() {
    let l = OpLine {
        name: "readfile1".into(),
        ops: 12345,
        ops_per_s: 205.75,
        mb_per_s: 25.71,
        ms_per_op: 1.23456,
        min_ms: 0.0123,
        max_ms: 45.6789,
    };
    assert_eq!(
        l.text(),
        "readfile1            12345ops      206ops/s  25.7mb/s    1.235ms/op [0.012ms - 45.679ms]"
    );
    let s = Summary {
        ops: 42,
        ops_per_s: 4.2,
        read_per_s: 1.4,
        write_per_s: 2.6,
        mb_per_s: 0.25,
        ms_per_op: 0.5,
    };
    assert_eq!(
        s.text(),
        "IO Summary:    42 ops 4.200 ops/s 1/3 rd/wr   0.2mb/s 0.500ms/op"
    );
}
