//! The agent's session with its controller: the hello and the versions,
//! then every message in its place in the sequence (docs/multi-host.md),
//! heartbeats out, the controller's silence watched, and the way out: 0
//! after `Bye`, 2 on a refused hello or a bad message (after an `Error`
//! frame, best effort, and one line on stderr), 1 when the controller is
//! gone. A run in progress is stopped on the way out.

use super::runner::Active;
use super::wire::{self, clean, Ev, Heard, Writer};
use iolab_remote::proto::{FromAgent, ToAgent, PROTOCOL, VERSION};
use std::fs::File;
use std::io::Read;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How long the agent waits for the controller's hello.
const HELLO_WAIT: Duration = Duration::from_secs(30);
/// How long the way out waits for a stopped run to end.
const RUN_END_WAIT: Duration = Duration::from_secs(5);
/// The longest heartbeat period and silence a hello may ask for.
const MAX_HEARTBEAT_MS: u64 = 3_600_000;
const MAX_TIMEOUT_MS: u64 = 86_400_000;

const EXIT_BYE: u8 = 0;
const EXIT_GONE: u8 = 1;
const EXIT_BAD: u8 = crate::exit::EXIT_BAD_INPUT;

struct Session {
    w: Arc<Writer>,
    rx: Receiver<Ev>,
    /// For the runs' threads.
    tx: Sender<Ev>,
    heard: Arc<Heard>,
    timeout: Duration,
    run: Option<Active>,
    /// The thread of the last run that ended (it may still be sending
    /// its Done).
    ended: Option<JoinHandle<()>>,
}

/// Serve one controller on `input` and `out`: the exit code.
pub fn serve<R: Read + Send + 'static>(out: File, input: R) -> u8 {
    let (tx, rx) = mpsc::channel();
    let w = Arc::new(Writer::new(out, tx.clone()));
    let heard = Arc::new(Heard::new());
    let (go_tx, go_rx) = mpsc::channel();
    {
        let (w, heard, tx) = (w.clone(), heard.clone(), tx.clone());
        std::thread::spawn(move || wire::read_loop(input, &w, &heard, &tx, go_rx));
    }
    let mut s = Session {
        w,
        rx,
        tx,
        heard,
        timeout: Duration::ZERO,
        run: None,
        ended: None,
    };
    let heartbeat = match s.hello() {
        Ok(hb) => hb,
        Err(code) => return code,
    };
    let _ = go_tx.send(true);
    let w = s.w.clone();
    std::thread::spawn(move || beat(&w, heartbeat));
    s.serve()
}

/// Send a heartbeat every `period` until the writer closes.
fn beat(w: &Writer, period: Duration) {
    loop {
        std::thread::sleep(period);
        if !w.send(&FromAgent::Heartbeat) {
            return;
        }
    }
}

impl Session {
    /// The controller's hello, checked and answered: the heartbeat
    /// period it asks for, or the exit code.
    fn hello(&mut self) -> Result<Duration, u8> {
        let ev = match self.rx.recv_timeout(HELLO_WAIT) {
            Ok(ev) => ev,
            Err(_) => {
                let secs = HELLO_WAIT.as_secs();
                return Err(self.bad(&format!("no hello from the controller in {secs} s")));
            }
        };
        let (protocol, version, heartbeat_ms, timeout_ms) = match ev {
            Ev::Msg(m) => match *m {
                ToAgent::Hello {
                    protocol,
                    version,
                    heartbeat_ms,
                    timeout_ms,
                } => (protocol.to_string(), version, heartbeat_ms, timeout_ms),
                m => {
                    let what = format!("{} before the hello", name(&m));
                    return Err(self.bad(&format!("message out of sequence: {what}")));
                }
            },
            Ev::ForeignHello { protocol, version } => (protocol, version, 0, 0),
            ev => return Err(self.other(ev)),
        };
        if protocol != PROTOCOL.to_string() || version != VERSION {
            return Err(self.refuse_versions(&protocol, &version));
        }
        if !(1..=MAX_HEARTBEAT_MS).contains(&heartbeat_ms)
            || !(1..=MAX_TIMEOUT_MS).contains(&timeout_ms)
        {
            return Err(self.bad(&format!(
                "malformed message from the controller: a hello with heartbeat_ms {heartbeat_ms} and timeout_ms {timeout_ms} (1 to {MAX_HEARTBEAT_MS} and 1 to {MAX_TIMEOUT_MS})"
            )));
        }
        self.timeout = Duration::from_millis(timeout_ms);
        self.heard.touch();
        let hello = FromAgent::Hello {
            protocol: PROTOCOL,
            version: VERSION.to_string(),
            arch: machine(),
            host: iolab_report::host_info(),
            pid: std::process::id(),
        };
        if !self.w.send(&hello) {
            return Err(self.gone("writing the hello failed"));
        }
        Ok(Duration::from_millis(heartbeat_ms))
    }

    /// A hello of another version: refused, naming both.
    fn refuse_versions(&mut self, protocol: &str, version: &str) -> u8 {
        let message = format!(
            "this host runs iolab {VERSION} (protocol {PROTOCOL}); the controller is {} (protocol {}): install the same version or use --push",
            clean(version),
            clean(protocol)
        );
        eprintln!("iolab agent: {message}");
        self.w.last_word(
            &FromAgent::Refused {
                index: None,
                message,
            },
            Duration::from_secs(1),
        );
        EXIT_BAD
    }

