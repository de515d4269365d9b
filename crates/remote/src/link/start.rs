//! Starting one host's agent: the copy (`--push`), the channel process,
//! the hellos and their versions, the first clock measurement; all
//! within the host timeout (a watchdog kills the channel at the deadline)
//! and, on failure, the one line saying why.

use super::{now_ns, AgentInfo, ClockOffset, LinkOptions};
use crate::channel::Channel;
use crate::process::{kill_group, Proc};
use crate::proto::{self, FrameError, FromAgent, ToAgent};
use crate::refuse;
use iolab_spec::HostSpec;
use std::io::{BufReader, Read};
use std::path::Path;
use std::process::ChildStdout;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// An agent greeted, its clock measured.
pub struct Started {
    pub proc: Proc,
    pub out: BufReader<ChildStdout>,
    pub info: AgentInfo,
    pub clock: ClockOffset,
    pub pushed: Option<String>,
}

/// Everything one host's start needs.
pub struct Job<'a> {
    pub index: usize,
    pub host: &'a HostSpec,
    pub channel: &'a Channel,
    pub ctl: Option<&'a Path>,
    pub opts: &'a LinkOptions,
    pub exe: Option<&'a Path>,
    /// How many hosts connect at once.
    pub hosts: usize,
}

/// Start and greet host `job.index`'s agent.
pub fn start(job: &Job) -> Result<Started, String> {
    let pushed = match (job.channel.push, job.exe) {
        (true, Some(exe)) => Some(job.channel.push(job.ctl, job.host, job.index, exe)?),
        (true, None) => {
            let exe = std::env::current_exe()
                .map_err(|e| format!("--push: cannot find this iolab's binary: {e}"))?;
            Some(job.channel.push(job.ctl, job.host, job.index, &exe)?)
        }
        _ => None,
    };
    let r = start_agent(job, pushed.as_deref());
    if r.is_err() {
        if let Some(d) = &pushed {
            job.channel.remove_pushed(job.ctl, job.host, job.index, d);
        }
    }
    let (proc, out, info, clock) = r?;
    Ok(Started {
        proc,
        out,
        info,
        clock,
        pushed,
    })
}

type Greeted = (Proc, BufReader<ChildStdout>, AgentInfo, ClockOffset);

/// Spawn the agent's channel and greet it, killed at the deadline.
fn start_agent(job: &Job, pushed: Option<&str>) -> Result<Greeted, String> {
    let argv = job.channel.agent_argv(pushed);
    let cmd = job.channel.command(job.ctl, job.host, job.index, &argv);
    let mut proc = Proc::spawn(cmd).map_err(|e| job.channel.spawn_error(&e))?;
    let limit = connect_time(job.opts, job.hosts);
    let (done, timed_out) = deadline(proc.pid(), limit);
    let mut out = BufReader::new(proc.stdout.take().expect("stdout is piped"));
    let r = greet(job, &mut proc, &mut out);
    let _ = done.send(());
    let late = timed_out.load(Ordering::SeqCst);
    match r {
        Ok((info, clock)) if !late => Ok((proc, out, info, clock)),
        r => {
            let said = if late {
                format!(
                    "host {}: no answer from its agent within {} s{}",
                    job.host.name,
                    limit.as_secs_f64(),
                    proc.tail
                        .last_line()
                        .map(|l| format!("; the channel said: {l}"))
                        .unwrap_or_default()
                )
            } else {
                r.err().unwrap_or_default()
            };
            proc.kill();
            Err(said)
        }
    }
}

/// The least time a host has to connect and greet: ssh's set-up (key
/// exchange, authentication, a login shell) takes longer than a
/// heartbeat's silence on a busy machine.
pub const CONNECT_TIME: Duration = Duration::from_secs(15);

/// How long a host may take to connect and greet when `hosts` connect at
/// once: the host timeout, at least [`CONNECT_TIME`] plus a quarter of a
/// second a host (the controller's own share of every handshake).
pub fn connect_time(opts: &LinkOptions, hosts: usize) -> Duration {
    opts.timeout
        .max(CONNECT_TIME + Duration::from_millis(250) * hosts as u32)
}

