//! From a raw run to its record in the result document: rates, percentiles,
//! CPU shares. Pure computation.

use crate::model::*;
use iolab_raw::errno_name;
use iolab_raw::{
    CpuTime, DirStats, IntervalRaw, IoErrorRec, Op, OpStats, RunRaw, StallsRaw, TargetRaw,
    WorkloadRaw,
};
use iolab_stats::LatHist;
use std::time::SystemTime;

pub fn rfc3339(t: SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}

pub(crate) fn dir(d: &DirStats, secs: f64) -> DirResult {
    let per_s = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
    DirResult {
        ops: d.ops,
        bytes: d.bytes,
        iops: per_s(d.ops as f64),
        mbps: per_s(d.bytes as f64) / 1e6,
        mibps: per_s(d.bytes as f64) / 1048576.0,
        lat_us: d.lat.summary_us(),
        svc_lat_us: d.svc.as_ref().map(|h| h.summary_us()),
    }
}

fn both(r: &DirStats, w: &DirStats) -> DirStats {
    let mut t = r.clone();
    t.merge(w);
    t
}

fn cpu(c: CpuTime, secs: f64, ops: u64) -> Cpu {
    let us = secs * 1e6;
    Cpu {
        user_pct: if us > 0.0 {
            c.user_us as f64 / us * 100.0
        } else {
            0.0
        },
        sys_pct: if us > 0.0 {
            c.sys_us as f64 / us * 100.0
        } else {
            0.0
        },
        usec_per_io: if ops > 0 {
            (c.user_us + c.sys_us) as f64 / ops as f64
        } else {
            0.0
        },
    }
}

fn hist(h: &LatHist) -> HistogramData {
    HistogramData {
        unit: "ns".into(),
        significant_digits: iolab_stats::SIGFIG,
        min_ns: h.min(),
        max_ns: h.max(),
        sum_ns: h.sum(),
        buckets: h.buckets(),
    }
}

/// One interval of the time series as the document records it.
pub fn interval_record(iv: &IntervalRaw) -> Interval {
    let secs = (iv.end_ns.saturating_sub(iv.start_ns)) as f64 / 1e9;
    let total = total_of(&iv.ops);
    Interval {
        index: iv.index,
        start_s: iv.start_ns as f64 / 1e9,
        end_s: iv.end_ns as f64 / 1e9,
        warmup: iv.warmup,
        read: dir(iv.ops.read(), secs),
        write: dir(iv.ops.write(), secs),
        trim: iv.ops.get(Op::Trim).map(|d| dir(d, secs)),
        total: dir(&total, secs),
        errors: iv.errors,
        cpu: iv.cpu.map(|c| cpu(c, secs, total.ops)),
        workers_late: iv.workers_late,
        all: crate::fs::all_ops(&iv.ops).map(|a| dir(&a, secs)),
        ops: other_ops(&iv.ops, secs),
    }
}

/// The operations of `ops` other than read, write and trim, by name.
fn other_ops(ops: &OpStats, secs: f64) -> std::collections::BTreeMap<String, DirResult> {
    ops.iter()
        .filter(|(o, _)| !matches!(o, Op::Read | Op::Write | Op::Trim))
        .map(|(o, d)| (o.name().to_string(), dir(d, secs)))
        .collect()
}

/// Rates and latencies of `ops` over `secs` seconds: read, write, their
/// total (every operation in the table; a block workload's fsyncs are not
/// in it, `fsyncs` counts them) and the other operations by name.
fn summary(ops: &OpStats, fsyncs: u64, c: CpuTime, secs: f64, rate: Option<f64>) -> Summary {
    let total = total_of(ops);
    Summary {
        read: dir(ops.read(), secs),
        write: dir(ops.write(), secs),
        total: dir(&total, secs),
        cpu: cpu(c, secs, total.ops),
        fsyncs,
        rate: rate.map(|r| Rate {
            requested_iops: r,
            achieved_iops: if secs > 0.0 {
                total.ops as f64 / secs
            } else {
                0.0
            },
        }),
        ops: other_ops(ops, secs),
        trim: ops.get(Op::Trim).map(|d| dir(d, secs)),
    }
}

