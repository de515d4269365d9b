//! The file-system driver: a workload of files and directories (a
//! [`iolab_spec::WorkloadSpec`] with `fs` set) on the run core. It checks
//! and prepares the filesets (anchor marker, capacity, parallel
//! creation), runs each thread's mix or flow through a [`backend`]
//! (io_uring with several operations in flight, or system calls), and
//! adds the file-system results (`WorkloadRaw::fs`) at the end.
//!
//! Threads: a mix runs `jobs` threads, each flow its own `threads`; every
//! thread keeps `qd` operations in flight (slots), each slot an
//! independent mix draw or flow instance. The files' state is shared by
//! the threads ([`table`]); the steps of one operation are in `action.rs`,
//! the thread's loop in `exec.rs`, the set-up in `setup.rs`.
//!
//! Safety: every path is relative to a descriptor of the fileset's anchor
//! (which holds iolab's marker) and comes from the layout (`d1/d0/f17`),
//! never from outside. Opens resolve with `RESOLVE_BENEATH |
//! RESOLVE_NO_SYMLINKS` (openat2 on both backends; `openat` with
//! `O_NOFOLLOW` before Linux 5.6), so no symbolic link on the way is
//! followed. stat, access, delete, mkdir, rmdir and rename (and the
//! set-up's stat and the clean-up's rmdir) go from a descriptor of the
//! file's leaf directory, opened the same way, with the file's name alone
//! (`dirs.rs`): a directory of the tree swapped for a symbolic link during
//! a run fails those operations (ELOOP, ENOTDIR, ...; counted) and never
//! reaches outside the anchor. statx and faccessat use
//! `AT_SYMLINK_NOFOLLOW`; unlink, rmdir, rename and mkdir never follow
//! their last component.

pub mod backend;
pub mod sync;
pub(crate) mod syscall;
pub mod uring;
pub mod verify;

mod action;
mod cpu_sample;
mod dirs;
mod exec;
mod filesets;
#[cfg(test)]
mod filesets_tests;
#[cfg(test)]
mod regress_tests;
mod setup;
#[cfg(test)]
mod share_tests;
mod sizes;
mod starve;
#[cfg(test)]
mod swap_tests;
mod table;
#[cfg(test)]
mod tests;

use crate::clock::TscRate;
use crate::runner::RunError;
use exec::FsWorkerOut;
use iolab_core::{Caps, Driver, Observer, Port, Task, Window};
use iolab_fileset::Layout;
use iolab_raw::*;
use iolab_spec::fs::FileSelect;
use iolab_spec::{OnError, WorkloadSpec};
use std::any::Any;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64};
use std::sync::Arc;
use std::time::SystemTime;

/// Which backend a workload's threads use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendKind {
    IoUring,
    Sync,
}

impl BackendKind {
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::IoUring => "io_uring",
            BackendKind::Sync => "sync",
        }
    }
}

/// The backend for `spec`: io_uring when the workload asks for it
/// (`engine` io_uring, the default), keeps more than one operation in
/// flight per thread (`qd` > 1) and the kernel lets the process use it
/// (not with `IOLAB_NO_IO_URING=1`); system calls otherwise. With one
/// operation in flight there is nothing to overlap, and metadata
/// requests on a ring go through the kernel's io-wq workers, which costs
/// more CPU than the plain call (bench/fs-meta-uring), so `qd` 1 runs on
/// system calls (the result's `effective.engine` says which ran).
pub fn backend_for(spec: &WorkloadSpec) -> BackendKind {
    backend_and_reason(spec).0
}

/// [`backend_for`] and why system calls when they are chosen
/// (`WorkloadSpec::fs_sync_reason`, or io_uring unavailable).
pub fn backend_and_reason(spec: &WorkloadSpec) -> (BackendKind, Option<String>) {
    if let Some(why) = spec.fs_sync_reason() {
        return (BackendKind::Sync, Some(why));
    }
    if crate::runner::io_uring_available() {
        (BackendKind::IoUring, None)
    } else {
        (BackendKind::Sync, Some(UNAVAILABLE.into()))
    }
}

/// The reason when the kernel (or `IOLAB_NO_IO_URING=1`) refuses io_uring.
const UNAVAILABLE: &str =
    "io_uring unavailable (the kernel refused a ring, or IOLAB_NO_IO_URING=1)";

/// One fileset while the workload runs.
pub(crate) struct FsSet {
    pub layout: Layout,
    pub table: table::FileTable,
    pub dir: OwnedFd,
    pub anchor: PathBuf,
}

