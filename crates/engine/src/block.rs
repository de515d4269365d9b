//! The block driver: today's block workload behind the run core's
//! [`Driver`] trait. It checks and opens the targets, sets up `--verify`,
//! prefills, makes one [`BlockTask`] per worker (pinned, buffers filled,
//! engine created on the worker's own thread before the gate), and adds
//! its own results (verification, per-target totals) at the end.

use crate::buffers::BufferPool;
use crate::clock::TscRate;
use crate::data::DataGen;
use crate::engines::{
    Engine, FallocEngine, FtruncateEngine, NullEngine, PageFaultEngine, PsyncEngine, UringEngine,
    UringSetup,
};
use crate::gen::{GenConfig, IoGen};
use crate::prepare::{self, Prepared};
use crate::runner::{io_uring_available, RunError};
use crate::verify::{NoVerify, WorkerVerify};
use crate::verify_setup::VerifyRun;
use crate::worker::{self, WorkerCtx};
use iolab_core::{Caps, Driver, Observer, Port, Setup, Task, Window};
use iolab_raw::*;
use iolab_spec::{EngineKind, WorkloadSpec};
use iolab_target::Kind;
use std::any::Any;
use std::os::unix::io::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::SystemTime;

/// One block workload of a run.
pub(crate) struct BlockDriver {
    spec: WorkloadSpec,
    clock_rate: Option<TscRate>,
    notes: Vec<String>,
    targets: Vec<Prepared>,
    vrun: Option<VerifyRun>,
    effective: Effective,
    /// The prefill failed: its error and what verification had by then.
    early: Option<(Option<IoErrorRec>, Option<VerifyRunRaw>)>,
    /// `fill`: writes that met ENOSPC/EDQUOT, all workers together.
    fill_full: Arc<AtomicU64>,
    /// The shared figures of its flow (`flow_ctl`), if it has one.
    flow: Option<std::sync::Arc<crate::flow::FlowShared>>,
    /// The CPUs of `numa.cpu_nodes`, read when the workload is checked.
    numa_cpus: Vec<u32>,
}

impl BlockDriver {
    /// `atomic`: every target takes atomic writes of every write block
    /// size (statx STATX_WRITE_ATOMIC), or the run stops before any I/O.
    fn check_atomic(&self) -> Result<(), RunError> {
        let spec = &self.spec;
        if !spec.writes() {
            return Ok(());
        }
        for p in &self.targets {
            let path = p.info.path.display();
            let (lo, hi) = iolab_target::atomic_write_unit(&p.info.path).unwrap_or((0, 0));
            let bad = spec
                .bs_write
                .as_deref()
                .unwrap_or(&spec.bs)
                .iter()
                .map(|b| b.bytes)
                .find(|&b| hi == 0 || b < lo as u64 || b > hi as u64 || !b.is_power_of_two());
            if let Some(b) = bad {
                let limits = if hi == 0 {
                    "it takes no atomic writes".to_string()
                } else {
                    format!("its atomic write unit is {lo} to {hi} bytes, a power of two")
                };
                return Err(RunError::Setup(format!(
                    "atomic: {path} cannot take atomic writes of {b} bytes ({limits}, statx STATX_WRITE_ATOMIC); give a block size within its limits or drop atomic"
                )));
            }
        }
        Ok(())
    }

    /// The workload `spec` at `rate` (its share of the run's rate).
    pub fn new(spec: &WorkloadSpec, rate: Option<f64>) -> BlockDriver {
        let mut spec = spec.clone();
        spec.rate_iops = rate;
        BlockDriver {
            spec,
            clock_rate: None,
            notes: Vec::new(),
            targets: Vec::new(),
            vrun: None,
            effective: Effective::default(),
            early: None,
            fill_full: Arc::new(AtomicU64::new(0)),
            flow: None,
            numa_cpus: Vec::new(),
        }
    }

    /// Couple it to the run's other workloads of its flow id.
    pub fn with_flow(mut self, flow: Option<std::sync::Arc<crate::flow::FlowShared>>) -> Self {
        self.flow = flow;
        self
    }

    /// The operations of the workload's table: reads and writes, and
    /// trims when it trims.
    fn ops(&self) -> Vec<Op> {
        let mut ops = vec![Op::Read, Op::Write];
        if self.spec.trims() {
            ops.push(Op::Trim);
        }
        ops
    }

