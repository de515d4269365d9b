//! Hand-made raw runs for the report crate's tests: a run of two
//! workloads (one starting a second late) with a mark and a stall, and a
//! run with no workload (a monitor). Test-only. The workloads have no
//! targets and take the default clock name, so these builders compile
//! whether the raw types name kinds with strings or with enums.

use iolab_raw::{
    CpuTime, Effective, EventRaw, Gap, IntervalRaw, Op, OpStats, RunRaw, StallsRaw, WorkloadRaw,
};
use iolab_spec::WorkloadSpec;
use std::time::{Duration, SystemTime};

const S: u64 = 1_000_000_000;

/// `n` operations of `op`, 4 KiB each, at `lat_ns` each.
pub fn ops(op: Op, n: u64, lat_ns: u64) -> OpStats {
    let mut s = OpStats::rw(false);
    let d = s.get_mut(op).unwrap();
    d.ops = n;
    d.bytes = n * 4096;
    for _ in 0..n {
        d.lat.record(lat_ns);
    }
    s
}

pub fn interval(index: u32, o: OpStats) -> IntervalRaw {
    IntervalRaw {
        index,
        start_ns: index as u64 * S,
        end_ns: (index as u64 + 1) * S,
        warmup: false,
        ops: o,
        errors: 0,
        fsyncs: 0,
        cpu: None,
        workers_late: 0,
    }
}

/// A workload whose intervals are `ivs` (index, ops); its totals are
/// their sum, its start and end the first and last interval's.
pub fn workload(name: &str, rw: &str, ivs: Vec<(u32, OpStats)>) -> WorkloadRaw {
    let mut spec = WorkloadSpec::example(name, &format!("/tmp/{name}"), rw);
    spec.interval_s = 1.0;
    let intervals: Vec<IntervalRaw> = ivs.into_iter().map(|(i, o)| interval(i, o)).collect();
    let mut total = OpStats::default();
    for iv in &intervals {
        total.merge(&iv.ops);
    }
    let start_ns = intervals.first().map_or(0, |i| i.start_ns);
    let end_ns = intervals.last().map_or(0, |i| i.end_ns);
    spec.start_delay_s = start_ns as f64 / 1e9;
    WorkloadRaw {
        targets: vec![],
        spec,
        start_ns,
        end_ns,
        effective: Effective {
            engine: "io_uring".into(),
            qd: 1,
            jobs: 1,
            ..Default::default()
        },
        started_at: SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000),
        warmup_ns: 0,
        measured_ns: end_ns - start_ns,
        intervals,
        ops: total,
        fsyncs: 0,
        cpu: CpuTime::default(),
        errors: vec![],
        errno_counts: vec![],
        errors_total: 0,
        stalls: StallsRaw {
            exact: true,
            ..Default::default()
        },
        complete: true,
        incomplete_reason: None,
        notes: vec![],
        verify: None,
        fs: None,
        steady: None,
        ended_by: None,
    }
}

/// The whole of `workloads`, as the run core merges it.
pub fn run_of(name: &str, workloads: Vec<WorkloadRaw>, n_intervals: u32) -> RunRaw {
    let mut intervals: Vec<IntervalRaw> = (0..n_intervals)
        .map(|i| interval(i, OpStats::default()))
        .collect();
    let mut total = OpStats::default();
    for w in &workloads {
        total.merge(&w.ops);
        for iv in &w.intervals {
            intervals[iv.index as usize].ops.merge(&iv.ops);
        }
    }
    RunRaw {
        name: name.into(),
        started_at: SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000),
        warmup_ns: 0,
        interval_ns: S,
        measured_ns: n_intervals as u64 * S,
        workloads,
        intervals,
        ops: total,
        fsyncs: 0,
        cpu: CpuTime::default(),
        stalls: StallsRaw {
            exact: true,
            ..Default::default()
        },
        events: vec![],
        complete: true,
        incomplete_reason: None,
        notes: vec![],
        exit_all: false,
    }
}

