//! `iolab run --hosts` end to end over OpenSSH (the default channel):
//! private sshds (testutil's sshd harness, on 127.0.0.1 ports or in
//! network namespaces) start this build's binary as the agent. Two hosts
//! each on its own loop device, checked against the devices' diskstats
//! and the per-host histograms of the document; per-host target names
//! from a job file's map and a host file; a host whose link is cut and
//! one whose agent is killed; refused logins and another version through
//! the CLI; no listening socket of the run's; Ctrl-C. Every agent is
//! started through a symlink private to its test, so the test finds
//! (and, on failure, kills) exactly its own agents by their path.

mod common;
use common::*;
use iolab_testutil::sshd::{Broken, Sshd};
use iolab_testutil::{diskstats, require, require_root, require_sshd, require_tool, LoopDevice};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("iolab")
}

/// A test's scratch directory: the agent's path (a symlink to this
/// build's iolab), the ssh_config, job files and result documents. On
/// drop every agent started through the symlink is killed.
struct Bed {
    dir: tempfile::TempDir,
}

impl Bed {
    fn new() -> Bed {
        let dir = tempfile::Builder::new()
            .prefix("iolab-multi-ssh.")
            .tempdir()
            .unwrap();
        std::os::unix::fs::symlink(bin(), dir.path().join("iolab")).unwrap();
        Bed { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn agent(&self) -> String {
        self.path().join("iolab").display().to_string()
    }

    /// One ssh_config with every server's aliases (each server's own
    /// `Host` block).
    fn config(&self, servers: &[(&Sshd, Option<Broken>)]) -> String {
        let mut text = String::new();
        for (s, how) in servers {
            let p = match how {
                Some(b) => s.broken_config(*b).unwrap(),
                None => s.config(),
            };
            text += &std::fs::read_to_string(p).unwrap();
        }
        let p = self.path().join("ssh_config");
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    }

    /// `run --hosts HOSTS` over ssh with `cfg`, this bed's agent, a 2 s
    /// host timeout and the document in r.json.
    fn args(&self, hosts: &str, cfg: &str, more: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = [
            "run",
            "--ssh-config",
            cfg,
            "--agent-path",
            &self.agent(),
            "--host-timeout",
            "2s",
            "--json",
            "r.json",
        ]
        .map(String::from)
        .to_vec();
        if !hosts.is_empty() {
            v.extend(["--hosts".to_string(), hosts.to_string()]);
        }
        v.extend(more.iter().map(|s| s.to_string()));
        v
    }

    /// The pids of the agents started through this bed's path (argv[0]
    /// the path, argv[1] `agent`: not ssh's or a shell's command line).
    fn agents(&self) -> Vec<i32> {
        let me = self.agent();
        let mut out = Vec::new();
        for e in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
                continue;
            };
            let Ok(cmd) = std::fs::read(e.path().join("cmdline")) else {
                continue;
            };
            let argv: Vec<&[u8]> = cmd.split(|b| *b == 0).collect();
            if argv.len() > 1 && argv[0] == me.as_bytes() && argv[1] == b"agent" {
                out.push(pid);
            }
        }
        out
    }

    /// The agents whose session came from `sshd` (its environment marker).
    fn agents_of(&self, sshd: &Sshd) -> Vec<i32> {
        let of: Vec<i32> = sshd.session_pids().iter().map(|&p| p as i32).collect();
        self.agents().into_iter().filter(|p| of.contains(p)).collect()
    }

    fn doc(&self) -> Value {
        let text = std::fs::read_to_string(self.path().join("r.json")).expect("a result document");
        serde_json::from_str(&text).unwrap()
    }

    /// Wait until the document says a run is in progress.
    fn wait_started(&self) {
        let p = self.path().join("r.json");
        assert!(
            wait_until(Duration::from_secs(30), || std::fs::read_to_string(&p)
                .is_ok_and(|s| s.contains("in progress"))),
            "the run did not start"
        );
    }
}

