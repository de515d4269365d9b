//! The fleet: every host's agent started in parallel, then one reader
//! thread per agent feeding one queue, a watchdog sending heartbeats and
//! declaring hosts lost, clocks measured again on demand, and a close
//! that leaves nothing behind (agents, ssh masters, pushed binaries).

use super::start::{self, Job, Started};
use super::{measure, now_ns, AgentInfo, ClockOffset, LinkEvent, LinkOptions};
use crate::channel::{Channel, ControlDir};
use crate::process::{kill_group, Proc};
use crate::proto::{self, FrameError, FromAgent, ToAgent};
use iolab_spec::HostSpec;
use std::io::BufReader;
use std::path::Path;
use std::process::{ChildStdin, ChildStdout};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

/// How long `close` waits for the agents to end after `Bye`.
const GRACE: Duration = Duration::from_secs(2);

type Events = Sender<(usize, LinkEvent)>;

/// A pong as the reader saw it: (seq, agent's clock, arrival).
type Pong = (u32, i64, i64);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// One connected agent, shared by the fleet, its reader and the watchdog.
struct Link {
    index: usize,
    pid: u32,
    proc: Mutex<Proc>,
    writer: Mutex<Option<ChildStdin>>,
    last_seen: Mutex<Instant>,
    lost: AtomicBool,
    closing: AtomicBool,
    events: Events,
}

impl Link {
    /// Say host lost (once, unless closing) and kill its channel.
    fn lose(&self, reason: String) {
        if self.closing.load(Ordering::SeqCst) || self.lost.swap(true, Ordering::SeqCst) {
            return;
        }
        let _ = self.events.send((
            self.index,
            LinkEvent::Lost {
                at: SystemTime::now(),
                reason,
            },
        ));
        let mut p = lock(&self.proc);
        if p.poll().is_none() {
            kill_group(self.pid);
        }
    }