/// Every operation of the table merged: reads, writes and trims for a
/// block workload (whose fsyncs stay out of the table, in `fsyncs`),
/// every operation, fsync and fdatasync included, for a file-system
/// workload (as its IO summary counts them). A trim's bytes are not data
/// moved: trims count in the total's operations and latencies, not in its
/// bytes (`trim.bytes` has them).
fn total_of(ops: &OpStats) -> DirStats {
    let mut t = both(ops.read(), ops.write());
    for (o, d) in ops.iter() {
        match o {
            Op::Read | Op::Write => {}
            Op::Trim => {
                let mut d = d.clone();
                d.bytes = 0;
                t.merge(&d);
            }
            _ => t.merge(d),
        }
    }
    t
}

fn stalls(s: &StallsRaw, threshold_s: f64) -> Stalls {
    Stalls {
        longest_gap_ms: s.longest.map(|g| g.len() as f64 / 1e6).unwrap_or(0.0),
        longest_gap_start_s: s.longest.map(|g| g.start_ns as f64 / 1e9),
        longest_gap_end_s: s.longest.map(|g| g.end_ns as f64 / 1e9),
        exact: s.exact,
        threshold_ms: threshold_s * 1e3,
        events: s
            .events
            .iter()
            .map(|g| StallEvent {
                start_s: g.start_ns as f64 / 1e9,
                end_s: g.end_ns as f64 / 1e9,
                duration_ms: g.len() as f64 / 1e6,
            })
            .collect(),
        zero_intervals: s.zero_intervals.clone(),
        provisional: false,
    }
}

fn effective(e: &iolab_raw::Effective) -> Effective {
    Effective {
        engine: e.engine.clone(),
        registered_buffers: e.registered_buffers,
        registered_files: e.registered_files,
        ring_flags: e.ring_flags.clone(),
        clock: e.clock.to_string(),
        direct: e.direct,
        qd: e.qd,
        jobs: e.jobs,
    }
}

fn target(t: &TargetRaw, secs: f64) -> TargetResult {
    TargetResult {
        path: t.path.clone(),
        kind: t.kind.into(),
        size: t.size,
        region_start: t.region_start,
        region_len: t.region_len,
        logical_block_size: t.logical_block_size,
        created: t.created,
        prefilled_bytes: t.prefilled_bytes,
        prefill_s: t.prefill_secs,
        measured: t.measured.map(|(ops, bytes)| {
            let per_s = |x: u64| if secs > 0.0 { x as f64 / secs } else { 0.0 };
            TargetIo {
                ops,
                bytes,
                iops: per_s(ops),
                mbps: per_s(bytes) / 1e6,
            }
        }),
    }
}

fn io_error(e: &IoErrorRec) -> IoError {
    IoError {
        target: e.target.clone(),
        offset: e.offset,
        len: e.len,
        op: e.op.into(),
        errno: e.errno,
        error: errno_name(e.errno),
        time_s: e.time_ns as f64 / 1e9,
        worker: e.worker,
    }
}

fn error_count(e: i32, n: u64) -> ErrorCount {
    ErrorCount {
        errno: e,
        error: errno_name(e),
        count: n,
    }
}

fn histograms(ops: &OpStats) -> Histograms {
    Histograms {
        read: hist(&ops.read().lat),
        write: hist(&ops.write().lat),
        trim: ops.get(Op::Trim).map(|d| hist(&d.lat)),
    }
}

/// An event as the document records it (seconds of run time).
pub fn event_record(e: &iolab_raw::EventRaw) -> Event {
    Event {
        time_s: e.time_ns as f64 / 1e9,
        label: e.label.clone(),
        source: e.source.clone(),
    }
}

/// The steady-state check of a workload that has one (fio `ss`).
fn steady_state(w: &WorkloadRaw) -> Option<SteadyState> {
    let spec = w.spec.steady?;
    let raw = w.steady.clone().unwrap_or_default();
    let mean = |v: &[f64]| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    Some(SteadyState {
        criterion: spec.criterion().to_string(),
        limit: spec.limit,
        percent: spec.percent,
        duration_s: spec.duration_s,
        ramp_s: spec.ramp_s,
        reached: raw.reached,
        reached_at_s: raw.reached_at_ns.map(|n| n as f64 / 1e9),
        value: raw.value.filter(|v| v.is_finite()).unwrap_or(0.0),
        iops_mean: mean(&raw.samples_iops),
        bw_mean: mean(&raw.samples_bw),
        lat_mean_ns: mean(&raw.samples_lat_ns),
        samples_iops: raw.samples_iops,
        samples_bw: raw.samples_bw,
        samples_lat_ns: raw.samples_lat_ns,
    })
}

