//! Running one workload: prepare and check the targets, prefill, start the
//! workers, collect their interval snapshots into the time series and the
//! summary, and hand back everything measured as a [`RawRun`].
//!
//! The collector (the calling thread) never prints: it reports each
//! finished interval to an [`Observer`], and the front end decides what to
//! show.

use crate::buffers::BufferPool;
use crate::data::DataGen;
use crate::engines::{NullEngine, PsyncEngine, UringEngine};
use crate::gen::{GenConfig, IoGen, Region};
use crate::verify::{NoVerify, WorkerVerify};
use crate::verify_setup::{VerifyRun, VerifyTarget};
use crate::worker::{self, Snapshot, Timeline, WorkerCtx, WorkerFinal, WorkerMsg, GAP_RECORD_NS};
use iolab_core::cpu::process_cpu;
use iolab_raw::errno_name;
use iolab_raw::*;
use iolab_spec::{EngineKind, SyncMode, WorkloadSpec};
use iolab_target::{Kind, TargetError, TargetInfo};
use std::collections::BTreeMap;
use std::fs::File;
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// Why a workload could not start. Each displays as one line that says what
/// to change; the front end exits with code 2.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    Spec(#[from] iolab_spec::SpecError),
    #[error("{0}")]
    Target(#[from] TargetError),
    #[error("{0}")]
    Setup(String),
}

/// Receives progress while a workload runs.
pub trait Observer {
    /// The targets passed their checks and the run begins (prefill first,
    /// if any).
    fn started(&mut self, _spec: &WorkloadSpec) {}
    /// The run clock started (after prefill and set-up): time 0 of the
    /// intervals.
    fn clock_started(&mut self) {}
    /// Right after [`Observer::clock_started`]: the run as known before
    /// its first I/O (spec, settings that took effect, targets, start
    /// time, notes) with no figures yet, `complete` false. A front end
    /// that keeps a provisional record of the run while it is in progress
    /// (so a killed process leaves what it measured) builds on it.
    fn measuring(&mut self, _run: &RawRun) {}
    /// A note about the run before it starts (fallbacks, prefill, ...).
    fn note(&mut self, _msg: &str) {}
    /// An interval finished (all workers merged, or some late).
    fn interval(&mut self, _spec: &WorkloadSpec, _iv: &IntervalRaw) {}
    /// Prefill progress: bytes done of total for one target.
    fn prefill(&mut self, _path: &str, _done: u64, _total: u64) {}
}

/// An observer that ignores everything.
pub struct Quiet;
impl Observer for Quiet {}

struct Prepared {
    info: TargetInfo,
    file: File,
    region_start: u64,
    region_len: u64,
    prefill: bool,
    prefill_secs: f64,
}

/// True when this kernel lets the process create an io_uring.
/// `IOLAB_NO_IO_URING=1` makes it answer false, so the fallback can be
/// exercised on kernels that do have io_uring.
pub fn io_uring_available() -> bool {
    if std::env::var_os("IOLAB_NO_IO_URING").is_some_and(|v| v == "1") {
        return false;
    }
    io_uring::IoUring::new(2).is_ok()
}

/// Prepare every target; on any error, remove the files this call created,
/// so bad input leaves nothing behind.
fn prepare_targets(
    spec: &WorkloadSpec,
    notes: &mut Vec<String>,
) -> Result<Vec<Prepared>, RunError> {
    let mut created: Vec<TargetInfo> = Vec::new();
    let r = prepare_targets_inner(spec, notes, &mut created);
    if r.is_err() {
        for info in &created {
            let _ = iolab_target::remove_created(info);
        }
    }
    r
}

fn prepare_targets_inner(
    spec: &WorkloadSpec,
    notes: &mut Vec<String>,
    created: &mut Vec<TargetInfo>,
) -> Result<Vec<Prepared>, RunError> {
    let mut out = Vec::new();
    for t in &spec.targets {
        let opts = crate::precheck::prepare_options(spec, t);
        let info = iolab_target::prepare(Path::new(&t.path), &opts)?;
        if info.created {
            created.push(info.clone());
        }
        let region_len = crate::precheck::region_len(spec, t, info.size)?;
        if spec.direct && spec.engine != EngineKind::Null {
            let lbs = (info
                .dio_offset_align
                .max(if info.kind == Kind::BlockDevice {
                    info.logical_block_size
                } else {
                    0
                }))
            .max(512) as u64;
            for b in &spec.bs {
                if !b.bytes.is_multiple_of(lbs) {
                    return Err(RunError::Setup(format!(
                        "--bs {} is not a multiple of {}'s logical block size {lbs} needed with O_DIRECT; use a multiple of {lbs} or drop --direct",
                        b.bytes, t.path
                    )));
                }
            }
            if !spec.align.is_multiple_of(lbs) || !t.offset.is_multiple_of(lbs) {
                return Err(RunError::Setup(format!(
                    "--align and --offset must be multiples of {}'s logical block size {lbs} with O_DIRECT",
                    t.path
                )));
            }
        }
        let prefill = wants_prefill(&info, t.offset + region_len, spec);
        let file = iolab_target::open(
            &info,
            spec.writes() || prefill,
            spec.direct,
            spec.sync == SyncMode::Dsync,
        )?;
        if info.created {
            notes.push(format!("created {} ({} bytes)", t.path, info.size));
        }
        out.push(Prepared {
            info,
            file,
            region_start: t.offset,
            region_len,
            prefill,
            prefill_secs: 0.0,
        });
    }
    Ok(out)
}