impl FsSet {
    #[inline(always)]
    pub fn dir_fd(&self) -> i32 {
        self.dir.as_raw_fd()
    }
}

/// What a workload's threads share.
pub(crate) struct Shared {
    pub sets: Vec<FsSet>,
    /// Threads of the whole workload.
    pub threads: u32,
    pub verify: verify::FileVerify,
    /// `--ops` left (shared countdown), `--io-size` bytes left.
    pub ops_left: Option<AtomicI64>,
    pub bytes_left: Option<AtomicI64>,
    /// The operations of the workload that pick files, per fileset
    /// (`starve.rs`: what can make a file an operation needs).
    pub makers: Vec<Vec<Op>>,
}

/// One operation of a mix or step of a flow, resolved.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Act {
    pub op: Op,
    pub set: u32,
    pub whole: bool,
    /// Bytes per transfer (the workload's `bs` when the step says 0).
    pub xfer: u32,
    pub random: bool,
    pub iters: u32,
    /// A flow's `open` opens for writing (a later step before the next
    /// close writes).
    pub open_write: bool,
    /// How the operation (a flow's `open`: its steps until the close)
    /// holds its file: alone, or shared with other threads (decided when
    /// the workload is planned, `setup.rs`; the rule is in `table.rs`).
    pub claim: table::Claim,
    /// Index of the operation in [`Plan::ops`].
    pub stat: u8,
    /// The step's own O_DIRECT / O_DSYNC (filebench `directio`, `dsync`),
    /// added to its open's flags.
    pub flags: i32,
}

/// What one thread does.
#[derive(Clone)]
pub(crate) struct Plan {
    /// Index among all the workload's threads, and within its flow (or
    /// the mix) of `threads`.
    pub worker: u32,
    pub index: u32,
    pub threads: u32,
    pub flow: bool,
    pub acts: Vec<Act>,
    /// A mix's cumulative weights and their total.
    pub cum: Vec<u32>,
    pub total_w: u32,
    pub think_ns: u64,
    pub rate_period_ns: Option<f64>,
    pub rate_phase_ns: f64,
    pub qd: u32,
    pub buf_len: usize,
    /// The operations the workload issues (its table's slots).
    pub ops: Vec<Op>,
    pub svc: bool,
    pub select: FileSelect,
    pub seed: u64,
    pub clock: Option<TscRate>,
    pub on_error: OnError,
    /// Stop after this many data validation findings (0: never).
    pub max_errors: u64,
    /// O_DIRECT and O_DSYNC for opens that write; O_DIRECT for reads.
    pub data_flags: i32,
    pub direct_flag: i32,
}

/// One file-system workload of a run.
pub(crate) struct FsDriver {
    spec: WorkloadSpec,
    notes: Vec<String>,
    backend: BackendKind,
    /// Why system calls (None with io_uring).
    backend_reason: Option<String>,
    clock: Option<TscRate>,
    /// Anchors check() created or adopted (undone on abandon).
    made: Vec<(PathBuf, iolab_fileset::AnchorState)>,
    /// The error creating a fileset stopped on (ENOSPC...): an error of
    /// the run, in its `errors`.
    early: Option<IoErrorRec>,
    layouts: Vec<Layout>,
    prepared: bool,
    shared: Option<Arc<Shared>>,
    filesets: Vec<FilesetRaw>,
    plans: Vec<Plan>,
}

impl FsDriver {
    /// The workload `spec` (with `fs` set) at `rate` (its share of the
    /// run's rate).
    pub fn new(spec: &WorkloadSpec, rate: Option<f64>) -> FsDriver {
        let mut spec = spec.clone();
        spec.rate_iops = rate;
        let (backend, backend_reason) = backend_and_reason(&spec);
        FsDriver {
            backend,
            backend_reason,
            spec,
            notes: Vec::new(),
            clock: None,
            made: Vec::new(),
            early: None,
            layouts: Vec::new(),
            prepared: false,
            shared: None,
            filesets: Vec::new(),
            plans: Vec::new(),
        }
    }

    fn effective(&self) -> Effective {
        Effective {
            engine: self.backend.name().into(),
            clock: crate::clock::name(&self.clock),
            direct: self.spec.direct,
            qd: self.spec.qd,
            jobs: self.plans.len() as u32,
            ..Default::default()
        }
    }