    fn target_raw(&self) -> Vec<TargetRaw> {
        self.targets
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
            .collect()
    }

    /// The prefill of a target failed: the workload cannot run.
    fn prefill_failed(
        &mut self,
        e: IoErrorRec,
        obs: &mut dyn Observer,
        stop: &AtomicBool,
    ) -> String {
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
            for p in self.targets.iter().filter(|p| p.info.created) {
                if iolab_target::remove_created(&p.info).is_ok() {
                    let n = format!(
                        "removed {}, which this run created, after the prefill ran out of space",
                        p.info.path.display()
                    );
                    obs.note(&n);
                    self.notes.push(n);
                }
            }
        }
        let verify = self.vrun.take().map(|v| v.finish(Vec::new(), false).0);
        self.early = Some(((!interrupted).then_some(e), verify));
        reason
    }

    /// `invalidate`: drop each target's cached pages over its region
    /// (POSIX_FADV_DONTNEED, files and block devices alike: it writes
    /// nothing of its own; fio uses BLKFLSBUF on a device). A failure is
    /// a note, as in fio.
    fn invalidate(&mut self, obs: &mut dyn Observer) {
        for p in &self.targets {
            // SAFETY: posix_fadvise on an fd we own; advice only.
            let r = unsafe {
                libc::posix_fadvise(
                    p.file.as_raw_fd(),
                    p.region_start as libc::off_t,
                    p.region_len as libc::off_t,
                    libc::POSIX_FADV_DONTNEED,
                )
            };
            if r != 0 {
                let n = format!(
                    "could not drop the page cache of {} (invalidate): {}",
                    p.info.path.display(),
                    errno_name(r)
                );
                obs.note(&n);
                self.notes.push(n);
            }
        }
    }

    /// `unlink`: remove the target files this run created, or that carry
    /// iolab's ownership mark; anything else stays, with a note.
    fn unlink(&mut self, raw: &mut WorkloadRaw, obs: &mut dyn Observer) {
        for p in &self.targets {
            let path = p.info.path.display();
            let n = if p.info.kind != Kind::File {
                format!("kept {path}: unlink removes files, never a device")
            } else if !(p.info.created || p.info.owned) {
                format!(
                    "kept {path}: unlink removes only files iolab created, and this one it did not"
                )
            } else {
                match std::fs::remove_file(&p.info.path) {
                    Ok(()) => continue,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                    Err(e) => format!("could not remove {path} (unlink): {e}"),
                }
            };
            obs.note(&n);
            raw.notes.push(n);
        }
    }

    fn task(&self, w: u32, mine: &[(usize, u64, u64)], window: Window) -> BlockTask {
        let spec = &self.spec;
        let spans: Vec<(u64, u64)> = self
            .targets
            .iter()
            .map(|p| (p.region_start, p.region_len))
            .collect();
        let table = |bs: &[iolab_spec::BsWeight]| -> Vec<(u64, u32)> {
            bs.iter().map(|b| (b.bytes, b.weight)).collect()
        };
        let gen_cfg = GenConfig {
            read_pct: spec.read_pct,
            random_pct: spec.random_pct,
            read_hit_pct: spec.read_hit_pct,
            write_hit_pct: spec.write_hit_pct,
            bs: table(&spec.bs),
            bs_write: spec.bs_write.as_deref().map(table),
            bs_trim: spec.bs_trim.as_deref().map(table),
            trim: spec.trim,
            hole: spec.hole,
            random_every: spec.random_every,
            align: spec.align,
            distribution: spec.distribution.clone(),
            ioprio: spec.ioprio,
            cmdprio: spec.cmdprio.clone(),
        };
        let per_worker = prepare::PerWorker {
            increment: spec.offset_increment,
            range: spec.targets.iter().map(|t| t.range).collect(),
        };
        let regions = prepare::worker_regions(mine, &spans, spec.hit_area, &per_worker);
        let mut ends = vec![0u64; mine.len()];
        for r in &regions {
            let e = &mut ends[r.target as usize];
            *e = (*e).max(r.start + r.len);
        }
        let seed = spec.seed ^ (w as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let verify = self.vrun.as_ref().map(|v| {
            WorkerVerify::new(
                v.shared.clone(),
                mine.iter().map(|&(ti, _, _)| ti).collect(),
                sync_every(spec).0,
                spec.qd,
            )
        });
        let _ = window;
        BlockTask {
            ctx: WorkerCtx {
                clock: self.clock_rate,
                qd: spec.qd,
                batch_complete: spec.batch_complete,
                gen: IoGen::new(&gen_cfg, regions, seed),
                data: DataGen::new(spec.data, spec.dedupe_pct),
                base: Vec::new(),
                target_paths: mine
                    .iter()
                    .map(|&(ti, _, _)| self.targets[ti].info.path.to_string_lossy().into_owned())
                    .collect(),
                budget_ops: prepare::split(spec.ops, spec.jobs, w),
                budget_bytes: prepare::split(spec.io_size, spec.jobs, w),
                rate_period_ns: spec.rate_iops.map(|r| 1e9 * spec.jobs as f64 / r),
                rate_phase_ns: spec.rate_iops.map(|r| 1e9 * w as f64 / r).unwrap_or(0.0),
                poisson: (spec.arrival == iolab_spec::Arrival::Poisson)
                    .then(|| fastrand::Rng::with_seed(seed ^ 0xa771_7a15)),
                think_ns: (spec.think_s * 1e9) as u64,
                think_blocks: spec.think_blocks,
                flow: self
                    .flow
                    .clone()
                    .zip(spec.flow_ctl)
                    .map(|(sh, f)| crate::flow::FlowCtl::join(sh, f.weight, f.sleep_us)),
                fsync_every: sync_every(spec).0,
                sync_kind: sync_every(spec).1,
                end_fsync: spec.end_fsync && spec.writes(),
                on_error: spec.on_error,
                fill: spec.fill.then(|| self.fill_full.clone()),
                verify,
            },
            engine: spec.engine,
            atomic: spec.atomic,
            ioprio: spec.ioprio,
            ends,
            fds: mine
                .iter()
                .map(|&(ti, _, _)| self.targets[ti].file.as_raw_fd())
                .collect(),
            // Reads and writes share the slots (the base content is kept to
            // put back after a read; --verify writes whole sectors itself).
            mixed: spec.read_pct > 0 && spec.writes() && !spec.verify,
            max_bs: spec.max_bs() as usize,
            cpu: match spec.cpus.len() {
                0 => None,
                n => Some(spec.cpus[w as usize % n]),
            },
            numa_cpus: self.numa_cpus.clone(),
            mem_policy: spec.numa.as_ref().and_then(|n| n.mem.clone()),
        }
    }
}

