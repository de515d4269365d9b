//! The one trait a workload driver implements, in the spirit of fio's
//! `ioengine_ops`: the core asks it to check and prepare its workload,
//! to make its per-worker tasks (which the core runs on threads of its
//! own, set up before the start gate and released at t0), and to finish
//! its raw results when every worker has ended. What the core needs to
//! know about a driver's I/O it learns from [`Caps`], never from names.

use crate::port::{Port, Setup, Window};
use crate::Observer;
use iolab_raw::{Op, WorkloadRaw};
use std::any::Any;
use std::sync::atomic::AtomicBool;

/// What a driver's workload does, as far as the core cares.
#[derive(Debug, Clone, PartialEq)]
pub struct Caps {
    /// The operations it issues: every interval's table has a slot for
    /// each (so an interval with no I/O still shows them).
    pub ops: Vec<Op>,
    /// It keeps service times beside response times (rate-limited).
    pub svc: bool,
    /// Its I/O moves data to or from a device (the null engine's does
    /// not): without it, device statistics say nothing about it.
    pub moves_data: bool,
}

/// A worker's work: runs on its own thread, set up there (reporting
/// through [`Port::ready`]), then waits at the gate ([`Port::wait_gate`]),
/// its start ([`Port::wait_start`]), and runs its loop, reporting one
/// snapshot per interval and its end through the port.
pub trait Task: Send {
    fn run(self: Box<Self>, port: Port);
}

/// One workload of a run, of some kind (the block driver is the first).
pub trait Driver {
    /// Errors before the first I/O (bad input, a target that cannot be
    /// used); the front end reports them as one line.
    type Error;

    fn caps(&self) -> Caps;

    /// Check and open what the workload needs; notes go to `notes`
    /// (shown once the run starts). Nothing may be left behind on error.
    fn check(&mut self, notes: &mut Vec<String>) -> Result<(), Self::Error>;

    /// Before the clock starts, after every workload passed its checks:
    /// prefill and the like. `Some(reason)` when the workload cannot run
    /// (the run then ends incomplete before its first I/O).
    fn prepare(&mut self, obs: &mut dyn Observer, stop: &AtomicBool) -> Option<String>;

    /// The run did not start: undo what [`Driver::check`] created.
    fn abandon(&mut self) {}

    /// The workload as known before its first I/O: spec, effective
    /// settings, targets, notes; no figures, `complete` false.
    fn describe(&self) -> WorkloadRaw;

    /// The workers, each run on a thread of its own inside `window`.
    fn tasks(&mut self, window: Window) -> Result<Vec<Box<dyn Task>>, Self::Error>;

    /// A worker's set-up report (notes, driver-specific info such as the
    /// ring flags that took). The core shows each new note once.
    fn setup_done(&mut self, _setup: Setup) {}

    /// Every worker ended: the core filled the figures of `raw` (counts,
    /// intervals, errors, stalls, `incomplete_reason` for engine errors
    /// and interrupts). The driver adds its own: each worker's `extra`,
    /// per-worker (ops, bytes), a reason of its own when it stopped
    /// itself. Notes it adds also go to `obs`.
    fn finish(
        &mut self,
        raw: &mut WorkloadRaw,
        extras: Vec<Box<dyn Any + Send>>,
        per_worker: &[(u64, u64)],
        obs: &mut dyn Observer,
    );
}
