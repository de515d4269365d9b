//! File-system workloads in the result document: each operation's
//! figures (`operations`), vdbench's fileset counters, the filesets,
//! filebench's IO Summary and the operations that fell back to system
//! calls, built from a workload's raw figures ([`iolab_raw::FsRaw`] and
//! its per-operation [`OpStats`]). Pure computation; [`text`] and
//! [`tables`] render it.

pub mod tables;
pub mod text;

use crate::build::dir;
use crate::model::{FilesetCounts, FilesetResult, IoSummary, OpResult, WorkloadResult};
use iolab_raw::{DirStats, FsRaw, Op, OpStats, WorkloadRaw};
use std::collections::BTreeMap;

/// Every operation of `ops` merged, fsync included; `None` when the table
/// holds read and write only (a block workload's interval).
pub fn all_ops(ops: &OpStats) -> Option<DirStats> {
    if ops
        .iter()
        .all(|(o, _)| matches!(o, Op::Read | Op::Write | Op::Trim))
    {
        return None;
    }
    let mut t = DirStats::new(false);
    for (_, d) in ops.iter() {
        t.merge(d);
    }
    Some(t)
}

/// An errno as a document key: `ENOENT`, `short_transfer` for 0,
/// `errno_N` for a number without a name.
pub fn errno_key(e: i32) -> String {
    if e == 0 {
        return "short_transfer".into();
    }
    let name = iolab_raw::errno_name(e);
    match name.split(" (").next() {
        Some(n) if n.starts_with('E') && !n.contains(' ') => n.to_string(),
        _ => format!("errno_{e}"),
    }
}

/// Fill a file-system workload's entry from its raw figures.
pub(crate) fn add_fs(r: &mut WorkloadResult, w: &WorkloadRaw, fs: &FsRaw) {
    let secs = r.measured_s;
    r.operations = operations(&w.ops, fs, w.cpu.user_us + w.cpu.sys_us, secs);
    r.fileset = Some(counts(&fs.counters));
    r.filesets = fs.filesets.iter().map(fileset).collect();
    r.io_summary = Some(io_summary(&w.ops, w.cpu.user_us + w.cpu.sys_us, secs));
    r.sync_ops = fs.sync_ops.iter().map(|o| o.name().to_string()).collect();
    r.backend = (!fs.backend.is_empty()).then(|| fs.backend.clone());
    r.backend_reason = fs.backend_reason.clone();
    if !r.sync_ops.is_empty() {
        if let Some(line) = text::backend_line(r) {
            r.notes.push(line);
        }
    }
}

/// Each operation the workload issued (or saw fail), by name.
fn operations(ops: &OpStats, fs: &FsRaw, cpu_us: u64, secs: f64) -> BTreeMap<String, OpResult> {
    let issued: Vec<Op> = Op::ALL
        .into_iter()
        .filter(|o| ops.get(*o).is_some_and(|d| d.ops > 0) || fs.op_errors.contains_key(o))
        .collect();
    let only_one = issued.len() == 1;
    let empty = DirStats::new(false);
    issued
        .into_iter()
        .map(|o| {
            let d = ops.get(o).unwrap_or(&empty);
            let errors = fs
                .op_errors
                .get(&o)
                .map(|v| error_map(v))
                .unwrap_or_default();
            let res = OpResult {
                figures: dir(d, secs),
                errors,
                cpu_us_per_op: (only_one && d.ops > 0).then(|| cpu_us as f64 / d.ops as f64),
            };
            (o.name().to_string(), res)
        })
        .collect()
}

fn error_map(v: &[(i32, u64)]) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for &(e, n) in v {
        *m.entry(errno_key(e)).or_default() += n;
    }
    m
}

fn counts(c: &iolab_raw::FilesetCounters) -> FilesetCounts {
    FilesetCounts {
        files_created: c.files_created,
        dirs_created: c.dirs_created,
        files_deleted: c.files_deleted,
        dirs_deleted: c.dirs_deleted,
        opens_read: c.opens_read,
        opens_write: c.opens_write,
        closes: c.closes,
    }
}