impl Driver for BlockDriver {
    type Error = RunError;

    fn caps(&self) -> Caps {
        Caps {
            ops: self.ops(),
            svc: self.spec.rate_iops.is_some(),
            moves_data: crate::engines::caps(self.spec.engine).moves_data,
        }
    }

    fn check(&mut self, notes: &mut Vec<String>) -> Result<(), RunError> {
        self.spec.validate()?;
        crate::affinity::check_cpus(&self.spec.cpus).map_err(RunError::Setup)?;
        if let Some(n) = &self.spec.numa {
            self.numa_cpus = crate::numa::node_cpus(&n.cpu_nodes).map_err(RunError::Setup)?;
            crate::affinity::check_cpus(&self.numa_cpus).map_err(RunError::Setup)?;
            if let Some(p) = &n.mem {
                crate::numa::check_policy(p).map_err(RunError::Setup)?;
            }
        }
        self.clock_rate = crate::clock::resolve(self.spec.clock)
            .map_err(|why| RunError::Setup(format!("--clock tsc: {why}; use --clock auto")))?;
        let spec = &mut self.spec;
        if spec.engine == EngineKind::IoUring && !io_uring_available() {
            self.notes.push(format!(
                "io_uring is not available here; falling back to psync with {} jobs of 1 outstanding I/O",
                spec.jobs * spec.qd
            ));
            spec.engine = EngineKind::Psync;
            spec.jobs *= spec.qd;
            spec.qd = 1;
        }
        if spec.arrival == iolab_spec::Arrival::Poisson && spec.rate_iops.is_none() {
            self.notes.push(
                "arrival poisson spaces the I/Os of a rate; without --rate it does nothing".into(),
            );
        }
        self.targets = prepare::prepare_targets(&self.spec, &mut self.notes)?;
        if self.spec.atomic {
            if let Err(e) = self.check_atomic() {
                self.abandon();
                return Err(e);
            }
        }
        if self.spec.fill && self.spec.io_size.is_none() && self.spec.ops.is_none() {
            // One pass over the regions, or less when ENOSPC comes first.
            self.spec.io_size = Some(self.targets.iter().map(|p| p.region_len).sum());
        }
        if self.spec.verify {
            match prepare::setup_verify(&self.spec, &mut self.targets, &mut self.notes) {
                Ok(v) => self.vrun = Some(v),
                Err(e) => {
                    self.abandon();
                    return Err(e);
                }
            }
        }
        self.effective = Effective {
            clock: crate::clock::name(&self.clock_rate),
            engine: self.spec.engine.name().into(),
            direct: self.spec.direct,
            qd: self.spec.qd,
            jobs: self.spec.jobs,
            ..Default::default()
        };
        notes.extend(self.notes.iter().cloned());
        Ok(())
    }

