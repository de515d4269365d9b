//! Tests of leaving a run's interval series out of `Done` and putting it
//! back (synthetic raws).

use super::*;
use iolab_raw::{CpuTime, Op, OpStats, StallsRaw};
use std::time::SystemTime;

const S: u64 = 1_000_000_000;

fn interval(k: u32, ops: u64) -> IntervalRaw {
    let mut iv = IntervalRaw::empty(k, k as u64 * S, (k as u64 + 1) * S, false);
    iv.ops = OpStats::rw(false);
    let d = iv.ops.get_mut(Op::Read).unwrap();
    (d.ops, d.bytes) = (ops, ops * 4096);
    for i in 0..ops {
        d.lat.record(100_000 + i * 10);
    }
    iv
}

fn run(intervals: Vec<IntervalRaw>) -> RunRaw {
    let mut ops = OpStats::rw(false);
    intervals.iter().for_each(|iv| ops.merge(&iv.ops));
    RunRaw {
        name: "r".into(),
        started_at: SystemTime::UNIX_EPOCH,
        warmup_ns: 0,
        interval_ns: S,
        measured_ns: intervals.len() as u64 * S,
        workloads: Vec::new(),
        intervals,
        ops,
        fsyncs: 0,
        cpu: CpuTime::default(),
        stalls: StallsRaw::default(),
        events: Vec::new(),
        complete: true,
        incomplete_reason: None,
        notes: Vec::new(),
        exit_all: false,
    }
}

#[test]
fn only_the_intervals_changed_after_streaming_are_corrected_and_the_rebuild_is_exact() {
    // Streamed 0..50; then the run core added a late worker's 3 I/Os to
    // the last interval.
    let shown: Vec<IntervalRaw> = (0..50).map(|k| interval(k, 100 + k as u64)).collect();
    let mut s = Streamed::default();
    shown.iter().for_each(|iv| s.sent(iv, &[]));
    let mut last = shown.clone();
    last[49] = interval(49, 152);
    let want = run(last);
    let mut raw = want.clone();
    let mut result = iolab_report::build_run(&raw);
    let whole = serde_json::to_vec(&result).unwrap().len();
    let fixes = s.strip(&mut raw, &mut result).expect("stripped");
    assert_eq!(fixes.iter().map(|c| c.index).collect::<Vec<_>>(), [49]);
    assert!(raw.intervals.is_empty() && result.intervals.is_empty());
    let small = serde_json::to_vec(&result).unwrap().len();
    assert!(small * 5 < whole, "{small} of {whole} bytes");
    let streamed: Vec<HostInterval> = shown.into_iter().map(|t| (t, Vec::new())).collect();
    rebuild(&mut raw, &mut result, &streamed, fixes);
    assert_eq!(raw, want);
    let sum: u64 = raw.intervals.iter().map(|iv| iv.ops.total_bytes()).sum();
    assert_eq!(sum, raw.ops.total_bytes());
    assert_eq!(result.intervals.len(), 50);
    assert_eq!(result.intervals[49].total.ops, 152);
}

#[test]
fn an_interval_streamed_but_not_in_the_results_keeps_the_series_in_done() {
    let mut s = Streamed::default();
    (0..3).for_each(|k| s.sent(&interval(k, 1), &[]));
    let mut raw = run((0..2).map(|k| interval(k, 1)).collect());
    let mut result = iolab_report::build_run(&raw);
    assert!(s.strip(&mut raw, &mut result).is_none());
    assert_eq!((raw.intervals.len(), result.intervals.len()), (2, 2));
}

#[test]
fn an_interval_never_streamed_is_a_correction() {
    let mut s = Streamed::default();
    s.sent(&interval(0, 1), &[]);
    let mut raw = run((0..2).map(|k| interval(k, 1)).collect());
    let mut result = iolab_report::build_run(&raw);
    let fixes = s.strip(&mut raw, &mut result).unwrap();
    assert_eq!(fixes.len(), 1);
    assert_eq!(fixes[0].index, 1);
}
