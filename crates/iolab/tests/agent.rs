//! `iolab agent --stdio` driven as a controller drives it, but spawned
//! directly (no ssh): the hello and the versions, pings, a run through
//! Run / Ready / Start / Started / Interval / Done, Stop, a target the
//! safety rules refuse, bad frames, a closed stdin and a silent
//! controller. Frames are written and read with iolab_remote::proto.

use iolab_raw::IntervalRaw;
use iolab_remote::proto::{self, FromAgent, ToAgent, MAGIC, MAX_FRAME, PROTOCOL, VERSION};
use iolab_spec::{EngineKind, RunSpec, WorkloadSpec};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(10);

/// An agent process and the controller's ends of its pipes.
struct Agent {
    child: Child,
    stdin: Option<ChildStdin>,
    frames: Receiver<FromAgent>,
    stderr: Receiver<String>,
}

impl Agent {
    fn spawn() -> Agent {
        Agent::spawn_to(Stdio::piped(), None)
    }

    /// The agent with its stdout on `stdout`, read from `out` (else its
    /// pipe).
    fn spawn_to(stdout: Stdio, out: Option<Box<dyn Read + Send>>) -> Agent {
        let mut child = Command::new(env!("CARGO_BIN_EXE_iolab"))
            .args(["agent", "--stdio"])
            .stdin(Stdio::piped())
            .stdout(stdout)
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn iolab agent");
        let mut out = out.unwrap_or_else(|| Box::new(child.stdout.take().unwrap()));
        let (tx, frames) = mpsc::channel();
        std::thread::spawn(move || loop {
            match proto::read_message::<_, FromAgent>(&mut out) {
                Ok(m) => {
                    if tx.send(m).is_err() {
                        return;
                    }
                }
                Err(proto::FrameError::Eof) => return,
                Err(e) => {
                    eprintln!("the agent's frames: {e}");
                    return;
                }
            }
        });
        let mut err = child.stderr.take().unwrap();
        let (etx, stderr) = mpsc::channel();
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = err.read_to_string(&mut s);
            let _ = etx.send(s);
        });
        Agent {
            stdin: child.stdin.take(),
            child,
            frames,
            stderr,
        }
    }

    /// An agent that has said hello (heartbeats every `hb_ms`, silence
    /// of `timeout_ms` is the end).
    fn hello(hb_ms: u64, timeout_ms: u64) -> Agent {
        let mut a = Agent::spawn();
        a.send(&hello_msg(VERSION, hb_ms, timeout_ms));
        match a.recv() {
            FromAgent::Hello { .. } => a,
            m => panic!("expected the agent's hello, got {m:?}"),
        }
    }

    fn send(&mut self, m: &ToAgent) {
        proto::write_frame(self.stdin.as_mut().unwrap(), m).expect("write a frame");
    }

    fn send_bytes(&mut self, b: &[u8]) {
        let i = self.stdin.as_mut().unwrap();
        let _ = i.write_all(b);
        let _ = i.flush();
    }

    /// The next frame but heartbeats.
    fn recv(&mut self) -> FromAgent {
        let end = Instant::now() + WAIT;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.frames.recv_timeout(left) {
                Ok(FromAgent::Heartbeat) => continue,
                Ok(m) => return m,
                Err(e) => panic!("no frame from the agent: {e}"),
            }
        }
    }

    /// Frames until `Done` (or `Refused`) of run `index`: what came before
    /// it and it.
    fn until_done(&mut self) -> (Vec<FromAgent>, FromAgent) {
        let mut seen = Vec::new();
        loop {
            match self.recv() {
                m @ (FromAgent::Done { .. } | FromAgent::Refused { .. }) => return (seen, m),
                FromAgent::Error { message } => panic!("agent error: {message}"),
                m => seen.push(m),
            }
        }
    }

    fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The exit status within `d`, or a failure (the agent is killed).
    fn exit_within(&mut self, d: Duration) -> ExitStatus {
        let end = Instant::now() + d;
        loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                return st;
            }
            if Instant::now() > end {
                let _ = self.child.kill();
                panic!("the agent did not exit within {d:?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn stderr(&self) -> String {
        self.stderr.recv_timeout(WAIT).unwrap_or_default()
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn hello_msg(version: &str, hb_ms: u64, timeout_ms: u64) -> ToAgent {
    ToAgent::Hello {
        protocol: PROTOCOL,
        version: version.into(),
        heartbeat_ms: hb_ms,
        timeout_ms,
    }
}

fn now_ns() -> i64 {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    d.as_nanos() as i64
}

/// A run reading `path` (a file the test made) for `secs`, intervals of
/// 0.1 s after 0.2 s of warm-up.
fn read_run(path: &Path, secs: f64) -> RunSpec {
    let mut w = WorkloadSpec::example("agent-read", path.to_str().unwrap(), "randread");
    w.engine = EngineKind::Psync;
    w.direct = false;
    w.duration_s = Some(secs);
    w.warmup_s = 0.2;
    w.interval_s = 0.1;
    RunSpec::single(w)
}

/// A file of `mib` MiB in `dir`.
fn data_file(dir: &Path, mib: usize) -> std::path::PathBuf {
    let p = dir.join("data.bin");
    std::fs::write(&p, vec![0x5au8; mib << 20]).unwrap();
    p
}

/// Run `spec` as run `index`: Ready, then a start 100 ms ahead; the
/// requested start and the Started frame's.
fn start_run(a: &mut Agent, index: u32, spec: RunSpec) -> (i64, i64) {
    a.send(&ToAgent::Run { index, spec });
    match a.recv() {
        FromAgent::Ready { index: i } => assert_eq!(i, index),
        m => panic!("expected Ready, got {m:?}"),
    }
    let at = now_ns() + 100_000_000;
    a.send(&ToAgent::Start { index, at_ns: at });
    match a.recv() {
        FromAgent::Started { index: i, at_ns } => {
            assert_eq!(i, index);
            (at, at_ns)
        }
        m => panic!("expected Started, got {m:?}"),
    }
}

#[test]
fn the_agent_answers_hello_with_its_versions_and_host() {
    let mut a = Agent::spawn();
    a.send(&hello_msg(VERSION, 200, 5000));
    match a.recv() {
        FromAgent::Hello {
            protocol,
            version,
            arch,
            host,
            pid,
        } => {
            assert_eq!((protocol, version.as_str()), (PROTOCOL, VERSION));
            let uname = Command::new("uname").arg("-m").output().unwrap();
            assert_eq!(arch, String::from_utf8_lossy(&uname.stdout).trim());
            assert_eq!(pid, a.child.id());
            assert!(host.cpus > 0, "{host:?}");
        }
        m => panic!("expected Hello, got {m:?}"),
    }
    // Its stdout is kept for frames: fd 1 is its stderr now.
    let fd = |n: u32| std::fs::read_link(format!("/proc/{}/fd/{n}", a.child.id())).unwrap();
    assert_eq!(fd(1), fd(2));
    a.send(&ToAgent::Bye);
    assert_eq!(a.exit_within(WAIT).code(), Some(0));
}

#[test]
fn another_version_or_protocol_is_refused_naming_both() {
    let mut a = Agent::spawn();
    a.send(&hello_msg("0.0.0-other", 200, 5000));
    match a.recv() {
        FromAgent::Refused { index, message } => {
            assert_eq!(index, None);
            assert!(message.contains(VERSION), "{message}");
            assert!(message.contains("0.0.0-other"), "{message}");
        }
        m => panic!("expected Refused, got {m:?}"),
    }
    assert_eq!(a.exit_within(WAIT).code(), Some(2));
    assert!(a.stderr().contains("0.0.0-other"));
    // A later protocol whose hello has other fields is refused the same
    // way, naming its protocol.
    let mut a = Agent::spawn();
    let payload = br#"{"type":"hello","protocol":7,"version":"9.0.0","features":[]}"#;
    let mut b = MAGIC.to_vec();
    b.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    b.extend_from_slice(payload);
    a.send_bytes(&b);
    match a.recv() {
        FromAgent::Refused {
            index: None,
            message,
        } => {
            assert!(message.contains("protocol 7"), "{message}");
            assert!(
                message.contains(&format!("protocol {PROTOCOL}")),
                "{message}"
            );
        }
        m => panic!("expected Refused, got {m:?}"),
    }
    assert_eq!(a.exit_within(WAIT).code(), Some(2));
}

#[test]
fn pings_are_answered_with_the_agents_clock() {
    let mut a = Agent::hello(200, 5000);
    for seq in 1..=5 {
        let before = now_ns();
        a.send(&ToAgent::Ping { seq });
        match a.recv() {
            FromAgent::Pong { seq: s, clock_ns } => {
                let after = now_ns();
                assert_eq!(s, seq);
                // Same machine, same clock: between send and receipt.
                assert!(
                    before <= clock_ns && clock_ns <= after,
                    "{before} {clock_ns} {after}"
                );
            }
            m => panic!("expected Pong, got {m:?}"),
        }
    }
}

#[test]
fn a_run_streams_intervals_that_add_up_to_its_done() {
    let dir = tempfile::tempdir().unwrap();
    let file = data_file(dir.path(), 4);
    let mut a = Agent::hello(100, 5000);
    let (at, started) = start_run(&mut a, 0, read_run(&file, 0.5));
    eprintln!(
        "agent start: {} ns after the instant asked for",
        started - at
    );
    // The start instant is honoured: not before it, not long after.
    assert!(started >= at, "started {} ns early", at - started);
    assert!(
        started - at < 500_000_000,
        "started {} ns late",
        started - at
    );
    let (seen, done) = a.until_done();
    let FromAgent::Done { index, raw, result } = done else {
        panic!("refused: {done:?}");
    };
    assert_eq!(index, 0);
    assert!(matches!(seen.first(), Some(FromAgent::Measuring { .. })));
    let streamed: Vec<&IntervalRaw> = seen
        .iter()
        .filter_map(|m| match m {
            FromAgent::Interval { total, .. } => Some(total),
            _ => None,
        })
        .collect();
    assert!(streamed.len() >= 5, "{} intervals", streamed.len());
    assert_eq!(streamed.len(), raw.intervals.len());
    let after_warmup = |ivs: &mut dyn Iterator<Item = &IntervalRaw>| -> u64 {
        ivs.filter(|iv| !iv.warmup)
            .map(|iv| iv.ops.total_bytes())
            .sum()
    };
    let bytes = after_warmup(&mut streamed.iter().copied());
    assert!(bytes > 0);
    // Done's totals are its intervals' after warm-up...
    assert_eq!(
        raw.ops.total_bytes(),
        after_warmup(&mut raw.intervals.iter())
    );
    assert_eq!(result.summary.total.bytes, raw.ops.total_bytes());
    // ...and the streamed intervals are Done's, but for the I/O in
    // flight at the end, which the run core adds to the last interval
    // after showing it (at most one per job and queue slot).
    let n = streamed.len();
    for (s, r) in streamed[..n - 1].iter().zip(&raw.intervals) {
        assert_eq!(
            s.ops.total_bytes(),
            r.ops.total_bytes(),
            "interval {}",
            s.index
        );
    }
    let late = raw.ops.total_bytes() - bytes;
    assert!(late <= 4096, "{late} bytes more in Done than streamed");
    assert!(result.complete);
    assert!(result.devices.is_some(), "the host's device statistics");
    // The next run on the same session.
    start_run(&mut a, 1, read_run(&file, 0.3));
    assert!(matches!(a.until_done().1, FromAgent::Done { index: 1, .. }));
    a.send(&ToAgent::Bye);
    assert_eq!(a.exit_within(WAIT).code(), Some(0));
}

#[test]
fn stop_mid_run_ends_it_with_an_incomplete_done() {
    let dir = tempfile::tempdir().unwrap();
    let file = data_file(dir.path(), 4);
    let mut a = Agent::hello(100, 5000);
    start_run(&mut a, 0, read_run(&file, 60.0));
    // Past the warm-up.
    while !matches!(a.recv(), FromAgent::Interval { total, .. } if !total.warmup) {}
    let t = Instant::now();
    a.send(&ToAgent::Stop);
    let (_, done) = a.until_done();
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    match done {
        FromAgent::Done { result, .. } => {
            assert!(!result.complete);
            assert!(result.summary.total.bytes > 0);
        }
        m => panic!("expected Done, got {m:?}"),
    }
    a.send(&ToAgent::Bye);
    assert_eq!(a.exit_within(WAIT).code(), Some(0));
}

#[test]
fn a_target_the_safety_rules_refuse_is_refused_and_the_agent_stays_up() {
    iolab_testutil::require_root!();
    iolab_testutil::require_tool!("sfdisk");
    // A partition table: data iolab must not destroy unless named.
    let script = "label: dos\nstart=2048, size=8192\n";
    let dev = iolab_testutil::LoopDevice::with_partitions(16 << 20, script).expect("losetup");
    let mut w = WorkloadSpec::example("agent-write", dev.path_str(), "randwrite");
    w.duration_s = Some(0.3);
    let mut a = Agent::hello(100, 5000);
    a.send(&ToAgent::Run {
        index: 3,
        spec: RunSpec::single(w),
    });
    match a.recv() {
        FromAgent::Refused { index, message } => {
            assert_eq!(index, Some(3));
            assert!(message.contains(dev.path_str()), "{message}");
            assert!(!message.contains('\n'), "{message}");
            // The line a local run prints for the same target.
            let local = Command::new(env!("CARGO_BIN_EXE_iolab"))
                .args(["run", "--target", dev.path_str(), "--rw", "randwrite"])
                .args(["--duration", "0.3s", "--dry-run"])
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&local.stderr);
            assert_eq!(err.trim_end(), format!("iolab: {message}"));
        }
        m => panic!("expected Refused, got {m:?}"),
    }
    // Still up: it answers, and takes the next run.
    a.send(&ToAgent::Ping { seq: 9 });
    assert!(matches!(a.recv(), FromAgent::Pong { seq: 9, .. }));
    a.send(&ToAgent::Bye);
    assert_eq!(a.exit_within(WAIT).code(), Some(0));
}

/// The frames of a bad session after the hello, and what the agent must
/// say about it.
fn bad_sessions(missing: &Path, file: &Path) -> Vec<(&'static str, Vec<u8>, &'static str)> {
    let frame = |m: &ToAgent| {
        let mut v = Vec::new();
        proto::write_frame(&mut v, m).unwrap();
        v
    };
    let run = |index, p: &Path| ToAgent::Run {
        index,
        spec: read_run(p, 5.0),
    };
    let mut truncated = frame(&run(0, missing));
    truncated.truncate(truncated.len() - 10);
    let mut oversized = MAGIC.to_vec();
    oversized.extend_from_slice(&((MAX_FRAME + 1) as u32).to_be_bytes());
    oversized.extend_from_slice(&[b'{'; 64]);
    let mut no_spec = MAGIC.to_vec();
    let p = br#"{"type":"run","index":0}"#;
    no_spec.extend_from_slice(&(p.len() as u32).to_be_bytes());
    no_spec.extend_from_slice(p);
    let mut second = frame(&run(0, file));
    second.extend(frame(&run(1, missing)));
    vec![
        ("truncated", truncated, "inside a frame"),
        ("oversized", oversized, "above the protocol's limit"),
        ("no spec", no_spec, "missing field"),
        ("garbage", b"rm -rf /\n".to_vec(), "protocol marker"),
        (
            "start first",
            frame(&ToAgent::Start { index: 0, at_ns: 0 }),
            "no run is set up",
        ),
        ("second run", second, "while run 0 is in progress"),
    ]
}

#[test]
fn bad_frames_end_the_agent_with_exit_2_touching_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = data_file(dir.path(), 1);
    let missing = dir.path().join("never-created.bin");
    for (what, bytes, said) in bad_sessions(&missing, &file) {
        let mut a = Agent::hello(100, 5000);
        a.send_bytes(&bytes);
        if what == "truncated" {
            a.close_stdin();
        }
        let st = a.exit_within(WAIT);
        assert_eq!(st.code(), Some(2), "{what}");
        let err = a.stderr();
        assert!(err.contains(said), "{what}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{what}: {err}");
        let last = std::iter::from_fn(|| a.frames.recv_timeout(WAIT).ok()).last();
        match last {
            Some(FromAgent::Error { message }) => assert!(message.contains(said), "{message}"),
            m => panic!("{what}: expected Error last, got {m:?}"),
        }
        assert!(!missing.exists(), "{what}: the agent created {missing:?}");
    }
    // A garbage first frame, before any hello.
    let mut a = Agent::spawn();
    a.send_bytes(b"SSH-2.0-banner\r\n\0\0\0\0");
    assert_eq!(a.exit_within(WAIT).code(), Some(2));
    assert!(a.stderr().contains("malformed"));
}