    fn prepare(&mut self, obs: &mut dyn Observer, stop: &AtomicBool) -> Option<String> {
        for ti in 0..self.targets.len() {
            if !self.targets[ti].prefill {
                continue;
            }
            let p = &mut self.targets[ti];
            obs.note(&format!(
                "prefilling {} ({} bytes) so reads do not hit never-written blocks{}",
                p.info.path.display(),
                p.region_len,
                if self
                    .vrun
                    .as_ref()
                    .is_some_and(|v| v.shared.pattern.is_some())
                {
                    ", every block carrying the data pattern"
                } else if self.vrun.is_some() {
                    ", every block stamped"
                } else {
                    ""
                }
            ));
            if let Some(v) = self.vrun.as_ref() {
                v.prefill_begin(ti, p.region_start, p.region_len);
            }
            let r = prepare::prefill_one(
                p,
                &self.spec,
                obs,
                stop,
                self.vrun.as_ref().map(|v| (v, ti)),
            );
            if let Some(v) = self.vrun.as_mut() {
                v.prefill_end(ti, p.region_start, p.region_len, r.is_ok());
            }
            if let Err((off, errno)) = r {
                let e = IoErrorRec {
                    target: p.info.path.to_string_lossy().into_owned(),
                    offset: off,
                    len: 0,
                    op: ErrOp::Prefill,
                    errno,
                    time_ns: 0,
                    worker: 0,
                };
                return Some(self.prefill_failed(e, obs, stop));
            }
        }
        if self.spec.invalidate {
            self.invalidate(obs);
        }
        None
    }

    fn abandon(&mut self) {
        for p in &self.targets {
            if p.info.created {
                let _ = iolab_target::remove_created(&p.info);
            }
        }
    }

    fn describe(&self) -> WorkloadRaw {
        let (errors, verify) = match &self.early {
            Some((e, v)) => (e.iter().cloned().collect::<Vec<_>>(), v.clone()),
            None => (Vec::new(), None),
        };
        WorkloadRaw {
            spec: self.spec.clone(),
            start_ns: 0,
            end_ns: 0,
            effective: self.effective.clone(),
            targets: self.target_raw(),
            started_at: SystemTime::now(),
            warmup_ns: 0,
            measured_ns: 0,
            intervals: Vec::new(),
            ops: OpStats::new(&self.ops(), self.spec.rate_iops.is_some()),
            fsyncs: 0,
            cpu: CpuTime::default(),
            errno_counts: errors.iter().map(|e| (e.errno, 1)).collect(),
            errors_total: errors.len() as u64,
            errors,
            stalls: StallsRaw::default(),
            complete: false,
            incomplete_reason: None,
            notes: self.notes.clone(),
            verify,
            fs: None,
            steady: None,
            ended_by: None,
        }
    }

    fn tasks(&mut self, window: Window) -> Result<Vec<Box<dyn Task>>, RunError> {
        let assignment = prepare::assign(self.spec.jobs, self.targets.len());
        Ok(assignment
            .iter()
            .enumerate()
            .map(|(w, mine)| Box::new(self.task(w as u32, mine, window)) as Box<dyn Task>)
            .collect())
    }