/// "reader" reads for 3 s from time 0; "writer" writes from 1 s to 2 s.
/// A mark at 1.5 s, a stall of 1.23 s from 1.9 s.
pub fn two_workloads() -> RunRaw {
    let reader = workload(
        "reader",
        "randread",
        (0..3).map(|i| (i, ops(Op::Read, 100, 100_000))).collect(),
    );
    let writer = workload("writer", "write", vec![(1, ops(Op::Write, 50, 400_000))]);
    let mut r = run_of("pair", vec![reader, writer], 3);
    r.events.push(EventRaw {
        time_ns: 1_500_000_000,
        label: "controller A failed".into(),
        source: "mark".into(),
    });
    let gap = Gap {
        start_ns: 1_900_000_000,
        end_ns: 3_130_000_000,
    };
    r.stalls.longest = Some(gap);
    r.stalls.events.push(gap);
    r
}

/// A monitor: three intervals, no workload, one mark.
pub fn monitor() -> RunRaw {
    let mut r = run_of("monitor", vec![], 3);
    r.events.push(EventRaw {
        time_ns: 2_000_000_000,
        label: "cable pulled".into(),
        source: "signal".into(),
    });
    r
}

/// `n` operations of `op` of `bytes` each, latencies spread evenly over
/// `lo_ns..hi_ns` (so the percentiles differ), into `s`.
pub fn add_op(s: &mut OpStats, op: Op, n: u64, bytes: u64, lo_ns: u64, hi_ns: u64) {
    let d = s.entry(op, false);
    d.ops += n;
    d.bytes += n * bytes;
    for i in 0..n {
        d.lat.record(lo_ns + (hi_ns - lo_ns) * i / n.max(1));
    }
}

/// filebench's fileserver flow as steps: create, write whole, close,
/// open, append, close, open, read whole, close, delete, stat.
pub fn fileserver_spec(spec: &mut WorkloadSpec) {
    use iolab_spec::fs::{FileSelect, Flow, FsSpec, FsWork, Step};
    let steps = [
        Op::Create,
        Op::Write,
        Op::Close,
        Op::Open,
        Op::Append,
        Op::Close,
        Op::Open,
        Op::Read,
        Op::Close,
        Op::Delete,
        Op::Stat,
    ];
    spec.fs = Some(FsSpec {
        filesets: vec![],
        work: FsWork::Flows(vec![Flow {
            name: "filereader".into(),
            threads: 50,
            steps: steps.into_iter().map(Step::new).collect(),
            rate_ops: None,
            think_us: 0,
        }]),
        select: FileSelect::Uniform,
        personality: Some("fileserver".into()),
        layout_seed: None,
    });
    spec.targets.clear();
}