    /// How the channel ended, waiting for it at most `d`: its status and
    /// the last line it said.
    fn ending(&self, d: Duration) -> String {
        let until = Instant::now() + d;
        loop {
            let mut p = lock(&self.proc);
            if p.poll().is_some() || Instant::now() >= until {
                let st = p.describe();
                return match p.tail.last_line() {
                    Some(l) => format!("{st}: {l}"),
                    None => st,
                };
            }
            drop(p);
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn write(&self, m: &ToAgent) -> Result<(), String> {
        let mut w = lock(&self.writer);
        let w = w.as_mut().ok_or("the session is closed")?;
        proto::write_frame(w, m).map_err(|e| e.to_string())
    }
}

/// Every connected host.
pub struct Fleet {
    hosts: Vec<HostSpec>,
    channel: Channel,
    ctl: Option<ControlDir>,
    links: Vec<Arc<Link>>,
    infos: Vec<AgentInfo>,
    clocks: Vec<Option<ClockOffset>>,
    pushed: Vec<Option<String>>,
    pongs: Vec<Mutex<Receiver<Pong>>>,
    events: Mutex<Receiver<(usize, LinkEvent)>>,
    readers: Vec<JoinHandle<()>>,
    watchdog: Option<JoinHandle<()>>,
    stop: Arc<AtomicBool>,
    seq: AtomicU32,
    opts: LinkOptions,
    closed: bool,
}

impl Fleet {
    /// Start and greet an agent on every host, in parallel; measure each
    /// clock. The first failure (a refused connection, a version other
    /// than ours, another architecture with `--push`) is one line naming
    /// the host, and every agent already started is stopped.
    pub fn connect(
        hosts: &[HostSpec],
        channel: &Channel,
        opts: &LinkOptions,
    ) -> Result<Fleet, String> {
        Fleet::connect_with(hosts, channel, opts, None)
    }

    /// [`Fleet::connect`], `--push` copying `exe` instead of this binary.
    pub fn connect_with(
        hosts: &[HostSpec],
        channel: &Channel,
        opts: &LinkOptions,
        exe: Option<&Path>,
    ) -> Result<Fleet, String> {
        let ctl = if channel.is_ssh() {
            Some(ControlDir::new()?)
        } else {
            None
        };
        let ctl_path = ctl.as_ref().map(|c| c.path());
        let results: Vec<Result<Started, String>> = std::thread::scope(|s| {
            let handles: Vec<_> = hosts
                .iter()
                .enumerate()
                .map(|(index, host)| {
                    let job = Job {
                        index,
                        host,
                        channel,
                        ctl: ctl_path,
                        opts,
                        exe,
                        hosts: hosts.len(),
                    };
                    s.spawn(move || start::start(&job))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err("a connecting thread panicked".into()))
                })
                .collect()
        });
        if let Some(e) = results.iter().find_map(|r| r.as_ref().err()) {
            let e = e.clone();
            abandon(results, hosts, channel, ctl.as_ref().map(|c| c.path()));
            return Err(e);
        }
        let started = results.into_iter().filter_map(Result::ok).collect();
        Ok(Fleet::assemble(hosts, channel, opts, ctl, started))
    }

    /// The fleet of started agents: readers and watchdog running.
    fn assemble(
        hosts: &[HostSpec],
        channel: &Channel,
        opts: &LinkOptions,
        ctl: Option<ControlDir>,
        started: Vec<Started>,
    ) -> Fleet {
        let (tx, rx) = mpsc::channel();
        let mut f = Fleet {
            hosts: hosts.to_vec(),
            channel: channel.clone(),
            ctl,
            links: Vec::new(),
            infos: Vec::new(),
            clocks: Vec::new(),
            pushed: Vec::new(),
            pongs: Vec::new(),
            events: Mutex::new(rx),
            readers: Vec::new(),
            watchdog: None,
            stop: Arc::new(AtomicBool::new(false)),
            seq: AtomicU32::new(1 << 16),
            opts: *opts,
            closed: false,
        };
        for (index, mut s) in started.into_iter().enumerate() {
            let (ptx, prx) = mpsc::channel();
            let link = Arc::new(Link {
                index,
                pid: s.proc.pid(),
                writer: Mutex::new(s.proc.stdin.take()),
                proc: Mutex::new(s.proc),
                last_seen: Mutex::new(Instant::now()),
                lost: AtomicBool::new(false),
                closing: AtomicBool::new(false),
                events: tx.clone(),
            });
            let l = link.clone();
            let out = s.out;
            f.readers
                .push(std::thread::spawn(move || read_loop(&l, out, ptx)));
            f.links.push(link);
            f.infos.push(s.info);
            f.clocks.push(Some(s.clock));
            f.pushed.push(s.pushed);
            f.pongs.push(Mutex::new(prx));
        }
        let (links, stop, opts) = (f.links.clone(), f.stop.clone(), *opts);
        f.watchdog = Some(std::thread::spawn(move || watch(&links, &stop, opts)));
        f
    }

    /// The hosts, in the order given.
    pub fn hosts(&self) -> &[HostSpec] {
        &self.hosts
    }

    /// The private directory of ssh's multiplexing sockets (removed by
    /// `close`), for an ssh channel.
    pub fn control_dir(&self) -> Option<&Path> {
        self.ctl.as_ref().map(|c| c.path())
    }

    /// The directory `--push` made on host `i`.
    pub fn pushed_dir(&self, i: usize) -> Option<&str> {
        self.pushed.get(i).and_then(|p| p.as_deref())
    }

    /// Host `i`'s hello.
    pub fn info(&self, i: usize) -> &AgentInfo {
        &self.infos[i]
    }

    /// Measure every live host's clock again (before each run), in
    /// parallel; None for a host lost or not answering within the
    /// timeout.
    pub fn sync_clocks(&mut self) -> Vec<Option<ClockOffset>> {
        let base = self.seq.fetch_add(1 << 16, Ordering::SeqCst);
        let got: Vec<Option<ClockOffset>> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..self.links.len())
                .map(|i| {
                    let me = &*self;
                    s.spawn(move || me.measure_one(i, base))
                })
                .collect();
            hs.into_iter().map(|h| h.join().ok().flatten()).collect()
        });
        for (i, c) in got.iter().enumerate() {
            if c.is_some() || self.is_lost(i) {
                self.clocks[i] = *c;
            }
        }
        got
    }

    /// Host `i`'s clock, probes numbered from `base`.
    fn measure_one(&self, i: usize, base: u32) -> Option<ClockOffset> {
        let link = &self.links[i];
        if link.lost.load(Ordering::SeqCst) {
            return None;
        }
        let rx = lock(&self.pongs[i]);
        while rx.try_recv().is_ok() {}
        let timeout = self.opts.timeout;
        measure(
            self.opts.clock_rounds,
            |seq| link.write(&ToAgent::Ping { seq: base + seq }),
            |seq| loop {
                match rx.recv_timeout(timeout) {
                    Ok((s, clock, at)) if s == base + seq => return Ok((clock, at)),
                    Ok(_) => continue,
                    Err(_) => return Err("no pong".to_string()),
                }
            },
        )
        .ok()
    }

    /// Host `i`'s last measured clock.
    pub fn clock(&self, i: usize) -> Option<ClockOffset> {
        self.clocks.get(i).copied().flatten()
    }

    /// Send `m` to host `i`; an error when it is lost.
    pub fn send(&self, i: usize, m: &ToAgent) -> Result<(), String> {
        let link = self.links.get(i).ok_or("no such host")?;
        let name = &self.hosts[i].name;
        if link.lost.load(Ordering::SeqCst) {
            return Err(format!("host {name} is lost"));
        }
        link.write(m).map_err(|e| {
            link.lose(format!("writing to its agent failed: {e}"));
            format!("host {name}: writing to its agent failed: {e}")
        })
    }

    /// Whether host `i` was lost.
    pub fn is_lost(&self, i: usize) -> bool {
        self.links
            .get(i)
            .is_none_or(|l| l.lost.load(Ordering::SeqCst))
    }

    /// The next event from any host, waiting at most `d`.
    pub fn recv_timeout(&self, d: Duration) -> Option<(usize, LinkEvent)> {
        lock(&self.events).recv_timeout(d).ok()
    }

    /// End the session: `Bye` to every live agent, wait for the channels
    /// to close (killing what does not within a grace time), remove
    /// pushed binaries. Notes about what had to be forced.
    pub fn close(mut self) -> Vec<String> {
        self.shutdown()
    }

    /// What `close` does (and a drop without it).
    fn shutdown(&mut self) -> Vec<String> {
        if self.closed {
            return Vec::new();
        }
        self.closed = true;
        self.stop.store(true, Ordering::SeqCst);
        for l in &self.links {
            l.closing.store(true, Ordering::SeqCst);
            if !l.lost.load(Ordering::SeqCst) {
                let _ = l.write(&ToAgent::Bye);
            }
            // The agent also reads the end of its stdin as the end.
            *lock(&l.writer) = None;
        }
        let forced = self.wait_or_kill();
        let mut notes: Vec<String> = forced
            .iter()
            .zip(&self.hosts)
            .filter(|(f, _)| **f)
            .map(|(_, h)| {
                format!(
                    "host {}: its agent's channel did not end within {} s of the end of the session; it was killed",
                    h.name,
                    GRACE.as_secs()
                )
            })
            .collect();
        notes.extend(self.remove_copies(&forced));
        let until = Instant::now() + Duration::from_secs(1);
        for r in self.readers.drain(..) {
            join_within(r, until.saturating_duration_since(Instant::now()));
        }
        if let Some(w) = self.watchdog.take() {
            let _ = w.join();
        }
        self.end_masters();
        notes
    }

    /// Remove the `--push` copies of the hosts whose session did not end
    /// by itself (the agent's shell removes it otherwise), in parallel:
    /// notes about those that could not be.
    fn remove_copies(&self, forced: &[bool]) -> Vec<String> {
        let ctl = self.ctl.as_ref().map(|c| c.path());
        std::thread::scope(|s| {
            let hs: Vec<_> = (0..self.links.len())
                .filter(|&i| forced[i] || self.links[i].lost.load(Ordering::SeqCst))
                .filter_map(|i| Some((i, self.pushed[i].as_deref()?)))
                .map(|(i, d)| {
                    let h = &self.hosts[i];
                    s.spawn(move || {
                        (!self.channel.remove_pushed(ctl, h, i, d)).then(|| format!(
                            "host {}: the copy of iolab in {d} (--push) could not be removed; remove it there by hand",
                            h.name
                        ))
                    })
                })
                .collect();
            hs.into_iter()
                .filter_map(|h| h.join().ok().flatten())
                .collect()
        })
    }

    /// Wait up to the grace time for every channel; kill the rest. Which
    /// were killed.
    fn wait_or_kill(&self) -> Vec<bool> {
        let until = Instant::now() + GRACE;
        let mut forced = Vec::new();
        for l in &self.links {
            let mut p = lock(&l.proc);
            let left = until.saturating_duration_since(Instant::now());
            let ended = p.wait_for(left).is_some();
            p.kill();
            forced.push(!ended);
        }
        forced
    }

    /// `ssh -O exit` for every host, then the control directory removed.
    fn end_masters(&mut self) {
        if let Some(ctl) = self.ctl.take() {
            for (i, h) in self.hosts.iter().enumerate() {
                if has_socket(ctl.path(), i) {
                    self.channel.exit_master(ctl.path(), h, i);
                }
            }
        }
    }
}