#[test]
fn a_closed_stdin_mid_run_ends_the_agent_promptly() {
    let dir = tempfile::tempdir().unwrap();
    let file = data_file(dir.path(), 4);
    let mut a = Agent::hello(100, 60_000);
    start_run(&mut a, 0, read_run(&file, 60.0));
    while !matches!(a.recv(), FromAgent::Interval { .. }) {}
    let pid = a.child.id();
    let t = Instant::now();
    a.close_stdin();
    let st = a.exit_within(Duration::from_secs(5));
    assert!(!st.success(), "{st:?}");
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    assert!(!Path::new(&format!("/proc/{pid}")).exists(), "left behind");
    assert!(a.stderr().contains("gone"));
}

#[test]
fn a_silent_controller_stops_the_run_and_the_agent() {
    let dir = tempfile::tempdir().unwrap();
    let file = data_file(dir.path(), 4);
    // Heartbeats every 50 ms from the agent; 400 ms of silence is the end.
    let mut a = Agent::hello(50, 400);
    a.send(&ToAgent::Run {
        index: 0,
        spec: read_run(&file, 60.0),
    });
    let t = Instant::now();
    let st = a.exit_within(Duration::from_secs(5));
    assert!(!st.success(), "{st:?}");
    let took = t.elapsed();
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    let heartbeats = std::iter::from_fn(|| a.frames.recv_timeout(WAIT).ok())
        .filter(|m| matches!(m, FromAgent::Heartbeat))
        .count();
    assert!(heartbeats >= 3, "{heartbeats} heartbeats");
    assert!(a
        .stderr()
        .contains("nothing from the controller for 400 ms"));
}

