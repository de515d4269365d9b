//! The agent's pipes: stdout kept for the protocol alone (fd 1 then points
//! at stderr, so nothing printed by accident corrupts the frames), the one
//! writer every thread sends through, and the reader thread, which answers
//! pings at once and hands everything else to the session.

use iolab_remote::proto::{self, FrameError, FromAgent, ToAgent};
use std::fs::File;
use std::io::{BufWriter, Read};
use std::os::fd::FromRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Mutex, TryLockError};
use std::time::{Duration, Instant};

/// Keep the real stdout on a private descriptor for the frames and point
/// fd 1 at stderr: anything iolab prints on stdout goes to stderr.
pub fn protect_stdout() -> std::io::Result<File> {
    // SAFETY: fcntl and dup2 on descriptors this process owns; the new
    // descriptor is owned by the File alone.
    unsafe {
        let fd = libc::fcntl(1, libc::F_DUPFD_CLOEXEC, 3);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if libc::dup2(2, 1) < 0 {
            let e = std::io::Error::last_os_error();
            libc::close(fd);
            return Err(e);
        }
        Ok(File::from_raw_fd(fd))
    }
}

/// `CLOCK_REALTIME` now, nanoseconds since the Unix epoch (the protocol's
/// clock).
pub fn realtime_ns() -> i64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    ts.tv_sec * 1_000_000_000 + ts.tv_nsec
}

/// What the session hears: from the reader, the run's thread and the
/// writer.
pub enum Ev {
    /// A message the session handles (pings and heartbeats are the
    /// reader's).
    Msg(Box<ToAgent>),
    /// The first frame is a hello of another protocol: its protocol and
    /// version as it gave them.
    ForeignHello { protocol: String, version: String },
    /// A frame that is not a message of this protocol: what is wrong.
    Bad(String),
    /// The controller closed stdin.
    Eof,
    /// A write to the controller failed.
    Lost(String),
    /// The run in progress ended (its Done or Refused follows).
    RunEnded,
}

/// The one way to the controller: a frame at a time, whoever sends.
pub struct Writer {
    out: Mutex<BufWriter<File>>,
    /// A write failed, or the session said its last word: nothing more
    /// is sent.
    closed: AtomicBool,
    lost: Mutex<Sender<Ev>>,
}

impl Writer {
    pub fn new(out: File, lost: Sender<Ev>) -> Writer {
        Writer {
            out: Mutex::new(BufWriter::with_capacity(64 << 10, out)),
            closed: AtomicBool::new(false),
            lost: Mutex::new(lost),
        }
    }

    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Send `msg`, waiting for the other senders; false when it could not
    /// be (the session hears of the first failure).
    pub fn send(&self, msg: &FromAgent) -> bool {
        if self.is_closed() {
            return false;
        }
        let mut out = self.out.lock().unwrap_or_else(|p| p.into_inner());
        self.write(&mut out, msg)
    }

    fn write(&self, out: &mut BufWriter<File>, msg: &FromAgent) -> bool {
        if self.is_closed() {
            return false;
        }
        match proto::write_frame(out, msg) {
            Ok(()) => true,
            Err(e) => {
                if !self.closed.swap(true, Ordering::SeqCst) {
                    let tx = self.lost.lock().unwrap_or_else(|p| p.into_inner());
                    let _ = tx.send(Ev::Lost(format!("writing to the controller failed: {e}")));
                }
                false
            }
        }
    }

    /// Send `msg` as the last word, if the writer is free within `wait`
    /// (a writer blocked on a controller that does not read is left
    /// alone); nothing is sent after it.
    pub fn last_word(&self, msg: &FromAgent, wait: Duration) {
        let end = Instant::now() + wait;
        loop {
            match self.out.try_lock() {
                Ok(mut out) => {
                    self.write(&mut out, msg);
                    break;
                }
                Err(TryLockError::Poisoned(p)) => {
                    self.write(&mut p.into_inner(), msg);
                    break;
                }
                Err(TryLockError::WouldBlock) if Instant::now() < end => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                Err(TryLockError::WouldBlock) => break,
            }
        }
        self.closed.store(true, Ordering::SeqCst);
    }
}

/// When the controller was last heard from.
pub struct Heard {
    base: Instant,
    last_ns: AtomicU64,
}

impl Heard {
    pub fn new() -> Heard {
        Heard {
            base: Instant::now(),
            last_ns: AtomicU64::new(0),
        }
    }

    pub fn touch(&self) {
        let ns = self.base.elapsed().as_nanos() as u64;
        self.last_ns.store(ns, Ordering::SeqCst);
    }

    pub fn silent_for(&self) -> Duration {
        let last = Duration::from_nanos(self.last_ns.load(Ordering::SeqCst));
        self.base.elapsed().saturating_sub(last)
    }
}

/// The reader thread's body: every frame from the controller. The first
/// (the hello) goes to the session, which says on `go` whether to read
/// on; after it, pings are answered here at once and heartbeats only
/// counted; the first frame that fails ends the reading.
pub fn read_loop<R: Read>(
    mut input: R,
    w: &Writer,
    heard: &Heard,
    tx: &Sender<Ev>,
    go: Receiver<bool>,
) {
    let mut first = true;
    loop {
        let payload = match proto::read_frame(&mut input) {
            Ok(p) => p,
            Err(FrameError::Eof) => {
                let _ = tx.send(Ev::Eof);
                return;
            }
            Err(e) => {
                let _ = tx.send(Ev::Bad(e.to_string()));
                return;
            }
        };
        let clock_ns = realtime_ns();
        heard.touch();
        let msg = match proto::decode::<ToAgent>(&payload) {
            Ok(m) => m,
            Err(e) => {
                let ev = match foreign_hello(&payload).filter(|_| first) {
                    Some((protocol, version)) => Ev::ForeignHello { protocol, version },
                    None => Ev::Bad(e.to_string()),
                };
                let _ = tx.send(ev);
                return;
            }
        };
        if first {
            first = false;
            let _ = tx.send(Ev::Msg(Box::new(msg)));
            if go.recv() != Ok(true) {
                return;
            }
            continue;
        }
        match msg {
            ToAgent::Ping { seq } => {
                w.send(&FromAgent::Pong { seq, clock_ns });
            }
            ToAgent::Heartbeat => {}
            m => {
                if tx.send(Ev::Msg(Box::new(m))).is_err() {
                    return;
                }
            }
        }
    }
}

/// A payload that is a hello of another protocol (its fields changed):
/// its `protocol` and `version`, for a refusal that names them.
fn foreign_hello(payload: &[u8]) -> Option<(String, String)> {
    let v: serde_json::Value = serde_json::from_slice(payload).ok()?;
    if v.get("type")?.as_str()? != "hello" {
        return None;
    }
    let field = |k: &str| match v.get(k) {
        Some(serde_json::Value::String(s)) => clean(s),
        Some(x @ serde_json::Value::Number(_)) => x.to_string(),
        _ => "unknown".to_string(),
    };
    let protocol = field("protocol");
    if protocol == proto::PROTOCOL.to_string() {
        return None;
    }
    Some((protocol, field("version")))
}

/// A string of the controller's, fit for one line: control characters
/// replaced, at most 64 characters.
pub fn clean(s: &str) -> String {
    let mut out: String = s
        .chars()
        .take(64)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if s.chars().count() > 64 {
        out.push_str("...");
    }
    out
}