/// One workload's entry in `runs[].workloads[]`.
pub fn build_workload(w: &WorkloadRaw) -> WorkloadResult {
    let secs = w.measured_ns as f64 / 1e9;
    let mut r = WorkloadResult {
        name: w.spec.name.clone(),
        spec: w.spec.clone(),
        start_s: w.start_ns as f64 / 1e9,
        end_s: w.end_ns as f64 / 1e9,
        effective: effective(&w.effective),
        targets: w.targets.iter().map(|t| target(t, secs)).collect(),
        complete: w.complete,
        incomplete_reason: w.incomplete_reason.clone(),
        ended_by: w.ended_by.clone(),
        measured_s: secs,
        summary: summary(&w.ops, w.fsyncs, w.cpu, secs, w.spec.rate_iops),
        intervals: w.intervals.iter().map(interval_record).collect(),
        stalls: stalls(&w.stalls, w.spec.stall_threshold_s),
        errors: w.errors.iter().map(io_error).collect(),
        error_counts: w
            .errno_counts
            .iter()
            .map(|&(e, n)| error_count(e, n))
            .collect(),
        errors_total: w.errors_total,
        latency_histograms: histograms(&w.ops),
        notes: w.notes.clone(),
        verify: w.verify.as_ref().map(verify_result),
        operations: Default::default(),
        fileset: None,
        filesets: Vec::new(),
        io_summary: None,
        sync_ops: Vec::new(),
        backend: None,
        backend_reason: None,
        cpu_basis: None,
        steady_state: steady_state(w),
    };
    if let Some(fs) = &w.fs {
        crate::fs::add_fs(&mut r, w, fs);
    }
    r
}

/// The run's requested rate: the sum of its workloads' when every one has
/// a rate (a run-level rate shared by skew is the sum of the shares),
/// otherwise none.
fn run_rate(raw: &RunRaw) -> Option<f64> {
    if raw.workloads.is_empty() {
        return None;
    }
    raw.workloads.iter().map(|w| w.spec.rate_iops).sum()
}

/// The run's record: the whole (every workload together) at the top and
/// each workload in `workloads[]`. A run with no workload (a monitor)
/// has no `spec` or `effective`, an empty summary and only the intervals,
/// stalls and events the run core recorded.
pub fn build_run(raw: &RunRaw) -> RunResult {
    let secs = raw.measured_ns as f64 / 1e9;
    let workloads: Vec<WorkloadResult> = raw.workloads.iter().map(build_workload).collect();
    let first = raw.workloads.first();
    // The whole run's stalls use the lowest threshold any workload asked for.
    let threshold = raw
        .workloads
        .iter()
        .map(|w| w.spec.stall_threshold_s)
        .reduce(f64::min)
        .unwrap_or(0.0);
    let mut errors: Vec<IoError> = workloads.iter().flat_map(|w| w.errors.clone()).collect();
    errors.sort_by(|a, b| a.time_s.total_cmp(&b.time_s));
    let mut counts = std::collections::BTreeMap::<i32, u64>::new();
    for w in &raw.workloads {
        for &(e, n) in &w.errno_counts {
            *counts.entry(e).or_default() += n;
        }
    }
    let mut verify: Option<VerifyResult> = None;
    for v in workloads.iter().filter_map(|w| w.verify.as_ref()) {
        match verify.as_mut() {
            None => verify = Some(v.clone()),
            Some(t) => t.add(v),
        }
    }
    RunResult {
        name: raw.name.clone(),
        spec: first.map(|w| w.spec.clone()),
        effective: first.map(|w| effective(&w.effective)),
        targets: raw
            .workloads
            .iter()
            .flat_map(|w| {
                w.targets
                    .iter()
                    .map(move |t| target(t, w.measured_ns as f64 / 1e9))
            })
            .collect(),
        started_at: rfc3339(raw.started_at),
        complete: raw.complete,
        incomplete_reason: raw.incomplete_reason.clone(),
        warmup_s: raw.warmup_ns as f64 / 1e9,
        measured_s: secs,
        summary: summary(&raw.ops, raw.fsyncs, raw.cpu, secs, run_rate(raw)),
        intervals: raw.intervals.iter().map(interval_record).collect(),
        stalls: stalls(&raw.stalls, threshold),
        errors,
        error_counts: counts.into_iter().map(|(e, n)| error_count(e, n)).collect(),
        errors_total: raw.workloads.iter().map(|w| w.errors_total).sum(),
        latency_histograms: histograms(&raw.ops),
        notes: raw.notes.clone(),
        verify,
        devices: None,
        advice: Vec::new(),
        point: None,
        repeat: None,
        params: Default::default(),
        curve: None,
        workloads,
        events: raw.events.iter().map(event_record).collect(),
        hosts: Vec::new(),
        start_skew_us: None,
    }
}