/// Write every byte of the region once, sequentially, in 1 MiB writes.
fn prefill_one(
    p: &mut Prepared,
    spec: &WorkloadSpec,
    obs: &mut dyn Observer,
    stop: &AtomicBool,
    verify: Option<(&VerifyRun, usize)>,
) -> Result<(), (u64, i32)> {
    let mut chunk = (1usize << 20).max(spec.max_bs() as usize);
    if let Some((v, _)) = verify {
        let u = v.shared.unit as usize;
        chunk = chunk.div_ceil(u) * u;
    }
    let mut pool =
        BufferPool::new(1, chunk).map_err(|e| (0, e.raw_os_error().unwrap_or(libc::ENOMEM)))?;
    let data = DataGen::new(spec.data, 0);
    let mut rng = fastrand::Rng::with_seed(spec.seed ^ 0xf111);
    data.fill_base(pool.slot_mut(0), &mut rng);
    let start = p.region_start;
    let end = p.region_start + p.region_len;
    let fd = p.file.as_raw_fd();
    let t = Instant::now();
    let mut off = start;
    let mut seq = 0;
    let mut last_report = Instant::now();
    while off < end {
        if stop.load(Ordering::Relaxed) {
            return Err((off, libc::EINTR));
        }
        let len = ((end - off) as usize).min(chunk);
        let len = if spec.direct {
            len.div_ceil(512) * 512
        } else {
            len
        };
        seq += 1;
        match verify {
            Some((v, t)) => {
                let wall = SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(0);
                v.prefill_stamp(t, &mut pool.slot_mut(0)[..len], off, wall);
            }
            None => data.prepare_write(
                pool.slot_mut(0),
                len,
                off,
                seq,
                &mut rng,
                &mut Default::default(),
                &[],
            ),
        }
        // SAFETY: the pool's slot 0 holds at least `chunk` >= len bytes.
        let r = unsafe { libc::pwrite(fd, pool.ptr(0) as *const libc::c_void, len, off as i64) };
        if r < 0 {
            return Err((
                off,
                std::io::Error::last_os_error()
                    .raw_os_error()
                    .unwrap_or(libc::EIO),
            ));
        }
        if r == 0 {
            return Err((off, libc::EIO));
        }
        off += r as u64;
        if last_report.elapsed() > Duration::from_millis(500) {
            obs.prefill(&p.info.path.to_string_lossy(), off - start, end - start);
            last_report = Instant::now();
        }
    }
    // SAFETY: fsync on an fd we own.
    if unsafe { libc::fsync(fd) } != 0 {
        return Err((
            end,
            std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO),
        ));
    }
    p.prefill_secs = t.elapsed().as_secs_f64();
    // The record means "the first N bytes were written": extend it only
    // when this region joins what was written before.
    if p.region_start <= p.info.prefilled_bytes {
        let _ = iolab_target::mark_prefilled(&p.info, end.max(p.info.prefilled_bytes));
    }
    Ok(())
}

fn wants_prefill(info: &TargetInfo, region_end: u64, spec: &WorkloadSpec) -> bool {
    if spec.engine == EngineKind::Null {
        return false;
    }
    match spec.prefill {
        iolab_spec::Prefill::Never => false,
        iolab_spec::Prefill::Always => true,
        iolab_spec::Prefill::Auto => {
            info.kind == Kind::File && info.owned && info.prefilled_bytes < region_end
        }
    }
}

/// Assign targets to workers: with at least as many workers as targets,
/// worker i drives target i mod T (LUN A, B, A, ...); with fewer, each
/// worker alternates over several. Returns, per worker, (target index,
/// stream number on that target, streams on that target).
fn assign(jobs: u32, ntargets: usize) -> Vec<Vec<(usize, u64, u64)>> {
    let t = ntargets as u32;
    let mut per_target = vec![0u64; ntargets];
    let mut lists: Vec<Vec<usize>> = Vec::new();
    for w in 0..jobs {
        let mine: Vec<usize> = if jobs >= t {
            vec![(w % t) as usize]
        } else {
            (w..t).step_by(jobs as usize).map(|x| x as usize).collect()
        };
        lists.push(mine);
    }
    let mut seen = vec![0u64; ntargets];
    for l in &lists {
        for &ti in l {
            per_target[ti] += 1;
        }
    }
    lists
        .into_iter()
        .map(|l| {
            l.into_iter()
                .map(|ti| {
                    let k = seen[ti];
                    seen[ti] += 1;
                    (ti, k, per_target[ti])
                })
                .collect()
        })
        .collect()
}

/// Each target's measured (ops, bytes) from the workers' totals, when every
/// worker drove one target only (`assign` with jobs >= targets: worker w
/// drives target w mod T). With fewer workers than targets a worker's
/// totals cover several targets, and the split is unknown: left `None`.
fn per_target(targets: &mut [TargetRaw], per_worker: &[(u64, u64)]) {
    let t = targets.len();
    if t == 0 || per_worker.len() < t {
        return;
    }
    for (ti, tr) in targets.iter_mut().enumerate() {
        let (ops, bytes) = per_worker
            .iter()
            .skip(ti)
            .step_by(t)
            .fold((0, 0), |a, w| (a.0 + w.0, a.1 + w.1));
        tr.measured = Some((ops, bytes));
    }
}