    fn fs_raw(&self) -> FsRaw {
        FsRaw {
            filesets: self.filesets.clone(),
            sync_ops: match self.backend {
                BackendKind::Sync if self.io_uring_missing() => {
                    self.plans.first().map_or(Vec::new(), |p| p.ops.clone())
                }
                _ => Vec::new(),
            },
            backend: self.backend.name().into(),
            backend_reason: self.backend_reason.clone(),
            ..Default::default()
        }
    }

    /// Why the workload stopped when a thread's operation could never
    /// find a file in the state it needs (`starve.rs`).
    fn hopeless_reason(&self, outs: &[FsWorkerOut]) -> Option<String> {
        let (op, set) = outs.iter().find_map(|o| o.hopeless)?;
        let fs = self.spec.fs.as_ref()?;
        let name = fs
            .filesets
            .get(set as usize)
            .map_or("?", |f| f.name.as_str());
        let flow = matches!(fs.work, iolab_spec::fs::FsWork::Flows(_));
        Some(starve::reason(op, name, flow))
    }

    /// System calls because io_uring is unavailable, not by choice: then
    /// every operation counts in `sync_ops`.
    fn io_uring_missing(&self) -> bool {
        self.backend_reason.as_deref() == Some(UNAVAILABLE)
    }
}

impl Driver for FsDriver {
    type Error = RunError;

    fn caps(&self) -> Caps {
        let plans = setup::plans(&self.spec, None);
        Caps {
            ops: plans.first().map_or_else(Vec::new, |p| p.ops.clone()),
            svc: plans.iter().any(|p| p.svc),
            moves_data: true,
        }
    }

    fn check(&mut self, notes: &mut Vec<String>) -> Result<(), RunError> {
        self.spec.validate()?;
        setup::validate(&self.spec).map_err(RunError::Setup)?;
        self.clock = crate::clock::resolve(self.spec.clock)
            .map_err(|why| RunError::Setup(format!("--clock tsc: {why}; use --clock auto")))?;
        self.plans = setup::plans(&self.spec, self.clock);
        match filesets::check_filesets(&self.spec, &mut self.made) {
            Ok(l) => self.layouts = l,
            Err(e) => {
                self.abandon();
                return Err(RunError::Setup(e));
            }
        }
        if self.backend == BackendKind::Sync && self.spec.qd > 1 {
            self.notes.push(format!(
                "file operations run as system calls (io_uring unavailable or --engine psync): the {} operations in flight of each thread take turns",
                self.spec.qd
            ));
        }
        notes.extend(self.notes.iter().cloned());
        Ok(())
    }

    fn prepare(&mut self, obs: &mut dyn Observer, stop: &AtomicBool) -> Option<String> {
        self.prepared = true;
        let verify = setup::make_verify(&self.spec, &self.layouts);
        match filesets::create_all(&self.spec, &self.layouts, &verify, obs, stop) {
            Ok((sets, raws)) => {
                self.filesets = raws;
                self.shared = Some(Arc::new(setup::shared(&self.spec, sets, verify)));
                None
            }
            Err(n) => {
                self.filesets = n.raws;
                self.early = n.error;
                Some(n.reason)
            }
        }
    }

    fn abandon(&mut self) {
        if !self.prepared {
            filesets::undo_anchors(&self.made);
        }
        self.made.clear();
    }

    fn describe(&self) -> WorkloadRaw {
        WorkloadRaw {
            spec: self.spec.clone(),
            start_ns: 0,
            end_ns: 0,
            effective: self.effective(),
            targets: Vec::new(),
            started_at: SystemTime::now(),
            warmup_ns: 0,
            measured_ns: 0,
            intervals: Vec::new(),
            ops: OpStats::new(&self.caps().ops, self.caps().svc),
            fsyncs: 0,
            cpu: CpuTime::default(),
            errno_counts: self.early.iter().map(|e| (e.errno, 1)).collect(),
            errors_total: self.early.iter().count() as u64,
            errors: self.early.iter().cloned().collect(),
            stalls: StallsRaw::default(),
            complete: false,
            incomplete_reason: None,
            notes: self.notes.clone(),
            verify: None,
            fs: Some(self.fs_raw()),
            steady: None,
            ended_by: None,
        }
    }

    fn tasks(&mut self, _window: Window) -> Result<Vec<Box<dyn Task>>, RunError> {
        let Some(sh) = self.shared.clone() else {
            return Err(RunError::Setup(format!(
                "workload {}: the filesets were not prepared",
                self.spec.name
            )));
        };
        Ok(self
            .plans
            .iter()
            .map(|p| {
                Box::new(FsTask {
                    plan: p.clone(),
                    sh: sh.clone(),
                    backend: self.backend,
                }) as Box<dyn Task>
            })
            .collect())
    }