impl Drop for Bed {
    fn drop(&mut self) {
        for pid in self.agents() {
            // SAFETY: an agent started through this test's own path.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// A controller in the background (stdout and stderr to files in the
/// bed), killed when dropped.
struct Controller {
    child: Option<Child>,
    out: PathBuf,
}

impl Controller {
    fn start(bed: &Bed, args: &[String]) -> Controller {
        let out = bed.path().join("stdout");
        let child = Command::new(bin())
            .args(args)
            .current_dir(bed.path())
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::create(bed.path().join("stderr")).unwrap())
            .spawn()
            .unwrap();
        Controller {
            child: Some(child),
            out,
        }
    }

    fn pid(&self) -> i32 {
        self.child.as_ref().unwrap().id() as i32
    }

    fn running(&mut self) -> bool {
        self.child.as_mut().unwrap().try_wait().unwrap().is_none()
    }

    /// Wait (at most `limit`) for the controller's end.
    fn wait(mut self, limit: Duration) -> Output {
        let mut child = self.child.take().unwrap();
        let end = Instant::now() + limit;
        let status = loop {
            if let Some(st) = child.try_wait().unwrap() {
                break st;
            }
            if Instant::now() > end {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "the controller did not end in {limit:?}: {}",
                    std::fs::read_to_string(self.out.with_file_name("stderr")).unwrap()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Output {
            status,
            stdout: std::fs::read(&self.out).unwrap(),
            stderr: std::fs::read(self.out.with_file_name("stderr")).unwrap(),
        }
    }
}

impl Drop for Controller {
    fn drop(&mut self) {
        if let Some(c) = self.child.as_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Wait until `cond` holds, polling; false after `limit`.
fn wait_until(limit: Duration, cond: impl Fn() -> bool) -> bool {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    cond()
}

/// The (value_ns -> count) of the histograms `hs` merged (their buckets
/// added), from the document's own numbers.
fn merged_buckets<'a>(hs: impl Iterator<Item = &'a Value>) -> BTreeMap<u64, u64> {
    let mut m = BTreeMap::new();
    for h in hs {
        for b in h["buckets"].as_array().unwrap() {
            *m.entry(b[0].as_u64().unwrap()).or_insert(0) += b[1].as_u64().unwrap();
        }
    }
    m
}

/// The q-percentile of `m` by docs/results.md's rank rule: the smallest
/// stored value with at least ceil(q * count) values at or below it.
fn percentile(m: &BTreeMap<u64, u64>, q: f64) -> u64 {
    let count: u64 = m.values().sum();
    let rank = ((q * count as f64).ceil() as u64).max(1);
    let mut seen = 0;
    for (v, c) in m {
        seen += c;
        if seen >= rank {
            return *v;
        }
    }
    0
}

fn hosts_of(run: &Value) -> &Vec<Value> {
    ptr(run, "hosts").as_array().unwrap()
}

fn names(run: &Value) -> Vec<String> {
    hosts_of(run)
        .iter()
        .map(|h| h["host"].as_str().unwrap().to_string())
        .collect()
}

/// Every aggregate count of `run` in direction `dir` is the sum of its
/// hosts', and its percentiles those of the hosts' histograms merged.
fn check_aggregate(run: &Value, dir: &str) {
    let hosts = hosts_of(run);
    for k in ["ops", "bytes"] {
        for d in [dir, "total"] {
            let sum: u64 = hosts
                .iter()
                .map(|h| u(h, &format!("summary/{d}/{k}")))
                .sum();
            assert_eq!(u(run, &format!("summary/{d}/{k}")), sum, "{d} {k}");
        }
    }
    let m = merged_buckets(
        hosts
            .iter()
            .map(|h| ptr(h, &format!("latency_histograms/{dir}"))),
    );
    assert_eq!(
        m.values().sum::<u64>(),
        u(run, &format!("summary/{dir}/ops")),
        "the merged histograms do not count every I/O"
    );
    for (q, key) in [(0.5, "p50"), (0.99, "p99"), (0.999, "p99_9")] {
        let want = percentile(&m, q) as f64 / 1e3;
        let got = f(run, &format!("summary/{dir}/lat_us/{key}"));
        eprintln!("{dir} {key}: {got} us (merged histograms: {want} us)");
        assert!(
            (got - want).abs() < 0.0015,
            "{dir} {key}: {got} us, the merged histograms give {want}"
        );
    }
}

/// The lines of `out` starting with `prefix` and a space.
fn count_lines(out: &str, prefix: &str) -> usize {
    let p = format!("{prefix} ");
    out.lines().filter(|l| l.starts_with(&p)).count()
}

/// Loop devices for two hosts, after udev's first look at them.
fn two_devices() -> (LoopDevice, LoopDevice) {
    let a = LoopDevice::new(256 << 20, true).unwrap();
    let b = LoopDevice::new(256 << 20, true).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    (a, b)
}

/// (ops, bytes) a device did in direction `dir` between two diskstats.
fn moved(before: (u64, u64, u64, u64), after: (u64, u64, u64, u64), dir: &str) -> (u64, u64) {
    match dir {
        "read" => (after.0 - before.0, (after.1 - before.1) * 512),
        _ => (after.2 - before.2, (after.3 - before.3) * 512),
    }
}

#[test]
fn two_hosts_over_ssh_each_match_their_device_and_the_total_is_their_sum() {
    require_root!();
    require_sshd!();
    let sshd = Sshd::start(&["h1", "h2"]).unwrap();
    // Reads and writes in runs of their own: udev reads a device again
    // after a writer closes it, which would count among a run's reads.
    for (rw, dir) in [("randwrite", "write"), ("randread", "read")] {
        let (a, b) = two_devices();
        let bed = Bed::new();
        let cfg = bed.config(&[(&sshd, None)]);
        let (ta, tb) = (format!("h1:{}", a.path_str()), format!("h2:{}", b.path_str()));
        let args = bed.args(
            "h1,h2",
            &cfg,
            &[
                "--target", &ta, "--target", &tb, "--destroy-data-on", &ta,
                "--destroy-data-on", &tb, "--rw", rw, "--bs", "4k", "--qd", "4",
                "--duration", "1.5s", "--interval", "0.5s",
            ],
        );
        let before = [diskstats(&a.name()).unwrap(), diskstats(&b.name()).unwrap()];
        let o = Controller::start(&bed, &args).wait(Duration::from_secs(60));
        let after = [diskstats(&a.name()).unwrap(), diskstats(&b.name()).unwrap()];
        assert!(o.status.success(), "{}\n{}", stderr(&o), sshd.log());
        let doc = bed.doc();
        let run = &ptr(&doc, "runs")[0];
        assert_eq!(names(run), ["h1", "h2"]);
        let within = |a: u64, b: u64| (a as f64 - b as f64).abs() <= b.max(1) as f64 * 0.01;
        for (i, h) in hosts_of(run).iter().enumerate() {
            let (ops, bytes) = moved(before[i], after[i], dir);
            let mine_ops = u(h, &format!("summary/{dir}/ops"));
            let mine = u(h, &format!("summary/{dir}/bytes"));
            eprintln!(
                "{rw} {}: iolab {mine_ops} I/Os {mine} B, the device {ops} I/Os {bytes} B",
                h["host"]
            );
            assert!(mine > 0, "{rw} {}: no I/O", h["host"]);
            assert!(within(ops, mine_ops), "{rw} {}: device {ops}, iolab {mine_ops}", h["host"]);
            assert!(within(bytes, mine), "{rw} {}: device {bytes} B, iolab {mine}", h["host"]);
            // Each host's record names its own device.
            let path = h["targets"][0]["path"].as_str().unwrap_or_default();
            assert!(path.ends_with(&[&a, &b][i].name()), "{} on {path}", h["host"]);
        }
        check_aggregate(run, dir);
        eprintln!(
            "{rw}: start skew {:.1} us; clocks {} {}",
            f(run, "start_skew_us"),
            hosts_of(run)[0]["clock"],
            hosts_of(run)[1]["clock"]
        );
        // A line per host and the total, per interval.
        let out = stdout(&o);
        assert!(count_lines(&out, "h1") >= 2, "{out}");
        assert_eq!(count_lines(&out, "h1"), count_lines(&out, "h2"), "{out}");
        assert_eq!(count_lines(&out, "h1"), count_lines(&out, "total"), "{out}");
        assert!(
            wait_until(Duration::from_secs(5), || bed.agents().is_empty()),
            "agents left: {:?}",
            bed.agents()
        );
    }
}
