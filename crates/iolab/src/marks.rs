//! Event marks while a run or a monitor is in progress: the Unix socket
//! `iolab mark` talks to, the SIGUSR1 handler, and the small line protocol
//! between them (docs/monitor.md).
//!
//! Where: one socket per process, `<pid>.sock`, in a per-user runtime
//! directory ([`runtime_dir`]): `/run/iolab` for root, else
//! `$XDG_RUNTIME_DIR/iolab`, else `/tmp/iolab-<uid>` (`IOLAB_RUNTIME_DIR`
//! overrides it). The directory is
//! created mode 0700 and refused when it is not a directory of ours with
//! that mode, so only the same user (and root) can mark. The socket is
//! removed when the [`Marks`] guard drops (the end of the run or monitor,
//! Ctrl-C included); a socket left behind by a process that was killed is
//! removed by the next listener or `iolab mark` that sees its pid dead.
//!
//! Protocol: the client sends one line, `mark <label>\n`, at most
//! [`MAX_MESSAGE`] bytes; the label is at most `MAX_LABEL` bytes of
//! UTF-8 without control characters. The listener pushes the event into
//! the run's [`EventLog`] the moment the line is complete and answers one
//! line: `ok <seconds> <run name>` (time on the run's clock), `ok - <run
//! name>` (the run's clock had not started yet: the event is at 0), or
//! `err <what is wrong>`.
//!
//! Bounded: every client is served on its own short-lived thread with
//! one-second read and write timeouts, at most [`MAX_CLIENTS`] at a time
//! (more are closed at once), so a client that connects and says nothing
//! delays nobody, and a message longer than the limit is refused after
//! reading the limit.

use iolab_core::mark_protocol::parse_request;
pub use iolab_core::mark_protocol::{check_label, request, Reply, MAX_MESSAGE};
use iolab_core::EventLog;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Clients served at the same time; more are closed unanswered.
pub const MAX_CLIENTS: usize = 8;
/// How long a client may take to send its line or read the answer.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(1);
/// How often the accept loop looks whether it should end.
const POLL_MS: i32 = 100;

/// The directory the mark sockets of this user live in: `IOLAB_RUNTIME_DIR`
/// when set (tests, or several users sharing one directory on purpose:
/// it must still be a private directory of the caller).
pub fn runtime_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("IOLAB_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    // SAFETY: geteuid cannot fail and touches no memory.
    let uid = unsafe { libc::geteuid() };
    if uid == 0 {
        return PathBuf::from("/run/iolab");
    }
    match std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from) {
        Some(d) if d.is_absolute() && d.is_dir() => d.join("iolab"),
        _ => PathBuf::from(format!("/tmp/iolab-{uid}")),
    }
}

/// The socket of process `pid` in `dir`.
pub fn socket_path(dir: &Path, pid: u32) -> PathBuf {
    dir.join(format!("{pid}.sock"))
}

