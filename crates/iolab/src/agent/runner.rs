//! One run of the controller's on this host, on a thread of its own: its
//! targets checked under this host's rules (a refusal is a `Refused`
//! frame, and the agent stays up), then the run core with this host's
//! device statistics, as a local run (crate::run), and an observer that
//! forwards the run to the controller: `Ready` when every worker waits at
//! the gate, the gate opened at the agreed instant (`Started`), then
//! `Measuring`, notes, intervals and events, and `Done` with the raw
//! results and the record a local run would write.

use super::wire::{realtime_ns, Ev, Writer};
use iolab_core::{EventLog, Observer};
use iolab_raw::{EventRaw, IntervalRaw, RunRaw};
use iolab_remote::proto::FromAgent;
use iolab_spec::RunSpec;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// The last stretch before the start instant is spun, not slept.
const SPIN_NS: i64 = 200_000;
/// How often a wait looks at the stop flag.
const POLL: Duration = Duration::from_millis(20);

/// What the session tells a run waiting at its gate.
enum Gate {
    Start(i64),
    Cancel,
}

/// The run in progress, as the session sees it.
pub struct Active {
    pub index: u32,
    stop: Arc<AtomicBool>,
    gate: Sender<Gate>,
    /// Set (before `Ready` is sent) once every worker waits at the gate.
    ready: Arc<AtomicBool>,
    started: bool,
    thread: JoinHandle<()>,
}

impl Active {
    /// Start run `index` of `spec` on its thread; it reports its end to
    /// the session on `tx` (before its `Done` or `Refused`).
    pub fn spawn(
        index: u32,
        spec: RunSpec,
        w: Arc<Writer>,
        tx: Sender<Ev>,
    ) -> std::io::Result<Active> {
        let stop = Arc::new(AtomicBool::new(false));
        let ready = Arc::new(AtomicBool::new(false));
        let (gate_tx, gate_rx) = mpsc::channel();
        let fwd = Forward {
            index,
            w,
            gate: gate_rx,
            ready: ready.clone(),
            at_ns: None,
        };
        let st = stop.clone();
        let thread = std::thread::Builder::new()
            .name(format!("run {index}"))
            .spawn(move || run(spec, fwd, st, tx))?;
        Ok(Active {
            index,
            stop,
            gate: gate_tx,
            ready,
            started: false,
            thread,
        })
    }

    /// Open the gate of run `index` at `at_ns`, or why not.
    pub fn open_gate(&mut self, index: u32, at_ns: i64) -> Result<(), String> {
        if index != self.index {
            return Err(format!("run {} is the one set up", self.index));
        }
        if !self.ready.load(Ordering::SeqCst) {
            return Err("the run is not ready yet".into());
        }
        if self.started {
            return Err("the run has started already".into());
        }
        self.started = true;
        let _ = self.gate.send(Gate::Start(at_ns));
        Ok(())
    }

    /// Stop the run: it ends, keeping what it measured (its `Done`
    /// follows); one waiting at the gate ends at once.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = self.gate.send(Gate::Cancel);
    }

    pub fn into_thread(self) -> JoinHandle<()> {
        self.thread
    }
}

/// The run's thread: check, run, report.
fn run(mut spec: RunSpec, mut fwd: Forward, stop: Arc<AtomicBool>, tx: Sender<Ev>) {
    let (index, w) = (fwd.index, fwd.w.clone());
    let refuse = |message: String| {
        let _ = tx.send(Ev::RunEnded);
        w.send(&FromAgent::Refused {
            index: Some(index),
            message,
        });
    };
    if let Err(message) = crate::targets::check_run(&spec) {
        return refuse(message);
    }
    let events = Arc::new(EventLog::new());
    // `iolab mark` and SIGUSR1 on this host mark the run, as locally.
    let marks = crate::marks::listen(events.clone(), &spec.name);
    if let Some(n) = marks.note() {
        eprintln!("iolab agent: {n}");
    }
    let mut dev = crate::devstats::DevSampler::default();
    let raw = crate::run::run_in_dirs(&mut spec, &mut fwd, &mut dev, &stop, &events, false);
    drop(marks);
    match raw {
        Ok(raw) => {
            let result = crate::run::result_of(&raw, &spec, dev);
            let _ = tx.send(Ev::RunEnded);
            w.send(&FromAgent::Done { index, raw, result });
        }
        Err(e) => refuse(e.to_string()),
    }
}

/// The observer that forwards a run to the controller.
struct Forward {
    index: u32,
    w: Arc<Writer>,
    gate: Receiver<Gate>,
    ready: Arc<AtomicBool>,
    /// When the gate opened, for `Started`.
    at_ns: Option<i64>,
}

impl Observer for Forward {
    fn armed(&mut self, stop: &AtomicBool) {
        self.ready.store(true, Ordering::SeqCst);
        self.w.send(&FromAgent::Ready { index: self.index });
        while !stop.load(Ordering::SeqCst) {
            match self.gate.recv_timeout(POLL) {
                Ok(Gate::Start(at_ns)) => {
                    if wait_until(at_ns, stop) {
                        self.at_ns = Some(realtime_ns());
                    }
                    return;
                }
                Ok(Gate::Cancel) | Err(RecvTimeoutError::Disconnected) => return,
                Err(RecvTimeoutError::Timeout) => {}
            }
        }
    }

    fn clock_started(&mut self) {
        if let Some(at_ns) = self.at_ns.take() {
            let index = self.index;
            self.w.send(&FromAgent::Started { index, at_ns });
        }
    }

    fn measuring(&mut self, raw: &RunRaw) {
        let (index, raw) = (self.index, raw.clone());
        self.w.send(&FromAgent::Measuring { index, raw });
    }

    fn note(&mut self, msg: &str) {
        let (index, message) = (self.index, msg.to_string());
        self.w.send(&FromAgent::Note { index, message });
    }

    fn interval(&mut self, _run: &RunSpec, total: &IntervalRaw, wls: &[Option<IntervalRaw>]) {
        self.w.send(&FromAgent::Interval {
            index: self.index,
            total: total.clone(),
            workloads: wls.to_vec(),
        });
    }

    fn event(&mut self, ev: &EventRaw) {
        let (index, event) = (self.index, ev.clone());
        self.w.send(&FromAgent::Event { index, event });
    }
}

/// Wait until `CLOCK_REALTIME` reads `at_ns`: sleep to within
/// [`SPIN_NS`], then spin. False if `stop` was set first.
fn wait_until(at_ns: i64, stop: &AtomicBool) -> bool {
    loop {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        let left = at_ns.saturating_sub(realtime_ns());
        if left <= 0 {
            return true;
        }
        if left > SPIN_NS {
            let nap = Duration::from_nanos((left - SPIN_NS) as u64).min(POLL);
            std::thread::sleep(nap);
        } else {
            std::hint::spin_loop();
        }
    }
}
