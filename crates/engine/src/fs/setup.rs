//! The file-system driver's set-up and wrap-up, off the per-operation
//! path: checking the workload, the threads' plans, the data validation
//! and the threads' shared state, and at the end the threads' counters
//! and errors merged. The filesets themselves (anchors, creation, the
//! files left, clean-up) are `filesets.rs`.

use super::exec::FsWorkerOut;
use super::table::Claim;
use super::verify::FileVerify;
use super::{Act, FsSet, Plan, Shared};
use crate::clock::TscRate;
use iolab_fileset::Layout;
use iolab_raw::{errno_name, FsRaw, Op, WorkloadRaw};
use iolab_spec::fs::{FileSelect, FsSpec, FsWork, Step};
use iolab_spec::fs::{MAX_FILESETS, MAX_STEPS};
use iolab_spec::{OnError, SyncMode, WorkloadSpec};
use std::path::PathBuf;
use std::sync::atomic::AtomicI64;

/// Largest transfer a step may ask for.
const MAX_XFER: u64 = 1 << 30;

pub(super) fn fs_of(spec: &WorkloadSpec) -> &FsSpec {
    spec.fs
        .as_ref()
        .expect("the fs driver runs workloads with fs set")
}

/// What the spec crate's validation may not have caught, as one line.
pub(super) fn validate(spec: &WorkloadSpec) -> Result<(), String> {
    let fs = fs_of(spec);
    let n = fs.filesets.len();
    if n == 0 || n > MAX_FILESETS {
        return Err(format!(
            "a file-system workload needs 1 to {MAX_FILESETS} filesets; give --dir DIR"
        ));
    }
    let all = fs.work.steps();
    if all.is_empty() || all.len() > MAX_STEPS * MAX_STEPS {
        return Err("the workload has no operations; give --mix or --flow".into());
    }
    for s in &all {
        if s.fileset as usize >= n {
            return Err(format!(
                "operation {} names fileset {} of {n}; name one of the workload's filesets",
                s.op.name(),
                s.fileset
            ));
        }
        if s.xfer > MAX_XFER {
            return Err(format!(
                "{}: transfers over 1 GiB are not supported",
                s.op.name()
            ));
        }
    }
    match &fs.work {
        FsWork::Mix(m) if m.iter().map(|e| u64::from(e.weight)).sum::<u64>() == 0 => {
            return Err("the mix's weights are all 0; give at least one above 0".into())
        }
        FsWork::Flows(f) if f.iter().any(|f| f.threads == 0 || f.steps.is_empty()) => {
            return Err("every flow needs at least 1 thread and 1 step".into())
        }
        _ => {}
    }
    if let FileSelect::Zipf(t) = fs.select {
        if !(t > 0.0 && t.is_finite()) || (t - 1.0).abs() < 1e-9 {
            return Err(format!("file selection zipf:{t} is not usable; give a theta above 0 other than 1, e.g. zipf:1.2"));
        }
    }
    Ok(())
}

/// The operations the workload issues, in table order.
pub(super) fn ops_of(fs: &FsSpec) -> Vec<Op> {
    let used: Vec<Op> = fs.work.steps().iter().map(|s| s.op).collect();
    Op::ALL
        .iter()
        .copied()
        .filter(|o| used.contains(o))
        .collect()
}

fn act(s: &Step, spec: &WorkloadSpec, ops: &[Op], open_write: bool, claim: Claim) -> Act {
    let xfer = if s.xfer == 0 { spec.max_bs() } else { s.xfer };
    Act {
        op: s.op,
        set: s.fileset,
        whole: s.whole,
        xfer: xfer.clamp(1, MAX_XFER) as u32,
        random: s.random,
        iters: s.iters.max(1),
        open_write,
        claim,
        stat: ops.iter().position(|&o| o == s.op).unwrap_or(0) as u8,
        flags: if s.direct { libc::O_DIRECT } else { 0 } | if s.dsync { libc::O_DSYNC } else { 0 },
    }
}

/// How a step holds the file it works on (the rule is in `table.rs`):
/// shared when it leaves the file's existence alone and its size alone
/// (or grows it by one transfer at most); appends share with appends.
/// Under `--verify` whatever writes data holds its file alone, so a read
/// never meets another thread's write of the same block.
fn claim_of(s: &Step, verify: bool) -> Claim {
    match s.op {
        Op::Append => Claim::Append,
        Op::Read | Op::Fsync | Op::Fdatasync | Op::Getattr | Op::Stat | Op::Access => Claim::Data,
        Op::Rewrite if !verify => Claim::Data,
        Op::Write if !s.whole && !verify => Claim::Data,
        _ => Claim::Excl,
    }
}