/// A worker's regions: for each of its (target, stream k of n) the target's
/// region, with the sequential stream starting k/n of the way into it, so
/// n sequential workers on one target are n separate dd-like streams.
fn worker_regions(mine: &[(usize, u64, u64)], spans: &[(u64, u64)], hit_len: u64) -> Vec<Region> {
    mine.iter()
        .enumerate()
        .map(|(local, &(ti, k, n))| {
            let (start, len) = spans[ti];
            let miss_len = if hit_len > 0 && hit_len < len {
                len - hit_len
            } else {
                len
            };
            Region {
                target: local as u32,
                start,
                len,
                hit_len,
                stream_start: miss_len / n * k,
            }
        })
        .collect()
}

fn split(total: Option<u64>, jobs: u32, w: u32) -> Option<u64> {
    total.map(|t| t / jobs as u64 + ((w as u64) < t % jobs as u64) as u64)
}

/// Run one workload to its end (or until `stop` is set) and return what
/// it measured. Errors before the first I/O are `RunError`s; errors during
/// the run are data in the result.
pub fn run_workload(
    spec: &WorkloadSpec,
    obs: &mut dyn Observer,
    stop: Arc<AtomicBool>,
) -> Result<RawRun, RunError> {
    spec.validate()?;
    crate::affinity::check_cpus(&spec.cpus).map_err(RunError::Setup)?;
    let clock_rate = crate::clock::resolve(spec.clock)
        .map_err(|why| RunError::Setup(format!("--clock tsc: {why}; use --clock auto")))?;
    let mut spec = spec.clone();
    let mut notes = Vec::new();
    if spec.engine == EngineKind::IoUring && !io_uring_available() {
        notes.push(format!(
            "io_uring is not available here; falling back to psync with {} jobs of 1 outstanding I/O",
            spec.jobs * spec.qd
        ));
        spec.engine = EngineKind::Psync;
        spec.jobs *= spec.qd;
        spec.qd = 1;
    }
    let started_at = SystemTime::now();
    let mut targets = prepare_targets(&spec, &mut notes)?;
    let mut vrun = if spec.verify {
        match setup_verify(&spec, &mut targets, &mut notes) {
            Ok(v) => Some(v),
            Err(e) => {
                for p in &targets {
                    if p.info.created {
                        let _ = iolab_target::remove_created(&p.info);
                    }
                }
                return Err(e);
            }
        }
    } else {
        None
    };
    obs.started(&spec);
    for n in &notes {
        obs.note(n);
    }

    // Prefill.
    let mut prefill_error: Option<IoErrorRec> = None;
    for (ti, p) in targets.iter_mut().enumerate() {
        if p.prefill {
            obs.note(&format!(
                "prefilling {} ({} bytes) so reads do not hit never-written blocks{}",
                p.info.path.display(),
                p.region_len,
                if vrun.is_some() {
                    ", every block stamped"
                } else {
                    ""
                }
            ));
            if let Some(v) = vrun.as_ref() {
                v.prefill_begin(ti, p.region_start, p.region_len);
            }
            let r = prefill_one(p, &spec, obs, &stop, vrun.as_ref().map(|v| (v, ti)));
            if let Some(v) = vrun.as_mut() {
                v.prefill_end(ti, p.region_start, p.region_len, r.is_ok());
            }
            if let Err((off, errno)) = r {
                prefill_error = Some(IoErrorRec {
                    target: p.info.path.to_string_lossy().into_owned(),
                    offset: off,
                    len: 0,
                    op: ErrOp::Prefill,
                    errno,
                    time_ns: 0,
                    worker: 0,
                });
                break;
            }
        }
    }
    let target_raw: Vec<TargetRaw> = targets
        .iter()
        .map(|p| TargetRaw {
            path: p.info.path.to_string_lossy().into_owned(),
            kind: if p.info.kind == Kind::BlockDevice {
                TargetKind::BlockDevice
            } else {
                TargetKind::File
            },
            size: p.info.size,
            region_start: p.region_start,
            region_len: p.region_len,
            logical_block_size: p.info.logical_block_size,
            created: p.info.created,
            prefilled_bytes: if p.prefill_secs > 0.0 {
                p.region_len
            } else {
                0
            },
            prefill_secs: p.prefill_secs,
            measured: None,
        })
        .collect();
    let effective_base = Effective {
        clock: crate::clock::name(&clock_rate),
        engine: spec.engine.name().into(),
        direct: spec.direct,
        qd: spec.qd,
        jobs: spec.jobs,
        ..Default::default()
    };
    if let Some(e) = prefill_error {
        let interrupted = stop.load(Ordering::Relaxed) && e.errno == libc::EINTR;
        let reason = if interrupted {
            "interrupted".to_string()
        } else {
            format!(
                "prefill of {} failed at offset {}: {}",
                e.target,
                e.offset,
                errno_name(e.errno)
            )
        };
        if matches!(e.errno, libc::ENOSPC | libc::EDQUOT) {
            // A file this run created is of no use half written, and it
            // holds the space that ran out: remove it.
            for p in targets.iter().filter(|p| p.info.created) {
                if iolab_target::remove_created(&p.info).is_ok() {
                    let n = format!(
                        "removed {}, which this run created, after the prefill ran out of space",
                        p.info.path.display()
                    );
                    obs.note(&n);
                    notes.push(n);
                }
            }
        }
        let (errors, errno_counts, errors_total) = if interrupted {
            (Vec::new(), Vec::new(), 0)
        } else {
            (vec![e.clone()], vec![(e.errno, 1)], 1)
        };
        return Ok(RawRun {
            effective: effective_base,
            targets: target_raw,
            started_at,
            warmup_ns: 0,
            measured_ns: 0,
            intervals: Vec::new(),
            start_ns: 0,
            end_ns: 0,
            ops: OpStats::rw(false),
            fsyncs: 0,
            cpu: CpuTime::default(),
            errno_counts,
            errors,
            errors_total,
            stalls: StallsRaw::default(),
            complete: false,
            incomplete_reason: Some(reason),
            notes,
            verify: vrun.map(|v| v.finish(Vec::new(), false).0),
            spec,
        });
    }

    let rate_mode = spec.rate_iops.is_some();
    let tl = Timeline {
        warmup_ns: (spec.warmup_s * 1e9) as u64,
        // validate() refuses shorter intervals; the timer's floor.
        interval_ns: ((spec.interval_s * 1e9) as u64)
            .max((iolab_spec::MIN_INTERVAL_S * 1e9) as u64),
    };
    let end_ns = spec.duration_s.map(|d| tl.warmup_ns + (d * 1e9) as u64);
    // Workers stop on this flag: set by a worker that hit an error under
    // --on-error stop, or by the collector when the user interrupts.
    let run_stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<WorkerMsg>();
    let (setup_tx, setup_rx) = mpsc::channel::<Result<crate::engines::UringSetup, String>>();
    let fds: Vec<i32> = targets.iter().map(|p| p.file.as_raw_fd()).collect();
    let paths: Vec<String> = targets
        .iter()
        .map(|p| p.info.path.to_string_lossy().into_owned())
        .collect();
    let gen_cfg = GenConfig {
        read_pct: spec.read_pct,
        random_pct: spec.random_pct,
        read_hit_pct: spec.read_hit_pct,
        write_hit_pct: spec.write_hit_pct,
        bs: spec.bs.iter().map(|b| (b.bytes, b.weight)).collect(),
        align: spec.align,
        distribution: spec.distribution,
    };
    let assignment = assign(spec.jobs, targets.len());
    // Workers set up (buffers filled, ring created) before the clock
    // starts: they wait at the gate, so set-up CPU and time are not
    // measured.
    let gate = Arc::new(Gate::default());
    let mut handles = Vec::new();
    for (w, mine) in assignment.into_iter().enumerate() {
        let w = w as u32;
        let spans: Vec<(u64, u64)> = targets
            .iter()
            .map(|p| (p.region_start, p.region_len))
            .collect();
        let regions = worker_regions(&mine, &spans, spec.hit_area);
        let my_fds: Vec<i32> = mine.iter().map(|&(ti, _, _)| fds[ti]).collect();
        let my_paths: Vec<String> = mine.iter().map(|&(ti, _, _)| paths[ti].clone()).collect();
        let verify = vrun.as_ref().map(|v| {
            WorkerVerify::new(
                v.shared.clone(),
                mine.iter().map(|&(ti, _, _)| ti).collect(),
                spec.fsync_every,
                spec.qd,
            )
        });
        let seed = spec.seed ^ (w as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let mut ctx = WorkerCtx {
            index: w,
            t0: Instant::now(),
            clock: clock_rate,
            qd: spec.qd,
            batch_complete: spec.batch_complete,
            gen: IoGen::new(&gen_cfg, regions, seed),
            data: DataGen::new(spec.data, spec.dedupe_pct),
            base: Vec::new(),
            target_paths: my_paths,
            timeline: tl,
            end_ns,
            budget_ops: split(spec.ops, spec.jobs, w),
            budget_bytes: split(spec.io_size, spec.jobs, w),
            rate_period_ns: spec.rate_iops.map(|r| 1e9 * spec.jobs as f64 / r),
            rate_phase_ns: spec.rate_iops.map(|r| 1e9 * w as f64 / r).unwrap_or(0.0),
            fsync_every: spec.fsync_every,
            on_error: spec.on_error,
            stop: run_stop.clone(),
            tx: tx.clone(),
            verify,
        };
        let engine = spec.engine;
        // Reads and writes share the slots (the base content is kept to
        // put back after a read; --verify writes whole sectors itself).
        let mixed = spec.read_pct > 0 && spec.writes() && !spec.verify;
        let qd = spec.qd as usize;
        let max_bs = spec.max_bs() as usize;
        let setup_tx = setup_tx.clone();
        let worker_gate = gate.clone();
        let cpu = match spec.cpus.len() {
            0 => None,
            n => Some(spec.cpus[w as usize % n]),
        };
        let spawned = std::thread::Builder::new()
            .name(format!("iolab-w{w}"))
            .spawn(move || {
                if let Some(cpu) = cpu {
                    if let Err(e) = crate::affinity::pin_current_thread(cpu) {
                        let _ = setup_tx.send(Err(format!("pinning worker {w} to CPU {cpu}: {e}")));
                        return;
                    }
                }
                let mut pool = match BufferPool::new(qd, max_bs) {
                    Ok(p) => p,
                    Err(e) => {
                        let _ = setup_tx.send(Err(format!("allocating I/O buffers: {e}")));
                        return;
                    }
                };
                ctx.base = worker::fill_buffers(&mut pool, &ctx.data, w, mixed);
                macro_rules! go {
                    ($eng:expr, $setup:expr) => {{
                        let _ = setup_tx.send(Ok($setup));
                        drop(setup_tx);
                        if let Some(t0) = worker_gate.wait() {
                            ctx.t0 = t0;
                            match ctx.verify.take() {
                                Some(v) => worker::run(ctx, $eng, pool, v),
                                None => worker::run(ctx, $eng, pool, NoVerify),
                            }
                        }
                    }};
                }
                match engine {
                    EngineKind::IoUring => {
                        match UringEngine::new(qd as u32 * 2, my_fds, &pool.iovecs()) {
                            Ok((eng, setup)) => go!(eng, setup),
                            Err(e) => {
                                let _ = setup_tx.send(Err(format!("setting up io_uring: {e}")));
                            }
                        }
                    }
                    EngineKind::Psync => go!(PsyncEngine::new(my_fds, qd), Default::default()),
                    EngineKind::Null => go!(NullEngine::new(qd), Default::default()),
                }
            });
        match spawned {
            Ok(h) => handles.push(h),
            Err(e) => {
                gate.open(None);
                for h in handles {
                    let _ = h.join();
                }
                return Err(RunError::Setup(format!("starting worker thread: {e}")));
            }
        }
    }
    drop(tx);
    drop(setup_tx);
    let mut effective = effective_base;
    let mut setup_failed = None;
    for r in setup_rx.iter().take(spec.jobs as usize) {
        match r {
            Ok(s) => {
                effective.registered_buffers = s.registered_buffers;
                effective.registered_files = s.registered_files;
                effective.ring_flags = s.flags;
                for n in s.notes {
                    if !notes.contains(&n) {
                        obs.note(&n);
                        notes.push(n);
                    }
                }
            }
            Err(e) => setup_failed = Some(e),
        }
    }
    if let Some(e) = setup_failed {
        gate.open(None);
        for h in handles {
            let _ = h.join();
        }
        return Err(RunError::Setup(e));
    }

    let cpu_start = process_cpu();
    let t0 = Instant::now();
    gate.open(Some(t0));
    obs.clock_started();
    obs.measuring(&RawRun {
        spec: spec.clone(),
        effective: effective.clone(),
        targets: target_raw.clone(),
        started_at,
        warmup_ns: tl.warmup_ns,
        measured_ns: 0,
        intervals: Vec::new(),
        start_ns: 0,
        end_ns: 0,
        ops: OpStats::rw(rate_mode),
        fsyncs: 0,
        cpu: CpuTime::default(),
        errors: Vec::new(),
        errno_counts: Vec::new(),
        errors_total: 0,
        stalls: StallsRaw::default(),
        complete: false,
        incomplete_reason: None,
        notes: notes.clone(),
        verify: None,
    });
    let mut col = Collector::new(spec.jobs, tl, rate_mode, cpu_start);
    let mut cpu_marks: BTreeMap<u32, CpuTime> = BTreeMap::new();
    let mut cpu_warm = if tl.warmup_ns == 0 {
        Some(cpu_start)
    } else {
        None
    };
    let mut next_mark: u32 = 0;
    let mut finals: Vec<Option<Box<WorkerFinal>>> = (0..spec.jobs).map(|_| None).collect();
    let mut cpu_end: Option<CpuTime> = None;
    let mark = |cpu_marks: &mut BTreeMap<u32, CpuTime>,
                next_mark: &mut u32,
                cpu_warm: &mut Option<CpuTime>| {
        let now = t0.elapsed().as_nanos() as u64;
        while now >= tl.end(*next_mark) {
            let c = process_cpu();
            if tl.end(*next_mark) == tl.warmup_ns && cpu_warm.is_none() {
                *cpu_warm = Some(c);
            }
            cpu_marks.insert(*next_mark, c);
            *next_mark += 1;
        }
        now
    };
    loop {
        if stop.load(Ordering::Relaxed) {
            run_stop.store(true, Ordering::Relaxed);
        }
        let now = mark(&mut cpu_marks, &mut next_mark, &mut cpu_warm);
        let wait = tl.end(next_mark).saturating_sub(now);
        match rx.recv_timeout(Duration::from_nanos(wait.clamp(1_000_000, 250_000_000))) {
            Ok(WorkerMsg::Interval { worker, snap }) => col.add(worker, snap),
            Ok(WorkerMsg::Done { worker, fin }) => {
                col.done(worker);
                finals[worker as usize] = Some(fin);
                if finals.iter().all(|f| f.is_some()) {
                    cpu_end = Some(process_cpu());
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        let now = mark(&mut cpu_marks, &mut next_mark, &mut cpu_warm);
        col.finalize_ready(now, &cpu_marks, &spec, obs, false);
    }
    for h in handles {
        let _ = h.join();
    }
    let cpu_end = cpu_end.unwrap_or_else(process_cpu);
    let now = t0.elapsed().as_nanos() as u64;
    col.finalize_ready(now, &cpu_marks, &spec, obs, true);

    let mut finals: Vec<Box<WorkerFinal>> = finals.into_iter().flatten().collect();
    let verify = vrun.map(|v| {
        let workers: Vec<VerifyRaw> = finals.iter_mut().filter_map(|f| f.verify.take()).collect();
        // Completed writes become durable here, so the journal can be
        // closed cleanly.
        let synced = !spec.writes() || targets.iter().all(|p| p.file.sync_all().is_ok());
        let (raw, note) = v.finish(workers, synced);
        if let Some(n) = note {
            obs.note(&n);
            notes.push(n);
        }
        raw
    });
    let end_ns = finals.iter().map(|f| f.end_ns).max().unwrap_or(now);
    let measured_ns = end_ns.saturating_sub(tl.warmup_ns);
    let mut errors: Vec<IoErrorRec> = finals
        .iter()
        .flat_map(|f| f.errors.iter().cloned())
        .collect();
    errors.sort_by_key(|e| e.time_ns);
    let mut counts: BTreeMap<i32, u64> = BTreeMap::new();
    for f in &finals {
        for &(e, n) in &f.errno_counts {
            *counts.entry(e).or_default() += n;
        }
    }
    let errors_total = finals.iter().map(|f| f.errors_total).sum();
    let fatal: Vec<String> = finals.iter().filter_map(|f| f.fatal.clone()).collect();
    let stalls = stall_analysis(
        &finals,
        &col.intervals,
        spec.stall_threshold_s,
        tl.warmup_ns,
    );
    let interrupted = stop.load(Ordering::Relaxed);
    let incomplete_reason = if !fatal.is_empty() {
        Some(format!("engine error: {}", fatal[0]))
    } else if interrupted {
        Some("interrupted".to_string())
    } else if verify.as_ref().is_some_and(|v| v.stopped_on_max_errors) {
        Some(format!(
            "stopped after {} data validation findings (--max-errors)",
            spec.max_errors
        ))
    } else if run_stop.load(Ordering::Relaxed) {
        Some("stopped on the first I/O error (--on-error stop)".to_string())
    } else {
        None
    };
    let cpu = cpu_end.since(cpu_warm.unwrap_or(cpu_start));
    let mut target_raw = target_raw;
    per_target(&mut target_raw, &col.per_worker);
    Ok(RawRun {
        effective,
        targets: target_raw,
        started_at,
        warmup_ns: tl.warmup_ns,
        measured_ns,
        start_ns: 0,
        end_ns,
        ops: col.sum,
        fsyncs: col.sum_fsyncs,
        intervals: col.intervals,
        cpu,
        errors,
        errno_counts: counts.into_iter().collect(),
        errors_total,
        stalls,
        complete: incomplete_reason.is_none(),
        incomplete_reason,
        notes,
        verify,
        spec,
    })
}

/// Holds workers after set-up until the clock starts (Some(t0)) or the run
/// is abandoned (None).
#[derive(Default)]
struct Gate {
    state: std::sync::Mutex<Option<Option<Instant>>>,
    cv: std::sync::Condvar,
}

impl Gate {
    fn open(&self, v: Option<Instant>) {
        *self.state.lock().unwrap_or_else(|e| e.into_inner()) = Some(v);
        self.cv.notify_all();
    }
    fn wait(&self) -> Option<Instant> {
        let mut g = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(v) = *g {
                return v;
            }
            g = self.cv.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Merges worker snapshots into intervals and the run summary.
struct Collector {
    jobs: u32,
    tl: Timeline,
    svc: bool,
    cpu_start: CpuTime,
    reported: Vec<i64>,
    done: Vec<bool>,
    pending: BTreeMap<u32, IntervalRaw>,
    intervals: Vec<IntervalRaw>,
    sum: OpStats,
    sum_fsyncs: u64,
    /// Measured (ops, bytes) of each worker, summed per interval snapshot
    /// (not per I/O): the per-target figures of `TargetRaw::measured`.
    per_worker: Vec<(u64, u64)>,
}

impl Collector {
    fn new(jobs: u32, tl: Timeline, svc: bool, cpu_start: CpuTime) -> Self {
        Collector {
            jobs,
            tl,
            svc,
            cpu_start,
            reported: vec![-1; jobs as usize],
            done: vec![false; jobs as usize],
            pending: BTreeMap::new(),
            intervals: Vec::new(),
            sum: OpStats::rw(svc),
            sum_fsyncs: 0,
            per_worker: vec![(0, 0); jobs as usize],
        }
    }

    fn empty(&self, k: u32) -> IntervalRaw {
        IntervalRaw {
            index: k,
            start_ns: self.tl.start(k),
            end_ns: self.tl.end(k),
            warmup: self.tl.is_warmup(k),
            ops: OpStats::rw(self.svc),
            errors: 0,
            fsyncs: 0,
            cpu: None,
            workers_late: 0,
        }
    }

    fn add(&mut self, worker: u32, s: Box<Snapshot>) {
        let k = s.index;
        self.reported[worker as usize] = self.reported[worker as usize].max(k as i64);
        let warm = self.tl.is_warmup(k);
        if !warm {
            self.sum.merge(&s.ops);
            self.sum_fsyncs += s.fsyncs;
            let w = &mut self.per_worker[worker as usize];
            w.0 += s.ops.total_ops();
            w.1 += s.ops.total_bytes();
        }
        // Already shown (a late worker): merge into the stored record.
        if let Some(iv) = self.intervals.iter_mut().find(|iv| iv.index == k) {
            merge_snap(iv, &s);
            iv.end_ns = iv.end_ns.max(s.end_ns.min(self.tl.end(k)));
            return;
        }
        let mut iv = self.pending.remove(&k).unwrap_or_else(|| self.empty(k));
        merge_snap(&mut iv, &s);
        // A final, partial snapshot ends early.
        if s.end_ns < self.tl.end(k) {
            iv.end_ns = if iv.end_ns == self.tl.end(k) {
                s.end_ns
            } else {
                iv.end_ns.max(s.end_ns)
            };
        }
        self.pending.insert(k, iv);
    }

    fn done(&mut self, worker: u32) {
        self.done[worker as usize] = true;
    }

    fn all_reported(&self, k: u32) -> bool {
        (0..self.jobs as usize).all(|w| self.done[w] || self.reported[w] >= k as i64)
    }

    fn finalize_ready(
        &mut self,
        now: u64,
        cpu: &BTreeMap<u32, CpuTime>,
        spec: &WorkloadSpec,
        obs: &mut dyn Observer,
        at_end: bool,
    ) {
        loop {
            let k = self.intervals.last().map(|iv| iv.index + 1).unwrap_or(0);
            let have = self.pending.contains_key(&k);
            let all_done = self.done.iter().all(|&d| d);
            if all_done && self.pending.range(k..).next().is_none() {
                return;
            }
            // A partial interval (a worker's last) waits until every worker
            // is done, so the drain can be folded into the interval before.
            let partial = self
                .pending
                .get(&k)
                .is_some_and(|iv| iv.end_ns < self.tl.end(k));
            let ready = self.all_reported(k) && (have || all_done) && (!partial || all_done);
            let overdue = now >= self.tl.end(k) + self.tl.interval_ns.max(1_000_000_000);
            if !(ready || overdue || at_end) {
                return;
            }
            if at_end && !have && self.pending.range(k..).next().is_none() {
                return;
            }
            let mut iv = self.pending.remove(&k).unwrap_or_else(|| self.empty(k));
            iv.workers_late = (0..self.jobs as usize)
                .filter(|&w| !self.done[w] && self.reported[w] < k as i64)
                .count() as u32;
            let before = match k.checked_sub(1) {
                Some(p) => cpu.get(&p).copied(),
                None => Some(self.cpu_start),
            };
            if let (Some(a), Some(b)) = (before, cpu.get(&k)) {
                iv.cpu = Some(b.since(a));
            }
            // The drain after the last boundary is a sliver of an interval:
            // fold it into the interval before, so no line shows a rate
            // computed over a few microseconds.
            if (at_end || self.done.iter().all(|&d| d))
                && !iv.warmup
                && iv.end_ns - iv.start_ns < self.tl.interval_ns / 10
            {
                if let Some(prev) = self.intervals.last_mut().filter(|p| !p.warmup) {
                    merge_snap_iv(prev, &iv);
                    prev.end_ns = iv.end_ns;
                    continue;
                }
            }
            obs.interval(spec, &iv);
            self.intervals.push(iv);
        }
    }
}

fn merge_snap_iv(iv: &mut IntervalRaw, o: &IntervalRaw) {
    iv.ops.merge(&o.ops);
    iv.errors += o.errors;
    iv.fsyncs += o.fsyncs;
}

fn merge_snap(iv: &mut IntervalRaw, s: &Snapshot) {
    iv.ops.merge(&s.ops);
    iv.errors += s.errors;
    iv.fsyncs += s.fsyncs;
}

/// Global stalls: a time no worker completed anything while I/O was
/// outstanding is the intersection of every worker's gaps.
fn stall_analysis(
    finals: &[Box<WorkerFinal>],
    intervals: &[IntervalRaw],
    threshold_s: f64,
    warmup_ns: u64,
) -> StallsRaw {
    let zero_intervals = intervals
        .iter()
        .filter(|iv| !iv.warmup && iv.ops.total_ops() + iv.errors == 0 && iv.end_ns > iv.start_ns)
        .map(|iv| iv.index)
        .collect();
    let threshold = (threshold_s * 1e9) as u64;
    let mut common: Option<Vec<Gap>> = None;
    for f in finals {
        let mine: Vec<Gap> = f.gaps.clone();
        common = Some(match common {
            None => mine,
            Some(c) => intersect(&c, &mine),
        });
    }
    let common: Vec<Gap> = common
        .unwrap_or_default()
        .into_iter()
        .filter(|g| g.len() >= GAP_RECORD_NS && g.end_ns > warmup_ns)
        .collect();
    let (longest, exact) = if finals.len() == 1 {
        (finals[0].longest_gap, true)
    } else if let Some(g) = common.iter().max_by_key(|g| g.len()) {
        (Some(*g), true)
    } else {
        (
            finals
                .iter()
                .filter_map(|f| f.longest_gap)
                .min_by_key(|g| g.len()),
            false,
        )
    };
    let events = if finals.len() == 1 {
        finals[0]
            .gaps
            .iter()
            .copied()
            .filter(|g| g.len() >= threshold)
            .collect()
    } else {
        common
            .iter()
            .copied()
            .filter(|g| g.len() >= threshold)
            .collect()
    };
    StallsRaw {
        longest,
        exact,
        events,
        zero_intervals,
    }
}

fn intersect(a: &[Gap], b: &[Gap]) -> Vec<Gap> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let s = a[i].start_ns.max(b[j].start_ns);
        let e = a[i].end_ns.min(b[j].end_ns);
        if s < e {
            out.push(Gap {
                start_ns: s,
                end_ns: e,
            });
        }
        if a[i].end_ns < b[j].end_ns {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// Set up `--verify`: maps (journal or memory), and which targets need a
/// stamped prefill so that every read checks something.
fn setup_verify(
    spec: &WorkloadSpec,
    targets: &mut [Prepared],
    notes: &mut Vec<String>,
) -> Result<VerifyRun, RunError> {
    let vt: Vec<VerifyTarget> = targets
        .iter()
        .map(|p| VerifyTarget {
            path: &p.info.path,
            size: p.info.size,
        })
        .collect();
    let v = VerifyRun::setup(spec, &vt).map_err(RunError::Setup)?;
    if v.raw.journal_reset_blocks > 0 {
        notes.push(format!(
            "the journal's previous run ended abruptly: {} blocks written without a durability promise are unchecked until written again",
            v.raw.journal_reset_blocks
        ));
    }
    for (ti, p) in targets.iter_mut().enumerate() {
        let may = match spec.prefill {
            iolab_spec::Prefill::Never => false,
            iolab_spec::Prefill::Always => true,
            iolab_spec::Prefill::Auto => p.info.kind == Kind::File && p.info.owned,
        };
        if spec.reads()
            && may
            && !p.prefill
            && v.region_has_unwritten(ti, p.region_start, p.region_len)
        {
            // Stamp the region first, so every read checks something.
            if !spec.writes() {
                p.file =
                    iolab_target::open(&p.info, true, spec.direct, spec.sync == SyncMode::Dsync)?;
            }
            p.prefill = true;
        }
        if spec.reads() && !p.prefill && v.region_has_unwritten(ti, p.region_start, p.region_len) {
            notes.push(format!(
                "reads of blocks of {} not written in this run{} are not checked; --prefill stamps the whole region first",
                p.info.path.display(),
                if spec.journal.is_some() { " or its journal" } else { "" }
            ));
        }
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_target_totals_follow_the_assignment() {
        let t = |p: &str| TargetRaw {
            path: p.into(),
            kind: TargetKind::File,
            size: 0,
            region_start: 0,
            region_len: 0,
            logical_block_size: 512,
            created: false,
            prefilled_bytes: 0,
            prefill_secs: 0.0,
            measured: None,
        };
        // 5 workers over 2 targets: A gets workers 0, 2, 4; B 1, 3.
        let mut ts = vec![t("a"), t("b")];
        per_target(&mut ts, &[(1, 10), (2, 20), (4, 40), (8, 80), (16, 160)]);
        assert_eq!(ts[0].measured, Some((21, 210)));
        assert_eq!(ts[1].measured, Some((10, 100)));
        assert_eq!(assign(5, 2)[4], vec![(0, 2, 3)]);
        // Fewer workers than targets: a worker's totals cover several.
        let mut ts = vec![t("a"), t("b"), t("c")];
        per_target(&mut ts, &[(1, 10), (2, 20)]);
        assert!(ts.iter().all(|t| t.measured.is_none()));
    }

    #[test]
    fn assignment_alternates_targets() {
        let a = assign(3, 2);
        assert_eq!(a[0], vec![(0, 0, 2)]);
        assert_eq!(a[1], vec![(1, 0, 1)]);
        assert_eq!(a[2], vec![(0, 1, 2)]);
        let a = assign(1, 3);
        assert_eq!(a[0], vec![(0, 0, 1), (1, 0, 1), (2, 0, 1)]);
    }

    #[test]
    fn sequential_workers_are_separate_streams() {
        use crate::gen::{GenConfig, IoGen};
        let spans = [(0u64, 1u64 << 30)];
        let cfg = GenConfig {
            read_pct: 100,
            random_pct: 0,
            read_hit_pct: 0,
            write_hit_pct: 0,
            bs: vec![(1 << 20, 1)],
            align: 1 << 20,
            distribution: iolab_spec::Distribution::Uniform,
        };
        let firsts: Vec<Vec<u64>> = assign(4, 1)
            .iter()
            .enumerate()
            .map(|(w, mine)| {
                let mut g = IoGen::new(&cfg, worker_regions(mine, &spans, 0), w as u64);
                (0..3).map(|_| g.next_io().offset >> 20).collect()
            })
            .collect();
        assert_eq!(
            firsts,
            vec![
                vec![0, 1, 2],
                vec![256, 257, 258],
                vec![512, 513, 514],
                vec![768, 769, 770]
            ]
        );
    }

    #[test]
    fn budget_split_sums() {
        let total: u64 = (0..7).map(|w| split(Some(100), 7, w).unwrap()).sum();
        assert_eq!(total, 100);
    }

    #[test]
    fn gap_intersection() {
        let a = [
            Gap {
                start_ns: 0,
                end_ns: 10,
            },
            Gap {
                start_ns: 20,
                end_ns: 40,
            },
        ];
        let b = [
            Gap {
                start_ns: 5,
                end_ns: 25,
            },
            Gap {
                start_ns: 30,
                end_ns: 35,
            },
        ];
        assert_eq!(
            intersect(&a, &b),
            vec![
                Gap {
                    start_ns: 5,
                    end_ns: 10
                },
                Gap {
                    start_ns: 20,
                    end_ns: 25
                },
                Gap {
                    start_ns: 30,
                    end_ns: 35
                }
            ]
        );
    }
}