/// One second of filebench's fileserver as an fs workload's raw figures:
/// per-operation counts and latencies, fileset counters, errors by
/// operation (3 x ENOENT on stat, 1 x ENOSPC on write), a fileset and
/// the operations that ran by system calls.
pub fn fs_workload(name: &str) -> WorkloadRaw {
    use iolab_raw::{FilesetCounters, FilesetRaw, FsRaw};
    let mut o = OpStats::default();
    add_op(&mut o, Op::Create, 1000, 0, 40_000, 240_000);
    add_op(&mut o, Op::Write, 1000, 131_072, 300_000, 2_300_000);
    add_op(&mut o, Op::Close, 3000, 0, 2_000, 12_000);
    add_op(&mut o, Op::Open, 2000, 0, 10_000, 50_000);
    add_op(&mut o, Op::Append, 1000, 16_384, 100_000, 900_000);
    add_op(&mut o, Op::Read, 1000, 131_072, 50_000, 650_000);
    add_op(&mut o, Op::Delete, 1000, 0, 30_000, 330_000);
    add_op(&mut o, Op::Stat, 997, 0, 3_000, 9_000);
    let mut w = workload(name, "read", vec![(0, o)]);
    fileserver_spec(&mut w.spec);
    w.cpu = CpuTime {
        user_us: 120_000,
        sys_us: 480_000,
    };
    w.fs = Some(FsRaw {
        counters: FilesetCounters {
            files_created: 1000,
            dirs_created: 0,
            files_deleted: 1000,
            dirs_deleted: 0,
            opens_read: 1000,
            opens_write: 2000,
            closes: 3000,
        },
        op_errors: [
            (Op::Stat, vec![(libc::ENOENT, 3)]),
            (Op::Write, vec![(libc::ENOSPC, 1)]),
        ]
        .into_iter()
        .collect(),
        filesets: vec![FilesetRaw {
            name: "bigfileset".into(),
            anchor: "/mnt/fb/bigfileset".into(),
            files: 10_000,
            dirs: 500,
            bytes: 1_310_720_000,
            bytes_prealloc: 1_048_576_000,
            files_made: 8_000,
            dirs_made: 500,
            files_resized: 0,
            bytes_written: 1_048_576_000,
            create_secs: 4.5,
            files_at_end: Some(10_000),
            removed: false,
        }],
        sync_ops: vec![Op::Stat],
        backend: "io_uring".into(),
        backend_reason: None,
        ..Default::default()
    });
    w.errno_counts = vec![(libc::ENOENT, 3), (libc::ENOSPC, 1)];
    w.errors_total = 4;
    w
}

/// A host of a multi-host run that measured `raw`: its record is
/// `build_run(raw)`, its clock 12.5 us ahead known within 40 us.
pub fn host(name: &str, raw: RunRaw) -> crate::multi::HostOutcome {
    crate::multi::HostOutcome {
        host: name.into(),
        info: crate::model::Host {
            hostname: format!("{name}.lab"),
            kernel: "6.1.0".into(),
            os: "Debian 12".into(),
            cpus: 4,
            memory_bytes: 8 << 30,
        },
        clock: crate::model::HostClock {
            offset_us: 12.5,
            rtt_us: 80.0,
            start_us: Some(40.0),
        },
        lost: None,
        result: crate::build_run(&raw),
        raw,
    }
}

/// A target of `path`, a 1 GiB file, for workloads that need one.
pub fn target(path: &str) -> iolab_raw::TargetRaw {
    iolab_raw::TargetRaw {
        path: path.into(),
        kind: iolab_raw::TargetKind::File,
        size: 1 << 30,
        region_start: 0,
        region_len: 1 << 30,
        logical_block_size: 512,
        created: false,
        prefilled_bytes: 0,
        prefill_secs: 0.0,
        measured: None,
    }
}

/// One host's run named "shared" of one workload "reader" on /dev/sdb:
/// `n` reads an interval in each of `intervals`, latencies spread over
/// `lo_ns..hi_ns`.
pub fn host_run(intervals: u32, n: u64, lo_ns: u64, hi_ns: u64) -> RunRaw {
    let ivs = (0..intervals)
        .map(|i| {
            let mut o = OpStats::rw(false);
            add_op(&mut o, Op::Read, n, 4096, lo_ns, hi_ns);
            (i, o)
        })
        .collect();
    let mut w = workload("reader", "randread", ivs);
    w.targets = vec![target("/dev/sdb")];
    run_of("shared", vec![w], intervals)
}

/// A run on two hosts: h1 reads 100 an interval at 100-300 us for 3 s,
/// h2 300 an interval at 1-5 ms on its own /dev/sdb.
pub fn two_hosts() -> crate::model::RunResult {
    crate::multi::merge_hosts(
        vec![
            host("h1", host_run(3, 100, 100_000, 300_000)),
            host("h2", host_run(3, 300, 1_000_000, 5_000_000)),
        ],
        Some(210.0),
    )
}