/// Check `dir` is ours: a real directory (not a link), owned by this
/// user, with no access for group or others.
pub fn check_dir(dir: &Path) -> Result<(), String> {
    let md = std::fs::symlink_metadata(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    // SAFETY: geteuid cannot fail.
    let uid = unsafe { libc::geteuid() };
    if !md.is_dir() || md.uid() != uid || md.mode() & 0o077 != 0 {
        return Err(format!(
            "{} is not a private directory of this user (want a directory owned by uid {uid}, mode 0700)",
            dir.display()
        ));
    }
    Ok(())
}

/// Create the runtime directory (mode 0700) if needed and check it.
fn ensure_dir(dir: &Path) -> Result<(), String> {
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {
            // The umask may have taken bits away, never added them; set
            // the mode anyway so it is exactly 0700.
            let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(format!("cannot create {}: {e}", dir.display())),
    }
    check_dir(dir)
}

/// Whether process `pid` exists (EPERM: it exists, someone else's).
pub fn alive(pid: u32) -> bool {
    let Ok(p) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if p <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks the process exists.
    let r = unsafe { libc::kill(p, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// The pids with a socket in `dir`, after removing the sockets of
/// processes that no longer exist. Sorted.
pub fn live_sockets(dir: &Path) -> Vec<u32> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut pids = Vec::new();
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_suffix(".sock"))
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if alive(pid) {
            pids.push(pid);
        } else {
            let _ = std::fs::remove_file(e.path());
        }
    }
    pids.sort_unstable();
    pids
}

/// The listener of one run or monitor: its socket and its SIGUSR1
/// handler. Dropping it stops both and removes the socket.
pub struct Marks {
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
    signals: Option<(signal_hook::iterator::Handle, JoinHandle<()>)>,
    path: Option<PathBuf>,
    name: Arc<Mutex<String>>,
    note: Option<String>,
}

/// Start listening for marks of the run `name`, pushed into `events`:
/// `iolab mark` on the socket, and SIGUSR1 (label and source "signal").
/// Never fails: what could not be set up is in [`Marks::note`].
pub fn listen(events: Arc<EventLog>, name: &str) -> Marks {
    listen_in(&runtime_dir(), events, name)
}

/// The listener of `iolab run` (and the study runs): [`listen`], with what
/// could not be set up said on stderr. The run core times the events on
/// the run's clock (`iolab_engine::run(.., events)`); each run's name is
/// given with [`Marks::set_name`].
pub fn start_for_run(events: Arc<EventLog>) -> Marks {
    let m = listen(events, "iolab run");
    if let Some(n) = m.note() {
        eprintln!("iolab: {n}");
    }
    m
}

/// [`listen`] with the socket in `dir`.
pub fn listen_in(dir: &Path, events: Arc<EventLog>, name: &str) -> Marks {
    let name = Arc::new(Mutex::new(name.to_string()));
    let stop = Arc::new(AtomicBool::new(false));
    let mut m = Marks {
        stop: stop.clone(),
        accept: None,
        signals: None,
        path: None,
        name: name.clone(),
        note: None,
    };
    match signal_hook::iterator::Signals::new([signal_hook::consts::SIGUSR1]) {
        Ok(mut sigs) => {
            let handle = sigs.handle();
            let ev = events.clone();
            let t = std::thread::Builder::new()
                .name("iolab-sigusr1".into())
                .spawn(move || {
                    for _ in sigs.forever() {
                        ev.push("signal", "signal");
                    }
                });
            if let Ok(t) = t {
                m.signals = Some((handle, t));
            }
        }
        Err(e) => m.note = Some(format!("SIGUSR1 will not mark events: {e}")),
    }
    match bind(dir) {
        Ok((listener, path)) => {
            let t = std::thread::Builder::new()
                .name("iolab-marks".into())
                .spawn(move || accept_loop(listener, events, name, stop));
            match t {
                Ok(t) => {
                    m.accept = Some(t);
                    m.path = Some(path);
                }
                Err(e) => {
                    let _ = std::fs::remove_file(&path);
                    m.note = Some(format!("iolab mark will not reach this run: {e}"));
                }
            }
        }
        Err(e) => m.note = Some(format!("iolab mark will not reach this run: {e}")),
    }
    m
}

/// Bind this process's socket in `dir`, removing stale ones first.
fn bind(dir: &Path) -> Result<(UnixListener, PathBuf), String> {
    ensure_dir(dir)?;
    live_sockets(dir);
    let path = socket_path(dir, std::process::id());
    // Ours by pid: a file there is from an earlier process with this pid.
    let _ = std::fs::remove_file(&path);
    let l = UnixListener::bind(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    l.set_nonblocking(true)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((l, path))
}

fn accept_loop(
    l: UnixListener,
    events: Arc<EventLog>,
    name: Arc<Mutex<String>>,
    stop: Arc<AtomicBool>,
) {
    let busy = Arc::new(AtomicUsize::new(0));
    while !stop.load(Ordering::Relaxed) {
        let mut pfd = libc::pollfd {
            fd: l.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd for the listener, which outlives the call.
        let n = unsafe { libc::poll(&mut pfd, 1, POLL_MS) };
        if n <= 0 {
            continue;
        }
        let Ok((stream, _)) = l.accept() else {
            continue;
        };
        if stop.load(Ordering::Relaxed) {
            break; // the wake-up from Drop
        }
        if busy.load(Ordering::Relaxed) >= MAX_CLIENTS {
            continue; // closed unanswered: a flood cannot pile up threads
        }
        busy.fetch_add(1, Ordering::Relaxed);
        let (ev, nm, b) = (events.clone(), name.clone(), busy.clone());
        let spawned = std::thread::Builder::new()
            .name("iolab-mark".into())
            .spawn(move || {
                serve(stream, &ev, &nm);
                b.fetch_sub(1, Ordering::Relaxed);
            });
        if spawned.is_err() {
            busy.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// Read one bounded line from a client, mark it, answer.
fn serve(stream: UnixStream, events: &EventLog, name: &Mutex<String>) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(CLIENT_TIMEOUT));
    let _ = stream.set_write_timeout(Some(CLIENT_TIMEOUT));
    let mut buf = Vec::with_capacity(128);
    let mut r = BufReader::new((&stream).take(MAX_MESSAGE as u64 + 1));
    let reply = match r.read_until(b'\n', &mut buf) {
        Err(_) | Ok(0) => return,
        Ok(_) if buf.len() > MAX_MESSAGE || !buf.ends_with(b"\n") => Reply::Refused(format!(
            "a message is one line of at most {MAX_MESSAGE} bytes"
        )),
        Ok(_) => match std::str::from_utf8(&buf[..buf.len() - 1]) {
            Err(_) => Reply::Refused("the message is not UTF-8".into()),
            Ok(line) => match parse_request(line) {
                Ok(label) => {
                    let m = events.push_timed(label, "mark");
                    let n = name.lock().unwrap_or_else(|p| p.into_inner()).clone();
                    Reply::of(m, &n)
                }
                Err(e) => Reply::Refused(e),
            },
        },
    };
    let _ = (&stream).write_all(reply.line().as_bytes());
}

impl Marks {
    /// The run's name, as the answer to `iolab mark` says it.
    pub fn set_name(&self, name: &str) {
        *self.name.lock().unwrap_or_else(|p| p.into_inner()) = name.to_string();
    }

    /// The socket, when listening.
    pub fn socket(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// What could not be set up (marks then do not reach this run).
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }
}

impl Drop for Marks {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.accept.take() {
            // Wake the accept loop now rather than at its next poll.
            if let Some(p) = &self.path {
                let _ = UnixStream::connect(p);
            }
            let _ = t.join();
        }
        if let Some(p) = self.path.take() {
            let _ = std::fs::remove_file(p);
        }
        if let Some((h, t)) = self.signals.take() {
            h.close();
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_core::mark_protocol::MAX_LABEL;

    #[test]
    fn requests_and_replies_round_trip() {
        assert_eq!(
            parse_request("mark controller A failed"),
            Ok("controller A failed")
        );
        assert!(parse_request("hello").is_err());
        assert!(parse_request("mark ").is_err());
        assert!(parse_request(&format!("mark {}", "x".repeat(MAX_LABEL + 1))).is_err());
        assert!(parse_request("mark a\tb").is_err());
        for r in [
            Reply::At(12.345, "seq-read".into()),
            Reply::BeforeStart("monitor".into()),
            Reply::Refused("no".into()),
        ] {
            assert_eq!(Reply::parse(&r.line()), Some(r));
        }
        assert_eq!(Reply::parse("ok nan x"), None);
        assert_eq!(Reply::parse("garbage"), None);
    }

    #[test]
    fn a_foreign_directory_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("iolab");
        ensure_dir(&p).unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().mode() & 0o777, 0o700);
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(ensure_dir(&p).is_err());
        let link = d.path().join("link");
        std::os::unix::fs::symlink(&p, &link).unwrap();
        assert!(check_dir(&link).is_err());
    }

    #[test]
    fn stale_sockets_of_dead_processes_are_removed() {
        let d = tempfile::tempdir().unwrap();
        // A pid above the kernel's maximum (4194304) never exists.
        let dead = socket_path(d.path(), 4_999_999);
        std::fs::write(&dead, b"").unwrap();
        let me = socket_path(d.path(), std::process::id());
        std::fs::write(&me, b"").unwrap();
        std::fs::write(d.path().join("notes.txt"), b"").unwrap();
        assert_eq!(live_sockets(d.path()), vec![std::process::id()]);
        assert!(!dead.exists() && me.exists());
    }

    fn send(path: &Path, bytes: &[u8]) -> String {
        let mut s = UnixStream::connect(path).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        s.write_all(bytes).unwrap();
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        out
    }

    #[test]
    fn the_listener_marks_answers_and_is_not_blocked_by_a_silent_client() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("iolab");
        let log = Arc::new(EventLog::new());
        log.start(std::time::Instant::now());
        let m = listen_in(&dir, log.clone(), "monitor");
        let path = m.socket().expect("listening").to_path_buf();
        assert_eq!(path, socket_path(&dir, std::process::id()));
        // A client that connects and says nothing holds one slot only.
        let _silent = UnixStream::connect(&path).unwrap();
        let t = std::time::Instant::now();
        let r = Reply::parse(&send(&path, b"mark controller A failed\n")).unwrap();
        assert!(
            t.elapsed() < Duration::from_millis(500),
            "{:?}",
            t.elapsed()
        );
        assert!(
            matches!(&r, Reply::At(s, n) if *s >= 0.0 && n == "monitor"),
            "{r:?}"
        );
        let long = format!("mark {}\n", "y".repeat(MAX_MESSAGE));
        let r = Reply::parse(&send(&path, long.as_bytes())).unwrap();
        assert!(matches!(r, Reply::Refused(_)), "{r:?}");
        let r = Reply::parse(&send(&path, b"mark \xff\n")).unwrap();
        assert!(matches!(r, Reply::Refused(_)), "{r:?}");
        let ev = log.take();
        assert_eq!(ev.len(), 1);
        assert_eq!(
            (ev[0].label.as_str(), ev[0].source.as_str()),
            ("controller A failed", "mark")
        );
        drop(m);
        assert!(!path.exists(), "the socket is removed with the guard");
    }
}