/// A thread that kills process group `pid` unless told it is done
/// within `d`; whether it did.
fn deadline(pid: u32, d: Duration) -> (mpsc::Sender<()>, Arc<AtomicBool>) {
    let (tx, rx) = mpsc::channel::<()>();
    let fired = Arc::new(AtomicBool::new(false));
    let f = fired.clone();
    std::thread::spawn(move || {
        if let Err(mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(d) {
            f.store(true, Ordering::SeqCst);
            kill_group(pid);
        }
    });
    (tx, fired)
}

/// Hellos both ways, versions compared, the clock measured.
fn greet(
    job: &Job,
    proc: &mut Proc,
    out: &mut BufReader<ChildStdout>,
) -> Result<(AgentInfo, ClockOffset), String> {
    let name = &job.host.name;
    let hello = ToAgent::Hello {
        protocol: proto::PROTOCOL,
        version: proto::VERSION.to_string(),
        heartbeat_ms: job.opts.heartbeat.as_millis() as u64,
        timeout_ms: job.opts.timeout.as_millis() as u64,
    };
    let mut stdin = proc.stdin.take();
    if let Some(w) = stdin.as_mut() {
        // A channel that failed shows in what it says, read below.
        let _ = proto::write_frame(w, &hello);
    }
    if let Some(text) = talk_before(out) {
        return Err(refuse::banner(name, &text));
    }
    let info = match next(out) {
        Ok(FromAgent::Hello {
            protocol,
            version,
            arch,
            host,
            pid,
        }) => {
            if protocol != proto::PROTOCOL || version != proto::VERSION {
                return Err(mismatch(name, &version, protocol));
            }
            AgentInfo {
                version,
                arch,
                host,
                pid,
            }
        }
        Ok(FromAgent::Refused { message, .. }) | Ok(FromAgent::Error { message }) => {
            return Err(format!("host {name}: {message}"))
        }
        Ok(other) => {
            return Err(format!(
                "host {name}: its agent answered the hello with {}; is it iolab's agent?",
                kind(&other)
            ))
        }
        Err(e) => return Err(failed(job, proc, out, e)),
    };
    let w = stdin.as_mut().ok_or("no stdin")?;
    let clock = super::measure(
        job.opts.clock_rounds,
        |seq| proto::write_frame(w, &ToAgent::Ping { seq }).map_err(|e| e.to_string()),
        |seq| pong(out, seq),
    )
    .map_err(|e| format!("host {name}: measuring its clock failed: {e}"))?;
    proc.stdin = stdin;
    Ok((info, clock))
}

/// What the remote side printed before the first frame, if it did not
/// start with the protocol's marker (looked at without consuming it).
fn talk_before(out: &mut BufReader<ChildStdout>) -> Option<Vec<u8>> {
    use std::io::BufRead;
    let buf = out.fill_buf().ok()?;
    let n = buf.len().min(proto::MAGIC.len());
    (n > 0 && buf[..n] != proto::MAGIC[..n]).then(|| buf[..buf.len().min(200)].to_vec())
}

/// The next message other than a heartbeat.
fn next(out: &mut BufReader<ChildStdout>) -> Result<FromAgent, FrameError> {
    loop {
        match proto::read_message(out)? {
            FromAgent::Heartbeat => continue,
            m => return Ok(m),
        }
    }
}

/// The pong `seq` and when it arrived.
fn pong(out: &mut BufReader<ChildStdout>, seq: u32) -> Result<(i64, i64), String> {
    loop {
        match next(out).map_err(|e| e.to_string())? {
            FromAgent::Pong { seq: s, clock_ns } if s == seq => return Ok((clock_ns, now_ns())),
            FromAgent::Pong { .. } => continue,
            m => return Err(format!("{} instead of a pong", kind(&m))),
        }
    }
}

/// A message's type, for a line.
fn kind(m: &FromAgent) -> String {
    serde_json::to_value(m)
        .ok()
        .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_string))
        .unwrap_or_else(|| "a message".into())
}

/// The refusal of another version.
pub fn mismatch(host: &str, version: &str, protocol: u32) -> String {
    format!(
        "host {host} runs iolab {version} (protocol {protocol}); this controller is {} (protocol {}): install the same version there or use --push",
        proto::VERSION,
        proto::PROTOCOL
    )
}

/// Why no hello came: what the channel printed or said.
fn failed(job: &Job, proc: &mut Proc, out: &mut BufReader<ChildStdout>, e: FrameError) -> String {
    let name = &job.host.name;
    match e {
        FrameError::BadMagic(b) => {
            let mut text = b.to_vec();
            let mut more = [0u8; 200];
            if let Ok(n) = out.read(&mut more) {
                text.extend_from_slice(&more[..n]);
            }
            refuse::banner(name, &text)
        }
        FrameError::TooLarge(_) | FrameError::BadMessage(_) => {
            format!(
                "host {name}: its agent does not speak iolab's protocol {}: {e}",
                proto::PROTOCOL
            )
        }
        FrameError::Eof | FrameError::Truncated { .. } | FrameError::Io(_) => {
            let st = proc.wait_for(Duration::from_secs(2));
            proc.join_tail();
            let said = refuse::refusal(
                name,
                job.channel.is_ssh(),
                st.and_then(|s| s.code()),
                &proc.tail.text(),
            );
            match &job.channel.agent_path {
                Some(p) if said.contains("no iolab in the remote PATH") => format!(
                    "host {name}: no agent at {p} there (--agent-path); install iolab there, fix the path, or use --push"
                ),
                _ => said,
            }
        }
    }
}