impl Drop for Fleet {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Whether host `i`'s ssh master socket is in `dir`.
fn has_socket(dir: &Path, i: usize) -> bool {
    let pre = format!("{i}-");
    std::fs::read_dir(dir).is_ok_and(|rd| {
        rd.flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(&pre))
    })
}

/// Join `t` if it ends within `d` (else leave it: it ends with its
/// stream).
fn join_within(t: JoinHandle<()>, d: Duration) {
    let until = Instant::now() + d;
    while !t.is_finished() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
    if t.is_finished() {
        let _ = t.join();
    }
}

/// A failed connect: stop every agent that started, remove its copy, end
/// the ssh masters.
fn abandon(
    results: Vec<Result<Started, String>>,
    hosts: &[HostSpec],
    channel: &Channel,
    ctl: Option<&Path>,
) {
    let mut live: Vec<(usize, Started)> = results
        .into_iter()
        .enumerate()
        .filter_map(|(i, r)| r.ok().map(|s| (i, s)))
        .collect();
    for (_, s) in live.iter_mut() {
        if let Some(w) = s.proc.stdin.as_mut() {
            let _ = proto::write_frame(w, &ToAgent::Bye);
        }
        s.proc.stdin = None;
    }
    let until = Instant::now() + GRACE;
    for (i, s) in live.iter_mut() {
        let ended = s
            .proc
            .wait_for(until.saturating_duration_since(Instant::now()))
            .is_some();
        s.proc.kill();
        if let (Some(d), false) = (&s.pushed, ended) {
            channel.remove_pushed(ctl, &hosts[*i], *i, d);
        }
    }
    if let Some(c) = ctl {
        for (i, h) in hosts.iter().enumerate() {
            if has_socket(c, i) {
                channel.exit_master(c, h, i);
            }
        }
    }
}