    fn finish(
        &mut self,
        raw: &mut WorkloadRaw,
        extras: Vec<Box<dyn Any + Send>>,
        _per_worker: &[(u64, u64)],
        obs: &mut dyn Observer,
    ) {
        raw.effective = self.effective();
        let outs: Vec<FsWorkerOut> = extras
            .into_iter()
            .filter_map(|x| x.downcast::<FsWorkerOut>().ok().map(|b| *b))
            .collect();
        let mut fs = self.fs_raw();
        fs.sync_ops.clear();
        let skipped = setup::merge_outs(&mut fs, &outs);
        if self.backend == BackendKind::Sync && !self.io_uring_missing() {
            // Chosen, not for lack of opcodes: `backend_reason` says why.
            fs.sync_ops.clear();
        }
        if skipped > 0 {
            self.notes.push(format!(
                "{skipped} operations found no file in the state they need and free (e.g. delete with every file gone, or every file held by other threads) and were skipped"
            ));
        }
        self.notes.extend(setup::idle_threads(&outs));
        if let Some(sh) = self.shared.as_ref() {
            filesets::end_filesets(&self.spec, &sh.sets, &mut fs.filesets, &mut self.notes);
            // --verify: what the reads found (fs/verify.rs).
            raw.verify = sh.verify.run_raw().map(|mut v| {
                v.max_errors = self.spec.max_errors;
                v.stopped_on_max_errors = v.max_errors > 0 && sh.verify.findings() >= v.max_errors;
                v
            });
            if raw.incomplete_reason.is_none()
                && raw.verify.as_ref().is_some_and(|v| v.stopped_on_max_errors)
            {
                raw.incomplete_reason = Some(format!(
                    "stopped after {} data validation findings (--max-errors)",
                    self.spec.max_errors
                ));
            }
        }
        for n in &self.notes {
            if !raw.notes.contains(n) {
                obs.note(n);
                raw.notes.push(n.clone());
            }
        }
        if raw.incomplete_reason.is_none() {
            raw.incomplete_reason = self.hopeless_reason(&outs);
        }
        if raw.incomplete_reason.is_none() && outs.iter().any(|o| o.starved) {
            raw.incomplete_reason = Some(
                "stopped: the operations found no file in the state they need (e.g. delete with every file gone, create with none missing); give a mix that makes files as well as removing them"
                    .into(),
            );
        }
        if raw.incomplete_reason.is_none() {
            raw.incomplete_reason = setup::stop_reason(raw, &self.spec);
        }
        raw.fs = Some(fs);
    }
}

/// One thread of a file-system workload, run on its own thread by the core.
pub(crate) struct FsTask {
    plan: Plan,
    sh: Arc<Shared>,
    backend: BackendKind,
}

impl Task for FsTask {
    fn run(self: Box<Self>, mut port: Port) {
        let t = *self;
        let mut pool = match crate::buffers::BufferPool::new(t.plan.qd as usize, t.plan.buf_len) {
            Ok(p) => p,
            Err(e) => return port.ready(Err(format!("allocating I/O buffers: {e}"))),
        };
        let mut rng = fastrand::Rng::with_seed(t.plan.seed ^ u64::from(t.plan.worker));
        for s in 0..t.plan.qd as usize {
            rng.fill(pool.slot_mut(s));
        }
        match t.backend {
            // Created here, on the thread that uses it (the ring's set-up
            // asks for that).
            BackendKind::IoUring => match uring::UringBackend::new(t.plan.qd * 2) {
                Ok(be) => go(be, t.sh, t.plan, pool, port),
                Err(e) => port.ready(Err(format!("setting up io_uring: {e}"))),
            },
            BackendKind::Sync => go(sync::SyncBackend::new(t.plan.qd), t.sh, t.plan, pool, port),
        }
    }
}

/// Report set-up, wait at the gate and for the start, run the thread.
fn go<B: backend::Backend>(
    be: B,
    sh: Arc<Shared>,
    plan: Plan,
    pool: crate::buffers::BufferPool,
    mut port: Port,
) {
    port.ready(Ok(iolab_core::Setup::default()));
    let Some(t0) = port.wait_gate() else {
        return;
    };
    port.wait_start(t0);
    sh.verify.started(t0);
    exec::run(be, sh, plan, pool, port, t0);
}
