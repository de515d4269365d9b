//! From a raw run to its record in the result document: rates, percentiles,
//! CPU shares. Pure computation.

use crate::model::*;
use iolab_raw::errno_name;
use iolab_raw::{CpuTime, DirStats, IntervalRaw, RawRun};
use iolab_stats::LatHist;
use std::time::SystemTime;

pub fn rfc3339(t: SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}

fn dir(d: &DirStats, secs: f64) -> DirResult {
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
    let total = both(iv.ops.read(), iv.ops.write());
    Interval {
        index: iv.index,
        start_s: iv.start_ns as f64 / 1e9,
        end_s: iv.end_ns as f64 / 1e9,
        warmup: iv.warmup,
        read: dir(iv.ops.read(), secs),
        write: dir(iv.ops.write(), secs),
        total: dir(&total, secs),
        errors: iv.errors,
        cpu: iv.cpu.map(|c| cpu(c, secs, total.ops)),
        workers_late: iv.workers_late,
    }
}

pub fn build_run(raw: &RawRun) -> RunResult {
    let secs = raw.measured_ns as f64 / 1e9;
    let total = both(raw.ops.read(), raw.ops.write());
    let summary = Summary {
        read: dir(raw.ops.read(), secs),
        write: dir(raw.ops.write(), secs),
        total: dir(&total, secs),
        cpu: cpu(raw.cpu, secs, total.ops),
        fsyncs: raw.fsyncs,
        rate: raw.spec.rate_iops.map(|r| Rate {
            requested_iops: r,
            achieved_iops: if secs > 0.0 {
                total.ops as f64 / secs
            } else {
                0.0
            },
        }),
    };
    let s = &raw.stalls;
    let stalls = Stalls {
        longest_gap_ms: s.longest.map(|g| g.len() as f64 / 1e6).unwrap_or(0.0),
        longest_gap_start_s: s.longest.map(|g| g.start_ns as f64 / 1e9),
        longest_gap_end_s: s.longest.map(|g| g.end_ns as f64 / 1e9),
        exact: s.exact,
        threshold_ms: raw.spec.stall_threshold_s * 1e3,
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
    };
    RunResult {
        name: raw.spec.name.clone(),
        spec: raw.spec.clone(),
        effective: Effective {
            engine: raw.effective.engine.clone(),
            registered_buffers: raw.effective.registered_buffers,
            registered_files: raw.effective.registered_files,
            ring_flags: raw.effective.ring_flags.clone(),
            clock: raw.effective.clock.to_string(),
            direct: raw.effective.direct,
            qd: raw.effective.qd,
            jobs: raw.effective.jobs,
        },
        targets: raw
            .targets
            .iter()
            .map(|t| TargetResult {
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
            })
            .collect(),
        started_at: rfc3339(raw.started_at),
        complete: raw.complete,
        incomplete_reason: raw.incomplete_reason.clone(),
        warmup_s: raw.warmup_ns as f64 / 1e9,
        measured_s: secs,
        summary,
        intervals: raw.intervals.iter().map(interval_record).collect(),
        stalls,
        errors: raw
            .errors
            .iter()
            .map(|e| IoError {
                target: e.target.clone(),
                offset: e.offset,
                len: e.len,
                op: e.op.into(),
                errno: e.errno,
                error: errno_name(e.errno),
                time_s: e.time_ns as f64 / 1e9,
                worker: e.worker,
            })
            .collect(),
        error_counts: raw
            .errno_counts
            .iter()
            .map(|&(e, n)| ErrorCount {
                errno: e,
                error: errno_name(e),
                count: n,
            })
            .collect(),
        errors_total: raw.errors_total,
        latency_histograms: Histograms {
            read: hist(&raw.ops.read().lat),
            write: hist(&raw.ops.write().lat),
        },
        notes: raw.notes.clone(),
        verify: raw.verify.as_ref().map(verify_result),
        devices: None,
        advice: Vec::new(),
        point: None,
        repeat: None,
        params: Default::default(),
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
        by_class,
        findings: t.findings.clone(),
        max_errors: v.max_errors,
        stopped_on_max_errors: v.stopped_on_max_errors,
        read_errors: Vec::new(),
        bytes_scanned: 0,
    }
}