    /// The session after the hello, to its end: the exit code.
    fn serve(mut self) -> u8 {
        loop {
            let silent = self.heard.silent_for();
            if silent >= self.timeout {
                let ms = self.timeout.as_millis();
                return self.gone(&format!("nothing from the controller for {ms} ms"));
            }
            let ev = match self.rx.recv_timeout(self.timeout - silent) {
                Ok(ev) => ev,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => return self.gone("the reader ended"),
            };
            let m = match ev {
                Ev::Msg(m) => m,
                Ev::RunEnded => {
                    self.ended = self.run.take().map(Active::into_thread);
                    continue;
                }
                ev => return self.other(ev),
            };
            if let Some(code) = self.message(*m) {
                return code;
            }
        }
    }

    /// Handle one message: the exit code if the session ends.
    fn message(&mut self, m: ToAgent) -> Option<u8> {
        match m {
            ToAgent::Run { index, spec } => {
                if let Some(a) = &self.run {
                    let i = a.index;
                    return Some(
                        self.out_of_sequence(&format!("run {index} while run {i} is in progress")),
                    );
                }
                match Active::spawn(index, spec, self.w.clone(), self.tx.clone()) {
                    Ok(a) => self.run = Some(a),
                    Err(e) => return Some(self.bad(&format!("cannot start a run thread: {e}"))),
                }
            }
            ToAgent::Start { index, at_ns } => {
                let why = match &mut self.run {
                    Some(a) => a.open_gate(index, at_ns).err()?,
                    None => "no run is set up".to_string(),
                };
                return Some(self.out_of_sequence(&format!("start of run {index}: {why}")));
            }
            ToAgent::Stop => {
                if let Some(a) = &self.run {
                    a.stop();
                }
            }
            ToAgent::Bye => {
                self.end_run();
                return Some(EXIT_BYE);
            }
            m @ (ToAgent::Hello { .. } | ToAgent::Ping { .. } | ToAgent::Heartbeat) => {
                return Some(self.out_of_sequence(&format!("{} after the hello", name(&m))));
            }
        }
        None
    }

    /// The end on an event that is not a message: the exit code.
    fn other(&mut self, ev: Ev) -> u8 {
        match ev {
            Ev::Bad(e) => self.bad(&format!("malformed message from the controller: {e}")),
            Ev::ForeignHello { .. } => self.out_of_sequence("a second hello"),
            Ev::Eof => self.gone("the controller closed the connection"),
            Ev::Lost(e) => self.gone(&e),
            Ev::Msg(_) | Ev::RunEnded => self.bad("internal: an event out of place"),
        }
    }

    fn out_of_sequence(&mut self, what: &str) -> u8 {
        self.bad(&format!("message out of sequence: {what}"))
    }

    /// A bad message: `Error` (best effort), one line on stderr, the run
    /// stopped; exit 2.
    fn bad(&mut self, message: &str) -> u8 {
        eprintln!("iolab agent: {message}");
        let msg = FromAgent::Error {
            message: message.to_string(),
        };
        self.w.last_word(&msg, Duration::from_secs(1));
        self.end_run();
        EXIT_BAD
    }

    /// The controller is gone: the run stopped; exit 1.
    fn gone(&mut self, why: &str) -> u8 {
        eprintln!("iolab agent: the controller is gone ({why}); stopping");
        self.w.last_word(
            &FromAgent::Error {
                message: format!("the controller is gone: {why}"),
            },
            Duration::from_millis(100),
        );
        self.end_run();
        EXIT_GONE
    }

    /// Stop the run in progress and wait a while for its thread (and the
    /// last run's) to end.
    fn end_run(&mut self) {
        let threads = [
            self.run.take().map(|a| {
                a.stop();
                a.into_thread()
            }),
            self.ended.take(),
        ];
        let deadline = std::time::Instant::now() + RUN_END_WAIT;
        for t in threads.into_iter().flatten() {
            while !t.is_finished() && std::time::Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            if t.is_finished() {
                let _ = t.join();
            }
        }
    }
}

/// A message's name, as in the protocol.
fn name(m: &ToAgent) -> &'static str {
    match m {
        ToAgent::Hello { .. } => "hello",
        ToAgent::Ping { .. } => "ping",
        ToAgent::Run { .. } => "run",
        ToAgent::Start { .. } => "start",
        ToAgent::Stop => "stop",
        ToAgent::Heartbeat => "heartbeat",
        ToAgent::Bye => "bye",
    }
}

/// uname(2)'s machine: `x86_64`, `aarch64`...
fn machine() -> String {
    // SAFETY: uname fills the struct we own; its fields are NUL-terminated.
    unsafe {
        let mut u: libc::utsname = std::mem::zeroed();
        if libc::uname(&mut u) != 0 {
            return std::env::consts::ARCH.to_string();
        }
        std::ffi::CStr::from_ptr(u.machine.as_ptr())
            .to_string_lossy()
            .into_owned()
    }
}