    fn setup_done(&mut self, setup: Setup) {
        for n in setup.notes {
            if !self.notes.contains(&n) {
                self.notes.push(n);
            }
        }
        if let Some(s) = setup.info.and_then(|i| i.downcast::<UringSetup>().ok()) {
            self.effective.registered_buffers = s.registered_buffers;
            self.effective.registered_files = s.registered_files;
            self.effective.ring_flags = s.flags;
        }
    }

    fn finish(
        &mut self,
        raw: &mut WorkloadRaw,
        extras: Vec<Box<dyn Any + Send>>,
        per_worker: &[(u64, u64)],
        obs: &mut dyn Observer,
    ) {
        raw.effective = self.effective.clone();
        raw.notes = self.notes.clone();
        if let Some(v) = self.vrun.take() {
            let workers: Vec<VerifyRaw> = extras
                .into_iter()
                .filter_map(|x| x.downcast::<VerifyRaw>().ok().map(|b| *b))
                .collect();
            // Completed writes become durable here, so the journal can be
            // closed cleanly.
            let synced =
                !self.spec.writes() || self.targets.iter().all(|p| p.file.sync_all().is_ok());
            let (vr, note) = v.finish(workers, synced);
            if let Some(n) = note {
                obs.note(&n);
                raw.notes.push(n);
            }
            if raw.incomplete_reason.is_none() && vr.stopped_on_max_errors {
                raw.incomplete_reason = Some(format!(
                    "stopped after {} data validation findings (--max-errors)",
                    self.spec.max_errors
                ));
            }
            raw.verify = Some(vr);
        }
        let full = self.fill_full.load(Ordering::Relaxed);
        if full > 0 {
            let n = format!(
                "fill: the target ran out of space ({full} writes met ENOSPC or EDQUOT), which ended the workload as fio's fill_device does; they are not errors"
            );
            obs.note(&n);
            raw.notes.push(n);
        }
        prepare::per_target(&mut raw.targets, per_worker);
        if self.spec.unlink {
            self.unlink(raw, obs);
        }
    }
}

/// Sync after every N writes, and how: `fsync_every` or
/// `fdatasync_every`, the smaller when both are given.
fn sync_every(spec: &WorkloadSpec) -> (u64, crate::engines::OpKind) {
    use crate::engines::OpKind;
    match (spec.fsync_every, spec.fdatasync_every) {
        (f, d) if d > 0 && (f == 0 || d < f) => (d, OpKind::Fdatasync),
        (f, _) => (f, OpKind::Fsync),
    }
}

/// One worker of a block workload, run on its own thread by the core.
pub(crate) struct BlockTask {
    ctx: WorkerCtx,
    engine: EngineKind,
    /// Writes carry RWF_ATOMIC (`atomic`).
    atomic: bool,
    /// The workload's I/O priority, set on the worker thread (0: none).
    ioprio: u16,
    /// Per target of the worker, where its regions end (page_fault's
    /// mappings).
    ends: Vec<u64>,
    fds: Vec<i32>,
    mixed: bool,
    max_bs: usize,
    cpu: Option<u32>,
    /// With no `cpu`: the CPUs the worker may run on (`numa_cpu_nodes`).
    numa_cpus: Vec<u32>,
    /// Set on the worker's thread before its buffers (`numa_mem_policy`).
    mem_policy: Option<iolab_spec::MemPolicy>,
}

impl BlockTask {
    /// NUMA placement on the worker's own thread, before its buffers.
    fn place(&self, worker: u32) -> Result<(), String> {
        if self.cpu.is_none() && !self.numa_cpus.is_empty() {
            crate::numa::set_thread_cpus(&self.numa_cpus).map_err(|e| {
                format!("numa_cpu_nodes: restricting worker {worker} to its nodes' CPUs: {e}")
            })?;
        }
        if let Some(p) = &self.mem_policy {
            crate::numa::set_thread_policy(p)
                .map_err(|e| format!("numa_mem_policy: setting worker {worker}'s policy: {e}"))?;
        }
        Ok(())
    }
}