fn fileset(f: &iolab_raw::FilesetRaw) -> FilesetResult {
    FilesetResult {
        name: f.name.clone(),
        anchor: f.anchor.clone(),
        files: f.files,
        dirs: f.dirs,
        bytes: f.bytes,
        bytes_prealloc: f.bytes_prealloc,
        files_made: f.files_made,
        dirs_made: f.dirs_made,
        files_resized: f.files_resized,
        bytes_written: f.bytes_written,
        create_s: f.create_secs,
        files_at_end: f.files_at_end,
        removed: f.removed,
    }
}

/// filebench's IO Summary of `ops` over `secs`: every operation counts.
fn io_summary(ops: &OpStats, cpu_us: u64, secs: f64) -> IoSummary {
    let per_s = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
    let all = all_ops(ops).unwrap_or_else(|| {
        let mut t = ops.read().clone();
        t.merge(ops.write());
        t
    });
    let writes: u64 = ops
        .iter()
        .filter(|(o, _)| o.writes_data())
        .map(|(_, d)| d.ops)
        .sum();
    IoSummary {
        ops: all.ops,
        ops_per_s: per_s(all.ops as f64),
        read_ops_per_s: per_s(ops.read().ops as f64),
        write_ops_per_s: per_s(writes as f64),
        mbps: per_s(ops.total_bytes() as f64) / 1e6,
        lat_mean_us: if all.ops > 0 {
            all.lat.mean() / 1e3
        } else {
            0.0
        },
        cpu_us_per_op: if all.ops > 0 {
            cpu_us as f64 / all.ops as f64
        } else {
            0.0
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testraw;
    use iolab_raw::RunRaw;

    fn fs_run() -> crate::model::RunResult {
        crate::build_run(&RunRaw::single(testraw::fs_workload("fileserver")))
    }

    #[test]
    fn an_fs_workload_gets_its_operations_counters_and_io_summary() {
        let r = fs_run();
        let w = &r.workloads[0];
        let keys: Vec<&str> = w.operations.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["append", "close", "create", "delete", "open", "read", "stat", "write"]
        );
        let op = |n: &str| &w.operations[n];
        assert_eq!(op("read").figures.ops, 1000);
        assert_eq!(op("read").figures.iops, 1000.0);
        assert_eq!(op("read").figures.bytes, 1000 * 131_072);
        assert_eq!(op("stat").errors, BTreeMap::from([("ENOENT".into(), 3)]));
        assert_eq!(op("write").errors, BTreeMap::from([("ENOSPC".into(), 1)]));
        assert!(op("open").errors.is_empty());
        // Latencies spread from 10 to 50 us: the percentiles in between.
        let l = &op("open").figures.lat_us;
        assert!(
            l.min == 10.0 && l.max < 50.0 && l.p50 > 29.0 && l.p50 < 31.0,
            "{l:?}"
        );
        // Several operations share the CPU: none is given a share.
        assert!(w.operations.values().all(|o| o.cpu_us_per_op.is_none()));
        let s = w.io_summary.unwrap();
        let total = 1000 + 1000 + 3000 + 2000 + 1000 + 1000 + 1000 + 997;
        assert_eq!(s.ops, total);
        assert_eq!(s.ops_per_s, total as f64);
        assert_eq!((s.read_ops_per_s, s.write_ops_per_s), (1000.0, 2000.0));
        assert!(
            (s.mbps - (2.0 * 131.072 + 16.384)).abs() < 1e-9,
            "{}",
            s.mbps
        );
        assert!((s.cpu_us_per_op - 600_000.0 / total as f64).abs() < 1e-9);
        let c = w.fileset.unwrap();
        assert_eq!(
            (c.files_created, c.opens_write, c.closes),
            (1000, 2000, 3000)
        );
        assert_eq!(w.filesets[0].create_s, 4.5);
        assert_eq!(w.sync_ops, ["stat"]);
        assert_eq!(w.backend.as_deref(), Some("io_uring"));
        assert!(w
            .notes
            .iter()
            .any(|n| n.contains("system calls") && n.ends_with("stat")));
        // Each interval of an fs workload carries every operation together.
        let all = r.intervals[0].all.as_ref().unwrap();
        assert_eq!(all.ops, total);
    }

    #[test]
    fn the_mean_of_the_io_summary_weighs_every_operation() {
        let mut o = OpStats::default();
        testraw::add_op(&mut o, Op::Stat, 3, 0, 1_000, 1_001);
        testraw::add_op(&mut o, Op::Fsync, 1, 0, 5_000, 5_001);
        let s = io_summary(&o, 0, 1.0);
        assert_eq!(s.ops, 4);
        assert!((s.lat_mean_us - 2.0).abs() < 1e-9, "{}", s.lat_mean_us);
        assert_eq!(s.mbps, 0.0);
    }

    #[test]
    fn a_workload_of_one_operation_gets_cpu_per_operation() {
        let mut w = testraw::fs_workload("creates");
        let mut o = OpStats::default();
        testraw::add_op(&mut o, Op::Create, 600, 0, 1_000, 2_000);
        w.ops = o;
        w.fs.as_mut().unwrap().op_errors.clear();
        let r = crate::build_workload(&w);
        assert_eq!(r.operations.len(), 1);
        assert_eq!(r.operations["create"].cpu_us_per_op, Some(1000.0));
    }

    #[test]
    fn block_workloads_keep_their_document() {
        let r = crate::build_run(&testraw::two_workloads());
        let text = serde_json::to_string(&r).unwrap();
        for k in ["operations", "fileset", "io_summary", "sync_ops", "\"all\""] {
            assert!(!text.contains(k), "{k} in a block run's record");
        }
    }

    #[test]
    fn an_fs_record_round_trips_through_the_document() {
        let doc = crate::model::ResultDoc {
            runs: vec![fs_run()],
            ..Default::default()
        };
        let text = serde_json::to_string(&doc).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let stat = &v["runs"][0]["workloads"][0]["operations"]["stat"];
        assert_eq!(stat["ops"], 997);
        assert_eq!(stat["errors"]["ENOENT"], 3);
        assert!(stat["lat_us"]["p99_99"].is_number(), "{stat}");
        let back = crate::parse_document(&text, "t.json").unwrap();
        let w = &back.runs[0].workloads[0];
        assert_eq!(w.operations["stat"].figures.ops, 997);
        assert_eq!(w.fileset, doc.runs[0].workloads[0].fileset);
    }

    #[test]
    fn errno_keys_are_names() {
        assert_eq!(errno_key(libc::ENOENT), "ENOENT");
        assert_eq!(errno_key(0), "short_transfer");
        assert_eq!(errno_key(9999), "errno_9999");
        assert_eq!(errno_key(libc::EEXIST), "EEXIST");
        assert_eq!(errno_key(libc::ENOTEMPTY), "ENOTEMPTY");
    }

    /// The summary names the backend really used and why system calls,
    /// not "no io_uring opcode" for operations run by choice.
    #[test]
    fn the_backend_line_says_which_ran_and_why() {
        let mut w = crate::build::build_workload(&testraw::fs_workload("fs"));
        assert_eq!(
            text::backend_line(&w).unwrap(),
            "backend: io_uring; by system calls (no io_uring opcode on this kernel): stat"
        );
        w.sync_ops.clear();
        w.backend = Some("sync".into());
        w.backend_reason = Some("--qd 1: nothing to overlap".into());
        let line = text::backend_line(&w).unwrap();
        assert_eq!(line, "backend: system calls (--qd 1: nothing to overlap)");
        assert!(text::fs_summary(&w).contains(&line));
        let doc = serde_json::to_string(&w).unwrap();
        assert!(
            doc.contains(r#""backend":"sync","backend_reason":"--qd 1"#),
            "{doc}"
        );
    }
}