/// Host `link.index`'s reader: every frame decoded; heartbeats refresh
/// the last-seen time, pongs go to the clock, the rest to the queue.
fn read_loop(link: &Link, mut out: BufReader<ChildStdout>, pongs: Sender<Pong>) {
    loop {
        match proto::read_message::<_, FromAgent>(&mut out) {
            // Nothing from a host follows its loss.
            Ok(_) if link.lost.load(Ordering::SeqCst) => return,
            Ok(m) => {
                let at = now_ns();
                *lock(&link.last_seen) = Instant::now();
                match m {
                    FromAgent::Heartbeat => {}
                    FromAgent::Pong { seq, clock_ns } => {
                        let _ = pongs.send((seq, clock_ns, at));
                    }
                    m => {
                        let _ = link
                            .events
                            .send((link.index, LinkEvent::Message(Box::new(m))));
                    }
                }
            }
            Err(e) => {
                let what = match &e {
                    FrameError::Eof => "the agent's channel closed".to_string(),
                    e => format!("the agent's stream failed ({e})"),
                };
                if !link.closing.load(Ordering::SeqCst) {
                    let how = link.ending(Duration::from_secs(1));
                    link.lose(format!("{what} ({how})"));
                }
                return;
            }
        }
    }
}

/// The watchdog: a heartbeat to every live agent each `heartbeat`; a
/// host silent for `timeout`, or whose channel ended, is lost.
fn watch(links: &[Arc<Link>], stop: &AtomicBool, opts: LinkOptions) {
    let tick = opts.heartbeat.min(Duration::from_millis(100));
    let mut last_beat = Instant::now();
    let mut ended_at: Vec<Option<Instant>> = vec![None; links.len()];
    while !stop.load(Ordering::SeqCst) {
        std::thread::sleep(tick);
        let beat = last_beat.elapsed() >= opts.heartbeat;
        if beat {
            last_beat = Instant::now();
        }
        for (i, l) in links.iter().enumerate() {
            if l.lost.load(Ordering::SeqCst) || l.closing.load(Ordering::SeqCst) {
                continue;
            }
            if beat {
                // A writer blocked on a full pipe must not stop the
                // watchdog: skip this beat then.
                if let Ok(mut w) = l.writer.try_lock() {
                    if let Some(w) = w.as_mut() {
                        if let Err(e) = proto::write_frame(w, &ToAgent::Heartbeat) {
                            l.lose(format!("writing to its agent failed: {e}"));
                            continue;
                        }
                    }
                }
            }
            let silent = lock(&l.last_seen).elapsed();
            if silent >= opts.timeout {
                l.lose(format!(
                    "nothing from its agent for {:.1} s",
                    silent.as_secs_f64()
                ));
                continue;
            }
            check_ended(l, &mut ended_at[i]);
        }
    }
}

/// A channel that ended without its stream ending (something else holds
/// it open) is lost a second after.
fn check_ended(l: &Link, since: &mut Option<Instant>) {
    let ended = lock(&l.proc).poll().is_some();
    match since {
        None if ended => *since = Some(Instant::now()),
        Some(t) if t.elapsed() >= Duration::from_secs(1) => {
            let how = l.ending(Duration::ZERO);
            l.lose(format!("the agent's channel ended ({how})"));
        }
        _ => {}
    }
}