fn verify_result(v: &iolab_raw::VerifyRunRaw) -> VerifyResult {
    let t = &v.w.totals;
    let mut by_class = std::collections::BTreeMap::new();
    for c in iolab_verify::Class::ALL {
        by_class.insert(
            c.name().to_string(),
            t.by_class.get(c.name()).copied().unwrap_or(0),
        );
    }
    VerifyResult {
        block_size: v.block_size,
        series: format!("{:016x}", v.series),
        journal: v.journal.clone(),
        journal_resumed: v.journal_resumed,
        journal_sync: v.journal_sync,
        journal_syncs: v.w.journal_syncs,
        journal_sync_ms: v.w.journal_sync_ns as f64 / 1e6,
        journal_crashed: false,
        blocks_prefilled: v.blocks_prefilled,
        blocks_checked: t.blocks_checked,
        blocks_unwritten: t.blocks_unwritten,
        blocks_old_accepted: t.blocks_old_accepted,
        reads_after: v.w.reads_after,
        findings_total: t.findings_total,
        findings_repeated: t.findings_repeated,
        by_class,
        findings: t.findings.clone(),
        max_errors: v.max_errors,
        stopped_on_max_errors: v.stopped_on_max_errors,
        read_errors: Vec::new(),
        bytes_scanned: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testraw;

    #[test]
    fn two_workloads_build_in_order_with_totals_equal_to_their_sum() {
        let r = build_run(&testraw::two_workloads());
        let names: Vec<&str> = r.workloads.iter().map(|w| w.name.as_str()).collect();
        assert_eq!(names, ["reader", "writer"]);
        let (a, b) = (&r.workloads[0], &r.workloads[1]);
        assert_eq!(r.summary.read.ops, a.summary.read.ops + b.summary.read.ops);
        assert_eq!(
            r.summary.write.ops,
            a.summary.write.ops + b.summary.write.ops
        );
        assert_eq!(r.summary.total.ops, 350);
        assert_eq!(r.summary.total.bytes, 350 * 4096);
        assert_eq!(
            r.latency_histograms.write.buckets,
            b.latency_histograms.write.buckets
        );
        // The writer ran from 1 s to 2 s: its entry says so, and its rate is
        // over its own second, not the run's three.
        assert_eq!((b.start_s, b.end_s), (1.0, 2.0));
        assert_eq!((a.start_s, a.end_s), (0.0, 3.0));
        assert_eq!(b.summary.write.iops, 50.0);
        assert_eq!(r.summary.write.iops, 50.0 / 3.0);
        assert_eq!(b.intervals.len(), 1);
        assert_eq!(b.intervals[0].index, 1);
        assert_eq!(r.intervals[1].total.ops, 150);
        // The run's spec and settings are the first workload's.
        assert_eq!(r.spec.as_ref().unwrap().name, "reader");
        assert_eq!(r.effective.as_ref().unwrap().engine, "io_uring");
        assert_eq!(
            r.events,
            vec![Event {
                time_s: 1.5,
                label: "controller A failed".into(),
                source: "mark".into()
            }]
        );
    }

    #[test]
    fn a_run_with_no_workload_builds_and_round_trips() {
        let r = build_run(&testraw::monitor());
        assert!(r.spec.is_none() && r.effective.is_none());
        assert!(r.workloads.is_empty() && r.targets.is_empty());
        assert_eq!(r.intervals.len(), 3);
        assert_eq!(r.summary.total.ops, 0);
        assert_eq!(r.events[0].source, "signal");
        let text = serde_json::to_string(&r).unwrap();
        assert!(!text.contains("\"spec\""), "{text}");
        let back: RunResult = serde_json::from_str(&text).unwrap();
        assert_eq!(back.events, r.events);
        assert!(back.workload_views().is_empty());
    }

    #[test]
    fn other_operations_get_their_own_entry_and_count_in_the_total() {
        let mut raw = testraw::run_of("fs", vec![], 1);
        let mut o = testraw::ops(Op::Read, 10, 1000);
        let st = o.entry(Op::Stat, false);
        st.ops = 5;
        st.lat.record(2000);
        raw.ops = o;
        let r = build_run(&raw);
        assert_eq!(r.summary.ops["stat"].ops, 5);
        assert_eq!(r.summary.total.ops, 15);
        assert!(!r.summary.ops.contains_key("write"));
    }
}