#[test]
fn a_controller_that_stops_reading_ends_the_agent() {
    use std::os::unix::net::UnixStream;
    let dir = tempfile::tempdir().unwrap();
    let file = data_file(dir.path(), 4);
    // The agent's stdout is a socket, so the test can close its reading
    // end while the agent writes (a pipe's reader is the reader thread's).
    let (ours, theirs) = UnixStream::pair().unwrap();
    let reader = ours.try_clone().unwrap();
    let stdout = Stdio::from(std::os::fd::OwnedFd::from(theirs));
    let mut a = Agent::spawn_to(stdout, Some(Box::new(reader)));
    a.send(&hello_msg(VERSION, 20, 60_000));
    assert!(matches!(a.recv(), FromAgent::Hello { .. }));
    start_run(&mut a, 0, read_run(&file, 60.0));
    while !matches!(a.recv(), FromAgent::Interval { .. }) {}
    let t = Instant::now();
    ours.shutdown(std::net::Shutdown::Read).unwrap();
    // The next heartbeat or interval fails with EPIPE: the controller is
    // gone, the run stops and the agent exits.
    let st = a.exit_within(Duration::from_secs(5));
    assert!(!st.success(), "{st:?}");
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    let err = a.stderr();
    assert!(err.contains("writing to the controller failed"), "{err}");
}
