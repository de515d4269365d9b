//! File-system workloads in the result document: each operation's
//! figures (`operations`), vdbench's fileset counters, the filesets,
//! filebench's IO Summary and the operations that fell back to system
//! calls, built from a workload's raw figures ([`iolab_raw::FsRaw`] and
//! its per-operation [`OpStats`]). Pure computation; [`text`] and
//! [`tables`] render it.

pub mod tables;
pub mod text;

use crate::build::dir;
use crate::model::{CpuBasis, FilesetCounts, FilesetResult, IoSummary, OpResult, WorkloadResult};
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
    r.cpu_basis = Some(basis_of(fs));
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
    let empty = DirStats::new(false);
    let issued: Vec<(Op, &DirStats)> = Op::ALL
        .into_iter()
        .filter(|o| ops.get(*o).is_some_and(|d| d.ops > 0) || fs.op_errors.contains_key(o))
        .map(|o| (o, ops.get(o).unwrap_or(&empty)))
        .collect();
    let basis = basis_of(fs);
    let parts: Vec<CpuPart> = issued
        .iter()
        .map(|&(o, d)| CpuPart::of(basis, o, d, fs))
        .collect();
    let cpu = cpu_split(cpu_us as f64, &parts);
    issued
        .into_iter()
        .zip(cpu)
        .map(|((o, d), cpu_us_per_op)| {
            let errors = fs
                .op_errors
                .get(&o)
                .map(|v| error_map(v))
                .unwrap_or_default();
            let sampled = fs.op_cpu.get(&o).copied().unwrap_or_default();
            let res = OpResult {
                figures: dir(d, secs),
                errors,
                cpu_us_per_op,
                cpu_us_sampled: (basis == CpuBasis::Sampled && sampled.samples > 0)
                    .then(|| sampled.cpu_ns as f64 / sampled.samples as f64 / 1e3),
                cpu_samples: (basis == CpuBasis::Sampled).then_some(sampled.samples),
            };
            (o.name().to_string(), res)
        })
        .collect()
}

/// An operation kind with fewer sampled executions than this has no
/// `cpu_us_per_op` (its share of the CPU is not known well enough).
pub const MIN_CPU_SAMPLES: u64 = 8;

/// How the raw results of `fs` divide its CPU: sampled when its threads
/// measured the CPU of sampled operations.
fn basis_of(fs: &FsRaw) -> CpuBasis {
    if fs.cpu_sampled {
        CpuBasis::Sampled
    } else {
        CpuBasis::Latency
    }
}

/// One operation in the division of a workload's CPU.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpuPart {
    /// Operations completed.
    pub ops: u64,
    /// Its share's weight: `ops` x the sampled mean CPU (no samples: 0,
    /// nothing known), or the sum of its latencies (`ops` x the mean).
    pub weight: f64,
    /// It gets a figure (it completed operations and, sampled, has at
    /// least [`MIN_CPU_SAMPLES`] samples).
    pub shown: bool,
}

impl CpuPart {
    fn of(basis: CpuBasis, o: Op, d: &DirStats, fs: &FsRaw) -> CpuPart {
        let (weight, enough) = match basis {
            CpuBasis::Sampled => {
                let c = fs.op_cpu.get(&o).copied().unwrap_or_default();
                let mean = if c.samples > 0 {
                    c.cpu_ns as f64 / c.samples as f64
                } else {
                    0.0
                };
                (d.ops as f64 * mean, c.samples >= MIN_CPU_SAMPLES)
            }
            CpuBasis::Latency => (d.lat.sum() as f64, true),
        };
        CpuPart {
            ops: d.ops,
            weight,
            shown: d.ops > 0 && enough,
        }
    }
}