/// A flow's steps. An `open` holds its file for the steps that act on it
/// until the next close (a pass ends with none open): it
/// opens for writing when one of them writes data or sets attributes,
/// shares the file with appenders when they are appends and syncs, with
/// readers and in-place writers when each of them would share it
/// ([`claim_of`]), and holds it alone otherwise.
fn flow_acts(steps: &[Step], spec: &WorkloadSpec, ops: &[Op]) -> Vec<Act> {
    (0..steps.len())
        .map(|i| {
            let body = || {
                steps[i + 1..]
                    .iter()
                    .take_while(|s| !matches!(s.op, Op::Close | Op::Open | Op::Create))
                    .filter(|s| super::action::on_current(s.op))
            };
            let w = body().any(|s| s.op.writes_data() || matches!(s.op, Op::Setattr));
            let appends = body().any(|s| s.op == Op::Append)
                && body().all(|s| matches!(s.op, Op::Append | Op::Fsync | Op::Fdatasync));
            let claim = match steps[i].op {
                Op::Open if appends => Claim::Append,
                Op::Open if body().all(|s| claim_of(s, spec.verify) == Claim::Data) => Claim::Data,
                Op::Open => Claim::Excl,
                _ => claim_of(&steps[i], spec.verify),
            };
            act(&steps[i], spec, ops, w, claim)
        })
        .collect()
}

/// The threads' plans: `jobs` threads for a mix, each flow's `threads`.
pub(super) fn plans(spec: &WorkloadSpec, clock: Option<TscRate>) -> Vec<Plan> {
    let fs = fs_of(spec);
    let ops = ops_of(fs);
    let direct = if spec.direct { libc::O_DIRECT } else { 0 };
    let dsync = if spec.sync == SyncMode::Dsync {
        libc::O_DSYNC
    } else {
        0
    };
    let steps = fs.work.steps();
    let xfer = |s: &&Step| if s.xfer == 0 { spec.max_bs() } else { s.xfer };
    let max_x = steps.iter().map(xfer).max();
    let base = Plan {
        worker: 0,
        index: 0,
        threads: 1,
        flow: false,
        acts: Vec::new(),
        cum: Vec::new(),
        total_w: 0,
        think_ns: 0,
        rate_period_ns: None,
        rate_phase_ns: 0.0,
        qd: spec.qd.max(1),
        buf_len: max_x.unwrap_or(0).clamp(32 << 10, MAX_XFER) as usize,
        svc: false,
        ops: ops.clone(),
        select: fs.select,
        seed: spec.seed,
        clock,
        on_error: spec.on_error,
        max_errors: spec.max_errors,
        data_flags: direct | dsync,
        direct_flag: direct,
    };
    let mut out = Vec::new();
    match &fs.work {
        FsWork::Mix(m) => {
            let acts: Vec<Act> = m
                .iter()
                .map(|e| act(&e.step, spec, &ops, true, claim_of(&e.step, spec.verify)))
                .collect();
            let mut t = 0u32;
            let cum = m
                .iter()
                .map(|e| {
                    t += e.weight;
                    t
                })
                .collect();
            let p = Plan {
                acts,
                cum,
                total_w: t,
                threads: spec.jobs.max(1),
                ..base.clone()
            };
            out.extend(threads(&p, spec.rate_iops, out.len()));
        }
        FsWork::Flows(flows) => {
            let all: u32 = flows.iter().map(|f| f.threads).sum();
            for f in flows {
                let rate = f.rate_ops.or(spec
                    .rate_iops
                    .map(|r| r * f.threads as f64 / all.max(1) as f64));
                let p = Plan {
                    flow: true,
                    acts: flow_acts(&f.steps, spec, &ops),
                    threads: f.threads.max(1),
                    think_ns: f.think_us.saturating_mul(1000),
                    ..base.clone()
                };
                let n = out.len();
                out.extend(threads(&p, rate, n));
            }
        }
    }
    out
}

