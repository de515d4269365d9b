//! One run of the controller's on this host, on a thread of its own: its
//! targets checked under this host's rules (a refusal is a `Refused`
//! frame, and the agent stays up), then the run core with this host's
//! device statistics, as a local run (crate::run), and an observer that
//! forwards the run to the controller: `Ready` when every worker waits at
//! the gate, the gate opened at the agreed instant (`Started`), then
//! `Measuring`, notes, intervals and events, and `Done` with the raw
//! results and the record a local run would write, less the intervals
//! already streamed (iolab_remote::series).

use super::wire::{realtime_ns, Ev, Writer};
use iolab_core::{EventLog, Observer};
use iolab_raw::{EventRaw, IntervalRaw, RunRaw};
use iolab_remote::proto::FromAgent;
use iolab_remote::series::Streamed;
use iolab_spec::RunSpec;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

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
            streamed: Streamed::default(),
            fileset_lines: Default::default(),
            prefill_said: None,
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
        Ok(mut raw) => {
            let mut result = crate::run::result_of(&raw, &spec, dev);
            // The controller has every interval already: only those that
            // changed since are sent again.
            let fixes = fwd.streamed.strip(&mut raw, &mut result);
            if fixes.is_some() {
                // The device statistics go ahead in pieces.
                for intervals in iolab_remote::series::device_chunks(&mut result) {
                    w.send(&FromAgent::Devices { index, intervals });
                }
            }
            let _ = tx.send(Ev::RunEnded);
            w.send(&FromAgent::Done {
                index,
                raw,
                result,
                streamed: fixes.is_some(),
                corrections: fixes.unwrap_or_default(),
            });
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
    /// What was sent of each interval, for `Done`'s corrections.
    streamed: Streamed,
    /// The lines of a fileset's creation, as a log shows them.
    fileset_lines: crate::fileset_progress::FilesetLines,
    /// When a prefill's progress was last sent.
    prefill_said: Option<Instant>,
}

impl Forward {
    fn progress(&self, message: String) {
        let index = self.index;
        self.w.send(&FromAgent::Progress { index, message });
    }
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
        self.streamed.sent(total, wls);
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

    /// The plain lines a local run's log shows, one every
    /// [`PLAIN_EVERY_S`](crate::fileset_progress::PLAIN_EVERY_S), and a
    /// last one however short the creation (which host's fileset is
    /// ready, and how long it took, is worth a line in a run of many).
    fn fileset_progress(&mut self, anchor: &str, p: &iolab_core::FilesetProgress) {
        use crate::fileset_progress::{text, Line};
        match self.fileset_lines.next(anchor, p, false) {
            Some(Line::Plain(t)) => self.progress(t),
            _ if p.finished => self.progress(text(anchor, p)),
            _ => {}
        }
    }

    /// A line at the same pace, and one when the prefill is done.
    fn prefill(&mut self, path: &str, done: u64, total: u64) {
        let every = Duration::from_secs_f64(crate::fileset_progress::PLAIN_EVERY_S);
        let start = *self.prefill_said.get_or_insert_with(Instant::now);
        if done < total && start.elapsed() < every {
            return;
        }
        self.prefill_said = (done < total).then(Instant::now);
        let pc = done as f64 * 100.0 / total.max(1) as f64;
        self.progress(format!("prefilling {path}: {pc:.0}%"));
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
