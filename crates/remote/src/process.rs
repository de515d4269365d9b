//! A channel's local process: spawned in a process group of its own (a
//! terminal's Ctrl-C reaches the controller only), its stderr's last
//! bytes kept for the one line a failure becomes, waited for with a
//! deadline and killed with its whole group when it does not end.

use std::io::Read;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How much of a channel's stderr is kept (its end).
const TAIL: usize = 4096;

/// The last bytes a process wrote on stderr.
#[derive(Clone, Default)]
pub struct Tail(Arc<Mutex<Vec<u8>>>);

impl Tail {
    fn push(&self, b: &[u8]) {
        let mut t = self.0.lock().unwrap_or_else(|e| e.into_inner());
        t.extend_from_slice(b);
        if t.len() > TAIL {
            let cut = t.len() - TAIL;
            t.drain(..cut);
        }
    }

    /// The text kept so far.
    pub fn text(&self) -> String {
        let t = self.0.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(&t).into_owned()
    }

    /// The last non-empty line, if any.
    pub fn last_line(&self) -> Option<String> {
        last_line(&self.text())
    }
}

/// The last non-empty line of `s`, trimmed.
pub fn last_line(s: &str) -> Option<String> {
    s.lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .map(str::to_string)
}

/// A running channel process, its pipes taken out as needed.
pub struct Proc {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    pub stdout: Option<ChildStdout>,
    pub tail: Tail,
    tail_thread: Option<JoinHandle<()>>,
    /// Its exit status once reaped.
    status: Option<ExitStatus>,
}

impl Proc {
    /// Start `cmd` with piped stdio in a process group of its own.
    pub fn spawn(mut cmd: Command) -> std::io::Result<Proc> {
        use std::os::unix::process::CommandExt;
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut child = cmd.spawn()?;
        let tail = Tail::default();
        let tail_thread = child.stderr.take().map(|mut err| {
            let t = tail.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 1024];
                while let Ok(n) = err.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    t.push(&buf[..n]);
                }
            })
        });
        Ok(Proc {
            stdin: child.stdin.take(),
            stdout: child.stdout.take(),
            child,
            tail,
            tail_thread,
            status: None,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Its exit status if it ended (reaped once, then remembered).
    pub fn poll(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            self.status = self.child.try_wait().ok().flatten();
        }
        self.status
    }

    /// Its exit status, waiting at most `d`.
    pub fn wait_for(&mut self, d: Duration) -> Option<ExitStatus> {
        let until = Instant::now() + d;
        loop {
            match self.poll() {
                Some(st) => return Some(st),
                None if Instant::now() < until => std::thread::sleep(Duration::from_millis(10)),
                None => return None,
            }
        }
    }

    /// Kill its process group (whatever it started locally too) unless
    /// it ended, reap it and let its stderr reader finish.
    pub fn kill(&mut self) -> Option<ExitStatus> {
        if self.poll().is_none() {
            kill_group(self.child.id());
            let _ = self.child.kill();
            self.status = self.child.wait().ok();
        }
        self.join_tail();
        self.status
    }

    /// `exit N`, `killed by signal N`, `running`.
    pub fn describe(&mut self) -> String {
        use std::os::unix::process::ExitStatusExt;
        match self.poll() {
            Some(s) => match (s.code(), s.signal()) {
                (Some(c), _) => format!("exit {c}"),
                (None, Some(sig)) => format!("killed by signal {sig}"),
                _ => "ended".into(),
            },
            None => "running".into(),
        }
    }

    /// Wait for the stderr reader (the process has ended).
    pub fn join_tail(&mut self) {
        if let Some(t) = self.tail_thread.take() {
            // Something the channel started may hold stderr open: wait a
            // moment only.
            let until = Instant::now() + Duration::from_millis(500);
            while !t.is_finished() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(10));
            }
            if t.is_finished() {
                let _ = t.join();
            }
        }
    }
}

/// SIGKILL the process group led by `pid`.
pub fn kill_group(pid: u32) {
    if pid > 1 {
        // SAFETY: kill(2) with a negative pid signals that process group;
        // the group is one this process created (`process_group(0)`).
        unsafe {
            libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
        }
    }
}

/// Run `cmd` to its end with `input` on its stdin, at most `d`: its exit
/// status (None when killed at the deadline), stdout and stderr.
pub fn run_with(
    cmd: Command,
    input: Option<std::fs::File>,
    d: Duration,
) -> std::io::Result<(Option<ExitStatus>, String, String)> {
    let mut p = Proc::spawn(cmd)?;
    let stdin = p.stdin.take();
    let feeder = std::thread::spawn(move || {
        if let (Some(mut f), Some(mut w)) = (input, stdin) {
            // A host that refuses the copy closes its end: not an error here.
            let _ = std::io::copy(&mut f, &mut w);
        }
    });
    let mut out = p.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(o) = out.as_mut() {
            let _ = o.take(1 << 16).read_to_end(&mut s);
        }
        String::from_utf8_lossy(&s).into_owned()
    });
    let st = p.wait_for(d);
    let st = match st {
        Some(s) => Some(s),
        None => {
            p.kill();
            None
        }
    };
    p.join_tail();
    let _ = feeder.join();
    let out = reader.join().unwrap_or_default();
    Ok((st, out, p.tail.text()))
}