/// The workload's threads: `jobs` for a mix, the flows' threads.
fn all_threads(spec: &WorkloadSpec, fs: &FsSpec) -> u32 {
    match &fs.work {
        FsWork::Mix(_) => spec.jobs.max(1),
        FsWork::Flows(f) => f.iter().map(|f| f.threads.max(1)).sum(),
    }
}

/// `p.threads` copies of `p`, numbered from `first`, sharing `rate`.
fn threads(p: &Plan, rate: Option<f64>, first: usize) -> Vec<Plan> {
    (0..p.threads)
        .map(|i| Plan {
            worker: (first as u32) + i,
            index: i,
            rate_period_ns: rate.map(|r| 1e9 * p.threads as f64 / r),
            rate_phase_ns: rate.map_or(0.0, |r| 1e9 * i as f64 / r),
            svc: rate.is_some(),
            ..p.clone()
        })
        .collect()
}

/// The workload's data validation (off without `--verify`), made before
/// the filesets so that their creation stamps what it writes. Findings
/// name files by path (formatted only on a finding).
pub(super) fn make_verify(spec: &WorkloadSpec, layouts: &[Layout]) -> FileVerify {
    if !spec.verify {
        return FileVerify::off();
    }
    let files: Vec<u64> = layouts.iter().map(|l| l.files()).collect();
    let v = FileVerify::with_data(&files, spec.seed, spec.data);
    let named: Vec<(PathBuf, Layout)> = fs_of(spec)
        .filesets
        .iter()
        .zip(layouts)
        .map(|(f, l)| (f.spec.anchor.clone(), l.clone()))
        .collect();
    v.set_names(Box::new(move |set, i| {
        named.get(set as usize).map_or_else(
            || format!("fileset {set} file {i}"),
            |(a, l)| a.join(l.file_path(i)).display().to_string(),
        )
    }));
    v
}

/// The threads' shared state over the created filesets.
pub(super) fn shared(spec: &WorkloadSpec, sets: Vec<FsSet>, verify: FileVerify) -> Shared {
    Shared {
        threads: all_threads(spec, fs_of(spec)),
        verify,
        sets,
        ops_left: spec
            .ops
            .map(|n| AtomicI64::new(n.min(i64::MAX as u64) as i64)),
        bytes_left: spec
            .io_size
            .map(|n| AtomicI64::new(n.min(i64::MAX as u64) as i64)),
        makers: super::starve::makers(fs_of(spec)),
    }
}

/// Add the threads' counters and errors into `fs`; returns the skipped
/// operations.
pub(super) fn merge_outs(fs: &mut FsRaw, outs: &[FsWorkerOut]) -> u64 {
    let mut skipped = 0;
    fs.cpu_sampled = !outs.is_empty() && outs.iter().all(|o| o.cpu_sampled);
    for o in outs {
        fs.counters.merge(&o.counters);
        for &(op, c) in &o.op_cpu {
            fs.op_cpu.entry(op).or_default().merge(c);
        }
        skipped += o.skipped;
        for op in &o.sync_ops {
            if !fs.sync_ops.contains(op) {
                fs.sync_ops.push(*op);
            }
        }
        for &(op, errno, n) in &o.op_errors {
            let v = fs.op_errors.entry(op).or_default();
            match v.iter_mut().find(|e| e.0 == errno) {
                Some(e) => e.1 += n,
                None => v.push((errno, n)),
            }
        }
    }
    fs.sync_ops.sort();
    for v in fs.op_errors.values_mut() {
        v.sort();
    }
    skipped
}

/// A note when some threads started no operation at all: every start
/// found no file in the state it needs and free.
pub(super) fn idle_threads(outs: &[FsWorkerOut]) -> Option<String> {
    let idle = outs.iter().filter(|o| o.idle).count();
    (idle > 0).then(|| {
        format!(
            "{idle} of {} threads started no operation: every file they needed was held by other threads or in the wrong state",
            outs.len()
        )
    })
}

/// Why the workload stopped itself: the first error that stopped it.
pub(super) fn stop_reason(raw: &WorkloadRaw, spec: &WorkloadSpec) -> Option<String> {
    if spec.on_error != OnError::Stop {
        return None;
    }
    let e = raw
        .errors
        .iter()
        .find(|e| !super::exec::changed_by_others(e.errno))?;
    Some(format!(
        "stopped on {} ({}) at {} (--on-error stop); results up to then are kept",
        errno_name(e.errno),
        e.op,
        e.target
    ))
}