/// CPU per operation of each part, µs: `cpu_us` divided among the parts
/// in proportion to their weights, each share over the part's count, so
/// that the figures times the counts add up to `cpu_us` (less the shares
/// of parts not `shown`). One part takes all of it whatever its weight;
/// with no weight at all no part gets a figure.
pub fn cpu_split(cpu_us: f64, parts: &[CpuPart]) -> Vec<Option<f64>> {
    if let [p] = parts {
        return vec![(p.ops > 0).then(|| cpu_us / p.ops as f64)];
    }
    let total: f64 = parts.iter().map(|p| p.weight).sum();
    parts
        .iter()
        .map(|p| {
            (p.shown && total > 0.0 && total.is_finite())
                .then(|| cpu_us * (p.weight / total) / p.ops as f64)
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
        // io_uring: the CPU is split by time in flight, and adds up.
        assert_eq!(w.cpu_basis, Some(CpuBasis::Latency));
        let spent: f64 = w
            .operations
            .values()
            .map(|o| o.cpu_us_per_op.unwrap() * o.figures.ops as f64)
            .sum();
        assert!((spent - 600_000.0).abs() < 1e-6, "{spent}");
        assert!(w.operations.values().all(|o| o.cpu_samples.is_none()));
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

    fn part(ops: u64, weight: f64, shown: bool) -> CpuPart {
        CpuPart { ops, weight, shown }
    }

    /// 900 µs of CPU over 100 stats sampled at 1 µs and 50 reads sampled
    /// at 10 µs: weights 100 and 500, so the stats get 150 µs (1.5 each)
    /// and the reads 750 (15 each): the sampled means scaled by 1.5, iolab's
    /// own work spread in proportion.
    #[test]
    fn cpu_is_split_by_count_times_sampled_mean() {
        let got = cpu_split(900.0, &[part(100, 100.0, true), part(50, 500.0, true)]);
        assert_eq!(got, [Some(1.5), Some(15.0)]);
        let sum: f64 = got
            .iter()
            .zip([100.0, 50.0])
            .map(|(c, n)| c.unwrap() * n)
            .sum();
        assert!((sum - 900.0).abs() < 1e-9);
        // An operation with too few samples keeps its weight (its CPU is
        // not given to the others) but shows no figure.
        let got = cpu_split(
            1000.0,
            &[
                part(100, 100.0, true),
                part(50, 500.0, true),
                part(2, 400.0, false),
            ],
        );
        assert_eq!(got, [Some(1.0), Some(10.0), None]);
        // No weight at all: no figure. One operation: all of it.
        assert_eq!(
            cpu_split(10.0, &[part(5, 0.0, true), part(5, 0.0, true)]),
            [None, None]
        );
        assert_eq!(cpu_split(10.0, &[part(5, 0.0, false)]), [Some(2.0)]);
        assert_eq!(cpu_split(10.0, &[part(0, 0.0, false)]), [None]);
        // An operation that only failed has no figure.
        assert_eq!(
            cpu_split(10.0, &[part(5, 1.0, true), part(0, 0.0, false)]),
            [Some(2.0), None]
        );
    }

    /// A mix sampled by its threads: each operation's share is count x
    /// sampled mean; the raw mean and the sample count are kept; an
    /// operation with fewer than MIN_CPU_SAMPLES samples has no figure.
    #[test]
    fn a_sampled_workload_divides_its_cpu_by_the_samples() {
        let mut w = testraw::fs_workload("mix");
        let mut o = OpStats::default();
        testraw::add_op(&mut o, Op::Stat, 1000, 0, 1_000, 2_000);
        testraw::add_op(&mut o, Op::Read, 1000, 65_536, 10_000, 20_000);
        testraw::add_op(&mut o, Op::Delete, 10, 0, 10_000, 20_000);
        w.ops = o;
        w.cpu = iolab_raw::CpuTime {
            user_us: 4_000,
            sys_us: 8_000,
        };
        let fs = w.fs.as_mut().unwrap();
        fs.op_errors.clear();
        fs.cpu_sampled = true;
        let c = |samples, cpu_ns| iolab_raw::OpCpuRaw { samples, cpu_ns };
        fs.op_cpu = [
            (Op::Stat, c(10, 10 * 1_000)),
            (Op::Read, c(10, 10 * 10_000)),
            (Op::Delete, c(1, 10_000)),
        ]
        .into_iter()
        .collect();
        let r = crate::build_workload(&w);
        assert_eq!(r.cpu_basis, Some(CpuBasis::Sampled));
        let op = |n: &str| &r.operations[n];
        // Weights 1000 x 1 + 1000 x 10 + 10 x 10 = 11100 over 12000 µs.
        let k = 12_000.0 / 11_100.0;
        assert!((op("stat").cpu_us_per_op.unwrap() - k).abs() < 1e-9);
        assert!((op("read").cpu_us_per_op.unwrap() - 10.0 * k).abs() < 1e-9);
        assert_eq!(op("delete").cpu_us_per_op, None);
        assert_eq!(op("stat").cpu_us_sampled, Some(1.0));
        assert_eq!(op("delete").cpu_us_sampled, Some(10.0));
        assert_eq!(
            (op("read").cpu_samples, op("delete").cpu_samples),
            (Some(10), Some(1))
        );
        assert_eq!(
            text::cpu_line(&r).as_deref(),
            Some("CPU us/op: fewer than 8 sampled: delete")
        );
    }

    /// Several hosts' parts: samples add up; sampled only if every part
    /// sampled (one basis for the merged CPU).
    #[test]
    fn merged_hosts_add_their_samples() {
        let part = |sampled: bool, samples: u64| {
            let mut w = testraw::fs_workload("h");
            let fs = w.fs.as_mut().unwrap();
            fs.cpu_sampled = sampled;
            fs.op_cpu = [(
                Op::Stat,
                iolab_raw::OpCpuRaw {
                    samples,
                    cpu_ns: samples * 1000,
                },
            )]
            .into_iter()
            .collect();
            w
        };
        let (a, b) = (part(true, 10), part(true, 30));
        let m = iolab_raw::merge_workloads(&[("a", &a), ("b", &b)]);
        let fs = m.fs.unwrap();
        assert!(fs.cpu_sampled);
        assert_eq!(fs.op_cpu[&Op::Stat].samples, 40);
        assert_eq!(fs.op_cpu[&Op::Stat].cpu_ns, 40_000);
        let c = part(false, 0);
        let m = iolab_raw::merge_workloads(&[("a", &a), ("c", &c)]);
        assert!(!m.fs.unwrap().cpu_sampled);
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