impl Task for BlockTask {
    fn run(self: Box<Self>, mut port: Port) {
        let mut t = *self;
        if let Some(cpu) = t.cpu {
            if let Err(e) = crate::affinity::pin_current_thread(cpu) {
                port.ready(Err(format!(
                    "pinning worker {} to CPU {cpu}: {e}",
                    port.worker()
                )));
                return;
            }
        }
        if t.ioprio != 0 {
            if let Err(e) = set_thread_ioprio(t.ioprio) {
                return port.ready(Err(format!(
                    "setting I/O priority class {} level {}: {e}",
                    t.ioprio >> 13,
                    t.ioprio & 7
                )));
            }
        }
        if let Err(e) = t.place(port.worker()) {
            return port.ready(Err(e));
        }
        let qd = t.ctx.qd as usize;
        let mut pool = match BufferPool::new(qd, t.max_bs) {
            Ok(p) => p,
            Err(e) => return port.ready(Err(format!("allocating I/O buffers: {e}"))),
        };
        t.ctx.base = worker::fill_buffers(&mut pool, &t.ctx.data, port.worker(), t.mixed);
        let fds = std::mem::take(&mut t.fds);
        let wflags = if t.atomic { libc::RWF_ATOMIC } else { 0 };
        match t.engine {
            EngineKind::IoUring => match UringEngine::new(qd as u32 * 2, fds, &pool.iovecs()) {
                Ok((mut eng, mut setup)) => {
                    if eng.set_write_flags(wflags) {
                        setup.registered_buffers = false;
                    }
                    let notes = setup.notes.clone();
                    let info: Box<dyn Any + Send> = Box::new(setup);
                    t.go(
                        eng,
                        pool,
                        port,
                        Setup {
                            notes,
                            info: Some(info),
                        },
                    )
                }
                Err(e) => port.ready(Err(format!("setting up io_uring: {e}"))),
            },
            EngineKind::Psync => t.go(
                PsyncEngine::new(fds, qd).with_write_flags(wflags),
                pool,
                port,
                Setup::default(),
            ),
            EngineKind::Null => t.go(NullEngine::new(qd), pool, port, Setup::default()),
            EngineKind::Falloc => t.go(FallocEngine::new(fds, qd), pool, port, Setup::default()),
            EngineKind::Ftruncate => {
                t.go(FtruncateEngine::new(fds, qd), pool, port, Setup::default())
            }
            EngineKind::PageFault => match PageFaultEngine::new(&t.ends, qd) {
                Ok(eng) => t.go(eng, pool, port, Setup::default()),
                Err(e) => port.ready(Err(format!("mapping page_fault's memory: {e}"))),
            },
        }
    }
}

/// ioprio_set(IOPRIO_WHO_PROCESS, 0, value): 0 is the calling thread.
/// (The libc crate has no wrapper.)
fn set_thread_ioprio(value: u16) -> std::io::Result<()> {
    // SAFETY: a plain syscall with integer arguments.
    let r = unsafe { libc::syscall(libc::SYS_ioprio_set, 1, 0, value as libc::c_int) };
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

impl BlockTask {
    /// Set up: wait at the gate and for the workload's start, then run.
    fn go<E: Engine>(mut self, eng: E, pool: BufferPool, mut port: Port, setup: Setup) {
        port.ready(Ok(setup));
        let Some(t0) = port.wait_gate() else {
            // Abandoned before the clock: nothing in flight; the engine
            // still goes before the buffers it registered.
            drop(eng);
            drop(pool);
            return;
        };
        // A stop during the delay leaves the worker to end at once.
        port.wait_start(t0);
        match self.ctx.verify.take() {
            Some(v) => worker::run(self.ctx, eng, pool, v, port, t0),
            None => worker::run(self.ctx, eng, pool, NoVerify, port, t0),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_worker_thread_takes_the_workloads_io_priority() {
        // ioprio_get(IOPRIO_WHO_PROCESS, 0) reads the calling thread's.
        let got = std::thread::spawn(|| {
            super::set_thread_ioprio(3 << 13).unwrap();
            unsafe { libc::syscall(libc::SYS_ioprio_get, 1, 0) }
        })
        .join()
        .unwrap();
        assert_eq!(got, 3 << 13, "idle class");
        let got = std::thread::spawn(|| {
            super::set_thread_ioprio((2 << 13) | 6).unwrap();
            unsafe { libc::syscall(libc::SYS_ioprio_get, 1, 0) }
        })
        .join()
        .unwrap();
        assert_eq!(got, (2 << 13) | 6, "best effort 6");
    }
}
